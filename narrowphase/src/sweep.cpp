// Swept separating-axis tests. See sweep.hpp for the contract and the sources.
//
// Algorithm (both tests), in double relative to the moving box's centre at t = 0:
//   for every candidate axis L (the static test's 15 or 13; parallel-edge axes skipped as in sat.cpp)
//     r      = the moving box's radius on L            sum_k h_k |A_k . L|
//     [lo,hi] = the static shape's projection on L     (centre +- radius for a box, min/max of the vertices)
//     v      = displacement . L
//     the projections overlap at time t  <=>  lo - r <= t v <= hi + r,
//     i.e. for t in [(lo - r) / v, (hi + r) / v] (ends swapped when v < 0), for all t or none when v = 0;
//   time of impact = max over axes of the entries, provided it is <= the min of the exits and lies in [0, 1].
// The axis of the latest entry gives the normal, +L when v > 0 (the box moves along +L into the shape), else -L.
// Face axes are preferred over edge axes whose entry is later only by round-off (a box landing flat). The axes are
// formed, skipped as parallel and tie-broken with the static test's own functions and tolerances (sat_core.hpp,
// sat_bounds.hpp), so the sweep and `collide` agree on which axes exist and which one a tie goes to.

#include <tumble/narrowphase/sweep.hpp>

#include "sat_core.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <tumble/narrowphase/sat.hpp>

namespace tumble {
namespace {

using dvec3 = glm::dvec3;
using detail::kParallel2;
constexpr double kInf = std::numeric_limits<double>::infinity();

// The running intersection of the per-axis time intervals, with the latest entry kept per class of axis.
class TimeWindow {
public:
    // Adds the axis L (unnormalised) on which the static shape projects to [lo, hi] and the moving box has radius r
    // (both relative to the box centre at t = 0) and the displacement projects to v. Returns false as soon as the
    // window is empty (no contact during [0, 1]).
    bool add(double lo, double hi, double r, double v, const dvec3& L, int axis, bool face) {
        const double low = lo - r, high = hi + r;
        if (v == 0.0) return low <= 0.0 && 0.0 <= high;  // never moves on this axis: always or never overlapping
        double enter = low / v, leave = high / v;
        const bool negative = v < 0.0;
        if (negative) std::swap(enter, leave);
        exit_ = std::min(exit_, leave);
        Entry& best = face ? face_ : edge_;
        if (enter > best.time) best = {enter, axis, negative, L};
        return !(exit_ < 0.0) && !(enter > 1.0) && !(std::max(face_.time, edge_.time) > exit_);
    }

