// Rigid-body behaviour against analytic answers: impulses, free spin, collisions with and without restitution,
// bouncing, tipping, dominoes, a pyramid, ramps with and without friction, and the half-depth response of a plain
// separating-axis test for equal masses that do not rotate. Each tolerance is stated next to its assertion, with why it
// is that size.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <gtest/gtest.h>
#include <glm/gtc/quaternion.hpp>

#include <tumble/tumble.hpp>

#include "support/rigid_scenes.hpp"

namespace {

using namespace rigid_scenes;

TEST(RigidBody, OffCentreImpulseGivesLinearAndAngularVelocity) {
    // v = J / m and w = I^-1 (r x J) with I the solid-box inertia m (b^2 + c^2) / 3 about each axis (half extents a,
    // b, c), here turned 30 degrees about z so that I is not diagonal in the world frame.
    World w(no_gravity());
    BodyDef d = box({1, 2, 3}, {0.5f, 0.25f, 0.1f}, 2.0f);
    d.orientation = glm::angleAxis(kPi / 6.0f, glm::vec3(0, 0, 1));
    const BodyId id = w.create_body(d);
    const glm::vec3 impulse(0.0f, 3.0f, 1.0f), at(1.4f, 2.0f, 3.05f);
    w.apply_impulse(id, impulse, at);
    const tumble::BodyState s = w.body(id);
    const glm::vec3 expected_v = impulse / 2.0f;
    const glm::vec3 expected_w = glm::inverse(world_inertia(s)) * glm::cross(at - d.position, impulse);
    // Float arithmetic on values of order 1-100: 1e-5 relative.
    for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR(s.velocity[k], expected_v[k], 1e-5f);
        EXPECT_NEAR(s.angular_velocity[k], expected_w[k], 1e-4f * std::max(1.0f, std::abs(expected_w[k])));
    }
    EXPECT_NEAR(s.inertia.x, 2.0f * (0.0625f + 0.01f) / 3.0f, 1e-6f);
    // Free flight keeps them: one step later the velocity is the same and the centre moved by v dt.
    w.step(kDt);
    const tumble::BodyState t = w.body(id);
    EXPECT_NEAR(glm::length(t.velocity - expected_v), 0.0f, 1e-6f);
    EXPECT_NEAR(glm::length(t.position - (d.position + expected_v * kDt)), 0.0f, 1e-5f);
    // Bad input changes nothing.
    EXPECT_THROW(w.apply_impulse(id, {NAN, 0, 0}, at), tumble::InvalidArgument);
    EXPECT_THROW(w.apply_impulse(tumble::BodyId{}, impulse, at), tumble::InvalidArgument);
    EXPECT_EQ(w.body(id).velocity, t.velocity);
}

TEST(RigidBody, FreeSpinKeepsItsAngularMomentumForTenSeconds) {
    // Torque-free motion conserves the world angular momentum L = I_world w. A box with three different moments
    // spinning about a general axis (so its axis wobbles) keeps |L| and its direction within 2 % over 10 s.
    World w(no_gravity());
    BodyDef d = box({0, 0, 0}, {0.6f, 0.3f, 0.1f}, 3.0f);
    d.angular_velocity = {4.0f, 1.0f, 2.5f};
    const BodyId id = w.create_body(d);
    const tumble::BodyState s0 = w.body(id);
    const glm::vec3 l0 = world_inertia(s0) * s0.angular_velocity;
    float worst = 0.0f;
    for (int n = 0; n < 600; ++n) {
        w.step(kDt);
        const tumble::BodyState s = w.body(id);
        const glm::vec3 l = world_inertia(s) * s.angular_velocity;
        worst = std::max(worst, glm::length(l - l0) / glm::length(l0));
    }
    std::printf("[ spin     ] largest change of angular momentum over 10 s: %.3f %%\n", 100.0 * worst);
    EXPECT_LT(worst, 0.02f);
}

