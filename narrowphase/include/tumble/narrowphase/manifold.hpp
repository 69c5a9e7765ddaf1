#pragma once
/// @file
/// Contact manifolds: the contact normal and depth of `collide` plus up to 4 contact points, each with its own
/// depth and a feature id that stays the same while the touching features stay the same (for warm starting).
///
/// Method (ODE's dBoxBox and Bullet's btBoxBoxDetector; Ericson, Real-Time Collision Detection, 2005, sections
/// 5.1.9 and 8.3.4 for segment closest points and Sutherland-Hodgman clipping; feature-pair ids as in qu3e's
/// q3FeaturePair and Box2D's b2ContactId):
/// - The separating-axis test is the one `collide` runs (same code): same axis, sign, normal and depth.
/// - Face axis: the face of the shape owning the axis that faces the other shape is the *reference face*; the face
///   of the other box most anti-parallel to it is the *incident face* (a triangle is its own incident face). The
///   incident polygon is clipped against the side planes of the reference face (Sutherland-Hodgman), and the
///   clipped points that lie below the reference face are the contact points. More than 4 are reduced to 4: the
///   deepest, then the farthest from it, then the one that makes the largest triangle with those two, then the one
///   that adds the most area to that triangle.
/// - Edge-edge axis: one point, from the closest points of the two edges that support the shapes along the normal.
///
/// Feature ids (`ManifoldPointT::id`): `feature_a | feature_b << 8`, the features of A (the box) and B (the other
/// box, or the triangle) that generate the point:
///   box:      corners 0-7 (the binary order of `ObbT::corners`), edges 8-19 (`box_edge_feature`),
///             faces 20-25 (20 + 2 axis + (1 if the + face));
///   triangle: vertices 0-2 (a, b, c), edges 8-10 (8 + j for edge e_j, e0 = b - a, e1 = c - b, e2 = a - c), face 20.
/// A clipped point is one of: an incident corner below the reference face (reference face, incident corner); an
/// incident edge cut by a side plane (reference edge, incident edge); a corner of the reference face over the
/// incident face (reference corner, incident face). An edge-edge point is (edge of A, edge of B). The id therefore
/// names the two features whatever axis, reference face or incident face produced it, and it stays the same from
/// one step to the next while those features keep touching.

#include <array>
#include <cstdint>
#include <optional>

#include <tumble/narrowphase/sat.hpp>
#include <tumble/narrowphase/shapes.hpp>

namespace tumble {

/// Most points a manifold holds.
inline constexpr int kMaxManifoldPoints = 4;

/// One contact point of a manifold, world frame, metres.
///
/// - `point_a`: on the surface of A (the first box);
/// - `point_b`: on the surface of B (the second box, or the triangle);
///   point_a = point_b + depth * normal: moving B by `depth` along the normal brings point_b onto point_a.
///   For a face contact, the point on the incident face is the clipped point, within the side planes of the
///   reference face and `depth` below it (so outside a reference box thinner than that), and the other one is its
///   projection onto the reference face, which lies outside the incident shape when that shape is tilted against the
///   face (a corner of a turned box below a face projects up past the box's sides); for an edge-edge contact they
///   are the closest points of the two edges.
/// - `depth`: this point's penetration in metres, >= 0: its distance below the reference face (or between the two
///   edges). At most the manifold's depth; the deepest point of a face contact has the manifold's depth unless
///   the deepest incident corner lies outside the reference face.
/// - `id`: feature pair, see the file comment.
template <class T>
struct ManifoldPointT {
    Vec3T<T> point_a{T(0)};
    Vec3T<T> point_b{T(0)};
    T depth = T(0);
    std::uint32_t id = 0;
};

/// Contact manifold of two shapes that overlap (touching counts).
///
/// - `axis`, `negative`, `depth`, `normal`: exactly what `collide` returns for the same pair (see `ContactT`):
///   the separating-axis index, whether the normal is -L, the penetration depth in metres and the unit normal
///   from A (the box) towards B (the other box, or the triangle), world frame.
/// - `count`: number of valid entries in `points`, 1 to kMaxManifoldPoints.
template <class T>
struct ManifoldT {
    int axis = -1;
    bool negative = false;
    T depth = T(0);
    Vec3T<T> normal{T(0)};
    int count = 0;
    std::array<ManifoldPointT<T>, kMaxManifoldPoints> points{};
    /// For a face contact: where the reference face ends. A point x (world frame) lies over the reference face when
    /// dot(side_normal[k], x) <= side_offset[k] for every k < sides (unit normals, pointing out of the face's side;
    /// 4 sides for a box face, 3 for a triangle). A contact found at one instant stays meaningful while the incident
    /// shape's point is still over the face; past its edge the face's plane is not there. 0 for an edge contact.
    int sides = 0;
    bool reference_is_a = true;  ///< the reference face belongs to A (the first shape), else to B
    std::array<Vec3T<T>, 4> side_normal{};
    std::array<T, 4> side_offset{};

