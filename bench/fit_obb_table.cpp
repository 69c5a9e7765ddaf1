// Prints the OBB fitting table of docs/narrowphase.md ("OBB fitting"): for each real mesh in tests/data/objects,
// the volume of the box of every fit_obb method and of the axis-aligned box, relative to the smallest box found by
// the slow search over orientations (tests/support/min_box_search.hpp), with fine settings. Run once by hand:
//     cmake --preset bench && cmake --build --preset bench --target tumble-fit-table && build/bench/bench/tumble-fit-table
// Optional arguments: grid directions (default 40000), seeds refined (default 24).

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <tumble/tumble.hpp>

#include "min_box_search.hpp"
#include "object_points.hpp"

int main(int argc, char** argv) {
    ref::SearchOptions options;
    options.grid = argc > 1 ? std::atoi(argv[1]) : 40000;
    options.seeds = argc > 2 ? std::atoi(argv[2]) : 24;
    options.final_step = 1e-7;
    const std::filesystem::path dir = std::filesystem::path(TUMBLE_SOURCE_DIR) / "tests/data/objects";
    const tumble::FitMethod methods[] = {tumble::FitMethod::covariance, tumble::FitMethod::hull_covariance,
                                         tumble::FitMethod::dito, tumble::FitMethod::dito_refined};
    std::printf("search: %d grid directions, %d refined, final step %g rad\n\n", options.grid, options.seeds,
                options.final_step);
    std::printf("| mesh | points | search minimum volume | AABB | covariance | hull_covariance | dito | dito_refined |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    int failures = 0;
    for (const testutil::RealObject& object : testutil::kRealObjects) {
        const std::vector<glm::dvec3> points = testutil::load_object_points(dir / object.file);
        std::vector<glm::vec3> fpoints(points.begin(), points.end());
        const auto t0 = std::chrono::steady_clock::now();
        const ref::BoxFit best = ref::min_volume_box(points, options);
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::fprintf(stderr, "%s: search %.1f s, %ld directions evaluated\n", object.file, seconds, best.evaluations);
        std::string row = "| " + std::string(object.file) + " | " + std::to_string(points.size()) + " | ";
        char cell[64];
        std::snprintf(cell, sizeof cell, "%.6g | %.4f |", best.volume, ref::aabb_volume(points) / best.volume);
        row += cell;
        for (tumble::FitMethod m : methods) {
            const tumble::Obb box = tumble::fit_obb(fpoints, m);
            for (const glm::vec3& p : fpoints)
                if (!box.contains(p)) ++failures;
            const double ratio = static_cast<double>(box.volume()) / best.volume;
            if (ratio < 1.0 - 1e-6) std::fprintf(stderr, "%s: %s is below the search minimum\n", object.file,
                                                 std::string(tumble::to_string(m)).c_str());
            std::snprintf(cell, sizeof cell, " %.4f |", ratio);
            row += cell;
        }
        std::printf("%s\n", row.c_str());
    }
    if (failures) std::printf("\n%d points outside their fitted box\n", failures);
    return failures ? 1 : 0;
}
