// OBB construction, corners, containment, AABB and validation.

#include <cmath>
#include <limits>

#include <gtest/gtest.h>
#include <glm/gtc/matrix_transform.hpp>

#include <tumble/error.hpp>
#include <tumble/narrowphase/validate.hpp>

#include "support/test_util.hpp"

namespace {

using tumble::Aabb;
using tumble::Obb;

TEST(ObbShape, CornersFollowTheDocumentedBinaryOrder) {
    const Obb o{{1, 2, 3}, glm::mat3(1.0f), {0.5f, 1.0f, 2.0f}};
    const auto c = o.corners();
    EXPECT_EQ(c[0], glm::vec3(0.5f, 1.0f, 1.0f));   // (-,-,-)
    EXPECT_EQ(c[1], glm::vec3(1.5f, 1.0f, 1.0f));   // (+,-,-)
    EXPECT_EQ(c[2], glm::vec3(0.5f, 3.0f, 1.0f));   // (-,+,-)
    EXPECT_EQ(c[4], glm::vec3(0.5f, 1.0f, 5.0f));   // (-,-,+)
    EXPECT_EQ(c[7], glm::vec3(1.5f, 3.0f, 5.0f));   // (+,+,+)
}

TEST(ObbShape, AabbIsTheBoundsOfTheCorners) {
    testutil::Random rng(3);
    for (int k = 0; k < 1000; ++k) {
        const Obb o{rng.vec(-10, 10), rng.rotation_matrix(), rng.vec(0, 3)};
        Aabb want = Aabb::empty();
        for (const glm::vec3& p : o.corners()) want = want.merged(p);
        const Aabb got = o.aabb();
        for (int i = 0; i < 3; ++i) {
            EXPECT_NEAR(got.min[i], want.min[i], 1e-5f);
            EXPECT_NEAR(got.max[i], want.max[i], 1e-5f);
        }
    }
}

TEST(ObbShape, ContainsMatchesLocalCoordinates) {
    testutil::Random rng(4);
    const Obb o{{1, -2, 0.5f}, rng.rotation_matrix(), {0.5f, 1.0f, 0.25f}};
    for (int k = 0; k < 2000; ++k) {
        const glm::vec3 local = rng.vec(-1.5, 1.5) * o.half_extents;
        const glm::vec3 p = o.center + o.axes * local;
        const bool inside = std::abs(local.x) < o.half_extents.x * 0.999f && std::abs(local.y) < o.half_extents.y * 0.999f &&
                            std::abs(local.z) < o.half_extents.z * 0.999f;
        const bool outside = std::abs(local.x) > o.half_extents.x * 1.001f || std::abs(local.y) > o.half_extents.y * 1.001f ||
                             std::abs(local.z) > o.half_extents.z * 1.001f;
        if (inside) {
            EXPECT_TRUE(o.contains(p));
        }
        if (outside) {
            EXPECT_FALSE(o.contains(p));
        }
    }
    for (const glm::vec3& c : o.corners()) EXPECT_FALSE(o.contains(c + (c - o.center) * 1e-3f));
    EXPECT_FALSE(o.contains({std::numeric_limits<float>::quiet_NaN(), 0, 0}));
}

TEST(ObbShape, FromAabbAndVolume) {
    const Obb o = Obb::from_aabb({{-1, 0, 2}, {3, 1, 4}});
    EXPECT_EQ(o.center, glm::vec3(1, 0.5f, 3));
    EXPECT_EQ(o.half_extents, glm::vec3(2, 0.5f, 1));
    EXPECT_EQ(o.axes, glm::mat3(1.0f));
    EXPECT_FLOAT_EQ(o.volume(), 4 * 1 * 2.0f);
}

TEST(ObbShape, TransformedByRigidMotionAndUniformScale) {
    testutil::Random rng(5);
    for (int k = 0; k < 200; ++k) {
        const Obb o{rng.vec(-2, 2), rng.rotation_matrix(), rng.vec(0.1, 2)};
        const float s = rng.uniformf(0.2, 3.0);
        glm::mat4 m = glm::translate(glm::mat4(1.0f), rng.vec(-5, 5)) * glm::mat4(rng.rotation_matrix()) *
                      glm::scale(glm::mat4(1.0f), glm::vec3(s));
        const Obb t = o.transformed(m);
        EXPECT_EQ(tumble::validate(t), "");
        for (int i = 0; i < 3; ++i) EXPECT_NEAR(t.half_extents[i], o.half_extents[i] * s, 1e-4f * s);
        // The corners map onto the corners.
        for (const glm::vec3& p : o.corners()) {
            const glm::vec3 q = glm::vec3(m * glm::vec4(p, 1.0f));
            float best = 1e9f;
            for (const glm::vec3& r : t.corners()) best = std::min(best, glm::length(q - r));
            EXPECT_LT(best, 1e-4f);
        }
    }
}

TEST(ObbShape, MirrorKeepsARightHandedFrame) {
    const Obb o{{1, 2, 3}, glm::mat3(1.0f), {1, 2, 3}};
    const Obb t = o.transformed(glm::scale(glm::mat4(1.0f), glm::vec3(-1, 1, 1)));
    EXPECT_GT(glm::dot(t.axes[0], glm::cross(t.axes[1], t.axes[2])), 0.99f);
    EXPECT_NEAR(t.center.x, -1.0f, 1e-6f);
    EXPECT_NEAR(t.half_extents.x, 1.0f, 1e-6f);
}

TEST(ObbShape, TransformedRejectsBadMatrices) {
    const Obb o{{0, 0, 0}, glm::mat3(1.0f), {1, 1, 1}};
    glm::mat4 m(1.0f);
    m[1][1] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW(o.transformed(m), tumble::InvalidArgument);
    EXPECT_THROW(o.transformed(glm::scale(glm::mat4(1.0f), glm::vec3(1, 0, 1))), tumble::InvalidArgument);
    glm::mat4 projective(1.0f);
    projective[2][3] = 1.0f;
    EXPECT_THROW(o.transformed(projective), tumble::InvalidArgument);
}

TEST(Validate, ReportsTheFirstProblemInWords) {
    Obb o{{0, 0, 0}, glm::mat3(1.0f), {1, 1, 1}};
    EXPECT_EQ(tumble::validate(o), "");
    o.half_extents.y = -0.5f;
    EXPECT_NE(tumble::validate(o).find("half_extents.y"), std::string::npos);
    o.half_extents.y = 1.0f;
    o.center.z = std::numeric_limits<float>::infinity();
    EXPECT_NE(tumble::validate(o).find("center.z"), std::string::npos);
    o.center.z = 0.0f;
    o.axes[0] *= 2.0f;
    EXPECT_NE(tumble::validate(o).find("length"), std::string::npos);
    o.axes = glm::mat3(glm::vec3(1, 0, 0), glm::vec3(0.1f, 1, 0), glm::vec3(0, 0, 1));
    EXPECT_NE(tumble::validate(o).find("dot product"), std::string::npos);
    EXPECT_THROW(tumble::require_valid(o, "test box"), tumble::InvalidArgument);

    EXPECT_NE(tumble::validate(Aabb{{0, 2, 0}, {1, 1, 1}}).find("min.y"), std::string::npos);
    EXPECT_NE(tumble::validate(tumble::Triangle{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}}).find("degenerate"), std::string::npos);
    EXPECT_EQ(tumble::validate(tumble::Triangle{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}), "");
}

}  // namespace
