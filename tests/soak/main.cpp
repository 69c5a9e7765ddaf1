// tumble-soak: a long run of a real level full of boxes that a kinematic paddle keeps stirring, checked as it goes.
//
//   tumble-soak [--steps N] [--boxes N] [--level PATH] [--check-every K] [--warmup S] [--paddle-speed V]
//               [--seed K] [--dt SECONDS] [--threads T] [--sleep] [--time-limit SECONDS] [--known-defects LIST]
//
// The level is loaded with load_obj and added as a static mesh. The paddle is a kinematic box (0.3 m thick, 1.5 m
// high, 2 m wide) driven back and forth at --paddle-speed (3 m/s) along the longest free line with floor under it
// through one of the level's spawn points (found with ray casts), by World::set_velocity before every step. The boxes (half
// extents 0.08-0.15 m, random orientations, 1 kg) are stacked in layers over the floor along the paddle's path,
// touching nothing, so the paddle ploughs through a pile for the whole run. Sleeping is off unless --sleep, so every
// box is stepped every step. Only the public World API is used.
//
// Every K steps (--check-every, 1,000 by default) and after the last step it checks:
// - finite:  every box's position and velocity is finite;
// - lost:    no box is pushed through a floor: a box whose centre lies below the level's lowest vertex minus 1 m
//            is "through a floor" when the first level triangle above it faces up, else it fell off the level's
//            edge into a void (counted in fell_off_level, not a failure: the levels have holes and no outer hull,
//            and the paddle's path keeps 2.5 m of floor past its ends so that this stays rare);
// - ceiling: no box centre lies above the level's highest vertex plus 2 m;
// - speed:   no box still in the level is faster than v_paddle + sqrt(2 g H) (checked after every step), H the
//            level's height: the paddle pushes a box at most to its own speed (restitution 0) and falling the whole
//            level adds at most sqrt(2 g H), so more kinetic energy than 1/2 m (v_paddle + sqrt(2 g H))^2 in a box
//            came from nowhere;
// - energy:  kinetic plus potential energy E(t) <= E(0) + W(t), W(t) the sum over steps of 1/2 m v_paddle^2 for
//            every box touching the paddle after the step (the most kinetic energy one push can give a box);
// - memory:  after --warmup steps (default the smaller of 10% of the run and 20,000 steps), the heap in use (glibc
//            mallinfo2) stays below 1.1 x its largest value during the warm-up + 4 MiB. Not checked where mallinfo2
//            reads 0 (ASan replaces the allocator, and its quarantine makes the resident size grow regardless);
//            the resident set size is reported all the same.
// Where a box leaves the level is printed when it happens. Progress goes to stderr; the last line of stdout is one
// JSON object with the figures of every check and "passed". Exit 0 when every check passed (or failed as
// --known-defects expects), 1 when one failed, 2 for bad arguments or an unusable level.
//
// --time-limit stops the run after the first step that ends that many seconds after the start of stepping (the
// summary gives the steps run), for long runs on a clock. --known-defects names checks (comma-separated: finite,
// lost, ceiling, speed, energy, memory) expected to fail because of a known defect of the engine: they are reported
// and do not fail the run, and a listed check that passes fails it, so that the list shrinks as defects are fixed
// (docs/reliability.md lists the current ones).

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <tumble/tumble.hpp>

#include "drop_scene.hpp"

#ifndef TUMBLE_DEFAULT_LEVEL
#define TUMBLE_DEFAULT_LEVEL "samples/data/oa_dm1.obj"
#endif

