// Contact manifolds: hand-worked cases, every reference family checked point by point against the shapes
// (tests/support/manifold_check.hpp), feature ids that survive small motions, and the reduction to 4 points.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include <tumble/narrowphase/manifold.hpp>

#include "support/families.hpp"
#include "support/manifold_check.hpp"
#include "support/test_util.hpp"

namespace {

using testutil::Random;
using tumble::box_corner_feature;
using tumble::box_edge_feature;
using tumble::box_face_feature;
using tumble::feature_id;
using tumble::Manifold;
using tumble::Obb;
using tumble::ObbD;
using tumble::Triangle;

std::set<std::uint32_t> ids_of(const Manifold& m) {
    std::set<std::uint32_t> s;
    for (int k = 0; k < m.count; ++k) s.insert(m.points[static_cast<std::size_t>(k)].id);
    return s;
}

std::string show_ids(const std::set<std::uint32_t>& s) {
    std::string out;
    for (std::uint32_t id : s) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "(%d,%d) ", tumble::feature_a(id), tumble::feature_b(id));
        out += buf;
    }
    return out;
}

// --- Hand-worked cases -------------------------------------------------------------------------------------------

TEST(ManifoldBoxBox, SmallBoxRestingOnABigBoxGivesItsFourBottomCorners) {
    const Obb big{{0, -1, 0}, glm::mat3(1.0f), {3, 1, 3}};
    const Obb small{{0.5f, 0.49f, -0.25f}, testutil::rotation_about({0, 1, 0}, 0.3), {0.5f, 0.5f, 0.5f}};  // sunk 0.01
    const auto m = tumble::collide_manifold(big, small);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->axis, 1);
    EXPECT_NEAR(m->depth, 0.01f, 1e-6f);
    ASSERT_EQ(m->count, 4);
    std::set<std::uint32_t> want;
    const auto corners = small.corners();
    for (int k = 0; k < 8; ++k)
        if (!(k & 2)) want.insert(feature_id(box_face_feature(1, true), box_corner_feature(k)));  // small's -y corners
    EXPECT_EQ(ids_of(*m), want);
    for (int k = 0; k < 4; ++k) {
        const auto& p = m->points[static_cast<std::size_t>(k)];
        EXPECT_NEAR(p.depth, 0.01f, 1e-6f);
        EXPECT_NEAR(glm::length(p.point_b - corners[static_cast<std::size_t>(tumble::feature_b(p.id))]), 0.0f, 1e-6f);
        EXPECT_NEAR(p.point_a.y, 0.0f, 1e-6f);  // on the big box's top face
    }
    // Swapping the boxes swaps the features and flips the normal; the points stay where they are.
    const auto s = tumble::collide_manifold(small, big);
    ASSERT_TRUE(s);
    ASSERT_EQ(s->count, 4);
    std::set<std::uint32_t> swapped;
    for (std::uint32_t id : want) swapped.insert(feature_id(tumble::feature_b(id), tumble::feature_a(id)));
    EXPECT_EQ(ids_of(*s), swapped);
    EXPECT_NEAR(s->normal.y, -1.0f, 1e-6f);
}

TEST(ManifoldBoxBox, EqualBoxesTurned45DegreesReduceTheOctagonToFourSpreadPoints) {
    // Two unit cubes, the upper one turned 45 degrees about the vertical and sunk 0.02: the bottom face clipped by
    // the top face is a regular octagon of 8 points at equal depth. Four are kept, spread over it: no two adjacent.
    const Obb lower{{0, -0.5f, 0}, glm::mat3(1.0f), glm::vec3(0.5f)};
    const Obb upper{{0, 0.48f, 0}, testutil::rotation_about({0, 1, 0}, 0.7853981633974483), glm::vec3(0.5f)};
    const auto m = tumble::collide_manifold(lower, upper);
    ASSERT_TRUE(m);
    ASSERT_EQ(m->count, 4);
    for (int k = 0; k < 4; ++k) {
        const auto& p = m->points[static_cast<std::size_t>(k)];
        EXPECT_NEAR(p.depth, 0.02f, 1e-6f);
        // Octagon corners are edge-edge crossings: (edge of the lower box, edge of the upper box).
        EXPECT_GE(tumble::feature_a(p.id), 8);
        EXPECT_LT(tumble::feature_a(p.id), 20);
        EXPECT_GE(tumble::feature_b(p.id), 8);
        EXPECT_LT(tumble::feature_b(p.id), 20);
    }
    // Area of the kept quadrilateral (convex hull of 4 points on the plane y = 0): at least that of the square
    // through alternate octagon corners, 0.5 m^2 for this octagon of area 0.828 m^2.
    std::vector<glm::vec2> q;
    for (int k = 0; k < 4; ++k) q.push_back({m->points[static_cast<std::size_t>(k)].point_b.x, m->points[static_cast<std::size_t>(k)].point_b.z});
    glm::vec2 c(0.0f);
    for (const auto& p : q) c += p * 0.25f;
    std::sort(q.begin(), q.end(), [&](const glm::vec2& x, const glm::vec2& y) {
        return std::atan2(x.y - c.y, x.x - c.x) < std::atan2(y.y - c.y, y.x - c.x);
    });
    float area = 0;
    for (int k = 0; k < 4; ++k) area += q[k].x * q[(k + 1) % 4].y - q[(k + 1) % 4].x * q[k].y;
    EXPECT_GT(0.5f * area, 0.49f);
}

