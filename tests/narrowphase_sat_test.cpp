// OBB-OBB and OBB-triangle separating-axis tests against the independent reference (tests/support/sat_reference.hpp),
// family by family and for both scalar types, plus hand-worked cases of the axis and sign conventions.

#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include <gtest/gtest.h>

#include <tumble/narrowphase/sat.hpp>

#include "support/families.hpp"
#include "support/test_util.hpp"

namespace {

using tumble::Obb;
using tumble::ObbD;
using tumble::Triangle;
using testutil::Random;

// Runs every case of `Family` in scalar T against the reference and prints the tally.
template <class T, class Family>
void run_family() {
    Random rng(Family::seed);
    testutil::Tally tally;
    int failures = 0;
    for (int k = 0; k < Family::count && failures < 10; ++k) {
        const auto [a, b] = Family::template make<T>(rng);
        ref::Result r;
        if constexpr (std::is_same_v<std::decay_t<decltype(b)>, tumble::ObbT<T>>)
            r = ref::box_box(a, b);
        else
            r = ref::box_triangle(a, b);
        const std::string error = testutil::check_against_reference(a, b, r, tally);
        if (!error.empty()) {
            ++failures;
            ADD_FAILURE() << Family::name << " (" << testutil::scalar_name(T()) << ") case " << k << ": " << error
                          << "\n  A = " << testutil::describe(a) << "\n  B = " << testutil::describe(b);
        }
    }
    std::printf("[ family   ] %-6s %-46s %6ld decided pairs agree with the reference (%ld overlapping), %ld within "
                "the touching margin; face bias taken on %ld, worst extra depth %.2Le of the depth, %.2Le of the size\n",
                testutil::scalar_name(T()), Family::name, tally.checked, tally.overlapping, tally.ambiguous,
                tally.face_over_edge, tally.worst_bias_relative, tally.worst_bias_size);
    EXPECT_GE(tally.checked, static_cast<long>(Family::min_checked * Family::count)) << Family::name << ": too few decided pairs";
    EXPECT_GT(tally.overlapping, 0) << Family::name << ": the family never overlaps";
    EXPECT_LT(tally.overlapping, tally.checked) << Family::name << ": the family never separates";
}

using testutil::ScalarNames;
using testutil::Scalars;

template <class T>
class ObbObbReference : public ::testing::Test {};
TYPED_TEST_SUITE(ObbObbReference, Scalars, ScalarNames);

TYPED_TEST(ObbObbReference, RandomGeneralPairs) { run_family<TypeParam, fam::RandomGeneral>(); }
TYPED_TEST(ObbObbReference, SharedOrientationParallelEdges) { run_family<TypeParam, fam::ParallelEdges>(); }
TYPED_TEST(ObbObbReference, ParallelEdgesAFewUlpsApart) { run_family<TypeParam, fam::ParallelEdgesOneUlpApart>(); }
TYPED_TEST(ObbObbReference, AxisAlignedPairs) { run_family<TypeParam, fam::AxisAligned>(); }
TYPED_TEST(ObbObbReference, NestedConcentricIdentical) { run_family<TypeParam, fam::NestedConcentric>(); }
TYPED_TEST(ObbObbReference, ZeroExtents) { run_family<TypeParam, fam::ZeroExtents>(); }
TYPED_TEST(ObbObbReference, FarFromOrigin) { run_family<TypeParam, fam::FarFromOrigin>(); }
TYPED_TEST(ObbObbReference, NearParallelAxes) { run_family<TypeParam, fam::NearParallel>(); }
TYPED_TEST(ObbObbReference, NearTouchingFaceFace) { run_family<TypeParam, fam::TouchFaceFace>(); }
TYPED_TEST(ObbObbReference, NearTouchingFaceEdge) { run_family<TypeParam, fam::TouchFaceEdge>(); }
TYPED_TEST(ObbObbReference, NearTouchingEdgeEdge) { run_family<TypeParam, fam::TouchEdgeEdge>(); }
TYPED_TEST(ObbObbReference, NearTouchingVertexFace) { run_family<TypeParam, fam::TouchVertexFace>(); }
TYPED_TEST(ObbObbReference, ExtremeAspectRatios) { run_family<TypeParam, fam::ExtremeAspect>(); }
TYPED_TEST(ObbObbReference, TinyAndHugeScales) { run_family<TypeParam, fam::Scales>(); }

template <class T>
class ObbTriangleReference : public ::testing::Test {};
TYPED_TEST_SUITE(ObbTriangleReference, Scalars, ScalarNames);

TYPED_TEST(ObbTriangleReference, RandomTriangles) { run_family<TypeParam, fam::TriRandom>(); }
TYPED_TEST(ObbTriangleReference, TinyAndSliverTriangles) { run_family<TypeParam, fam::TriTinySliver>(); }
TYPED_TEST(ObbTriangleReference, InsideBoxAndPiercingVertex) { run_family<TypeParam, fam::TriInsidePierced>(); }
TYPED_TEST(ObbTriangleReference, EdgeCrossingEdge) { run_family<TypeParam, fam::TriEdgeCrossing>(); }
TYPED_TEST(ObbTriangleReference, FarFromOrigin) { run_family<TypeParam, fam::TriFar>(); }
TYPED_TEST(ObbTriangleReference, DegenerateTriangles) { run_family<TypeParam, fam::TriDegenerate>(); }
TYPED_TEST(ObbTriangleReference, NearTouchingFaceFace) { run_family<TypeParam, fam::TriTouchFaceFace>(); }
TYPED_TEST(ObbTriangleReference, NearTouchingFaceEdge) { run_family<TypeParam, fam::TriTouchFaceEdge>(); }
TYPED_TEST(ObbTriangleReference, NearTouchingEdgeEdge) { run_family<TypeParam, fam::TriTouchEdgeEdge>(); }
TYPED_TEST(ObbTriangleReference, NearTouchingVertexFace) { run_family<TypeParam, fam::TriTouchVertexFace>(); }
TYPED_TEST(ObbTriangleReference, EdgesNearlyParallelToBoxAxes) { run_family<TypeParam, fam::TriNearParallelEdges>(); }
TYPED_TEST(ObbTriangleReference, ExtremeAspectRatios) { run_family<TypeParam, fam::TriExtremeAspect>(); }
TYPED_TEST(ObbTriangleReference, TinyAndHugeScales) { run_family<TypeParam, fam::TriScales>(); }

TEST(ObbObbLargeWorld, DoublePrecisionBoxesAt1e7Metres) {
    Random rng(7);
    testutil::Tally tally;
    for (int k = 0; k < 5000; ++k) {
        const glm::dmat3 r1 = testutil::random_rotation<double>(rng);
        const glm::dmat3 r2 = testutil::random_rotation<double>(rng);
        const glm::dvec3 base(1e7 * rng.uniform(-1, 1), 1e7 * rng.uniform(-1, 1), 0.0);
        const ObbD a{base + fam::random_dvec(rng, -1, 1), r1, fam::random_dvec(rng, 0.1, 1.0)};
        const ObbD b{base + fam::random_dvec(rng, -1, 1), r2, fam::random_dvec(rng, 0.1, 1.0)};
        const std::string error = testutil::check_against_reference(a, b, ref::box_box(a, b), tally);
        ASSERT_TRUE(error.empty()) << "case " << k << ": " << error;
    }
    std::printf("[ family   ] %-6s %-46s %6ld decided pairs agree with the reference (%ld overlapping)\n", "double",
                "1e7 m from the origin", tally.checked, tally.overlapping);
    EXPECT_GT(tally.checked, 4000);
}

// --- Hand-worked conventions -----------------------------------------------------------------------------------

// --- Hand-worked conventions, for both scalar types ------------------------------------------------------------

template <class T>
class ObbObbConventions : public ::testing::Test {
public:
    using Vt = tumble::Vec3T<T>;
    using M3t = tumble::Mat3T<T>;
    using Box = tumble::ObbT<T>;
    using Tri = tumble::TriangleT<T>;
    static Box unit() { return {Vt(T(0)), M3t(T(1)), Vt(T(1))}; }
    static M3t turn(const glm::dvec3& axis, double angle) { return M3t(testutil::rotation_about_d(axis, angle)); }
    // Tolerance for depths of order 1, and the tighter one for values that are exact up to a few float ulps.
    static constexpr T eps = std::is_same_v<T, float> ? T(1e-5) : T(1e-12);
    static constexpr T tight = std::is_same_v<T, float> ? T(1e-6) : T(1e-12);
};
TYPED_TEST_SUITE(ObbObbConventions, Scalars, ScalarNames);
template <class T>
class ObbTriangleConventions : public ObbObbConventions<T> {};
TYPED_TEST_SUITE(ObbTriangleConventions, Scalars, ScalarNames);

TYPED_TEST(ObbObbConventions, FaceAxisSignAndDepth) {
    using T = TypeParam;
    using V = typename TestFixture::Vt;
    const auto unit = TestFixture::unit();
    auto b = unit;
    b.center = {T(1.5), T(0.2), T(-0.1)};
    auto c = tumble::collide(unit, b);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->axis, 0);
    EXPECT_FALSE(c->negative);
    EXPECT_NEAR(c->depth, T(0.5), TestFixture::tight);
    EXPECT_EQ(c->normal, V(1, 0, 0));

