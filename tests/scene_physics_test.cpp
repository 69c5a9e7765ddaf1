// Physical sanity checks, run through Tumble's own scene files (samples/scenes): a stack stands, boxes on ramps
// slide or stick as Coulomb says and accelerate as the discrete equations of the step predict, and no closed scene
// gains energy.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "scene_tools.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tumble;
using namespace tumble::cli;

const fs::path kScenes = fs::path(TUMBLE_SOURCE_DIR) / "samples/scenes";

std::size_t index_of(const Scene& s, const std::string& name) {
    for (std::size_t i = 0; i < s.boxes.size(); ++i)
        if (s.boxes[i].name == name) return i;
    ADD_FAILURE() << "no box " << name << " in " << s.file;
    return 0;
}

TEST(ScenePhysics, AStackOfTenStandsForTenSeconds) {
    const Scene scene = load_scene(kScenes / "stack10.json");
    ASSERT_EQ(scene.steps, 600);
    ASSERT_NEAR(scene.steps * static_cast<double>(scene.dt), 10.0, 1e-4);
    SceneRun run(scene);
    const Snapshot start = run.snapshot();
    double worst_sideways = 0.0, worst_sinking = 0.0;
    for (int s = 0; s < scene.steps; ++s) {
        run.step();
        const Snapshot now = run.snapshot();
        for (std::size_t i = 1; i < now.boxes.size(); ++i) {
            const glm::dvec3 d = glm::dvec3(now.boxes[i].position) - glm::dvec3(start.boxes[i].position);
            worst_sideways = std::max(worst_sideways, std::hypot(d.x, d.z));
            worst_sinking = std::max(worst_sinking, -d.y);
        }
    }
    std::printf("[ stack    ] 10 boxes, 10 s: largest sideways motion %.3g m, largest sinking %.3g m\n", worst_sideways,
                worst_sinking);
    EXPECT_LT(worst_sideways, 0.01);  // no box moves more than 1 cm sideways
    EXPECT_LT(worst_sinking, 0.05);   // the stack settles by millimetres (position correction), it does not collapse
    const Snapshot end = run.snapshot();
    for (std::size_t i = 1; i < end.boxes.size(); ++i) EXPECT_LT(glm::length(end.boxes[i].velocity), 1e-3f) << i;
}

// Along-slope displacement after n steps under a constant acceleration a, as the solver integrates it: semi-implicit
// Euler over the N = n s substeps of h = dt / s each, v_k = k a h, x_N = sum_{k=1..N} v_k h = a h^2 N (N + 1) / 2.
double discrete_distance(double a, double dt, int n, int substeps) {
    const double h = dt / substeps, N = static_cast<double>(n) * substeps;
    return a * h * h * N * (N + 1.0) / 2.0;
}

struct Slide {
    double along = 0.0;  // displacement down the slope, metres
    double off = 0.0;    // displacement across the slope or off its surface, metres
};

Slide slide_of(const Scene& scene, const Snapshot& start, const Snapshot& now, std::size_t box, double degrees) {
    const double t = degrees * 3.14159265358979323846 / 180.0;
    const glm::dvec3 down(-std::cos(t), -std::sin(t), 0.0);  // the ramps rise towards +x
    const glm::dvec3 d = glm::dvec3(now.boxes[box].position) - glm::dvec3(start.boxes[box].position);
    (void)scene;
    return {glm::dot(d, down), glm::length(d - down * glm::dot(d, down))};
}