namespace {

using tumble::BodyDef;
using tumble::BodyId;
using tumble::World;

struct Options {
    long steps = 10000;
    int boxes = 2000;
    std::string level = TUMBLE_DEFAULT_LEVEL;
    long check_every = 1000;
    long warmup = -1;  // default: min(steps / 10, 20000)
    float paddle_speed = 3.0f;
    std::uint64_t seed = 1;
    float dt = 1.0f / 60.0f;
    int threads = 1;
    bool sleep = false;
    double time_limit = 0.0;  // seconds of stepping after which the run stops early; 0: none
    std::vector<std::string> known_defects;  // checks expected to fail (see --known-defects)
};

[[noreturn]] void usage(const std::string& why) {
    std::fprintf(stderr,
                 "tumble-soak: %s\nusage: tumble-soak [--steps N] [--boxes N] [--level PATH] [--check-every K] "
                 "[--warmup S] [--paddle-speed V] [--seed K] [--dt SECONDS] [--threads T] [--sleep] [--time-limit SECONDS] "
                 "[--known-defects LIST]\n",
                 why.c_str());
    std::exit(2);
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage("missing value after " + a);
            return argv[++i];
        };
        auto number = [&]() {
            const std::string v = value();
            char* end = nullptr;
            const double x = std::strtod(v.c_str(), &end);
            if (end == v.c_str() || *end != '\0' || !std::isfinite(x)) usage("not a number after " + a + ": " + v);
            return x;
        };
        if (a == "--steps") o.steps = static_cast<long>(number());
        else if (a == "--boxes") o.boxes = static_cast<int>(number());
        else if (a == "--level") o.level = value();
        else if (a == "--check-every") o.check_every = static_cast<long>(number());
        else if (a == "--warmup") o.warmup = static_cast<long>(number());
        else if (a == "--paddle-speed") o.paddle_speed = static_cast<float>(number());
        else if (a == "--seed") o.seed = static_cast<std::uint64_t>(number());
        else if (a == "--dt") o.dt = static_cast<float>(number());
        else if (a == "--threads") o.threads = static_cast<int>(number());
        else if (a == "--sleep") o.sleep = true;
        else if (a == "--time-limit") o.time_limit = number();
        else if (a == "--known-defects") {
            const std::string list = value();
            for (std::size_t p = 0; p <= list.size();) {
                const std::size_t comma = std::min(list.find(',', p), list.size());
                if (comma > p) o.known_defects.push_back(list.substr(p, comma - p));
                p = comma + 1;
            }
        }
        else usage("unknown argument " + a);
    }
    if (o.steps < 0 || o.boxes < 1 || o.check_every < 1 || !(o.paddle_speed > 0.0f) || !(o.dt > 0.0f) ||
        o.threads < 1 || o.threads > 256)
        usage("--steps >= 0, --boxes >= 1, --check-every >= 1, --paddle-speed > 0, --dt > 0, --threads 1..256");
    if (o.warmup < 0) o.warmup = std::min(o.steps / 10, 20000L);
    return o;
}

/// Heap bytes in use (glibc), 0 where the allocator does not report it (ASan replaces it).
std::size_t heap_in_use() {
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

/// Resident set size in bytes (Linux /proc/self/statm).
std::size_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * 4096;
}

/// The paddle's path: from `a` to `b` (world, metres) at the paddle's centre height.
struct Path {
    glm::vec3 a{0.0f}, b{0.0f};
    float floor = 0.0f;  ///< floor height under the path, metres
};

/// True when an upward-facing floor lies within 3 m below `p`: not a void.
bool floor_under(const World& world, const glm::vec3& p) {
    tumble::QueryFilter level_only;
    level_only.bodies = false;
    const std::optional<tumble::RaycastHit> hit = world.raycast(p, {0.0f, -1.0f, 0.0f}, 3.0f, level_only);
    return hit && hit->normal.y > 0.7f;
}

/// The longest free horizontal line through `start` (a spawn point), found with ray casts: 16 directions, each
/// with its reach forwards and backwards at knee and shoulder height, 1.5 m kept from the walls, and a floor (within
/// 3 m below) under the whole strip the boxes are piled on (3 m wide) and 2.5 m beyond both ends, so that the paddle
/// pushes boxes along floors and down steps, not off the level's edge into a void.
Path find_path(const World& world, const glm::vec3& start, float& best_length) {
    const std::optional<tumble::RaycastHit> ground = world.raycast(start, {0.0f, -1.0f, 0.0f}, 20.0f);
    Path best;
    best_length = -1.0f;
    if (!ground) return best;
    best.floor = ground->point.y;
    for (int k = 0; k < 16; ++k) {
        const float angle = 3.14159265f * static_cast<float>(k) / 16.0f;
        const glm::vec3 u(std::cos(angle), 0.0f, std::sin(angle));
        const glm::vec3 across(-u.z, 0.0f, u.x);
        float reach[2] = {1e9f, 1e9f};
        for (float height : {0.3f, 1.4f}) {
            const glm::vec3 o(start.x, best.floor + height, start.z);
            for (int side = 0; side < 2; ++side) {
                const glm::vec3 d = side == 0 ? u : -u;
                const std::optional<tumble::RaycastHit> hit = world.raycast(o, d, 50.0f);
                reach[side] = std::min(reach[side], hit ? hit->distance : 50.0f);
            }
        }
        // Shorten each end until the floor is there under the strip, out to 2.5 m past the end.
        const glm::vec3 o(start.x, best.floor + 0.3f, start.z);
        for (int side = 0; side < 2; ++side) {
            const glm::vec3 d = side == 0 ? u : -u;
            float free = 0.0f;
            for (float t = 0.0f; t <= reach[side]; t += 0.25f) {
                bool floor = true;
                for (float w = -2.0f; w <= 2.0f && floor; w += 0.5f) floor = floor_under(world, o + d * t + across * w);
                if (!floor) break;
                free = t;
            }
            reach[side] = std::min(reach[side] - 1.5f, free - 2.5f);
        }
        const float length = reach[0] + reach[1];
        if (length > best_length) {
            best_length = length;
            const glm::vec3 centre(start.x, best.floor + 0.77f, start.z);
            best.a = centre - u * reach[1];
            best.b = centre + u * reach[0];
        }
    }
    return best;
}