    b.center = {T(0.1), T(-1.75), T(0)};
    c = tumble::collide(unit, b);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->axis, 1);
    EXPECT_TRUE(c->negative);
    EXPECT_NEAR(c->depth, T(0.25), TestFixture::tight);
    EXPECT_EQ(c->normal, V(0, -1, 0));
}

TYPED_TEST(ObbObbConventions, BFaceAxis) {
    // B rotated 45 degrees about z sits above A's corner region; B's own x face is the shallowest.
    using T = TypeParam;
    typename TestFixture::Box b{typename TestFixture::Vt(T(0)), TestFixture::turn({0, 0, 1}, 0.7853981633974483),
                                typename TestFixture::Vt(T(0.5), 2, 2)};
    b.center = b.axes[0] * T(1.7);  // along B's x axis
    const auto c = tumble::collide(TestFixture::unit(), b);
    ASSERT_TRUE(c);
    // A reaches sqrt(2) along B's x; B reaches 0.5: depth = sqrt(2) + 0.5 - 1.7.
    EXPECT_EQ(c->axis, 3);
    EXPECT_FALSE(c->negative);
    EXPECT_NEAR(c->depth, std::sqrt(T(2)) + T(0.5) - T(1.7), TestFixture::eps);
}

TYPED_TEST(ObbObbConventions, EdgeEdgeAxisIndexAndSign) {
    // A turned 45 degrees about z has an edge along z at x = sqrt(2); B turned 45 degrees about y has an edge along y
    // at x = -sqrt(2) from its centre. With B centred at x = 2 sqrt(2) - d the two edges cross at depth d.
    // L = A_z x B_y = z x y = -x, axis 6 + 3*2 + 1 = 13; the normal from A to B is +x, so negative is true.
    using T = TypeParam;
    using V = typename TestFixture::Vt;
    const T d = T(0.1);
    const typename TestFixture::Box a{V(T(0)), TestFixture::turn({0, 0, 1}, 0.7853981633974483), V(T(1))};
    const typename TestFixture::Box b{V(T(2) * std::sqrt(T(2)) - d, 0, 0), TestFixture::turn({0, 1, 0}, 0.7853981633974483),
                                      V(T(1))};
    const auto c = tumble::collide(a, b);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->axis, 13);
    EXPECT_TRUE(c->negative);
    EXPECT_NEAR(c->depth, d, TestFixture::eps);
    EXPECT_NEAR(c->normal.x, T(1), TestFixture::tight);
    EXPECT_NEAR(c->normal.y, T(0), TestFixture::tight);
    EXPECT_NEAR(c->normal.z, T(0), TestFixture::tight);
}

