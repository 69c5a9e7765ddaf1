// tumble-character: a kinematic box walked through a level with move_and_slide (docs/game.md, "Character
// controller").
//
// The game loop of a first-person player, without the rendering: every frame the wanted motion (run at 5 m/s
// towards a heading, jump now and then, gravity while in the air) goes to World::move_and_slide, which slides along
// walls, climbs steps, follows slopes down and says whether the player stands on the ground. Every half second the
// sample prints where the player is and what happened; at the end it checks with an overlap query that the player
// is not inside the level.
//
//   tumble-character [LEVEL.obj] [SECONDS]

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <tumble/tumble.hpp>

#ifndef TUMBLE_DEFAULT_LEVEL
#define TUMBLE_DEFAULT_LEVEL "samples/data/oa_dm1.obj"
#endif

int main(int argc, char** argv) {
    try {
        const tumble::ObjFile level = tumble::load_obj(argc > 1 ? argv[1] : TUMBLE_DEFAULT_LEVEL);
        const int seconds = argc > 2 ? std::atoi(argv[2]) : 20;
        tumble::World world;
        world.add_mesh(level.mesh);

        tumble::BodyDef player;
        player.position = level.spawns.front().position;
        player.half_extents = {0.3f, 0.8f, 0.3f};
        player.kinematic = true;  // moved by move_and_slide only
        const tumble::BodyId id = world.create_body(player);

        tumble::CharacterSettings settings;  // 45 degree slopes, 0.35 m steps, 5 mm skin
        const float dt = 1.0f / 60.0f;
        float heading = 0.0f, vy = 0.0f;
        bool grounded = false;
        int wall_hits = 0, steps_up = 0, jumps = 0;
        float walked = 0.0f;
        std::printf("frame   position (m)               ground  normal               walls steps jumps walked\n");
        for (int frame = 1; frame <= seconds * 60; ++frame) {
            if (frame % 120 == 0) heading += 1.3f;  // a new direction every 2 s
            if (grounded && frame % 200 == 0) {
                vy = 5.0f;  // jump
                ++jumps;
            }
            vy = grounded && vy <= 0.0f ? -1.0f : vy - 9.81f * dt;
            const glm::vec3 wanted = glm::vec3(std::cos(heading), 0.0f, std::sin(heading)) * (5.0f * dt) +
                                     glm::vec3(0.0f, vy * dt, 0.0f);
            const tumble::CharacterMove move = world.move_and_slide(id, wanted, settings);
            grounded = move.on_ground;
            if (move.hit_ceiling && vy > 0.0f) vy = 0.0f;
            if (move.hit_wall) {
                ++wall_hits;
                heading += 2.0f;  // turn away from the wall
            }
            steps_up += move.stepped_up;
            walked += std::hypot(move.displacement.x, move.displacement.z);
            world.step(dt);  // the rest of the world (nothing else here) goes on
            if (frame % 30 == 0)
                std::printf("%5d  (%7.2f %6.2f %7.2f)  %-6s (%5.2f %5.2f %5.2f)  %5d %5d %5d %6.1f\n", frame,
                            static_cast<double>(move.position.x), static_cast<double>(move.position.y),
                            static_cast<double>(move.position.z), move.on_ground ? "yes" : "no",
                            static_cast<double>(move.ground_normal.x), static_cast<double>(move.ground_normal.y),
                            static_cast<double>(move.ground_normal.z), wall_hits, steps_up, jumps,
                            static_cast<double>(walked));
        }
        tumble::QueryFilter not_me;
        not_me.ignore = id;
        const tumble::OverlapResult inside = world.overlap_box(world.obb(id), not_me);
        std::printf("walked %.1f m in %d s; the player's box overlaps %zu triangles and %zu bodies at the end\n",
                    static_cast<double>(walked), seconds, inside.triangles.size(), inside.bodies.size());
        return inside.empty() ? 0 : 1;
    } catch (const tumble::Error& e) {
        std::fprintf(stderr, "tumble-character: %s\n", e.what());
        return 2;
    }
}
