// tumble-sweep: swept boxes and continuous collision detection (docs/game.md, "Sweeps and CCD").
//
// 1. sweep_box: from each spawn point of the bundled level, a 0.6 m box is swept 20 m along +x and down 5 m; the
//    first time of impact, where the box stops and what it hit are printed.
// 2. The exact swept SAT of the narrowphase on its own: a box falling flat onto another.
// 3. CCD: a 0.5 m box thrown at 100 m/s at a wall 0.1 m thick, stepped at 60 Hz, without and with BodyDef::ccd.
//
//   tumble-sweep [LEVEL.obj]

#include <cstdio>

#include <tumble/tumble.hpp>

#ifndef TUMBLE_DEFAULT_LEVEL
#define TUMBLE_DEFAULT_LEVEL "samples/data/oa_dm1.obj"
#endif

namespace {

void throw_at_wall(bool ccd) {
    tumble::World world;
    tumble::BodyDef wall;
    wall.position = {5.05f, 2.0f, 0.0f};
    wall.half_extents = {0.05f, 2.0f, 4.0f};  // 0.1 m thick, front face at x = 5
    wall.mass = 0.0f;
    world.create_body(wall);
    tumble::BodyDef box;
    box.position = {0.0f, 2.0f, 0.0f};
    box.half_extents = glm::vec3(0.25f);
    box.velocity = {100.0f, 0.0f, 0.0f};
    box.ccd = ccd;
    const tumble::BodyId id = world.create_body(box);
    std::printf("  ccd %-5s x after each step:", ccd ? "on" : "off");
    for (int n = 0; n < 6; ++n) {
        world.step(1.0f / 60.0f);
        std::printf(" %.3f", static_cast<double>(world.body(id).position.x));
    }
    const float x = world.body(id).position.x;
    std::printf("  -> %s\n", x > 5.1f ? "passed through the wall" : "stopped at the wall (face at x = 4.75 for its centre)");
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const tumble::ObjFile level = tumble::load_obj(argc > 1 ? argv[1] : TUMBLE_DEFAULT_LEVEL);
        tumble::World world;
        world.add_mesh(level.mesh);

        std::printf("sweep_box of a 0.6 m box from each spawn point, 20 m along +x then 5 m down:\n");
        for (const tumble::SpawnPoint& s : level.spawns) {
            const tumble::Obb box{s.position, glm::mat3(1.0f), glm::vec3(0.3f)};
            for (const glm::vec3 d : {glm::vec3(20, 0, 0), glm::vec3(0, -5, 0)}) {
                if (const auto hit = world.sweep_box(box, d))
                    std::printf("  (%6.2f %5.2f %6.2f) by (%3.0f %3.0f %3.0f): toi %.4f, stops at (%6.2f %5.2f %6.2f), triangle %u, "
                                "normal (%5.2f %5.2f %5.2f)%s\n",
                                static_cast<double>(s.position.x), static_cast<double>(s.position.y),
                                static_cast<double>(s.position.z), static_cast<double>(d.x), static_cast<double>(d.y),
                                static_cast<double>(d.z), static_cast<double>(hit->toi), static_cast<double>(hit->position.x),
                                static_cast<double>(hit->position.y), static_cast<double>(hit->position.z), hit->triangle,
                                static_cast<double>(hit->normal.x), static_cast<double>(hit->normal.y),
                                static_cast<double>(hit->normal.z), hit->initially_overlapping ? " (already touching)" : "");
                else
                    std::printf("  (%6.2f %5.2f %6.2f) by (%3.0f %3.0f %3.0f): nothing in the way\n",
                                static_cast<double>(s.position.x), static_cast<double>(s.position.y),
                                static_cast<double>(s.position.z), static_cast<double>(d.x), static_cast<double>(d.y),
                                static_cast<double>(d.z));
            }
        }

        const tumble::Obb floor{{0, -0.5f, 0}, glm::mat3(1.0f), {5, 0.5f, 5}};
        const tumble::Obb falling{{0.3f, 2.0f, -0.2f}, glm::mat3(1.0f), glm::vec3(0.5f)};
        if (const auto hit = tumble::sweep(falling, glm::vec3(0, -3, 0), floor))
            std::printf("narrowphase sweep: a box 1.5 m above a floor, moved 3 m down, touches at toi %.4f on axis %d, "
                        "normal (%.0f %.0f %.0f)\n",
                        static_cast<double>(hit->toi), hit->axis, static_cast<double>(hit->normal.x),
                        static_cast<double>(hit->normal.y), static_cast<double>(hit->normal.z));

        std::printf("a 0.5 m box thrown at 100 m/s (1.67 m per step) at a wall 0.1 m thick:\n");
        throw_at_wall(false);
        throw_at_wall(true);
    } catch (const tumble::Error& e) {
        std::fprintf(stderr, "tumble-sweep: %s\n", e.what());
        return 2;
    }
    return 0;
}
