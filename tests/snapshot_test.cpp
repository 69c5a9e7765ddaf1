// World::save_state and World::restore_state: a restored world steps on exactly as the saved one did, for any thread
// count and in a second world built by the same calls; bad bytes and other worlds are refused with a reason and
// change nothing.
//
// The main scene is boxes dropped into the bundled level (samples/data/oa_dm1.obj, as tumble-drop does) with sleep
// on: after 300 steps some islands sleep and others still move, so a snapshot holds sleeping islands, kept contacts,
// event pairs and stuck friction anchors as well as poses and velocities.

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <tumble/tumble.hpp>

#include "drop_scene.hpp"

namespace {

using tumble::BodyDef;
using tumble::BodyId;
using tumble::FileError;
using tumble::World;
using Bytes = std::vector<std::byte>;

constexpr float kDt = 1.0f / 60.0f;
constexpr int kBoxes = 200;
constexpr int kSaveStep = 300;
constexpr int kEndStep = 600;
const std::filesystem::path kLevel = std::filesystem::path(TUMBLE_SOURCE_DIR) / "samples/data/oa_dm1.obj";

double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// ---- The format, as world.hpp documents it (an independent reading: offsets and FNV-1a 64).

constexpr std::size_t kHeaderSize = 52;
// The settings: gravity, substeps, iterations, restitution threshold, slop, solver method (1 byte), contact hertz,
// broadphase margin, the active-edges flag, the manifold reuse distance, the sleep flag, the sleep thresholds.
constexpr std::size_t kSettingsBytes = 51;
// After the settings: the shortest step since the mesh candidates were last forgotten (a float).
constexpr std::size_t kStepBytes = 4;
// A body: id, pose, velocities, force and torque, material, filter, sleep state, internal faces, the moved-by-the-API
// flag, the candidate drift (kept mesh candidates), the broadphase box.
constexpr std::size_t kBodyBytes = 174;
// What an empty state writes after the bodies: seven list counts, the carried body-pair count and the carried
// manifolds' warm-start flag.
constexpr std::size_t kEmptyListsBytes = 7 * 4 + 4 + 1;
constexpr std::size_t kBodyCountOffset = 12;
constexpr std::size_t kChecksumOffset = 44;

std::uint64_t fnv1a(std::span<const std::byte> a, std::span<const std::byte> b) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (auto part : {a, b})
        for (std::byte x : part) h = (h ^ std::to_integer<std::uint64_t>(x)) * 0x100000001b3ull;
    return h;
}
void put_u32(Bytes& bytes, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes[at + static_cast<std::size_t>(i)] = static_cast<std::byte>(v >> (8 * i));
}
void put_u64(Bytes& bytes, std::size_t at, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes[at + static_cast<std::size_t>(i)] = static_cast<std::byte>(v >> (8 * i));
}
std::uint32_t get_u32(const Bytes& bytes, std::size_t at) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::to_integer<std::uint32_t>(bytes[at + static_cast<std::size_t>(i)]) << (8 * i);
    return v;
}
// Writes the payload size and checksum for bytes whose payload was edited, as a forger would.
Bytes resealed(Bytes bytes) {
    put_u64(bytes, 36, bytes.size() - kHeaderSize);
    const std::span<const std::byte> all(bytes);
    put_u64(bytes, kChecksumOffset, fnv1a(all.first(kChecksumOffset), all.subspan(kHeaderSize)));
    return bytes;
}

// ---- The full observable state of a world, hashed (FNV-1a 64 over bit patterns): every body's BodyState, the
// contacts, the last step's events and the settings but `threads`.

class Hash {
public:
    void u64(std::uint64_t v) {
        for (int i = 0; i < 8; ++i) h_ = (h_ ^ ((v >> (8 * i)) & 0xffu)) * 0x100000001b3ull;
    }
    void f(float v) {
        std::uint32_t bits;
        std::memcpy(&bits, &v, 4);
        u64(bits);
    }
    void v3(const glm::vec3& v) { f(v.x), f(v.y), f(v.z); }
    void id(BodyId id) { u64(id.index), u64(id.generation); }
    void contact(const tumble::Contact& c) {
        u64(static_cast<std::uint64_t>(c.axis)), u64(c.negative), f(c.depth), v3(c.normal);
    }
    std::uint64_t value() const { return h_; }

private:
    std::uint64_t h_ = 0xcbf29ce484222325ull;
};

