#pragma once
// Internal to the narrowphase (not installed): the separating-axis core shared by overlap(), collide(),
// collide_manifold() and the batch tests, so that every one of them reports exactly the axis, sign and depth of
// the exact core.
//
// Two evaluations live here:
// - the exact core (`sat`, sat.cpp): every axis formed and projected exactly for the shapes as given;
// - the filtered fast path (`sat_fast`, sat_fast.cpp): the face axes evaluated with the core's own arithmetic, the
//   edge axes with the textbook closed forms plus a rigorous bound on their error; only the edge axes the closed
//   form cannot decide, and the few axes that can still win the contact, are then evaluated by the core's per-axis
//   functions below. Its answers are bit-identical to the core's (tests/narrowphase_fast_test.cpp).
//
// Both shapes are brought to double, relative to the first box's centre. Double input whose magnitudes lie outside
// (kRescaleMin, kRescaleMax) = (2^-200, 2^200) is also multiplied by a power of two (`exponent`), which is exact and
// keeps the fourth powers that the triangle test forms (|n|^2 ~ edge^4) from overflowing or underflowing; float input
// never needs it. The tolerances and error bounds all of this relies on are in sat_bounds.hpp.
//
// Entry points for the tests (the fast path traced, the exact core alone, the closed-form estimates) are not part
// of the library: tests/support/sat_testing.hpp builds them from the pieces declared here.

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

#include <glm/glm.hpp>

#include <tumble/narrowphase/manifold.hpp>
#include <tumble/narrowphase/sat.hpp>
#include <tumble/narrowphase/shapes.hpp>

#include "sat_bounds.hpp"

