#pragma once
/// @file
/// Separating-axis tests (SAT): OBB-OBB on 15 axes and OBB-triangle on 13 axes.
///
/// Sources: Gottschalk, Lin and Manocha, "OBBTree: A Hierarchical Structure for Rapid Interference Detection"
/// (SIGGRAPH 1996) for the 15 axes and the rotation-matrix form of the projections; Ericson, Real-Time Collision
/// Detection (2005), sections 4.4.1 (OBB-OBB) and 5.2.9 (AABB-triangle, whose 13 axes carry over to a box in its
/// own frame); Akenine-Moller, "Fast 3D Triangle-Box Overlap Testing" (Journal of Graphics Tools 6(1), 2001) for
/// the box-triangle axes. Those are boolean tests; `collide` adds the depth and normal of the axis of least
/// overlap.
///
/// Where Tumble differs from common write-ups of these tests, and why:
/// - The depth on an edge-edge axis L = A_i x B_j is divided by |L|, so it is a distance in metres along a unit
///   normal. Extending the boolean 15-axis test to depth by comparing the unnormalised overlaps (picking the axis
///   by depth/(rA+rB)) chooses the wrong axis and pushes by the wrong distance (regression tests in
///   tests/narrowphase_seed_test.cpp).
/// - Axes whose cross product is degenerate (parallel edges) are skipped rather than tested with a zero vector;
///   the face axes already decide those configurations. Every projection is taken exactly for the boxes as given,
///   and an edge axis between nearly parallel edges is formed without cancellation (see the algorithm notes in
///   sat.cpp), so nearly parallel edges need no |R| + epsilon guard (Ericson 2005, section 4.4.1): the test
///   neither misses the overlaps that the float test of Gomez ("Simple Intersection Tests for Games", Gamasutra
///   1999) misses on such edges nor pads every radius into false overlaps.
/// - The box radius on an axis is sum_i h_i |A_i . L|. A box-triangle test that projects one fixed corner of the
///   box instead is wrong for most axes (regression test included).
///
/// Precision: inputs of either scalar type are evaluated in double internally. Results are exact up to double
/// round-off for the shapes as given, including float axes that are orthonormal only to ~1e-7: projections use the
/// actual axes rather than assuming orthonormality. Double input of any magnitude from ~1e-290 to ~1e290 m is
/// handled (it is rescaled by a power of two, exactly, when it lies outside 2^-200..2^200).
///
/// Speed: the answer comes from a filtered fast path (closed-form edge axes with a rigorous error bound, the exact
/// evaluation only for the axes the bound cannot decide) that returns exactly the bits of the exact evaluation
/// described above; see docs/narrowphase.md, "Speed: the filtered fast path".
///
/// Bad input: these functions do not validate and never throw. A NaN or infinite value anywhere in the input
/// reports "separated" (`overlap` false, `collide` empty), and so do double centres so far apart that their
/// difference overflows. Negative half extents, zero-length or far from
/// orthonormal axes give an unspecified answer (no crash, no exception); check shapes with `validate` first, as
/// the engine does.

#include <optional>

#include <tumble/narrowphase/shapes.hpp>