std::uint64_t full_hash(const World& w) {
    Hash h;
    w.for_each_body([&](BodyId id) {
        const tumble::BodyState s = w.body(id);
        h.id(id);
        h.v3(s.position);
        h.f(s.orientation.w), h.f(s.orientation.x), h.f(s.orientation.y), h.f(s.orientation.z);
        h.v3(s.velocity);
        h.v3(s.angular_velocity);
        h.f(s.friction), h.f(s.restitution);
        h.u64(s.layer), h.u64(s.mask), h.u64(s.sleeping);
    });
    for (const tumble::ContactRecord& c : w.contacts()) {
        h.id(c.a), h.id(c.b), h.u64(c.mesh.index), h.u64(c.mesh.generation), h.u64(c.triangle);
        h.contact(c.contact);
    }
    for (const tumble::ContactEvent& e : w.contact_events()) {
        h.u64(static_cast<std::uint64_t>(e.type)), h.id(e.a), h.id(e.b), h.u64(e.mesh.index), h.u64(e.triangle);
        h.contact(e.contact);
        h.u64(e.sensor);
    }
    const tumble::WorldSettings& s = w.settings();
    h.v3(s.gravity);
    h.u64(static_cast<std::uint64_t>(s.solver.substeps)), h.u64(static_cast<std::uint64_t>(s.solver.iterations));
    h.f(s.broadphase_margin), h.u64(s.sleep.enabled), h.u64(s.active_edges_only);
    return h.value();
}

std::size_t sleeping_count(const World& w) {
    std::size_t n = 0;
    w.for_each_body([&](BodyId id) { n += w.body(id).sleeping ? 1 : 0; });
    return n;
}

void step(World& w, int steps) {
    for (int s = 0; s < steps; ++s) w.step(kDt);
}

// ---- The level scene

const tumble::TriangleMesh& level() {
    static const tumble::TriangleMesh mesh = tumble::load_obj(kLevel).mesh;
    return mesh;
}
const std::vector<BodyDef>& boxes() {
    static const std::vector<BodyDef> defs = [] {
        tumble::samples::DropOptions o;
        o.boxes = kBoxes;
        return tumble::samples::spawn_boxes(level(), o);
    }();
    return defs;
}

struct LevelScene {
    std::unique_ptr<World> world;
    std::vector<BodyId> ids;
};

// The level with the boxes, built by the same calls every time; `extra` boxes after them.
LevelScene build_level(int threads, const std::vector<BodyDef>& extra = {}) {
    tumble::WorldSettings settings;
    settings.threads = threads;
    LevelScene s{std::make_unique<World>(settings), {}};
    s.world->add_mesh(level());
    for (const BodyDef& d : boxes()) s.ids.push_back(s.world->create_body(d));
    for (const BodyDef& d : extra) s.ids.push_back(s.world->create_body(d));
    return s;
}

// The game's input: every 25 steps, from step 10 on, five boxes get a kick upwards off their centre (they jump and
// spin, and wake the islands they sleep in). A replay applies the same calls at the same steps, so the runs below
// call this with the steps they cover.
void advance(LevelScene& s, int from, int to) {
    World& w = *s.world;
    for (int k = from; k < to; ++k) {
        if (k % 25 == 10)
            for (int j = 0; j < 5; ++j) {
                const BodyId id = s.ids[static_cast<std::size_t>(k * 7 + j * 41) % s.ids.size()];
                const glm::vec3 at = w.body(id).position + glm::vec3(0.1f, 0.0f, 0.05f);
                w.apply_impulse(id, {0.3f * static_cast<float>(j - 2), 4.0f, 0.0f}, at);
            }
        w.step(kDt);
    }
}

