// tumble-viewer's Dear ImGui panels: the menu bar, the run and world settings column on the left, the stats and
// selected-body column on the right, and the controls window.

#include <algorithm>
#include <cstdio>
#include <thread>

#include <imgui.h>

#include "app.hpp"
#include "gl.hpp"
#include "readouts.hpp"

namespace tumble::viewer {
namespace {

constexpr ImGuiWindowFlags kColumn = ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
                                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoTitleBar;

void readout_table(const char* id, const std::vector<Readout>& rows) {
    if (!ImGui::BeginTable(id, 2, ImGuiTableFlags_SizingStretchProp)) return;
    ImGui::TableSetupColumn("label", ImGuiTableColumnFlags_WidthFixed, 100.0f);
    ImGui::TableSetupColumn("value", ImGuiTableColumnFlags_WidthStretch);
    for (const Readout& r : rows) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", r.label.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r.value.c_str());
    }
    ImGui::EndTable();
}

void tooltip(const char* text) {
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
}

}  // namespace

void Viewer::draw_panels() {
    if (ImGui::BeginMainMenuBar()) {
        if (ImGui::BeginMenu("Scene")) {
            for (const Demo& d : demos_) {
                if (ImGui::MenuItem(d.name.c_str(), nullptr, d.name == scene_name_)) {
                    try {
                        open(d.build(), d.name);
                        error_.clear();
                    } catch (const Error& e) {
                        error_ = e.what();
                    }
                }
                tooltip(d.description.c_str());
            }
            ImGui::Separator();
            if (ImGui::MenuItem("Reset", "R")) execute(Command::reset);
            if (ImGui::MenuItem("Save scene and screenshot", "F12")) save_for_report();
            tooltip("Writes tumble-viewer-N.json (the world as it is now) and tumble-viewer-N.png here, for a bug report");
            if (ImGui::MenuItem("Quit", "Ctrl+Q")) quit_ = true;
            ImGui::EndMenu();
        }
        if (ImGui::BeginMenu("View")) {
            if (ImGui::MenuItem("Frame all", "F")) execute(Command::frame_all);
            if (ImGui::MenuItem("Panels", "Tab", panels_)) toggle("panels");
            if (ImGui::MenuItem("Controls", "H", show_help_)) show_help_ = !show_help_;
            ImGui::EndMenu();
        }
        ImGui::SameLine(ImGui::GetWindowWidth() * 0.5f - 120.0f);
        ImGui::Text("%s   %.2f ms/step   %.1f ms/frame", scene_name_.c_str(), last_step_ms_, last_frame_ms_);
        ImGui::EndMainMenuBar();
    }

    const float height = static_cast<float>(viewport_.height - viewport_.top);
    ImGui::SetNextWindowPos(ImVec2(0.0f, static_cast<float>(viewport_.top)));
    ImGui::SetNextWindowSize(ImVec2(static_cast<float>(viewport_.left), height));
    if (ImGui::Begin("Run and world", nullptr, kColumn)) {
        draw_run_panel();
        draw_world_panel();
        draw_debug_panel();
    }
    ImGui::End();

    ImGui::SetNextWindowPos(ImVec2(static_cast<float>(viewport_.width - viewport_.right), static_cast<float>(viewport_.top)));
    ImGui::SetNextWindowSize(ImVec2(static_cast<float>(viewport_.right), height));
    if (ImGui::Begin("Stats and selection", nullptr, kColumn)) {
        draw_stats_panel();
        draw_selection_panel();
    }
    ImGui::End();

    if (show_help_) {
        ImGui::SetNextWindowPos(ImVec2(static_cast<float>(viewport_.left) + 20.0f, static_cast<float>(viewport_.top) + 20.0f),
                                ImGuiCond_Appearing);
        if (ImGui::Begin("Controls", &show_help_, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) {
            static const char* const rows[][2] = {
                {"left drag", "orbit"},           {"right or middle drag", "pan"},
                {"wheel", "zoom"},                {"W A S D, Q E", "fly (Shift: faster)"},
                {"F", "frame all"},               {"left click", "select a body"},
                {"Ctrl + left drag", "pick a body and drag it"},
                {"Space, Shift + left click", "throw a box at the cursor"},
                {"Delete, X", "delete the selected body"},
                {"P / N / M / R", "play-pause / single step / slow motion / reset"},
                {"C B O Z V G L", "contacts, AABBs, octree, sleep colours, wireframe, grid, labels"},
                {"Tab", "panels"},                {"Esc", "drop and deselect"},
                {"F12", "save the scene and a screenshot (bug reports)"},
            };
            if (ImGui::BeginTable("controls", 2)) {
                for (const auto& r : rows) {
                    ImGui::TableNextRow();
                    ImGui::TableNextColumn();
                    ImGui::TextUnformatted(r[0]);
                    ImGui::TableNextColumn();
                    ImGui::TextUnformatted(r[1]);
                }
                ImGui::EndTable();
            }
        }
        ImGui::End();
    }
}

void Viewer::draw_run_panel() {
    if (!ImGui::CollapsingHeader("Run", ImGuiTreeNodeFlags_DefaultOpen)) return;
    if (ImGui::Button(run_.paused ? "Play (P)" : "Pause (P)", ImVec2(90, 0))) execute(Command::toggle_pause);
    ImGui::SameLine();
    if (ImGui::Button("Step (N)", ImVec2(80, 0))) execute(Command::step);
    ImGui::SameLine();
    if (ImGui::Button("Reset (R)", ImVec2(-1, 0))) execute(Command::reset);
    if (ImGui::Button("Throw a box (Space)", ImVec2(-1, 0)))
        throw_at({0.5f * static_cast<float>(viewport_.left + viewport_.width - viewport_.right),
                  0.5f * static_cast<float>(viewport_.top + viewport_.height)});
    tooltip("From the camera at the middle of the view; Space throws at the cursor");
    bool slow = run_.speed < 1.0f;
    if (ImGui::Checkbox("slow motion (M)", &slow)) execute(Command::slow_motion);
    ImGui::SetNextItemWidth(-110);
    ImGui::SliderFloat("speed", &run_.speed, 0.05f, 2.0f, "%.2fx", ImGuiSliderFlags_Logarithmic);
    ImGui::SetNextItemWidth(-110);
    ImGui::SliderFloat("step rate Hz", &run_.rate_hz, 10.0f, 480.0f, "%.0f", ImGuiSliderFlags_Logarithmic);
    ImGui::SetNextItemWidth(-110);
    ImGui::SliderInt("substeps", &run_.substeps, 1, 16);
    if (!error_.empty()) ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.3f, 1.0f), "%s", error_.c_str());
}

