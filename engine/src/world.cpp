#include <tumble/engine/world.hpp>

#include "world_impl.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <tumble/broadphase/loose_octree.hpp>
#include <tumble/broadphase/mesh_index.hpp>
#include <tumble/core/checks.hpp>
#include <tumble/core/error.hpp>
#include <tumble/narrowphase/sat.hpp>
#include <tumble/narrowphase/validate.hpp>

namespace tumble {
namespace {

std::string describe(const glm::vec3& v) {
    return "(" + std::to_string(v.x) + ", " + std::to_string(v.y) + ", " + std::to_string(v.z) + ")";
}

void require_finite(const glm::vec3& v, const char* where, const char* what) {
    if (!all_finite(v)) throw InvalidArgument(std::string(where) + ": " + what + " " + describe(v) + " is not finite");
}

// Unit quaternion from user input, or an exception. A length within 1e-3 of one is normalised.
glm::quat checked_orientation(const glm::quat& q, const char* where) {
    if (!all_finite(q))
        throw InvalidArgument(std::string(where) + ": orientation is not finite");
    const float len = std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    if (!(std::abs(len - 1.0f) <= 1e-3f))
        throw InvalidArgument(std::string(where) + ": orientation has length " + std::to_string(len) +
                              " (a rotation quaternion must have length 1)");
    return q / len;
}

void check_material(float friction, float restitution, const char* where) {
    if (!(std::isfinite(friction) && friction >= 0.0f))
        throw InvalidArgument(std::string(where) + ": friction " + std::to_string(friction) +
                              " must be finite and >= 0 (a Coulomb coefficient)");
    if (!(restitution >= 0.0f && restitution <= 1.0f))
        throw InvalidArgument(std::string(where) + ": restitution " + std::to_string(restitution) +
                              " must be in [0, 1]");
}

void check_body_def(const BodyDef& def, const char* where) {
    require_finite(def.position, where, "position");
    require_finite(def.half_extents, where, "half_extents");
    require_finite(def.velocity, where, "velocity");
    require_finite(def.angular_velocity, where, "angular_velocity");
    check_material(def.friction, def.restitution, where);
    for (int k = 0; k < 3; ++k)
        if (def.half_extents[k] < 0.0f)
            throw InvalidArgument(std::string(where) + ": half_extents " + describe(def.half_extents) +
                                  " has a negative component (must be >= 0)");
    if (!(std::isfinite(def.mass) && def.mass >= 0.0f))
        throw InvalidArgument(std::string(where) + ": mass " + std::to_string(def.mass) +
                              " must be finite and >= 0 (0 makes the body static)");
    if (def.mass > 0.0f && def.mass < kMinDynamicMass && !def.kinematic)
        throw InvalidArgument(std::string(where) + ": mass " + format_number(def.mass) +
                              " kg is below kMinDynamicMass (1e-6 kg) and above 0 (0 makes the body static)");
    checked_orientation(def.orientation, where);
}

}  // namespace

void validate(const WorldSettings& s) {
    require_finite(s.gravity, "WorldSettings", "gravity");
    if (!(std::isfinite(s.broadphase_margin) && s.broadphase_margin >= 0.0f))
        throw InvalidArgument("WorldSettings: broadphase_margin is " + std::to_string(s.broadphase_margin) +
                              " (must be finite and >= 0)");
    if (!(std::isfinite(s.manifold_reuse_distance) && s.manifold_reuse_distance >= 0.0f))
        throw InvalidArgument("WorldSettings: manifold_reuse_distance is " + std::to_string(s.manifold_reuse_distance) +
                              " (must be finite and >= 0 metres)");
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
    if (id.is_null() || id.index >= state.bodies.size() || !state.bodies[id.index].alive ||
        state.bodies[id.index].generation != id.generation)
        throw InvalidArgument(std::string(where) + ": body id {" + std::to_string(id.index) + ", " +
                              std::to_string(id.generation) + "} does not name a live body");
    return state.bodies[id.index];
}
World::Impl::Mesh& World::Impl::live_mesh(MeshId id, const char* where) {
    return const_cast<Mesh&>(static_cast<const Impl*>(this)->live_mesh(id, where));
}
const World::Impl::Mesh& World::Impl::live_mesh(MeshId id, const char* where) const {
    if (id.is_null() || id.index >= state.meshes.size() || !state.meshes[id.index].alive ||
        state.meshes[id.index].generation != id.generation)
        throw InvalidArgument(std::string(where) + ": mesh id {" + std::to_string(id.index) + ", " +
                              std::to_string(id.generation) + "} does not name a live mesh");
    return state.meshes[id.index];
}

void World::Impl::place_proxy(std::uint32_t slot, const Aabb& box) {
    Body& b = state.bodies[slot];
    const bool want = wants_awake(b);
    if (want == b.awake) {
        tree_of(b).update(b.proxy, box);
        return;
    }
    tree_of(b).remove(b.proxy);
    b.awake = want;
    b.proxy = tree_of(b).insert(box, slot);
    if (want) {
        state.awake.push_back(slot);
        b.quiet_time = 0.0f;
    }
}

void World::Impl::user_changed(std::uint32_t slot, const Body& moved) {
    const Aabb before = tree_of(state.bodies[slot]).aabb(state.bodies[slot].proxy);
    const Aabb after = proxy_box(moved);
    wake_body(slot);
    Body& b = state.bodies[slot];
    const bool was_awake = b.awake;
    const ProxyId proxy = b.proxy;
    const std::uint32_t generation = b.generation;
    const bool posed = moved.position != b.position || moved.orientation != b.orientation;
    b = moved;
    b.moved_by_api = moved.moved_by_api || posed;
    b.candidate_drift = std::numeric_limits<float>::infinity();  // its filter or shape may have changed: query again
    b.awake = was_awake;
    b.proxy = proxy;
    b.generation = generation;
    b.island = kNone;
    b.quiet_time = 0.0f;
    place_proxy(slot, after);
    if (!b.awake) forget_candidates_near(after);  // a resting body the still bodies' kept pairs may not hold
    wake_near(before);
    wake_near(after);
    if (b.is_static_body()) refresh_internal_faces(before.merged(after));
    contact_view_dirty = true;
}

SolverBody World::Impl::solver_body_of(const Body& b) const {
    SolverBody s;
    s.position = b.position;
    s.orientation = b.orientation;
    s.velocity = b.velocity;
    s.angular_velocity = b.angular_velocity;
    if (b.dynamic() && !b.sleeping()) {
        s.motion = Motion::dynamic;
        s.inverse_mass = 1.0f / b.mass;
        s.inverse_inertia = b.inverse_inertia;
        s.force = b.force;
        s.torque = b.torque;
    } else if (b.kinematic && b.awake) {
        s.motion = Motion::kinematic;
    } else {
        s.motion = Motion::fixed;  // static, asleep, or a kinematic body at rest
        s.velocity = s.angular_velocity = glm::vec3(0.0f);
    }
    return s;
}

std::uint32_t World::Impl::solver_index_of(std::uint32_t slot) {
    if (scratch.solver_stamp[slot] == scratch.stamp) return scratch.solver_index[slot];
    const Body& b = state.bodies[slot];
    SolverBody s = solver_body_of(b);
    s.motion = Motion::fixed;  // a resting body an awake one touches: it stays put for this step
    s.velocity = s.angular_velocity = glm::vec3(0.0f);
    s.inverse_mass = 0.0f;
    s.inverse_inertia = glm::vec3(0.0f);
    const auto index = static_cast<std::uint32_t>(scratch.solver_bodies.size());
    scratch.solver_bodies.push_back(s);
    scratch.solver_slot.push_back(slot);
    scratch.end_center.push_back(b.position);
    scratch.end_orientation.push_back(b.orientation);
    scratch.solver_stamp[slot] = scratch.stamp;
    scratch.solver_index[slot] = index;
    return index;
}

void World::Impl::refresh_internal_faces(const Aabb& region) {
    std::vector<ProxyId> near, around;
    state.resting.query(region, near);  // static bodies always live in the resting octree
    for (ProxyId p : near) {
        Body& b = state.bodies[static_cast<std::uint32_t>(state.resting.user_data(p))];
        if (!b.alive || !b.is_static_body()) continue;
        const Obb box = b.obb();
        const float size = std::max({b.half_extents.x, b.half_extents.y, b.half_extents.z});
        FaceFlags faces = 0;
        around.clear();
        state.resting.query(box.aabb().expanded(1e-4f * size), around);
        for (ProxyId q : around) {
            const Body& o = state.bodies[static_cast<std::uint32_t>(state.resting.user_data(q))];
            if (q == p || !o.alive || !o.is_static_body()) continue;
            const float tolerance = 1e-4f * std::max({size, o.half_extents.x, o.half_extents.y, o.half_extents.z});
            faces = static_cast<FaceFlags>(faces | covered_faces(box, o.obb(), tolerance));
        }
        if (faces != b.internal_faces) b.moved_by_api = true;  // its box pairs' manifolds change with them
        b.internal_faces = faces;
    }
}

// ---------------------------------------------------------------------------------------------------------------
// World: construction, bodies, meshes

World::World(const WorldSettings& settings) : impl_(std::make_unique<Impl>()) {
    validate(settings);
    impl_->state.settings = settings;
    if (settings.threads > 1) impl_->pool = std::make_unique<ThreadPool>(settings.threads);
}
World::~World() = default;
World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;

const WorldSettings& World::settings() const { return impl_->state.settings; }

void World::set_settings(const WorldSettings& settings) {
    validate(settings);
    if (settings.threads != impl_->parallel().threads())
        impl_->pool = settings.threads > 1 ? std::make_unique<ThreadPool>(settings.threads) : nullptr;
    impl_->state.settings = settings;
    impl_->wake_everything();  // new gravity, thresholds or solver settings: let every body find out
    // Manifolds found under the old settings (active edges, solver method) are found again, not kept, and the
    // meshes queried again (the margin may have changed).
    for (Impl::CarriedManifold& m : impl_->state.contact_cache.manifolds) m.keep = 0;
    impl_->forget_mesh_candidates();
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
    body.fixed_rotation = def.fixed_rotation;
    body.friction = def.friction;
    body.restitution = def.restitution;
    if (body.mass > 0.0f && !body.fixed_rotation) {
        const glm::vec3 inertia = box_inertia(body.mass, body.half_extents);
        for (int k = 0; k < 3; ++k) body.inverse_inertia[k] = inertia[k] > 0.0f ? 1.0f / inertia[k] : 0.0f;
    }
    const bool turns = body.kinematic || body.inverse_inertia != glm::vec3(0.0f);
    body.angular_velocity = turns ? def.angular_velocity : glm::vec3(0.0f);
    body.sensor = def.sensor;
    body.ccd = def.ccd;
    body.layer = def.layer;
    body.mask = def.mask;
    body.alive = true;
    body.awake = Impl::wants_awake(body);
    body.sequence = w.state.next_sequence;

    std::uint32_t slot;
    if (!w.state.free_bodies.empty()) {
        slot = w.state.free_bodies.back();
        body.generation = w.state.bodies[slot].generation;
    } else {
        slot = static_cast<std::uint32_t>(w.state.bodies.size());
        body.generation = 1;
    }
    // The octree insert is the only step that can fail now (it validates the box again); do it before committing.
    const Aabb box = w.proxy_box(body);
    body.proxy = w.tree_of(body).insert(box, slot);
    if (!w.state.free_bodies.empty()) {
        w.state.free_bodies.pop_back();
        w.state.bodies[slot] = body;
    } else {
        push_back_grown(w.state.bodies, body);
        push_back_grown(w.scratch.solver_index, 0u);
        push_back_grown(w.scratch.solver_stamp, 0u);
    }
    if (body.awake) w.state.awake.push_back(slot);
    ++w.state.live_bodies;
    ++w.state.next_sequence;
    // A body appearing next to sleeping ones (a static floor under them, a box inside a pile) wakes them; one that
    // appears at rest makes the still bodies near it query again.
    if (!body.awake) w.forget_candidates_near(box);
    w.wake_near(box);
    if (body.is_static_body()) w.refresh_internal_faces(box);
    return {slot, body.generation};
}

void World::destroy_body(BodyId id) {
    Impl& w = *impl_;
    w.live_body(id, "World::destroy_body");
    w.wake_body(id.index);  // what slept on it must fall
    Impl::Body& body = w.state.bodies[id.index];
    const Aabb box = w.tree_of(body).aabb(body.proxy);
    w.tree_of(body).remove(body.proxy);
    body.alive = false;
    body.awake = false;
    body.proxy = kNullProxy;
    body.generation = body.generation == 0xffffffffu ? 1u : body.generation + 1u;
    w.state.free_bodies.push_back(id.index);
    --w.state.live_bodies;
    w.wake_near(box);
    if (body.is_static_body()) w.refresh_internal_faces(box);
    w.forget_touches(id, MeshId{});
}

bool World::is_valid(BodyId id) const {
    const Impl& w = *impl_;
    return !id.is_null() && id.index < w.state.bodies.size() && w.state.bodies[id.index].alive &&
           w.state.bodies[id.index].generation == id.generation;
}

std::size_t World::body_count() const { return impl_->state.live_bodies; }

BodyState World::body(BodyId id) const {
    const Impl::Body& b = impl_->live_body(id, "World::body");
    BodyState s;
    s.position = b.position;
    s.orientation = b.orientation;
    s.half_extents = b.half_extents;
    s.velocity = b.velocity;
    s.angular_velocity = b.angular_velocity;
    s.mass = b.mass;
    s.inertia = b.mass > 0.0f ? box_inertia(b.mass, b.half_extents) : glm::vec3(0.0f);
    s.friction = b.friction;
    s.restitution = b.restitution;
    s.fixed_rotation = b.fixed_rotation;
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

void World::set_angular_velocity(BodyId id, const glm::vec3& angular_velocity) {
    Impl::Body changed = impl_->live_body(id, "World::set_angular_velocity");
    require_finite(angular_velocity, "World::set_angular_velocity", "angular_velocity");
    if (changed.is_static_body() || (!changed.kinematic && changed.inverse_inertia == glm::vec3(0.0f))) return;
    changed.angular_velocity = angular_velocity;
    impl_->user_changed(id.index, changed);
}

void World::apply_force(BodyId id, const glm::vec3& force, const glm::vec3& world_point) {
    Impl::Body changed = impl_->live_body(id, "World::apply_force");
    require_finite(force, "World::apply_force", "force");
    require_finite(world_point, "World::apply_force", "world_point");
    if (!changed.dynamic()) return;
    changed.force += force;
    changed.torque += glm::cross(world_point - changed.position, force);
    impl_->user_changed(id.index, changed);
}

void World::apply_torque(BodyId id, const glm::vec3& torque) {
    Impl::Body changed = impl_->live_body(id, "World::apply_torque");
    require_finite(torque, "World::apply_torque", "torque");
    if (!changed.dynamic()) return;
    changed.torque += torque;
    impl_->user_changed(id.index, changed);
}

void World::apply_impulse(BodyId id, const glm::vec3& impulse, const glm::vec3& world_point) {
    Impl::Body changed = impl_->live_body(id, "World::apply_impulse");
    require_finite(impulse, "World::apply_impulse", "impulse");
    require_finite(world_point, "World::apply_impulse", "world_point");
    if (!changed.dynamic()) return;
    changed.velocity += impulse / changed.mass;
    const glm::vec3 arm = world_point - changed.position;
    const glm::quat& q = changed.orientation;
    changed.angular_velocity += q * (changed.inverse_inertia * (glm::conjugate(q) * glm::cross(arm, impulse)));
    require_finite(changed.velocity, "World::apply_impulse", "resulting velocity");
    require_finite(changed.angular_velocity, "World::apply_impulse", "resulting angular velocity");
    impl_->user_changed(id.index, changed);
}

void World::set_material(BodyId id, float friction, float restitution) {
    Impl::Body changed = impl_->live_body(id, "World::set_material");
    check_material(friction, restitution, "World::set_material");
    changed.friction = friction;
    changed.restitution = restitution;
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
    return add_mesh(mesh, MeshMaterial{}, layer, mask);
}

MeshMaterial World::mesh_material(MeshId id) const { return impl_->live_mesh(id, "World::mesh_material").material; }

MeshId World::add_mesh(const TriangleMesh& mesh, const MeshMaterial& material, std::uint64_t layer,
                       std::uint64_t mask) {
    check_material(material.friction, material.restitution, "World::add_mesh");
    const std::string problem = mesh.validate();
    if (!problem.empty()) throw InvalidArgument("World::add_mesh: " + problem);
    Impl& w = *impl_;
    std::vector<Triangle> triangles(mesh.triangle_count());
    for (std::size_t t = 0; t < triangles.size(); ++t) triangles[t] = mesh.triangle(t);
    Impl::Mesh m;
    m.active_edges = compute_active_edges(triangles);
    m.geometry_hash = Impl::mesh_geometry_hash(triangles);
    m.index = MeshIndex(std::move(triangles));
    m.alive = true;
    m.material = material;
    m.sequence = w.state.next_sequence++;
    m.layer = layer;
    m.mask = mask;
    std::uint32_t slot;
    if (!w.state.free_meshes.empty()) {
        slot = w.state.free_meshes.back();
        w.state.free_meshes.pop_back();
        m.generation = w.state.meshes[slot].generation;
        w.state.meshes[slot] = std::move(m);
    } else {
        slot = static_cast<std::uint32_t>(w.state.meshes.size());
        m.generation = 1;
        w.state.meshes.push_back(std::move(m));
    }
    // Wake the sleeping bodies whose boxes reach one of the new triangles; the awake ones query the meshes again.
    w.wake_touching(w.state.meshes[slot].index);
    w.forget_mesh_candidates();
    return {slot, w.state.meshes[slot].generation};
}

void World::remove_mesh(MeshId id) {
    Impl& w = *impl_;
    Impl::Mesh& m = w.live_mesh(id, "World::remove_mesh");
    // Sleeping bodies whose boxes reach the mesh's triangles must fall.
    w.wake_touching(m.index);
    m.index = MeshIndex();
    m.alive = false;
    m.generation = m.generation == 0xffffffffu ? 1u : m.generation + 1u;
    w.state.free_meshes.push_back(id.index);
    w.forget_touches(BodyId{}, id);
    w.forget_mesh_candidates();  // its slot and its triangles' keys may come back with another mesh
}

std::size_t World::mesh_triangle_count(MeshId id) const { return impl_->live_mesh(id, "World::mesh_triangle_count").index.size(); }

// ---------------------------------------------------------------------------------------------------------------
// The step

void World::step(float dt) {
    if (!(std::isfinite(dt) && dt >= kMinStep))
        throw InvalidArgument("World::step: dt is " + format_number(dt) +
                              " (must be finite and >= kMinStep, 1e-6 seconds)");
    impl_->step(dt);
}

std::span<const ContactRecord> World::contacts() const {
    if (impl_->contact_view_dirty) impl_->build_contact_view();
    return impl_->contact_view;
}
std::span<const ContactEvent> World::contact_events() const { return impl_->state.events; }
void World::set_contact_callback(std::function<void(const ContactEvent&)> callback) {
    impl_->callback = std::move(callback);
}
const StepStats& World::stats() const { return impl_->stats; }
std::uint32_t World::slot_count() const { return static_cast<std::uint32_t>(impl_->state.bodies.size()); }
BodyId World::id_at(std::uint32_t slot) const {
    return impl_->state.bodies[slot].alive ? impl_->id_of(slot) : BodyId{};
}

}  // namespace tumble
