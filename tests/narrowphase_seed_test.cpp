// Regression tests for mistakes in published SAT and OBB write-ups, each shown to matter: the mistaken rule,
// written out here in a few lines of our own, gets the case wrong, and Tumble gets it right.
//   - GomezNearParallel: the float 15-axis test of Gomez, "Simple Intersection Tests for Games" (Gamasutra, 1999),
//     misses overlaps between nearly parallel edges (Ericson, Real-Time Collision Detection, 2005, section 4.4.1,
//     adds an epsilon to |R| against it).
//   - UnnormalisedEdgeDepth: extending the boolean 15-axis test (Gottschalk, Lin and Manocha, SIGGRAPH 1996;
//     Ericson 4.4.1) to a depth by comparing edge-axis overlaps without dividing by |L|.
//   - CornerAsBoxRadius: a box-triangle test (13 axes, Akenine-Moller, JGT 2001; Ericson 5.2.9) that projects one
//     fixed corner of the box instead of its radius.
//   - CocosObb: Cocos2d-x's OBB class (cocos/3d/CCOBB.cpp): projectPoint and transform.
//   - TranslationAsCentre: an OBB built from a model-space AABB, a scale and a rotation-translation matrix
//     (Ericson 4.4) whose centre is taken as the matrix translation.

#include <cmath>

#include <gtest/gtest.h>
#include <glm/gtc/matrix_transform.hpp>

#include <tumble/core/error.hpp>
#include <tumble/narrowphase/sat.hpp>

#include "support/sat_reference.hpp"
#include "support/test_util.hpp"

namespace {

using tumble::Obb;
using tumble::Triangle;

// The textbook float SAT with unnormalised edge axes and no guard on |R| (Gomez, Gamasutra 1999):
// B's axes in A's frame R = A^T B, T in A's frame, separated when |T.L| > rA + rB on any of the 15 axes.
bool naive_float_overlap(const Obb& a, const Obb& b) {
    float R[3][3], AR[3][3], t[3];
    const glm::vec3 d = b.center - a.center;
    for (int i = 0; i < 3; ++i) {
        t[i] = glm::dot(d, a.axes[i]);
        for (int j = 0; j < 3; ++j) {
            R[i][j] = glm::dot(a.axes[i], b.axes[j]);
            AR[i][j] = std::abs(R[i][j]);
        }
    }
    const glm::vec3 ea = a.half_extents, eb = b.half_extents;
    for (int i = 0; i < 3; ++i)
        if (std::abs(t[i]) > ea[i] + eb[0] * AR[i][0] + eb[1] * AR[i][1] + eb[2] * AR[i][2]) return false;
    for (int j = 0; j < 3; ++j) {
        const float tb = t[0] * R[0][j] + t[1] * R[1][j] + t[2] * R[2][j];
        if (std::abs(tb) > ea[0] * AR[0][j] + ea[1] * AR[1][j] + ea[2] * AR[2][j] + eb[j]) return false;
    }
    for (int i = 0; i < 3; ++i) {
        const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; ++j) {
            const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            const float ra = ea[i1] * AR[i2][j] + ea[i2] * AR[i1][j];
            const float rb = eb[j1] * AR[i][j2] + eb[j2] * AR[i][j1];
            const float tl = t[i2] * R[i1][j] - t[i1] * R[i2][j];
            if (std::abs(tl) > ra + rb) return false;
        }
    }
    return true;
}

// A pair with nearly parallel edges that the float test misses. B's rotation is written as a matrix with the
// columns (0, 1, e), (e, 0, 1), (1, e, 0) (e = 2^-25) whose rows are B's axes, so as columns the axes are the
// transpose: (0, e, 1), (1, 0, e), (e, 1, 0).
constexpr float kEps = 2.980232e-08f;
const Obb kNearParallelA{{0.0f, 0.0f, 0.0f}, glm::mat3(1.0f), {0.5f, 0.5f, 0.5f}};
const Obb kNearParallelB{{8.792448e-27f, -3.507065e+00f, 3.621201e+02f},
                    glm::mat3(glm::vec3(0.0f, kEps, 1.0f), glm::vec3(1.0f, 0.0f, kEps), glm::vec3(kEps, 1.0f, 0.0f)),
                    {5.000000e+02f, 5.000000e+01f, 2.000000e+02f}};