TEST(ManifoldBoxBox, TiltedBoxKeepsItsDeepestPoint) {
    // The same octagon with the upper box tilted 0.01 rad about x: depths differ across the face by ~0.01 m, and
    // the deepest point must be among the four kept.
    const Obb lower{{0, -0.5f, 0}, glm::mat3(1.0f), glm::vec3(0.5f)};
    const Obb upper{{0, 0.48f, 0},
                    testutil::rotation_about({1, 0, 0}, 0.01) * testutil::rotation_about({0, 1, 0}, 0.7853981633974483),
                    glm::vec3(0.5f)};
    const auto m = tumble::collide_manifold(lower, upper);
    ASSERT_TRUE(m);
    ASSERT_EQ(m->count, 4);
    float deepest = 0;
    for (int k = 0; k < 4; ++k) deepest = std::max(deepest, m->points[static_cast<std::size_t>(k)].depth);
    EXPECT_NEAR(deepest, m->depth, 1e-6f);
}

TEST(ManifoldBoxBox, CrossingEdgesGiveOnePointOnBothEdges) {
    // The edge-edge case of ObbObbConventions.EdgeEdgeAxisIndexAndSign: A's edge along z at x = sqrt(2) and B's edge
    // along y at x = 2 sqrt(2) - d - sqrt(2) cross at depth d.
    const float d = 0.1f;
    const Obb a{glm::vec3(0.0f), testutil::rotation_about({0, 0, 1}, 0.7853981633974483), glm::vec3(1.0f)};
    const Obb b{glm::vec3(2.0f * std::sqrt(2.0f) - d, 0.0f, 0.0f), testutil::rotation_about({0, 1, 0}, 0.7853981633974483),
                glm::vec3(1.0f)};
    const auto m = tumble::collide_manifold(a, b);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->axis, 13);
    ASSERT_EQ(m->count, 1);
    const auto& p = m->points[0];
    EXPECT_NEAR(p.depth, d, 1e-5f);
    EXPECT_NEAR(p.point_a.x, std::sqrt(2.0f), 1e-5f);
    EXPECT_NEAR(p.point_a.y, 0.0f, 1e-5f);
    EXPECT_NEAR(p.point_a.z, 0.0f, 1e-5f);
    EXPECT_NEAR(p.point_b.x, std::sqrt(2.0f) - d, 1e-5f);
    // A's edge along its z through local (+x, -y), which is world (sqrt(2), 0); B's edge along its y through local
    // (-x, -z), which is world (2 sqrt(2) - d - sqrt(2), 0).
    EXPECT_EQ(tumble::feature_a(p.id), box_edge_feature(2, 0b001));
    EXPECT_EQ(tumble::feature_b(p.id), box_edge_feature(1, 0b000));
}

TEST(ManifoldBoxTriangle, BoxOnAFloorTriangleGivesItsBottomCorners) {
    const Triangle floor{{-5, 0, 5}, {5, 0, 5}, {0, 0, -5}};
    const Obb box{{0.3f, 0.245f, -0.2f}, testutil::rotation_about({0, 1, 0}, 0.4), glm::vec3(0.25f)};  // sunk 5 mm
    const auto m = tumble::collide_manifold(box, floor);
    ASSERT_TRUE(m);
    ASSERT_EQ(m->count, 4);
    const auto corners = box.corners();
    for (int k = 0; k < 4; ++k) {
        const auto& p = m->points[static_cast<std::size_t>(k)];
        EXPECT_NEAR(p.depth, 0.005f, 1e-6f);
        // (the box's bottom corner, the triangle's face): whichever face axis wins the tie, the same ids.
        EXPECT_EQ(tumble::feature_b(p.id), tumble::kTriangleFaceFeature);
        const int corner = tumble::feature_a(p.id);
        ASSERT_LT(corner, 8);
        EXPECT_EQ(corner & 2, 0);
        EXPECT_NEAR(glm::length(p.point_a - corners[static_cast<std::size_t>(corner)]), 0.0f, 1e-6f);
        EXPECT_NEAR(p.point_b.y, 0.0f, 1e-6f);
    }
}

TEST(ManifoldBoxTriangle, SmallTriangleOnABoxFaceGivesItsVertices) {
    const Obb box{glm::vec3(0.0f), glm::mat3(1.0f), glm::vec3(1.0f)};
    const Triangle t{{0.2f, 0.99f, 0.1f}, {-0.3f, 0.99f, 0.4f}, {0.1f, 0.99f, -0.5f}};
    const auto m = tumble::collide_manifold(box, t);
    ASSERT_TRUE(m);
    ASSERT_EQ(m->count, 3);
    for (int k = 0; k < 3; ++k) {
        const auto& p = m->points[static_cast<std::size_t>(k)];
        EXPECT_NEAR(p.depth, 0.01f, 1e-6f);
        // Whichever face wins the tie (the box's +y face or the triangle's), the point is the triangle's vertex on
        // the box's top face.
        const std::uint32_t face_ref = feature_id(box_face_feature(1, true), tumble::feature_b(p.id));
        EXPECT_EQ(p.id, face_ref);
        EXPECT_LT(tumble::feature_b(p.id), 3);
        EXPECT_NEAR(p.point_a.y, 1.0f, 1e-6f);
    }
}

