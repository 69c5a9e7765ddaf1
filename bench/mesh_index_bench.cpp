// Static-mesh index: the BVH (MeshIndex) against a loose octree holding the triangles' AABBs, on the real level's
// triangles, queried with the swept boxes of falling bodies (the engine's use). Decides which structure the engine
// uses for static meshes (docs/architecture.md, "Broadphase").

#include <filesystem>
#include <vector>

#include <benchmark/benchmark.h>

#include <tumble/tumble.hpp>

namespace {

struct LevelQueries {
    std::vector<tumble::Triangle> triangles;
    std::vector<tumble::Aabb> queries;
};

const LevelQueries& level() {
    static const LevelQueries data = [] {
        LevelQueries d;
        const tumble::ObjFile file = tumble::load_obj(std::filesystem::path(TUMBLE_SOURCE_DIR) / "samples/data/oa_dm1.obj");
        for (std::size_t t = 0; t < file.mesh.triangle_count(); ++t) d.triangles.push_back(file.mesh.triangle(t));
        // Query boxes of 0.2-1 m placed on random floor points (fixed seed): what a resting or falling box asks.
        std::uint64_t s = 12345;
        auto next = [&] {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            return static_cast<float>((s >> 33) & 0xffffff) / 16777216.0f;
        };
        const tumble::Aabb bounds = [&] {
            tumble::Aabb b = tumble::Aabb::empty();
            for (const auto& t : d.triangles) b = b.merged(t.aabb());
            return b;
        }();
        while (d.queries.size() < 4096) {
            const auto& t = d.triangles[static_cast<std::size_t>(next() * static_cast<float>(d.triangles.size())) % d.triangles.size()];
            if (glm::normalize(t.scaled_normal()).y < 0.7f) continue;
            const glm::vec3 c = t.centroid() + glm::vec3(0.0f, 0.3f, 0.0f);
            const float h = 0.1f + 0.4f * next();
            d.queries.push_back({c - glm::vec3(h), c + glm::vec3(h, h + 0.15f, h)});
        }
        (void)bounds;
        return d;
    }();
    return data;
}

void BM_MeshIndexBvhQuery(benchmark::State& state) {
    const LevelQueries& d = level();
    const tumble::MeshIndex index(d.triangles);
    std::vector<std::uint32_t> out;
    std::size_t hits = 0, k = 0;
    for (auto _ : state) {
        out.clear();
        index.query(d.queries[k++ & 4095], out);
        hits += out.size();
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["hits_per_query"] = static_cast<double>(hits) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_MeshIndexBvhQuery);

void BM_MeshIndexLooseOctreeQuery(benchmark::State& state) {
    const LevelQueries& d = level();
    tumble::Aabb bounds = tumble::Aabb::empty();
    for (const auto& t : d.triangles) bounds = bounds.merged(t.aabb());
    tumble::LooseOctree tree(bounds, 12);
    for (std::uint32_t i = 0; i < d.triangles.size(); ++i) tree.insert(d.triangles[i].aabb(), i);
    std::vector<tumble::ProxyId> out;
    std::size_t hits = 0, k = 0;
    for (auto _ : state) {
        out.clear();
        tree.query(d.queries[k++ & 4095], out);
        hits += out.size();
        benchmark::DoNotOptimize(out.data());
    }
    state.counters["hits_per_query"] = static_cast<double>(hits) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_MeshIndexLooseOctreeQuery);

}  // namespace


