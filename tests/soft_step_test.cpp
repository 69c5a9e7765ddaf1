// The soft step (SolverMethod::soft_step) against analytic answers and invariants: momentum shared in collisions,
// restitution, ramps with and without friction, a pinched cube's torsional friction, tipping, a column whose sinking
// matches the contact springs' hand computation, a pyramid that stands and stops moving, conservation of momentum and
// angular momentum in random hits, determinism for 1-4 threads on a pile in one island, warm starts kept across
// save_state and restore_state, manifolds kept whole from step to step (WorldSettings::manifold_reuse_distance), and
// the settings and scene keys. Each tolerance is stated next to its assertion.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <glm/gtc/quaternion.hpp>

#include <tumble/tumble.hpp>

#include "support/game_scenes.hpp"
#include "support/rigid_scenes.hpp"
#include "support/test_util.hpp"

namespace {

using namespace rigid_scenes;
using tumble::SolverMethod;

// The soft step with Box2D v3's defaults: 4 substeps, 30 Hz contacts.
WorldSettings soft(WorldSettings s = WorldSettings{}) {
    s.solver.method = SolverMethod::soft_step;
    s.solver.substeps = 4;
    return s;
}

TEST(SoftStep, InelasticCollisionSharesMomentum) {
    const Collision c = head_on(0.0f, soft(no_gravity()));
    std::printf("[ soft     ] restitution 0: %.5f and %.5f m/s, spin %.2g rad/s\n", c.light, c.heavy, c.spin);
    expect_head_on_answer(c, 0.0f);
}

TEST(SoftStep, ElasticCollisionBouncesTheLightBoxBack) {
    const Collision c = head_on(1.0f, soft(no_gravity()));
    std::printf("[ soft     ] restitution 1: %.5f and %.5f m/s, spin %.2g rad/s\n", c.light, c.heavy, c.spin);
    expect_head_on_answer(c, 1.0f);
}

TEST(SoftStep, BoxWithRestitutionHalfBouncesToAQuarterOfItsDropHeight) {
    // Dropped with its bottom face 1 m above the floor, it lands at sqrt(2 g) = 4.43 m/s and leaves at half of that,
    // rising to 0.25 m. Restitution acts once after the step's substeps, on the approach speed the point had when it
    // first pushed; the step it lands in still has gravity and the soft contact acting after the impact: 2 cm
    // (measured 0.238 m, 2.5 % less speed).
    const Bounce b = drop_and_bounce(soft());
    std::printf("[ soft     ] rebound height %.4f m (expected 0.25 m)\n", b.apex);
    ASSERT_TRUE(b.bounced);
    EXPECT_NEAR(b.apex, 0.25f, 0.02f);
}

TEST(SoftStep, ATiltedBoxFallsFlatAndRests) {
    const tumble::BodyState s = tilted_cube_after(300, soft());
    std::printf("[ soft     ] tilted box after 5 s: tilt %.3f degrees, height %.5f m, speed %.2g m/s\n",
                tilt_degrees(s.orientation), s.position.y, glm::length(s.velocity));
    EXPECT_LT(tilt_degrees(s.orientation), 1.0f);
    // Resting on a face: the centre 0.5 m up, less the floor contacts' spring (1 kg on four 60 Hz points of
    // effective mass 0.25 kg: 9.81 / 4 / (0.25 (2 pi 60)^2) = 0.07 mm); 1 mm.
    EXPECT_NEAR(s.position.y, 0.5f, 1e-3f);
    EXPECT_LT(glm::length(s.velocity), 0.01f);
}

TEST(SoftStep, ACubeHangingPastALedgeTipsOffAndOneOnTheLedgeStays) {
    const Ledge l = cubes_on_a_ledge(soft());
    const tumble::BodyState &h = l.hanging, &r = l.resting;
    std::printf(
        "[ soft     ] ledge: hanging cube tipped to %.1f deg, ends at y %.3f; cube on the ledge at (%.4f, %.4f)\n",
        l.tipped, h.position.y, r.position.x, r.position.y);
    expect_ledge_answer(l);
}

TEST(SoftStep, AFrictionlessRampSlidesAtGSinThirtyWithoutTurning) {
    // x(t) = g sin 30 t^2 / 2 = 2.4525 m at t = 1 s; the discrete step overshoots by a t h / 2: 1 %.
    const Slide s = on_ramp(0.0f, 60, soft());
    std::printf("[ soft     ] frictionless ramp: %.4f m in 1 s, turned %.3f degrees\n", s.distance, s.turn);
    EXPECT_NEAR(s.distance, 0.5f * kG * 0.5f, 0.01f * 2.4525f);
    EXPECT_LT(s.turn, 0.5f);
}

TEST(SoftStep, FrictionPointEightHoldsABoxOnAThirtyDegreeRamp) {
    // tan 30 = 0.577 < 0.8: static friction holds it; the friction anchors undo any creep. 5 mm over 2 s.
    const Slide s = on_ramp(0.8f, 120, soft());
    std::printf("[ soft     ] ramp with friction 0.8: moved %.5f m in 2 s, turned %.3f degrees\n", s.distance, s.turn);
    EXPECT_LT(std::abs(s.distance), 0.005f);
    EXPECT_LT(s.turn, 0.5f);
}

TEST(SoftStep, FrictionPointTwoLetsABoxSlideAtGTimesSinMinusMuCos) {
    // a = g (sin 30 - 0.2 cos 30) = 3.206 m/s^2: 1.603 m in 1 s. 3 %: the step's discretisation (1 %) and the first
    // substeps in which the friction cone builds up from the spring contact.
    const Slide s = on_ramp(0.2f, 60, soft());
    const float expected = 0.5f * kG * (0.5f - 0.2f * std::sqrt(3.0f) / 2.0f);
    std::printf("[ soft     ] ramp with friction 0.2: %.4f m in 1 s (expected %.4f m)\n", s.distance, expected);
    EXPECT_NEAR(s.distance, expected, 0.03f * expected);
}

// A cube held at two opposite corners by two static walls, spinning about the diagonal through them: a rotisserie
// spit on a V of two supports. The corners lie on the axis and never slip, so point friction cannot stop the spin;
// each wall touches one corner (a one-point manifold), whose torsional friction can (soft_step.cpp,
// kTorsionPatchRadius). By hand: the walls' normals lean 20 degrees up from the axis; each wall holds half the weight
// with its normal force N and the friction F <= mu N along its face, N sin 20 + F cos 20 = m g / 2, so N lies between
// m g / (2 (sin 20 + mu cos 20)) (friction at its limit) and m g / (2 sin 20) (none). Each resists the spin about its
// normal with at most mu r N; along the axis the two give 2 mu r N cos 20, against the cube's moment (2/3) m h^2
// about any axis: between 4.58 and 12.13 rad/s^2 for mu 0.6, r 5 mm, h 0.1 m.
TEST(SoftStep, ACubePinchedAtOppositeCornersStopsSpinningAboutThem) {
    const float h = 0.1f, tilt = 20.0f * kPi / 180.0f, spin = 5.0f, mu = 0.6f, r = 0.005f;
    World w(soft());
    const glm::vec3 centre(0.0f, 1.0f, 0.0f), corner(h * std::sqrt(3.0f), 0.0f, 0.0f);
    for (const float side : {1.0f, -1.0f}) {
        // The wall's +y face passes through the corner on its side, facing the cube: n = (-side cos, sin, 0).
        const glm::vec3 n(-side * std::cos(tilt), std::sin(tilt), 0.0f);
        BodyDef wall = box(centre + side * corner - 0.05f * n, {0.5f, 0.05f, 0.5f}, 0.0f);
        wall.orientation = glm::angleAxis(side * (0.5f * kPi - tilt), glm::vec3(0.0f, 0.0f, 1.0f));
        w.create_body(wall);
    }
    BodyDef cube = box(centre, glm::vec3(h));
    // The body diagonal (1, 1, 1) along world x, turning about it.
    const glm::vec3 d = glm::normalize(glm::vec3(1.0f)), x(1.0f, 0.0f, 0.0f);
    cube.orientation = glm::angleAxis(std::acos(glm::dot(d, x)), glm::normalize(glm::cross(d, x)));
    cube.angular_velocity = spin * x;
    const BodyId id = w.create_body(cube);
    const float moment = 2.0f / 3.0f * h * h;  // per kg
    const float slowest =
        2.0f * mu * r * std::cos(tilt) * kG / (2.0f * (std::sin(tilt) + mu * std::cos(tilt))) / moment;
    const float fastest = 2.0f * mu * r * std::cos(tilt) * kG / (2.0f * std::sin(tilt)) / moment;
    for (int s = 0; s < 6; ++s) w.step(kDt);  // 0.1 s for the walls' springs to take up the weight
    const float at_first = w.body(id).angular_velocity.x;
    for (int s = 0; s < 12; ++s) w.step(kDt);
    const tumble::BodyState later = w.body(id);
    const float rate = (at_first - later.angular_velocity.x) / (12.0f * kDt);
    std::printf(
        "[ soft     ] pinched cube: spin %.3f -> %.3f rad/s over 0.2 s, %.2f rad/s^2 (by hand %.2f to %.2f), "
        "centre moved %.4f m\n",
        at_first, later.angular_velocity.x, rate, slowest, fastest, glm::length(later.position - centre));
    // 5 % below the slowest: the springs' normal forces still ring a little after 0.1 s.
    EXPECT_GT(rate, 0.95f * slowest);
    EXPECT_LT(rate, 1.05f * fastest);
    for (int s = 0; s < 60; ++s) w.step(kDt);
    const tumble::BodyState end = w.body(id);
    std::printf("[ soft     ] pinched cube after 1.3 s: spin %.4f rad/s, centre moved %.4f m\n",
                glm::length(end.angular_velocity), glm::length(end.position - centre));
    EXPECT_LT(glm::length(end.angular_velocity), 0.05f);   // stopped (by hand by 1.2 s at the slowest)
    EXPECT_LT(glm::length(end.position - centre), 0.01f);  // still held between the walls
}

TEST(SoftStep, AColumnOfTenCubesSinksAsItsContactSpringsPredict) {
    // The soft contact is a spring of the contact's effective mass times (2 pi f)^2 (Catto, "Solver2D"). For 1 kg
    // cubes of half extent 0.25 m on four corner points, a point's effective mass between two cubes is
    // 1 / (2 / m + 2 |r x n|^2 / I) with |r x n|^2 = 0.125 m^2 and I = m 2 h^2 / 3 = 1/24 kg m^2: 1/8 kg, at 30 Hz;
    // against the floor 1 / (1 / m + |r x n|^2 / I) = 1/4 kg at 60 Hz. A contact with j cubes above it carries
    // j m g over four points, so the top cube sinks by
    //   sum_{j=1..9} (j g / 4) / (1/8 (2 pi 30)^2) + (10 g / 4) / (1/4 (2 pi 60)^2) = 0.02486 + 0.00069 = 0.02555 m.
    // Warm starting is what makes this the steady state: each step starts from the last step's impulses. 5 % for
    // the damping and the round-off of a 5 m column. After 10 s it must be at rest and straight: its top box turned
    // less than 0.1 degrees, and off the axis by less than a lean of 0.1 degrees over the column's 5 m (8.7 mm). The
    // soft column leans a little where the first steps' sinking left it, held by static friction (measured: 0.044
    // degrees, 3.7 mm); sleeping is off, so that it is the solver that holds it.
    WorldSettings settings = soft();
    settings.sleep.enabled = false;
    World w(settings);
    w.create_body(floor_box());
    std::vector<BodyId> column;
    for (int i = 0; i < 10; ++i)
        column.push_back(w.create_body(box({0, 0.25f + 0.5f * static_cast<float>(i), 0}, glm::vec3(0.25f))));
    for (int n = 0; n < 600; ++n) w.step(kDt);
    const tumble::BodyState top = w.body(column.back());
    const float sunk = 4.75f - top.position.y;
    const float spring_ab = 0.125f * std::pow(2.0f * kPi * 30.0f, 2.0f),
                spring_floor = 0.25f * std::pow(2.0f * kPi * 60.0f, 2.0f);
    float expected = 10.0f * kG / 4.0f / spring_floor;
    for (int j = 1; j <= 9; ++j) expected += static_cast<float>(j) * kG / 4.0f / spring_ab;
    std::printf("[ soft     ] column of 10: top sank %.5f m (springs: %.5f m), sideways %.2g m, speed %.2g m/s\n", sunk,
                expected, glm::length(glm::vec2(top.position.x, top.position.z)), glm::length(top.velocity));
    EXPECT_NEAR(sunk, expected, 0.05f * expected);
    EXPECT_LT(glm::length(glm::vec2(top.position.x, top.position.z)), 5.0f * std::tan(0.1f * kPi / 180.0f));
    EXPECT_LT(glm::length(top.velocity), 1e-3f);
    EXPECT_LT(tilt_degrees(top.orientation), 0.1f);
}

// 210 cubes of 0.5 m in rows of 20 down to 1 (as RigidBody.ATwentyRowPyramidStandsForTenSeconds), stepped for
// `seconds`: the largest displacement of any box from where it was placed (sampled every half second and at the end),
// the largest distance a box moved after `settled` seconds, and the number of bodies still awake.
struct PyramidRun {
    float worst = 0.0f;
    float after_settled = 0.0f;
    std::size_t awake = 0;
};
PyramidRun soft_pyramid(bool sleeping, float seconds, float settled) {
    WorldSettings settings = soft();
    settings.sleep.enabled = sleeping;
    World w(settings);
    const std::vector<std::pair<BodyId, glm::vec3>> boxes = twenty_row_pyramid(w);
    PyramidRun out;
    std::vector<glm::vec3> at_settled;
    const int steps = static_cast<int>(seconds * 60.0f), settled_step = static_cast<int>(settled * 60.0f);
    for (int n = 1; n <= steps; ++n) {
        w.step(kDt);
        if (n == settled_step)
            for (const auto& [id, p] : boxes) at_settled.push_back(w.body(id).position);
        if (n % 30 == 0 || n == steps)
            for (const auto& [id, p] : boxes) out.worst = std::max(out.worst, glm::length(w.body(id).position - p));
    }
    for (std::size_t i = 0; i < at_settled.size(); ++i)
        out.after_settled = std::max(out.after_settled, glm::length(w.body(boxes[i].first).position - at_settled[i]));
    out.awake = w.stats().awake_bodies;
    return out;
}

TEST(SoftStep, ATwentyRowPyramidStandsAndFallsAsleep) {
    // What a game sees: the soft contacts sink under the load (the column test's springs: a few cm at the top of 20
    // rows), so the bound is 5 cm, a tenth of a box; and the pile comes to rest well enough to fall asleep within 10 s.
    const PyramidRun r = soft_pyramid(true, 10.0f, 10.0f);
    std::printf("[ soft     ] pyramid of 210, sleeping on: largest displacement %.4f m, %zu bodies awake after 10 s\n",
                r.worst, r.awake);
    EXPECT_LT(r.worst, 0.05f);
    EXPECT_EQ(r.awake, 0u);
}

TEST(SoftStep, ATwentyRowPyramidKeptAwakeStandsStill) {
    // Kept awake for 15 s, it sinks into its springs (within 5 cm, as above) and then stays: from 5 s on no box moves
    // more than 1 mm. (It crept by 1.5 cm between 5 s and 10 s while points whose feature ids changed, as the two
    // equal faces of a resting pair swap which is the reference face, lost their warm start.)
    const PyramidRun r = soft_pyramid(false, 15.0f, 5.0f);
    std::printf(
        "[ soft     ] pyramid of 210, sleeping off: largest displacement %.4f m, moved %.5f m from 5 s to 15 s\n",
        r.worst, r.after_settled);
    EXPECT_LT(r.worst, 0.05f);
    EXPECT_LT(r.after_settled, 0.001f);
}

TEST(SoftStep, RandomHitsConserveMomentumAndAngularMomentum) {
    // No gravity, no friction: 40 pairs of boxes of random sizes, masses, orientations and spins thrown at each other
    // off centre. Contacts apply equal and opposite impulses at one point, so the pair's momentum and its angular
    // momentum about the origin stay what they were (1e-4 relative, float round-off over 30 steps).
    testutil::Random rng(7);
    for (int k = 0; k < 40; ++k) {
        World w(soft(no_gravity()));
        BodyDef a = box(rng.vec(-0.2, 0.2), rng.vec(0.2, 0.5), rng.uniformf(0.5, 5.0));
        BodyDef b = box(glm::vec3(1.2f, 0.0f, 0.0f) + rng.vec(-0.2, 0.2), rng.vec(0.2, 0.5), rng.uniformf(0.5, 5.0));
        a.orientation = rng.rotation();
        b.orientation = rng.rotation();
        a.velocity = glm::vec3(3.0f, 0.0f, 0.0f) + rng.vec(-0.5, 0.5);
        b.velocity = glm::vec3(-3.0f, 0.0f, 0.0f) + rng.vec(-0.5, 0.5);
        a.angular_velocity = rng.vec(-2.0, 2.0);
        b.angular_velocity = rng.vec(-2.0, 2.0);
        a.friction = b.friction = 0.0f;
        const BodyId ia = w.create_body(a), ib = w.create_body(b);
        auto momenta = [&](glm::vec3& p, glm::vec3& l) {
            p = l = glm::vec3(0.0f);
            for (BodyId id : {ia, ib}) {
                const tumble::BodyState s = w.body(id);
                p += s.mass * s.velocity;
                l += s.mass * glm::cross(s.position, s.velocity) + world_inertia(s) * s.angular_velocity;
            }
        };
        glm::vec3 p0, l0, p1, l1;
        momenta(p0, l0);
        bool touched = false;
        for (int n = 0; n < 30; ++n) {
            w.step(kDt);
            touched = touched || w.stats().manifolds > 0;
        }
        momenta(p1, l1);
        ASSERT_TRUE(touched) << "pair " << k << " never met";
        EXPECT_LT(glm::length(p1 - p0), 1e-4f * std::max(1.0f, glm::length(p0))) << "pair " << k;
        EXPECT_LT(glm::length(l1 - l0), 1e-4f * std::max(1.0f, glm::length(l0) + glm::length(p0))) << "pair " << k;
    }
}

// Positions and orientations of every body, as bytes.
std::vector<float> poses(const World& w, const std::vector<BodyId>& ids) {
    std::vector<float> out;
    for (BodyId id : ids) {
        const tumble::BodyState s = w.body(id);
        out.insert(out.end(), {s.position.x, s.position.y, s.position.z, s.orientation.w, s.orientation.x,
                               s.orientation.y, s.orientation.z, s.velocity.x, s.velocity.y, s.velocity.z});
    }
    return out;
}

// Cubes of 0.5 m in touching `side` x `side` columns of `layers` on a floor, each turned a little about the
// vertical, every column leaning on its neighbours: one island.
std::vector<BodyId> build_block(World& w, int layers, int side = 10) {
    w.create_body(floor_box(0.0f, 30.0f));
    std::vector<BodyId> ids;
    for (int y = 0; y < layers; ++y)
        for (int x = 0; x < side; ++x)
            for (int z = 0; z < side; ++z) {
                BodyDef d = box(
                    {0.5f * static_cast<float>(x), 0.25f + 0.5f * static_cast<float>(y), 0.5f * static_cast<float>(z)},
                    glm::vec3(0.25f));
                d.orientation = glm::angleAxis(0.01f * static_cast<float>((x * 7 + y * 3 + z) % 5), glm::vec3(0, 1, 0));
                ids.push_back(w.create_body(d));
            }
    return ids;
}

TEST(SoftStep, AThousandBoxIslandIsBitIdenticalForOneToFourThreads) {
    std::vector<float> reference;
    std::size_t islands = 0, kept = 0;
    for (int threads = 1; threads <= 4; ++threads) {
        WorldSettings s = soft();
        s.threads = threads;
        s.sleep.enabled = false;
        World w(s);
        const std::vector<BodyId> ids = build_block(w, 10);
        for (int n = 0; n < 20; ++n) {
            w.step(kDt);
            kept += threads == 1 ? w.stats().kept_manifolds : 0;
        }
        const std::vector<float> now = poses(w, ids);
        if (threads == 1) {
            reference = now;
            islands = w.stats().islands;
            continue;
        }
        EXPECT_EQ(std::memcmp(now.data(), reference.data(), now.size() * sizeof(float)), 0) << threads << " threads";
    }
    std::printf("[ soft     ] 1,000 boxes in %zu island(s), identical for 1-4 threads (%zu kept manifolds)\n", islands,
                kept);
    EXPECT_EQ(islands, 1u);
    EXPECT_GT(kept, 0u) << "the chunks' look-ups of kept manifolds must take part";
}

// Small islands run in groups of consecutive islands, as one island each (PositionSolver::group_islands): each
// island's bits must be those it gets when it is the only island in the world.
TEST(SoftStep, SmallIslandsSolvedInGroupsGiveEachIslandTheBitsItGetsAlone) {
    constexpr int kStacks = 48;
    // Stack j: three cubes dropped on each other from a little apart, each offset and turned its own way, so that
    // they tumble; 2 m between stacks.
    auto add_stack = [](World& w, int j) {
        std::vector<BodyId> ids;
        const glm::vec3 base(2.0f * static_cast<float>(j % 8), 0.0f, 2.0f * static_cast<float>(j / 8));
        for (int k = 0; k < 3; ++k) {
            BodyDef d =
                box(base + glm::vec3(0.04f * static_cast<float>((j + k) % 5), 0.3f + 0.55f * static_cast<float>(k),
                                     0.03f * static_cast<float>((j * k) % 3)),
                    glm::vec3(0.25f));
            d.orientation = glm::angleAxis(0.2f * static_cast<float>((j + 2 * k) % 7),
                                           glm::normalize(glm::vec3(0.3f * static_cast<float>(k), 1.0f, 0.1f)));
            ids.push_back(w.create_body(d));
        }
        return ids;
    };
    WorldSettings s = soft();
    s.sleep.enabled = false;
    World all(s);
    all.create_body(floor_box(0.0f, 30.0f));
    std::vector<std::vector<BodyId>> stacks;
    for (int j = 0; j < kStacks; ++j) stacks.push_back(add_stack(all, j));
    constexpr int kSteps = 40;
    std::size_t most_islands = 0;
    for (int n = 0; n < kSteps; ++n) {
        all.step(kDt);
        most_islands = std::max(most_islands, all.stats().islands);
    }
    int compared = 0;
    for (int j = 0; j < kStacks; ++j) {
        World alone(s);
        alone.create_body(floor_box(0.0f, 30.0f));
        const std::vector<BodyId> ids = add_stack(alone, j);
        for (int n = 0; n < kSteps; ++n) alone.step(kDt);
        const std::vector<float> want = poses(alone, ids), got = poses(all, stacks[static_cast<std::size_t>(j)]);
        ASSERT_EQ(got.size(), want.size());
        EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0) << "stack " << j;
        ++compared;
    }
    std::printf("[ soft     ] %d stacks of 3 boxes, up to %zu islands a step, each stack's bits as alone\n", compared,
                most_islands);
    EXPECT_GE(most_islands, static_cast<std::size_t>(kStacks)) << "every stack must be an island of its own";
}

