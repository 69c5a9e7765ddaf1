// World::save_state and World::restore_state: the world's simulation state as bytes and back. world.hpp gives the
// contract and the header; docs/game.md#snapshot-and-restore how a game uses it. The model is Jolt Physics'
// StateRecorder (PhysicsSystem::SaveState, RestoreState): the snapshot holds what changes while the world runs and
// restores into a world built by the same calls, which is what rollback networking and replays need.
//
// What is saved is World::Impl::WorldState (world_impl.hpp), the part of the world that lives from step to step; the
// functions below see nothing else. Field by field:
//   settings                 all but `threads` (results do not depend on it; the bytes must not either)
//   candidate_dt             the shortest step since the mesh candidates were last forgotten
//   bodies                   per live slot: pose, velocities, the force and torque of the next step, material,
//                            filter, sleep state (quiet_time, rest pose, island), internal_faces (they follow the
//                            static neighbours, which set_position moves), moved_by_api, candidate_drift and the
//                            proxy's box.
//                            `awake` and the octree a proxy sits in follow from the state (wants_awake); the `awake`
//                            list is rebuilt in creation order, which is what integrate_stage turns any list into.
//   islands, free_islands    as they are: island ids decide which slot the next island takes
//   touches, woken_touches,  the contacts() view, the event pairs the next step diffs against, contact_events()
//   event_pairs, events
//   contact_cache            as it is: the keys of the last step's manifolds with a stuck point or a warm-start force
//                            and those points (feature id, friction anchors; stuck mask; the soft step's forces),
//                            what carry_contacts reads; with kept manifolds on (soft step), every manifold whole,
//                            with its held mask, keep flags, axis, normal and drift, what the narrowphase reads.
//   meshes, free_bodies,     not written: a world built by the same calls has them already, and the fingerprints
//   free_meshes,             check the live bodies' and meshes' ids, creation order and shapes.
//   next_sequence
// Not state, and out of reach here: the step context (World::Impl::StepContext, written by each step before it
// reads it, including the solver's buffers and `stamp`), the stats, the contact callback, the contacts() view and the
// thread pool.
//
// The octrees are rebuilt from the saved boxes instead of copied: LooseOctree::find_pairs and query return exactly
// the proxies whose boxes overlap, and the step sorts what they return by creation order, so any octree holding the
// same boxes gives the step the same pairs in the same order (only debug_draw's cells can differ).

#include <tumble/engine/world.hpp>

#include "world_impl.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include <tumble/core/error.hpp>

