#pragma once
/// @file
/// The world: owns box bodies and static triangle meshes and runs the step.
///
/// The step is extended position-based dynamics for rigid bodies in substeps (Mueller, Macklin, Chentanez, Jeschke
/// and Kim, "Detailed Rigid Body Simulation with Extended Position Based Dynamics", 2020; Macklin et al., "Small
/// Steps in Physics Simulation", 2019): boxes with mass, inertia, rotation, friction and restitution. Its stages, in
/// order (World::step; docs/architecture.md gives the equations):
///   1. integrate:    the awake bodies' motion over the step is predicted (for the broadphase and the speculative
///                    margin), forces and torques are gathered;
///   2. broadphase:   loose-octree pairs of body AABBs swept over that motion, and BVH queries of each dynamic body
///                    against the static meshes;
///   3. narrowphase:  one contact manifold per touching or nearly touching candidate (speculative margin), up to 4
///                    points, with anchors on each body;
///   4. solve:        `settings.solver.substeps` substeps: integrate, correct positions and orientations at the
///                    anchors, derive velocities, restitution and dynamic friction;
///   5. velocities:   the solver's state written back to the bodies, forces cleared;
///   6. report:       the contacts at the final positions (`contacts()`), sensor overlaps, contact events;
///   7. sleep:        islands that stayed quiet fall asleep; proxies move to the final boxes.
///
/// Only awake bodies take part (docs/game.md): sleeping bodies, static bodies and kinematic bodies at rest sit in a
/// second loose octree that awake bodies query, so a sleeping scene costs nothing per step.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include <tumble/engine/character.hpp>
#include <tumble/engine/debug_draw.hpp>
#include <tumble/engine/events.hpp>
#include <tumble/engine/ids.hpp>
#include <tumble/engine/mesh.hpp>
#include <tumble/engine/query.hpp>
#include <tumble/narrowphase/shapes.hpp>
#include <tumble/solver/position_solver.hpp>

