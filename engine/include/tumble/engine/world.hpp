#pragma once
/// @file
/// The world: owns box bodies and static triangle meshes and runs the step.
///
/// The step is position-based dynamics (Mueller et al., "Position Based Dynamics", 2007) with Tumble's
/// translation-only position-correction solver. Its stages, in order (World::step):
///   1. predict:      v += g dt, x_predicted = x + v dt for every dynamic body;
///   2. broadphase:   loose-octree pairs of body AABBs swept from x to x_predicted, and BVH queries of each dynamic
///                    body against the static meshes;
///   3. narrowphase + solve: `settings.solver.iterations` passes that re-test every candidate with the SAT at the
///                    current positions and push overlapping shapes apart, with friction;
///   4. velocities:   v = (x_corrected - x) / dt;
///   5. report:       the contacts that remain at the final positions, readable with `contacts()`.

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include <tumble/engine/mesh.hpp>
#include <tumble/narrowphase/shapes.hpp>
#include <tumble/solver/position_solver.hpp>

namespace tumble {

/// Stable handle of a body: a slot index and a generation that changes when the slot is reused, so a handle to a
/// destroyed body is detected (`World::is_valid`) instead of silently naming another body. Zero-initialised is null.
struct BodyId {
    std::uint32_t index = 0;
    std::uint32_t generation = 0;  ///< 0 only for the null id
    bool is_null() const { return generation == 0; }
    friend bool operator==(const BodyId&, const BodyId&) = default;
    friend auto operator<=>(const BodyId&, const BodyId&) = default;
};

/// Stable handle of a static mesh, same scheme as BodyId.
struct MeshId {
    std::uint32_t index = 0;
    std::uint32_t generation = 0;
    bool is_null() const { return generation == 0; }
    friend bool operator==(const MeshId&, const MeshId&) = default;
    friend auto operator<=>(const MeshId&, const MeshId&) = default;
};

/// Description of a box body. All vectors are world frame.
struct BodyDef {
    glm::vec3 position{0.0f};                        ///< centre, metres
    glm::quat orientation{1.0f, 0.0f, 0.0f, 0.0f};   ///< unit quaternion (w, x, y, z); body axes = columns of its matrix
    glm::vec3 half_extents{0.5f};                    ///< metres, >= 0 on every axis
    glm::vec3 velocity{0.0f};                        ///< metres per second
    float mass = 1.0f;                               ///< kilograms, > 0 for a dynamic body; 0 makes the body static
};

/// A body's current state (read-only view; change a body with the World setters).
struct BodyState {
    glm::vec3 position{0.0f};
    glm::quat orientation{1.0f, 0.0f, 0.0f, 0.0f};
    glm::vec3 half_extents{0.0f};
    glm::vec3 velocity{0.0f};
    float mass = 0.0f;
    bool is_static() const { return mass == 0.0f; }
};

/// World settings. Defaults: Earth gravity along -Y, the solver defaults.
struct WorldSettings {
    glm::vec3 gravity{0.0f, -9.81f, 0.0f};  ///< metres per second squared
    SolverSettings solver;
    /// Extra margin added around each body's swept AABB in the broadphase (metres, >= 0), so that contacts created
    /// by the solver's own corrections within a step are already candidates.
    float broadphase_margin = 0.02f;
    /// Contacts with static geometry use only its real corners (default true). Mesh triangles get their active-edge
    /// flags when the mesh is added (compute_active_edges, tumble/broadphase/mesh_adjacency.hpp), and a contact that
    /// comes from an inactive edge or vertex is replaced by the triangle's face normal (mesh_contact). Static boxes
    /// get the faces that a flush static neighbour covers when they are created, moved or destroyed (covered_faces,
    /// tumble/narrowphase/active_edges.hpp; coplanar within 1e-4 of the larger box's largest half extent), and no
    /// contact pushes through those faces or their seams (box_contact). Together these keep boxes from catching on
    /// the interior edges of tessellated floors and grids of boxes ("ghost collisions"). false treats every triangle
    /// edge and every box face as a real corner, as the exact SAT sees them: for comparisons and tests.
    bool active_edges_only = true;
};

/// Throws `InvalidArgument` when a setting is out of range or not finite.
void validate(const WorldSettings& settings);

/// A contact present after the last step. For body-body contacts `mesh` is null; for body-mesh contacts `b` is null
/// and `triangle` is the triangle's index in the mesh. `contact.normal` points from `a` towards `b` (or the
/// triangle); `contact.depth` is the remaining penetration in metres.
struct ContactRecord {
    BodyId a;
    BodyId b;
    MeshId mesh;
    std::uint32_t triangle = 0;
    Contact contact;
};

/// Counts and timings of the last step.
struct StepStats {
    std::size_t body_pairs = 0;      ///< candidate body pairs from the broadphase
    std::size_t triangle_pairs = 0;  ///< candidate body-triangle pairs from the mesh BVHs
    std::size_t contacts = 0;        ///< contacts remaining after the step
};

/// A simulation world. Not copyable; movable. Not thread-safe: call it from one thread at a time.
///
/// Errors: every member that takes user data validates it first and throws `InvalidArgument` (or `FileError`)
/// with a message naming what was wrong; the world is then unchanged.
class World {
public:
    explicit World(const WorldSettings& settings = {});
    ~World();
    World(World&&) noexcept;
    World& operator=(World&&) noexcept;
    World(const World&) = delete;
    World& operator=(const World&) = delete;

