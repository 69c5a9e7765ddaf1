#pragma once
// Shared helpers for the tests: seeded random shapes and the check of a narrowphase answer against the reference.

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>

#include <gtest/gtest.h>
#include <glm/gtc/quaternion.hpp>

#include <tumble/narrowphase/sat.hpp>

#include "data_paths.hpp"
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

// Rotation by `angle` radians about unit `axis`, in double.
inline glm::dmat3 rotation_about_d(const glm::dvec3& axis, double angle) {
    const glm::dvec3 u = glm::normalize(axis);
    const double c = std::cos(angle), s = std::sin(angle), t = 1 - c;
    glm::dmat3 m;
    m[0] = {t * u.x * u.x + c, t * u.x * u.y + s * u.z, t * u.x * u.z - s * u.y};
    m[1] = {t * u.x * u.y - s * u.z, t * u.y * u.y + c, t * u.y * u.z + s * u.x};
    m[2] = {t * u.x * u.z + s * u.y, t * u.y * u.z - s * u.x, t * u.z * u.z + c};
    return m;
}
// The same rounded to float once.
inline glm::mat3 rotation_about(const glm::dvec3& axis, double angle) { return glm::mat3(rotation_about_d(axis, angle)); }

// --- Shapes of either scalar type ---------------------------------------------------------------------------------

// A random rotation matrix of scalar T: for float, the engine's way (float quaternion to matrix, orthonormal to
// ~1e-7 only); for double, the same rotation built in double.
template <class T>
tumble::Mat3T<T> random_rotation(Random& rng) {
    if constexpr (std::is_same_v<T, float>) {
        return rng.rotation_matrix();
    } else {
        const double u1 = rng.uniform(), u2 = rng.uniform(), u3 = rng.uniform(), tau = 6.283185307179586;
        const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
        const glm::dquat q = glm::normalize(glm::dquat(b * std::cos(tau * u3), a * std::sin(tau * u2),
                                                       a * std::cos(tau * u2), b * std::sin(tau * u3)));
        return glm::mat3_cast(q);
    }
}
template <class T>
tumble::Vec3T<T> random_vec(Random& rng, double lo, double hi) {
    return {static_cast<T>(rng.uniform(lo, hi)), static_cast<T>(rng.uniform(lo, hi)), static_cast<T>(rng.uniform(lo, hi))};
}
inline glm::dvec3 random_unit(Random& rng) {
    for (;;) {
        const glm::dvec3 v(rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1));
        const double l = glm::length(v);
        if (l > 0.1 && l <= 1.0) return v / l;
    }
}
// 10^U(lo, hi): log-uniform magnitudes.
inline double log_uniform(Random& rng, double lo_exp, double hi_exp) { return std::pow(10.0, rng.uniform(lo_exp, hi_exp)); }

// Exact widening to double, and rounding to T once (the shape "as given" to the code under test).
template <class T>
tumble::ObbD widen(const tumble::ObbT<T>& o) {
    return {glm::dvec3(o.center), glm::dmat3(o.axes), glm::dvec3(o.half_extents)};
}
template <class T>
tumble::TriangleD widen(const tumble::TriangleT<T>& t) {
    return {glm::dvec3(t.a), glm::dvec3(t.b), glm::dvec3(t.c)};
}
template <class T>
tumble::ObbT<T> narrow(const tumble::ObbD& o) {
    return {tumble::Vec3T<T>(o.center), tumble::Mat3T<T>(o.axes), tumble::Vec3T<T>(o.half_extents)};
}
template <class T>
tumble::TriangleT<T> narrow(const tumble::TriangleD& t) {
    return {tumble::Vec3T<T>(t.a), tumble::Vec3T<T>(t.b), tumble::Vec3T<T>(t.c)};
}

// A float box with its axes made orthonormal (Gram-Schmidt in double, same handedness): what closed-form box tests
// such as ODE's and FCL's assume; the axes move by ~1e-7. Double boxes are returned as they are: their axes are
// orthonormal to ~1e-16 already, and re-orthonormalizing would turn exactly parallel edges (shared orientations)
// into edges 1e-16 rad apart, which those closed forms, having no epsilon on |L|, misread as separating axes
// (the near-parallel failure of Gomez's float test, Gamasutra 1999, in double; ODE then misses overlaps of 0.24 m
// between unit boxes).
template <class T>
tumble::ObbD orthonormalized(const tumble::ObbT<T>& o) {
    tumble::ObbD d = widen(o);
    if constexpr (std::is_same_v<T, double>) return d;
    d.axes[0] = glm::normalize(d.axes[0]);
    d.axes[1] = glm::normalize(d.axes[1] - d.axes[0] * glm::dot(d.axes[0], d.axes[1]));
    const glm::dvec3 z = glm::cross(d.axes[0], d.axes[1]);
    d.axes[2] = glm::dot(z, d.axes[2]) < 0 ? -z : z;
    return d;
}

