// World: ids, bad input, free fall, resting on real level floors, stacking, friction on slopes, determinism,
// OBJ loading errors.

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include <unistd.h>

#include <gtest/gtest.h>

#include <tumble/tumble.hpp>

#include "support/test_util.hpp"

namespace {

using tumble::BodyDef;
using tumble::BodyId;
using tumble::World;

using testutil::kBundledLevel;
constexpr float kDt = 1.0f / 60.0f;

BodyDef box_at(glm::vec3 p, glm::vec3 h = glm::vec3(0.5f), float mass = 1.0f) {
    BodyDef d;
    d.position = p;
    d.half_extents = h;
    d.mass = mass;
    return d;
}

// Bitwise digest of every body's position and velocity.
std::vector<std::uint32_t> digest(const World& w) {
    std::vector<std::uint32_t> out;
    w.for_each_body([&](BodyId id) {
        const tumble::BodyState s = w.body(id);
        for (float v : {s.position.x, s.position.y, s.position.z, s.velocity.x, s.velocity.y, s.velocity.z}) {
            std::uint32_t bits;
            std::memcpy(&bits, &v, 4);
            out.push_back(bits);
        }
    });
    return out;
}

TEST(World, IdsAreStableAndStaleIdsAreRejected) {
    World w;
    const BodyId a = w.create_body(box_at({0, 0, 0}));
    const BodyId b = w.create_body(box_at({5, 0, 0}));
    EXPECT_TRUE(w.is_valid(a));
    w.destroy_body(a);
    EXPECT_FALSE(w.is_valid(a));
    EXPECT_THROW(w.body(a), tumble::InvalidArgument);
    EXPECT_THROW(w.destroy_body(a), tumble::InvalidArgument);
    const BodyId c = w.create_body(box_at({9, 0, 0}));
    EXPECT_EQ(c.index, a.index);  // slot reused...
    EXPECT_NE(c.generation, a.generation);  // ...under a new generation
    EXPECT_FALSE(w.is_valid(a));
    EXPECT_TRUE(w.is_valid(b));
    EXPECT_EQ(w.body(c).position, glm::vec3(9, 0, 0));
    EXPECT_EQ(w.body_count(), 2u);
    EXPECT_FALSE(w.is_valid(BodyId{}));
}

TEST(World, BadInputIsRejectedAndTheWorldIsUnchanged) {
    World w;
    w.create_body(box_at({0, 2, 0}));
    w.create_body(box_at({0.2f, 3.1f, 0}));
    w.add_mesh({{{-5, 0, 5}, {5, 0, 5}, {0, 0, -5}}, {0, 1, 2}});
    World control;
    control.create_body(box_at({0, 2, 0}));
    control.create_body(box_at({0.2f, 3.1f, 0}));
    control.add_mesh({{{-5, 0, 5}, {5, 0, 5}, {0, 0, -5}}, {0, 1, 2}});

    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    auto expect_rejected = [&](auto&& call, const char* needle) {
        try {
            call();
            ADD_FAILURE() << "no exception for " << needle;
        } catch (const tumble::InvalidArgument& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
        }
    };
    BodyDef d = box_at({nan, 0, 0});
    expect_rejected([&] { w.create_body(d); }, "position");
    d = box_at({0, 0, 0}, {0.5f, -0.1f, 0.5f});
    expect_rejected([&] { w.create_body(d); }, "half_extents");
    d = box_at({0, 0, 0});
    d.mass = -1;
    expect_rejected([&] { w.create_body(d); }, "mass");
    // A dynamic mass above 0 but below a milligram: its inverse times a contact impulse overflowed to a NaN pose.
    d = box_at({0, 0, 0});
    d.mass = std::numeric_limits<float>::min();
    expect_rejected([&] { w.create_body(d); }, "kMinDynamicMass");
    d = box_at({0, 0, 0});
    d.orientation = glm::quat(2, 0, 0, 0);
    expect_rejected([&] { w.create_body(d); }, "orientation");
    d = box_at({0, 0, 0});
    d.velocity.z = inf;
    expect_rejected([&] { w.create_body(d); }, "velocity");
    expect_rejected([&] { w.step(0.0f); }, "dt");
    expect_rejected([&] { w.step(nan); }, "dt");
    expect_rejected([&] { w.step(-kDt); }, "dt");
    expect_rejected([&] { w.step(6.1e-42f); }, "kMinStep");  // denormal: the substep's division overflowed to NaN
    expect_rejected([&] { w.step(0.5f * tumble::kMinStep); }, "kMinStep");
    BodyId first{};
    w.for_each_body([&](BodyId id) { if (first.is_null()) first = id; });
    expect_rejected([&] { w.set_position(first, {0, nan, 0}); }, "position");
    expect_rejected([&] { w.set_orientation(first, glm::quat(0, 0, 0, 0)); }, "orientation");
    expect_rejected([&] { w.add_mesh({{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}, {0, 1, 2}}); }, "triangle 0");
    expect_rejected([&] { w.add_mesh({{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}}, {0, 1, 2, 0, 1, 7}}); }, "triangle 1");
    expect_rejected([&] { w.add_mesh({{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}}, {0, 1}}); }, "multiple of 3");
    expect_rejected([&] { w.add_mesh({{{0, 0, 0}, {1, nan, 0}, {0, 0, 1}}, {0, 1, 2}}); }, "vertex 1");
    expect_rejected([&] { w.destroy_body(BodyId{99, 1}); }, "body id");
    tumble::WorldSettings bad;
    bad.solver.iterations = 0;
    expect_rejected([&] { w.set_settings(bad); }, "iterations");

    EXPECT_EQ(w.body_count(), 2u);
    for (int s = 0; s < 120; ++s) {
        w.step(kDt);
        control.step(kDt);
    }
    EXPECT_EQ(digest(w), digest(control)) << "a rejected call changed the world";
}