// A mid-sized island (less than a quarter of the step's manifolds) runs coloured on one thread, its colours in SIMD
// lanes; alone in the world the same island is large and runs coloured on all threads. The colours depend on the
// island only, so it must get the same bits either way, for any thread count.
TEST(SoftStep, AMidSizedIslandSolvedInLanesOnOneThreadGetsTheBitsItGetsAlone) {
    constexpr int kBlocks = 5;
    // Block j: 3 layers of 6 x 6 cubes of 0.5 m, each turned a little about the vertical; 6 m between blocks.
    auto add_block = [](World& w, int j) {
        std::vector<BodyId> ids;
        for (int y = 0; y < 3; ++y)
            for (int x = 0; x < 6; ++x)
                for (int z = 0; z < 6; ++z) {
                    BodyDef d = box({6.0f * static_cast<float>(j) + 0.5f * static_cast<float>(x),
                                     0.25f + 0.5f * static_cast<float>(y), 0.5f * static_cast<float>(z)},
                                    glm::vec3(0.25f));
                    d.orientation =
                        glm::angleAxis(0.01f * static_cast<float>((x * 7 + y * 3 + z + j) % 5), glm::vec3(0, 1, 0));
                    ids.push_back(w.create_body(d));
                }
        return ids;
    };
    constexpr int kSteps = 20;
    for (int threads = 1; threads <= 4; ++threads) {
        WorldSettings s = soft();
        s.sleep.enabled = false;
        s.threads = threads;
        World all(s);
        all.create_body(floor_box(0.0f, 30.0f));
        std::vector<std::vector<BodyId>> blocks;
        for (int j = 0; j < kBlocks; ++j) blocks.push_back(add_block(all, j));
        std::size_t fewest_manifolds = std::numeric_limits<std::size_t>::max();
        for (int n = 0; n < kSteps; ++n) {
            all.step(kDt);
            ASSERT_EQ(all.stats().islands, static_cast<std::size_t>(kBlocks)) << "step " << n;
            fewest_manifolds = std::min(fewest_manifolds, all.stats().manifolds);
        }
        // Five islands of about a fifth each: alone, each is large (256 manifolds or more).
        EXPECT_GE(fewest_manifolds, static_cast<std::size_t>(kBlocks) * 300u);
        for (int j = 0; j < kBlocks; ++j) {
            World alone(s);
            alone.create_body(floor_box(0.0f, 30.0f));
            const std::vector<BodyId> ids = add_block(alone, j);
            for (int n = 0; n < kSteps; ++n) alone.step(kDt);
            const std::vector<float> want = poses(alone, ids), got = poses(all, blocks[static_cast<std::size_t>(j)]);
            ASSERT_EQ(got.size(), want.size());
            EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
                << "block " << j << ", " << threads << " threads";
        }
        if (threads == 1)
            std::printf("[ soft     ] %d blocks of 108 cubes, at least %zu manifolds a step, each as alone\n", kBlocks,
                        fewest_manifolds);
    }
}

