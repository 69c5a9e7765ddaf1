// hello: the smallest program that embeds Tumble. A static floor, a box dropped on it, one second of steps.
//
// Build it on its own against an installed Tumble (find_package), or as part of Tumble's samples.

#include <cstdio>

#include <tumble/tumble.hpp>

int main() {
    tumble::World world;  // gravity -9.81 m/s^2 along y, default solver settings

    // A static floor: two triangles, counter-clockwise seen from above (front face up).
    tumble::TriangleMesh floor;
    floor.vertices = {{-10, 0, -10}, {10, 0, -10}, {10, 0, 10}, {-10, 0, 10}};
    floor.indices = {0, 2, 1, 0, 3, 2};
    world.add_mesh(floor);

    tumble::BodyDef box;
    box.position = {0.0f, 2.0f, 0.0f};
    box.half_extents = {0.5f, 0.25f, 0.5f};
    const tumble::BodyId id = world.create_body(box);

    for (int step = 0; step < 60; ++step) world.step(1.0f / 60.0f);

    const tumble::BodyState s = world.body(id);
    std::printf("box at y = %.4f m (rests at 0.25), speed %.4f m/s, %zu contact(s)\n", s.position.y,
                glm::length(s.velocity), world.contacts().size());
    return s.position.y > 0.24f && s.position.y < 0.26f ? 0 : 1;
}
