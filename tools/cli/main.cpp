// tumble: runs scene files headless, writes and checks golden results, and draws pictures of scenes.
//
//   tumble run SCENE [--steps N] [--record FILE.csv|FILE.jsonl] [--every K]
//   tumble bless SCENE -o GOLDEN
//   tumble check SCENE GOLDEN [--tolerance T] [--bit-identical] [--pictures FILE.png] [--view VIEW]
//   tumble render SCENE [--step N] [--view top|side|front|iso] -o FILE.png [--contacts] [--size WxH]
//   tumble spawn LEVEL.obj -o SCENE [--boxes N] [--seed K] [--steps N]
//
// Exit codes: 0 success (check: every state within the tolerance, and with --bit-identical every bit the same), 1
// check found a difference, 2 bad input (bad command line, unreadable or invalid scene or golden file, unwritable
// output), 3 anything else.
// Formats: docs/scenes.md.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <string>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include <tumble/tumble.hpp>

#include "drop_scene.hpp"
#include "render.hpp"
#include "scene_tools.hpp"

namespace {

using namespace tumble;
using namespace tumble::cli;

constexpr int kOk = 0, kDifferent = 1, kBadInput = 2, kInternal = 3;

// A progress bar on stderr, only when stderr is a terminal (CI logs and pipes get none).
class Progress {
public:
    explicit Progress(const char* what) : what_(what), enabled_(isatty(STDERR_FILENO) != 0) {}
    ~Progress() { finish(); }
    void operator()(int step, int total) {
        if (!enabled_ || total <= 0) return;
        const auto now = std::chrono::steady_clock::now();
        if (step != total && now - last_ < std::chrono::milliseconds(100)) return;
        last_ = now;
        const int width = 30, filled = static_cast<int>(static_cast<long long>(width) * step / total);
        std::fprintf(stderr, "\r%s [%s%s] %3d%%  step %d/%d", what_, std::string(static_cast<std::size_t>(filled), '#').c_str(),
                     std::string(static_cast<std::size_t>(width - filled), '.').c_str(),
                     static_cast<int>(100LL * step / total), step, total);
        shown_ = true;
    }
    void finish() {
        if (shown_) std::fputs("\r\033[K", stderr);  // erase the bar
        shown_ = false;
    }

private:
    const char* what_;
    bool enabled_;
    bool shown_ = false;
    std::chrono::steady_clock::time_point last_{};
};

std::string seconds(double s) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3g", s);
    return b;
}

// Fill colours by scene order (box_colour) rather than the engine's by kind, so that a box keeps its colour from
// picture to picture; `highlight` (a scene index) is outlined in red.
DrawWorldOptions scene_look(const Scene& scene, const SceneInstance& instance,
                            std::size_t highlight = static_cast<std::size_t>(-1)) {
    std::vector<glm::vec3> by_slot;
    for (std::size_t i = 0; i < instance.bodies.size(); ++i) {
        const std::uint32_t slot = instance.bodies[i].index;
        if (by_slot.size() <= slot) by_slot.resize(slot + 1, glm::vec3(0.8f));
        by_slot[slot] = box_colour(i, scene.boxes[i].def.mass == 0.0f);
    }
    DrawWorldOptions look;
    look.colour = [by_slot = std::move(by_slot)](BodyId id, const glm::vec3& engine) {
        return id.index < by_slot.size() ? by_slot[id.index] : engine;
    };
    if (highlight < instance.bodies.size()) look.highlight = instance.bodies[highlight];
    return look;
}

// The scene's world with every box moved to its state in `states` (a golden's or a run's checkpoint), drawn.
Drawing drawing_of(const Scene& scene, const Snapshot& states, std::size_t highlight) {
    World world(scene.settings);
    const SceneInstance instance = add_scene(world, scene);
    for (std::size_t i = 0; i < scene.boxes.size(); ++i) {
        const BoxState& s = states.boxes[i];
        // A golden edited by hand may hold any quaternion, which the world refuses: draw the rotation it is
        // closest to (the world normalises the others itself).
        glm::quat q = s.orientation;
        const float length = glm::length(q);
        if (!(std::abs(length - 1.0f) <= 1e-3f))
            q = std::isfinite(length) && length > 0.0f ? q / length : glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
        world.set_position(instance.bodies[i], s.position);
        world.set_orientation(instance.bodies[i], q);
    }
    return draw_world(world, scene_look(scene, instance, highlight));
}