namespace tumble {
namespace {

using Impl = World::Impl;
// Everything here reads and writes the persistent part of the world only (World::Impl::WorldState); the step's
// scratch is not reachable from it.
using State = Impl::WorldState;
constexpr std::uint32_t kNone = Impl::kNone;

constexpr std::uint8_t kMagic[8] = {'T', 'M', 'B', 'L', 'S', 'N', 'A', 'P'};
// 2: the solver method, and carried points with their warm start; 3: kept manifolds (a body's moved_by_api flag, a
// carried manifold's held mask, keep flags, axis, normal and drift, the reuse distance); 4: a body's candidate drift
// and the shortest step since the mesh candidates were forgotten (kept mesh candidates)
constexpr std::uint32_t kFormatVersion = 4;
// Header: magic (8), version (4), body count (4), mesh count (4), body fingerprint (8), mesh fingerprint (8),
// payload size (8), checksum (8).
constexpr std::size_t kVersionOffset = 8;
constexpr std::size_t kSizeOffset = 36;
constexpr std::size_t kChecksumOffset = 44;
constexpr std::size_t kHeaderSize = 52;
// Bytes per item of each list, for the reserve estimate and the check that a count fits in what remains.
constexpr std::size_t kBodyBytes = 174;
constexpr std::size_t kTouchBytes = 50;
constexpr std::size_t kEventBytes = 51;
constexpr std::size_t kIslandBytes = 9;  // alive flag and two counts
constexpr std::size_t kManifoldBytes = 24;  // key, point count, stuck and held masks, keep flags (17 more if keepable)
constexpr std::size_t kPointBytes = 28;     // id and two anchors (16 more with the soft step's warm start)

static_assert(std::is_nothrow_move_assignable_v<LooseOctree>, "restore_state commits the octrees by moving them");

[[noreturn]] void fail(const std::string& why) { throw FileError("World::restore_state: " + why); }

std::string hex(std::uint64_t v) {
    char buffer[19];
    std::snprintf(buffer, sizeof buffer, "0x%016llx", static_cast<unsigned long long>(v));
    return buffer;
}
std::string describe(BodyId id) { return "{" + std::to_string(id.index) + ", " + std::to_string(id.generation) + "}"; }
std::string plural(std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// FNV-1a 64 (Fowler, Noll, Vo): the checksum and the fingerprints. Multi-byte values go in little endian, floats as
// their bit patterns, so the result is the same on every machine.
class Fnv1a {
public:
    void u8(std::uint8_t b) { h_ = (h_ ^ b) * 0x100000001b3ull; }
    void bytes(const std::byte* p, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) u8(std::to_integer<std::uint8_t>(p[i]));
    }
    void u32(std::uint32_t v) {
        for (int i = 0; i < 4; ++i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    void u64(std::uint64_t v) {
        for (int i = 0; i < 8; ++i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    void f32(float v) { u32(std::bit_cast<std::uint32_t>(v)); }
    void vec3(const glm::vec3& v) { f32(v.x), f32(v.y), f32(v.z); }
    std::uint64_t value() const { return h_; }

private:
    std::uint64_t h_ = 0xcbf29ce484222325ull;
};

// Checksum of a snapshot: the header up to the checksum field, then the payload.
std::uint64_t checksum(std::span<const std::byte> bytes) {
    Fnv1a h;
    h.bytes(bytes.data(), kChecksumOffset);
    h.bytes(bytes.data() + kHeaderSize, bytes.size() - kHeaderSize);
    return h.value();
}

std::uint8_t kind_bits(const Impl::Body& b) {
    return static_cast<std::uint8_t>((b.kinematic ? 1 : 0) | (b.fixed_rotation ? 2 : 0) | (b.sensor ? 4 : 0) |
                                     (b.ccd ? 8 : 0));
}

// What a body is, as opposed to what it does: fixed from create_body on.
std::uint64_t body_fingerprint(const State& w) {
    Fnv1a h;
    for (std::uint32_t slot = 0; slot < w.bodies.size(); ++slot) {
        const Impl::Body& b = w.bodies[slot];
        if (!b.alive) continue;
        h.u32(slot);
        h.u32(b.generation);
        h.u64(b.sequence);
        h.vec3(b.half_extents);
        h.f32(b.mass);
        h.vec3(b.inverse_inertia);
        h.u8(kind_bits(b));
    }
    return h.value();
}

// Meshes never change after add_mesh.
std::uint64_t mesh_fingerprint(const State& w) {
    Fnv1a h;
    for (std::uint32_t slot = 0; slot < w.meshes.size(); ++slot) {
        const Impl::Mesh& m = w.meshes[slot];
        if (!m.alive) continue;
        h.u32(slot);
        h.u32(m.generation);
        h.u64(m.sequence);
        h.u64(m.index.size());
        h.u64(m.geometry_hash);
        h.f32(m.material.friction);
        h.f32(m.material.restitution);
        h.u64(m.layer);
        h.u64(m.mask);
    }
    return h.value();
}

std::size_t live_meshes(const State& w) {
    return static_cast<std::size_t>(std::count_if(w.meshes.begin(), w.meshes.end(), [](const Impl::Mesh& m) { return m.alive; }));
}

bool finite(float v) { return std::isfinite(v); }
bool finite(const glm::vec3& v) { return finite(v.x) && finite(v.y) && finite(v.z); }
bool finite(const glm::quat& q) { return finite(q.w) && finite(q.x) && finite(q.y) && finite(q.z); }

// ---- Encoding

class Writer {
public:
    explicit Writer(std::vector<std::byte>& out) : out_(out) {}
    void u8(std::uint8_t v) { out_.push_back(static_cast<std::byte>(v)); }
    void flag(bool v) { u8(v ? 1 : 0); }
    void u32(std::uint32_t v) {
        for (int i = 0; i < 4; ++i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    void u64(std::uint64_t v) {
        for (int i = 0; i < 8; ++i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    void count(std::size_t n) { u32(static_cast<std::uint32_t>(n)); }  // lists of slots and contacts: < 2^32
    void i32(std::int32_t v) { u32(static_cast<std::uint32_t>(v)); }
    void f32(float v) { u32(std::bit_cast<std::uint32_t>(v)); }
    void vec3(const glm::vec3& v) { f32(v.x), f32(v.y), f32(v.z); }
    void quat(const glm::quat& q) { f32(q.w), f32(q.x), f32(q.y), f32(q.z); }
    void body(BodyId id) { u32(id.index), u32(id.generation); }
    void mesh(MeshId id) { u32(id.index), u32(id.generation); }
    void contact(const Contact& c) {
        i32(c.axis);
        flag(c.negative);
        f32(c.depth);
        vec3(c.normal);
    }
    void record(const ContactRecord& r) {  // 49 bytes
        body(r.a);
        body(r.b);
        mesh(r.mesh);
        u32(r.triangle);
        contact(r.contact);
    }
    void touches(const std::vector<Impl::Touch>& list) {  // the record and the sensor flag
        count(list.size());
        for (const Impl::Touch& t : list) record(t.record), flag(t.sensor);
    }
    void patch_u64(std::size_t at, std::uint64_t v) {
        for (int i = 0; i < 8; ++i) out_[at + static_cast<std::size_t>(i)] = static_cast<std::byte>(v >> (8 * i));
    }

private:
    std::vector<std::byte>& out_;
};

// Reads the payload front to back; running out is an error naming the byte and what was being read.
class Reader {
public:
    Reader(std::span<const std::byte> bytes, std::size_t pos) : bytes_(bytes), pos_(pos) {}
    std::size_t position() const { return pos_; }
    std::size_t remaining() const { return bytes_.size() - pos_; }

    std::uint8_t u8(const char* what) {
        need(1, what);
        return std::to_integer<std::uint8_t>(bytes_[pos_++]);
    }
    bool flag(const char* what) {
        const std::size_t at = pos_;
        const std::uint8_t v = u8(what);
        if (v > 1) fail("byte " + std::to_string(at) + ": " + what + " is " + std::to_string(v) + " (a flag is 0 or 1)");
        return v == 1;
    }
    std::uint32_t u32(const char* what) {
        need(4, what);
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= std::uint32_t{std::to_integer<std::uint8_t>(bytes_[pos_++])} << (8 * i);
        return v;
    }
    std::uint64_t u64(const char* what) {
        const std::uint64_t lo = u32(what);
        return lo | (std::uint64_t{u32(what)} << 32);
    }
    std::int32_t i32(const char* what) { return static_cast<std::int32_t>(u32(what)); }
    float f32(const char* what) { return std::bit_cast<float>(u32(what)); }
    glm::vec3 vec3(const char* what) {
        const float x = f32(what), y = f32(what), z = f32(what);
        return {x, y, z};
    }
    glm::quat quat(const char* what) {
        const float w = f32(what), x = f32(what), y = f32(what), z = f32(what);
        return {w, x, y, z};
    }
    BodyId body(const char* what) {
        const std::uint32_t index = u32(what);
        return {index, u32(what)};
    }
    MeshId mesh(const char* what) {
        const std::uint32_t index = u32(what);
        return {index, u32(what)};
    }
    // A list length whose items take at least `bytes_each` bytes: it must fit in what remains, so that a corrupt
    // count cannot make the decoder reserve gigabytes.
    std::size_t count(const char* what, std::size_t bytes_each) {
        const std::size_t at = pos_;
        const std::size_t n = u32(what);
        if (n > remaining() / bytes_each)
            fail("byte " + std::to_string(at) + ": " + what + " count " + std::to_string(n) + " needs at least " +
                 std::to_string(n * bytes_each) + " bytes, " + std::to_string(remaining()) + " remain");
        return n;
    }
    Contact contact(const char* what) {
        Contact c;
        c.axis = i32(what);
        c.negative = flag(what);
        c.depth = f32(what);
        c.normal = vec3(what);
        return c;
    }
    ContactRecord record(const char* what) {
        ContactRecord r;
        r.a = body(what);
        r.b = body(what);
        r.mesh = mesh(what);
        r.triangle = u32(what);
        r.contact = contact(what);
        return r;
    }
    std::vector<Impl::Touch> touches(const char* what) {
        std::vector<Impl::Touch> list(count(what, kTouchBytes));
        for (Impl::Touch& t : list) {
            t.record = record(what);
            t.sensor = flag(what);
        }
        return list;
    }

private:
    void need(std::size_t n, const char* what) {
        if (remaining() < n)
            fail("malformed payload: it ends at byte " + std::to_string(bytes_.size()) + " in the middle of " + what);
    }
    std::span<const std::byte> bytes_;
    std::size_t pos_;
};

// One live body's saved state.
struct BodyRecord {
    BodyId id;
    glm::vec3 position{0.0f};
    glm::quat orientation{1.0f, 0.0f, 0.0f, 0.0f};
    glm::vec3 velocity{0.0f}, angular_velocity{0.0f}, force{0.0f}, torque{0.0f};
    float friction = 0.0f, restitution = 0.0f;
    std::uint64_t layer = 0, mask = 0;
    float quiet_time = 0.0f;
    glm::vec3 rest_position{0.0f};
    glm::quat rest_orientation{1.0f, 0.0f, 0.0f, 0.0f};
    std::uint32_t island = kNone;
    FaceFlags internal_faces = 0;
    bool moved_by_api = false;
    float candidate_drift = 0.0f;
    Aabb proxy_box;
};

// Everything a snapshot decodes to, before any of it reaches the world.
struct Decoded {
    WorldSettings settings;
    float candidate_dt = 0.0f;
    std::vector<BodyRecord> bodies;
    std::vector<Impl::Island> islands;
    std::vector<std::uint32_t> free_islands;
    std::vector<Impl::Touch> touches, woken_touches;
    std::vector<Impl::Touch> event_pairs;
    std::vector<ContactEvent> events;
    Impl::ContactCache contact_cache;
};

void write_settings(Writer& o, const WorldSettings& s) {
    o.vec3(s.gravity);
    o.i32(s.solver.substeps);
    o.i32(s.solver.iterations);
    o.f32(s.solver.restitution_threshold);
    o.f32(s.solver.slop);
    o.u8(static_cast<std::uint8_t>(s.solver.method));
    o.f32(s.solver.contact_hertz);
    o.f32(s.broadphase_margin);
    o.flag(s.active_edges_only);
    o.f32(s.manifold_reuse_distance);
    o.flag(s.sleep.enabled);
    o.f32(s.sleep.linear_velocity);
    o.f32(s.sleep.time);
}

WorldSettings read_settings(Reader& in) {
    WorldSettings s;
    s.gravity = in.vec3("settings.gravity");
    s.solver.substeps = in.i32("settings.solver.substeps");
    s.solver.iterations = in.i32("settings.solver.iterations");
    s.solver.restitution_threshold = in.f32("settings.solver.restitution_threshold");
    s.solver.slop = in.f32("settings.solver.slop");
    s.solver.method = static_cast<SolverMethod>(in.u8("settings.solver.method"));
    s.solver.contact_hertz = in.f32("settings.solver.contact_hertz");
    s.broadphase_margin = in.f32("settings.broadphase_margin");
    s.active_edges_only = in.flag("settings.active_edges_only");
    s.manifold_reuse_distance = in.f32("settings.manifold_reuse_distance");
    s.sleep.enabled = in.flag("settings.sleep.enabled");
    s.sleep.linear_velocity = in.f32("settings.sleep.linear_velocity");
    s.sleep.time = in.f32("settings.sleep.time");
    return s;
}

void write_body(Writer& o, const State& w, std::uint32_t slot) {
    const Impl::Body& b = w.bodies[slot];
    o.u32(slot);
    o.u32(b.generation);
    o.vec3(b.position);
    o.quat(b.orientation);
    o.vec3(b.velocity);
    o.vec3(b.angular_velocity);
    o.vec3(b.force);
    o.vec3(b.torque);
    o.f32(b.friction);
    o.f32(b.restitution);
    o.u64(b.layer);
    o.u64(b.mask);
    o.f32(b.quiet_time);
    o.vec3(b.rest_position);
    o.quat(b.rest_orientation);
    o.u32(b.island);
    o.u8(b.internal_faces);
    o.flag(b.moved_by_api);
    o.f32(b.candidate_drift);
    // The proxy's box (which the margin of the time it was placed sized). A world that an exception left half
    // stepped (docs/reliability.md) may have lost the proxy: its box is then the one the body asks for now.
    const LooseOctree& tree = w.tree_of(b);
    const Aabb box = tree.contains(b.proxy) && tree.user_data(b.proxy) == slot ? tree.aabb(b.proxy) : w.proxy_box(b);
    o.vec3(box.min);
    o.vec3(box.max);
}

BodyRecord read_body(Reader& in) {
    BodyRecord r;
    r.id = in.body("a body's id");
    r.position = in.vec3("a body's position");
    r.orientation = in.quat("a body's orientation");
    r.velocity = in.vec3("a body's velocity");
    r.angular_velocity = in.vec3("a body's angular velocity");
    r.force = in.vec3("a body's force");
    r.torque = in.vec3("a body's torque");
    r.friction = in.f32("a body's friction");
    r.restitution = in.f32("a body's restitution");
    r.layer = in.u64("a body's layer");
    r.mask = in.u64("a body's mask");
    r.quiet_time = in.f32("a body's quiet time");
    r.rest_position = in.vec3("a body's rest position");
    r.rest_orientation = in.quat("a body's rest orientation");
    r.island = in.u32("a body's island");
    r.internal_faces = in.u8("a body's internal faces");
    r.moved_by_api = in.flag("a body's moved-by-the-API flag");
    r.candidate_drift = in.f32("a body's candidate drift");
    r.proxy_box.min = in.vec3("a body's broadphase box");
    r.proxy_box.max = in.vec3("a body's broadphase box");
    return r;
}

// The payload, structurally: every count fits, every flag is 0 or 1, nothing is left over. What the values mean is
// checked against the world afterwards (check_against).
Decoded decode(Reader& in, std::size_t body_count) {
    Decoded d;
    d.settings = read_settings(in);
    d.candidate_dt = in.f32("the shortest step since the mesh candidates were forgotten");
    if (body_count > in.remaining() / kBodyBytes)
        fail("malformed payload: " + plural(body_count, "body needs", "bodies need") + " " +
             std::to_string(body_count * kBodyBytes) + " bytes, " + std::to_string(in.remaining()) + " remain");
    d.bodies.resize(body_count);
    for (BodyRecord& r : d.bodies) r = read_body(in);

    d.islands.resize(in.count("islands", kIslandBytes));
    for (Impl::Island& island : d.islands) {
        island.alive = in.flag("an island's alive flag");
        island.bodies.resize(in.count("an island's bodies", 4));
        for (std::uint32_t& slot : island.bodies) slot = in.u32("an island's body");
        island.touches = in.touches("an island's contacts");
    }
    d.free_islands.resize(in.count("free islands", 4));
    for (std::uint32_t& id : d.free_islands) id = in.u32("a free island");

    d.touches = in.touches("contacts");
    d.woken_touches = in.touches("contacts of woken islands");
    d.event_pairs = in.touches("event pairs");
    d.events.resize(in.count("contact events", kEventBytes));
    for (ContactEvent& e : d.events) {
        const std::size_t at = in.position();
        const std::uint8_t type = in.u8("a contact event's type");
        if (type > static_cast<std::uint8_t>(ContactEventType::end))
            fail("byte " + std::to_string(at) + ": contact event type " + std::to_string(type) + " (0..2)");
        e.type = static_cast<ContactEventType>(type);
        const ContactRecord r = in.record("a contact event");
        e.a = r.a;
        e.b = r.b;
        e.mesh = r.mesh;
        e.triangle = r.triangle;
        e.contact = r.contact;
        e.sensor = in.flag("a contact event's sensor flag");
    }

    Impl::ContactCache& cache = d.contact_cache;
    const std::size_t manifolds = in.count("carried manifolds", kManifoldBytes);
    cache.pairs = in.u32("carried body-pair manifolds");
    const bool warm = in.flag("the carried manifolds' warm-start flag");
    if (cache.pairs > manifolds)
        fail("malformed payload: " + std::to_string(cache.pairs) + " of " + std::to_string(manifolds) +
             " carried manifolds are body pairs");
    cache.manifolds.resize(manifolds);
    cache.keys.resize(manifolds);
    cache.warm.resize(warm ? 4 * manifolds : 0);
    for (std::size_t i = 0; i < manifolds; ++i) {
        Impl::ManifoldKey& key = cache.keys[i];
        key.a = in.u64("a carried manifold's key");
        key.b = in.u64("a carried manifold's key");
        key.triangle = in.u32("a carried manifold's key");
        Impl::CarriedManifold& m = cache.manifolds[i];
        const std::size_t at = in.position();
        m.count = in.u8("a carried manifold's point count");
        if (m.count < 1 || m.count > 4)
            fail("byte " + std::to_string(at) + ": a carried manifold has " + std::to_string(m.count) +
                 " points (1..4)");
        m.stuck = in.u8("a carried manifold's stuck points");
        if ((m.stuck >> m.count) != 0)
            fail("byte " + std::to_string(at + 1) + ": a carried manifold of " + std::to_string(m.count) +
                 " points marks a point past them as stuck");
        m.held = in.u8("a carried manifold's held points");
        if ((m.held >> m.count) != 0 || (m.stuck & ~m.held) != 0)
            fail("byte " + std::to_string(at + 2) + ": a carried manifold of " + std::to_string(m.count) +
                 " points marks a point past them as held, or a stuck point as not held");
        m.keep = in.u8("a carried manifold's keep flags");
        if ((m.keep & ~(Impl::kKeepable | Impl::kNegative)) != 0 || m.keep == Impl::kNegative)
            fail("byte " + std::to_string(at + 3) + ": a carried manifold's keep flags are " + std::to_string(m.keep) +
                 " (0, 1 or 3)");
        if (m.keep & Impl::kKeepable) {
            const int axis = in.u8("a kept manifold's axis");  // -1 (none) is saved as 255
            m.axis = static_cast<std::int16_t>(axis == 255 ? -1 : axis);
            m.normal = in.vec3("a kept manifold's normal");
            m.drift = in.f32("a kept manifold's drift");
        }
        for (int p = 0; p < m.count; ++p) {
            Impl::CarriedPoint& cp = m.points[static_cast<std::size_t>(p)];
            cp.id = in.u32("a carried point's feature id");
            cp.friction_anchor_a = in.vec3("a carried point's friction anchor");
            cp.friction_anchor_b = in.vec3("a carried point's friction anchor");
            if (!warm) continue;
            ContactWarmStart& w = cache.warm[4 * i + static_cast<std::size_t>(p)];
            w.normal_force = in.f32("a carried point's normal force");
            w.friction_force = in.vec3("a carried point's friction force");
        }
    }
    if (in.remaining() != 0)
        fail("malformed payload: " + plural(in.remaining(), "byte follows", "bytes follow") +
             " its last section (from byte " + std::to_string(in.position()) + ")");
    return d;
}

// The decoded state against the world it is to go into: the same live bodies, values the world can hold, islands
// and contacts that name what exists.
void check_against(const State& w, Decoded& d) {
    // Settings: as WorldSettings are checked everywhere, with this world's thread count.
    d.settings.threads = w.settings.threads;
    try {
        validate(d.settings);
    } catch (const InvalidArgument& e) {
        fail(std::string("the saved settings are out of range: ") + e.what());
    }
    if (!(std::isfinite(d.candidate_dt) && d.candidate_dt >= 0.0f))
        fail("the shortest step since the mesh candidates were forgotten, " + std::to_string(d.candidate_dt) +
             " s, is not finite and >= 0");

    std::vector<std::uint32_t> record_of(w.bodies.size(), kNone);
    for (std::uint32_t i = 0; i < d.bodies.size(); ++i) record_of[d.bodies[i].id.index] = i;
    std::size_t sleeping = 0;
    for (const BodyRecord& r : d.bodies) {
        const Impl::Body& b = w.bodies[r.id.index];
        const std::string who = "body " + describe(r.id) + ": ";
        if (!finite(r.position) || !finite(r.velocity) || !finite(r.angular_velocity) || !finite(r.force) ||
            !finite(r.torque) || !finite(r.rest_position) || !finite(r.rest_orientation))
            fail(who + "a position, velocity, force or rest pose is not finite");
        if (!finite(r.orientation))
            fail(who + "its orientation is not finite");
        const float length = std::sqrt(r.orientation.w * r.orientation.w + r.orientation.x * r.orientation.x +
                                       r.orientation.y * r.orientation.y + r.orientation.z * r.orientation.z);
        if (!(std::abs(length - 1.0f) <= 1e-3f))
            fail(who + "its orientation has length " + std::to_string(length) + " (a rotation has length 1)");
        if (!(finite(r.friction) && r.friction >= 0.0f) || !(r.restitution >= 0.0f && r.restitution <= 1.0f))
            fail(who + "friction " + std::to_string(r.friction) + " or restitution " + std::to_string(r.restitution) +
                 " out of range");
        if (!(finite(r.quiet_time) && r.quiet_time >= 0.0f))
            fail(who + "quiet time " + std::to_string(r.quiet_time) + " (seconds, >= 0)");
        if (r.internal_faces > 0x3f) fail(who + "internal face flags " + std::to_string(r.internal_faces) + " (6 bits)");
        if (!(r.candidate_drift >= 0.0f))  // infinite: the body queries the meshes in its next step
            fail(who + "candidate drift " + std::to_string(r.candidate_drift) + " (metres, >= 0 or infinite)");
        if (!finite(r.proxy_box.min) || !finite(r.proxy_box.max) || !(r.proxy_box.min.x <= r.proxy_box.max.x) ||
            !(r.proxy_box.min.y <= r.proxy_box.max.y) || !(r.proxy_box.min.z <= r.proxy_box.max.z))
            fail(who + "its broadphase box is not finite or not ordered");
        if (r.island != kNone) {
            if (r.island >= d.islands.size() || !d.islands[r.island].alive)
                fail(who + "asleep in island " + std::to_string(r.island) + ", which is not a sleeping island of " +
                     std::to_string(d.islands.size()));
            if (!b.dynamic()) fail(who + "asleep, but only dynamic bodies sleep");
            ++sleeping;
        }
    }

    auto live_body = [&](BodyId id) {
        return !id.is_null() && id.index < record_of.size() && record_of[id.index] != kNone &&
               d.bodies[record_of[id.index]].id.generation == id.generation;
    };
    auto live_mesh = [&](MeshId id) {
        return !id.is_null() && id.index < w.meshes.size() && w.meshes[id.index].alive &&
               w.meshes[id.index].generation == id.generation;
    };
    // A kept contact names live bodies and meshes (forget_touches drops the others): contacts() reads their slots.
    auto check_touches = [&](const std::vector<Impl::Touch>& list, const std::string& what) {
        for (std::size_t i = 0; i < list.size(); ++i) {
            const ContactRecord& r = list[i].record;
            const bool mesh = !r.mesh.is_null();
            const bool ok = live_body(r.a) && (mesh ? r.b.is_null() && live_mesh(r.mesh) &&
                                                          r.triangle < w.meshes[r.mesh.index].index.size() && !list[i].sensor
                                                    : live_body(r.b));
            if (!ok)
                fail(what + " " + std::to_string(i) + " (body " + describe(r.a) + " with " +
                     (mesh ? "mesh {" + std::to_string(r.mesh.index) + ", " + std::to_string(r.mesh.generation) +
                                 "} triangle " + std::to_string(r.triangle)
                           : "body " + describe(r.b)) +
                     ") does not name live bodies and meshes of this world");
        }
    };
    check_touches(d.touches, "contact");
    check_touches(d.woken_touches, "woken contact");
    // Event pairs may name a body destroyed since (its end event comes at the next step), but the step reads the slot.
    for (std::size_t i = 0; i < d.event_pairs.size(); ++i) {
        const ContactRecord& r = d.event_pairs[i].record;
        if (r.a.is_null() || r.a.index >= w.bodies.size() || (!r.b.is_null() && r.b.index >= w.bodies.size()))
            fail("event pair " + std::to_string(i) + " names body slots beyond this world's " +
                 std::to_string(w.bodies.size()));
    }

    // Islands: a sleeping island lists exactly the bodies asleep in it, once each; a free one is empty and on the
    // free list once.
    std::vector<std::uint8_t> listed(w.bodies.size(), 0);
    std::vector<std::uint8_t> freed(d.islands.size(), 0);
    std::size_t listed_count = 0, dead = 0;
    for (std::uint32_t id = 0; id < d.islands.size(); ++id) {
        const Impl::Island& island = d.islands[id];
        const std::string which = "island " + std::to_string(id);
        if (!island.alive) {
            ++dead;
            if (!island.bodies.empty() || !island.touches.empty()) fail(which + " is free but holds bodies or contacts");
            continue;
        }
        if (island.bodies.empty()) fail(which + " is asleep with no bodies");
        for (std::uint32_t slot : island.bodies) {
            if (slot >= record_of.size() || record_of[slot] == kNone || d.bodies[record_of[slot]].island != id ||
                listed[slot])
                fail(which + " lists slot " + std::to_string(slot) +
                     ", which is not a body asleep in it, or lists it twice");
            listed[slot] = 1;
            ++listed_count;
        }
        check_touches(island.touches, which + "'s contact");
    }
    if (listed_count != sleeping)
        fail(std::to_string(sleeping) + " bodies are asleep, the islands list " + std::to_string(listed_count));
    for (std::uint32_t id : d.free_islands) {
        if (id >= d.islands.size() || d.islands[id].alive || freed[id])
            fail("free island " + std::to_string(id) + " is not a free island of " + std::to_string(d.islands.size()) +
                 ", or is listed twice");
        freed[id] = 1;
    }
    if (d.free_islands.size() != dead)
        fail(std::to_string(dead) + " islands are free, the free list has " + std::to_string(d.free_islands.size()));

    for (std::size_t i = 0; i < d.contact_cache.manifolds.size(); ++i) {
        const Impl::CarriedManifold& m = d.contact_cache.manifolds[i];
        if (m.keep & Impl::kKeepable) {
            const float length = finite(m.normal) ? glm::length(m.normal) : 0.0f;
            if (!(std::abs(length - 1.0f) <= 1e-3f) || m.axis < -1 || m.axis > 14 ||
                !(std::isfinite(m.drift) && m.drift >= 0.0f))
                fail("carried manifold " + std::to_string(i) + ": kept, but its normal has length " +
                     std::to_string(length) + " (1), its axis is " + std::to_string(m.axis) +
                     " (-1..14) or its drift " + std::to_string(m.drift) + " is not finite and >= 0");
        }
        for (int p = 0; p < m.count; ++p) {
            const Impl::CarriedPoint& cp = d.contact_cache.manifolds[i].points[static_cast<std::size_t>(p)];
            if (!finite(cp.friction_anchor_a) || !finite(cp.friction_anchor_b))
                fail("carried manifold " + std::to_string(i) + ": a friction anchor is not finite");
            if (d.contact_cache.warm.empty()) continue;
            const ContactWarmStart& start = d.contact_cache.warm[4 * i + static_cast<std::size_t>(p)];
            if (!(std::isfinite(start.normal_force) && start.normal_force >= 0.0f) || !finite(start.friction_force))
                fail("carried manifold " + std::to_string(i) +
                     ": a carried force is not finite (or the normal force "
                     "is negative)");
        }
    }
}

}  // namespace

std::uint64_t World::Impl::mesh_geometry_hash(const std::vector<Triangle>& triangles) {
    Fnv1a h;
    for (const Triangle& t : triangles) h.vec3(t.a), h.vec3(t.b), h.vec3(t.c);
    return h.value();
}

std::vector<std::byte> World::save_state() const {
    const State& w = impl_->state;
    std::size_t touches = w.touches.size() + w.woken_touches.size() + w.event_pairs.size();
    for (const Impl::Island& island : w.islands) touches += island.touches.size();
    std::vector<std::byte> out;
    out.reserve(kHeaderSize + 64 + kBodyBytes * w.live_bodies + kTouchBytes * touches + kEventBytes * w.events.size() +
                (kIslandBytes + 4) * w.islands.size() + 4 * w.sleeping_bodies +
                (kManifoldBytes + 4 * kPointBytes) * w.contact_cache.manifolds.size());
    Writer o(out);

    for (std::uint8_t c : kMagic) o.u8(c);
    o.u32(kFormatVersion);
    o.count(w.live_bodies);
    o.count(live_meshes(w));
    o.u64(body_fingerprint(w));
    o.u64(mesh_fingerprint(w));
    o.u64(0);  // payload size, written at the end
    o.u64(0);  // checksum, written at the end

    write_settings(o, w.settings);
    o.f32(w.candidate_dt);
    for (std::uint32_t slot = 0; slot < w.bodies.size(); ++slot)
        if (w.bodies[slot].alive) write_body(o, w, slot);
    o.count(w.islands.size());
    for (const Impl::Island& island : w.islands) {
        o.flag(island.alive);
        o.count(island.bodies.size());
        for (std::uint32_t slot : island.bodies) o.u32(slot);
        o.touches(island.touches);
    }
    o.count(w.free_islands.size());
    for (std::uint32_t id : w.free_islands) o.u32(id);
    o.touches(w.touches);
    o.touches(w.woken_touches);
    o.touches(w.event_pairs);
    o.count(w.events.size());
    for (const ContactEvent& e : w.events) {
        o.u8(static_cast<std::uint8_t>(e.type));
        o.record({e.a, e.b, e.mesh, e.triangle, e.contact});
        o.flag(e.sensor);
    }

    // What the next step carries over: manifolds with a stuck point or a warm-start force, and only those points.
    const Impl::ContactCache& cache = w.contact_cache;
    o.count(cache.manifolds.size());
    o.count(cache.pairs);
    o.flag(!cache.warm.empty());
    for (std::size_t i = 0; i < cache.manifolds.size(); ++i) {
        const Impl::CarriedManifold& m = cache.manifolds[i];
        o.u64(cache.keys[i].a);
        o.u64(cache.keys[i].b);
        o.u32(cache.keys[i].triangle);
        o.u8(static_cast<std::uint8_t>(m.count));
        o.u8(m.stuck);
        o.u8(m.held);
        o.u8(m.keep);
        if (m.keep & Impl::kKeepable) {
            o.u8(static_cast<std::uint8_t>(m.axis));
            o.vec3(m.normal);
            o.f32(m.drift);
        }
        for (int p = 0; p < m.count; ++p) {
            const Impl::CarriedPoint& cp = m.points[static_cast<std::size_t>(p)];
            o.u32(cp.id);
            o.vec3(cp.friction_anchor_a);
            o.vec3(cp.friction_anchor_b);
            if (cache.warm.empty()) continue;
            o.f32(cache.warm[4 * i + static_cast<std::size_t>(p)].normal_force);
            o.vec3(cache.warm[4 * i + static_cast<std::size_t>(p)].friction_force);
        }
    }

    o.patch_u64(kSizeOffset, out.size() - kHeaderSize);
    o.patch_u64(kChecksumOffset, checksum(out));
    return out;
}

void World::restore_state(std::span<const std::byte> bytes) {
    State& w = impl_->state;
    const std::size_t size = bytes.size();
    auto truncated = [&](const std::string& why) {
        fail("truncated at byte " + std::to_string(size) + " (" + why + ")");
    };
    if (size == 0) truncated("empty input; a snapshot starts with a " + std::to_string(kHeaderSize) + "-byte header");
    const std::size_t magic = std::min(size, sizeof kMagic);
    for (std::size_t i = 0; i < magic; ++i)
        if (std::to_integer<std::uint8_t>(bytes[i]) != kMagic[i])
            fail("not a Tumble snapshot: byte " + std::to_string(i) + " of the magic bytes \"TMBLSNAP\" differs");
    if (size < kHeaderSize) truncated("inside the " + std::to_string(kHeaderSize) + "-byte header");
    Reader header(bytes, kVersionOffset);
    const std::uint32_t version = header.u32("the format version");
    if (version != kFormatVersion)
        fail("format version " + std::to_string(version) + (version > kFormatVersion ? " is newer than" : " is not") +
             " the version this build reads (" + std::to_string(kFormatVersion) + ")");
    const std::size_t body_count = header.u32("the body count");
    const std::size_t mesh_count = header.u32("the mesh count");
    const std::uint64_t bodies_print = header.u64("the body fingerprint");
    const std::uint64_t meshes_print = header.u64("the mesh fingerprint");
    const std::uint64_t payload = header.u64("the payload size");
    const std::uint64_t sum = header.u64("the checksum");
    if (payload > size - kHeaderSize)
        truncated("the header announces " + std::to_string(payload) + " bytes of payload, " +
                  std::to_string(size - kHeaderSize) + " are there");
    if (payload < size - kHeaderSize)
        fail(std::to_string(size - kHeaderSize - payload) + " bytes follow the snapshot's " +
             std::to_string(kHeaderSize + payload) + " bytes");
    if (const std::uint64_t actual = checksum(bytes); actual != sum)
        fail("checksum mismatch: the header says " + hex(sum) + ", the bytes give " + hex(actual) +
             " (the snapshot was changed or damaged)");

    if (body_count != w.live_bodies)
        fail("saved from a world with " + plural(body_count, "body", "bodies") + ", this one has " +
             std::to_string(w.live_bodies));
    if (const std::size_t here = live_meshes(w); mesh_count != here)
        fail("saved from a world with " + plural(mesh_count, "mesh", "meshes") + ", this one has " +
             std::to_string(here));

    Reader in(bytes, kHeaderSize);
    Decoded d = decode(in, body_count);
    // The same live bodies, slot for slot, then the same shapes and creation order (the fingerprints).
    {
        std::size_t i = 0;
        for (std::uint32_t slot = 0; slot < w.bodies.size(); ++slot) {
            if (!w.bodies[slot].alive) continue;
            const BodyId here{slot, w.bodies[slot].generation}, saved = d.bodies[i].id;
            if (here != saved)
                fail("the snapshot's body " + std::to_string(i) + " is " + describe(saved) + ", this world's is " +
                     describe(here) + " (the worlds were not built by the same calls)");
            ++i;
        }
    }
    if (const std::uint64_t here = body_fingerprint(w); here != bodies_print)
        fail("the bodies have the same ids but differ in creation order, size, mass or kind from the saved world's "
             "(fingerprint " + hex(bodies_print) + " saved, " + hex(here) + " here)");
    if (const std::uint64_t here = mesh_fingerprint(w); here != meshes_print)
        fail("the meshes differ from the saved world's in ids, creation order, triangles, material or layers "
             "(fingerprint " + hex(meshes_print) + " saved, " + hex(here) + " here)");
    check_against(w, d);

    // The new bodies and octrees, built aside.
    std::vector<Impl::Body> bodies = w.bodies;
    LooseOctree active, resting;
    std::size_t sleeping = 0;
    for (const BodyRecord& r : d.bodies) {
        Impl::Body& b = bodies[r.id.index];
        b.position = r.position;
        b.orientation = r.orientation;
        b.velocity = r.velocity;
        b.angular_velocity = r.angular_velocity;
        b.force = r.force;
        b.torque = r.torque;
        b.friction = r.friction;
        b.restitution = r.restitution;
        b.layer = r.layer;
        b.mask = r.mask;
        b.quiet_time = r.quiet_time;
        b.rest_position = r.rest_position;
        b.rest_orientation = r.rest_orientation;
        b.island = r.island;
        b.internal_faces = r.internal_faces;
        b.moved_by_api = r.moved_by_api;
        b.candidate_drift = r.candidate_drift;
        b.awake = Impl::wants_awake(b);
        sleeping += b.sleeping() ? 1 : 0;
        try {
            b.proxy = (b.awake ? active : resting).insert(r.proxy_box, r.id.index);
        } catch (const Error& e) {
            fail("body " + describe(r.id) + ": the broadphase refuses its box: " + e.what());
        }
    }
    std::vector<std::uint32_t> awake;
    for (const BodyRecord& r : d.bodies)
        if (bodies[r.id.index].awake) awake.push_back(r.id.index);
    std::sort(awake.begin(), awake.end(),
              [&](std::uint32_t x, std::uint32_t y) { return bodies[x].sequence < bodies[y].sequence; });
    // The slots of the carried body pairs (ContactCache::pair_slots), derived from their keys as the step that
    // carried them had them; a key whose body is gone gets kNone.
    std::vector<Impl::SlotPair> pair_slots;
    if (d.settings.solver.method == SolverMethod::soft_step && d.settings.manifold_reuse_distance > 0.0f) {
        std::vector<std::pair<std::uint64_t, std::uint32_t>> by_sequence;
        by_sequence.reserve(d.bodies.size());
        for (const BodyRecord& r : d.bodies) by_sequence.emplace_back(bodies[r.id.index].sequence, r.id.index);
        std::sort(by_sequence.begin(), by_sequence.end());
        auto slot_of = [&](std::uint64_t sequence) {
            const auto at = std::lower_bound(by_sequence.begin(), by_sequence.end(),
                                             std::pair<std::uint64_t, std::uint32_t>{sequence, 0});
            return at != by_sequence.end() && at->first == sequence ? at->second : Impl::kNone;
        };
        pair_slots.reserve(d.contact_cache.pairs);
        for (std::size_t i = 0; i < d.contact_cache.pairs; ++i)
            pair_slots.push_back({slot_of(d.contact_cache.keys[i].a), slot_of(d.contact_cache.keys[i].b)});
    }

    // Commit: nothing below throws.
    w.settings = d.settings;
    w.candidate_dt = d.candidate_dt;
    w.bodies.swap(bodies);
    w.active = std::move(active);
    w.resting = std::move(resting);
    w.awake.swap(awake);
    w.islands.swap(d.islands);
    w.free_islands.swap(d.free_islands);
    w.sleeping_bodies = sleeping;
    w.touches.swap(d.touches);
    w.woken_touches.swap(d.woken_touches);
    w.event_pairs.swap(d.event_pairs);
    w.events.swap(d.events);
    w.contact_cache.keys.swap(d.contact_cache.keys);
    w.contact_cache.manifolds.swap(d.contact_cache.manifolds);
    w.contact_cache.warm.swap(d.contact_cache.warm);
    w.contact_cache.pairs = d.contact_cache.pairs;
    w.contact_cache.pair_slots.swap(pair_slots);
    impl_->contact_view_dirty = true;
}

}  // namespace tumble