namespace tumble {

/// Smallest mass of a dynamic body, kilograms (a milligram). Below it the inverse mass times a contact's impulse
/// overflows float within a step and the pose becomes NaN; `create_body` and scene files refuse such masses.
inline constexpr float kMinDynamicMass = 1e-6f;

/// Smallest `dt` that `World::step` takes, seconds (a microsecond). The solver divides corrections by the substep
/// (dt / substeps); a denormal dt made that overflow into NaN velocities.
inline constexpr float kMinStep = 1e-6f;

/// Description of a box body. All vectors are world frame.
///
/// Kinds of body: dynamic (`mass` > 0: gravity, forces, contacts and friction move and turn it), static (`mass` 0,
/// never moves) and kinematic (`kinematic` true: moved only by its velocity and angular velocity, `set_position` or
/// `move_and_slide`; never pushed, and it pushes dynamic bodies as a static body would; `mass` is ignored).
/// A dynamic box is a solid box of uniform density: its inertia is `box_inertia(mass, half_extents)`.
struct BodyDef {
    glm::vec3 position{0.0f};                        ///< centre (of mass), metres
    glm::quat orientation{1.0f, 0.0f, 0.0f, 0.0f};   ///< unit quaternion (w, x, y, z); body axes = columns of its matrix
    glm::vec3 half_extents{0.5f};                    ///< metres, >= 0 on every axis
    glm::vec3 velocity{0.0f};                        ///< metres per second (ignored for static bodies)
    glm::vec3 angular_velocity{0.0f};                ///< radians per second, world frame (ignored for static bodies)
    float mass = 1.0f;                               ///< kilograms, >= kMinDynamicMass for a dynamic body; 0 static
    /// Coulomb friction coefficient (dimensionless, >= 0), static and dynamic. A pair uses sqrt(a * b) (Box2D v3,
    /// Jolt): a box rests on a slope of angle t when tan(t) <= that. Typical 0.2-1.
    float friction = 0.6f;
    /// Coefficient of restitution (0..1): the share of the normal approach speed a contact gives back. A pair uses
    /// max(a, b). Impacts slower than SolverSettings::restitution_threshold are inelastic.
    float restitution = 0.0f;
    /// Keeps the body's orientation: contacts and torques never turn it (characters, and the translation-only
    /// response of a plain SAT, each body pushed back by half the depth). Its angular velocity stays 0 unless it is
    /// kinematic.
    bool fixed_rotation = false;
    bool kinematic = false;                          ///< moved by the user only (see above)
    /// A sensor (trigger volume) reports overlaps as contact events (`ContactEvent::sensor`) but never pushes and is
    /// never pushed. Sensors detect dynamic and kinematic bodies, not static bodies, meshes or other sensors.
    bool sensor = false;
    std::uint64_t layer = kDefaultLayer;             ///< collision layer bits this body is on
    std::uint64_t mask = kAllLayers;                 ///< layer bits this body collides with
    /// Continuous collision detection for a dynamic body, so that a fast box cannot pass through a thin wall
    /// (engine/src/ccd.cpp, docs/game.md): while its points move more than a quarter of its smallest half extent in a
    /// step, its contacts with static geometry (meshes, static and sleeping bodies, kinematic bodies at rest) are
    /// found where its motion first touches them (exact swept SAT, narrowphase/sweep.hpp), and after the solve its
    /// translation is swept again; if the solver let it through something, it goes back to where it first touched
    /// it. Not against other awake bodies.
    bool ccd = false;
};

/// A body's current state (read-only view; change a body with the World setters). World frame, SI units.
struct BodyState {
    glm::vec3 position{0.0f};
    glm::quat orientation{1.0f, 0.0f, 0.0f, 0.0f};
    glm::vec3 half_extents{0.0f};
    glm::vec3 velocity{0.0f};
    glm::vec3 angular_velocity{0.0f};  ///< radians per second, world frame
    float mass = 0.0f;  ///< 0 for static and kinematic bodies
    glm::vec3 inertia{0.0f};  ///< principal moments in the body frame, kg m^2 (0 for static and kinematic bodies)
    float friction = 0.0f;
    float restitution = 0.0f;
    bool fixed_rotation = false;
    bool kinematic = false;
    bool sensor = false;
    bool sleeping = false;  ///< a dynamic body asleep (see SleepSettings)
    bool ccd = false;
    std::uint64_t layer = kDefaultLayer;
    std::uint64_t mask = kAllLayers;
    bool is_static() const { return mass == 0.0f && !kinematic; }
    bool is_dynamic() const { return mass != 0.0f; }
};

/// When bodies fall asleep. A dynamic body is quiet while none of its points has moved farther from where it was
/// when it became quiet than a point moving at `linear_velocity` would in `time` (centre displacement plus turn
/// angle times the half diagonal: 2.5 cm by default), so a box that trembles in place in a pile counts as quiet and
/// one that creeps at the threshold speed does not; an island (bodies
/// linked by body-body contacts, found by union-find over the step's contacts) falls asleep when all its bodies have
/// been quiet for `time` seconds and none touches a moving kinematic body. A sleeping body keeps its contacts, costs
/// nothing per step, and wakes (with its whole island) when an awake body touches it, when the user moves or
/// changes it or a body or mesh next to it, or when a query with `QueryFilter::wake` reports it.
/// Thresholds after Box2D (b2_linearSleepTolerance, b2_timeToSleep); the displacement test after Jolt
/// (PhysicsSettings::mPointVelocitySleepThreshold, mTimeBeforeSleep).
struct SleepSettings {
    bool enabled = true;            ///< on by default, as in game engines
    float linear_velocity = 0.05f;  ///< metres per second, > 0
    float time = 0.5f;              ///< seconds, >= 0
};

/// World settings. Defaults: Earth gravity along -Y, the solver defaults.
struct WorldSettings {
    glm::vec3 gravity{0.0f, -9.81f, 0.0f};  ///< metres per second squared
    SolverSettings solver;
    /// Speculative margin (metres, >= 0): each body's broadphase box is its box swept over the step's predicted
    /// motion grown by this much, and a pair gets a contact manifold when its shapes are within this distance plus
    /// the distance their motion can close in the step. Contacts found at the start of the step therefore cover
    /// everything the step's substeps can bring into touch (nothing tunnels for lack of a contact).
    float broadphase_margin = 0.02f;
    /// Contacts with static geometry use only its real corners (default true). Mesh triangles get their active-edge
    /// flags when the mesh is added (compute_active_edges, tumble/narrowphase/mesh_adjacency.hpp), and a contact that
    /// comes from an inactive edge or vertex is replaced by the triangle's face normal (mesh_contact). Static boxes
    /// get the faces that a flush static neighbour covers when they are created, moved or destroyed (covered_faces,
    /// tumble/narrowphase/active_edges.hpp; coplanar within 1e-4 of the larger box's largest half extent), and no
    /// contact pushes through those faces or their seams (box_contact). Together these keep boxes from catching on
    /// the interior edges of tessellated floors and grids of boxes ("ghost collisions"). false treats every triangle
    /// edge and every box face as a real corner, as the exact SAT sees them: for comparisons and tests.
    bool active_edges_only = true;
    /// Kept manifolds (metres, >= 0; 0: off; read by SolverMethod::soft_step only). A contact manifold of one step is
    /// kept for the next instead of being found again while its two bodies' motion since the narrowphase found it,
    /// plus how far their velocities at the start of the step carry them in it, stays under this distance. Motion is
    /// summed over the steps since: with a mesh triangle, the body's centre displacement plus its turn (radians) times
    /// its half diagonal; between two bodies, B's centre displacement relative to A's plus each body's turn times its
    /// half diagonal (a stack carried along together keeps its manifolds; the normal, in the world frame, does not
    /// turn, so turns count whole).
    /// A kept manifold keeps its normal, feature ids and points (fixed on each body; the gaps are taken anew at the
    /// bodies' poses), and its friction and restitution are combined anew. Candidates without a kept manifold are
    /// tested as always, so a contact that comes into reach is never missed; what a kept manifold can miss is how
    /// its points and normal would have moved, by no more than this distance. Not kept: manifolds found at a time of
    /// impact (continuous collision detection), those of a body the API posed since (set_position,
    /// set_orientation, move_and_slide), and all of them after set_settings. After Jolt Physics' body-pair cache,
    /// which keeps a pair's manifold while the pair's relative pose stays within 1 mm and 2 degrees of where it was
    /// found (PhysicsSettings::mBodyPairCacheMaxDeltaPositionSq, mBodyPairCacheCosMaxDeltaRotationDiv2). The default
    /// is half that: at 1 mm a 20-row pyramid kept awake crept by millimetres (docs/benchmarks.md, "Kept manifolds").
    float manifold_reuse_distance = 5e-4f;
    /// Threads that run the step's broadphase pair search, mesh queries, narrowphase and solver islands (1..256; 1
    /// runs everything on the calling thread). Results are bit-identical for any number: work is split into chunks that
    /// do not depend on it and merged in a fixed order, and solver islands share no dynamic body.
    int threads = 1;
    SleepSettings sleep;
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

/// Counts and timings of the last step. Timings are wall-clock milliseconds per stage (as Box2D's b2Profile), for
/// tuning and the viewer; they never influence results.
struct StepStats {
    std::size_t body_pairs = 0;      ///< candidate body pairs from the broadphase (awake bodies only)
    std::size_t triangle_pairs = 0;  ///< candidate body-triangle pairs from the mesh BVHs (awake bodies only)
    /// Awake dynamic bodies whose triangle candidates and pairs with resting bodies were those of their manifolds of
    /// the last step instead of a query of the meshes and of the resting bodies: they moved less than
    /// WorldSettings::manifold_reuse_distance since their last query (docs/architecture.md, "Kept mesh candidates").
    std::size_t kept_candidate_bodies = 0;
    std::size_t manifolds = 0;       ///< contact manifolds the solver worked with (speculative ones included)
    /// Of them, kept from the last step instead of found again (WorldSettings::manifold_reuse_distance).
    std::size_t kept_manifolds = 0;
    std::size_t contact_points = 0;  ///< their points
    std::size_t contacts = 0;        ///< contacts touching at the end of the step (awake bodies; see contacts())
    std::size_t awake_bodies = 0;    ///< dynamic bodies and moving kinematic bodies that took part in the step
    std::size_t sleeping_bodies = 0; ///< dynamic bodies asleep after the step
    std::size_t islands = 0;         ///< solver islands (bodies linked by contacts; a lone body counts as one)
    std::size_t ccd_sweeps = 0;      ///< bodies whose motion was swept for continuous collision detection
    /// Bodies whose centre the solver moved in through the front of a mesh triangle in this step, put back in front
    /// of it (every dynamic body, CCD or not: docs/game.md, one-sided triangles).
    std::size_t mesh_guards = 0;
    double integrate_ms = 0.0;       ///< stage 1: predicted motion, forces
    double broadphase_ms = 0.0;      ///< stage 2: pairs and mesh candidates
    double narrowphase_ms = 0.0;     ///< stage 3: contact manifolds
    double solve_ms = 0.0;           ///< stage 4: the substeps
    double velocities_ms = 0.0;      ///< stage 5: write-back
    double report_ms = 0.0;          ///< stage 6: contacts, sensors, events
    double sleep_ms = 0.0;           ///< stage 7: islands falling asleep, proxies
    double step_ms = 0.0;            ///< the whole step
};

/// Surface material of a static mesh: what its triangles give a contact (a body's are in BodyDef).
struct MeshMaterial {
    float friction = 0.6f;     ///< Coulomb coefficient, >= 0; combined with a body's as sqrt(a * b)
    float restitution = 0.0f;  ///< 0..1; combined with a body's as max(a, b)
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
    /// Teleports a body (metres, world). Throws for an invalid id or a non-finite position. Wakes the body and the
    /// sleeping bodies next to its old and new boxes.
    void set_position(BodyId id, const glm::vec3& position);
    /// Sets a body's velocity (m/s, world; ignored for static bodies). Throws for an invalid id or a non-finite
    /// value. Wakes the body.
    void set_velocity(BodyId id, const glm::vec3& velocity);
    /// Sets a body's orientation; same rules as BodyDef::orientation. Wakes as set_position does.
    void set_orientation(BodyId id, const glm::quat& orientation);
    /// Sets a body's angular velocity (rad/s, world frame; ignored for static and fixed-rotation dynamic bodies).
    /// Throws for an invalid id or a non-finite value. Wakes the body.
    void set_angular_velocity(BodyId id, const glm::vec3& angular_velocity);
    /// Adds a force (newtons, world frame) acting at `world_point` (metres, world frame) to what the body feels
    /// during the next step: F / m through the centre and (world_point - centre) x F as torque, constant over the
    /// step, then cleared. Ignored for static and kinematic bodies. Throws `InvalidArgument` for an invalid id or a
    /// non-finite value (nothing changes then). Wakes the body.
    void apply_force(BodyId id, const glm::vec3& force, const glm::vec3& world_point);
    /// Adds a torque (newton metres, world frame) for the next step, as apply_force does.
    void apply_torque(BodyId id, const glm::vec3& torque);
    /// Applies an impulse (newton seconds, world frame) at `world_point` at once: v += J / m and
    /// w += I^-1 ((world_point - centre) x J), with I the world-frame inertia. Ignored for static and kinematic
    /// bodies. Throws `InvalidArgument` for an invalid id or a non-finite value. Wakes the body.
    void apply_impulse(BodyId id, const glm::vec3& impulse, const glm::vec3& world_point);
    /// Sets a body's friction (>= 0) and restitution (0..1); see BodyDef. Throws for an invalid id or a value out
    /// of range. Wakes the body.
    void set_material(BodyId id, float friction, float restitution);
    /// Sets a body's collision layer and mask (see kDefaultLayer). Throws for an invalid id. Wakes as set_position.
    void set_filter(BodyId id, std::uint64_t layer, std::uint64_t mask);
    /// Wakes a sleeping dynamic body and its island (no effect on awake, static or kinematic bodies). Throws for an
    /// invalid id.
    void wake(BodyId id);
    /// Wakes every sleeping body.
    void wake_all();