int cmd_run(const std::string& path, int steps, const std::string& record, int every) {
    const Scene scene = load_scene(path);
    if (steps < 0) steps = scene.steps;
    std::optional<Recorder> recorder;
    if (!record.empty()) recorder.emplace(record, scene);
    SceneRun run(scene);
    Progress progress("run");
    std::size_t recorded_steps = 0;
    if (recorder) {
        recorder->write(run.snapshot());
        ++recorded_steps;
    }
    const auto t0 = std::chrono::steady_clock::now();
    while (run.step_count() < steps) {
        run.step();
        progress(run.step_count(), steps);
        if (recorder && (run.step_count() % every == 0 || run.step_count() == steps)) {
            recorder->write(run.snapshot());
            ++recorded_steps;
        }
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    progress.finish();
    if (recorder) recorder->close();

    const Snapshot last = run.snapshot();
    std::size_t statics = 0, triangles = 0;
    for (const SceneBox& b : scene.boxes) statics += b.def.mass == 0.0f;
    for (const SceneMesh& m : scene.meshes) triangles += m.mesh.triangle_count();
    double max_speed = 0.0;
    for (std::size_t i = 0; i < last.boxes.size(); ++i)
        if (scene.boxes[i].def.mass != 0.0f) max_speed = std::max(max_speed, static_cast<double>(glm::length(last.boxes[i].velocity)));
    float deepest = 0.0f;
    for (const ContactRecord& c : run.world().contacts()) deepest = std::max(deepest, c.contact.depth);

    std::cout << "scene: " << path << "\n"
              << "  " << scene.boxes.size() << " boxes (" << statics << " static), " << scene.meshes.size()
              << " meshes (" << triangles << " triangles), dt " << shortest(scene.dt) << " s\n"
              << "run: " << steps << " steps (" << seconds(steps * static_cast<double>(scene.dt)) << " s simulated) in "
              << seconds(wall) << " s (" << seconds(steps > 0 ? 1000.0 * wall / steps : 0.0) << " ms/step)\n";
    if (recorder)
        std::cout << "record: " << record << ", " << recorder->rows() << " rows (" << recorded_steps << " steps x "
                  << scene.boxes.size() << " boxes)\n";
    std::cout << "final: max speed " << seconds(max_speed) << " m/s, " << run.world().contacts().size()
              << " contacts, deepest penetration " << seconds(deepest) << " m\n"
              << "state hash: " << hex(state_hash(last)) << "\n";
    return kOk;
}

int cmd_bless(const std::string& path, const std::string& out) {
    const Scene scene = load_scene(path);
    Progress progress("bless");
    const Golden golden = bless(scene, [&](int s, int t) { progress(s, t); });
    progress.finish();
    write_golden(out, golden);
    std::string steps;
    for (const Snapshot& s : golden.checkpoints) steps += (steps.empty() ? "" : ", ") + std::to_string(s.step);
    std::cout << "blessed " << path << " -> " << out << ": " << scene.boxes.size() << " boxes at steps " << steps
              << "\nstate hash: " << hex(golden.hashes.back()) << "\n";
    return kOk;
}

int cmd_check(const std::string& path, const std::string& golden_path, double tolerance, bool bit_identical,
              const std::string& pictures, View view) {
    const Scene scene = load_scene(path);
    const Golden golden = read_golden(golden_path);
    const Tolerance tol = Tolerance::from(tolerance, scene.dt);
    Progress progress("check");
    const CheckResult r = check(scene, golden, tol, [&](int s, int t) { progress(s, t); });
    progress.finish();
    std::cout << format_report(scene, golden, tol, r, bit_identical);
    if (!r.passed && r.problem.empty() && !pictures.empty()) {
        std::size_t c = 0;
        while (golden.checkpoints[c].step != r.step) ++c;
        const Drawing expected = drawing_of(scene, golden.checkpoints[c], r.box);
        const Drawing actual = drawing_of(scene, r.actual_checkpoints[c], r.box);
        const Aabb a = bounds(expected), b = bounds(actual);
        const Aabb frame = a.merged(b);
        Drawing e = expected, x = actual;
        e.caption = "expected (golden), step " + std::to_string(r.step) + ", box " + scene.box_label(r.box) + " in red";
        x.caption = "actual, step " + std::to_string(r.step);
        write_png(pictures, side_by_side(render(e, view, frame, 800, 600), render(x, view, frame, 800, 600)));
        std::cout << "pictures: " << pictures << " (expected left, actual right)\n";
    }
    return passes(r, bit_identical) ? kOk : kDifferent;
}

int cmd_render(const std::string& path, int step, View view, const std::string& out, bool contacts,
               const std::string& size) {
    int w = 1024, h = 768;
    if (!parse_picture_size(size, w, h))
        throw InvalidArgument("--size " + size + ": expected WIDTHxHEIGHT in pixels, each 16..8192, e.g. 1024x768");
    const Scene scene = load_scene(path);
    SceneRun run(scene);
    Progress progress("render");
    while (run.step_count() < step) {
        run.step();
        progress(run.step_count(), step);
    }
    progress.finish();
    DrawWorldOptions look = scene_look(scene, run.instance());
    look.contacts = contacts;
    Drawing d = draw_world(run.world(), look);
    d.caption = scene.file.filename().string() + "  step " + std::to_string(step) + "  " + view_name(view) + " view";
    write_png(out, render(d, view, bounds(d), w, h));
    std::cout << "rendered " << path << " at step " << step << " (" << view_name(view) << " view, " << w << "x" << h
              << ") -> " << out << "\n";
    return kOk;
}

int cmd_spawn(const std::string& level, const std::string& out, int boxes, std::uint64_t seed, int steps) {
    Scene scene = parse_scene(R"({"version": 2})", out);  // the format's default settings
    scene.description = std::to_string(boxes) + " boxes of random size and orientation dropped into " +
                        std::filesystem::path(level).filename().string() + " (tumble spawn, seed " + std::to_string(seed) + ")";
    scene.steps = steps;
    scene.checkpoints = {steps};
    SceneMesh mesh;
    mesh.name = "level";
    mesh.path = level;
    mesh.mesh = load_obj(level).mesh;
    samples::DropOptions options;
    options.boxes = boxes;
    options.seed = seed;
    for (const BodyDef& def : samples::spawn_boxes(mesh.mesh, options)) scene.boxes.push_back({std::string(), def});
    scene.meshes.push_back(std::move(mesh));
    write_scene(out, scene);
    std::cout << "spawned " << scene.boxes.size() << " boxes into " << level << " -> " << out << "\n";
    return kOk;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"tumble: run Tumble scene files headless, bless and check golden results, render pictures.\n"
                 "Exit codes: 0 ok, 1 check found a difference, 2 bad input, 3 internal error."};
    app.require_subcommand(1);

    std::string scene, golden, out, record, pictures, level, view_text = "iso", size = "1024x768";
    int steps = -1, every = 1, step = 0, boxes = 1000;
    double tolerance = 1e-5;
    bool bit_identical = false;
    std::uint64_t seed = 1;
    bool contacts = false;
    auto view_check = CLI::IsMember({"top", "side", "front", "iso"});

    CLI::App* run = app.add_subcommand("run", "Step a scene, print a summary and the state hash, optionally record states");
    run->add_option("SCENE", scene, "scene file (JSON, docs/scenes.md)")->required();
    run->add_option("--steps", steps, "number of steps (default: the scene's run.steps)")->check(CLI::Range(0, 100000000));
    run->add_option("--record", record, "write box states to FILE.csv (CSV) or FILE.jsonl (JSON Lines)");
    run->add_option("--every", every, "record every K-th step (and the last)")->capture_default_str()->check(CLI::Range(1, 100000000));

    CLI::App* bless_cmd = app.add_subcommand("bless", "Write the golden result of a scene (states at its checkpoints)");
    bless_cmd->add_option("SCENE", scene, "scene file")->required();
    bless_cmd->add_option("-o,--output", out, "golden file to write")->required();

    CLI::App* check_cmd = app.add_subcommand("check", "Run a scene and compare it with its golden result (exit 0 or 1)");
    check_cmd->add_option("SCENE", scene, "scene file")->required();
    check_cmd->add_option("GOLDEN", golden, "golden file written by tumble bless")->required();
    check_cmd->add_option("--tolerance", tolerance, "metres and radians (velocities: T / dt in m/s)")
        ->capture_default_str()
        ->check(CLI::Validator(
            [](std::string& text) {
                double t = -1.0;
                try {
                    t = std::stod(text);
                } catch (const std::exception&) {
                }
                return std::isfinite(t) && t >= 0.0 ? std::string() : "expected a finite number >= 0, got " + text;
            },
            "T >= 0"));
    check_cmd->add_flag("--bit-identical", bit_identical,
                        "also fail (exit 1) when every state is within the tolerance but not every bit is the same "
                        "(the state hashes differ)");
    check_cmd->add_option("--pictures", pictures, "on failure, write expected and actual pictures side by side (PNG)");
    check_cmd->add_option("--view", view_text, "view of the pictures")->capture_default_str()->check(view_check);

    CLI::App* render_cmd = app.add_subcommand("render", "Draw the scene at a step into a PNG file");
    render_cmd->add_option("SCENE", scene, "scene file")->required();
    render_cmd->add_option("--step", step, "step to draw")->capture_default_str()->check(CLI::Range(0, 100000000));
    render_cmd->add_option("--view", view_text, "top, side, front or iso")->capture_default_str()->check(view_check);
    render_cmd->add_option("-o,--output", out, "PNG file to write")->required();
    render_cmd->add_flag("--contacts", contacts, "mark the contacts of the last step (red dots with normals)");
    render_cmd->add_option("--size", size, "picture size WIDTHxHEIGHT")->capture_default_str();

    CLI::App* spawn_cmd = app.add_subcommand("spawn", "Write a scene of boxes dropped into an OBJ level (like tumble-drop)");
    spawn_cmd->add_option("LEVEL", level, "OBJ level (metres, +Y up)")->required();
    spawn_cmd->add_option("-o,--output", out, "scene file to write")->required();
    spawn_cmd->add_option("--boxes", boxes, "number of boxes")->capture_default_str()->check(CLI::Range(1, 1000000));
    spawn_cmd->add_option("--seed", seed, "random seed")->capture_default_str();
    spawn_cmd->add_option("--steps", steps, "run.steps of the scene (default 600)");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);  // prints help or the error
        return code == 0 ? kOk : kBadInput;
    }

    try {
        const std::optional<View> parsed_view = parse_view(view_text);  // view_check accepted it; checked again
        if (!parsed_view) {
            std::fprintf(stderr, "tumble: unknown view '%s' (top, side, front or iso)\n", view_text.c_str());
            return kBadInput;
        }
        const View view = *parsed_view;
        if (*run) return cmd_run(scene, steps, record, every);
        if (*bless_cmd) return cmd_bless(scene, out);
        if (*check_cmd) return cmd_check(scene, golden, tolerance, bit_identical, pictures, view);
        if (*render_cmd) return cmd_render(scene, step, view, out, contacts, size);
        if (*spawn_cmd) return cmd_spawn(level, out, boxes, seed, steps < 0 ? 600 : steps);
    } catch (const tumble::Error& e) {
        std::cerr << "tumble: " << e.what() << "\n";
        return kBadInput;
    } catch (const std::exception& e) {
        std::cerr << "tumble: internal error: " << e.what() << "\n";
        return kInternal;
    }
    return kBadInput;
}