// Support distance of a box along unit direction n, from its centre: sum_k h_k |A_k . n| (axes as given).
inline double support(const tumble::ObbD& o, const glm::dvec3& n) {
    return o.half_extents.x * std::abs(glm::dot(o.axes[0], n)) + o.half_extents.y * std::abs(glm::dot(o.axes[1], n)) +
           o.half_extents.z * std::abs(glm::dot(o.axes[2], n));
}
// The corner of a box deepest along -n (its support point in direction -n), relative to the centre.
inline glm::dvec3 lowest_corner_offset(const tumble::ObbD& o, const glm::dvec3& n) {
    glm::dvec3 p(0.0);
    for (int k = 0; k < 3; ++k) p -= o.axes[k] * (glm::dot(o.axes[k], n) >= 0 ? o.half_extents[k] : -o.half_extents[k]);
    return p;
}

// Shapes printed with enough digits to reproduce them exactly.
template <class T>
std::string describe(const tumble::ObbT<T>& o) {
    char buf[640];
    std::snprintf(buf, sizeof buf,
                  "{c=(%.17g,%.17g,%.17g) x=(%.17g,%.17g,%.17g) y=(%.17g,%.17g,%.17g) z=(%.17g,%.17g,%.17g) "
                  "h=(%.17g,%.17g,%.17g)}",
                  double(o.center.x), double(o.center.y), double(o.center.z), double(o.axes[0].x),
                  double(o.axes[0].y), double(o.axes[0].z), double(o.axes[1].x), double(o.axes[1].y),
                  double(o.axes[1].z), double(o.axes[2].x), double(o.axes[2].y), double(o.axes[2].z),
                  double(o.half_extents.x), double(o.half_extents.y), double(o.half_extents.z));
    return buf;
}
template <class T>
std::string describe(const tumble::TriangleT<T>& t) {
    char buf[400];
    std::snprintf(buf, sizeof buf, "{(%.17g,%.17g,%.17g) (%.17g,%.17g,%.17g) (%.17g,%.17g,%.17g)}", double(t.a.x),
                  double(t.a.y), double(t.a.z), double(t.b.x), double(t.b.y), double(t.b.z), double(t.c.x),
                  double(t.c.y), double(t.c.z));
    return buf;
}

inline const char* scalar_name(float) { return "float"; }
inline const char* scalar_name(double) { return "double"; }

// Typed tests over both scalar types, named .../float and .../double.
using Scalars = ::testing::Types<float, double>;
struct ScalarNames {
    template <class T>
    static std::string GetName(int) {
        return scalar_name(T());
    }
};

// --- Comparison with the reference --------------------------------------------------------------------------------

struct Tally {
    long checked = 0;    // decided pairs compared with the reference
    long ambiguous = 0;  // within the touching margin: not compared
    long overlapping = 0;
    // What the face bias cost: decided overlapping pairs where a face axis was reported although an edge axis is
    // shallower, and the largest extra depth that caused, relative to the reference depth and to the size.
    long face_over_edge = 0;
    long double worst_bias_relative = 0;
    long double worst_bias_size = 0;
};

// Departure of a box's axes from orthonormality, max |A_k . A_l - delta_kl|, in long double (sat.hpp's face bias).
template <class T>
long double axis_error(const tumble::ObbT<T>& o) {
    long double e = 0;
    for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l) {
            const ref::V3 u(o.axes[k]), v(o.axes[l]);
            e = std::max(e, std::abs(ref::dot(u, v) - (k == l ? 1.0L : 0.0L)));
        }
    return e;
}

inline std::string num(long double x) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9Lg", x);
    return buf;
}

// Relative margin (of the larger shape's half-diagonal) within which a pair counts as touching and is not
// compared: 1e-5 of the boxes' size.
inline constexpr long double kTouchMargin = 1e-5L;
// Depth tolerance: relative to the depth, plus a floor far below anything float input can express.
inline constexpr long double kDepthRelative = 1e-4L;
inline constexpr long double kDepthFloor = 1e-9L;

