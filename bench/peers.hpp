#pragma once
// Helpers shared by the peer-engine benchmarks.

#include <cstddef>

#include <benchmark/benchmark.h>

#include <tumble/narrowphase/sat.hpp>

#include "inputs.hpp"

namespace bench {

/// Counts the peer's boolean answers that differ from Tumble's exact test on the same inputs and reports them as the
/// counter "wrong" (out of kInputCount), so the tables show which peers are correct.
template <class Input, class PeerAnswer>
void count_wrong(benchmark::State& state, const std::vector<Input>& in, const PeerAnswer& peer) {
    std::size_t wrong = 0;
    for (std::size_t k = 0; k < in.size(); ++k) {
        bool exact;
        if constexpr (std::is_same_v<Input, BoxPair>)
            exact = tumble::overlap(in[k].a, in[k].b);
        else
            exact = tumble::overlap(in[k].box, in[k].tri);
        if (peer(k) != exact) ++wrong;
    }
    state.counters["wrong"] = static_cast<double>(wrong);
}

template <class F>
void per_pair(benchmark::State& state, const F& f) {
    std::size_t k = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(f(k & (kInputCount - 1)));
        ++k;
    }
}

}  // namespace bench