TEST(SoftStep, AHugeIslandSolvedInBlocksIsBitIdenticalForOneToFourThreads) {
    // An island of more than 65,536 manifolds is put in Morton order and solved block colour by block colour
    // (PositionSolver::block_island); the blocks and their colours depend on the island only, never on the threads.
    std::vector<float> reference;
    tumble::StepStats stats;
    for (int threads = 1; threads <= 4; ++threads) {
        WorldSettings s = soft();
        s.threads = threads;
        s.sleep.enabled = false;
        World w(s);
        const std::vector<BodyId> ids = build_block(w, 8, 30);
        for (int n = 0; n < 2; ++n) w.step(kDt);
        const std::vector<float> now = poses(w, ids);
        if (threads == 1) {
            reference = now;
            stats = w.stats();
            continue;
        }
        EXPECT_EQ(std::memcmp(now.data(), reference.data(), now.size() * sizeof(float)), 0) << threads << " threads";
    }
    std::printf("[ soft     ] %zu boxes, %zu manifolds in %zu island(s), identical for 1-4 threads\n",
                reference.size() / 10, stats.manifolds, stats.islands);
    EXPECT_EQ(stats.islands, 1u);
    EXPECT_GT(stats.manifolds, 65536u) << "the island must be large enough to be solved in blocks";
}

