// Whole step: N boxes dropped into a real level, steps 60 to 300 at 1/60 s. Tumble here; Bullet's
// btDiscreteDynamicsWorld with the level as a btBvhTriangleMeshShape in peers_bullet_world.cpp.

#include <map>

#include <benchmark/benchmark.h>

#include "step_inputs.hpp"

namespace {

void BM_Step_Tumble(benchmark::State& state) {
    const bench::DropInput& in = bench::drop_input(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    tumble::WorldSettings settings;
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
// Arguments: boxes, level (0 medium, 1 large), threads.
BENCHMARK(BM_Step_Tumble)
    ->Args({1000, 0, 1})->Args({10000, 0, 1})->Args({10000, 0, 2})->Args({100000, 0, 1})->Args({100000, 0, 2})
    ->Args({10000, 1, 1})->Args({10000, 1, 2})->Iterations(bench::kMeasuredSteps)
    ->Unit(benchmark::kMillisecond);

}  // namespace
