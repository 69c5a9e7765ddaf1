// The library behind the `tumble` command: state hashes, record files, golden files, the check and its tolerance,
// and the renderer (pixels checked where hand-worked projections put them, PNG decoded with stb_image).

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <stb_image.h>

#include "drop_scene.hpp"
#include "render.hpp"
#include "scene_tools.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tumble;
using namespace tumble::cli;

const fs::path kScenes = fs::path(TUMBLE_SOURCE_DIR) / "samples/scenes";

fs::path scratch(const std::string& name) {
    const fs::path dir = fs::path(::testing::TempDir()) / "tumble_scene_tools";
    fs::create_directories(dir);
    return dir / name;
}

std::uint32_t bits(float v) {
    std::uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
}

void expect_same_bits(const Snapshot& a, const Snapshot& b) {
    ASSERT_EQ(a.step, b.step);
    ASSERT_EQ(a.boxes.size(), b.boxes.size());
    for (std::size_t i = 0; i < a.boxes.size(); ++i) {
        const BoxState &x = a.boxes[i], &y = b.boxes[i];
        for (int k = 0; k < 3; ++k) {
            ASSERT_EQ(bits(x.position[k]), bits(y.position[k])) << "box " << i;
            ASSERT_EQ(bits(x.velocity[k]), bits(y.velocity[k])) << "box " << i;
        }
        for (int k = 0; k < 4; ++k) ASSERT_EQ(bits(x.orientation[k]), bits(y.orientation[k])) << "box " << i;
    }
}

TEST(StateHash, ChangesWithEveryBitAndOnlyThen) {
    Snapshot s;
    s.boxes.resize(3);
    s.boxes[1].position = {1.0f, 2.0f, 3.0f};
    const std::uint64_t h = state_hash(s);
    Snapshot same = s;
    EXPECT_EQ(state_hash(same), h);
    Snapshot t = s;
    t.boxes[2].velocity.z = -0.0f;  // equal to 0.0f as a number, different bits
    EXPECT_NE(state_hash(t), h);
    t = s;
    t.boxes[0].orientation.x = std::nextafter(0.0f, 1.0f);
    EXPECT_NE(state_hash(t), h);
    t = s;
    std::swap(t.boxes[0], t.boxes[1]);  // order matters
    EXPECT_NE(state_hash(t), h);
    EXPECT_EQ(hex(0x70b123e518db0553ull), "0x70b123e518db0553");
}

TEST(ShortestFloatText, ReadsBackToTheSameBits) {
    std::uint32_t state = 12345;
    int checked = 0;
    for (int i = 0; i < 200000; ++i) {
        state = state * 1664525u + 1013904223u;
        float v;
        std::memcpy(&v, &state, 4);
        if (!std::isfinite(v)) continue;
        if (i == 0) v = -0.0f;  // the one float whose shortest decimal "-0" JSON reads back wrong
        const std::string text = shortest(v);
        ASSERT_EQ(bits(std::strtof(text.c_str(), nullptr)), bits(v)) << text;
        // And through the JSON reader of scenes and goldens (strtof inside nlohmann-json with a float number type).
        using FloatJson = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t, std::uint64_t, float>;
        if (i % 16 == 0) {
            ASSERT_EQ(bits(FloatJson::parse(text).get<float>()), bits(v)) << text;
        }
        ++checked;
    }
    EXPECT_GT(checked, 190000);
}