    struct Entry {
        double time = -kInf;
        int axis = -1;
        bool negative = false;
        dvec3 L{0.0};
    };
    // The latest entry, a face unless an edge entered later by more than the tie tolerance (in metres of travel):
    // the absolute part of collide()'s face bias (`face_bias_absolute`, sat_bounds.hpp), which grows with the input
    // axes' departure from orthonormality (`axis_error`, see kFaceBiasAxisError), so float boxes landing flat report
    // the face they land on.
    const Entry& latest(double travel, double size, double axis_error) const {
        if (edge_.axis < 0) return face_;
        if (face_.axis < 0) return edge_;
        const double tie = detail::face_bias_absolute(size, axis_error);
        return (edge_.time - face_.time) * travel > tie ? edge_ : face_;
    }
    double enter() const { return std::max(face_.time, edge_.time); }

private:
    Entry face_, edge_;
    double exit_ = kInf;
};

template <class T>
bool finite3(const Vec3T<T>& v) {
    return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}
// Departure of three axes from an orthonormal frame, max |A_k . A_l - delta_kl|, as the static test measures it.
double axis_error(const dvec3 (&axes)[3]) {
    double G[3][3];
    detail::gram(axes, G);
    return detail::gram_error(G);
}

template <class T>
bool finite_box(const ObbT<T>& b) {
    return finite3(b.center) && finite3(b.half_extents) && finite3(b.axes[0]) && finite3(b.axes[1]) &&
           finite3(b.axes[2]);
}

// Result for a hit found by the window; `initial` is collide() at t = 0 when the shapes already overlap.
template <class T>
std::optional<SweepHitT<T>> make_hit(const TimeWindow& w, double travel, double size, double axis_error,
                                     const std::optional<ContactT<T>>& initial) {
    SweepHitT<T> hit;
    if (w.enter() <= 0.0) {
        hit.initially_overlapping = true;
        hit.toi = T(0);
        if (initial) {
            hit.normal = initial->normal;
            hit.axis = initial->axis;
            hit.negative = initial->negative;
            hit.depth = initial->depth;
            return hit;
        }
        // collide() rounded the other way on a touching pair: report the latest entry's axis with depth 0. When no
        // axis entered at all (the motion is zero along every axis, e.g. a zero displacement), there is no such axis
        // and no normal: the pair counts as separated, as collide() has it. (It reported axis -1 and a NaN normal.)
        if (w.latest(travel, size, axis_error).axis < 0) return std::nullopt;
    }
    const TimeWindow::Entry& e = w.latest(travel, size, axis_error);
    const dvec3 unit = e.L / std::sqrt(glm::dot(e.L, e.L));
    hit.toi = static_cast<T>(std::clamp(w.enter(), 0.0, 1.0));
    hit.axis = e.axis;
    hit.negative = e.negative;
    hit.normal = Vec3T<T>(e.negative ? -unit : unit);
    return hit;
}

template <class T>
std::optional<SweepHitT<T>> sweep_obb_obb(const ObbT<T>& boxA, const Vec3T<T>& displacement, const ObbT<T>& boxB) {
    if (!finite_box(boxA) || !finite_box(boxB) || !finite3(displacement)) return std::nullopt;
    dvec3 a[3], b[3];
    double ea[3], eb[3];
    for (int i = 0; i < 3; ++i) {
        a[i] = dvec3(boxA.axes[i]);
        b[i] = dvec3(boxB.axes[i]);
        ea[i] = static_cast<double>(boxA.half_extents[i]);
        eb[i] = static_cast<double>(boxB.half_extents[i]);
    }
    const dvec3 t = dvec3(boxB.center) - dvec3(boxA.center);
    const dvec3 d(displacement);
    auto radius = [](const dvec3 (&axes)[3], const double (&e)[3], const dvec3& L) {
        return e[0] * std::abs(glm::dot(axes[0], L)) + e[1] * std::abs(glm::dot(axes[1], L)) +
               e[2] * std::abs(glm::dot(axes[2], L));
    };
    TimeWindow w;
    auto axis = [&](const dvec3& L, int index, bool face) {
        const double ra = radius(a, ea, L), rb = radius(b, eb, L), s = glm::dot(t, L);
        return w.add(s - rb, s + rb, ra, glm::dot(d, L), L, index, face);
    };
    for (int i = 0; i < 3; ++i)
        if (!axis(a[i], i, true)) return std::nullopt;
    for (int j = 0; j < 3; ++j)
        if (!axis(b[j], 3 + j, true)) return std::nullopt;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const double aa = glm::dot(a[i], a[i]), bb = glm::dot(b[j], b[j]);
            const dvec3 L = detail::cross_robust(a[i], b[j], aa, bb);  // full precision for nearly parallel edges
            if (!(glm::dot(L, L) > kParallel2 * aa * bb)) continue;
            if (!axis(L, 6 + 3 * i + j, false)) return std::nullopt;
        }
    const double size = std::max({ea[0], ea[1], ea[2], eb[0], eb[1], eb[2]});
    std::optional<ContactT<T>> initial;
    if (w.enter() <= 0.0) initial = collide(boxA, boxB);
    return make_hit<T>(w, glm::length(d), size, std::max(axis_error(a), axis_error(b)), initial);
}

template <class T>
std::optional<SweepHitT<T>> sweep_obb_triangle(const ObbT<T>& box, const Vec3T<T>& displacement,
                                               const TriangleT<T>& tri) {
    if (!finite_box(box) || !finite3(displacement) || !finite3(tri.a) || !finite3(tri.b) || !finite3(tri.c))
        return std::nullopt;
    dvec3 a[3];
    double e[3];
    for (int i = 0; i < 3; ++i) {
        a[i] = dvec3(box.axes[i]);
        e[i] = static_cast<double>(box.half_extents[i]);
    }
    const dvec3 c(box.center);
    const dvec3 v[3] = {dvec3(tri.a) - c, dvec3(tri.b) - c, dvec3(tri.c) - c};
    const dvec3 d(displacement);
    TimeWindow w;
    auto axis = [&](const dvec3& L, int index, bool face) {
        const double r = e[0] * std::abs(glm::dot(a[0], L)) + e[1] * std::abs(glm::dot(a[1], L)) +
                         e[2] * std::abs(glm::dot(a[2], L));
        const double p0 = glm::dot(v[0], L), p1 = glm::dot(v[1], L), p2 = glm::dot(v[2], L);
        return w.add(std::min({p0, p1, p2}), std::max({p0, p1, p2}), r, glm::dot(d, L), L, index, face);
    };
    for (int i = 0; i < 3; ++i)
        if (!axis(a[i], i, true)) return std::nullopt;
    const dvec3 E[3] = {v[1] - v[0], v[2] - v[1], v[0] - v[2]};
    const double E2[3] = {glm::dot(E[0], E[0]), glm::dot(E[1], E[1]), glm::dot(E[2], E[2])};
    const double emax2 = std::max({E2[0], E2[1], E2[2]});
    {
        // The normal from the longest edge and its successor, as collide() forms it (full precision for slivers).
        const int j = E2[0] >= E2[1] ? (E2[0] >= E2[2] ? 0 : 2) : (E2[1] >= E2[2] ? 1 : 2);
        const int j1 = (j + 1) % 3;
        const dvec3 n = detail::cross_robust(E[j], E[j1], E2[j], E2[j1]);
        if (glm::dot(n, n) > kParallel2 * E2[j] * E2[j1] && !axis(n, 3, true)) return std::nullopt;
    }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const double aa = glm::dot(a[i], a[i]);
            const dvec3 L = detail::cross_robust(a[i], E[j], aa, E2[j]);
            if (!(glm::dot(L, L) > kParallel2 * aa * E2[j])) continue;
            if (!axis(L, 4 + 3 * i + j, false)) return std::nullopt;
        }
    const double size = std::max({e[0], e[1], e[2], 0.5 * std::sqrt(emax2)});
    std::optional<ContactT<T>> initial;
    if (w.enter() <= 0.0) initial = collide(box, tri);
    return make_hit<T>(w, glm::length(d), size, axis_error(a), initial);
}

}  // namespace

template <class T>
std::optional<SweepHitT<T>> sweep(const ObbT<T>& a, const Vec3T<T>& displacement, const ObbT<T>& b) noexcept {
    return sweep_obb_obb(a, displacement, b);
}

template <class T>
std::optional<SweepHitT<T>> sweep(const ObbT<T>& box, const Vec3T<T>& displacement, const TriangleT<T>& tri) noexcept {
    return sweep_obb_triangle(box, displacement, tri);
}

template std::optional<SweepHitT<float>> sweep<float>(const ObbT<float>&, const Vec3T<float>&,
                                                      const ObbT<float>&) noexcept;
template std::optional<SweepHitT<double>> sweep<double>(const ObbT<double>&, const Vec3T<double>&,
                                                        const ObbT<double>&) noexcept;
template std::optional<SweepHitT<float>> sweep<float>(const ObbT<float>&, const Vec3T<float>&,
                                                      const TriangleT<float>&) noexcept;
template std::optional<SweepHitT<double>> sweep<double>(const ObbT<double>&, const Vec3T<double>&,
                                                        const TriangleT<double>&) noexcept;

}  // namespace tumble
