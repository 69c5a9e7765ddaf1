// Speculative manifolds (shapes within a margin) against the long-double reference SAT, face manifolds, and the
// contact policies for static geometry (one-sided mesh triangles, internal faces of flush static boxes).

#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include <tumble/narrowphase/contact_policy.hpp>
#include <tumble/narrowphase/manifold.hpp>
#include <tumble/narrowphase/sat.hpp>

#include "support/sat_reference.hpp"
#include "support/test_util.hpp"

namespace {

using tumble::Obb;
using tumble::Triangle;

// Signed distance of p from the surface of box b (negative inside), in double.
double box_distance(const Obb& b, const glm::vec3& p) {
    const glm::dvec3 d = glm::dvec3(p) - glm::dvec3(b.center);
    glm::dvec3 q;
    for (int i = 0; i < 3; ++i) q[i] = std::abs(glm::dot(d, glm::dvec3(b.axes[i]))) - b.half_extents[i];
    const glm::dvec3 outside = glm::max(q, glm::dvec3(0.0));
    return glm::length(outside) + std::min(std::max({q.x, q.y, q.z}), 0.0);
}

// Distance of p from the triangle's plane (the points of a box-triangle manifold lie on the triangle's plane or on
// its edges).
double triangle_plane_distance(const Triangle& t, const glm::vec3& p) {
    const glm::dvec3 n = glm::normalize(glm::dvec3(t.scaled_normal()));
    return std::abs(glm::dot(glm::dvec3(p) - glm::dvec3(t.a), n));
}

// What every manifold point satisfies (manifold.hpp): point_b lies on B (`on_b` gives its distance from B's surface,
// or from the triangle's plane), and the depth is the normal component of point_a - point_b. For a face axis the
// two points differ along the normal only, and the points kept lie within the margin; for an edge axis the closest
// points of two segments may sit at a segment's end, off the common perpendicular.
template <class OnB>
void check_points(const tumble::Manifold& m, bool face_axis, float margin, int k, OnB on_b) {
    for (int p = 0; p < m.count; ++p) {
        const tumble::ManifoldPoint& q = m.points[static_cast<std::size_t>(p)];
        EXPECT_NEAR(on_b(q.point_b), 0.0, 2e-5) << k;
        EXPECT_NEAR(glm::dot(q.point_a - q.point_b, m.normal), q.depth, 2e-5f) << k;
        if (face_axis && m.count > 1) {
            EXPECT_NEAR(glm::length((q.point_a - q.point_b) - q.depth * m.normal), 0.0f, 2e-5f) << k;
            EXPECT_GE(q.depth, -margin - 1e-5f) << k;
        }
    }
}

TEST(SpeculativeManifold, BoxPairsWithinTheMarginAgainstTheReference) {
    // For random box pairs near each other: no manifold when the reference's greatest separation over the 15 axes
    // is more than the margin (pairs within 1e-5 of the boundary are not judged), always one for overlapping pairs,
    // and for pairs apart within the margin one whose depth is minus that separation, unless the faces along that
    // axis do not face each other (no point over the reference face: a few per cent of such pairs). The depth is the
    // least over the axes plus at most the speculative face preference (kSpeculativeFaceBias of the size). Points lie
    // on the two surfaces (check_points).
    testutil::Random rng(11);
    const float margin = 0.1f;
    int apart = 0, overlapping = 0, none = 0, beside = 0;
    for (int k = 0; k < 4000; ++k) {
        const Obb a{rng.vec(-0.2, 0.2), glm::mat3_cast(rng.rotation()), rng.vec(0.05, 0.5)};
        const Obb b{rng.vec(-1.0, 1.0), glm::mat3_cast(rng.rotation()), rng.vec(0.05, 0.5)};
        const ref::Result r = ref::box_box(a, b);
        const double gap = r.separated ? static_cast<double>(r.gap) : 0.0;
        if (std::abs(gap - margin) < 1e-5) continue;
        const auto m = tumble::collide_manifold(a, b, margin);
        if (gap > margin) {
            EXPECT_FALSE(m) << k << " gap " << gap;
            ++none;
            continue;
        }
        if (r.separated && !m) {
            ++beside;
            continue;
        }
        ASSERT_TRUE(m) << k << " gap " << gap;
        // The least (signed) overlap over the axes, and what the speculative face preference may add to it.
        const double least = r.separated ? -gap : static_cast<double>(r.min_depth);
        const double bias = tumble::kSpeculativeFaceBias * std::max({a.half_extents.x, a.half_extents.y, a.half_extents.z,
                                                                     b.half_extents.x, b.half_extents.y, b.half_extents.z});
        EXPECT_GE(m->depth, least - 1e-5) << k;
        EXPECT_LE(m->depth, least + bias + 1e-5) << k;
        if (r.separated) {
            ++apart;
        } else {
            ++overlapping;
            // collide()'s contact, or a face axis the speculative preference took over collide()'s edge axis.
            const auto c = tumble::collide(a, b);
            ASSERT_TRUE(c);
            if (m->axis != c->axis) {
                EXPECT_LT(m->axis, 6) << k;
                EXPECT_GE(c->axis, 6) << k;
            } else {
                EXPECT_EQ(m->normal, c->normal) << k;
                EXPECT_EQ(m->depth, c->depth) << k;
            }
        }
        ASSERT_GE(m->count, 1);
        check_points(*m, m->axis < 6, margin, k, [&](const glm::vec3& p) { return box_distance(b, p); });
        for (int p = 0; p < m->count; ++p)
            EXPECT_NEAR(box_distance(a, m->points[static_cast<std::size_t>(p)].point_a), 0.0, 2e-5) << k;
    }
    std::printf("[ spec     ] %d pairs apart within 0.1 m (and %d with no face over the other), %d overlapping, %d farther "
                "(no manifold)\n", apart, beside, overlapping, none);
    EXPECT_GT(apart, 300);
    EXPECT_LT(beside, apart / 10);
    EXPECT_GT(overlapping, 300);
    EXPECT_GT(none, 300);
}

TEST(SpeculativeManifold, BoxTrianglePairsWithinTheMarginAgainstTheReference) {
    testutil::Random rng(12);
    const float margin = 0.1f;
    int apart = 0, none = 0;
    for (int k = 0; k < 4000; ++k) {
        const Obb a{rng.vec(-0.2, 0.2), glm::mat3_cast(rng.rotation()), rng.vec(0.05, 0.5)};
        const Triangle t{rng.vec(-1.0, 1.0), rng.vec(-1.0, 1.0), rng.vec(-1.0, 1.0)};
        if (glm::length(t.scaled_normal()) < 0.05f) continue;
        const ref::Result r = ref::box_triangle(a, t);
        const double gap = r.separated ? static_cast<double>(r.gap) : 0.0;
        if (std::abs(gap - margin) < 1e-5) continue;
        const auto m = tumble::collide_manifold(a, t, margin);
        if (gap > margin) {
            EXPECT_FALSE(m) << k;
            ++none;
            continue;
        }
        if (r.separated && !m) continue;  // the faces along the axis do not face each other
        ASSERT_TRUE(m) << k;
        if (!r.separated) continue;
        ++apart;
        const double bias = tumble::kSpeculativeFaceBias * static_cast<double>(r.size);
        EXPECT_GE(m->depth, -gap - 1e-5) << k;
        EXPECT_LE(m->depth, -gap + bias + 1e-5) << k;
        check_points(*m, m->axis < 4, margin, k, [&](const glm::vec3& p) { return triangle_plane_distance(t, p); });
        for (int p = 0; p < m->count; ++p)
            EXPECT_NEAR(box_distance(a, m->points[static_cast<std::size_t>(p)].point_a), 0.0, 2e-5) << k;
    }
    EXPECT_GT(apart, 200);
    EXPECT_GT(none, 200);
}

TEST(SpeculativeManifold, ZeroMarginIsThePlainManifoldAndSquareFacesGiveFourPoints) {
    testutil::Random rng(13);
    for (int k = 0; k < 500; ++k) {
        const Obb a{rng.vec(-0.2, 0.2), glm::mat3_cast(rng.rotation()), rng.vec(0.05, 0.5)};
        const Obb b{rng.vec(-0.6, 0.6), glm::mat3_cast(rng.rotation()), rng.vec(0.05, 0.5)};
        const auto plain = tumble::collide_manifold(a, b), zero = tumble::collide_manifold(a, b, 0.0f);
        ASSERT_EQ(plain.has_value(), zero.has_value());
        if (plain) {
            EXPECT_EQ(plain->count, zero->count);
            EXPECT_EQ(plain->depth, zero->depth);
        }
    }
    // Two aligned cubes 8 cm apart face to face: the face axis, not an edge axis along the same direction (a
    // negative depth must not flip the face bias), and the four corners of the facing square.
    const Obb a{{0, 0, 0}, glm::mat3(1.0f), glm::vec3(0.25f)}, b{{0.58f, 0, 0}, glm::mat3(1.0f), glm::vec3(0.25f)};
    const auto m = tumble::collide_manifold(a, b, 0.2f);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->axis, 0);
    EXPECT_EQ(m->count, 4);
    EXPECT_NEAR(m->depth, -0.08f, 1e-6f);
}