/// The longest such line through any of the level's spawn points (first in file order on a tie).
Path find_path(const World& world, const tumble::ObjFile& level) {
    std::vector<glm::vec3> starts;
    for (const tumble::SpawnPoint& s : level.spawns) starts.push_back(s.position);
    if (starts.empty()) starts.push_back(glm::vec3(0.0f));
    Path best;
    float best_length = -1.0f;
    for (const glm::vec3& start : starts) {
        float length = 0.0f;
        const Path p = find_path(world, start, length);
        if (length > best_length) {
            best = p;
            best_length = length;
        }
    }
    if (best_length < 2.0f) throw tumble::Error("tumble-soak: no free line of 2 m through a spawn point");
    return best;
}

/// Boxes stacked in layers over the floor along the path, in a strip 3 m wide, each touching nothing (not the level,
/// not each other, not the paddle `keep_clear`) and reachable from the path without crossing a surface.
std::vector<BodyDef> pile(const World& world, const Path& path, int count, std::uint64_t seed, const tumble::Obb& keep_clear) {
    tumble::samples::Rng rng(seed);
    const glm::vec3 along = glm::normalize(path.b - path.a);
    const glm::vec3 across(-along.z, 0.0f, along.x);
    const float length = glm::length(path.b - path.a) + 2.0f;
    const float cell = 0.35f;
    std::vector<BodyDef> out;
    std::vector<tumble::Obb> placed{keep_clear};
    tumble::QueryFilter all_faces;
    all_faces.back_faces = true;  // a ray that crosses any surface, from either side, is blocked
    for (int layer = 0; layer < 40 && static_cast<int>(out.size()) < count; ++layer) {
        for (float s = -1.0f; s <= length - 1.0f && static_cast<int>(out.size()) < count; s += cell) {
            for (float w = -2.0f; w <= 2.0f && static_cast<int>(out.size()) < count; w += cell) {
                BodyDef def;
                def.half_extents = {rng.uniform(0.08f, 0.15f), rng.uniform(0.08f, 0.15f), rng.uniform(0.08f, 0.15f)};
                def.orientation = rng.rotation();
                const glm::vec3 on_path = path.a + along * s;
                const float y = path.floor + 0.3f + cell * static_cast<float>(layer);
                def.position = on_path + across * w + glm::vec3(rng.uniform(-0.03f, 0.03f), 0.0f, rng.uniform(-0.03f, 0.03f));
                def.position.y = y;
                const tumble::Obb box{def.position, glm::mat3_cast(def.orientation), def.half_extents};
                tumble::QueryFilter filter;
                filter.bodies = false;
                if (!world.overlap_box(box, filter).empty()) continue;
                if (std::any_of(placed.begin(), placed.end(), [&](const tumble::Obb& o) {
                        return glm::length(o.center - box.center) < 1.5f && tumble::overlap(o, box);
                    }))
                    continue;
                // In the open space of the path: up from the path (at the paddle's height, which is free) to the
                // box's height, then across to the box, crossing no surface.
                const glm::vec3 low(on_path.x, path.floor + 0.77f, on_path.z), high(on_path.x, y, on_path.z);
                if (y > low.y && world.raycast(low, {0.0f, 1.0f, 0.0f}, y - low.y, all_faces)) continue;
                const glm::vec3 to_box = def.position - high;
                if (glm::length(to_box) > 1e-3f && world.raycast(high, to_box, glm::length(to_box), all_faces)) continue;
                placed.push_back(box);
                out.push_back(def);
            }
        }
    }
    if (static_cast<int>(out.size()) < count)
        throw tumble::Error("tumble-soak: room for only " + std::to_string(out.size()) + " of " +
                            std::to_string(count) + " boxes along the paddle's path");
    return out;
}

