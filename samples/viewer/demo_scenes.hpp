#pragma once
/// @file
/// What the viewer can open and save: scene files (tumble::load_scene, docs/scenes.md), OBJ levels with boxes dropped into
/// them as tumble-drop does, and the built-in demo list of the Scene menu. Everything becomes a tumble::Scene, so
/// one code path (tumble::add_scene) builds every world and "reset" rebuilds it from the same description.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <tumble/tumble.hpp>

namespace tumble::viewer {

/// A scene of the demo menu.
struct Demo {
    std::string name;         ///< unique; the menu label and the name `--demo` and the script's `scene` take
    std::string description;  ///< one line for the menu's tooltip
    std::function<Scene()> build;  ///< builds the scene; throws tumble::Error (FileError for a missing file)
};

/// The demo list: every regression scene `*.json` in `scenes_dir` except golden results (named by file stem, in
/// name order), a pyramid, a domino run, and 1,000 boxes dropped into each OBJ level in `levels_dir` (named
/// "level:STEM", in name order). A folder that does not exist contributes nothing.
std::vector<Demo> demo_scenes(const std::filesystem::path& scenes_dir, const std::filesystem::path& levels_dir);

/// The demo named `name`, or nullptr.
const Demo* find_demo(const std::vector<Demo>& demos, std::string_view name);

/// Opens `file` by its extension: ".json" is a scene file (tumble::load_scene), ".obj" a level into which
/// `boxes` boxes are dropped (level_scene). Throws FileError naming the file when it is missing or malformed, and
/// InvalidArgument for another extension.
Scene open_scene(const std::filesystem::path& file, int boxes = 1000);

/// The OBJ level `obj` as a static mesh with `boxes` dynamic boxes spawned above its floors exactly as tumble-drop
/// spawns them (samples::spawn_boxes, seed 1: random sizes of 0.2-1 m and orientations, 1-4 m above the floor).
/// Throws FileError for a missing or malformed OBJ, Error when the boxes do not fit.
Scene level_scene(const std::filesystem::path& obj, int boxes = 1000);

/// A pyramid of 1 m cubes, `rows` at the bottom down to 1 at the top, 5 cm apart, on a static floor.
Scene pyramid_scene(int rows = 20);

/// `count` dominoes (0.1 x 1 x 0.5 m) standing 0.7 m apart along a gentle S-curve on a static floor, the first one
/// pushed along the run at 3 m/s near its top, so that it topples into the next.
Scene domino_scene(int count = 40);

/// The world as it is now, as a scene: every body that the scene format can hold (not kinematic bodies or
/// sensors) at its current position, orientation and velocity, named as in `original` when `instance` says it came
/// from there; `original`'s meshes, settings replaced by `settings` and its step by `dt` seconds. For saving with
/// cli::write_scene, so that what the viewer shows can be replayed (tumble run, tumble-viewer FILE).
Scene snapshot_scene(const World& world, const Scene& original, const SceneInstance& instance,
                     const WorldSettings& settings, float dt);

/// The bounds of everything in a scene as written (boxes and meshes, world frame); an empty scene gives a 2 m cube
/// at the origin.
Aabb scene_bounds(const Scene& scene);

}  // namespace tumble::viewer