namespace tumble {

/// Edge-cross axes whose length |L| = |u x v| is below kParallelEpsilon |u| |v| (the sine of the angle between the
/// edges) are skipped as parallel, and so is the normal of a triangle whose |n| is below kParallelEpsilon times the
/// product of the two edges it is formed from. Every axis is formed to full relative precision however nearly
/// parallel u and v are (see sat.cpp), so the only error left is the skip itself: an axis within 1e-12 rad of
/// parallel changes a depth or a gap by at most ~1e-12 of the shapes' size. What the threshold really catches is
/// exactly parallel edges (L = 0, or a few ulps of noise when the inputs differ in length), whose configurations the
/// face axes decide.
inline constexpr double kParallelEpsilon = 1e-12;

/// Face axes are preferred over edge axes within this tolerance. An edge axis is chosen only when its depth is
/// smaller than the best face depth by more than
///     kFaceBiasRelative * face_depth + (kFaceBiasAbsolute + kFaceBiasAxisError * axis_error) * size,
/// where size is the largest half extent of the pair (for a triangle, also half its longest edge) and axis_error
/// is the largest departure of the boxes' axes from orthonormality, max |A_k . A_l - delta_kl| over both boxes
/// (about 1e-7 for float rotation matrices, 1e-16 for double ones).
///
/// Why: when boxes rest flat on each other, or share an orientation, several edge axes are a face normal again
/// (A_x x B_z = -A_y for aligned boxes). With exactly orthonormal axes they tie with the face exactly, and
/// round-off (~1e-16 of the size) decides; with float axes, orthonormal only to ~1e-7, the cross product differs
/// from the face normal by that much and its depth by up to ~3 axis_error * size either way (measured on the
/// reference families). Picking the edge there turns a face contact into an edge contact, one manifold point
/// between edges that do not really cross instead of four, from one step to the next. The bias covers both with
/// a margin and nothing more: its price, a reported depth above the true minimum by at most the bias, is measured
/// in docs/narrowphase.md (at most ~1e-6 of the size for float input, ~1e-12 for double).
inline constexpr double kFaceBiasRelative = 1e-10;
inline constexpr double kFaceBiasAbsolute = 1e-12;
inline constexpr double kFaceBiasAxisError = 8.0;

/// For speculative manifolds (`collide_manifold` with a margin, the contacts the engine simulates with), a face axis
/// is also preferred over an edge axis unless the edge is better by this fraction of the size (largest half extent
/// of the pair). A box resting on a ledge over its edge, turned by 1e-4 rad, has an edge-edge axis along the ledge's
/// edge that is "deeper" than the face by the tilt times the overhang: without this it would rest on one point at
/// the edge every other step instead of on the clipped face (Box2D's polygon manifolds prefer the reference face
/// likewise, within a tenth of its linear slop). 1e-3 of a 0.5 m box is 0.5 mm; an edge that really crosses a face
/// is better by far more than that.
inline constexpr double kSpeculativeFaceBias = 1e-3;

/// True when the closed boxes A and B share a point (touching counts). Same axes and precision as `collide`, with
/// an early exit on the first separating axis.
template <class T>
bool overlap(const ObbT<T>& a, const ObbT<T>& b) noexcept;

/// OBB-OBB separating-axis test with contact.
///
/// Axis numbering (the contract other code relies on):
///   0-2  A's x, y, z axes (columns of `a.axes`)
///   3-5  B's x, y, z axes
///   6-14 cross(A_i, B_j) with i outer and j inner: 6 = AxBx, 7 = AxBy, 8 = AxBz, 9 = AyBx, ..., 14 = AzBz.
/// Returns nothing when some axis separates the boxes (touching boxes overlap, with depth 0). Otherwise the contact
/// on the axis of least penetration, with face axes preferred within the face bias above: `depth` is the true
/// penetration distance along the unit axis in metres, `normal` the unit axis pointing from A towards B, and
/// `negative` is true when T.L < 0 for T = b.center - a.center and L the axis as numbered (then normal = -L).
/// Concentric boxes (T = 0) give `negative` false.
template <class T>
std::optional<ContactT<T>> collide(const ObbT<T>& a, const ObbT<T>& b) noexcept;

/// True when the closed box and the closed triangle share a point. Same axes and precision as the triangle
/// `collide`, with an early exit.
template <class T>
bool overlap(const ObbT<T>& box, const TriangleT<T>& tri) noexcept;

/// OBB-triangle separating-axis test with contact.
///
/// Axis numbering:
///   0-2  the box's x, y, z axes
///   3    the triangle normal (b - a) x (c - a)
///   4-12 cross(box axis i, edge j) with i outer and j inner, edges e0 = b - a, e1 = c - b, e2 = a - c
///        (4 = x e0, 5 = x e1, 6 = x e2, 7 = y e0, ..., 12 = z e2).
/// The triangle is two-sided here: this is the exact SAT. One-sided mesh behaviour is decided by the caller
/// (see tumble::mesh_contact in the solver). The normal points from the box towards the triangle; `negative` is
/// true when the normal is -L, which happens when the middle of the triangle's projection on L lies on the
/// negative side of the box centre. Degenerate triangles (zero area) skip axis 3 and edges of zero length skip
/// their axes, so they still collide as segments or points, never with NaN.
template <class T>
std::optional<ContactT<T>> collide(const ObbT<T>& box, const TriangleT<T>& tri) noexcept;

extern template bool overlap<float>(const ObbT<float>&, const ObbT<float>&) noexcept;
extern template bool overlap<double>(const ObbT<double>&, const ObbT<double>&) noexcept;
extern template std::optional<ContactT<float>> collide<float>(const ObbT<float>&, const ObbT<float>&) noexcept;
extern template std::optional<ContactT<double>> collide<double>(const ObbT<double>&, const ObbT<double>&) noexcept;
extern template bool overlap<float>(const ObbT<float>&, const TriangleT<float>&) noexcept;
extern template bool overlap<double>(const ObbT<double>&, const TriangleT<double>&) noexcept;
extern template std::optional<ContactT<float>> collide<float>(const ObbT<float>&, const TriangleT<float>&) noexcept;
extern template std::optional<ContactT<double>> collide<double>(const ObbT<double>&,
                                                                const TriangleT<double>&) noexcept;

}  // namespace tumble
