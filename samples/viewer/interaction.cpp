#include "interaction.hpp"

#include <algorithm>
#include <cmath>

#include <glm/gtc/quaternion.hpp>

namespace tumble::viewer {

int Stepper::steps_for_frame(double frame_seconds, const RunSettings& s) {
    const double step_seconds = 1.0 / static_cast<double>(s.rate_hz);
    int steps = 0;
    if (!s.paused) {
        accumulator_ += std::max(frame_seconds, 0.0) * static_cast<double>(s.speed);
        // Rounding: a frame of exactly one step's length must give one step, not zero and a remainder.
        steps = static_cast<int>(std::floor(accumulator_ / step_seconds + 1e-9));
        if (steps > s.max_steps_per_frame) {
            steps = s.max_steps_per_frame;
            accumulator_ = 0.0;  // too slow to keep up: drop the time rather than fall further behind
        } else {
            accumulator_ = std::max(accumulator_ - steps * step_seconds, 0.0);
        }
    } else {
        accumulator_ = 0.0;
    }
    if (single_step_ && steps == 0) steps = 1;
    single_step_ = false;
    return steps;
}

BodyDef thrown_box(const Ray& ray, const std::optional<glm::vec3>& aim, const glm::vec3& gravity, samples::Rng& rng) {
    BodyDef def;
    def.half_extents = {rng.uniform(0.15f, 0.35f), rng.uniform(0.15f, 0.35f), rng.uniform(0.15f, 0.35f)};
    def.orientation = rng.rotation();
    def.position = ray.origin + ray.direction * 1.0f;
    def.ccd = true;
    def.velocity = ray.direction * 20.0f;
    if (aim) {
        const glm::vec3 d = *aim - def.position;
        const float length = glm::length(d);
        if (length > 1e-3f) {
            const float speed = std::clamp(length / 1.0f, 15.0f, 80.0f);
            const float time = length / speed;
            def.velocity = d / time - 0.5f * gravity * time;  // x(t) = x0 + v t + g t^2 / 2 reaches the aim at t = time
        }
    }
    return def;
}

std::optional<Grab> grab_body(const World& world, const Ray& ray, BodyId* hit_body) {
    if (hit_body) *hit_body = BodyId{};
    const std::optional<RaycastHit> hit = world.raycast(ray.origin, ray.direction, 1e6f);
    if (!hit || hit->body.is_null()) return std::nullopt;
    if (hit_body) *hit_body = hit->body;
    const BodyState b = world.body(hit->body);
    if (!b.is_dynamic() || b.kinematic) return std::nullopt;
    Grab g;
    g.body = hit->body;
    g.local_anchor = glm::inverse(b.orientation) * (hit->point - b.position);
    g.distance = hit->distance;
    g.target = hit->point;
    g.start = b.position;
    return g;
}

glm::vec3 grab_anchor(const World& world, const Grab& grab) {
    const BodyState b = world.body(grab.body);
    return b.position + b.orientation * grab.local_anchor;
}

void pull_grabbed(World& world, const Grab& grab, float dt) {
    if (!world.is_valid(grab.body)) return;
    const BodyState b = world.body(grab.body);
    if (!b.is_dynamic() || b.kinematic || !(dt > 0.0f)) return;
    // A critically damped spring (2 Hz) from the grabbed point to the target, applied at the grabbed point so the
    // box swings about it, plus the weight it holds up; the acceleration is capped so a far target does not
    // throw the box through the level. Explicit over the step: stable while 2 pi 2 Hz dt stays well below 1.
    constexpr float kFrequency = 2.0f;         // hertz
    constexpr float kMaxAcceleration = 200.0f;  // metres per second squared
    const float omega = 6.2831853f * kFrequency;
    const glm::vec3 anchor = grab_anchor(world, grab);
    const glm::vec3 point_velocity = b.velocity + glm::cross(b.angular_velocity, anchor - b.position);
    glm::vec3 a = omega * omega * (grab.target - anchor) - 2.0f * omega * point_velocity - world.settings().gravity;
    const float length = glm::length(a);
    if (length > kMaxAcceleration) a *= kMaxAcceleration / length;
    world.apply_force(grab.body, b.mass * a, anchor);
    // Damp the spin a little (the spring alone lets a box hanging by a corner swing for a long time).
    world.apply_torque(grab.body, -0.5f * omega * (b.orientation * (b.inertia * (glm::inverse(b.orientation) * b.angular_velocity))));
}

}  // namespace tumble::viewer