TEST(ScenePhysics, RampSteeperThanAtanMuSlidesAndAGentlerOneHolds) {
    const Scene scene = load_scene(kScenes / "ramp_friction.json");
    // One Coulomb coefficient per body; a pair uses sqrt(a * b), here 0.6 with 0.6.
    const std::size_t steep_box = index_of(scene, "box_on_35"), ramp = index_of(scene, "ramp35");
    const double mu = std::sqrt(double(scene.boxes[steep_box].def.friction) * scene.boxes[ramp].def.friction);
    ASSERT_NEAR(mu, 0.6, 1e-6);
    const double mu_s = mu, mu_d = mu;
    const double critical = std::atan(mu_s) * 180.0 / 3.14159265358979323846;
    ASSERT_GT(35.0, critical);
    ASSERT_LT(25.0, critical);
    SceneRun run(scene);
    const Snapshot start = run.snapshot();
    const std::size_t steep = index_of(scene, "box_on_35"), gentle = index_of(scene, "box_on_25");
    run.run_to(scene.steps);
    const Snapshot end = run.snapshot();
    const Slide s = slide_of(scene, start, end, steep, 35.0), g = slide_of(scene, start, end, gentle, 25.0);
    // Sliding with dynamic friction: a = g (sin t - mu_d cos t). The box starts 1 mm above the ramp, so it falls
    // free for the first step or two; the expected distance allows for that.
    const double gravity = 9.81, dt = scene.dt;
    const double a = gravity * (std::sin(35.0 * 3.14159265358979323846 / 180.0) - mu_d * std::cos(35.0 * 3.14159265358979323846 / 180.0));
    const double expected = discrete_distance(a, dt, scene.steps, scene.settings.solver.substeps);
    std::printf("[ ramps    ] atan(%.2f) = %.1f deg; 35 deg: slid %.4f m (g(sin - mu_d cos) predicts %.4f); 25 deg: moved %.3g m\n",
                mu_s, critical, s.along, expected, std::hypot(g.along, g.off));
    EXPECT_GT(s.along, 1.0);
    EXPECT_NEAR(s.along / expected, 1.0, 0.01);
    EXPECT_LT(s.off, 0.005);
    EXPECT_LT(std::hypot(g.along, g.off), 0.002);  // the gentle one stays (it settles the 1 mm gap)
    EXPECT_LT(glm::length(end.boxes[gentle].velocity), 1e-3f);
}

TEST(ScenePhysics, WithoutFrictionBothBoxesAccelerateAtGSinAngle) {
    const Scene scene = load_scene(kScenes / "ramp_frictionless.json");
    ASSERT_EQ(scene.boxes[index_of(scene, "box_on_35")].def.friction, 0.0f);
    ASSERT_EQ(scene.boxes[index_of(scene, "box_on_25")].def.friction, 0.0f);
    SceneRun run(scene);
    const Snapshot start = run.snapshot();
    run.run_to(scene.steps);
    const Snapshot end = run.snapshot();
    for (double degrees : {35.0, 25.0}) {
        const std::size_t box = index_of(scene, "box_on_" + std::to_string(static_cast<int>(degrees)));
        const Slide s = slide_of(scene, start, end, box, degrees);
        const double expected = discrete_distance(9.81 * std::sin(degrees * 3.14159265358979323846 / 180.0), scene.dt,
                                                   scene.steps, scene.settings.solver.substeps);
        std::printf("[ ramps    ] frictionless %2.0f deg: slid %.4f m, g sin(angle) predicts %.4f m\n", degrees, s.along, expected);
        EXPECT_NEAR(s.along / expected, 1.0, 0.005) << degrees;
        EXPECT_LT(s.off, 0.005) << degrees;
    }
}

// Energy. Every scene here is closed and starts at rest: nothing pushes from outside, so the mechanical energy
// (kinetic plus potential, tumble::cli::mechanical_energy) of the whole scene can only be dissipated. Three checks:
//  1. the scene never has more energy than it started with (strict, every scene);
//  2. the scene's energy never rises from one step to the next;
//  3. a box that no other dynamic box is near (only static boxes and meshes can touch it, and they do no work)
//     never gains energy in a step.
// The slack is float round-off of the potential energy: m g (|y| + 10 m) times a few float epsilons per box.
//
// All three hold in every small scene. They caught defects of the solvers: penetration left at the end of a step was
// pushed out in the next one and turned into upward speed (stacks rebounded like springs: +0.18 J in stack10 with
// the translation-only solver, +0.039 J in a step with two position passes per substep), and boxes freed from a deep
// overlap with level geometry were launched at 20+ m/s (+366 J in one step of level_1000). The position passes now
// run until an island is resolved (up to SolverSettings::iterations), the velocity pass takes back the normal speed
// of the pushes, and overlap found at the start of a step is taken out without speed (docs/architecture.md).
struct EnergyCase {
    const char* scene;
};

