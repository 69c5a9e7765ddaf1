#pragma once
// World::Impl, the world's state, shared by the engine's source files (not installed):
//   world.cpp       bodies, meshes, setters
//   step.cpp        the step's stages: integrate, broadphase, narrowphase, solve, velocities
//   contacts.cpp    the report stage: contacts, sensor overlaps, contact events, the contacts() view
//   sleep.cpp       the sleep stage: islands, falling asleep, waking
//   ccd.cpp         continuous collision detection (time-of-impact contacts in the narrowphase stage)
//   queries.cpp     raycast, raycast_all, overlap_box, sweep_box
//   character.cpp   move_and_slide
//   debug_draw.cpp  debug_draw
//   snapshot.cpp    save_state, restore_state

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <glm/gtc/quaternion.hpp>

#include <tumble/broadphase/loose_octree.hpp>
#include <tumble/broadphase/mesh_index.hpp>
#include <tumble/narrowphase/active_edges.hpp>
#include <tumble/narrowphase/manifold.hpp>
#include <tumble/narrowphase/mesh_adjacency.hpp>
#include <tumble/engine/world.hpp>
#include <tumble/solver/position_solver.hpp>

#include <tumble/core/assert.hpp>
#include <tumble/core/growth.hpp>
#include <tumble/core/thread_pool.hpp>

namespace tumble {

struct World::Impl {
    static constexpr std::uint32_t kNone = 0xffffffffu;

    struct Body {
        // Fields of 4 and 8 bytes first, the one-byte flags together near the end: 192 bytes, no padding inside.
        glm::vec3 position{0.0f};
        glm::quat orientation{1.0f, 0.0f, 0.0f, 0.0f};
        glm::vec3 half_extents{0.0f};
        glm::vec3 velocity{0.0f};
        glm::vec3 angular_velocity{0.0f};  // rad/s, world frame
        float mass = 0.0f;             // 0 for static and kinematic bodies
        glm::vec3 inverse_inertia{0.0f};   // body frame, 1/(kg m^2); 0 for fixed rotation, static and kinematic
        float friction = 0.6f;
        float restitution = 0.0f;
        glm::vec3 force{0.0f};   // accumulated for the next step (N, through the centre)
        glm::vec3 torque{0.0f};  // accumulated for the next step (N m, world frame)
        std::uint32_t generation = 0;  // bumped on destroy; 0 never used for a live body
        std::uint64_t layer = kDefaultLayer;
        std::uint64_t mask = kAllLayers;
        // Sleep state. An awake body (a dynamic body not asleep, or a kinematic body with a velocity) has its proxy in
        // the `active` octree and its slot in `awake`; every other body has its proxy in `resting`.
        float quiet_time = 0.0f;        // seconds the body has stayed near its rest pose (SleepSettings); 0: none yet
        glm::vec3 rest_position{0.0f};  // pose at the first step of the quiet window
        glm::quat rest_orientation{1.0f, 0.0f, 0.0f, 0.0f};
        std::uint32_t island = kNone;  // the sleeping island of a sleeping dynamic body
        ProxyId proxy = kNullProxy;
        std::uint64_t sequence = 0;    // creation order: the step's sort key, independent of slot reuse
        // The flags set when the body is made (or destroyed) share a byte: Body stays at 192 bytes.
        bool fixed_rotation : 1 = false;
        bool alive : 1 = false;
        bool kinematic : 1 = false;
        bool sensor : 1 = false;
        bool ccd : 1 = false;
        bool awake = false;            // see the sleep state above
        FaceFlags internal_faces = 0;  // static bodies: faces covered by a flush static neighbour
        // Posed by the API (or its internal faces changed) since the last narrowphase that took it: its manifolds of
        // the last step are found again, not kept (WorldSettings::manifold_reuse_distance).
        bool moved_by_api = false;
        // Kept candidates (soft step, WorldSettings::manifold_reuse_distance > 0): how far the body can have moved
        // (centre displacement plus turn times half diagonal, metres, summed step by step) since the step that last
        // queried the meshes and the resting octree for its candidates. While that plus its coast and push in the step
        // stays under the distance, the broadphase takes its triangle candidates and its pairs with resting bodies
        // from its kept manifolds instead of querying. Infinite (query) for a new body, once it falls asleep or the
        // API changes it, when a resting body comes near it (forget_candidates_near), after a query that found a
        // sensor, and for every body when a mesh or the settings change or the step grows too long
        // (WorldState::candidate_dt). Fills the last 4 bytes.
        float candidate_drift = std::numeric_limits<float>::infinity();