TEST(FaceManifold, AChosenFaceAxisGivesItsNormalAndDepth) {
    // Box B resting on A's top face but offset: SAT picks the top face; forcing A's +x face gives the overlap along x.
    const Obb a{{0, 0, 0}, glm::mat3(1.0f), glm::vec3(0.5f)}, b{{0.7f, 0.95f, 0}, glm::mat3(1.0f), glm::vec3(0.5f)};
    const auto top = tumble::face_manifold(a, b, 1, false, 0.0f);
    ASSERT_TRUE(top);
    EXPECT_NEAR(top->depth, 0.05f, 1e-6f);
    EXPECT_EQ(top->normal, glm::vec3(0, 1, 0));
    const auto side = tumble::face_manifold(a, b, 0, false, 0.0f);
    ASSERT_TRUE(side);
    EXPECT_NEAR(side->depth, 0.3f, 1e-6f);  // B must move 0.3 along +x to clear A
    EXPECT_EQ(side->normal, glm::vec3(1, 0, 0));
    // The other way along x needs 1.7; a gap beyond the margin along a face gives nothing; not a face axis: nothing.
    EXPECT_NEAR(tumble::face_manifold(a, b, 0, true, 0.0f)->depth, 1.7f, 1e-6f);
    EXPECT_FALSE(tumble::face_manifold(a, Obb{{0, 2.0f, 0}, glm::mat3(1.0f), glm::vec3(0.5f)}, 1, false, 0.5f));
    EXPECT_TRUE(tumble::face_manifold(a, Obb{{0, 1.4f, 0}, glm::mat3(1.0f), glm::vec3(0.5f)}, 1, false, 0.5f));
    EXPECT_FALSE(tumble::face_manifold(a, b, 7, false, 0.0f));
}