std::string number(double v) {
    char b[48];
    std::snprintf(b, sizeof b, "%.6g", v);
    return b;
}

}  // namespace

int main(int argc, char** argv) {
    const Options opt = parse(argc, argv);
    const float g = 9.81f;
    try {
        const tumble::ObjFile level = tumble::load_obj(opt.level);
        tumble::WorldSettings settings;
        settings.gravity = {0.0f, -g, 0.0f};
        settings.sleep.enabled = opt.sleep;
        settings.threads = opt.threads;
        World world(settings);
        world.add_mesh(level.mesh);
        float lowest = std::numeric_limits<float>::max(), highest = -lowest;
        for (const glm::vec3& v : level.mesh.vertices) {
            lowest = std::min(lowest, v.y);
            highest = std::max(highest, v.y);
        }
        const float floor_limit = lowest - 1.0f, ceiling = highest + 2.0f;
        const double speed_cap = opt.paddle_speed + std::sqrt(2.0 * g * (highest - lowest));

        const Path path = find_path(world, level);
        BodyDef paddle_def;
        paddle_def.kinematic = true;
        paddle_def.position = path.a;
        paddle_def.half_extents = {0.15f, 0.75f, 1.0f};
        const glm::vec3 along = glm::normalize(path.b - path.a);
        paddle_def.orientation = glm::quat_cast(glm::mat3(along, glm::vec3(0.0f, 1.0f, 0.0f),
                                                          glm::cross(along, glm::vec3(0.0f, 1.0f, 0.0f))));
        const tumble::Obb paddle_box{paddle_def.position, glm::mat3_cast(paddle_def.orientation), paddle_def.half_extents};
        std::vector<BodyId> boxes;
        for (const BodyDef& def : pile(world, path, opt.boxes, opt.seed, paddle_box)) boxes.push_back(world.create_body(def));
        const BodyId paddle = world.create_body(paddle_def);
        const float path_length = glm::length(path.b - path.a);
        std::fprintf(stderr, "tumble-soak: %s, %d boxes, paddle path %.1f m at %.1f m/s, %ld steps\n",
                     opt.level.c_str(), opt.boxes, path_length, opt.paddle_speed, opt.steps);

        // Energy of the boxes still in the level (a box below it is counted by the "lost" check, and its fall
        // would only hide or inflate these figures).
        auto energy = [&](double& kinetic, double& max_speed) {
            double total = 0.0;
            kinetic = 0.0;
            max_speed = 0.0;
            for (BodyId id : boxes) {
                const tumble::BodyState b = world.body(id);
                if (b.position.y < floor_limit) continue;
                const double v2 = glm::dot(glm::dvec3(b.velocity), glm::dvec3(b.velocity));
                kinetic += 0.5 * b.mass * v2;
                total += 0.5 * b.mass * v2 + b.mass * g * b.position.y;
                max_speed = std::max(max_speed, std::sqrt(v2));
            }
            return total;
        };
        double kinetic0 = 0.0, speed0 = 0.0;
        const double energy0 = energy(kinetic0, speed0);

        // Figures of the checks.
        long nonfinite = 0, lost = 0, above = 0, checks = 0, through_floor = 0, fell_off = 0;
        double max_speed = 0.0, max_kinetic = 0.0, work = 0.0, worst_excess = -std::numeric_limits<double>::infinity();
        long max_speed_step = 0;
        std::size_t heap_warm = 0, rss_warm = 0, heap_max = 0, rss_max = 0;
        bool memory_ok = true, speed_ok = true, energy_ok = true;
        double step_ms = 0.0;
        std::vector<bool> reported_lost(boxes.size(), false);
        std::vector<glm::vec3> last_second(boxes.size());
        for (std::size_t i = 0; i < boxes.size(); ++i) last_second[i] = world.body(boxes[i]).position;
        long last_second_step = 0;

        long steps_run = 0;
        const auto run_start = std::chrono::steady_clock::now();
        for (long step = 1; step <= opt.steps; ++step) {
            steps_run = step;
            const bool out_of_time =
                opt.time_limit > 0.0 &&
                std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count() > opt.time_limit;
            const bool last = step == opt.steps || out_of_time;
            // The paddle: back and forth between a and b at constant speed, its next position set through velocity.
            const double period = 2.0 * path_length / opt.paddle_speed;
            const double t = std::fmod(static_cast<double>(step) * opt.dt, period);
            const double s = t * opt.paddle_speed <= path_length ? t * opt.paddle_speed : 2.0 * path_length - t * opt.paddle_speed;
            const glm::vec3 target = path.a + along * static_cast<float>(s);
            world.set_velocity(paddle, (target - world.body(paddle).position) / opt.dt);

            const auto t0 = std::chrono::steady_clock::now();
            world.step(opt.dt);
            step_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

            for (const tumble::ContactRecord& c : world.contacts())
                if (c.a == paddle || c.b == paddle) work += 0.5 * 1.0 * opt.paddle_speed * opt.paddle_speed;
            for (std::size_t i = 0; i < boxes.size(); ++i) {
                const tumble::BodyState b = world.body(boxes[i]);
                const float v = glm::length(b.velocity);
                if (v > max_speed && !reported_lost[i]) {  // a box in free fall below the level is counted as lost
                    max_speed = v;
                    max_speed_step = step;
                }
                // Where a box leaves the level: reported once per box, with where it was at the last whole second.
                // Through a floor when the first level triangle straight above it faces up (the box is under a
                // floor); otherwise it fell off the level's edge into a void (the levels have holes and no hull).
                if (b.position.y < floor_limit && !reported_lost[i]) {
                    reported_lost[i] = true;
                    tumble::QueryFilter level_only;
                    level_only.bodies = false;
                    level_only.back_faces = true;
                    const std::optional<tumble::RaycastHit> overhead =
                        world.raycast(b.position, {0.0f, 1.0f, 0.0f}, 1e4f, level_only);
                    const bool under_floor = overhead && level.mesh.triangle(overhead->triangle).scaled_normal().y > 0.0f;
                    ++(under_floor ? through_floor : fell_off);
                    const glm::vec3 was = last_second[i];
                    std::fprintf(stderr, "box %zu below the level at step %ld (%s): at (%.3f, %.3f, %.3f), %.1f m/s; "
                                 "at step %ld it was at (%.3f, %.3f, %.3f)\n", i, step,
                                 under_floor ? "through a floor" : "off the level's edge", b.position.x, b.position.y,
                                 b.position.z, v, last_second_step, was.x, was.y, was.z);
                }
            }
            if (step % 60 == 0) {
                for (std::size_t i = 0; i < boxes.size(); ++i) last_second[i] = world.body(boxes[i]).position;
                last_second_step = step;
            }
            if (max_speed > speed_cap) speed_ok = false;

            if (step % opt.check_every != 0 && !last && step != opt.warmup) continue;
            ++checks;
            long bad = 0, low = 0, high = 0;
            for (BodyId id : boxes) {
                const tumble::BodyState b = world.body(id);
                if (!(std::isfinite(b.position.x) && std::isfinite(b.position.y) && std::isfinite(b.position.z) &&
                      std::isfinite(b.velocity.x) && std::isfinite(b.velocity.y) && std::isfinite(b.velocity.z)))
                    ++bad;
                else if (b.position.y < floor_limit) ++low;
                else if (b.position.y > ceiling) ++high;
            }
            nonfinite = std::max(nonfinite, bad);
            lost = std::max(lost, low);
            above = std::max(above, high);
            double kinetic = 0.0, speed = 0.0;
            const double e = energy(kinetic, speed);
            max_kinetic = std::max(max_kinetic, kinetic);
            worst_excess = std::max(worst_excess, e - energy0 - work);
            if (e > energy0 + work) energy_ok = false;
            const std::size_t heap = heap_in_use(), rss = resident_bytes();
            if (step <= opt.warmup) {
                heap_warm = std::max(heap_warm, heap);
                rss_warm = std::max(rss_warm, rss);
            } else {
                heap_max = std::max(heap_max, heap);
                rss_max = std::max(rss_max, rss);
                // Only where the allocator reports its heap: under ASan (mallinfo2 reads 0) freed memory waits in
                // the quarantine and the resident size grows whatever the program does.
                if (heap_warm > 0 && heap > heap_warm + heap_warm / 10 + (std::size_t(4) << 20)) memory_ok = false;
            }
            std::fprintf(stderr,
                         "step %ld: %.2f ms/step, max speed %.3g m/s (cap %.3g), KE %.4g J, E - E0 - W %.4g J, "
                         "lost %ld, above %ld, non-finite %ld, heap %.1f MiB, rss %.1f MiB\n",
                         step, step_ms / static_cast<double>(step), max_speed, speed_cap, kinetic, e - energy0 - work,
                         low, high, bad, static_cast<double>(heap) / 1048576.0, static_cast<double>(rss) / 1048576.0);
            if (out_of_time) break;
        }

        // A check listed in --known-defects is expected to fail: it fails the run when it passes instead, so that
        // the list is shortened once the defect is fixed.
        std::vector<std::string> failed, known, unexpectedly_passed;
        auto verdict = [&](const char* name, bool ok) {
            const bool expected_to_fail =
                std::find(opt.known_defects.begin(), opt.known_defects.end(), name) != opt.known_defects.end();
            if (!ok && expected_to_fail) known.push_back(name);
            else if (!ok) failed.push_back(name);
            else if (expected_to_fail) unexpectedly_passed.push_back(name);
        };
        verdict("finite", nonfinite == 0);
        verdict("lost", through_floor == 0);
        verdict("ceiling", above == 0);
        verdict("speed", speed_ok);
        verdict("energy", energy_ok);
        verdict("memory", memory_ok);
        for (const std::string& k : opt.known_defects)
            if (std::find(known.begin(), known.end(), k) == known.end() &&
                std::find(unexpectedly_passed.begin(), unexpectedly_passed.end(), k) == unexpectedly_passed.end())
                usage("unknown check in --known-defects: " + k);
        auto json_list = [](const std::vector<std::string>& v) {
            std::string out;
            for (const std::string& f : v) out += (out.empty() ? "\"" : ",\"") + f + "\"";
            return out;
        };
        for (const std::string& k : unexpectedly_passed)
            std::fprintf(stderr, "tumble-soak: the known defect '%s' did not show: remove it from --known-defects\n",
                         k.c_str());
        const bool passed = failed.empty() && unexpectedly_passed.empty();
        const double mib = 1048576.0;
        std::printf(
            "{\"level\":\"%s\",\"boxes\":%d,\"steps\":%ld,\"steps_requested\":%ld,\"dt\":%s,\"threads\":%d,\"sleep\":%s,\"ms_per_step\":%s,"
            "\"paddle_speed\":%s,\"paddle_path_m\":%s,\"checks\":%ld,\"nonfinite\":%ld,\"lost_below\":%ld,"
            "\"through_floor\":%ld,\"fell_off_level\":%ld,\"above_ceiling\":%ld,\"max_speed\":%s,\"max_speed_step\":%ld,\"speed_cap\":%s,\"max_kinetic_J\":%s,"
            "\"energy_start_J\":%s,\"paddle_work_bound_J\":%s,\"energy_excess_J\":%s,\"warmup_steps\":%ld,"
            "\"heap_warmup_MiB\":%s,\"heap_max_after_MiB\":%s,\"rss_warmup_MiB\":%s,\"rss_max_after_MiB\":%s,"
            "\"failed\":[%s],\"known_defects_seen\":[%s],\"known_defects_not_seen\":[%s],\"passed\":%s}\n",
            std::filesystem::path(opt.level).filename().string().c_str(), opt.boxes, steps_run, opt.steps, number(opt.dt).c_str(),
            opt.threads, opt.sleep ? "true" : "false",
            number(steps_run > 0 ? step_ms / static_cast<double>(steps_run) : 0.0).c_str(),
            number(opt.paddle_speed).c_str(), number(path_length).c_str(), checks, nonfinite, lost, through_floor, fell_off, above,
            number(max_speed).c_str(), max_speed_step, number(speed_cap).c_str(), number(max_kinetic).c_str(),
            number(energy0).c_str(), number(work).c_str(), number(worst_excess).c_str(), opt.warmup,
            number(static_cast<double>(heap_warm) / mib).c_str(), number(static_cast<double>(heap_max) / mib).c_str(),
            number(static_cast<double>(rss_warm) / mib).c_str(), number(static_cast<double>(rss_max) / mib).c_str(),
            json_list(failed).c_str(), json_list(known).c_str(), json_list(unexpectedly_passed).c_str(),
            passed ? "true" : "false");
        std::fflush(stdout);
        return passed ? 0 : 1;
    } catch (const tumble::Error& e) {
        std::fprintf(stderr, "tumble-soak: %s\n", e.what());
        return 2;
    }
}