    const WorldSettings& settings() const;
    /// Replaces the settings (validated first).
    void set_settings(const WorldSettings& settings);

    /// Adds a box. Throws `InvalidArgument` for a non-finite value, a negative half extent or mass, or an
    /// orientation whose length differs from 1 by more than 1e-3 (a smaller error is normalised away).
    BodyId create_body(const BodyDef& def);
    /// Removes a body. Throws `InvalidArgument` for a null, stale or unknown id.
    void destroy_body(BodyId id);
    /// True when `id` names a live body.
    bool is_valid(BodyId id) const;
    /// Number of live bodies.
    std::size_t body_count() const;

    /// Current state. Throws `InvalidArgument` for an invalid id.
    BodyState body(BodyId id) const;
    /// The body's box in world frame. Throws `InvalidArgument` for an invalid id.
    Obb obb(BodyId id) const;
    /// Teleports a body (metres, world). Throws for an invalid id or a non-finite position.
    void set_position(BodyId id, const glm::vec3& position);
    /// Sets a body's velocity (m/s, world). Throws for an invalid id or a non-finite value.
    void set_velocity(BodyId id, const glm::vec3& velocity);
    /// Sets a body's orientation; same rules as BodyDef::orientation.
    void set_orientation(BodyId id, const glm::quat& orientation);

    /// Adds a static triangle mesh (copied; world frame). Throws `InvalidArgument` naming the first bad triangle
    /// or vertex (see TriangleMesh::validate); an empty mesh is allowed.
    MeshId add_mesh(const TriangleMesh& mesh);
    /// Removes a mesh. Throws `InvalidArgument` for an invalid id.
    void remove_mesh(MeshId id);
    /// Number of triangles in a mesh. Throws for an invalid id.
    std::size_t mesh_triangle_count(MeshId id) const;

    /// Advances the world by `dt` seconds (finite, > 0; typically 1/60). Throws `InvalidArgument` otherwise,
    /// before changing anything.
    void step(float dt);

    /// Contacts remaining after the last step, body pairs first (ordered by the bodies' creation order), then
    /// body-triangle contacts (ordered by body creation, mesh creation, triangle). Valid until the next call that
    /// changes the world.
    std::span<const ContactRecord> contacts() const;
    /// Counts of the last step.
    const StepStats& stats() const;

    /// Calls `f(BodyId)` for every live body in slot order.
    template <class F>
    void for_each_body(F&& f) const {
        for (std::uint32_t i = 0, n = slot_count(); i < n; ++i) {
            const BodyId id = id_at(i);
            if (!id.is_null()) f(id);
        }
    }

private:
    std::uint32_t slot_count() const;
    BodyId id_at(std::uint32_t slot) const;  // null when the slot is free

    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace tumble
