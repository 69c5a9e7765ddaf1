// libFuzzer target: the World API driven by a byte stream.
//
// Input: a settings byte, then calls until the bytes run out (at most kMaxCalls). Each call is one byte choosing an
// entry of kCalls followed by its arguments, decoded by `Args`: ids of bodies and meshes created earlier (live or
// destroyed), null or made-up ids; vectors mostly on a grid of small values, sometimes NaN, infinities, denormals,
// huge values or raw float bit patterns; unit and non-unit quaternions; meshes (a floor, a piece of the bundled
// level, a few triangles from the bytes with indices that may be out of range).
//
// After every call, whatever it did:
// - the world is valid: body_count() equals the bodies for_each_body visits, every id the fuzzer created is valid
//   exactly while it has not been destroyed, every body's state, box and contact is usable (finite when the world
//   holds only values of a sane size, see `Args::wild`), contacts name live bodies, meshes and triangles, the
//   contact callback saw exactly contact_events();
// - when the call threw tumble::Error (the documented InvalidArgument, FileError), the world is exactly as before:
//   every body's state, the ids' validity, the meshes, contacts(), contact_events() and save_state() compare bit for
//   bit with a copy taken before the call (World's contract, world.hpp); any other exception is a finding;
// - save_state and restore_state: a world restores its own snapshot and saves the same bytes again, refuses one
//   with a flipped bit or cut short, and restores an earlier one or refuses it (the ids changed) unchanged.
//
// A new World call is one more line at the end of kCalls, e.g. {"apply_force", on_body<&World::apply_force,
// &Args::velocity>} for a call that takes a body and a vector.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <tumble/tumble.hpp>

#include "fuzz_support.hpp"

namespace {

using namespace tumble;
using fuzz::ByteReader;
using fuzz::finite;

constexpr int kMaxCalls = 96;
constexpr std::size_t kCallSlots = 32;
constexpr int kMaxSteps = 24;
constexpr std::size_t kMaxBodies = 40;
constexpr std::size_t kMaxMeshes = 4;
constexpr std::size_t kLevelPiece = 64;  // triangles of the bundled level in one piece

// Magnitudes within which a world is expected to stay finite however it is stepped: metres, m/s, seconds.
constexpr float kSanePosition = 1e4f, kSaneSpeed = 1e3f, kSaneSize = 1e3f, kSaneDt = 0.1f, kSaneMinDt = 1e-6f;

// With TUMBLE_FUZZ_VERBOSE set, every call is printed with what it did (to read a saved crash input).
const bool kVerbose = std::getenv("TUMBLE_FUZZ_VERBOSE") != nullptr;

const TriangleMesh& bundled_level() {
    static const TriangleMesh level = load_obj(std::filesystem::path(TUMBLE_LEVEL_DIR) / "oa_dm1.obj").mesh;
    return level;
}

/// What the fuzzer created: every id (live or destroyed) and, for meshes, the triangle count.
struct Model {
    std::vector<std::pair<BodyId, bool>> bodies;  // id, live
    std::vector<std::pair<MeshId, std::size_t>> meshes;  // id, triangles (0 once removed)
    std::vector<bool> mesh_live;
    bool sane = true;       // no accepted value was beyond the sane magnitudes
    int steps = 0;
    std::size_t callback_events = 0;  // events the contact callback saw in the last step
    std::vector<std::byte> saved;     // the last save_state, for restore_state later
};

/// Decodes the arguments of one call and remembers whether any accepted value is beyond the sane magnitudes.
struct Args {
    ByteReader& in;
    Model& model;
    bool wild = false;

    float number(float range, float sane) {
        const float v = in.mixed_float(range);
        if (!(std::abs(v) <= sane)) wild = true;
        return v;
    }
    glm::vec3 vec(float range, float sane) {
        const float x = number(range, sane), y = number(range, sane), z = number(range, sane);
        return {x, y, z};
    }
    glm::vec3 position() { return vec(40.0f, kSanePosition); }
    glm::vec3 velocity() { return vec(20.0f, kSaneSpeed); }
    glm::vec3 half_extents() { return vec(2.0f, kSaneSize); }
    glm::vec3 displacement() { return vec(10.0f, kSanePosition); }
    glm::quat orientation() { return in.quaternion(); }
    std::uint64_t bits() {
        switch (in.u8() & 3) {
            case 0: return kAllLayers;
            case 1: return kDefaultLayer;
            case 2: return 0;
            default: return in.u64();
        }
    }

