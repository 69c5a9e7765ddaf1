// Test-only entry points of the separating-axis tests (sat_testing.hpp), built from the narrowphase's internal pieces
// exactly as the public functions are (narrowphase/src/sat_fast.cpp, manifold.cpp).

#include "sat_testing.hpp"

#include <cmath>
#include <limits>

namespace tumble::detail {

template <class T, class Shape>
bool overlap_traced(const ObbT<T>& a, const Shape& b, FastTrace* trace) noexcept {
    InputOf<T, Shape> p;
    return load_and_sat<false>(a, b, p, nullptr, trace);
}

template <class T, class Shape>
std::optional<ContactT<T>> collide_traced(const ObbT<T>& a, const Shape& b, FastTrace* trace) noexcept {
    InputOf<T, Shape> p;
    SatAxis s;
    if (!load_and_sat<true>(a, b, p, &s, trace)) return std::nullopt;
    return to_contact<T>(s, p.exponent);
}

template <class T, class Shape>
std::optional<ManifoldT<T>> collide_manifold_traced(const ObbT<T>& a, const Shape& b, FastTrace* trace) noexcept {
    InputOf<T, Shape> p;
    SatAxis s;
    if (!load_and_sat<true>(a, b, p, &s, trace)) return std::nullopt;
    return manifold_on_axis<T, Shape>(a, p, s);
}

template <class T, class Shape>
bool overlap_exact(const ObbT<T>& a, const Shape& b) noexcept {
    InputOf<T, Shape> p;
    return load(a, b, p) && sat<false>(p, nullptr);
}

template <class T, class Shape>
std::optional<ContactT<T>> collide_exact(const ObbT<T>& a, const Shape& b) noexcept {
    InputOf<T, Shape> p;
    SatAxis s;
    if (!(load(a, b, p) && sat<true>(p, &s))) return std::nullopt;
    return to_contact<T>(s, p.exponent);
}

template <class T, class Shape>
std::optional<ManifoldT<T>> collide_manifold_exact(const ObbT<T>& a, const Shape& b) noexcept {
    InputOf<T, Shape> p;
    SatAxis s;
    if (!(load(a, b, p) && sat<true>(p, &s))) return std::nullopt;
    return manifold_on_axis<T, Shape>(a, p, s);
}

#define TUMBLE_SAT_TESTING(T, Shape)                                                                              \
    template bool overlap_traced<T, Shape>(const ObbT<T>&, const Shape&, FastTrace*) noexcept;                    \
    template std::optional<ContactT<T>> collide_traced<T, Shape>(const ObbT<T>&, const Shape&, FastTrace*) noexcept; \
    template std::optional<ManifoldT<T>> collide_manifold_traced<T, Shape>(const ObbT<T>&, const Shape&,          \
                                                                           FastTrace*) noexcept;                  \
    template bool overlap_exact<T, Shape>(const ObbT<T>&, const Shape&) noexcept;                                 \
    template std::optional<ContactT<T>> collide_exact<T, Shape>(const ObbT<T>&, const Shape&) noexcept;           \
    template std::optional<ManifoldT<T>> collide_manifold_exact<T, Shape>(const ObbT<T>&, const Shape&) noexcept;
TUMBLE_SAT_TESTING(float, ObbT<float>)
TUMBLE_SAT_TESTING(double, ObbT<double>)
TUMBLE_SAT_TESTING(float, TriangleT<float>)
TUMBLE_SAT_TESTING(double, TriangleT<double>)
#undef TUMBLE_SAT_TESTING

// The estimates as sat_fast computes them (the same closed forms and bounds, sat_core.hpp and sat_bounds.hpp).

bool edge_estimates(const BoxPairD& p, EdgeEstimates& out) noexcept {
    double R[3][3], GA[3][3], GB[3][3], ta[3];
    gram(p.a, GA);
    gram(p.b, GB);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) R[i][j] = glm::dot(p.a[i], p.b[j]);
        ta[i] = glm::dot(p.t, p.a[i]);
    }
    const double dA = gram_error(GA), dB = gram_error(GB);
    if (!(dA <= kFastPathMaxAxisError && dB <= kFastPathMaxAxisError)) return false;
    out.bound = box_edge_bound(p, dA, dB);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) out.over[3 * i + j] = box_edge_closed(p, R, ta, i, j);
    return out.bound < std::numeric_limits<double>::infinity();
}

bool edge_estimates(const BoxTriD& p, EdgeEstimates& out) noexcept {
    double GA[3][3], P[3][3], Ep[3][3];
    gram(p.a, GA);
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) P[i][k] = glm::dot(p.v[k], p.a[i]);
    const double dA = gram_error(GA);
    if (!(dA <= kFastPathMaxAxisError)) return false;
    bool finite;
    const double V = vertex_reach(p, finite);
    out.bound = tri_edge_bound(dA, std::abs(p.e[0]) + std::abs(p.e[1]) + std::abs(p.e[2]), V);
    tri_frame_edges(P, Ep);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) out.over[3 * i + j] = tri_edge_closed(p.e, P, Ep, i, j);
    return finite && out.bound < std::numeric_limits<double>::infinity();
}

}  // namespace tumble::detail
