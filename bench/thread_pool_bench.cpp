// The cost of one ThreadPool::for_each_chunk call as the step makes them (docs/benchmarks.md, "Serial parts of the
// step"): a small parallel loop (4,096 square roots in chunks of 64, about 8 us of work on one thread) between two
// stretches of serial work on the caller (about 50 us), as a step's stages alternate. Arguments: the pool's threads.
// With one thread the pool runs the chunks on the caller; with two, the loop's share of an iteration is what the
// call costs beyond its work.

#include <cmath>
#include <cstddef>
#include <vector>

#include <benchmark/benchmark.h>

#include <tumble/core/thread_pool.hpp>

namespace {

void BM_ThreadPool_CallBetweenSerialWork(benchmark::State& state) {
    tumble::ThreadPool pool(static_cast<int>(state.range(0)));
    std::vector<float> values(4096, 1.0f);
    double serial = 0.0;
    for (auto _ : state) {
        pool.for_each_chunk(values.size(), 64, [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i) values[i] = std::sqrt(values[i] + 1.0f);
        });
        for (int k = 0; k < 20000; ++k) serial += std::sqrt(static_cast<double>(k));
        benchmark::DoNotOptimize(serial);
        benchmark::ClobberMemory();
    }
}
BENCHMARK(BM_ThreadPool_CallBetweenSerialWork)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
