#pragma once
/// @file
/// Static index over the triangles of a mesh: a bounding volume hierarchy (BVH) built once with the binned
/// surface-area heuristic (Wald, "On fast Construction of SAH-based Bounding Volume Hierarchies", 2007; Ericson,
/// Real-Time Collision Detection, 6.2). Answers AABB queries (which triangles may touch a box) and ray casts.
///
/// A BVH rather than a second loose octree: level triangles range from centimetre slivers to 30 m floor slabs,
/// and a BVH bounds each node by what it holds, so large and small triangles do not crowd the same cells.

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <tumble/narrowphase/shapes.hpp>

namespace tumble {

/// The closest intersection of a ray with a mesh.
struct RayHit {
    std::uint32_t triangle = 0;  ///< index of the triangle in the mesh
    float distance = 0.0f;       ///< metres along the (unit) ray direction from its origin
    glm::vec3 point{0.0f};       ///< world point of the hit
    glm::vec3 normal{0.0f};      ///< unit front normal of the triangle (counter-clockwise side)
    bool front_face = false;     ///< true when the ray hit the front side (direction . normal < 0)
};

/// Immutable BVH over a triangle list (world frame, metres). Building validates nothing: the engine checks
/// triangles before it builds an index. Queries are const and thread-safe.
class MeshIndex {
public:
    MeshIndex() = default;
    /// Builds the hierarchy; O(n log n). Triangles are copied.
    explicit MeshIndex(std::vector<Triangle> triangles);

    std::size_t size() const { return triangles_.size(); }
    const Triangle& triangle(std::uint32_t index) const { return triangles_[index]; }
    const std::vector<Triangle>& triangles() const { return triangles_; }
    /// World AABB of all triangles (empty box for an empty mesh).
    Aabb bounds() const { return nodes_.empty() ? Aabb::empty() : nodes_[0].box; }

    /// Appends the indices of triangles whose AABBs overlap `box` to `out` (not cleared), in a deterministic order
    /// (depth-first, left child first).
    void query(const Aabb& box, std::vector<std::uint32_t>& out) const;

    /// Closest hit of the ray origin + t * direction for t in [0, max_distance] with any triangle, either side.
    /// `direction` need not be unit; `distance` in the result is in units of |direction| (metres for a unit
    /// direction). Returns nothing for no hit, a zero direction, or non-finite input.
    std::optional<RayHit> raycast(const glm::vec3& origin, const glm::vec3& direction, float max_distance) const;

    /// Every hit of the same ray: calls `visit(const RayHit&) -> float` for each triangle the ray crosses (either
    /// side) no farther than the current bound, which starts at `max_distance` and becomes the smallest value
    /// `visit` has returned (return `max_distance` to see every hit, the hit's distance to keep only closer ones).
    /// Nodes are visited nearer child first. Same bad-input rules as above.
    template <class F>
    void raycast(const glm::vec3& origin, const glm::vec3& direction, float max_distance, F&& visit) const {
        using Visit = std::remove_reference_t<F>;
        walk_ray(origin, direction, max_distance, const_cast<void*>(static_cast<const void*>(&visit)),
                 [](void* context, const RayHit& hit) -> float { return (*static_cast<Visit*>(context))(hit); });
    }

    /// Checks that every node bounds its children and triangles and that every triangle is referenced once.
    std::string validate() const;

private:
    struct Node {
        Aabb box;
        std::uint32_t first = 0;  // leaf: first entry in order_; inner: index of the left child (right = left + 1)
        std::uint32_t count = 0;  // leaf: number of triangles (> 0); inner: 0
    };
    void walk_ray(const glm::vec3& origin, const glm::vec3& direction, float max_distance, void* context,
                  float (*visit)(void*, const RayHit&)) const;
    void build(std::uint32_t node, std::uint32_t begin, std::uint32_t end, int depth, std::vector<Aabb>& boxes,
               std::vector<glm::vec3>& centroids);

    std::vector<Triangle> triangles_;
    std::vector<std::uint32_t> order_;  // triangle indices, leaf ranges are contiguous
    std::vector<Aabb> leaf_boxes_;      // leaf_boxes_[i]: the AABB of triangle order_[i] (world, metres)
    std::vector<Node> nodes_;
};

}  // namespace tumble