// The level after kSaveStep steps of the game, with what the tests check about the snapshot taken there. Each test
// runs in a process of its own (gtest_discover_tests), so each builds the runs it needs and no more.
struct AtSave {
    LevelScene scene;
    Bytes bytes;  // save_state()
    std::uint64_t hash = 0;
};

AtSave run_to_save(int threads) {
    AtSave r{build_level(threads), {}, 0};
    advance(r.scene, 0, kSaveStep);
    const auto t0 = std::chrono::steady_clock::now();
    r.bytes = r.scene.world->save_state();
    const double save_ms = ms_since(t0);
    r.hash = full_hash(*r.scene.world);
    std::printf("[ snapshot ] %d thread(s): %d boxes, %zu of them asleep and %zu contacts at step %d; snapshot %zu "
                "bytes saved in %.2f ms\n",
                threads, kBoxes, sleeping_count(*r.scene.world), r.scene.world->contacts().size(), kSaveStep,
                r.bytes.size(), save_ms);
    return r;
}

class SnapshotThreads : public ::testing::TestWithParam<int> {};

TEST_P(SnapshotThreads, RestoreThenStepRepeatsTheUninterruptedRun) {
    AtSave at = run_to_save(GetParam());
    World& w = *at.scene.world;
    const std::size_t sleeping = sleeping_count(w);
    ASSERT_GT(sleeping, 0u) << "some islands must sleep at the snapshot for the test to mean anything";
    ASSERT_LT(sleeping, static_cast<std::size_t>(kBoxes)) << "and some bodies still move";
    ASSERT_GT(w.contacts().size(), 0u);
    advance(at.scene, kSaveStep, kEndStep);
    const std::uint64_t end_hash = full_hash(w);
    const Bytes end = w.save_state();

    // The world that ran on to step 600 goes back to step 300 and runs the same 300 steps again.
    const auto t0 = std::chrono::steady_clock::now();
    w.restore_state(at.bytes);
    const double restore_ms = ms_since(t0);
    EXPECT_EQ(full_hash(w), at.hash);
    EXPECT_EQ(w.save_state(), at.bytes) << "the restored world saves the bytes it was restored from";
    advance(at.scene, kSaveStep, kEndStep);
    EXPECT_EQ(full_hash(w), end_hash);
    EXPECT_EQ(w.save_state(), end) << "everything the snapshot holds is the same at step 600";
    std::printf("[ snapshot ] %d thread(s): restored in %.2f ms\n", GetParam(), restore_ms);

    // A second world built by the same calls, never stepped, restored from the bytes.
    LevelScene fresh = build_level(GetParam());
    fresh.world->restore_state(at.bytes);
    EXPECT_EQ(full_hash(*fresh.world), at.hash);
    advance(fresh, kSaveStep, kEndStep);
    EXPECT_EQ(full_hash(*fresh.world), end_hash);
    EXPECT_EQ(fresh.world->save_state(), end);
}

INSTANTIATE_TEST_SUITE_P(Threads, SnapshotThreads, ::testing::Values(1, 2),
                         [](const ::testing::TestParamInfo<int>& i) { return std::to_string(i.param) + "threads"; });

TEST(Snapshot, BytesAndResultsDoNotDependOnTheThreadCount) {
    AtSave one = run_to_save(1), two = run_to_save(2);
    EXPECT_EQ(one.bytes, two.bytes);
    // The one-thread snapshot restored into the two-thread world (a world at the same state), both run on.
    two.scene.world->restore_state(one.bytes);
    EXPECT_EQ(two.scene.world->settings().threads, 2) << "threads belongs to the world, not to the snapshot";
    advance(one.scene, kSaveStep, kEndStep);
    advance(two.scene, kSaveStep, kEndStep);
    EXPECT_EQ(full_hash(*one.scene.world), full_hash(*two.scene.world));
    EXPECT_EQ(one.scene.world->save_state(), two.scene.world->save_state());
}

