// The filtered fast path of the separating-axis tests (narrowphase/src/sat_fast.cpp) against the exact core
// (narrowphase/src/sat.cpp), on every seeded family of tests/support/families.hpp, for float and double:
//   - overlap, collide and collide_manifold give the same answer bit for bit (bool; axis, sign, depth and normal
//     bits; every manifold point), also on input poisoned with NaN or infinity, on input the core rescales, on
//     axes far from orthonormal and on negative half extents;
//   - every closed-form edge estimate lies within half its error bound of a long-double evaluation of the overlap
//     it stands for, and so does the core's own evaluation of it (so the two are within the bound of each other);
//   - on random general pairs the fast path is really taken: no full fallback, and few axes evaluated exactly.
//
// The core is checked against an independent reference in narrowphase_sat_test.cpp; here it is the oracle.

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include <gtest/gtest.h>

#include <tumble/narrowphase/manifold.hpp>
#include <tumble/narrowphase/sat.hpp>

#include "support/sat_testing.hpp"  // test-only entry points; internal headers of narrowphase/src
#include "support/families.hpp"
#include "support/test_util.hpp"

namespace {

namespace detail = tumble::detail;
using testutil::Random;

// Cases per family and scalar type: the families are drawn from their own seeds, the first `kCases` of each.
constexpr int kCases = 4000;
constexpr int kRandomGeneralCases = 20000;  // the families the fast-path statistics are asserted on

// --- Bit-for-bit comparison ----------------------------------------------------------------------------------------

template <class T>
auto bits(T x) {
    if constexpr (std::is_same_v<T, float>)
        return std::bit_cast<std::uint32_t>(x);
    else
        return std::bit_cast<std::uint64_t>(x);
}
template <class T>
bool same(T x, T y) {
    return bits(x) == bits(y);
}
template <class T>
bool same(const tumble::Vec3T<T>& x, const tumble::Vec3T<T>& y) {
    return same(x.x, y.x) && same(x.y, y.y) && same(x.z, y.z);
}

template <class T>
std::string show(const std::optional<tumble::ContactT<T>>& c) {
    if (!c) return "none";
    char buf[200];
    std::snprintf(buf, sizeof buf, "axis %d%s depth %a normal (%a, %a, %a)", c->axis, c->negative ? " (-)" : "",
                  double(c->depth), double(c->normal.x), double(c->normal.y), double(c->normal.z));
    return buf;
}

template <class T>
std::string compare(const std::optional<tumble::ContactT<T>>& got, const std::optional<tumble::ContactT<T>>& want) {
    const bool equal = got.has_value() == want.has_value() &&
                       (!got || (got->axis == want->axis && got->negative == want->negative &&
                                 same(got->depth, want->depth) && same(got->normal, want->normal)));
    return equal ? std::string() : "collide: fast " + show(got) + ", exact " + show(want);
}

template <class T>
std::string compare(const std::optional<tumble::ManifoldT<T>>& got, const std::optional<tumble::ManifoldT<T>>& want) {
    if (got.has_value() != want.has_value()) return "collide_manifold: one reports a contact, the other not";
    if (!got) return {};
    const std::string contact = compare<T>(got->contact(), want->contact());
    if (!contact.empty()) return "collide_manifold's " + contact;
    if (got->count != want->count) return "collide_manifold: point counts differ";
    for (int k = 0; k < got->count; ++k) {
        const auto& g = got->points[static_cast<std::size_t>(k)];
        const auto& w = want->points[static_cast<std::size_t>(k)];
        if (!same(g.point_a, w.point_a) || !same(g.point_b, w.point_b) || !same(g.depth, w.depth) || g.id != w.id)
            return "collide_manifold: point " + std::to_string(k) + " differs";
    }
    return {};
}

// --- Long-double reference of the unnormalised edge overlaps -------------------------------------------------------

using LD = long double;
struct V {
    LD x, y, z;
};
V v(const glm::dvec3& a) { return {a.x, a.y, a.z}; }
LD dot(const V& a, const V& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
V cross(const V& a, const V& b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
V sub(const V& a, const V& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }

// Box-box axis 6 + k, L = A_i x B_j as the core forms it: rA + rB - |T.L| in units of |L|. The errors here
// (~1e-19 of the size) are far below the bound's floor (4e-12 of the size).
LD reference_over(const detail::BoxPairD& p, int k) {
    const int i = k / 3, j = k % 3, i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
    const V L = cross(v(p.a[i]), v(p.b[j]));
    const LD ra = LD(p.ea[i1]) * std::abs(dot(v(p.a[i1]), L)) + LD(p.ea[i2]) * std::abs(dot(v(p.a[i2]), L));
    const LD rb = LD(p.eb[j1]) * std::abs(dot(v(p.b[j1]), L)) + LD(p.eb[j2]) * std::abs(dot(v(p.b[j2]), L));
    return ra + rb - std::abs(dot(v(p.t), L));
}
// Box-triangle axis 4 + k, L = A_i x E_j: the smaller of the two overlaps of [-r, r] and the triangle's interval.
LD reference_over(const detail::BoxTriD& p, int k) {
    const int i = k / 3, j = k % 3, i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    const V E = sub(v(p.v[(j + 1) % 3]), v(p.v[j]));
    const V L = cross(v(p.a[i]), E);
    const LD r = LD(p.e[i1]) * std::abs(dot(v(p.a[i1]), L)) + LD(p.e[i2]) * std::abs(dot(v(p.a[i2]), L));
    LD lo = dot(v(p.v[0]), L), hi = lo;
    for (int m = 1; m < 3; ++m) {
        const LD q = dot(v(p.v[m]), L);
        lo = std::min(lo, q);
        hi = std::max(hi, q);
    }
    return std::min(r - lo, r + hi);
}

// The core's own evaluation of edge axis k (nothing when it skips the axis as parallel).
std::optional<double> core_over(const detail::BoxPairD& p, int k) {
    double GA[3][3], GB[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            GA[i][j] = glm::dot(p.a[i], p.a[j]);
            GB[i][j] = glm::dot(p.b[i], p.b[j]);
        }
    const detail::EdgeAxis x = detail::box_edge_axis(p, GA, GB, k / 3, k % 3);
    return x.valid ? std::optional<double>(x.overlap) : std::nullopt;
}
std::optional<double> core_over(const detail::BoxTriD& p, int k) {
    double GA[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) GA[i][j] = glm::dot(p.a[i], p.a[j]);
    const detail::EdgeAxis x = detail::tri_edge_axis(p, GA, detail::tri_edges(p), k / 3, k % 3);
    return x.valid ? std::optional<double>(x.overlap) : std::nullopt;
}

// --- One pair ------------------------------------------------------------------------------------------------------

double per(long count, long cases) { return static_cast<double>(count) / static_cast<double>(cases); }

struct Stats {
    long cases = 0, overlapping = 0;
    long overlap_fallbacks = 0, collide_fallbacks = 0;
    long overlap_exact_axes = 0, collide_exact_axes = 0;
    long collide_any_exact = 0;  // collide calls that evaluated at least one axis exactly
    long face_candidates = 0;
    long estimates = 0;          // pairs whose edge estimates were checked
    LD worst_estimate = 0;       // largest |estimate - reference| / bound
    LD worst_core = 0;           // largest |core's overlap - reference| / bound
};

template <class T, class Shape>
std::string check_pair(const tumble::ObbT<T>& a, const Shape& b, Stats& st) {
    ++st.cases;
    detail::FastTrace to, tc, tm;
    const bool want_overlap = detail::overlap_exact(a, b);
    if (detail::overlap_traced(a, b, &to) != want_overlap) return "overlap_traced differs from the exact core";
    if (tumble::overlap(a, b) != want_overlap) return "overlap differs from the exact core";
    const auto want_contact = detail::collide_exact(a, b);
    std::string e = compare<T>(detail::collide_traced(a, b, &tc), want_contact);
    if (e.empty()) e = compare<T>(tumble::collide(a, b), want_contact);
    if (!e.empty()) return e;
    if (want_overlap != want_contact.has_value()) return "the exact core's overlap and collide disagree";
    const auto want_manifold = detail::collide_manifold_exact(a, b);
    e = compare<T>(detail::collide_manifold_traced(a, b, &tm), want_manifold);
    if (e.empty()) e = compare<T>(tumble::collide_manifold(a, b), want_manifold);
    if (!e.empty()) return e;
    if (tm.full_fallback != tc.full_fallback || tm.exact_axes != tc.exact_axes)
        return "collide and collide_manifold took different paths";

    st.overlapping += want_overlap;
    st.overlap_fallbacks += to.full_fallback;
    st.collide_fallbacks += tc.full_fallback;
    st.overlap_exact_axes += to.exact_axes;
    st.collide_exact_axes += tc.exact_axes;
    st.collide_any_exact += tc.exact_axes > 0;
    st.face_candidates += tc.face_candidates;

    // The closed forms against the long-double overlaps, on the input as the core sees it.
    detail::InputOf<T, Shape> p;
    detail::EdgeEstimates est;
    if (detail::load(a, b, p) && detail::edge_estimates(p, est)) {
        ++st.estimates;
        for (int k = 0; k < 9; ++k) {
            const LD want = reference_over(p, k);
            const LD error = std::abs(LD(est.over[k]) - want);
            st.worst_estimate = std::max(st.worst_estimate, error / LD(est.bound));
            if (!(error <= LD(est.bound) / 2)) {
                char buf[200];
                std::snprintf(buf, sizeof buf, "edge estimate %d: %.17g, reference %.17Lg, bound %.3g", k,
                              est.over[k], want, est.bound);
                return buf;
            }
            // The other half of the bound covers the core's round-off: together, estimate and core's value are
            // within the bound of each other, which is what the fast path's decisions rest on.
            if (const std::optional<double> core = core_over(p, k)) {
                const LD core_error = std::abs(LD(*core) - want);
                st.worst_core = std::max(st.worst_core, core_error / LD(est.bound));
                if (!(core_error <= LD(est.bound) / 2)) {
                    char buf[200];
                    std::snprintf(buf, sizeof buf, "core's overlap on edge %d: %.17g, reference %.17Lg, bound %.3g",
                                  k, *core, want, est.bound);
                    return buf;
                }
            }
        }
    }
    return {};
}

// --- Variations of a family's pair ---------------------------------------------------------------------------------

// The scalars of a pair, in a fixed order (box: centre, axes, half extents; triangle: a, b, c), for poisoning.
template <class T>
int scalar_count(const tumble::ObbT<T>&) { return 15; }
template <class T>
int scalar_count(const tumble::TriangleT<T>&) { return 9; }
template <class T>
T& scalar(tumble::ObbT<T>& o, int k) {
    if (k < 3) return o.center[k];
    if (k < 12) return o.axes[(k - 3) / 3][(k - 3) % 3];
    return o.half_extents[k - 12];
}
template <class T>
T& scalar(tumble::TriangleT<T>& t, int k) {
    tumble::Vec3T<T>* v[3] = {&t.a, &t.b, &t.c};
    return (*v[k / 3])[k % 3];
}

// NaN, +inf or -inf in one random scalar of the pair.
template <class T, class Shape>
void poison(Random& rng, tumble::ObbT<T>& a, Shape& b) {
    const T values[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity()};
    const T value = values[rng.index(3)];
    const int k = rng.index(15 + scalar_count(b));
    if (k < 15)
        scalar(a, k) = value;
    else
        scalar(b, k - 15) = value;
}

// Every axis component moved by a relative 10^U(-9, -3): Gram errors from float-like to beyond the fast path's
// range (1e-4), where the bound's axis terms dominate.
template <class T>
void perturb_axes(Random& rng, tumble::ObbT<T>& o) {
    const double size = testutil::log_uniform(rng, -9, -3);
    tumble::ObbD d = testutil::widen(o);
    for (int i = 0; i < 3; ++i)
        for (int c = 0; c < 3; ++c) d.axes[i][c] += rng.uniform(-size, size);
    o = testutil::narrow<T>(d);
}

// The pair scaled as a whole by 10^U(-e, e) (double: beyond 2^+-200 the core rescales, and the fast path hands over).
template <class T>
void scale(tumble::ObbT<T>& o, T s) {
    o.center *= s;
    o.half_extents *= s;
}
template <class T>
void scale(tumble::TriangleT<T>& t, T s) {
    t.a *= s, t.b *= s, t.c *= s;
}

enum class Variant { plain, poisoned, perturbed_axes, magnitudes, negative_extents };
const char* variant_name(Variant v) {
    switch (v) {
        case Variant::plain: return "";
        case Variant::poisoned: return " +NaN/inf";
        case Variant::perturbed_axes: return " +axes 1e-9..1e-3 off";
        case Variant::magnitudes: return " +scaled";
        case Variant::negative_extents: return " +negative extents";
    }
    return "";
}

template <class T, class Family>
Stats run_family(Variant variant, int count = kCases) {
    Random rng(Family::seed + 7000 + 100 * static_cast<std::uint64_t>(variant));
    Stats st;
    int failures = 0;
    for (int k = 0; k < count && failures < 10; ++k) {
        auto [a, b] = Family::template make<T>(rng);
        switch (variant) {
            case Variant::plain: break;
            case Variant::poisoned: poison(rng, a, b); break;
            case Variant::perturbed_axes:
                perturb_axes(rng, a);
                if constexpr (std::is_same_v<decltype(b), tumble::ObbT<T>>) perturb_axes(rng, b);
                break;
            case Variant::magnitudes: {
                const T s = static_cast<T>(std::pow(10.0, rng.uniform(-1, 1) * (std::is_same_v<T, float> ? 30 : 280)));
                scale(a, s);
                scale(b, s);
                break;
            }
            case Variant::negative_extents:
                a.half_extents[rng.index(3)] *= T(-1);
                if constexpr (std::is_same_v<decltype(b), tumble::ObbT<T>>)
                    if (rng.uniform() < 0.5) b.half_extents[rng.index(3)] *= T(-1);
                break;
        }
        const std::string error = check_pair(a, b, st);
        if (!error.empty()) {
            ++failures;
            ADD_FAILURE() << Family::name << variant_name(variant) << " (" << testutil::scalar_name(T()) << ") case "
                          << k << ": " << error << "\n  A = " << testutil::describe(a)
                          << "\n  B = " << testutil::describe(b);
        }
    }
    std::printf("[ fast     ] %-6s %-58s %5ld pairs (%5ld overlap): full fallback %4ld/%4ld (overlap/collide), "
                "exact axes per call %.4f/%.4f, collide calls with any %.3f, faces evaluated %.2f, errors of the "
                "estimates <= %.2e, of the core <= %.2e of the bound (%ld pairs)\n",
                testutil::scalar_name(T()), (std::string(Family::name) + variant_name(variant)).c_str(), st.cases,
                st.overlapping, st.overlap_fallbacks, st.collide_fallbacks, per(st.overlap_exact_axes, st.cases),
                per(st.collide_exact_axes, st.cases), per(st.collide_any_exact, st.cases),
                per(st.face_candidates, st.cases),
                static_cast<double>(st.worst_estimate), static_cast<double>(st.worst_core), st.estimates);
    return st;
}

// Every family, and every variation on two of them.
template <class T, class... Families>
void run_families() {
    (run_family<T, Families>(Variant::plain), ...);
}

template <class T>
class FastPath : public ::testing::Test {};
TYPED_TEST_SUITE(FastPath, testutil::Scalars, testutil::ScalarNames);

TYPED_TEST(FastPath, BoxBoxFamiliesBitIdentical) {
    run_families<TypeParam, fam::ParallelEdges, fam::ParallelEdgesOneUlpApart, fam::AxisAligned, fam::NestedConcentric,
                 fam::ZeroExtents, fam::FarFromOrigin, fam::NearParallel, fam::TouchFaceFace, fam::TouchFaceEdge,
                 fam::TouchEdgeEdge, fam::TouchVertexFace, fam::ExtremeAspect, fam::Scales>();
}

TYPED_TEST(FastPath, BoxTriangleFamiliesBitIdentical) {
    run_families<TypeParam, fam::TriTinySliver, fam::TriInsidePierced, fam::TriEdgeCrossing, fam::TriFar,
                 fam::TriDegenerate, fam::TriTouchFaceFace, fam::TriTouchFaceEdge, fam::TriTouchEdgeEdge,
                 fam::TriTouchVertexFace, fam::TriNearParallelEdges, fam::TriExtremeAspect, fam::TriScales>();
}

TYPED_TEST(FastPath, OutOfRangeInputBitIdentical) {
    using T = TypeParam;
    for (Variant v : {Variant::poisoned, Variant::perturbed_axes, Variant::magnitudes, Variant::negative_extents}) {
        const Stats st[] = {run_family<T, fam::RandomGeneral>(v), run_family<T, fam::TouchEdgeEdge>(v),
                            run_family<T, fam::TriRandom>(v), run_family<T, fam::TriTouchEdgeEdge>(v)};
        for (const Stats& s : st) {
            if (v == Variant::poisoned) {
                EXPECT_EQ(s.overlapping, 0) << "a NaN or infinity is reported separated";
            }
            if (v == Variant::perturbed_axes) {
                EXPECT_GT(s.overlap_fallbacks, 0) << "axes 1e-3 off go to the core";
            }
            if (v == Variant::magnitudes && std::is_same_v<T, double>) {
                EXPECT_GT(s.overlap_fallbacks, 0) << "input beyond 2^+-200 goes to the core";
            }
        }
    }
}

// On random general pairs the fast path must answer alone nearly always: no full fallback, and few axes evaluated
// exactly. Measured on 20000 pairs, exact axes per call (float and double alike): box-box overlap 0.0000, collide
// 0.145; box-triangle overlap 0.0003, collide 0.353. The limits leave twice that (and a floor for overlap).
constexpr double kMaxOverlapExactAxes = 0.01;
constexpr double kMaxCollideExactAxesBox = 0.3;
constexpr double kMaxCollideExactAxesTriangle = 0.7;

void expect_fast(const Stats& st, double max_collide_axes) {
    EXPECT_EQ(st.overlap_fallbacks, 0);
    EXPECT_EQ(st.collide_fallbacks, 0);
    EXPECT_EQ(st.estimates, st.cases);
    EXPECT_GT(st.overlapping, st.cases / 10);
    EXPECT_LE(per(st.overlap_exact_axes, st.cases), kMaxOverlapExactAxes);
    EXPECT_LE(per(st.collide_exact_axes, st.cases), max_collide_axes);
}

TYPED_TEST(FastPath, RandomGeneralPairsTakeTheFastPath) {
    using T = TypeParam;
    expect_fast(run_family<T, fam::RandomGeneral>(Variant::plain, kRandomGeneralCases), kMaxCollideExactAxesBox);
    expect_fast(run_family<T, fam::TriRandom>(Variant::plain, kRandomGeneralCases), kMaxCollideExactAxesTriangle);
}

// --- Speculative margins ------------------------------------------------------------------------------------------

// The size of a pair as the core measures it: the largest half extent (and half the triangle's longest edge).
template <class T>
double pair_size(const tumble::ObbT<T>& a, const tumble::ObbT<T>& b) {
    double s = 0.0;
    for (int i = 0; i < 3; ++i)
        s = std::max({s, std::abs(double(a.half_extents[i])), std::abs(double(b.half_extents[i]))});
    return s;
}
template <class T>
double pair_size(const tumble::ObbT<T>& a, const tumble::TriangleT<T>& t) {
    double s = 0.0;
    for (int i = 0; i < 3; ++i) s = std::max(s, std::abs(double(a.half_extents[i])));
    const tumble::Vec3T<T> v[3] = {t.a, t.b, t.c};
    for (int j = 0; j < 3; ++j) s = std::max(s, 0.5 * glm::length(glm::dvec3(v[(j + 1) % 3]) - glm::dvec3(v[j])));
    return s;
}

struct MarginStats {
    long cases = 0, fast = 0, overlapping = 0, apart_within = 0, edge_axis = 0, exact_axes = 0;
};

// The fast path with a margin against the core with the same margin (sat(p, out, margin), the speculative
// manifolds' SAT), on the loaded pair: the same answer, and with kContact the same axis, sign, depth and normal bits.
// Margins of 10^U(-6, 0.5) times the pair's size, three per pair: most pairs of a family are then apart by less than
// the margin, overlapping, or apart by more.
template <class T, class Family>
MarginStats run_margins(int count = kCases) {
    Random rng(Family::seed + 9100);
    MarginStats st;
    int failures = 0;
    for (int k = 0; k < count && failures < 10; ++k) {
        const auto [a, b] = Family::template make<T>(rng);
        detail::InputOf<T, std::remove_cv_t<decltype(b)>> p;
        if (!detail::load(a, b, p)) continue;
        for (int r = 0; r < 3; ++r) {
            const double margin =
                detail::unscale(pair_size(a, b) * std::pow(10.0, rng.uniform(-6.0, 0.5)), -p.exponent);
            if (!(std::isfinite(margin) && margin > 0.0)) continue;
            ++st.cases;
            detail::SatAxis got, want;
            detail::FastTrace trace;
            const int fast = detail::sat_fast<true, true>(p, &got, &trace, margin);
            const bool fast_overlap = detail::sat_fast<false, true>(p, nullptr, nullptr, margin) == 1;
            const bool exact = detail::sat<true>(p, &want, margin);
            const bool exact_overlap = detail::sat<false>(p, nullptr, margin);
            std::string error;
            if (exact != exact_overlap) error = "the core's contact and boolean tests disagree";
            if (fast >= 0) {
                ++st.fast;
                st.exact_axes += trace.exact_axes;
                if ((fast == 1) != exact) error = "fast: " + std::to_string(fast) + ", exact: " + std::to_string(exact);
                if (fast_overlap != exact_overlap) error = "boolean: fast and exact disagree";
                if (fast == 1 && exact &&
                    (got.axis != want.axis || got.negative != want.negative || !same(got.depth, want.depth) ||
                     !same(got.normal.x, want.normal.x) || !same(got.normal.y, want.normal.y) ||
                     !same(got.normal.z, want.normal.z))) {
                    char buf[300];
                    std::snprintf(buf, sizeof buf, "contact: fast axis %d%s depth %a, exact axis %d%s depth %a",
                                  got.axis, got.negative ? "-" : "", got.depth, want.axis, want.negative ? "-" : "",
                                  want.depth);
                    error = buf;
                }
            }
            if (exact) {
                ++st.overlapping;
                if (want.depth < 0.0) ++st.apart_within;
                if (want.axis >= (std::is_same_v<std::remove_cv_t<decltype(b)>, tumble::ObbT<T>> ? 6 : 4))
                    ++st.edge_axis;
            }
            if (!error.empty()) {
                ++failures;
                ADD_FAILURE() << Family::name << " (" << testutil::scalar_name(T()) << ") case " << k << " margin "
                              << margin << ": " << error << "\n  A = " << testutil::describe(a)
                              << "\n  B = " << testutil::describe(b);
            }
        }
    }
    std::printf(
        "[ margin   ] %-6s %-34s %6ld tests: fast %6ld, within the margin %6ld (apart %5ld, edge axis %5ld), "
        "exact axes per fast call %.3f\n",
        testutil::scalar_name(T()), Family::name, st.cases, st.fast, st.overlapping, st.apart_within, st.edge_axis,
        per(st.exact_axes, st.fast));
    return st;
}

TYPED_TEST(FastPath, SpeculativeMarginsBitIdentical) {
    using T = TypeParam;
    const MarginStats stats[] = {run_margins<T, fam::RandomGeneral>(),    run_margins<T, fam::TouchFaceFace>(),
                                 run_margins<T, fam::TouchFaceEdge>(),    run_margins<T, fam::TouchEdgeEdge>(),
                                 run_margins<T, fam::NearParallel>(),     run_margins<T, fam::ParallelEdges>(),
                                 run_margins<T, fam::ExtremeAspect>(),    run_margins<T, fam::TriRandom>(),
                                 run_margins<T, fam::TriTouchFaceFace>(), run_margins<T, fam::TriTouchFaceEdge>(),
                                 run_margins<T, fam::TriTouchEdgeEdge>(), run_margins<T, fam::TriNearParallelEdges>(),
                                 run_margins<T, fam::TriFar>(),           run_margins<T, fam::TriDegenerate>()};
    MarginStats all;
    for (const MarginStats& s : stats) {
        all.cases += s.cases;
        all.fast += s.fast;
        all.apart_within += s.apart_within;
        all.edge_axis += s.edge_axis;
    }
    // The comparisons must cover what the margin changes: pairs apart by less than it, and edge axes chosen.
    EXPECT_GT(all.apart_within, all.cases / 20);
    EXPECT_GT(all.edge_axis, 100);
    EXPECT_GT(all.fast, all.cases * 9 / 10) << "the fast path answers nearly every call";
}

// The near-parallel pair that the float test of Gomez (Gamasutra 1999) misses (edges 3e-8 rad from parallel, B
// centred 362 m away; tests/narrowphase_seed_test.cpp) and its separated variant.
TEST(FastPath, NearParallelEdgesPairBitIdentical) {
    constexpr float e = 2.980232e-08f;
    const tumble::Obb a{{0.0f, 0.0f, 0.0f}, glm::mat3(1.0f), {0.5f, 0.5f, 0.5f}};
    tumble::Obb b{{8.792448e-27f, -3.507065e+00f, 3.621201e+02f},
                  glm::mat3(glm::vec3(0.0f, e, 1.0f), glm::vec3(1.0f, 0.0f, e), glm::vec3(e, 1.0f, 0.0f)),
                  {5.000000e+02f, 5.000000e+01f, 2.000000e+02f}};
    Stats st;
    EXPECT_EQ(check_pair(a, b, st), "");
    EXPECT_EQ(st.overlapping, 1);
    b.axes = glm::transpose(b.axes);
    EXPECT_EQ(check_pair(a, b, st), "");
    EXPECT_EQ(check_pair(testutil::widen(a), testutil::widen(b), st), "");
}

}  // namespace