TEST(ManifoldBoxTriangle, BoxCornerThroughATriangleGivesTheCorner) {
    // A box standing on a corner, pushed 0.05 m through a large tilted triangle: the triangle's normal is the axis,
    // and the one point is the box's lowest corner.
    const Obb box{glm::vec3(0.0f),
                  testutil::rotation_about({1, 0, 0}, 0.6154797086703874) * testutil::rotation_about({0, 0, 1}, 0.7853981633974483),
                  glm::vec3(0.5f)};
    const auto corners = box.corners();
    int low = 0;
    for (int k = 1; k < 8; ++k)
        if (corners[static_cast<std::size_t>(k)].y < corners[static_cast<std::size_t>(low)].y) low = k;
    const float y = corners[static_cast<std::size_t>(low)].y + 0.05f;
    const Triangle floor{{-5, y, 5}, {5, y, 5}, {0, y, -5}};
    const auto m = tumble::collide_manifold(box, floor);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->axis, 3);
    ASSERT_EQ(m->count, 1);
    EXPECT_EQ(m->points[0].id, feature_id(box_corner_feature(low), tumble::kTriangleFaceFeature));
    EXPECT_NEAR(m->points[0].depth, 0.05f, 1e-5f);
}

TEST(ManifoldBoxTriangle, DegenerateTriangleOnABoxFaceGivesTheSegmentsEnds) {
    const Obb box{glm::vec3(0.0f), glm::mat3(1.0f), glm::vec3(1.0f)};
    const Triangle segment{{-0.5f, 0.9f, 0.0f}, {0.0f, 0.9f, 0.0f}, {0.5f, 0.9f, 0.0f}};  // collinear
    const auto m = tumble::collide_manifold(box, segment);
    ASSERT_TRUE(m);
    EXPECT_NE(m->axis, 3);
    EXPECT_GE(m->count, 2);
    float lo = 1, hi = -1;
    for (int k = 0; k < m->count; ++k) {
        const auto& p = m->points[static_cast<std::size_t>(k)];
        EXPECT_NEAR(p.depth, 0.1f, 1e-6f);
        EXPECT_TRUE(std::isfinite(p.point_b.x));
        lo = std::min(lo, p.point_b.x), hi = std::max(hi, p.point_b.x);
    }
    EXPECT_NEAR(lo, -0.5f, 1e-6f);
    EXPECT_NEAR(hi, 0.5f, 1e-6f);
}

// A flat (collinear) triangle across the box edge x = y = 1, cutting the corner's region by 0.1 / sqrt(2) along
// (1, 1, 0): the edge axis z x (1, -1, 0) wins (the faces overlap 0.5), and all three triangle edges lie on it. The
// contact is the closest points of the box edge and the longest triangle edge (c to a; the SAT's own edge j may be a
// short one, which ends outside the box): (0.95, 0.95, 0) on the triangle, (1, 1, 0) on the box. The manifold knows
// the triangle is flat from the SAT (SatAxis::flat_triangle): the float input runs the fast path, the same shape
// scaled by 2^600 in double the exact core (the fast path declines input it would have to rescale), and the same
// shape with the triangle's vertices listed from another start runs the same edges under other numbers.
TEST(ManifoldBoxTriangle, FlatTriangleAcrossABoxEdgeTouchesAtItsLongestEdge) {
    const auto check = [](const auto& box, const auto& tri, double scale, int longest) {
        const auto m = tumble::collide_manifold(box, tri);
        ASSERT_TRUE(m);
        EXPECT_GE(m->axis, 4) << "an edge axis";
        ASSERT_EQ(m->count, 1);
        const auto& p = m->points[0];
        EXPECT_EQ(tumble::feature_b(p.id), tumble::triangle_edge_feature(longest));
        EXPECT_EQ(tumble::feature_a(p.id), box_edge_feature(2, 0b011));
        EXPECT_NEAR(static_cast<double>(p.point_b.x) / scale, 0.95, 1e-6);
        EXPECT_NEAR(static_cast<double>(p.point_b.y) / scale, 0.95, 1e-6);
        EXPECT_NEAR(static_cast<double>(p.point_b.z) / scale, 0.0, 1e-6);
        EXPECT_NEAR(static_cast<double>(p.point_a.x) / scale, 1.0, 1e-6);
        EXPECT_NEAR(static_cast<double>(p.point_a.y) / scale, 1.0, 1e-6);
        EXPECT_NEAR(static_cast<double>(p.depth) / scale, 0.1 / std::sqrt(2.0), 1e-6);
    };
    const glm::vec3 a(0.5f, 1.4f, 0.0f), b(1.05f, 0.85f, 0.0f), c(1.4f, 0.5f, 0.0f);  // on x + y = 1.9
    const Obb box{glm::vec3(0.0f), glm::mat3(1.0f), glm::vec3(1.0f)};
    check(box, Triangle{a, b, c}, 1.0, 2);  // edges a-b, b-c short, c-a longest
    check(box, Triangle{b, c, a}, 1.0, 1);  // the same edges: c-a is edge 1 now
    const double big = std::ldexp(1.0, 600);
    const ObbD huge{glm::dvec3(0.0), glm::dmat3(1.0), glm::dvec3(big)};
    check(huge, tumble::TriangleD{glm::dvec3(a) * big, glm::dvec3(b) * big, glm::dvec3(c) * big}, big, 2);
}