TEST(RigidBody, InelasticCollisionSharesMomentum) {
    const Collision c = head_on(0.0f);
    std::printf("[ collide  ] restitution 0: %.5f and %.5f m/s, spin %.2g rad/s\n", c.light, c.heavy, c.spin);
    expect_head_on_answer(c, 0.0f);
}

TEST(RigidBody, ElasticCollisionBouncesTheLightBoxBack) {
    const Collision c = head_on(1.0f);
    std::printf("[ collide  ] restitution 1: %.5f and %.5f m/s, spin %.2g rad/s\n", c.light, c.heavy, c.spin);
    expect_head_on_answer(c, 1.0f);
}

TEST(RigidBody, BoxWithRestitutionHalfBouncesToAQuarterOfItsDropHeight) {
    // Dropped from 1 m (bottom face 1 m above the floor), it lands at sqrt(2 g) = 4.43 m/s and leaves at half of
    // that, so it rises to 0.5^2 * 1 m = 0.25 m. The discrete step puts the contact within one substep of the exact
    // instant: 1 cm on the height.
    const Bounce b = drop_and_bounce();
    std::printf("[ bounce   ] rebound height %.4f m (expected 0.25 m)\n", b.apex);
    ASSERT_TRUE(b.bounced);
    EXPECT_NEAR(b.apex, 0.25f, 0.01f);
}

TEST(RigidBody, ATiltedBoxFallsFlat) {
    // A cube tilted 30 degrees about z, dropped onto the floor from just above: it lands on one edge, topples onto a
    // face and comes to rest with its axes within 1 degree of the vertical.
    const tumble::BodyState s = tilted_cube_after(300);
    std::printf("[ tilt     ] after 5 s: tilt %.3f degrees, height %.4f m, speed %.2g m/s\n", tilt_degrees(s.orientation),
                s.position.y, glm::length(s.velocity));
    EXPECT_LT(tilt_degrees(s.orientation), 1.0f);
    EXPECT_NEAR(s.position.y, 0.5f, 0.01f);  // resting on a face: centre half a metre up (slop is 1 mm)
    EXPECT_LT(glm::length(s.velocity), 0.05f);
}

TEST(RigidBody, ACubeHangingPastALedgeTipsOffAndOneOnTheLedgeStays) {
    // A ledge (static box, top at y = 1, edge at x = 0) and two 1 m cubes resting on it: one with its centre 0.3 m
    // past the edge (0.2 m of it on the ledge, its centre of mass unsupported: it must tip and fall), one with its
    // centre 0.3 m inside the edge (it stays).
    const Ledge l = cubes_on_a_ledge();
    const tumble::BodyState &h = l.hanging, &r = l.resting;
    std::printf(
        "[ ledge    ] hanging cube tipped to %.1f deg on its way down, ends at y %.3f; cube on the ledge at "
        "(%.4f, %.4f)\n",
        l.tipped, h.position.y, r.position.x, r.position.y);
    expect_ledge_answer(l);
}

TEST(RigidBody, TenDominoesFallInOrder) {
    // Dominoes 0.05 x 0.5 x 0.25 m (half extents 0.025, 0.25, 0.125) 0.3 m apart; the first is pushed at its top.
    // Each must topple (its tall axis more than 60 degrees from the vertical) and do so after the one before it.
    World w;
    w.create_body(floor_box());
    std::vector<BodyId> dominoes;
    for (int i = 0; i < 10; ++i) dominoes.push_back(w.create_body(box({0.3f * static_cast<float>(i), 0.25f, 0.0f}, {0.025f, 0.25f, 0.125f}, 0.2f)));
    w.apply_impulse(dominoes[0], {0.15f, 0.0f, 0.0f}, {0.0f, 0.48f, 0.0f});
    std::vector<int> fell(10, -1);
    for (int n = 0; n < 600; ++n) {
        w.step(kDt);
        for (int i = 0; i < 10; ++i)
            if (fell[i] < 0 && std::abs(glm::mat3_cast(w.body(dominoes[i]).orientation)[1].y) < 0.5f)
                fell[i] = n;  // its tall (local y) axis is more than 60 degrees from the vertical
    }
    std::printf("[ dominoes ] step each domino passed 60 degrees:");
    for (int i = 0; i < 10; ++i) std::printf(" %d", fell[i]);
    std::printf("\n");
    for (int i = 0; i < 10; ++i) {
        EXPECT_GE(fell[i], 0) << "domino " << i << " did not fall";
        if (i > 0) {
            EXPECT_GT(fell[i], fell[i - 1]) << "domino " << i << " fell before domino " << i - 1;
        }
    }
}