TEST(GomezNearParallel, NearParallelEdgesPairOverlaps) {
    // B (1000 x 100 x 400 m) swallows the unit cube A: B spans z from -138 to 862 and y from -203.5 to 196.5.
    const ref::Result r = ref::box_box(kNearParallelA, kNearParallelB);
    ASSERT_FALSE(r.separated);
    EXPECT_TRUE(tumble::overlap(kNearParallelA, kNearParallelB));
    const auto c = tumble::collide(kNearParallelA, kNearParallelB);
    ASSERT_TRUE(c);
    testutil::Tally tally;
    EXPECT_EQ(testutil::check_against_reference(kNearParallelA, kNearParallelB, r, tally), "");
    // The naive test misses it: an edge axis made of near-zero R entries reads round-off as separation.
    EXPECT_FALSE(naive_float_overlap(kNearParallelA, kNearParallelB));
}

TEST(GomezNearParallel, LiteralTriplesAsColumnsAreSeparated) {
    // Taking the triples as the columns gives a different box, 50 m deep along world z around z = 362: it does
    // not reach the cube.
    Obb b = kNearParallelB;
    b.axes = glm::mat3(glm::vec3(0.0f, 1.0f, kEps), glm::vec3(kEps, 0.0f, 1.0f), glm::vec3(1.0f, kEps, 0.0f));
    EXPECT_TRUE(ref::box_box(kNearParallelA, b).separated);
    EXPECT_FALSE(tumble::overlap(kNearParallelA, b));
    EXPECT_FALSE(tumble::collide(kNearParallelA, b));
}

TEST(GomezNearParallel, NearParallelFamilyAgainstReference) {
    // Axes within 1e-7 to 1e-3 rad of A's: the regime where the float test fails.
    testutil::Random rng(404);
    testutil::Tally tally;
    for (int k = 0; k < 20000; ++k) {
        const double angle = std::pow(10.0, rng.uniform(-7, -3));
        const Obb a{rng.vec(-1, 1), glm::mat3(1.0f), rng.vec(0.1, 1.0)};
        const Obb b{rng.vec(-1, 1), testutil::rotation_about(glm::dvec3(rng.unit()), angle) * a.axes, rng.vec(0.1, 1.0)};
        const std::string error = testutil::check_against_reference(a, b, ref::box_box(a, b), tally);
        ASSERT_EQ(error, "") << "case " << k << " angle " << angle;
    }
    std::printf("[ family   ] %-28s %6ld decided pairs agree with the reference (%ld overlapping), %ld within the "
                "touching margin\n", "near-parallel 1e-7..1e-3", tally.checked, tally.overlapping, tally.ambiguous);
    EXPECT_GT(tally.checked, 19000);
}

