#pragma once
/// @file
/// tumble-viewer's application: a GLFW window with an OpenGL 3.3 core context, the world of the open scene, the
/// camera, mouse and keyboard input (or a script), the Dear ImGui panels, and the frame loop. Controls, panels and
/// the script format: docs/viewer.md.

#include <array>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tumble/tumble.hpp>

#include "camera.hpp"
#include "demo_scenes.hpp"
#include "drop_scene.hpp"
#include "interaction.hpp"
#include "renderer.hpp"
#include "scene_tools.hpp"
#include "script.hpp"

struct GLFWwindow;

namespace tumble::viewer {

/// How the viewer runs (from the command line).
struct ViewerOptions {
    int width = 1280, height = 720;  ///< window size in pixels
    int msaa = 4;                    ///< samples per pixel of the framebuffer (0: no multisampling)
    /// Frames to run before exiting (0: until the window is closed or the script quits). With frames or a script
    /// the clock is fixed: each frame advances 1/60 s whatever the real time, so runs repeat exactly.
    int frames = 0;
    std::filesystem::path screenshot;  ///< PNG of the last frame, written at exit when not empty
    std::optional<Script> script;      ///< timed input, run on the viewer's clock
};

/// What a run did, printed as one JSON line on stdout at exit (docs/viewer.md lists the keys).
struct RunSummary {
    std::string scene;         ///< the name of the scene open at exit
    std::string renderer;      ///< the OpenGL renderer and version (GL_RENDERER, GL_VERSION)
    int frames = 0;            ///< frames drawn
    long steps = 0;            ///< simulated steps (each of `substeps` World::step calls)
    std::size_t bodies_start = 0, bodies_end = 0;  ///< live bodies after the first scene opened, and at exit
    /// Boxes thrown, bodies deleted by the user, bodies removed after falling out of the scene, debug-view and
    /// panel toggles, script actions run, screenshots written (a save writes one too), saves.
    int thrown = 0, deleted = 0, fell_out = 0, toggles = 0, actions = 0, screenshots = 0, saved = 0;
    long picked = -1;          ///< slot index of the last body grabbed, -1 for none
    double dragged_m = 0.0;    ///< farthest a grabbed body's centre was pulled from where it was picked
    long selected = -1;        ///< slot index of the selected body at exit, -1 for none
    std::vector<std::string> scenes;  ///< every scene opened, in order
    double ms_per_step = 0.0;  ///< mean wall time of one step (all its substeps)
    double ms_per_frame = 0.0; ///< mean wall time of a frame after the first 10
    int width = 0, height = 0;       ///< framebuffer size at exit, pixels
    std::array<int, 4> view_rect{};  ///< pixels x0, y0, x1, y1 of the 3D view that no panel covers, at exit
    std::optional<std::array<int, 4>> bodies_rect;  ///< pixels x0, y0, x1, y1 of the dynamic bodies in the last frame
    /// One JSON object, keys in the order above.
    std::string json() const;
};

/// The viewer. Not copyable.
class Viewer {
public:
    /// Opens the window and shows `scene` named `name`. Throws std::runtime_error when no window or no OpenGL 3.3
    /// core context can be created (no display: run under xvfb-run).
    Viewer(const ViewerOptions& options, std::vector<Demo> demos, Scene scene, std::string name);
    ~Viewer();
    Viewer(const Viewer&) = delete;
    Viewer& operator=(const Viewer&) = delete;

    /// Runs frames until the window is closed, the script quits or `options.frames` have run; writes the
    /// screenshot. Throws FileError when a screenshot cannot be written and tumble::Error when a scene the script
    /// opens fails to load.
    RunSummary run();

    // Input, from GLFW's callbacks or the script. Pixels are framebuffer pixels: x right, y down from the top-left
    // corner (on a HiDPI screen the callbacks scale window coordinates to them).
    void mouse_button(int button, bool pressed, int mods);
    void cursor_moved(const glm::vec2& pixel);
    void scrolled(float clicks);
    void key_pressed(int key, int mods);

private:
    enum class Command { throw_box, pause, play, toggle_pause, step, reset, slow_motion, frame_all, delete_body, deselect };
    enum class MouseMode { none, orbit, pan, pick };

    void open(Scene scene, std::string name);
    void rebuild_world();
    void execute(Command command);
    void throw_at(const glm::vec2& pixel);
    void save_for_report();
    void toggle(const std::string& name);
    void run_action(const Action& action);
    void simulate(double frame_seconds);
    void remove_fallen_bodies();
    void fly_with_keys(double frame_seconds);
    void fly(const std::string& direction, double seconds);
    void update_viewport();
    void draw_frame();
    void draw_panels();
    void draw_run_panel();
    void draw_world_panel();
    void draw_debug_panel();
    void draw_stats_panel();
    void draw_selection_panel();
    void draw_labels();
    void write_screenshot(const std::filesystem::path& file);
    void save(const std::filesystem::path& stem);
    void update_title();
    std::optional<std::array<int, 4>> bodies_rect() const;
    Ray cursor_ray() const { return camera_.ray(viewport_, cursor_); }

    ViewerOptions options_;
    std::vector<Demo> demos_;
    GLFWwindow* window_ = nullptr;
    bool imgui_ready_ = false;
    std::unique_ptr<Renderer> renderer_;

    Scene scene_;
    std::string scene_name_;
    WorldSettings settings_;  // what the world panel edits; kept across resets
    std::unique_ptr<World> world_;
    SceneInstance instance_;  // which bodies came from the scene (their names, for saving)
    float kill_height_ = -1e30f;  // dynamic bodies below this have fallen out of the scene and are removed

    RunSettings run_;
    float slow_motion_ = 0.25f;  // the speed slow motion switches to
    Stepper stepper_;
    OrbitCamera camera_;
    Viewport viewport_;
    FrameOptions draw_;
    bool panels_ = true;
    bool labels_ = false;
    bool show_help_ = false;

    glm::vec2 cursor_{0.0f};
    MouseMode mouse_ = MouseMode::none;
    float mouse_travel_ = 0.0f;  // pixels moved since the button went down (a click moves less than 4)
    std::optional<Grab> grab_;
    BodyId selected_, last_thrown_;
    samples::Rng rng_{12345};

    bool fixed_clock_ = false;
    bool quit_ = false;
    std::vector<std::filesystem::path> pending_screenshots_;  // written after this frame is drawn
    std::vector<std::filesystem::path> pending_saves_;        // scene file and screenshot, after this frame
    std::size_t next_action_ = 0;
    double clock_ = 0.0;
    std::vector<float> step_ms_;  // ring buffer of step times, ms
    std::size_t step_ms_next_ = 0;
    double last_step_ms_ = 0.0, last_frame_ms_ = 0.0, step_ms_total_ = 0.0, frame_ms_total_ = 0.0;
    int timed_frames_ = 0;
    std::string error_;  // shown in a popup (a demo that failed to load)
    RunSummary summary_;
    std::chrono::steady_clock::time_point last_title_{};
};

}  // namespace tumble::viewer
