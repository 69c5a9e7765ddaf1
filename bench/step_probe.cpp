// A short whole-step run for sizes whose 300-step benchmark takes too long (1e5 boxes): the same world as
// BM_Step_Tumble (bench/step_inputs.hpp), stepped `warm-up` steps and then `measured` steps, with the wall time
// per step (and process CPU time), the per-stage times of StepStats averaged over the measured steps, and the boxes
// below the level at the end.
//
// Usage: tumble_step_probe BOXES LEVEL THREADS WARMUP MEASURED [soft]   (LEVEL 0 medium, 1 large, 2 Box2D's pyramid of
// base BOXES on a ground box, sleeping off, as BM_Pyramid_Tumble; "lost" then counts boxes that moved more than 0.1 m;
// "soft[:SUBSTEPS[:HERTZ[:REUSE]]]": SolverMethod::soft_step instead of the default XPBD solver, with 4 substeps and
// contact_hertz 30 (Box2D v3's defaults) and WorldSettings::manifold_reuse_distance's default unless given)
//
// "first_lost" names the first box found below the level after a step (box -1: none), checked after every step, and
// "mesh_guards" sums StepStats::mesh_guards (bodies put back in front of a mesh face) over every step,
// outside the measured steps' timing (the warm-up time includes it). The last field, "state_hash", is
// tumble::samples::state_hash of the world at the end (the hash tumble-drop prints): the same for any THREADS.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "drop_scene.hpp"
#include "step_inputs.hpp"

