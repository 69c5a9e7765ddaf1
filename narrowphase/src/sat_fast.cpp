// The filtered fast path of the separating-axis tests: the exact core's answers (sat_core.hpp) at a fraction of its
// cost. The technique is that of filtered geometric predicates (Shewchuk, "Adaptive Precision Floating-Point
// Arithmetic and Fast Robust Geometric Predicates", 1997; Fortune and Van Wyk's floating-point filters): evaluate a
// cheap approximation together with a rigorous bound on its error, trust it where its margin exceeds the bound,
// and evaluate exactly only where it does not.
//
// Face axes cost the core little: they are evaluated with the core's own arithmetic (Gram matrices), so they
// decide separation exactly as the core does. The edge axes are where the core spends its time (an exact cross
// product, four dot products, a square root and a division each); the fast path takes them from the closed forms of
// Gottschalk, Lin and Manocha (OBBTree, 1996; Ericson, Real-Time Collision Detection, 4.4.1 and 5.2.9; written out
// in sat_core.hpp), which assume orthonormal axes: with R = A^T B and T in A's frame, for L = A_i x B_j
//     over' = ea_i1 |R_i2j| + ea_i2 |R_i1j| + eb_j1 |R_ij2| + eb_j2 |R_ij1| - |T_i2 R_i1j - T_i1 R_i2j|
// is the core's unnormalised overlap (units of |L|). For a triangle, the vertices in the box frame
// (P_ik = V_k . A_i, which the face axes compute anyway) give the same closed forms for L = A_i x E_j.
//
// The bound (`box_edge_bound`, `tri_edge_bound`: derived in sat_bounds.hpp, with every other tolerance of the fast
// path; docs/narrowphase.md, "Speed"): the closed forms are exact for orthonormal axes, the actual axes move them by
// a first-order amount in the axes' departure from orthonormality (`gram_error`), rounding adds a few units of
// 2^-53, and the bound is twice the sum of that and the core's own round-off. tests/narrowphase_fast_test.cpp checks
// on every family that each estimate is within half of it of the long-double reference. It never falls below a few
// kParallelEpsilon of the shapes' size either, so that an edge the filter calls separating is never one the core
// skips as parallel.
//
// Decisions, all of which reproduce the core's answer bit for bit:
//   - an edge axis with over' < -bound separates (the core's over is negative too): separated;
//   - |over'| <= bound: the axis is evaluated by the core's per-axis function (near-touching pairs, nearly parallel
//     edges, float axes far from orthonormal);
//   - contact: the face axis of least depth is found among the faces whose depth estimate (over / |axis|, within a
//     relative delta of over) can be the least, evaluated exactly; an edge axis can change the answer only if its
//     depth is below the face threshold (face depth minus the face bias), which the squared test
//     (over' - bound)^2 >= threshold^2 |L|^2_max rules out for most; the rest are evaluated exactly, and the core's
//     own `choose_contact_axis` picks the axis. The depth and normal come from those exact evaluations.
// Anything outside the fast path's range (axes more than kFastPathMaxAxisError from orthonormal, non-finite values,
// double input the core would rescale) goes to the exact core unchanged.
//
// With a speculative margin m > 0 (the core's `sat(p, out, m)`), an axis separates only when its overlap is below
// -m |L|, and depths may be negative. The face axes use the core's expressions; an edge axis needs |L|, which the
// estimate does not form: it is bounded by |L|^2 = |A_i|^2 |B_j|^2 - (A_i . B_j)^2 (Lagrange's identity) from the
// Gram entries the fast path has, within a slack of round-off (`Len2`). Then
//   - over' < -(bound + m |L|_max) separates, over' > bound - m |L|_min does not, the rest is evaluated exactly;
//   - for the contact, an edge whose depth cannot fall below a threshold <= 0 (over' - bound >= threshold |L|_min)
//     is out, as is one that cannot for a positive threshold (the squared test above).
// Every product and sum of these tests is padded by 2^-39 relative, far above their round-off (a few 2^-53).

#include "sat_core.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

namespace tumble::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kU = kDoubleUnitRoundoff;
// Relative pads of the margin tests (see the top of the file).
constexpr double kPadUp = 1.0 + 0x1p-39;
constexpr double kPadDown = 1.0 - 0x1p-39;

// Bounds of an edge axis' |L|^2 as the core computes it, from the closed forms' Gram entries (lo may be <= 0).
struct Len2 {
    double lo, hi;
};

// A lower bound of x, for v = fl(x) (one rounding).
inline double below(double v) noexcept { return v < 0.0 ? v * kPadUp : v * kPadDown; }

