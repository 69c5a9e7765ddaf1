#include "app.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <stdexcept>

#include <imgui.h>
#include <nlohmann/json.hpp>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include "gl.hpp"

namespace tumble::viewer {
namespace {

constexpr double kFixedFrameSeconds = 1.0 / 60.0;
constexpr std::size_t kStepHistory = 6000;  // step times kept for the plot
constexpr float kClickPixels = 4.0f;        // a press and release closer than this is a click, not a drag

Viewer* viewer_of(GLFWwindow* window) { return static_cast<Viewer*>(glfwGetWindowUserPointer(window)); }

std::string glfw_error;  // the last GLFW error, for the message when no window can be opened

}  // namespace

std::string RunSummary::json() const {
    const auto rounded = [](double v) { return std::round(v * 1e6) / 1e6; };  // no 0.28556400000000004
    nlohmann::ordered_json j;
    j["scene"] = scene;
    j["renderer"] = renderer;
    j["frames"] = frames;
    j["steps"] = steps;
    j["bodies_start"] = bodies_start;
    j["bodies_end"] = bodies_end;
    j["thrown"] = thrown;
    j["deleted"] = deleted;
    j["fell_out"] = fell_out;
    j["picked"] = picked;
    j["dragged_m"] = rounded(dragged_m);
    j["selected"] = selected;
    j["toggles"] = toggles;
    j["actions"] = actions;
    j["screenshots"] = screenshots;
    j["saved"] = saved;
    j["scenes"] = scenes;
    j["ms_per_step"] = rounded(ms_per_step);
    j["ms_per_frame"] = rounded(ms_per_frame);
    j["width"] = width;
    j["height"] = height;
    j["view_rect"] = view_rect;
    j["bodies_rect"] = bodies_rect ? nlohmann::ordered_json(*bodies_rect) : nlohmann::ordered_json(nullptr);
    return j.dump();
}

Viewer::Viewer(const ViewerOptions& options, std::vector<Demo> demos, Scene scene, std::string name)
    : options_(options), demos_(std::move(demos)), step_ms_(kStepHistory, 0.0f) {
    fixed_clock_ = options_.frames > 0 || options_.script.has_value();
    glfwSetErrorCallback([](int, const char* description) { glfw_error = description; });
    if (!glfwInit()) throw std::runtime_error("cannot initialise GLFW (" + glfw_error + "); is there a display? Try xvfb-run");
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SAMPLES, options_.msaa);
    window_ = glfwCreateWindow(options_.width, options_.height, "tumble-viewer", nullptr, nullptr);
    if (!window_) {
        glfwTerminate();
        throw std::runtime_error("cannot open a window with an OpenGL 3.3 core context (" + glfw_error + ")");
    }
    glfwMakeContextCurrent(window_);
    glfwSwapInterval(fixed_clock_ ? 0 : 1);
    glfwSetWindowUserPointer(window_, this);
    // Ours first: ImGui's backend chains to callbacks installed before it.
    glfwSetMouseButtonCallback(window_, [](GLFWwindow* w, int button, int action, int mods) {
        if (action == GLFW_PRESS && ImGui::GetIO().WantCaptureMouse) return;
        if (action == GLFW_PRESS || action == GLFW_RELEASE) viewer_of(w)->mouse_button(button, action == GLFW_PRESS, mods);
    });
    glfwSetCursorPosCallback(window_, [](GLFWwindow* w, double x, double y) {
        // GLFW gives window coordinates; the camera works in framebuffer pixels (they differ on HiDPI screens).
        int ww = 1, wh = 1, fw = 1, fh = 1;
        glfwGetWindowSize(w, &ww, &wh);
        glfwGetFramebufferSize(w, &fw, &fh);
        viewer_of(w)->cursor_moved({static_cast<float>(x * fw / std::max(ww, 1)), static_cast<float>(y * fh / std::max(wh, 1))});
    });
    glfwSetScrollCallback(window_, [](GLFWwindow* w, double, double dy) {
        if (!ImGui::GetIO().WantCaptureMouse) viewer_of(w)->scrolled(static_cast<float>(dy));
    });
    glfwSetKeyCallback(window_, [](GLFWwindow* w, int key, int, int action, int mods) {
        if (action == GLFW_PRESS && !ImGui::GetIO().WantCaptureKeyboard) viewer_of(w)->key_pressed(key, mods);
    });

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini: the layout is fixed
    ImGui::StyleColorsDark();
    ImGui::GetStyle().WindowRounding = 0.0f;
    ImGui::GetStyle().Colors[ImGuiCol_WindowBg].w = 0.92f;
    ImGui_ImplGlfw_InitForOpenGL(window_, true);
    ImGui_ImplOpenGL3_Init("#version 330 core");
    imgui_ready_ = true;
    draw_.engine.contacts = false;  // a level keeps hundreds of contacts: shown on demand (C)

