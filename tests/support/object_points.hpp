#pragma once
// The real meshes of tests/data/objects as point clouds, read with assimp (tests and benchmarks only: the
// library does not depend on assimp). Raw import without post-processing, as tests/data/objects/README.md advises:
// every vertex of every mesh, duplicates included (Wuson.ply stores one vertex per triangle corner).

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <assimp/Importer.hpp>
#include <assimp/scene.h>
#include <glm/glm.hpp>

namespace testutil {

struct RealObject {
    const char* file;       // in tests/data/objects
    double aabb_volume;     // reference value from tests/data/objects/README.md
};

// The four objects and the AABB volumes the data README gives for them.
inline constexpr RealObject kRealObjects[] = {
    {"Wuson.ply", 4.52},
    {"spider.obj", 2.32e6},
    {"Spider_binary.stl", 164.4},
    {"3DSMaxExport.STL", 1.45e5},
};

// All vertex positions of all meshes in the file, in file units. Throws std::runtime_error when assimp cannot read
// the file.
inline std::vector<glm::dvec3> load_object_points(const std::filesystem::path& path) {
    Assimp::Importer importer;
    const aiScene* scene = importer.ReadFile(path.string(), 0u);
    if (!scene || !scene->mRootNode)
        throw std::runtime_error("assimp cannot read " + path.string() + ": " + importer.GetErrorString());
    std::vector<glm::dvec3> out;
    for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
        const aiMesh* mesh = scene->mMeshes[m];
        for (unsigned v = 0; v < mesh->mNumVertices; ++v)
            out.push_back({mesh->mVertices[v].x, mesh->mVertices[v].y, mesh->mVertices[v].z});
    }
    if (out.empty()) throw std::runtime_error(path.string() + " has no vertices");
    return out;
}

}  // namespace testutil
