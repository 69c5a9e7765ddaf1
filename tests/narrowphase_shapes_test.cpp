// OBB construction, corners, containment, AABB and validation, for float and double shapes.

#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>
#include <glm/gtc/matrix_transform.hpp>

#include <tumble/core/error.hpp>
#include <tumble/narrowphase/validate.hpp>

#include "support/test_util.hpp"

namespace {

using testutil::Random;

template <class T>
class ObbShape : public ::testing::Test {
public:
    using Vt = tumble::Vec3T<T>;
    using M3t = tumble::Mat3T<T>;
    using M4t = tumble::Mat4T<T>;
    using Obb = tumble::ObbT<T>;
    using Aabb = tumble::AabbT<T>;
    // Tolerance for values of order 1: a few ulps of float, or of double.
    static constexpr T eps = std::is_same_v<T, float> ? T(1e-5) : T(1e-12);
    static constexpr T tight = std::is_same_v<T, float> ? T(1e-6) : T(1e-12);  // values exact to a few float ulps
};
using testutil::ScalarNames;
using testutil::Scalars;
TYPED_TEST_SUITE(ObbShape, Scalars, ScalarNames);

TYPED_TEST(ObbShape, CornersFollowTheDocumentedBinaryOrder) {
    using T = TypeParam;
    using V = typename TestFixture::Vt;
    const typename TestFixture::Obb o{{1, 2, 3}, typename TestFixture::M3t(T(1)), {T(0.5), 1, 2}};
    const auto c = o.corners();
    EXPECT_EQ(c[0], V(T(0.5), 1, 1));  // (-,-,-)
    EXPECT_EQ(c[1], V(T(1.5), 1, 1));  // (+,-,-)
    EXPECT_EQ(c[2], V(T(0.5), 3, 1));  // (-,+,-)
    EXPECT_EQ(c[4], V(T(0.5), 1, 5));  // (-,-,+)
    EXPECT_EQ(c[7], V(T(1.5), 3, 5));  // (+,+,+)
}

TYPED_TEST(ObbShape, AabbIsTheBoundsOfTheCorners) {
    using T = TypeParam;
    Random rng(3);
    for (int k = 0; k < 1000; ++k) {
        const typename TestFixture::Obb o{testutil::random_vec<T>(rng, -10, 10), testutil::random_rotation<T>(rng),
                                          testutil::random_vec<T>(rng, 0, 3)};
        auto want = TestFixture::Aabb::empty();
        for (const auto& p : o.corners()) want = want.merged(p);
        const auto got = o.aabb();
        for (int i = 0; i < 3; ++i) {
            EXPECT_NEAR(got.min[i], want.min[i], TestFixture::eps);
            EXPECT_NEAR(got.max[i], want.max[i], TestFixture::eps);
        }
    }
}

TYPED_TEST(ObbShape, ContainsMatchesLocalCoordinates) {
    using T = TypeParam;
    using V = typename TestFixture::Vt;
    Random rng(4);
    const typename TestFixture::Obb o{{1, -2, T(0.5)}, testutil::random_rotation<T>(rng), {T(0.5), 1, T(0.25)}};
    for (int k = 0; k < 2000; ++k) {
        const V local = testutil::random_vec<T>(rng, -1.5, 1.5) * o.half_extents;
        const V p = o.center + o.axes * local;
        const bool inside = std::abs(local.x) < o.half_extents.x * T(0.999) && std::abs(local.y) < o.half_extents.y * T(0.999) &&
                            std::abs(local.z) < o.half_extents.z * T(0.999);
        const bool outside = std::abs(local.x) > o.half_extents.x * T(1.001) || std::abs(local.y) > o.half_extents.y * T(1.001) ||
                             std::abs(local.z) > o.half_extents.z * T(1.001);
        if (inside) {
            EXPECT_TRUE(o.contains(p));
        }
        if (outside) {
            EXPECT_FALSE(o.contains(p));
        }
    }
    for (const V& c : o.corners()) EXPECT_FALSE(o.contains(c + (c - o.center) * T(1e-3)));
    EXPECT_FALSE(o.contains({std::numeric_limits<T>::quiet_NaN(), 0, 0}));
}

TYPED_TEST(ObbShape, FromAabbAndVolume) {
    using T = TypeParam;
    using V = typename TestFixture::Vt;
    const auto o = TestFixture::Obb::from_aabb({{-1, 0, 2}, {3, 1, 4}});
    EXPECT_EQ(o.center, V(1, T(0.5), 3));
    EXPECT_EQ(o.half_extents, V(2, T(0.5), 1));
    EXPECT_EQ(o.axes, typename TestFixture::M3t(T(1)));
    EXPECT_EQ(o.volume(), T(4 * 1 * 2));
}

TYPED_TEST(ObbShape, FromLocalAabbCarriesTheLocalCentre) {
    // Local box [1,3]x[0,2]x[0,2], scale (2,1,1), 90 degrees about z, then translate (10,0,0): the local centre
    // (2,1,1) scales to (4,1,1), turns to (-1,4,1) and lands at (9,4,1). A scale hidden in the matrix is refused.
    using T = TypeParam;
    using M4 = typename TestFixture::M4t;
    const typename TestFixture::Aabb local{{1, 0, 0}, {3, 2, 2}};
    M4 rt = glm::translate(M4(T(1)), typename TestFixture::Vt(10, 0, 0));
    rt = rt * M4(typename TestFixture::M3t(testutil::rotation_about_d({0, 0, 1}, 1.5707963267948966)));
    const auto o = TestFixture::Obb::from_local_aabb(local, {2, 1, 1}, rt);
    EXPECT_NEAR(o.center.x, T(9), TestFixture::eps);
    EXPECT_NEAR(o.center.y, T(4), TestFixture::eps);
    EXPECT_NEAR(o.center.z, T(1), TestFixture::eps);
    EXPECT_NEAR(o.half_extents.x, T(2), TestFixture::eps);
    EXPECT_EQ(tumble::validate(o), "");
    EXPECT_THROW(TestFixture::Obb::from_local_aabb(local, {1, 1, 1}, glm::scale(M4(T(1)), typename TestFixture::Vt(2))),
                 tumble::InvalidArgument);
    EXPECT_THROW(TestFixture::Obb::from_local_aabb(local, {std::numeric_limits<T>::infinity(), 1, 1}, rt),
                 tumble::InvalidArgument);
}

TYPED_TEST(ObbShape, TransformedByRigidMotionAndUniformScale) {
    using T = TypeParam;
    using V = typename TestFixture::Vt;
    using M4 = typename TestFixture::M4t;
    Random rng(5);
    for (int k = 0; k < 200; ++k) {
        const typename TestFixture::Obb o{testutil::random_vec<T>(rng, -2, 2), testutil::random_rotation<T>(rng),
                                          testutil::random_vec<T>(rng, 0.1, 2)};
        const T s = static_cast<T>(rng.uniform(0.2, 3.0));
        const M4 m = glm::translate(M4(T(1)), testutil::random_vec<T>(rng, -5, 5)) * M4(testutil::random_rotation<T>(rng)) *
                     glm::scale(M4(T(1)), V(s));
        const auto t = o.transformed(m);
        EXPECT_EQ(tumble::validate(t), "");
        for (int i = 0; i < 3; ++i) EXPECT_NEAR(t.half_extents[i], o.half_extents[i] * s, 10 * TestFixture::eps * s);
        for (const V& p : o.corners()) {  // the corners map onto the corners
            const V q = V(m * glm::vec<4, T, glm::defaultp>(p, T(1)));
            T best = T(1e9);
            for (const V& r : t.corners()) best = std::min(best, glm::length(q - r));
            EXPECT_LT(best, 10 * TestFixture::eps);
        }
    }
}

TYPED_TEST(ObbShape, MirrorKeepsARightHandedFrame) {
    using T = TypeParam;
    using M4 = typename TestFixture::M4t;
    const typename TestFixture::Obb o{{1, 2, 3}, typename TestFixture::M3t(T(1)), {1, 2, 3}};
    const auto t = o.transformed(glm::scale(M4(T(1)), typename TestFixture::Vt(-1, 1, 1)));
    EXPECT_GT(glm::dot(t.axes[0], glm::cross(t.axes[1], t.axes[2])), T(0.99));
    EXPECT_NEAR(t.center.x, T(-1), TestFixture::tight);
    EXPECT_NEAR(t.half_extents.x, T(1), TestFixture::tight);
}

TYPED_TEST(ObbShape, TransformedRejectsBadMatrices) {
    using T = TypeParam;
    using M4 = typename TestFixture::M4t;
    const typename TestFixture::Obb o{{0, 0, 0}, typename TestFixture::M3t(T(1)), {1, 1, 1}};
    M4 m(T(1));
    m[1][1] = std::numeric_limits<T>::quiet_NaN();
    EXPECT_THROW(o.transformed(m), tumble::InvalidArgument);
    EXPECT_THROW(o.transformed(glm::scale(M4(T(1)), typename TestFixture::Vt(1, 0, 1))), tumble::InvalidArgument);
    M4 projective(T(1));
    projective[2][3] = T(1);
    EXPECT_THROW(o.transformed(projective), tumble::InvalidArgument);
}

TYPED_TEST(ObbShape, ValidateReportsTheFirstProblemInWords) {
    using T = TypeParam;
    using M3 = typename TestFixture::M3t;
    using V = typename TestFixture::Vt;
    typename TestFixture::Obb o{{0, 0, 0}, M3(T(1)), {1, 1, 1}};
    EXPECT_EQ(tumble::validate(o), "");
    o.half_extents.y = T(-0.5);
    EXPECT_NE(tumble::validate(o).find("half_extents.y"), std::string::npos);
    o.half_extents.y = T(1);
    o.center.z = std::numeric_limits<T>::infinity();
    EXPECT_NE(tumble::validate(o).find("center.z"), std::string::npos);
    o.center.z = T(0);
    o.axes[0] *= T(2);
    EXPECT_NE(tumble::validate(o).find("length"), std::string::npos);
    o.axes = M3(V(1, 0, 0), V(T(0.1), 1, 0), V(0, 0, 1));
    EXPECT_NE(tumble::validate(o).find("dot product"), std::string::npos);
    EXPECT_THROW(tumble::require_valid(o, "test box"), tumble::InvalidArgument);

    EXPECT_NE(tumble::validate(typename TestFixture::Aabb{{0, 2, 0}, {1, 1, 1}}).find("min.y"), std::string::npos);
    using Tri = tumble::TriangleT<T>;
    EXPECT_NE(tumble::validate(Tri{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}}).find("degenerate"), std::string::npos);
    EXPECT_EQ(tumble::validate(Tri{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}), "");
    // A sliver whose smallest angle is 1e-9 rad is refused (kDegenerateTriangleEpsilon), one at 1e-6 accepted.
    EXPECT_NE(tumble::validate(Tri{{0, 0, 0}, {1, 0, 0}, {T(0.5), T(1e-9), 0}}).find("degenerate"), std::string::npos);
    EXPECT_EQ(tumble::validate(Tri{{0, 0, 0}, {1, 0, 0}, {T(0.5), T(1e-6), 0}}), "");
}

}  // namespace