// ---------------------------------------------------------------------------------------------------------------
// Box - box

inline void note_exact(FastTrace* trace, int axis) noexcept {
    if (trace) {
        ++trace->exact_axes;
        trace->exact_mask |= 1u << axis;
    }
}

// The nine edge axes, numbered from `first`: closed(i, j) (i, j as integral constants) is the estimate of axis first + 3i + j, exact(i, j) its
// evaluation by the core's per-axis function (an EdgeAxis). An estimate below -bound separates; one within the
// bound is decided by the exact evaluation, and marked in `exact_mask`. False when some axis separates. With a
// margin > 0 the limits move by the margin times |L| (`len2(i, j)`, a Len2) and an axis separates only beyond it.
template <int first, bool kMargin, class Closed, class Exact, class Len2Of>
[[gnu::always_inline]] inline bool filter_edges(double bound, double margin, const Closed& closed, const Exact& exact,
                                                const Len2Of& len2, double (&over)[9], unsigned& exact_mask,
                                                FastTrace* trace) {
    exact_mask = 0;
    return each<9>([&](auto K) {
        constexpr int k = K, i = k / 3, j = k % 3;
        const double o = closed(std::integral_constant<int, i>{}, std::integral_constant<int, j>{});
        over[k] = o;
        double apart = -bound, within = bound;
        if constexpr (kMargin) {
            const Len2 l = len2(i, j);
            apart = -(bound * kPadUp + margin * std::sqrt(l.hi) * kPadUp);
            within = bound * kPadUp - margin * std::sqrt(std::max(l.lo, 0.0)) * kPadDown;
        }
        if (o < apart) return false;
        if (!(o > within)) {
            note_exact(trace, first + k);
            exact_mask |= 1u << k;
            const EdgeAxis x = exact(std::integral_constant<int, i>{}, std::integral_constant<int, j>{});
            // As the core: beyond the margin (margin 0: any separation).
            if (x.valid && x.separated && (!kMargin || !(x.overlap >= -margin * std::sqrt(x.len2)))) return false;
        }
        return true;
    });
}

// The contact's choice among the face found and the nine edge axes numbered from `first`: an edge can win only if
// its depth over / |L| falls below the face threshold. With over >= over' - bound and |L|^2 <= len2(i, j) (an upper
// bound including round-off), an edge whose lower bound clears the threshold is out; the others, and those the filter
// already evaluated (`exact_mask`), are evaluated by exact(i, j) (an EdgeAxis), and the core's `choose_contact_axis`
// decides. With kMargin the depths may be negative, and so may the threshold (`extra_bias`: the speculative face bias).
template <int first, bool kMargin, class Len2Of, class Exact>
[[gnu::always_inline]] inline void choose_contact_axis_with_edges(const AxisCandidate& face, double size,
                                                                  double axis_error, double bound,
                                                                  const double (&over)[9], unsigned exact_mask,
                                                                  const Len2Of& len2, const Exact& exact, SatAxis* out,
                                                                  FastTrace* trace, double extra_bias = 0.0) {
    const double threshold = face_threshold(face.depth, size, axis_error) - extra_bias;
    const double t2 = threshold * threshold * kSquarePadHigh;
    unsigned evaluate = exact_mask;
    if (threshold > 0.0) {
        each<9>([&](auto K) {
            constexpr int k = K, i = k / 3, j = k % 3;
            const double m = over[k] - bound;
            const double rhs = t2 * len2(i, j).hi;
            if (!(m > 0.0 && rhs >= kFastTinySquare && m * m * kSquarePadLow >= rhs)) evaluate |= 1u << k;
            return true;
        });
    } else if constexpr (kMargin) {
        // Shapes apart by up to the margin: edge depths can be negative, and an edge below threshold (<= 0) can win.
        // It cannot when overlap >= threshold |L| for every |L| in range, i.e. over' - bound >= threshold |L|_min.
        each<9>([&](auto K) {
            constexpr int k = K, i = k / 3, j = k % 3;
            const double lowest = below(over[k] - bound * kPadUp);
            const double reach = -threshold * std::sqrt(std::max(len2(i, j).lo, 0.0)) * kPadDown;
            if (!(lowest >= -reach)) evaluate |= 1u << k;
            return true;
        });
    }
    AxisCandidate edge;
    for (int k = 0; evaluate != 0; ++k, evaluate >>= 1) {
        if (!(evaluate & 1u)) continue;
        if (!((exact_mask >> k) & 1u)) note_exact(trace, first + k);
        const EdgeAxis x = exact(k / 3, k % 3);
        if (x.valid) edge.consider(x.depth(), first + k, x.negative, x.L);
    }
    choose_contact_axis(face, edge, size, axis_error, out, extra_bias);
}

}  // namespace

