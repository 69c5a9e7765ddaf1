#pragma once
// Internal to the narrowphase (not installed): the separating-axis core shared by overlap(), collide() and
// collide_manifold(), so that the manifold uses exactly the axis, sign and depth that collide() reports.
//
// Both shapes are brought to double, relative to the first box's centre. Double input whose magnitudes lie outside
// [2^-200, 2^200] is also multiplied by a power of two (`exponent`), which is exact and keeps the fourth powers that
// the triangle test forms (|n|^2 ~ edge^4) from overflowing or underflowing; float input never needs it.

#include <glm/glm.hpp>

#include <tumble/narrowphase/shapes.hpp>

namespace tumble::detail {

using dvec3 = glm::dvec3;

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
};

// Converts the input; false when any value is NaN or infinite (or the centre difference overflows).
template <class T>
bool load(const ObbT<T>& a, const ObbT<T>& b, BoxPairD& out) noexcept;
template <class T>
bool load(const ObbT<T>& box, const TriangleT<T>& tri, BoxTriD& out) noexcept;

// The separating-axis tests. False when some axis separates the shapes. With kContact, *out gets the contact axis.
template <bool kContact>
bool sat(const BoxPairD& p, SatAxis* out) noexcept;
template <bool kContact>
bool sat(const BoxTriD& p, SatAxis* out) noexcept;

// Back from the scaled frame to metres (exact: a power of two).
double unscale(double x, int exponent) noexcept;

// The public contact for a SAT result.
template <class T>
ContactT<T> to_contact(const SatAxis& s, int exponent) noexcept;

// u x v to full relative precision, also when u and v are nearly parallel (see sat.cpp).
dvec3 cross_robust(const dvec3& u, const dvec3& v, double uu, double vv) noexcept;

}  // namespace tumble::detail