        bool dynamic() const { return mass != 0.0f; }
        bool is_static_body() const { return mass == 0.0f && !kinematic; }
        bool sleeping() const { return island != kNone; }
        // How far the body's farthest point can have moved from its rest pose: the centre's displacement plus the
        // turn's angle times the half diagonal (metres).
        float drift() const {
            const glm::quat turn = glm::conjugate(rest_orientation) * orientation;
            const float angle = 2.0f * std::atan2(glm::length(glm::vec3(turn.x, turn.y, turn.z)), std::abs(turn.w));
            return glm::length(position - rest_position) + angle * glm::length(half_extents);
        }
        Obb obb_at(const glm::vec3& center) const { return {center, glm::mat3_cast(orientation), half_extents}; }
        Obb obb() const { return obb_at(position); }
    };
    struct Mesh {
        MeshIndex index;
        std::vector<EdgeFlags> active_edges;  // per triangle, from the mesh's adjacency
        MeshMaterial material;
        std::uint64_t sequence = 0;           // creation order, as for bodies
        std::uint64_t geometry_hash = 0;      // of its triangles (mesh_geometry_hash), for save_state's fingerprint
        std::uint32_t generation = 0;
        bool alive = false;
        std::uint64_t layer = kDefaultLayer;
        std::uint64_t mask = kAllLayers;
    };
    // A candidate pair of two step bodies (indices into the step's solver_bodies).
    struct BodyPair {
        std::uint32_t a, b;
    };
    // A candidate pair of a step body and a mesh triangle (16 bytes: the triangle's corners stay in the mesh, see
    // shape_of).
    struct TriangleCandidate {
        std::uint32_t body;      // index into the step's solver_bodies
        std::uint32_t mesh;      // mesh slot
        std::uint32_t triangle;  // index in the mesh
        EdgeFlags active_edges = kAllEdgesActive;
    };
    // Two bodies by slot, a created before b.
    struct SlotPair {
        std::uint32_t a, b;
    };
    // A candidate pair with its bodies' creation sequences (a's first): the broadphase sorts these by the two keys it
    // holds instead of looking both bodies up in every comparison; the same order as created_before gives.
    struct KeyedPair {
        std::uint64_t first = 0, second = 0;
        SlotPair pair{};
        bool operator<(const KeyedPair& o) const { return first != o.first ? first < o.first : second < o.second; }
    };
    // A contact or a sensor overlap of two bodies, or of a body and a mesh triangle, present after a step: what
    // contacts() lists, what islands keep while asleep, and (one per pair, the deepest) what contact events diff.
    // Body pairs have record.a at the lower slot.
    struct Touch {
        ContactRecord record;
        bool sensor = false;
    };
    // Bodies that fell asleep together, with the touches they keep while asleep.
    struct Island {
        std::vector<std::uint32_t> bodies;
        std::vector<Touch> touches;
        bool alive = false;
    };
    // Which pair a manifold belongs to, independent of slots: creation sequences of the two bodies (a body pair,
    // triangle 0) or of the body and the mesh and the triangle's index.
    struct ManifoldKey {
        std::uint64_t a = 0, b = 0;
        std::uint32_t triangle = 0;
        auto operator<=>(const ManifoldKey&) const = default;
    };
    // Of a point of a manifold that stuck (static friction held it) or, with the soft step, held a force: its feature
    // id and its friction anchors (used only when it stuck).
    struct CarriedPoint {
        std::uint32_t id = 0;
        glm::vec3 friction_anchor_a{0.0f}, friction_anchor_b{0.0f};
    };
    // With the soft step and kept manifolds on (WorldSettings::manifold_reuse_distance), every manifold is carried
    // with all its points, and can be kept whole for the next step: its points' friction anchors are then its
    // anchors, and it carries its normal, separating axis, and how far its bodies have moved since the narrowphase
    // found it. Only the points that stuck or held a force (`held`) give their anchors and warm starts to a new
    // manifold's points, as when only those are carried.
    static constexpr std::uint8_t kKeepable = 1;  // CarriedManifold::keep: kept manifolds on, not found at an impact
    static constexpr std::uint8_t kNegative = 2;  // ... the axis's sign (ContactManifold::negative)
    struct CarriedManifold {
        std::uint8_t count = 0;  // carried points, 1..4
        std::uint8_t stuck = 0;  // bit p: points[p] stuck (its friction anchors carry over)
        std::uint8_t held = 0;   // bit p: points[p] stuck or held a force (a subset of them only with kept manifolds)
        std::uint8_t keep = 0;   // kKeepable, kNegative
        std::int16_t axis = -1;  // the manifold's separating axis (ContactManifold::axis), when keepable
        std::array<CarriedPoint, 4> points;
        glm::vec3 normal{0.0f};  // when keepable: the unit contact normal, world frame, from A towards B
        float drift = 0.0f;      // when keepable: the bodies' motion since it was found (metres; see Body::drift)
    };
    // What one step's manifolds carry to the next: the manifolds with a point that stuck or held a force, and only
    // those points (with kept manifolds on, every manifold and every point: CarriedManifold). Keys in manifold order:
    // body pairs first, then triangles, each part sorted by key. `warm` is empty unless the last step ran the soft
    // step; then it runs beside `manifolds`, 4 entries per manifold (entry 4 i + p for its point p), the carried
    // points' warm starts. During a soft step the same array holds the step's warm starts, 4 per manifold of the step,
    // that the solver reads and writes (carry_contacts turns it into that in place, cache_contacts back): the warm
    // starts are held once.
    struct ContactCache {
        std::vector<ManifoldKey> keys;
        std::vector<CarriedManifold> manifolds;
        std::vector<ContactWarmStart> warm;
        std::size_t pairs = 0;  // manifolds[0, pairs) are body pairs
        // With kept candidates on (reuse distance > 0), the slots of the body pairs' bodies (keys a and b), for the
        // broadphase of still bodies (broadphase_stage); else empty. Derived: restore_state works them out from the
        // keys. A slot may have been freed or taken by another body since: its body's sequence tells.
        std::vector<SlotPair> pair_slots;
    };

