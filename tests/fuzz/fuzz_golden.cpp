// libFuzzer target: the golden-result reader of the `tumble` command (tumble::cli::parse_golden, what read_golden
// runs on a file's text) on arbitrary text.
//
// Properties checked on every input:
// - parse_golden either returns or throws tumble::FileError whose message starts with the origin; nothing else;
// - a returned golden is usable by `check`: at least one checkpoint, steps >= 0 and strictly increasing, one hash
//   per checkpoint, one state per box label at every checkpoint, every number finite;
// - it survives a round trip: write_golden then read_golden gives back the same labels, steps, hashes and the same
//   float bits of every state (the writer prints the shortest decimal that reads back to the same float).

#include <cstdint>
#include <cstring>
#include <string>

#include <tumble/tumble.hpp>

#include "fuzz_support.hpp"
#include "scene_tools.hpp"

namespace {

using tumble::cli::BoxState;
using tumble::cli::Golden;
using tumble::fuzz::finite;

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_state(const BoxState& a, const BoxState& b) {
    for (int k = 0; k < 3; ++k)
        if (!same_bits(a.position[k], b.position[k]) || !same_bits(a.velocity[k], b.velocity[k])) return false;
    for (int k = 0; k < 4; ++k)
        if (!same_bits(a.orientation[k], b.orientation[k])) return false;
    return true;
}

void check_golden(const Golden& g) {
    TUMBLE_FUZZ_CHECK(!g.checkpoints.empty(), "no checkpoint");
    TUMBLE_FUZZ_CHECK(g.hashes.size() == g.checkpoints.size(), "not one hash per checkpoint");
    for (std::size_t c = 0; c < g.checkpoints.size(); ++c) {
        TUMBLE_FUZZ_CHECK(g.checkpoints[c].step >= 0, "a negative step");
        TUMBLE_FUZZ_CHECK(c == 0 || g.checkpoints[c - 1].step < g.checkpoints[c].step, "steps not increasing");
        TUMBLE_FUZZ_CHECK(g.checkpoints[c].boxes.size() == g.labels.size(), "not one state per box");
        for (const BoxState& s : g.checkpoints[c].boxes) {
            TUMBLE_FUZZ_CHECK(finite(s.position) && finite(s.velocity), "a state is not finite");
            TUMBLE_FUZZ_CHECK(std::isfinite(s.orientation.w) && std::isfinite(s.orientation.x) &&
                                  std::isfinite(s.orientation.y) && std::isfinite(s.orientation.z),
                              "an orientation is not finite");
        }
    }
}

void check_round_trip(const Golden& g) {
    static const tumble::fuzz::ScratchFile scratch(".golden.json");
    try {
        tumble::cli::write_golden(scratch.path(), g);
    } catch (const tumble::Error& e) {
        TUMBLE_FUZZ_CHECK(false, std::string("write_golden refused a golden that read_golden accepted: ") + e.what());
    }
    Golden back;
    try {
        back = tumble::cli::read_golden(scratch.path());
    } catch (const tumble::Error& e) {
        TUMBLE_FUZZ_CHECK(false, std::string("read_golden refused what write_golden wrote: ") + e.what());
    }
    TUMBLE_FUZZ_CHECK(back.scene == g.scene, "the scene name changed");
    TUMBLE_FUZZ_CHECK(same_bits(back.dt, g.dt), "dt changed");
    TUMBLE_FUZZ_CHECK(back.labels == g.labels, "the labels changed");
    TUMBLE_FUZZ_CHECK(back.hashes == g.hashes, "the hashes changed");
    TUMBLE_FUZZ_CHECK(back.checkpoints.size() == g.checkpoints.size(), "the checkpoint count changed");
    for (std::size_t c = 0; c < g.checkpoints.size(); ++c) {
        TUMBLE_FUZZ_CHECK(back.checkpoints[c].step == g.checkpoints[c].step, "a step changed");
        for (std::size_t i = 0; i < g.labels.size(); ++i)
            TUMBLE_FUZZ_CHECK(same_state(back.checkpoints[c].boxes[i], g.checkpoints[c].boxes[i]), "a state changed");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::filesystem::path origin = "fuzz.golden.json";
    Golden g;
    try {
        g = tumble::cli::parse_golden(std::string_view(reinterpret_cast<const char*>(data), size), origin);
    } catch (const tumble::FileError& e) {
        TUMBLE_FUZZ_CHECK(std::string(e.what()).rfind(origin.string() + ": ", 0) == 0,
                          std::string("the message does not start with the file: ") + e.what());
        return 0;
    }
    check_golden(g);
    check_round_trip(g);
    return 0;
}
