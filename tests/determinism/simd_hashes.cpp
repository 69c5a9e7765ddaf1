// tumble-simd-hashes: the state hash of scene runs and of a tumble-drop run with the batch SIMD narrowphase
// dispatched to each instruction set Highway compiled in and this CPU supports (AVX-512 as "AVX3", AVX2, SSE4,
// SSSE3, EMU128, ...), one at a time, and with the default dispatch. The step uses the batch overlap test for its
// swept-box culling (solver), and the soft step its SIMD position pass (solver/src/soft_positions.cpp) and the local
// passes of a coloured island's manifolds in lanes (solver/src/soft_lanes.cpp), all meant to give the scalar code's
// bits on every target; forcing a target forces it for all, and this checks that whole runs agree.
//
//   tumble-simd-hashes [--drop LEVEL.obj] [--drop-boxes N] [--drop-steps S] SCENE.json...
//
// Prints one line per run and target, "NAME TARGET HASH", where HASH is what `tumble run NAME` prints as its state
// hash (scenes) or what tumble-drop prints as state_hash (the drop run, seed 1, dt 1/60), and "NAME default HASH" for
// the default dispatch. Exit 0 when every run gives one hash on every target, 1 when a run differs, 2 for bad input.
// Targets are forced with hwy::SetSupportedTargetsForTest (Highway's hwy/targets.h), as the batch tests do.

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <hwy/targets.h>

#include <tumble/narrowphase/batch.hpp>
#include <tumble/tumble.hpp>

#include "drop_scene.hpp"
#include "scene_tools.hpp"

namespace {

struct Job {
    std::string name;
    std::function<std::uint64_t()> run;
};

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr, "tumble-simd-hashes: %s\nusage: tumble-simd-hashes [--drop LEVEL.obj] [--drop-boxes N] "
                         "[--drop-steps S] SCENE.json...\n", why);
    std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<Job> jobs;
    std::string level;
    tumble::samples::DropOptions drop;
    int drop_steps = 600;
    std::vector<std::string> scenes;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage(("missing value after " + a).c_str());
            return argv[++i];
        };
        if (a == "--drop") level = value();
        else if (a == "--drop-boxes") drop.boxes = std::atoi(value().c_str());
        else if (a == "--drop-steps") drop_steps = std::atoi(value().c_str());
        else if (!a.empty() && a[0] == '-') usage(("unknown option " + a).c_str());
        else scenes.push_back(a);
    }
    if (scenes.empty() && level.empty()) usage("nothing to run");
    if (drop.boxes < 1 || drop_steps < 0) usage("--drop-boxes must be >= 1 and --drop-steps >= 0");

    std::vector<tumble::Scene> loaded;  // outlives the jobs that refer to its scenes
    loaded.reserve(scenes.size());
    try {
        for (const std::string& s : scenes) loaded.push_back(tumble::load_scene(s));
        for (std::size_t k = 0; k < loaded.size(); ++k)
            jobs.push_back({scenes[k], [&scene = loaded[k]]() {
                                tumble::cli::SceneRun run(scene);
                                run.run_to(scene.steps);
                                return tumble::cli::state_hash(run.snapshot());
                            }});
        if (!level.empty())
            jobs.push_back({"tumble-drop:" + level, [&]() {
                                return tumble::samples::run_drop(level, drop, drop_steps, 1.0f / 60.0f).state_hash;
                            }});
    } catch (const tumble::Error& e) {
        std::fprintf(stderr, "tumble-simd-hashes: %s\n", e.what());
        return 2;
    }

    std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
    int differing = 0;
    for (const Job& job : jobs) {
        std::map<std::uint64_t, std::vector<std::string>> by_hash;
        for (std::int64_t target : targets) {
            hwy::SetSupportedTargetsForTest(target);
            const std::uint64_t h = job.run();
            std::printf("%s %s %s\n", job.name.c_str(), tumble::batch_target_name(), tumble::samples::hex(h).c_str());
            std::fflush(stdout);
            by_hash[h].push_back(tumble::batch_target_name());
        }
        hwy::SetSupportedTargetsForTest(0);
        const std::uint64_t h = job.run();
        std::printf("%s default %s\n", job.name.c_str(), tumble::samples::hex(h).c_str());
        by_hash[h].push_back("default");
        if (by_hash.size() != 1) {
            ++differing;
            std::fprintf(stderr, "tumble-simd-hashes: %s gives %zu different hashes across targets\n", job.name.c_str(),
                         by_hash.size());
        }
    }
    std::fprintf(stderr, "tumble-simd-hashes: %zu runs on %zu targets: %s\n", jobs.size(), targets.size(),
                 differing ? "DIFFERENT hashes" : "one hash per run");
    return differing ? 1 : 0;
}
