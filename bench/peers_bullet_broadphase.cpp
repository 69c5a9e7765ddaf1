// Bullet's broadphases on the broadphase family: btDbvtBroadphase (dynamic AABB trees) and bt32BitAxisSweep3
// (sweep and prune), driven exactly as Tumble's loose octree: every box moved, then the pair cache updated.
// Bullet keeps pairs whose enlarged tree volumes overlap; "pairs" counts the exactly overlapping ones among them
// (comparable with Tumble's), "cached_pairs" all it holds.

#include <memory>

#include <benchmark/benchmark.h>
#include <btBulletCollisionCommon.h>

#include "broadphase_inputs.hpp"

namespace {

btVector3 bt(const glm::vec3& v) { return {v.x, v.y, v.z}; }

std::size_t exact_pairs(btOverlappingPairCache* cache) {
    std::size_t n = 0;
    btBroadphasePairArray& pairs = cache->getOverlappingPairArray();
    for (int i = 0; i < pairs.size(); ++i) {
        const btBroadphaseProxy* a = pairs[i].m_pProxy0;
        const btBroadphaseProxy* b = pairs[i].m_pProxy1;
        n += a->m_aabbMin.x() <= b->m_aabbMax.x() && b->m_aabbMin.x() <= a->m_aabbMax.x() &&
             a->m_aabbMin.y() <= b->m_aabbMax.y() && b->m_aabbMin.y() <= a->m_aabbMax.y() &&
             a->m_aabbMin.z() <= b->m_aabbMax.z() && b->m_aabbMin.z() <= a->m_aabbMax.z();
    }
    return n;
}

template <class MakeBroadphase>
void run(benchmark::State& state, const MakeBroadphase& make) {
    const auto n = static_cast<std::size_t>(state.range(0));
    const bench::MovingBoxes input = bench::make_moving_boxes(n);
    std::vector<tumble::Aabb> now = input.boxes;
    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher(&config);
    std::unique_ptr<btBroadphaseInterface> broadphase = make(input, n);
    std::vector<btBroadphaseProxy*> proxies;
    for (std::size_t i = 0; i < n; ++i)
        proxies.push_back(broadphase->createProxy(bt(now[i].min), bt(now[i].max), BOX_SHAPE_PROXYTYPE, nullptr, 1, -1,
                                                  &dispatcher));
    broadphase->calculateOverlappingPairs(&dispatcher);
    std::size_t step = 0;
    for (auto _ : state) {
        input.advance(now, step++);
        for (std::size_t i = 0; i < n; ++i) broadphase->setAabb(proxies[i], bt(now[i].min), bt(now[i].max), &dispatcher);
        broadphase->calculateOverlappingPairs(&dispatcher);
    }
    state.counters["pairs"] = static_cast<double>(exact_pairs(broadphase->getOverlappingPairCache()));
    state.counters["cached_pairs"] = static_cast<double>(broadphase->getOverlappingPairCache()->getNumOverlappingPairs());
    state.counters["time_per_box"] = benchmark::Counter(
        static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_Broadphase_Bullet_btDbvtBroadphase(benchmark::State& state) {
    run(state, [](const bench::MovingBoxes&, std::size_t) { return std::make_unique<btDbvtBroadphase>(); });
}
const int registered_dbvt = bench::register_broadphase("BM_Broadphase_Bullet_btDbvtBroadphase",
                                                       BM_Broadphase_Bullet_btDbvtBroadphase);

void BM_Broadphase_Bullet_btAxisSweep3(benchmark::State& state) {
    run(state, [](const bench::MovingBoxes& in, std::size_t n) {
        return std::make_unique<bt32BitAxisSweep3>(btVector3(-1, -1, -1), btVector3(in.side + 1, in.side + 1, in.side + 1),
                                                   static_cast<unsigned int>(n + 1));
    });
}
const int registered_sap = bench::register_broadphase("BM_Broadphase_Bullet_btAxisSweep3", BM_Broadphase_Bullet_btAxisSweep3);

}  // namespace
