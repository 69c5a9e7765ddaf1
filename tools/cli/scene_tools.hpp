#pragma once
/// @file
/// What the `tumble` command does with a scene, as a library shared with the tests: run it and take snapshots of
/// the box states, hash them, record them as CSV or JSON Lines, write and read golden results, and compare a run
/// against a golden result within a tolerance.
///
/// Formats (documented in docs/scenes.md): a box state is its position (m, world), orientation (unit quaternion
/// w, x, y, z), velocity (m/s, world) and angular velocity (rad/s, world), as IEEE floats written with the shortest
/// decimal that reads back to the same float. Boxes are numbered by their index in the scene's "boxes" array (their creation order) and named by
/// Scene::box_label.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tumble/tumble.hpp>

#include "drop_scene.hpp"

namespace tumble::cli {

/// One box's state at a step (world frame, SI units).
struct BoxState {
    glm::vec3 position{0.0f};
    glm::quat orientation{1.0f, 0.0f, 0.0f, 0.0f};
    glm::vec3 velocity{0.0f};
    glm::vec3 angular_velocity{0.0f};  ///< rad/s, world frame
};

/// Every box of a scene at one step, in scene order.
struct Snapshot {
    int step = 0;
    std::vector<BoxState> boxes;
};

/// FNV-1a 64-bit hash of the bit patterns of every box's position, orientation (w, x, y, z), velocity and angular
/// velocity, in scene order: equal hashes mean bit-identical states (up to hash collisions).
std::uint64_t state_hash(const Snapshot& snapshot);

/// "0x" followed by 16 lower-case hex digits.
using samples::hex;

/// A scene loaded into a fresh World (built with the scene's settings), stepped with the scene's dt.
class SceneRun {
public:
    explicit SceneRun(const Scene& scene);
    /// Advances one step.
    void step();
    /// Steps until `step_count() == target` (no-op when already there or past it).
    void run_to(int target);
    int step_count() const { return step_; }
    Snapshot snapshot() const;
    const World& world() const { return world_; }
    const Scene& scene() const { return *scene_; }
    const SceneInstance& instance() const { return instance_; }

private:
    const Scene* scene_;
    World world_;
    SceneInstance instance_;
    int step_ = 0;
};

/// Total mechanical energy of the dynamic boxes of a snapshot in joules: sum of m |v|^2 / 2 + w . I w / 2 - m g . x
/// (translational and rotational kinetic energy, I the solid box's inertia in the world frame, plus potential energy
/// in the scene's uniform gravity g with its zero at the origin).
double mechanical_energy(const Scene& scene, const Snapshot& snapshot);

/// The same energy for box `index` of the snapshot alone, joules (0 for a static box). `index` must be below
/// snapshot.boxes.size(), which must match scene.boxes.
double body_energy(const Scene& scene, const Snapshot& snapshot, std::size_t index);

/// Writes box states to a CSV (".csv") or JSON Lines (".jsonl") file, chosen by the extension.
/// CSV columns: step,id,name,px,py,pz,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz (name empty for an unnamed box).
/// JSON Lines: {"step":S,"id":I,"name":N or null,"position":[x,y,z],"orientation":[w,x,y,z],"velocity":[x,y,z],
/// "angular_velocity":[x,y,z]}.
class Recorder {
public:
    /// Opens `path` for writing. Throws `InvalidArgument` for another extension, `FileError` when it cannot be
    /// created.
    Recorder(const std::filesystem::path& path, const Scene& scene);
    void write(const Snapshot& snapshot);
    /// Flushes and checks the stream; throws `FileError` when writing failed (disk full, ...).
    void close();
    std::size_t rows() const { return rows_; }

private:
    std::filesystem::path path_;
    const Scene* scene_;
    bool csv_;
    std::ofstream out_;
    std::size_t rows_ = 0;
};

/// A golden result: the states at chosen steps of one scene, and their hashes.
struct Golden {
    std::string scene;                 ///< file name of the scene it was blessed from (informative)
    float dt = 0.0f;                   ///< the scene's dt when blessed (informative)
    std::vector<std::string> labels;   ///< box labels, in scene order
    std::vector<Snapshot> checkpoints; ///< in increasing step order
    std::vector<std::uint64_t> hashes; ///< state_hash of each checkpoint
};

/// Runs `scene` to its last checkpoint and returns the golden result of it. `progress(step, total)` is called
/// after every step when set.
Golden bless(const Scene& scene, const std::function<void(int, int)>& progress = {});

/// Writes a golden file (JSON, one box state per line so that diffs are readable). Throws `FileError`.
void write_golden(const std::filesystem::path& path, const Golden& golden);
/// Reads a golden file (version 2; version 1, written before bodies turned, has no angular velocities, which read as
/// 0). Throws `FileError` naming the file and what is wrong (with the JSON path) when it is missing, malformed or
/// incomplete. The hashes are read as written, not recomputed: a golden edited by hand keeps its old hashes, and
/// `check` compares states, not hashes.
Golden read_golden(const std::filesystem::path& path);
/// As read_golden, from text already in memory; `origin` names the file in messages. Throws `FileError`.
Golden parse_golden(std::string_view text, const std::filesystem::path& origin);

/// How far apart two states of a box are.
struct StateDistance {
    double position = 0.0;          ///< |p_a - p_b|, metres
    double orientation = 0.0;       ///< angle of the rotation between the two orientations, radians
    double velocity = 0.0;          ///< |v_a - v_b|, metres per second
    double angular_velocity = 0.0;  ///< |w_a - w_b|, radians per second
};
StateDistance distance(const BoxState& a, const BoxState& b);

/// Tolerances of a check: `position` in metres, `orientation` in radians, `velocity` in m/s, `angular_velocity` in
/// rad/s.
struct Tolerance {
    double position = 1e-5;
    double orientation = 1e-5;
    double velocity = 1e-5 * 60.0;
    double angular_velocity = 1e-5 * 60.0;
    /// T metres and T radians, and T / dt for velocities and angular velocities (a velocity is a displacement per
    /// step over dt, so a position difference of T gives a velocity difference of T / dt).
    static Tolerance from(double t, float dt);
};

/// The result of comparing a run with a golden result.
struct CheckResult {
    bool passed = false;
    bool bit_identical = false;      ///< every checkpoint hash equal
    std::string problem;             ///< set when the scene and the golden do not describe the same boxes
    // The first difference beyond the tolerance (checkpoint order, then box order), when !passed and problem empty.
    int step = 0;
    std::size_t box = 0;
    BoxState expected, actual;
    StateDistance off;
    // Totals over all checkpoints.
    std::size_t states_compared = 0;
    std::size_t states_different = 0;  ///< beyond the tolerance
    StateDistance largest;             ///< largest distances seen (each over all states)
    std::vector<Snapshot> actual_checkpoints;
};

/// Runs `scene` to the golden's last checkpoint and compares every checkpoint. `progress` as for bless.
CheckResult check(const Scene& scene, const Golden& golden, const Tolerance& tolerance,
                  const std::function<void(int, int)>& progress = {});

/// Whether a check passes: every state within the tolerance and, with `require_bits` (`tumble check
/// --bit-identical`), every checkpoint bit-identical.
bool passes(const CheckResult& r, bool require_bits);

/// The human-readable report of a check: PASSED or FAILED, and for a failure the first step and box that differ,
/// the expected and actual values, how far apart they are and how many other states differ. `require_bits`
/// (`tumble check --bit-identical`): a run within the tolerance that is not bit-identical is reported FAILED too,
/// with its largest differences.
std::string format_report(const Scene& scene, const Golden& golden, const Tolerance& tolerance, const CheckResult& r,
                          bool require_bits = false);

/// Shortest decimal that reads back to exactly `v` as a float; "-0.0" for a negative zero ("-0" reads as +0 in JSON).
std::string shortest(float v);

/// Writes `scene` as a scene file (docs/scenes.md) that load_scene reads back to the same boxes, meshes and
/// settings: numbers as the shortest decimals that read back to the same floats, one box per line, and world and
/// run keys only where they differ from the format's defaults. Mesh paths are written relative to the folder of
/// `path`, from SceneMesh::path (SceneMesh::obj when that is empty). What the format has no key for is left out: a
/// box's CCD, sensor and kinematic flags and layers, and the world's sleep, threads and solver tolerance settings.
/// Throws FileError naming `path` when it cannot be written.
void write_scene(const std::filesystem::path& path, const Scene& scene);

}  // namespace tumble::cli
