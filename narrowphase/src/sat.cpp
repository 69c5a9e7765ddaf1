// Separating-axis tests. See sat.hpp for the contract, the axis numbering and the sources.
//
// Algorithm (both tests):
//   1. Bring everything to double, relative to the box (or A's) centre, so far-from-origin float input loses
//      nothing: the difference of two floats is exact in double.
//   2. Take every projection exactly for the shapes as given. Float axes are orthonormal only to ~1e-7, and the
//      textbook closed forms (Gottschalk 1996; Ericson 4.4.1) that assume exact orthonormality are off by
//      ~1e-7 of the box size on every axis, and by ~1e-7 / |L| on a nearly parallel edge axis L. Instead:
//      - a face axis u projects box A with radius sum_k h_k |A_k . u| / |u|, read from the Gram matrix A^T A;
//      - an edge axis L = u x v is never formed for the projections: A_k . (u x v) = v . (A_k x u) and
//        T . (u x v) = v . (T x u), dot products with a few precomputed cross products;
//      - |L|^2 = |u|^2 |v|^2 - (u . v)^2, or the explicit cross product when that would cancel (nearly parallel).
//      This costs some 30 more dot products than the closed forms and makes every depth exact up to double
//      round-off divided by |L|.
//   3. A separating axis (overlap < 0, or NaN) returns at once; faces are tested before edges.
//   4. Depth on every axis is (rA + rB - |T.L|) / |L|, a distance in metres. The smallest face depth and the
//      smallest edge depth are kept apart, and an edge wins only by more than the face bias.
//   5. Edge axes with |L| below kParallelEpsilon (relative to the lengths of u and v) are skipped: parallel edges
//      leave the decision to the face axes, which is what the epsilon of seed 004 approximates.

#include <tumble/narrowphase/sat.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tumble {
namespace {

using dvec3 = glm::dvec3;

// Below this |L|^2 / (|u|^2 |v|^2), |L|^2 is taken from the explicit cross product instead of Lagrange's identity.
constexpr double kCancellation2 = 1e-2;
constexpr double kParallel2 = kParallelEpsilon * kParallelEpsilon;

// Smallest-depth candidate among one class of axes (faces or edges).
struct Candidate {
    double depth = std::numeric_limits<double>::infinity();
    int axis = -1;
    bool negative = false;

    void consider(double d, int index, bool neg) {
        if (d < depth) {
            depth = d;
            axis = index;
            negative = neg;
        }
    }
};

// Face preferred unless the edge is shallower by more than the documented bias.
bool prefer_edge(const Candidate& face, const Candidate& edge, double size) {
    if (edge.axis < 0) return false;
    if (face.axis < 0) return true;
    return edge.depth < face.depth - (kFaceBiasRelative * face.depth + kFaceBiasAbsolute * size);
}

template <class T>
ContactT<T> make_contact(const Candidate& c, const dvec3& axis) {
    const dvec3 unit = axis / std::sqrt(glm::dot(axis, axis));
    ContactT<T> out;
    out.axis = c.axis;
    out.negative = c.negative;
    out.depth = static_cast<T>(std::max(c.depth, 0.0));
    out.normal = Vec3T<T>(c.negative ? -unit : unit);
    return out;
}

// |u x v|^2 given |u|^2, |v|^2 and u . v, falling back to the explicit cross product when nearly parallel.
double cross_length2(const dvec3& u, const dvec3& v, double uu, double vv, double uv) {
    const double len2 = uu * vv - uv * uv;
    if (len2 >= kCancellation2 * uu * vv) return len2;
    const dvec3 c = glm::cross(u, v);
    return glm::dot(c, c);
}

// False when any of the values is NaN or infinite: their sum times zero is then NaN.
template <class T>
bool all_finite(const Vec3T<T>& p, const Vec3T<T>& q, const Vec3T<T>& r, const Mat3T<T>& m) {
    double sum = 0.0;
    for (int k = 0; k < 3; ++k)
        sum += static_cast<double>(p[k]) + static_cast<double>(q[k]) + static_cast<double>(r[k]) +
               static_cast<double>(m[0][k]) + static_cast<double>(m[1][k]) + static_cast<double>(m[2][k]);
    return sum * 0.0 == 0.0;
}

// Cyclic successors.
constexpr int next1(int i) { return i == 2 ? 0 : i + 1; }
constexpr int next2(int i) { return i == 0 ? 2 : i - 1; }

// ---------------------------------------------------------------------------------------------------------------
// OBB - OBB

template <bool kContact, class T>
bool obb_obb(const ObbT<T>& boxA, const ObbT<T>& boxB, ContactT<T>* out) {
    if (!all_finite(boxA.center, boxA.half_extents, boxB.center, boxA.axes) ||
        !all_finite(boxB.half_extents, boxB.half_extents, boxB.half_extents, boxB.axes))
        return false;
    dvec3 a[3], b[3];
    double ea[3], eb[3];
    for (int i = 0; i < 3; ++i) {
        a[i] = dvec3(boxA.axes[i]);
        b[i] = dvec3(boxB.axes[i]);
        ea[i] = static_cast<double>(boxA.half_extents[i]);
        eb[i] = static_cast<double>(boxB.half_extents[i]);
    }
    const dvec3 t = dvec3(boxB.center) - dvec3(boxA.center);

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
        if constexpr (kContact) face.consider(over / std::sqrt(GA[i][i]), i, tl < 0.0);
    }

