#pragma once
/// @file
/// Edge adjacency of a static triangle mesh and the active-edge flags built from it (see
/// tumble/narrowphase/active_edges.hpp for what the flags are for).
///
/// Mesh preprocessing for the contact policies of tumble/narrowphase/contact_policy.hpp, built once per mesh (the
/// engine does it in World::add_mesh); not broadphase work, hence its place in tumble::narrowphase (the former path
/// tumble/broadphase/mesh_adjacency.hpp forwards here). Level meshes are triangle soup: some edges are
/// shared by two triangles, some by three or more, some are open, and some open edges meet their neighbours only
/// through T-junctions (a long edge on one side, several shorter collinear edges on the other). All are handled.

#include <cstddef>
#include <span>
#include <vector>

#include <tumble/narrowphase/active_edges.hpp>
#include <tumble/narrowphase/shapes.hpp>

namespace tumble {

/// Counts from `compute_active_edges`, for tests and logs. Every triangle edge is counted once in `edges` and in
/// exactly one of `shared`, `t_junction` and `open`.
struct ActiveEdgeStats {
    std::size_t edges = 0;            ///< 3 per triangle
    std::size_t shared = 0;           ///< edges whose two endpoints are shared with at least one other triangle
    std::size_t multiply_shared = 0;  ///< of those, edges shared by three or more triangles
    std::size_t t_junction = 0;       ///< open edges covered along their whole length by collinear edges of others
    std::size_t open = 0;             ///< the rest: real boundaries
    std::size_t inconsistent = 0;     ///< neighbours that traverse the edge in the same direction (flipped winding)
    std::size_t inactive = 0;         ///< edges marked inactive
    std::size_t vertices = 0;         ///< distinct vertex positions
    std::size_t inactive_vertices = 0;  ///< of those, vertices no active edge ends at
};

/// Active-edge flags of every triangle of a mesh (world frame, counter-clockwise front faces), one `EdgeFlags` per
/// triangle in input order.
///
/// Vertices are welded by exact position (the engine's meshes are indexed, but the same position may appear under
/// several indices). An edge of triangle T is inactive when some neighbour N across it continues T's surface:
/// - N shares the edge (both endpoints) and traverses it in the opposite direction (consistent winding), or N's
///   collinear edges cover T's edge along its whole length (T-junctions; collinear means within 1e-6 of the mesh's
///   bounding-box diagonal of the line, which absorbs the 10 micrometre vertex grid of the levels), and
/// - N bends away from T's plane by at most `angle_tolerance` radians (flat within the tolerance), or bends towards
///   T's front (a concave corner, such as a floor meeting a wall). The bend is measured at N's vertex off the edge:
///   the angle between T's plane and that vertex, seen from the edge, in T's outward direction.
/// Everything else is active: open edges, convex edges sharper than the tolerance, and edges whose neighbours are
/// flipped (they do not say which side is solid). With three or more triangles on an edge, the edge is inactive
/// for T when any one of them continues T's surface. A vertex is active when any edge of any triangle that ends at
/// it (same welded position) is active for that triangle; per triangle, the flags carry its three vertices' bits.
/// Triangles must be non-degenerate (the engine checks).
/// O(n log n) for n triangles plus the T-junction search among open edges.
std::vector<EdgeFlags> compute_active_edges(std::span<const Triangle> triangles,
                                            double angle_tolerance = kActiveEdgeAngle,
                                            ActiveEdgeStats* stats = nullptr);

}  // namespace tumble