TEST(ManifoldBoxTriangle, EdgeAxisTakenOnATieUsesTheVertexThatTouches) {
    // Found by fuzz_narrowphase: a box that is a vertical segment, touched (depth 0) by the vertex c of a thin
    // triangle. Several axes tie at depth 0 and the SAT takes the edge axis (box y) x (edge a-b); the manifold then
    // paired the segment with edge a-b, which does not touch it, and gave point_a - point_b = 0.08 m with depth 0.
    // The point is now the vertex that lies lowest along the normal, where the shapes do touch.
    const Obb segment{{0, 0.899902344f, 0},
                      glm::mat3(glm::vec3(0.97676748f, 0, 0.214301959f), glm::vec3(0, -1, 0),
                                glm::vec3(0.214301959f, 0, -0.976767421f)),
                      {0, 0.899902344f, 0}};
    const Triangle t{{0.00390625f, -2.98828125f, 0}, {-0.0625f, 1.93772294e-38f, 0.05078125f}, {0, 0.00341796875f, 0}};
    const auto c = tumble::collide(segment, t);
    ASSERT_TRUE(c);
    const auto m = tumble::collide_manifold(segment, t);
    ASSERT_TRUE(m);
    ASSERT_EQ(m->count, 1);
    const tumble::ManifoldPoint& p = m->points[0];
    EXPECT_LT(glm::length(p.point_a - p.point_b - p.depth * m->normal), 1e-6f);
    EXPECT_LT(glm::length(p.point_b - t.c), 1e-6f);
    if (m->axis >= 4) {
        EXPECT_EQ(tumble::feature_b(p.id), tumble::triangle_vertex_feature(2));
    }
}

TEST(ManifoldBoxTriangle, EdgeAxisTakenOnATieDoesNotPairTheFarEdge) {
    // Found by fuzz_narrowphase: a box that is a 3.9 mm segment through the vertex a of a thin triangle (touching,
    // depth 0). The SAT takes the edge axis (box x) x (edge b-c) on the tie; edge b-c lies 1.2 cm away along that
    // normal, on the triangle's far side, so the closest points of the two edges gave point_a - point_b = 1.2 cm with
    // depth 0. Across the normal they were as close as the vertex's, so the earlier test (offset across the normal
    // only) kept the edge; the offset is now measured from the SAT's depth along the normal as well.
    Obb segment;
    segment.center = {0, 0, -1.40129846e-45f};
    segment.half_extents = {0.001953125f, 0, 0};
    segment.axes = glm::mat3(glm::vec3(-0.0249743462f, -0.0124871563f, -0.999610066f),
                             glm::vec3(-0.000155959744f, 0.999922037f, -0.0124871563f),
                             glm::vec3(0.999688029f, -0.000155959744f, -0.0249743462f));
    const Triangle t{{0, 0, 0}, {9.93935852e-29f, 0.5f, 0}, {0.0119628906f, 0, 0}};
    const auto m = tumble::collide_manifold(segment, t);
    ASSERT_TRUE(m);
    ASSERT_EQ(m->count, 1);
    const tumble::ManifoldPoint& p = m->points[0];
    EXPECT_LT(glm::length(p.point_a - p.point_b - p.depth * m->normal), 1e-6f);
    EXPECT_LT(glm::length(p.point_b - t.a), 1e-6f) << "the touching vertex is a";
    if (m->axis >= 4) {
        EXPECT_EQ(tumble::feature_b(p.id), tumble::triangle_vertex_feature(0));
    }
}

// The manifold of `box` and `t` on the box's face axis `axis`, in float and in double, checked against the shapes in
// long double (manifold_check.hpp): every point in the box and on the triangle within `tol` metres.
void expect_face_points_in_box_and_on_triangle(const Obb& box, const Triangle& t, int axis, long double tol) {
    const auto check = [&](const auto& a, const auto& b) {
        const auto m = tumble::collide_manifold(a, b);
        ASSERT_TRUE(m);
        ASSERT_EQ(m->axis, axis) << "the case is a face of the box against the triangle";
        const mcheck::BoxL A(a);
        const mcheck::TriL B(b);
        for (int k = 0; k < m->count; ++k) {
            const auto& p = m->points[static_cast<std::size_t>(k)];
            EXPECT_LE(A.outside(mcheck::V3(p.point_a)), tol) << "point_a outside the box";
            EXPECT_LE(A.outside(mcheck::V3(p.point_b)), tol) << "point_b outside the box";
            EXPECT_LE(B.distance(mcheck::V3(p.point_b)), tol) << "point_b off the triangle";
        }
        EXPECT_EQ(mcheck::check(a, b, *m, tol), "");
    };
    check(box, t);
    check(ObbD{glm::dvec3(box.center), glm::dmat3(box.axes), glm::dvec3(box.half_extents)},
          tumble::TriangleD{glm::dvec3(t.a), glm::dvec3(t.b), glm::dvec3(t.c)});
}

