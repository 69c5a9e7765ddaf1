// Speed of fit_obb, per method, on the real meshes of tests/data/objects (float points, as a game would pass).

#include <filesystem>
#include <vector>

#include <benchmark/benchmark.h>

#include <tumble/tumble.hpp>

#include "object_points.hpp"

namespace {

const std::vector<glm::vec3>& points(int object) {
    static std::vector<std::vector<glm::vec3>> clouds = [] {
        std::vector<std::vector<glm::vec3>> out;
        for (const testutil::RealObject& o : testutil::kRealObjects) {
            const auto p = testutil::load_object_points(std::filesystem::path(TUMBLE_SOURCE_DIR) / "tests/data/objects" / o.file);
            out.emplace_back(p.begin(), p.end());
        }
        return out;
    }();
    return clouds[static_cast<std::size_t>(object)];
}

void BM_FitObb(benchmark::State& state) {
    const auto method = static_cast<tumble::FitMethod>(state.range(0));
    const std::vector<glm::vec3>& cloud = points(static_cast<int>(state.range(1)));
    for (auto _ : state) benchmark::DoNotOptimize(tumble::fit_obb(cloud, method));
    state.SetLabel(std::string(tumble::to_string(method)) + " " + testutil::kRealObjects[state.range(1)].file);
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(cloud.size()));
}
BENCHMARK(BM_FitObb)->ArgsProduct({{0, 1, 2, 3}, {0, 1, 2, 3}})->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
