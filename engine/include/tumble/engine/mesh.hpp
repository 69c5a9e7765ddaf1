#pragma once
/// @file
/// Triangle meshes for static level geometry, and loading them from Wavefront OBJ files.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include <tumble/narrowphase/shapes.hpp>

namespace tumble {

/// Indexed triangle mesh, world frame (or any frame the caller transforms it from), metres.
/// `indices` holds three vertex indices per triangle, counter-clockwise seen from the front (the side boxes rest
/// on). Validated when added to a World: finite vertices, indices in range, no degenerate triangle.
struct TriangleMesh {
    std::vector<glm::vec3> vertices;
    std::vector<std::uint32_t> indices;

    std::size_t triangle_count() const { return indices.size() / 3; }
    Triangle triangle(std::size_t t) const {
        return {vertices[indices[3 * t]], vertices[indices[3 * t + 1]], vertices[indices[3 * t + 2]]};
    }
    /// Empty when the mesh is usable; otherwise the first problem: index count not a multiple of 3, an index out of
    /// range (naming the triangle), a non-finite vertex (naming it), a degenerate triangle (naming it).
    std::string validate() const;
};

/// A player spawn point listed in a level file as a comment line `# spawn CLASS x y z` (metres).
struct SpawnPoint {
    std::string class_name;
    glm::vec3 position{0.0f};
};

/// What `load_obj` reads from a file.
struct ObjFile {
    TriangleMesh mesh;
    std::vector<SpawnPoint> spawns;  ///< from `# spawn` comment lines, in file order (the levels in samples/data have them)
};

/// Loads the triangles of a Wavefront OBJ file with tinyobjloader (polygons are triangulated as a fan, all groups
/// and objects merged, normals and texture coordinates ignored) and the `# spawn` comment lines.
/// Throws `FileError` naming the path when the file is missing or unreadable, and naming the path and line when a
/// `v` or `f` line is malformed (wrong number of fields, a value that is not a number, NaN or infinity, an index
/// of 0 or out of range) or a `# spawn` line cannot be parsed. Degenerate triangles are kept (TriangleMesh::validate
/// reports them); `drop_degenerate` removes them instead, for meshes such as the assimp spider that contain some.
ObjFile load_obj(const std::filesystem::path& path, bool drop_degenerate = false);

}  // namespace tumble
