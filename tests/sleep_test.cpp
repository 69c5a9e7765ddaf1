// Sleeping: when bodies fall asleep (quiet time, islands), that sleeping bodies cost nothing in the step, and every
// way they wake (touched, moved, neighbours moved, support removed, settings changed, disabled sleep).

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include <tumble/tumble.hpp>

#include "support/game_scenes.hpp"
#include "support/test_util.hpp"

namespace {

using namespace gamescene;
using tumble::BodyId;
using tumble::World;

// A static ground box with its top at y = 0.
BodyId ground(World& w, float half = 10.0f) { return w.create_body(box({0, -0.5f, 0}, {half, 0.5f, half}, 0.0f)); }

// A stack of `n` boxes of half size h standing on y = base at (x, z), a hair apart.
std::vector<BodyId> stack(World& w, int n, float x = 0.0f, float z = 0.0f, float h = 0.25f, float base = 0.0f) {
    std::vector<BodyId> out;
    for (int i = 0; i < n; ++i)
        out.push_back(w.create_body(box({x, base + h + (2 * h + 0.001f) * static_cast<float>(i), z}, glm::vec3(h))));
    return out;
}

int steps_until_asleep(World& w, BodyId id, int limit = 600) {
    for (int n = 1; n <= limit; ++n) {
        w.step(kDt);
        if (w.body(id).sleeping) return n;
    }
    return -1;
}

bool all_asleep(const World& w, const std::vector<BodyId>& ids) {
    return std::all_of(ids.begin(), ids.end(), [&](BodyId id) { return w.body(id).sleeping; });
}
bool none_asleep(const World& w, const std::vector<BodyId>& ids) {
    return std::none_of(ids.begin(), ids.end(), [&](BodyId id) { return w.body(id).sleeping; });
}

TEST(Sleep, ABoxFallsAsleepAfterStayingQuietForTheSleepTime) {
    World w;
    ground(w);
    const BodyId b = w.create_body(box({0, 2, 0}));
    const tumble::SleepSettings sleep = w.settings().sleep;
    // Quiet (SleepSettings): no point farther than linear_velocity * time from the pose the quiet window began
    // at; the window begins again at the first step that leaves that ball. Followed here in double precision.
    const double reach = static_cast<double>(sleep.linear_velocity) * static_cast<double>(sleep.time);
    const double half_diagonal = glm::length(glm::dvec3(w.body(b).half_extents));
    int quiet_since = -1, asleep_at = -1;
    glm::dvec3 rest_position(0.0);
    glm::dquat rest_orientation(1.0, 0.0, 0.0, 0.0);
    for (int n = 1; n <= 300 && asleep_at < 0; ++n) {
        w.step(kDt);
        const tumble::BodyState s = w.body(b);
        if (s.sleeping) {
            asleep_at = n;
            break;
        }
        const glm::dquat turn = glm::conjugate(rest_orientation) * glm::dquat(s.orientation);
        const double angle = 2.0 * std::atan2(glm::length(glm::dvec3(turn.x, turn.y, turn.z)), std::abs(turn.w));
        const double drift = glm::length(glm::dvec3(s.position) - rest_position) + angle * half_diagonal;
        if (quiet_since < 0 || drift > reach) {
            quiet_since = n;
            rest_position = glm::dvec3(s.position);
            rest_orientation = glm::dquat(s.orientation);
        }
    }
    ASSERT_GT(asleep_at, 0);
    // Quiet from step quiet_since on; asleep once 0.5 s (30 steps of 1/60 s, up to float summation) have passed.
    EXPECT_GE(asleep_at - quiet_since + 1, 30);
    EXPECT_LE(asleep_at - quiet_since + 1, 31);
    const glm::vec3 rest = w.body(b).position;
    EXPECT_EQ(w.body(b).velocity, glm::vec3(0.0f));
    for (int n = 0; n < 60; ++n) {
        w.step(kDt);
        EXPECT_EQ(w.body(b).position, rest);
        EXPECT_EQ(w.stats().awake_bodies, 0u);
        EXPECT_EQ(w.stats().body_pairs, 0u);
        EXPECT_EQ(w.stats().contacts, 0u);
    }
    EXPECT_EQ(w.contacts().size(), 1u) << "the sleeping box still rests on the ground";
}

TEST(Sleep, AStackSleepsAsOneIslandAndSeparateStacksSleepApart) {
    World w;
    ground(w);
    const std::vector<BodyId> a = stack(w, 5, -3.0f);
    const std::vector<BodyId> b = stack(w, 2, 3.0f);
    // Stack b is disturbed later: a push at step 30 keeps it moving after stack a is quiet.
    int a_asleep = -1, b_asleep = -1;
    for (int n = 1; n <= 300; ++n) {
        if (n == 30) w.set_velocity(b[1], {0.3f, 0, 0});
        w.step(kDt);
        int sleeping_a = 0, sleeping_b = 0;
        for (BodyId id : a) sleeping_a += w.body(id).sleeping;
        for (BodyId id : b) sleeping_b += w.body(id).sleeping;
        EXPECT_TRUE(sleeping_a == 0 || sleeping_a == 5) << "step " << n << ": the stack's island sleeps as one";
        EXPECT_TRUE(sleeping_b == 0 || sleeping_b == 2) << "step " << n;
        if (sleeping_a == 5 && a_asleep < 0) a_asleep = n;
        if (sleeping_b == 2 && b_asleep < 0) b_asleep = n;
    }
    ASSERT_GT(a_asleep, 0);
    ASSERT_GT(b_asleep, 0);
    EXPECT_LT(a_asleep, b_asleep);
}

TEST(Sleep, ABodyLandingOnASleepingStackWakesItsWholeIsland) {
    World w;
    ground(w);
    const std::vector<BodyId> s = stack(w, 3);
    for (int n = 0; n < 120; ++n) w.step(kDt);
    ASSERT_TRUE(all_asleep(w, s));
    const BodyId falling = w.create_body(box({0, 3, 0}, glm::vec3(0.25f)));
    bool woke = false;
    for (int n = 0; n < 60 && !woke; ++n) {
        w.step(kDt);
        woke = none_asleep(w, s);
        if (!woke) {
            EXPECT_TRUE(all_asleep(w, s)) << "woken as an island, not one by one";
        }
    }
    EXPECT_TRUE(woke);
    // Then all four fall asleep together.
    EXPECT_GT(steps_until_asleep(w, falling), 0);
    EXPECT_TRUE(all_asleep(w, s));
    EXPECT_NEAR(w.body(falling).position.y, 1.75f, 0.02f);
}

TEST(Sleep, UserChangesWakeTheBodyAndItsNeighbours) {
    auto settled = [](World& w, std::vector<BodyId>& s) {
        ground(w);
        s = stack(w, 3, 0, 0, 0.25f, 0.0f);
        for (int n = 0; n < 120; ++n) w.step(kDt);
        ASSERT_TRUE(all_asleep(w, s));
    };
    {
        World w;
        std::vector<BodyId> s;
        settled(w, s);
        w.set_velocity(s[2], {1, 0, 0});
        EXPECT_TRUE(none_asleep(w, s)) << "set_velocity wakes the island";
    }
    {
        World w;
        std::vector<BodyId> s;
        settled(w, s);
        w.set_position(s[2], {5, 0.25f, 0});
        EXPECT_TRUE(none_asleep(w, s)) << "set_position wakes the island";
    }
    {
        World w;
        std::vector<BodyId> s;
        settled(w, s);
        w.set_orientation(s[0], glm::quat_cast(testutil::rotation_about({0, 1, 0}, 0.3)));
        EXPECT_TRUE(none_asleep(w, s)) << "set_orientation wakes the island";
    }
    {
        // Removing the support: the stack stands on a static platform that the user moves away.
        World w;
        ground(w);
        const BodyId platform = w.create_body(box({4, 1, 0}, {1, 0.1f, 1}, 0.0f));
        const std::vector<BodyId> s = stack(w, 2, 4, 0, 0.25f, 1.1f);
        for (int n = 0; n < 120; ++n) w.step(kDt);
        ASSERT_TRUE(all_asleep(w, s));
        w.set_position(platform, {-4, 1, 0});
        EXPECT_TRUE(none_asleep(w, s)) << "moving a body wakes the sleeping bodies next to its old box";
        for (int n = 0; n < 120; ++n) w.step(kDt);
        EXPECT_NEAR(w.body(s[0]).position.y, 0.25f, 0.02f) << "and they fall";
    }
    {
        World w;
        std::vector<BodyId> s;
        settled(w, s);
        w.destroy_body(s[0]);
        EXPECT_TRUE(none_asleep(w, {s[1], s[2]})) << "destroying a member wakes its island";
        for (int n = 0; n < 120; ++n) w.step(kDt);
        EXPECT_NEAR(w.body(s[1]).position.y, 0.25f, 0.02f);
    }
    {
        World w;
        const tumble::MeshId floor = w.add_mesh(floor_mesh());
        const std::vector<BodyId> s = stack(w, 2);
        for (int n = 0; n < 120; ++n) w.step(kDt);
        ASSERT_TRUE(all_asleep(w, s));
        w.remove_mesh(floor);
        EXPECT_TRUE(none_asleep(w, s)) << "removing the mesh they rest on wakes them";
        for (int n = 0; n < 60; ++n) w.step(kDt);
        EXPECT_LT(w.body(s[0]).position.y, -1.0f);
    }
    {
        World w;
        ground(w);
        const std::vector<BodyId> s = stack(w, 2);
        for (int n = 0; n < 120; ++n) w.step(kDt);
        ASSERT_TRUE(all_asleep(w, s));
        w.add_mesh(box_mesh({-3, 0.2f, -3}, {3, 0.3f, 3}));  // a slab through the bottom box
        EXPECT_TRUE(none_asleep(w, s)) << "a mesh added through sleeping bodies wakes them";
        const BodyId far = w.create_body(box({8, 0.5f, 8}));
        for (int n = 0; n < 120; ++n) w.step(kDt);
        ASSERT_TRUE(w.body(far).sleeping);
        tumble::WorldSettings s2 = w.settings();
        s2.gravity = {0, 9.81f, 0};
        w.set_settings(s2);
        EXPECT_FALSE(w.body(far).sleeping) << "new settings wake everything";
    }
}

TEST(Sleep, AMovingKinematicBodyWakesAndPushesSleepingBoxes) {
    World w;
    ground(w);
    const std::vector<BodyId> s = stack(w, 2);
    for (int n = 0; n < 120; ++n) w.step(kDt);
    ASSERT_TRUE(all_asleep(w, s));
    tumble::BodyDef pusher = box({-2, 0.5f, 0}, {0.5f, 0.5f, 0.5f}, 0.0f);
    pusher.kinematic = true;
    pusher.velocity = {1, 0, 0};
    const BodyId k = w.create_body(pusher);
    for (int n = 0; n < 90; ++n) w.step(kDt);
    EXPECT_TRUE(none_asleep(w, s)) << "kept awake while the kinematic body pushes";
    EXPECT_GT(w.body(s[0]).position.x, 0.2f) << "pushed";
    EXPECT_FALSE(w.body(k).sleeping);
}

TEST(Sleep, ASettledLevelCostsNothingAndKeepsItsContacts) {
    const tumble::ObjFile level = tumble::load_obj(kBundledLevel);
    World w;
    w.add_mesh(level.mesh);
    std::vector<BodyId> ids;
    testutil::Random rng(4);
    for (const tumble::SpawnPoint& sp : level.spawns)
        for (int i = 0; i < 6; ++i) {
            tumble::BodyDef d = box(sp.position + glm::vec3(0, 0.7f * static_cast<float>(i), 0), rng.vec(0.1, 0.3));
            d.orientation = rng.rotation();
            ids.push_back(w.create_body(d));
        }
    int steps = 0;
    while (!all_asleep(w, ids) && steps < 1200) {
        w.step(kDt);
        ++steps;
    }
    ASSERT_TRUE(all_asleep(w, ids)) << "after " << steps << " steps";
    const std::vector<tumble::ContactRecord> before(w.contacts().begin(), w.contacts().end());
    EXPECT_GT(before.size(), ids.size() / 2);
    float deepest = 0;
    for (const auto& c : before) deepest = std::max(deepest, c.contact.depth);
    EXPECT_LT(deepest, 0.01f);
    for (int n = 0; n < 60; ++n) {
        w.step(kDt);
        const tumble::StepStats& s = w.stats();
        EXPECT_EQ(s.awake_bodies, 0u);
        EXPECT_EQ(s.body_pairs, 0u);
        EXPECT_EQ(s.triangle_pairs, 0u);
        EXPECT_EQ(s.contacts, 0u);
        EXPECT_EQ(s.sleeping_bodies, ids.size());
    }
    const auto after = w.contacts();
    ASSERT_EQ(after.size(), before.size());
    for (std::size_t i = 0; i < before.size(); ++i) {
        EXPECT_EQ(after[i].a, before[i].a);
        EXPECT_EQ(after[i].contact.depth, before[i].contact.depth);
    }
    std::printf("[ sleep    ] %zu boxes on oa_dm1 all asleep after %d steps with %zu contacts kept\n", ids.size(), steps,
                before.size());
}

TEST(Sleep, DisabledSleepNeverSleepsAndBadSettingsAreRefused) {
    tumble::WorldSettings settings;
    settings.sleep.enabled = false;
    World w(settings);
    ground(w);
    const BodyId b = w.create_body(box({0, 0.5f, 0}));
    for (int n = 0; n < 600; ++n) w.step(kDt);
    EXPECT_FALSE(w.body(b).sleeping);
    EXPECT_EQ(w.stats().awake_bodies, 1u);
    for (auto bad : {-1.0f, std::numeric_limits<float>::quiet_NaN()}) {
        tumble::WorldSettings s;
        s.sleep.time = bad;
        EXPECT_THROW(World{s}, tumble::InvalidArgument);
        s = {};
        s.sleep.linear_velocity = bad;
        EXPECT_THROW(World{s}, tumble::InvalidArgument);
    }
    tumble::WorldSettings zero;
    zero.sleep.linear_velocity = 0.0f;
    EXPECT_THROW(World{zero}, tumble::InvalidArgument);
}

TEST(Sleep, RunsWithSleepAreRepeatable) {
    auto run = [] {
        World w;
        w.add_mesh(floor_mesh());
        testutil::Random rng(12);
        std::vector<BodyId> ids;
        for (int i = 0; i < 200; ++i) {
            tumble::BodyDef d = box(rng.vec(-2, 2) + glm::vec3(0, 3, 0), rng.vec(0.1, 0.3));
            d.orientation = rng.rotation();
            ids.push_back(w.create_body(d));
        }
        std::vector<int> asleep_at(ids.size(), -1);
        for (int n = 0; n < 400; ++n) {
            w.step(kDt);
            for (std::size_t i = 0; i < ids.size(); ++i)
                if (asleep_at[i] < 0 && w.body(ids[i]).sleeping) asleep_at[i] = n;
        }
        std::vector<glm::vec3> where;
        for (BodyId id : ids) where.push_back(w.body(id).position);
        return std::make_pair(asleep_at, where);
    };
    const auto a = run(), b = run();
    EXPECT_EQ(a.first, b.first);
    EXPECT_EQ(a.second, b.second);
    EXPECT_GT(std::count_if(a.first.begin(), a.first.end(), [](int n) { return n >= 0; }), 150);
}

}  // namespace