TYPED_TEST(ObbObbConventions, TouchingCountsAsOverlapAndConcentricIsPositive) {
    using T = TypeParam;
    const auto unit = TestFixture::unit();
    auto b = unit;
    b.center = {T(2), T(0), T(0)};  // faces exactly touching
    EXPECT_TRUE(tumble::overlap(unit, b));
    const auto c = tumble::collide(unit, b);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->depth, T(0));
    b.center.x = std::nextafter(T(2), T(3));  // one ulp apart
    EXPECT_FALSE(tumble::overlap(unit, b));
    EXPECT_FALSE(tumble::collide(unit, b));

    const auto same = tumble::collide(unit, unit);
    ASSERT_TRUE(same);
    EXPECT_FALSE(same->negative);
    EXPECT_EQ(same->depth, T(2));
}

TYPED_TEST(ObbObbConventions, RestingStackPrefersFaceAxis) {
    // Equal boxes stacked flat, the upper one turned about the vertical: several edge axes are the vertical again and
    // tie with the face axis. The contact must stay on a face axis with a vertical normal.
    using T = TypeParam;
    using V = typename TestFixture::Vt;
    Random rng(11);
    for (int k = 0; k < 2000; ++k) {
        const typename TestFixture::Box lower{V(T(0)), TestFixture::turn({0, 1, 0}, rng.uniform(0, 6.3)), V(T(0.5), T(0.25), T(0.5))};
        const typename TestFixture::Box upper{V(T(rng.uniform(-0.3, 0.3)), T(0.5) - T(0.003), T(rng.uniform(-0.3, 0.3))),
                                              TestFixture::turn({0, 1, 0}, rng.uniform(0, 6.3)), V(T(0.5), T(0.25), T(0.5))};
        const auto c = tumble::collide(lower, upper);
        ASSERT_TRUE(c) << k;
        EXPECT_LT(c->axis, 6) << "case " << k << " chose edge axis " << c->axis;
        EXPECT_NEAR(c->normal.y, T(1), TestFixture::tight) << k;
        EXPECT_NEAR(c->depth, T(0.003), TestFixture::tight) << k;
    }
}