    // The persistent state: everything a step reads that an earlier step or call left, living as long as the world.
    // save_state writes exactly this (snapshot.cpp reads only WorldState), except what a world built by the same
    // calls holds already and the snapshot's fingerprints check: the meshes, the free slots and next_sequence.
    struct WorldState {
        WorldSettings settings;
        std::vector<Body> bodies;
        std::vector<std::uint32_t> free_bodies;
        std::size_t live_bodies = 0;
        std::vector<Mesh> meshes;
        std::vector<std::uint32_t> free_meshes;
        std::uint64_t next_sequence = 0;   // shared by bodies and meshes; only the relative order matters
        LooseOctree active;                // awake bodies: swept boxes during the step, final boxes between steps
        LooseOctree resting;               // static bodies, sleeping bodies, kinematic bodies at rest
        std::vector<std::uint32_t> awake;  // slots of awake bodies; may hold stale entries until the next step
        std::vector<Island> islands;
        std::vector<std::uint32_t> free_islands;
        std::size_t sleeping_bodies = 0;
        // Kept mesh candidates (Body::candidate_drift): the shortest step (seconds) since every body last had to query
        // the meshes (forget_mesh_candidates); 0: no step since. A query's margin holds the fall under gravity in its
        // step's dt, so a longer step forgets every body's candidates once it could fall beyond that (step.cpp).
        float candidate_dt = 0.0f;
        // The report of the last step (contacts.cpp), kept until the next one.
        std::vector<Touch> touches;        // found by the last step among awake bodies
        std::vector<Touch> woken_touches;  // kept by islands woken since the last step
        std::vector<Touch> event_pairs;    // one per pair touching after the last step (awake ones), sorted by pair
        std::vector<ContactEvent> events;
        ContactCache contact_cache;  // the last step's stuck friction anchors, for the next narrowphase

        // A body's proxy box between steps, and the octree its proxy is in.
        Aabb proxy_box(const Body& b) const { return b.obb().aabb().expanded(settings.broadphase_margin); }
        LooseOctree& tree_of(const Body& b) { return b.awake ? active : resting; }
        const LooseOctree& tree_of(const Body& b) const { return b.awake ? active : resting; }
    };