    const auto gl_text = [](GLenum which) {
        const GLubyte* text = glGetString(which);
        return text ? std::string(reinterpret_cast<const char*>(text)) : std::string("?");
    };
    summary_.renderer = gl_text(GL_RENDERER) + ", OpenGL " + gl_text(GL_VERSION);
    renderer_ = std::make_unique<Renderer>();
    update_viewport();
    open(std::move(scene), std::move(name));
    summary_.bodies_start = world_->body_count();
}

Viewer::~Viewer() {
    renderer_.reset();
    if (imgui_ready_) {
        ImGui_ImplOpenGL3_Shutdown();
        ImGui_ImplGlfw_Shutdown();
        ImGui::DestroyContext();
    }
    if (window_) glfwDestroyWindow(window_);
    glfwTerminate();
}

// ---- Scenes ----

void Viewer::open(Scene scene, std::string name) {
    scene_ = std::move(scene);
    scene_name_ = std::move(name);
    settings_ = scene_.settings;
    // A dt written as 1/60 reads back as 0.016666668: keep the whole number of steps per second it means.
    const float rate = 1.0f / scene_.dt;
    run_.rate_hz = std::clamp(std::abs(rate - std::round(rate)) < 1e-3f ? std::round(rate) : rate, 1.0f, 1000.0f);
    std::vector<const TriangleMesh*> meshes;
    for (const SceneMesh& m : scene_.meshes) meshes.push_back(&m.mesh);
    const Aabb bounds = scene_bounds(scene_);
    renderer_->set_level(meshes, bounds);
    kill_height_ = bounds.min.y - std::max(50.0f, bounds.max.y - bounds.min.y);
    rebuild_world();
    std::fill(step_ms_.begin(), step_ms_.end(), 0.0f);  // the plot starts with the scene
    step_ms_next_ = 0;
    execute(Command::frame_all);
    summary_.scenes.push_back(scene_name_);
    update_title();
}

void Viewer::rebuild_world() {
    world_ = std::make_unique<World>(settings_);
    instance_ = add_scene(*world_, scene_);
    grab_.reset();
    selected_ = last_thrown_ = BodyId{};
    mouse_ = MouseMode::none;
    stepper_.clear();
}

// ---- Commands and input ----

void Viewer::execute(Command command) {
    switch (command) {
        case Command::throw_box: throw_at(cursor_); break;
        case Command::pause: run_.paused = true; break;
        case Command::play: run_.paused = false; break;
        case Command::toggle_pause: run_.paused = !run_.paused; break;
        case Command::step:
            run_.paused = true;
            stepper_.request_single_step();
            break;
        case Command::reset: rebuild_world(); break;
        case Command::slow_motion: run_.speed = run_.speed < 1.0f ? 1.0f : slow_motion_; break;
        case Command::frame_all: {
            Aabb box = Aabb::empty();
            for (const SceneMesh& m : scene_.meshes)
                for (const glm::vec3& v : m.mesh.vertices) box = box.merged(v);
            world_->for_each_body([&](BodyId id) { box = box.merged(world_->obb(id).aabb()); });
            camera_.frame(box, viewport_);
            break;
        }
        case Command::delete_body: {
            BodyId victim = selected_;
            const Ray ray = cursor_ray();
            if (!world_->is_valid(victim))
                if (const auto hit = world_->raycast(ray.origin, ray.direction, 1e6f)) victim = hit->body;
            if (!victim.is_null() && world_->is_valid(victim)) {
                if (grab_ && grab_->body == victim) grab_.reset();
                world_->destroy_body(victim);
                ++summary_.deleted;
            }
            selected_ = BodyId{};
            break;
        }
        case Command::deselect:
            grab_.reset();
            selected_ = BodyId{};
            mouse_ = MouseMode::none;
            break;
    }
}

void Viewer::save_for_report() {
    for (int n = 1;; ++n) {  // the first tumble-viewer-N with neither file present, in the working directory
        const std::string stem = "tumble-viewer-" + std::to_string(n);
        if (!std::filesystem::exists(stem + ".json") && !std::filesystem::exists(stem + ".png")) {
            pending_saves_.push_back(stem);
            return;
        }
    }
}