    // ---- Queries (engine/src/queries.cpp, docs/game.md). All go through the broadphase: the loose octrees for
    // bodies, each mesh's BVH for triangles, then exact tests. They see bodies where the last step (or a setter)
    // left them. Each comes as a pair overloaded on constness that gives the same answer and throws the same
    // `InvalidArgument` for bad arguments (checked first); the only difference is `filter.wake`: the non-const
    // overload wakes the sleeping bodies it reports, the const one throws `InvalidArgument` when it is set (waking
    // changes the world).

    /// Closest hit of the ray `origin + t * unit(direction)`, t in [0, max_distance] metres, with a body (exact ray
    /// against its box) or a mesh triangle (front faces only unless `filter.back_faces`). A ray starting inside a
    /// box hits it at distance 0 with normal -unit(direction). Ties are broken by body slot, then mesh, triangle.
    /// Throws `InvalidArgument` for a non-finite origin or direction, a zero direction, or a max_distance that is
    /// negative or NaN (+infinity is allowed).
    std::optional<RaycastHit> raycast(const glm::vec3& origin, const glm::vec3& direction, float max_distance,
                                      const QueryFilter& filter = {}) const;
    std::optional<RaycastHit> raycast(const glm::vec3& origin, const glm::vec3& direction, float max_distance,
                                      const QueryFilter& filter = {});
    /// Every hit of the same ray, sorted by distance (ties as above); a body or triangle appears once.
    std::vector<RaycastHit> raycast_all(const glm::vec3& origin, const glm::vec3& direction, float max_distance,
                                        const QueryFilter& filter = {}) const;
    std::vector<RaycastHit> raycast_all(const glm::vec3& origin, const glm::vec3& direction, float max_distance,
                                        const QueryFilter& filter = {});
    /// The bodies and mesh triangles that overlap the box (exact SAT, touching counts; triangles are two-sided
    /// here), each sorted by id. Throws `InvalidArgument` for a box that fails `validate`.
    OverlapResult overlap_box(const Obb& box, const QueryFilter& filter = {}) const;
    OverlapResult overlap_box(const Obb& box, const QueryFilter& filter = {});
    /// First time of impact of `box` translated by `displacement` (metres, world) with a body or a mesh triangle
    /// (exact swept SAT, narrowphase/sweep.hpp); see BoxSweepHit for what is reported and for shapes the box
    /// already overlaps. Without `filter.back_faces` a triangle counts only when the box approaches its front.
    /// Throws `InvalidArgument` for an invalid box or a non-finite displacement.
    std::optional<BoxSweepHit> sweep_box(const Obb& box, const glm::vec3& displacement,
                                         const QueryFilter& filter = {}) const;
    std::optional<BoxSweepHit> sweep_box(const Obb& box, const glm::vec3& displacement,
                                         const QueryFilter& filter = {});

