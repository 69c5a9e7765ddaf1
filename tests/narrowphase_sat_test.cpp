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

struct ScalarNames {
    template <class T>
    static std::string GetName(int) {
        return testutil::scalar_name(T());
    }
};
using Scalars = ::testing::Types<float, double>;

template <class T>
class ObbObbReference : public ::testing::Test {};
TYPED_TEST_SUITE(ObbObbReference, Scalars, ScalarNames);

TYPED_TEST(ObbObbReference, RandomGeneralPairs) { run_family<TypeParam, fam::RandomGeneral>(); }
TYPED_TEST(ObbObbReference, SharedOrientationParallelEdges) { run_family<TypeParam, fam::ParallelEdges>(); }
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

const Obb kUnit{glm::vec3(0.0f), glm::mat3(1.0f), glm::vec3(1.0f)};

TEST(ObbObbConventions, FaceAxisSignAndDepth) {
    Obb b = kUnit;
    b.center = {1.5f, 0.2f, -0.1f};
    auto c = tumble::collide(kUnit, b);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->axis, 0);
    EXPECT_FALSE(c->negative);
    EXPECT_NEAR(c->depth, 0.5f, 1e-6f);
    EXPECT_EQ(c->normal, glm::vec3(1, 0, 0));

    b.center = {0.1f, -1.75f, 0.0f};
    c = tumble::collide(kUnit, b);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->axis, 1);
    EXPECT_TRUE(c->negative);
    EXPECT_NEAR(c->depth, 0.25f, 1e-6f);
    EXPECT_EQ(c->normal, glm::vec3(0, -1, 0));
}

TEST(ObbObbConventions, BFaceAxis) {
    // B rotated 45 degrees about z sits above A's corner region; B's own x face is the shallowest.
    Obb b{glm::vec3(0.0f), testutil::rotation_about({0, 0, 1}, 0.7853981633974483), glm::vec3(0.5f, 2.0f, 2.0f)};
    b.center = glm::vec3(b.axes[0]) * 1.7f;  // along B's x axis
    const auto c = tumble::collide(kUnit, b);
    ASSERT_TRUE(c);
    // A reaches sqrt(2) along B's x; B reaches 0.5: depth = sqrt(2) + 0.5 - 1.7.
    EXPECT_EQ(c->axis, 3);
    EXPECT_FALSE(c->negative);
    EXPECT_NEAR(c->depth, std::sqrt(2.0f) + 0.5f - 1.7f, 1e-5f);
}

TEST(ObbObbConventions, EdgeEdgeAxisIndexAndSign) {
    // A turned 45 degrees about z has an edge along z at x = sqrt(2); B turned 45 degrees about y has an edge along y
    // at x = -sqrt(2) from its centre. With B centred at x = 2 sqrt(2) - d the two edges cross at depth d.
    // L = A_z x B_y = z x y = -x, axis 6 + 3*2 + 1 = 13; the normal from A to B is +x, so negative is true.
    const float d = 0.1f;
    const Obb a{glm::vec3(0.0f), testutil::rotation_about({0, 0, 1}, 0.7853981633974483), glm::vec3(1.0f)};
    const Obb b{glm::vec3(2.0f * std::sqrt(2.0f) - d, 0.0f, 0.0f), testutil::rotation_about({0, 1, 0}, 0.7853981633974483),
                glm::vec3(1.0f)};
    const auto c = tumble::collide(a, b);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->axis, 13);
    EXPECT_TRUE(c->negative);
    EXPECT_NEAR(c->depth, d, 1e-5f);
    EXPECT_NEAR(c->normal.x, 1.0f, 1e-6f);
    EXPECT_NEAR(c->normal.y, 0.0f, 1e-6f);
    EXPECT_NEAR(c->normal.z, 0.0f, 1e-6f);
}

TEST(ObbObbConventions, TouchingCountsAsOverlapAndConcentricIsPositive) {
    Obb b = kUnit;
    b.center = {2.0f, 0.0f, 0.0f};  // faces exactly touching
    EXPECT_TRUE(tumble::overlap(kUnit, b));
    const auto c = tumble::collide(kUnit, b);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->depth, 0.0f);
    b.center = {2.0f + 4e-7f, 0.0f, 0.0f};
    EXPECT_FALSE(tumble::overlap(kUnit, b));
    EXPECT_FALSE(tumble::collide(kUnit, b));

    const auto same = tumble::collide(kUnit, kUnit);
    ASSERT_TRUE(same);
    EXPECT_FALSE(same->negative);
    EXPECT_EQ(same->depth, 2.0f);
}

TEST(ObbObbConventions, RestingStackPrefersFaceAxis) {
    // Equal boxes stacked flat, the upper one turned about the vertical: several edge axes are the vertical again and
    // tie with the face axis. The contact must stay on a face axis with a vertical normal.
    Random rng(11);
    for (int k = 0; k < 2000; ++k) {
        const Obb lower{glm::vec3(0.0f), testutil::rotation_about({0, 1, 0}, rng.uniform(0, 6.3)), glm::vec3(0.5f, 0.25f, 0.5f)};
        Obb upper{glm::vec3(rng.uniformf(-0.3, 0.3), 0.5f - 0.003f, rng.uniformf(-0.3, 0.3)),
                  testutil::rotation_about({0, 1, 0}, rng.uniform(0, 6.3)), glm::vec3(0.5f, 0.25f, 0.5f)};
        const auto c = tumble::collide(lower, upper);
        ASSERT_TRUE(c) << k;
        EXPECT_LT(c->axis, 6) << "case " << k << " chose edge axis " << c->axis;
        EXPECT_NEAR(c->normal.y, 1.0f, 1e-6f) << k;
        EXPECT_NEAR(c->depth, 0.003f, 1e-6f) << k;
    }
}