    // The step context: buffers each step writes before it reads them, from integrate_stage to sleep_stage (and
    // wake_near between steps for query_proxies). Nothing in them outlives the step; they are kept only so that
    // steady-state steps reuse the memory. Step bodies are the awake bodies (index k = position in `awake`,
    // k < awake_count) followed by the resting bodies they touch (fixed for the step).
    // Where a manifold's warm starts come from (soft step; carry_contacts): a carried manifold (kNoManifold: none)
    // and, per point of the new manifold, the carried point (or -1).
    static constexpr std::uint32_t kNoManifold = 0xffffffffu;
    struct WarmSource {
        std::uint32_t manifold = kNoManifold;
        std::array<std::int8_t, 4> point{-1, -1, -1, -1};
    };
    struct StepContext {
        float dt = 0.0f;  // dt of the step under way
        std::size_t awake_count = 0;
        std::vector<std::uint32_t> awake_merge;  // integrate: scratch for merging newly woken bodies into `awake`
        std::vector<SolverBody> solver_bodies;
        std::vector<std::uint32_t> solver_slot;   // slot of each step body
        std::vector<std::uint32_t> solver_index;  // per slot: index in solver_bodies, valid when solver_stamp == stamp
        std::vector<std::uint32_t> solver_stamp;
        std::uint32_t stamp = 0;                 // only compared for equality within a step
        // Per step body: the pose at the predicted end of the step (resting: the start pose). The start pose is the
        // body's own until the velocities stage (start_box).
        std::vector<glm::vec3> end_center;
        std::vector<glm::quat> end_orientation;
        std::vector<ProxyPair> proxy_pairs;
        std::vector<ProxyId> query_proxies;
        std::vector<KeyedPair> candidate_pairs;  // broadphase: body pairs to test, with their keys, sorted by them
        std::vector<SlotPair> sensor_pairs;
        std::vector<KeyedPair> pair_sort;  // broadphase: parallel_sort's buffer for candidate_pairs
        std::vector<BodyPair> body_pairs;  // candidate_pairs as step-body indices
        std::vector<TriangleCandidate> triangle_candidates;
        std::vector<std::uint32_t> mesh_order;      // live mesh slots by creation sequence
        // Per awake body: 0 if it kept its candidates (triangles and resting pairs) from the last step, 1 if it
        // queried the meshes and the resting octree, 2 if that query found a sensor (sensor pairs are not kept, so it
        // queries again in the next step).
        std::vector<std::uint8_t> candidates_queried;
        std::vector<ContactManifold> wave_manifolds;  // narrowphase: per candidate of a wave, its manifold if found
        std::vector<ContactSides> wave_sides;         // ... and its reference face (XPBD only)
        std::vector<std::uint8_t> candidate_found;    // ... and whether it has one (2: kept from the last step)
        std::vector<float> wave_drift;                // ... and, kept, how far its bodies moved since it was found
        // Per step body, a distance: in the narrowphase its speculative margin (margin_of), then in cache_contacts its
        // solved turn (solved_turn, kept manifolds on).
        std::vector<float> body_distance;
        std::vector<ProxyId> proxy_ids;    // update_active_proxies: one wave's proxies (fixed size, not per body)
        std::vector<Aabb> proxy_boxes;     // ... and their new boxes
        std::size_t swept_bodies = 0;      // narrowphase: bodies swept for CCD this step (swept_for_ccd)
        std::vector<float> ccd_back_to;    // ccd_clamp: per step body, the part of the step it goes back to (> 1: none)
        std::vector<float> mesh_guard_at;  // keep_in_front_of_meshes: per step body, the part of the step where its
                                           // centre first went in through a triangle's front (> 1: never)
        std::vector<glm::vec3> mesh_guard_normal;  // ... and that triangle's unit front normal
        // This step's manifolds, what the solver works with, in candidate order; both parts (body pairs, then
        // triangles) sorted by key.
        std::vector<ContactManifold> manifolds;
        std::vector<ContactSides> manifold_sides;       // XPBD only: per manifold, its reference face, else empty
        std::vector<WarmSource> warm_source;            // soft step only: per manifold (carry_contacts), else empty
        std::vector<std::uint32_t> manifold_candidate;  // per manifold: its candidate (body pair, then triangle) index
        std::vector<float> manifold_drift;  // soft step, reuse on: per manifold, its bodies' motion since it was found
        std::size_t manifold_pairs = 0;                 // manifolds[0, manifold_pairs) are body pairs
        PositionSolver solver;                          // its buffers; it keeps nothing between steps
        // Per-chunk scratch of the stages that run on several threads; merged in chunk order, so the results do not
        // depend on the number of threads.
        struct ChunkScratch {
            std::vector<KeyedPair> candidates;
            std::vector<SlotPair> sensors;
            std::vector<ProxyId> proxies;
            std::vector<std::uint32_t> found;
            std::vector<TriangleCandidate> triangles;
        };
        std::vector<ChunkScratch> chunk_scratch;
        std::vector<float> found_gap;  // report: per manifold, its smallest gap at the final positions (m)
        std::vector<std::uint8_t> near_flags;                // report: per body pair, within the margin
        std::vector<SlotPair> near_pairs;         // report: candidate pairs within the broadphase margin after the step
        std::vector<std::uint8_t> sleep_blocked;  // report: per awake body, kept awake this step
        // update_sleep's islands of the step's awake bodies: union-find parents and roots, whether each root's island
        // may sleep, the members of those that may (grouped by root), and the islands made asleep in the step.
        std::vector<std::uint32_t> sleep_parent, sleep_root, sleep_order, sleep_fell;
        std::vector<std::uint8_t> sleep_can;
        // report: the event diff. event_previous (the last step's pairs merged with those of woken islands) and
        // event_woken are filled only in a step after an island woke; event_current and event_woken list touches by
        // index, one per pair, in event-pair order.
        std::vector<Touch> event_previous;
        std::vector<std::uint32_t> event_current, event_woken;
    };

