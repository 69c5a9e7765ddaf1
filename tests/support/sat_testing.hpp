#pragma once
// Test-only entry points into the narrowphase's separating-axis tests (library tumble_test_support, tests/CMakeLists;
// never installed, never part of tumble::tumble). They are built from the internal pieces the public functions use
// (narrowphase/src/sat_core.hpp), so what they return is what `overlap`, `collide` and `collide_manifold` compute:
//   - *_traced: the public path (the filtered fast path, the exact core where it cannot answer), also reporting in
//     `trace` what the fast path did (full fallback, axes evaluated exactly; `trace` may be null);
//   - *_exact: the exact core alone (sat.cpp), the oracle the fast path must reproduce bit for bit;
//   - edge_estimates: the fast path's closed-form estimates of the nine edge axes and their error bound
//     (sat_bounds.hpp), for checking against long double.
// Shapes, frames, units and bad input are those of sat.hpp and manifold.hpp: world frame, metres; NaN or infinite
// input gives "separated" (false, nothing). Shape is ObbT<T> or TriangleT<T>, T float or double.

#include <optional>

#include <tumble/narrowphase/manifold.hpp>
#include <tumble/narrowphase/sat.hpp>
#include <tumble/narrowphase/shapes.hpp>

#include "sat_core.hpp"  // internal: narrowphase/src

namespace tumble::detail {

/// `overlap(a, b)`, with the fast path's trace.
template <class T, class Shape>
bool overlap_traced(const ObbT<T>& a, const Shape& b, FastTrace* trace) noexcept;
/// `collide(a, b)`, with the fast path's trace.
template <class T, class Shape>
std::optional<ContactT<T>> collide_traced(const ObbT<T>& a, const Shape& b, FastTrace* trace) noexcept;
/// `collide_manifold(a, b)`, with the fast path's trace.
template <class T, class Shape>
std::optional<ManifoldT<T>> collide_manifold_traced(const ObbT<T>& a, const Shape& b, FastTrace* trace) noexcept;

/// What `overlap(a, b)` returns, from the exact core alone.
template <class T, class Shape>
bool overlap_exact(const ObbT<T>& a, const Shape& b) noexcept;
/// What `collide(a, b)` returns, from the exact core alone.
template <class T, class Shape>
std::optional<ContactT<T>> collide_exact(const ObbT<T>& a, const Shape& b) noexcept;
/// What `collide_manifold(a, b)` returns, from the exact core alone.
template <class T, class Shape>
std::optional<ManifoldT<T>> collide_manifold_exact(const ObbT<T>& a, const Shape& b) noexcept;

/// The closed-form estimates of the edge axes that the fast path decides with, and their error bound: every estimate
/// is within bound / 2 of the exact overlap it stands for (units of |L|, scaled like the loaded input).
struct EdgeEstimates {
    double over[9];  ///< box-box: axes 6-14; box-triangle: axes 4-12 (the smaller of the two overlaps)
    double bound;
};
/// Fills `out` for input loaded by `load`; false when the fast path would not run on it (axes further than
/// kFastPathMaxAxisError from orthonormal, an infinite length).
bool edge_estimates(const BoxPairD& p, EdgeEstimates& out) noexcept;
bool edge_estimates(const BoxTriD& p, EdgeEstimates& out) noexcept;

}  // namespace tumble::detail
