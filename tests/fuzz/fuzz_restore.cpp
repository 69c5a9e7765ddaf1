// libFuzzer target: World::restore_state on arbitrary bytes.
//
// The world is one small scene, built once: a floor mesh, a static platform of three flush boxes, a kinematic box
// moving across it, a sensor, a CCD box and a pile of twelve boxes, stepped 120 times so that the pile sleeps, keeps
// contacts and has stuck friction anchors while the kinematic box still moves. Its save_state is the pristine
// snapshot; every input starts from it (restore_state of the pristine bytes), so inputs do not depend on each other.
//
// Input: a mode byte, then the candidate snapshot. Mode bit 0 set: the target writes the payload size and the checksum
// into the header first (a forged snapshot), so that the decoder and the checks against the world see the bytes
// instead of the checksum refusing them; clear: the bytes go in as they are.
//
// Properties:
// - restore_state returns or throws tumble::FileError whose message starts with "World::restore_state: "; nothing
//   else;
// - after a FileError the world is unchanged: its save_state is the pristine snapshot, bit for bit;
// - after a success the world saves exactly the bytes it was given (every saved value goes in and comes out as it
//   is), its contacts name live bodies and meshes, and it steps (three steps; a tumble::Error from a step of a
//   state beyond what the step keeps finite is allowed, any other exception or a sanitizer report is a finding).
//
// The seed corpus (corpus/fuzz_restore/) holds the pristine snapshot in both modes; after changing the scene or the
// format, write it again with TUMBLE_FUZZ_WRITE_SEED=<directory> build/fuzz/tests/fuzz/fuzz_restore -runs=0.

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <tumble/tumble.hpp>

#include "fuzz_support.hpp"

namespace {

using namespace tumble;
using Bytes = std::vector<std::byte>;

constexpr std::size_t kHeaderSize = 52, kSizeOffset = 36, kChecksumOffset = 44;

World build_world() {
    World w;
    w.add_mesh({{{-20, 0, -20}, {20, 0, -20}, {20, 0, 20}, {-20, 0, 20}}, {0, 2, 1, 0, 3, 2}}, MeshMaterial{0.7f, 0.1f});
    for (int i = 0; i < 3; ++i) {
        BodyDef d;
        d.mass = 0.0f;
        d.position = {4.0f + 2.0f * static_cast<float>(i), 0.5f, 0.0f};
        d.half_extents = {1.0f, 0.5f, 1.0f};
        w.create_body(d);
    }
    BodyDef kinematic;
    kinematic.kinematic = true;
    kinematic.position = {-8.0f, 0.6f, -4.0f};
    kinematic.half_extents = {0.2f, 0.5f, 1.0f};
    kinematic.velocity = {0.5f, 0.0f, 0.0f};
    w.create_body(kinematic);
    BodyDef sensor;
    sensor.sensor = true;
    sensor.mass = 0.0f;
    sensor.position = {6.0f, 1.5f, 0.0f};
    sensor.half_extents = {1.0f, 1.0f, 1.0f};
    w.create_body(sensor);
    BodyDef fast;
    fast.ccd = true;
    fast.position = {-6.0f, 0.5f, 6.0f};
    fast.half_extents = glm::vec3(0.1f);
    fast.velocity = {30.0f, 0.0f, 0.0f};
    w.create_body(fast);
    for (int i = 0; i < 12; ++i) {
        BodyDef d;
        d.position = {4.5f + 0.7f * static_cast<float>(i % 4), 1.3f + 0.6f * static_cast<float>(i / 4), 0.0f};
        d.half_extents = {0.3f, 0.25f, 0.3f};
        d.orientation = glm::angleAxis(0.1f * static_cast<float>(i), glm::normalize(glm::vec3(1, 2, 3)));
        d.fixed_rotation = i == 11;
        w.create_body(d);
    }
    for (int s = 0; s < 120; ++s) w.step(1.0f / 60.0f);
    return w;
}

World& world() {
    static World w = build_world();
    return w;
}
const Bytes& pristine() {
    static const Bytes bytes = world().save_state();
    return bytes;
}

void put_u64(Bytes& bytes, std::size_t at, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) bytes[at + static_cast<std::size_t>(i)] = static_cast<std::byte>(v >> (8 * i));
}
// FNV-1a 64 over the header before the checksum and the payload (the format in world.hpp).
void reseal(Bytes& bytes) {
    if (bytes.size() < kHeaderSize) return;
    put_u64(bytes, kSizeOffset, bytes.size() - kHeaderSize);
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        if (i == kChecksumOffset) i = kHeaderSize;
        if (i == bytes.size()) break;
        h = (h ^ std::to_integer<std::uint64_t>(bytes[i])) * 0x100000001b3ull;
    }
    put_u64(bytes, kChecksumOffset, h);
}

void write_seed(const std::filesystem::path& dir, const char* name, std::uint8_t mode) {
    std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
    out.put(static_cast<char>(mode));
    out.write(reinterpret_cast<const char*>(pristine().data()), static_cast<std::streamsize>(pristine().size()));
    if (!out) tumble::fuzz::fail(__FILE__, __LINE__, "cannot write the seed " + (dir / name).string());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    if (const char* dir = std::getenv("TUMBLE_FUZZ_WRITE_SEED")) {
        write_seed(dir, "pile_resealed.bin", 1);
        write_seed(dir, "pile_raw.bin", 0);
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    World& w = world();
    w.restore_state(pristine());
    if (size == 0) return 0;
    const auto* first = reinterpret_cast<const std::byte*>(data);
    Bytes bytes(first + 1, first + size);
    if (data[0] & 1) reseal(bytes);

    try {
        w.restore_state(bytes);
    } catch (const FileError& e) {
        TUMBLE_FUZZ_CHECK(std::string(e.what()).rfind("World::restore_state: ", 0) == 0,
                          std::string("a FileError without the function's name: ") + e.what());
        TUMBLE_FUZZ_CHECK(w.save_state() == pristine(), std::string("a refused snapshot changed the world: ") + e.what());
        return 0;
    } catch (const std::exception& e) {
        TUMBLE_FUZZ_CHECK(false, std::string("restore_state threw something other than FileError: ") + e.what());
    }
    TUMBLE_FUZZ_CHECK(w.save_state() == bytes, "the restored world saves other bytes than it was given");
    for (const ContactRecord& c : w.contacts()) {
        TUMBLE_FUZZ_CHECK(w.is_valid(c.a), "a contact names a dead body");
        TUMBLE_FUZZ_CHECK(c.b.is_null() != c.mesh.is_null(), "a contact names both or neither a body and a mesh");
        TUMBLE_FUZZ_CHECK(c.b.is_null() || w.is_valid(c.b), "a contact names a dead body");
        TUMBLE_FUZZ_CHECK(c.mesh.is_null() || c.triangle < w.mesh_triangle_count(c.mesh), "a contact names a bad triangle");
    }
    try {
        for (int s = 0; s < 3; ++s) w.step(1.0f / 60.0f);
    } catch (const tumble::Error&) {
        // A restored state far beyond sane magnitudes (finite, but overflowing once stepped): the step's own limits,
        // docs/reliability.md. The next input restores the pristine state.
    } catch (const std::exception& e) {
        TUMBLE_FUZZ_CHECK(false, std::string("a step after a restore threw something other than tumble::Error: ") + e.what());
    }
    return 0;
}
