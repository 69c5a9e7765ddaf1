#include <tumble/engine/world.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <tumble/broadphase/loose_octree.hpp>
#include <tumble/broadphase/mesh_adjacency.hpp>
#include <tumble/broadphase/mesh_index.hpp>
#include <tumble/error.hpp>
#include <tumble/narrowphase/sat.hpp>

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
    validate(s.solver);
}

struct World::Impl {
    struct Body {
        glm::vec3 position{0.0f};
        glm::quat orientation{1.0f, 0.0f, 0.0f, 0.0f};
        glm::vec3 half_extents{0.0f};
        glm::vec3 velocity{0.0f};
        float mass = 0.0f;
        std::uint32_t generation = 0;  // odd-free scheme: bumped on destroy; 0 never used for a live body
        bool alive = false;
        ProxyId proxy = kNullProxy;
        std::uint64_t sequence = 0;  // creation order: the step's sort key, independent of slot reuse
        FaceFlags internal_faces = 0;  // static bodies: faces covered by a flush static neighbour

        Obb obb_at(const glm::vec3& center) const { return {center, glm::mat3_cast(orientation), half_extents}; }
    };
    struct Mesh {
        MeshIndex index;
        std::vector<EdgeFlags> active_edges;  // per triangle, from the mesh's adjacency
        std::uint32_t generation = 0;
        bool alive = false;
        std::uint64_t sequence = 0;  // creation order, as for bodies
    };
    // Where a solver TriangleRef came from.
    struct TriangleOrigin {
        std::uint32_t mesh;
        std::uint32_t triangle;
    };

    WorldSettings settings;
    std::vector<Body> bodies;
    std::vector<std::uint32_t> free_bodies;
    std::size_t live_bodies = 0;
    std::vector<Mesh> meshes;
    std::vector<std::uint32_t> free_meshes;
    std::uint64_t next_sequence = 0;  // shared by bodies and meshes; only the relative order matters
    LooseOctree octree;
    PositionSolver solver;
    std::vector<ContactRecord> contacts;
    StepStats stats;

    // Per-step scratch, kept between steps so that steady-state steps reuse the memory.
    std::vector<SolverBody> solver_bodies;
    std::vector<glm::vec3> predicted;  // positions after stage 1, before the solver
    std::vector<ProxyPair> proxy_pairs;
    std::vector<BodyPairRef> body_pairs;
    std::vector<TriangleRef> triangle_refs;
    std::vector<TriangleOrigin> triangle_origins;
    std::vector<std::uint32_t> query_result;
    std::vector<std::uint32_t> body_order;  // dynamic body slots by creation sequence
    std::vector<std::uint32_t> mesh_order;  // live mesh slots by creation sequence

    Body& live_body(BodyId id, const char* where) {
        if (id.is_null() || id.index >= bodies.size() || !bodies[id.index].alive ||
            bodies[id.index].generation != id.generation)
            throw InvalidArgument(std::string(where) + ": body id {" + std::to_string(id.index) + ", " +
                                  std::to_string(id.generation) + "} does not name a live body");
        return bodies[id.index];
    }
    Mesh& live_mesh(MeshId id, const char* where) {
        if (id.is_null() || id.index >= meshes.size() || !meshes[id.index].alive ||
            meshes[id.index].generation != id.generation)
            throw InvalidArgument(std::string(where) + ": mesh id {" + std::to_string(id.index) + ", " +
                                  std::to_string(id.generation) + "} does not name a live mesh");
        return meshes[id.index];
    }
    BodyId id_of(std::uint32_t slot) const { return {slot, bodies[slot].generation}; }

    Aabb proxy_box(const Body& b) const { return b.obb_at(b.position).aabb().expanded(settings.broadphase_margin); }
    void refresh_internal_faces(const Aabb& region);

    void step(float dt);
};

