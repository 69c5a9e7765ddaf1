#pragma once
// Internal to the narrowphase (not installed): the error bounds and tolerances of the separating-axis tests, in one
// place for the four evaluations that share them:
//   - the exact core (sat.cpp, sat_core.hpp): every axis formed and projected in double for the shapes as given;
//   - the filtered fast path (sat_fast.cpp): closed-form edge axes with a rigorous bound, the core where it cannot
//     decide; bit-identical to the core;
//   - the batch SIMD filter (batch.cpp): float closed forms with a bound of its own, the scalar test behind it;
//     bit-identical to the scalar `overlap` / `collide`;
//   - the swept test (sweep.cpp): the same axes and face preference, over time.
// The contract tolerances that users see (kParallelEpsilon, the face bias, kSpeculativeFaceBias) are public, in
// tumble/narrowphase/sat.hpp; what is here derives from them or bounds the round-off of one evaluation.
//
// Notation: u = 2^-53 the unit round-off of double, u_f = 2^-24 that of float (round to nearest: each operation's
// result is within u |result| of the exact one; Higham, "Accuracy and Stability of Numerical Algorithms", 2002,
// section 2.2). delta = max |A_k . A_l - delta_kl| (`gram_error`, sat_core.hpp) is how far a box's axes are from
// orthonormal; S the size of a pair (its half extents and the distance of the centres, as each bound states).
// The closed forms are those of Gottschalk, Lin and Manocha ("OBBTree: A Hierarchical Structure for Rapid
// Interference Detection", SIGGRAPH 1996; Gottschalk's thesis, "Collision Queries using Oriented Bounding Boxes", UNC
// Chapel Hill, 2000) and Ericson (Real-Time Collision Detection, 2005, section 4.4.1 for OBB-OBB, 5.2.9 for the
// box-triangle axes); the separating-axis test itself and its degenerate (parallel-edge) axes are Ericson's
// section 5.2.1.

#include <algorithm>
#include <cmath>

#include <tumble/narrowphase/sat.hpp>