TEST(Snapshot, RestoreUndoesUnrelatedChanges) {
    AtSave at = run_to_save(1);
    LevelScene& s = at.scene;
    World& w = *s.world;
    advance(s, kSaveStep, kEndStep);
    const std::uint64_t end_hash = full_hash(w);
    const Bytes end = w.save_state();
    // Moved, spun, pushed, re-filtered, re-tuned, stepped: every kind of change a game makes between frames.
    for (std::size_t i = 0; i < s.ids.size(); i += 7) w.set_position(s.ids[i], w.body(s.ids[i]).position + glm::vec3(0, 0.5f, 0));
    for (std::size_t i = 1; i < s.ids.size(); i += 5) w.set_velocity(s.ids[i], {1.0f, 2.0f, -0.5f});
    for (std::size_t i = 2; i < s.ids.size(); i += 9) w.set_angular_velocity(s.ids[i], {0.0f, 3.0f, 0.0f});
    for (std::size_t i = 3; i < s.ids.size(); i += 11) w.apply_force(s.ids[i], {0, 50, 0}, w.body(s.ids[i]).position);
    w.set_material(s.ids[4], 0.1f, 0.9f);
    w.set_filter(s.ids[5], 2, 2);
    tumble::WorldSettings other = w.settings();
    other.gravity = {0.0f, -3.0f, 0.0f};
    other.solver.substeps = 4;
    other.broadphase_margin = 0.05f;
    w.set_settings(other);
    step(w, 5);

    w.restore_state(at.bytes);
    EXPECT_EQ(w.save_state(), at.bytes);
    EXPECT_EQ(full_hash(w), at.hash);
    advance(s, kSaveStep, kEndStep);
    EXPECT_EQ(full_hash(w), end_hash);
    EXPECT_EQ(w.save_state(), end);

    // Changed again, with the sleeping islands woken, and restored again.
    for (std::size_t i = 0; i < s.ids.size(); i += 13) w.set_position(s.ids[i], {0.0f, 30.0f, 0.0f});
    w.wake_all();
    step(w, 3);
    w.restore_state(at.bytes);
    EXPECT_EQ(w.save_state(), at.bytes);
    EXPECT_EQ(full_hash(w), at.hash);
}

// ---- A small scene with every kind of body: static boxes side by side (covered faces), a kinematic paddle, a
// sensor, a fast CCD box, a fixed-rotation box, a pile that falls asleep, and a pending force at the snapshot.

struct Small {
    World world;
    std::vector<BodyId> ids;
};

std::unique_ptr<Small> build_small(int threads = 1) {
    tumble::WorldSettings settings;
    settings.threads = threads;
    auto s = std::make_unique<Small>(Small{World(settings), {}});
    World& w = s->world;
    w.add_mesh({{{-20, 0, -20}, {20, 0, -20}, {20, 0, 20}, {-20, 0, 20}}, {0, 2, 1, 0, 3, 2}}, tumble::MeshMaterial{0.8f, 0.1f});
    auto add = [&](BodyDef d) { s->ids.push_back(w.create_body(d)); };
    for (int i = 0; i < 3; ++i) {  // a static platform of three flush boxes
        BodyDef d;
        d.mass = 0.0f;
        d.position = {4.0f + 2.0f * static_cast<float>(i), 0.5f, 0.0f};
        d.half_extents = {1.0f, 0.5f, 1.0f};
        add(d);
    }
    BodyDef paddle;
    paddle.kinematic = true;
    paddle.position = {-6.0f, 0.6f, 0.0f};
    paddle.half_extents = {0.2f, 0.5f, 2.0f};
    paddle.velocity = {1.0f, 0.0f, 0.0f};
    paddle.angular_velocity = {0.0f, 0.5f, 0.0f};
    add(paddle);
    BodyDef sensor;
    sensor.sensor = true;
    sensor.mass = 0.0f;
    sensor.position = {0.0f, 1.0f, 0.0f};
    sensor.half_extents = {1.5f, 1.0f, 1.5f};
    add(sensor);
    BodyDef bullet;
    bullet.ccd = true;
    bullet.position = {-10.0f, 1.0f, 5.0f};
    bullet.half_extents = glm::vec3(0.1f);
    bullet.velocity = {60.0f, 0.0f, 0.0f};
    add(bullet);
    BodyDef wall;
    wall.mass = 0.0f;
    wall.position = {0.0f, 1.0f, 5.0f};
    wall.half_extents = {0.05f, 1.0f, 1.0f};
    add(wall);
    BodyDef upright;
    upright.fixed_rotation = true;
    upright.position = {-2.0f, 2.0f, -3.0f};
    upright.half_extents = {0.3f, 0.6f, 0.3f};
    upright.velocity = {0.0f, 0.0f, 1.0f};
    add(upright);
    for (int i = 0; i < 12; ++i) {  // a pile on the platform and one on the floor, some spinning
        BodyDef d;
        d.position = {4.5f + 0.7f * static_cast<float>(i % 4), 1.3f + 0.6f * static_cast<float>(i / 4), 0.1f * static_cast<float>(i % 3)};
        d.half_extents = {0.3f, 0.25f, 0.3f};
        d.orientation = glm::angleAxis(0.1f * static_cast<float>(i), glm::normalize(glm::vec3(1, 2, 3)));
        d.angular_velocity = {0.0f, 0.5f * static_cast<float>(i % 3), 0.0f};
        d.restitution = i % 2 ? 0.3f : 0.0f;
        add(d);
    }
    return s;
}