TEST(World, FreeFallFollowsTheIntegrator) {
    // Symplectic Euler in the solver's substeps of h = dt / substeps: v_k = v0 + k g h, y_k = y0 + h sum_j v_j.
    World w;
    BodyDef d = box_at({1, 100, 2});
    d.velocity = {1, 5, 0};
    const BodyId id = w.create_body(d);
    const int substeps = w.settings().solver.substeps;
    const double h = static_cast<double>(kDt) / substeps;
    double y = 100, vy = 5, x = 1;
    for (int n = 0; n < 120; ++n) {
        w.step(kDt);
        for (int k = 0; k < substeps; ++k) {
            vy += -9.81 * h;
            y += vy * h;
            x += 1.0 * h;
        }
    }
    const tumble::BodyState s = w.body(id);
    EXPECT_NEAR(s.position.y, y, 1e-3);
    EXPECT_NEAR(s.position.x, x, 1e-4);
    EXPECT_NEAR(s.velocity.y, vy, 1e-3);
    EXPECT_TRUE(w.contacts().empty());
}

TEST(World, BoxRestsOnRealLevelFloorsWithoutSinkingOrDrifting) {
    // A box set just above the floor under every spawn point of every level, turned about the vertical, for 600 steps.
    const std::vector<std::filesystem::path> levels = testutil::real_levels();
    int boxes = 0;
    for (const auto& path : levels) {
        const tumble::ObjFile file = tumble::load_obj(path);
        std::vector<tumble::Triangle> tris;
        for (std::size_t t = 0; t < file.mesh.triangle_count(); ++t) tris.push_back(file.mesh.triangle(t));
        const tumble::MeshIndex index(tris);
        World w;
        w.add_mesh(file.mesh);
        std::vector<std::pair<BodyId, glm::vec3>> placed;
        testutil::Random rng(17);
        for (const tumble::SpawnPoint& s : file.spawns) {
            const auto hit = index.raycast(s.position, {0, -1, 0}, 10.0f);
            ASSERT_TRUE(hit);
            const glm::vec3 h(0.3f, 0.2f, 0.25f);
            BodyDef d = box_at(hit->point + glm::vec3(0, h.y + 0.01f, 0), h);
            d.orientation = glm::quat_cast(testutil::rotation_about({0, 1, 0}, rng.uniform(0, 6.28)));
            placed.push_back({w.create_body(d), hit->point + glm::vec3(0, h.y, 0)});
        }
        for (int n = 0; n < 600; ++n) w.step(kDt);
        for (const auto& [id, rest] : placed) {
            const tumble::BodyState s = w.body(id);
            EXPECT_NEAR(s.position.y, rest.y, 0.005f) << path.filename() << ": sank or floated";
            EXPECT_LT(glm::length(glm::vec2(s.position.x - rest.x, s.position.z - rest.z)), 0.005f)
                << path.filename() << ": drifted";
            EXPECT_LT(glm::length(s.velocity), 0.01f);
            ++boxes;
        }
    }
    EXPECT_GE(boxes, 8);
}