TEST(Recorder, CsvAndJsonLinesHoldTheExactStates) {
    const Scene scene = load_scene(kScenes / "drop_on_tilted.json");
    SceneRun run(scene);
    run.run_to(45);
    const Snapshot s = run.snapshot();
    {
        Recorder csv(scratch("r.csv"), scene);
        csv.write(s);
        csv.close();
        EXPECT_EQ(csv.rows(), 3u);
        Recorder jsonl(scratch("r.jsonl"), scene);
        jsonl.write(s);
        jsonl.close();
    }
    std::ifstream csv(scratch("r.csv"));
    std::string line;
    std::getline(csv, line);
    EXPECT_EQ(line, "step,id,name,px,py,pz,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz");
    std::ifstream jsonl(scratch("r.jsonl"));
    for (std::size_t i = 0; i < 3; ++i) {
        ASSERT_TRUE(std::getline(csv, line));
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
        ASSERT_EQ(f.size(), 16u) << line;
        EXPECT_EQ(f[0], "45");
        EXPECT_EQ(f[1], std::to_string(i));
        EXPECT_EQ(f[2], scene.boxes[i].name);
        const BoxState& b = s.boxes[i];
        const float expected[] = {b.position.x,         b.position.y,         b.position.z,        b.orientation.w,
                                  b.orientation.x,      b.orientation.y,      b.orientation.z,     b.velocity.x,
                                  b.velocity.y,         b.velocity.z,         b.angular_velocity.x, b.angular_velocity.y,
                                  b.angular_velocity.z};
        for (int k = 0; k < 13; ++k) EXPECT_EQ(bits(std::strtof(f[3 + k].c_str(), nullptr)), bits(expected[k])) << line;

        ASSERT_TRUE(std::getline(jsonl, line));
        const nlohmann::json j = nlohmann::json::parse(line);
        EXPECT_EQ(j["step"], 45);
        EXPECT_EQ(j["id"], i);
        EXPECT_EQ(j["name"], scene.boxes[i].name);
        EXPECT_EQ(static_cast<float>(j["position"][1].get<double>()), b.position.y);
        EXPECT_EQ(static_cast<float>(j["orientation"][3].get<double>()), b.orientation.z);
        EXPECT_EQ(static_cast<float>(j["angular_velocity"][2].get<double>()), b.angular_velocity.z);
        EXPECT_EQ(static_cast<float>(j["velocity"][1].get<double>()), b.velocity.y);
    }
    EXPECT_THROW(Recorder(scratch("r.txt"), scene), InvalidArgument);
    EXPECT_THROW(Recorder(scratch("no/such/dir/r.csv"), scene), FileError);
}

TEST(Golden, WriteThenReadGivesTheSameBitsAndHashes) {
    const Scene scene = load_scene(kScenes / "pyramid55.json");
    const Golden g = bless(scene);
    ASSERT_EQ(g.checkpoints.size(), 3u);
    EXPECT_EQ(g.checkpoints.back().step, 600);
    write_golden(scratch("p.golden.json"), g);
    const Golden back = read_golden(scratch("p.golden.json"));
    EXPECT_EQ(back.labels, g.labels);
    EXPECT_EQ(back.hashes, g.hashes);
    EXPECT_EQ(back.scene, "pyramid55.json");
    for (std::size_t c = 0; c < g.checkpoints.size(); ++c) {
        expect_same_bits(back.checkpoints[c], g.checkpoints[c]);
        EXPECT_EQ(state_hash(back.checkpoints[c]), g.hashes[c]);
    }
    // The committed golden is what this build computes, bit for bit.
    const Golden committed = read_golden(kScenes / "pyramid55.golden.json");
    EXPECT_EQ(committed.hashes, g.hashes);
}

TEST(Golden, NegativeZeroKeepsItsSignThroughWriteAndRead) {
    // Found by fuzz_golden's round trip: a velocity of -0.0 was written "-0", which JSON reads as the integer 0, so the
    // state read back had other bits than the state written, and than the hash stored with it.
    Golden g;
    g.scene = "z.json";
    g.dt = 1.0f / 60.0f;
    g.labels = {"box"};
    Snapshot s;
    s.step = 3;
    s.boxes.resize(1);
    s.boxes[0].velocity = {-0.0f, 0.0f, -0.0f};
    s.boxes[0].position = {-0.0f, 1.0f, 0.0f};
    g.checkpoints = {s};
    g.hashes = {state_hash(s)};
    write_golden(scratch("z.golden.json"), g);
    const Golden back = read_golden(scratch("z.golden.json"));
    ASSERT_EQ(back.checkpoints.size(), 1u);
    expect_same_bits(back.checkpoints[0], s);
    EXPECT_EQ(state_hash(back.checkpoints[0]), g.hashes[0]);
    EXPECT_EQ(shortest(-0.0f), "-0.0");
    EXPECT_EQ(shortest(0.0f), "0");
}