TEST(Snapshot, EveryKindOfBodyAndAPendingForceComeBack) {
    auto a = build_small();
    step(a->world, 40);
    a->world.apply_force(a->ids[9], {20.0f, 0.0f, 0.0f}, a->world.body(a->ids[9]).position + glm::vec3(0, 0.2f, 0));
    a->world.apply_torque(a->ids[10], {0.0f, 1.0f, 0.0f});
    const Bytes saved = a->world.save_state();
    step(a->world, 80);
    const std::uint64_t end = full_hash(a->world);
    const Bytes end_bytes = a->world.save_state();
    EXPECT_GT(sleeping_count(a->world), 0u);

    auto b = build_small(2);
    b->world.restore_state(saved);
    step(b->world, 80);
    EXPECT_EQ(full_hash(b->world), end);
    EXPECT_EQ(b->world.save_state(), end_bytes);

    // The middle platform box moved away uncovers its neighbours' faces (and drops the pile); the restore covers
    // them again.
    a->world.set_position(a->ids[1], {30.0f, 0.5f, 30.0f});
    step(a->world, 5);
    a->world.restore_state(saved);
    step(a->world, 80);
    EXPECT_EQ(full_hash(a->world), end);
    EXPECT_EQ(a->world.save_state(), end_bytes);
}

TEST(Snapshot, DestroyedBodiesStayOutOfTheSnapshot) {
    // A world that destroyed a body before the snapshot restores into another that did the same; their event pairs
    // still end the destroyed body's contacts at the next step.
    auto a = build_small();
    step(a->world, 30);
    a->world.destroy_body(a->ids[12]);
    const Bytes saved = a->world.save_state();
    step(a->world, 30);
    const std::uint64_t end = full_hash(a->world);
    auto b = build_small();
    b->world.destroy_body(b->ids[12]);
    b->world.restore_state(saved);
    step(b->world, 30);
    EXPECT_EQ(full_hash(b->world), end);
    // A world that did not destroy it is another world.
    auto c = build_small();
    try {
        c->world.restore_state(saved);
        ADD_FAILURE() << "restored into a world with one more body";
    } catch (const FileError& e) {
        EXPECT_NE(std::string(e.what()).find("saved from a world with 19 bodies, this one has 20"), std::string::npos)
            << e.what();
    }
}

