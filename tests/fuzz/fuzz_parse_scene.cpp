// libFuzzer target: tumble::parse_scene on arbitrary text.
//
// The scene is read as if it were the file data/fuzz_scene.json of this folder, so that "obj" paths can name the
// small meshes beside it (data/*.obj). Properties checked on every input:
// - parse_scene either returns or throws tumble::FileError; no other exception, crash or sanitizer report;
// - an error message starts with "ORIGIN:LINE:COLUMN: " with LINE and COLUMN >= 1 and LINE at most the number of
//   lines of the text (docs/scenes.md, "Errors");
// - a returned scene holds only what the format allows (docs/scenes.md): a version it reads (1 or 2), finite values
//   in their ranges (materials included),
//   checkpoints strictly increasing within [0, steps] and ending with steps, unique names, valid meshes, valid
//   settings; and add_scene puts it into a World without an exception ("add_scene cannot fail on it").

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <set>
#include <string>

#include <tumble/tumble.hpp>

#include "fuzz_support.hpp"

namespace {

using tumble::fuzz::finite;

void check_message(const std::string& message, const std::string& origin, std::string_view text) {
    TUMBLE_FUZZ_CHECK(message.rfind(origin + ":", 0) == 0, "no 'origin:' prefix: " + message);
    const char* p = message.data() + origin.size() + 1;
    const char* end = message.data() + message.size();
    long line = 0, column = 0;
    auto r = std::from_chars(p, end, line);
    TUMBLE_FUZZ_CHECK(r.ec == std::errc() && r.ptr < end && *r.ptr == ':', "no line number: " + message);
    r = std::from_chars(r.ptr + 1, end, column);
    TUMBLE_FUZZ_CHECK(r.ec == std::errc() && r.ptr + 1 < end && r.ptr[0] == ':' && r.ptr[1] == ' ',
                      "no column number: " + message);
    const long lines = 1 + static_cast<long>(std::count(text.begin(), text.end(), '\n'));
    TUMBLE_FUZZ_CHECK(line >= 1 && line <= lines && column >= 1,
                      "position out of the text (" + std::to_string(lines) + " lines): " + message);
}

void check_scene(const tumble::Scene& s) {
    TUMBLE_FUZZ_CHECK(s.version >= 1 && s.version <= tumble::kSceneFormatVersion, "version " + std::to_string(s.version));
    TUMBLE_FUZZ_CHECK(std::isfinite(s.dt) && s.dt > 0.0f, "dt " + std::to_string(s.dt));
    TUMBLE_FUZZ_CHECK(s.steps >= 0, "steps " + std::to_string(s.steps));
    TUMBLE_FUZZ_CHECK(!s.checkpoints.empty() && s.checkpoints.back() == s.steps, "the last checkpoint is not steps");
    for (std::size_t i = 0; i < s.checkpoints.size(); ++i) {
        TUMBLE_FUZZ_CHECK(s.checkpoints[i] >= 0 && s.checkpoints[i] <= s.steps, "checkpoint out of the run");
        TUMBLE_FUZZ_CHECK(i == 0 || s.checkpoints[i - 1] < s.checkpoints[i], "checkpoints not strictly increasing");
    }
    try {
        tumble::validate(s.settings);
    } catch (const tumble::Error& e) {
        TUMBLE_FUZZ_CHECK(false, std::string("the settings do not validate: ") + e.what());
    }
    std::set<std::string> names;
    for (const tumble::SceneBox& b : s.boxes) {
        if (!b.name.empty()) {
            TUMBLE_FUZZ_CHECK(b.name[0] != '#', "a name starts with #");
            TUMBLE_FUZZ_CHECK(names.insert(b.name).second, "the name " + b.name + " appears twice");
        }
        TUMBLE_FUZZ_CHECK(finite(b.def.position) && finite(b.def.half_extents) && finite(b.def.velocity),
                          "a box has a value that is not finite");
        TUMBLE_FUZZ_CHECK(b.def.half_extents.x >= 0.0f && b.def.half_extents.y >= 0.0f && b.def.half_extents.z >= 0.0f,
                          "a negative half extent");
        TUMBLE_FUZZ_CHECK(std::isfinite(b.def.mass) && b.def.mass >= 0.0f, "mass " + std::to_string(b.def.mass));
        TUMBLE_FUZZ_CHECK(finite(b.def.angular_velocity), "a box's angular velocity is not finite");
        TUMBLE_FUZZ_CHECK(std::isfinite(b.def.friction) && b.def.friction >= 0.0f,
                          "friction " + std::to_string(b.def.friction));
        TUMBLE_FUZZ_CHECK(b.def.restitution >= 0.0f && b.def.restitution <= 1.0f,
                          "restitution " + std::to_string(b.def.restitution));
        const glm::quat q = b.def.orientation;
        TUMBLE_FUZZ_CHECK(std::abs(std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z) - 1.0f) <= 1e-3f,
                          "an orientation is not a unit quaternion");
    }
    for (const tumble::SceneMesh& m : s.meshes) {
        TUMBLE_FUZZ_CHECK(m.mesh.validate().empty(), "a mesh does not validate: " + m.mesh.validate());
        TUMBLE_FUZZ_CHECK(std::isfinite(m.scale) && m.scale > 0.0f, "scale " + std::to_string(m.scale));
        TUMBLE_FUZZ_CHECK(std::isfinite(m.material.friction) && m.material.friction >= 0.0f &&
                              m.material.restitution >= 0.0f && m.material.restitution <= 1.0f,
                          "a mesh material out of range");
    }
    tumble::World world(s.settings);
    try {
        const tumble::SceneInstance ids = tumble::add_scene(world, s);
        TUMBLE_FUZZ_CHECK(ids.bodies.size() == s.boxes.size() && ids.meshes.size() == s.meshes.size(),
                          "add_scene did not add everything");
    } catch (const std::exception& e) {
        TUMBLE_FUZZ_CHECK(false, std::string("add_scene failed on a loaded scene: ") + e.what());
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::filesystem::path origin = std::filesystem::path(TUMBLE_FUZZ_DATA_DIR) / "fuzz_scene.json";
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        check_scene(tumble::parse_scene(text, origin));
    } catch (const tumble::FileError& e) {
        check_message(e.what(), origin.string(), text);
    }
    return 0;
}
