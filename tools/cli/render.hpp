#pragma once
/// @file
/// Pictures of a scene for `tumble render` and for the expected/actual pictures of a failed `tumble check`: a
/// small software rasteriser (orthographic camera, depth buffer, flat shading, 2x2 supersampling) drawing what
/// World::debug_draw shows of a world (DrawingRecorder, draw_world): the static meshes' front faces and feature
/// edges, the bodies as filled boxes with their edges, and optionally contact markers. PNG files are written with
/// stb_image_write (Debian libstb-dev).
///
/// Views are orthographic, +Y is up in the world:
///   top:   looking down -Y, +X to the right, -Z (north) up the picture;
///   front: looking along -Z, +X to the right, +Y up;
///   side:  looking along -X, -Z to the right, +Y up;
///   iso:   looking along (-1, -1, -1), +Y up the picture.
/// Mesh triangles are drawn only from their front (counter-clockwise) side, so the top view of an indoor level
/// shows its floors, not its ceilings.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tumble/tumble.hpp>

namespace tumble::cli {

enum class View { top, side, front, iso };

/// "top", "side", "front" or "iso"; nothing for anything else.
std::optional<View> parse_view(std::string_view name);
const char* view_name(View view);

/// 8-bit RGB picture, rows from the top.
struct Picture {
    int width = 0;
    int height = 0;
    std::vector<std::uint8_t> rgb;  ///< width * height * 3
    std::uint8_t* at(int x, int y) { return &rgb[(static_cast<std::size_t>(y) * width + x) * 3]; }
    const std::uint8_t* at(int x, int y) const { return &rgb[(static_cast<std::size_t>(y) * width + x) * 3]; }
};

/// What to draw (world frame, metres): what a DrawingRecorder collected from World::debug_draw, or built by hand.
struct Drawing {
    /// Static mesh triangles: front faces flat shaded, and the feature edges (see FeatureEdge) of the mesh they make
    /// together, its vertices joined where their positions are equal.
    std::vector<Triangle> triangles;
    struct Box {
        Obb box;
        glm::vec3 colour{0.8f};  ///< linear 0..1 RGB
        bool highlight = false;  ///< drawn with thick red edges (the box a failed check names)
    };
    std::vector<Box> boxes;
    struct Marker {
        glm::vec3 point{0.0f};
        glm::vec3 normal{0.0f, 1.0f, 0.0f};
    };
    std::vector<Marker> contacts;  ///< drawn as red dots with a short normal line
    struct Line {
        glm::vec3 from{0.0f}, to{0.0f};
        glm::vec3 colour{0.0f};
    };
    std::vector<Line> lines;       ///< any other segment (proxies, octree cells, ...), depth tested
    std::string caption;           ///< printed in the top-left corner
};

/// A DebugDraw that collects what World::debug_draw emits into a Drawing, for render:
///  - DebugDraw::body: a filled box, in the colour `colour` gives (the engine's DebugColors colour when unset),
///    with thick red edges when `highlight` names the body;
///  - three `line` calls in DebugColors::fixed that close a loop a-b, b-c, c-a (how World::debug_draw gives each
///    static mesh triangle with DebugDrawOptions::meshes): that triangle, in Drawing::triangles;
///  - `point`: a contact marker; the DebugColors::contact line that follows it from the same point (the contact
///    normal World::debug_draw draws) gives the marker's direction instead of being drawn;
///  - every other `line` (and `box`, which DebugDraw draws as 12 lines): a depth-tested line.
/// `text` draws nothing. Take the result with finish() once World::debug_draw has returned.
class DrawingRecorder final : public DebugDraw {
public:
    /// A body's fill colour from its id and the colour World::debug_draw gives it; unset keeps the engine's.
    std::function<glm::vec3(BodyId, const glm::vec3&)> colour;
    BodyId highlight;  ///< the body drawn with thick red edges; null for none

    void line(const glm::vec3& from, const glm::vec3& to, const glm::vec3& color) override;
    void body(BodyId id, const Obb& box, const glm::vec3& color) override;
    void point(const glm::vec3& position, float size, const glm::vec3& color) override;
    void text(const glm::vec3& position, std::string_view text, const glm::vec3& color) override;

