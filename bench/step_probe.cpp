// A short whole-step run for sizes whose 300-step benchmark takes too long (1e5 boxes): the same world as
// BM_Step_Tumble (bench/step_inputs.hpp), stepped `warm-up` steps and then `measured` steps, with the wall time
// per step (and process CPU time), the per-stage times of StepStats averaged over the measured steps, and the boxes
// below the level at the end.
//
// Usage: tumble_step_probe BOXES LEVEL THREADS WARMUP MEASURED   (LEVEL 0 medium, 1 large)

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "step_inputs.hpp"

int main(int argc, char** argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: %s BOXES LEVEL THREADS WARMUP MEASURED\n", argv[0]);
        return 2;
    }
    const int boxes = std::atoi(argv[1]), level = std::atoi(argv[2]), threads = std::atoi(argv[3]);
    const int warmup = std::atoi(argv[4]), measured = std::atoi(argv[5]);
    if (boxes < 1 || (level != 0 && level != 1) || threads < 1 || warmup < 0 || measured < 1) {
        std::fprintf(stderr, "%s: bad arguments (boxes >= 1, level 0 or 1, threads >= 1, warm-up >= 0, measured >= 1)\n",
                     argv[0]);
        return 2;
    }
    const bench::DropInput& in = bench::drop_input(boxes, level);
    tumble::WorldSettings settings;
    settings.threads = threads;
    tumble::World world(settings);
    world.add_mesh(in.level);
    std::vector<tumble::BodyId> ids;
    for (const tumble::BodyDef& d : in.boxes) ids.push_back(world.create_body(d));
    using Clock = std::chrono::steady_clock;
    const Clock::time_point t0 = Clock::now();
    for (int s = 0; s < warmup; ++s) world.step(1.0f / 60.0f);
    const Clock::time_point t1 = Clock::now();
    const std::clock_t c1 = std::clock();
    tumble::StepStats sum;
    for (int s = 0; s < measured; ++s) {
        world.step(1.0f / 60.0f);
        const tumble::StepStats& st = world.stats();
        sum.integrate_ms += st.integrate_ms;
        sum.broadphase_ms += st.broadphase_ms;
        sum.narrowphase_ms += st.narrowphase_ms;
        sum.solve_ms += st.solve_ms;
        sum.velocities_ms += st.velocities_ms;
        sum.report_ms += st.report_ms;
        sum.sleep_ms += st.sleep_ms;
        sum.manifolds += st.manifolds;
        sum.islands += st.islands;
        sum.awake_bodies += st.awake_bodies;
    }
    const Clock::time_point t2 = Clock::now();
    const double cpu_ms = 1000.0 * static_cast<double>(std::clock() - c1) / CLOCKS_PER_SEC / measured;
    int lost = 0;
    for (tumble::BodyId id : ids) lost += world.body(id).position.y < in.lowest;
    const auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
    std::printf(
        "{\"level\":\"%s\",\"boxes\":%d,\"threads\":%d,\"warmup_ms_per_step\":%.1f,\"measured_steps\":\"%d-%d\","
        "\"ms_per_step\":%.1f,\"cpu_ms_per_step\":%.1f,\"lost\":%d,\"stages_ms\":{\"integrate\":%.2f,"
        "\"broadphase\":%.2f,\"narrowphase\":%.2f,\"solve\":%.2f,\"velocities\":%.2f,\"report\":%.2f,"
        "\"sleep\":%.2f},\"manifolds\":%.0f,\"islands\":%.0f,\"awake\":%.0f}\n",
        in.level_name.c_str(), boxes, threads, warmup > 0 ? ms(t1 - t0) / warmup : 0.0, warmup, warmup + measured,
        ms(t2 - t1) / measured, cpu_ms, lost, sum.integrate_ms / measured, sum.broadphase_ms / measured,
        sum.narrowphase_ms / measured, sum.solve_ms / measured, sum.velocities_ms / measured, sum.report_ms / measured,
        sum.sleep_ms / measured, static_cast<double>(sum.manifolds) / measured,
        static_cast<double>(sum.islands) / measured, static_cast<double>(sum.awake_bodies) / measured);
}