template <bool kContact, bool kMargin>
int sat_fast(const BoxPairD& p, SatAxis* out, FastTrace* trace, double margin) noexcept {
    const dvec3* a = p.a;
    const dvec3* b = p.b;
    const double* ea = p.ea;
    const double* eb = p.eb;
    const dvec3& t = p.t;

    double R[3][3], GA[3][3], GB[3][3], ta[3], tb[3], over_face[6];

    // Axes 0-2, A's faces, exactly as the core evaluates them, with R, A's Gram matrix and T in A's frame formed row
    // by row as they are needed (most separated pairs stop here). A NaN anywhere in the input makes axis 0 NaN, and
    // an infinite centre or axis makes some face axis NaN or -inf: separated, as the core reports.
    const bool faces_a = each<3>([&](auto I) {
        constexpr int i = I;
        each<3>([&](auto K) {
            constexpr int k = K;
            if constexpr (k >= i) {
                GA[i][k] = glm::dot(a[i], a[k]);
                GA[k][i] = GA[i][k];
            }
            R[i][k] = glm::dot(a[i], b[k]);
            return true;
        });
        ta[i] = glm::dot(t, a[i]);
        over_face[i] = face_a_over(p, GA, R, i, ta[i]);
        return kMargin ? over_face[i] >= -margin * std::sqrt(GA[i][i]) : over_face[i] >= 0.0;
    });
    if (!faces_a) return 0;
    // Axes 3-5, B's faces.
    gram(b, GB);
    const bool faces_b = each<3>([&](auto J) {
        constexpr int j = J;
        tb[j] = glm::dot(t, b[j]);
        over_face[3 + j] = face_b_over(p, GB, R, j, tb[j]);
        return kMargin ? over_face[3 + j] >= -margin * std::sqrt(GB[j][j]) : over_face[3 + j] >= 0.0;
    });
    if (!faces_b) return 0;

    const double dA = gram_error(GA), dB = gram_error(GB);
    if (!(dA <= kFastPathMaxAxisError && dB <= kFastPathMaxAxisError)) return -1;
    const double bound = box_edge_bound(p, dA, dB);
    if (!(bound < kInf)) return -1;  // an infinite half extent

    // Axes 6-14 by the closed forms; the core's arithmetic where they cannot decide. |L|^2 = G_ii G_jj - R_ij^2, up
    // to 32 u (unit axes).
    const auto len2 = [&](int i, int j) {
        const double l = GA[i][i] * GB[j][j] - R[i][j] * R[i][j];
        return Len2{l - 32.0 * kU, l + 32.0 * kU};
    };
    double over_edge[9];
    unsigned exact;
    if (!filter_edges<6, kMargin>(
            bound,
            margin, [&](auto i, auto j) __attribute__((always_inline)) { return box_edge_closed(p, R, ta, i, j); },
            [&](auto i, auto j) { return box_edge_axis(p, GA, GB, i, j); }, len2, over_edge, exact, trace))
        return 0;
    if constexpr (!kContact) {
        return 1;
    } else {
        // The face of least depth. The core's depth over / sqrt(G_ff) lies within a relative dA (dB) + 2.1 units of
        // round-off of over; only faces that can be the least are evaluated.
        // With a margin the overlaps may be negative: the interval is over -+ f |over|.
        const double fa = dA + 8.0 * kU, fb = dB + 8.0 * kU;
        const auto high = [&](int f) {
            const double r = f < 3 ? fa : fb;
            return kMargin ? over_face[f] + r * std::abs(over_face[f]) : over_face[f] * (1.0 + r);
        };
        const double least = min_of(high(0), high(1), high(2), high(3), high(4), high(5));
        AxisCandidate face;
        each<6>([&](auto F) {
            constexpr int f = F;
            const double r = f < 3 ? fa : fb;
            const double low = kMargin ? over_face[f] - r * std::abs(over_face[f]) : over_face[f] * (1.0 - r);
            if (low <= least || low < kFastTinyDepth) {
                if (trace) ++trace->face_candidates;
                if constexpr (f < 3)
                    face.consider(over_face[f] / std::sqrt(GA[f][f]), f, ta[f] < 0.0, a[f]);
                else
                    face.consider(over_face[f] / std::sqrt(GB[f - 3][f - 3]), f, tb[f - 3] < 0.0, b[f - 3]);
            }
            return true;
        });

        // Edges that can beat the face: |L|^2 <= G_ii G_jj - R_ij^2 + 32 u.
        const double size = max_of(ea[0], ea[1], ea[2], eb[0], eb[1], eb[2]);
        choose_contact_axis_with_edges<6, kMargin>(
            face, size, std::max(dA, dB), bound, over_edge, exact, len2,
            [&](int i, int j) { return box_edge_axis(p, GA, GB, i, j); }, out, trace,
            kMargin ? kSpeculativeFaceBias * size : 0.0);
        return 1;
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Box - triangle

template <bool kContact, bool kMargin>
int sat_fast(const BoxTriD& p, SatAxis* out, FastTrace* trace, double margin) noexcept {
    const dvec3* a = p.a;
    const double* e = p.e;
    const dvec3* v = p.v;

    double GA[3][3], P[3][3], face_over[3];
    bool face_negative[3];

    // Axes 0-2, the box's faces, as the core evaluates them; P[i][k] = V_k . A_i are the vertices in the box frame.
    const bool faces = each<3>([&](auto I) {
        constexpr int i = I;
        each<3>([&](auto K) {
            constexpr int k = K;
            if constexpr (k >= i) {
                GA[i][k] = glm::dot(a[i], a[k]);
                GA[k][i] = GA[i][k];
            }
            P[i][k] = glm::dot(v[k], a[i]);
            return true;
        });
        const double r = e[0] * std::abs(GA[i][0]) + e[1] * std::abs(GA[i][1]) + e[2] * std::abs(GA[i][2]);
        const double lo = min_of(P[i][0], P[i][1], P[i][2]), hi = max_of(P[i][0], P[i][1], P[i][2]);
        const double reach = kMargin ? r + margin * std::sqrt(GA[i][i]) : r;
        if (!(lo <= reach && hi >= -reach)) return false;
        if constexpr (kContact) {
            const Interval iv = box_vs_interval(r, lo, hi);
            face_over[i] = iv.overlap;
            face_negative[i] = iv.negative;
        }
        return true;
    });
    if (!faces) return 0;

    // Axis 3, the triangle normal, exactly (it needs the edges in the world frame anyway). Whatever the input, the
    // core returns "separated" too when this axis separates, since it tests the same axes in the same order.
    const TriEdges te = tri_edges(p);
    const EdgeAxis normal = tri_normal_axis(p, te);
    if (normal.valid && normal.separated && (!kMargin || !(normal.overlap >= -margin * std::sqrt(normal.len2))))
        return 0;

    const double dA = gram_error(GA);
    if (!(dA <= kFastPathMaxAxisError)) return -1;
    bool finite;
    const double V = vertex_reach(p, finite);
    const double bound = tri_edge_bound(dA, std::abs(e[0]) + std::abs(e[1]) + std::abs(e[2]), V);
    if (!(finite && bound < kInf)) return -1;  // a non-finite vertex or half extent

    // Axes 4-12 by the closed forms in the box frame; the core's arithmetic where they cannot decide. |L|^2 =
    // |A_i|^2 |E_j|^2 - (E_j . A_i)^2, and E_j . A_i is Ep[j][i], up to round-off.
    double Ep[3][3], over_edge[9];
    tri_frame_edges(P, Ep);
    const double len2_slack = 320.0 * kU * V * V;
    const auto len2 = [&](int i, int j) {
        const double l = GA[i][i] * te.E2[j] - Ep[j][i] * Ep[j][i];
        return Len2{l - len2_slack, l + len2_slack};
    };
    unsigned exact;
    if (!filter_edges<4, kMargin>(
            bound,
            margin, [&](auto i, auto j) __attribute__((always_inline)) { return tri_edge_closed(e, P, Ep, i, j); },
            [&](auto i, auto j) { return tri_edge_axis(p, GA, te, i, j); }, len2, over_edge, exact, trace))
        return 0;
    if constexpr (!kContact) {
        return 1;
    } else {
        // The face of least depth, as for two boxes; the normal's depth is exact already.
        const double fa = dA + 8.0 * kU;
        const auto high = [&](int f) {
            return kMargin ? face_over[f] + fa * std::abs(face_over[f]) : face_over[f] * (1.0 + fa);
        };
        const double least = min_of(normal.valid ? normal.depth() : kInf, high(0), high(1), high(2));
        AxisCandidate face;
        each<3>([&](auto F) {
            constexpr int f = F;
            const double low = kMargin ? face_over[f] - fa * std::abs(face_over[f]) : face_over[f] * (1.0 - fa);
            if (low <= least || low < kFastTinyDepth) {
                if (trace) ++trace->face_candidates;
                face.consider(face_over[f] / std::sqrt(GA[f][f]), f, face_negative[f], a[f]);
            }
            return true;
        });
        if (normal.valid) face.consider(normal.depth(), 3, normal.negative, normal.L);

        // Edges that can beat the face (see the box-box case): |L|^2 <= |A_i|^2 |E_j|^2 - (E_j . A_i)^2, up to
        // round-off, and E_j . A_i is Ep[j][i] up to the same.
        const double emax2 = max_of(te.E2[0], te.E2[1], te.E2[2]);
        const double size = max_of(e[0], e[1], e[2], 0.5 * std::sqrt(emax2));
        choose_contact_axis_with_edges<4, kMargin>(
            face, size, dA, bound, over_edge, exact, len2, [&](int i, int j) { return tri_edge_axis(p, GA, te, i, j); },
            out, trace, kMargin ? kSpeculativeFaceBias * size : 0.0);
        out->flat_triangle = normal.valid ? 0 : 1;
        return 1;
    }
}

template int sat_fast<false, false>(const BoxPairD&, SatAxis*, FastTrace*, double) noexcept;
template int sat_fast<true, false>(const BoxPairD&, SatAxis*, FastTrace*, double) noexcept;
template int sat_fast<false, true>(const BoxPairD&, SatAxis*, FastTrace*, double) noexcept;
template int sat_fast<true, true>(const BoxPairD&, SatAxis*, FastTrace*, double) noexcept;
template int sat_fast<false, false>(const BoxTriD&, SatAxis*, FastTrace*, double) noexcept;
template int sat_fast<true, false>(const BoxTriD&, SatAxis*, FastTrace*, double) noexcept;
template int sat_fast<false, true>(const BoxTriD&, SatAxis*, FastTrace*, double) noexcept;
template int sat_fast<true, true>(const BoxTriD&, SatAxis*, FastTrace*, double) noexcept;

// ---------------------------------------------------------------------------------------------------------------
// The public tests (sat_core.hpp, `load_and_sat`).

namespace {

template <class T, class Shape>
[[gnu::always_inline]] inline bool overlap_impl(const ObbT<T>& a, const Shape& b) noexcept {
    InputOf<T, Shape> p;
    return load_and_sat<false>(a, b, p, nullptr, nullptr);
}

template <class T, class Shape>
[[gnu::always_inline]] inline std::optional<ContactT<T>> collide_impl(const ObbT<T>& a, const Shape& b) noexcept {
    InputOf<T, Shape> p;
    SatAxis s;
    if (!load_and_sat<true>(a, b, p, &s, nullptr)) return std::nullopt;
    return to_contact<T>(s, p.exponent);
}

}  // namespace

}  // namespace tumble::detail

namespace tumble {

template <class T>
bool overlap(const ObbT<T>& a, const ObbT<T>& b) noexcept {
    return detail::overlap_impl(a, b);
}

template <class T>
std::optional<ContactT<T>> collide(const ObbT<T>& a, const ObbT<T>& b) noexcept {
    return detail::collide_impl(a, b);
}

template <class T>
bool overlap(const ObbT<T>& box, const TriangleT<T>& tri) noexcept {
    return detail::overlap_impl(box, tri);
}

template <class T>
std::optional<ContactT<T>> collide(const ObbT<T>& box, const TriangleT<T>& tri) noexcept {
    return detail::collide_impl(box, tri);
}

template bool overlap<float>(const ObbT<float>&, const ObbT<float>&) noexcept;
template bool overlap<double>(const ObbT<double>&, const ObbT<double>&) noexcept;
template std::optional<ContactT<float>> collide<float>(const ObbT<float>&, const ObbT<float>&) noexcept;
template std::optional<ContactT<double>> collide<double>(const ObbT<double>&, const ObbT<double>&) noexcept;
template bool overlap<float>(const ObbT<float>&, const TriangleT<float>&) noexcept;
template bool overlap<double>(const ObbT<double>&, const TriangleT<double>&) noexcept;
template std::optional<ContactT<float>> collide<float>(const ObbT<float>&, const TriangleT<float>&) noexcept;
template std::optional<ContactT<double>> collide<double>(const ObbT<double>&, const TriangleT<double>&) noexcept;

}  // namespace tumble
