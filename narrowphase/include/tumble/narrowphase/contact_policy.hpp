#pragma once
/// @file
/// Contact policies: what a contact with static geometry may push through. The exact SAT is two-sided and sees
/// every triangle edge and every box face as a real corner; a level is a set of one-sided surfaces whose interior
/// seams are not corners. These functions decide contacts with mesh triangles and with static boxes laid flush on
/// top of the exact tests (`collide`, `collide_manifold`), so that the engine and queries share one rule.
///
/// Sources: one-sided triangles with the face normal replacing back-facing or seam normals follow Jolt's active
/// edges (Rouwe, ActiveEdges.h and its documentation) and Bullet's internal-edge utility (Coumans,
/// btInternalEdgeUtility); judging "in front" by the box centre is the usual one-sided test (Ericson, Real-Time
/// Collision Detection, 2005, section 5.3.6 on back-face rejection).

#include <optional>

#include <tumble/narrowphase/active_edges.hpp>
#include <tumble/narrowphase/manifold.hpp>
#include <tumble/narrowphase/sat.hpp>
#include <tumble/narrowphase/shapes.hpp>

namespace tumble {

/// One-sided box-triangle contact for static meshes, decided on top of the exact two-sided `collide`.
///
/// A mesh triangle has a front (counter-clockwise) side only. When the box centre is behind the triangle's plane
/// both at `start_center` (the start of the step) and now, the triangle is ignored (the box is on its far side).
/// Otherwise the box is always pushed out through the front: if the SAT's least-penetration axis would push the
/// box towards the back, the contact is replaced by the triangle-normal axis (axis 3, normal = -front normal,
/// depth = the box's reach behind the plane), provided the box lies over the triangle (some point of its face
/// nearest the triangle projects inside it); a box beside the triangle gets no contact from it, since the plane's
/// extension is not there (the neighbouring triangles decide). Using the start of the step as well as the current centre keeps a
/// fast box whose centre crossed a floor in one step from being pushed out of the back (which loses boxes in other
/// engines).
///
/// Active edges: when the SAT's contact is supported on the triangle's side by an inactive feature
/// (`on_inactive_feature`: an inactive edge, or a vertex whose two edges are inactive), the neighbouring triangle
/// continues the surface there and the contact is replaced in the same way, by the triangle-normal axis with the
/// box's reach behind the plane as depth. This removes ghost collisions on the seams of tessellated floors.
/// `active_edges` = kAllEdgesActive (the default) keeps every SAT answer that pushes to the front.
/// Returns nothing when there is no contact. Same frames and units as `collide`. Degenerate triangles (no front)
/// get the two-sided `collide`; NaN input gives nothing.
std::optional<Contact> mesh_contact(const Obb& box, const Triangle& tri, const glm::vec3& start_center,
                                    EdgeFlags active_edges = kAllEdgesActive) noexcept;

/// Angle, radians, within which an edge-edge contact normal counts as a face normal of the box in `mesh_manifold`:
/// the triangle edge then lies along that face (a face resting on an edge), and the face's manifold replaces the
/// edge's single point.
inline constexpr double kFaceEdgeAngle = 0.1;

/// The manifold form of `mesh_contact`, for contacts found once per step: the speculative manifold
/// `collide_manifold(box, tri, margin)` (shapes within `margin` metres; signed point depths), with the same rules.
/// `box` is the box to test (the engine passes its pose at the start of the step, with the step's motion in
/// `margin`) and `start_center` its centre at the start of the step. The triangle is ignored when the box centre is
/// behind its plane both at `start_center` and at `box.center`. A manifold that comes from an inactive feature is
/// replaced by `face_manifold(box, tri, 3, true, margin)` restricted to its points over the triangle: the box's face
/// nearest the triangle clipped to the triangle, pushed out through the front. A manifold whose normal leads towards
/// the back (its cosine with the back normal above sin(kFeatureAngle), so that float error on a perpendicular
/// normal, as at the top edge of a wall below a ledge, does not count) gets nothing when the box is apart from the
/// triangle (it cannot meet the triangle from the front that way), and otherwise the same face manifold restricted
/// further to the points no deeper behind the plane than the SAT's depth plus `margin`: the points that can have
/// crossed the plane from the front during the step. (A box lying across a ledge has corners half a box deep behind
/// the wall under the ledge; pushing them out through the wall would throw the box off the ledge.) Nothing either
/// when the box is farther than `margin`, no point is kept, or the input is NaN. An edge-edge manifold kept as the
/// SAT gave it whose normal lies within kFaceEdgeAngle of a box face normal is replaced by that face's
/// `face_manifold` when that has at least two points and its normal does not lead towards the back: one point
/// cannot hold a box face lying on a triangle edge (a plate across a step rocked about it for ever). World frame,
/// metres; normal from the box towards the triangle.
std::optional<Manifold> mesh_manifold(const Obb& box, const Triangle& tri, const glm::vec3& start_center,
                                      EdgeFlags active_edges, float margin) noexcept;

/// Box-box contact that never pushes through an internal face (a face covered by a flush static neighbour, see
/// FaceFlags): `collide(a, b)`, then, when the contact comes out of a feature of a box that touches one of its
/// internal faces (`on_internal_face`, seen from that box towards the other), the contact is replaced by the face
/// of that box that is not internal and needs the least push (the exact overlap of the two boxes along its
/// normal). With flush static boxes laid as a floor this keeps a box sliding across their seams from being pushed
/// back or sideways. When both boxes have such features the first one's (a's) is treated. With no internal faces
/// this is `collide(a, b)`. Same frames and units as `collide`; nothing when the boxes are separated.
std::optional<Contact> box_contact(const Obb& a, FaceFlags a_internal, const Obb& b, FaceFlags b_internal) noexcept;

/// The manifold form of `box_contact`: the speculative manifold `collide_manifold(a, b, margin)`, replaced, when
/// it comes out of an internal face, by `face_manifold` on the real face that needs the least push. World frame,
/// metres; normal from a towards b; nothing when the boxes are farther apart than `margin` or the input is NaN.
std::optional<Manifold> box_manifold(const Obb& a, FaceFlags a_internal, const Obb& b, FaceFlags b_internal,
                                     float margin) noexcept;

}  // namespace tumble
