#pragma once
// World::Impl, the world's state, shared by the engine's source files (not installed):
//   world.cpp       bodies, meshes, setters and the step's stages 1-4
//   contacts.cpp    stage 5: contacts, sensor overlaps, contact events, the contacts() view
//   sleep.cpp       islands, falling asleep, waking
//   ccd.cpp         continuous collision detection in stage 1
//   queries.cpp     raycast, raycast_all, overlap_box, sweep_box
//   character.cpp   move_and_slide
//   debug_draw.cpp  debug_draw

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <glm/gtc/quaternion.hpp>

#include <tumble/broadphase/loose_octree.hpp>
#include <tumble/broadphase/mesh_adjacency.hpp>
#include <tumble/broadphase/mesh_index.hpp>
#include <tumble/narrowphase/active_edges.hpp>
#include <tumble/engine/world.hpp>
#include <tumble/solver/position_solver.hpp>

#include "thread_pool.hpp"

namespace tumble {

struct World::Impl {
    static constexpr std::uint32_t kNone = 0xffffffffu;

    struct Body {
        glm::vec3 position{0.0f};
        glm::quat orientation{1.0f, 0.0f, 0.0f, 0.0f};
        glm::vec3 half_extents{0.0f};
        glm::vec3 velocity{0.0f};
        float mass = 0.0f;             // 0 for static and kinematic bodies
        std::uint32_t generation = 0;  // bumped on destroy; 0 never used for a live body
        bool alive = false;
        bool kinematic = false;
        bool sensor = false;
        bool ccd = false;
        std::uint64_t layer = kDefaultLayer;
        std::uint64_t mask = kAllLayers;
        // Sleep state. An awake body (a dynamic body not asleep, or a kinematic body with a velocity) has its proxy in
        // the `active` octree and its slot in `awake`; every other body has its proxy in `resting`.
        bool awake = false;
        float quiet_time = 0.0f;       // seconds the speed has stayed below SleepSettings::linear_velocity
        std::uint32_t island = kNone;  // the sleeping island of a sleeping dynamic body
        ProxyId proxy = kNullProxy;
        std::uint64_t sequence = 0;    // creation order: the step's sort key, independent of slot reuse
        FaceFlags internal_faces = 0;  // static bodies: faces covered by a flush static neighbour

        bool dynamic() const { return mass != 0.0f; }
        bool is_static_body() const { return mass == 0.0f && !kinematic; }
        bool sleeping() const { return island != kNone; }
        Obb obb_at(const glm::vec3& center) const { return {center, glm::mat3_cast(orientation), half_extents}; }
        Obb obb() const { return obb_at(position); }
    };
    struct Mesh {
        MeshIndex index;
        std::vector<EdgeFlags> active_edges;  // per triangle, from the mesh's adjacency
        std::uint64_t sequence = 0;           // creation order, as for bodies
        std::uint32_t generation = 0;
        bool alive = false;
        std::uint64_t layer = kDefaultLayer;
        std::uint64_t mask = kAllLayers;
    };
    // Where a solver TriangleRef came from.
    struct TriangleOrigin {
        std::uint32_t mesh;
        std::uint32_t triangle;
    };
    // A contact or a sensor overlap present after a step. Body pairs have record.a at the lower slot.
    struct Touch {
        ContactRecord record;
        bool sensor = false;
    };
    // An event pair (two bodies, or a body and a mesh) touching after a step, with its deepest contact.
    struct PairState {
        ContactRecord record;
        bool sensor = false;
    };
    // Bodies that fell asleep together, with the touches they keep while asleep.
    struct Island {
        std::vector<std::uint32_t> bodies;
        std::vector<Touch> touches;
        bool alive = false;
    };

    WorldSettings settings;
    std::vector<Body> bodies;
    std::vector<std::uint32_t> free_bodies;
    std::size_t live_bodies = 0;
    std::vector<Mesh> meshes;
    std::vector<std::uint32_t> free_meshes;
    std::uint64_t next_sequence = 0;  // shared by bodies and meshes; only the relative order matters
    LooseOctree active;   // awake bodies: swept boxes during the step, final boxes between steps
    LooseOctree resting;  // static bodies, sleeping bodies, kinematic bodies at rest
    std::vector<std::uint32_t> awake;  // slots of awake bodies; may hold stale entries until the next step
    std::vector<std::uint32_t> awake_merge;  // step(): scratch for merging newly woken bodies into `awake`
    std::vector<Island> islands;
    std::vector<std::uint32_t> free_islands;
    std::size_t sleeping_bodies = 0;
    PositionSolver solver;
    StepStats stats;

    // Report (contacts.cpp).
    std::vector<Touch> touches;          // found by the last step among awake bodies
    std::vector<Touch> woken_touches;    // kept by islands woken since the last step
    std::vector<PairState> pair_states;  // event pairs touching after the last step (awake ones), sorted by key
    std::vector<ContactEvent> events;
    std::vector<PairState> event_previous, event_current, event_woken;  // scratch of the event diff
    std::function<void(const ContactEvent&)> callback;
    mutable std::vector<ContactRecord> contact_view;  // contacts(): built on demand
    mutable bool contact_view_dirty = true;