    /// Moves the kinematic box `character` by `desired_displacement` (metres, world), sliding along what it hits,
    /// climbing steps and following the ground down slopes (engine/src/character.cpp, docs/game.md). Returns where
    /// it ended and what it stands on. Throws `InvalidArgument` for an id that is not a live kinematic body, a
    /// non-finite displacement or settings out of range (see validate(CharacterSettings)); the world is then
    /// unchanged. Wakes the sleeping bodies next to the character's old and new boxes.
    CharacterMove move_and_slide(BodyId character, const glm::vec3& desired_displacement,
                                 const CharacterSettings& settings = {});

    /// Calls the `draw` interface for what `options` selects: bodies (coloured by kind and sleep state), the
    /// proxies and occupied cells of both loose octrees, contacts with their normals and depths, and meshes.
    void debug_draw(DebugDraw& draw, const DebugDrawOptions& options = {}) const;

    /// Adds a static triangle mesh (copied; world frame) on collision `layer` colliding with `mask` (see
    /// kDefaultLayer). Throws `InvalidArgument` naming the first bad triangle or vertex (see
    /// TriangleMesh::validate); an empty mesh is allowed. Sleeping bodies the new triangles touch are woken.
    MeshId add_mesh(const TriangleMesh& mesh, std::uint64_t layer = kDefaultLayer, std::uint64_t mask = kAllLayers);
    /// The same, with a surface material (friction >= 0, restitution 0..1; throws `InvalidArgument` otherwise).
    MeshId add_mesh(const TriangleMesh& mesh, const MeshMaterial& material, std::uint64_t layer = kDefaultLayer,
                    std::uint64_t mask = kAllLayers);
    /// A mesh's material. Throws for an invalid id.
    MeshMaterial mesh_material(MeshId id) const;
    /// Removes a mesh and wakes the sleeping bodies that touched it. Throws `InvalidArgument` for an invalid id.
    void remove_mesh(MeshId id);
    /// Number of triangles in a mesh. Throws for an invalid id.
    std::size_t mesh_triangle_count(MeshId id) const;