TEST(World, StackOfTenBoxesStandsOnAStaticBox) {
    World w;
    w.create_body(box_at({0, -0.5f, 0}, {5, 0.5f, 5}, 0.0f));  // static ground box
    std::vector<BodyId> stack;
    for (int i = 0; i < 10; ++i) stack.push_back(w.create_body(box_at({0, 0.25f + 0.501f * static_cast<float>(i), 0}, glm::vec3(0.25f))));
    for (int n = 0; n < 600; ++n) w.step(kDt);
    for (int i = 0; i < 10; ++i) {
        const glm::vec3 p = w.body(stack[static_cast<std::size_t>(i)]).position;
        EXPECT_LT(std::abs(p.x) + std::abs(p.z), 0.01f) << i;
        EXPECT_NEAR(p.y, 0.25f + 0.5f * static_cast<float>(i), 0.02f) << i;
    }
    float deepest = 0;
    for (const tumble::ContactRecord& c : w.contacts()) deepest = std::max(deepest, c.contact.depth);
    EXPECT_LT(deepest, 0.01f);
}

// A box on a plane tilted by `degrees` about z, started at rest; returns how far it slid along the slope in `seconds`.
float slide_distance(float degrees, float seconds) {
    World w;
    const float a = glm::radians(degrees);
    const glm::vec3 down_slope{-std::cos(a), -std::sin(a), 0.0f};  // the plane rises towards +x
    const glm::vec3 normal{-std::sin(a), std::cos(a), 0.0f};
    const glm::vec3 side{0, 0, 1};
    tumble::TriangleMesh plane;
    const glm::vec3 u = -down_slope;
    plane.vertices = {-u * 20.0f - side * 20.0f, u * 20.0f - side * 20.0f, u * 20.0f + side * 20.0f, -u * 20.0f + side * 20.0f};
    plane.indices = {0, 2, 1, 0, 3, 2};
    EXPECT_GT(glm::dot(plane.triangle(0).scaled_normal(), normal), 0.0f);
    w.add_mesh(plane);
    BodyDef d = box_at(normal * 0.2501f, glm::vec3(0.25f));
    d.orientation = glm::quat_cast(testutil::rotation_about({0, 0, 1}, a));
    const BodyId id = w.create_body(d);
    for (int n = 0; n < static_cast<int>(std::lround(seconds / kDt)); ++n) w.step(kDt);
    return glm::dot(w.body(id).position - d.position, down_slope);
}

TEST(World, CoulombFrictionOnSlopes) {
    // The default friction 0.6 (box and mesh alike, so 0.6 for the pair) holds up to atan(0.6) = 31 degrees: the
    // box only settles the 0.1 mm gap it starts in and the 1 mm slop.
    EXPECT_LT(std::abs(slide_distance(20.0f, 2.0f)), 0.002f);
    EXPECT_LT(std::abs(slide_distance(29.0f, 2.0f)), 0.002f);
    // Steeper slopes slide with the same coefficient: s = g (sin a - 0.6 cos a) t^2 / 2.
    for (float deg : {35.0f, 45.0f}) {
        const float a = glm::radians(deg);
        const float expect = 9.81f * (std::sin(a) - 0.6f * std::cos(a)) * 0.5f;  // after 1 s
        EXPECT_NEAR(slide_distance(deg, 1.0f), expect, 0.1f * expect) << deg;
    }
}

