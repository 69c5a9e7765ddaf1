// tumble-raycast: queries on a world (docs/game.md, "Queries").
//
// Loads the bundled level, drops a crate at every spawn point and lets them settle, then:
//   - casts a bullet ray from each spawn point and prints what it hits (raycast, closest hit);
//   - checks which crates each spawn point can see (line of sight: is the first hit towards a crate that crate?);
//   - lists everything a ray passes through (raycast_all), crates and level triangles, sorted by distance;
//   - asks what overlaps a box around a crate (overlap_box);
//   - casts rays that see only the level, only layer 1, and one that wakes the crate it hits.
//
//   tumble-raycast [LEVEL.obj]

#include <cstdio>

#include <tumble/tumble.hpp>

#ifndef TUMBLE_DEFAULT_LEVEL
#define TUMBLE_DEFAULT_LEVEL "samples/data/oa_dm1.obj"
#endif

namespace {

void print_hit(const char* what, const tumble::RaycastHit& h) {
    if (!h.body.is_null())
        std::printf("  %s: body %u at %.3f m, point (%.2f, %.2f, %.2f), normal (%.2f, %.2f, %.2f)\n", what, h.body.index,
                    static_cast<double>(h.distance), static_cast<double>(h.point.x), static_cast<double>(h.point.y),
                    static_cast<double>(h.point.z), static_cast<double>(h.normal.x), static_cast<double>(h.normal.y),
                    static_cast<double>(h.normal.z));
    else
        std::printf("  %s: level triangle %u at %.3f m, point (%.2f, %.2f, %.2f), normal (%.2f, %.2f, %.2f)\n", what,
                    h.triangle, static_cast<double>(h.distance), static_cast<double>(h.point.x),
                    static_cast<double>(h.point.y), static_cast<double>(h.point.z), static_cast<double>(h.normal.x),
                    static_cast<double>(h.normal.y), static_cast<double>(h.normal.z));
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const tumble::ObjFile level = tumble::load_obj(argc > 1 ? argv[1] : TUMBLE_DEFAULT_LEVEL);
        tumble::World world;
        world.add_mesh(level.mesh);

        // A crate dropped from every spawn point, on layer 2 for every other one.
        std::vector<tumble::BodyId> crates;
        for (std::size_t i = 0; i < level.spawns.size(); ++i) {
            tumble::BodyDef crate;
            crate.position = level.spawns[i].position;
            crate.half_extents = glm::vec3(0.3f);
            crate.layer = i % 2 == 0 ? 1u : 2u;
            crates.push_back(world.create_body(crate));
        }
        for (int n = 0; n < 120; ++n) world.step(1.0f / 60.0f);
        std::printf("%zu crates dropped and settled; %zu asleep\n", crates.size(), world.stats().sleeping_bodies);

        std::printf("bullets along +x from each spawn point (raycast, 50 m):\n");
        for (const tumble::SpawnPoint& s : level.spawns)
            if (const auto hit = world.raycast(s.position, {1, 0, 0}, 50.0f)) print_hit(s.class_name.c_str(), *hit);

        std::printf("line of sight from each spawn point (eye 0.6 m up) to each crate (1 = visible):\n");
        for (std::size_t i = 0; i < level.spawns.size(); ++i) {
            const glm::vec3 eye = level.spawns[i].position + glm::vec3(0.0f, 0.6f, 0.0f);
            std::printf("  spawn %zu: ", i);
            for (tumble::BodyId crate : crates) {
                const glm::vec3 to = world.body(crate).position - eye;
                const auto hit = world.raycast(eye, to, glm::length(to) + 1.0f);
                std::printf("%d", hit && hit->body == crate ? 1 : 0);
            }
            std::printf("\n");
        }

        // Straight down onto the first crate from above it.
        const glm::vec3 top = world.body(crates.front()).position + glm::vec3(0.0f, 0.5f, 0.0f);
        std::printf("everything on a 5 m ray down through the first crate (raycast_all, back faces too):\n");
        tumble::QueryFilter both_sides;
        both_sides.back_faces = true;
        for (const tumble::RaycastHit& h : world.raycast_all(top, {0, -1, 0}, 5.0f, both_sides)) print_hit("hit", h);
        tumble::QueryFilter level_only;
        level_only.bodies = false;
        if (const auto hit = world.raycast(top, {0, -1, 0}, 5.0f, level_only)) print_hit("level only", *hit);
        const glm::vec3 top2 = world.body(crates[1]).position + glm::vec3(0.0f, 0.5f, 0.0f);
        tumble::QueryFilter layer1;
        layer1.mask = 1;
        if (const auto hit = world.raycast(top2, {0, -1, 0}, 5.0f, layer1)) print_hit("second crate (layer 2) unseen by a layer-1 ray", *hit);

        const tumble::Obb around{world.body(crates.front()).position, glm::mat3(1.0f), glm::vec3(0.5f)};
        const tumble::OverlapResult inside = world.overlap_box(around);
        std::printf("overlap_box of a 1 m cube around the first crate: %zu bodies, %zu level triangles\n",
                    inside.bodies.size(), inside.triangles.size());

        tumble::QueryFilter wake;
        wake.wake = true;
        if (const auto hit = world.raycast(top, {0, -1, 0}, 5.0f, wake); hit && !hit->body.is_null())
            std::printf("a ray with QueryFilter::wake hit body %u: asleep now? %s\n", hit->body.index,
                        world.body(hit->body).sleeping ? "yes" : "no");
    } catch (const tumble::Error& e) {
        std::fprintf(stderr, "tumble-raycast: %s\n", e.what());
        return 2;
    }
    return 0;
}
