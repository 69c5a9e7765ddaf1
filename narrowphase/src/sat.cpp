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
//   3. A separating axis (overlap < 0, or NaN) returns at once; faces are tested before edges.
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

// Below this |L|^2 / (|u|^2 |v|^2) (an angle under ~0.1 rad), the cross product is recomputed without cancellation.
constexpr double kCancellation2 = 1e-2;
constexpr double kParallel2 = kParallelEpsilon * kParallelEpsilon;

// Smallest-depth candidate among one class of axes (faces or edges).
struct Candidate {
    double depth = std::numeric_limits<double>::infinity();
    int axis = -1;
    bool negative = false;
    dvec3 direction{0.0};  // the axis L as numbered (not normalised)

    void consider(double d, int index, bool neg, const dvec3& l) {
        if (d < depth) {
            depth = d;
            axis = index;
            negative = neg;
            direction = l;
        }
    }
};

// Face preferred unless the edge is shallower by more than the documented bias (sat.hpp).
bool prefer_edge(const Candidate& face, const Candidate& edge, double size, double axis_error) {
    if (edge.axis < 0) return false;
    if (face.axis < 0) return true;
    const double bias = kFaceBiasRelative * face.depth + (kFaceBiasAbsolute + kFaceBiasAxisError * axis_error) * size;
    return edge.depth < face.depth - bias;
}

// Departure of a Gram matrix from the identity: max |A_k . A_l - delta_kl|.
double gram_error(const double G[3][3]) {
    double e = 0.0;
    for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l) e = std::max(e, std::abs(G[k][l] - (k == l ? 1.0 : 0.0)));
    return e;
}

void finish(const Candidate& face, const Candidate& edge, double size, double axis_error, SatAxis* out) {
    const Candidate& c = prefer_edge(face, edge, size, axis_error) ? edge : face;
    out->axis = c.axis;
    out->negative = c.negative;
    out->depth = c.depth;
    const dvec3 unit = c.direction / std::sqrt(glm::dot(c.direction, c.direction));
    out->normal = c.negative ? -unit : unit;
}

// Veltkamp's split: the high part of x, with at most 26 significant bits; x - hi is exact and has at most 27.
inline double split_high(double x) {
    const double t = 134217729.0 * x;  // 2^27 + 1
    return t - (t - x);
}

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