    /// Everything recorded so far, the last lines included. The recorder is left empty.
    Drawing finish();

private:
    void flush();                       // the pending lines, as lines
    void take(const Drawing::Line& l);  // one line that closes no triangle
    Drawing drawing_;
    std::vector<Drawing::Line> pending_;  // up to three lines that may outline a mesh triangle
    bool marker_open_ = false;            // the last contact marker still waits for its normal line
};

/// How draw_world shows a world.
struct DrawWorldOptions {
    bool contacts = false;  ///< mark the contacts of the last step
    /// As DrawingRecorder::colour and DrawingRecorder::highlight.
    std::function<glm::vec3(BodyId, const glm::vec3&)> colour;
    BodyId highlight;
};

/// The bodies and static meshes of `world`, and its contacts when asked: World::debug_draw into a DrawingRecorder.
Drawing draw_world(const World& world, const DrawWorldOptions& options = {});

/// The bounds of a drawing's triangles and boxes (the camera frames these; lines and contact markers are drawn where
/// they fall).
Aabb bounds(const Drawing& drawing);

/// Renders `drawing` seen from `view`, framing `frame` (pass bounds(drawing), or a common box for pictures meant to
/// be compared side by side). `width`, `height` in pixels, each in [16, 8192].
Picture render(const Drawing& drawing, View view, const Aabb& frame, int width, int height);

/// The two pictures next to each other (same height required), separated by a thin grey bar.
Picture side_by_side(const Picture& left, const Picture& right);

/// Writes a PNG. Throws `FileError` naming the path when it cannot be written.
void write_png(const std::filesystem::path& path, const Picture& picture);

/// A distinct colour for box `index` (golden-angle hues); static boxes get a grey blue.
glm::vec3 box_colour(std::size_t index, bool is_static);

/// The look of the pictures, shared with `tumble-viewer` so both draw a scene alike. Colours are linear RGB in
/// [0, 1]; a face with unit normal n is drawn `colour * shade_factor(n)`.
namespace look {
inline constexpr glm::vec3 kBackground{0.97f, 0.97f, 0.96f};
inline constexpr glm::vec3 kLevel{0.80f, 0.78f, 0.74f};      ///< static mesh faces
inline constexpr glm::vec3 kLevelEdge{0.35f, 0.34f, 0.32f};  ///< static mesh feature edges
inline constexpr float kEdgeDarkening = 0.35f;                ///< a box's edges are its colour times this
inline constexpr float kAmbient = 0.42f;                      ///< light on a face turned away from the light
/// Unit vector towards the light (world frame): up, a little towards +X and +Z.
glm::dvec3 light_direction();
/// kAmbient + (1 - kAmbient) max(0, n . light_direction()) for a unit normal n.
double shade_factor(const glm::dvec3& normal);
}  // namespace look

/// An edge of a mesh that a drawing shows: open (one triangle), non-manifold (more than two) or a crease whose two
/// triangles' normals differ by more than the crease angle. Edges inside flat or gently curved regions are left out,
/// so a level's tessellation does not clutter the picture.
struct FeatureEdge {
    std::uint32_t v0 = 0, v1 = 0;          ///< vertex indices into the mesh, v0 < v1
    std::vector<std::uint32_t> triangles;  ///< the triangles that share the edge, in index order
};

/// The feature edges of `mesh` (see FeatureEdge), sorted by (v0, v1). Triangles with a zero normal count as
/// creased against any neighbour.
std::vector<FeatureEdge> feature_edges(const TriangleMesh& mesh, double crease_degrees = 25.0);

/// The mesh made of `triangles` (in that order) whose vertices are joined where their positions are equal: what a
/// list of triangles, such as World::debug_draw gives, needs for feature_edges.
TriangleMesh weld(const std::vector<Triangle>& triangles);

/// Reads "WIDTHxHEIGHT" (e.g. "1280x720") into width and height; false unless both are integers in [16, 8192] and
/// nothing else is in the text.
bool parse_picture_size(std::string_view text, int& width, int& height);

}  // namespace tumble::cli
