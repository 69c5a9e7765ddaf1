#pragma once
/// @file
/// A kinematic box character moved through a level with World::move_and_slide. Algorithm and conventions:
/// engine/src/character.cpp, docs/game.md.

#include <cstdint>

#include <glm/glm.hpp>

#include <tumble/engine/ids.hpp>
#include <tumble/engine/query.hpp>

namespace tumble {

/// How the character moves. The defaults suit a human-sized box (half extents ~0.3 x 0.9 x 0.3 m) at 60 Hz.
struct CharacterSettings {
    glm::vec3 up{0.0f, 1.0f, 0.0f};  ///< unit vector opposite to gravity (world frame)
    /// Steepest walkable ground, radians in [0, pi/2): steeper surfaces are walls, the character neither stands on
    /// them nor climbs them by sliding. 45 degrees by default.
    float max_slope = 0.7853982f;
    /// Highest ledge climbed without jumping, metres (>= 0). Quake's STEPSIZE is 18 units, about 0.46 m.
    float step_height = 0.35f;
    /// Distance kept between the character and what it touches, metres (> 0): every sweep stops this far short, so
    /// the next one starts free and sliding along a wall is not an initial overlap.
    float skin = 0.005f;
    /// Slide iterations per move (>= 1): each one sweeps what is left of the motion and removes its component into
    /// the surface hit (the sliding vector of Fauerby 2003 and Quake III's PM_SlideMove). Four settle corners and
    /// creases.
    int max_iterations = 4;
    /// While on the ground and not moving up, the character is pulled down onto walkable ground up to this far
    /// below (metres, >= 0), so it follows slopes and steps down instead of launching off them. The pull also
    /// covers the drop of a max_slope slope over the horizontal distance moved.
    float ground_snap = 0.35f;
    /// What the character collides with; its own body is always ignored and sensors never block it.
    QueryFilter filter;
};

/// Throws `InvalidArgument` when a setting is out of its range or not finite, or `up` is not unit (within 1e-3).
void validate(const CharacterSettings& settings);

/// The outcome of one World::move_and_slide.
struct CharacterMove {
    glm::vec3 position{0.0f};      ///< centre after the move, metres
    glm::vec3 displacement{0.0f};  ///< motion actually made, metres
    bool on_ground = false;        ///< standing on walkable ground (slope <= max_slope within skin + 1 cm below)
    glm::vec3 ground_normal{0.0f}; ///< unit surface normal of that ground (facing up), zero when not on ground
    BodyId ground_body;            ///< the body stood on, or null
    MeshId ground_mesh;            ///< the mesh stood on, or null
    std::uint32_t ground_triangle = 0;
    bool hit_wall = false;         ///< a wall (or too steep a slope) removed part of the motion
    bool hit_ceiling = false;      ///< something above stopped upward motion
    bool stepped_up = false;       ///< the move climbed a step
    bool depenetrated = false;     ///< the character started inside something and was pushed out first
    int iterations = 0;            ///< slide iterations used by the final path
};

}  // namespace tumble