void Viewer::throw_at(const glm::vec2& pixel) {
    const Ray ray = camera_.ray(viewport_, pixel);
    std::optional<glm::vec3> aim;
    if (const auto hit = world_->raycast(ray.origin, ray.direction, 1e6f)) aim = hit->point;
    last_thrown_ = world_->create_body(thrown_box(ray, aim, settings_.gravity, rng_));
    ++summary_.thrown;
}

void Viewer::toggle(const std::string& name) {
    DebugDrawOptions& e = draw_.engine;
    if (name == "panels") panels_ = !panels_;
    else if (name == "contacts") e.contacts = !e.contacts;
    else if (name == "aabbs") e.proxies = !e.proxies;
    else if (name == "octree") e.octree_cells = !e.octree_cells;
    else if (name == "sleep_colours") draw_.sleep_colours = !draw_.sleep_colours;
    else if (name == "wireframe") e.meshes = !e.meshes;
    else if (name == "labels") labels_ = !labels_;
    else if (name == "grid") draw_.grid = !draw_.grid;
    else return;
    e.sleep_labels = e.depth_labels = labels_;
    ++summary_.toggles;
}

void Viewer::mouse_button(int button, bool pressed, int mods) {
    if (!pressed) {
        if (mouse_ == MouseMode::orbit && mouse_travel_ < kClickPixels) {  // a click: select what is under it
            BodyId hit;
            grab_body(*world_, cursor_ray(), &hit);
            selected_ = hit;
        }
        if (mouse_ == MouseMode::pick) grab_.reset();
        mouse_ = MouseMode::none;
        return;
    }
    mouse_travel_ = 0.0f;
    if (button == GLFW_MOUSE_BUTTON_LEFT && (mods & GLFW_MOD_CONTROL)) {
        BodyId hit;
        grab_ = grab_body(*world_, cursor_ray(), &hit);
        selected_ = hit;
        if (grab_) {
            summary_.picked = static_cast<long>(grab_->body.index);
            mouse_ = MouseMode::pick;
        }
    } else if (button == GLFW_MOUSE_BUTTON_LEFT && (mods & GLFW_MOD_SHIFT)) {
        execute(Command::throw_box);
    } else if (button == GLFW_MOUSE_BUTTON_LEFT) {
        mouse_ = MouseMode::orbit;
    } else if (button == GLFW_MOUSE_BUTTON_RIGHT || button == GLFW_MOUSE_BUTTON_MIDDLE) {
        mouse_ = MouseMode::pan;
    }
}

void Viewer::cursor_moved(const glm::vec2& pixel) {
    const glm::vec2 d = pixel - cursor_;
    cursor_ = pixel;
    mouse_travel_ += glm::length(d);
    switch (mouse_) {
        case MouseMode::orbit: camera_.orbit(d.x, d.y); break;
        case MouseMode::pan: camera_.pan(viewport_, d.x, d.y); break;
        case MouseMode::pick:
            if (grab_) {
                const Ray r = cursor_ray();
                grab_->target = r.origin + r.direction * grab_->distance;
            }
            break;
        case MouseMode::none: break;
    }
}

void Viewer::scrolled(float clicks) { camera_.zoom(clicks); }

void Viewer::key_pressed(int key, int mods) {
    switch (key) {
        case GLFW_KEY_SPACE: execute(Command::throw_box); break;
        case GLFW_KEY_P: execute(Command::toggle_pause); break;
        case GLFW_KEY_N: execute(Command::step); break;
        case GLFW_KEY_R: execute(Command::reset); break;
        case GLFW_KEY_M: execute(Command::slow_motion); break;
        case GLFW_KEY_F: execute(Command::frame_all); break;
        case GLFW_KEY_DELETE:
        case GLFW_KEY_X: execute(Command::delete_body); break;
        case GLFW_KEY_ESCAPE: execute(Command::deselect); break;
        case GLFW_KEY_TAB: toggle("panels"); break;
        case GLFW_KEY_C: toggle("contacts"); break;
        case GLFW_KEY_B: toggle("aabbs"); break;
        case GLFW_KEY_O: toggle("octree"); break;
        case GLFW_KEY_Z: toggle("sleep_colours"); break;
        case GLFW_KEY_V: toggle("wireframe"); break;
        case GLFW_KEY_L: toggle("labels"); break;
        case GLFW_KEY_G: toggle("grid"); break;
        case GLFW_KEY_F12: save_for_report(); break;
        case GLFW_KEY_H:
        case GLFW_KEY_F1: show_help_ = !show_help_; break;
        case GLFW_KEY_Q:
            if (mods & GLFW_MOD_CONTROL) quit_ = true;
            break;
        default: break;
    }
}

