// tumble-drop: drops boxes into a real Quake III level and reports how the pile ended.
//
//   tumble-drop [--level PATH] [--boxes N] [--steps S] [--seed K] [--dt SECONDS] [--threads T] [--no-sleep]
//
//   --level PATH    OBJ level (default: the bundled samples/data/oa_dm1.obj)
//   --boxes N       boxes dropped (1000)
//   --steps S       steps taken (600)
//   --seed K        random seed of the spawn (1)
//   --dt SECONDS    step length (1/60)
//   --threads T     threads that step the world, 1..256 (1; the result is the same for any count)
//   --no-sleep      keep every body awake (sleeping is on by default)
//
// Progress goes to stderr; the last line of stdout is one JSON object with the keys
// level, triangles, boxes, steps, ms_per_step, fell_through, max_penetration, resting, state_hash, mean_tilt_deg
// (mean over resting boxes of the angle between the vertical and the box axis nearest to it, degrees) and energy_J
// (total kinetic energy at the end, joules).

#include <cstdio>
#include <iostream>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <tumble/tumble.hpp>

#include "drop_scene.hpp"

#ifndef TUMBLE_DEFAULT_LEVEL
#define TUMBLE_DEFAULT_LEVEL "samples/data/oa_dm1.obj"
#endif

int main(int argc, char** argv) {
    CLI::App app{"Drops boxes of random size and orientation into a real game level and steps the world."};
    std::string level = TUMBLE_DEFAULT_LEVEL;
    tumble::samples::DropOptions options;
    int steps = 600;
    double dt = 1.0 / 60.0;
    app.add_option("--level", level, "OBJ level file (metres, +Y up, '# spawn' lines)")->capture_default_str();
    app.add_option("--boxes", options.boxes, "number of boxes")->capture_default_str()->check(CLI::Range(1, 10000000));
    app.add_option("--steps", steps, "number of steps")->capture_default_str()->check(CLI::Range(0, 100000000));
    app.add_option("--seed", options.seed, "random seed of the spawn")->capture_default_str();
    app.add_option("--dt", dt, "step length in seconds")->capture_default_str()->check(CLI::PositiveNumber);
    app.add_option("--threads", options.threads, "threads that step the world (same result for any count)")
        ->capture_default_str()
        ->check(CLI::Range(1, 256));
    bool no_sleep = false;
    app.add_flag("--no-sleep", no_sleep, "keep every body awake (SleepSettings::enabled = false)");
    CLI11_PARSE(app, argc, argv);
    options.sleep = !no_sleep;

    const bool tty = isatty(STDERR_FILENO) != 0;
    auto progress = [&](int step, double ms, const tumble::World& world) {
        if (tty)
            std::fprintf(stderr, "\rstep %d/%d  %.2f ms/step  %zu contacts   ", step, steps, ms, world.stats().contacts);
        else if (step % 60 == 0 || step == steps)
            std::fprintf(stderr, "step %d/%d  %.2f ms/step  %zu contacts\n", step, steps, ms, world.stats().contacts);
    };
    try {
        std::cerr << "tumble-drop: " << level << ": spawning " << options.boxes << " boxes\n";
        const tumble::samples::DropResult r =
            tumble::samples::run_drop(level, options, steps, static_cast<float>(dt), progress);
        if (tty) std::fputc('\n', stderr);
        nlohmann::ordered_json out;
        out["level"] = r.level;
        out["triangles"] = r.triangles;
        out["boxes"] = r.boxes;
        out["steps"] = r.steps;
        out["ms_per_step"] = r.ms_per_step;
        out["fell_through"] = r.fell_through;
        out["max_penetration"] = r.max_penetration;
        out["resting"] = r.resting;
        out["state_hash"] = tumble::samples::hex(r.state_hash);
        out["mean_tilt_deg"] = r.mean_tilt_deg;
        out["energy_J"] = r.energy_J;
        std::cout << out.dump() << std::endl;
    } catch (const tumble::Error& e) {
        std::cerr << "tumble-drop: " << e.what() << "\n";
        return 2;
    }
    return 0;
}