TEST(MeshContact, OneSidedTriangles) {
    const Triangle floor{{-5, 0, 5}, {5, 0, 5}, {0, 0, -5}};  // front face +y
    const Obb box{{0, 0.3f, 0}, glm::mat3(1.0f), glm::vec3(0.5f)};

    // In front: pushed up through the front face by 0.2.
    auto c = tumble::mesh_contact(box, floor, box.center);
    ASSERT_TRUE(c);
    EXPECT_NEAR(c->depth, 0.2f, 1e-6f);
    EXPECT_NEAR(c->normal.y, -1.0f, 1e-6f);

    // Behind the plane now and at the start of the step: the triangle is ignored.
    Obb below = box;
    below.center.y = -0.3f;
    EXPECT_TRUE(tumble::collide(below, floor));  // the two-sided SAT sees an overlap
    EXPECT_FALSE(tumble::mesh_contact(below, floor, below.center));
    EXPECT_FALSE(tumble::mesh_manifold(below, floor, below.center, tumble::kAllEdgesActive, 0.1f));

    // The centre crossed the plane during the step (in front at the start): the least axis would push the box down
    // out of the back (0.45 < 0.55); the one-sided rule pushes it up by 0.55 instead.
    Obb crossed = box;
    crossed.center.y = -0.05f;
    const auto sat = tumble::collide(crossed, floor);
    ASSERT_TRUE(sat);
    EXPECT_GT(sat->normal.y, 0.0f);  // exact SAT: box goes down
    c = tumble::mesh_contact(crossed, floor, {0, 0.6f, 0});
    ASSERT_TRUE(c);
    EXPECT_EQ(c->axis, 3);
    EXPECT_NEAR(c->depth, 0.55f, 1e-6f);
    EXPECT_NEAR(c->normal.y, -1.0f, 1e-6f);

    // A sideways push stays a sideways push (box against a wall edge from the front).
    const Triangle wall{{1, -5, 5}, {1, 5, 0}, {1, -5, -5}};  // front face -x, plane x = 1
    ASSERT_LT(wall.scaled_normal().x, 0.0f);
    Obb near_wall{{0.6f, 0, 0}, glm::mat3(1.0f), glm::vec3(0.5f)};
    c = tumble::mesh_contact(near_wall, wall, near_wall.center);
    ASSERT_TRUE(c);
    EXPECT_NEAR(c->normal.x, 1.0f, 1e-6f);
    EXPECT_NEAR(c->depth, 0.1f, 1e-6f);
}