void Viewer::fly(const std::string& direction, double seconds) {
    const glm::vec3 d = direction == "forward" ? glm::vec3(0, 0, 1)
                        : direction == "back"  ? glm::vec3(0, 0, -1)
                        : direction == "left"  ? glm::vec3(-1, 0, 0)
                        : direction == "right" ? glm::vec3(1, 0, 0)
                        : direction == "up"    ? glm::vec3(0, 1, 0)
                                               : glm::vec3(0, -1, 0);
    camera_.fly(d, static_cast<float>(seconds) * 0.5f * camera_.scene_radius());  // the scene's radius in 2 s
}

void Viewer::fly_with_keys(double seconds) {
    if (fixed_clock_ || ImGui::GetIO().WantCaptureKeyboard) return;
    if (glfwGetKey(window_, GLFW_KEY_LEFT_CONTROL) == GLFW_PRESS) return;
    const double fast = glfwGetKey(window_, GLFW_KEY_LEFT_SHIFT) == GLFW_PRESS ? 3.0 : 1.0;
    const std::pair<int, const char*> keys[] = {{GLFW_KEY_W, "forward"}, {GLFW_KEY_S, "back"}, {GLFW_KEY_A, "left"},
                                                {GLFW_KEY_D, "right"},   {GLFW_KEY_E, "up"},   {GLFW_KEY_Q, "down"}};
    for (const auto& [key, direction] : keys)
        if (glfwGetKey(window_, key) == GLFW_PRESS) fly(direction, seconds * fast);
}

void Viewer::run_action(const Action& a) {
    ++summary_.actions;
    const auto press_and_move = [&](int button, glm::vec2 delta) {
        mouse_button(button, true, 0);
        cursor_moved(cursor_ + delta);
        mouse_button(button, false, 0);
    };
    switch (a.verb) {
        case Verb::cursor: cursor_moved({a.x, a.y}); break;
        case Verb::cursor_thrown:
            if (world_->is_valid(last_thrown_)) {
                if (const auto p = camera_.project(viewport_, world_->body(last_thrown_).position)) cursor_moved(p->pixel);
            } else {
                std::cerr << options_.script->file.string() << ":" << a.line << ": no thrown box to move the cursor to\n";
            }
            break;
        case Verb::throw_box: execute(Command::throw_box); break;
        case Verb::pick: mouse_button(GLFW_MOUSE_BUTTON_LEFT, true, GLFW_MOD_CONTROL); break;
        case Verb::release: mouse_button(mouse_ == MouseMode::pan ? GLFW_MOUSE_BUTTON_RIGHT : GLFW_MOUSE_BUTTON_LEFT, false, 0); break;
        case Verb::click:
            mouse_button(GLFW_MOUSE_BUTTON_LEFT, true, 0);
            mouse_button(GLFW_MOUSE_BUTTON_LEFT, false, 0);
            break;
        case Verb::delete_selected: execute(Command::delete_body); break;
        case Verb::toggle: toggle(a.text); break;
        case Verb::orbit: press_and_move(GLFW_MOUSE_BUTTON_LEFT, {a.x, a.y}); break;
        case Verb::pan: press_and_move(GLFW_MOUSE_BUTTON_RIGHT, {a.x, a.y}); break;
        case Verb::zoom: scrolled(a.x); break;
        case Verb::fly: fly(a.text, a.x); break;
        case Verb::pause: execute(Command::pause); break;
        case Verb::play: execute(Command::play); break;
        case Verb::step: execute(Command::step); break;
        case Verb::reset: execute(Command::reset); break;
        case Verb::frame: execute(Command::frame_all); break;
        case Verb::slowmo: execute(Command::slow_motion); break;
        case Verb::rate: run_.rate_hz = a.x; break;
        case Verb::substeps: run_.substeps = static_cast<int>(a.x); break;
        case Verb::scene: open(find_demo(demos_, a.text)->build(), a.text); break;
        case Verb::screenshot: pending_screenshots_.push_back(a.text); break;
        case Verb::save: pending_saves_.push_back(a.text); break;
        case Verb::quit: quit_ = true; break;
    }
}

