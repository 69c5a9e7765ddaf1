// Broadphase per step: N moving boxes, every box moved a little, then all overlapping pairs found. Tumble's loose
// octree and brute force here; Bullet's btDbvtBroadphase and btAxisSweep3 in peers_bullet_broadphase.cpp.

#include <map>

#include <benchmark/benchmark.h>

#include <tumble/broadphase/loose_octree.hpp>

#include "broadphase_inputs.hpp"

namespace {

void BM_Broadphase_Tumble_LooseOctree(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const bench::MovingBoxes input = bench::make_moving_boxes(n);
    std::vector<tumble::Aabb> now = input.boxes;
    const float bias = static_cast<float>(state.range(1)) / 10.0f;
    tumble::LooseOctree tree(tumble::Aabb{glm::vec3(0.0f), glm::vec3(input.side)}, 12, bias);
    std::vector<tumble::ProxyId> ids;
    for (std::size_t i = 0; i < n; ++i) ids.push_back(tree.insert(now[i], i));
    std::vector<tumble::ProxyPair> pairs;
    std::size_t step = 0;
    for (auto _ : state) {
        input.advance(now, step++);
        for (std::size_t i = 0; i < n; ++i) tree.update(ids[i], now[i]);
        pairs.clear();
        tree.find_pairs(pairs);
        benchmark::DoNotOptimize(pairs.data());
    }
    state.counters["pairs"] = static_cast<double>(pairs.size());
    state.counters["time_per_box"] = benchmark::Counter(
        static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
// Argument 2: ten times the octree's depth_bias (0.5 is the default).
const int registered_octree =
    bench::register_broadphase("BM_Broadphase_Tumble_LooseOctree", BM_Broadphase_Tumble_LooseOctree, 1000000, {5}) +
    bench::register_broadphase("BM_Broadphase_Tumble_LooseOctree", BM_Broadphase_Tumble_LooseOctree, 100000, {0}) +
    bench::register_broadphase("BM_Broadphase_Tumble_LooseOctree", BM_Broadphase_Tumble_LooseOctree, 100000, {10});

void BM_Broadphase_BruteForce(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const bench::MovingBoxes input = bench::make_moving_boxes(n);
    std::vector<tumble::Aabb> now = input.boxes;
    std::size_t pairs = 0, step = 0;
    for (auto _ : state) {
        input.advance(now, step++);
        pairs = bench::exact_pairs_brute_force(now);
        benchmark::DoNotOptimize(pairs);
    }
    state.counters["pairs"] = static_cast<double>(pairs);
}
const int registered_brute = bench::register_broadphase("BM_Broadphase_BruteForce", BM_Broadphase_BruteForce, 10000);

}  // namespace
