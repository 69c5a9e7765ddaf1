// Cost of building the active-edge flags of the real levels (World::add_mesh pays it once per mesh).

#include <filesystem>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include <tumble/tumble.hpp>

namespace {

const char* const kLevels[] = {"oa_dm1.obj", "oa_rpg3dm2.obj", "oasago2.obj"};

const std::vector<tumble::Triangle>& level(int k) {
    static std::vector<std::vector<tumble::Triangle>> all = [] {
        std::vector<std::vector<tumble::Triangle>> out;
        for (const char* name : kLevels) {
            const tumble::ObjFile file = tumble::load_obj(std::filesystem::path(TUMBLE_SOURCE_DIR) / "samples/data" / name);
            std::vector<tumble::Triangle> tris;
            for (std::size_t t = 0; t < file.mesh.triangle_count(); ++t) tris.push_back(file.mesh.triangle(t));
            out.push_back(std::move(tris));
        }
        return out;
    }();
    return all[static_cast<std::size_t>(k)];
}

void BM_ComputeActiveEdges(benchmark::State& state) {
    const std::vector<tumble::Triangle>& tris = level(static_cast<int>(state.range(0)));
    for (auto _ : state) benchmark::DoNotOptimize(tumble::compute_active_edges(tris));
    state.SetLabel(std::string(kLevels[state.range(0)]) + ", " + std::to_string(tris.size()) + " triangles");
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(tris.size()));
}
BENCHMARK(BM_ComputeActiveEdges)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