TEST(SoftStep, AHugeIslandGetsTheBitsItGetsAloneAfterSmallIslandsUsedItsScratch) {
    // The huge island runs in the first thread's scratch, which the step's small islands used before it and which
    // keeps what they and the last step left (PositionSolver's scratch is grown, never shrunk or cleared). What it
    // holds must never reach a result: the island beside 120 small stacks gets the bits it gets alone.
    constexpr int kSteps = 3;
    for (int threads = 1; threads <= 2; ++threads) {
        WorldSettings s = soft();
        s.threads = threads;
        s.sleep.enabled = false;
        World alone(s), beside(s);
        const std::vector<BodyId> ids = build_block(alone, 8, 30);
        build_block(beside, 8, 30);
        // Cubes beyond the block's edge (x > 15 m), each an island of its own: stood on a corner and spun about the
        // vertical, so that their one-point manifolds carry torsional friction (SoftNow::twist) in the scratch.
        // The turn that takes the body direction (-1, -1, -1) to straight down (-y): atan(sqrt 2) about (-1, 0, 1).
        const glm::quat on_corner = glm::angleAxis(std::atan(std::sqrt(2.0f)), glm::normalize(glm::vec3(-1, 0, 1)));
        const float corner_height = 0.25f * std::sqrt(3.0f);
        for (int j = 0; j < 120; ++j) {
            BodyDef d = box({17.0f + 1.5f * static_cast<float>(j % 8), corner_height + 0.001f,
                             -10.0f + 1.5f * static_cast<float>(j / 8)},
                            glm::vec3(0.25f));
            d.orientation = on_corner;
            d.angular_velocity = glm::vec3(0.0f, 3.0f + 0.1f * static_cast<float>(j % 7), 0.0f);
            beside.create_body(d);
        }
        for (int n = 0; n < kSteps; ++n) {
            alone.step(kDt);
            beside.step(kDt);
        }
        EXPECT_EQ(alone.stats().islands, 1u);
        EXPECT_EQ(beside.stats().islands, 121u);
        EXPECT_GT(alone.stats().manifolds, 65536u) << "the island must be large enough to be solved in blocks";
        const std::vector<float> want = poses(alone, ids), got = poses(beside, ids);
        ASSERT_EQ(got.size(), want.size());
        EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0) << threads << " threads";
    }
}

// A soft-step block of `layers` layers of 10 x 10 cubes, sleeping off, stepped `before` steps and saved, then 15
// steps more; and a second world built by the same calls restored from the snapshot and stepped 15 steps.
struct SavedAndRestored {
    WorldSettings settings;
    std::vector<BodyId> ids;
    std::vector<std::byte> saved;
    tumble::StepStats at_save;              // of the last step before the snapshot
    tumble::StepStats restored_first;       // of the restored world's first step
    std::vector<float> straight, restored;  // poses after the 15 steps: the world that ran on, the restored one
    bool same_bytes = false;                // the restored world saved the snapshot's bytes
};
SavedAndRestored save_and_restore(int layers, int before) {
    SavedAndRestored r;
    r.settings = soft();
    r.settings.sleep.enabled = false;
    World w(r.settings);
    r.ids = build_block(w, layers);
    for (int n = 0; n < before; ++n) w.step(kDt);
    r.at_save = w.stats();
    r.saved = w.save_state();
    for (int n = 0; n < 15; ++n) w.step(kDt);
    r.straight = poses(w, r.ids);
    World again(r.settings);
    build_block(again, layers);
    again.restore_state(r.saved);
    r.same_bytes = again.save_state() == r.saved;
    again.step(kDt);
    r.restored_first = again.stats();
    for (int n = 1; n < 15; ++n) again.step(kDt);
    r.restored = poses(again, r.ids);
    return r;
}
bool same_floats(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(SoftStep, WarmStartsAreSavedAndRestoredWithTheWorld) {
    // The impulses a step carries to the next (by feature id) are world state: a world restored from a snapshot
    // taken mid-run steps on bit for bit as the original. As a control, the same world with its contact memory
    // dropped (restored from a snapshot of the state before any contact) must differ, or the test shows nothing.
    const SavedAndRestored r = save_and_restore(4, 15);
    const WorldSettings& s = r.settings;
    const std::vector<BodyId>& ids = r.ids;
    const std::vector<float>& straight = r.straight;
    EXPECT_TRUE(r.same_bytes) << "a restored world saves other bytes";
    EXPECT_TRUE(same_floats(r.restored, straight));

    // Control: the bodies' state of step 15 without the contacts' memory (set body by body).
    World fresh(s);
    build_block(fresh, 4);
    for (int n = 0; n < 15; ++n) fresh.step(kDt);
    World amnesic(s);
    const std::vector<BodyId> amnesic_ids = build_block(amnesic, 4);
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const tumble::BodyState b = fresh.body(ids[i]);
        amnesic.set_position(amnesic_ids[i], b.position);
        amnesic.set_orientation(amnesic_ids[i], b.orientation);
        amnesic.set_velocity(amnesic_ids[i], b.velocity);
        amnesic.set_angular_velocity(amnesic_ids[i], b.angular_velocity);
    }
    for (int n = 0; n < 15; ++n) amnesic.step(kDt);
    EXPECT_NE(std::memcmp(poses(amnesic, amnesic_ids).data(), straight.data(), straight.size() * sizeof(float)), 0);
}

