#pragma once
/// @file
/// What the libFuzzer targets share: a reader that turns the fuzzer's bytes into numbers, shapes and choices, and
/// the check that stops a run with a message when a property fails.
///
/// libFuzzer (https://llvm.org/docs/LibFuzzer.html) calls `LLVMFuzzerTestOneInput(data, size)` with byte strings it
/// mutates to reach new code; a crash, a sanitizer report or an abort is a finding, saved as `crash-<sha1>`. The
/// targets decode the bytes with `ByteReader`, which never fails: past the end it yields zeros, so every byte string
/// is a valid input and the mutations are never wasted on a header that does not parse.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>

#include <unistd.h>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

namespace tumble::fuzz {

/// Prints `what` (and the file and line) to stderr and aborts: libFuzzer reports the abort as a crash and saves the
/// input that caused it.
[[noreturn]] inline void fail(const char* file, int line, const std::string& what) {
    std::fprintf(stderr, "%s:%d: fuzz check failed: %s\n", file, line, what.c_str());
    std::fflush(stderr);
    std::abort();
}

/// Checks a property of the code under test; on failure aborts with the expression and the message.
#define TUMBLE_FUZZ_CHECK(condition, message)                                                           \
    do {                                                                                                \
        if (!(condition)) ::tumble::fuzz::fail(__FILE__, __LINE__, std::string(#condition " -- ") + (message)); \
    } while (0)

/// Float values that break code written for ordinary ones: NaN, infinities, signed zeros, the smallest denormal and
/// normal floats, huge and tiny magnitudes, the largest float and values near 1.
inline constexpr float kSpecialFloats[] = {
    std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
    -std::numeric_limits<float>::infinity(), 0.0f, -0.0f, std::numeric_limits<float>::denorm_min(),
    -std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::min(), 1e-30f, 1e-7f, 1.0f, -1.0f,
    1.0f + 1.1920929e-7f, 0.99999994f, 1e7f, 1e30f, -1e30f, std::numeric_limits<float>::max(),
    -std::numeric_limits<float>::max(), 16777216.0f, 0.5f, 2.0f};

/// Reads the fuzzer's bytes front to back. Past the end every read returns zero bytes.
class ByteReader {
public:
    ByteReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}

    bool empty() const { return pos_ >= size_; }
    std::size_t remaining() const { return pos_ < size_ ? size_ - pos_ : 0; }

    std::uint8_t u8() { return pos_ < size_ ? data_[pos_++] : 0; }
    std::uint16_t u16() { return static_cast<std::uint16_t>(u8() | (u8() << 8)); }
    std::uint32_t u32() { return static_cast<std::uint32_t>(u16()) | (static_cast<std::uint32_t>(u16()) << 16); }
    std::uint64_t u64() { return static_cast<std::uint64_t>(u32()) | (static_cast<std::uint64_t>(u32()) << 32); }
    bool flag() { return (u8() & 1) != 0; }
    /// A number in [0, n) (n > 0).
    std::uint32_t below(std::uint32_t n) { return n <= 256 ? u8() % n : u32() % n; }

    /// Four bytes taken as the bit pattern of a float: every float, NaN payloads and denormals included.
    float raw_float() {
        const std::uint32_t bits = u32();
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return f;
    }
    /// A float in [-range, range] on a grid of range / 32768 (two bytes): shapes that meet, touch and nest often.
    float small_float(float range) { return static_cast<float>(static_cast<std::int16_t>(u16())) * (range / 32768.0f); }
    /// One of kSpecialFloats.
    float special_float() { return kSpecialFloats[below(sizeof kSpecialFloats / sizeof kSpecialFloats[0])]; }

    /// A float chosen by a leading byte: mostly small grid values (range metres), sometimes a special value or a
    /// raw bit pattern, so that the rejecting paths of a validator are reached without making every input invalid.
    float mixed_float(float range) {
        const std::uint8_t kind = u8();
        if (kind < 224) return small_float(range);
        if (kind < 240) return special_float();
        return raw_float();
    }
    glm::vec3 mixed_vec3(float range) {
        const float x = mixed_float(range), y = mixed_float(range), z = mixed_float(range);
        return {x, y, z};
    }
    /// A quaternion: usually a unit one (normalised from small floats, identity when they are all zero), sometimes
    /// four mixed floats as they come (not unit, NaN, ...).
    glm::quat quaternion() {
        if ((u8() & 7) != 0) {
            const float w = small_float(1.0f), x = small_float(1.0f), y = small_float(1.0f), z = small_float(1.0f);
            const glm::quat q(w, x, y, z);
            const float len = std::sqrt(w * w + x * x + y * y + z * z);
            return len > 1e-3f ? q / len : glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
        }
        const float w = mixed_float(2.0f), x = mixed_float(2.0f), y = mixed_float(2.0f), z = mixed_float(2.0f);
        return {w, x, y, z};
    }
    /// The rest of the bytes as text.
    std::string_view rest() {
        const std::string_view s(reinterpret_cast<const char*>(data_) + pos_, remaining());
        pos_ = size_;
        return s;
    }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t pos_ = 0;
};

/// True when every component is finite.
inline bool finite(const glm::vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

/// A file of this process's own in the temporary directory, for readers that take a path: rewritten by `write`.
class ScratchFile {
public:
    explicit ScratchFile(const std::string& suffix)
        : path_(std::filesystem::temp_directory_path() /
                ("tumble_fuzz_" + std::to_string(::getpid()) + suffix)) {}
    ~ScratchFile() {
        std::error_code ec;
        std::filesystem::remove(path_, ec);
    }
    ScratchFile(const ScratchFile&) = delete;
    ScratchFile& operator=(const ScratchFile&) = delete;

    /// Replaces the file's contents with `bytes`; aborts when it cannot (a broken machine, not a finding).
    const std::filesystem::path& write(std::string_view bytes) const {
        std::ofstream out(path_, std::ios::binary | std::ios::trunc);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        out.close();
        if (!out) fail(__FILE__, __LINE__, "cannot write the scratch file " + path_.string());
        return path_;
    }
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace tumble::fuzz