TEST(World, RepeatedRunsAreBitIdentical) {
    auto run = [] {
        World w;
        w.add_mesh(tumble::load_obj(kBundledLevel).mesh);
        testutil::Random rng(5);
        for (int i = 0; i < 60; ++i) {
            BodyDef d = box_at(glm::vec3(8.2f, 2.0f, -29.4f) + rng.vec(-2, 2) + glm::vec3(0, 0.1f * static_cast<float>(i), 0),
                               rng.vec(0.1, 0.4));
            d.orientation = rng.rotation();
            w.create_body(d);
        }
        for (int n = 0; n < 200; ++n) w.step(kDt);
        return digest(w);
    };
    EXPECT_EQ(run(), run());
}

TEST(World, ContactsOfTheLastStepAreReadable) {
    World w;
    const BodyId ground = w.create_body(box_at({0, -0.5f, 0}, {5, 0.5f, 5}, 0.0f));
    const BodyId box = w.create_body(box_at({0, 0.5f, 0}));
    const tumble::MeshId mesh = w.add_mesh({{{10, 0, 5}, {20, 0, 5}, {15, 0, -5}}, {0, 1, 2}});
    const BodyId on_mesh = w.create_body(box_at({15, 0.5f, 0}));
    w.step(kDt);
    bool saw_pair = false, saw_mesh = false;
    for (const tumble::ContactRecord& c : w.contacts()) {
        if (c.a == ground && c.b == box) {
            saw_pair = true;
            EXPECT_NEAR(c.contact.normal.y, 1.0f, 1e-5f);  // from the ground up to the box
        }
        if (c.a == on_mesh && c.mesh == mesh) {
            saw_mesh = true;
            EXPECT_TRUE(c.b.is_null());
            EXPECT_EQ(c.triangle, 0u);
            EXPECT_NEAR(c.contact.normal.y, -1.0f, 1e-5f);  // from the box down to the triangle
        }
    }
    EXPECT_TRUE(saw_pair);
    EXPECT_TRUE(saw_mesh);
    EXPECT_EQ(w.mesh_triangle_count(mesh), 1u);
    w.remove_mesh(mesh);
    EXPECT_THROW(w.mesh_triangle_count(mesh), tumble::InvalidArgument);
}

TEST(World, BodiesTooFarOutForTheBroadphaseAreRefusedAndTheWorldIsUnchanged) {
    // Found by fuzz_world: create_body at x = 3e38 never returned (the loose octree's root grew without end).
    tumble::World w;
    tumble::BodyDef def;
    const tumble::BodyId keep = w.create_body(def);
    def.position = {3e38f, 0.0f, 0.0f};
    EXPECT_THROW(w.create_body(def), tumble::InvalidArgument);
    def.position = {0.0f, 0.0f, 0.0f};
    def.half_extents = {3e38f, 1.0f, 1.0f};
    EXPECT_THROW(w.create_body(def), tumble::InvalidArgument);
    EXPECT_EQ(w.body_count(), 1u);
    EXPECT_EQ(w.body(keep).position, glm::vec3(0.0f));
    w.step(1.0f / 60.0f);
    EXPECT_TRUE(std::isfinite(w.body(keep).position.y));
}

// --- OBJ loading --------------------------------------------------------------------------------------------------

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
    const std::filesystem::path p = std::filesystem::temp_directory_path() / ("tumble_test_" + name);
    std::ofstream(p) << text;
    return p;
}

TEST(ObjLoading, RealLevelsLoadWithTheirCountsAndSpawns) {
    const tumble::ObjFile f = tumble::load_obj(kBundledLevel);
    EXPECT_EQ(f.mesh.triangle_count(), 7333u);
    EXPECT_EQ(f.mesh.vertices.size(), 4284u);
    EXPECT_EQ(f.spawns.size(), 8u);
    EXPECT_EQ(f.spawns[0].class_name, "info_player_deathmatch");
    EXPECT_EQ(f.mesh.validate(), "");
}