// The world panel: every change goes to World::set_settings at once. Friction and restitution belong to each body
// and mesh (the selected body's panel shows them); the solver's substeps and iterations are here.
void Viewer::draw_world_panel() {
    if (!ImGui::CollapsingHeader("World settings", ImGuiTreeNodeFlags_DefaultOpen)) return;
    WorldSettings s = settings_;
    bool changed = false;
    ImGui::PushItemWidth(-122);
    changed |= ImGui::DragFloat3("gravity m/s2", &s.gravity.x, 0.05f, -50.0f, 50.0f, "%.2f");
    changed |= ImGui::SliderInt("solver substeps", &s.solver.substeps, 1, 32);
    tooltip("Substeps per world step (SolverSettings::substeps)");
    changed |= ImGui::SliderInt("iterations", &s.solver.iterations, 1, 64);
    tooltip("Most position passes per substep (SolverSettings::iterations)");
    changed |= ImGui::SliderFloat("bounce above m/s", &s.solver.restitution_threshold, 0.0f, 10.0f, "%.2f");
    tooltip("Restitution acts only on contacts approaching faster (SolverSettings::restitution_threshold)");
    changed |= ImGui::Checkbox("sleep", &s.sleep.enabled);
    changed |= ImGui::SliderFloat("sleep speed m/s", &s.sleep.linear_velocity, 0.005f, 1.0f, "%.3f", ImGuiSliderFlags_Logarithmic);
    changed |= ImGui::SliderFloat("sleep time s", &s.sleep.time, 0.0f, 5.0f, "%.2f");
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    changed |= ImGui::SliderInt("threads", &s.threads, 1, std::max(cores, 8));
    ImGui::PopItemWidth();
    if (changed) {
        try {
            world_->set_settings(s);
            settings_ = s;
        } catch (const InvalidArgument& e) {
            error_ = e.what();
        }
    }
}

