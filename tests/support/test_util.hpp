#pragma once
// Shared helpers for the tests: seeded random shapes and the check of a narrowphase answer against the reference.

#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include <glm/gtc/quaternion.hpp>

#include <tumble/narrowphase/sat.hpp>

#include "sat_reference.hpp"

namespace testutil {

// std::mt19937_64 with our own distributions, so a seed gives the same shapes with every standard library.
class Random {
public:
    explicit Random(std::uint64_t seed) : engine_(seed) {}
    double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    float uniformf(double lo, double hi) { return static_cast<float>(uniform(lo, hi)); }
    int index(int n) { return static_cast<int>(uniform() * n) % n; }
    glm::vec3 vec(double lo, double hi) { return {uniformf(lo, hi), uniformf(lo, hi), uniformf(lo, hi)}; }
    glm::vec3 unit() {
        for (;;) {
            const glm::dvec3 v(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
            const double l = glm::length(v);
            if (l > 0.1 && l <= 1.0) return glm::vec3(v / l);
        }
    }
    // Uniform random rotation (Shoemake), as a float quaternion.
    glm::quat rotation() {
        const double u1 = uniform(), u2 = uniform(), u3 = uniform(), tau = 6.283185307179586;
        const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
        return glm::normalize(glm::quat(static_cast<float>(b * std::cos(tau * u3)), static_cast<float>(a * std::sin(tau * u2)),
                                        static_cast<float>(a * std::cos(tau * u2)), static_cast<float>(b * std::sin(tau * u3))));
    }
    // Float rotation matrix as the engine builds it from a quaternion: orthonormal to ~1e-7 only.
    glm::mat3 rotation_matrix() { return glm::mat3_cast(rotation()); }
    std::mt19937_64& engine() { return engine_; }

private:
    std::mt19937_64 engine_;
};

// Rotation by `angle` radians about unit `axis`, in double, rounded to float once.
inline glm::mat3 rotation_about(const glm::dvec3& axis, double angle) {
    const glm::dvec3 u = glm::normalize(axis);
    const double c = std::cos(angle), s = std::sin(angle), t = 1 - c;
    glm::dmat3 m;
    m[0] = {t * u.x * u.x + c, t * u.x * u.y + s * u.z, t * u.x * u.z - s * u.y};
    m[1] = {t * u.x * u.y - s * u.z, t * u.y * u.y + c, t * u.y * u.z + s * u.x};
    m[2] = {t * u.x * u.z + s * u.y, t * u.y * u.z - s * u.x, t * u.z * u.z + c};
    return glm::mat3(m);
}

struct Tally {
    long checked = 0;    // decided pairs compared with the reference
    long ambiguous = 0;  // within the touching margin: not compared
    long overlapping = 0;
};

// Relative margin (of the larger shape's half-diagonal) within which a pair counts as touching and is not
// compared: the "relative 1e-5 of the boxes' size".
inline constexpr long double kTouchMargin = 1e-5L;
// Depth tolerance: relative to the depth, plus a floor far below anything float input can express.
inline constexpr long double kDepthRelative = 1e-4L;
inline constexpr long double kDepthFloor = 1e-9L;

// Compares overlap() and collide() on one pair with the reference. Returns an empty string when they agree,
// otherwise what differs. `first_edge`: first edge-axis index (6 for box-box, 4 for box-triangle).
template <class Shape, class T>
std::string check_against_reference(const tumble::ObbT<T>& a, const Shape& b, const ref::Result& r, Tally& tally) {
    const bool got_overlap = tumble::overlap(a, b);
    const auto got = tumble::collide(a, b);
    const long double margin = kTouchMargin * r.size;
    if (std::abs(r.signed_distance()) <= margin) {
        ++tally.ambiguous;
        if (got_overlap != got.has_value()) return "overlap() and collide() disagree on a touching pair";
        return {};
    }
    ++tally.checked;
    if (r.separated) {
        if (got_overlap) return "overlap() says true, the reference separates by " + std::to_string((double)r.gap);
        if (got) return "collide() reports a contact, the reference separates by " + std::to_string((double)r.gap);
        return {};
    }
    ++tally.overlapping;
    if (!got_overlap) return "overlap() says false, the reference overlaps by " + std::to_string((double)r.min_depth);
    if (!got) return "collide() reports nothing, the reference overlaps by " + std::to_string((double)r.min_depth);
    const tumble::ContactT<T>& c = *got;
    if (c.axis < 0 || c.axis >= r.count) return "axis index out of range: " + std::to_string(c.axis);
    const ref::Axis& axis = r.axes[c.axis];
    if (!axis.valid) return "reported a degenerate axis " + std::to_string(c.axis);
    const long double want = axis.depth();
    const long double depth = c.depth;
    const long double tol = kDepthRelative * std::abs(want) + kDepthFloor * r.size;
    if (std::abs(depth - want) > tol)
        return "depth on axis " + std::to_string(c.axis) + " is " + std::to_string((double)depth) + ", reference " +
               std::to_string((double)want);
    // Least penetration, up to the documented face bias when a face axis was chosen over an edge axis.
    // Least penetration, up to the documented face bias when a face axis was chosen over an edge axis. The
    // implementation measures the absolute part of the bias on the largest half extent; r.size (the largest
    // half-diagonal) bounds that from above.
    long double allowance = tol;
    if (c.axis < r.first_edge && r.min_axis >= r.first_edge)
        allowance += tumble::kFaceBiasRelative * want + tumble::kFaceBiasAbsolute * r.size;
    if (depth > r.min_depth + allowance)
        return "depth " + std::to_string((double)depth) + " on axis " + std::to_string(c.axis) +
               " is not the least: reference " + std::to_string((double)r.min_depth) + " on axis " +
               std::to_string(r.min_axis);
    // Normal: unit, along the axis, with the documented sign.
    const ref::V3 n(c.normal);
    const long double len = std::sqrt(ref::dot(n, n));
    if (std::abs(len - 1) > 1e-5L) return "normal is not unit: length " + std::to_string((double)len);
    const long double along = ref::dot(n, axis.L) / axis.length;
    if (std::abs(std::abs(along) - 1) > 1e-5L) return "normal is not along axis " + std::to_string(c.axis);
    if ((along < 0) != c.negative) return "the negative flag does not match the normal";
    if (std::abs(axis.push_plus - axis.push_minus) > tol && c.negative != axis.negative())
        return "the normal points the expensive way on axis " + std::to_string(c.axis);
    if constexpr (std::is_same_v<Shape, tumble::ObbT<T>>) {
        // Physical meaning of the contact, checked with the code under test in double: B moved by the depth (plus a
        // hair) along the normal just separates; moved by a little less, it still overlaps unless a face was
        // preferred over a shallower edge.
        tumble::ObbD A{glm::dvec3(a.center), glm::dmat3(a.axes), glm::dvec3(a.half_extents)};
        tumble::ObbD B{glm::dvec3(b.center), glm::dmat3(b.axes), glm::dvec3(b.half_extents)};
        const glm::dvec3 push = glm::normalize(glm::dvec3(c.normal));
        const double size = static_cast<double>(r.size);
        tumble::ObbD out = B, in = B;
        out.center += push * (static_cast<double>(depth) * (1 + 1e-5) + 1e-8 * size);
        in.center += push * (static_cast<double>(depth) * (1 - 1e-3) - 1e-8 * size);
        if (tumble::overlap(A, out)) return "moving B by the depth along the normal does not separate the boxes";
        if (c.axis == r.min_axis && !tumble::overlap(A, in))
            return "moving B by less than the depth separates the boxes: the depth is not the least";
    }
    return {};
}

}  // namespace testutil