// A flat box of half extents 1.6e-41 and 1.4e-39 m at x = 9.6e-30 m (fuzz_narrowphase), on a triangle edge.
Obb tiny_flat_box() {
    Obb box;
    box.center = {9.56494073e-30f, 0, 2.1019477e-44f};
    box.half_extents = {1.64218167e-41f, 0, 1.40120878e-39f};
    box.axes = glm::mat3(glm::vec3(-0.992458344f, 0, -0.12258289f), glm::vec3(0, 1, 0),
                         glm::vec3(0.12258289f, 0, -0.992458344f));
    return box;
}

// manifold.hpp promises points as accurate as the shapes: ~1e-7 of their size for float input. With a factor 10 of
// room, 1e-6 of the largest coordinate of the two cases below (6.8e-20 m): 6.8e-26 m.
constexpr long double kTinyBoxTolerance = 1e-6L * 6.76031903e-20L;

TEST(ManifoldBoxTriangle, FaceTooSmallToClipAtThePairsScaleTakesTheTrianglePointNearestTheFace) {
    // Found by fuzz_narrowphase: the flat box on the edge (0,0,0)-(4.2e-22,0,0) of a triangle whose third vertex lies
    // 6.8e-20 m away. The SAT takes the box's face axis y. Clipping the triangle against that face's side planes
    // snaps points to a plane within kOnPlane of the pair's size (3e-30 m here), far more than the face is wide, and
    // keeps nothing; the fallback took the triangle's deepest vertex (4.2e-22, 4.6e-41, 0), 4.2e-22 m beside the
    // box. It now takes the triangle's point nearest the face, which lies in the box.
    const Triangle t{{0, -6.76031903e-20f, 2.36244095e-38f}, {4.23889573e-22f, 4.55996533e-41f, 0}, {0, 0, 0}};
    expect_face_points_in_box_and_on_triangle(tiny_flat_box(), t, 1, kTinyBoxTolerance);
}

TEST(ManifoldBoxTriangle, FaceTooSmallToClipWithOnlyAPointAboveItTakesTheTrianglePointNearestTheFace) {
    // Found by fuzz_narrowphase 20 s into a run after the fix above, from that case: the same box, the triangle
    // turned so that clipping keeps one point, where edge b-c crosses the face's side planes 1.7e-22 m above the
    // face, and none at or below it. The manifold took that point (select()'s last resort: the deepest
    // there is), 1.7e-22 m outside the box. The point nearest the face is taken here too.
    const Triangle t{{0, 2.61874657e-41f, 0},
                     {-6.76021627e-20f, -2.72370898e-20f, 2.35368788e-38f},
                     {4.23889573e-22f, 4.55996533e-41f, 0}};
    expect_face_points_in_box_and_on_triangle(tiny_flat_box(), t, 1, kTinyBoxTolerance);
}

TEST(Manifold, ShapesWithoutAnyAxisGiveNothing) {
    // Found by fuzz_narrowphase (UBSan: index -1 out of bounds in box_reference): boxes whose axes are all zero leave
    // the SAT no axis at all; collide() reports an overlap on axis -1 and the manifold indexed the reference box's
    // axes with it. Invalid shapes give an unspecified answer, but never a read out of bounds: now no manifold.
    const Obb zero{glm::vec3(0.0f), glm::mat3(0.0f), glm::vec3(0.0f)};
    const Obb unit{glm::vec3(0.0f), glm::mat3(1.0f), glm::vec3(1.0f)};
    ASSERT_TRUE(tumble::collide(zero, zero));
    EXPECT_EQ(tumble::collide(zero, zero)->axis, -1);
    EXPECT_FALSE(tumble::collide_manifold(zero, zero));
    const tumble::ObbD zero_d{glm::dvec3(0.0), glm::dmat3(0.0), glm::dvec3(0.0)};
    EXPECT_FALSE(tumble::collide_manifold(zero_d, zero_d));
    const Triangle point{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    ASSERT_TRUE(tumble::collide(zero, point));
    EXPECT_EQ(tumble::collide(zero, point)->axis, -1);
    EXPECT_FALSE(tumble::collide_manifold(zero, point));
    // One box with axes is enough for a manifold.
    EXPECT_TRUE(tumble::collide_manifold(unit, zero));
}

TEST(Manifold, SeparatedAndNonFiniteInputGiveNothing) {
    const Obb a{glm::vec3(0.0f), glm::mat3(1.0f), glm::vec3(1.0f)};
    Obb b = a;
    b.center.x = 2.001f;
    EXPECT_FALSE(tumble::collide_manifold(a, b));
    b.center.x = std::numeric_limits<float>::quiet_NaN();
    EXPECT_FALSE(tumble::collide_manifold(a, b));
    const Triangle t{{0, 0, 0}, {std::numeric_limits<float>::infinity(), 0, 0}, {0, 1, 0}};
    EXPECT_FALSE(tumble::collide_manifold(a, t));
    // Touching boxes give a manifold with depth 0, as collide() does.
    b.center.x = 2.0f;
    const auto m = tumble::collide_manifold(a, b);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->depth, 0.0f);
    EXPECT_EQ(m->count, 4);
}