TEST(RigidBody, ATwentyRowPyramidStandsForTenSeconds) {
    // 210 cubes of 0.5 m in rows of 20 down to 1, each row resting on the gaps of the one below (no gaps: touching).
    // After 10 s no box has moved more than 3 cm from where it was placed.
    World w;
    const std::vector<std::pair<BodyId, glm::vec3>> boxes = twenty_row_pyramid(w);
    ASSERT_EQ(boxes.size(), 210u);
    float worst = 0.0f;
    for (int n = 0; n < 600; ++n) {
        w.step(kDt);
        if (n % 30 == 29)
            for (const auto& [id, p] : boxes) worst = std::max(worst, glm::length(w.body(id).position - p));
    }
    for (const auto& [id, p] : boxes) worst = std::max(worst, glm::length(w.body(id).position - p));
    std::printf("[ pyramid  ] 210 boxes, largest displacement over 10 s: %.4f m\n", worst);
    EXPECT_LT(worst, 0.03f);
}

TEST(RigidBody, AFrictionlessRampSlidesAtGSinThirtyWithoutTurning) {
    // x(t) = g sin 30 t^2 / 2 for t = 1 s: 2.4525 m. Semi-implicit Euler in n substeps of h overshoots by
    // a t h / 2: 1 % covers it.
    const Slide s = on_ramp(0.0f, 60);
    std::printf("[ ramp     ] frictionless: %.4f m in 1 s (g sin 30 / 2 = 2.4525 m), turned %.3f degrees\n", s.distance,
                s.turn);
    EXPECT_NEAR(s.distance, 0.5f * kG * 0.5f, 0.01f * 2.4525f);
    EXPECT_LT(s.turn, 0.5f);
}

TEST(RigidBody, FrictionPointEightHoldsABoxOnAThirtyDegreeRamp) {
    // tan 30 = 0.577 < 0.8: static friction holds it. Over 2 s it creeps no more than 5 mm (it settles the slop).
    const Slide s = on_ramp(0.8f, 120);
    std::printf("[ ramp     ] friction 0.8: moved %.5f m in 2 s, turned %.3f degrees\n", s.distance, s.turn);
    EXPECT_LT(std::abs(s.distance), 0.005f);
    EXPECT_LT(s.turn, 0.5f);
}

TEST(RigidBody, FixedRotationBoxesOfEqualMassMoveHalfTheDepthEach) {
    // The plain separating-axis response: two overlapping boxes of equal mass that do not rotate are pushed apart by
    // half the depth each along the contact normal, and are left at rest (no slop, no gravity).
    WorldSettings s = no_gravity();
    s.solver.slop = 0.0f;
    World w(s);
    BodyDef a = box({0, 0, 0}, glm::vec3(0.5f));
    a.fixed_rotation = true;
    BodyDef b = box({0.9f, 0.2f, 0.1f}, glm::vec3(0.5f));
    b.fixed_rotation = true;
    const BodyId ia = w.create_body(a), ib = w.create_body(b);
    const float depth = 0.1f;  // overlap along x (the least: 0.8 along y, 0.9 along z)
    w.step(kDt);
    const tumble::BodyState sa = w.body(ia), sb = w.body(ib);
    EXPECT_NEAR(sa.position.x, -depth / 2, 1e-6f);
    EXPECT_NEAR(sb.position.x, 0.9f + depth / 2, 1e-6f);
    EXPECT_FLOAT_EQ(sa.position.y, 0.0f);
    EXPECT_FLOAT_EQ(sb.position.y, 0.2f);
    EXPECT_EQ(sa.orientation, glm::quat(1, 0, 0, 0));
    EXPECT_EQ(sb.orientation, glm::quat(1, 0, 0, 0));
    EXPECT_NEAR(glm::length(sa.velocity), 0.0f, 1e-5f);
    EXPECT_NEAR(glm::length(sb.velocity), 0.0f, 1e-5f);
}