// ---- Kept manifolds (WorldSettings::manifold_reuse_distance)

// A cube resting on a two-triangle mesh floor, far from the triangles' shared edge, and a cube resting on it: one
// manifold with a triangle and one between the cubes. Sleeping off, so that the solver holds them.
struct TwoCubes {
    World world;
    BodyId bottom, top;
};
TwoCubes two_cubes_on_a_mesh(float reuse, SolverMethod method = SolverMethod::soft_step) {
    WorldSettings s = soft();
    s.solver.method = method;
    s.sleep.enabled = false;
    s.manifold_reuse_distance = reuse;
    TwoCubes out{World(s), {}, {}};
    out.world.add_mesh(gamescene::floor_mesh());
    out.bottom = out.world.create_body(box({2.0f, 0.25f, -2.0f}, glm::vec3(0.25f)));
    out.top = out.world.create_body(box({2.05f, 0.75f, -2.0f}, glm::vec3(0.25f)));
    return out;
}

TEST(SoftStep, RestingContactsAreKeptUntilTheApiMovesABody) {
    TwoCubes kept = two_cubes_on_a_mesh(5e-4f);
    TwoCubes found = two_cubes_on_a_mesh(0.0f);
    for (int n = 0; n < 120; ++n) {
        kept.world.step(kDt);
        found.world.step(kDt);
    }
    // At rest every point of both manifolds holds a force: both are kept, step after step.
    for (int n = 0; n < 10; ++n) {
        kept.world.step(kDt);
        found.world.step(kDt);
        ASSERT_EQ(kept.world.stats().manifolds, 2u);
        EXPECT_EQ(kept.world.stats().kept_manifolds, 2u) << "step " << n;
        EXPECT_EQ(found.world.stats().kept_manifolds, 0u) << "reuse distance 0 keeps nothing";
    }
    // The same rest as with every manifold found anew: the soft contacts' sinking (about 0.3 mm under the top cube,
    // the column test's springs) agrees to a tenth of it, and the top cube's offset along x is where it was put.
    for (BodyId id : {kept.bottom, kept.top}) {
        const glm::vec3 a = kept.world.body(id).position, b = found.world.body(id).position;
        EXPECT_LT(glm::length(a - b), 3e-5f)
            << "kept (" << a.x << ", " << a.y << ", " << a.z << ") found (" << b.x << ", " << b.y << ", " << b.z << ")";
    }
    // Moved by the API, the top cube's manifold with the bottom one is found again; the bottom's with the floor stays.
    kept.world.set_position(kept.top, kept.world.body(kept.top).position + glm::vec3(0.002f, 0.0f, 0.0f));
    kept.world.step(kDt);
    EXPECT_EQ(kept.world.stats().manifolds, 2u);
    EXPECT_EQ(kept.world.stats().kept_manifolds, 1u);
    kept.world.step(kDt);
    EXPECT_EQ(kept.world.stats().kept_manifolds, 2u) << "found again, then kept";
    // Setting the pose a body has is no move: the world steps on as a copy of it that is left alone, bit for bit.
    // (The top cube still creeps back from the move, so now and then its manifold has drifted the distance and is
    // found again, in both; most steps keep both manifolds.)
    TwoCubes twin = two_cubes_on_a_mesh(5e-4f);
    twin.world.restore_state(kept.world.save_state());
    std::size_t both_kept = 0;
    for (int n = 0; n < 10; ++n) {
        kept.world.set_position(kept.top, kept.world.body(kept.top).position);
        kept.world.step(kDt);
        twin.world.step(kDt);
        EXPECT_EQ(kept.world.stats().kept_manifolds, twin.world.stats().kept_manifolds) << "step " << n;
        EXPECT_EQ(kept.world.body(kept.top).position, twin.world.body(twin.top).position) << "step " << n;
        both_kept += kept.world.stats().kept_manifolds == 2 ? 1 : 0;
    }
    EXPECT_GE(both_kept, 5u);
    // set_settings drops every kept manifold.
    kept.world.set_settings(kept.world.settings());
    kept.world.step(kDt);
    EXPECT_EQ(kept.world.stats().kept_manifolds, 0u);
    // XPBD keeps nothing.
    TwoCubes xpbd = two_cubes_on_a_mesh(5e-4f, SolverMethod::xpbd);
    for (int n = 0; n < 130; ++n) {
        xpbd.world.step(kDt);
        EXPECT_EQ(xpbd.world.stats().kept_manifolds, 0u);
    }
}

TEST(SoftStep, AManifoldIsFoundAgainOnceItsBodiesHaveMovedTheReuseDistance) {
    // A cube sliding without friction on a mesh floor at v: it moves v dt a step. A manifold found in one step (its
    // drift: that step's motion) is kept in the k-th step after while its drift k v dt plus the step ahead, v dt,
    // stays under d: for (k + 1) v dt < d. At 1.32 cm/s (0.22 mm a step) and d = 1 mm, k <= 3: runs of 3 kept steps
    // between steps that find it (d / (v dt) = 4.5, far from a whole number, so round-off cannot change the count).
    // The first run, of the manifold found while the cube rested (drift about 0), has k v dt < d: 4 steps. At
    // 1.32 m/s nothing is kept.
    for (const float speed : {0.0132f, 1.32f}) {
        WorldSettings s = soft();
        s.sleep.enabled = false;
        s.manifold_reuse_distance = 1e-3f;
        World w(s);
        tumble::MeshMaterial ice;
        ice.friction = 0.0f;
        w.add_mesh(gamescene::floor_mesh(), ice);
        BodyDef d = box({2.0f, 0.25f, -2.0f}, glm::vec3(0.25f));
        d.friction = 0.0f;
        const BodyId cube = w.create_body(d);
        for (int n = 0; n < 60; ++n) w.step(kDt);  // settle into its contact spring
        w.set_velocity(cube, {speed, 0.0f, 0.0f});
        std::vector<int> runs{0};  // kept steps before the first step that finds it, then between finds
        int kept_steps = 0;
        for (int n = 0; n < 120; ++n) {
            w.step(kDt);
            ASSERT_EQ(w.stats().manifolds, 1u);
            if (w.stats().kept_manifolds == 1) {
                ++runs.back();
                ++kept_steps;
            } else {
                runs.push_back(0);
            }
        }
        const float per_step = glm::length(w.body(cube).velocity) * kDt;
        std::printf("[ soft     ] sliding at %.4f m/s (%.2g m a step): %d steps kept, %zu found, first run %d\n", speed,
                    per_step, kept_steps, runs.size() - 1, runs.front());
        EXPECT_NEAR(glm::length(w.body(cube).velocity), speed, 0.01f * speed) << "frictionless: it keeps its speed";
        if (speed > 0.1f) {
            EXPECT_EQ(kept_steps, 0);
            continue;
        }
        EXPECT_EQ(runs.front(), 4);
        ASSERT_GE(runs.size(), 3u);
        for (std::size_t r = 1; r + 1 < runs.size(); ++r) EXPECT_EQ(runs[r], 3) << "run " << r;  // the last may be cut
    }
}

