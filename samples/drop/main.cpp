// tumble-drop: drops boxes into a real Quake III level and reports how the pile ended.
//
//   tumble-drop [--level PATH] [--boxes N] [--steps S] [--seed K] [--dt SECONDS]
//
// Progress goes to stderr; the last line of stdout is one JSON object with the keys
// level, triangles, boxes, steps, ms_per_step, fell_through, max_penetration, resting, state_hash.

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <tumble/tumble.hpp>

#include "../common/drop_scene.hpp"

#ifndef TUMBLE_DEFAULT_LEVEL
#define TUMBLE_DEFAULT_LEVEL "samples/data/oa_dm1.obj"
#endif

int main(int argc, char** argv) {
    CLI::App app{"Drops boxes of random size and orientation into a real game level and steps the world."};
    std::string level = TUMBLE_DEFAULT_LEVEL;
    int boxes = 1000;
    int steps = 600;
    std::uint64_t seed = 1;
    double dt = 1.0 / 60.0;
    app.add_option("--level", level, "OBJ level file (metres, +Y up, '# spawn' lines)")->capture_default_str();
    app.add_option("--boxes", boxes, "number of boxes")->capture_default_str()->check(CLI::Range(1, 10000000));
    app.add_option("--steps", steps, "number of steps")->capture_default_str()->check(CLI::Range(0, 100000000));
    app.add_option("--seed", seed, "random seed of the spawn")->capture_default_str();
    app.add_option("--dt", dt, "step length in seconds")->capture_default_str()->check(CLI::PositiveNumber);
    CLI11_PARSE(app, argc, argv);

    try {
        const tumble::ObjFile file = tumble::load_obj(level);
        tumble::World world;
        world.add_mesh(file.mesh);
        float lowest = std::numeric_limits<float>::max();
        for (const glm::vec3& v : file.mesh.vertices) lowest = std::min(lowest, v.y);

        tumble::samples::DropOptions options;
        options.boxes = boxes;
        options.seed = seed;
        std::cerr << "tumble-drop: " << level << ": " << file.mesh.triangle_count() << " triangles; spawning "
                  << boxes << " boxes\n";
        std::vector<tumble::BodyId> ids;
        for (const tumble::BodyDef& def : tumble::samples::spawn_boxes(file.mesh, options))
            ids.push_back(world.create_body(def));

        const bool tty = isatty(STDERR_FILENO) != 0;
        double total_ms = 0.0;
        for (int s = 0; s < steps; ++s) {
            const auto t0 = std::chrono::steady_clock::now();
            world.step(static_cast<float>(dt));
            total_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            if (tty) {
                std::fprintf(stderr, "\rstep %d/%d  %.2f ms/step  %zu contacts   ", s + 1, steps, total_ms / (s + 1),
                             world.stats().contacts);
            } else if ((s + 1) % 60 == 0 || s + 1 == steps) {
                std::fprintf(stderr, "step %d/%d  %.2f ms/step  %zu contacts\n", s + 1, steps, total_ms / (s + 1),
                             world.stats().contacts);
            }
        }
        if (tty) std::fputc('\n', stderr);

        int fell = 0, resting = 0;
        for (tumble::BodyId id : ids) {
            const tumble::BodyState b = world.body(id);
            if (b.position.y < lowest) ++fell;
            if (glm::length(b.velocity) < 0.05f) ++resting;
        }
        float max_penetration = 0.0f;
        for (const tumble::ContactRecord& c : world.contacts()) max_penetration = std::max(max_penetration, c.contact.depth);

        nlohmann::ordered_json out;
        out["level"] = std::filesystem::path(level).filename().string();
        out["triangles"] = file.mesh.triangle_count();
        out["boxes"] = boxes;
        out["steps"] = steps;
        out["ms_per_step"] = steps > 0 ? total_ms / steps : 0.0;
        out["fell_through"] = fell;
        out["max_penetration"] = max_penetration;
        out["resting"] = resting;
        out["state_hash"] = tumble::samples::hex(tumble::samples::state_hash(world));
        std::cout << out.dump() << std::endl;
    } catch (const tumble::Error& e) {
        std::cerr << "tumble-drop: " << e.what() << "\n";
        return 2;
    }
    return 0;
}