    BodyId body() {
        const std::uint8_t k = in.u8();
        if (model.bodies.empty() || k >= 240) {
            if (k & 1) return BodyId{};
            const std::uint32_t index = in.u8(), generation = in.u8() % 4;
            return BodyId{index, generation};
        }
        return model.bodies[k % model.bodies.size()].first;
    }
    MeshId mesh() {
        const std::uint8_t k = in.u8();
        if (model.meshes.empty() || k >= 240) return k & 1 ? MeshId{} : MeshId{in.u8() % 8u, in.u8() % 4u};
        return model.meshes[k % model.meshes.size()].first;
    }

    BodyDef body_def() {
        BodyDef d;
        d.position = position();
        d.orientation = orientation();
        d.half_extents = half_extents();
        d.velocity = velocity();
        const std::uint8_t kind = in.u8();
        d.mass = kind % 4 == 0 ? 0.0f : kind % 4 == 1 ? 1.0f : number(10.0f, 1e6f);
        if (d.mass != 0.0f && !(std::abs(d.mass) >= 1e-6f)) wild = true;
        d.kinematic = (kind & 4) != 0;
        d.sensor = (kind & 8) != 0;
        d.ccd = (kind & 16) != 0;
        if (kind & 32) {
            d.layer = bits();
            d.mask = bits();
        }
        return d;
    }

    QueryFilter filter() {
        QueryFilter f;
        const std::uint8_t k = in.u8();
        if (k & 1) f.mask = bits();
        f.bodies = (k & 2) == 0;
        f.meshes = (k & 4) == 0;
        f.sensors = (k & 8) != 0;
        f.back_faces = (k & 16) != 0;
        if (k & 32) f.ignore = body();
        f.wake = (k & 64) != 0;
        return f;
    }

    Obb box() {
        Obb b;
        b.center = position();
        b.axes = glm::mat3_cast(orientation());
        b.half_extents = half_extents();
        return b;
    }

    CharacterSettings character() {
        CharacterSettings s;
        const std::uint8_t k = in.u8();
        if (k & 1) s.up = glm::normalize(glm::vec3(in.small_float(1.0f), 1.0f, in.small_float(1.0f)));
        if (k & 2) s.max_slope = in.mixed_float(2.0f);
        if (k & 4) s.step_height = in.mixed_float(1.0f);
        if (k & 8) s.skin = in.mixed_float(0.05f);
        if (k & 16) s.max_iterations = static_cast<int>(in.u8() % 10) - 1;
        if (k & 32) s.ground_snap = in.mixed_float(1.0f);
        if (k & 64) s.filter = filter();
        return s;
    }

    TriangleMesh triangle_mesh() {
        TriangleMesh m;
        switch (in.u8() % 3) {
            case 0: {  // a square floor
                const float y = number(10.0f, kSanePosition), r = std::abs(number(50.0f, kSanePosition));
                m.vertices = {{-r, y, -r}, {r, y, -r}, {r, y, r}, {-r, y, r}};
                m.indices = {0, 2, 1, 0, 3, 2};
                break;
            }
            case 1: {  // a piece of the bundled level
                const TriangleMesh& level = bundled_level();
                const std::size_t first = (in.u16() * kLevelPiece) % level.triangle_count();
                const std::size_t count = std::min(kLevelPiece, level.triangle_count() - first);
                m.vertices = level.vertices;
                m.indices.assign(level.indices.begin() + static_cast<std::ptrdiff_t>(3 * first),
                                 level.indices.begin() + static_cast<std::ptrdiff_t>(3 * (first + count)));
                break;
            }
            default: {  // a few triangles from the bytes; indices and values may be bad
                const std::uint32_t nv = 3 + in.u8() % 6, nt = 1 + in.u8() % 6;
                for (std::uint32_t v = 0; v < nv; ++v) m.vertices.push_back(vec(20.0f, kSanePosition));
                for (std::uint32_t i = 0; i < 3 * nt; ++i) m.indices.push_back(in.below(nv + 1));
                if (in.u8() == 0) m.indices.pop_back();
            }
        }
        return m;
    }

