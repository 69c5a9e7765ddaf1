// One benchmark binary for every family and every contender (Tumble and the peer engines found at build time).

#include <cstdio>

#include <benchmark/benchmark.h>

int main(int argc, char** argv) {
    std::fprintf(stderr, "tumble_bench peers:");
#ifdef TUMBLE_BENCH_BULLET
    std::fprintf(stderr, " Bullet");
#else
    std::fprintf(stderr, " [Bullet not installed: skipped]");
#endif
#ifdef TUMBLE_BENCH_ODE
    std::fprintf(stderr, " ODE");
#else
    std::fprintf(stderr, " [ODE not installed: skipped]");
#endif
#ifdef TUMBLE_BENCH_FCL
    std::fprintf(stderr, " FCL");
#else
    std::fprintf(stderr, " [FCL not installed: skipped]");
#endif
#ifdef TUMBLE_BENCH_CCD
    std::fprintf(stderr, " libccd");
#else
    std::fprintf(stderr, " [libccd not installed: skipped]");
#endif
    std::fprintf(stderr, "\n");
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