TYPED_TEST(ObbObbConventions, NonFiniteInputIsSeparated) {
    using T = TypeParam;
    const auto unit = TestFixture::unit();
    const T bad[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity()};
    for (T v : bad) {
        auto b = unit;
        b.center.y = v;
        EXPECT_FALSE(tumble::overlap(unit, b));
        EXPECT_FALSE(tumble::collide(unit, b));
        b = unit;
        b.half_extents.z = v;
        EXPECT_FALSE(tumble::overlap(unit, b));
        b = unit;
        b.axes[1].x = v;
        EXPECT_FALSE(tumble::collide(b, unit));
        const typename TestFixture::Tri t{{0, 0, 0}, {v, 0, 0}, {0, 1, 0}};
        EXPECT_FALSE(tumble::overlap(unit, t));
        EXPECT_FALSE(tumble::collide(unit, t));
    }
}

TYPED_TEST(ObbTriangleConventions, FloorContactPointsFromBoxToTriangle) {
    // Unit box at the origin sunk 0.1 m into an upward-facing floor at y = -0.9. Axis 1 (box y) and axis 3 (the
    // triangle normal) tie at depth 0.1; the first face axis wins; the normal points from the box down to the floor.
    using T = TypeParam;
    const T y = T(-0.9);
    const typename TestFixture::Tri floor{{-5, y, 5}, {5, y, 5}, {0, y, -5}};
    ASSERT_GT(floor.scaled_normal().y, T(0));
    const auto c = tumble::collide(TestFixture::unit(), floor);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->axis, 1);
    EXPECT_TRUE(c->negative);
    EXPECT_NEAR(c->depth, T(0.1), TestFixture::tight);
    EXPECT_EQ(c->normal, typename TestFixture::Vt(0, -1, 0));
}