TEST(MeshManifold, AFloorBelowAFallingBoxIsASpeculativeFaceContact) {
    // A box 5 cm above a floor triangle, margin 10 cm: four points on its bottom face, 5 cm apart, normal down.
    const Triangle floor{{-5, 0, 5}, {5, 0, 5}, {0, 0, -5}};
    const Obb box{{0, 0.55f, 0}, glm::mat3(1.0f), glm::vec3(0.5f)};
    const auto m = tumble::mesh_manifold(box, floor, box.center, tumble::kAllEdgesActive, 0.1f);
    ASSERT_TRUE(m);
    EXPECT_NEAR(m->normal.y, -1.0f, 1e-6f);
    EXPECT_EQ(m->count, 4);
    for (int k = 0; k < m->count; ++k) EXPECT_NEAR(m->points[static_cast<std::size_t>(k)].depth, -0.05f, 1e-6f);
    EXPECT_FALSE(tumble::mesh_manifold(box, floor, box.center, tumble::kAllEdgesActive, 0.04f));
}

TEST(MeshManifold, ABoxBesideAWallIsNotThrownThroughItsPlane) {
    // Regression: a box beside the end of a wall (its centre in front of the wall's plane, the box beside the
    // triangle rather than over it). When the rule replaces the SAT's contact by the wall's face normal (here
    // because the wall's edges are seams), the face clipping finds no point over the triangle, and its fallback, the
    // box's deepest corner, lies far behind the wall's plane. That point was kept and threw boxes out of a real level
    // at 100 m/s. Points outside the triangle are dropped, so nothing pushes the box through the plane.
    const Triangle wall{{0, 0, 0}, {0, 3, 0}, {-3, 0, 0}};  // plane z = 0, front +z, x <= 0
    ASSERT_GT(wall.scaled_normal().z, 0.0f);
    const glm::mat3 turned = glm::mat3_cast(glm::angleAxis(0.6f, glm::vec3(0, 1, 0)));
    const Obb box{{0.7f, 0.5f, 0.1f}, turned, {0.4f, 0.5f, 0.4f}};  // past the wall's end, centre in front
    ASSERT_FALSE(tumble::collide(box, wall));
    // What the replacement alone gives: a point deep behind the plane, beside the triangle.
    const auto face = tumble::face_manifold(box, wall, 3, true, 0.2f);
    ASSERT_TRUE(face);
    float deepest = -1.0f;
    for (int k = 0; k < face->count; ++k) deepest = std::max(deepest, face->points[static_cast<std::size_t>(k)].depth);
    EXPECT_GT(deepest, 0.3f);
    // What the policy gives: nothing, or only points over the triangle.
    const auto m = tumble::mesh_manifold(box, wall, box.center, tumble::EdgeFlags{0}, 0.2f);
    if (m) {
        for (int k = 0; k < m->count; ++k) {
            const tumble::ManifoldPoint& p = m->points[static_cast<std::size_t>(k)];
            EXPECT_LT(p.depth, 0.0f) << "the box does not overlap the wall";
            EXPECT_LE(p.point_b.x, 1e-4f) << "a point beside the triangle";
        }
    }
}