TEST(Snapshot, RollingBackPastACreatedBodyWorksOnceItIsDestroyed) {
    auto a = build_small();
    step(a->world, 30);
    const Bytes saved = a->world.save_state();
    step(a->world, 30);
    const Bytes end = a->world.save_state();
    a->world.restore_state(saved);
    BodyDef late;
    late.position = {5.0f, 4.0f, 0.0f};  // lands on the pile
    const BodyId id = a->world.create_body(late);
    step(a->world, 10);
    try {
        a->world.restore_state(saved);
        ADD_FAILURE() << "restored into a world with a body the snapshot does not know";
    } catch (const FileError& e) {
        EXPECT_NE(std::string(e.what()).find("saved from a world with 20 bodies, this one has 21"), std::string::npos)
            << e.what();
    }
    a->world.destroy_body(id);
    a->world.restore_state(saved);
    step(a->world, 30);
    EXPECT_EQ(a->world.save_state(), end);
}

// ---- Bad bytes

// Calls restore_state and expects a FileError whose message contains `expected`; the world must be unchanged.
void expect_refused(World& w, const Bytes& bytes, const std::string& expected, const std::string& label) {
    SCOPED_TRACE(label);
    const Bytes before = w.save_state();
    const std::uint64_t hash = full_hash(w);
    try {
        w.restore_state(bytes);
        ADD_FAILURE() << "accepted";
    } catch (const FileError& e) {
        EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << "message: " << e.what();
        EXPECT_EQ(std::string(e.what()).rfind("World::restore_state: ", 0), 0u) << e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "threw something other than FileError: " << e.what();
    }
    EXPECT_EQ(full_hash(w), hash);
    EXPECT_TRUE(w.save_state() == before) << "the world changed";
}