TEST(UnnormalisedEdgeDepth, EdgeDepthIsNormalisedAndAxisIsLeastDistance) {
    // The mistaken rule keeps the edge-axis overlap D = Rab - |T.L| unnormalised and picks the axis of least D/Rab. On
    // this pair that rule picks edge axis 10 (A_y x B_y), whose true depth is 1.886 m, while the least penetration is
    // 0.884 m on edge axis 6.
    const Obb a{{0, 0, 0}, glm::mat3(1.0f), {1.0f, 0.5f, 0.8f}};
    const Obb b{{0.19623214f, -0.00160208752f, 0.144721493f},
                glm::mat3(glm::vec3(-0.369546175f, -0.0286813676f, -0.928769648f),
                          glm::vec3(-0.927844286f, 0.0656080842f, 0.367151856f),
                          glm::vec3(0.0504043698f, 0.997433186f, -0.0508570671f)),
                {0.971779883f, 0.844271958f, 0.3202236f}};
    const ref::Result r = ref::box_box(a, b);
    ASSERT_FALSE(r.separated);
    int mistaken_axis = -1;
    long double best = 1e30L;
    for (int k = 0; k < 15; ++k) {
        const ref::Axis& ax = r.axes[k];
        if (!ax.valid) continue;
        const long double rab = (ax.push_plus + ax.push_minus) / 2 * ax.length;  // rA + rB, unnormalised
        const long double d = ax.depth() * ax.length;                           // Rab - |T.L|, unnormalised
        if (d / rab < best) best = d / rab, mistaken_axis = k;
    }
    ASSERT_EQ(mistaken_axis, 10);
    ASSERT_EQ(r.min_axis, 6);

    const auto c = tumble::collide(a, b);
    ASSERT_TRUE(c);
    EXPECT_NEAR(c->depth, static_cast<float>(r.min_depth), 1e-5f);
    EXPECT_NE(c->axis, 10);
    testutil::Tally tally;
    EXPECT_EQ(testutil::check_against_reference(a, b, r, tally), "");
}

TEST(CornerAsBoxRadius, BoxRadiusIsTheSupportNotOneCorner) {
    // The mistaken test projects one fixed corner (top-left-near, here (-1, 1, 1)) to get the box's extent along the
    // triangle normal. Along n = (1, 1, 0)/sqrt(2) that corner projects to 0, so the box looks like a point there; the
    // true radius is sqrt(2). A large triangle in the plane x + y = sqrt(2) (1 m from the centre along n) cuts the box.
    const Obb box{{0, 0, 0}, glm::mat3(1.0f), {1, 1, 1}};
    const float s = std::sqrt(2.0f);
    const Triangle tri{{s + 3.0f, -3.0f, -5.0f}, {-3.0f, s + 3.0f, -5.0f}, {s / 2, s / 2, 5.0f}};
    const glm::vec3 n = glm::normalize(glm::vec3(1, 1, 0));
    const float corner_projection = glm::dot(glm::vec3(-1, 1, 1), n);
    const float plane = glm::dot(tri.a, n);
    ASSERT_NEAR(corner_projection, 0.0f, 1e-6f);
    ASSERT_GT(plane, corner_projection);  // the mistaken test: triangle beyond the box on this axis, "outside"

    EXPECT_TRUE(tumble::overlap(box, tri));
    const auto c = tumble::collide(box, tri);
    ASSERT_TRUE(c);
    EXPECT_NEAR(c->depth, s - 1.0f, 1e-5f);  // push back by radius - distance
    EXPECT_NEAR(glm::dot(c->normal, n), 1.0f, 1e-6f);
}

TEST(CocosObb, ProjectionOfAPointIsTheDotProduct) {
    // Cocos2d-x's OBB::projectPoint returns dot(point, axis) * |point|: a point's projection grows with its distance
    // from the origin. Its getInterval passes the arguments swapped, which hides the bug for unit face axes but scales
    // the intervals of the unnormalised edge axes. Tumble's depths are the true distances along the unit normal,
    // checked here on an edge contact by moving B by the reported depth: it then just touches.
    const Obb a{glm::vec3(0.0f), testutil::rotation_about({0, 0, 1}, 0.6), glm::vec3(1.0f)};
    const Obb b{{2.2f, 0.3f, 0.1f}, testutil::rotation_about({1, 1, 0}, 0.9), glm::vec3(0.8f)};
    const auto c = tumble::collide(a, b);
    ASSERT_TRUE(c);
    Obb moved = b;
    moved.center += c->normal * (c->depth * 1.0001f + 1e-6f);
    EXPECT_FALSE(tumble::overlap(a, moved));
    moved.center = b.center + c->normal * (c->depth * 0.999f);
    EXPECT_TRUE(tumble::overlap(a, moved));
}

