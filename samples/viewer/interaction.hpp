#pragma once
/// @file
/// What the viewer does to a world, apart from drawing it: advancing it with the frames (play, pause, single step,
/// slow motion, step rate, substeps), throwing boxes from the camera, and dragging a picked body with a spring.
/// No graphics here: the tests run these on plain worlds.

#include <optional>

#include <tumble/tumble.hpp>

#include "camera.hpp"
#include "drop_scene.hpp"

namespace tumble::viewer {

/// How the simulation follows the frames.
struct RunSettings {
    bool paused = false;
    float speed = 1.0f;     ///< simulated seconds per real second; below 1 is slow motion (0.01..4)
    float rate_hz = 60.0f;  ///< steps per simulated second: each step advances 1 / rate_hz seconds (1..1000)
    int substeps = 1;       ///< World::step calls per step, each of 1 / (rate_hz * substeps) seconds (1..64)
    int max_steps_per_frame = 4;  ///< a slow frame runs at most this many steps and drops the rest of its time
};

/// Turns frame times into a number of steps with an accumulator, so the simulated time follows the real time
/// times `RunSettings::speed` at a fixed step (Fiedler, "Fix Your Timestep!", 2004).
class Stepper {
public:
    /// The steps to run for a frame that lasted `frame_seconds` (>= 0): none while paused except one after
    /// request_single_step(); time beyond `max_steps_per_frame` steps is dropped.
    int steps_for_frame(double frame_seconds, const RunSettings& settings);
    /// Makes the next steps_for_frame return at least one step, paused or not.
    void request_single_step() { single_step_ = true; }
    /// Forgets accumulated time (after a reset or a scene change).
    void clear() { accumulator_ = 0.0; single_step_ = false; }

private:
    double accumulator_ = 0.0;  // simulated seconds not yet stepped
    bool single_step_ = false;
};

/// The box thrown from the camera along `ray`: a dynamic 1 kg box of random size (half extents 0.15-0.35 m) and
/// orientation from `rng`, starting 1 m in front of the eye, with continuous collision detection on. When `aim`
/// is given (the point under the cursor) the velocity is the lob that reaches it under `gravity` after flying
/// |aim - start| / s seconds, s = clamp(|aim - start| / 1 s, 15, 80) m/s; otherwise it is 20 m/s along the ray.
BodyDef thrown_box(const Ray& ray, const std::optional<glm::vec3>& aim, const glm::vec3& gravity, samples::Rng& rng);

/// A body held by the mouse: its grabbed point is pulled towards `target`, a point that stays `distance` metres
/// from the eye along the ray through the cursor.
struct Grab {
    BodyId body;
    glm::vec3 local_anchor{0.0f};  ///< the grabbed point in the body's frame, metres
    float distance = 0.0f;         ///< metres from the eye to the grabbed point when it was picked
    glm::vec3 target{0.0f};        ///< world point the anchor is pulled towards
    glm::vec3 start{0.0f};         ///< the body's centre when it was picked (world)
};

/// Picks the closest body along `ray` (World::raycast, bodies and level triangles both block it). A dynamic body
/// hit gives a Grab whose target is the hit point; anything else (a static or kinematic body, the level, nothing)
/// gives none. `hit_body`, when not null, receives the body hit whatever its kind (null for the level or nothing).
std::optional<Grab> grab_body(const World& world, const Ray& ray, BodyId* hit_body = nullptr);

/// The grabbed point in the world (metres). Throws InvalidArgument when the body is gone.
glm::vec3 grab_anchor(const World& world, const Grab& grab);

/// Pulls the grabbed body for one World::step of `dt` seconds (> 0) with a critically damped 2 Hz spring between
/// the grabbed point and the target, applied there with World::apply_force (so the box swings about the point it
/// hangs from) and holding up its weight, acceleration capped at 200 m/s^2, plus a light damping torque
/// (World::apply_torque). Call it before every World::step while the body is held. Does nothing when the body is
/// gone or not dynamic.
void pull_grabbed(World& world, const Grab& grab, float dt);

}  // namespace tumble::viewer