TYPED_TEST(ObbTriangleConventions, TriangleNormalAxis) {
    // A tilted plane under the box: the triangle normal is the least axis (3).
    using T = TypeParam;
    using V = typename TestFixture::Vt;
    const V n = glm::normalize(V(T(0.3), 1, T(0.2)));
    const V u = glm::normalize(glm::cross(n, V(1, 0, 0))), v = glm::cross(n, u);
    const V p = -n * T(1.2);  // plane 1.2 m below the centre along n; the box reaches further
    typename TestFixture::Tri t{p - u * T(5) - v * T(5), p + u * T(5), p + v * T(5)};
    if (glm::dot(t.scaled_normal(), n) < 0) std::swap(t.b, t.c);
    const auto c = tumble::collide(TestFixture::unit(), t);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->axis, 3);
    EXPECT_TRUE(c->negative);  // the triangle is on the -n side of the box
    const T reach = std::abs(n.x) + std::abs(n.y) + std::abs(n.z);
    EXPECT_NEAR(c->depth, reach - T(1.2), TestFixture::eps);
    EXPECT_NEAR(glm::dot(c->normal, -n), T(1), TestFixture::tight);
}

TYPED_TEST(ObbTriangleConventions, DegenerateTrianglesCollideAsSegmentsWithoutNaN) {
    // Collinear and coincident vertices: axis 3 is skipped, never NaN.
    using T = TypeParam;
    const auto unit = TestFixture::unit();
    const typename TestFixture::Tri collinear{{-2, T(0.5), 0}, {0, T(0.5), 0}, {2, T(0.5), 0}};
    const auto c = tumble::collide(unit, collinear);
    ASSERT_TRUE(c);
    EXPECT_NE(c->axis, 3);
    EXPECT_TRUE(std::isfinite(c->depth));
    EXPECT_TRUE(std::isfinite(c->normal.x) && std::isfinite(c->normal.y) && std::isfinite(c->normal.z));
    EXPECT_NEAR(c->depth, T(0.5), TestFixture::tight);  // pushed out along y: 1 - 0.5

    const typename TestFixture::Tri point{{T(0.2), T(0.9), T(0.1)}, {T(0.2), T(0.9), T(0.1)}, {T(0.2), T(0.9), T(0.1)}};
    const auto p = tumble::collide(unit, point);
    ASSERT_TRUE(p);
    EXPECT_NEAR(p->depth, T(0.1), TestFixture::tight);
    EXPECT_EQ(p->axis, 1);
    const typename TestFixture::Tri far_point{{T(0.2), T(1.1), T(0.1)}, {T(0.2), T(1.1), T(0.1)}, {T(0.2), T(1.1), T(0.1)}};
    EXPECT_FALSE(tumble::overlap(unit, far_point));
}

TEST(ObbObbLargeWorld, LargeFiniteDoublesAreNotMistakenForInfinity) {
    // Boxes 1e308 m from the origin are finite: a guard that sums the inputs overflows there and calls them
    // separated. Here they overlap by 0.5 m on x.
    const ObbD a{{1.5e308, 0, 0}, glm::dmat3(1.0), {1, 1, 1}};
    ObbD b = a;
    b.center.y = 1.5;
    ASSERT_TRUE(tumble::overlap(a, b));
    const auto c = tumble::collide(a, b);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->axis, 1);
    EXPECT_DOUBLE_EQ(c->depth, 0.5);
    const tumble::TriangleD t{{1.5e308, 0.5, -5}, {1.5e308, 0.5, 5}, {1.7e308, 0.5, 0}};
    EXPECT_TRUE(tumble::overlap(a, t));
    // Centres whose difference overflows double are reported separated, not NaN.
    const ObbD far{{-1.5e308, 0, 0}, glm::dmat3(1.0), {1, 1, 1}};
    EXPECT_FALSE(tumble::overlap(a, far));
    EXPECT_FALSE(tumble::collide(a, far));
}

