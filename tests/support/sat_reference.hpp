#pragma once
// Independent reference for the separating-axis tests: long-double brute force.
//
// It shares no code with narrowphase/: it builds the 15 (or 13) candidate axes from the shapes' axes as given,
// projects all 8 corners of each box and the 3 triangle vertices on every axis, and reads overlap, gap and depth off
// the projected intervals. Products of float inputs are exact in long double (64-bit mantissa), so for float shapes
// this is exact up to ~1e-19 relative.
//
// The candidate axes themselves (cross products, triangle edges and normal) are formed in quadruple precision
// (__float128: products of doubles are exact, 113-bit sums) and only then rounded to long double. A cross product of
// nearly parallel vectors formed in long double would carry an absolute error of ~1e-19, i.e. a relative error of
// 1e-19 / |L| in the axis direction: 1e-7 for edges 1e-12 rad from parallel, far too much for a reference.

#include <array>
#include <cmath>
#include <limits>

#include <tumble/narrowphase/shapes.hpp>

namespace ref {

using R = long double;

struct V3 {
    R x = 0, y = 0, z = 0;
    V3() = default;
    V3(R a, R b, R c) : x(a), y(b), z(c) {}
    template <class T>
    explicit V3(const tumble::Vec3T<T>& v) : x(v.x), y(v.y), z(v.z) {}
    V3 operator+(const V3& o) const { return {x + o.x, y + o.y, z + o.z}; }
    V3 operator-(const V3& o) const { return {x - o.x, y - o.y, z - o.z}; }
    V3 operator*(R s) const { return {x * s, y * s, z * s}; }
};
inline R dot(const V3& a, const V3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

__extension__ typedef __float128 Q;
// A vector in quadruple precision, built exactly from float, double or long double components (<= 64 bits).
struct Q3 {
    Q x = 0, y = 0, z = 0;
    Q3() = default;
    Q3(Q a, Q b, Q c) : x(a), y(b), z(c) {}
    template <class T>
    explicit Q3(const tumble::Vec3T<T>& v) : x(v.x), y(v.y), z(v.z) {}
    Q3 operator-(const Q3& o) const { return {x - o.x, y - o.y, z - o.z}; }
    V3 rounded() const { return {static_cast<R>(x), static_cast<R>(y), static_cast<R>(z)}; }
};
inline Q3 cross(const Q3& a, const Q3& b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
inline V3 cross(const V3& a, const V3& b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }

struct Box {
    V3 c;
    V3 ax[3];
    R e[3];
    template <class T>
    explicit Box(const tumble::ObbT<T>& b) : c(b.center) {
        for (int i = 0; i < 3; ++i) {
            ax[i] = V3(b.axes[i]);
            e[i] = b.half_extents[i];
        }
    }
    std::array<V3, 8> corners() const {
        std::array<V3, 8> out;
        for (int k = 0; k < 8; ++k) {
            V3 p = c;
            for (int i = 0; i < 3; ++i) p = p + ax[i] * ((k >> i) & 1 ? e[i] : -e[i]);
            out[k] = p;
        }
        return out;
    }
    R size() const { return std::sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]); }
};

// One candidate axis.
struct Axis {
    bool valid = false;  // false when L is exactly zero
    V3 L;                // unnormalised, as numbered
    R length = 0;
    R push_plus = 0;     // distance (along unit L) the second shape must move in +L to separate: maxA - minB
    R push_minus = 0;    // ... in -L: maxB - minA
    R depth() const { return std::min(push_plus, push_minus); }  // < 0: the axis separates by -depth
    bool negative() const { return push_minus < push_plus; }     // normal -L is the cheaper push
};

struct Result {
    std::array<Axis, 15> axes;
    int count = 0;              // 15 or 13
    bool separated = false;
    R gap = 0;                  // separated: the largest separating distance over the axes
    R min_depth = std::numeric_limits<R>::infinity();  // overlapping: least depth over the axes
    int min_axis = -1;
    R min_face_depth = std::numeric_limits<R>::infinity();
    R min_edge_depth = std::numeric_limits<R>::infinity();
    int first_edge = 6;         // axes before this are face axes
    R size = 0;                 // largest half-diagonal of the two shapes (metres)
    // Signed distance used to classify pairs: gap when separated, -min_depth when overlapping.
    R signed_distance() const { return separated ? gap : -min_depth; }
};

template <std::size_t N, std::size_t M>
inline void project(Axis& a, const std::array<V3, N>& first, const std::array<V3, M>& second) {
    a.length = std::sqrt(dot(a.L, a.L));
    a.valid = a.length > 0;
    if (!a.valid) return;
    R minA = std::numeric_limits<R>::infinity(), maxA = -minA, minB = minA, maxB = -minA;
    for (const V3& p : first) {
        const R d = dot(p, a.L);
        minA = std::min(minA, d);
        maxA = std::max(maxA, d);
    }
    for (const V3& p : second) {
        const R d = dot(p, a.L);
        minB = std::min(minB, d);
        maxB = std::max(maxB, d);
    }
    a.push_plus = (maxA - minB) / a.length;
    a.push_minus = (maxB - minA) / a.length;
}

inline void finish(Result& r) {
    r.separated = false;
    r.gap = 0;
    for (int k = 0; k < r.count; ++k) {
        const Axis& a = r.axes[k];
        if (!a.valid) continue;
        const R d = a.depth();
        if (d < 0) {
            r.separated = true;
            r.gap = std::max(r.gap, -d);
        }
        if (d < r.min_depth) {
            r.min_depth = d;
            r.min_axis = k;
        }
        if (k < r.first_edge)
            r.min_face_depth = std::min(r.min_face_depth, d);
        else
            r.min_edge_depth = std::min(r.min_edge_depth, d);
    }
}

template <class T>
Result box_box(const tumble::ObbT<T>& a, const tumble::ObbT<T>& b) {
    const Box A(a), B(b);
    const auto ca = A.corners(), cb = B.corners();
    Result r;
    r.count = 15;
    r.first_edge = 6;
    for (int i = 0; i < 3; ++i) r.axes[i].L = A.ax[i];
    for (int j = 0; j < 3; ++j) r.axes[3 + j].L = B.ax[j];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.axes[6 + 3 * i + j].L = cross(Q3(a.axes[i]), Q3(b.axes[j])).rounded();
    for (int k = 0; k < 15; ++k) project(r.axes[k], ca, cb);
    r.size = std::max(A.size(), B.size());
    finish(r);
    return r;
}

template <class T>
Result box_triangle(const tumble::ObbT<T>& a, const tumble::TriangleT<T>& t) {
    const Box A(a);
    const auto ca = A.corners();
    const std::array<V3, 3> v = {V3(t.a), V3(t.b), V3(t.c)};
    const V3 E[3] = {v[1] - v[0], v[2] - v[1], v[0] - v[2]};
    const Q3 q[3] = {Q3(t.a), Q3(t.b), Q3(t.c)};
    const Q3 QE[3] = {q[1] - q[0], q[2] - q[1], q[0] - q[2]};  // exact: differences of float or double values
    Result r;
    r.count = 13;
    r.first_edge = 4;
    for (int i = 0; i < 3; ++i) r.axes[i].L = A.ax[i];
    r.axes[3].L = cross(q[1] - q[0], q[2] - q[0]).rounded();
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) r.axes[4 + 3 * i + j].L = cross(Q3(a.axes[i]), QE[j]).rounded();
    for (int k = 0; k < 13; ++k) project(r.axes[k], ca, v);
    R tri = 0;
    for (const V3& e : E) tri = std::max(tri, std::sqrt(dot(e, e)) / 2);
    r.size = std::max(A.size(), tri);
    finish(r);
    return r;
}

}  // namespace ref
