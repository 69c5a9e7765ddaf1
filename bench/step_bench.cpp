// Whole step: N boxes dropped into a real level, steps 60 to 300 at 1/60 s. Tumble here; Bullet's
// btDiscreteDynamicsWorld with the level as a btBvhTriangleMeshShape in peers_bullet_world.cpp.

#include <map>

#include <benchmark/benchmark.h>

#include "step_inputs.hpp"

namespace {

void run_step(benchmark::State& state, tumble::WorldSettings settings) {
    const bench::DropInput& in = bench::drop_input(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    settings.threads = static_cast<int>(state.range(2));
    tumble::World world(settings);
    world.add_mesh(in.level);
    std::vector<tumble::BodyId> ids;
    for (const tumble::BodyDef& d : in.boxes) ids.push_back(world.create_body(d));
    for (int s = 0; s < bench::kWarmupSteps; ++s) world.step(1.0f / 60.0f);
    for (auto _ : state) world.step(1.0f / 60.0f);
    int lost = 0;
    for (tumble::BodyId id : ids) lost += world.body(id).position.y < in.lowest;
    state.counters["lost"] = lost;
    state.counters["boxes"] = static_cast<double>(ids.size());
    state.SetLabel(in.level_name);
}
void BM_Step_Tumble(benchmark::State& state) { run_step(state, tumble::WorldSettings{}); }
// The same with SolverMethod::soft_step at Box2D v3's defaults (4 substeps, 30 Hz contacts).
void BM_Step_TumbleSoft(benchmark::State& state) {
    tumble::WorldSettings settings;
    settings.solver.method = tumble::SolverMethod::soft_step;
    settings.solver.substeps = 4;
    run_step(state, settings);
}
// Arguments: boxes, level (0 medium, 1 large), threads.
BENCHMARK(BM_Step_TumbleSoft)
    ->Args({10000, 0, 1})
    ->Args({10000, 0, 2})
    ->Args({10000, 1, 1})
    ->Args({10000, 1, 2})
    ->Iterations(bench::kMeasuredSteps)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Step_Tumble)
    ->Args({1000, 0, 1})->Args({10000, 0, 1})->Args({10000, 0, 2})->Args({100000, 0, 1})->Args({100000, 0, 2})
    ->Args({10000, 1, 1})->Args({10000, 1, 2})->Iterations(bench::kMeasuredSteps)
    ->Unit(benchmark::kMillisecond);

// Box2D v3's large pyramid (base 100: 5,050 boxes) for 10 s, sleeping off so that every step does the same work
// (as Box2D's benchmark runs it). Counter: the largest distance a box moved from where it was placed (m): the
// pyramid must stand. Arguments: base, threads; BM_Pyramid_TumbleSoft also substeps and contact hertz
// (SolverMethod::soft_step).
void run_pyramid(benchmark::State& state, tumble::WorldSettings settings) {
    const int base = static_cast<int>(state.range(0));
    settings.threads = static_cast<int>(state.range(1));
    settings.sleep.enabled = false;
    tumble::World world(settings);
    world.create_body(bench::pyramid_ground(base));
    const std::vector<tumble::BodyDef> defs = bench::pyramid_boxes(base);
    std::vector<tumble::BodyId> ids;
    for (const tumble::BodyDef& d : defs) ids.push_back(world.create_body(d));
    for (auto _ : state) world.step(1.0f / 60.0f);
    float moved = 0.0f;
    for (std::size_t i = 0; i < ids.size(); ++i)
        moved = std::max(moved, glm::length(world.body(ids[i]).position - defs[i].position));
    state.counters["boxes"] = static_cast<double>(ids.size());
    state.counters["max_moved_m"] = moved;
}
void BM_Pyramid_Tumble(benchmark::State& state) { run_pyramid(state, tumble::WorldSettings{}); }
void BM_Pyramid_TumbleSoft(benchmark::State& state) {
    tumble::WorldSettings settings;
    settings.solver.method = tumble::SolverMethod::soft_step;
    settings.solver.substeps = static_cast<int>(state.range(2));
    settings.solver.contact_hertz = static_cast<float>(state.range(3));
    run_pyramid(state, settings);
}
BENCHMARK(BM_Pyramid_TumbleSoft)
    ->Args({20, 1, 4, 30})
    ->Args({100, 1, 4, 30})
    ->Args({100, 2, 4, 30})
    ->Args({100, 1, 8, 60})
    ->Iterations(bench::kPyramidSteps)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Pyramid_Tumble)
    ->Args({20, 1})
    ->Args({20, 2})
    ->Args({100, 1})
    ->Args({100, 2})
    ->Iterations(bench::kPyramidSteps)
    ->Unit(benchmark::kMillisecond);

}  // namespace