TEST(ObbObbConventions, NonFiniteInputIsSeparated) {
    const float bad[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()};
    for (float v : bad) {
        Obb b = kUnit;
        b.center.y = v;
        EXPECT_FALSE(tumble::overlap(kUnit, b));
        EXPECT_FALSE(tumble::collide(kUnit, b));
        b = kUnit;
        b.half_extents.z = v;
        EXPECT_FALSE(tumble::overlap(kUnit, b));
        b = kUnit;
        b.axes[1].x = v;
        EXPECT_FALSE(tumble::collide(b, kUnit));
        const Triangle t{{0, 0, 0}, {v, 0, 0}, {0, 1, 0}};
        EXPECT_FALSE(tumble::overlap(kUnit, t));
        EXPECT_FALSE(tumble::collide(kUnit, t));
    }
}

TEST(ObbObbConventions, LargeFiniteDoublesAreNotMistakenForInfinity) {
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

TEST(ObbTriangleConventions, FloorContactPointsFromBoxToTriangle) {
    // Unit box at the origin sunk 0.1 m into an upward-facing floor at y = -0.9. Axis 1 (box y) and axis 3 (the
    // triangle normal) tie at depth 0.1; the first face axis wins; the normal points from the box down to the floor.
    const Triangle floor{{-5, -0.9f, 5}, {5, -0.9f, 5}, {0, -0.9f, -5}};
    ASSERT_GT(floor.scaled_normal().y, 0.0f);
    const auto c = tumble::collide(kUnit, floor);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->axis, 1);
    EXPECT_TRUE(c->negative);
    EXPECT_NEAR(c->depth, 0.1f, 1e-6f);
    EXPECT_EQ(c->normal, glm::vec3(0, -1, 0));
}

TEST(ObbTriangleConventions, TriangleNormalAxisAndEdgeAxisNumbering) {
    // A tilted plane under the box: the triangle normal is the least axis (3).
    const glm::vec3 n = glm::normalize(glm::vec3(0.3f, 1.0f, 0.2f));
    const glm::vec3 u = glm::normalize(glm::cross(n, glm::vec3(1, 0, 0))), v = glm::cross(n, u);
    const glm::vec3 p = -n * 1.2f;  // plane 1.2 m below the centre along n; the box reaches further
    Triangle t{p - u * 5.0f - v * 5.0f, p + u * 5.0f, p + v * 5.0f};
    if (glm::dot(t.scaled_normal(), n) < 0) std::swap(t.b, t.c);
    const auto c = tumble::collide(kUnit, t);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->axis, 3);
    EXPECT_TRUE(c->negative);  // the triangle is on the -n side of the box
    const float reach = std::abs(n.x) + std::abs(n.y) + std::abs(n.z);
    EXPECT_NEAR(c->depth, reach - 1.2f, 1e-5f);
    EXPECT_NEAR(glm::dot(c->normal, -n), 1.0f, 1e-6f);

    // Edge axis: a triangle edge along z just inside the box's +x,+y edge (parallel to box z would be degenerate, so
    // tilt it): axis 4 + 3*i + j must name cross(box axis i, edge j).
    Random rng(31);
    int edge_contacts = 0;
    for (int k = 0; k < 500; ++k) {
        const Triangle tri = random_triangle(rng, rng.vec(-1.3, 1.3), 1.0);
        const auto got = tumble::collide(kUnit, tri);
        if (!got || got->axis < 4) continue;
        ++edge_contacts;
        const int i = (got->axis - 4) / 3, j = (got->axis - 4) % 3;
        const glm::vec3 e[3] = {tri.b - tri.a, tri.c - tri.b, tri.a - tri.c};
        const glm::vec3 L = glm::normalize(glm::cross(kUnit.axes[i], e[j]));
        EXPECT_NEAR(std::abs(glm::dot(L, got->normal)), 1.0f, 1e-5f) << k;
        EXPECT_EQ(glm::dot(L, got->normal) < 0, got->negative) << k;
    }
    EXPECT_GT(edge_contacts, 5);
}

TEST(ObbTriangleConventions, DegenerateTrianglesCollideAsSegmentsWithoutNaN) {
    // Collinear and coincident vertices: axis 3 is skipped, never NaN.
    const Triangle collinear{{-2, 0.5f, 0}, {0, 0.5f, 0}, {2, 0.5f, 0}};
    const auto c = tumble::collide(kUnit, collinear);
    ASSERT_TRUE(c);
    EXPECT_NE(c->axis, 3);
    EXPECT_TRUE(std::isfinite(c->depth));
    EXPECT_TRUE(std::isfinite(c->normal.x) && std::isfinite(c->normal.y) && std::isfinite(c->normal.z));
    EXPECT_NEAR(c->depth, 0.5f, 1e-6f);  // pushed out along y: 1 - 0.5

    const Triangle point{{0.2f, 0.9f, 0.1f}, {0.2f, 0.9f, 0.1f}, {0.2f, 0.9f, 0.1f}};
    const auto p = tumble::collide(kUnit, point);
    ASSERT_TRUE(p);
    EXPECT_NEAR(p->depth, 0.1f, 1e-6f);
    EXPECT_EQ(p->axis, 1);
    const Triangle far_point{{0.2f, 1.1f, 0.1f}, {0.2f, 1.1f, 0.1f}, {0.2f, 1.1f, 0.1f}};
    EXPECT_FALSE(tumble::overlap(kUnit, far_point));
}

}  // namespace