TEST(ObjLoading, ErrorsNameTheFileAndLine) {
    auto expect_error = [](const std::filesystem::path& p, const std::string& needle) {
        try {
            tumble::load_obj(p);
            ADD_FAILURE() << "no error for " << p;
        } catch (const tumble::FileError& e) {
            EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(p.filename().string()), std::string::npos) << e.what();
        }
    };
    expect_error("/nonexistent/level.obj", "cannot open");
    expect_error(write_temp("a.obj", "v 0 0 0\nv 1 abc 0\nv 0 1 0\nf 1 2 3\n"), ":2:");
    expect_error(write_temp("b.obj", "v 0 0 0\nv 1 0 0\nv 0 1\nf 1 2 3\n"), ":3:");
    expect_error(write_temp("c.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n"), ":4:");
    expect_error(write_temp("d.obj", "v 0 0 0\nv 1 0 nan\nv 0 1 0\nf 1 2 3\n"), ":2:");
    expect_error(write_temp("e.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 0 2\n"), ":4:");
    expect_error(write_temp("f.obj", "v 0 0 0\n# spawn info_player 1 two 3\n"), ":2:");
    // A well-formed file with negative (relative) indices and quads loads.
    const tumble::ObjFile ok = tumble::load_obj(write_temp("g.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf -4 -3 -2 -1\n"));
    EXPECT_EQ(ok.mesh.triangle_count(), 2u);
    // Degenerate triangles are kept for validate() to report, or dropped on request.
    const auto degen = write_temp("h.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 4\n");
    EXPECT_NE(tumble::load_obj(degen).mesh.validate(), "");
    EXPECT_EQ(tumble::load_obj(degen, true).mesh.triangle_count(), 1u);
}

TEST(ObjLoading, MaterialLibrariesAreNotOpened) {
    // A 'mtllib' line made tinyobjloader open that file beside the OBJ; one naming /dev/zero (through '..') was read
    // for ever, growing a line until memory ran out (the fuzz target's run hit its memory limit). Materials are not
    // used, so load_obj gives tinyobjloader the text alone. The load runs in a child process that an alarm ends.
    const std::filesystem::path dir = std::filesystem::temp_directory_path();
    const std::filesystem::path zero = std::filesystem::relative("/dev/zero", dir);
    const auto p = write_temp("mtllib.obj", "mtllib " + zero.string() + "\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl x\nf 1 2 3\n");
    EXPECT_EXIT(
        {
            alarm(10);
            std::exit(tumble::load_obj(p).mesh.triangle_count() == 1 ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

TEST(ObjLoading, LoneCarriageReturnsEndLinesForTheCheckToo) {
    // Found by fuzz_load_obj: tinyobjloader ends a line at a lone "\r", the line check did not, so "#\rf 1 2 9" was a
    // comment to the check and a face using vertex 9 of 3 to tinyobjloader. load_obj returned the out-of-range index
    // (and read past the vertices with drop_degenerate). Now both split lines alike and the face is refused.
    const auto p = write_temp("cr.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n#\rf 1 2 9\n");
    for (bool drop : {false, true}) {
        try {
            tumble::load_obj(p, drop);
            ADD_FAILURE() << "no error for a face with vertex 9 of 3 (drop_degenerate " << drop << ")";
        } catch (const tumble::FileError& e) {
            EXPECT_NE(std::string(e.what()).find(":5: vertex index 9 is out of range"), std::string::npos) << e.what();
        }
    }
    // Old Mac line ends and CRLF load like "\n".
    for (const char* end : {"\r", "\r\n"}) {
        std::string text;
        for (const char* line : {"v 0 0 0", "v 1 0 0", "v 0 1 0", "f 1 2 3"}) text += std::string(line) + end;
        EXPECT_EQ(tumble::load_obj(write_temp("ends.obj", text)).mesh.triangle_count(), 1u);
    }
}

}  // namespace
