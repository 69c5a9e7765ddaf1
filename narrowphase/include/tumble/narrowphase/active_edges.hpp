#pragma once
/// @file
/// Active edges: which features of a triangle in a mesh, or of a static box in a flush grid, are real corners that
/// may push a box sideways, and which are only seams inside a larger flat (or concave) surface.
///
/// A box sliding across a floor made of many triangles sinks a little into it every step (gravity acts before the
/// position correction). When it reaches the next triangle, the exact SAT against that triangle alone sees a box
/// whose side has just crossed the triangle's edge by less than it has sunk, and its least-penetration axis is
/// horizontal: the box is pushed back or sideways by an edge that is not there in the whole floor (a "ghost
/// collision"). The same happens at the seams between static boxes laid flush as a floor. The cure is the one of
/// Jolt (ActiveEdges.h, "active edges"), Bullet (btInternalEdgeUtility, "internal edges") and Box3D (edge
/// identification in its mesh manifolds): once, when the mesh is built, mark each triangle edge active (a convex
/// corner of the surface) or inactive (flat or concave: the neighbour continues the surface), and never report a
/// contact normal that comes from an inactive feature; the triangle's face normal is used instead.
///
/// Edge numbering is that of `collide(Obb, Triangle)`: edge 0 = b - a, edge 1 = c - b, edge 2 = a - c. The
/// adjacency itself is built once per mesh (`compute_active_edges`, tumble/narrowphase/mesh_adjacency.hpp); the
/// contact policies apply the flags (`mesh_contact`, `box_contact`, tumble/narrowphase/contact_policy.hpp).

#include <cstdint>

#include <tumble/narrowphase/shapes.hpp>

namespace tumble {

/// Active features of one triangle: bit j (0..2) set when edge j is active (a real corner), bit 3 + k set when
/// vertex k (a, b, c) is active, i.e. when some edge of the mesh that ends at it is active. Edges without
/// neighbours are active; `kAllEdgesActive` is what a lone triangle gets.
using EdgeFlags = std::uint8_t;
inline constexpr EdgeFlags kAllEdgesActive = 0b111111;

/// Internal faces of a box: bit 2i set when the face on the +axis i side is internal (covered by a flush
/// neighbour), bit 2i + 1 for the face on the -axis i side. Zero for a free box.
using FaceFlags = std::uint8_t;

/// Angle tolerance of the active-edge decisions, radians (5 degrees, Jolt's default): an edge whose neighbour
/// bends away (convex) by less than this is treated as flat, hence inactive.
inline constexpr double kActiveEdgeAngle = 0.087266462599716478;

/// Angle tolerance, radians, within which a feature (edge or face) of a triangle or a box counts as perpendicular to
/// a contact normal, i.e. as the feature that supports the contact rather than one of its vertices (or edges). The
/// SAT's edge axes are perpendicular to their edge up to float round-off (1e-7); 0.01 rad also takes in box faces
/// within 0.6 degrees of a triangle edge, as when a box slides nearly square across a seam.
inline constexpr double kFeatureAngle = 0.01;

/// True when the contact `c` of `collide(box, tri)` (normal from the box towards the triangle) is supported on the
/// triangle's side by an inactive feature: an inactive edge, or an inactive vertex (one that no active edge of the
/// mesh ends at: a vertex inside a flat or concave region). The supporting feature is the vertex deepest along the
/// normal (least dot(v, normal)), or the edge from it that is perpendicular to the normal within kFeatureAngle (the
/// more perpendicular of the two when both are, as for a normal along the face). Axis 3, the face normal itself,
/// is never inactive. NaN input and degenerate triangles give false.
bool on_inactive_feature(const Triangle& tri, const Contact& c, EdgeFlags active) noexcept;

/// True when the part of `box` that faces the unit direction `outward` (world frame) touches an internal face: the
/// supporting feature of the box in that direction (a face, an edge or a vertex; an axis counts when
/// |outward . axis| > sin(kFeatureAngle)) has an internal face among the faces that meet there. A contact whose
/// normal comes out of such a feature is a seam of a flush grid, not a corner.
bool on_internal_face(const Obb& box, const glm::vec3& outward, FaceFlags internal) noexcept;

/// The faces of `box` that `neighbour` covers flush: the neighbour has a face with the opposite normal (parallel
/// within 1.4e-3 rad), in the same plane (within `tolerance` metres), that contains the box's face (every corner
/// of the box's face lies within the neighbour's face grown by `tolerance`). Returns the bits of those faces (see
/// FaceFlags). A face covered only by several neighbours together is not detected and stays a real face.
FaceFlags covered_faces(const Obb& box, const Obb& neighbour, float tolerance) noexcept;

}  // namespace tumble