    /// Advances the world by `dt` seconds (finite, >= kMinStep; typically 1/60). Throws `InvalidArgument`
    /// otherwise, before changing anything.
    void step(float dt);

    /// Contacts present after the last step, those of sleeping bodies included: body pairs first (ordered by the
    /// bodies' creation order), then body-triangle contacts (ordered by body creation, mesh creation, triangle).
    /// Sensor overlaps are not contacts (they are reported as events). Valid until the next call that changes the
    /// world.
    std::span<const ContactRecord> contacts() const;
    /// Contact events of the last step (begin, persist, end; see ContactEvent for the order and what a pair is).
    /// Valid until the next step.
    std::span<const ContactEvent> contact_events() const;
    /// Calls `callback` for every contact event at the end of each step, in the order of `contact_events()`. The
    /// callback must not change the world. An empty function removes it.
    void set_contact_callback(std::function<void(const ContactEvent&)> callback);
    /// Counts of the last step.
    const StepStats& stats() const;

    // ---- Snapshot and restore (engine/src/snapshot.cpp, docs/game.md#snapshot-and-restore), for rollback
    // networking, replays and "undo". Modelled on Jolt Physics' StateRecorder (PhysicsSystem::SaveState and
    // RestoreState): a snapshot holds what changes while the world runs, not what was created, so it restores only
    // into a world that has the same bodies and meshes.