    WorldState state;
    StepContext scratch;
    // Neither state nor scratch: outputs and services of the world, never in a snapshot.
    StepStats stats;  // of the last step
    std::function<void(const ContactEvent&)> callback;
    mutable std::vector<ContactRecord> contact_view;  // contacts(): built on demand from the state's touches
    mutable bool contact_view_dirty = true;
    std::unique_ptr<ThreadPool> pool;  // WorldSettings::threads > 1
    Parallel& parallel() { return pool ? static_cast<Parallel&>(*pool) : serial(); }

    // ---- snapshot.cpp (World::save_state, World::restore_state)
    // FNV-1a 64 of the triangles' vertex bit patterns, in order: a mesh's identity in the snapshot fingerprint.
    static std::uint64_t mesh_geometry_hash(const std::vector<Triangle>& triangles);

    // ---- world.cpp
    Body& live_body(BodyId id, const char* where);
    const Body& live_body(BodyId id, const char* where) const;
    Mesh& live_mesh(MeshId id, const char* where);
    const Mesh& live_mesh(MeshId id, const char* where) const;
    BodyId id_of(std::uint32_t slot) const { return {slot, state.bodies[slot].generation}; }
    // Orders slots by creation sequence: the processing order of everything the step sorts, so results do not
    // depend on which slots earlier destroy_body calls freed.
    bool created_before(std::uint32_t x, std::uint32_t y) const {
        return state.bodies[x].sequence < state.bodies[y].sequence;
    }
    // Recomputes the internal faces of every static body whose proxy touches `region`, after a static body
    // appeared, moved or disappeared there (active edges for boxes: covered_faces).
    void refresh_internal_faces(const Aabb& region);
    MeshId mesh_id_of(std::uint32_t slot) const { return {slot, state.meshes[slot].generation}; }
    // Step body k's box at the start of the step: the body's pose, which the step does not write before the
    // velocities stage (valid from the integrate stage to the solve stage). Its centre, and its half extents.
    Obb start_box(std::uint32_t k) const { return state.bodies[scratch.solver_slot[k]].obb(); }
    const glm::vec3& start_center(std::uint32_t k) const { return state.bodies[scratch.solver_slot[k]].position; }
    const glm::vec3& half_extents_of(std::uint32_t k) const {
        return state.bodies[scratch.solver_slot[k]].half_extents;
    }
    // Step body k's box at the predicted end of the step (integrate stage).
    Obb end_box(std::uint32_t k) const {
        return {scratch.end_center[k], glm::mat3_cast(scratch.end_orientation[k]), half_extents_of(k)};
    }
    // The pair key of this step's manifold i (narrowphase on): its bodies' creation sequences, or its body's, its
    // mesh's and the triangle's index.
    ManifoldKey manifold_key(std::size_t i) const {
        const std::uint32_t k = scratch.manifold_candidate[i];
        if (k < scratch.body_pairs.size()) {
            const ContactManifold& m = scratch.manifolds[i];
            return {state.bodies[scratch.solver_slot[m.a]].sequence, state.bodies[scratch.solver_slot[m.b]].sequence,
                    0};
        }
        const TriangleCandidate& t = scratch.triangle_candidates[k - scratch.body_pairs.size()];
        return {state.bodies[scratch.solver_slot[t.body]].sequence, state.meshes[t.mesh].sequence, t.triangle};
    }
    // The triangle of a mesh candidate (world frame), read from its mesh: meshes do not change during a step.
    const Triangle& shape_of(const TriangleCandidate& t) const {
        return state.meshes[t.mesh].index.triangle(t.triangle);
    }
    Aabb proxy_box(const Body& b) const { return state.proxy_box(b); }
    LooseOctree& tree_of(const Body& b) { return state.tree_of(b); }
    const LooseOctree& tree_of(const Body& b) const { return state.tree_of(b); }
    // The invariant TUMBLE_ASSERT checks where the step reads the octrees: `slot` holds a live body whose proxy is in
    // the octree its `awake` flag selects and carries the slot as its user data.
    bool proxy_in_sync(std::uint32_t slot) const {
        if (slot >= state.bodies.size() || !state.bodies[slot].alive) return false;
        const LooseOctree& tree = tree_of(state.bodies[slot]);
        return tree.contains(state.bodies[slot].proxy) && tree.user_data(state.bodies[slot].proxy) == slot;
    }
    // True when the body belongs in the awake set: a dynamic body not asleep, or a kinematic body with a velocity or
    // an angular velocity.
    static bool wants_awake(const Body& b) {
        return b.dynamic() ? !b.sleeping()
                           : (b.kinematic && (b.velocity != glm::vec3(0.0f) || b.angular_velocity != glm::vec3(0.0f)));
    }
    // Moves the body's proxy to the octree its state asks for (wants_awake), with box `box`.
    void place_proxy(std::uint32_t slot, const Aabb& box);
    // Moves a body the user changed to `moved` (same slot), waking it and the sleeping bodies near its old and new
    // boxes. `moved` must be valid.
    void user_changed(std::uint32_t slot, const Body& moved);
    std::uint32_t solver_index_of(std::uint32_t slot);  // adds a resting body to the step bodies on first use
    SolverBody solver_body_of(const Body& b) const;     // the solver's view of a body at the start of the step
    // The contact material of a pair.
    static float combined_friction(float a, float b) { return std::sqrt(a * b); }
    static float combined_restitution(float a, float b) { return std::max(a, b); }