TEST(Snapshot, BadBytesAreRefusedWithAReasonAndChangeNothing) {
    AtSave at = run_to_save(1);
    const Bytes& good = at.bytes;
    // The world that sees the bad calls and a control that does not; both at a state other than the snapshot's.
    LevelScene control = build_level(1);
    control.world->restore_state(good);
    World& w = *at.scene.world;
    step(w, 10);
    step(*control.world, 10);

    expect_refused(w, {}, "truncated at byte 0", "empty");
    for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{30}, kHeaderSize - 1, kHeaderSize,
                          kHeaderSize + 1, good.size() / 2, good.size() - 1})
        expect_refused(w, Bytes(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n)),
                       "truncated at byte " + std::to_string(n), "truncated to " + std::to_string(n));
    {
        Bytes longer = good;
        longer.push_back(std::byte{0});
        expect_refused(w, longer, "1 bytes follow the snapshot", "one byte more");
    }
    {
        Bytes magic = good;
        magic[2] = std::byte{'X'};
        expect_refused(w, magic, "not a Tumble snapshot", "wrong magic");
        expect_refused(w, Bytes(8, std::byte{0}), "not a Tumble snapshot", "zeros");
    }
    {
        Bytes future = good;
        put_u32(future, 8, 5);
        expect_refused(w, resealed(future), "format version 5 is newer", "future version");
        put_u32(future, 8, 3);  // before the candidate drift
        expect_refused(w, resealed(future), "format version 3 is not", "version 3");
        put_u32(future, 8, 2);  // before kept manifolds
        expect_refused(w, resealed(future), "format version 2 is not", "version 2");
        put_u32(future, 8, 1);  // before the solver method and the warm-start forces
        expect_refused(w, resealed(future), "format version 1 is not", "version 1");
        put_u32(future, 8, 0);
        expect_refused(w, resealed(future), "format version 0 is not", "version 0");
    }
    // One flipped byte: every byte of the header, then bytes spread over the payload, and the last one.
    std::vector<std::size_t> positions;
    for (std::size_t i = 0; i < kHeaderSize; ++i) positions.push_back(i);
    for (std::size_t i = kHeaderSize; i < good.size(); i += good.size() / 97) positions.push_back(i);
    positions.push_back(good.size() - 1);
    for (std::size_t pos : positions) {
        Bytes flipped = good;
        flipped[pos] ^= std::byte{0x10};
        const char* expected = pos < 8 ? "not a Tumble snapshot" : pos < 12 ? "format version" : pos < 36 ? "checksum mismatch"
                               : pos < 44 ? "bytes" : "checksum mismatch";
        expect_refused(w, flipped, expected, "byte " + std::to_string(pos) + " flipped");
    }
    // Bytes that pass the checksum but not the decoder.
    {
        Bytes longer = good;
        longer.push_back(std::byte{0});
        expect_refused(w, resealed(longer), "1 byte follows its last section", "resealed with a byte more");
        Bytes shorter(good.begin(), good.end() - 1);
        expect_refused(w, resealed(shorter), "malformed payload", "resealed a byte short");
        Bytes nan = good;
        const std::size_t first_body = kHeaderSize + kSettingsBytes + kStepBytes;
        put_u32(nan, first_body + 8, 0x7fc00000u);        // the first body's position.x
        expect_refused(w, resealed(nan), "not finite", "resealed with a NaN position");
        Bytes turned = good;
        put_u32(turned, first_body + 20, 0x40000000u);  // orientation.w = 2
        expect_refused(w, resealed(turned), "orientation has length", "resealed with a quaternion of length > 1");
        Bytes island = good;
        put_u32(island, first_body + 140, 1000000);  // asleep in an island that does not exist
        expect_refused(w, resealed(island), "which is not a sleeping island", "resealed with a bad island");
        Bytes drift = good;
        put_u32(drift, first_body + 146, 0xbf800000u);  // candidate drift -1
        expect_refused(w, resealed(drift), "candidate drift", "resealed with a negative candidate drift");
        Bytes step = good;
        put_u32(step, kHeaderSize + kSettingsBytes, 0x7fc00000u);  // the shortest step: NaN
        expect_refused(w, resealed(step), "the shortest step", "resealed with a NaN shortest step");
        Bytes settings = good;
        put_u32(settings, kHeaderSize + 12, 0);  // solver.substeps = 0
        expect_refused(w, resealed(settings), "settings are out of range", "resealed with 0 substeps");
        Bytes counted = good;
        put_u32(counted, kBodyCountOffset, get_u32(good, kBodyCountOffset) - 1);
        expect_refused(w, resealed(counted), "saved from a world with 199 bodies, this one has 200", "resealed count");
    }

    // Other worlds: one more body, a different box, a different mesh, the same bodies created in another order.
    {
        BodyDef extra;
        extra.position = {0.0f, 100.0f, 0.0f};
        LevelScene more = build_level(1, {extra});
        expect_refused(*more.world, good, "saved from a world with 200 bodies, this one has 201", "one more body");
    }
    {
        tumble::WorldSettings settings;
        World other(settings);
        other.add_mesh(level());
        std::vector<BodyDef> defs = boxes();
        defs[17].half_extents.x += 0.01f;
        for (const BodyDef& d : defs) other.create_body(d);
        expect_refused(other, good, "differ in creation order, size, mass or kind", "one box of another size");
    }
    {
        World other;
        tumble::TriangleMesh moved = level();
        moved.vertices[moved.indices[0]].y += 0.001f;
        other.add_mesh(moved);
        for (const BodyDef& d : boxes()) other.create_body(d);
        expect_refused(other, good, "the meshes differ", "one level vertex moved");
    }
    {
        World other;
        for (const BodyDef& d : boxes()) other.create_body(d);
        other.add_mesh(level());
        expect_refused(other, good, "differ in creation order", "the mesh added after the boxes");
    }
    {
        World other;
        other.add_mesh(level());
        std::vector<BodyId> ids;
        for (const BodyDef& d : boxes()) ids.push_back(other.create_body(d));
        other.destroy_body(ids[5]);
        other.create_body(boxes()[5]);  // slot 5 again, generation 2
        expect_refused(other, good, "this world's is {5, 2}", "a body destroyed and created again");
    }

    // After all that, the world steps exactly as the control that saw none of it.
    step(w, 60);
    step(*control.world, 60);
    EXPECT_EQ(full_hash(w), full_hash(*control.world));
    EXPECT_EQ(w.save_state(), control.world->save_state());
}