// --- Every family, point by point -----------------------------------------------------------------------------

struct ManifoldTally {
    long manifolds = 0;
    int most = 0;
    mcheck::Stats points;
    mcheck::Selection selection;
};

template <class T, class Family>
void run_family() {
    Random rng(Family::seed);
    ManifoldTally tally;
    int failures = 0;
    for (int k = 0; k < Family::count && failures < 10; ++k) {
        const auto [a, b] = Family::template make<T>(rng);
        const auto m = tumble::collide_manifold(a, b);
        const auto c = tumble::collide(a, b);
        if (m.has_value() != c.has_value()) {
            ++failures;
            ADD_FAILURE() << Family::name << " case " << k << ": collide_manifold and collide disagree on overlap";
            continue;
        }
        if (!m) continue;
        // Tolerance: the shapes' own precision (float axes are orthonormal to ~1e-7) and the rounding of the
        // points to T at their distance from the origin.
        long double size = mcheck::BoxL(a).size(), far = 0;
        if constexpr (std::is_same_v<std::decay_t<decltype(b)>, tumble::ObbT<T>>)
            size = std::max(size, mcheck::BoxL(b).size()), far = glm::length(glm::dvec3(b.center));
        else
            size = std::max<long double>(size, glm::length(glm::dvec3(b.b - b.a)) + glm::length(glm::dvec3(b.c - b.a)));
        far = std::max<long double>(far, glm::length(glm::dvec3(a.center)));
        const long double eps = std::is_same_v<T, float> ? 2e-6L : 1e-12L;
        std::string error = mcheck::check(a, b, *m, eps * (size + far), &tally.points);
        if (error.empty()) error = mcheck::check_selection(a, b, *m, eps * (size + far), size, tally.selection);
        if (!error.empty()) {
            ++failures;
            ADD_FAILURE() << Family::name << " (" << testutil::scalar_name(T()) << ") case " << k << ", axis " << m->axis
                          << ": " << error << "\n  A = " << testutil::describe(a) << "\n  B = " << testutil::describe(b);
        }
        ++tally.manifolds;
        tally.most = std::max(tally.most, m->count);
    }
    std::printf("[ manifold ] %-6s %-46s %6ld manifolds, %6ld points on their features, %6ld checked inside the "
                "other shape, %4ld passed through it; %5ld reduced to 4, kept >= %.2Lf of the clipped area\n",
                testutil::scalar_name(T()), Family::name, tally.manifolds, tally.points.points,
                tally.points.inside_checked, tally.points.pass_through, tally.selection.reduced,
                tally.selection.worst_area_ratio);
    EXPECT_GT(tally.manifolds, 0);
    // The reduction keeps a fair share of the clipped polygon: 38% in the worst case measured over all families
    // (most above 60%); a reduction that ignored spread would drop towards a sliver.
    EXPECT_GE(tally.selection.worst_area_ratio, 0.3L) << Family::name;
}

using testutil::ScalarNames;
using testutil::Scalars;

template <class T>
class ManifoldFamilies : public ::testing::Test {};
TYPED_TEST_SUITE(ManifoldFamilies, Scalars, ScalarNames);

