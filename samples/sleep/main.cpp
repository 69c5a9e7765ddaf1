// tumble-sleep: bodies falling asleep and waking (docs/game.md, "Sleeping").
//
// Drops 300 boxes into the bundled level and prints, every half second, how many are awake and asleep and what a
// step cost. Then wakes them in the ways the engine offers: a box dropped onto a sleeping pile (touch), a ray that
// asks to wake what it hits, and a teleport (set_position), and shows the pile falling asleep again.
//
//   tumble-sleep [LEVEL.obj]

#include <chrono>
#include <cstdio>

#include <tumble/tumble.hpp>

#ifndef TUMBLE_DEFAULT_LEVEL
#define TUMBLE_DEFAULT_LEVEL "samples/data/oa_dm1.obj"
#endif

namespace {

double timed_step(tumble::World& world) {
    const auto t0 = std::chrono::steady_clock::now();
    world.step(1.0f / 60.0f);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void report(const tumble::World& world, int step, double ms) {
    std::printf("step %4d  awake %4zu  asleep %4zu  body pairs %5zu  triangle pairs %5zu  %.3f ms/step\n", step,
                world.stats().awake_bodies, world.stats().sleeping_bodies, world.stats().body_pairs,
                world.stats().triangle_pairs, ms);
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const tumble::ObjFile level = tumble::load_obj(argc > 1 ? argv[1] : TUMBLE_DEFAULT_LEVEL);
        tumble::World world;  // sleep is on by default: SleepSettings{enabled, 0.05 m/s, 0.5 s}
        world.add_mesh(level.mesh);
        std::vector<tumble::BodyId> boxes;
        const glm::vec3 spawn = level.spawns.front().position;
        // Room height above the spawn point, from a ray up (the level only: bodies are not there yet anyway).
        const auto ceiling = world.raycast(spawn, {0, 1, 0}, 50.0f);
        const float headroom = ceiling ? ceiling->distance : 10.0f;
        std::printf("ceiling %.2f m above the first spawn point\n", static_cast<double>(headroom));
        for (int i = 0; i < 300; ++i) {
            tumble::BodyDef box;
            const int column = i % 25;
            const int layer = i / 25, row = column / 5;  // whole layers and rows of the 5 x 5 grid
            box.position = spawn + glm::vec3(0.45f * static_cast<float>(column % 5) - 0.9f,
                                             0.45f * static_cast<float>(layer), 0.45f * static_cast<float>(row) - 0.9f);
            box.half_extents = glm::vec3(0.2f);
            boxes.push_back(world.create_body(box));
        }
        int step = 0;
        double ms = 0.0;
        auto run = [&](int steps) {
            for (int n = 0; n < steps; ++n) {
                ms += timed_step(world);
                if (++step % 30 == 0) {
                    report(world, step, ms / 30.0);
                    ms = 0.0;
                }
            }
        };
        std::printf("300 boxes dropped in columns at the first spawn point:\n");
        run(600);

        std::printf("a box dropped onto the sleeping pile wakes the island it lands on:\n");
        // Where is the pile? A ray down from the ceiling that sees bodies only.
        tumble::QueryFilter bodies_only;
        bodies_only.meshes = false;
        glm::vec3 target = spawn;
        for (const tumble::BodyId b : boxes) {
            const glm::vec3 p = world.body(b).position;
            if (p.y > target.y) target = p;  // the highest box
        }
        const auto top = world.raycast({target.x, spawn.y + headroom - 0.1f, target.z}, {0, -1, 0}, 50.0f, bodies_only);
        tumble::BodyDef extra;
        extra.position = top ? top->point + glm::vec3(0.0f, 1.0f, 0.0f) : spawn;
        extra.half_extents = glm::vec3(0.3f);
        world.create_body(extra);
        run(300);

        tumble::QueryFilter wake;
        wake.wake = true;
        if (const auto hit = world.raycast(spawn + glm::vec3(0.3f, headroom - 0.1f, 0.3f), {0, -1, 0}, 30.0f, wake);
            hit && !hit->body.is_null())
            std::printf("a ray with QueryFilter::wake hit body %u: sleeping now? %s (its island woke with it)\n",
                        hit->body.index, world.body(hit->body).sleeping ? "yes" : "no");
        run(60);

        world.set_position(boxes.front(), spawn + glm::vec3(0.0f, headroom - 0.5f, 0.0f));
        std::printf("set_position teleported box %u above the pile (it and the boxes next to its old place woke):\n",
                    boxes.front().index);
        run(300);
    } catch (const tumble::Error& e) {
        std::fprintf(stderr, "tumble-sleep: %s\n", e.what());
        return 2;
    }
    return 0;
}