TEST(CocosObb, TransformSeparatesScaleFromRotationPerBoxAxis) {
    // A box turned 90 degrees about z (its x axis along world y) scaled by (2, 1, 1) along world axes: the box's
    // own y axis (along world -x) stretches by 2, its x axis not at all. Cocos2d-x's OBB::transform multiplies
    // extents.x by the matrix's x scale instead.
    const Obb box{{1, 0, 0}, testutil::rotation_about({0, 0, 1}, 1.5707963267948966), {1.0f, 2.0f, 3.0f}};
    const glm::mat4 scale = glm::scale(glm::mat4(1.0f), glm::vec3(2.0f, 1.0f, 1.0f));
    const Obb out = box.transformed(scale);
    EXPECT_NEAR(out.half_extents.x, 1.0f, 1e-5f);
    EXPECT_NEAR(out.half_extents.y, 4.0f, 1e-5f);
    EXPECT_NEAR(out.half_extents.z, 3.0f, 1e-5f);
    EXPECT_NEAR(out.center.x, 2.0f, 1e-6f);
    // Every transformed corner of the original is a corner of the result.
    const auto before = box.corners();
    const auto after = out.corners();
    for (const glm::vec3& p : before) {
        const glm::vec3 q = glm::vec3(scale * glm::vec4(p, 1.0f));
        float best = 1e9f;
        for (const glm::vec3& r : after) best = std::min(best, glm::length(q - r));
        EXPECT_LT(best, 1e-5f);
    }
    // Non-uniform scale across a rotated box shears it: not a box, a clear error.
    const Obb turned{{0, 0, 0}, testutil::rotation_about({0, 0, 1}, 0.5), glm::vec3(1.0f)};
    EXPECT_THROW(turned.transformed(scale), tumble::InvalidArgument);
}

TEST(TranslationAsCentre, LocalBoxCentreFollowsScaleAndRotation) {
    // The mistaken construction sets the OBB centre to the matrix translation, which is wrong when the model-space box
    // is not centred on the model origin. Local box [1,3]x[0,2]x[0,2], scale (2,1,1), 90 degrees about z, then
    // translate (10,0,0): the local centre (2,1,1) scales to (4,1,1), turns to (-1,4,1) and lands at (9,4,1).
    const tumble::Aabb local{{1, 0, 0}, {3, 2, 2}};
    glm::mat4 rt = glm::translate(glm::mat4(1.0f), glm::vec3(10, 0, 0));
    rt = rt * glm::mat4(testutil::rotation_about({0, 0, 1}, 1.5707963267948966));
    const Obb o = Obb::from_local_aabb(local, {2, 1, 1}, rt);
    EXPECT_NEAR(o.center.x, 9.0f, 1e-5f);
    EXPECT_NEAR(o.center.y, 4.0f, 1e-5f);
    EXPECT_NEAR(o.center.z, 1.0f, 1e-5f);
    EXPECT_NEAR(o.half_extents.x, 2.0f, 1e-6f);
    EXPECT_NEAR(o.half_extents.y, 1.0f, 1e-6f);
    EXPECT_NEAR(o.half_extents.z, 1.0f, 1e-6f);
    // Every scaled and moved local corner is a corner of the OBB.
    for (int k = 0; k < 8; ++k) {
        const glm::vec3 p{k & 1 ? 3.0f : 1.0f, k & 2 ? 2.0f : 0.0f, k & 4 ? 2.0f : 0.0f};
        const glm::vec3 q = glm::vec3(rt * glm::vec4(p * glm::vec3(2, 1, 1), 1.0f));
        float best = 1e9f;
        for (const glm::vec3& r : o.corners()) best = std::min(best, glm::length(q - r));
        EXPECT_LT(best, 1e-5f) << k;
    }
    // A scale hidden in the matrix is refused: pass it separately.
    EXPECT_THROW(Obb::from_local_aabb(local, {1, 1, 1}, glm::scale(glm::mat4(1.0f), glm::vec3(2.0f))),
                 tumble::InvalidArgument);
}

}  // namespace
