#pragma once
/// @file
/// The viewer's camera: an orbit camera (a target point, a yaw, a pitch and a distance) with pan, zoom, fly and
/// frame-all, and the conversions between window pixels and world rays the picking and the labels need.
///
/// Conventions: world frame, metres, +Y up. Window pixels have x to the right and y down from the top-left corner
/// of the framebuffer; the centre of pixel (i, j) is (i + 0.5, j + 0.5). Angles are radians.

#include <optional>

#include <glm/glm.hpp>

#include <tumble/narrowphase/shapes.hpp>

namespace tumble::viewer {

/// The framebuffer the 3D view is drawn into, and the parts of it that panels cover. The camera centres its view
/// on the free part (between `left` and `width - right`, below `top`) while drawing over the whole framebuffer,
/// so nothing is stretched and frame-all fits the scene where it is not hidden.
struct Viewport {
    int width = 1280;  ///< pixels, >= 1
    int height = 720;  ///< pixels, >= 1
    int left = 0;      ///< pixels covered on the left (a panel column)
    int right = 0;     ///< pixels covered on the right
    int top = 0;       ///< pixels covered at the top (the menu bar)
};

/// A ray in the world: `origin + t * direction`, t >= 0, `direction` a unit vector.
struct Ray {
    glm::vec3 origin{0.0f};
    glm::vec3 direction{0.0f, 0.0f, -1.0f};
};

/// A point projected into the window: pixel coordinates and its distance in front of the eye (metres along the
/// viewing direction).
struct ScreenPoint {
    glm::vec2 pixel{0.0f};
    float depth = 0.0f;
};

/// Orbit camera looking at `target` from `distance` metres away. `yaw` turns about +Y (0: the eye is on the +Z
/// side of the target, looking along -Z; pi/4 with pitch 0.6155 is the iso view of `tumble render`), `pitch` is the
/// angle of the eye above the target's horizontal plane (positive: looking down), kept within +-89 degrees.
class OrbitCamera {
public:
    glm::vec3 target{0.0f};     ///< the point looked at and orbited around (world, metres)
    float yaw = 0.7853982f;     ///< radians about +Y
    float pitch = 0.6154797f;   ///< radians of the eye above the target's horizontal plane
    float distance = 10.0f;     ///< metres from the eye to the target, > 0
    float fov_y = 0.8726646f;   ///< vertical field of view, radians (50 degrees)

    /// The eye position (world).
    glm::vec3 eye() const;
    /// Unit viewing direction, from the eye towards the target.
    glm::vec3 forward() const;
    /// Unit vector to the right of the view, horizontal.
    glm::vec3 right() const;
    /// Unit vector up the picture (perpendicular to forward and right).
    glm::vec3 up() const;

    /// World to eye transform (right-handed, the eye looks along -Z).
    glm::mat4 view() const;
    /// Perspective projection of `viewport`, its centre shifted to the middle of the free part. Near and far planes
    /// follow the distance and the scene size given to `frame`.
    glm::mat4 projection(const Viewport& viewport) const;

    /// The ray from the eye through window pixel `pixel` (x right, y down).
    Ray ray(const Viewport& viewport, const glm::vec2& pixel) const;
    /// Where `point` appears in the window; nothing when it is behind the eye.
    std::optional<ScreenPoint> project(const Viewport& viewport, const glm::vec3& point) const;

    /// Turns the view by a mouse motion of (dx, dy) pixels: right turns the scene left, down tilts it to look more
    /// from above.
    void orbit(float dx_pixels, float dy_pixels);
    /// Moves the target (and the eye with it) so that the point under the cursor follows a mouse motion of
    /// (dx, dy) pixels at the target's distance.
    void pan(const Viewport& viewport, float dx_pixels, float dy_pixels);
    /// Moves the eye towards the target by 10 % per click (negative clicks move away); the distance stays within
    /// [0.05 m, 100 x the framed scene's radius].
    void zoom(float clicks);
    /// Moves eye and target together by `metres` along a direction given by its components (along right(), along
    /// world +Y, along forward()); the direction is normalised, a zero direction does nothing.
    void fly(const glm::vec3& direction_in_view, float metres);
    /// Looks at the centre of `bounds` from the current direction, from just far enough that its bounding sphere
    /// fits the free part of `viewport`. An empty box (min > max) frames a 2 m cube at the origin.
    void frame(const Aabb& bounds, const Viewport& viewport);

    /// Radius of the scene last framed, metres (sets the zoom range, the near and far planes and the fly speed).
    float scene_radius() const { return scene_radius_; }

private:
    float scene_radius_ = 10.0f;
};

}  // namespace tumble::viewer
