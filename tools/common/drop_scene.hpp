#pragma once
/// @file
/// Scene building shared by tumble-drop, tumble-viewer, the `tumble` command, the tests and the benchmarks (the
/// tools' library tumble_tools_common): boxes of random size and orientation spawned above the floors of a real
/// level, inside its playable area and touching nothing.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <tumble/tumble.hpp>

namespace tumble::samples {

/// Small, fast, platform-independent random numbers (splitmix64), so that a seed gives the same scene with every
/// standard library.
class Rng {
public:
    explicit Rng(std::uint64_t seed) : state_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, 1).
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    float uniform(float lo, float hi) { return lo + (hi - lo) * static_cast<float>(uniform()); }
    /// Uniformly distributed rotation (Shoemake, "Uniform random rotations", Graphics Gems III, 1992).
    glm::quat rotation();

private:
    std::uint64_t state_;
};

/// How to spawn boxes above a level's floors.
struct DropOptions {
    int boxes = 1000;
    std::uint64_t seed = 1;
    float min_half_extent = 0.1f;  ///< metres
    float max_half_extent = 0.5f;  ///< metres
    float min_height = 1.0f;       ///< metres of the box centre above the floor point
    float max_height = 4.0f;
    float min_floor_normal_y = 0.7f;  ///< a floor faces up within ~45 degrees
    int max_attempts_per_box = 400;
    bool sleep = true;  ///< WorldSettings::sleep.enabled of the world run_drop steps
    int threads = 1;    ///< WorldSettings::threads of the world run_drop steps (results identical for any count)
};

/// Spawns `options.boxes` dynamic boxes (mass 1 kg, zero velocity) above upward-facing floor triangles of `level`
/// (picked with probability proportional to area), each 1-4 m above its floor point, touching no triangle and no
/// other box, and inside the playable area: every one of 8 horizontal rays from the centre must hit the front of a
/// level triangle (the levels have no outer hull, so a point outside the level sees back faces or nothing), and the
/// space straight above the floor point must be clear up to the box. Deterministic for a given seed.
/// Throws `tumble::Error` when the boxes cannot be placed within the attempt budget.
std::vector<BodyDef> spawn_boxes(const TriangleMesh& level, const DropOptions& options);

/// What a drop run measured (the fields of tumble-drop's JSON line).
struct DropResult {
    std::string level;             ///< file name of the level
    std::size_t triangles = 0;
    int boxes = 0;
    int steps = 0;
    double ms_per_step = 0.0;      ///< mean wall time of World::step, milliseconds
    int fell_through = 0;          ///< boxes whose centre ended below the level's lowest vertex
    float max_penetration = 0.0f;  ///< largest contact depth after the last step, metres
    int resting = 0;               ///< boxes whose fastest point moves slower than 0.05 m/s at the end
    std::uint64_t state_hash = 0;  ///< state_hash() of the final world
    double mean_tilt_deg = 0.0;    ///< mean over the resting boxes of tilt_degrees(orientation), degrees
    double energy_J = 0.0;         ///< total kinetic energy of the boxes at the end (translation and rotation), joules
};

/// Angle in degrees between the vertical (+Y) and the box axis nearest to it, for a box of orientation
/// `orientation`: 0 for a box resting on a face on level ground, up to 54.7 for one balanced on a corner.
double tilt_degrees(const glm::quat& orientation);

/// Loads `level`, spawns boxes with `options` and steps the world `steps` times by `dt` seconds. `progress`, when
/// set, is called after every step with the step count and the mean milliseconds per step so far.
/// Throws `tumble::Error` (FileError for the level, Error when the boxes cannot be placed).
DropResult run_drop(const std::filesystem::path& level, const DropOptions& options, int steps, float dt,
                    const std::function<void(int, double, const World&)>& progress = {});

/// FNV-1a 64-bit hash (Fowler, Noll, Vo) fed with the bit patterns of floats, byte by byte from the least
/// significant: equal values mean bit-identical inputs (up to collisions).
class FloatHash {
public:
    void feed(float v);
    /// One body's state in the order every state hash uses: position (m), orientation (w, x, y, z), velocity (m/s),
    /// angular velocity (rad/s, world frame).
    void feed_body(const glm::vec3& position, const glm::quat& orientation, const glm::vec3& velocity,
                   const glm::vec3& angular_velocity);
    std::uint64_t value() const { return h_; }

private:
    std::uint64_t h_ = 0xcbf29ce484222325ull;
};

/// FNV-1a 64-bit hash of the bit patterns of every live body's position, orientation (w, x, y, z), velocity and
/// angular velocity, in slot order: equal hashes mean bit-identical states (up to collisions).
std::uint64_t state_hash(const World& world);

/// "0x" followed by 16 hex digits.
std::string hex(std::uint64_t value);

}  // namespace tumble::samples