void Viewer::draw_debug_panel() {
    if (!ImGui::CollapsingHeader("Debug draw", ImGuiTreeNodeFlags_DefaultOpen)) return;
    DebugDrawOptions& e = draw_.engine;
    const auto box = [&](const char* label, bool value, const char* name) {
        bool v = value;
        if (ImGui::Checkbox(label, &v)) toggle(name);
    };
    box("contacts, normals (C)", e.contacts, "contacts");
    box("AABBs (B)", e.proxies, "aabbs");
    box("octree cells (O)", e.octree_cells, "octree");
    box("sleeping colours (Z)", draw_.sleep_colours, "sleep_colours");
    box("mesh wireframe (V)", e.meshes, "wireframe");
    box("ground grid (G)", draw_.grid, "grid");
    box("labels: depth, sleep (L)", labels_, "labels");
    ImGui::Spacing();
    ImGui::TextDisabled("H: mouse and keyboard controls");
}

// Stats: StepStats through step_stats_readouts (counts and per-stage times of the last step), and the step times
// the viewer measures around World::step.
void Viewer::draw_stats_panel() {
    if (!ImGui::CollapsingHeader("Stats", ImGuiTreeNodeFlags_DefaultOpen)) return;
    const std::size_t stored = std::min<std::size_t>(step_ms_next_, step_ms_.size());
    const std::size_t window = std::min<std::size_t>(stored, static_cast<std::size_t>(run_.rate_hz * 10.0f));
    std::vector<float> recent(window);
    float peak = 0.0f;
    double sum = 0.0;
    for (std::size_t i = 0; i < window; ++i) {
        recent[i] = step_ms_[(step_ms_next_ - window + i) % step_ms_.size()];
        peak = std::max(peak, recent[i]);
        sum += static_cast<double>(recent[i]);
    }
    ImGui::Text("step %.2f ms (mean %.2f, peak %.2f)", last_step_ms_, window ? sum / static_cast<double>(window) : 0.0,
                static_cast<double>(peak));
    ImGui::Text("frame %.1f ms, %.0f fps", last_frame_ms_, last_frame_ms_ > 0.0 ? 1000.0 / last_frame_ms_ : 0.0);
    char overlay[64];
    std::snprintf(overlay, sizeof overlay, "step ms, last %.0f s", static_cast<double>(window) / static_cast<double>(run_.rate_hz));
    ImGui::PlotLines("##steps", recent.data(), static_cast<int>(recent.size()), 0, overlay, 0.0f, std::max(peak * 1.1f, 0.05f),
                     ImVec2(ImGui::GetContentRegionAvail().x, 70));
    readout_table("stats", step_stats_readouts(*world_));
    const FrameCounts& c = renderer_->counts();
    ImGui::TextDisabled("drawn: %zu boxes, %zu triangles", c.boxes, c.triangles);
}

void Viewer::draw_selection_panel() {
    if (!ImGui::CollapsingHeader("Selected body", ImGuiTreeNodeFlags_DefaultOpen)) return;
    if (!world_->is_valid(selected_)) {
        ImGui::TextWrapped("None. Click a body to select it; Ctrl + drag to pull it.");
        return;
    }
    readout_table("body", body_readouts(*world_, selected_));
    if (ImGui::Button("Delete (X)")) execute(Command::delete_body);
    ImGui::SameLine();
    if (ImGui::Button("Wake")) world_->wake(selected_);
    ImGui::SameLine();
    if (ImGui::Button("Deselect (Esc)")) execute(Command::deselect);
}

}  // namespace tumble::viewer
