#pragma once
// Small rigid-body scenes shared by the solver methods' tests (rigid_body_test.cpp: XPBD, soft_step_test.cpp: the soft
// step): boxes, a floor, a head-on collision and a box on a ramp, each with the world settings under test.

#include <algorithm>
#include <cmath>

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

}  // namespace rigid_scenes