    /// The world's simulation state as bytes, for restore_state. Holds everything the next step() reads and every
    /// query answers from, bit for bit (SI units, world frame, floats as IEEE 754 bit patterns, little endian):
    /// - the settings (WorldSettings) except `threads`, which belongs to the machine and never changes results;
    /// - per live body, in slot order: its id, position, orientation, velocity, angular velocity, the force and
    ///   torque gathered for the next step, material, layer and mask, sleep state (quiet time, rest pose, island),
    ///   the faces a flush static neighbour covers, whether the API moved it since the last step, and its broadphase
    ///   box (which octree it sits in follows from its state);
    /// - the sleeping islands (their bodies and the contacts they keep) and which island slots are free;
    /// - the contacts after the last step, those of islands woken since, the event pairs touching after the last
    ///   step (what the next step's events are the difference from) and contact_events();
    /// - the static friction anchors the next step carries over from the last one: per contact manifold, the
    ///   points that stuck (feature id and the two anchors in body frames), and with kept manifolds on
    ///   (WorldSettings::manifold_reuse_distance) every manifold whole with its normal, axis and drift; the solver
    ///   holds nothing else from one step to the next.
    /// Not included: the bodies' and meshes' creation (shapes, masses, kinds, triangles, creation order; the world
    /// restored into must have been built by the same calls), the contact callback, stats(), per-step scratch, and
    /// the free slots left by destroyed bodies and meshes.
    ///
    /// Format (version 3): a 52-byte header, then the payload. Header: the magic bytes "TMBLSNAP", the format
    /// version (u32), the live body and mesh counts (u32 each), fingerprints of the bodies' and the meshes'
    /// identities (u64 each: FNV-1a 64 over every live body's slot, generation, creation order, half extents, mass,
    /// inverse inertia and kind, and every live mesh's slot, generation, creation order, triangle count, triangles,
    /// material, layer and mask), the payload size (u64) and a checksum (u64: FNV-1a 64 over the header before it
    /// and the whole payload). The payload takes 170 bytes per body, 50 per kept contact, event pair and event, and
    /// 24 (41 if it may be kept whole) plus 28 per carried point (stuck, or holding a soft-step warm start: then 16
    /// more; with kept manifolds on, every point of every manifold) per carried manifold: about 56 kB for 200 boxes
    /// on a level.
    ///
    /// The bytes depend only on the state: the same for any `threads`, and two worlds in the same state give the
    /// same bytes. They are meant for this build of Tumble on any machine (the float bit patterns are explicit);
    /// a later build that changes the format changes the version and refuses older snapshots.
    std::vector<std::byte> save_state() const;