void PrintTo(const EnergyCase& c, std::ostream* os) { *os << c.scene; }

class SceneEnergy : public ::testing::TestWithParam<EnergyCase> {};

TEST_P(SceneEnergy, NeverGainedInAClosedScene) {
    const EnergyCase c = GetParam();
    const Scene scene = load_scene(kScenes / (std::string(c.scene) + ".json"));
    for (const SceneBox& b : scene.boxes) ASSERT_EQ(b.def.velocity, glm::vec3(0.0f)) << "not a closed scene at rest";
    const std::size_t n = scene.boxes.size();
    std::vector<double> slack(n, 0.0);
    SceneRun run(scene);
    Snapshot before = run.snapshot();
    double slack_total = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        if (scene.boxes[i].def.mass == 0.0f) continue;
        slack[i] = 9.81 * scene.boxes[i].def.mass * (std::abs(before.boxes[i].position.y) + 10.0) * 4e-7;
        slack_total += slack[i];
    }
    const double e0 = mechanical_energy(scene, before);
    double worst_over_start = -1e300, worst_step_rise = -1e300, worst_isolated_rise = -1e300;
    int worst_step = 0, worst_isolated_step = 0;
    std::size_t worst_isolated_box = 0;
    std::vector<char> isolated(n);
    for (int s = 0; s < scene.steps; ++s) {
        // Which dynamic boxes have no other dynamic box near them (AABBs grown by 5 cm plus the step's motion).
        std::vector<Aabb> boxes(n);
        for (std::size_t i = 0; i < n; ++i) {
            const Obb obb{before.boxes[i].position, glm::mat3_cast(before.boxes[i].orientation), scene.boxes[i].def.half_extents};
            const float reach = 0.05f + glm::length(before.boxes[i].velocity) * scene.dt * 2.0f;
            boxes[i] = obb.aabb().expanded(reach);
        }
        // Sweep and prune along x: every overlapping pair of dynamic boxes un-isolates both.
        std::vector<std::size_t> order;
        for (std::size_t i = 0; i < n; ++i) {
            isolated[i] = scene.boxes[i].def.mass != 0.0f;
            if (isolated[i]) order.push_back(i);
        }
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return boxes[a].min.x < boxes[b].min.x; });
        for (std::size_t k = 0; k < order.size(); ++k)
            for (std::size_t l = k + 1; l < order.size() && boxes[order[l]].min.x <= boxes[order[k]].max.x; ++l)
                if (boxes[order[k]].overlaps(boxes[order[l]])) isolated[order[k]] = isolated[order[l]] = 0;
        run.step();
        const Snapshot now = run.snapshot();
        const double e = mechanical_energy(scene, now);
        worst_over_start = std::max(worst_over_start, e - e0);
        const double rise = e - mechanical_energy(scene, before);
        if (rise > worst_step_rise) {
            worst_step_rise = rise;
            worst_step = s + 1;
        }
        for (std::size_t i = 0; i < n; ++i) {
            if (!isolated[i]) continue;
            const double gain = body_energy(scene, now, i) - body_energy(scene, before, i) - slack[i];
            if (gain > worst_isolated_rise) {
                worst_isolated_rise = gain;
                worst_isolated_step = s + 1;
                worst_isolated_box = i;
            }
        }
        before = now;
    }
    char lone[96] = "no lone boxes";
    if (worst_isolated_rise > -1e300)
        std::snprintf(lone, sizeof lone, "largest gain of a lone box %.3g J beyond slack (box %zu, step %d)",
                      worst_isolated_rise, worst_isolated_box, worst_isolated_step);
    std::printf("[ energy   ] %-17s E %.6g -> %.6g J; most above start %.3g J; largest rise in a step %.3g J (step %d, "
                "slack %.2g); %s\n",
                c.scene, e0, mechanical_energy(scene, before), worst_over_start, worst_step_rise, worst_step, slack_total,
                lone);
    EXPECT_LE(worst_over_start, slack_total) << "the scene had more energy than it started with";
    EXPECT_LE(worst_step_rise, slack_total) << "the energy rose in step " << worst_step;
    EXPECT_LE(worst_isolated_rise, 0.0) << "box " << worst_isolated_box << " gained energy alone in step "
                                        << worst_isolated_step;
}

