#pragma once
// Scene helpers for the game-facing tests (queries, sweeps, character, events, sleep, debug drawing), and
// independent long-double brute-force answers to compare the world's queries with.

#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <vector>

#include <tumble/tumble.hpp>

#include "data_paths.hpp"

namespace gamescene {

using LD = long double;

using testutil::kBundledLevel;
inline constexpr float kDt = 1.0f / 60.0f;

// The three real levels (samples/data).
inline std::vector<std::filesystem::path> levels() { return testutil::real_levels(); }

inline tumble::BodyDef box(glm::vec3 p, glm::vec3 h = glm::vec3(0.5f), float mass = 1.0f) {
    tumble::BodyDef d;
    d.position = p;
    d.half_extents = h;
    d.mass = mass;
    return d;
}

// A square of two triangles at height y, facing +y, side 2 * half.
inline tumble::TriangleMesh floor_mesh(float y = 0.0f, float half = 20.0f) {
    tumble::TriangleMesh m;
    m.vertices = {{-half, y, -half}, {half, y, -half}, {half, y, half}, {-half, y, half}};
    m.indices = {0, 2, 1, 0, 3, 2};
    return m;
}

// The 12 triangles of a closed box, faces outward (counter-clockwise seen from outside).
inline tumble::TriangleMesh box_mesh(glm::vec3 lo, glm::vec3 hi) {
    tumble::TriangleMesh m;
    for (int k = 0; k < 8; ++k) m.vertices.push_back({k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z});
    // Each face as a quad (a, b, c, d) counter-clockwise from outside.
    const std::uint32_t quads[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
    for (const auto& q : quads) m.indices.insert(m.indices.end(), {q[0], q[1], q[2], q[0], q[2], q[3]});
    return m;
}

struct V {
    LD x = 0, y = 0, z = 0;
    V() = default;
    V(LD a, LD b, LD c) : x(a), y(b), z(c) {}
    explicit V(const glm::vec3& v) : x(v.x), y(v.y), z(v.z) {}
    V operator+(const V& o) const { return {x + o.x, y + o.y, z + o.z}; }
    V operator-(const V& o) const { return {x - o.x, y - o.y, z - o.z}; }
    V operator*(LD s) const { return {x * s, y * s, z * s}; }
};
inline LD dot(const V& a, const V& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline V cross(const V& a, const V& b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }

// Ray against box by its six face planes (a different method from the engine's slabs): the nearest entry through a
// face, or 0 when the origin is inside. `u` must be unit.
inline std::optional<LD> brute_ray_box(const tumble::Obb& b, const V& o, const V& u, LD max_distance) {
    const V c(b.center);
    V a[3];
    LD e[3];
    for (int i = 0; i < 3; ++i) a[i] = V(b.axes[i]), e[i] = b.half_extents[i];
    bool inside = true;
    for (int i = 0; i < 3; ++i) inside = inside && std::abs(dot(o - c, a[i])) <= e[i];
    if (inside) return LD(0);
    std::optional<LD> best;
    for (int i = 0; i < 3; ++i)
        for (LD s : {LD(-1), LD(1)}) {
            const V n = a[i] * s;
            const LD un = dot(u, n);
            if (!(un < 0)) continue;  // only faces the ray enters through
            const LD t = dot(c + n * e[i] - o, n) / un;
            if (t < 0 || t > max_distance) continue;
            const V q = o + u * t - c;
            bool on_face = true;
            for (int j = 0; j < 3; ++j)
                if (j != i) on_face = on_face && std::abs(dot(q, a[j])) <= e[j] * (1 + 1e-12L) + 1e-12L;
            if (on_face && (!best || t < *best)) best = t;
        }
    return best;
}

// Ray against triangle by plane intersection and same-side tests; `front` tells whether the ray came from the front.
struct TriHit {
    LD t;
    bool front;
};
inline std::optional<TriHit> brute_ray_triangle(const tumble::Triangle& tri, const V& o, const V& u, LD max_distance) {
    const V a(tri.a), b(tri.b), c(tri.c);
    const V n = cross(b - a, c - a);
    const LD un = dot(u, n);
    if (un == 0) return std::nullopt;
    const LD t = dot(a - o, n) / un;
    if (t < 0 || t > max_distance) return std::nullopt;
    const V q = o + u * t;
    if (dot(cross(b - a, q - a), n) < 0 || dot(cross(c - b, q - b), n) < 0 || dot(cross(a - c, q - c), n) < 0)
        return std::nullopt;
    return TriHit{t, un < 0};
}

}  // namespace gamescene