// A vertical two-triangle wall in the plane x = `x`, from y = 0 to 1 and z = -3 to -1, its front facing -x.
tumble::TriangleMesh wall_at(float x) {
    tumble::TriangleMesh m;
    m.vertices = {{x, 0.0f, -3.0f}, {x, 0.0f, -1.0f}, {x, 1.0f, -1.0f}, {x, 1.0f, -3.0f}};
    m.indices = {0, 1, 2, 0, 2, 3};
    return m;
}

// The cube of two_cubes_on_a_mesh alone (its +x face at x = 2.25), with a wall 15 mm beyond that face: inside the
// broadphase box (2 cm margin), outside the speculative margin (1 cm plus the step's fall under gravity, 2.7 mm).
struct CubeByAWall {
    World world;
    BodyId cube;
};
CubeByAWall cube_by_a_wall(bool wall, bool sleep = false) {
    WorldSettings s = soft();
    s.sleep.enabled = sleep;
    s.manifold_reuse_distance = 5e-4f;
    CubeByAWall out{World(s), {}};
    out.world.add_mesh(gamescene::floor_mesh());
    if (wall) out.world.add_mesh(wall_at(2.265f));
    out.cube = out.world.create_body(box({2.0f, 0.25f, -2.0f}, glm::vec3(0.25f)));
    return out;
}

// A world restored from a snapshot of `w` steps as `w` does, its candidates (counted by `pairs`) included.
void expect_restored_twin_steps_the_same(CubeByAWall& w, CubeByAWall twin, std::size_t tumble::StepStats::*pairs) {
    twin.world.restore_state(w.world.save_state());
    for (int n = 0; n < 5; ++n) {
        w.world.step(kDt);
        twin.world.step(kDt);
        EXPECT_EQ(twin.world.stats().kept_candidate_bodies, w.world.stats().kept_candidate_bodies);
        EXPECT_EQ(twin.world.stats().*pairs, w.world.stats().*pairs);
        EXPECT_EQ(twin.world.body(twin.cube).position, w.world.body(w.cube).position);
    }
}

// Steps the cube at rest beside something beyond reach (`with`) and the same cube alone (`without`) 180 steps: the
// floor's one manifold a step; `pairs` counts `queried` candidates in a step that queries and `kept` in one that keeps
// its candidates (at least 150 steps keep them, at least one queries); and the thing beyond reach changes nothing,
// bit for bit, whether it is a candidate or not.
void expect_rests_as_alone(CubeByAWall& with, CubeByAWall& without, std::size_t tumble::StepStats::*pairs,
                           std::size_t kept_pairs, std::size_t queried_pairs, const char* what) {
    std::size_t queried = 0, kept = 0;
    for (int n = 0; n < 180; ++n) {
        with.world.step(kDt);
        without.world.step(kDt);
        const tumble::StepStats& st = with.world.stats();
        ASSERT_EQ(st.manifolds, 1u) << "step " << n << ": the floor's only";
        if (st.kept_candidate_bodies == 1) {
            ++kept;
            EXPECT_EQ(st.*pairs, kept_pairs) << "step " << n;
        } else {
            ++queried;
            EXPECT_EQ(st.*pairs, queried_pairs) << "step " << n;
        }
        ASSERT_EQ(with.world.body(with.cube).position, without.world.body(without.cube).position) << "step " << n;
        ASSERT_EQ(with.world.body(with.cube).orientation, without.world.body(without.cube).orientation);
    }
    std::printf("[ soft     ] a cube at rest by %s: %zu steps kept its candidates, %zu queried\n", what, kept, queried);
    EXPECT_GE(kept, 150u);
    EXPECT_GE(queried, 1u);
}

// Set moving towards +x at 1 m/s (17 mm a step), the cube queries again (finding `found` candidates counted by
// `pairs`), meets what stands with its face at x = `face` and stops at it.
void expect_stops_at(CubeByAWall& w, float face, std::size_t tumble::StepStats::*pairs, std::size_t found) {
    w.world.set_velocity(w.cube, {1.0f, 0.0f, 0.0f});
    w.world.step(kDt);
    EXPECT_EQ(w.world.stats().kept_candidate_bodies, 0u);
    EXPECT_EQ(w.world.stats().*pairs, found);
    for (int n = 0; n < 60; ++n) w.world.step(kDt);
    EXPECT_LT(w.world.body(w.cube).position.x + 0.25f, face + 1e-3f);
    EXPECT_GT(w.world.body(w.cube).position.x, 2.0f);
}

TEST(SoftStep, AStillBoxTakesItsTriangleCandidatesFromItsKeptManifolds) {
    // Resting, the cube's query finds both floor triangles and both wall triangles (4 candidates, 1 manifold). Once it
    // has moved less than the reuse distance since that query, its candidates are its one manifold's triangle.
    CubeByAWall by_wall = cube_by_a_wall(true);
    CubeByAWall alone = cube_by_a_wall(false);
    expect_rests_as_alone(by_wall, alone, &tumble::StepStats::triangle_pairs, 1u, 4u, "a wall");
    ASSERT_FALSE(HasFatalFailure());
    ASSERT_EQ(by_wall.world.stats().kept_candidate_bodies, 1u);

    // A snapshot carries how far the cube moved since its query: a world restored from it steps the same, its
    // candidates included.
    expect_restored_twin_steps_the_same(by_wall, cube_by_a_wall(true), &tumble::StepStats::triangle_pairs);
    // Set moving towards the wall, it queries again (both floor and both wall triangles), meets the wall and stops.
    expect_stops_at(by_wall, 2.265f, &tumble::StepStats::triangle_pairs, 4u);

    // A mesh added beside a still cube is queried at once: a wall 5 mm into its +x face pushes it back.
    for (int n = 0; n < 60; ++n) alone.world.step(kDt);
    ASSERT_EQ(alone.world.stats().kept_candidate_bodies, 1u);
    const float before = alone.world.body(alone.cube).position.x;
    alone.world.add_mesh(wall_at(2.245f));
    alone.world.step(kDt);
    EXPECT_EQ(alone.world.stats().kept_candidate_bodies, 0u);
    EXPECT_EQ(alone.world.stats().manifolds, 3u) << "the floor's and both wall triangles'";
    for (int n = 0; n < 30; ++n) alone.world.step(kDt);
    EXPECT_LT(alone.world.body(alone.cube).position.x, before - 4e-3f);
}

TEST(SoftStep, AMuchLongerStepMakesStillBodiesQueryTheMeshesAgain) {
    // A still cube's unqueried triangles were beyond its query's margin, which holds its fall under gravity in that
    // step: half the broadphase margin (1 cm) less the reuse distance (0.5 mm) covers dt up to sqrt(dt0^2 + 0.0095 /
    // 9.81) = 35 ms after steps of 1/60 s. A step of 1/50 s keeps its candidates; one of 1/20 s makes it query.
    CubeByAWall w = cube_by_a_wall(true);
    for (int n = 0; n < 60; ++n) w.world.step(kDt);
    ASSERT_EQ(w.world.stats().kept_candidate_bodies, 1u);
    w.world.step(1.0f / 50.0f);
    EXPECT_EQ(w.world.stats().kept_candidate_bodies, 1u) << "a little longer: kept";
    // A world restored from a snapshot remembers the shortest step too.
    CubeByAWall twin = cube_by_a_wall(true);
    twin.world.restore_state(w.world.save_state());
    w.world.step(1.0f / 20.0f);
    twin.world.step(1.0f / 20.0f);
    EXPECT_EQ(w.world.stats().kept_candidate_bodies, 0u) << "much longer: queried";
    EXPECT_EQ(w.world.stats().triangle_pairs, 4u);
    EXPECT_EQ(twin.world.stats().kept_candidate_bodies, 0u) << "restored";
    for (int n = 0; n < 3; ++n) w.world.step(kDt);
    EXPECT_EQ(w.world.stats().kept_candidate_bodies, 1u) << "kept again at 1/60 s";
}

