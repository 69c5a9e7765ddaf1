// Per-pair narrowphase: Tumble's OBB-OBB and OBB-triangle tests. The peers' versions of the same families, on the
// same inputs, are in peers_*.cpp.

#include <benchmark/benchmark.h>

#include <tumble/narrowphase/manifold.hpp>
#include <tumble/narrowphase/sat.hpp>

#include "inputs.hpp"

namespace {

// Each iteration tests one pair, cycling through the pre-generated list.
template <class F>
void per_pair(benchmark::State& state, const F& f) {
    std::size_t k = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(f(k & (bench::kInputCount - 1)));
        ++k;
    }
}

void BM_BoxBox_Tumble_overlap(benchmark::State& state) {
    const auto& in = bench::box_pairs();
    std::size_t hits = 0;
    for (const auto& p : in) hits += tumble::overlap(p.a, p.b);
    state.counters["overlapping"] = static_cast<double>(hits);
    per_pair(state, [&](std::size_t k) { return tumble::overlap(in[k].a, in[k].b); });
}
BENCHMARK(BM_BoxBox_Tumble_overlap);

void BM_BoxBox_Tumble_collide(benchmark::State& state) {
    const auto& in = bench::box_pairs();
    per_pair(state, [&](std::size_t k) { return tumble::collide(in[k].a, in[k].b); });
}
BENCHMARK(BM_BoxBox_Tumble_collide);

void BM_BoxBox_Tumble_collide_manifold(benchmark::State& state) {
    const auto& in = bench::box_pairs();
    per_pair(state, [&](std::size_t k) { return tumble::collide_manifold(in[k].a, in[k].b); });
}
BENCHMARK(BM_BoxBox_Tumble_collide_manifold);

void BM_BoxTri_Tumble_overlap(benchmark::State& state) {
    const auto& in = bench::box_triangles();
    std::size_t hits = 0;
    for (const auto& p : in) hits += tumble::overlap(p.box, p.tri);
    state.counters["overlapping"] = static_cast<double>(hits);
    per_pair(state, [&](std::size_t k) { return tumble::overlap(in[k].box, in[k].tri); });
}
BENCHMARK(BM_BoxTri_Tumble_overlap);

void BM_BoxTri_Tumble_collide(benchmark::State& state) {
    const auto& in = bench::box_triangles();
    per_pair(state, [&](std::size_t k) { return tumble::collide(in[k].box, in[k].tri); });
}
BENCHMARK(BM_BoxTri_Tumble_collide);

void BM_BoxTri_Tumble_collide_manifold(benchmark::State& state) {
    const auto& in = bench::box_triangles();
    per_pair(state, [&](std::size_t k) { return tumble::collide_manifold(in[k].box, in[k].tri); });
}
BENCHMARK(BM_BoxTri_Tumble_collide_manifold);

}  // namespace