    // ---- step.cpp: World::step as named stages over `state` and the step context `scratch`
    void step(float dt);
    void integrate_stage();
    void broadphase_stage();
    // Moves the active-octree proxy of each step body k < count for which `box_of(k, box)` returns true to `box`,
    // with the result of updating them one by one in k order. The boxes are worked out on the threads a fixed-size
    // wave at a time, and each wave goes to LooseOctree's batch update.
    void update_active_proxies(std::uint32_t count, FunctionRef<bool(std::uint32_t, Aabb&)> box_of);
    void narrowphase_stage();
    void solve_stage();
    void velocities_stage();
    // The solver manifold for a contact manifold of step bodies a and b (b = kStaticGeometry for a triangle), and
    // its reference face into `face` unless null (only XPBD reads it).
    ContactManifold to_solver(const Manifold& m, std::uint32_t a, std::uint32_t b, float friction, float restitution,
                              ContactSides* face) const;
    // The solver manifold for a manifold of step bodies a and b kept from the last step (CarriedManifold::keep): its
    // normal, axis and points as they were found (the friction anchors are the anchors), the gaps and the friction
    // anchors across them worked out at the bodies' start poses as to_solver does.
    ContactManifold kept_manifold(const CarriedManifold& kept, std::uint32_t a, std::uint32_t b, float friction,
                                  float restitution) const;
    // Kept manifolds (soft step, reuse distance > 0). How far step body k's velocities at the start of the step
    // carry its farthest point in the step (metres): the centre's speed plus the spin times the half diagonal, times
    // dt. And whether its manifolds of the last step may be kept: it is not swept for CCD and the API has not posed it
    // since (its kept mesh candidates too, given that its candidate_drift is finite).
    float coast_of(std::uint32_t k) const;
    // The reuse distance in force (metres): WorldSettings::manifold_reuse_distance with the soft step, else 0.
    float reuse_distance() const;
    // Step body k's candidate with triangle `triangle` of the mesh in slot `mesh`, with the edges active_edges_only
    // leaves it.
    TriangleCandidate triangle_candidate(std::uint32_t k, std::uint32_t mesh, std::uint32_t triangle) const;
    bool may_keep(std::uint32_t k) const;
    // Every body queries the meshes again in its next step (Body::candidate_drift): a mesh came or went, the settings
    // changed, or the step grew too long (WorldState::candidate_dt).
    void forget_mesh_candidates();
    // Every awake body whose proxy is within the broadphase margin of `box` (world frame) queries the meshes and the
    // resting octree again in its next step: a resting body's proxy box that was inserted or changed there (a body
    // fell asleep, was created at rest, or the API changed a resting one), which a still body's kept pairs would
    // not hold. Its next query box lies within twice the reuse distance, at most the margin, of its proxy now.
    void forget_candidates_near(const Aabb& box);
    // Step body k's motion in the step once solved (0 for a body the step holds fixed): its centre's displacement
    // (world frame, metres), and how far its turn can have moved its farthest point from the centre, the turn's angle
    // times its half diagonal (metres).
    glm::vec3 solved_displacement(std::uint32_t k) const;
    float solved_turn(std::uint32_t k) const;
    // Gives the new manifolds' points what the same feature pair in the last step's manifold of the same pair held
    // (state.contact_cache): its friction anchors where it was stuck, and its warm-start forces.
    void carry_contacts();
    // After the solve: the manifolds' stuck points and points holding a force into state.contact_cache, for the
    // next step (with kept manifolds on, every manifold whole, with its normal, axis and drift).
    void cache_contacts();

