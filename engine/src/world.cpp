#include <tumble/engine/world.hpp>

#include "world_impl.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <tumble/broadphase/loose_octree.hpp>
#include <tumble/broadphase/mesh_index.hpp>
#include <tumble/error.hpp>
#include <tumble/narrowphase/sat.hpp>
#include <tumble/narrowphase/validate.hpp>

namespace tumble {
namespace {

bool finite(const glm::vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

std::string describe(const glm::vec3& v) {
    return "(" + std::to_string(v.x) + ", " + std::to_string(v.y) + ", " + std::to_string(v.z) + ")";
}

void require_finite(const glm::vec3& v, const char* where, const char* what) {
    if (!finite(v)) throw InvalidArgument(std::string(where) + ": " + what + " " + describe(v) + " is not finite");
}

// Unit quaternion from user input, or an exception. A length within 1e-3 of one is normalised.
glm::quat checked_orientation(const glm::quat& q, const char* where) {
    if (!(std::isfinite(q.w) && std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z)))
        throw InvalidArgument(std::string(where) + ": orientation is not finite");
    const float len = std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    if (!(std::abs(len - 1.0f) <= 1e-3f))
        throw InvalidArgument(std::string(where) + ": orientation has length " + std::to_string(len) +
                              " (a rotation quaternion must have length 1)");
    return q / len;
}

void check_body_def(const BodyDef& def, const char* where) {
    require_finite(def.position, where, "position");
    require_finite(def.half_extents, where, "half_extents");
    require_finite(def.velocity, where, "velocity");
    for (int k = 0; k < 3; ++k)
        if (def.half_extents[k] < 0.0f)
            throw InvalidArgument(std::string(where) + ": half_extents " + describe(def.half_extents) +
                                  " has a negative component (must be >= 0)");
    if (!(std::isfinite(def.mass) && def.mass >= 0.0f))
        throw InvalidArgument(std::string(where) + ": mass " + std::to_string(def.mass) +
                              " must be finite and >= 0 (0 makes the body static)");
    checked_orientation(def.orientation, where);
}

}  // namespace

void validate(const WorldSettings& s) {
    require_finite(s.gravity, "WorldSettings", "gravity");
    if (!(std::isfinite(s.broadphase_margin) && s.broadphase_margin >= 0.0f))
        throw InvalidArgument("WorldSettings: broadphase_margin is " + std::to_string(s.broadphase_margin) +
                              " (must be finite and >= 0)");
    if (s.threads < 1 || s.threads > 256)
        throw InvalidArgument("WorldSettings: threads is " + std::to_string(s.threads) + " (must be 1..256)");
    if (!(std::isfinite(s.sleep.linear_velocity) && s.sleep.linear_velocity > 0.0f))
        throw InvalidArgument("WorldSettings: sleep.linear_velocity is " + std::to_string(s.sleep.linear_velocity) +
                              " (must be finite and > 0 m/s)");
    if (!(std::isfinite(s.sleep.time) && s.sleep.time >= 0.0f))
        throw InvalidArgument("WorldSettings: sleep.time is " + std::to_string(s.sleep.time) +
                              " (must be finite and >= 0 s)");
    validate(s.solver);
}

// ---------------------------------------------------------------------------------------------------------------
// Impl helpers

World::Impl::Body& World::Impl::live_body(BodyId id, const char* where) {
    return const_cast<Body&>(static_cast<const Impl*>(this)->live_body(id, where));
}
const World::Impl::Body& World::Impl::live_body(BodyId id, const char* where) const {
    if (id.is_null() || id.index >= bodies.size() || !bodies[id.index].alive ||
        bodies[id.index].generation != id.generation)
        throw InvalidArgument(std::string(where) + ": body id {" + std::to_string(id.index) + ", " +
                              std::to_string(id.generation) + "} does not name a live body");
    return bodies[id.index];
}
World::Impl::Mesh& World::Impl::live_mesh(MeshId id, const char* where) {
    return const_cast<Mesh&>(static_cast<const Impl*>(this)->live_mesh(id, where));
}
const World::Impl::Mesh& World::Impl::live_mesh(MeshId id, const char* where) const {
    if (id.is_null() || id.index >= meshes.size() || !meshes[id.index].alive ||
        meshes[id.index].generation != id.generation)
        throw InvalidArgument(std::string(where) + ": mesh id {" + std::to_string(id.index) + ", " +
                              std::to_string(id.generation) + "} does not name a live mesh");
    return meshes[id.index];
}

void World::Impl::place_proxy(std::uint32_t slot, const Aabb& box) {
    Body& b = bodies[slot];
    const bool want = wants_awake(b);
    if (want == b.awake) {
        tree_of(b).update(b.proxy, box);
        return;
    }
    tree_of(b).remove(b.proxy);
    b.awake = want;
    b.proxy = tree_of(b).insert(box, slot);
    if (want) {
        awake.push_back(slot);
        b.quiet_time = 0.0f;
    }
}

void World::Impl::user_changed(std::uint32_t slot, const Body& moved) {
    const Aabb before = tree_of(bodies[slot]).aabb(bodies[slot].proxy);
    const Aabb after = proxy_box(moved);
    wake_body(slot);
    Body& b = bodies[slot];
    const bool was_awake = b.awake;
    const ProxyId proxy = b.proxy;
    const std::uint32_t generation = b.generation;
    b = moved;
    b.awake = was_awake;
    b.proxy = proxy;
    b.generation = generation;
    b.island = kNone;
    b.quiet_time = 0.0f;
    place_proxy(slot, after);
    wake_near(before);
    wake_near(after);
    if (b.is_static_body()) refresh_internal_faces(before.merged(after));
    contact_view_dirty = true;
}

std::uint32_t World::Impl::solver_index_of(std::uint32_t slot) {
    if (solver_stamp[slot] == stamp) return solver_index[slot];
    const Body& b = bodies[slot];
    SolverBody s;
    s.start_position = s.position = b.position;
    s.axes = glm::mat3_cast(b.orientation);
    s.half_extents = b.half_extents;
    s.dynamic = false;  // resting: static, asleep, or a kinematic body at rest
    s.internal_faces = settings.active_edges_only ? b.internal_faces : FaceFlags{0};
    const auto index = static_cast<std::uint32_t>(solver_bodies.size());
    solver_bodies.push_back(s);
    solver_slot.push_back(slot);
    solver_stamp[slot] = stamp;
    solver_index[slot] = index;
    return index;
}

void World::Impl::refresh_internal_faces(const Aabb& region) {
    std::vector<ProxyId> near, around;
    resting.query(region, near);  // static bodies always live in the resting octree
    for (ProxyId p : near) {
        Body& b = bodies[static_cast<std::uint32_t>(resting.user_data(p))];
        if (!b.alive || !b.is_static_body()) continue;
        const Obb box = b.obb();
        const float size = std::max({b.half_extents.x, b.half_extents.y, b.half_extents.z});
        FaceFlags faces = 0;
        around.clear();
        resting.query(box.aabb().expanded(1e-4f * size), around);
        for (ProxyId q : around) {
            const Body& o = bodies[static_cast<std::uint32_t>(resting.user_data(q))];
            if (q == p || !o.alive || !o.is_static_body()) continue;
            const float tolerance = 1e-4f * std::max({size, o.half_extents.x, o.half_extents.y, o.half_extents.z});
            faces = static_cast<FaceFlags>(faces | covered_faces(box, o.obb(), tolerance));
        }
        b.internal_faces = faces;
    }
}

// ---------------------------------------------------------------------------------------------------------------
// World: construction, bodies, meshes

World::World(const WorldSettings& settings) : impl_(std::make_unique<Impl>()) {
    validate(settings);
    impl_->settings = settings;
    if (settings.threads > 1) impl_->pool = std::make_unique<ThreadPool>(settings.threads);
}
World::~World() = default;
World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;

const WorldSettings& World::settings() const { return impl_->settings; }

void World::set_settings(const WorldSettings& settings) {
    validate(settings);
    if (settings.threads != impl_->parallel().threads())
        impl_->pool = settings.threads > 1 ? std::make_unique<ThreadPool>(settings.threads) : nullptr;
    impl_->settings = settings;
    impl_->wake_everything();  // new gravity, thresholds or solver settings: let every body find out
}

BodyId World::create_body(const BodyDef& def) {
    check_body_def(def, "World::create_body");
    Impl& w = *impl_;
    Impl::Body body;
    body.position = def.position;
    body.orientation = checked_orientation(def.orientation, "World::create_body");
    body.half_extents = def.half_extents;
    body.kinematic = def.kinematic;
    body.mass = def.kinematic ? 0.0f : def.mass;
    body.velocity = body.mass == 0.0f && !body.kinematic ? glm::vec3(0.0f) : def.velocity;
    body.sensor = def.sensor;
    body.ccd = def.ccd;
    body.layer = def.layer;
    body.mask = def.mask;
    body.alive = true;
    body.awake = Impl::wants_awake(body);
    body.sequence = w.next_sequence;

    std::uint32_t slot;
    if (!w.free_bodies.empty()) {
        slot = w.free_bodies.back();
        body.generation = w.bodies[slot].generation;
    } else {
        slot = static_cast<std::uint32_t>(w.bodies.size());
        body.generation = 1;
    }
    // The octree insert is the only step that can fail now (it validates the box again); do it before committing.
    const Aabb box = w.proxy_box(body);
    body.proxy = w.tree_of(body).insert(box, slot);
    if (!w.free_bodies.empty()) {
        w.free_bodies.pop_back();
        w.bodies[slot] = body;
    } else {
        w.bodies.push_back(body);
        w.solver_index.push_back(0);
        w.solver_stamp.push_back(0);
    }
    if (body.awake) w.awake.push_back(slot);
    ++w.live_bodies;
    ++w.next_sequence;
    // A body appearing next to sleeping ones (a static floor under them, a box inside a pile) wakes them.
    w.wake_near(box);
    if (body.is_static_body()) w.refresh_internal_faces(box);
    return {slot, body.generation};
}

void World::destroy_body(BodyId id) {
    Impl& w = *impl_;
    w.live_body(id, "World::destroy_body");
    w.wake_body(id.index);  // what slept on it must fall
    Impl::Body& body = w.bodies[id.index];
    const Aabb box = w.tree_of(body).aabb(body.proxy);
    w.tree_of(body).remove(body.proxy);
    body.alive = false;
    body.awake = false;
    body.proxy = kNullProxy;
    body.generation = body.generation == 0xffffffffu ? 1u : body.generation + 1u;
    w.free_bodies.push_back(id.index);
    --w.live_bodies;
    w.wake_near(box);
    if (body.is_static_body()) w.refresh_internal_faces(box);
    w.forget_touches(id, MeshId{});
}

bool World::is_valid(BodyId id) const {
    const Impl& w = *impl_;
    return !id.is_null() && id.index < w.bodies.size() && w.bodies[id.index].alive &&
           w.bodies[id.index].generation == id.generation;
}

std::size_t World::body_count() const { return impl_->live_bodies; }

BodyState World::body(BodyId id) const {
    const Impl::Body& b = impl_->live_body(id, "World::body");
    BodyState s;
    s.position = b.position;
    s.orientation = b.orientation;
    s.half_extents = b.half_extents;
    s.velocity = b.velocity;
    s.mass = b.mass;
    s.kinematic = b.kinematic;
    s.sensor = b.sensor;
    s.sleeping = b.sleeping();
    s.ccd = b.ccd;
    s.layer = b.layer;
    s.mask = b.mask;
    return s;
}

Obb World::obb(BodyId id) const { return impl_->live_body(id, "World::obb").obb(); }

void World::set_position(BodyId id, const glm::vec3& position) {
    Impl::Body moved = impl_->live_body(id, "World::set_position");
    require_finite(position, "World::set_position", "position");
    moved.position = position;
    require_valid(impl_->proxy_box(moved), "World::set_position: the body's box");
    impl_->user_changed(id.index, moved);
}

void World::set_velocity(BodyId id, const glm::vec3& velocity) {
    Impl::Body changed = impl_->live_body(id, "World::set_velocity");
    require_finite(velocity, "World::set_velocity", "velocity");
    if (changed.is_static_body()) return;
    changed.velocity = velocity;
    impl_->user_changed(id.index, changed);
}

void World::set_orientation(BodyId id, const glm::quat& orientation) {
    Impl::Body turned = impl_->live_body(id, "World::set_orientation");
    turned.orientation = checked_orientation(orientation, "World::set_orientation");
    impl_->user_changed(id.index, turned);
}

void World::set_filter(BodyId id, std::uint64_t layer, std::uint64_t mask) {
    Impl::Body changed = impl_->live_body(id, "World::set_filter");
    changed.layer = layer;
    changed.mask = mask;
    impl_->user_changed(id.index, changed);
}

void World::wake(BodyId id) {
    impl_->live_body(id, "World::wake");
    impl_->wake_body(id.index);
}

void World::wake_all() { impl_->wake_everything(); }

MeshId World::add_mesh(const TriangleMesh& mesh, std::uint64_t layer, std::uint64_t mask) {
    const std::string problem = mesh.validate();
    if (!problem.empty()) throw InvalidArgument("World::add_mesh: " + problem);
    Impl& w = *impl_;
    std::vector<Triangle> triangles(mesh.triangle_count());
    for (std::size_t t = 0; t < triangles.size(); ++t) triangles[t] = mesh.triangle(t);
    Impl::Mesh m;
    m.active_edges = compute_active_edges(triangles);
    m.index = MeshIndex(std::move(triangles));
    m.alive = true;
    m.sequence = w.next_sequence++;
    m.layer = layer;
    m.mask = mask;
    std::uint32_t slot;
    if (!w.free_meshes.empty()) {
        slot = w.free_meshes.back();
        w.free_meshes.pop_back();
        m.generation = w.meshes[slot].generation;
        w.meshes[slot] = std::move(m);
    } else {
        slot = static_cast<std::uint32_t>(w.meshes.size());
        m.generation = 1;
        w.meshes.push_back(std::move(m));
    }
    // Wake the sleeping bodies whose boxes reach one of the new triangles.
    w.wake_touching(w.meshes[slot].index);
    return {slot, w.meshes[slot].generation};
}

void World::remove_mesh(MeshId id) {
    Impl& w = *impl_;
    Impl::Mesh& m = w.live_mesh(id, "World::remove_mesh");
    // Sleeping bodies whose boxes reach the mesh's triangles must fall.
    w.wake_touching(m.index);
    m.index = MeshIndex();
    m.alive = false;
    m.generation = m.generation == 0xffffffffu ? 1u : m.generation + 1u;
    w.free_meshes.push_back(id.index);
    w.forget_touches(BodyId{}, id);
}

std::size_t World::mesh_triangle_count(MeshId id) const { return impl_->live_mesh(id, "World::mesh_triangle_count").index.size(); }

// ---------------------------------------------------------------------------------------------------------------
// The step

void World::step(float dt) {
    if (!(std::isfinite(dt) && dt > 0.0f))
        throw InvalidArgument("World::step: dt is " + std::to_string(dt) + " (must be finite and > 0 seconds)");
    impl_->step(dt);
}

void World::Impl::step(float dt) {
    ++stamp;
    // The awake set in creation order (deterministic whatever the order bodies woke in and whichever slots they
    // have); stale entries dropped.
    std::erase_if(awake, [&](std::uint32_t slot) { return !bodies[slot].alive || !bodies[slot].awake; });
    // The list is last step's sorted list (minus the bodies that fell asleep) followed by the bodies woken since:
    // sorting only that tail and merging costs far less than sorting it all, with the same result.
    const auto by_sequence = [&](std::uint32_t x, std::uint32_t y) { return created_before(x, y); };
    const auto unsorted = std::is_sorted_until(awake.begin(), awake.end(), by_sequence);
    if (unsorted != awake.end()) {
        std::sort(unsorted, awake.end(), by_sequence);
        awake_merge.resize(awake.size());
        std::merge(awake.begin(), unsorted, unsorted, awake.end(), awake_merge.begin(), by_sequence);
        awake.swap(awake_merge);
    }
    awake.erase(std::unique(awake.begin(), awake.end()), awake.end());
    const auto n = static_cast<std::uint32_t>(awake.size());

    // Stage 1: predict. Solver body k is awake body k; resting bodies they touch are appended in stage 2.
    solver_bodies.resize(n);
    solver_slot.assign(awake.begin(), awake.end());
    predicted.resize(n);
    stats = {};
    for (std::uint32_t k = 0; k < n; ++k) {
        Body& b = bodies[awake[k]];
        SolverBody& s = solver_bodies[k];
        s.start_position = b.position;
        s.axes = glm::mat3_cast(b.orientation);
        s.half_extents = b.half_extents;
        s.dynamic = b.dynamic();  // kinematic bodies follow their velocity and are never pushed
        if (s.dynamic) b.velocity += settings.gravity * dt;
        s.position = b.position + b.velocity * dt;
        predicted[k] = s.position;
        solver_stamp[awake[k]] = stamp;
        solver_index[awake[k]] = k;
    }
    for (std::uint32_t k = 0; k < n; ++k)
        if (bodies[awake[k]].ccd && solver_bodies[k].dynamic && !bodies[awake[k]].sensor) continuous_collision(k);

    // Stage 2: broadphase. Awake proxies cover the motion from the start to the predicted position, plus a margin;
    // pairs among them come from the active octree, pairs with resting bodies from querying the resting octree.
    // Layers and sensors are sorted out here, before the narrowphase.
    for (std::uint32_t k = 0; k < n; ++k) {
        const SolverBody& s = solver_bodies[k];
        const Obb from{s.start_position, s.axes, s.half_extents};
        const Obb to{s.position, s.axes, s.half_extents};
        active.update(bodies[awake[k]].proxy, from.aabb().merged(to.aabb()).expanded(settings.broadphase_margin));
    }
    candidate_pairs.clear();
    sensor_pairs.clear();
    auto consider = [&](std::uint32_t x, std::uint32_t y, std::vector<SlotPair>& candidates,
                        std::vector<SlotPair>& sensors) {
        const Body& bx = bodies[x];
        const Body& by = bodies[y];
        if (!layers_collide(bx.layer, bx.mask, by.layer, by.mask)) return;
        const SlotPair pair = created_before(x, y) ? SlotPair{x, y} : SlotPair{y, x};
        if (bx.sensor || by.sensor) {
            // A sensor detects dynamic and kinematic bodies, not static bodies or other sensors.
            const Body& other = bx.sensor ? by : bx;
            if (!(bx.sensor && by.sensor) && (other.dynamic() || other.kinematic)) sensors.push_back(pair);
            return;
        }
        // Static-static and kinematic-static pairs never need a test; an awake kinematic body against a sleeping one
        // is kept so that the contact wakes it.
        if (!bx.dynamic() && !by.dynamic()) return;
        candidates.push_back(pair);
    };
    Parallel& par = parallel();
    proxy_pairs.clear();
    active.find_pairs(proxy_pairs, par);
    for (const ProxyPair& p : proxy_pairs)
        consider(static_cast<std::uint32_t>(active.user_data(p.a)), static_cast<std::uint32_t>(active.user_data(p.b)),
                 candidate_pairs, sensor_pairs);
    // Pairs with resting bodies: one query per awake body, in chunks whose results are appended in chunk order.
    constexpr std::size_t kBodyGrain = 64;
    if (chunk_scratch.size() < chunk_count(n, kBodyGrain)) chunk_scratch.resize(chunk_count(n, kBodyGrain));
    par.for_each_chunk(n, kBodyGrain, [&](std::size_t begin, std::size_t end) {
        ChunkScratch& c = chunk_scratch[begin / kBodyGrain];
        c.candidates.clear();
        c.sensors.clear();
        for (std::size_t k = begin; k < end; ++k) {
            c.proxies.clear();
            resting.query(active.aabb(bodies[awake[k]].proxy), c.proxies);
            for (ProxyId p : c.proxies)
                consider(awake[k], static_cast<std::uint32_t>(resting.user_data(p)), c.candidates, c.sensors);
        }
    });
    for (std::size_t c = 0; c < chunk_count(n, kBodyGrain); ++c) {
        candidate_pairs.insert(candidate_pairs.end(), chunk_scratch[c].candidates.begin(), chunk_scratch[c].candidates.end());
        sensor_pairs.insert(sensor_pairs.end(), chunk_scratch[c].sensors.begin(), chunk_scratch[c].sensors.end());
    }
    // Deterministic processing order, independent of the octrees' internal layout and of which slots earlier
    // destroy_body calls freed: pairs are sorted by the creation sequence of their bodies, not by slot.
    auto by_creation = [&](const SlotPair& x, const SlotPair& y) {
        return x.a != y.a ? created_before(x.a, y.a) : created_before(x.b, y.b);
    };
    std::sort(candidate_pairs.begin(), candidate_pairs.end(), by_creation);
    std::sort(sensor_pairs.begin(), sensor_pairs.end(), by_creation);
    mesh_order.clear();
    for (std::uint32_t m = 0; m < meshes.size(); ++m)
        if (meshes[m].alive) mesh_order.push_back(m);
    std::sort(mesh_order.begin(), mesh_order.end(),
              [&](std::uint32_t x, std::uint32_t y) { return meshes[x].sequence < meshes[y].sequence; });
    body_pairs.clear();
    for (const SlotPair& p : candidate_pairs) body_pairs.push_back({solver_index_of(p.a), solver_index_of(p.b)});

    // Mesh candidates: each awake dynamic body queries every mesh's BVH, in chunks appended in chunk order.
    par.for_each_chunk(n, kBodyGrain, [&](std::size_t begin, std::size_t end) {
        ChunkScratch& c = chunk_scratch[begin / kBodyGrain];
        c.refs.clear();
        c.origins.clear();
        for (std::size_t k = begin; k < end; ++k) {
            const Body& b = bodies[awake[k]];
            if (!b.dynamic() || b.sensor) continue;
            const Aabb box = active.aabb(b.proxy);
            for (std::uint32_t m : mesh_order) {
                if (!layers_collide(b.layer, b.mask, meshes[m].layer, meshes[m].mask)) continue;
                c.found.clear();
                meshes[m].index.query(box, c.found);
                std::sort(c.found.begin(), c.found.end());
                for (std::uint32_t t : c.found) {
                    c.refs.push_back({static_cast<std::uint32_t>(k), meshes[m].index.triangle(t),
                                      settings.active_edges_only ? meshes[m].active_edges[t] : kAllEdgesActive});
                    c.origins.push_back({m, t});
                }
            }
        }
    });
    triangle_refs.clear();
    triangle_origins.clear();
    for (std::size_t c = 0; c < chunk_count(n, kBodyGrain); ++c) {
        triangle_refs.insert(triangle_refs.end(), chunk_scratch[c].refs.begin(), chunk_scratch[c].refs.end());
        triangle_origins.insert(triangle_origins.end(), chunk_scratch[c].origins.begin(), chunk_scratch[c].origins.end());
    }
    stats.body_pairs = body_pairs.size();
    stats.triangle_pairs = triangle_refs.size();

    // Stage 3: narrowphase and position correction, iterated.
    solver.solve(solver_bodies, body_pairs, triangle_refs, settings.solver, par);

    // Stage 4: velocities from the corrected positions. v = (x_corrected - x_start) / dt, written as the predicted
    // velocity plus the solver's correction over dt: equal in exact arithmetic, but the correction is the small
    // difference of two nearby floats, so a body far from the origin that nothing touched keeps its velocity
    // exactly instead of picking up the round-off of the whole displacement. Kinematic bodies keep their velocity.
    // Then the velocity pass: contacts corrected in this step are left not separating (restitution 0), so that
    // pushing out penetration left from earlier steps does not turn into speed (PositionSolver::settle_velocities).
    // Resting solver bodies (static, asleep, kinematic at rest) have velocity 0.
    velocities.assign(solver_bodies.size(), glm::vec3(0.0f));
    for (std::uint32_t k = 0; k < n; ++k) {
        const Body& b = bodies[awake[k]];
        velocities[k] = solver_bodies[k].dynamic ? b.velocity + (solver_bodies[k].position - predicted[k]) / dt : b.velocity;
    }
    solver.settle_velocities(solver_bodies, velocities, body_pairs, triangle_refs, settings.solver, par);
    for (std::uint32_t k = 0; k < n; ++k) {
        Body& b = bodies[awake[k]];
        if (solver_bodies[k].dynamic) b.velocity = velocities[k];
        b.position = solver_bodies[k].position;
    }

    // Stage 5: report contacts, sensor overlaps and events; islands fall asleep; proxies move to the final boxes.
    report(dt);
}

std::span<const ContactRecord> World::contacts() const {
    if (impl_->contact_view_dirty) impl_->build_contact_view();
    return impl_->contact_view;
}
std::span<const ContactEvent> World::contact_events() const { return impl_->events; }
void World::set_contact_callback(std::function<void(const ContactEvent&)> callback) {
    impl_->callback = std::move(callback);
}
const StepStats& World::stats() const { return impl_->stats; }
std::uint32_t World::slot_count() const { return static_cast<std::uint32_t>(impl_->bodies.size()); }
BodyId World::id_at(std::uint32_t slot) const {
    return impl_->bodies[slot].alive ? impl_->id_of(slot) : BodyId{};
}

}  // namespace tumble
