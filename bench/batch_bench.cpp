// Batch box-box tests (batch.hpp) on the same pre-generated pairs as BM_BoxBox_Tumble_overlap/collide
// (narrowphase_bench.cpp), reported per pair (items processed), once for every SIMD target this CPU runs: compare with
// --benchmark_filter='BoxBox_Tumble|Batch'. The "sparse" input spreads the same kind of boxes over a wider region so
// that most pairs are separated, as the engine's candidate pairs are.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <hwy/targets.h>

#include <tumble/narrowphase/batch.hpp>
#include <tumble/narrowphase/sat.hpp>

#include "inputs.hpp"

namespace {

// Random pairs, centres in [-spread, spread]^3 (box_pairs() uses 1.1: about a quarter overlap).
const std::vector<bench::BoxPair>& sparse_pairs() {
    static const std::vector<bench::BoxPair> pairs = [] {
        bench::Rng rng(20261124);
        std::vector<bench::BoxPair> out(bench::kInputCount);
        for (bench::BoxPair& p : out) {
            p.a = {rng.vec(-4.0f, 4.0f), rng.rotation(), rng.vec(0.2f, 1.0f)};
            p.b = {rng.vec(-4.0f, 4.0f), rng.rotation(), rng.vec(0.2f, 1.0f)};
        }
        return out;
    }();
    return pairs;
}

struct Batches {
    tumble::ObbBatch a, b;
    double overlapping = 0;
};
Batches to_batches(const std::vector<bench::BoxPair>& in) {
    Batches out;
    for (const bench::BoxPair& p : in) {
        out.a.push_back(p.a);
        out.b.push_back(p.b);
        out.overlapping += tumble::overlap(p.a, p.b) ? 1 : 0;
    }
    return out;
}

// Runs `body` with dispatch forced to `target` (0: whatever the CPU offers) and restores it.
template <class Body>
void on_target(benchmark::State& state, std::int64_t target, const Body& body) {
    hwy::SetSupportedTargetsForTest(target);
    state.SetLabel(tumble::batch_target_name());
    body();
    hwy::SetSupportedTargetsForTest(0);
}

void counters(benchmark::State& state, const tumble::BatchStats& s, double overlapping, std::size_t n) {
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
    const double pairs = static_cast<double>(s.pairs);
    state.counters["overlapping"] = overlapping / static_cast<double>(n);
    state.counters["simd_decided"] = pairs > 0 ? static_cast<double>(s.simd_separated + s.simd_overlapping) / pairs : 0;
    state.counters["scalar"] = pairs > 0 ? static_cast<double>(s.scalar) / pairs : 0;
}

void batch_overlap(benchmark::State& state, const std::vector<bench::BoxPair>& in, std::int64_t target) {
    const Batches batches = to_batches(in);
    std::vector<std::uint8_t> results(in.size());
    tumble::BatchStats stats;
    on_target(state, target, [&] {
        for (auto _ : state) {
            tumble::overlap(batches.a, batches.b, results, &stats);
            benchmark::DoNotOptimize(results.data());
            benchmark::ClobberMemory();
        }
    });
    counters(state, stats, batches.overlapping, in.size());
}

void batch_collide(benchmark::State& state, const std::vector<bench::BoxPair>& in, std::int64_t target) {
    const Batches batches = to_batches(in);
    std::vector<std::optional<tumble::Contact>> results(in.size());
    tumble::BatchStats stats;
    on_target(state, target, [&] {
        for (auto _ : state) {
            tumble::collide(batches.a, batches.b, results, &stats);
            benchmark::DoNotOptimize(results.data());
            benchmark::ClobberMemory();
        }
    });
    counters(state, stats, batches.overlapping, in.size());
}

// The scalar tests on the sparse input, in a loop over the whole list (the per-pair scalar benchmarks of
// narrowphase_bench.cpp use box_pairs()).
void BM_BoxBox_Tumble_overlap_sparse(benchmark::State& state) {
    const auto& in = sparse_pairs();
    for (auto _ : state)
        for (const bench::BoxPair& p : in) benchmark::DoNotOptimize(tumble::overlap(p.a, p.b));
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(in.size()));
}
BENCHMARK(BM_BoxBox_Tumble_overlap_sparse);

void BM_BoxBox_Tumble_collide_sparse(benchmark::State& state) {
    const auto& in = sparse_pairs();
    for (auto _ : state)
        for (const bench::BoxPair& p : in) benchmark::DoNotOptimize(tumble::collide(p.a, p.b));
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(in.size()));
}
BENCHMARK(BM_BoxBox_Tumble_collide_sparse);

// BM_Batch_Overlap/<target> etc., one per target; "best" lets the dispatch choose.
const int registered = [] {
    std::vector<std::pair<std::string, std::int64_t>> targets{{"best", 0}};
    for (std::int64_t t : hwy::SupportedAndGeneratedTargets()) targets.emplace_back(hwy::TargetName(t), t);
    for (const auto& [name, target] : targets) {
        const std::int64_t t = target;
        benchmark::RegisterBenchmark(("BM_Batch_Overlap/" + name).c_str(),
                                     [t](benchmark::State& s) { batch_overlap(s, bench::box_pairs(), t); });
        benchmark::RegisterBenchmark(("BM_Batch_Collide/" + name).c_str(),
                                     [t](benchmark::State& s) { batch_collide(s, bench::box_pairs(), t); });
        benchmark::RegisterBenchmark(("BM_Batch_Overlap_sparse/" + name).c_str(),
                                     [t](benchmark::State& s) { batch_overlap(s, sparse_pairs(), t); });
        benchmark::RegisterBenchmark(("BM_Batch_Collide_sparse/" + name).c_str(),
                                     [t](benchmark::State& s) { batch_collide(s, sparse_pairs(), t); });
    }
    return 0;
}();

}  // namespace
