#pragma once
// Internal to the narrowphase library (not installed): the convex hull of a 3D point cloud as triangles, from
// Qhull. Kept in its own translation unit because Qhull's headers define many macros.

#include <array>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>

namespace tumble::detail {

using HullTriangle = std::array<glm::dvec3, 3>;

/// Triangles of the boundary of the convex hull of `points` (Qhull with triangulated output, option "Qt"),
/// appended to `out` (cleared first). Orientation of the triangles is not specified. Returns false, with Qhull's
/// message in `error`, when Qhull fails, which it does for flat clouds (all points within round-off of a plane);
/// `out` is then empty. Requires finite points and fewer than 2^31 of them.
bool convex_hull_triangles(std::span<const glm::dvec3> points, std::vector<HullTriangle>& out, std::string& error);

}  // namespace tumble::detail
