// The rigid-body solver on hand-built manifolds: the plain separating-axis response (half the depth each for equal
// masses that do not rotate), mass weighting, the generalized inverse mass of a turning body against a hand
// computation, conservation of momentum and angular momentum by contacts, Coulomb friction, and the settings'
// validation.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include <tumble/core/error.hpp>
#include <tumble/core/thread_pool.hpp>
#include <tumble/narrowphase/manifold.hpp>
#include <tumble/narrowphase/sat.hpp>
#include <tumble/solver/position_solver.hpp>

#include "support/test_util.hpp"

namespace {

using tumble::ContactManifold;
using tumble::Motion;
using tumble::SolverBody;
using tumble::SolverSettings;

constexpr float kDt = 1.0f / 60.0f;

SolverBody body(glm::vec3 p, glm::quat q, float mass, glm::vec3 half, bool turns) {
    SolverBody b;
    b.position = p;
    b.orientation = q;
    b.motion = mass > 0.0f ? Motion::dynamic : Motion::fixed;
    if (mass > 0.0f) {
        b.inverse_mass = 1.0f / mass;
        if (turns) b.inverse_inertia = 1.0f / tumble::box_inertia(mass, half);
    }
    return b;
}

// The solver's manifold for a narrowphase manifold of bodies a and b (b may be tumble::kStaticGeometry).
ContactManifold to_solver(const tumble::Manifold& m, const std::vector<SolverBody>& bodies, std::uint32_t a,
                          std::uint32_t b, float friction = 0.0f) {
    ContactManifold c;
    c.a = a;
    c.b = b;
    c.normal = m.normal;
    c.friction = friction;
    c.count = m.count;
    for (int k = 0; k < m.count; ++k) {
        const tumble::ManifoldPoint& p = m.points[static_cast<std::size_t>(k)];
        tumble::ContactPoint& q = c.points[static_cast<std::size_t>(k)];
        q.anchor_a = glm::conjugate(bodies[a].orientation) * (p.point_a - bodies[a].position);
        q.anchor_b = b == tumble::kStaticGeometry ? p.point_b
                                                  : glm::conjugate(bodies[b].orientation) * (p.point_b - bodies[b].position);
        q.friction_anchor_a = q.anchor_a;
        q.friction_anchor_b = q.anchor_b;
        q.separation = -p.depth;
        q.id = p.id;
    }
    return c;
}

// One substep, no gravity, no slop: a single exact projection of the contacts.
SolverSettings exact_projection() {
    SolverSettings s;
    s.substeps = 1;
    s.iterations = 1;
    s.slop = 0.0f;
    return s;
}

tumble::Obb obb(const SolverBody& b, glm::vec3 half) { return {b.position, glm::mat3_cast(b.orientation), half}; }

TEST(PositionSolver, EqualMassesThatDoNotRotateMoveHalfTheDepthEachAndStop) {
    // The plain separating-axis response: along the contact normal by half the depth each, then touching and at rest.
    testutil::Random rng(1);
    int tested = 0;
    for (int k = 0; k < 500; ++k) {
        const glm::vec3 ha = rng.vec(0.2, 0.6), hb = rng.vec(0.2, 0.6);
        std::vector<SolverBody> bodies{body(rng.vec(-0.3, 0.3), rng.rotation(), 2.0f, ha, false),
                                       body(rng.vec(-0.3, 0.3), rng.rotation(), 2.0f, hb, false)};
        const auto m = tumble::collide_manifold(obb(bodies[0], ha), obb(bodies[1], hb));
        if (!m || m->depth <= 0.01f) continue;
        ++tested;
        const glm::vec3 a0 = bodies[0].position, b0 = bodies[1].position;
        std::vector<ContactManifold> manifolds{to_solver(*m, bodies, 0, 1)};
        tumble::PositionSolver solver;
        solver.solve(bodies, manifolds, glm::vec3(0.0f), kDt, exact_projection());
        const glm::vec3 da = bodies[0].position - a0, db = bodies[1].position - b0;
        EXPECT_NEAR(glm::length(da - (-0.5f * m->depth) * m->normal), 0.0f, 2e-6f) << k;
        EXPECT_NEAR(glm::length(db - (0.5f * m->depth) * m->normal), 0.0f, 2e-6f) << k;
        const auto after = tumble::collide(obb(bodies[0], ha), obb(bodies[1], hb));
        if (after) {
            EXPECT_LT(after->depth, 1e-5f) << k;
        }
        // The push is not turned into a separating speed: the velocity pass leaves the pair at rest.
        EXPECT_LT(glm::length(bodies[0].velocity), 1e-3f) << k;
        EXPECT_LT(glm::length(bodies[1].velocity), 1e-3f) << k;
    }
    EXPECT_GT(tested, 100);
}

TEST(PositionSolver, MassesShareTheCorrectionInverselyAndAStaticSideTakesNone) {
    // m_a x_a + m_b x_b is unchanged by a contact: A moves m_b / (m_a + m_b) of the depth, B the rest; against a
    // static body A moves all of it.
    const glm::vec3 h(0.5f);
    for (const float mb : {1.0f, 3.0f, 0.0f}) {
        std::vector<SolverBody> bodies{body({0, 0, 0}, glm::quat(1, 0, 0, 0), 1.0f, h, false),
                                       body({0.9f, 0, 0}, glm::quat(1, 0, 0, 0), mb, h, false)};
        const auto m = tumble::collide_manifold(obb(bodies[0], h), obb(bodies[1], h));
        ASSERT_TRUE(m);
        std::vector<ContactManifold> manifolds{to_solver(*m, bodies, 0, 1)};
        tumble::PositionSolver solver;
        solver.solve(bodies, manifolds, glm::vec3(0.0f), kDt, exact_projection());
        const float share_a = mb == 0.0f ? 1.0f : mb / (1.0f + mb);
        EXPECT_NEAR(bodies[0].position.x, -0.1f * share_a, 1e-6f) << mb;
        EXPECT_NEAR(bodies[1].position.x, 0.9f + 0.1f * (1.0f - share_a), 1e-6f) << mb;
        EXPECT_NEAR(1.0f * bodies[0].velocity.x + mb * bodies[1].velocity.x, 0.0f, 1e-5f) << mb;
    }
}

TEST(PositionSolver, AnOffCentrePointMovesAndTurnsByItsGeneralizedInverseMass) {
    // One contact point at arm r from the centre of a free box, penetrating a static plane by d along n. The
    // positional impulse is d / w with w = 1/m + (r x n) . I^-1 (r x n) (Mueller et al. 2020, eq. 2); it moves the
    // centre by d n / (m w) and turns the box by I^-1 (r x n) d / w. Hand-computed for a box turned 20 degrees.
    const glm::vec3 h(0.4f, 0.2f, 0.3f);
    const float mass = 2.0f;
    const glm::quat q = glm::angleAxis(0.349066f, glm::normalize(glm::vec3(1, 2, 3)));
    std::vector<SolverBody> bodies{body({0, 1, 0}, q, mass, h, true)};
    const glm::vec3 n(0, -1, 0);  // from the box towards the plane below
    const glm::vec3 r = q * glm::vec3(0.4f, -0.2f, 0.3f);  // a corner
    const float d = 0.01f;
    ContactManifold c;
    c.a = 0;
    c.b = tumble::kStaticGeometry;
    c.normal = n;
    c.count = 1;
    c.points[0].anchor_a = glm::conjugate(q) * r;
    c.points[0].anchor_b = bodies[0].position + r + d * n * -1.0f;  // the plane point: the corner is d below it
    c.points[0].friction_anchor_a = c.points[0].anchor_a;
    c.points[0].friction_anchor_b = c.points[0].anchor_b;
    c.points[0].separation = -d;
    // Hand computation in double.
    const glm::dvec3 inertia = glm::dvec3(tumble::box_inertia(mass, h));
    const glm::dmat3 rot = glm::mat3_cast(glm::dquat(q));
    const glm::dmat3 inv_world = rot * glm::dmat3(1.0 / inertia.x, 0, 0, 0, 1.0 / inertia.y, 0, 0, 0, 1.0 / inertia.z) *
                                 glm::transpose(rot);
    const glm::dvec3 rn = glm::cross(glm::dvec3(r), glm::dvec3(n));
    const double w = 1.0 / mass + glm::dot(rn, inv_world * rn);
    const double lambda = d / w;  // the box is pushed along -n
    const glm::dvec3 dx = -glm::dvec3(n) * lambda / double(mass);
    const glm::dvec3 dtheta = inv_world * glm::cross(glm::dvec3(r), -glm::dvec3(n) * lambda);
    std::vector<ContactManifold> manifolds{c};
    tumble::PositionSolver solver;
    solver.solve(bodies, manifolds, glm::vec3(0.0f), kDt, exact_projection());
    // Second-order terms of the rotation (the corner moves on an arc, ~|dtheta|^2 |r|, and the per-manifold passes
    // take that up) make the result differ from the linear answer by about 1 %.
    EXPECT_NEAR(bodies[0].position.y - 1.0f, dx.y, 0.01 * std::abs(dx.y) + 1e-7);
    const glm::dquat turn = glm::dquat(bodies[0].orientation) * glm::conjugate(glm::dquat(q));
    const glm::dvec3 angle = 2.0 * glm::dvec3(turn.x, turn.y, turn.z) * (turn.w < 0 ? -1.0 : 1.0);
    EXPECT_NEAR(glm::length(angle - dtheta), 0.0, 0.02 * glm::length(dtheta));
    // And the corner ends on the plane: not below it, and above it by at most the arc its turn adds to the linear
    // prediction, |r| |dtheta|^2 / 2 (the contact is an inequality: an overshoot is not pulled back).
    const glm::vec3 corner = bodies[0].position + bodies[0].orientation * c.points[0].anchor_a;
    const double gap = glm::dot(c.points[0].anchor_b - corner, n);
    EXPECT_GE(gap, -1e-6);
    EXPECT_LE(gap, 0.5 * glm::length(glm::dvec3(r)) * glm::dot(dtheta, dtheta) + 1e-6);
}

// Total momentum and angular momentum about the origin of two boxes, in double.
void momenta(const std::vector<SolverBody>& bodies, const glm::vec3 half[2], glm::dvec3& p, glm::dvec3& l) {
    p = l = glm::dvec3(0.0);
    for (std::size_t i = 0; i < 2; ++i) {
        const SolverBody& b = bodies[i];
        const double mass = 1.0 / b.inverse_mass;
        const glm::dmat3 rot = glm::mat3_cast(glm::dquat(b.orientation));
        const glm::dvec3 inertia(tumble::box_inertia(static_cast<float>(mass), half[i]));
        const glm::dmat3 iw = rot * glm::dmat3(inertia.x, 0, 0, 0, inertia.y, 0, 0, 0, inertia.z) * glm::transpose(rot);
        p += mass * glm::dvec3(b.velocity);
        l += glm::cross(glm::dvec3(b.position), mass * glm::dvec3(b.velocity)) + iw * glm::dvec3(b.angular_velocity);
    }
}

TEST(PositionSolver, CollisionsConserveMomentumAndAngularMomentum) {
    // Two free boxes, turning, flying at each other from a few centimetres apart (a speculative manifold found at
    // the start of the step, as the engine does), colliding within the step: no gravity, no friction. The contacts'
    // impulses are equal and opposite and act at one point, so momentum is kept up to float round-off and angular
    // momentum about the origin to within what a positional correction of the penetration of one substep adds to
    // x x m v (see the bound below).
    testutil::Random rng(7);
    int collided = 0;
    double worst = 0.0;
    for (int k = 0; k < 400; ++k) {
        const glm::vec3 half[2] = {rng.vec(0.2, 0.6), rng.vec(0.2, 0.6)};
        const float ma = rng.uniformf(0.5, 5), mb = rng.uniformf(0.5, 5);
        std::vector<SolverBody> bodies{body({0, 0, 0}, rng.rotation(), ma, half[0], true),
                                       body(rng.unit() * 1.2f, rng.rotation(), mb, half[1], true)};
        const glm::vec3 towards = glm::normalize(bodies[1].position - bodies[0].position);
        bodies[0].velocity = towards * rng.uniformf(1, 3) + rng.vec(-0.5, 0.5);
        bodies[1].velocity = -towards * rng.uniformf(1, 3) + rng.vec(-0.5, 0.5);
        bodies[0].angular_velocity = rng.vec(-2, 2);
        bodies[1].angular_velocity = rng.vec(-2, 2);
        const auto m = tumble::collide_manifold(obb(bodies[0], half[0]), obb(bodies[1], half[1]), 0.2f);
        if (!m || m->depth > 0.0f || m->depth < -0.05f) continue;  // apart by up to what the step closes
        glm::dvec3 p0, l0, p1, l1;
        momenta(bodies, half, p0, l0);
        const std::vector<SolverBody> bodies_start = bodies;
        std::vector<ContactManifold> manifolds{to_solver(*m, bodies, 0, 1)};
        tumble::PositionSolver solver;
        SolverSettings s;
        s.slop = 0.0f;
        solver.solve(bodies, manifolds, glm::vec3(0.0f), kDt, s);
        float impulse = 0.0f;
        for (int p = 0; p < manifolds[0].count; ++p) impulse += manifolds[0].points[static_cast<std::size_t>(p)].normal_impulse;
        if (!(impulse > 0.0f)) continue;  // they missed each other within the step
        ++collided;
        momenta(bodies, half, p1, l1);
        // Float positions near 1 m (ulp 1.2e-7 m) turned into velocities over a substep of 1/480 s: 6e-5 m/s per
        // body and substep of round-off.
        EXPECT_NEAR(glm::length(p1 - p0) / (1.0 + glm::length(p0)), 0.0, 2e-4) << k;
        // The positional correction of a substep's penetration (at most the closing speed times h) moves a body
        // without the velocity that would have carried it there, changing x x m v by |dx| m |v|: bound it by the
        // closing motion of one substep times the larger momentum.
        const double h = static_cast<double>(kDt) / s.substeps;
        const double closing = glm::length(glm::dvec3(bodies_start[0].velocity - bodies_start[1].velocity)) +
                               2.0 * glm::length(glm::dvec3(bodies_start[0].angular_velocity - bodies_start[1].angular_velocity));
        const double bound = 2.0 * closing * h *
                             std::max(glm::length(glm::dvec3(bodies_start[0].velocity)) * ma,
                                      glm::length(glm::dvec3(bodies_start[1].velocity)) * mb);
        worst = std::max(worst, glm::length(l1 - l0) / bound);
        EXPECT_LE(glm::length(l1 - l0), bound) << k;
    }
    std::printf("[ momentum ] %d collisions: angular momentum changed by at most %.2f of the bound\n", collided, worst);
    EXPECT_GT(collided, 30);
}

TEST(PositionSolver, DeepOverlapsKeepTheMomentum) {
    // Boxes placed overlapping by up to their size are pushed apart in one step; the pushes are equal and opposite,
    // so the total momentum does not change (angular momentum is not checked here: see above).
    testutil::Random rng(8);
    int tested = 0;
    for (int k = 0; k < 200; ++k) {
        const glm::vec3 half[2] = {rng.vec(0.2, 0.6), rng.vec(0.2, 0.6)};
        std::vector<SolverBody> bodies{body(rng.vec(-0.3, 0.3), rng.rotation(), rng.uniformf(0.5, 5), half[0], true),
                                       body(rng.vec(-0.3, 0.3), rng.rotation(), rng.uniformf(0.5, 5), half[1], true)};
        for (SolverBody& b : bodies) {
            b.velocity = rng.vec(-2, 2);
            b.angular_velocity = rng.vec(-3, 3);
        }
        const auto m = tumble::collide_manifold(obb(bodies[0], half[0]), obb(bodies[1], half[1]));
        if (!m || m->depth <= 0.01f) continue;
        ++tested;
        glm::dvec3 p0, l0, p1, l1;
        momenta(bodies, half, p0, l0);
        std::vector<ContactManifold> manifolds{to_solver(*m, bodies, 0, 1)};
        tumble::PositionSolver solver;
        solver.solve(bodies, manifolds, glm::vec3(0.0f), kDt, SolverSettings{});
        momenta(bodies, half, p1, l1);
        // Corrections of up to ~0.5 m turned into velocities over 1/480 s: float round-off of ~200 m/s.
        EXPECT_NEAR(glm::length(p1 - p0) / (1.0 + glm::length(p0)), 0.0, 2e-4) << k;
    }
    EXPECT_GT(tested, 50);
}

TEST(PositionSolver, CoulombFrictionDeceleratesASlidingBoxAtMuG) {
    // A box sliding at 3 m/s on a static floor with friction 0.4 loses mu g dt of speed per step.
    const glm::vec3 h(0.5f);
    std::vector<SolverBody> bodies{body({0, 0.5f - 0.001f, 0}, glm::quat(1, 0, 0, 0), 1.0f, h, true)};
    bodies[0].velocity = {3.0f, 0.0f, 0.0f};
    tumble::PositionSolver solver;
    SolverSettings s;
    float speed = 3.0f;
    for (int step = 0; step < 20; ++step) {
        const tumble::Obb floor{{0, -0.5f, 0}, glm::mat3(1.0f), {50, 0.5f, 50}};
        const auto m = tumble::collide_manifold(floor, obb(bodies[0], h), 0.05f);
        ASSERT_TRUE(m);
        // The floor is A here: flip the manifold so that the box is A and the floor static geometry.
        ContactManifold c;
        c.a = 0;
        c.b = tumble::kStaticGeometry;
        c.normal = -m->normal;
        c.friction = 0.4f;
        c.count = m->count;
        for (int k = 0; k < m->count; ++k) {
            tumble::ContactPoint& q = c.points[static_cast<std::size_t>(k)];
            q.anchor_a = glm::conjugate(bodies[0].orientation) * (m->points[static_cast<std::size_t>(k)].point_b - bodies[0].position);
            q.anchor_b = m->points[static_cast<std::size_t>(k)].point_a;
            q.friction_anchor_a = q.anchor_a;
            q.friction_anchor_b = q.anchor_b;
            q.separation = -m->points[static_cast<std::size_t>(k)].depth;
        }
        std::vector<ContactManifold> manifolds{c};
        solver.solve(bodies, manifolds, {0, -9.81f, 0}, kDt, s);
        if (step == 4) speed = bodies[0].velocity.x;  // settled onto the floor
    }
    const float expected = speed - 0.4f * 9.81f * kDt * 15.0f;
    EXPECT_NEAR(bodies[0].velocity.x, expected, 0.02f * speed);
    EXPECT_LT(glm::length(bodies[0].angular_velocity), 1e-3f);
}

TEST(PositionSolver, APointBeyondItsReferenceFaceNeverEngagesOnlyWhenTheSidesAreGiven) {
    // A 1 m cube falling at 3 m/s onto the end of a face (world x <= 0), 1 cm above it, with one contact point over
    // the face (x = -0.3) and one beyond its end (x = +0.3), both apart when found. With the face's side planes
    // (ContactSides) the point beyond never pushes: the cube lands on one corner and turns about z. Without them
    // (an empty span) both points push alike and it does not turn. Run with the face on static geometry (world
    // frame, the face B's) and on a fixed box turned 90 degrees about y (the face A's, planes in A's frame).
    const glm::vec3 h(0.5f);
    for (const bool on_box : {false, true}) {
        for (const bool with_sides : {true, false}) {
            SolverBody cube = body({0, 0.51f, 0}, glm::quat(1, 0, 0, 0), 1.0f, h, true);
            cube.velocity = {0.0f, -3.0f, 0.0f};
            const glm::quat turned = glm::angleAxis(0.5f * glm::pi<float>(), glm::vec3(0, 1, 0));
            std::vector<SolverBody> bodies{cube};
            if (on_box) bodies.insert(bodies.begin(), body({0, -0.5f, 0}, turned, 0.0f, h, false));
            const std::uint32_t c = on_box ? 1u : 0u;  // the cube's index
            ContactManifold m;
            tumble::ContactSides face;
            face.count = 1;
            const glm::vec3 n(1, 0, 0);  // the face's end: world x <= 0
            if (on_box) {
                m.a = 0;  // the box, its top face the reference face
                m.b = c;
                m.normal = {0, 1, 0};
                face.reference_is_a = true;
                face.planes[0] = glm::vec4(glm::conjugate(turned) * n, 0.0f - glm::dot(n, bodies[0].position));
            } else {
                m.a = c;
                m.b = tumble::kStaticGeometry;
                m.normal = {0, -1, 0};
                face.reference_is_a = false;
                face.planes[0] = glm::vec4(n, 0.0f);
            }
            m.count = 2;
            for (int p = 0; p < 2; ++p) {
                const glm::vec3 on_cube(p == 0 ? -0.3f : 0.3f, -0.5f, 0.0f), on_face(on_cube.x, 0.0f, 0.0f);
                tumble::ContactPoint& q = m.points[static_cast<std::size_t>(p)];
                const glm::vec3 local_face = on_box ? glm::conjugate(turned) * (on_face - bodies[0].position) : on_face;
                (on_box ? q.anchor_b : q.anchor_a) = on_cube;
                (on_box ? q.anchor_a : q.anchor_b) = local_face;
                q.friction_anchor_a = q.anchor_a;
                q.friction_anchor_b = q.anchor_b;
                q.separation = 0.01f;
                q.id = static_cast<std::uint32_t>(p);
            }
            std::vector<ContactManifold> manifolds{m};
            std::vector<tumble::ContactSides> sides;
            if (with_sides) sides.push_back(face);
            tumble::PositionSolver solver;
            solver.solve(bodies, manifolds, sides, {}, glm::vec3(0.0f), kDt, SolverSettings{});
            const float over = manifolds[0].points[0].normal_impulse, beyond = manifolds[0].points[1].normal_impulse;
            const float spin = bodies[c].angular_velocity.z;
            SCOPED_TRACE(testing::Message() << "on_box " << on_box << " with_sides " << with_sides << ": impulses "
                                            << over << ", " << beyond << ", spin " << spin);
            // The cube's momentum, 3 kg m/s, is what stopping it takes; the point over the face always pushes.
            EXPECT_GT(std::abs(over), 0.5f);
            if (with_sides) {
                EXPECT_EQ(beyond, 0.0f);
                EXPECT_LT(spin, -1.0f);  // its +x side keeps falling: it turns about -z
            } else {
                // The points' corrections are iterated until they agree (within a few parts in 1e3 here); together
                // they stop the cube: 3 N s.
                EXPECT_NEAR(beyond, over, 1e-2f * std::abs(over));
                EXPECT_NEAR(over + beyond, 3.0f, 1e-3f);
                EXPECT_NEAR(spin, 0.0f, 1e-3f);
            }
        }
    }
}

// Claims three threads and runs the chunks one after another on the caller, last chunk first: the island scheduler's
// slots take their units in an order no thread pool would (the last slot takes every unit after its first).
class ThreeSlotsBackwards final : public tumble::Parallel {
public:
    void for_each_chunk(std::size_t count, std::size_t grain,
                        tumble::FunctionRef<void(std::size_t, std::size_t)> body) override {
        for (std::size_t c = tumble::chunk_count(count, grain); c-- > 0;)
            body(c * grain, std::min(count, (c + 1) * grain));
    }
    int threads() const override { return 3; }
};

// The bits of the bodies' state and the points' impulses, in order.
std::vector<std::uint32_t> bits_of(const std::vector<SolverBody>& bodies,
                                   const std::vector<ContactManifold>& manifolds) {
    std::vector<std::uint32_t> out;
    auto add = [&](glm::vec3 v) {
        for (int i = 0; i < 3; ++i) out.push_back(std::bit_cast<std::uint32_t>(v[i]));
    };
    for (const SolverBody& b : bodies) {
        add(b.position);
        add(b.velocity);
        add(b.angular_velocity);
        for (int i = 0; i < 4; ++i) out.push_back(std::bit_cast<std::uint32_t>(b.orientation[i]));
    }
    for (const ContactManifold& m : manifolds)
        for (int k = 0; k < m.count; ++k)
            out.push_back(std::bit_cast<std::uint32_t>(m.points[static_cast<std::size_t>(k)].normal_impulse));
    return out;
}

TEST(PositionSolver, ManyIslandsGiveTheSameBitsWhicheverThreadOrScratchRunsThem) {
    // 400 stacks of 1 to 7 slightly tilted boxes on static ground, and one stack of 600 (a large island: the soft step
    // spreads its colours over the threads), stepped three times by one solver: serially, on a thread pool of two
    // and of three, and on three slots run backwards. The islands' scratch is held per slot (thread), and which slot
    // runs which island depends on timing, so the results must not depend on what a slot's scratch held before.
    for (const tumble::SolverMethod method : {tumble::SolverMethod::xpbd, tumble::SolverMethod::soft_step}) {
        testutil::Random rng(11);
        const glm::vec3 half(0.5f);
        std::vector<SolverBody> start;
        std::vector<ContactManifold> manifolds;
        auto stack = [&](float x, int height) {
            const tumble::Obb ground{{x, -0.5f, 0.0f}, glm::mat3(1.0f), {1.0f, 0.5f, 1.0f}};
            for (int j = 0; j < height; ++j) {
                const auto i = static_cast<std::uint32_t>(start.size());
                const glm::quat tilt = glm::angleAxis(rng.uniformf(-0.05f, 0.05f), glm::normalize(rng.vec(-1, 1)));
                start.push_back(body({x + rng.uniformf(-0.05f, 0.05f), 0.49f + 0.98f * static_cast<float>(j), 0.0f},
                                     tilt, rng.uniformf(0.5f, 2.0f), half, true));
                const auto m = j == 0 ? tumble::collide_manifold(obb(start[i], half), ground)
                                      : tumble::collide_manifold(obb(start[i], half), obb(start[i - 1], half));
                ASSERT_TRUE(m.has_value()) << x << " " << j;
                manifolds.push_back(to_solver(*m, start, i, j == 0 ? tumble::kStaticGeometry : i - 1, 0.5f));
            }
        };
        for (int k = 0; k < 400; ++k) stack(3.0f * static_cast<float>(k), 1 + k % 7);
        stack(-10.0f, 600);
        SolverSettings settings;
        settings.method = method;
        auto run = [&](tumble::Parallel& parallel) {
            std::vector<SolverBody> bodies = start;
            std::vector<ContactManifold> stepped = manifolds;
            std::vector<tumble::ContactWarmStart> warm(method == tumble::SolverMethod::soft_step ? 4 * stepped.size()
                                                                                                 : 0);
            tumble::PositionSolver solver;
            for (int step = 0; step < 3; ++step)
                solver.solve(bodies, stepped, warm, {0.0f, -9.81f, 0.0f}, kDt, settings, parallel);
            return bits_of(bodies, stepped);
        };
        const std::vector<std::uint32_t> expected = run(tumble::serial());
        tumble::ThreadPool two(2), three(3);
        ThreeSlotsBackwards backwards;
        EXPECT_TRUE(run(two) == expected) << "2 threads, method " << static_cast<int>(method);
        EXPECT_TRUE(run(three) == expected) << "3 threads, method " << static_cast<int>(method);
        EXPECT_TRUE(run(backwards) == expected) << "3 slots backwards, method " << static_cast<int>(method);
        // The stacks moved: the comparison is of a step that did something.
        EXPECT_NE(bits_of(start, manifolds), expected);
    }
}

TEST(SolverSettings, Validation) {
    SolverSettings s;
    EXPECT_NO_THROW(tumble::validate(s));
    const auto bad = [](auto change) {
        SolverSettings t;
        change(t);
        EXPECT_THROW(tumble::validate(t), tumble::InvalidArgument);
    };
    bad([](SolverSettings& t) { t.substeps = 0; });
    bad([](SolverSettings& t) { t.substeps = 257; });
    bad([](SolverSettings& t) { t.iterations = 0; });
    bad([](SolverSettings& t) { t.iterations = 65; });
    bad([](SolverSettings& t) { t.restitution_threshold = -1.0f; });
    bad([](SolverSettings& t) { t.restitution_threshold = std::numeric_limits<float>::quiet_NaN(); });
    bad([](SolverSettings& t) { t.slop = -0.001f; });
    bad([](SolverSettings& t) { t.slop = std::numeric_limits<float>::infinity(); });
}

TEST(BoxInertia, SolidBoxMoments) {
    // I_x = m (b^2 + c^2) / 3 for half extents a, b, c (a cube of side 1 m and 6 kg: 1 kg m^2 about each axis).
    EXPECT_EQ(tumble::box_inertia(6.0f, glm::vec3(0.5f)), glm::vec3(1.0f));
    const glm::vec3 i = tumble::box_inertia(3.0f, {0.1f, 0.2f, 0.3f});
    EXPECT_NEAR(i.x, 3.0f * (0.04f + 0.09f) / 3.0f, 1e-7f);
    EXPECT_NEAR(i.y, 3.0f * (0.01f + 0.09f) / 3.0f, 1e-7f);
    EXPECT_NEAR(i.z, 3.0f * (0.01f + 0.04f) / 3.0f, 1e-7f);
}

}  // namespace
