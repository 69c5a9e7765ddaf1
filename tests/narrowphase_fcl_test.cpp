// Cross-check of the reference (and so of Tumble) against FCL (Debian libfcl-dev), test-only and skipped when FCL is
// absent. On every decided pair of the reference families (not within the touching margin) FCL's boolean collision
// must agree with the reference; FCL's penetration depth is compared where it is reliable and only reported
// where it is not:
// - box-box: fcl::collide runs FCL's port of ODE's dBoxBox, an exact separating-axis test in double that assumes
//   orthonormal axes and prefers face axes unless an edge axis is 5% shallower. Where its contact normal is
//   Tumble's axis its depth must agree; elsewhere it may only be deeper than the least penetration.
// - box-triangle: FCL has no box-triangle primitive test; its mesh path runs libccd's MPR (Minkowski portal
//   refinement) on the box and the triangle. The boolean answer is exact up to MPR's 1e-6 tolerance; the MPR
//   penetration depth is an estimate along the portal direction, not the minimum translation distance, so it is
//   reported (how often within 1e-4, 1e-2 and 10% of the least depth) and only checked never to be smaller.

#include <cstdio>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>

#include <tumble/narrowphase/manifold.hpp>
#include <tumble/narrowphase/sat.hpp>

#include "support/families.hpp"
#include "support/manifold_check.hpp"
#include "support/test_util.hpp"

#if TUMBLE_HAVE_FCL
#include <fcl/geometry/shape/box.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/detail/gjk_solver_libccd.h>
#endif