// Recomputes the internal faces of every static body whose proxy touches `region`, after a static body appeared,
// moved or disappeared there: each face that a single flush static neighbour covers (covered_faces).
void World::Impl::refresh_internal_faces(const Aabb& region) {
    std::vector<ProxyId> near, around;
    octree.query(region, near);
    for (ProxyId p : near) {
        Body& b = bodies[static_cast<std::uint32_t>(octree.user_data(p))];
        if (!b.alive || b.mass != 0.0f) continue;
        const Obb box = b.obb_at(b.position);
        const float size = std::max({b.half_extents.x, b.half_extents.y, b.half_extents.z});
        FaceFlags faces = 0;
        around.clear();
        octree.query(box.aabb().expanded(1e-4f * size), around);
        for (ProxyId q : around) {
            const Body& o = bodies[static_cast<std::uint32_t>(octree.user_data(q))];
            if (q == p || !o.alive || o.mass != 0.0f) continue;
            const float tolerance = 1e-4f * std::max({size, o.half_extents.x, o.half_extents.y, o.half_extents.z});
            faces = static_cast<FaceFlags>(faces | covered_faces(box, o.obb_at(o.position), tolerance));
        }
        b.internal_faces = faces;
    }
}

World::World(const WorldSettings& settings) : impl_(std::make_unique<Impl>()) {
    validate(settings);
    impl_->settings = settings;
}
World::~World() = default;
World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;

const WorldSettings& World::settings() const { return impl_->settings; }

void World::set_settings(const WorldSettings& settings) {
    validate(settings);
    impl_->settings = settings;
}

BodyId World::create_body(const BodyDef& def) {
    check_body_def(def, "World::create_body");
    Impl& w = *impl_;
    Impl::Body body;
    body.position = def.position;
    body.orientation = checked_orientation(def.orientation, "World::create_body");
    body.half_extents = def.half_extents;
    body.velocity = def.mass == 0.0f ? glm::vec3(0.0f) : def.velocity;
    body.mass = def.mass;
    body.alive = true;
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
    body.proxy = w.octree.insert(w.proxy_box(body), slot);
    if (!w.free_bodies.empty()) {
        w.free_bodies.pop_back();
        w.bodies[slot] = body;
    } else {
        w.bodies.push_back(body);
    }
    ++w.live_bodies;
    ++w.next_sequence;
    if (body.mass == 0.0f) w.refresh_internal_faces(w.octree.aabb(body.proxy));
    return {slot, body.generation};
}

void World::destroy_body(BodyId id) {
    Impl& w = *impl_;
    Impl::Body& body = w.live_body(id, "World::destroy_body");
    const Aabb was = w.octree.aabb(body.proxy);
    w.octree.remove(body.proxy);
    body.alive = false;
    body.proxy = kNullProxy;
    body.generation = body.generation == 0xffffffffu ? 1u : body.generation + 1u;
    w.free_bodies.push_back(id.index);
    --w.live_bodies;
    if (body.mass == 0.0f) w.refresh_internal_faces(was);
    // Contacts that name the destroyed body would dangle: drop them.
    std::erase_if(w.contacts, [&](const ContactRecord& c) { return c.a == id || c.b == id; });
}

bool World::is_valid(BodyId id) const {
    const Impl& w = *impl_;
    return !id.is_null() && id.index < w.bodies.size() && w.bodies[id.index].alive &&
           w.bodies[id.index].generation == id.generation;
}

std::size_t World::body_count() const { return impl_->live_bodies; }

BodyState World::body(BodyId id) const {
    const Impl::Body& b = impl_->live_body(id, "World::body");
    return {b.position, b.orientation, b.half_extents, b.velocity, b.mass};
}

Obb World::obb(BodyId id) const {
    const Impl::Body& b = impl_->live_body(id, "World::obb");
    return b.obb_at(b.position);
}

void World::set_position(BodyId id, const glm::vec3& position) {
    Impl::Body& b = impl_->live_body(id, "World::set_position");
    require_finite(position, "World::set_position", "position");
    Impl::Body moved = b;
    moved.position = position;
    const Aabb was = impl_->octree.aabb(b.proxy);
    impl_->octree.update(b.proxy, impl_->proxy_box(moved));
    b.position = position;
    if (b.mass == 0.0f) impl_->refresh_internal_faces(was.merged(impl_->octree.aabb(b.proxy)));
}