TEST(SoftStep, ACubeWokenAfterSleepingQueriesTheMeshesAgain) {
    // Asleep, the cube's manifolds leave the contact cache: woken, it must query the floor again, not keep nothing.
    CubeByAWall w = cube_by_a_wall(false, true);
    for (int n = 0; n < 240 && w.world.stats().sleeping_bodies == 0; ++n) w.world.step(kDt);
    ASSERT_EQ(w.world.stats().sleeping_bodies, 1u);
    w.world.wake(w.cube);
    w.world.step(kDt);
    EXPECT_EQ(w.world.stats().kept_candidate_bodies, 0u);
    EXPECT_EQ(w.world.stats().manifolds, 1u);
    for (int n = 0; n < 10; ++n) w.world.step(kDt);
    EXPECT_NEAR(w.world.body(w.cube).position.y, 0.25f, 1e-3f) << "it stays on the floor";
}

// The cube of cube_by_a_wall on its mesh floor, with a static box beside it instead of the wall: its -x face 30 mm
// beyond the cube's +x face (x = 2.25), within both proxies' margins (2 cm each), outside the speculative margin of a
// body pair (1 cm for each body, plus the cube's fall under gravity in the step, 2.7 mm). The static box is created
// after the cube, so the cube's creation sequence is the same with it or without it.
CubeByAWall cube_by_a_static_box(bool with_box, bool sleep = false) {
    CubeByAWall out = cube_by_a_wall(false, sleep);
    if (with_box) out.world.create_body(box({2.28f + 0.25f, 0.25f, -2.0f}, glm::vec3(0.25f), 0.0f));
    return out;
}

TEST(SoftStep, AStillBoxTakesItsPairsWithRestingBodiesFromItsKeptManifolds) {
    // Resting, the cube's query of the resting octree finds the static box (1 body pair, no manifold). Once it has
    // moved less than the reuse distance since that query, its pairs with resting bodies are those of its manifolds:
    // none.
    CubeByAWall by_box = cube_by_a_static_box(true);
    CubeByAWall alone = cube_by_a_static_box(false);
    expect_rests_as_alone(by_box, alone, &tumble::StepStats::body_pairs, 0u, 1u, "a static box");
    ASSERT_FALSE(HasFatalFailure());

    // A restored world steps the same, its pairs included (the carried pairs' slots are worked out from their keys).
    expect_restored_twin_steps_the_same(by_box, cube_by_a_static_box(true), &tumble::StepStats::body_pairs);
    // Set moving towards the box, it queries again, meets the box and stops at it.
    expect_stops_at(by_box, 2.28f, &tumble::StepStats::body_pairs, 1u);

    // A static box created 5 mm into the +x face of a still cube is a candidate at once, and pushes it back.
    for (int n = 0; n < 60; ++n) alone.world.step(kDt);
    ASSERT_EQ(alone.world.stats().kept_candidate_bodies, 1u);
    const float before = alone.world.body(alone.cube).position.x;
    const BodyId pusher = alone.world.create_body(box({2.245f + 0.25f, 0.25f, -2.0f}, glm::vec3(0.25f), 0.0f));
    alone.world.step(kDt);
    EXPECT_EQ(alone.world.stats().kept_candidate_bodies, 0u);
    EXPECT_EQ(alone.world.stats().body_pairs, 1u);
    for (int n = 0; n < 30; ++n) alone.world.step(kDt);
    EXPECT_LT(alone.world.body(alone.cube).position.x, before - 4e-3f);

    // Moved by the API from far away to 5 mm into the still cube's -x face, a static box is a candidate at once too.
    alone.world.set_position(pusher, {10.0f, 0.25f, -2.0f});
    for (int n = 0; n < 60; ++n) alone.world.step(kDt);
    ASSERT_EQ(alone.world.stats().kept_candidate_bodies, 1u);
    ASSERT_EQ(alone.world.stats().body_pairs, 0u);
    const float x = alone.world.body(alone.cube).position.x;
    alone.world.set_position(pusher, {x - 0.25f + 0.005f - 0.25f, 0.25f, -2.0f});
    alone.world.step(kDt);
    EXPECT_EQ(alone.world.stats().kept_candidate_bodies, 0u);
    EXPECT_EQ(alone.world.stats().body_pairs, 1u);
    for (int n = 0; n < 30; ++n) alone.world.step(kDt);
    EXPECT_GT(alone.world.body(alone.cube).position.x, x + 4e-3f);
}

TEST(SoftStep, AStillBoxOnAStaticBoxKeepsThatPair) {
    // A cube resting on a static box (no mesh): once still, its one pair with a resting body is its manifold's, kept
    // from the contact cache, and it stays on the box; a world restored from a snapshot finds the same pair (the
    // carried pairs' slots are worked out from their keys).
    auto make = [] {
        WorldSettings s = soft();
        s.sleep.enabled = false;
        s.manifold_reuse_distance = 5e-4f;
        CubeByAWall out{World(s), {}};
        out.world.create_body(box({0.0f, -0.5f, 0.0f}, {5.0f, 0.5f, 5.0f}, 0.0f));
        out.cube = out.world.create_body(box({0.0f, 0.25f, 0.0f}, glm::vec3(0.25f)));
        return out;
    };
    CubeByAWall w = make();
    int kept = 0;
    for (int n = 0; n < 120; ++n) {
        w.world.step(kDt);
        ASSERT_EQ(w.world.stats().body_pairs, 1u) << "step " << n;
        ASSERT_EQ(w.world.stats().manifolds, 1u) << "step " << n;
        kept += static_cast<int>(w.world.stats().kept_candidate_bodies);
    }
    EXPECT_GE(kept, 100);
    EXPECT_NEAR(w.world.body(w.cube).position.y, 0.25f, 1e-3f);
    CubeByAWall twin = make();
    twin.world.restore_state(w.world.save_state());
    for (int n = 0; n < 30; ++n) {
        w.world.step(kDt);
        twin.world.step(kDt);
        ASSERT_EQ(twin.world.stats().kept_candidate_bodies, 1u) << "step " << n;
        ASSERT_EQ(twin.world.stats().body_pairs, 1u) << "step " << n;
        ASSERT_EQ(twin.world.body(twin.cube).position, w.world.body(w.cube).position) << "step " << n;
    }
}

TEST(SoftStep, ABoxFallingAsleepBesideAStillBoxMakesItQueryAgain) {
    // Two cubes 30 mm apart on a mesh floor: a pair of the broadphase (2 cm margin each), not near enough to share an
    // island (within 2 cm), and no manifold. The first is created 10 steps before the second, so it falls asleep
    // first, alone, while the second is awake and still: the sleeper enters the resting octree, which the still
    // cube's kept pairs do not hold, so it queries again in the next step and finds it.
    WorldSettings s = soft();
    s.manifold_reuse_distance = 5e-4f;
    World w(s);
    w.add_mesh(gamescene::floor_mesh());
    w.create_body(box({2.0f, 0.25f, -2.0f}, glm::vec3(0.25f)));
    for (int n = 0; n < 10; ++n) w.step(kDt);
    const BodyId second = w.create_body(box({2.53f, 0.25f, -2.0f}, glm::vec3(0.25f)));
    int fell = -1;
    for (int n = 0; n < 240 && fell < 0; ++n) {
        w.step(kDt);
        const tumble::StepStats& st = w.stats();
        ASSERT_EQ(st.manifolds, st.awake_bodies) << "step " << n << ": one floor manifold per awake cube, none between";
        if (st.sleeping_bodies == 1) fell = n;
    }
    ASSERT_GE(fell, 0) << "the first cube never fell asleep";
    ASSERT_FALSE(w.body(second).sleeping);
    w.step(kDt);
    EXPECT_EQ(w.stats().kept_candidate_bodies, 0u) << "the still cube queries";
    EXPECT_EQ(w.stats().body_pairs, 1u) << "and finds the sleeping cube";
    EXPECT_EQ(w.stats().sleeping_bodies, 1u) << "which it does not wake";
    int kept = 0;
    for (int n = 0; n < 5; ++n) {
        w.step(kDt);
        if (w.stats().kept_candidate_bodies == 1) {
            ++kept;
            EXPECT_EQ(w.stats().body_pairs, 0u) << "kept: no manifold, no pair";
        }
    }
    EXPECT_GE(kept, 3);
}

