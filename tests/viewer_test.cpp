// tumble-viewer's parts that need no window: the script parser, the camera, the stepper, throwing, the drag spring,
// the demo scenes and the panel readouts.

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include <tumble/tumble.hpp>

#include "camera.hpp"
#include "demo_scenes.hpp"
#include "interaction.hpp"
#include "readouts.hpp"
#include "script.hpp"
#include "support/game_scenes.hpp"

namespace {

using namespace tumble::viewer;
using gamescene::box;
using gamescene::kDt;

const std::filesystem::path kScenes = std::filesystem::path(TUMBLE_SOURCE_DIR) / "samples/scenes";
const std::filesystem::path kLevels = std::filesystem::path(TUMBLE_SOURCE_DIR) / "samples/data";

// The FileError message of parsing `text` as script "t.txt" (empty when it parses).
std::string script_error(const std::string& text) {
    try {
        parse_script(text, "t.txt", {"pyramid", "level:oa_dm1"});
    } catch (const tumble::FileError& e) {
        return e.what();
    }
    return {};
}

TEST(ViewerScript, EveryActionParses) {
    const Script s = parse_script(
        "# header\n"
        "\n"
        "0 cursor 10 20   # trailing comment\n"
        "0.5 cursor thrown\n"
        "0.5 throw\n0.5 pick\n0.5 release\n0.5 click\n0.5 delete\n0.6 toggle sleep_colours\n0.6 orbit -3 4\n"
        "0.6 pan 1 2\n0.6 zoom -1.5\n0.7 fly up 0.25\n0.7 pause\n0.7 play\n0.7 step\n0.7 reset\n0.7 frame\n"
        "0.7 slowmo\n0.8 rate 120\n0.8 substeps 4\n0.9 scene level:oa_dm1\n1 screenshot a.png\n1 save b\n2 quit\n",
        "t.txt", {"pyramid", "level:oa_dm1"});
    ASSERT_EQ(s.actions.size(), 24u);
    EXPECT_EQ(s.actions[0].verb, Verb::cursor);
    EXPECT_EQ(s.actions[0].line, 3);
    EXPECT_EQ(s.actions[0].x, 10.0f);
    EXPECT_EQ(s.actions[0].y, 20.0f);
    EXPECT_EQ(s.actions[1].verb, Verb::cursor_thrown);
    EXPECT_EQ(s.actions[7].verb, Verb::toggle);
    EXPECT_EQ(s.actions[7].text, "sleep_colours");
    EXPECT_EQ(s.actions[8].verb, Verb::orbit);
    EXPECT_EQ(s.actions[8].x, -3.0f);
    EXPECT_EQ(s.actions[10].x, -1.5f);
    EXPECT_EQ(s.actions[11].verb, Verb::fly);
    EXPECT_EQ(s.actions[11].text, "up");
    EXPECT_EQ(s.actions[11].x, 0.25f);
    EXPECT_EQ(s.actions[19].verb, Verb::substeps);
    EXPECT_EQ(s.actions[20].text, "level:oa_dm1");
    EXPECT_EQ(s.actions[21].text, "a.png");
    EXPECT_EQ(s.actions[22].verb, Verb::save);
    EXPECT_EQ(s.actions[22].text, "b");
    EXPECT_EQ(s.actions.back().verb, Verb::quit);
    EXPECT_DOUBLE_EQ(s.duration(), 2.0);
}

TEST(ViewerScript, ErrorsNameTheFileAndLine) {
    EXPECT_EQ(script_error("0 throw\n\n0.5 jump\n").rfind("t.txt:3: unknown action 'jump'", 0), 0u) << script_error("0 throw\n\n0.5 jump\n");
    EXPECT_EQ(script_error("soon throw\n").rfind("t.txt:1: expected a time in seconds >= 0", 0), 0u);
    EXPECT_EQ(script_error("-1 throw\n").rfind("t.txt:1: expected a time", 0), 0u);
    EXPECT_EQ(script_error("nan throw\n").rfind("t.txt:1: expected a time", 0), 0u);
    EXPECT_EQ(script_error("1 throw\n0.5 throw\n").rfind("t.txt:2: time 0.5 is earlier", 0), 0u);
    EXPECT_EQ(script_error("1\n").rfind("t.txt:1: expected an action", 0), 0u);
    EXPECT_EQ(script_error("1 cursor 3\n").rfind("t.txt:1: cursor: expected two pixel coordinates", 0), 0u);
    EXPECT_EQ(script_error("1 cursor a b\n").rfind("t.txt:1: cursor:", 0), 0u);
    EXPECT_EQ(script_error("1 throw now\n").rfind("t.txt:1: throw: expected 0 arguments, got 1", 0), 0u);
    EXPECT_EQ(script_error("1 zoom x\n").rfind("t.txt:1: zoom: expected a number, got 'x'", 0), 0u);
    EXPECT_EQ(script_error("1 toggle shadows\n").rfind("t.txt:1: toggle: unknown name 'shadows'", 0), 0u);
    EXPECT_EQ(script_error("1 fly sideways 1\n").rfind("t.txt:1: fly: unknown direction 'sideways'", 0), 0u);
    EXPECT_EQ(script_error("1 scene moon\n").rfind("t.txt:1: scene: no demo scene is named 'moon'", 0), 0u);
    EXPECT_EQ(script_error("1 rate 0\n").rfind("t.txt:1: rate:", 0), 0u);
    EXPECT_EQ(script_error("1 substeps 2.5\n").rfind("t.txt:1: substeps:", 0), 0u);
    EXPECT_THROW(load_script("/no/such/script.txt", {}), tumble::FileError);
}

TEST(ViewerCamera, RaysAndProjectionsAgree) {
    OrbitCamera c;
    c.target = {3.0f, 1.0f, -2.0f};
    c.distance = 12.0f;
    c.yaw = 0.4f;
    c.pitch = 0.5f;
    const Viewport v{1280, 720, 310, 290, 19};
    for (const glm::vec2 pixel : {glm::vec2(640, 360), glm::vec2(10, 700), glm::vec2(1200, 40)}) {
        const Ray r = c.ray(v, pixel);
        EXPECT_NEAR(glm::length(r.direction), 1.0f, 1e-5f);
        const auto p = c.project(v, r.origin + r.direction * 7.0f);
        ASSERT_TRUE(p);
        EXPECT_NEAR(p->pixel.x, pixel.x, 0.05f);
        EXPECT_NEAR(p->pixel.y, pixel.y, 0.05f);
    }
    // The target appears in the middle of the part no panel covers.
    const auto centre = c.project(v, c.target);
    ASSERT_TRUE(centre);
    EXPECT_NEAR(centre->pixel.x, 0.5f * (310 + 990), 0.05f);
    EXPECT_NEAR(centre->pixel.y, 0.5f * (19 + 720), 0.05f);
    EXPECT_NEAR(centre->depth, 12.0f, 1e-4f);
    EXPECT_FALSE(c.project(v, c.eye() - c.forward()));  // behind the eye
    // The frame is right-handed and orthonormal.
    EXPECT_NEAR(glm::dot(c.right(), c.forward()), 0.0f, 1e-6f);
    EXPECT_NEAR(glm::dot(c.up(), c.forward()), 0.0f, 1e-6f);
    EXPECT_GT(c.up().y, 0.0f);
}

TEST(ViewerCamera, FrameFitsTheBoundsInTheFreePart) {
    OrbitCamera c;
    const Viewport v{1280, 720, 310, 290, 19};
    const tumble::Aabb bounds{{-30, -5, -20}, {50, 15, 10}};
    c.frame(bounds, v);
    for (int k = 0; k < 8; ++k) {
        const glm::vec3 corner((k & 1) ? bounds.max.x : bounds.min.x, (k & 2) ? bounds.max.y : bounds.min.y,
                               (k & 4) ? bounds.max.z : bounds.min.z);
        const auto p = c.project(v, corner);
        ASSERT_TRUE(p);
        EXPECT_GE(p->pixel.x, 310.0f);
        EXPECT_LE(p->pixel.x, 990.0f);
        EXPECT_GE(p->pixel.y, 19.0f);
        EXPECT_LE(p->pixel.y, 720.0f);
    }
    // Orbit keeps the distance, pan moves the target across the view, zoom moves the eye along it.
    const glm::vec3 target = c.target;
    const float distance = c.distance;
    c.orbit(100, 30);
    EXPECT_FLOAT_EQ(c.distance, distance);
    c.pan(v, 50, 0);
    EXPECT_NEAR(glm::dot(c.target - target, c.forward()), 0.0f, 1e-3f);
    EXPECT_GT(glm::length(c.target - target), 0.1f);
    c.zoom(2);
    EXPECT_NEAR(c.distance, distance * 0.81f, 1e-3f * distance);
    const glm::vec3 before = c.target;
    c.fly({0, 0, 1}, 2.0f);
    EXPECT_NEAR(glm::length(c.target - before - 2.0f * c.forward()), 0.0f, 1e-4f);
}

TEST(ViewerStepper, FollowsTheClockPausesStepsAndSlowsDown) {
    Stepper s;
    RunSettings r;
    int steps = 0;
    for (int f = 0; f < 60; ++f) steps += s.steps_for_frame(1.0 / 60.0, r);
    EXPECT_EQ(steps, 60);
    r.speed = 0.25f;
    steps = 0;
    for (int f = 0; f < 60; ++f) steps += s.steps_for_frame(1.0 / 60.0, r);
    EXPECT_EQ(steps, 15);
    r.speed = 1.0f;
    r.rate_hz = 120.0f;
    EXPECT_EQ(s.steps_for_frame(1.0 / 60.0, r), 2);
    r.paused = true;
    EXPECT_EQ(s.steps_for_frame(1.0, r), 0);
    s.request_single_step();
    EXPECT_EQ(s.steps_for_frame(1.0 / 60.0, r), 1);
    EXPECT_EQ(s.steps_for_frame(1.0 / 60.0, r), 0);
    r.paused = false;
    EXPECT_EQ(s.steps_for_frame(5.0, r), r.max_steps_per_frame);  // a long stall is not caught up
    EXPECT_EQ(s.steps_for_frame(0.0, r), 0);
}

TEST(ViewerThrow, TheLobReachesTheAimedPoint) {
    tumble::World world;
    tumble::samples::Rng rng(7);
    const Ray ray{{0, 20, 40}, glm::normalize(glm::vec3(0, -20, -40))};
    const glm::vec3 aim(0, 0, 0);
    const tumble::BodyDef def = thrown_box(ray, aim, world.settings().gravity, rng);
    EXPECT_TRUE(def.ccd);
    EXPECT_GE(def.half_extents.x, 0.15f);
    EXPECT_LE(def.half_extents.x, 0.35f);
    EXPECT_NEAR(glm::length(def.position - ray.origin), 1.0f, 1e-4f);
    const tumble::BodyId id = world.create_body(def);
    const float distance = glm::length(aim - def.position);
    const float time = distance / std::clamp(distance, 15.0f, 80.0f);
    float closest = 1e9f;
    for (int i = 0; i < static_cast<int>(std::ceil(time / kDt)) + 5; ++i) {
        world.step(kDt);
        closest = std::min(closest, glm::length(world.body(id).position - aim));
    }
    EXPECT_LT(closest, 0.5f) << "the box passes within half a metre of the point aimed at";
    // Without an aim it flies along the ray at 20 m/s.
    const tumble::BodyDef straight = thrown_box(ray, std::nullopt, world.settings().gravity, rng);
    EXPECT_NEAR(glm::length(straight.velocity - 20.0f * ray.direction), 0.0f, 1e-4f);
}

TEST(ViewerGrab, TheSpringPullsTheGrabbedPointToTheTarget) {
    tumble::World world;
    world.create_body(box({0, -0.5f, 0}, {10, 0.5f, 10}, 0.0f));
    const tumble::BodyId id = world.create_body(box({0, 0.5f, 0}));
    for (int i = 0; i < 60; ++i) world.step(kDt);
    ASSERT_TRUE(world.body(id).sleeping);
    // A ray down onto the box's top face, off its centre.
    tumble::BodyId hit;
    std::optional<Grab> g = grab_body(world, {{0.2f, 5, 0.1f}, {0, -1, 0}}, &hit);
    ASSERT_TRUE(g);
    EXPECT_EQ(hit, id);
    EXPECT_EQ(g->body, id);
    EXPECT_NEAR(g->distance, 4.0f, 1e-4f);
    EXPECT_NEAR(glm::length(grab_anchor(world, *g) - glm::vec3(0.2f, 1.0f, 0.1f)), 0.0f, 1e-5f);
    g->target = {1.0f, 3.0f, -0.5f};
    for (int i = 0; i < 90; ++i) {
        pull_grabbed(world, *g, kDt);
        world.step(kDt);
    }
    EXPECT_LT(glm::length(grab_anchor(world, *g) - g->target), 0.05f);
    // Static bodies and the level are not grabbed, but a static body is reported as hit.
    EXPECT_FALSE(grab_body(world, {{5, 5, 5}, {0, -1, 0}}, &hit));
    EXPECT_FALSE(hit.is_null());
    EXPECT_FALSE(grab_body(world, {{50, 5, 5}, {0, -1, 0}}, &hit));
    EXPECT_TRUE(hit.is_null());
    world.destroy_body(id);
    pull_grabbed(world, *g, kDt);  // a body gone is left alone
}

TEST(ViewerScenes, TheDemoListAndFiles) {
    const std::vector<Demo> demos = demo_scenes(kScenes, kLevels);
    std::vector<std::string> names;
    for (const Demo& d : demos) names.push_back(d.name);
    for (const char* expected : {"pyramid55", "stack10", "level_1000", "pyramid", "dominoes", "level:oa_dm1",
                                 "level:oa_rpg3dm2", "level:oasago2"})
        EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
    EXPECT_EQ(std::count_if(names.begin(), names.end(), [](const std::string& n) { return n.find("golden") != std::string::npos; }), 0);
    EXPECT_EQ(find_demo(demos, "nothing"), nullptr);
    EXPECT_TRUE(demo_scenes("/no/such/folder", "/nor/this").size() == 2u);  // the generated two

    const tumble::Scene pyramid = pyramid_scene(20);
    EXPECT_EQ(pyramid.boxes.size(), 1u + 210u);
    const tumble::Scene dominoes = domino_scene(40);
    ASSERT_EQ(dominoes.boxes.size(), 41u);
    {
        // The first domino turns about its bottom edge line: its bottom is still, its top moves at 3 m/s.
        const tumble::BodyDef& first = dominoes.boxes[1].def;
        const glm::vec3 up = glm::mat3_cast(first.orientation) * glm::vec3(0.0f, first.half_extents.y, 0.0f);
        EXPECT_NEAR(glm::length(first.velocity + glm::cross(first.angular_velocity, up)), 3.0f, 1e-5f);
        EXPECT_NEAR(glm::length(first.velocity - glm::cross(first.angular_velocity, up)), 0.0f, 1e-5f);
        // And the run topples: after 4 s the first ten dominoes lie tilted by more than 45 degrees.
        tumble::World w(dominoes.settings);
        const tumble::SceneInstance made = tumble::add_scene(w, dominoes);
        for (int n = 0; n < 240; ++n) w.step(kDt);
        for (std::size_t i = 1; i <= 10; ++i) {
            const glm::quat q = w.body(made.bodies[i]).orientation;
            const float tilt = std::acos(std::min(1.0f, std::abs((q * glm::vec3(0.0f, 1.0f, 0.0f)).y)));
            EXPECT_GT(tilt, glm::radians(45.0f)) << "domino " << i - 1;
        }
    }
    for (const tumble::Scene* s : {&pyramid, &dominoes}) {
        tumble::World w(s->settings);
        EXPECT_NO_THROW(tumble::add_scene(w, *s));
        w.step(kDt);
        // Nothing starts inside anything: no contact deeper than a millimetre after one step.
        for (const tumble::ContactRecord& c : w.contacts()) EXPECT_LT(c.contact.depth, 1e-3f);
    }
    const tumble::Aabb b = scene_bounds(pyramid);
    EXPECT_LE(b.min.y, -1.0f);
    EXPECT_NEAR(b.max.y, 20.0f, 1e-4f);

    const tumble::Scene level = open_scene(kLevels / "oa_dm1.obj", 50);
    EXPECT_EQ(level.boxes.size(), 50u);
    ASSERT_EQ(level.meshes.size(), 1u);
    EXPECT_EQ(level.meshes[0].mesh.triangle_count(), 7333u);
    EXPECT_EQ(open_scene(kScenes / "stack10.json").boxes.size(), 11u);
    EXPECT_THROW(open_scene(kScenes / "CMakeLists.txt"), tumble::InvalidArgument);
    EXPECT_THROW(open_scene("/no/such/level.obj"), tumble::FileError);
    EXPECT_THROW(open_scene("/no/such/scene.json"), tumble::FileError);
}

TEST(ViewerScenes, SnapshotsKeepTheStateAndTheNames) {
    const tumble::Scene scene = tumble::load_scene(kScenes / "stack10.json");
    tumble::WorldSettings settings = scene.settings;
    settings.solver.iterations = 33;
    tumble::World world(settings);
    const tumble::SceneInstance instance = tumble::add_scene(world, scene);
    for (int i = 0; i < 20; ++i) world.step(kDt);
    world.destroy_body(instance.bodies[3]);
    tumble::BodyDef thrown = box({4, 4, 0});
    thrown.velocity = {1, 2, 3};
    const tumble::BodyId extra = world.create_body(thrown);  // takes the freed slot
    const tumble::Scene snap = snapshot_scene(world, scene, instance, settings, 0.01f);
    EXPECT_EQ(snap.settings.solver.iterations, 33);
    EXPECT_EQ(snap.dt, 0.01f);
    ASSERT_EQ(snap.boxes.size(), world.body_count());
    std::size_t k = 0;
    world.for_each_body([&](tumble::BodyId id) {
        const tumble::BodyState b = world.body(id);
        const tumble::SceneBox& s = snap.boxes[k++];
        EXPECT_EQ(s.def.position, b.position);
        EXPECT_EQ(s.def.orientation, b.orientation);
        EXPECT_EQ(s.def.velocity, b.is_dynamic() ? b.velocity : glm::vec3(0.0f));
        EXPECT_EQ(s.def.mass, b.mass);
        if (id == extra) {
            EXPECT_TRUE(s.name.empty());
        } else {
            const auto i = std::find(instance.bodies.begin(), instance.bodies.end(), id) - instance.bodies.begin();
            EXPECT_EQ(s.name, scene.boxes[static_cast<std::size_t>(i)].name);
        }
    });
}

TEST(ViewerReadouts, StatsAndBodyRowsComeFromTheWorld) {
    tumble::World world;
    world.create_body(box({0, -0.5f, 0}, {10, 0.5f, 10}, 0.0f));
    const tumble::BodyId id = world.create_body(box({0, 0.49f, 0}));
    world.step(kDt);
    const std::vector<Readout> stats = step_stats_readouts(world);
    const auto value = [](const std::vector<Readout>& rows, const std::string& label) {
        for (const Readout& r : rows)
            if (r.label == label) return r.value;
        return std::string("missing");
    };
    EXPECT_EQ(value(stats, "bodies"), "2");
    EXPECT_EQ(value(stats, "awake"), std::to_string(world.stats().awake_bodies));
    EXPECT_EQ(value(stats, "contacts (step)"), std::to_string(world.stats().contacts));
    EXPECT_EQ(value(stats, "triangle pairs"), "0");
    const std::vector<Readout> rows = body_readouts(world, id);
    EXPECT_EQ(value(rows, "kind"), "dynamic");
    EXPECT_EQ(value(rows, "mass kg"), "1.000");
    EXPECT_EQ(value(rows, "layer / mask"), "0x1 / all");
    EXPECT_EQ(value(rows, "contacts"), std::to_string(world.contacts().size()));
    EXPECT_NE(value(rows, "id").find("generation 1"), std::string::npos);
    for (int i = 0; i < 60; ++i) world.step(kDt);
    EXPECT_EQ(value(body_readouts(world, id), "kind"), "dynamic, sleeping");
    world.destroy_body(id);
    EXPECT_THROW(body_readouts(world, id), tumble::InvalidArgument);
}

}  // namespace