TYPED_TEST(ManifoldFamilies, RandomGeneralPairs) { run_family<TypeParam, fam::RandomGeneral>(); }
TYPED_TEST(ManifoldFamilies, SharedOrientationParallelEdges) { run_family<TypeParam, fam::ParallelEdges>(); }
TYPED_TEST(ManifoldFamilies, ParallelEdgesAFewUlpsApart) { run_family<TypeParam, fam::ParallelEdgesOneUlpApart>(); }
TYPED_TEST(ManifoldFamilies, AxisAlignedPairs) { run_family<TypeParam, fam::AxisAligned>(); }
TYPED_TEST(ManifoldFamilies, NestedConcentricIdentical) { run_family<TypeParam, fam::NestedConcentric>(); }
TYPED_TEST(ManifoldFamilies, ZeroExtents) { run_family<TypeParam, fam::ZeroExtents>(); }
TYPED_TEST(ManifoldFamilies, FarFromOrigin) { run_family<TypeParam, fam::FarFromOrigin>(); }
TYPED_TEST(ManifoldFamilies, NearParallelAxes) { run_family<TypeParam, fam::NearParallel>(); }
TYPED_TEST(ManifoldFamilies, NearTouchingFaceFace) { run_family<TypeParam, fam::TouchFaceFace>(); }
TYPED_TEST(ManifoldFamilies, NearTouchingFaceEdge) { run_family<TypeParam, fam::TouchFaceEdge>(); }
TYPED_TEST(ManifoldFamilies, NearTouchingEdgeEdge) { run_family<TypeParam, fam::TouchEdgeEdge>(); }
TYPED_TEST(ManifoldFamilies, NearTouchingVertexFace) { run_family<TypeParam, fam::TouchVertexFace>(); }
TYPED_TEST(ManifoldFamilies, ExtremeAspectRatios) { run_family<TypeParam, fam::ExtremeAspect>(); }
TYPED_TEST(ManifoldFamilies, TinyAndHugeScales) { run_family<TypeParam, fam::Scales>(); }
TYPED_TEST(ManifoldFamilies, BoxTriangleRandom) { run_family<TypeParam, fam::TriRandom>(); }
TYPED_TEST(ManifoldFamilies, BoxTriangleTinyAndSliver) { run_family<TypeParam, fam::TriTinySliver>(); }
TYPED_TEST(ManifoldFamilies, BoxTriangleInsideAndPierced) { run_family<TypeParam, fam::TriInsidePierced>(); }
TYPED_TEST(ManifoldFamilies, BoxTriangleEdgeCrossingEdge) { run_family<TypeParam, fam::TriEdgeCrossing>(); }
TYPED_TEST(ManifoldFamilies, BoxTriangleFarFromOrigin) { run_family<TypeParam, fam::TriFar>(); }
TYPED_TEST(ManifoldFamilies, BoxTriangleDegenerate) { run_family<TypeParam, fam::TriDegenerate>(); }
TYPED_TEST(ManifoldFamilies, BoxTriangleNearTouchingFaceFace) { run_family<TypeParam, fam::TriTouchFaceFace>(); }
TYPED_TEST(ManifoldFamilies, BoxTriangleNearTouchingFaceEdge) { run_family<TypeParam, fam::TriTouchFaceEdge>(); }
TYPED_TEST(ManifoldFamilies, BoxTriangleNearTouchingEdgeEdge) { run_family<TypeParam, fam::TriTouchEdgeEdge>(); }
TYPED_TEST(ManifoldFamilies, BoxTriangleNearTouchingVertexFace) { run_family<TypeParam, fam::TriTouchVertexFace>(); }
TYPED_TEST(ManifoldFamilies, BoxTriangleNearParallelEdges) { run_family<TypeParam, fam::TriNearParallelEdges>(); }
TYPED_TEST(ManifoldFamilies, BoxTriangleExtremeAspectRatios) { run_family<TypeParam, fam::TriExtremeAspect>(); }
TYPED_TEST(ManifoldFamilies, BoxTriangleTinyAndHugeScales) { run_family<TypeParam, fam::TriScales>(); }

// --- Feature ids from one step to the next ---------------------------------------------------------------------

// Applies 200 small random motions to B that keep the touching features (translation up to `move` m, and a
// rotation up to `turn` rad about its centre, about `spin_axis` only when that is non-zero) and checks that the
// manifold keeps the same ids.
template <class Shape>
void expect_stable_ids(const Obb& a, const Shape& b, double move, double turn, glm::dvec3 spin_axis, std::uint64_t seed,
                       const char* what) {
    const auto first = tumble::collide_manifold(a, b);
    ASSERT_TRUE(first) << what;
    const auto want = ids_of(*first);
    Random rng(seed);
    int changed = 0;
    for (int k = 0; k < 200; ++k) {
        const glm::dvec3 shift = fam::random_dvec(rng, -move, move);
        const glm::dvec3 axis = spin_axis == glm::dvec3(0.0) ? testutil::random_unit(rng) : spin_axis;
        const glm::dmat3 rot = testutil::rotation_about_d(axis, rng.uniform(-turn, turn));
        Shape moved = b;
        if constexpr (std::is_same_v<Shape, Obb>) {
            moved.center = glm::vec3(glm::dvec3(b.center) + shift);
            moved.axes = glm::mat3(rot * glm::dmat3(b.axes));
        } else {
            const glm::dvec3 c = (glm::dvec3(b.a) + glm::dvec3(b.b) + glm::dvec3(b.c)) / 3.0;
            auto f = [&](const glm::vec3& p) { return glm::vec3(c + shift + rot * (glm::dvec3(p) - c)); };
            moved = {f(b.a), f(b.b), f(b.c)};
        }
        const auto m = tumble::collide_manifold(a, moved);
        ASSERT_TRUE(m) << what << ", motion " << k;
        if (ids_of(*m) != want) {
            if (++changed <= 3)
                ADD_FAILURE() << what << ", motion " << k << ": ids " << show_ids(ids_of(*m)) << "instead of " << show_ids(want);
        }
    }
    EXPECT_EQ(changed, 0) << what;
}

