#pragma once
/// @file
/// What the world's queries take and return (World::raycast, raycast_all, overlap_box, sweep_box). Conventions and
/// examples: docs/game.md.

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

#include <tumble/engine/ids.hpp>

namespace tumble {

/// Which shapes a query sees.
struct QueryFilter {
    std::uint64_t mask = kAllLayers;  ///< a body or mesh counts when (its layer & mask) != 0
    bool bodies = true;               ///< see bodies
    bool meshes = true;               ///< see static mesh triangles
    bool sensors = false;             ///< see sensor bodies too (they are skipped by default)
    /// Triangles are one-sided, as the solver treats them: by default rays and sweeps hit a triangle only from its
    /// front (counter-clockwise) side. True makes them two-sided. overlap_box is always two-sided.
    bool back_faces = false;
    BodyId ignore;                    ///< a body to skip, e.g. the one casting; null skips none
    /// Wake the sleeping bodies the query reports (for raycast and sweep_box, the one hit). Only the non-const
    /// overloads can wake; the const ones throw `InvalidArgument` when this is set.
    bool wake = false;
};

/// A ray hit. Exactly one of `body` and `mesh` is non-null.
struct RaycastHit {
    BodyId body;                 ///< the body hit, or null
    MeshId mesh;                 ///< the mesh hit, or null
    std::uint32_t triangle = 0;  ///< index of the triangle in its mesh (meshes only)
    glm::vec3 point{0.0f};       ///< world point of the hit, metres
    /// Unit surface normal at the hit, world frame, facing the ray (dot(normal, direction) <= 0): the outward face
    /// normal of a box, the front normal of a triangle hit from the front, its opposite for a back-face hit. A ray
    /// that starts inside a box gets -unit(direction) at distance 0.
    glm::vec3 normal{0.0f};
    float distance = 0.0f;       ///< metres from the origin along the unit direction
};

/// A triangle of a static mesh.
struct MeshTriangle {
    MeshId mesh;
    std::uint32_t triangle = 0;
    friend bool operator==(const MeshTriangle&, const MeshTriangle&) = default;
    friend auto operator<=>(const MeshTriangle&, const MeshTriangle&) = default;
};

/// What overlaps a box: bodies sorted by id, triangles sorted by mesh id then triangle index.
struct OverlapResult {
    std::vector<BodyId> bodies;
    std::vector<MeshTriangle> triangles;
    bool empty() const { return bodies.empty() && triangles.empty(); }
};

/// First contact of a swept box (World::sweep_box). Exactly one of `body` and `mesh` is non-null.
///
/// A shape the box already overlaps or touches at t = 0 is an obstacle only when the displacement moves into it
/// (dot(displacement, unit normal) > 1e-4 |displacement|); it is then reported with toi 0,
/// `initially_overlapping` and collide()'s normal and depth. A shape the box touches but leaves or slides along is
/// not reported, so a box resting on a floor can be swept sideways or up. With a zero displacement every overlapping
/// shape counts and the deepest is reported.
struct BoxSweepHit {
    float toi = 0.0f;                  ///< time of impact in [0, 1], fraction of the displacement
    glm::vec3 position{0.0f};          ///< the box centre at the time of impact, metres
    glm::vec3 normal{0.0f};            ///< unit, world frame, from the box towards what it hit
    BodyId body;                       ///< the body hit, or null
    MeshId mesh;                       ///< the mesh hit, or null
    std::uint32_t triangle = 0;        ///< triangle index in its mesh (meshes only)
    bool initially_overlapping = false;
    float depth = 0.0f;                ///< penetration at t = 0 when initially overlapping, metres
};

}  // namespace tumble