namespace {

#if TUMBLE_HAVE_FCL

template <class T>
fcl::Transform3d transform_of(const tumble::ObbT<T>& o) {
    fcl::Transform3d tf = fcl::Transform3d::Identity();
    for (int i = 0; i < 3; ++i) {
        tf.translation()[i] = static_cast<double>(o.center[i]);
        for (int j = 0; j < 3; ++j) tf.linear()(i, j) = static_cast<double>(o.axes[j][i]);  // column j = axis j
    }
    return tf;
}
template <class T>
fcl::Boxd box_of(const tumble::ObbT<T>& o) {
    return fcl::Boxd(2.0 * o.half_extents.x, 2.0 * o.half_extents.y, 2.0 * o.half_extents.z);
}
fcl::Vector3d vec(const glm::dvec3& v) { return {v.x, v.y, v.z}; }

struct FclResult {
    bool hit = false;
    bool has_depth = false;
    double depth = 0;
    glm::dvec3 normal{0.0};
};

template <class T>
FclResult fcl_collide(const tumble::ObbT<T>& a, const tumble::ObbT<T>& b) {
    const fcl::Boxd ba = box_of(a), bb = box_of(b);
    FclResult out;
    {
        // The boolean query: with contacts requested FCL's dBoxBox port also reports "no collision" when its
        // clipping finds no point (boxes with a zero side), so the yes/no answer is asked for alone.
        fcl::CollisionRequestd request;
        fcl::CollisionResultd result;
        fcl::collide(&ba, transform_of(a), &bb, transform_of(b), request, result);
        out.hit = result.isCollision();
    }
    fcl::CollisionRequestd request;
    request.enable_contact = true;
    request.num_max_contacts = 8;
    fcl::CollisionResultd result;
    fcl::collide(&ba, transform_of(a), &bb, transform_of(b), request, result);
    for (std::size_t k = 0; k < result.numContacts(); ++k) {
        const auto& c = result.getContact(k);
        if (!out.has_depth || c.penetration_depth > out.depth) {
            out.depth = c.penetration_depth;
            out.normal = {c.normal.x(), c.normal.y(), c.normal.z()};  // FCL: from the first object to the second
            out.has_depth = true;
        }
    }
    return out;
}

template <class T>
FclResult fcl_collide(const tumble::ObbT<T>& a, const tumble::TriangleT<T>& t) {
    const fcl::detail::GJKSolver_libccd<double> solver;
    const fcl::Boxd box = box_of(a);
    const fcl::Transform3d tf = transform_of(a);
    const fcl::Vector3d p1 = vec(glm::dvec3(t.a)), p2 = vec(glm::dvec3(t.b)), p3 = vec(glm::dvec3(t.c));
    FclResult out;
    out.hit = solver.shapeTriangleIntersect(box, tf, p1, p2, p3, nullptr, nullptr, nullptr);
    fcl::Vector3d point, normal;
    double depth = 0;
    if (solver.shapeTriangleIntersect(box, tf, p1, p2, p3, &point, &depth, &normal)) {
        out.has_depth = true;
        out.depth = depth;
        out.normal = {normal.x(), normal.y(), normal.z()};
    }
    return out;
}

// A point inside or on both shapes (within 1e-12 of the size), from Tumble's double manifold of the same shapes,
// verified in long double: an overlap FCL misses is then certain.
template <class T, class Shape>
bool witness(const tumble::ObbT<T>& a, const Shape& b, long double size) {
    const tumble::ObbD A = testutil::widen(a);
    const auto B = testutil::widen(b);
    const auto m = tumble::collide_manifold(A, B);
    if (!m) return false;
    const mcheck::BoxL box(A);
    for (int k = 0; k < m->count; ++k) {
        const auto& p = m->points[static_cast<std::size_t>(k)];
        for (const glm::dvec3& x : {p.point_a, p.point_b, 0.5 * (p.point_a + p.point_b)}) {
            const ref::V3 q(x);
            long double other;
            if constexpr (std::is_same_v<Shape, tumble::ObbT<T>>)
                other = mcheck::BoxL(B).outside(q);
            else
                other = mcheck::TriL(B).distance(q);
            if (box.outside(q) <= 1e-12L * size && other <= 1e-12L * size) return true;
        }
    }
    return false;
}

// The gap between the shapes' projections on axis L (the reference's separating axis), recomputed in quadruple
// precision from the corners and vertices: a separation FCL reports as a hit is then proven.
template <class T, class Shape>
long double gap_on_axis(const tumble::ObbT<T>& a, const Shape& b, const ref::V3& L) {
    using ref::Q;
    const Q l[3] = {L.x, L.y, L.z};
    auto project = [&](const tumble::Vec3T<T>& p, const tumble::Vec3T<T>* axes, const tumble::Vec3T<T>* h_or_null,
                       Q& lo, Q& hi) {
        // p + sum_k s_k h_k axes_k over all sign choices (or p alone)
        for (int k = 0; k < (h_or_null ? 8 : 1); ++k) {
            Q d = 0;
            for (int c = 0; c < 3; ++c) {
                Q x = p[c];
                if (h_or_null)
                    for (int i = 0; i < 3; ++i) x += Q(axes[i][c]) * ((k >> i) & 1 ? Q((*h_or_null)[i]) : -Q((*h_or_null)[i]));
                d += x * l[c];
            }
            lo = std::min(lo, d), hi = std::max(hi, d);
        }
    };
    Q alo = 1e300, ahi = -1e300, blo = 1e300, bhi = -1e300;
    const tumble::Vec3T<T> ax[3] = {a.axes[0], a.axes[1], a.axes[2]};
    project(a.center, ax, &a.half_extents, alo, ahi);
    if constexpr (std::is_same_v<Shape, tumble::ObbT<T>>) {
        const tumble::Vec3T<T> bx[3] = {b.axes[0], b.axes[1], b.axes[2]};
        project(b.center, bx, &b.half_extents, blo, bhi);
    } else {
        for (const tumble::Vec3T<T>& v : {b.a, b.b, b.c}) project(v, nullptr, nullptr, blo, bhi);
    }
    const long double len = std::sqrt(ref::dot(L, L));
    return static_cast<long double>(std::max(blo - ahi, alo - bhi)) / len;
}

template <class T, class Shape>
bool separated_for_sure(const tumble::ObbT<T>& a, const Shape& b, const ref::Result& r) {
    for (int k = 0; k < r.count; ++k)
        if (r.axes[k].valid && -r.axes[k].depth() == r.gap)
            return gap_on_axis(a, b, r.axes[k].L) > testutil::kTouchMargin * r.size;
    return false;
}

// Box-box with float axes: FCL's closed forms assume orthonormal axes, float ones are orthonormal to ~1e-7, which can
// flip an edge axis between nearly parallel edges (as in the float test of Gomez, Gamasutra 1999). The disagreement is
// FCL's when it answers right for the same boxes with their axes made orthonormal.
template <class T, class Shape>
bool float_axes_explain(const tumble::ObbT<T>& a, const Shape& b, bool overlap) {
    if constexpr (std::is_same_v<T, float> && std::is_same_v<Shape, tumble::ObbT<T>>) {
        const tumble::ObbD oa = testutil::orthonormalized(a), ob = testutil::orthonormalized(b);
        const ref::Result r = ref::box_box(oa, ob);
        return !r.separated == overlap && fcl_collide(oa, ob).hit == overlap;
    } else {
        (void)a, (void)b, (void)overlap;
        return false;
    }
}

struct Counts {
    long decided = 0, agree = 0;
    long fcl_misses_witnessed = 0;  // FCL says apart, a point inside both shapes proves the overlap
    long float_axes = 0;            // box-box: FCL agrees once the float axes are made orthonormal
    long fcl_hits_refuted = 0;      // FCL says touching; a separating axis, recomputed in quad precision, proves the gap
    long unexplained = 0;
    long overlapping = 0, same_axis = 0, depth_agree = 0;
    long within_1e4 = 0, within_1e2 = 0, within_10pct = 0, shallower = 0;
};

template <class T, class Family>
void run_family() {
    testutil::Random rng(Family::seed);
    Counts n;
    int reported = 0;
    constexpr bool kBoxes = std::is_same_v<decltype(Family::template make<T>(rng).second), tumble::ObbT<T>>;
    for (int k = 0; k < Family::count; ++k) {
        const auto [a, b] = Family::template make<T>(rng);
        ref::Result r;
        if constexpr (kBoxes)
            r = ref::box_box(a, b);
        else
            r = ref::box_triangle(a, b);
        if (std::abs(r.signed_distance()) <= testutil::kTouchMargin * r.size) continue;
        ++n.decided;
        long double axis_error = testutil::axis_error(a);
        if constexpr (kBoxes) axis_error = std::max(axis_error, testutil::axis_error(b));
        const FclResult f = fcl_collide(a, b);
        if (f.hit == !r.separated) {
            ++n.agree;
        } else if (!f.hit && witness(a, b, r.size)) {
            ++n.fcl_misses_witnessed;
        } else if (float_axes_explain(a, b, !r.separated)) {
            ++n.float_axes;
        } else if (f.hit && separated_for_sure(a, b, r)) {
            ++n.fcl_hits_refuted;
        } else {
            ++n.unexplained;
            if (++reported <= 3)
                std::printf("  FCL says %s, the reference %s by %Lg (size %Lg):\n    A = %s\n    B = %s\n", f.hit ? "hit" : "miss",
                            r.separated ? "separates" : "overlaps", r.separated ? r.gap : r.min_depth, r.size,
                            testutil::describe(a).c_str(), testutil::describe(b).c_str());
        }
        if (r.separated || !f.has_depth) continue;
        ++n.overlapping;
        // FCL works on its own idea of the shapes: orthonormal axes (box-box closed forms; libccd's quaternion).
        const long double slack = (1e-9L + tumble::kFaceBiasAxisError * axis_error) * r.size;
        const long double want = r.min_depth, got = f.depth;
        const long double rel = std::abs(got - want) / want;
        if (got < want - 1e-6L * want - slack - (kBoxes ? 0 : 2e-6L)) ++n.shallower;
        n.within_1e4 += rel <= 1e-4L;
        n.within_1e2 += rel <= 1e-2L;
        n.within_10pct += rel <= 0.1L;
        if constexpr (kBoxes) {
            const auto c = tumble::collide(a, b);
            if (c && glm::dot(f.normal, glm::dvec3(c->normal)) > 1 - 1e-6) {
                ++n.same_axis;
                n.depth_agree += std::abs(got - static_cast<long double>(c->depth)) <= 1e-4L * want + slack;
            }
        }
    }
    std::printf("[ FCL      ] %-6s %-44s boolean: %6ld of %6ld decided pairs agree", testutil::scalar_name(T()),
                Family::name, n.agree, n.decided);
    if (n.shallower) std::printf(" (%ld FCL depths below the least)", n.shallower);
    if (n.fcl_misses_witnessed) std::printf(", %ld overlaps FCL misses (witnessed)", n.fcl_misses_witnessed);
    if (n.float_axes) std::printf(", %ld from float axes", n.float_axes);
    if (n.fcl_hits_refuted) std::printf(", %ld false hits (separating plane proven)", n.fcl_hits_refuted);
    if (kBoxes)
        std::printf("; depth: %5ld of %5ld on Tumble's axis agree\n", n.depth_agree, n.same_axis);
    else
        std::printf("; MPR depth within 1e-4: %5ld, 1e-2: %5ld, 10%%: %5ld of %5ld\n", n.within_1e4, n.within_1e2,
                    n.within_10pct, n.overlapping);
    EXPECT_EQ(n.unexplained, 0) << Family::name;
    // FCL's depth is reliable only for double boxes (orthonormal to 1e-16): its box-box closed forms err by ~1e-7 /
    // |L| on nearly parallel edges with float axes, and MPR estimates the depth along its portal.
    if (kBoxes && std::is_same_v<T, double>) {
        EXPECT_EQ(n.shallower, 0) << Family::name << ": FCL found a penetration shallower than the reference's least";
        EXPECT_EQ(n.depth_agree, n.same_axis) << Family::name;
        EXPECT_GT(n.same_axis, n.overlapping / 2) << Family::name;
    }
}

#define FCL_TEST(suite, name, family)             \
    TEST(suite, name) {                           \
        run_family<float, fam::family>();         \
        run_family<double, fam::family>();        \
    }

#else

#define FCL_TEST(suite, name, family) \
    TEST(suite, name) { GTEST_SKIP() << "FCL (Debian libfcl-dev) was not found when building: not cross-checked"; }

#endif

FCL_TEST(ObbObbVersusFcl, RandomGeneralPairs, RandomGeneral)
FCL_TEST(ObbObbVersusFcl, SharedOrientationParallelEdges, ParallelEdges)
FCL_TEST(ObbObbVersusFcl, ParallelEdgesAFewUlpsApart, ParallelEdgesOneUlpApart)
FCL_TEST(ObbObbVersusFcl, AxisAlignedPairs, AxisAligned)
FCL_TEST(ObbObbVersusFcl, NestedConcentricIdentical, NestedConcentric)
FCL_TEST(ObbObbVersusFcl, ZeroExtents, ZeroExtents)
FCL_TEST(ObbObbVersusFcl, FarFromOrigin, FarFromOrigin)
FCL_TEST(ObbObbVersusFcl, NearParallelAxes, NearParallel)
FCL_TEST(ObbObbVersusFcl, NearTouchingFaceFace, TouchFaceFace)
FCL_TEST(ObbObbVersusFcl, NearTouchingFaceEdge, TouchFaceEdge)
FCL_TEST(ObbObbVersusFcl, NearTouchingEdgeEdge, TouchEdgeEdge)
FCL_TEST(ObbObbVersusFcl, NearTouchingVertexFace, TouchVertexFace)
FCL_TEST(ObbObbVersusFcl, ExtremeAspectRatios, ExtremeAspect)
FCL_TEST(ObbObbVersusFcl, TinyAndHugeScales, Scales)

FCL_TEST(ObbTriangleVersusFcl, RandomTriangles, TriRandom)
FCL_TEST(ObbTriangleVersusFcl, TinyAndSliverTriangles, TriTinySliver)
FCL_TEST(ObbTriangleVersusFcl, InsideBoxAndPiercingVertex, TriInsidePierced)
FCL_TEST(ObbTriangleVersusFcl, EdgeCrossingEdge, TriEdgeCrossing)
FCL_TEST(ObbTriangleVersusFcl, FarFromOrigin, TriFar)
FCL_TEST(ObbTriangleVersusFcl, DegenerateTriangles, TriDegenerate)
FCL_TEST(ObbTriangleVersusFcl, NearTouchingFaceFace, TriTouchFaceFace)
FCL_TEST(ObbTriangleVersusFcl, NearTouchingFaceEdge, TriTouchFaceEdge)
FCL_TEST(ObbTriangleVersusFcl, NearTouchingEdgeEdge, TriTouchEdgeEdge)
FCL_TEST(ObbTriangleVersusFcl, NearTouchingVertexFace, TriTouchVertexFace)
FCL_TEST(ObbTriangleVersusFcl, EdgesNearlyParallelToBoxAxes, TriNearParallelEdges)
FCL_TEST(ObbTriangleVersusFcl, ExtremeAspectRatios, TriExtremeAspect)
FCL_TEST(ObbTriangleVersusFcl, TinyAndHugeScales, TriScales)

}  // namespace