TEST(SoftStep, AStillBoxInASensorQueriesEveryStep) {
    // Sensor overlaps are not manifolds, so the contact cache does not hold them: a still cube inside a static sensor
    // queries the resting octree every step, and the overlap persists without an end event.
    CubeByAWall w = cube_by_a_wall(false);
    tumble::BodyDef trigger = box({2.0f, 0.5f, -2.0f}, glm::vec3(1.0f), 0.0f);
    trigger.sensor = true;
    w.world.create_body(trigger);
    int begins = 0, persists = 0, ends = 0;
    for (int n = 0; n < 120; ++n) {
        w.world.step(kDt);
        EXPECT_EQ(w.world.stats().kept_candidate_bodies, 0u) << "step " << n;
        for (const tumble::ContactEvent& e : w.world.contact_events()) {
            if (!e.sensor) continue;
            begins += e.type == tumble::ContactEventType::begin ? 1 : 0;
            persists += e.type == tumble::ContactEventType::persist ? 1 : 0;
            ends += e.type == tumble::ContactEventType::end ? 1 : 0;
        }
    }
    EXPECT_EQ(begins, 1);
    EXPECT_EQ(persists, 119);
    EXPECT_EQ(ends, 0);
    // Without the sensor the same cube keeps its candidates.
    CubeByAWall plain = cube_by_a_wall(false);
    for (int n = 0; n < 120; ++n) plain.world.step(kDt);
    EXPECT_EQ(plain.world.stats().kept_candidate_bodies, 1u);
}

TEST(SoftStep, APairMovingTogetherKeepsItsManifoldWhileItsMotionOverTheFloorDoesNot) {
    // Two stacked cubes on a frictionless mesh floor, both set sliding at 1.32 m/s (22 mm a step): the bottom cube's
    // manifold with the floor is found every step, but the top cube does not move against the bottom one, so their
    // manifold is kept (the drift of a body pair is B's displacement relative to A plus both turns). The stack's
    // motion is the one of a run that finds every manifold anew, to the tenth of the contacts' sinking.
    auto run = [](float reuse, std::size_t& kept_steps) {
        WorldSettings s = soft();
        s.sleep.enabled = false;
        s.manifold_reuse_distance = reuse;
        World w(s);
        tumble::MeshMaterial ice;
        ice.friction = 0.0f;
        w.add_mesh(gamescene::floor_mesh(), ice);
        const BodyId bottom = w.create_body(box({2.0f, 0.25f, -2.0f}, glm::vec3(0.25f)));
        const BodyId top = w.create_body(box({2.05f, 0.75f, -2.0f}, glm::vec3(0.25f)));
        for (int n = 0; n < 120; ++n) w.step(kDt);  // settle into the contact springs
        for (BodyId id : {bottom, top}) w.set_velocity(id, {1.32f, 0.0f, 0.0f});
        kept_steps = 0;
        for (int n = 0; n < 60; ++n) {
            w.step(kDt);
            EXPECT_EQ(w.stats().manifolds, 2u) << "step " << n;
            EXPECT_LE(w.stats().kept_manifolds, 1u) << "the floor's manifold moves 22 mm a step: never kept";
            kept_steps += w.stats().kept_manifolds;
        }
        return std::pair{w.body(bottom).position, w.body(top).position};
    };
    std::size_t kept_steps = 0, found_steps = 0;
    const auto [bottom, top] = run(5e-4f, kept_steps);
    const auto [bottom_found, top_found] = run(0.0f, found_steps);
    std::printf("[ soft     ] stack sliding at 1.32 m/s: the cubes' manifold kept in %zu of 60 steps\n", kept_steps);
    EXPECT_EQ(found_steps, 0u);
    EXPECT_EQ(kept_steps, 60u) << "velocities set by the API move nothing: kept from the first step";
    EXPECT_GT(bottom.x, 2.0f + 1.0f) << "it slid 1.32 m";
    EXPECT_LT(glm::length(bottom - bottom_found), 3e-5f);
    EXPECT_LT(glm::length(top - top_found), 3e-5f);
}

TEST(SoftStep, KeptManifoldsAreSavedAndRestoredWithTheWorld) {
    // Which manifolds the next step keeps, and how far their bodies have moved since they were found, are world
    // state: a world restored mid-run steps on bit for bit as the original. Control: the same restore followed by
    // set_settings (which drops the kept manifolds, nothing else in a world that never sleeps) must differ.
    const SavedAndRestored r = save_and_restore(2, 90);
    std::printf("[ soft     ] 200 boxes: %zu of %zu manifolds kept when saved\n", r.at_save.kept_manifolds,
                r.at_save.manifolds);
    EXPECT_GT(r.at_save.kept_manifolds, r.at_save.manifolds / 2)
        << "the snapshot must hold kept manifolds to test anything";
    EXPECT_TRUE(r.same_bytes) << "a restored world saves other bytes";
    EXPECT_GT(r.restored_first.kept_manifolds, 0u) << "the restored world must keep the manifolds it restored";
    EXPECT_TRUE(same_floats(r.restored, r.straight));

    World dropped(r.settings);
    build_block(dropped, 2);
    dropped.restore_state(r.saved);
    dropped.set_settings(r.settings);
    dropped.step(kDt);
    EXPECT_EQ(dropped.stats().kept_manifolds, 0u);
    for (int n = 1; n < 15; ++n) dropped.step(kDt);
    EXPECT_FALSE(same_floats(poses(dropped, r.ids), r.straight));
}

TEST(SoftStep, SettingsAndSceneKeys) {
    tumble::SolverSettings bad = soft().solver;
    bad.contact_hertz = 0.0f;
    EXPECT_THROW(tumble::validate(bad), tumble::InvalidArgument);
    bad.contact_hertz = NAN;
    EXPECT_THROW(tumble::validate(bad), tumble::InvalidArgument);
    bad = soft().solver;
    bad.method = static_cast<SolverMethod>(7);
    EXPECT_THROW(tumble::validate(bad), tumble::InvalidArgument);

    const tumble::Scene scene = tumble::parse_scene(
        R"({"version": 2, "world": {"solver": "soft_step", "substeps": 4, "contact_hertz": 45}})", "soft.json");
    EXPECT_EQ(scene.settings.solver.method, SolverMethod::soft_step);
    EXPECT_EQ(scene.settings.solver.contact_hertz, 45.0f);
    try {
        tumble::parse_scene(R"({"version": 2, "world": {"solver": "pgs"}})", "bad.json");
        ADD_FAILURE() << "an unknown solver was accepted";
    } catch (const tumble::FileError& e) {
        EXPECT_NE(std::string(e.what()).find("world.solver"), std::string::npos) << e.what();
    }
    EXPECT_THROW(tumble::parse_scene(R"({"version": 2, "world": {"contact_hertz": -1}})", "bad.json"),
                 tumble::FileError);

    WorldSettings reuse;
    for (const float bad_distance : {-1e-3f, NAN, INFINITY}) {
        reuse.manifold_reuse_distance = bad_distance;
        EXPECT_THROW(tumble::validate(reuse), tumble::InvalidArgument) << bad_distance;
        EXPECT_THROW(World{reuse}, tumble::InvalidArgument) << bad_distance;
    }
    const tumble::Scene kept =
        tumble::parse_scene(R"({"version": 2, "world": {"manifold_reuse_distance": 0.0005}})", "kept.json");
    EXPECT_EQ(kept.settings.manifold_reuse_distance, 0.0005f);
    try {
        tumble::parse_scene(R"({"version": 2, "world": {"manifold_reuse_distance": -1}})", "bad.json");
        ADD_FAILURE() << "a negative reuse distance was accepted";
    } catch (const tumble::FileError& e) {
        EXPECT_NE(std::string(e.what()).find("world.manifold_reuse_distance"), std::string::npos) << e.what();
    }
}

}  // namespace
