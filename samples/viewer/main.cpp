// tumble-viewer: an interactive window onto a Tumble world (GLFW, OpenGL 3.3 core, Dear ImGui).
//
//   tumble-viewer [SCENE.json | LEVEL.obj] [--demo NAME] [--size WxH] [--msaa N] [--frames N]
//                 [--screenshot FILE.png] [--script FILE] [--list-demos]
//
// Without a file it opens the bundled level with tumble-drop's 1,000 boxes. At exit it prints one JSON line on
// stdout with what the run did (docs/viewer.md). Exit codes: 0 success, 2 bad input (bad command line, a missing
// or malformed scene, level or script file, an unwritable screenshot), 3 anything else (no display or OpenGL 3.3).

#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "app.hpp"

namespace {

constexpr int kOk = 0, kBadInput = 2, kInternal = 3;

}  // namespace

int main(int argc, char** argv) {
    using namespace tumble::viewer;
    CLI::App app{"tumble-viewer: an interactive viewer for Tumble worlds (docs/viewer.md).\n"
                 "Exit codes: 0 ok, 2 bad input, 3 no window or another error."};
    std::string file, demo, size = "1280x720", screenshot, script_file;
    int frames = 0, msaa = 4;
    bool list = false;
    app.add_option("FILE", file, "scene file (.json, docs/scenes.md) or OBJ level (.obj); default: the bundled level");
    app.add_option("--demo", demo, "open a demo scene of the Scene menu by name (see --list-demos)");
    app.add_option("--size", size, "window size WIDTHxHEIGHT in pixels")->capture_default_str();
    app.add_option("--msaa", msaa, "samples per pixel for antialiasing: 0 (off), 2, 4 or 8")->capture_default_str()->check(CLI::IsMember({0, 2, 4, 8}));
    app.add_option("--frames", frames, "run N frames, then exit (fixed clock: 1/60 s per frame)")->check(CLI::Range(1, 100000000));
    app.add_option("--screenshot", screenshot, "write the last frame to this PNG file");
    app.add_option("--script", script_file, "timed input actions (docs/viewer.md); fixes the clock at 1/60 s per frame");
    app.add_flag("--list-demos", list, "print the demo scenes, one per line, and exit");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? kOk : kBadInput;
    }

    try {
        ViewerOptions options;
        if (!tumble::cli::parse_picture_size(size, options.width, options.height))
            throw tumble::InvalidArgument("--size " + size + ": expected WIDTHxHEIGHT in pixels, each 16..8192, e.g. 1280x720");
        if (!file.empty() && !demo.empty()) throw tumble::InvalidArgument("give a FILE or --demo, not both");
        options.frames = frames;
        options.msaa = msaa;
        options.screenshot = screenshot;
        std::vector<Demo> demos = demo_scenes(TUMBLE_VIEWER_SCENES_DIR, TUMBLE_VIEWER_LEVELS_DIR);
        if (list) {
            for (const Demo& d : demos) std::cout << d.name << "\t" << d.description << "\n";
            return kOk;
        }
        std::vector<std::string> names;
        for (const Demo& d : demos) names.push_back(d.name);
        if (!script_file.empty()) options.script = load_script(script_file, names);

        tumble::Scene scene;
        std::string name;
        if (!demo.empty()) {
            const Demo* d = find_demo(demos, demo);
            if (!d) throw tumble::InvalidArgument("--demo " + demo + ": no such demo scene (see --list-demos)");
            scene = d->build();
            name = d->name;
        } else {
            const std::filesystem::path path = file.empty() ? std::filesystem::path(TUMBLE_VIEWER_DEFAULT_LEVEL) : std::filesystem::path(file);
            scene = open_scene(path);
            name = path.filename().string();
        }

        RunSummary summary;
        {
            Viewer viewer(options, std::move(demos), std::move(scene), name);
            summary = viewer.run();
        }
        std::cout << summary.json() << std::endl;
        return kOk;
    } catch (const tumble::Error& e) {  // files, arguments: the user's input
        std::cerr << "tumble-viewer: " << e.what() << "\n";
        return kBadInput;
    } catch (const std::exception& e) {  // no display, no OpenGL 3.3, a shader the driver rejects
        std::cerr << "tumble-viewer: " << e.what() << "\n";
        return kInternal;
    }
}