    /// The contact part alone, equal to what `collide` returns.
    ContactT<T> contact() const { return {axis, negative, depth, normal}; }
};

using ManifoldPoint = ManifoldPointT<float>;
using Manifold = ManifoldT<float>;
using ManifoldPointD = ManifoldPointT<double>;
using ManifoldD = ManifoldT<double>;

/// Feature number of box corner `corner` (0-7, binary order of `ObbT::corners`).
constexpr int box_corner_feature(int corner) { return corner; }
/// Feature number (8-19) of the box edge along local axis `axis` (0-2) through corner `corner` (either end).
/// The two sign bits of the other axes, lower axis first, select one of the axis's four edges.
constexpr int box_edge_feature(int axis, int corner) {
    const int p = axis == 0 ? 1 : 0, q = axis == 2 ? 1 : 2;
    return 8 + 4 * axis + ((corner >> p) & 1) + 2 * ((corner >> q) & 1);
}
/// Feature number (20-25) of the box face with outward normal +axis (`positive`) or -axis.
constexpr int box_face_feature(int axis, bool positive) { return 20 + 2 * axis + (positive ? 1 : 0); }
/// Feature numbers of a triangle: vertex j (0-2: a, b, c), edge j (e_j from vertex j to vertex j+1), the face.
constexpr int triangle_vertex_feature(int j) { return j; }
constexpr int triangle_edge_feature(int j) { return 8 + j; }
inline constexpr int kTriangleFaceFeature = 20;
/// The id of a point generated by feature `fa` of A and feature `fb` of B, and the two halves of an id.
constexpr std::uint32_t feature_id(int fa, int fb) {
    return static_cast<std::uint32_t>(fa) | (static_cast<std::uint32_t>(fb) << 8);
}
constexpr int feature_a(std::uint32_t id) { return static_cast<int>(id & 0xffu); }
constexpr int feature_b(std::uint32_t id) { return static_cast<int>((id >> 8) & 0xffu); }

/// Contact manifold of two oriented boxes (world frame): empty when they are separated, otherwise the contact of
/// `collide(a, b)` with 1 to 4 points (see the file comment for the method and the ids).
///
/// Precision: computed in double like `collide`; the points are as accurate as the shapes (~1e-7 of the size for
/// float input, whose axes are orthonormal only to that), the clipping tolerates them. Bad input: like `collide`,
/// no validation and no exception; NaN or infinite input gives an empty result, and so do shapes from which no
/// separating axis can be formed at all (zero-length axes, for which `collide` reports axis -1). Zero half extents
/// (flat boxes, segments, points) are supported.
template <class T>
std::optional<ManifoldT<T>> collide_manifold(const ObbT<T>& a, const ObbT<T>& b) noexcept;

/// Contact manifold of an oriented box and a two-sided triangle (world frame), with the contact of
/// `collide(box, tri)`: normal from the box towards the triangle. Degenerate triangles (segments, points) give
/// their points as well. Same precision and bad-input behaviour as the box-box manifold.
template <class T>
std::optional<ManifoldT<T>> collide_manifold(const ObbT<T>& box, const TriangleT<T>& tri) noexcept;

/// Speculative contact manifold of two boxes (world frame) that overlap or lie within `margin` metres of each other:
/// contacts found once per step for shapes that may only come into contact during the step (Catto, "Speculative
/// contacts", GDC 2015 talk on continuous collision; the "speculative margin" of Box2D v3 and Jolt).
///
/// The exact SAT runs with the margin: an axis separates only by more than `margin`, and the contact axis is the one
/// of least overlap over the 15 axes, which for shapes apart is the axis of greatest separation; face axes are
/// preferred over edge axes within the face bias and also within kSpeculativeFaceBias of the size (sat.hpp). The
/// points are then built as for `collide_manifold(a, b)` from that axis, keeping every clipped point up to `margin`
/// above the reference face, with signed depths: `depth` < 0 is a gap of -depth metres along the normal (the normal
/// component of point_a - point_b). The manifold's `depth` is that axis' signed overlap. For overlapping shapes the
/// axis, normal and depth are those of `collide(a, b)` unless the speculative preference takes a face axis over an
/// edge axis, and the points are those of `collide_manifold(a, b)` plus any within the margin above the reference
/// face. Shapes apart whose faces along the axis do not face each other (no clipped point) give nothing.
/// `margin` <= 0 or NaN gives exactly `collide_manifold(a, b)`. Bad input as for `collide_manifold`: no
/// exception; NaN or infinite shapes give nothing.
template <class T>
std::optional<ManifoldT<T>> collide_manifold(const ObbT<T>& a, const ObbT<T>& b, T margin) noexcept;

/// Speculative contact manifold of a box and a two-sided triangle (world frame), as the box-box one: shapes
/// within `margin` metres, signed point depths, normal from the box towards the triangle.
template <class T>
std::optional<ManifoldT<T>> collide_manifold(const ObbT<T>& box, const TriangleT<T>& tri, T margin) noexcept;

/// The manifold of two boxes on a face axis chosen by the caller instead of the SAT's (contact policies use it:
/// `box_manifold` in tumble/narrowphase/contact_policy.hpp). `axis` is a face axis as numbered by `collide`: 0-2 a
/// face axis of A, 3-5 one of B; the normal is that unit axis, negated when `negative`, from A towards B, and the
/// depth is the overlap of the two boxes along it (negative: a gap). Nothing when the axis is not a face axis, the
/// input is NaN or infinite, or the gap is larger than `margin` (with `margin` <= 0: when the boxes do not touch
/// along it). Points and depths as `collide_manifold(a, b, margin)` (signed with a margin, clamped at 0 without).
template <class T>
std::optional<ManifoldT<T>> face_manifold(const ObbT<T>& a, const ObbT<T>& b, int axis, bool negative,
                                          T margin) noexcept;

/// The manifold of a box and a triangle on face axis `axis` (0-2 the box's axes, 3 the triangle normal
/// (b - a) x (c - a)), as the box-box `face_manifold`; nothing for axis 3 of a degenerate triangle. The one-sided
/// mesh policy (`mesh_manifold`) uses axis 3 with `negative` true: the box pushed out through the triangle's front.
template <class T>
std::optional<ManifoldT<T>> face_manifold(const ObbT<T>& box, const TriangleT<T>& tri, int axis, bool negative,
                                          T margin) noexcept;

extern template std::optional<ManifoldT<float>> collide_manifold<float>(const ObbT<float>&, const ObbT<float>&) noexcept;
extern template std::optional<ManifoldT<double>> collide_manifold<double>(const ObbT<double>&,
                                                                          const ObbT<double>&) noexcept;
extern template std::optional<ManifoldT<float>> collide_manifold<float>(const ObbT<float>&,
                                                                        const TriangleT<float>&) noexcept;
extern template std::optional<ManifoldT<double>> collide_manifold<double>(const ObbT<double>&,
                                                                          const TriangleT<double>&) noexcept;
extern template std::optional<ManifoldT<float>> collide_manifold<float>(const ObbT<float>&, const ObbT<float>&,
                                                                        float) noexcept;
extern template std::optional<ManifoldT<double>> collide_manifold<double>(const ObbT<double>&, const ObbT<double>&,
                                                                          double) noexcept;
extern template std::optional<ManifoldT<float>> collide_manifold<float>(const ObbT<float>&, const TriangleT<float>&,
                                                                        float) noexcept;
extern template std::optional<ManifoldT<double>> collide_manifold<double>(const ObbT<double>&,
                                                                          const TriangleT<double>&, double) noexcept;
extern template std::optional<ManifoldT<float>> face_manifold<float>(const ObbT<float>&, const ObbT<float>&, int,
                                                                     bool, float) noexcept;
extern template std::optional<ManifoldT<double>> face_manifold<double>(const ObbT<double>&, const ObbT<double>&, int,
                                                                       bool, double) noexcept;
extern template std::optional<ManifoldT<float>> face_manifold<float>(const ObbT<float>&, const TriangleT<float>&,
                                                                     int, bool, float) noexcept;
extern template std::optional<ManifoldT<double>> face_manifold<double>(const ObbT<double>&, const TriangleT<double>&,
                                                                       int, bool, double) noexcept;

}  // namespace tumble