// A heavy cube lands on a thin box (5.6 cm thick, 1.38 kg) that is landing on a one-sided mesh floor, 3 cm and 2 cm
// off its centre: 5 kg to 1 t at 10-40 m/s. The floor has to stop the cube through the thin box within a substep or
// two (the cube moves 2-8 cm per substep, more than the box is thick), and a floor contact that could push the thin
// box out only as fast as the box itself came in let the cube drive it through the floor: 20 kg at 10 m/s took it
// out under the level (a box lost this way in the 100,000-box level run, docs/benchmarks.md). Hand-worked bound: the
// box rests with its centre 0.028 m up; it may sink 5 mm (the floor's contacts take out what a substep drives in, up
// to a few mm of Gauss-Seidel residue). The contacts are inelastic, so the two bodies' mechanical energy (kinetic,
// rotational and potential) never grows above what they started with. (The cube may still rise above its start: hit
// off its centre, the thin box flips about its bottom edge and can throw the cube up with energy from the hit.)
TEST(RigidBody, AHeavyCubeLandingOnAThinBoxDoesNotDriveItThroughAMeshFloor) {
    tumble::TriangleMesh floor;
    floor.vertices = {{-20, 0, -20}, {20, 0, -20}, {20, 0, 20}, {-20, 0, 20}};
    floor.indices = {0, 2, 1, 0, 3, 2};
    const glm::vec3 thin_half(0.082f, 0.028f, 0.075f);
    const float thin_mass = 8.0f * thin_half.x * thin_half.y * thin_half.z * 1000.0f;
    for (const float mass : {5.0f, 20.0f, 100.0f, 300.0f, 1000.0f})
        for (const float speed : {10.0f, 20.0f, 40.0f}) {
            World w;
            w.add_mesh(floor);
            BodyDef thin = box({0.0f, 0.065f, 0.0f}, thin_half, thin_mass);
            thin.velocity = {0.0f, -5.2f, 0.0f};
            BodyDef cube = box({0.03f, 0.2f, 0.02f}, glm::vec3(0.1f), mass);
            cube.velocity = {0.0f, -speed, 0.0f};
            const BodyId t = w.create_body(thin), c = w.create_body(cube);
            auto energy = [&] {
                double e = 0.0;
                for (const BodyId id : {t, c}) {
                    const tumble::BodyState b = w.body(id);
                    const glm::dvec3 v(b.velocity),
                        spin = glm::conjugate(glm::dquat(b.orientation)) * glm::dvec3(b.angular_velocity);
                    e += 0.5 * b.mass * glm::dot(v, v) + 0.5 * glm::dot(spin, glm::dvec3(b.inertia) * spin) +
                         b.mass * kG * b.position.y;
                }
                return e;
            };
            const double start = energy();
            float lowest = 1.0f;
            double most = start;
            for (int n = 0; n < 60; ++n) {
                w.step(kDt);
                lowest = std::min(lowest, w.body(t).position.y);
                most = std::max(most, energy());
            }
            EXPECT_GT(lowest, thin_half.y - 0.005f) << mass << " kg at " << speed << " m/s";
            EXPECT_LE(most, start) << mass << " kg at " << speed << " m/s";
        }
}

}  // namespace
