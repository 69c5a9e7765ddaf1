#pragma once
/// @file
/// Swept separating-axis tests: the first time of impact of a box translating along a straight line against a
/// static box (15 axes) or a static triangle (13 axes).
///
/// Sources: Ericson, Real-Time Collision Detection (2005), section 5.5.8 (intersecting moving AABBs: per-axis
/// intervals of overlap in time, first contact at the latest entry if it precedes the earliest exit); Eberly,
/// "Dynamic Collision Detection using Oriented Bounding Boxes" (Geometric Tools, 2002), which extends that to the
/// 15 OBB-OBB and 13 OBB-triangle axes of the static test (see sat.hpp for the axis numbering, which is reused).
///
/// Why this is exact: box A moved by t d meets B when t d lies in the Minkowski difference M = B - A, a convex
/// polyhedron whose face normals are all among the candidate axes. On each axis L the projections overlap for the
/// times in one interval [enter_L, exit_L] (the ray t d between the two supporting planes of M normal to L), and
/// the intersection of those slabs is M itself; so the ray's entry into M, the time of impact, is the latest entry
/// when it precedes the earliest exit. Extra axes that are not face normals of M only add supporting slabs and
/// change nothing. Projections are taken in double for the shapes as given, as in `collide`.
///
/// Bad input: these functions do not validate and never throw. A NaN or infinite value anywhere reports no hit.

#include <optional>

#include <tumble/narrowphase/shapes.hpp>

namespace tumble {

/// First contact of a translating box with a static shape.
///
/// - `toi`: time of impact in [0, 1], as a fraction of the displacement: the moving box first touches the other
///   shape at `center + toi * displacement` (touching counts, as in `overlap`).
/// - `normal`: unit world-frame contact normal at that time, pointing from the moving box towards the other shape
///   (the same convention as `collide`). For a hit after t = 0 it is the axis whose entry was the latest, signed so
///   that `dot(displacement, normal) > 0` (the box was moving into the shape along it).
/// - `axis`, `negative`: the axis index (sat.hpp numbering) and whether the normal is -L.
/// - `initially_overlapping`: the shapes already overlap (or touch) at t = 0; then `toi` is 0 and `normal`,
///   `axis`, `negative` and `depth` are those of `collide` at t = 0 (least penetration).
/// - `depth`: penetration depth at t = 0 when initially overlapping (metres), else 0.
template <class T>
struct SweepHitT {
    T toi = T(0);
    Vec3T<T> normal{T(0)};
    int axis = -1;
    bool negative = false;
    bool initially_overlapping = false;
    T depth = T(0);
};

using SweepHit = SweepHitT<float>;
using SweepHitD = SweepHitT<double>;

/// Box `a` translated by `displacement` (metres, world frame; A's centre goes from `a.center` to
/// `a.center + displacement` as t goes from 0 to 1) against the static box `b`, on the 15 axes of the OBB-OBB test.
/// Returns the first time of impact in [0, 1], or nothing when they do not touch during the motion. To sweep two
/// moving boxes, pass the relative displacement (A's minus B's).
///
/// Ties: when a face axis and an edge axis enter at the same time up to round-off (a box landing flat: the edge
/// axes parallel to the face normal enter with it), the face axis is reported, as `collide` prefers faces.
template <class T>
std::optional<SweepHitT<T>> sweep(const ObbT<T>& a, const Vec3T<T>& displacement, const ObbT<T>& b) noexcept;

/// Box translated by `displacement` against the static triangle `tri`, on the 13 axes of the OBB-triangle test.
/// The triangle is two-sided here; one-sided behaviour (ignore triangles approached from behind) is the caller's
/// choice, e.g. reject hits whose normal points along the triangle's front normal. Degenerate triangles skip the
/// axes they cannot define, as in `collide`.
template <class T>
std::optional<SweepHitT<T>> sweep(const ObbT<T>& box, const Vec3T<T>& displacement, const TriangleT<T>& tri) noexcept;

extern template std::optional<SweepHitT<float>> sweep<float>(const ObbT<float>&, const Vec3T<float>&,
                                                             const ObbT<float>&) noexcept;
extern template std::optional<SweepHitT<double>> sweep<double>(const ObbT<double>&, const Vec3T<double>&,
                                                               const ObbT<double>&) noexcept;
extern template std::optional<SweepHitT<float>> sweep<float>(const ObbT<float>&, const Vec3T<float>&,
                                                             const TriangleT<float>&) noexcept;
extern template std::optional<SweepHitT<double>> sweep<double>(const ObbT<double>&, const Vec3T<double>&,
                                                               const TriangleT<double>&) noexcept;

}  // namespace tumble