TEST(MeshManifold, APlateLyingTiltedAcrossAStepEdgeRestsOnTheEdgeAtBothEnds) {
    // Regression: a thin plate lying across the edge of a step, tilted 6 degrees towards the step and sunk 4 cm into
    // the floor above it (as a 3e4-box pile left one in a real level). The SAT's least overlap is an edge-edge axis
    // (a long edge of the plate across the step edge): the face axis measures the whole floor triangle, whose far
    // corners lie deeper along the tilted face normal than the edge does. One edge-edge point cannot hold a face on
    // an edge: the plate rocked about it, the point jumping from one end of the edge to the other, and it never
    // slept. The policy replaces it by the plate's bottom face clipped to the triangle: the step edge at both ends
    // under the plate, and the floor below the face.
    const Triangle floor{{0, 0, -2}, {0, 0, 2}, {2, 0, 2}};  // y = 0, front +y; the step edge is x = 0
    ASSERT_GT(floor.scaled_normal().y, 0.0f);
    const glm::quat q = glm::angleAxis(0.11f, glm::vec3(0, 0, 1)) * glm::angleAxis(0.01f, glm::vec3(1, 0, 0)) *
                        glm::angleAxis(0.35f, glm::vec3(0, 1, 0));
    const glm::mat3 axes = glm::mat3_cast(q);
    const glm::vec3 he(0.155f, 0.034f, 0.158f);  // thin along its y axis
    const glm::vec3 up = axes[1];                // the plate's top face normal
    // The centre 5.5 cm past the edge, and low enough that the edge's point (0, 0, 0) lies 4 cm above the bottom face.
    const float embed = 0.04f;
    const glm::vec3 centre(0.055f, -(embed - he.y + 0.055f * up.x) / up.y, 0.0f);
    const Obb plate{centre, axes, he};
    const auto sat = tumble::collide(plate, floor);
    ASSERT_TRUE(sat);
    ASSERT_GE(sat->axis, 4) << "the case needs the SAT to pick an edge-edge axis";
    const auto m = tumble::mesh_manifold(plate, floor, plate.center, tumble::kAllEdgesActive, 0.02f);
    ASSERT_TRUE(m);
    EXPECT_GE(m->count, 2) << "one point cannot hold a face lying on an edge";
    // The normal is the bottom face's, out of the plate towards the floor.
    EXPECT_NEAR(glm::dot(glm::dvec3(m->normal), -glm::dvec3(up)), 1.0, 1e-6);
    // Every point lies on the floor's plane, not past the step edge, at the depth it has above the plate's bottom face
    // (worked out here from the plate's pose, in double); two of them are the step edge's ends under the plate.
    float edge_low = 1.0f, edge_high = -1.0f;
    for (int k = 0; k < m->count; ++k) {
        const tumble::ManifoldPoint& p = m->points[static_cast<std::size_t>(k)];
        EXPECT_NEAR(triangle_plane_distance(floor, p.point_b), 0.0, 1e-6) << k;
        EXPECT_GE(p.point_b.x, -1e-5f) << k;
        const double above_bottom = glm::dot(glm::dvec3(p.point_b) - glm::dvec3(centre), glm::dvec3(up)) + he.y;
        EXPECT_NEAR(p.depth, above_bottom, 1e-5) << k;
        EXPECT_GT(p.depth, 0.0f) << k;
        if (std::abs(p.point_b.x) < 1e-5f) {
            edge_low = std::min(edge_low, p.point_b.z);
            edge_high = std::max(edge_high, p.point_b.z);
            EXPECT_NEAR(p.depth, embed + p.point_b.z * up.z, 1e-5) << k;  // on the edge (x = y = 0)
        }
    }
    EXPECT_GT(edge_high - edge_low, 0.2f) << "both ends of the edge under the plate";
}

TEST(BoxManifold, InternalFacesAreNeverPushedThrough) {
    // Two flush static boxes A | B (B covers A's +x face). A box sliding over the seam, slightly sunk: the SAT may
    // push it sideways out of A's +x face; box_manifold replaces that with A's top face.
    const Obb a{{0, 0, 0}, glm::mat3(1.0f), glm::vec3(0.5f)};
    const tumble::FaceFlags internal = 0b01;  // A's +x face
    const Obb slider{{0.59f, 0.98f, 0}, glm::mat3(1.0f), {0.1f, 0.5f, 0.1f}};  // 1 cm over the seam, 2 cm deep
    const auto plain = tumble::collide_manifold(a, slider, 0.05f);
    ASSERT_TRUE(plain);
    EXPECT_EQ(plain->normal, glm::vec3(1, 0, 0));  // the SAT alone pushes it sideways through the covered face
    const auto m = tumble::box_manifold(a, internal, slider, 0, 0.05f);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->normal, glm::vec3(0, 1, 0));
    EXPECT_NEAR(m->depth, 0.02f, 1e-6f);
    // Without internal faces it is the speculative manifold itself.
    const auto free = tumble::box_manifold(a, 0, slider, 0, 0.05f);
    ASSERT_TRUE(free);
    EXPECT_EQ(free->normal, plain->normal);
}

}  // namespace
