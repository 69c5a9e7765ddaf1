// Separating-axis tests. See sat.hpp for the contract, the axis numbering and the sources.
//
// Algorithm (both tests):
//   1. Bring everything to double, relative to the box (or A's) centre, so far-from-origin float input loses
//      nothing: the difference of two floats is exact in double (sat_core.hpp: `load`).
//   2. Take every projection exactly for the shapes as given. Float axes are orthonormal only to ~1e-7, and the
//      textbook closed forms (Gottschalk 1996; Ericson 4.4.1) that assume exact orthonormality are off by
//      ~1e-7 of the box size on every axis. Instead:
//      - a face axis u projects box A with radius sum_k h_k |A_k . u| / |u|, read from the Gram matrix A^T A;
//      - an edge axis L = u x v is formed explicitly, with `cross_robust`, which keeps full relative precision
//        when u and v are nearly parallel (there the plain cross product loses all digits of |L| but the
//        leading one or two: its absolute error is ~1e-16 |u| |v| whatever |L| is). The box radius on L is
//        sum over the two axes k other than u of h_k |A_k . L|; u . L = 0 exactly.
//      Every depth is then exact up to a few units of double round-off relative to the shapes' size, also on
//      an edge axis between edges 1e-10 rad from parallel.
//   3. A separating axis (overlap < 0, or NaN) returns at once; faces are tested before edges. With a speculative
//      margin m, an axis separates only when the overlap is below -m (in metres along the unit axis), and the
//      contact axis is the one of least (possibly negative) overlap: the greatest separation the 15 or 13 axes show.
//   4. Depth on every axis is (rA + rB - |T.L|) / |L|, a distance in metres. The smallest face depth and the
//      smallest edge depth are kept apart, and an edge wins only by more than the face bias, which grows with the
//      departure of the input axes from orthonormality (sat.hpp).
//   5. Edge axes with |L| below kParallelEpsilon |u| |v| are skipped: exactly parallel edges give L = 0 (or a few
//      ulps of noise), and the face axes decide those configurations.

#include "sat_core.hpp"

#include <tumble/narrowphase/sat.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace tumble {
namespace detail {
namespace {

// Adds x - x for every value: +0 for finite values, NaN for NaN or infinity. Unlike a sum of the values it never
// overflows on large finite input.
template <class T>
double nonfinite_probe(const Vec3T<T>& v) {
    double s = 0.0;
    for (int k = 0; k < 3; ++k) {
        const double x = static_cast<double>(v[k]);
        s += x - x;
    }
    return s;
}
template <class T>
double nonfinite_probe(const Mat3T<T>& m) {
    return nonfinite_probe(m[0]) + nonfinite_probe(m[1]) + nonfinite_probe(m[2]);
}

// Double input outside (kRescaleMin, kRescaleMax) (sat_bounds.hpp) is rescaled by a power of two; returns the
// exponent to undo it with.
int rescale_exponent(double largest) {
    if (!within_unscaled_range(largest)) {
        if (largest == 0.0 || !std::isfinite(largest)) return 0;
        return std::ilogb(largest);
    }
    return 0;
}

// The last step of `load`: false when a value overflowed double (centres too far apart); for double input, the
// exact power-of-two rescaling of every length when their magnitude calls for it.
template <class T, std::size_t N>
bool rescale(double* const (&lengths)[N], int& exponent) {
    double largest = 0.0;
    for (double* x : lengths) largest = std::max(largest, std::abs(*x));
    if (!std::isfinite(largest)) return false;
    exponent = 0;
    if constexpr (std::is_same_v<T, double>) {
        exponent = rescale_exponent(largest);
        if (exponent != 0)
            for (double* x : lengths) *x = std::ldexp(*x, -exponent);
    }
    return true;
}

}  // namespace

template <class T>
bool load(const ObbT<T>& boxA, const ObbT<T>& boxB, BoxPairD& p) noexcept {
    const double probe = nonfinite_probe(boxA.center) + nonfinite_probe(boxA.axes) +
                         nonfinite_probe(boxA.half_extents) + nonfinite_probe(boxB.center) +
                         nonfinite_probe(boxB.axes) + nonfinite_probe(boxB.half_extents);
    if (probe != 0.0) return false;  // NaN
    convert(boxA, boxB, p);
    double* const lengths[] = {&p.ea[0], &p.ea[1], &p.ea[2], &p.eb[0], &p.eb[1], &p.eb[2], &p.t.x, &p.t.y, &p.t.z};
    return rescale<T>(lengths, p.exponent);
}

template <class T>
bool load(const ObbT<T>& box, const TriangleT<T>& tri, BoxTriD& p) noexcept {
    const double probe = nonfinite_probe(box.center) + nonfinite_probe(box.axes) + nonfinite_probe(box.half_extents) +
                         nonfinite_probe(tri.a) + nonfinite_probe(tri.b) + nonfinite_probe(tri.c);
    if (probe != 0.0) return false;
    convert(box, tri, p);
    double* const lengths[] = {&p.e[0],   &p.e[1],   &p.e[2],   &p.v[0].x, &p.v[0].y, &p.v[0].z,
                               &p.v[1].x, &p.v[1].y, &p.v[1].z, &p.v[2].x, &p.v[2].y, &p.v[2].z};
    return rescale<T>(lengths, p.exponent);
}

// ---------------------------------------------------------------------------------------------------------------
// OBB - OBB

template <bool kContact>
bool sat(const BoxPairD& p, SatAxis* out, double margin) noexcept {
    const dvec3* a = p.a;
    const dvec3* b = p.b;
    const double* ea = p.ea;
    const double* eb = p.eb;
    const dvec3& t = p.t;

    double R[3][3], GA[3][3], GB[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) R[i][j] = glm::dot(a[i], b[j]);
    for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j) {
            GA[i][j] = GA[j][i] = glm::dot(a[i], a[j]);
            GB[i][j] = GB[j][i] = glm::dot(b[i], b[j]);
        }

