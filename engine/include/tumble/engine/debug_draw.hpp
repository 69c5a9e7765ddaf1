#pragma once
/// @file
/// Debug drawing: an interface the game implements and World::debug_draw calls (Box2D's b2DebugDraw, qu3e's
/// q3Render). Everything is world frame, metres; colours are linear RGB in [0, 1].

#include <string_view>

#include <glm/glm.hpp>

#include <tumble/engine/ids.hpp>
#include <tumble/narrowphase/shapes.hpp>

namespace tumble {

/// Implemented by the game. Only `line` is required; `box` and `point` default to lines, `body` to `box`, `text` to
/// nothing.
class DebugDraw {
public:
    virtual ~DebugDraw() = default;
    /// A segment from `from` to `to`.
    virtual void line(const glm::vec3& from, const glm::vec3& to, const glm::vec3& color) = 0;
    /// An oriented box; the default draws its 12 edges with `line`.
    virtual void box(const Obb& box, const glm::vec3& color);
    /// A body's box (DebugDrawOptions::bodies): `id` names the body, `color` is its DebugColors colour by kind and
    /// sleep state. Proxies and octree cells come through `box` instead, so a game that draws bodies filled, or in
    /// colours of its own per body, tells them apart here. The default calls `box(box, color)`.
    virtual void body(BodyId id, const Obb& box, const glm::vec3& color);
    /// A point drawn `size` metres across; the default draws three crossed segments with `line`.
    virtual void point(const glm::vec3& position, float size, const glm::vec3& color);
    /// A label at a world position; the default draws nothing.
    virtual void text(const glm::vec3& position, std::string_view text, const glm::vec3& color);
};

/// What World::debug_draw shows.
struct DebugDrawOptions {
    bool bodies = true;          ///< each body's box, coloured by kind and sleep state (DebugColors)
    bool sleep_labels = false;   ///< text "sleeping" above sleeping bodies (through DebugDraw::text)
    bool proxies = false;        ///< each body's broadphase proxy (its AABB with margin, swept during the step)
    bool octree_cells = false;   ///< the occupied cells of both loose octrees (cell bound, not the loose bound)
    bool contacts = true;        ///< contacts: a point, the normal as a segment of normal_length, the depth in red
    bool depth_labels = false;   ///< text with each contact's depth in millimetres
    bool meshes = false;         ///< every static mesh triangle's edges (a level has thousands)
    float normal_length = 0.25f; ///< metres
};

/// The colours World::debug_draw uses.
struct DebugColors {
    static constexpr glm::vec3 awake{0.2f, 0.9f, 0.3f};      ///< awake dynamic body
    static constexpr glm::vec3 sleeping{0.35f, 0.45f, 0.9f}; ///< sleeping dynamic body
    static constexpr glm::vec3 fixed{0.55f, 0.55f, 0.55f};   ///< static body (and mesh triangles)
    static constexpr glm::vec3 kinematic{0.95f, 0.8f, 0.2f}; ///< kinematic body
    static constexpr glm::vec3 sensor{0.9f, 0.3f, 0.9f};     ///< sensor body
    static constexpr glm::vec3 proxy{0.3f, 0.8f, 0.8f};      ///< broadphase proxy
    static constexpr glm::vec3 cell{0.4f, 0.4f, 0.25f};      ///< occupied octree cell
    static constexpr glm::vec3 contact{1.0f, 1.0f, 1.0f};    ///< contact point and normal
    static constexpr glm::vec3 depth{1.0f, 0.15f, 0.1f};     ///< penetration depth along the normal
};

}  // namespace tumble