    // Per-step scratch, kept between steps so that steady-state steps reuse the memory. Solver bodies are the awake
    // bodies (index k = position in `awake`) followed by the resting bodies they touch.
    std::vector<SolverBody> solver_bodies;
    std::vector<std::uint32_t> solver_slot;  // slot of each solver body
    std::vector<std::uint32_t> solver_index; // per slot: index in solver_bodies, valid when solver_stamp == stamp
    std::vector<std::uint32_t> solver_stamp;
    std::uint32_t stamp = 0;
    std::vector<glm::vec3> predicted;   // positions of the awake bodies after stage 1, before the solver
    std::vector<glm::vec3> velocities;  // per solver body, stage 4
    std::vector<std::uint8_t> sleep_blocked;  // per awake body: kept awake this step (report)
    std::vector<ProxyPair> proxy_pairs;
    std::vector<ProxyId> query_proxies;
    struct SlotPair {
        std::uint32_t a, b;  // slots, a created before b
    };
    std::vector<SlotPair> candidate_pairs;
    std::vector<SlotPair> sensor_pairs;
    std::vector<SlotPair> near_pairs;  // candidate pairs within the broadphase margin after the step (islands)
    std::vector<BodyPairRef> body_pairs;
    std::vector<TriangleRef> triangle_refs;
    std::vector<TriangleOrigin> triangle_origins;
    std::vector<std::uint32_t> query_result;
    std::vector<std::uint32_t> mesh_order;  // live mesh slots by creation sequence
    // Per-chunk scratch of the stages that run on several threads; merged in chunk order, so the results do not
    // depend on the number of threads.
    struct ChunkScratch {
        std::vector<SlotPair> candidates, sensors;
        std::vector<ProxyId> proxies;
        std::vector<std::uint32_t> found;
        std::vector<TriangleRef> refs;
        std::vector<TriangleOrigin> origins;
    };
    std::vector<ChunkScratch> chunk_scratch;
    std::vector<std::optional<Contact>> found_contacts;  // report: per body pair, then per triangle candidate
    std::vector<std::uint8_t> near_flags;                // report: per body pair, within the margin
    std::unique_ptr<ThreadPool> pool;  // WorldSettings::threads > 1
    Parallel& parallel() { return pool ? static_cast<Parallel&>(*pool) : serial(); }

    // ---- world.cpp
    Body& live_body(BodyId id, const char* where);
    const Body& live_body(BodyId id, const char* where) const;
    Mesh& live_mesh(MeshId id, const char* where);
    const Mesh& live_mesh(MeshId id, const char* where) const;
    BodyId id_of(std::uint32_t slot) const { return {slot, bodies[slot].generation}; }
    // Orders slots by creation sequence: the processing order of everything the step sorts, so results do not
    // depend on which slots earlier destroy_body calls freed.
    bool created_before(std::uint32_t x, std::uint32_t y) const { return bodies[x].sequence < bodies[y].sequence; }
    // Recomputes the internal faces of every static body whose proxy touches `region`, after a static body
    // appeared, moved or disappeared there (active edges for boxes: covered_faces).
    void refresh_internal_faces(const Aabb& region);
    MeshId mesh_id_of(std::uint32_t slot) const { return {slot, meshes[slot].generation}; }
    Aabb proxy_box(const Body& b) const { return b.obb().aabb().expanded(settings.broadphase_margin); }
    LooseOctree& tree_of(const Body& b) { return b.awake ? active : resting; }
    const LooseOctree& tree_of(const Body& b) const { return b.awake ? active : resting; }
    // True when the body belongs in the awake set: a dynamic body not asleep, or a kinematic body with a velocity.
    static bool wants_awake(const Body& b) {
        return b.dynamic() ? !b.sleeping() : (b.kinematic && b.velocity != glm::vec3(0.0f));
    }
    // Moves the body's proxy to the octree its state asks for (wants_awake), with box `box`.
    void place_proxy(std::uint32_t slot, const Aabb& box);
    // Moves a body the user changed to `moved` (same slot), waking it and the sleeping bodies near its old and new
    // boxes. `moved` must be valid.
    void user_changed(std::uint32_t slot, const Body& moved);
    std::uint32_t solver_index_of(std::uint32_t slot);  // adds a resting body to the solver bodies on first use
    void step(float dt);

    // ---- ccd.cpp
    // Sweeps the predicted motion of awake body k against static geometry and stops it at the first impact.
    void continuous_collision(std::uint32_t k);

    // ---- queries.cpp (the const work; World's non-const overloads wake what they report)
    bool body_visible(std::uint32_t slot, const QueryFilter& filter) const;
    bool mesh_visible(std::uint32_t mesh, const QueryFilter& filter) const;
    void raycast(const glm::vec3& origin, const glm::vec3& direction, float max_distance, const QueryFilter& filter,
                 bool all, std::vector<RaycastHit>& out) const;
    OverlapResult overlap_box(const Obb& box, const QueryFilter& filter) const;
    std::optional<BoxSweepHit> sweep_box(const Obb& box, const glm::vec3& displacement, const QueryFilter& filter,
                                         const char* where) const;

    // ---- contacts.cpp
    void report(float dt);
    void build_contact_view() const;
    // Forgets the touches that name a destroyed body or removed mesh (pair_states keep them for the end events).
    void forget_touches(BodyId body, MeshId mesh);

    // ---- sleep.cpp
    void update_sleep(float dt, const std::vector<std::uint8_t>& blocked);
    void wake_island(std::uint32_t island);
    void wake_body(std::uint32_t slot);  // wakes the island of a sleeping body; nothing otherwise
    void wake_near(const Aabb& box);     // wakes the sleeping bodies whose proxies overlap `box`
    void wake_everything();
    void wake_touching(const MeshIndex& mesh);  // wakes the sleeping bodies whose proxies reach a triangle's box
};

}  // namespace tumble