namespace tumble::detail {

// ---------------------------------------------------------------------------------------------------------------
// Shared by all four.

// Unit round-off of double and of float.
inline constexpr double kDoubleUnitRoundoff = 0x1p-53;
inline constexpr float kFloatUnitRoundoff = 0x1p-24f;

// Edge axes, and the triangle normal, with |L|^2 below kParallel2 |u|^2 |v|^2 are skipped as parallel
// (kParallelEpsilon, sat.hpp, says why 1e-12). Every evaluation compares squares, so the square is the constant.
inline constexpr double kParallel2 = kParallelEpsilon * kParallelEpsilon;

// `cross_robust` (sat_core.hpp) keeps the plain cross product when |L|^2 >= kCancellation2 |u|^2 |v|^2, i.e. when the
// edges are at least ~0.1 rad from parallel. Each component of the plain product u x v is a difference of two
// rounded products: its absolute error is at most ~2 u |u| |v| whatever |L| is (the cancellation that makes
// Ericson 2005, section 4.4.1, add an epsilon to |R| for nearly parallel edges), so |L| has a relative error of at
// most 2 u / sin(angle) <= 20 u there: full precision up to a small factor. Below it the product is recomputed
// without cancellation (Veltkamp's split, exact), which costs more.
inline constexpr double kCancellation2 = 1e-2;

// Double input whose magnitudes (half extents, centre differences, vertices relative to the box) all lie within
// (kRescaleMin, kRescaleMax) is evaluated as given; other double input is first multiplied by a power of two, exactly
// (the exact core's `load`), and the fast path declines it. The largest quantities the core forms are of degree 4
// in lengths (the triangle normal's |n|^2 ~ edge^4, and kParallel2 E2 E2 against it): inside 2^-+200 they stay
// within 2^-+800, in double's normal range (2^-1022 .. 2^1024) with a margin, so nothing overflows and nothing
// loses relative precision to subnormals. Float input always lies inside.
inline constexpr double kRescaleMin = 0x1p-200;
inline constexpr double kRescaleMax = 0x1p200;
[[gnu::always_inline]] inline bool within_unscaled_range(double largest) noexcept {
    return largest > kRescaleMin && largest < kRescaleMax;
}

// The face bias (sat.hpp: kFaceBiasRelative, kFaceBiasAbsolute, kFaceBiasAxisError), shared so that the core, the
// fast path and the sweep prefer a face over an edge alike. Its absolute part, in the units of `size`: the largest
// difference round-off and the input axes' departure from orthonormality (axis_error = delta of the pair) make
// between an edge axis and the face normal it coincides with (~3 axis_error size, measured), with a margin.
[[gnu::always_inline]] inline double face_bias_absolute(double size, double axis_error) noexcept {
    return (kFaceBiasAbsolute + kFaceBiasAxisError * axis_error) * size;
}
// An edge axis wins over the best face axis when its depth is below this. The relative part scales with
// |face_depth|: for shapes apart by up to a speculative margin the depths are negative, and a bias of the other sign
// would hand ties between a face axis and an edge axis along the same direction to the edge.
[[gnu::always_inline]] inline double face_threshold(double face_depth, double size, double axis_error) noexcept {
    const double bias = kFaceBiasRelative * std::abs(face_depth) + face_bias_absolute(size, axis_error);
    return face_depth - bias;
}

// ---------------------------------------------------------------------------------------------------------------
// The filtered fast path (sat_fast.cpp).
//
// The bound of its closed-form edge overlaps. Write a box as A = Q (I + F) (polar decomposition), Q orthonormal:
// A^T A = I + G with max |G_kl| = delta, so |F| <= 3 delta =: eta per box, and every axis lies within eta of Q's.
// The closed forms (with R = A^T B and T in A's frame) are exact for Q; replacing Q by A moves each radius
// coefficient, a triple product of axes, by at most 3 eta and T . L by at most 5 eta |T| (eta summed over both
// boxes), to first order. Rounding the closed forms adds a few u, and the core's own evaluation is within ~14 u of
// the exact value (relative to the size). The bound is twice the sum of both, so that the estimate and the core's
// value each have half of it (tests/narrowphase_fast_test.cpp checks both halves against long double on every
// family: measured, at most 0.04 and 1e-4 of the bound).
//
// Floors: an axis the core skips as parallel has |L| < kParallelEpsilon |u| |v|, so its overlap is at most
// (sum |e| + |T|_1) kParallelEpsilon for two boxes (unit axes), and at most 2 kParallelEpsilon (sum |e| V + V^2) for a
// box and a triangle (|E_j| <= 2 V, vertices within V of the box centre, 1-norm). Each coefficient of the bound is
// kept at least twice that, so that an estimate below -bound (exact overlap below -bound / 2) is never on an axis the
// core skips: the filter never calls "separated" what the core would not test.
inline constexpr double kBoxEdgeFloor = 4.0 * kParallelEpsilon;
inline constexpr double kTriEdgeFloorExtent = 5.0 * kParallelEpsilon;
inline constexpr double kTriEdgeFloorReach = 10.0 * kParallelEpsilon;
static_assert(kBoxEdgeFloor == 4e-12 && kTriEdgeFloorExtent == 5e-12 && kTriEdgeFloorReach == 1e-11,
              "the floors are the values the fast path was measured with");

// Box-box, for Gram errors dA, dB, half extents summing to `extents` (sum |e| over both boxes) and centres `offset`
// apart (|T|_1): (6.1 eta + 44 u) extents + (10.1 eta + 82 u) offset, eta = 3 (dA + dB) + 19 u (the 19 u: rounding
// of the Gram matrices themselves).
[[gnu::always_inline]] inline double box_edge_bound(double extents, double offset, double dA, double dB) noexcept {
    constexpr double u = kDoubleUnitRoundoff;
    const double eta = 3.0 * (dA + dB) + 19.0 * u;
    const double ce = std::max(6.1 * eta + 44.0 * u, kBoxEdgeFloor);
    const double ct = std::max(10.1 * eta + 82.0 * u, kBoxEdgeFloor);
    return extents * ce + offset * ct;
}

// Box-triangle, for a box with Gram error dA, extents Se = sum |e_k| and vertices within V (1-norm) of its centre:
// (12.6 eta + 83 u) Se V + (21.4 eta + 228 u) V^2, eta = 3 dA + 10 u. The closed forms scale with |E_j| <= 2 V, hence
// the V factors and the larger coefficients.
[[gnu::always_inline]] inline double tri_edge_bound(double dA, double Se, double V) noexcept {
    constexpr double u = kDoubleUnitRoundoff;
    const double eta = 3.0 * dA + 10.0 * u;
    const double c1 = std::max(12.6 * eta + 83.0 * u, kTriEdgeFloorExtent);
    const double c2 = std::max(21.4 * eta + 228.0 * u, kTriEdgeFloorReach);
    return Se * V * c1 + V * V * c2;
}

// The fast path runs only for boxes whose axes are within this of orthonormal (delta); beyond it the exact core runs,
// which costs time and never changes a bit. It differs on purpose from the batch filter's kBatchMaxAxisError (1e-3,
// below): the bound above is first order in eta (the terms of order eta^2 are dropped, covered by the factor two),
// and 1e-4 is where it has been checked against long double (the tests move axes by up to 1e-3 and compare every
// estimate where the fast path runs). Everything the engine builds lies far inside: float rotation matrices have
// delta ~1e-7.
inline constexpr double kFastPathMaxAxisError = 1e-4;

// Depths below this are never excluded by the fast path's relative comparisons: near the bottom of the double range
// round-off is no longer relative (subnormals), so such faces and edges are evaluated exactly.
inline constexpr double kFastTinyDepth = 0x1p-960;
inline constexpr double kFastTinySquare = 0x1p-1000;
// The squared comparison that rules edges out, (estimate - bound)^2 >= threshold^2 |L|^2, is made with these pads: its
// handful of roundings (a few u) is covered by 2^-40 with a wide margin.
inline constexpr double kSquarePadLow = 1.0 - 0x1p-40;
inline constexpr double kSquarePadHigh = 1.0 + 0x1p-40;

// ---------------------------------------------------------------------------------------------------------------
// The batch SIMD filter (batch.cpp). Its bound is derived in docs/batch.md ("The bound"):
//     |F - X| <= E = (kBatchRoundOff u_f + kBatchAxisErrorFactor g) S + kBatchUnderflowSlack,
// F the float closed form of an axis, X the scalar test's double value, g a per-box bound on delta (rounded up to
// float when the box is stored), S = sum e_A + sum e_B + |t|_1.

// Round-off: the closed forms are within 25 u_f S of exact on an edge axis and 9 u_f S on a face axis (term-by-term
// gamma_n bounds). 36 leaves 11 u_f S (6.6e-7 S) for the scalar test's own double round-off (~1e-15 S) and for the
// largest overlap an axis the scalar test skips as parallel can have (|L| < kParallelEpsilon: |X| < 1.01e-12 S), so
// that a decided sign is the scalar test's sign on an axis it really tests.
inline constexpr float kBatchRoundOff = 36.0f;
// Axes not orthonormal: a cross product of two of three axes within g of orthonormal is within 3.2 g of the third
// (for g <= kBatchMaxAxisError), which moves every closed form by at most 4.1 g S; 4.5 covers it.
inline constexpr float kBatchAxisErrorFactor = 4.5f;
// Boxes further than this from orthonormal (delta) are left to the scalar test (the 3.2 g above needs g small). It
// differs on purpose from kFastPathMaxAxisError: this bound carries the axis error as an explicit term, derived for
// g up to 1e-3 (the order of the engine's own tolerance, kOrthonormalTolerance in validate.hpp), so the filter keeps
// taking boxes whose axes are off by more than the fast path accepts.
inline constexpr double kBatchMaxAxisError = 1e-3;
// Absolute slack for underflow (flush-to-zero included: ~30 operations of at most 2^-126 each).
inline constexpr float kBatchUnderflowSlack = 1e-36f;
// Lanes whose magnitudes could overflow float in the closed forms are left to the scalar test.
inline constexpr float kBatchMaxMagnitude = 1e36f;
// collide certifies a contact in float only for pairs at least this large (S, metres): below it, products of the
// pair's values underflow and the relative bounds of the contact's intervals no longer hold.
inline constexpr float kBatchMinContactMagnitude = 0x1p-40f;
// The face bias in float, for the batch's intervals on the contact axis (which widen every term by 16 u_f, so that
// rounding these constants to float is covered).
inline constexpr float kBatchFaceBiasRelative = static_cast<float>(kFaceBiasRelative);
inline constexpr float kBatchFaceBiasAbsolute = static_cast<float>(kFaceBiasAbsolute);
inline constexpr float kBatchFaceBiasAxisError = static_cast<float>(kFaceBiasAxisError);
static_assert(kBatchFaceBiasRelative == 1e-10f && kBatchFaceBiasAbsolute == 1e-12f && kBatchFaceBiasAxisError == 8.0f,
              "the float face bias is the one the batch filter was certified with");

}  // namespace tumble::detail