INSTANTIATE_TEST_SUITE_P(ClosedScenes, SceneEnergy,
                         ::testing::Values(EnergyCase{"resting_box"}, EnergyCase{"ramp_friction"},
                                           EnergyCase{"ramp_frictionless"}, EnergyCase{"stack10"},
                                           EnergyCase{"pyramid55"}, EnergyCase{"drop_on_tilted"}),
                         [](const ::testing::TestParamInfo<EnergyCase>& p) { return std::string(p.param.scene); });

// The level piles. A thousand boxes tumbling onto a Quake III level do not meet checks 2 and 3 above step by step:
// contact points are found once per step, and a box turning at 10-40 rad/s brings corners into the level between
// them; taking those overlaps out gives it back a little energy (measured on level_1000: at most 0.06 J in one
// step for the whole scene of 13,500 J, 0.1 J for a lone box; docs/architecture.md). What must hold is that no box
// is thrown: the scene never has more energy than it started with, and no box ever rises, or moves up fast
// enough to rise, above the height it was dropped from (its ballistic apex y + max(v_y, 0)^2 / 2g). Before the
// solver's push limits a box thrown out of an overlap at 15 m/s broke both.
class LevelPile : public ::testing::TestWithParam<EnergyCase> {};

TEST_P(LevelPile, NoBoxIsThrownAboveItsDropHeight) {
    const Scene scene = load_scene(kScenes / (std::string(GetParam().scene) + ".json"));
    SceneRun run(scene);
    const Snapshot start = run.snapshot();
    const double e0 = mechanical_energy(scene, start);
    const double g = glm::length(glm::dvec3(scene.settings.gravity));
    double worst_over_start = -1e300, worst_apex = -1e300;
    std::size_t worst_box = 0;
    int worst_step = 0;
    for (int s = 0; s < scene.steps; ++s) {
        run.step();
        const Snapshot now = run.snapshot();
        worst_over_start = std::max(worst_over_start, mechanical_energy(scene, now) - e0);
        for (std::size_t i = 0; i < now.boxes.size(); ++i) {
            if (scene.boxes[i].def.mass == 0.0f) continue;
            const double vy = now.boxes[i].velocity.y;
            const double apex = now.boxes[i].position.y + (vy > 0.0 ? vy * vy / (2.0 * g) : 0.0);
            const double above = apex - start.boxes[i].position.y;
            if (above > worst_apex) worst_apex = above, worst_box = i, worst_step = s + 1;
        }
    }
    std::printf("[ pile     ] %-13s most above the starting energy %.3g J; highest apex above a box's drop height %.3g m "
                "(box %zu, step %d)\n",
                GetParam().scene, worst_over_start, worst_apex, worst_box, worst_step);
    EXPECT_LE(worst_over_start, 0.0);
    EXPECT_LE(worst_apex, 0.0) << "box " << worst_box << " was thrown up in step " << worst_step;
}

INSTANTIATE_TEST_SUITE_P(Levels, LevelPile, ::testing::Values(EnergyCase{"level_1000"}, EnergyCase{"medium_level"}),
                         [](const ::testing::TestParamInfo<EnergyCase>& p) { return std::string(p.param.scene); });

}  // namespace
