// Debug drawing: the default shapes of DebugDraw, and what World::debug_draw shows for each option.

#include <algorithm>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include <tumble/tumble.hpp>

#include "support/game_scenes.hpp"

namespace {

using namespace gamescene;
using tumble::BodyId;
using tumble::DebugColors;
using tumble::World;

struct Line {
    glm::vec3 from, to, color;
};

// Implements only `line`: boxes and points come through the defaults.
struct LinesOnly : tumble::DebugDraw {
    std::vector<Line> lines;
    void line(const glm::vec3& a, const glm::vec3& b, const glm::vec3& c) override { lines.push_back({a, b, c}); }
};

// Records every call.
struct Recorder : tumble::DebugDraw {
    std::vector<Line> lines;
    std::vector<std::pair<tumble::Obb, glm::vec3>> boxes;
    std::vector<std::pair<glm::vec3, glm::vec3>> points;
    std::vector<std::pair<glm::vec3, std::string>> texts;
    void line(const glm::vec3& a, const glm::vec3& b, const glm::vec3& c) override { lines.push_back({a, b, c}); }
    void box(const tumble::Obb& o, const glm::vec3& c) override { boxes.push_back({o, c}); }
    void point(const glm::vec3& p, float, const glm::vec3& c) override { points.push_back({p, c}); }
    void text(const glm::vec3& p, std::string_view t, const glm::vec3&) override { texts.push_back({p, std::string(t)}); }
    std::size_t boxes_of(const glm::vec3& color) const {
        return static_cast<std::size_t>(std::count_if(boxes.begin(), boxes.end(), [&](const auto& b) { return b.second == color; }));
    }
    std::size_t lines_of(const glm::vec3& color) const {
        return static_cast<std::size_t>(std::count_if(lines.begin(), lines.end(), [&](const Line& l) { return l.color == color; }));
    }
};

TEST(DebugDraw, DefaultBoxIsItsTwelveEdgesAndPointIsThreeSegments) {
    LinesOnly draw;
    const tumble::Obb o{{1, 2, 3}, glm::mat3_cast(glm::angleAxis(0.5f, glm::normalize(glm::vec3(1, 2, 3)))), {0.5f, 1.0f, 1.5f}};
    draw.box(o, {1, 0, 0});
    ASSERT_EQ(draw.lines.size(), 12u);
    std::map<int, int> by_axis;  // edges per box axis, and their lengths
    for (const Line& l : draw.lines) {
        const glm::vec3 d = l.to - l.from;
        for (int i = 0; i < 3; ++i)
            if (std::abs(std::abs(glm::dot(d, o.axes[i])) - 2.0f * o.half_extents[i]) < 1e-4f) ++by_axis[i];
        for (const glm::vec3& end : {l.from, l.to}) {
            const auto corners = o.corners();
            EXPECT_TRUE(std::any_of(corners.begin(), corners.end(), [&](const glm::vec3& c) { return glm::length(c - end) < 1e-5f; }));
        }
    }
    EXPECT_EQ(by_axis[0], 4);
    EXPECT_EQ(by_axis[1], 4);
    EXPECT_EQ(by_axis[2], 4);
    draw.lines.clear();
    draw.point({1, 1, 1}, 0.2f, {0, 1, 0});
    ASSERT_EQ(draw.lines.size(), 3u);
    for (const Line& l : draw.lines) EXPECT_NEAR(glm::length(l.to - l.from), 0.2f, 1e-6f);
}

TEST(DebugDraw, WorldShowsBodiesByKindContactsProxiesCellsAndSleep) {
    World w;
    const BodyId ground = w.create_body(box({0, -0.5f, 0}, {5, 0.5f, 5}, 0.0f));
    const BodyId sleeper = w.create_body(box({-2, 0.5f, 0}));
    for (int n = 0; n < 90; ++n) w.step(kDt);
    ASSERT_TRUE(w.body(sleeper).sleeping);
    const BodyId falling = w.create_body(box({2, 0.499f, 0}));  // touching the ground at once
    tumble::BodyDef k = box({0, 3, 0}, glm::vec3(0.3f), 0.0f);
    k.kinematic = true;
    w.create_body(k);
    tumble::BodyDef s = box({0, 1, 3}, glm::vec3(0.5f), 0.0f);
    s.sensor = true;
    w.create_body(s);
    w.step(kDt);
    ASSERT_FALSE(w.body(falling).sleeping);

    Recorder r;
    w.debug_draw(r);  // defaults: bodies and contacts
    EXPECT_EQ(r.boxes.size(), w.body_count());
    EXPECT_EQ(r.boxes_of(DebugColors::fixed), 1u);
    EXPECT_EQ(r.boxes_of(DebugColors::sleeping), 1u);
    EXPECT_EQ(r.boxes_of(DebugColors::awake), 1u);
    EXPECT_EQ(r.boxes_of(DebugColors::kinematic), 1u);
    EXPECT_EQ(r.boxes_of(DebugColors::sensor), 1u);
    for (const auto& [o, color] : r.boxes) {
        bool matched = false;
        w.for_each_body([&](BodyId id) { matched = matched || w.obb(id).center == o.center; });
        EXPECT_TRUE(matched);
    }
    // A point, a normal and a depth segment per contact (the sleeping box's contact included).
    const auto contacts = w.contacts();
    ASSERT_EQ(contacts.size(), 2u);
    EXPECT_EQ(r.points.size(), contacts.size());
    EXPECT_EQ(r.lines_of(DebugColors::contact), contacts.size());
    EXPECT_EQ(r.lines_of(DebugColors::depth), contacts.size());
    for (const Line& l : r.lines) {
        const float length = glm::length(l.to - l.from);
        if (l.color == DebugColors::contact) {
            EXPECT_NEAR(length, 0.25f, 1e-5f);
        } else if (l.color == DebugColors::depth) {
            EXPECT_TRUE(std::any_of(contacts.begin(), contacts.end(),
                                    [&](const tumble::ContactRecord& c) { return std::abs(c.contact.depth - length) < 1e-5f; }));
        }
    }
    // Contact points lie on the ground's top face, under the boxes.
    for (const auto& [p, color] : r.points) {
        EXPECT_NEAR(p.y, 0.0f, 2e-3f);
        EXPECT_TRUE(std::abs(p.x + 2) <= 0.5f || std::abs(p.x - 2) <= 0.5f);
    }

    tumble::DebugDrawOptions all;
    all.bodies = false;
    all.contacts = false;
    all.proxies = true;
    all.octree_cells = true;
    all.sleep_labels = true;
    Recorder q;
    w.debug_draw(q, all);
    EXPECT_EQ(q.boxes_of(DebugColors::proxy), w.body_count());
    for (const auto& [o, color] : q.boxes) {
        if (color != DebugColors::proxy) continue;
        // Each proxy contains one body's box.
        bool contains = false;
        w.for_each_body([&](BodyId id) {
            const tumble::Aabb b = w.obb(id).aabb();
            contains = contains || (glm::all(glm::lessThanEqual(o.center - o.half_extents, b.min)) &&
                                    glm::all(glm::greaterThanEqual(o.center + o.half_extents, b.max)));
        });
        EXPECT_TRUE(contains);
    }
    const std::size_t cells = q.boxes_of(DebugColors::cell);
    EXPECT_GE(cells, 1u);
    EXPECT_LE(cells, w.body_count());
    for (const auto& [o, color] : q.boxes) {
        if (color != DebugColors::cell) continue;
        EXPECT_FLOAT_EQ(o.half_extents.x, o.half_extents.y);  // cubes
        const float side = 2.0f * o.half_extents.x;
        EXPECT_FLOAT_EQ(std::exp2(std::round(std::log2(side))), side) << "power-of-two fractions of the root (128 m)";
    }
    ASSERT_EQ(q.texts.size(), 1u);
    EXPECT_EQ(q.texts[0].second, "sleeping");
    EXPECT_GT(q.texts[0].first.y, w.body(sleeper).position.y);
    (void)ground;
}

// Overrides `body` as well: bodies arrive there with their ids, proxies and cells still through `box`.
struct BodyRecorder : Recorder {
    std::vector<std::pair<BodyId, tumble::Obb>> bodies;
    void body(BodyId id, const tumble::Obb& o, const glm::vec3&) override { bodies.push_back({id, o}); }
};

TEST(DebugDraw, BodiesComeWithTheirIds) {
    World w;
    const BodyId ground = w.create_body(box({0, -0.5f, 0}, {5, 0.5f, 5}, 0.0f));
    const BodyId a = w.create_body(box({-1, 2, 0}));
    const BodyId b = w.create_body(box({1, 2, 0}));
    w.destroy_body(a);
    const BodyId c = w.create_body(box({3, 2, 0}));  // reuses a's slot with a new generation
    w.step(kDt);
    tumble::DebugDrawOptions o;
    o.proxies = true;
    BodyRecorder r;
    w.debug_draw(r, o);
    ASSERT_EQ(r.bodies.size(), 3u);
    for (const auto& [id, obb] : r.bodies) {
        EXPECT_TRUE(w.is_valid(id));
        EXPECT_EQ(obb.center, w.obb(id).center);
    }
    EXPECT_TRUE(std::any_of(r.bodies.begin(), r.bodies.end(), [&](const auto& e) { return e.first == c; }));
    EXPECT_TRUE(std::any_of(r.bodies.begin(), r.bodies.end(), [&](const auto& e) { return e.first == ground; }));
    EXPECT_TRUE(std::any_of(r.bodies.begin(), r.bodies.end(), [&](const auto& e) { return e.first == b; }));
    EXPECT_EQ(r.boxes.size(), r.boxes_of(DebugColors::proxy));  // only proxies reach `box`
    EXPECT_EQ(r.boxes.size(), 3u);
}

TEST(DebugDraw, MeshesAndDepthLabels) {
    World w;
    w.add_mesh(box_mesh({-1, -1, -1}, {1, 0, 1}));
    w.create_body(box({0, 0.49f, 0}));
    w.step(kDt);
    tumble::DebugDrawOptions o;
    o.bodies = false;
    o.meshes = true;
    o.depth_labels = true;
    Recorder r;
    w.debug_draw(r, o);
    EXPECT_EQ(r.lines_of(DebugColors::fixed), 12u * 3u);
    EXPECT_EQ(r.texts.size(), w.contacts().size());
    for (const auto& t : r.texts) EXPECT_NE(t.second.find("mm"), std::string::npos);
}

}  // namespace