// Compares overlap() and collide() on one pair with the reference. Returns an empty string when they agree,
// otherwise what differs.
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
        if (got_overlap) return "overlap() says true, the reference separates by " + num(r.gap);
        if (got) return "collide() reports a contact, the reference separates by " + num(r.gap);
        return {};
    }
    ++tally.overlapping;
    if (!got_overlap) return "overlap() says false, the reference overlaps by " + num(r.min_depth);
    if (!got) return "collide() reports nothing, the reference overlaps by " + num(r.min_depth);
    const tumble::ContactT<T>& c = *got;
    if (c.axis < 0 || c.axis >= r.count) return "axis index out of range: " + std::to_string(c.axis);
    const ref::Axis& axis = r.axes[c.axis];
    if (!axis.valid) return "reported a degenerate axis " + std::to_string(c.axis);
    const long double want = axis.depth();
    const long double depth = c.depth;
    const long double tol = kDepthRelative * std::abs(want) + kDepthFloor * r.size;
    if (std::abs(depth - want) > tol)
        return "depth on axis " + std::to_string(c.axis) + " is " + num(depth) + ", reference " +
               num(want);
    // Least penetration, up to the documented face bias when a face axis was chosen over an edge axis. The
    // implementation measures the absolute part of the bias on the largest half extent; r.size (the largest
    // half-diagonal) bounds that from above.
    long double allowance = tol;
    if (c.axis < r.first_edge && r.min_axis >= r.first_edge) {
        long double axis_error = testutil::axis_error(a);
        if constexpr (std::is_same_v<Shape, tumble::ObbT<T>>) axis_error = std::max(axis_error, testutil::axis_error(b));
        allowance += tumble::kFaceBiasRelative * want +
                     (tumble::kFaceBiasAbsolute + tumble::kFaceBiasAxisError * axis_error) * r.size;
        ++tally.face_over_edge;
        const long double excess = std::max(0.0L, want - r.min_depth);
        tally.worst_bias_relative = std::max(tally.worst_bias_relative, excess / r.min_depth);
        tally.worst_bias_size = std::max(tally.worst_bias_size, excess / r.size);
    }
    if (depth > r.min_depth + allowance)
        return "depth " + num(depth) + " on axis " + std::to_string(c.axis) +
               " is not the least: reference " + num(r.min_depth) + " on axis " +
               std::to_string(r.min_axis);
    // Normal: unit, along the axis, with the documented sign.
    const ref::V3 n(c.normal);
    const long double len = std::sqrt(ref::dot(n, n));
    if (std::abs(len - 1) > 1e-5L) return "normal is not unit: length " + num(len);
    const long double along = ref::dot(n, axis.L) / axis.length;
    if (std::abs(std::abs(along) - 1) > 1e-5L) return "normal is not along axis " + std::to_string(c.axis);
    if ((along < 0) != c.negative) return "the negative flag does not match the normal";
    if (std::abs(axis.push_plus - axis.push_minus) > tol && c.negative != axis.negative())
        return "the normal points the expensive way on axis " + std::to_string(c.axis);
    // Physical meaning of the contact, checked with the code under test in double: B moved by the depth (plus a
    // hair) along the normal just separates; moved by a little less, it still overlaps unless a face was preferred
    // over a shallower edge.
    const glm::dvec3 push = glm::normalize(glm::dvec3(c.normal));
    const double size = static_cast<double>(r.size);
    const glm::dvec3 out_shift = push * (static_cast<double>(depth) * (1 + 1e-5) + 1e-8 * size);
    const glm::dvec3 in_shift = push * (static_cast<double>(depth) * (1 - 1e-3) - 1e-8 * size);
    const tumble::ObbD A = widen(a);
    const auto B = widen(b);
    auto moved = [&](const glm::dvec3& d) {
        auto m = B;
        if constexpr (std::is_same_v<Shape, tumble::ObbT<T>>) {
            m.center += d;
        } else {
            m.a += d;
            m.b += d;
            m.c += d;
        }
        return m;
    };
    if (tumble::overlap(A, moved(out_shift)))
        return "moving B by the depth along the normal does not separate the shapes";
    if (c.axis == r.min_axis && !tumble::overlap(A, moved(in_shift)))
        return "moving B by less than the depth separates the shapes: the depth is not the least";
    return {};
}

}  // namespace testutil