void World::set_velocity(BodyId id, const glm::vec3& velocity) {
    Impl::Body& b = impl_->live_body(id, "World::set_velocity");
    require_finite(velocity, "World::set_velocity", "velocity");
    if (b.mass != 0.0f) b.velocity = velocity;
}

void World::set_orientation(BodyId id, const glm::quat& orientation) {
    Impl::Body& b = impl_->live_body(id, "World::set_orientation");
    Impl::Body turned = b;
    turned.orientation = checked_orientation(orientation, "World::set_orientation");
    const Aabb was = impl_->octree.aabb(b.proxy);
    impl_->octree.update(b.proxy, impl_->proxy_box(turned));
    b.orientation = turned.orientation;
    if (b.mass == 0.0f) impl_->refresh_internal_faces(was.merged(impl_->octree.aabb(b.proxy)));
}

MeshId World::add_mesh(const TriangleMesh& mesh) {
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
    return {slot, w.meshes[slot].generation};
}

void World::remove_mesh(MeshId id) {
    Impl& w = *impl_;
    Impl::Mesh& m = w.live_mesh(id, "World::remove_mesh");
    m.index = MeshIndex();
    m.alive = false;
    m.generation = m.generation == 0xffffffffu ? 1u : m.generation + 1u;
    w.free_meshes.push_back(id.index);
    std::erase_if(w.contacts, [&](const ContactRecord& c) { return c.mesh == id; });
}

std::size_t World::mesh_triangle_count(MeshId id) const { return impl_->live_mesh(id, "World::mesh_triangle_count").index.size(); }

void World::step(float dt) {
    if (!(std::isfinite(dt) && dt > 0.0f))
        throw InvalidArgument("World::step: dt is " + std::to_string(dt) + " (must be finite and > 0 seconds)");
    impl_->step(dt);
}