// Shapes of any magnitude: the random families scaled as a whole by 10^U(-e, e). The triangle test forms fourth
// powers of lengths (|n|^2), which overflow or underflow double beyond ~1e75 without the exact rescaling.
template <class T, class Family>
void run_extreme_magnitudes(const char* name, double e) {
    Random rng(Family::seed + 1000);
    testutil::Tally tally;
    int failures = 0;
    for (int k = 0; k < 5000 && failures < 10; ++k) {
        auto [a, b] = Family::template make<T>(rng);
        const T scale = static_cast<T>(std::pow(10.0, rng.uniform(-e, e)));
        a.center *= scale, a.half_extents *= scale;
        ref::Result r;
        if constexpr (std::is_same_v<std::decay_t<decltype(b)>, tumble::ObbT<T>>) {
            b.center *= scale, b.half_extents *= scale;
            r = ref::box_box(a, b);
        } else {
            b.a *= scale, b.b *= scale, b.c *= scale;
            r = ref::box_triangle(a, b);
        }
        const std::string error = testutil::check_against_reference(a, b, r, tally);
        if (!error.empty()) {
            ++failures;
            ADD_FAILURE() << name << " case " << k << " (scale " << scale << "): " << error;
        }
    }
    std::printf("[ family   ] %-6s %-46s %6ld decided pairs agree with the reference (%ld overlapping)\n",
                testutil::scalar_name(T()), name, tally.checked, tally.overlapping);
    EXPECT_GT(tally.checked, 4500);
    EXPECT_GT(tally.overlapping, 500);
}

TEST(ObbObbLargeWorld, DoubleMagnitudes1eMinus280To1e280) {
    run_extreme_magnitudes<double, fam::RandomGeneral>("magnitudes 1e-280..1e280", 280);
}
TEST(ObbTriangleLargeWorld, DoubleMagnitudes1eMinus280To1e280) {
    run_extreme_magnitudes<double, fam::TriRandom>("box-triangle magnitudes 1e-280..1e280", 280);
}
TEST(ObbObbLargeWorld, FloatMagnitudes1eMinus30To1e30) {
    run_extreme_magnitudes<float, fam::RandomGeneral>("magnitudes 1e-30..1e30", 30);
}
TEST(ObbTriangleLargeWorld, FloatMagnitudes1eMinus30To1e30) {
    run_extreme_magnitudes<float, fam::TriRandom>("box-triangle magnitudes 1e-30..1e30", 30);
}

// --- OBB - triangle ----------------------------------------------------------------------------------------------

Triangle random_triangle(Random& rng, glm::vec3 around, double spread) {
    return {around + rng.vec(-spread, spread), around + rng.vec(-spread, spread), around + rng.vec(-spread, spread)};
}

TEST(ObbTriangleEdgeAxes, NumberingNamesTheCrossProduct) {
    // Axis 4 + 3i + j must name cross(box axis i, edge j), with the documented sign.
    const Obb unit{glm::vec3(0.0f), glm::mat3(1.0f), glm::vec3(1.0f)};
    Random rng(31);
    int edge_contacts = 0;
    for (int k = 0; k < 500; ++k) {
        const Triangle tri = random_triangle(rng, rng.vec(-1.3, 1.3), 1.0);
        const auto got = tumble::collide(unit, tri);
        if (!got || got->axis < 4) continue;
        ++edge_contacts;
        const int i = (got->axis - 4) / 3, j = (got->axis - 4) % 3;
        const glm::vec3 e[3] = {tri.b - tri.a, tri.c - tri.b, tri.a - tri.c};
        const glm::vec3 L = glm::normalize(glm::cross(unit.axes[i], e[j]));
        EXPECT_NEAR(std::abs(glm::dot(L, got->normal)), 1.0f, 1e-5f) << k;
        EXPECT_EQ(glm::dot(L, got->normal) < 0, got->negative) << k;
    }
    EXPECT_GT(edge_contacts, 5);
}

}  // namespace
