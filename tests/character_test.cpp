// The character controller (World::move_and_slide): sliding along walls (the sliding vector of Fauerby 2003), corners,
// steps, slopes, ceilings, ground reports, depenetration, bad input, and a scripted walk through the real levels that
// must never end a frame inside geometry or below the floor.

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <gtest/gtest.h>

#include <tumble/tumble.hpp>

#include "support/game_scenes.hpp"
#include "support/test_util.hpp"

namespace {

using namespace gamescene;
using tumble::BodyId;
using tumble::CharacterMove;
using tumble::CharacterSettings;
using tumble::World;

const glm::vec3 kHalf(0.3f, 0.8f, 0.3f);  // a human-sized box

BodyId character(World& w, glm::vec3 p, glm::vec3 h = kHalf) {
    tumble::BodyDef d = box(p, h, 0.0f);
    d.kinematic = true;
    return w.create_body(d);
}

// True when the character's box overlaps nothing but itself (exact SAT, triangles two-sided).
bool free(const World& w, BodyId c) {
    tumble::QueryFilter f;
    f.ignore = c;
    f.sensors = true;
    return w.overlap_box(w.obb(c), f).empty();
}

// A ramp rising along +x at `degrees`, from x = x0 (at height 0) for `length` metres of run, 8 m wide.
tumble::TriangleMesh ramp(float degrees, float x0, float length) {
    const float rise = length * std::tan(glm::radians(degrees));
    tumble::TriangleMesh m;
    m.vertices = {{x0, 0, -4}, {x0 + length, rise, -4}, {x0 + length, rise, 4}, {x0, 0, 4}};
    m.indices = {0, 2, 1, 0, 3, 2};
    return m;
}

TEST(Character, WalksOnFlatGroundAndReportsIt) {
    World w;
    const tumble::MeshId floor = w.add_mesh(floor_mesh());
    const BodyId c = character(w, {0, 0.8f + 0.003f, 0});
    const CharacterMove m = w.move_and_slide(c, {1.0f, 0.0f, 0.5f});
    EXPECT_NEAR(m.position.x, 1.0f, 1e-5f);
    EXPECT_NEAR(m.position.z, 0.5f, 1e-5f);
    EXPECT_TRUE(m.on_ground);
    EXPECT_EQ(m.ground_mesh, floor);
    EXPECT_NEAR(m.ground_normal.y, 1.0f, 1e-6f);
    EXPECT_FALSE(m.hit_wall);
    EXPECT_EQ(w.body(c).position, m.position) << "the body moved with the move";
    // Gravity into the ground: stopped a skin above it, still on the ground.
    const CharacterMove down = w.move_and_slide(c, {0.0f, -0.5f, 0.0f});
    EXPECT_GE(down.position.y - 0.8f, 0.0f);
    EXPECT_LT(down.position.y - 0.8f, 0.011f);
    EXPECT_TRUE(down.on_ground);
}

TEST(Character, SlidesAlongAWallByRemovingTheNormalComponent) {
    // Collide and slide (Fauerby 2003; Quake III's PM_SlideMove): on hitting a wall, the remaining motion minus its
    // component along the face normal slides along it.
    World w;
    w.add_mesh(floor_mesh());
    w.create_body(box({2.0f, 1.5f, 0.0f}, {0.5f, 1.5f, 10.0f}, 0.0f));  // wall face at x = 1.5
    const BodyId c = character(w, {0, 0.805f, 0});
    const CharacterSettings s;
    const CharacterMove m = w.move_and_slide(c, {3.0f, 0.0f, 2.0f}, s);
    EXPECT_TRUE(m.hit_wall);
    // Stopped a skin short of the face along x ...
    EXPECT_LE(m.position.x + kHalf.x, 1.5f);
    EXPECT_GT(m.position.x + kHalf.x, 1.5f - 2.0f * s.skin);
    // ... and kept the whole tangential motion along z (the normal component of what was left was removed).
    EXPECT_NEAR(m.position.z, 2.0f, 1e-4f);
    EXPECT_NEAR(m.position.y, 0.805f, 1e-5f);
    // Straight into it: no motion along it, no jitter back.
    const CharacterMove stuck = w.move_and_slide(c, {1.0f, 0.0f, 0.0f}, s);
    EXPECT_NEAR(stuck.position.x, m.position.x, 1e-4f);
    EXPECT_NEAR(stuck.position.z, m.position.z, 1e-6f);
}

TEST(Character, StopsInACornerAndSlidesAlongACrease) {
    World w;
    w.add_mesh(floor_mesh());
    w.create_body(box({2.0f, 1.5f, 0.0f}, {0.5f, 1.5f, 10.0f}, 0.0f));  // face x = 1.5
    w.create_body(box({0.0f, 1.5f, 2.0f}, {10.0f, 1.5f, 0.5f}, 0.0f));  // face z = 1.5
    const BodyId c = character(w, {0, 0.805f, 0});
    const CharacterMove m = w.move_and_slide(c, {5.0f, 0.0f, 5.0f});
    EXPECT_TRUE(m.hit_wall);
    EXPECT_NEAR(m.position.x + kHalf.x, 1.5f, 0.02f);
    EXPECT_NEAR(m.position.z + kHalf.z, 1.5f, 0.02f);
    EXPECT_TRUE(free(w, c));
}

TEST(Character, ClimbsStepsUpToTheStepHeightAndNotHigher) {
    for (const float step : {0.2f, 0.34f, 0.5f}) {
        World w;
        w.add_mesh(floor_mesh());
        w.create_body(box({5.0f, step / 2.0f, 0.0f}, {3.0f, step / 2.0f, 3.0f}, 0.0f));  // a platform from x = 2
        const BodyId c = character(w, {0, 0.805f, 0});
        CharacterMove m;
        for (int n = 0; n < 60; ++n) m = w.move_and_slide(c, {0.1f, -0.05f, 0.0f});  // walking with gravity
        const CharacterSettings defaults;
        if (step <= defaults.step_height) {
            EXPECT_GT(m.position.x, 3.0f) << "step " << step;
            EXPECT_NEAR(m.position.y, step + 0.8f, 0.011f) << "step " << step;
            EXPECT_TRUE(m.on_ground);
        } else {
            EXPECT_LT(m.position.x, 2.0f - kHalf.x + 1e-3f) << "step " << step << " is too high";
            EXPECT_TRUE(m.hit_wall);
        }
        EXPECT_TRUE(free(w, c));
    }
}

TEST(Character, WalksUpAndDownWalkableSlopesAndNotUpSteepOnes) {
    for (const float degrees : {20.0f, 40.0f, 60.0f}) {
        World w;
        w.add_mesh(floor_mesh(0.0f, 4.0f));
        w.add_mesh(ramp(degrees, 4.0f, 6.0f));
        const BodyId c = character(w, {0, 0.805f, 0});
        for (int n = 0; n < 200; ++n) w.move_and_slide(c, {0.05f, -0.05f, 0.0f});
        const glm::vec3 p = w.body(c).position;
        if (degrees <= 45.0f) {
            EXPECT_GT(p.x, 8.0f) << degrees << " degrees: walkable";
            // Ground contact all the way back down: the slope snap keeps it on the ground every frame.
            int airborne = 0;
            for (int n = 0; n < 200; ++n) airborne += !w.move_and_slide(c, {-0.05f, -0.05f, 0.0f}).on_ground;
            EXPECT_EQ(airborne, 0) << degrees << " degrees";
            EXPECT_LT(w.body(c).position.x, 4.0f);
        } else {
            EXPECT_LT(p.x, 4.5f) << degrees << " degrees: too steep to climb";
        }
        EXPECT_TRUE(free(w, c));
    }
}

TEST(Character, HitsACeilingAndDepenetratesFromABodyThatMovedIntoIt) {
    World w;
    w.add_mesh(floor_mesh());
    w.create_body(box({0, 3.0f, 0}, {5, 0.5f, 5}, 0.0f));  // ceiling underside at y = 2.5
    const BodyId c = character(w, {0, 0.805f, 0});
    const CharacterMove jump = w.move_and_slide(c, {0.0f, 2.0f, 0.0f});
    EXPECT_TRUE(jump.hit_ceiling);
    EXPECT_NEAR(jump.position.y + kHalf.y, 2.5f, 0.011f);

    World v;
    v.add_mesh(floor_mesh());
    const BodyId d = character(v, {0, 0.805f, 0});
    v.create_body(box({0.5f, 0.8f, 0}, {0.3f, 0.8f, 0.3f}, 0.0f));  // overlaps the character by 0.1 m along x
    const CharacterMove out = v.move_and_slide(d, {0.0f, 0.0f, 0.0f});
    EXPECT_TRUE(out.depenetrated);
    EXPECT_TRUE(free(v, d));
    EXPECT_LT(out.position.x, -0.099f);
}

TEST(Character, WakesSleepingBoxesItWalksIntoAndBadInputChangesNothing) {
    World w;
    w.add_mesh(floor_mesh());
    const BodyId crate = w.create_body(box({2, 0.5f, 0}));
    const BodyId c = character(w, {0, 0.805f, 0});
    for (int n = 0; n < 90; ++n) w.step(kDt);
    ASSERT_TRUE(w.body(crate).sleeping);
    w.move_and_slide(c, {0.6f, 0.0f, 0.0f});
    EXPECT_TRUE(w.body(crate).sleeping) << "still 0.6 m away";
    const CharacterMove m = w.move_and_slide(c, {1.0f, 0.0f, 0.0f});
    EXPECT_TRUE(m.hit_wall);
    EXPECT_FALSE(w.body(crate).sleeping) << "moved up to it";

    const glm::vec3 before = w.body(c).position;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW(w.move_and_slide(c, {nan, 0, 0}), tumble::InvalidArgument);
    EXPECT_THROW(w.move_and_slide(crate, {1, 0, 0}), tumble::InvalidArgument) << "not kinematic";
    EXPECT_THROW(w.move_and_slide(BodyId{77, 3}, {1, 0, 0}), tumble::InvalidArgument);
    std::vector<CharacterSettings> bad(6);
    bad[0].up = {0, 2, 0};
    bad[1].max_slope = 1.6f;
    bad[2].step_height = -1.0f;
    bad[3].skin = 0.0f;
    bad[4].max_iterations = 0;
    bad[5].ground_snap = nan;
    for (const CharacterSettings& s : bad) EXPECT_THROW(w.move_and_slide(c, {1, 0, 0}, s), tumble::InvalidArgument);
    EXPECT_EQ(w.body(c).position, before);
}

// ---------------------------------------------------------------------------------------------------------------
// The level walk

struct Walk {
    int frames = 0;
    int on_ground = 0;
    int steps_up = 0;
    int jumps = 0;
    int wall_hits = 0;
    int inside = 0;       // frames that ended overlapping a level triangle (brute force, exact, two-sided)
    int below = 0;        // frames that ended with no front-facing floor below the centre, or under the level
    float distance = 0;   // metres walked horizontally
};

// Walks a character from a spawn point for `frames` frames at 60 Hz along a script: run at 5 m/s, pick a new
// heading every 1.5 s, turn away from walls, jump every 3 s; gravity while in the air.
Walk walk_level(const tumble::ObjFile& level, World& w, glm::vec3 start, int frames, std::uint64_t seed) {
    std::vector<tumble::Triangle> tris;
    std::vector<tumble::Aabb> boxes;
    for (std::size_t t = 0; t < level.mesh.triangle_count(); ++t) {
        tris.push_back(level.mesh.triangle(t));
        boxes.push_back(tris.back().aabb());
    }
    float lowest = std::numeric_limits<float>::max();
    for (const glm::vec3& v : level.mesh.vertices) lowest = std::min(lowest, v.y);

    testutil::Random rng(seed);
    const BodyId c = character(w, start);
    Walk r;
    float heading = rng.uniformf(0, 6.2831853f);
    float vy = 0.0f;
    bool grounded = false;
    for (int f = 0; f < frames; ++f) {
        if (f % 90 == 0) heading = rng.uniformf(0, 6.2831853f);
        if (grounded && f % 180 == 90) {
            vy = 5.0f;  // jump
            ++r.jumps;
        }
        vy = grounded && vy <= 0.0f ? -1.0f : vy - 9.81f * kDt;  // a little push keeps it pressed to the ground
        const glm::vec3 desired = glm::vec3(std::cos(heading), 0.0f, std::sin(heading)) * (5.0f * kDt) +
                                  glm::vec3(0.0f, vy * kDt, 0.0f);
        const glm::vec3 before = w.body(c).position;
        const CharacterMove m = w.move_and_slide(c, desired);
        grounded = m.on_ground;
        if (m.hit_ceiling && vy > 0.0f) vy = 0.0f;
        if (m.hit_wall) {
            ++r.wall_hits;
            heading += rng.uniformf(1.5, 3.5);
        }
        r.on_ground += m.on_ground;
        r.steps_up += m.stepped_up;
        r.distance += glm::length(glm::vec2(m.position.x - before.x, m.position.z - before.z));
        ++r.frames;

        // Inside geometry? Every triangle, exact SAT, both sides.
        const tumble::Obb o = w.obb(c);
        const tumble::Aabb bounds = o.aabb();
        for (std::size_t t = 0; t < tris.size(); ++t)
            if (boxes[t].overlaps(bounds) && tumble::overlap(o, tris[t])) {
                ++r.inside;
                break;
            }
        // Under the floor? The nearest triangle straight below the centre must face up at it, and the centre must
        // be above the level's lowest point.
        const V origin(o.center), down(0, -1, 0);
        std::optional<TriHit> below;
        for (std::size_t t = 0; t < tris.size(); ++t) {
            const tumble::Aabb& b = boxes[t];
            if (o.center.x < b.min.x || o.center.x > b.max.x || o.center.z < b.min.z || o.center.z > b.max.z ||
                b.min.y > o.center.y)
                continue;  // cannot be straight below
            if (const auto h = brute_ray_triangle(tris[t], origin, down, 1e4L); h && (!below || h->t < below->t)) below = h;
        }
        if (!below || !below->front || o.center.y < lowest) ++r.below;
    }
    return r;
}

TEST(Character, ScriptedWalkThroughRealLevelsNeverEndsInsideGeometryOrBelowTheFloor) {
    Walk total;
    for (const auto& path : levels()) {
        const tumble::ObjFile level = tumble::load_obj(path);
        World w;
        w.add_mesh(level.mesh);
        Walk sum;
        const std::size_t spawns = std::min<std::size_t>(level.spawns.size(), 8);
        for (std::size_t i = 0; i < spawns; ++i) {
            const Walk r = walk_level(level, w, level.spawns[i].position, 900, 100 + i);
            sum.frames += r.frames, sum.on_ground += r.on_ground, sum.steps_up += r.steps_up, sum.jumps += r.jumps;
            sum.wall_hits += r.wall_hits, sum.inside += r.inside, sum.below += r.below, sum.distance += r.distance;
        }
        std::printf("[ walk     ] %-15s %zu walks, %d frames, %.0f m walked, on the ground %d frames, %d steps climbed, "
                    "%d jumps, %d wall hits: %d frames inside geometry, %d below the floor\n",
                    path.filename().string().c_str(), spawns, sum.frames, static_cast<double>(sum.distance),
                    sum.on_ground, sum.steps_up, sum.jumps, sum.wall_hits, sum.inside, sum.below);
        EXPECT_EQ(sum.inside, 0) << path.filename();
        EXPECT_EQ(sum.below, 0) << path.filename();
        // At most 5 m/s: it should cover at least half of that, not stand stuck against walls.
        EXPECT_GT(sum.distance, 0.5f * 5.0f * kDt * static_cast<float>(sum.frames)) << path.filename();
        EXPECT_GT(sum.wall_hits, 0);
        total.frames += sum.frames;
    }
    EXPECT_GE(total.frames, 7200);
}

}  // namespace