// ---- Simulation ----

void Viewer::simulate(double frame_seconds) {
    const int steps = stepper_.steps_for_frame(frame_seconds, run_);
    const float h = 1.0f / (run_.rate_hz * static_cast<float>(run_.substeps));
    for (int s = 0; s < steps; ++s) {
        if (grab_ && !world_->is_valid(grab_->body)) grab_.reset();
        const auto t0 = std::chrono::steady_clock::now();
        for (int k = 0; k < run_.substeps; ++k) {
            if (grab_) pull_grabbed(*world_, *grab_, h);
            world_->step(h);
        }
        last_step_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        step_ms_[step_ms_next_++ % kStepHistory] = static_cast<float>(last_step_ms_);
        step_ms_total_ += last_step_ms_;
        ++summary_.steps;
        if (grab_)
            summary_.dragged_m = std::max(summary_.dragged_m,
                                          static_cast<double>(glm::length(world_->body(grab_->body).position - grab_->start)));
    }
    if (steps > 0) remove_fallen_bodies();
}

void Viewer::remove_fallen_bodies() {
    std::vector<BodyId> fallen;
    world_->for_each_body([&](BodyId id) {
        const BodyState b = world_->body(id);
        if (b.is_dynamic() && b.position.y < kill_height_) fallen.push_back(id);
    });
    for (BodyId id : fallen) {
        if (grab_ && grab_->body == id) grab_.reset();
        if (selected_ == id) selected_ = BodyId{};
        world_->destroy_body(id);
        ++summary_.fell_out;
    }
}

// ---- Frames ----

void Viewer::update_viewport() {
    int w = 0, h = 0;
    glfwGetFramebufferSize(window_, &w, &h);
    viewport_.width = std::max(w, 1);
    viewport_.height = std::max(h, 1);
    const bool shown = panels_ && imgui_ready_ && ImGui::GetCurrentContext() != nullptr;
    viewport_.top = shown ? std::max(static_cast<int>(ImGui::GetFrameHeight()), 19) : 0;  // 0 before the first frame
    viewport_.left = shown ? std::min(310, viewport_.width / 3) : 0;
    viewport_.right = shown ? std::min(290, viewport_.width / 3) : 0;
}

std::optional<std::array<int, 4>> Viewer::bodies_rect() const {
    float x0 = FLT_MAX, y0 = FLT_MAX, x1 = -FLT_MAX, y1 = -FLT_MAX;
    world_->for_each_body([&](BodyId id) {
        if (!world_->body(id).is_dynamic()) return;
        for (const glm::vec3& c : world_->obb(id).corners())
            if (const auto p = camera_.project(viewport_, c)) {
                x0 = std::min(x0, p->pixel.x);
                y0 = std::min(y0, p->pixel.y);
                x1 = std::max(x1, p->pixel.x);
                y1 = std::max(y1, p->pixel.y);
            }
    });
    const auto clampx = [&](float v) { return static_cast<int>(std::clamp(v, 0.0f, static_cast<float>(viewport_.width))); };
    const auto clampy = [&](float v) { return static_cast<int>(std::clamp(v, 0.0f, static_cast<float>(viewport_.height))); };
    if (!(x0 <= x1) || clampx(x0) >= clampx(x1) || clampy(y0) >= clampy(y1)) return std::nullopt;
    return std::array<int, 4>{clampx(x0), clampy(y0), clampx(x1), clampy(y1)};
}

void Viewer::draw_frame() {
    draw_.selected = world_->is_valid(selected_) ? selected_ : BodyId{};
    draw_.grab = grab_.has_value();
    if (grab_) {
        draw_.grab_from = grab_anchor(*world_, *grab_);
        draw_.grab_to = grab_->target;
    }
    renderer_->draw(*world_, camera_, viewport_, draw_);
    draw_labels();
    if (panels_) draw_panels();
}

void Viewer::draw_labels() {
    // Only the labels nearest the eye: a settled level has a label per box and contact.
    constexpr std::size_t kMaxLabels = 150;
    std::vector<std::pair<float, std::size_t>> near;
    const std::vector<Label>& labels = renderer_->labels();
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const auto p = camera_.project(viewport_, labels[i].position);
        if (p && p->depth > 0.0f) near.push_back({p->depth, i});
    }
    const std::size_t shown = std::min(near.size(), kMaxLabels);
    std::partial_sort(near.begin(), near.begin() + static_cast<std::ptrdiff_t>(shown), near.end());
    ImDrawList* list = ImGui::GetBackgroundDrawList();
    for (std::size_t k = 0; k < shown; ++k) {
        const Label& l = labels[near[k].second];
        const glm::vec2 pixel = camera_.project(viewport_, l.position)->pixel;
        list->AddText(ImVec2(pixel.x, pixel.y), ImGui::GetColorU32(ImVec4(l.colour.r, l.colour.g, l.colour.b, 1.0f)), l.text.c_str());
    }
}

