// Position solver: the response rule (half the depth each, all of it against static geometry), iteration to
// separation, one-sided mesh contacts and friction bounds.

#include <vector>

#include <gtest/gtest.h>

#include <tumble/error.hpp>
#include <tumble/narrowphase/sat.hpp>
#include <tumble/solver/position_solver.hpp>

#include "support/test_util.hpp"

namespace {

using tumble::BodyPairRef;
using tumble::SolverBody;
using tumble::SolverSettings;
using tumble::TriangleRef;

SolverBody body(glm::vec3 p, glm::mat3 axes = glm::mat3(1.0f), glm::vec3 h = glm::vec3(0.5f), bool dynamic = true) {
    SolverBody b;
    b.position = b.start_position = p;
    b.axes = axes;
    b.half_extents = h;
    b.dynamic = dynamic;
    return b;
}

SolverSettings one_iteration() {
    SolverSettings s;
    s.iterations = 1;
    return s;
}

TEST(PositionSolver, EachBodyMovesHalfTheDepth) {
    testutil::Random rng(1);
    int tested = 0;
    for (int k = 0; k < 500; ++k) {
        std::vector<SolverBody> bodies{body(rng.vec(-0.3, 0.3), rng.rotation_matrix(), rng.vec(0.2, 0.6)),
                                       body(rng.vec(-0.3, 0.3), rng.rotation_matrix(), rng.vec(0.2, 0.6))};
        const auto c = tumble::collide(bodies[0].obb(), bodies[1].obb());
        if (!c || c->depth <= 0) continue;
        ++tested;
        const glm::vec3 a0 = bodies[0].position, b0 = bodies[1].position;
        const std::vector<BodyPairRef> pairs{{0, 1}};
        tumble::PositionSolver solver;
        solver.solve(bodies, pairs, {}, one_iteration());
        // Along the normal by exactly half the depth each (up to float rounding of the positions).
        const glm::vec3 da = bodies[0].position - a0, db = bodies[1].position - b0;
        EXPECT_NEAR(glm::length(da - (-0.5f * c->depth) * c->normal), 0.0f, 1e-6f) << k;
        EXPECT_NEAR(glm::length(db - (0.5f * c->depth) * c->normal), 0.0f, 1e-6f) << k;
        // And then they touch: the depth left is ~0.
        const auto after = tumble::collide(bodies[0].obb(), bodies[1].obb());
        if (after) {
            EXPECT_LT(after->depth, 1e-5f) << k;
        }
    }
    EXPECT_GT(tested, 100);
}

TEST(PositionSolver, StaticSideGivesTheWholeDepthToTheDynamicBody) {
    std::vector<SolverBody> bodies{body({0, 0, 0}, glm::mat3(1.0f), glm::vec3(5, 0.5f, 5), false), body({0.3f, 0.9f, 0.1f})};
    const std::vector<BodyPairRef> pairs{{0, 1}};
    tumble::PositionSolver solver;
    solver.solve(bodies, pairs, {}, one_iteration());
    EXPECT_EQ(bodies[0].position, glm::vec3(0, 0, 0));
    EXPECT_NEAR(bodies[1].position.y, 1.0f, 1e-6f);  // pushed up by the whole 0.1
    EXPECT_NEAR(bodies[1].position.x, 0.3f, 1e-6f);

    // Against a triangle too.
    std::vector<SolverBody> one{body({0, 0.4f, 0})};
    const std::vector<TriangleRef> tris{{0, {{-5, 0, 5}, {5, 0, 5}, {0, 0, -5}}}};
    solver.solve(one, {}, tris, one_iteration());
    EXPECT_NEAR(one[0].position.y, 0.5f, 1e-6f);
}

TEST(PositionSolver, IterationsSeparateAPile) {
    // Five boxes dropped into each other on a static floor. Gauss-Seidel projection converges: more iterations leave
    // less penetration, and enough of them leave none to speak of.
    auto deepest_after = [](int iterations) {
        testutil::Random rng(2);
        std::vector<SolverBody> bodies{body({0, -0.5f, 0}, glm::mat3(1.0f), glm::vec3(10, 0.5f, 10), false)};
        for (int i = 0; i < 5; ++i)
            bodies.push_back(body({rng.uniformf(-0.2, 0.2), 0.3f + 0.8f * static_cast<float>(i), rng.uniformf(-0.2, 0.2)},
                                  testutil::rotation_about({0, 1, 0}, rng.uniform(0, 3)), glm::vec3(0.5f)));
        std::vector<BodyPairRef> pairs;
        for (std::uint32_t a = 0; a < bodies.size(); ++a)
            for (std::uint32_t b = a + 1; b < bodies.size(); ++b) pairs.push_back({a, b});
        SolverSettings s;
        s.iterations = iterations;
        tumble::PositionSolver solver;
        solver.solve(bodies, pairs, {}, s);
        float deepest = 0.0f;
        for (const BodyPairRef& p : pairs)
            if (const auto c = tumble::collide(bodies[p.a].obb(), bodies[p.b].obb())) deepest = std::max(deepest, c->depth);
        return deepest;
    };
    const float d1 = deepest_after(1), d10 = deepest_after(10), d50 = deepest_after(50), d400 = deepest_after(400);
    EXPECT_GT(d1, 0.05f);
    EXPECT_LT(d10, d1);
    EXPECT_LT(d50, d10);
    EXPECT_LT(d400, d50);
    EXPECT_LT(d400, 1e-5f);
}

TEST(MeshContact, OneSidedTriangles) {
    const tumble::Triangle floor{{-5, 0, 5}, {5, 0, 5}, {0, 0, -5}};  // front face +y
    const tumble::Obb box{{0, 0.3f, 0}, glm::mat3(1.0f), glm::vec3(0.5f)};

    // In front: pushed up through the front face by 0.2.
    auto c = tumble::mesh_contact(box, floor, box.center);
    ASSERT_TRUE(c);
    EXPECT_NEAR(c->depth, 0.2f, 1e-6f);
    EXPECT_NEAR(c->normal.y, -1.0f, 1e-6f);

    // Behind the plane now and at the start of the step: the triangle is ignored.
    tumble::Obb below = box;
    below.center.y = -0.3f;
    EXPECT_TRUE(tumble::collide(below, floor));  // the two-sided SAT sees an overlap
    EXPECT_FALSE(tumble::mesh_contact(below, floor, below.center));

    // The centre crossed the plane during the step (in front at the start): the least axis would push the box down
    // out of the back (0.45 < 0.55); the one-sided rule pushes it up by 0.55 instead.
    tumble::Obb crossed = box;
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
    const tumble::Triangle wall{{1, -5, 5}, {1, 5, 0}, {1, -5, -5}};  // front face -x, plane x = 1
    ASSERT_LT(wall.scaled_normal().x, 0.0f);
    tumble::Obb near_wall{{0.6f, 0, 0}, glm::mat3(1.0f), glm::vec3(0.5f)};
    c = tumble::mesh_contact(near_wall, wall, near_wall.center);
    ASSERT_TRUE(c);
    EXPECT_NEAR(c->normal.x, 1.0f, 1e-6f);
    EXPECT_NEAR(c->depth, 0.1f, 1e-6f);
}

TEST(PositionSolver, FrictionIsBoundedByTheNormalCorrection) {
    // A box on a static floor that slid 1 cm sideways and sank 1 mm this step: static friction 0.6 allows 0.6 mm of
    // slip to be held, so it is dynamic: at most 0.4 * 1 mm of the slip is removed.
    std::vector<SolverBody> bodies{body({0, -0.5f, 0}, glm::mat3(1.0f), glm::vec3(10, 0.5f, 10), false), body({0, 0.5f, 0})};
    bodies[1].position = {0.01f, 0.499f, 0};
    const std::vector<BodyPairRef> pairs{{0, 1}};
    tumble::PositionSolver solver;
    solver.solve(bodies, pairs, {}, one_iteration());
    EXPECT_NEAR(bodies[1].position.y, 0.5f, 1e-6f);
    EXPECT_NEAR(bodies[1].position.x, 0.01f - 0.4f * 0.001f, 1e-6f);

    // Slip below the static bound is undone completely.
    bodies[1].start_position = {0, 0.5f, 0};
    bodies[1].position = {0.0005f, 0.499f, 0};
    solver.solve(bodies, pairs, {}, one_iteration());
    EXPECT_NEAR(bodies[1].position.x, 0.0f, 1e-7f);
}

TEST(SolverSettings, Validation) {
    SolverSettings s;
    EXPECT_NO_THROW(tumble::validate(s));
    s.iterations = 0;
    EXPECT_THROW(tumble::validate(s), tumble::InvalidArgument);
    s = {};
    s.static_friction = -1;
    EXPECT_THROW(tumble::validate(s), tumble::InvalidArgument);
    s = {};
    s.dynamic_friction = std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW(tumble::validate(s), tumble::InvalidArgument);
}

}  // namespace