    /// Brings the world back to the state `bytes` (from save_state) holds, bit for bit: stepping it afterwards gives
    /// exactly what stepping the saved world gave, for any `threads`. The world must hold the same live bodies and
    /// meshes as the saved one (same ids, creation order, shapes, masses, kinds and triangles: built by the same
    /// calls); what changed since, through setters, steps or sleep, is overwritten. Keeps this world's `threads`,
    /// contact callback (not called) and stats(); debug_draw's octree cells may differ (the broadphase is rebuilt
    /// from the saved boxes), its pairs do not.
    ///
    /// Throws `FileError` naming the reason, and leaves the world exactly unchanged (everything is decoded and
    /// checked before anything is written), for: an input shorter than its header or its announced size ("truncated
    /// at byte N") or longer; wrong magic bytes; a format version other than 2; a checksum mismatch (any changed
    /// byte); a world with other bodies or meshes ("saved from a world with 1000 bodies, this one has 999", a body
    /// whose id or shape differs); and a payload that decodes to values the world could not hold (non-finite
    /// numbers, unit quaternions off by more than 1e-3, settings out of range, ids or islands that do not fit).
    void restore_state(std::span<const std::byte> bytes);

    /// Calls `f(BodyId)` for every live body in slot order.
    template <class F>
    void for_each_body(F&& f) const {
        for (std::uint32_t i = 0, n = slot_count(); i < n; ++i) {
            const BodyId id = id_at(i);
            if (!id.is_null()) f(id);
        }
    }

    /// The world's state: opaque, defined in the engine's private sources (engine/src/world_impl.hpp).
    struct Impl;

private:
    std::uint32_t slot_count() const;
    BodyId id_at(std::uint32_t slot) const;  // null when the slot is free

    std::unique_ptr<Impl> impl_;
};

}  // namespace tumble
