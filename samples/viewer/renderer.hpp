#pragma once
/// @file
/// The viewer's OpenGL 3.3 renderer. Everything the world shows comes through the engine's debug-drawing interface
/// (World::debug_draw calling tumble::DebugDraw): bodies arrive through DebugDraw::body and are drawn as lit, filled
/// boxes with dark edges, everything else (contacts and normals, proxies, octree cells, mesh wireframes, points) as
/// lines. The static level is drawn as `tumble render` draws it: front faces flat shaded, feature edges
/// (cli::feature_edges) on top, with the same light and colours (cli::look), on a dark background instead of its
/// white page so that the engine's white contact lines show. A ground grid lies under the scene. Lines the engine
/// draws are drawn again, faintly, where shapes hide them.
///
/// World frame, metres; colours are linear RGB in [0, 1] written to the framebuffer as they are.

#include <memory>
#include <string>
#include <vector>

#include <tumble/tumble.hpp>

#include "camera.hpp"
#include "render.hpp"

namespace tumble::viewer {

/// What a frame shows besides the engine's own options.
struct FrameOptions {
    DebugDrawOptions engine;     ///< passed to World::debug_draw (bodies, contacts, proxies, cells, meshes, labels)
    bool sleep_colours = false;  ///< colour dynamic bodies by state (DebugColors: awake green, sleeping blue) rather
                                 ///< than one colour per body (cli::box_colour)
    bool grid = true;            ///< the ground grid
    BodyId selected;             ///< drawn with highlighted edges, visible through other shapes; null for none
    bool grab = false;           ///< draw the grab spring from `grab_from` to `grab_to`
    glm::vec3 grab_from{0.0f}, grab_to{0.0f};
};

/// A text label of the last frame (DebugDraw::text), for the interface layer to draw over the scene.
struct Label {
    glm::vec3 position{0.0f};  ///< world
    std::string text;
    glm::vec3 colour{1.0f};
};

/// Counts of the last frame, for the stats panel.
struct FrameCounts {
    std::size_t boxes = 0;      ///< filled bodies drawn
    std::size_t triangles = 0;  ///< triangles drawn (level and boxes)
};

/// Draws worlds into the current OpenGL context. Construct it after the context is current (GLFW) and destroy it
/// before the context goes. Not copyable.
class Renderer {
public:
    /// Compiles the shaders and creates the buffers. Throws std::runtime_error with the driver's log when a shader
    /// does not compile or link.
    Renderer();
    ~Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    /// Replaces the static geometry: the level meshes (flat-shaded front faces and feature edges) and a ground
    /// grid at the bottom of `bounds`, 30 % wider than it, with at most 101 lines each way spaced 1, 2 or 5 times a
    /// power of ten metres.
    void set_level(const std::vector<const TriangleMesh*>& meshes, const Aabb& bounds);

    /// Draws `world` seen by `camera` into the framebuffer of `viewport` (cleared first).
    void draw(const World& world, const OrbitCamera& camera, const Viewport& viewport, const FrameOptions& options);

    /// Text labels the last draw received, in call order.
    const std::vector<Label>& labels() const { return labels_; }
    /// What the last draw drew.
    const FrameCounts& counts() const { return counts_; }

    /// Reads the framebuffer's back buffer (what the next swap shows) as a picture, rows from the top.
    static cli::Picture read_pixels(int width, int height);

private:
    struct Gpu;
    std::unique_ptr<Gpu> gpu_;
    std::vector<Label> labels_;
    FrameCounts counts_;
};

}  // namespace tumble::viewer