// Double input outside [2^-200, 2^200] is rescaled by a power of two; returns the exponent to undo it with.
int rescale_exponent(double largest) {
    if (!(largest > 0x1p-200 && largest < 0x1p200)) {
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

// Cyclic successors.
constexpr int next1(int i) { return i == 2 ? 0 : i + 1; }
constexpr int next2(int i) { return i == 0 ? 2 : i - 1; }

// Overlap of the box interval [-r, r] and the triangle interval [lo, hi] on an axis, relative to the box centre.
// Returns the overlap length (< 0 or NaN when separated) and whether the normal is -L (triangle on the - side).
struct Interval {
    double overlap;
    bool negative;
};
Interval box_vs_interval(double r, double lo, double hi) {
    if (lo + hi >= 0.0) return {r - lo, false};  // triangle's middle on the + side: box moves -L
    return {hi + r, true};
}

}  // namespace

dvec3 cross_robust(const dvec3& u, const dvec3& v, double uu, double vv) noexcept {
    const dvec3 l = glm::cross(u, v);
    if (glm::dot(l, l) >= kCancellation2 * uu * vv) return l;  // also when u or v is zero
    // Nearly parallel. u x v = u x d for d = v - k u and any k. With k rounded to 26 bits and u split into 26- and
    // 27-bit halves, both products k u_hi and k u_lo are exact, v - k u_hi cancels exactly (Sterbenz), and d,
    // now short, carries full relative precision into the cross product.
    const double k = split_high(glm::dot(u, v) / uu);
    dvec3 hi, lo;
    for (int c = 0; c < 3; ++c) {
        hi[c] = split_high(u[c]);
        lo[c] = u[c] - hi[c];
    }
    const dvec3 d = (v - k * hi) - k * lo;
    return glm::cross(u, d);
}

double unscale(double x, int exponent) noexcept { return exponent == 0 ? x : std::ldexp(x, exponent); }

template <class T>
ContactT<T> to_contact(const SatAxis& s, int exponent) noexcept {
    ContactT<T> out;
    out.axis = s.axis;
    out.negative = s.negative;
    out.depth = static_cast<T>(unscale(std::max(s.depth, 0.0), exponent));
    out.normal = Vec3T<T>(s.normal);
    return out;
}

template <class T>
bool load(const ObbT<T>& boxA, const ObbT<T>& boxB, BoxPairD& p) noexcept {
    const double probe = nonfinite_probe(boxA.center) + nonfinite_probe(boxA.axes) +
                         nonfinite_probe(boxA.half_extents) + nonfinite_probe(boxB.center) +
                         nonfinite_probe(boxB.axes) + nonfinite_probe(boxB.half_extents);
    if (probe != 0.0) return false;  // NaN
    for (int i = 0; i < 3; ++i) {
        p.a[i] = dvec3(boxA.axes[i]);
        p.b[i] = dvec3(boxB.axes[i]);
        p.ea[i] = static_cast<double>(boxA.half_extents[i]);
        p.eb[i] = static_cast<double>(boxB.half_extents[i]);
        p.t[i] = static_cast<double>(boxB.center[i]) - static_cast<double>(boxA.center[i]);
    }
    double* const lengths[] = {&p.ea[0], &p.ea[1], &p.ea[2], &p.eb[0], &p.eb[1], &p.eb[2], &p.t.x, &p.t.y, &p.t.z};
    return rescale<T>(lengths, p.exponent);
}

template <class T>
bool load(const ObbT<T>& box, const TriangleT<T>& tri, BoxTriD& p) noexcept {
    const double probe = nonfinite_probe(box.center) + nonfinite_probe(box.axes) + nonfinite_probe(box.half_extents) +
                         nonfinite_probe(tri.a) + nonfinite_probe(tri.b) + nonfinite_probe(tri.c);
    if (probe != 0.0) return false;
    const dvec3 c(box.center);
    for (int i = 0; i < 3; ++i) {
        p.a[i] = dvec3(box.axes[i]);
        p.e[i] = static_cast<double>(box.half_extents[i]);
    }
    p.v[0] = dvec3(tri.a) - c;
    p.v[1] = dvec3(tri.b) - c;
    p.v[2] = dvec3(tri.c) - c;
    double* const lengths[] = {&p.e[0],   &p.e[1],   &p.e[2],   &p.v[0].x, &p.v[0].y, &p.v[0].z,
                               &p.v[1].x, &p.v[1].y, &p.v[1].z, &p.v[2].x, &p.v[2].y, &p.v[2].z};
    return rescale<T>(lengths, p.exponent);
}

// ---------------------------------------------------------------------------------------------------------------
// OBB - OBB

template <bool kContact>
bool sat(const BoxPairD& p, SatAxis* out) noexcept {
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

    Candidate face, edge;

    // Axes 0-2: A's faces. In units of |A_i|: rA = sum_k ea_k |A_k . A_i|, rB = sum_j eb_j |A_i . B_j|.
    for (int i = 0; i < 3; ++i) {
        const double ra = ea[0] * std::abs(GA[i][0]) + ea[1] * std::abs(GA[i][1]) + ea[2] * std::abs(GA[i][2]);
        const double rb = eb[0] * std::abs(R[i][0]) + eb[1] * std::abs(R[i][1]) + eb[2] * std::abs(R[i][2]);
        const double tl = glm::dot(t, a[i]);
        const double over = ra + rb - std::abs(tl);
        if (!(over >= 0.0)) return false;  // NaN compares false: separated
        if constexpr (kContact) face.consider(over / std::sqrt(GA[i][i]), i, tl < 0.0, a[i]);
    }

    // Axes 3-5: B's faces.
    for (int j = 0; j < 3; ++j) {
        const double ra = ea[0] * std::abs(R[0][j]) + ea[1] * std::abs(R[1][j]) + ea[2] * std::abs(R[2][j]);
        const double rb = eb[0] * std::abs(GB[j][0]) + eb[1] * std::abs(GB[j][1]) + eb[2] * std::abs(GB[j][2]);
        const double tl = glm::dot(t, b[j]);
        const double over = ra + rb - std::abs(tl);
        if (!(over >= 0.0)) return false;
        if constexpr (kContact) face.consider(over / std::sqrt(GB[j][j]), 3 + j, tl < 0.0, b[j]);
    }

    // Axes 6-14: L = A_i x B_j, formed to full relative precision. A_i . L = B_j . L = 0.
    for (int i = 0; i < 3; ++i) {
        const int i1 = next1(i), i2 = next2(i);
        for (int j = 0; j < 3; ++j) {
            const int j1 = next1(j), j2 = next2(j);
            const dvec3 L = cross_robust(a[i], b[j], GA[i][i], GB[j][j]);
            const double len2 = glm::dot(L, L);
            if (!(len2 > kParallel2 * GA[i][i] * GB[j][j])) continue;  // parallel edges: the faces decide
            const double ra = ea[i1] * std::abs(glm::dot(a[i1], L)) + ea[i2] * std::abs(glm::dot(a[i2], L));
            const double rb = eb[j1] * std::abs(glm::dot(b[j1], L)) + eb[j2] * std::abs(glm::dot(b[j2], L));
            const double tl = glm::dot(t, L);
            const double over = ra + rb - std::abs(tl);
            if (!(over >= 0.0)) return false;
            if constexpr (kContact) edge.consider(over / std::sqrt(len2), 6 + 3 * i + j, tl < 0.0, L);
        }
    }

    if constexpr (kContact)
        finish(face, edge, std::max({ea[0], ea[1], ea[2], eb[0], eb[1], eb[2]}), std::max(gram_error(GA), gram_error(GB)),
               out);
    return true;
}

// ---------------------------------------------------------------------------------------------------------------
// OBB - triangle

template <bool kContact>
bool sat(const BoxTriD& p, SatAxis* out) noexcept {
    const dvec3* a = p.a;
    const double* e = p.e;
    const dvec3* v = p.v;

    double GA[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = i; j < 3; ++j) GA[i][j] = GA[j][i] = glm::dot(a[i], a[j]);

    Candidate face, edge;

    // Axes 0-2: the box's faces, in units of |A_i|.
    for (int i = 0; i < 3; ++i) {
        const double r = e[0] * std::abs(GA[i][0]) + e[1] * std::abs(GA[i][1]) + e[2] * std::abs(GA[i][2]);
        const double p0 = glm::dot(v[0], a[i]), p1 = glm::dot(v[1], a[i]), p2 = glm::dot(v[2], a[i]);
        const double lo = std::min({p0, p1, p2}), hi = std::max({p0, p1, p2});
        if (!(lo <= r && hi >= -r)) return false;
        if constexpr (kContact) {
            const Interval iv = box_vs_interval(r, lo, hi);
            face.consider(iv.overlap / std::sqrt(GA[i][i]), i, iv.negative, a[i]);
        }
    }

    const dvec3 E[3] = {v[1] - v[0], v[2] - v[1], v[0] - v[2]};
    const double E2[3] = {glm::dot(E[0], E[0]), glm::dot(E[1], E[1]), glm::dot(E[2], E[2])};

    // Axis 3: the triangle normal n = (b - a) x (c - a) = E_j x E_j+1 for every j, formed from the longest edge
    // and its successor so that slivers keep full precision. Skipped when the triangle is degenerate.
    {
        const int j = E2[0] >= E2[1] ? (E2[0] >= E2[2] ? 0 : 2) : (E2[1] >= E2[2] ? 1 : 2);
        const int j1 = next1(j);
        const dvec3 n = cross_robust(E[j], E[j1], E2[j], E2[j1]);
        const double n2 = glm::dot(n, n);
        if (n2 > kParallel2 * E2[j] * E2[j1]) {
            const double r = e[0] * std::abs(glm::dot(a[0], n)) + e[1] * std::abs(glm::dot(a[1], n)) +
                             e[2] * std::abs(glm::dot(a[2], n));
            const double d0 = glm::dot(v[0], n), d1 = glm::dot(v[1], n), d2 = glm::dot(v[2], n);
            const double lo = std::min({d0, d1, d2}), hi = std::max({d0, d1, d2});
            if (!(lo <= r && hi >= -r)) return false;
            if constexpr (kContact) {
                const Interval iv = box_vs_interval(r, lo, hi);
                face.consider(iv.overlap / std::sqrt(n2), 3, iv.negative, n);
            }
        }
    }

    // Axes 4-12: L = A_i x E_j. Vertices j and j+1 project to V_j . L; the third vertex V_j+2 = V_j - E_j+2.
    for (int i = 0; i < 3; ++i) {
        const int i1 = next1(i), i2 = next2(i);
        for (int j = 0; j < 3; ++j) {
            const dvec3 L = cross_robust(a[i], E[j], GA[i][i], E2[j]);
            const double len2 = glm::dot(L, L);
            if (!(len2 > kParallel2 * GA[i][i] * E2[j])) continue;  // edge parallel to the axis, or zero length
            const double r = e[i1] * std::abs(glm::dot(a[i1], L)) + e[i2] * std::abs(glm::dot(a[i2], L));
            const double q0 = glm::dot(v[j], L);
            const double q1 = q0 - glm::dot(E[next2(j)], L);
            const double lo = std::min(q0, q1), hi = std::max(q0, q1);
            if (!(lo <= r && hi >= -r)) return false;
            if constexpr (kContact) {
                const Interval iv = box_vs_interval(r, lo, hi);
                edge.consider(iv.overlap / std::sqrt(len2), 4 + 3 * i + j, iv.negative, L);
            }
        }
    }

    if constexpr (kContact) {
        const double emax2 = std::max({E2[0], E2[1], E2[2]});
        finish(face, edge, std::max({e[0], e[1], e[2], 0.5 * std::sqrt(emax2)}), gram_error(GA), out);
    }
    return true;
}

template bool load<float>(const ObbT<float>&, const ObbT<float>&, BoxPairD&) noexcept;
template bool load<double>(const ObbT<double>&, const ObbT<double>&, BoxPairD&) noexcept;
template bool load<float>(const ObbT<float>&, const TriangleT<float>&, BoxTriD&) noexcept;
template bool load<double>(const ObbT<double>&, const TriangleT<double>&, BoxTriD&) noexcept;
template bool sat<false>(const BoxPairD&, SatAxis*) noexcept;
template bool sat<true>(const BoxPairD&, SatAxis*) noexcept;
template bool sat<false>(const BoxTriD&, SatAxis*) noexcept;
template bool sat<true>(const BoxTriD&, SatAxis*) noexcept;
template ContactT<float> to_contact<float>(const SatAxis&, int) noexcept;
template ContactT<double> to_contact<double>(const SatAxis&, int) noexcept;

}  // namespace detail

template <class T>
bool overlap(const ObbT<T>& a, const ObbT<T>& b) noexcept {
    detail::BoxPairD p;
    return detail::load(a, b, p) && detail::sat<false>(p, nullptr);
}

template <class T>
std::optional<ContactT<T>> collide(const ObbT<T>& a, const ObbT<T>& b) noexcept {
    detail::BoxPairD p;
    detail::SatAxis s;
    if (!detail::load(a, b, p) || !detail::sat<true>(p, &s)) return std::nullopt;
    return detail::to_contact<T>(s, p.exponent);
}

template <class T>
bool overlap(const ObbT<T>& box, const TriangleT<T>& tri) noexcept {
    detail::BoxTriD p;
    return detail::load(box, tri, p) && detail::sat<false>(p, nullptr);
}

template <class T>
std::optional<ContactT<T>> collide(const ObbT<T>& box, const TriangleT<T>& tri) noexcept {
    detail::BoxTriD p;
    detail::SatAxis s;
    if (!detail::load(box, tri, p) || !detail::sat<true>(p, &s)) return std::nullopt;
    return detail::to_contact<T>(s, p.exponent);
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