int main(int argc, char** argv) {
    const bool soft = argc == 7 && std::string(argv[6]).rfind("soft", 0) == 0;
    int soft_substeps = 4;
    float soft_hertz = 30.0f, reuse = tumble::WorldSettings{}.manifold_reuse_distance;
    if (soft) std::sscanf(argv[6], "soft:%d:%f:%f", &soft_substeps, &soft_hertz, &reuse);
    if ((argc != 6 && !soft) || soft_substeps < 1 || !(soft_hertz > 0.0f) || !(reuse >= 0.0f)) {
        std::fprintf(stderr, "usage: %s BOXES LEVEL THREADS WARMUP MEASURED [soft[:SUBSTEPS[:HERTZ[:REUSE]]]]\n",
                     argv[0]);
        return 2;
    }
    const int boxes = std::atoi(argv[1]), level = std::atoi(argv[2]), threads = std::atoi(argv[3]);
    const int warmup = std::atoi(argv[4]), measured = std::atoi(argv[5]);
    if (boxes < 1 || level < 0 || level > 2 || threads < 1 || warmup < 0 || measured < 1) {
        std::fprintf(stderr,
                     "%s: bad arguments (boxes >= 1, level 0, 1 or 2, threads >= 1, warm-up >= 0, measured >= 1)\n",
                     argv[0]);
        return 2;
    }
    const bool pyramid = level == 2;
    tumble::WorldSettings settings;
    settings.threads = threads;
    settings.sleep.enabled = !pyramid;
    if (soft) {
        settings.solver.method = tumble::SolverMethod::soft_step;
        settings.solver.substeps = soft_substeps;
        settings.solver.contact_hertz = soft_hertz;
        settings.manifold_reuse_distance = reuse;
    }
    tumble::World world(settings);
    std::vector<tumble::BodyDef> defs;
    std::string name = "pyramid";
    float lowest = 0.0f;
    if (pyramid) {
        world.create_body(bench::pyramid_ground(boxes));
        defs = bench::pyramid_boxes(boxes);
    } else {
        const bench::DropInput& in = bench::drop_input(boxes, level);
        world.add_mesh(in.level);
        defs = in.boxes;
        name = in.level_name;
        lowest = in.lowest;
    }
    std::vector<tumble::BodyId> ids;
    for (const tumble::BodyDef& d : defs) ids.push_back(world.create_body(d));
    using Clock = std::chrono::steady_clock;
    const Clock::time_point t0 = Clock::now();
    // The first box found below the level (level runs): its index, the step after which it was found and where.
    int first_lost = -1, first_lost_step = -1;
    glm::vec3 first_lost_at(0.0f);
    // Bodies the step put back in front of a mesh face (StepStats::mesh_guards), summed over every step.
    std::size_t mesh_guards = 0;
    const auto find_lost = [&](int step) {
        mesh_guards += world.stats().mesh_guards;
        if (pyramid || first_lost >= 0) return;
        for (std::size_t i = 0; i < ids.size(); ++i) {
            const glm::vec3 p = world.body(ids[i]).position;
            if (p.y < lowest) {
                first_lost = static_cast<int>(i);
                first_lost_step = step;
                first_lost_at = p;
                return;
            }
        }
    };
    for (int s = 0; s < warmup; ++s) {
        world.step(1.0f / 60.0f);
        find_lost(s + 1);
    }
    const Clock::time_point t1 = Clock::now();
    Clock::duration wall{};
    std::clock_t cpu = 0;
    tumble::StepStats sum;
    for (int s = 0; s < measured; ++s) {
        const Clock::time_point before = Clock::now();
        const std::clock_t cpu_before = std::clock();
        world.step(1.0f / 60.0f);
        cpu += std::clock() - cpu_before;
        wall += Clock::now() - before;
        find_lost(warmup + s + 1);
        const tumble::StepStats& st = world.stats();
        sum.integrate_ms += st.integrate_ms;
        sum.broadphase_ms += st.broadphase_ms;
        sum.narrowphase_ms += st.narrowphase_ms;
        sum.solve_ms += st.solve_ms;
        sum.velocities_ms += st.velocities_ms;
        sum.report_ms += st.report_ms;
        sum.sleep_ms += st.sleep_ms;
        sum.manifolds += st.manifolds;
        sum.kept_manifolds += st.kept_manifolds;
        sum.body_pairs += st.body_pairs;
        sum.triangle_pairs += st.triangle_pairs;
        sum.kept_candidate_bodies += st.kept_candidate_bodies;
        sum.islands += st.islands;
        sum.awake_bodies += st.awake_bodies;
    }
    const double cpu_ms = 1000.0 * static_cast<double>(cpu) / CLOCKS_PER_SEC / measured;
    int lost = 0;
    float max_moved = 0.0f;  // metres from where a box was placed (the pyramid's measure of standing)
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const glm::vec3 p = world.body(ids[i]).position;
        max_moved = std::max(max_moved, glm::length(p - defs[i].position));
        lost += pyramid ? glm::length(p - defs[i].position) > 0.1f : p.y < lowest;
    }
    const auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
    std::printf(
        "{\"level\":\"%s\",\"boxes\":%d,\"threads\":%d,\"warmup_ms_per_step\":%.1f,\"measured_steps\":\"%d-%d\","
        "\"solver\":\"%s\",\"substeps\":%d,\"ms_per_step\":%.1f,\"cpu_ms_per_step\":%.1f,\"lost\":%d,\"max_moved_m\":%."
        "5f,\"stages_ms\":{\"integrate\":%.2f,"
        "\"broadphase\":%.2f,\"narrowphase\":%.2f,\"solve\":%.2f,\"velocities\":%.2f,\"report\":%.2f,"
        "\"sleep\":%.2f},\"manifolds\":%.0f,\"kept_manifolds\":%.0f,\"body_pairs\":%.0f,\"triangle_pairs\":%.0f,"
        "\"kept_candidate_bodies\":%.0f,\"islands\":%.0f,\"awake\":%.0f,"
        "\"first_lost\":{\"box\":%d,\"after_step\":%d,\"at\":[%.3f,%.3f,%.3f]},\"mesh_guards\":%zu,"
        "\"state_hash\":\"%s\"}\n",
        name.c_str(), boxes, threads, warmup > 0 ? ms(t1 - t0) / warmup : 0.0, warmup, warmup + measured,
        soft ? "soft_step" : "xpbd", settings.solver.substeps, ms(wall) / measured, cpu_ms, lost, max_moved,
        sum.integrate_ms / measured, sum.broadphase_ms / measured, sum.narrowphase_ms / measured,
        sum.solve_ms / measured, sum.velocities_ms / measured, sum.report_ms / measured, sum.sleep_ms / measured,
        static_cast<double>(sum.manifolds) / measured, static_cast<double>(sum.kept_manifolds) / measured,
        static_cast<double>(sum.body_pairs) / measured, static_cast<double>(sum.triangle_pairs) / measured,
        static_cast<double>(sum.kept_candidate_bodies) / measured, static_cast<double>(sum.islands) / measured,
        static_cast<double>(sum.awake_bodies) / measured, first_lost, first_lost_step, first_lost_at.x, first_lost_at.y,
        first_lost_at.z, mesh_guards, tumble::samples::hex(tumble::samples::state_hash(world)).c_str());
}