    // ---- ccd.cpp
    // For a fast CCD body (step body k) and a static shape it reaches this step: the manifold at the time of impact
    // of its predicted translation (exact swept SAT), or nothing when the sweep misses or starts touching.
    // The contact of swept body k with static geometry at its time of impact (fraction of the step in `toi`).
    std::optional<Manifold> impact_manifold(std::uint32_t k, const Obb& other, float& toi) const;
    std::optional<Manifold> impact_manifold(std::uint32_t k, const Triangle& tri, EdgeFlags active_edges,
                                            float& toi) const;
    // After the solve: a swept body that the solver let through an obstacle it hit goes back to its time of impact.
    void ccd_clamp();
    void keep_in_front_of_meshes();  // every dynamic body's centre stays in front of the triangles it was in front of
    bool swept_for_ccd(std::uint32_t k) const;  // a CCD body moving far enough this step to be swept

    // ---- queries.cpp (the const work; World's non-const overloads wake what they report)
    bool body_visible(std::uint32_t slot, const QueryFilter& filter) const;
    bool mesh_visible(std::uint32_t mesh, const QueryFilter& filter) const;
    void raycast(const glm::vec3& origin, const glm::vec3& direction, float max_distance, const QueryFilter& filter,
                 bool all, std::vector<RaycastHit>& out) const;
    OverlapResult overlap_box(const Obb& box, const QueryFilter& filter) const;
    std::optional<BoxSweepHit> sweep_box(const Obb& box, const glm::vec3& displacement, const QueryFilter& filter,
                                         const char* where) const;

    // ---- contacts.cpp
    void report_stage();
    void build_contact_view() const;
    // Forgets the touches that name a destroyed body or removed mesh (event_pairs keep them for the end events).
    void forget_touches(BodyId body, MeshId mesh);

    // ---- sleep.cpp
    void sleep_stage();
    void update_sleep(float dt, const std::vector<std::uint8_t>& blocked);
    void wake_island(std::uint32_t island);
    void wake_body(std::uint32_t slot);  // wakes the island of a sleeping body; nothing otherwise
    void wake_near(const Aabb& box);     // wakes the sleeping bodies whose proxies overlap `box`
    void wake_everything();
    void wake_touching(const MeshIndex& mesh);  // wakes the sleeping bodies whose proxies reach a triangle's box
};

}  // namespace tumble