    // Axes 3-5: B's faces.
    for (int j = 0; j < 3; ++j) {
        const double ra = ea[0] * std::abs(R[0][j]) + ea[1] * std::abs(R[1][j]) + ea[2] * std::abs(R[2][j]);
        const double rb = eb[0] * std::abs(GB[j][0]) + eb[1] * std::abs(GB[j][1]) + eb[2] * std::abs(GB[j][2]);
        const double tl = glm::dot(t, b[j]);
        const double over = ra + rb - std::abs(tl);
        if (!(over >= 0.0)) return false;
        if constexpr (kContact) face.consider(over / std::sqrt(GB[j][j]), 3 + j, tl < 0.0);
    }

    // Axes 6-14: L = A_i x B_j. With CA_m = A_m+1 x A_m+2 and CB_m = B_m+1 x B_m+2 (indices cyclic):
    //   A_i . L = 0,  A_i+1 . L = -B_j . CA_i+2,  A_i+2 . L = B_j . CA_i+1,
    //   B_j . L = 0,  B_j+1 . L = A_i . CB_j+2,   B_j+2 . L = -A_i . CB_j+1,
    //   T . L = B_j . (T x A_i).
    dvec3 CA[3], CB[3], TA[3];
    for (int m = 0; m < 3; ++m) {
        CA[m] = glm::cross(a[next1(m)], a[next2(m)]);
        CB[m] = glm::cross(b[next1(m)], b[next2(m)]);
        TA[m] = glm::cross(t, a[m]);
    }
    for (int i = 0; i < 3; ++i) {
        const int i1 = next1(i), i2 = next2(i);
        for (int j = 0; j < 3; ++j) {
            const int j1 = next1(j), j2 = next2(j);
            const double len2 = cross_length2(a[i], b[j], GA[i][i], GB[j][j], R[i][j]);
            if (!(len2 > kParallel2 * GA[i][i] * GB[j][j])) continue;  // parallel edges: the faces decide
            const double ra = ea[i1] * std::abs(glm::dot(b[j], CA[i2])) + ea[i2] * std::abs(glm::dot(b[j], CA[i1]));
            const double rb = eb[j1] * std::abs(glm::dot(a[i], CB[j2])) + eb[j2] * std::abs(glm::dot(a[i], CB[j1]));
            const double tl = glm::dot(b[j], TA[i]);
            const double over = ra + rb - std::abs(tl);
            if (!(over >= 0.0)) return false;
            if constexpr (kContact) edge.consider(over / std::sqrt(len2), 6 + 3 * i + j, tl < 0.0);
        }
    }

    if constexpr (kContact) {
        const double size = std::max({ea[0], ea[1], ea[2], eb[0], eb[1], eb[2]});
        if (prefer_edge(face, edge, size)) {
            const int i = (edge.axis - 6) / 3, j = (edge.axis - 6) % 3;
            *out = make_contact<T>(edge, glm::cross(a[i], b[j]));
        } else {
            *out = make_contact<T>(face, face.axis < 3 ? a[face.axis] : b[face.axis - 3]);
        }
    }
    return true;
}

// ---------------------------------------------------------------------------------------------------------------
// OBB - triangle

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

