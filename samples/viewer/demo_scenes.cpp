#include "demo_scenes.hpp"

#include <algorithm>
#include <cmath>

#include <glm/gtc/quaternion.hpp>

#include "drop_scene.hpp"

namespace tumble::viewer {
namespace {

namespace fs = std::filesystem;

// Files in `dir` whose name ends with `suffix` (and, when `skip` is not empty, does not end with `skip`), sorted.
std::vector<fs::path> files_in(const fs::path& dir, std::string_view suffix, std::string_view skip = {}) {
    std::vector<fs::path> out;
    std::error_code error;
    if (!fs::is_directory(dir, error)) return out;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, error)) {
        const std::string name = e.path().filename().string();
        const auto ends_with = [&](std::string_view end) {
            return !end.empty() && name.size() >= end.size() && name.compare(name.size() - end.size(), end.size(), end) == 0;
        };
        if (e.is_regular_file() && ends_with(suffix) && !ends_with(skip)) out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

SceneBox floor_box(const glm::vec3& half_extents) {
    SceneBox floor;
    floor.name = "floor";
    floor.def.position = {0.0f, -half_extents.y, 0.0f};
    floor.def.half_extents = half_extents;
    floor.def.mass = 0.0f;
    return floor;
}

std::string lower_extension(const fs::path& file) {
    std::string ext = file.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

}  // namespace

std::vector<Demo> demo_scenes(const fs::path& scenes_dir, const fs::path& levels_dir) {
    std::vector<Demo> demos;
    for (const fs::path& file : files_in(scenes_dir, ".json", ".golden.json"))
        demos.push_back({file.stem().string(), "regression scene " + file.filename().string(), [file] { return load_scene(file); }});
    demos.push_back({"pyramid", "a pyramid of 210 cubes, 20 at the bottom", [] { return pyramid_scene(20); }});
    demos.push_back({"dominoes", "40 dominoes along an S-curve, the first one pushed", [] { return domino_scene(40); }});
    for (const fs::path& file : files_in(levels_dir, ".obj"))
        demos.push_back({"level:" + file.stem().string(), "1,000 boxes dropped into the level " + file.filename().string(),
                         [file] { return level_scene(file, 1000); }});
    return demos;
}

const Demo* find_demo(const std::vector<Demo>& demos, std::string_view name) {
    const auto it = std::find_if(demos.begin(), demos.end(), [&](const Demo& d) { return d.name == name; });
    return it == demos.end() ? nullptr : &*it;
}

Scene open_scene(const fs::path& file, int boxes) {
    const std::string ext = lower_extension(file);
    if (ext == ".json") return load_scene(file);
    if (ext == ".obj") return level_scene(file, boxes);
    throw InvalidArgument(file.string() + ": expected a scene file (.json) or an OBJ level (.obj)");
}

Scene level_scene(const fs::path& obj, int boxes) {
    Scene scene;
    scene.file = obj;
    scene.description = std::to_string(boxes) + " boxes dropped into " + obj.filename().string();
    SceneMesh level;
    level.name = "level";
    level.obj = obj.filename().string();
    level.path = obj;
    level.mesh = load_obj(obj).mesh;
    samples::DropOptions options;
    options.boxes = boxes;
    for (const BodyDef& def : samples::spawn_boxes(level.mesh, options)) scene.boxes.push_back({std::string(), def});
    scene.meshes.push_back(std::move(level));
    return scene;
}

Scene pyramid_scene(int rows) {
    Scene scene;
    scene.file = "pyramid";
    scene.description = "a pyramid of 1 m cubes, " + std::to_string(rows) + " at the bottom";
    const float pitch = 1.05f;
    scene.boxes.push_back(floor_box({0.5f * pitch * static_cast<float>(rows) + 3.0f, 0.5f, 4.0f}));
    for (int row = 0; row < rows; ++row)
        for (int i = 0; i < rows - row; ++i) {
            SceneBox b;
            b.name = "row" + std::to_string(row) + "_" + std::to_string(i);
            b.def.position = {pitch * (static_cast<float>(i) - 0.5f * static_cast<float>(rows - row - 1)),
                              0.5f + static_cast<float>(row), 0.0f};
            b.def.half_extents = glm::vec3(0.5f);
            scene.boxes.push_back(b);
        }
    return scene;
}

Scene domino_scene(int count) {
    Scene scene;
    scene.file = "dominoes";
    scene.description = std::to_string(count) + " dominoes along an S-curve, the first one pushed";
    const float spacing = 0.7f;
    const float length = spacing * static_cast<float>(count);
    scene.boxes.push_back(floor_box({0.5f * length + 3.0f, 0.5f, 6.0f}));
    for (int i = 0; i < count; ++i) {
        // Along x, swinging in z: z = A sin(2 pi x / L); each domino faces along the curve.
        const float x = spacing * static_cast<float>(i) - 0.5f * length;
        const float k = 6.2831853f / length, amplitude = 3.0f;
        const float z = amplitude * std::sin(k * (x + 0.5f * length));
        const float slope = amplitude * k * std::cos(k * (x + 0.5f * length));
        SceneBox b;
        b.name = "domino" + std::to_string(i);
        b.def.position = {x, 0.5f, z};
        b.def.half_extents = {0.05f, 0.5f, 0.25f};
        b.def.orientation = glm::angleAxis(-std::atan(slope), glm::vec3(0.0f, 1.0f, 0.0f));
        if (i == 0) {
            // Turning about its bottom edge line: the top moves at 3 m/s along the run, the bottom stays.
            const glm::mat3 r = glm::mat3_cast(b.def.orientation);
            b.def.angular_velocity = r * glm::vec3(0.0f, 0.0f, -3.0f);
            b.def.velocity = r * glm::vec3(1.5f, 0.0f, 0.0f);
        }
        scene.boxes.push_back(b);
    }
    return scene;
}

Scene snapshot_scene(const World& world, const Scene& original, const SceneInstance& instance,
                     const WorldSettings& settings, float dt) {
    Scene scene;
    scene.file = original.file;
    scene.description = original.description;
    scene.settings = settings;
    scene.dt = dt;
    scene.meshes = original.meshes;
    world.for_each_body([&](BodyId id) {
        const BodyState b = world.body(id);
        if (b.kinematic || b.sensor) return;
        SceneBox box;
        const auto from = std::find(instance.bodies.begin(), instance.bodies.end(), id);
        if (from != instance.bodies.end()) box.name = original.boxes[static_cast<std::size_t>(from - instance.bodies.begin())].name;
        box.def.position = b.position;
        box.def.orientation = b.orientation;
        box.def.half_extents = b.half_extents;
        box.def.mass = b.mass;
        if (b.is_dynamic()) box.def.velocity = b.velocity;
        scene.boxes.push_back(std::move(box));
    });
    return scene;
}

Aabb scene_bounds(const Scene& scene) {
    Aabb box = Aabb::empty();
    for (const SceneBox& b : scene.boxes)
        box = box.merged(Obb{b.def.position, glm::mat3_cast(b.def.orientation), b.def.half_extents}.aabb());
    for (const SceneMesh& m : scene.meshes)
        for (const glm::vec3& v : m.mesh.vertices) box = box.merged(v);
    if (box.min.x > box.max.x) box = Aabb{glm::vec3(-1.0f), glm::vec3(1.0f)};
    return box;
}

}  // namespace tumble::viewer