TEST(ManifoldFeatureIds, StayWhileTheTouchingFeaturesStay) {
    const glm::dvec3 any(0.0), up(0, 1, 0);
    // Resting box on a bigger box: four corners, also when it tilts a little.
    const Obb big{{0, -1, 0}, glm::mat3(1.0f), {3, 1, 3}};
    const Obb small{{0.5f, 0.49f, -0.25f}, testutil::rotation_about({0, 1, 0}, 0.3), glm::vec3(0.5f)};
    expect_stable_ids(big, small, 1e-3, 1e-3, any, 1, "box on a bigger box");
    // Equal boxes turned 30 degrees: an octagon reduced to four points. A tilt would make an edge axis the least
    // (by ~0.17 tilt * size: see docs/narrowphase.md), so the motions slide and turn the box about the vertical.
    const Obb lower{{0, -0.5f, 0}, glm::mat3(1.0f), glm::vec3(0.5f)};
    const Obb upper{{0.05f, 0.48f, 0.02f}, testutil::rotation_about({0, 1, 0}, 0.5235987755982988), glm::vec3(0.5f)};
    expect_stable_ids(lower, upper, 1e-3, 1e-3, up, 2, "equal boxes at 30 degrees");
    // Crossing edges.
    const Obb ea{glm::vec3(0.0f), testutil::rotation_about({0, 0, 1}, 0.7853981633974483), glm::vec3(1.0f)};
    const Obb eb{glm::vec3(2.0f * std::sqrt(2.0f) - 0.1f, 0.0f, 0.0f), testutil::rotation_about({0, 1, 0}, 0.7853981633974483),
                 glm::vec3(1.0f)};
    expect_stable_ids(ea, eb, 1e-3, 1e-3, any, 3, "crossing edges");
    // A box on a floor triangle, and a small triangle on a box face (the triangle moves).
    const Obb box{{0.3f, 0.245f, -0.2f}, testutil::rotation_about({0, 1, 0}, 0.4), glm::vec3(0.25f)};
    expect_stable_ids(box, Triangle{{-5, 0, 5}, {5, 0, 5}, {0, 0, -5}}, 1e-3, 1e-3, any, 4, "box on a floor triangle");
    const Obb cube{glm::vec3(0.0f), glm::mat3(1.0f), glm::vec3(1.0f)};
    expect_stable_ids(cube, Triangle{{0.2f, 0.99f, 0.1f}, {-0.3f, 0.99f, 0.4f}, {0.1f, 0.99f, -0.5f}}, 1e-3, 1e-3, any, 5,
                      "triangle on a box face");
    // A triangle edge dipping 0.035 m into the box's edge at x = y = 1.
    expect_stable_ids(cube, Triangle{{0.9f, 1.05f, -2.0f}, {1.05f, 0.9f, 2.0f}, {3.0f, 3.0f, 0.0f}}, 1e-3, 1e-3, any, 6,
                      "triangle edge across a box edge");
}

TEST(ManifoldFeatureIds, ChangeWhenOtherFeaturesTouch) {
    // Turning the resting box upside down (other corners at the bottom) or sliding it over the big box's edge
    // (clipped corners) gives other ids.
    const Obb big{{0, -1, 0}, glm::mat3(1.0f), {3, 1, 3}};
    Obb small{{0.5f, 0.49f, -0.25f}, testutil::rotation_about({0, 1, 0}, 0.3), glm::vec3(0.5f)};
    const auto before = ids_of(*tumble::collide_manifold(big, small));
    Obb flipped = small;
    flipped.axes = glm::mat3(testutil::rotation_about_d({1, 0, 0}, 3.141592653589793) * glm::dmat3(small.axes));
    EXPECT_NE(ids_of(*tumble::collide_manifold(big, flipped)), before);
    Obb overhanging = small;
    overhanging.center.x = 3.1f;
    const auto over = tumble::collide_manifold(big, overhanging);
    ASSERT_TRUE(over);
    EXPECT_NE(ids_of(*over), before);
    bool clipped = false;
    for (int k = 0; k < over->count; ++k) clipped |= tumble::feature_a(over->points[static_cast<std::size_t>(k)].id) != box_face_feature(1, true);
    EXPECT_TRUE(clipped);
}

TEST(ManifoldFeatureIds, SameConfigurationAnywhereGivesTheSameIds) {
    // Frame invariance (Box2D's LargeWorldManifoldTest, in double): the same pair moved 1e6 m away and turned as a
    // whole keeps its ids, depths and point count.
    Random rng(77);
    int compared = 0;
    for (int k = 0; k < 6000; ++k) {
        const auto [a, b] = fam::TouchFaceFace::make<double>(rng);
        const auto m = tumble::collide_manifold(a, b);
        if (!m || m->depth < 1e-4) continue;
        const glm::dmat3 r = testutil::random_rotation<double>(rng);
        const glm::dvec3 shift = testutil::random_unit(rng) * 1e6;
        auto move = [&](ObbD o) {
            o.center = r * o.center + shift;
            o.axes = r * o.axes;
            return o;
        };
        const auto n = tumble::collide_manifold(move(a), move(b));
        ASSERT_TRUE(n) << k;
        ASSERT_EQ(n->count, m->count) << k;
        std::set<std::uint32_t> x, y;
        for (int j = 0; j < m->count; ++j) {
            x.insert(m->points[static_cast<std::size_t>(j)].id);
            y.insert(n->points[static_cast<std::size_t>(j)].id);
        }
        EXPECT_EQ(x, y) << k;
        EXPECT_NEAR(n->depth, m->depth, 1e-9) << k;
        ++compared;
    }
    EXPECT_GT(compared, 1000);
}

}  // namespace