template <bool kContact, class T>
bool obb_triangle(const ObbT<T>& box, const TriangleT<T>& tri, ContactT<T>* out) {
    if (!all_finite(box.center, box.half_extents, tri.a, box.axes) || !all_finite(tri.b, tri.c, tri.c, box.axes))
        return false;
    dvec3 a[3];
    double e[3];
    for (int i = 0; i < 3; ++i) {
        a[i] = dvec3(box.axes[i]);
        e[i] = static_cast<double>(box.half_extents[i]);
    }
    const dvec3 c = dvec3(box.center);
    const dvec3 v[3] = {dvec3(tri.a) - c, dvec3(tri.b) - c, dvec3(tri.c) - c};

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
            face.consider(iv.overlap / std::sqrt(GA[i][i]), i, iv.negative);
        }
    }

    const dvec3 E[3] = {v[1] - v[0], v[2] - v[1], v[0] - v[2]};
    const double E2[3] = {glm::dot(E[0], E[0]), glm::dot(E[1], E[1]), glm::dot(E[2], E[2])};
    const double emax2 = std::max({E2[0], E2[1], E2[2]});

    // Axis 3: the triangle normal n = (b - a) x (c - a), skipped when the triangle is degenerate.
    const dvec3 n = glm::cross(E[0], v[2] - v[0]);
    const double n2 = glm::dot(n, n);
    const double an[3] = {glm::dot(a[0], n), glm::dot(a[1], n), glm::dot(a[2], n)};
    if (n2 > kParallel2 * emax2 * emax2) {
        const double r = e[0] * std::abs(an[0]) + e[1] * std::abs(an[1]) + e[2] * std::abs(an[2]);
        const double d0 = glm::dot(v[0], n), d1 = glm::dot(v[1], n), d2 = glm::dot(v[2], n);
        const double lo = std::min({d0, d1, d2}), hi = std::max({d0, d1, d2});
        if (!(lo <= r && hi >= -r)) return false;
        if constexpr (kContact) {
            const Interval iv = box_vs_interval(r, lo, hi);
            face.consider(iv.overlap / std::sqrt(n2), 3, iv.negative);
        }
    }

    // Axes 4-12: L = A_i x E_j. With CA_m = A_m+1 x A_m+2:
    //   A_i+1 . L = -E_j . CA_i+2,  A_i+2 . L = E_j . CA_i+1;
    //   vertices j and j+1 project to V_j . L = A_i . (E_j x V_j); the third vertex adds A_i . n, because
    //   (V_j+2 - V_j) . (A_i x E_j) = A_i . (E_j+2 x E_j) and E_j+2 x E_j = n for every j.
    dvec3 CA[3], W[3];
    for (int m = 0; m < 3; ++m) {
        CA[m] = glm::cross(a[next1(m)], a[next2(m)]);
        W[m] = glm::cross(E[m], v[m]);
    }
    for (int i = 0; i < 3; ++i) {
        const int i1 = next1(i), i2 = next2(i);
        for (int j = 0; j < 3; ++j) {
            const double len2 = cross_length2(a[i], E[j], GA[i][i], E2[j], glm::dot(a[i], E[j]));
            if (!(len2 > kParallel2 * GA[i][i] * E2[j])) continue;  // edge parallel to the axis, or zero length
            const double r = e[i1] * std::abs(glm::dot(E[j], CA[i2])) + e[i2] * std::abs(glm::dot(E[j], CA[i1]));
            const double q0 = glm::dot(a[i], W[j]);
            const double q1 = q0 + an[i];
            const double lo = std::min(q0, q1), hi = std::max(q0, q1);
            if (!(lo <= r && hi >= -r)) return false;
            if constexpr (kContact) {
                const Interval iv = box_vs_interval(r, lo, hi);
                edge.consider(iv.overlap / std::sqrt(len2), 4 + 3 * i + j, iv.negative);
            }
        }
    }

    if constexpr (kContact) {
        const double size = std::max({e[0], e[1], e[2], 0.5 * std::sqrt(emax2)});
        if (prefer_edge(face, edge, size)) {
            const int i = (edge.axis - 4) / 3, j = (edge.axis - 4) % 3;
            *out = make_contact<T>(edge, glm::cross(a[i], E[j]));
        } else {
            *out = make_contact<T>(face, face.axis < 3 ? a[face.axis] : n);
        }
    }
    return true;
}

}  // namespace

template <class T>
bool overlap(const ObbT<T>& a, const ObbT<T>& b) noexcept {
    return obb_obb<false>(a, b, static_cast<ContactT<T>*>(nullptr));
}

template <class T>
std::optional<ContactT<T>> collide(const ObbT<T>& a, const ObbT<T>& b) noexcept {
    ContactT<T> c;
    if (!obb_obb<true>(a, b, &c)) return std::nullopt;
    return c;
}

template <class T>
bool overlap(const ObbT<T>& box, const TriangleT<T>& tri) noexcept {
    return obb_triangle<false>(box, tri, static_cast<ContactT<T>*>(nullptr));
}

template <class T>
std::optional<ContactT<T>> collide(const ObbT<T>& box, const TriangleT<T>& tri) noexcept {
    ContactT<T> c;
    if (!obb_triangle<true>(box, tri, &c)) return std::nullopt;
    return c;
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