void Viewer::write_screenshot(const std::filesystem::path& file) {
    cli::write_png(file, Renderer::read_pixels(viewport_.width, viewport_.height));
    ++summary_.screenshots;
}

void Viewer::save(const std::filesystem::path& stem) {
    std::filesystem::path scene_file = stem, picture = stem;
    scene_file += ".json";
    picture += ".png";
    const float dt = 1.0f / (run_.rate_hz * static_cast<float>(run_.substeps));
    Scene snapshot = snapshot_scene(*world_, scene_, instance_, settings_, dt);
    snapshot.description = "saved by tumble-viewer from " + scene_name_ + " after " + std::to_string(summary_.steps) + " steps";
    cli::write_scene(scene_file, snapshot);
    write_screenshot(picture);
    ++summary_.saved;
    std::cerr << "tumble-viewer: saved " << scene_file.string() << " and " << picture.string() << "\n";
}

void Viewer::update_title() {
    char title[256];
    std::snprintf(title, sizeof title, "tumble-viewer - %s - %.2f ms/step", scene_name_.c_str(), last_step_ms_);
    glfwSetWindowTitle(window_, title);
    last_title_ = std::chrono::steady_clock::now();
}

RunSummary Viewer::run() {
    auto previous = std::chrono::steady_clock::now();
    for (int frame = 0; !quit_ && !glfwWindowShouldClose(window_); ++frame) {
        const auto frame_start = std::chrono::steady_clock::now();
        const double real_seconds = std::min(std::chrono::duration<double>(frame_start - previous).count(), 0.25);
        previous = frame_start;
        const double frame_seconds = fixed_clock_ ? kFixedFrameSeconds : real_seconds;

        glfwPollEvents();
        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        if (fixed_clock_) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // scripted runs ignore the real mouse
        ImGui::NewFrame();
        update_viewport();

        if (options_.script) {
            const std::vector<Action>& actions = options_.script->actions;
            while (next_action_ < actions.size() && actions[next_action_].time <= clock_ + 1e-9) run_action(actions[next_action_++]);
        }
        fly_with_keys(frame_seconds);
        simulate(frame_seconds);
        update_viewport();  // the script may have toggled the panels
        draw_frame();
        ImGui::Render();
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());

        for (const std::filesystem::path& file : pending_screenshots_) write_screenshot(file);
        pending_screenshots_.clear();
        for (const std::filesystem::path& stem : pending_saves_) save(stem);
        pending_saves_.clear();
        const bool last = quit_ || (options_.frames > 0 && frame + 1 >= options_.frames) || glfwWindowShouldClose(window_);
        if (last) {
            summary_.bodies_rect = bodies_rect();
            if (!options_.screenshot.empty()) write_screenshot(options_.screenshot);
        }
        glfwSwapBuffers(window_);

        clock_ += frame_seconds;
        summary_.frames = frame + 1;
        last_frame_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frame_start).count();
        if (frame >= 10) {
            frame_ms_total_ += last_frame_ms_;
            ++timed_frames_;
        }
        if (fixed_clock_ ? frame % 15 == 0 : std::chrono::steady_clock::now() - last_title_ > std::chrono::milliseconds(250))
            update_title();
        if (last) break;
    }
    summary_.scene = scene_name_;
    summary_.bodies_end = world_->body_count();
    summary_.selected = world_->is_valid(selected_) ? static_cast<long>(selected_.index) : -1;
    summary_.ms_per_step = summary_.steps > 0 ? step_ms_total_ / static_cast<double>(summary_.steps) : 0.0;
    summary_.ms_per_frame = timed_frames_ > 0 ? frame_ms_total_ / timed_frames_ : 0.0;
    summary_.width = viewport_.width;
    summary_.height = viewport_.height;
    summary_.view_rect = {viewport_.left, viewport_.top, viewport_.width - viewport_.right, viewport_.height};
    return summary_;
}

}  // namespace tumble::viewer
