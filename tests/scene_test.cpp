// Scene files: what a valid file gives, Euler angles against hand-worked rotations, and every kind of bad input
// with the file, line, column and JSON path it must name.

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include <tumble/tumble.hpp>

#include "support/test_util.hpp"

namespace {

namespace fs = std::filesystem;
using tumble::Scene;

const fs::path kSource = TUMBLE_SOURCE_DIR;

// A scratch folder per test, removed afterwards.
class SceneFiles : public ::testing::Test {
protected:
    void SetUp() override {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir_ = fs::path(::testing::TempDir()) / (std::string("tumble_scene_") + info->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path write(const std::string& name, const std::string& text) {
        const fs::path p = dir_ / name;
        fs::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << text;
        return p;
    }
    // The FileError message of loading `text`, or "" when it loads.
    std::string error_of(const std::string& text, const std::string& name = "scene.json") {
        const fs::path p = write(name, text);
        try {
            tumble::load_scene(p);
        } catch (const tumble::FileError& e) {
            return e.what();
        }
        return "";
    }
    fs::path dir_;
};

const char* kFull = R"({
  "version": 1,
  "description": "every key",
  "world": {"gravity": [0.5, -9.81, 0], "dt": 0.01, "solver_iterations": 12,
            "friction": {"static": 0.7, "dynamic": 0.3}, "broadphase_margin": 0.05},
  "run": {"steps": 300, "checkpoints": [0, 100]},
  "boxes": [
    {"name": "floor", "position": [0, -0.5, 0], "half_extents": [5, 0.5, 5], "static": true},
    {"position": [1, 2, 3], "half_extents": [0.1, 0.2, 0.3], "velocity": [4, 5, 6], "mass": 2.5,
     "orientation": {"quaternion": [0, 1, 0, 0]}},
    {"name": "turned", "position": [0, 1, 0], "half_extents": [0.5, 0.5, 0.5],
     "orientation": {"euler_degrees": [0, 90, 0], "order": "XYZ"}}
  ],
  "meshes": [
    {"name": "ramp", "obj": "data/ramp.obj",
     "transform": {"translation": [10, 0, 0], "orientation": {"euler_degrees": [90, 0, 0], "order": "ZYX"}, "scale": 2}}
  ]
})";

const char* kRampObj = "v 0 0 0\nv 1 0 0\nv 0 0 -1\nf 1 2 3\n";

TEST_F(SceneFiles, EveryKeyIsRead) {
    write("data/ramp.obj", kRampObj);
    const Scene s = tumble::load_scene(write("scene.json", kFull));
    EXPECT_EQ(s.version, 1);
    EXPECT_EQ(s.description, "every key");
    EXPECT_EQ(s.settings.gravity, glm::vec3(0.5f, -9.81f, 0.0f));
    EXPECT_EQ(s.dt, 0.01f);
    // Version 1's position passes become substeps (the default count of iterations kept) and
    // its static friction becomes every box's and mesh's friction; its dynamic coefficient is dropped.
    EXPECT_EQ(s.settings.solver.substeps, 12);
    EXPECT_EQ(s.settings.solver.iterations, tumble::SolverSettings{}.iterations);
    for (const tumble::SceneBox& b : s.boxes) EXPECT_EQ(b.def.friction, 0.7f);
    EXPECT_EQ(s.settings.broadphase_margin, 0.05f);
    EXPECT_EQ(s.steps, 300);
    EXPECT_EQ(s.checkpoints, (std::vector<int>{0, 100, 300}));  // the last step is always a checkpoint

    ASSERT_EQ(s.boxes.size(), 3u);
    EXPECT_EQ(s.boxes[0].name, "floor");
    EXPECT_EQ(s.boxes[0].def.mass, 0.0f);
    EXPECT_EQ(s.boxes[0].def.half_extents, glm::vec3(5, 0.5f, 5));
    EXPECT_EQ(s.boxes[1].name, "");
    EXPECT_EQ(s.boxes[1].def.position, glm::vec3(1, 2, 3));
    EXPECT_EQ(s.boxes[1].def.velocity, glm::vec3(4, 5, 6));
    EXPECT_EQ(s.boxes[1].def.mass, 2.5f);
    EXPECT_EQ(s.boxes[1].def.orientation, glm::quat(0, 1, 0, 0));
    EXPECT_EQ(s.boxes[2].def.mass, 1.0f);  // default mass
    EXPECT_EQ(s.box_label(0), "floor");
    EXPECT_EQ(s.box_label(1), "#1");
    // 90 degrees about Y: x -> -z.
    const glm::vec3 x = s.boxes[2].def.orientation * glm::vec3(1, 0, 0);
    EXPECT_NEAR(x.x, 0.0f, 1e-7f);
    EXPECT_NEAR(x.z, -1.0f, 1e-7f);

    ASSERT_EQ(s.meshes.size(), 1u);
    const tumble::SceneMesh& m = s.meshes[0];
    EXPECT_EQ(m.name, "ramp");
    EXPECT_EQ(m.material.friction, 0.7f);
    EXPECT_EQ(m.material.restitution, 0.0f);
    EXPECT_EQ(m.path, dir_ / "data/ramp.obj");  // relative to the scene file, not to the working directory
    ASSERT_EQ(m.mesh.triangle_count(), 1u);
    // x_world = t + R (s x): (1,0,0) scaled to (2,0,0), turned 90 degrees about Z to (0,2,0), moved to (10,2,0).
    const glm::vec3 v1 = m.mesh.vertices[1];
    EXPECT_NEAR(v1.x, 10.0f, 1e-6f);
    EXPECT_NEAR(v1.y, 2.0f, 1e-6f);
    EXPECT_NEAR(v1.z, 0.0f, 1e-6f);
    const glm::vec3 v2 = m.mesh.vertices[2];
    EXPECT_NEAR(v2.x, 10.0f, 1e-6f);
    EXPECT_NEAR(v2.y, 0.0f, 1e-6f);
    EXPECT_EQ(v2.z, -2.0f);
}

TEST_F(SceneFiles, DefaultsAreTheEngineDefaults) {
    for (const char* text : {R"({"version": 1})", R"({"version": 2})"}) {
        const Scene s = tumble::parse_scene(text, dir_ / "empty.json");
        const tumble::WorldSettings defaults;
        EXPECT_EQ(s.settings.gravity, defaults.gravity);
        EXPECT_EQ(s.settings.solver.substeps, defaults.solver.substeps);
        EXPECT_EQ(s.settings.solver.iterations, defaults.solver.iterations);
        EXPECT_EQ(s.settings.solver.restitution_threshold, defaults.solver.restitution_threshold);
        EXPECT_EQ(s.settings.solver.slop, defaults.solver.slop);
        EXPECT_EQ(s.settings.broadphase_margin, defaults.broadphase_margin);
        EXPECT_EQ(s.dt, 1.0f / 60.0f);
        EXPECT_EQ(s.steps, 60);
        EXPECT_EQ(s.checkpoints, std::vector<int>{60});
        EXPECT_TRUE(s.boxes.empty());
    }
    // A box's defaults are BodyDef's.
    const Scene b = tumble::parse_scene(R"({"version": 2, "boxes": [{"position": [0, 1, 0], "half_extents": [1, 1, 1]}]})",
                                        dir_ / "b.json");
    const tumble::BodyDef def;
    ASSERT_EQ(b.boxes.size(), 1u);
    EXPECT_EQ(b.boxes[0].def.friction, def.friction);
    EXPECT_EQ(b.boxes[0].def.restitution, def.restitution);
    EXPECT_EQ(b.boxes[0].def.fixed_rotation, def.fixed_rotation);
    EXPECT_EQ(b.boxes[0].def.angular_velocity, def.angular_velocity);
    // Version 1: a single friction number is the static coefficient, given to every box.
    const Scene f = tumble::parse_scene(R"({"version": 1, "world": {"friction": 0}, "boxes": [{"position": [0, 1, 0], "half_extents": [1, 1, 1]}]})",
                                        dir_ / "f.json");
    EXPECT_EQ(f.boxes[0].def.friction, 0.0f);
}

TEST_F(SceneFiles, VersionTwoReadsTheRigidBodyKeys) {
    write("data/ramp.obj", kRampObj);
    const Scene s = tumble::load_scene(write("v2.json", R"({
  "version": 2,
  "world": {"gravity": [0, -9.81, 0], "dt": 0.01, "substeps": 12, "iterations": 3, "restitution_threshold": 0.5,
            "slop": 0.002, "broadphase_margin": 0.03},
  "boxes": [
    {"name": "floor", "position": [0, -0.5, 0], "half_extents": [5, 0.5, 5], "static": true, "friction": 0.9,
     "restitution": 0.1},
    {"position": [0, 2, 0], "half_extents": [0.5, 0.5, 0.5], "velocity": [1, 0, 0], "angular_velocity": [0, 3, 0],
     "friction": 0.25, "restitution": 0.75, "fixed_rotation": true, "mass": 4}
  ],
  "meshes": [{"obj": "data/ramp.obj", "material": {"friction": 0.4, "restitution": 0.5}}]
})"));
    EXPECT_EQ(s.version, 2);
    EXPECT_EQ(s.settings.solver.substeps, 12);
    EXPECT_EQ(s.settings.solver.iterations, 3);
    EXPECT_EQ(s.settings.solver.restitution_threshold, 0.5f);
    EXPECT_EQ(s.settings.solver.slop, 0.002f);
    EXPECT_EQ(s.settings.broadphase_margin, 0.03f);
    ASSERT_EQ(s.boxes.size(), 2u);
    EXPECT_EQ(s.boxes[0].def.friction, 0.9f);
    EXPECT_EQ(s.boxes[0].def.restitution, 0.1f);
    EXPECT_EQ(s.boxes[1].def.angular_velocity, glm::vec3(0, 3, 0));
    EXPECT_EQ(s.boxes[1].def.friction, 0.25f);
    EXPECT_EQ(s.boxes[1].def.restitution, 0.75f);
    EXPECT_TRUE(s.boxes[1].def.fixed_rotation);
    ASSERT_EQ(s.meshes.size(), 1u);
    EXPECT_EQ(s.meshes[0].material.friction, 0.4f);
    EXPECT_EQ(s.meshes[0].material.restitution, 0.5f);
    // add_scene passes the materials on.
    tumble::World w(s.settings);
    const tumble::SceneInstance ids = tumble::add_scene(w, s);
    EXPECT_EQ(w.body(ids.bodies[1]).restitution, 0.75f);
    EXPECT_EQ(w.mesh_material(ids.meshes[0]).restitution, 0.5f);
}

TEST_F(SceneFiles, NumbersAreReadAsTheNearestFloat) {
    // 0.1 and 1/60 written with any number of digits give the float nearest to them, exactly as a C++ literal would.
    const Scene s = tumble::parse_scene(
        R"({"version": 1, "world": {"dt": 0.016666666666666666}, "boxes": [{"position": [0.1, 3.14159265358979, -1e-30], "half_extents": [0.30000001192092896, 1, 1]}]})",
        dir_ / "n.json");
    EXPECT_EQ(s.dt, 1.0f / 60.0f);
    EXPECT_EQ(s.boxes[0].def.position.x, 0.1f);
    EXPECT_EQ(s.boxes[0].def.position.y, 3.14159265358979f);
    EXPECT_EQ(s.boxes[0].def.half_extents.x, 0.3f);
}

// Euler angles against rotation matrices built independently (Rodrigues' formula in double, tests/support).
TEST(EulerAngles, MatchTheProductOfAxisRotationsInTheStatedOrder) {
    testutil::Random rng(7);
    const char* orders[] = {"XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"};
    int checked = 0;
    for (const char* order : orders) {
        for (int trial = 0; trial < 200; ++trial) {
            const glm::dvec3 deg(rng.uniform(-360, 360), rng.uniform(-360, 360), rng.uniform(-360, 360));
            // Extrinsic: the first-named rotation applies first, so it is the rightmost factor.
            glm::mat3 expected(1.0f);
            for (int k = 0; k < 3; ++k) {
                glm::dvec3 axis(0.0);
                axis[order[k] - 'X'] = 1.0;
                expected = testutil::rotation_about(axis, deg[k] * 3.14159265358979323846 / 180.0) * expected;
            }
            const glm::mat3 got = glm::mat3_cast(tumble::euler_degrees_to_quat(deg, order));
            for (int c = 0; c < 3; ++c)
                for (int r = 0; r < 3; ++r) ASSERT_NEAR(got[c][r], expected[c][r], 2e-6f) << order << " trial " << trial;
            ++checked;
        }
    }
    EXPECT_EQ(checked, 1200);
}

TEST(EulerAngles, HandWorkedCases) {
    auto apply = [](glm::dvec3 deg, const char* order, glm::vec3 v) { return tumble::euler_degrees_to_quat(deg, order) * v; };
    // XYZ (90, 90, 0): X turns +Y to +Z, then Y turns +Z to +X.
    glm::vec3 r = apply({90, 90, 0}, "XYZ", {0, 1, 0});
    EXPECT_NEAR(r.x, 1.0f, 1e-6f);
    EXPECT_NEAR(r.y, 0.0f, 1e-6f);
    EXPECT_NEAR(r.z, 0.0f, 1e-6f);
    // YXZ pairs the first angle with Y: (90, 90, 0) turns +Y by Y (no change), then by X to +Z.
    r = apply({90, 90, 0}, "YXZ", {0, 1, 0});
    EXPECT_NEAR(r.z, 1.0f, 1e-6f);
    // A quarter turn about Z takes +X to +Y (right-handed).
    r = apply({0, 0, 90}, "XYZ", {1, 0, 0});
    EXPECT_NEAR(r.y, 1.0f, 1e-6f);
    EXPECT_THROW(tumble::euler_degrees_to_quat({0, 0, 0}, "XXY"), tumble::InvalidArgument);
    EXPECT_THROW(tumble::euler_degrees_to_quat({0, 0, 0}, "xyz"), tumble::InvalidArgument);
}

// Every bad input: the message names the file, line:column, the JSON path and what was expected.
TEST_F(SceneFiles, BadInputIsRejectedWithFileLineColumnAndPath) {
    struct Case {
        const char* text;
        const char* needle;  // must appear in the message after "scene.json:"
    };
    const Case cases[] = {
        // malformed JSON: the parser's position
        {"{\"version\": 1,\n \"boxes\": [\n ]]}", "scene.json:3:3: malformed JSON: syntax error"},
        {"", "scene.json:1:1: malformed JSON"},
        {"{\"version\": 1, \"boxes\": [{\"position\": [0,0,0] \"half_extents\": [1,1,1]}]}",
         "scene.json:1:60: malformed JSON: syntax error while parsing object - unexpected string literal"},
        // numbers outside float range (JSON has no NaN literal; these overflow to infinity)
        {"{\"version\": 1,\n \"world\": {\"gravity\": [0, 1e999, 0]}}",
         "scene.json:2:27: world.gravity[1]: the number 1e999 is outside the single-precision range"},
        {"{\"version\": 1, \"world\": {\"dt\": -1e39}}", "scene.json:1:32: world.dt: the number -1e39"},
        {"{\"version\": 1, \"world\": {\"dt\": NaN}}", "malformed JSON"},
        // unknown and duplicate keys
        {"{\"version\": 1,\n \"boxes\": [{\"position\": [0,0,0], \"half_extents\": [1,1,1],\n  \"colour\": \"red\"}]}",
         "scene.json:3:3: boxes[0].colour: unknown key 'colour' (expected one of: name, position"},
        {"{\"version\": 1, \"wrld\": {}}", "scene.json:1:16: wrld: unknown key 'wrld'"},
        {"{\"version\": 1, \"world\": {\"dt\": 0.1, \"dt\": 0.2}}",
         "scene.json:1:37: world.dt: the key 'dt' appears twice"},
        // wrong types
        {"{\"version\": 1, \"boxes\": [{\"position\": [0,0], \"half_extents\": [1,1,1]}]}",
         "scene.json:1:39: boxes[0].position: expected an array of 3 numbers (metres), got an array of 2"},
        {"{\"version\": 1, \"boxes\": [{\"position\": [0,\"1\",0], \"half_extents\": [1,1,1]}]}",
         "scene.json:1:42: boxes[0].position[1]: expected a number, got the string \"1\""},
        {"{\"version\": 1, \"boxes\": {}}", "scene.json:1:25: boxes: expected an array, got an object"},
        {"{\"version\": 1, \"world\": {\"solver_iterations\": 8.5}}",
         "world.solver_iterations: expected an integer, got 8.5"},
        {"{\"version\": 1, \"boxes\": [{\"position\": [0,0,0], \"half_extents\": [1,1,1], \"static\": 1}]}",
         "boxes[0].static: expected true or false, got 1"},
        {"[1, 2]", "scene.json:1:1: the scene: expected an object, got an array of 2"},
        // values out of range
        {"{\"version\": 1, \"boxes\": [{\"position\": [0,0,0],\n \"half_extents\": [1, -0.5, 1]}]}",
         "scene.json:2:22: boxes[0].half_extents[1]: expected a half extent >= 0 (metres), got -0.5"},
        {"{\"version\": 1, \"boxes\": [{\"position\": [0,0,0], \"half_extents\": [1,1,1], \"mass\": 0}]}",
         "boxes[0].mass: expected a number > 0.0 (kilograms), got 0"},
        {"{\"version\": 1, \"world\": {\"dt\": 0}}", "world.dt: expected a number > 0.0 (seconds), got 0"},
        {"{\"version\": 1, \"world\": {\"dt\": 1e-9}}",
         "world.dt: expected a number >= 1e-6 (seconds, kMinStep), got 1e-09"},
        {"{\"version\": 1, \"boxes\": [{\"position\": [0,0,0], \"half_extents\": [1,1,1], \"mass\": 1e-9}]}",
         "boxes[0].mass: expected a number >= 1e-6 (kilograms, kMinDynamicMass), got 1e-09"},
        {"{\"version\": 1, \"world\": {\"friction\": {\"static\": -0.1}}}",
         "world.friction.static: expected a number >= 0.0"},
        {"{\"version\": 1, \"world\": {\"solver_iterations\": 0}}",
         "world.solver_iterations: expected an integer in [1,"},
        {"{\"version\": 1, \"boxes\": [{\"position\": [0,0,0], \"half_extents\": [1,1,1], \"orientation\": "
         "{\"quaternion\": [1, 1, 0, 0]}}]}",
         "boxes[0].orientation.quaternion: expected a unit quaternion (length within 1e-3 of 1), got length 1.41"},
        {"{\"version\": 1, \"boxes\": [{\"position\": [0,0,0], \"half_extents\": [1,1,1], \"orientation\": "
         "{\"euler_degrees\": [0, 0, 0]}}]}",
         "boxes[0].orientation: \"euler_degrees\" needs \"order\""},
        {"{\"version\": 1, \"boxes\": [{\"position\": [0,0,0], \"half_extents\": [1,1,1], \"orientation\": "
         "{\"euler_degrees\": [0, 0, 0], \"order\": \"XXZ\"}}]}",
         "boxes[0].orientation.order: expected one of \"XYZ\""},
        {"{\"version\": 1, \"boxes\": [{\"position\": [0,0,0], \"half_extents\": [1,1,1], \"static\": true, \"mass\": "
         "2}]}",
         "boxes[0].mass: a static box has no mass"},
        {"{\"version\": 1, \"boxes\": [{\"position\": [0,0,0], \"half_extents\": [1,1,1], \"static\": true, "
         "\"velocity\": [1,0,0]}]}",
         "boxes[0].velocity: a static box never moves"},
        {"{\"version\": 1, \"boxes\": [{\"half_extents\": [1,1,1]}]}",
         "scene.json:1:26: boxes[0]: the key \"position\" is missing"},
        {"{\"version\": 1, \"boxes\": [{\"name\": \"a\", \"position\": [0,0,0], \"half_extents\": [1,1,1]},\n"
         " {\"name\": \"a\", \"position\": [0,0,0], \"half_extents\": [1,1,1]}]}",
         "scene.json:2:11: boxes[1].name: the name 'a' is already used by boxes[0]"},
        {"{\"version\": 1, \"boxes\": [{\"name\": \"#2\", \"position\": [0,0,0], \"half_extents\": [1,1,1]}]}",
         "boxes[0].name: a name must not start with '#'"},
        {"{\"version\": 1, \"run\": {\"steps\": 10, \"checkpoints\": [5, 20]}}",
         "run.checkpoints[1]: checkpoint 20 is after the last step (10)"},
        {"{\"version\": 1, \"run\": {\"steps\": 10, \"checkpoints\": [5, 5]}}",
         "run.checkpoints[1]: checkpoints must be strictly increasing"},
        // versions
        {"{\"boxes\": []}", "scene.json:1:1: the scene: the key \"version\" is missing"},
        {"{\"version\": 3}", "scene.json:1:13: version: version 3 is not supported (this build reads versions 1 to 2)"},
        // keys of one version in the other
        {"{\"version\": 1, \"world\": {\"substeps\": 4}}", "world.substeps: unknown key 'substeps'"},
        {"{\"version\": 2, \"world\": {\"solver_iterations\": 4}}",
         "world.solver_iterations: unknown key 'solver_iterations'"},
        {"{\"version\": 1, \"boxes\": [{\"position\": [0,0,0], \"half_extents\": [1,1,1], \"restitution\": 0.5}]}",
         "boxes[0].restitution: unknown key 'restitution'"},
        // version 2 ranges
        {"{\"version\": 2, \"world\": {\"substeps\": 0}}", "world.substeps: expected an integer in [1, 256], got 0"},
        {"{\"version\": 2, \"world\": {\"iterations\": 65}}",
         "world.iterations: expected an integer in [1, 64], got 65"},
        {"{\"version\": 2, \"world\": {\"slop\": -0.001}}", "world.slop: expected a number >= 0.0 (metres)"},
        {"{\"version\": 2, \"boxes\": [{\"position\": [0,0,0], \"half_extents\": [1,1,1], \"restitution\": 1.5}]}",
         "boxes[0].restitution: expected a coefficient of restitution in [0, 1], got 1.5"},
        {"{\"version\": 2, \"boxes\": [{\"position\": [0,0,0], \"half_extents\": [1,1,1], \"friction\": -1}]}",
         "boxes[0].friction: expected a number >= 0.0 (Coulomb coefficient), got -1"},
        {"{\"version\": 2, \"boxes\": [{\"position\": [0,0,0], \"half_extents\": [1,1,1], \"static\": true, "
         "\"angular_velocity\": [0,1,0]}]}",
         "boxes[0].angular_velocity: a static box never moves"},
        {"{\"version\": 2, \"boxes\": [{\"position\": [0,0,0], \"half_extents\": [1,1,1], \"fixed_rotation\": 1}]}",
         "boxes[0].fixed_rotation: expected true or false, got 1"},
        // meshes
        {"{\"version\": 1, \"meshes\": [{\"obj\": \"nowhere/level.obj\"}]}",
         "scene.json:1:35: meshes[0].obj: the mesh file '"},
        {"{\"version\": 1, \"meshes\": [{\"obj\": \"bad.obj\"}]}", "meshes[0].obj: cannot load the mesh: "},
        {"{\"version\": 1, \"meshes\": [{\"obj\": \"flat.obj\"}]}", "meshes[0]: mesh '"},
        {"{\"version\": 1, \"meshes\": [{\"obj\": \"ok.obj\", \"transform\": {\"scale\": -1}}]}",
         "meshes[0].transform.scale: expected a number > 0.0 (uniform scale factor), got -1"},
    };
    write("bad.obj", "v 0 0 0\nv 1 0 0\nv zero 0 1\nf 1 2 3\n");
    write("flat.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n");
    write("ok.obj", kRampObj);
    int checked = 0;
    for (const Case& c : cases) {
        const std::string message = error_of(c.text);
        EXPECT_NE(message.find(c.needle), std::string::npos) << "input:   " << c.text << "\nmessage: " << message
                                                             << "\nwanted:  " << c.needle;
        EXPECT_EQ(message.rfind((dir_ / "scene.json").string(), 0), 0u) << "the message must start with the file: " << message;
        ++checked;
    }
    std::printf("[ scenes   ] %d kinds of bad scene rejected with file:line:column and path\n", checked);
    // The OBJ error inside keeps its own file and line.
    EXPECT_NE(error_of("{\"version\": 1, \"meshes\": [{\"obj\": \"bad.obj\"}]}").find("bad.obj:3: 'zero' is not a finite number"),
              std::string::npos);
    // A degenerate triangle names the option that drops it.
    EXPECT_NE(error_of("{\"version\": 1, \"meshes\": [{\"obj\": \"flat.obj\"}]}").find("triangle 0"), std::string::npos);
    EXPECT_EQ(error_of("{\"version\": 1, \"meshes\": [{\"obj\": \"flat.obj\", \"drop_degenerate\": true}]}"), "");
}

TEST_F(SceneFiles, AMissingSceneFileIsAFileError) {
    try {
        tumble::load_scene(dir_ / "absent.json");
        FAIL() << "no exception";
    } catch (const tumble::FileError& e) {
        EXPECT_NE(std::string(e.what()).find("absent.json: cannot open the scene file"), std::string::npos) << e.what();
    }
}

TEST_F(SceneFiles, AddSceneCreatesBodiesInFileOrderAndRollsBackOnFailure) {
    write("data/ramp.obj", kRampObj);
    const Scene s = tumble::load_scene(write("scene.json", kFull));
    tumble::World w(s.settings);
    const tumble::SceneInstance inst = tumble::add_scene(w, s);
    ASSERT_EQ(inst.bodies.size(), 3u);
    ASSERT_EQ(inst.meshes.size(), 1u);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(w.body(inst.bodies[i]).position, s.boxes[i].def.position);
    EXPECT_TRUE(w.body(inst.bodies[0]).is_static());

    // A scene edited by hand into something the world rejects: nothing of it stays in the world.
    Scene broken = s;
    broken.boxes[2].def.half_extents.y = -1.0f;
    tumble::World other;
    const tumble::BodyId before = other.create_body({});
    EXPECT_THROW(tumble::add_scene(other, broken), tumble::InvalidArgument);
    EXPECT_EQ(other.body_count(), 1u);
    EXPECT_TRUE(other.is_valid(before));
    other.step(1.0f / 60.0f);
    EXPECT_TRUE(other.contacts().empty());  // no mesh left behind either
}

TEST(BundledScenes, AllLoad) {
    int loaded = 0;
    for (const auto& entry : fs::directory_iterator(kSource / "samples/scenes")) {
        if (entry.path().extension() != ".json" || entry.path().stem().string().ends_with(".golden")) continue;
        const std::string name = entry.path().filename().string();
        EXPECT_NO_THROW(tumble::load_scene(entry.path())) << name;
        ++loaded;
    }
    EXPECT_GE(loaded, 7);
}

}  // namespace