TEST(Golden, BadFilesAreRejectedWithWhatIsWrong) {
    auto error_of = [](const std::string& text) {
        const fs::path p = scratch("bad.golden.json");
        std::ofstream(p) << text;
        try {
            read_golden(p);
        } catch (const FileError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    const std::string state = R"({"id": 0, "position": [0, 0, 0], "orientation": [1, 0, 0, 0], "velocity": [0, 0, 0]})";
    const std::string ok = R"({"format": "tumble-golden", "version": 1, "boxes": ["a"], "checkpoints": [{"step": 5, "hash": "0x0000000000000001", "states": [)" + state + "]}]}";
    EXPECT_EQ(error_of(ok), "");
    EXPECT_NE(error_of("{").find("malformed JSON"), std::string::npos);
    EXPECT_NE(error_of(R"({"format": "tumble-scene"})").find("format: expected \"tumble-golden\""), std::string::npos);
    std::string bad = ok;
    bad.replace(bad.find("\"boxes\": [\"a\"]"), 14, "\"boxes\": [\"a\", \"b\"]");
    EXPECT_NE(error_of(bad).find("checkpoints[0].states: expected an array of 2 states"), std::string::npos);
    bad = ok;
    bad.replace(bad.find("0x0000000000000001"), 18, "0x01");
    EXPECT_NE(error_of(bad).find("checkpoints[0].hash: expected a hash"), std::string::npos);
    bad = ok;
    bad.replace(bad.find("[1, 0, 0, 0]"), 12, "[1, 0, 0]");
    EXPECT_NE(error_of(bad).find("checkpoints[0].states[0].orientation: expected an array of 4 numbers"), std::string::npos);
    bad = ok;
    bad.replace(bad.find("\"version\": 1"), 12, "\"version\": 1, \"extra\": 2");
    EXPECT_NE(error_of(bad).find("extra: unknown key"), std::string::npos);
}

TEST(WriteScene, ReadsBackToTheSameSceneBitForBit) {
    Scene scene = load_scene(kScenes / "drop_on_tilted.json");
    scene.description = "written \"back\"";
    scene.settings.gravity = {0.5f, -9.7f, 0.1f};
    scene.settings.solver.iterations = 17;
    scene.settings.solver.substeps = 5;
    scene.settings.solver.restitution_threshold = 0.5f;
    scene.settings.solver.slop = 1e-3f;
    scene.settings.broadphase_margin = 0.05f;
    scene.dt = 1.0f / 120.0f;
    scene.steps = 90;
    scene.checkpoints = {30, 90};
    scene.boxes[1].def.velocity = {0.1f, -2.0f / 3.0f, 1e-7f};
    scene.boxes[1].def.mass = 2.5f;
    scene.boxes[1].def.angular_velocity = {0.25f, -1.0f, 3.0f};
    scene.boxes[1].def.friction = 0.3f;
    scene.boxes[1].def.restitution = 0.75f;
    scene.boxes[2].def.fixed_rotation = true;
    SceneMesh level;
    level.name = "level";
    level.path = fs::path(TUMBLE_SOURCE_DIR) / "samples/data/oa_dm1.obj";
    level.translation = {1.0f, -2.0f, 0.25f};
    level.scale = 0.5f;
    level.material = {0.25f, 0.5f};
    scene.meshes.push_back(level);
    write_scene(scratch("written.json"), scene);
    const Scene back = load_scene(scratch("written.json"));
    EXPECT_EQ(back.description, scene.description);
    EXPECT_EQ(back.settings.gravity, scene.settings.gravity);
    EXPECT_EQ(back.settings.solver.iterations, 17);
    EXPECT_EQ(back.settings.solver.substeps, 5);
    EXPECT_EQ(back.settings.solver.restitution_threshold, 0.5f);
    EXPECT_EQ(back.settings.solver.slop, 1e-3f);
    EXPECT_EQ(back.settings.broadphase_margin, 0.05f);
    EXPECT_EQ(back.dt, scene.dt);
    EXPECT_EQ(back.steps, 90);
    EXPECT_EQ(back.checkpoints, scene.checkpoints);
    ASSERT_EQ(back.boxes.size(), scene.boxes.size());
    for (std::size_t i = 0; i < scene.boxes.size(); ++i) {
        const BodyDef &a = scene.boxes[i].def, &b = back.boxes[i].def;
        EXPECT_EQ(back.boxes[i].name, scene.boxes[i].name);
        EXPECT_EQ(a.position, b.position);
        EXPECT_EQ(a.half_extents, b.half_extents);
        EXPECT_EQ(a.orientation, b.orientation);
        EXPECT_EQ(a.velocity, b.velocity);
        EXPECT_EQ(a.mass, b.mass);
        EXPECT_EQ(a.fixed_rotation, b.fixed_rotation);
        EXPECT_EQ(a.fixed_rotation ? glm::vec3(0.0f) : a.angular_velocity, b.angular_velocity);
        EXPECT_EQ(a.friction, b.friction);
        EXPECT_EQ(a.restitution, b.restitution);
    }
    ASSERT_EQ(back.meshes.size(), 1u);
    EXPECT_EQ(back.meshes[0].translation, level.translation);
    EXPECT_EQ(back.meshes[0].scale, 0.5f);
    EXPECT_EQ(back.meshes[0].material.friction, 0.25f);
    EXPECT_EQ(back.meshes[0].material.restitution, 0.5f);
    EXPECT_EQ(back.meshes[0].mesh.triangle_count(), 7333u);
    EXPECT_TRUE(fs::equivalent(back.meshes[0].path, level.path));
    // A scene as the format's defaults leaves it has no world key at all.
    const Scene plain = parse_scene(R"({"version": 2, "boxes": [{"position": [0, 1, 0], "half_extents": [1, 1, 1]}]})", "p.json");
    write_scene(scratch("plain.json"), plain);
    std::ifstream in(scratch("plain.json"));
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text.find("world"), std::string::npos) << text;
    EXPECT_THROW(write_scene(scratch("no/such/dir/x.json"), plain), FileError);
}

TEST(Distance, HandWorkedValues) {
    BoxState a, b;
    b.position = {3.0f, 4.0f, 0.0f};
    b.velocity = {0.0f, 0.0f, -2.0f};
    b.orientation = glm::angleAxis(0.3f, glm::normalize(glm::vec3(1, 2, 3)));
    const StateDistance d = distance(a, b);
    EXPECT_DOUBLE_EQ(d.position, 5.0);
    EXPECT_DOUBLE_EQ(d.velocity, 2.0);
    EXPECT_NEAR(d.orientation, 0.3, 1e-7);
    // q and -q are the same rotation.
    BoxState c = b;
    c.orientation = -b.orientation;
    EXPECT_NEAR(distance(b, c).orientation, 0.0, 1e-12);
    // Small angles keep their precision (no acos of a number next to 1).
    c.orientation = b.orientation * glm::angleAxis(2e-6f, glm::vec3(0, 1, 0));
    EXPECT_NEAR(distance(b, c).orientation, 2e-6, 2e-7);
}

TEST(Check, PassesItsOwnGoldenBitForBitAndFindsTheFirstDifference) {
    const Scene scene = load_scene(kScenes / "stack10.json");
    const Golden g = bless(scene);
    const Tolerance tol = Tolerance::from(1e-5, scene.dt);
    EXPECT_DOUBLE_EQ(tol.velocity, 1e-5 / static_cast<double>(scene.dt));

    CheckResult r = check(scene, g, tol);
    EXPECT_TRUE(r.passed);
    EXPECT_TRUE(r.bit_identical);
    EXPECT_EQ(r.states_compared, 33u);
    EXPECT_EQ(r.largest.position, 0.0);

    // Within the tolerance: passes, but is not bit-identical any more.
    Golden near = g;
    near.checkpoints[1].boxes[4].position.x += 5e-6f;
    r = check(scene, near, tol);
    EXPECT_TRUE(r.passed);
    EXPECT_FALSE(r.bit_identical);
    EXPECT_NEAR(r.largest.position, 5e-6, 1e-7);

    // Beyond it, in two places: the first in checkpoint order is reported, both are counted.
    Golden far = g;
    far.checkpoints[2].boxes[2].position.x += 1e-3f;
    far.checkpoints[1].boxes[7].velocity.y += 1.0f;
    r = check(scene, far, tol);
    EXPECT_FALSE(r.passed);
    EXPECT_EQ(r.step, g.checkpoints[1].step);
    EXPECT_EQ(r.box, 7u);
    EXPECT_NEAR(r.off.velocity, 1.0, 1e-6);
    EXPECT_EQ(r.off.position, 0.0);
    EXPECT_EQ(r.states_different, 2u);
    const std::string report = format_report(scene, far, tol, r);
    EXPECT_NE(report.find("first difference: step 300, box \"box6\" (id 7)"), std::string::npos) << report;
    EXPECT_NE(report.find("(beyond the tolerance of 0.0006 m/s)"), std::string::npos) << report;
    EXPECT_NE(report.find("states beyond the tolerance: 2 of 33"), std::string::npos) << report;

    // A velocity difference of 5e-4 m/s is within T / dt = 6e-4 m/s; an orientation 2e-5 rad off is not within 1e-5.
    Golden v = g;
    v.checkpoints[0].boxes[3].velocity.y += 5e-4f;
    EXPECT_TRUE(check(scene, v, tol).passed);
    Golden q = g;
    q.checkpoints[0].boxes[3].orientation =
        glm::normalize(glm::angleAxis(2e-5f, glm::vec3(1, 0, 0)) * q.checkpoints[0].boxes[3].orientation);
    r = check(scene, q, tol);
    EXPECT_FALSE(r.passed);
    EXPECT_NEAR(r.off.orientation, 2e-5, 1e-7);

    // Another scene's golden: the boxes do not match.
    const Golden other = bless(load_scene(kScenes / "resting_box.json"));
    r = check(scene, other, tol);
    EXPECT_FALSE(r.passed);
    EXPECT_NE(r.problem.find("the scene has 11 boxes but the golden result has 2"), std::string::npos);
}

TEST(SceneFilesAndTheDropSample, GiveTheSameWorld) {
    // level_1000.json was written by `tumble spawn` from samples/data/oa_dm1.obj with tumble-drop's defaults: loading
    // it must give exactly the bodies spawn_boxes makes, so both runs agree bit for bit (positions, slot order).
    const Scene scene = load_scene(kScenes / "level_1000.json");
    SceneRun run(scene);
    run.run_to(60);
    const samples::DropResult drop =
        samples::run_drop(fs::path(TUMBLE_SOURCE_DIR) / "samples/data/oa_dm1.obj", samples::DropOptions{}, 60, scene.dt);
    EXPECT_EQ(samples::state_hash(run.world()), drop.state_hash);
    EXPECT_EQ(scene.boxes.size(), 1000u);
}

// Renderer: a unit cube at the origin seen from the front, framed by a known box, lands where the orthographic
// projection says; the top view of a floor under a ceiling shows the floor (ceilings face down and are culled).
TEST(Render, BoxesAndMeshesLandWhereTheProjectionPutsThem) {
    Drawing d;
    d.boxes.push_back({Obb{{0, 0, 0}, glm::mat3(1.0f), {0.5f, 0.5f, 0.5f}}, {1.0f, 0.0f, 0.0f}, false});
    const Aabb frame{{-2, -2, -2}, {2, 2, 2}};
    const Picture pic = render(d, View::front, frame, 200, 200);
    // Frame width 4 m over 200 * (1 - 2 * 0.06) = 176 px: 44 px per metre, centred. The cube covers 78..122.
    auto is_background = [&](int x, int y) {
        const std::uint8_t* p = pic.at(x, y);
        return p[0] > 240 && p[1] > 240 && p[2] > 240;
    };
    auto is_red = [&](int x, int y) {
        const std::uint8_t* p = pic.at(x, y);
        return p[0] > 80 && p[1] < 10 && p[2] < 10;
    };
    EXPECT_TRUE(is_red(100, 100));
    EXPECT_TRUE(is_red(81, 81));
    EXPECT_TRUE(is_red(119, 119));
    EXPECT_TRUE(is_background(74, 100));
    EXPECT_TRUE(is_background(126, 100));
    EXPECT_TRUE(is_background(100, 160));

    // A floor at y = 0 facing up and a ceiling at y = 3 facing down, both over the same square.
    TriangleMesh floor{{{-1, 0, -1}, {1, 0, -1}, {1, 0, 1}, {-1, 0, 1}}, {0, 2, 1, 0, 3, 2}};
    TriangleMesh ceiling{{{-1, 3, -1}, {1, 3, -1}, {1, 3, 1}, {-1, 3, 1}}, {0, 1, 2, 0, 2, 3}};
    ASSERT_GT(floor.triangle(0).scaled_normal().y, 0.0f);
    ASSERT_LT(ceiling.triangle(0).scaled_normal().y, 0.0f);
    // Drawn as World::debug_draw gives meshes: each triangle's three edges, which the recorder fills again.
    World both, floor_only;
    both.add_mesh(ceiling);
    both.add_mesh(floor);
    floor_only.add_mesh(floor);
    const Drawing level = draw_world(both);
    ASSERT_EQ(level.triangles.size(), 4u);
    EXPECT_TRUE(level.lines.empty());
    EXPECT_TRUE(level.boxes.empty());
    const Picture top = render(level, View::top, bounds(level), 100, 100);
    const Picture bottom_up = render(draw_world(floor_only), View::top, bounds(level), 100, 100);
    EXPECT_EQ(top.rgb, bottom_up.rgb);  // the ceiling is invisible from above
    const std::uint8_t* centre = top.at(50, 50);
    EXPECT_LT(centre[0], 240);  // but the floor is drawn
    // And the picture is not empty.
    EXPECT_FALSE(top.rgb == render(Drawing{}, View::top, bounds(level), 100, 100).rgb);
}

// What World::debug_draw emits becomes a drawing: bodies as boxes (in the colours asked for, the highlighted one
// marked), mesh triangles from their edges in the level's order, contacts as markers pointing along -normal, and
// nothing else.
TEST(Render, TheRecorderDrawsWhatWorldDebugDrawEmits) {
    const Scene scene = load_scene(kScenes / "drop_on_tilted.json");
    SceneRun run(scene);
    run.run_to(40);
    ASSERT_FALSE(run.world().contacts().empty());
    DrawWorldOptions options;
    options.contacts = true;
    options.colour = [](BodyId id, const glm::vec3&) { return glm::vec3(0.1f * static_cast<float>(id.index), 0.5f, 0.5f); };
    options.highlight = run.instance().bodies[1];
    const Drawing d = draw_world(run.world(), options);
    ASSERT_EQ(d.boxes.size(), scene.boxes.size());
    for (std::size_t i = 0; i < scene.boxes.size(); ++i) {
        const BodyId id = run.instance().bodies[i];
        const Obb expected = run.world().obb(id);
        EXPECT_EQ(d.boxes[i].box.center, expected.center);
        EXPECT_EQ(d.boxes[i].box.axes, expected.axes);
        EXPECT_EQ(d.boxes[i].box.half_extents, expected.half_extents);
        EXPECT_EQ(d.boxes[i].colour, glm::vec3(0.1f * static_cast<float>(id.index), 0.5f, 0.5f));
        EXPECT_EQ(d.boxes[i].highlight, i == 1);
    }
    const std::span<const ContactRecord> contacts = run.world().contacts();
    ASSERT_EQ(d.contacts.size(), contacts.size());
    for (std::size_t i = 0; i < contacts.size(); ++i)
        EXPECT_NEAR(glm::dot(d.contacts[i].normal, -contacts[i].contact.normal), 1.0f, 1e-5f);
    // The depth segments are the only lines left.
    EXPECT_EQ(d.lines.size(), contacts.size());
    for (const Drawing::Line& l : d.lines) EXPECT_EQ(l.colour, DebugColors::depth);

    const Scene level = load_scene(kScenes / "level_1000.json");
    World world(level.settings);
    add_scene(world, level);
    const Drawing with_level = draw_world(world);
    const TriangleMesh& mesh = level.meshes[0].mesh;
    ASSERT_EQ(with_level.triangles.size(), mesh.triangle_count());
    for (std::size_t t = 0; t < mesh.triangle_count(); ++t) {
        EXPECT_EQ(with_level.triangles[t].a, mesh.triangle(t).a);
        EXPECT_EQ(with_level.triangles[t].c, mesh.triangle(t).c);
    }
    EXPECT_TRUE(with_level.lines.empty());
    // The level's vertices are all distinct, so joining equal positions gives back its feature edges.
    EXPECT_EQ(feature_edges(weld(with_level.triangles)).size(), feature_edges(mesh).size());
}

TEST(Render, PngFilesDecodeToThePicture) {
    const Scene scene = load_scene(kScenes / "pyramid55.json");
    SceneRun run(scene);
    Drawing d;
    for (std::size_t i = 0; i < scene.boxes.size(); ++i)
        d.boxes.push_back({run.world().obb(run.instance().bodies[i]), box_colour(i, scene.boxes[i].def.mass == 0.0f), false});
    d.caption = "pyramid";
    const Picture pic = render(d, View::iso, bounds(d), 320, 200);
    const Picture pair = side_by_side(pic, pic);
    EXPECT_EQ(pair.width, 644);
    write_png(scratch("pair.png"), pair);
    int w = 0, h = 0, channels = 0;
    unsigned char* decoded = stbi_load(scratch("pair.png").string().c_str(), &w, &h, &channels, 3);
    ASSERT_NE(decoded, nullptr);
    EXPECT_EQ(w, 644);
    EXPECT_EQ(h, 200);
    EXPECT_EQ(std::memcmp(decoded, pair.rgb.data(), pair.rgb.size()), 0);
    stbi_image_free(decoded);
    // Different views of the same scene are different pictures, and boxes cover a good part of the iso one.
    EXPECT_NE(render(d, View::top, bounds(d), 320, 200).rgb, pic.rgb);
    std::size_t covered = 0;
    for (int y = 0; y < pic.height; ++y)
        for (int x = 0; x < pic.width; ++x) covered += pic.at(x, y)[0] < 230 || pic.at(x, y)[2] < 230;
    EXPECT_GT(covered, static_cast<std::size_t>(pic.width * pic.height / 10));
    EXPECT_THROW(render(d, View::iso, bounds(d), 8, 8), InvalidArgument);
    EXPECT_THROW(write_png(scratch("no/such/dir/x.png"), pic), FileError);
}

}  // namespace