TEST(Snapshot, BadKeptManifoldsAreRefused) {
    // A cube resting on a two-triangle floor with the soft step and kept manifolds on: the snapshot ends with its one
    // carried manifold, kept whole: key (20 bytes), point count, stuck and held masks, keep flags, axis (1), normal
    // (12), drift (4), then 4 points of 44 bytes (feature id, two friction anchors, the warm start).
    tumble::WorldSettings settings;
    settings.solver.method = tumble::SolverMethod::soft_step;
    settings.solver.substeps = 4;
    settings.sleep.enabled = false;
    World w(settings);
    tumble::TriangleMesh floor;
    floor.vertices = {{-20.0f, 0.0f, -20.0f}, {20.0f, 0.0f, -20.0f}, {20.0f, 0.0f, 20.0f}, {-20.0f, 0.0f, 20.0f}};
    floor.indices = {0, 2, 1, 0, 3, 2};
    w.add_mesh(floor);
    BodyDef cube;
    cube.position = {2.0f, 0.25f, -2.0f};
    cube.half_extents = glm::vec3(0.25f);
    cube.mass = 1.0f;
    w.create_body(cube);
    for (int n = 0; n < 60; ++n) w.step(kDt);
    ASSERT_EQ(w.stats().kept_manifolds, 1u);
    const Bytes good = w.save_state();
    const std::size_t at = good.size() - (20 + 4 + 17 + 4 * 44);
    ASSERT_EQ(std::to_integer<int>(good[at + 20]), 4) << "four points";
    ASSERT_EQ(std::to_integer<int>(good[at + 23]) & 1, 1) << "kept whole";
    auto with = [&](std::size_t offset, std::uint32_t bits, std::size_t size) {
        Bytes b = good;
        if (size == 1)
            b[at + offset] = static_cast<std::byte>(bits);
        else
            put_u32(b, at + offset, bits);
        return resealed(b);
    };
    expect_refused(w, with(23, 4, 1), "keep flags are 4 (0, 1 or 3)", "keep flags 4");
    expect_refused(w, with(22, 0, 1), "a stuck point as not held", "held mask 0");
    expect_refused(w, with(24, 20, 1), "its axis is 20", "axis 20");
    expect_refused(w, with(25, 0x7fc00000u, 4), "kept, but its normal has length", "NaN normal");
    expect_refused(w, with(25, 0x40000000u, 4), "kept, but its normal has length", "normal.x = 2");
    expect_refused(w, with(37, 0xbf800000u, 4), "drift -1", "drift -1");
    // Unchanged, the bytes restore, and the kept manifold is kept by the next step.
    w.restore_state(good);
    w.step(kDt);
    EXPECT_EQ(w.stats().kept_manifolds, 1u);
}
TEST(Snapshot, AnEmptyWorldRoundTrips) {
    World a, b;
    const Bytes saved = a.save_state();
    EXPECT_EQ(saved.size(), kHeaderSize + kSettingsBytes + kStepBytes + kEmptyListsBytes);
    b.restore_state(saved);
    EXPECT_EQ(b.save_state(), saved);
    b.create_body({});
    expect_refused(b, saved, "saved from a world with 0 bodies, this one has 1", "a body added");
}

TEST(Snapshot, BodiesThatNeverSteppedRoundTrip) {
    // Bodies and nothing else: the payload is the settings, kBodyBytes per body and the empty lists, exactly.
    World a, b;
    for (World* w : {&a, &b})
        for (int i = 0; i < 3; ++i) w->create_body({.position = {2.0f * static_cast<float>(i), 0.0f, 0.0f}});
    a.set_velocity(BodyId{1, 1}, {1.0f, 0.0f, 0.0f});
    const Bytes saved = a.save_state();
    EXPECT_EQ(saved.size(), kHeaderSize + kSettingsBytes + kStepBytes + 3 * kBodyBytes + kEmptyListsBytes);
    b.restore_state(saved);
    EXPECT_EQ(b.save_state(), saved);
    EXPECT_EQ(b.body(BodyId{1, 1}).velocity, glm::vec3(1.0f, 0.0f, 0.0f));
}

}  // namespace