    AxisCandidate face, edge;

    // Axes 0-2: A's faces; 3-5: B's faces. Depth in metres: the overlap over |axis|.
    for (int i = 0; i < 3; ++i) {
        const double tl = glm::dot(t, a[i]);
        const double over = face_a_over(p, GA, R, i, tl);
        if (!(over >= -margin * std::sqrt(GA[i][i]))) return false;  // NaN compares false: separated
        if constexpr (kContact) face.consider(over / std::sqrt(GA[i][i]), i, tl < 0.0, a[i]);
    }
    for (int j = 0; j < 3; ++j) {
        const double tl = glm::dot(t, b[j]);
        const double over = face_b_over(p, GB, R, j, tl);
        if (!(over >= -margin * std::sqrt(GB[j][j]))) return false;
        if constexpr (kContact) face.consider(over / std::sqrt(GB[j][j]), 3 + j, tl < 0.0, b[j]);
    }

    // Axes 6-14: L = A_i x B_j.
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const EdgeAxis x = box_edge_axis(p, GA, GB, i, j);
            if (!x.valid) continue;
            if (x.separated && !(x.overlap >= -margin * std::sqrt(x.len2))) return false;
            if constexpr (kContact) edge.consider(x.depth(), 6 + 3 * i + j, x.negative, x.L);
        }

    if constexpr (kContact) {
        const double size = std::max({ea[0], ea[1], ea[2], eb[0], eb[1], eb[2]});
        choose_contact_axis(face, edge, size, std::max(gram_error(GA), gram_error(GB)), out,
                            margin > 0.0 ? kSpeculativeFaceBias * size : 0.0);
    }
    return true;
}

// ---------------------------------------------------------------------------------------------------------------
// OBB - triangle

template <bool kContact>
bool sat(const BoxTriD& p, SatAxis* out, double margin) noexcept {
    const dvec3* a = p.a;
    const double* e = p.e;
    const dvec3* v = p.v;

    double GA[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j) GA[i][j] = GA[j][i] = glm::dot(a[i], a[j]);

    AxisCandidate face, edge;

    // Axes 0-2: the box's faces, in units of |A_i|.
    for (int i = 0; i < 3; ++i) {
        const double r = e[0] * std::abs(GA[i][0]) + e[1] * std::abs(GA[i][1]) + e[2] * std::abs(GA[i][2]);
        const double p0 = glm::dot(v[0], a[i]), p1 = glm::dot(v[1], a[i]), p2 = glm::dot(v[2], a[i]);
        const double lo = std::min({p0, p1, p2}), hi = std::max({p0, p1, p2});
        const double reach = margin > 0.0 ? r + margin * std::sqrt(GA[i][i]) : r;
        if (!(lo <= reach && hi >= -reach)) return false;
        if constexpr (kContact) {
            const Interval iv = box_vs_interval(r, lo, hi);
            face.consider(iv.overlap / std::sqrt(GA[i][i]), i, iv.negative, a[i]);
        }
    }

    const TriEdges te = tri_edges(p);

    // Axis 3: the triangle normal, skipped when the triangle is degenerate.
    const EdgeAxis normal = tri_normal_axis(p, te);
    if (normal.valid) {
        if (normal.separated && !(normal.overlap >= -margin * std::sqrt(normal.len2))) return false;
        if constexpr (kContact) face.consider(normal.depth(), 3, normal.negative, normal.L);
    }

    // Axes 4-12: L = A_i x E_j.
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const EdgeAxis x = tri_edge_axis(p, GA, te, i, j);
            if (!x.valid) continue;
            if (x.separated && !(x.overlap >= -margin * std::sqrt(x.len2))) return false;
            if constexpr (kContact) edge.consider(x.depth(), 4 + 3 * i + j, x.negative, x.L);
        }

    if constexpr (kContact) {
        const double emax2 = std::max({te.E2[0], te.E2[1], te.E2[2]});
        const double size = std::max({e[0], e[1], e[2], 0.5 * std::sqrt(emax2)});
        choose_contact_axis(face, edge, size, gram_error(GA), out, margin > 0.0 ? kSpeculativeFaceBias * size : 0.0);
        out->flat_triangle = normal.valid ? 0 : 1;
    }
    return true;
}

template bool load<float>(const ObbT<float>&, const ObbT<float>&, BoxPairD&) noexcept;
template bool load<double>(const ObbT<double>&, const ObbT<double>&, BoxPairD&) noexcept;
template bool load<float>(const ObbT<float>&, const TriangleT<float>&, BoxTriD&) noexcept;
template bool load<double>(const ObbT<double>&, const TriangleT<double>&, BoxTriD&) noexcept;
template bool sat<false>(const BoxPairD&, SatAxis*, double) noexcept;
template bool sat<true>(const BoxPairD&, SatAxis*, double) noexcept;
template bool sat<false>(const BoxTriD&, SatAxis*, double) noexcept;
template bool sat<true>(const BoxTriD&, SatAxis*, double) noexcept;

}  // namespace detail

}  // namespace tumble
