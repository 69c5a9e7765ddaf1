// tumble-debug-draw: the debug drawing interface (docs/game.md, "Debug drawing").
//
// A game implements tumble::DebugDraw with its renderer; this headless sample implements it twice: a counter that
// tallies what the world draws per colour, and a writer that saves the lines as a Wavefront OBJ ("l" elements) any
// 3D viewer can open. The scene: a few boxes dropped on a static floor box, some asleep, a kinematic platform and a
// sensor, drawn with every option on.
//
//   tumble-debug-draw [OUTPUT.obj]

#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <tuple>

#include <tumble/tumble.hpp>

namespace {

// Counts primitives per colour (line is the only required member: boxes and points arrive as lines).
class Tally : public tumble::DebugDraw {
public:
    void line(const glm::vec3&, const glm::vec3&, const glm::vec3& color) override { ++lines_[key(color)]; }
    void text(const glm::vec3&, std::string_view, const glm::vec3&) override { ++texts_; }
    void print() const {
        const std::pair<const char*, glm::vec3> names[] = {
            {"awake bodies", tumble::DebugColors::awake},     {"sleeping bodies", tumble::DebugColors::sleeping},
            {"static bodies", tumble::DebugColors::fixed},    {"kinematic bodies", tumble::DebugColors::kinematic},
            {"sensors", tumble::DebugColors::sensor},         {"proxies", tumble::DebugColors::proxy},
            {"octree cells", tumble::DebugColors::cell},      {"contact points and normals", tumble::DebugColors::contact},
            {"contact depths", tumble::DebugColors::depth}};
        for (const auto& [name, color] : names) {
            const auto it = lines_.find(key(color));
            std::printf("  %-28s %5d lines\n", name, it == lines_.end() ? 0 : it->second);
        }
        std::printf("  %-28s %5d labels\n", "text", texts_);
    }

private:
    static std::tuple<float, float, float> key(const glm::vec3& c) { return {c.x, c.y, c.z}; }
    std::map<std::tuple<float, float, float>, int> lines_;
    int texts_ = 0;
};

// Writes lines to an OBJ file.
class ObjWriter : public tumble::DebugDraw {
public:
    explicit ObjWriter(const std::string& path) : out_(path) {}
    void line(const glm::vec3& a, const glm::vec3& b, const glm::vec3&) override {
        out_ << "v " << a.x << ' ' << a.y << ' ' << a.z << "\nv " << b.x << ' ' << b.y << ' ' << b.z << '\n';
        out_ << "l " << count_ + 1 << ' ' << count_ + 2 << '\n';
        count_ += 2;
    }
    bool ok() const { return static_cast<bool>(out_); }
    int lines() const { return count_ / 2; }

private:
    std::ofstream out_;
    int count_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
    tumble::World world;
    tumble::BodyDef floor;
    floor.position = {0, -0.5f, 0};
    floor.half_extents = {6, 0.5f, 6};
    floor.mass = 0.0f;
    world.create_body(floor);
    for (int i = 0; i < 6; ++i) {
        tumble::BodyDef box;
        box.position = {-3.0f + 1.2f * static_cast<float>(i), 0.4f + 0.5f * static_cast<float>(i % 3), 0.0f};
        box.half_extents = glm::vec3(0.4f);
        box.orientation = glm::angleAxis(0.3f * static_cast<float>(i), glm::vec3(0, 1, 0));
        world.create_body(box);
    }
    for (int n = 0; n < 90; ++n) world.step(1.0f / 60.0f);  // they land and fall asleep
    tumble::BodyDef late;
    late.position = {0, 3, 2};
    late.half_extents = glm::vec3(0.3f);
    world.create_body(late);  // awake, falling
    tumble::BodyDef platform;
    platform.position = {3, 2, -3};
    platform.half_extents = {1, 0.1f, 1};
    platform.kinematic = true;
    platform.velocity = {0, 0, 0.5f};
    world.create_body(platform);
    tumble::BodyDef trigger;
    trigger.position = {-3, 1, 3};
    trigger.half_extents = glm::vec3(1.0f);
    trigger.mass = 0.0f;
    trigger.sensor = true;
    world.create_body(trigger);
    world.step(1.0f / 60.0f);

    tumble::DebugDrawOptions everything;
    everything.proxies = true;
    everything.octree_cells = true;
    everything.sleep_labels = true;
    everything.depth_labels = true;
    Tally tally;
    world.debug_draw(tally, everything);
    std::printf("%zu bodies (%zu asleep), %zu contacts; debug_draw with every option drew:\n", world.body_count(),
                world.stats().sleeping_bodies, world.contacts().size());
    tally.print();

    if (argc > 1) {
        ObjWriter obj(argv[1]);
        world.debug_draw(obj, everything);
        if (!obj.ok()) {
            std::fprintf(stderr, "tumble-debug-draw: cannot write %s\n", argv[1]);
            return 2;
        }
        std::printf("wrote %d lines to %s\n", obj.lines(), argv[1]);
    }
    return 0;
}
