#pragma once
// Small rigid-body scenes shared by the solver methods' tests (rigid_body_test.cpp: XPBD, soft_step_test.cpp: the soft
// step): boxes, a floor, a head-on collision and a box on a ramp, each with the world settings under test.

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <glm/gtc/quaternion.hpp>

#include <tumble/tumble.hpp>

namespace rigid_scenes {

using tumble::BodyDef;
using tumble::BodyId;
using tumble::World;
using tumble::WorldSettings;

constexpr float kDt = 1.0f / 60.0f;
constexpr float kG = 9.81f;
constexpr float kPi = 3.14159265358979f;

inline BodyDef box(glm::vec3 position, glm::vec3 half_extents, float mass = 1.0f) {
    BodyDef d;
    d.position = position;
    d.half_extents = half_extents;
    d.mass = mass;
    return d;
}

inline BodyDef floor_box(float top = 0.0f, float half = 20.0f) {
    return box({0.0f, top - 0.5f, 0.0f}, {half, 0.5f, half}, 0.0f);
}

inline WorldSettings no_gravity() {
    WorldSettings s;
    s.gravity = glm::vec3(0.0f);
    s.sleep.enabled = false;
    return s;
}

// World-frame inertia tensor of a solid box with orientation q.
inline glm::mat3 world_inertia(const tumble::BodyState& s) {
    const glm::mat3 r = glm::mat3_cast(s.orientation);
    const glm::mat3 local(glm::vec3(s.inertia.x, 0, 0), glm::vec3(0, s.inertia.y, 0), glm::vec3(0, 0, s.inertia.z));
    return r * local * glm::transpose(r);
}

// Angle in degrees between the vertical and the box axis nearest to it.
inline float tilt_degrees(const glm::quat& q) {
    const glm::mat3 r = glm::mat3_cast(q);
    float best = 0.0f;
    for (int i = 0; i < 3; ++i) best = std::max(best, std::abs(r[i].y));
    return std::acos(std::min(best, 1.0f)) * 180.0f / kPi;
}

struct Collision {
    float light, heavy;  // final x velocities, m/s
    float spin;          // largest angular speed of either box at the end, rad/s
};

inline Collision head_on(float restitution, WorldSettings settings = no_gravity()) {
    // A 1 kg box at 5 m/s hits a resting 9 kg box square on, no gravity and no friction. Momentum 5 kg m/s is shared:
    // restitution 0 leaves both at 0.5 m/s, restitution 1 gives -4 and +1 m/s.
    World w(settings);
    BodyDef light = box({0, 0, 0}, glm::vec3(0.25f), 1.0f);
    light.velocity = {5, 0, 0};
    light.friction = 0.0f;
    light.restitution = restitution;
    BodyDef heavy = box({1.0f, 0, 0}, glm::vec3(0.25f), 9.0f);
    heavy.friction = 0.0f;
    heavy.restitution = restitution;
    const BodyId a = w.create_body(light), b = w.create_body(heavy);
    for (int n = 0; n < 30; ++n) w.step(kDt);
    const tumble::BodyState sa = w.body(a), sb = w.body(b);
    return {sa.velocity.x, sb.velocity.x, std::max(glm::length(sa.angular_velocity), glm::length(sb.angular_velocity))};
}

// The 1D answer for head_on: the momentum of 5 kg m/s is kept (to float round-off, 1e-3); restitution 0 leaves both
// at 0.5 m/s (1e-3), restitution 1 gives -4 and +1 m/s (0.25 % of the 4 m/s); a square hit turns nothing.
inline void expect_head_on_answer(const Collision& c, float restitution) {
    EXPECT_NEAR(c.light + 9.0f * c.heavy, 5.0f, 1e-3f);
    if (restitution == 0.0f) {
        EXPECT_NEAR(c.light, 0.5f, 1e-3f);
        EXPECT_NEAR(c.heavy, 0.5f, 1e-3f);
    } else {
        EXPECT_NEAR(c.light, -4.0f, 0.01f);
        EXPECT_NEAR(c.heavy, 1.0f, 0.01f);
    }
    EXPECT_LT(c.spin, 1e-3f);
}

struct Slide {
    float distance;  // along the ramp, metres
    float turn;      // angle turned, degrees
};

// A 0.5 m cube on a static ramp of 30 degrees (friction of both `mu`), released at rest, followed for `steps`.
inline Slide on_ramp(float mu, int steps, const WorldSettings& settings = WorldSettings{}) {
    World w(settings);
    const glm::quat tilt = glm::angleAxis(kPi / 6.0f, glm::vec3(0, 0, 1));
    BodyDef ramp = box({0, 0, 0}, {20.0f, 0.5f, 2.0f}, 0.0f);
    ramp.orientation = tilt;
    ramp.friction = mu;
    w.create_body(ramp);
    const glm::vec3 up = tilt * glm::vec3(0, 1, 0);
    const glm::vec3 start = up * (0.5f + 0.25f);
    BodyDef d = box(start, glm::vec3(0.25f));
    d.orientation = tilt;
    d.friction = mu;
    const BodyId id = w.create_body(d);
    for (int n = 0; n < steps; ++n) w.step(kDt);
    const tumble::BodyState s = w.body(id);
    const glm::vec3 down = tilt * glm::vec3(-1, 0, 0);
    const float angle = 2.0f * std::acos(std::min(1.0f, std::abs(glm::dot(s.orientation, tilt)))) * 180.0f / kPi;
    return {glm::dot(s.position - start, down), angle};
}

// A 1 m cube of restitution 0.5 dropped with its bottom face 1 m above the floor, followed for up to 2 s: whether it
// bounced, and how high its bottom face rose after the first bounce (metres).
struct Bounce {
    bool bounced = false;
    float apex = 0.0f;
};
inline Bounce drop_and_bounce(const WorldSettings& settings = WorldSettings{}) {
    World w(settings);
    w.create_body(floor_box());
    BodyDef d = box({0, 1.5f, 0}, glm::vec3(0.5f));
    d.restitution = 0.5f;
    const BodyId id = w.create_body(d);
    Bounce out;
    for (int n = 0; n < 120; ++n) {
        w.step(kDt);
        const tumble::BodyState s = w.body(id);
        if (!out.bounced && s.velocity.y > 0.0f) out.bounced = true;
        if (out.bounced) {
            out.apex = std::max(out.apex, s.position.y - 0.5f);
            if (s.velocity.y < 0.0f) break;
        }
    }
    return out;
}

// A 1 m cube tilted 30 degrees about z, dropped onto the floor from just above, after `steps` steps.
inline tumble::BodyState tilted_cube_after(int steps, const WorldSettings& settings = WorldSettings{}) {
    World w(settings);
    w.create_body(floor_box());
    BodyDef d = box({0, 0.8f, 0}, glm::vec3(0.5f));
    d.orientation = glm::angleAxis(kPi / 6.0f, glm::vec3(0, 0, 1));
    const BodyId id = w.create_body(d);
    for (int n = 0; n < steps; ++n) w.step(kDt);
    return w.body(id);
}

// A ledge (static box, top at y = 1, edge at x = 0) and two 1 m cubes resting on it for 3 s: one with its centre
// 0.3 m past the edge, one 0.3 m inside it. The largest tilt of the hanging cube while its centre was above the
// ledge's foot (degrees), and both cubes at the end.
struct Ledge {
    float tipped = 0.0f;
    tumble::BodyState hanging, resting;
};
inline Ledge cubes_on_a_ledge(const WorldSettings& settings = WorldSettings{}) {
    World w(settings);
    w.create_body(box({-2.0f, 0.5f, 0.0f}, {2.0f, 0.5f, 4.0f}, 0.0f));
    const BodyId hanging = w.create_body(box({0.3f, 1.5f, -1.5f}, glm::vec3(0.5f)));
    const BodyId resting = w.create_body(box({-0.3f, 1.5f, 1.5f}, glm::vec3(0.5f)));
    Ledge out;
    for (int n = 0; n < 180; ++n) {
        w.step(kDt);
        const tumble::BodyState h = w.body(hanging);
        if (h.position.y > 0.0f) out.tipped = std::max(out.tipped, tilt_degrees(h.orientation));
    }
    out.hanging = w.body(hanging);
    out.resting = w.body(resting);
    return out;
}

// What cubes_on_a_ledge must give: the hanging cube tips (past 30 degrees) and falls off; the one on the ledge stays
// where it was (5 mm) and upright (0.5 degrees).
inline void expect_ledge_answer(const Ledge& l) {
    EXPECT_LT(l.hanging.position.y, 0.5f) << "the hanging cube must fall off the ledge";
    EXPECT_GT(l.tipped, 30.0f) << "it must tip over the edge, not slide off flat";
    EXPECT_NEAR(l.resting.position.x, -0.3f, 0.005f);
    EXPECT_NEAR(l.resting.position.y, 1.5f, 0.005f);
    EXPECT_LT(tilt_degrees(l.resting.orientation), 0.5f);
}

// 210 cubes of 0.5 m in rows of 20 down to 1, each row resting on the gaps of the one below (touching), on a static
// floor: the boxes with where they were placed.
inline std::vector<std::pair<BodyId, glm::vec3>> twenty_row_pyramid(World& w) {
    w.create_body(floor_box(0.0f, 30.0f));
    std::vector<std::pair<BodyId, glm::vec3>> boxes;
    const float h = 0.25f;
    for (int row = 0; row < 20; ++row)
        for (int i = 0; i < 20 - row; ++i) {
            const glm::vec3 p((2.0f * static_cast<float>(i) - static_cast<float>(19 - row)) * h,
                              h + 2.0f * h * static_cast<float>(row), 0.0f);
            boxes.emplace_back(w.create_body(box(p, glm::vec3(h))), p);
        }
    return boxes;
}

}  // namespace rigid_scenes