    float dt() {
        const std::uint8_t k = in.u8();
        float dt = 1.0f / 60.0f;
        if (k >= 250) dt = in.raw_float();
        else if (k >= 200) dt = in.mixed_float(0.05f);
        // A dt far below a microsecond turns a correction of the positions into a velocity that overflows
        // (v = dx / dt): outside what the step is expected to keep finite, see docs/reliability.md.
        if (!(dt <= kSaneDt && dt >= kSaneMinDt)) wild = true;
        return dt;
    }
};

// ---- The calls. The world is changed only when the call returns; `Args::wild` is set when it took a value beyond
// the sane magnitudes.

struct Call {
    const char* name;
    void (*run)(World&, Args&);
};

void check_hit(const World& w, const Model& m, const RaycastHit& h, float max_distance) {
    TUMBLE_FUZZ_CHECK(h.body.is_null() != h.mesh.is_null(), "a ray hit names both or neither a body and a mesh");
    TUMBLE_FUZZ_CHECK(h.body.is_null() || w.is_valid(h.body), "a ray hit names a dead body");
    if (m.sane) {
        TUMBLE_FUZZ_CHECK(h.distance >= 0.0f && h.distance <= max_distance, "hit distance " + std::to_string(h.distance));
        TUMBLE_FUZZ_CHECK(finite(h.point) && finite(h.normal), "a ray hit is not finite");
    }
}

void check_overlaps(const World& w, const OverlapResult& r) {
    TUMBLE_FUZZ_CHECK(std::is_sorted(r.bodies.begin(), r.bodies.end()), "overlap_box bodies not sorted");
    TUMBLE_FUZZ_CHECK(std::is_sorted(r.triangles.begin(), r.triangles.end()), "overlap_box triangles not sorted");
    for (BodyId id : r.bodies) TUMBLE_FUZZ_CHECK(w.is_valid(id), "overlap_box reports a dead body");
    for (const MeshTriangle& t : r.triangles)
        TUMBLE_FUZZ_CHECK(t.triangle < w.mesh_triangle_count(t.mesh), "overlap_box reports a bad triangle");
}

void check_sweep(const World& w, const Model& m, const std::optional<BoxSweepHit>& h) {
    if (!h) return;
    TUMBLE_FUZZ_CHECK(h->body.is_null() != h->mesh.is_null(), "a sweep hit names both or neither a body and a mesh");
    TUMBLE_FUZZ_CHECK(h->body.is_null() || w.is_valid(h->body), "a sweep hit names a dead body");
    TUMBLE_FUZZ_CHECK(h->mesh.is_null() || h->triangle < w.mesh_triangle_count(h->mesh), "a sweep hit names a bad triangle");
    TUMBLE_FUZZ_CHECK(h->toi >= 0.0f && h->toi <= 1.0f, "sweep toi " + std::to_string(h->toi));
    if (m.sane) TUMBLE_FUZZ_CHECK(finite(h->position) && finite(h->normal), "a sweep hit is not finite");
}

template <class W>
void raycast(W& w, Args& a) {
    const glm::vec3 origin = a.position(), direction = a.displacement();
    const float max_distance = a.in.u8() < 16 ? a.in.mixed_float(1e3f) : 100.0f;
    const QueryFilter f = a.filter();
    if (a.in.flag()) {
        if (auto h = w.raycast(origin, direction, max_distance, f)) check_hit(w, a.model, *h, max_distance);
    } else {
        for (const RaycastHit& h : w.raycast_all(origin, direction, max_distance, f)) check_hit(w, a.model, h, max_distance);
    }
}
template <class W>
void overlap_box(W& w, Args& a) {
    const Obb box = a.box();
    check_overlaps(w, w.overlap_box(box, a.filter()));
}
template <class W>
void sweep_box(W& w, Args& a) {
    const Obb box = a.box();
    const glm::vec3 d = a.displacement();
    check_sweep(w, a.model, w.sweep_box(box, d, a.filter()));
}

/// A call that takes a body and one value decoded by `Value` (World::set_position, and later apply_force and its
/// kind). The id is decoded before the value: the order in which a call's arguments are evaluated is unspecified,
/// and an input must decode the same with every compiler.
template <auto Member, auto Value>
void on_body(World& w, Args& a) {
    const BodyId id = a.body();
    (w.*Member)(id, (a.*Value)());
}

const Call kCalls[] = {
    {"create_body",
     [](World& w, Args& a) {
         if (a.model.bodies.size() >= 4 * kMaxBodies || w.body_count() >= kMaxBodies) return;
         const BodyId id = w.create_body(a.body_def());
         a.model.bodies.push_back({id, true});
     }},
    {"destroy_body",
     [](World& w, Args& a) {
         const BodyId id = a.body();
         w.destroy_body(id);
         for (auto& [b, live] : a.model.bodies)
             if (b == id) live = false;
     }},
    {"set_position", on_body<&World::set_position, &Args::position>},
    {"set_velocity", on_body<&World::set_velocity, &Args::velocity>},
    {"set_orientation", on_body<&World::set_orientation, &Args::orientation>},
    {"set_filter",
     [](World& w, Args& a) {
         const BodyId id = a.body();
         const std::uint64_t layer = a.bits(), mask = a.bits();
         w.set_filter(id, layer, mask);
     }},
    {"wake", [](World& w, Args& a) { w.wake(a.body()); }},
    {"wake_all", [](World& w, Args&) { w.wake_all(); }},
    {"raycast", [](World& w, Args& a) { raycast(w, a); }},
    {"raycast const", [](World& w, Args& a) { raycast(std::as_const(w), a); }},
    {"overlap_box", [](World& w, Args& a) { overlap_box(w, a); }},
    {"overlap_box const", [](World& w, Args& a) { overlap_box(std::as_const(w), a); }},
    {"sweep_box", [](World& w, Args& a) { sweep_box(w, a); }},
    {"sweep_box const", [](World& w, Args& a) { sweep_box(std::as_const(w), a); }},
    {"move_and_slide",
     [](World& w, Args& a) {
         const BodyId id = a.body();
         const glm::vec3 d = a.displacement();
         const CharacterMove m = w.move_and_slide(id, d, a.character());
         if (a.model.sane && !a.wild) TUMBLE_FUZZ_CHECK(finite(m.position) && finite(m.displacement), "a move is not finite");
     }},
    {"add_mesh",
     [](World& w, Args& a) {
         if (a.model.meshes.size() >= kMaxMeshes) return;
         const TriangleMesh mesh = a.triangle_mesh();
         const std::uint64_t layer = a.in.flag() ? a.bits() : kDefaultLayer, mask = a.in.flag() ? a.bits() : kAllLayers;
         const MeshId id = w.add_mesh(mesh, layer, mask);
         a.model.meshes.push_back({id, mesh.triangle_count()});
         a.model.mesh_live.push_back(true);
     }},
    {"remove_mesh",
     [](World& w, Args& a) {
         const MeshId id = a.mesh();
         w.remove_mesh(id);
         for (std::size_t k = 0; k < a.model.meshes.size(); ++k)
             if (a.model.meshes[k].first == id) a.model.mesh_live[k] = false;
     }},
    {"step",
     [](World& w, Args& a) {
         if (a.model.steps >= kMaxSteps) return;
         const float dt = a.dt();
         a.model.callback_events = 0;
         ++a.model.steps;
         if (kVerbose) std::fprintf(stderr, "step dt %.9g\n", dt);
         w.step(dt);
     }},
    // save_state, then restore_state of those bytes as they are (a world takes back its own state: nothing changes),
    // with one bit flipped or cut short (refused: FileError, the world unchanged).
    {"save_state, restore_state",
     [](World& w, Args& a) {
         const std::vector<std::byte> bytes = w.save_state();
         a.model.saved = bytes;
         const std::uint8_t how = a.in.u8() % 3;
         if (how == 0) {
             try {
                 w.restore_state(bytes);
             } catch (const FileError& e) {
                 // A world stepped with wild values can hold non-finite poses, which no snapshot restores.
                 TUMBLE_FUZZ_CHECK(!a.model.sane, std::string("a world refused its own snapshot: ") + e.what());
                 throw;
             }
             TUMBLE_FUZZ_CHECK(w.save_state() == bytes, "restoring a world's own snapshot changed what it saves");
             return;
         }
         std::vector<std::byte> bad = bytes;
         if (how == 1) {
             const std::size_t at = a.in.u32() % bad.size();
             bad[at] ^= static_cast<std::byte>(1u << (a.in.u8() % 8));
         } else {
             bad.resize(a.in.u32() % bad.size());
         }
         w.restore_state(bad);
         TUMBLE_FUZZ_CHECK(false, "restore_state accepted a damaged snapshot");
     }},
    // restore_state of the last snapshot after whatever happened since: the state comes back when the world still
    // has the same bodies and meshes, FileError otherwise.
    {"restore_state of the last snapshot",
     [](World& w, Args& a) {
         if (a.model.saved.empty()) return;
         w.restore_state(a.model.saved);
         a.model.callback_events = w.contact_events().size();  // the events are the snapshot's; no step called back
         TUMBLE_FUZZ_CHECK(w.save_state() == a.model.saved, "a restored world saves other bytes than it was given");
     }},
};

// ---- Observable state, its validity, and the copy an exception is compared with.

bool same_bits(const void* a, const void* b, std::size_t n) { return std::memcmp(a, b, n) == 0; }
bool same(const glm::vec3& a, const glm::vec3& b) { return same_bits(&a, &b, sizeof a); }
bool same(const glm::quat& a, const glm::quat& b) { return same_bits(&a, &b, sizeof a); }
bool same(float a, float b) { return same_bits(&a, &b, sizeof a); }
bool same(const Contact& a, const Contact& b) {
    return a.axis == b.axis && a.negative == b.negative && same(a.depth, b.depth) && same(a.normal, b.normal);
}
bool same(const BodyState& a, const BodyState& b) {
    return same(a.position, b.position) && same(a.orientation, b.orientation) && same(a.half_extents, b.half_extents) &&
           same(a.velocity, b.velocity) && same(a.mass, b.mass) && a.kinematic == b.kinematic && a.sensor == b.sensor &&
           a.sleeping == b.sleeping && a.ccd == b.ccd && a.layer == b.layer && a.mask == b.mask;
}
bool same(const ContactRecord& a, const ContactRecord& b) {
    return a.a == b.a && a.b == b.b && a.mesh == b.mesh && a.triangle == b.triangle && same(a.contact, b.contact);
}
bool same(const ContactEvent& a, const ContactEvent& b) {
    return a.type == b.type && a.a == b.a && a.b == b.b && a.mesh == b.mesh && a.triangle == b.triangle &&
           a.sensor == b.sensor && same(a.contact, b.contact);
}

struct Observed {
    std::size_t body_count = 0;
    std::vector<std::pair<BodyId, BodyState>> bodies;
    std::vector<bool> valid;        // is_valid of every id in Model::bodies
    std::vector<std::size_t> mesh_triangles;  // of every id in Model::meshes, 0 when not live
    std::vector<ContactRecord> contacts;
    std::vector<ContactEvent> events;
    WorldSettings settings;
    std::vector<std::byte> state;  // save_state: sleep timers, islands, friction anchors and the rest of the state

