// Sleeping (docs/game.md, "Sleeping"): the cost of a step in a settled scene, awake against asleep.
//
// Scenes, built once per benchmark binary run and settled before timing:
//   - Grid10k: 10,000 boxes (half extent 0.2 m) standing in 50 x 50 columns of 4 on a static floor box;
//   - Drop1k:  tumble-drop's scene, 1,000 boxes of random size and orientation dropped into the bundled level.
// "Awake": the world has SleepSettings::enabled = false, so the settled bodies stay awake and resting.
// "Asleep": the same scene with sleep on (the default), stepped until every body sleeps.
// Each timed iteration is one World::step(1/60). The counters give the bodies and how many took part in the step.

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <vector>

#include <benchmark/benchmark.h>

#include <tumble/tumble.hpp>

#include "drop_scene.hpp"

namespace {

constexpr float kDt = 1.0f / 60.0f;

std::unique_ptr<tumble::World> grid(bool sleep) {
    tumble::WorldSettings settings;
    settings.sleep.enabled = sleep;
    auto w = std::make_unique<tumble::World>(settings);
    tumble::BodyDef floor;
    floor.position = {0.0f, -0.5f, 0.0f};
    floor.half_extents = {15.0f, 0.5f, 15.0f};
    floor.mass = 0.0f;
    w->create_body(floor);
    for (int x = 0; x < 50; ++x)
        for (int z = 0; z < 50; ++z)
            for (int level = 0; level < 4; ++level) {
                tumble::BodyDef box;
                box.half_extents = glm::vec3(0.2f);
                box.position = {0.5f * static_cast<float>(x - 25), 0.2f + 0.401f * static_cast<float>(level),
                                0.5f * static_cast<float>(z - 25)};
                w->create_body(box);
            }
    return w;
}

std::unique_ptr<tumble::World> drop(bool sleep) {
    tumble::WorldSettings settings;
    settings.sleep.enabled = sleep;
    auto w = std::make_unique<tumble::World>(settings);
    const tumble::ObjFile level = tumble::load_obj(std::filesystem::path(TUMBLE_SOURCE_DIR) / "samples/data/oa_dm1.obj");
    w->add_mesh(level.mesh);
    for (const tumble::BodyDef& d : tumble::samples::spawn_boxes(level.mesh, tumble::samples::DropOptions{})) w->create_body(d);
    return w;
}

// Steps until every dynamic body sleeps (sleep on) or for `settle` steps (sleep off).
void settle(tumble::World& w, int settle_steps) {
    if (w.settings().sleep.enabled) {
        for (int n = 0; n < 6000; ++n) {
            w.step(kDt);
            if (w.stats().awake_bodies == 0) return;
        }
        throw std::runtime_error("the scene did not fall asleep");
    }
    for (int n = 0; n < settle_steps; ++n) w.step(kDt);
}

tumble::World& scene(bool grid_scene, bool sleep) {
    static std::unique_ptr<tumble::World> worlds[2][2];
    std::unique_ptr<tumble::World>& w = worlds[grid_scene][sleep];
    if (!w) {
        w = grid_scene ? grid(sleep) : drop(sleep);
        settle(*w, grid_scene ? 120 : 600);
    }
    return *w;
}

void run(benchmark::State& state, bool grid_scene, bool sleep) {
    tumble::World& w = scene(grid_scene, sleep);
    for (auto _ : state) w.step(kDt);
    state.counters["bodies"] = static_cast<double>(w.body_count());
    state.counters["awake"] = static_cast<double>(w.stats().awake_bodies);
    state.counters["body_pairs"] = static_cast<double>(w.stats().body_pairs);
}

void BM_Grid10kAwake(benchmark::State& s) { run(s, true, false); }
void BM_Grid10kAsleep(benchmark::State& s) { run(s, true, true); }
void BM_Drop1kAwake(benchmark::State& s) { run(s, false, false); }
void BM_Drop1kAsleep(benchmark::State& s) { run(s, false, true); }

}  // namespace

BENCHMARK(BM_Grid10kAwake)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Grid10kAsleep)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Drop1kAwake)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Drop1kAsleep)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