void World::Impl::step(float dt) {
    const std::uint32_t n = static_cast<std::uint32_t>(bodies.size());

    // Stage 1: predict. Every slot gets a solver body (free slots are inert) so solver index == slot index.
    solver_bodies.resize(n);
    predicted.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        Body& b = bodies[i];
        SolverBody& s = solver_bodies[i];
        s.start_position = b.position;
        s.axes = glm::mat3_cast(b.orientation);
        s.half_extents = b.half_extents;
        s.dynamic = b.alive && b.mass != 0.0f;
        s.internal_faces = settings.active_edges_only ? b.internal_faces : FaceFlags{0};
        if (s.dynamic) b.velocity += settings.gravity * dt;
        s.position = s.dynamic ? b.position + b.velocity * dt : b.position;
        predicted[i] = s.position;
    }

    // Stage 2: broadphase. Proxies cover the motion from the start to the predicted position, plus a margin.
    for (std::uint32_t i = 0; i < n; ++i) {
        const Body& b = bodies[i];
        if (!b.alive || b.mass == 0.0f) continue;
        const Obb from{solver_bodies[i].start_position, solver_bodies[i].axes, b.half_extents};
        const Obb to{solver_bodies[i].position, solver_bodies[i].axes, b.half_extents};
        octree.update(b.proxy, from.aabb().merged(to.aabb()).expanded(settings.broadphase_margin));
    }
    proxy_pairs.clear();
    octree.find_pairs(proxy_pairs);
    body_pairs.clear();
    for (const ProxyPair& p : proxy_pairs) {
        auto a = static_cast<std::uint32_t>(octree.user_data(p.a));
        auto b = static_cast<std::uint32_t>(octree.user_data(p.b));
        if (!solver_bodies[a].dynamic && !solver_bodies[b].dynamic) continue;
        if (bodies[a].sequence > bodies[b].sequence) std::swap(a, b);
        body_pairs.push_back({a, b});
    }
    // Deterministic processing order, independent of the octree's internal layout and of which slots earlier
    // destroy_body calls freed: pairs are sorted by the creation sequence of their bodies, not by slot.
    std::sort(body_pairs.begin(), body_pairs.end(), [&](const BodyPairRef& x, const BodyPairRef& y) {
        const std::uint64_t xa = bodies[x.a].sequence, ya = bodies[y.a].sequence;
        return xa != ya ? xa < ya : bodies[x.b].sequence < bodies[y.b].sequence;
    });
    body_order.clear();
    for (std::uint32_t i = 0; i < n; ++i)
        if (solver_bodies[i].dynamic) body_order.push_back(i);
    std::sort(body_order.begin(), body_order.end(),
              [&](std::uint32_t x, std::uint32_t y) { return bodies[x].sequence < bodies[y].sequence; });
    mesh_order.clear();
    for (std::uint32_t m = 0; m < meshes.size(); ++m)
        if (meshes[m].alive) mesh_order.push_back(m);
    std::sort(mesh_order.begin(), mesh_order.end(),
              [&](std::uint32_t x, std::uint32_t y) { return meshes[x].sequence < meshes[y].sequence; });

    triangle_refs.clear();
    triangle_origins.clear();
    for (std::uint32_t i : body_order) {
        const Aabb box = octree.aabb(bodies[i].proxy);
        for (std::uint32_t m : mesh_order) {
            query_result.clear();
            meshes[m].index.query(box, query_result);
            std::sort(query_result.begin(), query_result.end());
            for (std::uint32_t t : query_result) {
                triangle_refs.push_back({i, meshes[m].index.triangle(t),
                                         settings.active_edges_only ? meshes[m].active_edges[t] : kAllEdgesActive});
                triangle_origins.push_back({m, t});
            }
        }
    }
    stats.body_pairs = body_pairs.size();
    stats.triangle_pairs = triangle_refs.size();

    // Stage 3: narrowphase and position correction, iterated.
    solver.solve(solver_bodies, body_pairs, triangle_refs, settings.solver);

    // Stage 4: velocities from the corrected positions. v = (x_corrected - x_start) / dt, written as the predicted
    // velocity plus the solver's correction over dt: equal in exact arithmetic, but the correction is the small
    // difference of two nearby floats, so a body far from the origin that nothing touched keeps its velocity
    // exactly instead of picking up the round-off of the whole displacement.
    for (std::uint32_t i = 0; i < n; ++i) {
        if (!solver_bodies[i].dynamic) continue;
        Body& b = bodies[i];
        b.velocity += (solver_bodies[i].position - predicted[i]) / dt;
        b.position = solver_bodies[i].position;
    }

    // Stage 5: report the contacts left at the final positions.
    contacts.clear();
    for (const BodyPairRef& p : body_pairs) {
        const SolverBody& a = solver_bodies[p.a];
        const SolverBody& b = solver_bodies[p.b];
        if (const std::optional<Contact> c = box_contact(a.obb(), a.internal_faces, b.obb(), b.internal_faces))
            contacts.push_back({id_of(p.a), id_of(p.b), MeshId{}, 0, *c});
    }
    for (std::size_t k = 0; k < triangle_refs.size(); ++k) {
        const SolverBody& s = solver_bodies[triangle_refs[k].body];
        if (const std::optional<Contact> c =
                mesh_contact(s.obb(), triangle_refs[k].triangle, s.start_position, triangle_refs[k].active_edges)) {
            const TriangleOrigin& o = triangle_origins[k];
            contacts.push_back({id_of(triangle_refs[k].body), BodyId{}, MeshId{o.mesh, meshes[o.mesh].generation},
                                o.triangle, *c});
        }
    }
    stats.contacts = contacts.size();

    // Proxies back to the bodies' final boxes (static bodies never moved).
    for (std::uint32_t i = 0; i < n; ++i)
        if (solver_bodies[i].dynamic) octree.update(bodies[i].proxy, proxy_box(bodies[i]));
}

std::span<const ContactRecord> World::contacts() const { return impl_->contacts; }
const StepStats& World::stats() const { return impl_->stats; }
std::uint32_t World::slot_count() const { return static_cast<std::uint32_t>(impl_->bodies.size()); }
BodyId World::id_at(std::uint32_t slot) const {
    return impl_->bodies[slot].alive ? impl_->id_of(slot) : BodyId{};
}

}  // namespace tumble
