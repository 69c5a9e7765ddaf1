#pragma once
/// @file
/// Scripted input for tumble-viewer (`--script FILE`): timed actions that drive the viewer through the same input
/// handlers as the mouse and keyboard, so that throwing, picking, dragging and the toggles run without a person
/// (in CI under Xvfb). The format, one action per line (docs/viewer.md):
///
///     # a comment; blank lines are ignored, and so is everything after '#'
///     TIME ACTION [ARGUMENTS]
///
/// TIME is in seconds on the viewer's clock (which advances 1/60 s per frame in scripted runs), >= 0 and never
/// smaller than the line before. An action runs at the start of the first frame whose clock has reached its time.
/// Actions (pixel coordinates: x to the right, y down from the top-left corner of the window):
///
///     cursor X Y | cursor thrown   move the mouse cursor to a pixel, or onto the centre of the last thrown box
///     throw                        throw a box from the camera towards the cursor (Space)
///     pick                         press Ctrl + left mouse button at the cursor: grabs the body under it
///     release                      release the mouse buttons (ends a pick, orbit or pan)
///     click                        left click at the cursor: selects the body under it
///     delete                       delete the selected body (Delete)
///     toggle NAME                  panels, contacts, aabbs, octree, sleep_colours, wireframe, labels, grid
///     orbit DX DY | pan DX DY      drag with the left (orbit) or right (pan) mouse button by DX, DY pixels
///     zoom CLICKS                  mouse wheel clicks, positive towards the scene
///     fly DIRECTION SECONDS        forward, back, left, right, up or down (W, S, A, D, E, Q held that long)
///     pause | play | step | reset | frame | slowmo      run control and frame-all, as their keys
///     rate HZ | substeps N         steps per simulated second (1..1000), World::step calls per step (1..64)
///     scene NAME                   open a demo scene by its menu name
///     screenshot FILE              write the current frame as a PNG file
///     save STEM                    write the world as scene file STEM.json and the frame as STEM.png (F12)
///     quit                         leave after this frame

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tumble::viewer {

/// What a script line does (see the file comment).
enum class Verb {
    cursor, cursor_thrown, throw_box, pick, release, click, delete_selected, toggle, orbit, pan, zoom, fly, pause,
    play, step, reset, frame, slowmo, rate, substeps, scene, screenshot, save, quit
};

/// One timed action.
struct Action {
    double time = 0.0;  ///< seconds on the viewer's clock
    Verb verb = Verb::quit;
    float x = 0.0f, y = 0.0f;  ///< numeric arguments: pixels (cursor, orbit, pan), clicks, seconds, Hz or a count
    std::string text;          ///< the name argument (toggle, fly direction, scene, screenshot file)
    int line = 0;              ///< line in the script file, from 1
};

/// A parsed script: actions in file order (their times never decrease).
struct Script {
    std::filesystem::path file;
    std::vector<Action> actions;
    /// Clock time of the last action (0 for an empty script).
    double duration() const { return actions.empty() ? 0.0 : actions.back().time; }
};

/// The names `toggle` accepts.
const std::vector<std::string>& toggle_names();

/// Parses script text. `origin` names the file in messages; `scene_names` are the demo names `scene` accepts.
/// Throws FileError "ORIGIN:LINE: what is wrong" for an unknown action, a missing, extra or malformed argument, a
/// time that is negative, not a number or smaller than the previous line's, or an unknown toggle, direction or
/// scene.
Script parse_script(std::string_view text, const std::filesystem::path& origin, const std::vector<std::string>& scene_names);

/// Reads and parses a script file. Throws FileError naming the file when it cannot be read, or as parse_script.
Script load_script(const std::filesystem::path& file, const std::vector<std::string>& scene_names);

}  // namespace tumble::viewer
