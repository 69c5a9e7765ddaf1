#pragma once
/// @file
/// Scene files: a world's settings, its boxes and its static meshes in a versioned JSON format, for headless
/// regression runs (the `tumble` command) and for programs that keep their test setups as data.
///
/// The format is documented key by key in docs/scenes.md. In short (version 2):
///
///     {"version": 2,
///      "world": {"gravity": [0, -9.81, 0], "dt": 0.016666668, "substeps": 8, "iterations": 1,
///                "restitution_threshold": 1, "slop": 0.001, "broadphase_margin": 0.02},
///      "run": {"steps": 600, "checkpoints": [60, 600]},
///      "boxes": [{"name": "floor", "position": [0, -0.5, 0], "half_extents": [5, 0.5, 5], "static": true},
///                {"position": [0, 1, 0], "half_extents": [0.5, 0.5, 0.5],
///                 "orientation": {"euler_degrees": [0, 30, 0], "order": "XYZ"}, "mass": 2,
///                 "angular_velocity": [0, 1, 0], "friction": 0.6, "restitution": 0.2, "fixed_rotation": false}],
///      "meshes": [{"obj": "../data/oa_dm1.obj", "material": {"friction": 0.6, "restitution": 0},
///                  "transform": {"translation": [0, 0, 0], "orientation": {"quaternion": [1, 0, 0, 0]},
///                                "scale": 1}}]}
///
/// Version 1 files still load: their `solver_iterations` become `substeps` (with the default `iterations`) and the static
/// coefficient of their world `friction` becomes every box's and mesh's friction (the dynamic one is dropped: a body
/// has one Coulomb coefficient now).
///
/// All vectors are world frame, SI units (metres, seconds, kilograms); Euler angles are in degrees. Numbers are read
/// as IEEE single precision (the engine's precision), so a value written with the shortest decimal that round-trips
/// a float reads back to exactly that float.

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include <tumble/engine/mesh.hpp>
#include <tumble/engine/world.hpp>

namespace tumble {

/// The newest scene format version this build reads (the file's "version" key); it reads every version from 1.
inline constexpr int kSceneFormatVersion = 2;

/// A box of a scene. `def.mass` is 0 for a static box ("static": true in the file).
struct SceneBox {
    std::string name;  ///< unique within the scene, or empty for an unnamed box
    /// World frame. The orientation is the file's quaternion as written (World::create_body normalises it), or
    /// the unit quaternion of the file's Euler angles.
    BodyDef def;
};

/// A static triangle mesh of a scene: an OBJ file placed in the world by a similarity transform
/// x_world = translation + rotate(orientation, scale * x_file).
struct SceneMesh {
    std::string name;                                ///< may be empty
    std::string obj;                                 ///< the path as written in the file (relative to the scene)
    std::filesystem::path path;                      ///< the path it resolved to
    glm::vec3 translation{0.0f};                     ///< metres
    glm::quat orientation{1.0f, 0.0f, 0.0f, 0.0f};   ///< unit quaternion (w, x, y, z)
    float scale = 1.0f;                              ///< uniform, > 0
    bool drop_degenerate = false;                    ///< degenerate triangles removed instead of rejected
    MeshMaterial material;                           ///< friction and restitution of its triangles
    TriangleMesh mesh;                               ///< the transformed triangles, world frame, validated
};

/// A loaded scene. Everything in it has been validated: `add_scene` cannot fail on it.
struct Scene {
    std::filesystem::path file;  ///< where it was read from (the origin given to parse_scene)
    int version = kSceneFormatVersion;
    std::string description;
    WorldSettings settings;      ///< gravity, substeps and the other solver settings, broadphase margin
    float dt = 1.0f / 60.0f;     ///< seconds per step, > 0
    int steps = 60;              ///< default length of a run, in steps (>= 0)
    /// Steps at which a golden result records the states: strictly increasing, within [0, steps], and always
    /// ending with `steps` (added when the file does not list it).
    std::vector<int> checkpoints{60};
    std::vector<SceneBox> boxes;    ///< in file order; that is also the creation order of the bodies
    std::vector<SceneMesh> meshes;  ///< in file order

    /// How outputs name box `i`: its name, or "#i" (its zero-based index in "boxes") when it has none.
    std::string box_label(std::size_t i) const;
};

/// Reads a scene file. Relative mesh paths are resolved against the scene file's folder.
///
/// Throws `FileError` with a message "FILE:LINE:COLUMN: PATH: what was expected, what was found" (PATH is the
/// JSON path of the bad value, e.g. `boxes[3].half_extents[1]`) when the file cannot be read, is not well-formed
/// JSON, has a key it does not know or a key twice, a value of the wrong type, a number that is not finite in single
/// precision (such as 1e999 or 1e39), a value out of its range (a negative half extent, a non-positive mass, dt or
/// scale, a quaternion whose length differs from 1 by more than 1e-3, unknown Euler order, a checkpoint outside
/// the run), a duplicate box name, an unsupported version, or a mesh file that is missing or malformed (the OBJ
/// error is included). LINE and COLUMN count from 1; the column counts bytes. Nothing is returned half-loaded.
Scene load_scene(const std::filesystem::path& file);

/// As load_scene, from text already in memory. `origin` names the file in messages and is the base of relative mesh
/// paths (its folder); it need not exist when the scene has no meshes.
Scene parse_scene(std::string_view json_text, const std::filesystem::path& origin);

/// The bodies and meshes a scene created in a world, in the scene's file order.
struct SceneInstance {
    std::vector<BodyId> bodies;  ///< bodies[i] is scene.boxes[i]
    std::vector<MeshId> meshes;  ///< meshes[i] is scene.meshes[i]
};

/// Adds the scene's meshes (first, in file order) and boxes (in file order) to `world`. Does not change the world's
/// settings: construct the world with `World(scene.settings)` to run the scene as written. If the world rejects
/// anything (only possible for a Scene built or edited by hand), everything added so far is removed again and the
/// exception is rethrown, so the world is left as it was.
SceneInstance add_scene(World& world, const Scene& scene);

/// Rotation given as Euler angles in degrees about the world (extrinsic) axes named by `order`, applied in that
/// order: order "XYZ" with angles (a, b, c) rotates by a about X, then by b about Y, then by c about Z, so
/// q = qZ(c) * qY(b) * qX(a) (equivalently intrinsic Z, Y', X'' rotations). `order` is a permutation of "XYZ".
/// Computed in double precision, rounded to float once. Throws `InvalidArgument` for another order or a non-finite
/// angle.
glm::quat euler_degrees_to_quat(const glm::dvec3& angles_degrees, std::string_view order);

}  // namespace tumble