    static Observed of(const World& w, const Model& m) {
        Observed o;
        o.body_count = w.body_count();
        w.for_each_body([&](BodyId id) { o.bodies.push_back({id, w.body(id)}); });
        for (const auto& [id, live] : m.bodies) o.valid.push_back(w.is_valid(id));
        for (std::size_t k = 0; k < m.meshes.size(); ++k)
            o.mesh_triangles.push_back(m.mesh_live[k] ? w.mesh_triangle_count(m.meshes[k].first) : 0);
        const auto c = w.contacts();
        o.contacts.assign(c.begin(), c.end());
        const auto e = w.contact_events();
        o.events.assign(e.begin(), e.end());
        o.settings = w.settings();
        o.state = w.save_state();
        return o;
    }

    std::string difference(const Observed& o) const {
        if (body_count != o.body_count) return "body_count";
        if (bodies.size() != o.bodies.size()) return "the bodies";
        for (std::size_t i = 0; i < bodies.size(); ++i)
            if (bodies[i].first != o.bodies[i].first || !same(bodies[i].second, o.bodies[i].second))
                return "the state of body " + std::to_string(bodies[i].first.index);
        if (valid != o.valid) return "which ids are valid";
        if (mesh_triangles != o.mesh_triangles) return "the meshes";
        if (contacts.size() != o.contacts.size()) return "the contact count";
        for (std::size_t i = 0; i < contacts.size(); ++i)
            if (!same(contacts[i], o.contacts[i])) return "contact " + std::to_string(i);
        if (events.size() != o.events.size()) return "the event count";
        for (std::size_t i = 0; i < events.size(); ++i)
            if (!same(events[i], o.events[i])) return "event " + std::to_string(i);
        if (state != o.state) return "the saved state (save_state)";
        return {};
    }
};

void check_world(const World& w, const Model& m, const char* call) {
    const std::string after = std::string(" (after ") + call + ")";
    std::size_t visited = 0;
    w.for_each_body([&](BodyId id) {
        ++visited;
        TUMBLE_FUZZ_CHECK(w.is_valid(id), "for_each_body visits an invalid id" + after);
        const BodyState s = w.body(id);
        TUMBLE_FUZZ_CHECK(s.half_extents.x >= 0.0f && s.half_extents.y >= 0.0f && s.half_extents.z >= 0.0f,
                          "a negative half extent" + after);
        const float len = std::sqrt(s.orientation.w * s.orientation.w + s.orientation.x * s.orientation.x +
                                    s.orientation.y * s.orientation.y + s.orientation.z * s.orientation.z);
        TUMBLE_FUZZ_CHECK(std::abs(len - 1.0f) <= 1e-5f, "an orientation is not unit" + after);
        if (m.sane) {
            TUMBLE_FUZZ_CHECK(finite(s.position) && finite(s.velocity), "a body state is not finite" + after);
            TUMBLE_FUZZ_CHECK(validate(w.obb(id)).empty(), "a body's box does not validate: " + validate(w.obb(id)) + after);
        }
    });
    TUMBLE_FUZZ_CHECK(visited == w.body_count(), "body_count differs from the bodies visited" + after);
    for (const auto& [id, live] : m.bodies)
        TUMBLE_FUZZ_CHECK(w.is_valid(id) == live, "is_valid disagrees with the calls made" + after);
    for (std::size_t k = 0; k < m.meshes.size(); ++k) {
        if (!m.mesh_live[k]) continue;
        TUMBLE_FUZZ_CHECK(w.mesh_triangle_count(m.meshes[k].first) == m.meshes[k].second, "a mesh changed" + after);
    }
    for (const ContactRecord& c : w.contacts()) {
        TUMBLE_FUZZ_CHECK(w.is_valid(c.a), "a contact names a dead body" + after);
        TUMBLE_FUZZ_CHECK(c.b.is_null() != c.mesh.is_null(), "a contact names both or neither a body and a mesh" + after);
        TUMBLE_FUZZ_CHECK(c.b.is_null() || w.is_valid(c.b), "a contact names a dead body" + after);
        TUMBLE_FUZZ_CHECK(c.mesh.is_null() || c.triangle < w.mesh_triangle_count(c.mesh), "a contact names a bad triangle" + after);
        if (m.sane)
            TUMBLE_FUZZ_CHECK(finite(c.contact.normal) && std::isfinite(c.contact.depth) && c.contact.depth >= 0.0f,
                              "a contact is not finite" + after);
    }
    TUMBLE_FUZZ_CHECK(m.callback_events == w.contact_events().size() || m.steps == 0,
                      "the contact callback saw " + std::to_string(m.callback_events) + " events, contact_events() has " +
                          std::to_string(w.contact_events().size()) + after);
}

// A defect of the World's internals, recorded in docs/reliability.md and left to the rewrite of the step: a call
// whose broadphase update is refused (a box beyond the octree's float range, LooseOctree::update) throws after the
// World changed the body. The input stops there, so that the fuzzer goes on looking for other defects.
// Likewise a step in which a wild value made a body NaN: an octree insert late in the step refuses its box after the
// bodies moved (docs/reliability.md; found by the first runs with the save_state calls).
bool known_defect(const std::string& call, const std::string& message) {
    return message.find("LooseOctree::update") != std::string::npos ||
           (call == "step" && message.find("LooseOctree::insert") != std::string::npos);
}

WorldSettings settings_from(std::uint8_t k) {
    WorldSettings s;
    if (k & 1) s.sleep.enabled = false;
    if (k & 2) s.active_edges_only = false;
    if (k & 4) s.solver.iterations = 4;
    if (k & 8) s.gravity = {0.0f, 0.0f, 0.0f};
    if (k & 16) s.sleep.time = 0.0f;
    if ((k & 0xe0) == 0xe0) s.threads = 2;
    return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    ByteReader in(data, size);
    Model model;
    World world(settings_from(in.u8()));
    world.set_contact_callback([&model](const ContactEvent& e) {
        ++model.callback_events;
        (void)e;
    });
    constexpr std::size_t kCallCount = sizeof kCalls / sizeof kCalls[0];
    static_assert(kCallCount <= kCallSlots);
    for (int n = 0; n < kMaxCalls && !in.empty(); ++n) {
        // A call byte picks one of kCallSlots slots; the slots past the calls are no-ops, so that appending a call
        // to kCalls leaves what the existing inputs and seeds decode to unchanged.
        const std::size_t slot = in.u8() % kCallSlots;
        if (slot >= kCallCount) continue;
        const Call& call = kCalls[slot];
        const Observed before = Observed::of(world, model);
        const Model model_before = model;
        Args args{in, model};
        try {
            call.run(world, args);
            if (args.wild) model.sane = false;
            if (kVerbose) {
                std::fprintf(stderr, "%s%s\n", call.name, args.wild ? " (wild values)" : "");
                world.for_each_body([&](BodyId id) {
                    const BodyState b = world.body(id);
                    std::fprintf(stderr, "  body %u: p (%.9g, %.9g, %.9g) q (%.9g, %.9g, %.9g, %.9g) h (%.9g, %.9g, %.9g) "
                                 "v (%.9g, %.9g, %.9g) m %.9g%s%s%s%s\n", id.index, b.position.x, b.position.y,
                                 b.position.z, b.orientation.w, b.orientation.x, b.orientation.y, b.orientation.z,
                                 b.half_extents.x, b.half_extents.y, b.half_extents.z, b.velocity.x, b.velocity.y,
                                 b.velocity.z, b.mass, b.kinematic ? " kinematic" : "", b.sensor ? " sensor" : "",
                                 b.ccd ? " ccd" : "", b.sleeping ? " sleeping" : "");
                });
            }
        } catch (const tumble::Error& e) {
            if (kVerbose) std::fprintf(stderr, "%s threw: %s\n", call.name, e.what());
            model = model_before;  // the call did nothing, so neither did the bookkeeping
            const std::string diff = before.difference(Observed::of(world, model));
            if (!diff.empty() && known_defect(call.name, e.what())) return 0;
            TUMBLE_FUZZ_CHECK(diff.empty(), std::string(call.name) + " threw '" + e.what() + "' and changed " + diff);
        } catch (const std::exception& e) {
            TUMBLE_FUZZ_CHECK(false, std::string(call.name) + " threw an undocumented exception: " + e.what());
        }
        check_world(world, model, call.name);
    }
    return 0;
}