namespace tumble::detail {

using dvec3 = glm::dvec3;

// std::min({x, ...}) and std::max({x, ...}) written out: the same value bit for bit (the first of equal values, a
// NaN kept only in first place), without the loop those are at -O2.
template <class... X>
[[gnu::always_inline]] inline double min_of(double x, X... rest) noexcept {
    ((x = std::min(x, static_cast<double>(rest))), ...);
    return x;
}
template <class... X>
[[gnu::always_inline]] inline double max_of(double x, X... rest) noexcept {
    ((x = std::max(x, static_cast<double>(rest))), ...);
    return x;
}

// Two boxes: B relative to A's centre (the frame origin). Lengths are world lengths times 2^-exponent.
struct BoxPairD {
    dvec3 a[3], b[3];      // axes as given (columns), not renormalised
    double ea[3], eb[3];   // half extents
    dvec3 t{0.0};          // B centre - A centre
    int exponent = 0;
};

// A box and a triangle, relative to the box centre.
struct BoxTriD {
    dvec3 a[3];
    double e[3];
    dvec3 v[3];            // triangle vertices a, b, c minus the box centre
    int exponent = 0;
};

// The axis of least penetration (face axes preferred within the face bias), as collide() reports it.
struct SatAxis {
    int axis = -1;
    bool negative = false;
    double depth = 0.0;    // scaled like the input; may be slightly negative for touching shapes (round-off)
    dvec3 normal{0.0};     // unit, from A (the box) towards B (the triangle)
    // Box-triangle contacts: 1 when the triangle is degenerate (its normal, axis 3, was skipped: its edges lie on one
    // line), 0 when not, -1 when whoever made the axis did not find out (face_axis). The edge contact's manifold needs
    // it and would otherwise form the normal a second time, the same way.
    int flat_triangle = -1;
    // The pair's size as the contact choice's face bias took it (the largest half extent, or half the triangle's
    // longest edge; scaled like the input): the manifold's tolerances use the same. -1 when not worked out.
    double size = -1.0;
};

// What the fast path did on one call (for the tests, through tests/support/sat_testing.hpp; counting costs nothing
// when no trace is passed, as in the library's own calls).
struct FastTrace {
    bool full_fallback = false;  // the whole exact core ran (input outside the fast path's range)
    int exact_axes = 0;          // axes evaluated by the exact per-axis functions
    unsigned exact_mask = 0;     // which (bit k: axis k as numbered)
    int face_candidates = 0;     // face axes whose exact depth was needed to pick the contact
};

// Converts the input; false when any value is NaN or infinite (or the centre difference overflows).
template <class T>
bool load(const ObbT<T>& a, const ObbT<T>& b, BoxPairD& out) noexcept;
template <class T>
bool load(const ObbT<T>& box, const TriangleT<T>& tri, BoxTriD& out) noexcept;

// Both shapes in double, relative to the box's (the first box's) centre, exponent 0: the conversion shared by `load`
// and `load_fast`.
template <class T>
inline void convert(const ObbT<T>& A, const ObbT<T>& B, BoxPairD& p) noexcept {
    for (int i = 0; i < 3; ++i) {
        p.a[i] = dvec3(A.axes[i]);
        p.b[i] = dvec3(B.axes[i]);
        p.ea[i] = static_cast<double>(A.half_extents[i]);
        p.eb[i] = static_cast<double>(B.half_extents[i]);
        p.t[i] = static_cast<double>(B.center[i]) - static_cast<double>(A.center[i]);
    }
    p.exponent = 0;
}
template <class T>
inline void convert(const ObbT<T>& box, const TriangleT<T>& tri, BoxTriD& p) noexcept {
    const dvec3 c(box.center);
    for (int i = 0; i < 3; ++i) {
        p.a[i] = dvec3(box.axes[i]);
        p.e[i] = static_cast<double>(box.half_extents[i]);
    }
    p.v[0] = dvec3(tri.a) - c;
    p.v[1] = dvec3(tri.b) - c;
    p.v[2] = dvec3(tri.c) - c;
    p.exponent = 0;
}

// Converts the input for the fast path without any check (non-finite values are caught by the fast path itself).
// False when double input lies outside (kRescaleMin, kRescaleMax) (or is all zero): the exact path must then rescale
// it.
template <class T>
inline bool load_fast(const ObbT<T>& A, const ObbT<T>& B, BoxPairD& p) noexcept {
    convert(A, B, p);
    if constexpr (std::is_same_v<T, double>) {
        double largest = 0.0;
        for (int i = 0; i < 3; ++i)
            largest = max_of(largest, std::abs(p.ea[i]), std::abs(p.eb[i]), std::abs(p.t[i]));
        return within_unscaled_range(largest);
    }
    return true;
}
template <class T>
inline bool load_fast(const ObbT<T>& box, const TriangleT<T>& tri, BoxTriD& p) noexcept {
    convert(box, tri, p);
    if constexpr (std::is_same_v<T, double>) {
        double largest = 0.0;
        for (int i = 0; i < 3; ++i)
            largest = max_of(largest, std::abs(p.e[i]), std::abs(p.v[0][i]), std::abs(p.v[1][i]), std::abs(p.v[2][i]));
        return within_unscaled_range(largest);
    }
    return true;
}

// The exact separating-axis tests. False when some axis separates the shapes by more than `margin` (scaled like
// the input, >= 0). With kContact, *out gets the contact axis: the axis of least penetration, whose depth is
// negative (minus the separation along it) when the shapes are apart by up to `margin`. margin = 0 is the plain
// test (touching shapes overlap).
template <bool kContact>
bool sat(const BoxPairD& p, SatAxis* out, double margin = 0.0) noexcept;
template <bool kContact>
bool sat(const BoxTriD& p, SatAxis* out, double margin = 0.0) noexcept;

// The fast path on the same input: 0 separated, 1 overlapping (with kContact, *out is what `sat` reports), -1 when
// it cannot answer (axes far from orthonormal, non-finite lengths): run `sat` instead. Valid on the output of
// `load` and of `load_fast`. With kMargin, `margin` (finite, > 0, scaled like the input) as for `sat`; without, the
// plain test (margin 0), compiled without the margin's terms.
template <bool kContact, bool kMargin = false>
int sat_fast(const BoxPairD& p, SatAxis* out, FastTrace* trace, double margin = 0.0) noexcept;
template <bool kContact, bool kMargin = false>
int sat_fast(const BoxTriD& p, SatAxis* out, FastTrace* trace, double margin = 0.0) noexcept;

// The input of a shape pair: BoxPairD for two boxes, BoxTriD for a box and a triangle.
template <class T, class Shape>
using InputOf = std::conditional_t<std::is_same_v<Shape, ObbT<T>>, BoxPairD, BoxTriD>;

// Conversion and test as the public functions do them: the unchecked conversion and the fast path; the checked
// conversion (NaN, infinity, overflow, rescaling) and the exact core only when the fast path cannot answer.
// `load_fast` gives the same values as `load` whenever it returns true (no rescaling is needed then), so either
// way *p and *out are what `load` and `sat` give.
template <bool kContact, class T, class Shape>
[[gnu::always_inline]] inline bool load_and_sat(const ObbT<T>& a, const Shape& b, InputOf<T, Shape>& p,
                                                SatAxis* out, FastTrace* trace) noexcept {
    if (load_fast(a, b, p)) {
        const int r = sat_fast<kContact>(p, out, trace);
        if (r >= 0) return r != 0;
    }
    if (trace) trace->full_fallback = true;
    return load(a, b, p) && sat<kContact>(p, out);
}

// The plain manifold (`collide_manifold(a, b)`, manifold.cpp) of a pair loaded into `p` with contact axis `s`
// (what `load_and_sat` or `sat` reported); nothing when no axis could be formed (axis -1).
template <class T, class Shape>
std::optional<ManifoldT<T>> manifold_on_axis(const ObbT<T>& a, const InputOf<T, Shape>& p, const SatAxis& s) noexcept;

// Back from the scaled frame to metres (exact: a power of two).
inline double unscale(double x, int exponent) noexcept { return exponent == 0 ? x : std::ldexp(x, exponent); }

// The public contact for a SAT result.
template <class T>
inline ContactT<T> to_contact(const SatAxis& s, int exponent) noexcept {
    ContactT<T> out;
    out.axis = s.axis;
    out.negative = s.negative;
    out.depth = static_cast<T>(unscale(std::max(s.depth, 0.0), exponent));
    out.normal = Vec3T<T>(s.normal);
    return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Per-axis arithmetic of the exact core. The core and the fast path both call these, so an axis evaluated by either
// gives the same bits.

// Veltkamp's split: the high part of x, with at most 26 significant bits; x - hi is exact and has at most 27.
inline double split_high(double x) noexcept {
    const double t = 134217729.0 * x;  // 2^27 + 1
    return t - (t - x);
}

// u x v to full relative precision, also when u and v are nearly parallel (uu = u.u, vv = v.v); below
// kCancellation2 (sat_bounds.hpp) the product is recomputed without cancellation.
// u x v = u x d for d = v - k u and any k. With k rounded to 26 bits and u split into 26- and 27-bit halves, both
// products k u_hi and k u_lo are exact, v - k u_hi cancels exactly (Sterbenz), and d, now short, carries full
// relative precision into the cross product.
inline dvec3 cross_robust(const dvec3& u, const dvec3& v, double uu, double vv) noexcept {
    const dvec3 l = glm::cross(u, v);
    if (glm::dot(l, l) >= kCancellation2 * uu * vv) return l;  // also when u or v is zero
    const double k = split_high(glm::dot(u, v) / uu);
    dvec3 hi, lo;
    for (int c = 0; c < 3; ++c) {
        hi[c] = split_high(u[c]);
        lo[c] = u[c] - hi[c];
    }
    const dvec3 d = (v - k * hi) - k * lo;
    return glm::cross(u, d);
}

// Departure of a (symmetric) Gram matrix from the identity: max |A_k . A_l - delta_kl|. NaN entries are ignored.
[[gnu::always_inline]] inline double gram_error(const double G[3][3]) noexcept {
    return max_of(0.0, std::abs(G[0][0] - 1.0), std::abs(G[1][1] - 1.0), std::abs(G[2][2] - 1.0), std::abs(G[0][1]),
                  std::abs(G[0][2]), std::abs(G[1][2]));
}

// Smallest-depth candidate axis among one class of axes (faces or edges); ties go to the first axis considered.
struct AxisCandidate {
    double depth = std::numeric_limits<double>::infinity();
    int axis = -1;
    bool negative = false;
    dvec3 direction{0.0};  // the axis L as numbered (not normalised)

    void consider(double d, int index, bool neg, const dvec3& l) noexcept {
        if (d < depth) {
            depth = d;
            axis = index;
            negative = neg;
            direction = l;
        }
    }
};

// The contact axis from the best face and the best edge: the face unless the edge is shallower by more than the
// documented bias (sat.hpp; `face_threshold`, sat_bounds.hpp); fills *out. `extra_bias` (scaled like the input,
// >= 0) widens the preference for speculative manifolds (sat.hpp, kSpeculativeFaceBias); 0 for the exact contract of
// collide().
inline void choose_contact_axis(const AxisCandidate& face, const AxisCandidate& edge, double size, double axis_error,
                                SatAxis* out, double extra_bias = 0.0) noexcept {
    const bool edge_wins =
        edge.axis >= 0 && (face.axis < 0 || edge.depth < face_threshold(face.depth, size, axis_error) - extra_bias);
    const AxisCandidate& c = edge_wins ? edge : face;
    out->size = size;
    out->axis = c.axis;
    out->negative = c.negative;
    out->depth = c.depth;
    const dvec3 unit = c.direction / std::sqrt(glm::dot(c.direction, c.direction));
    out->normal = c.negative ? -unit : unit;
}

// Cyclic successors.
constexpr int next1(int i) { return i == 2 ? 0 : i + 1; }
constexpr int next2(int i) { return i == 0 ? 2 : i - 1; }

// Overlap of the box interval [-r, r] and the triangle interval [lo, hi] on an axis, relative to the box centre:
// the overlap length (< 0 or NaN when separated) and whether the normal is -L (triangle on the - side).
struct Interval {
    double overlap;
    bool negative;
};
[[gnu::always_inline]] inline Interval box_vs_interval(double r, double lo, double hi) noexcept {
    if (lo + hi >= 0.0) return {r - lo, false};  // triangle's middle on the + side: box moves -L
    return {hi + r, true};
}

// Box-box face axes, in units of the axis' length. A_i: rA = sum_k ea_k |A_k . A_i|, rB = sum_j eb_j |A_i . B_j|;
// B_j the same the other way. tl = T . axis.
[[gnu::always_inline]] inline double face_a_over(const BoxPairD& p, const double GA[3][3], const double R[3][3], int i, double tl) noexcept {
    const double* ea = p.ea;
    const double* eb = p.eb;
    const double ra = ea[0] * std::abs(GA[i][0]) + ea[1] * std::abs(GA[i][1]) + ea[2] * std::abs(GA[i][2]);
    const double rb = eb[0] * std::abs(R[i][0]) + eb[1] * std::abs(R[i][1]) + eb[2] * std::abs(R[i][2]);
    return ra + rb - std::abs(tl);
}
[[gnu::always_inline]] inline double face_b_over(const BoxPairD& p, const double GB[3][3], const double R[3][3], int j, double tl) noexcept {
    const double* ea = p.ea;
    const double* eb = p.eb;
    const double ra = ea[0] * std::abs(R[0][j]) + ea[1] * std::abs(R[1][j]) + ea[2] * std::abs(R[2][j]);
    const double rb = eb[0] * std::abs(GB[j][0]) + eb[1] * std::abs(GB[j][1]) + eb[2] * std::abs(GB[j][2]);
    return ra + rb - std::abs(tl);
}

// One edge axis exactly: L = A_i x B_j (or box axis i x triangle edge j), formed to full relative precision.
struct EdgeAxis {
    bool valid = false;  // false when the axis is skipped (parallel edges, zero-length edge)
    bool separated = false;
    double overlap = 0.0;  // unnormalised (units of |L|); for the triangle, the box_vs_interval overlap
    bool negative = false;
    double len2 = 0.0;
    dvec3 L{0.0};
    double depth() const noexcept { return overlap / std::sqrt(len2); }
};

// Box-box axis 6 + 3i + j. A_i . L = B_j . L = 0, so the radii take the other two axes of each box.
inline EdgeAxis box_edge_axis(const BoxPairD& p, const double GA[3][3], const double GB[3][3], int i,
                              int j) noexcept {
    EdgeAxis x;
    const int i1 = next1(i), i2 = next2(i), j1 = next1(j), j2 = next2(j);
    x.L = cross_robust(p.a[i], p.b[j], GA[i][i], GB[j][j]);
    x.len2 = glm::dot(x.L, x.L);
    if (!(x.len2 > kParallel2 * GA[i][i] * GB[j][j])) return x;  // parallel edges: the faces decide
    x.valid = true;
    const double ra = p.ea[i1] * std::abs(glm::dot(p.a[i1], x.L)) + p.ea[i2] * std::abs(glm::dot(p.a[i2], x.L));
    const double rb = p.eb[j1] * std::abs(glm::dot(p.b[j1], x.L)) + p.eb[j2] * std::abs(glm::dot(p.b[j2], x.L));
    const double tl = glm::dot(p.t, x.L);
    x.overlap = ra + rb - std::abs(tl);
    x.separated = !(x.overlap >= 0.0);  // NaN compares false: separated
    x.negative = tl < 0.0;
    return x;
}

// Box-triangle edges E_j = V_j+1 - V_j, and their squared lengths, as the core forms them.
struct TriEdges {
    dvec3 E[3];
    double E2[3];
};
[[gnu::always_inline]] inline TriEdges tri_edges(const BoxTriD& p) noexcept {
    const dvec3* v = p.v;
    TriEdges t{{v[1] - v[0], v[2] - v[1], v[0] - v[2]}, {}};
    t.E2[0] = glm::dot(t.E[0], t.E[0]);
    t.E2[1] = glm::dot(t.E[1], t.E[1]);
    t.E2[2] = glm::dot(t.E[2], t.E[2]);
    return t;
}

// Box-triangle axis 3, the triangle normal n = E_j x E_j+1 formed from the longest edge and its successor so that
// slivers keep full precision. Invalid when the triangle is degenerate.
[[gnu::always_inline]] inline EdgeAxis tri_normal_axis(const BoxTriD& p, const TriEdges& te) noexcept {
    EdgeAxis x;
    const double* E2 = te.E2;
    const int j = E2[0] >= E2[1] ? (E2[0] >= E2[2] ? 0 : 2) : (E2[1] >= E2[2] ? 1 : 2);
    const int j1 = next1(j);
    x.L = cross_robust(te.E[j], te.E[j1], E2[j], E2[j1]);
    x.len2 = glm::dot(x.L, x.L);
    if (!(x.len2 > kParallel2 * E2[j] * E2[j1])) return x;
    x.valid = true;
    const dvec3* a = p.a;
    const dvec3* v = p.v;
    const double r = p.e[0] * std::abs(glm::dot(a[0], x.L)) + p.e[1] * std::abs(glm::dot(a[1], x.L)) +
                     p.e[2] * std::abs(glm::dot(a[2], x.L));
    const double d0 = glm::dot(v[0], x.L), d1 = glm::dot(v[1], x.L), d2 = glm::dot(v[2], x.L);
    const double lo = min_of(d0, d1, d2), hi = max_of(d0, d1, d2);
    x.separated = !(lo <= r && hi >= -r);
    const Interval iv = box_vs_interval(r, lo, hi);
    x.overlap = iv.overlap;
    x.negative = iv.negative;
    return x;
}

// Box-triangle axis 4 + 3i + j: L = A_i x E_j. Vertices j and j+1 project to V_j . L; the third vertex
// V_j+2 = V_j - E_j+2.
inline EdgeAxis tri_edge_axis(const BoxTriD& p, const double GA[3][3], const TriEdges& te, int i, int j) noexcept {
    EdgeAxis x;
    const dvec3* a = p.a;
    const int i1 = next1(i), i2 = next2(i);
    x.L = cross_robust(a[i], te.E[j], GA[i][i], te.E2[j]);
    x.len2 = glm::dot(x.L, x.L);
    if (!(x.len2 > kParallel2 * GA[i][i] * te.E2[j])) return x;  // edge parallel to the axis, or zero length
    x.valid = true;
    const double r = p.e[i1] * std::abs(glm::dot(a[i1], x.L)) + p.e[i2] * std::abs(glm::dot(a[i2], x.L));
    const double q0 = glm::dot(p.v[j], x.L);
    const double q1 = q0 - glm::dot(te.E[next2(j)], x.L);
    const double lo = std::min(q0, q1), hi = std::max(q0, q1);
    x.separated = !(lo <= r && hi >= -r);
    const Interval iv = box_vs_interval(r, lo, hi);
    x.overlap = iv.overlap;
    x.negative = iv.negative;
    return x;
}

// ---------------------------------------------------------------------------------------------------------------
// The closed forms the fast path estimates edge axes with (sat_fast.cpp), and their error bounds (sat_bounds.hpp).
// Here rather than in sat_fast.cpp so that the tests can check every estimate against long double.

// Calls f(integral_constant<int, K>) for K = 0 .. N-1 in order while it returns true; whether all did. The axis
// loops are unrolled this way so that every index is a constant and the small matrices stay in registers.
template <int N, class F>
[[gnu::always_inline]] inline bool each(F&& f) {
    return [&]<int... K>(std::integer_sequence<int, K...>) {
        return (f(std::integral_constant<int, K>{}) && ...);
    }(std::make_integer_sequence<int, N>{});
}

// The Gram matrix of three axes (symmetric; each product formed once).
[[gnu::always_inline]] inline void gram(const dvec3 a[3], double G[3][3]) noexcept {
    G[0][0] = glm::dot(a[0], a[0]);
    G[1][1] = glm::dot(a[1], a[1]);
    G[2][2] = glm::dot(a[2], a[2]);
    G[0][1] = G[1][0] = glm::dot(a[0], a[1]);
    G[0][2] = G[2][0] = glm::dot(a[0], a[2]);
    G[1][2] = G[2][1] = glm::dot(a[1], a[2]);
}

// Box-box: the closed-form overlap on L = A_i x B_j (units of |L|), from R = A^T B and ta = T in A's frame
// (Gottschalk, Lin and Manocha 1996; Ericson 2005, section 4.4.1).
[[gnu::always_inline]] inline double box_edge_closed(const BoxPairD& p, const double R[3][3], const double ta[3], int i,
                                                     int j) noexcept {
    const int i1 = next1(i), i2 = next2(i), j1 = next1(j), j2 = next2(j);
    const double r = p.ea[i1] * std::abs(R[i2][j]) + p.ea[i2] * std::abs(R[i1][j]) + p.eb[j1] * std::abs(R[i][j2]) +
                     p.eb[j2] * std::abs(R[i][j1]);
    return r - std::abs(ta[i2] * R[i1][j] - ta[i1] * R[i2][j]);
}

// Its error bound for Gram errors dA, dB (sat_bounds.hpp).
[[gnu::always_inline]] inline double box_edge_bound(const BoxPairD& p, double dA, double dB) noexcept {
    const double extents = std::abs(p.ea[0]) + std::abs(p.ea[1]) + std::abs(p.ea[2]) + std::abs(p.eb[0]) +
                           std::abs(p.eb[1]) + std::abs(p.eb[2]);
    const double offset = std::abs(p.t.x) + std::abs(p.t.y) + std::abs(p.t.z);
    return box_edge_bound(extents, offset, dA, dB);
}

// Box-triangle: the closed-form overlap on L = A_i x E_j (units of |L|), the smaller of the two overlaps of the box's
// interval [-r, r] and the triangle's [lo, hi]. P[i][k] = V_k . A_i; Ep[j][k] = P[k][j+1] - P[k][j] (edge j in the
// box frame). Ericson 2005, section 5.2.9, for a box in its own frame.
[[gnu::always_inline]] inline double tri_edge_closed(const double e[3], const double P[3][3], const double Ep[3][3],
                                                     int i, int j) noexcept {
    const int i1 = next1(i), i2 = next2(i), j2 = next2(j);
    const double r = e[i1] * std::abs(Ep[j][i2]) + e[i2] * std::abs(Ep[j][i1]);
    const double q0 = P[i2][j] * Ep[j][i1] - P[i1][j] * Ep[j][i2];
    const double q2 = P[i2][j2] * Ep[j][i1] - P[i1][j2] * Ep[j][i2];
    const double lo = std::min(q0, q2), hi = std::max(q0, q2);
    return std::min(r - lo, r + hi);
}

[[gnu::always_inline]] inline void tri_frame_edges(const double P[3][3], double Ep[3][3]) noexcept {
    each<3>([&](auto K) {
        constexpr int k = K;
        Ep[0][k] = P[k][1] - P[k][0];
        Ep[1][k] = P[k][2] - P[k][1];
        Ep[2][k] = P[k][0] - P[k][2];
        return true;
    });
}

// Largest 1-norm of the vertices (V in tri_edge_bound), and whether every coordinate is finite.
[[gnu::always_inline]] inline double vertex_reach(const BoxTriD& p, bool& finite) noexcept {
    double n[3];
    each<3>([&](auto K) {
        constexpr int k = K;
        n[k] = std::abs(p.v[k].x) + std::abs(p.v[k].y) + std::abs(p.v[k].z);
        return true;
    });
    finite = n[0] + n[1] + n[2] < std::numeric_limits<double>::infinity();
    return max_of(n[0], n[1], n[2]);
}

}  // namespace tumble::detail
