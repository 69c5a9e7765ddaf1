#include "camera.hpp"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace tumble::viewer {
namespace {

constexpr float kMaxPitch = 1.5533430f;  // 89 degrees
constexpr float kRadiansPerPixel = 0.006f;

// Clip-space shift that puts the projection centre in the middle of the free part of the viewport.
glm::vec2 centre_shift(const Viewport& v) {
    const float cx = 0.5f * static_cast<float>(v.left + (v.width - v.right));
    const float cy = 0.5f * static_cast<float>(v.top + v.height);
    return {2.0f * cx / static_cast<float>(v.width) - 1.0f, 1.0f - 2.0f * cy / static_cast<float>(v.height)};
}

}  // namespace

glm::vec3 OrbitCamera::eye() const { return target - forward() * distance; }

glm::vec3 OrbitCamera::forward() const {
    const glm::vec3 to_eye(std::cos(pitch) * std::sin(yaw), std::sin(pitch), std::cos(pitch) * std::cos(yaw));
    return -to_eye;
}

glm::vec3 OrbitCamera::right() const { return {std::cos(yaw), 0.0f, -std::sin(yaw)}; }

glm::vec3 OrbitCamera::up() const { return glm::cross(right(), forward()); }

glm::mat4 OrbitCamera::view() const { return glm::lookAt(eye(), target, up()); }

glm::mat4 OrbitCamera::projection(const Viewport& v) const {
    const float aspect = static_cast<float>(std::max(v.width, 1)) / static_cast<float>(std::max(v.height, 1));
    const float near_plane = std::clamp(distance * 0.01f, 0.02f, 2.0f);
    const float far_plane = distance + 4.0f * scene_radius_ + 10.0f;
    const glm::vec2 shift = centre_shift(v);
    return glm::translate(glm::mat4(1.0f), glm::vec3(shift, 0.0f)) * glm::perspective(fov_y, aspect, near_plane, far_plane);
}

Ray OrbitCamera::ray(const Viewport& v, const glm::vec2& pixel) const {
    const glm::vec2 ndc(2.0f * pixel.x / static_cast<float>(v.width) - 1.0f,
                        1.0f - 2.0f * pixel.y / static_cast<float>(v.height));
    const glm::mat4 inverse = glm::inverse(projection(v) * view());
    glm::vec4 near_point = inverse * glm::vec4(ndc, -1.0f, 1.0f);
    glm::vec4 far_point = inverse * glm::vec4(ndc, 1.0f, 1.0f);
    near_point /= near_point.w;
    far_point /= far_point.w;
    return {eye(), glm::normalize(glm::vec3(far_point) - glm::vec3(near_point))};
}

std::optional<ScreenPoint> OrbitCamera::project(const Viewport& v, const glm::vec3& point) const {
    const glm::vec4 clip = projection(v) * view() * glm::vec4(point, 1.0f);
    if (!(clip.w > 1e-6f)) return std::nullopt;
    const glm::vec2 ndc = glm::vec2(clip) / clip.w;
    return ScreenPoint{{(ndc.x + 1.0f) * 0.5f * static_cast<float>(v.width), (1.0f - ndc.y) * 0.5f * static_cast<float>(v.height)},
                       glm::dot(point - eye(), forward())};
}

void OrbitCamera::orbit(float dx, float dy) {
    yaw -= dx * kRadiansPerPixel;
    pitch = std::clamp(pitch + dy * kRadiansPerPixel, -kMaxPitch, kMaxPitch);
}

void OrbitCamera::pan(const Viewport& v, float dx, float dy) {
    const float metres_per_pixel = 2.0f * distance * std::tan(0.5f * fov_y) / static_cast<float>(std::max(v.height, 1));
    target += (-dx * right() + dy * up()) * metres_per_pixel;
}

void OrbitCamera::zoom(float clicks) {
    distance = std::clamp(distance * std::pow(0.9f, clicks), 0.05f, 100.0f * scene_radius_);
}

void OrbitCamera::fly(const glm::vec3& d, float metres) {
    const glm::vec3 world = d.x * right() + d.y * glm::vec3(0.0f, 1.0f, 0.0f) + d.z * forward();
    const float length = glm::length(world);
    if (length > 0.0f) target += world * (metres / length);
}

void OrbitCamera::frame(const Aabb& bounds, const Viewport& v) {
    Aabb box = bounds;
    if (box.min.x > box.max.x || box.min.y > box.max.y || box.min.z > box.max.z) box = {glm::vec3(-1.0f), glm::vec3(1.0f)};
    target = 0.5f * (box.min + box.max);
    scene_radius_ = std::max(0.5f * glm::length(box.max - box.min), 0.5f);
    const float focal = 0.5f * static_cast<float>(v.height) / std::tan(0.5f * fov_y);
    const float free_half = 0.5f * static_cast<float>(std::max(std::min(v.width - v.left - v.right, v.height - v.top), 16));
    const float half_angle = std::atan(free_half / focal);
    distance = 1.02f * scene_radius_ / std::sin(half_angle);
}

}  // namespace tumble::viewer
