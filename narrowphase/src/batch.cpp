// Batch OBB-OBB tests (batch.hpp): a float SIMD filter with a rigorous error bound, compiled for every x86 target by
// Highway (this file is included once per target by hwy/foreach_target.h), and the scalar tests for what the filter
// leaves undecided. The bound is derived in docs/batch.md; the constants below are named after the terms there.
//
// Notation: a_i, b_j the boxes' axes as given (float, not quite orthonormal), e the half extents, t = B.c - A.c,
// R_ij = a_i . b_j, TA_i = t . a_i, TB_j = t . b_j. On axis k the scalar test evaluates (in double, to ~1e-16)
//     X_k = rA + rB - |t . L|   with L the axis as numbered (L = a_i x b_j for the edges),
// and reports separated iff some X_k < 0 on an axis it does not skip as parallel. The filter evaluates the
// Gottschalk closed forms F_k in float; |F_k - X_k| <= E for one per-lane bound
//     E = (kBatchRoundOff u + kBatchAxisErrorFactor g) S + kBatchUnderflowSlack,   S = sum e_A + sum e_B + |t|_1,
// where u = 2^-24 and g bounds both boxes' max |a_k . a_l - delta_kl|. F_k < -E on some axis proves "separated",
// F_k > E on all fifteen proves "overlapping"; otherwise the scalar test decides. The constants, with those of the
// scalar tests they must agree with (the face bias, the parallel-edge skip), are in sat_bounds.hpp.

#include <tumble/core/error.hpp>
#include <tumble/narrowphase/batch.hpp>
#include <tumble/narrowphase/sat.hpp>

#include "sat_bounds.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/batch.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target

#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <string>

#ifndef TUMBLE_NARROWPHASE_BATCH_CONSTANTS
#define TUMBLE_NARROWPHASE_BATCH_CONSTANTS
namespace tumble::batch_detail {

// Status of a pair after the filter.
constexpr std::uint8_t kSeparated = 0;
constexpr std::uint8_t kOverlapping = 1;
constexpr std::uint8_t kUndecided = 2;

// The bound's constants (docs/batch.md, "The bound"; derived in sat_bounds.hpp).
using detail::kBatchAxisErrorFactor;
using detail::kBatchFaceBiasAbsolute;
using detail::kBatchFaceBiasAxisError;
using detail::kBatchFaceBiasRelative;
using detail::kBatchMaxAxisError;
using detail::kBatchMaxMagnitude;
using detail::kBatchMinContactMagnitude;
using detail::kBatchRoundOff;
using detail::kBatchUnderflowSlack;
constexpr float kUnitRoundOff = detail::kFloatUnitRoundoff;

// The kernels index small arrays of vectors with loop counters: fully unrolled, they stay in registers (GCC does not
// unroll them completely at -O2 on its own, and spills).
#if defined(__clang__)
#define TUMBLE_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define TUMBLE_UNROLL _Pragma("GCC unroll 16")
#else
#define TUMBLE_UNROLL
#endif

struct Counts {
    std::size_t separated = 0;
    std::size_t overlapping = 0;
};

// Per-lane results of CollidePairs: float arrays of the block's size rounded up to 16 lanes.
struct ContactLanes {
    float* status;    // kSeparated, kOverlapping (the contact below is certified), kUndecided
    float* axis;
    float* negative;  // 0 or 1
    float* depth;
    float* normal[3];
};

}  // namespace tumble::batch_detail
#endif

// ---------------------------------------------------------------------------------------------------------------
// Per-target code.

HWY_BEFORE_NAMESPACE();
namespace tumble::batch_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One vector of pairs, loaded, with the filter's closed forms. A[f] and B[f] point at field f of the first lane.
template <class D>
struct Lanes {
    using V = hn::Vec<D>;
    V a[3][3], b[3][3], ea[3], eb[3], t[3];
    V g;           // bound on both boxes' axis error
    V R[3][3];     // a_i . b_j
    V AR[3][3];    // |R|
    V TA[3];       // t . a_i
    V F[15];       // the closed form of every axis, numbered as in collide (edges: after edges())
    V E, S;        // the error bound and the magnitude it scales with
    hn::Mask<D> valid;

    HWY_INLINE Lanes(D d, const float* HWY_RESTRICT const* A, const float* HWY_RESTRICT const* B) {
        TUMBLE_UNROLL
        for (int i = 0; i < 3; ++i) {
            TUMBLE_UNROLL
            for (int k = 0; k < 3; ++k) {
                a[i][k] = hn::Load(d, A[ObbBatch::kAxis00 + 3 * i + k]);
                b[i][k] = hn::Load(d, B[ObbBatch::kAxis00 + 3 * i + k]);
            }
            ea[i] = hn::Load(d, A[ObbBatch::kHalfX + i]);
            eb[i] = hn::Load(d, B[ObbBatch::kHalfX + i]);
            t[i] = hn::Sub(hn::Load(d, B[ObbBatch::kCenterX + i]), hn::Load(d, A[ObbBatch::kCenterX + i]));
        }
        g = hn::Max(hn::Load(d, A[ObbBatch::kAxisError]), hn::Load(d, B[ObbBatch::kAxisError]));

        auto dot = [](const V* u, const V* v) {
            return hn::MulAdd(u[2], v[2], hn::MulAdd(u[1], v[1], hn::Mul(u[0], v[0])));
        };
        V TB[3];
        TUMBLE_UNROLL
        for (int i = 0; i < 3; ++i)
            TUMBLE_UNROLL
            for (int j = 0; j < 3; ++j) {
                R[i][j] = dot(a[i], b[j]);
                AR[i][j] = hn::Abs(R[i][j]);
            }
        TUMBLE_UNROLL
        for (int i = 0; i < 3; ++i) {
            TA[i] = dot(t, a[i]);
            TB[i] = dot(t, b[i]);
        }
        const V sum_a = hn::Add(hn::Add(ea[0], ea[1]), ea[2]);
        const V sum_b = hn::Add(hn::Add(eb[0], eb[1]), eb[2]);
        const V sum_t = hn::Add(hn::Add(hn::Abs(t[0]), hn::Abs(t[1])), hn::Abs(t[2]));
        S = hn::Add(hn::Add(sum_a, sum_b), sum_t);
        E = hn::MulAdd(hn::MulAdd(hn::Set(d, kBatchAxisErrorFactor), g, hn::Set(d, kBatchRoundOff * kUnitRoundOff)),
                       S, hn::Set(d, kBatchUnderflowSlack));
        // A box the filter must not judge has g = +inf (non-finite value, negative extent, axes far from
        // orthonormal); NaN or overflow elsewhere makes S NaN or huge. Such lanes stay undecided.
        valid = hn::And(hn::Lt(S, hn::Set(d, kBatchMaxMagnitude)), hn::Lt(g, hn::Set(d, 1.0f)));

        // Axes 0-2: rA = e_A,i (the actual axes: sum_k e_A,k |a_k . a_i|, within g sum e_A).
        TUMBLE_UNROLL
        for (int i = 0; i < 3; ++i) {
            const V rb = hn::MulAdd(eb[2], AR[i][2], hn::MulAdd(eb[1], AR[i][1], hn::Mul(eb[0], AR[i][0])));
            F[i] = hn::Sub(hn::Add(ea[i], rb), hn::Abs(TA[i]));
        }
        // Axes 3-5.
        TUMBLE_UNROLL
        for (int j = 0; j < 3; ++j) {
            const V ra = hn::MulAdd(ea[2], AR[2][j], hn::MulAdd(ea[1], AR[1][j], hn::Mul(ea[0], AR[0][j])));
            F[3 + j] = hn::Sub(hn::Add(ra, eb[j]), hn::Abs(TB[j]));
        }
    }

    HWY_INLINE void edges() {
        // Axes 6-14, L = a_i x b_j: |a_i1 . L| = |R_i2,j|, |b_j1 . L| = |R_i,j2|, t . L = TA_i2 R_i1,j - TA_i1 R_i2,j
        // (up to the sign of A's handedness, which |t . L| does not see).
        TUMBLE_UNROLL
        for (int i = 0; i < 3; ++i) {
            const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
            TUMBLE_UNROLL
            for (int j = 0; j < 3; ++j) {
                const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
                const V ra = hn::MulAdd(ea[i2], AR[i1][j], hn::Mul(ea[i1], AR[i2][j]));
                const V rb = hn::MulAdd(eb[j2], AR[i][j1], hn::Mul(eb[j1], AR[i][j2]));
                const V tl = hn::NegMulAdd(TA[i1], R[i2][j], hn::Mul(TA[i2], R[i1][j]));
                F[6 + 3 * i + j] = hn::Sub(hn::Add(ra, rb), hn::Abs(tl));
            }
        }
    }

    // F < -E on some axis: separated. F > E on every axis: overlapping. Computes the edge axes unless a face axis
    // already separates every lane and `need_edges` is false.
    HWY_INLINE void classify(D d, hn::Mask<D>& separated, hn::Mask<D>& overlapping, bool need_edges) {
        V least = F[0];
        TUMBLE_UNROLL
        for (int k = 1; k < 6; ++k) least = hn::Min(least, F[k]);
        const V minus_e = hn::Neg(E);
        if (!need_edges) {
            separated = hn::And(valid, hn::Lt(least, minus_e));
            if (hn::AllTrue(d, separated)) {
                overlapping = hn::Not(separated);  // all false
                return;
            }
        }
        edges();
        TUMBLE_UNROLL
        for (int k = 6; k < 15; ++k) least = hn::Min(least, F[k]);
        separated = hn::And(valid, hn::Lt(least, minus_e));
        overlapping = hn::And(valid, hn::Gt(least, E));
    }
};

template <class D>
HWY_INLINE void store_status(D d, const hn::Mask<D>& separated, const hn::Mask<D>& overlapping, std::size_t count,
                             std::uint8_t* HWY_RESTRICT status, Counts& counts) {
    const hn::Rebind<std::int32_t, D> di;
    const hn::Rebind<std::uint8_t, D> du8;
    const auto code = hn::IfThenElse(hn::RebindMask(di, overlapping), hn::Set(di, kOverlapping),
                                     hn::IfThenElse(hn::RebindMask(di, separated), hn::Set(di, kSeparated),
                                                    hn::Set(di, kUndecided)));
    const auto bytes = hn::DemoteTo(du8, code);
    if (count >= hn::Lanes(d)) {
        hn::StoreU(bytes, du8, status);
    } else {
        std::uint8_t tail[HWY_MAX_BYTES / sizeof(float)];
        hn::StoreU(bytes, du8, tail);
        for (std::size_t k = 0; k < count; ++k) status[k] = tail[k];
    }
    const auto in_range = hn::FirstN(d, count);
    counts.separated += hn::CountTrue(d, hn::And(separated, in_range));
    counts.overlapping += hn::CountTrue(d, hn::And(overlapping, in_range));
}

// Pairs (A[i], B[i]) for i < count; A[f], B[f] are the field arrays (aligned, padded to a multiple of 16 lanes).
Counts ClassifyPairs(const float* const* A, const float* const* B, std::size_t count, std::uint8_t* status) {
    using DF = hn::ScalableTag<float>;
    const DF d;
    const std::size_t N = hn::Lanes(d);
    Counts counts;
    const float* a[ObbBatch::kFieldCount];
    const float* b[ObbBatch::kFieldCount];
    for (std::size_t i = 0; i < count; i += N) {
        TUMBLE_UNROLL
        for (int f = 0; f < ObbBatch::kFieldCount; ++f) {
            a[f] = A[f] + i;
            b[f] = B[f] + i;
        }
        hn::Mask<DF> separated, overlapping;
        Lanes<DF>(d, a, b).classify(d, separated, overlapping, false);
        store_status(d, separated, overlapping, count - i < N ? count - i : N, status + i, counts);
    }
    return counts;
}

// Pairs (boxes[first[i]], boxes[second[i]]): each block of ObbBatch::kLanes pairs is gathered into aligned arrays.
Counts ClassifyIndexed(const float* const* boxes, const std::uint32_t* first, const std::uint32_t* second,
                       std::size_t count, std::uint8_t* status) {
    using DF = hn::ScalableTag<float>;
    const DF d;
    const std::size_t N = hn::Lanes(d);
    constexpr std::size_t kBlock = ObbBatch::kLanes;
    alignas(64) float ga[ObbBatch::kFieldCount][kBlock];
    alignas(64) float gb[ObbBatch::kFieldCount][kBlock];
    Counts counts;
    const float* a[ObbBatch::kFieldCount];
    const float* b[ObbBatch::kFieldCount];
    for (std::size_t begin = 0; begin < count; begin += kBlock) {
        const std::size_t n = count - begin < kBlock ? count - begin : kBlock;
        for (std::size_t lane = 0; lane < kBlock; ++lane) {
            const std::size_t k = begin + (lane < n ? lane : n - 1);  // unused lanes repeat the last pair
            const std::uint32_t ia = first[k], ib = second[k];
            TUMBLE_UNROLL
            for (int f = 0; f < ObbBatch::kFieldCount; ++f) {
                ga[f][lane] = boxes[f][ia];
                gb[f][lane] = boxes[f][ib];
            }
        }
        for (std::size_t v = 0; v < n; v += N) {
            TUMBLE_UNROLL
            for (int f = 0; f < ObbBatch::kFieldCount; ++f) {
                a[f] = ga[f] + v;
                b[f] = gb[f] + v;
            }
            hn::Mask<DF> separated, overlapping;
            Lanes<DF>(d, a, b).classify(d, separated, overlapping, false);
            store_status(d, separated, overlapping, n - v < N ? n - v : N, status + begin + v, counts);
        }
    }
    return counts;
}

// --- collide: the contact of overlapping lanes ------------------------------------------------------------------
//
// Stage 1 (float, from the filter's values): which axis the scalar collide reports, certified with intervals around
// every axis's depth. Stage 2 (double, that axis only): the sign, the depth and the normal, each certified to round
// to the same float as the scalar collide's value (docs/batch.md, "collide").

template <class D>
struct AxisChoice {
    hn::Vec<D> axis;     // 0-14, as a float
    hn::Mask<D> certain;
};

template <class D>
HWY_INLINE AxisChoice<D> choose_axis(D d, const Lanes<D>& p) {
    using V = hn::Vec<D>;
    const V u = hn::Set(d, kUnitRoundOff);
    const V one = hn::Set(d, 1.0f);
    const V inf = hn::Set(d, std::numeric_limits<float>::infinity());
    auto up = [&](float k) { return hn::MulAdd(hn::Set(d, k), u, one); };     // 1 + k u
    auto down = [&](float k) { return hn::NegMulAdd(hn::Set(d, k), u, one); };  // 1 - k u

    // Faces: d = X / |a_i|, X in [F - E, F + E], |a_i|^2 in [1 - g, 1 + g].
    const V kf = hn::MulAdd(hn::Set(d, 16.0f), u, p.g);
    const V fdown = hn::Sub(one, kf), fup = hn::Add(one, kf);
    V lo[6], hi[6];
    TUMBLE_UNROLL
    for (int k = 0; k < 6; ++k) {
        lo[k] = hn::Mul(hn::Sub(p.F[k], p.E), fdown);
        hi[k] = hn::Mul(hn::Add(p.F[k], p.E), fup);
    }
    V face_best = p.F[0], face_axis = hn::Zero(d), face_hi = hi[0], face_lo_min = lo[0], face_hi_min = hi[0];
    TUMBLE_UNROLL
    for (int k = 1; k < 6; ++k) {
        const auto m = hn::Lt(p.F[k], face_best);  // strict: the first of equal depths, as the scalar test
        face_best = hn::IfThenElse(m, p.F[k], face_best);
        face_axis = hn::IfThenElse(m, hn::Set(d, static_cast<float>(k)), face_axis);
        face_hi = hn::IfThenElse(m, hi[k], face_hi);
        face_lo_min = hn::Min(face_lo_min, lo[k]);
        face_hi_min = hn::Min(face_hi_min, hi[k]);
    }
    V face_count = hn::Zero(d);  // faces that could be the least: must be the winner alone
    TUMBLE_UNROLL
    for (int k = 0; k < 6; ++k) face_count = hn::Add(face_count, hn::IfThenElseZero(hn::Le(lo[k], face_hi), one));

    // Edges, squared: d^2 = X^2 / |L|^2 with |L|^2 within delta of R_i1,j^2 + R_i2,j^2.
    const V delta = hn::MulAdd(hn::Set(d, 4.2f), p.g, hn::Mul(hn::Set(d, 16.0f), u));
    V lo2[9], hi2[9], est[9];
    TUMBLE_UNROLL
    for (int i = 0; i < 3; ++i) {
        const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        TUMBLE_UNROLL
        for (int j = 0; j < 3; ++j) {
            const int e = 3 * i + j;
            const V l2 = hn::MulAdd(p.R[i1][j], p.R[i1][j], hn::Mul(p.R[i2][j], p.R[i2][j]));
            const V q = hn::Div(one, l2);
            const V x = hn::Mul(hn::Mul(delta, q), up(4.0f));  // >= delta / l2
            const V q_lo = hn::Max(hn::Mul(hn::Mul(q, hn::Sub(one, x)), down(32.0f)), hn::Zero(d));
            const V q_hi = hn::IfThenElse(hn::Le(x, hn::Set(d, 0.5f)),
                                          hn::Mul(hn::Mul(q, hn::MulAdd(hn::Set(d, 2.0f), x, one)), up(32.0f)), inf);
            const V fm = hn::Sub(p.F[6 + e], p.E), fp = hn::Add(p.F[6 + e], p.E);
            lo2[e] = hn::Mul(hn::Mul(fm, fm), q_lo);
            hi2[e] = hn::Mul(hn::Mul(fp, fp), q_hi);
            est[e] = hn::Mul(hn::Mul(p.F[6 + e], p.F[6 + e]), q);
        }
    }
    V edge_best = est[0], edge_axis = hn::Set(d, 6.0f), edge_hi2 = hi2[0], edge_lo2_min = lo2[0], edge_hi2_min = hi2[0];
    TUMBLE_UNROLL
    for (int e = 1; e < 9; ++e) {
        const auto m = hn::Lt(est[e], edge_best);
        edge_best = hn::IfThenElse(m, est[e], edge_best);
        edge_axis = hn::IfThenElse(m, hn::Set(d, static_cast<float>(6 + e)), edge_axis);
        edge_hi2 = hn::IfThenElse(m, hi2[e], edge_hi2);
        edge_lo2_min = hn::Min(edge_lo2_min, lo2[e]);
        edge_hi2_min = hn::Min(edge_hi2_min, hi2[e]);
    }
    V edge_count = hn::Zero(d);
    TUMBLE_UNROLL
    for (int e = 0; e < 9; ++e) edge_count = hn::Add(edge_count, hn::IfThenElseZero(hn::Le(lo2[e], edge_hi2), one));

    // Face bias (sat.hpp, in float: sat_bounds.hpp): the edge wins iff
    // d_edge < d_face - (1e-10 d_face + (1e-12 + 8 axis_error) size), with axis_error in [g (1 - 2^-20) - 2^-47, g]
    // (g is its bound rounded up, docs/batch.md).
    const V size = hn::Max(hn::Max(hn::Max(p.ea[0], p.ea[1]), hn::Max(p.ea[2], p.eb[0])), hn::Max(p.eb[1], p.eb[2]));
    const V ae_lo = hn::Max(hn::Sub(hn::Mul(p.g, hn::Set(d, 1.0f - 0x1p-20f)), hn::Set(d, 0x1p-47f)), hn::Zero(d));
    auto bias = [&](const V& depth, const V& ae) {
        return hn::MulAdd(hn::Set(d, kBatchFaceBiasRelative), depth,
                          hn::Mul(hn::MulAdd(hn::Set(d, kBatchFaceBiasAxisError), ae, hn::Set(d, kBatchFaceBiasAbsolute)),
                                  size));
    };
    const V th_lo = hn::Sub(hn::Mul(face_lo_min, down(8.0f)), hn::Mul(bias(face_hi_min, p.g), up(16.0f)));
    const V th_hi = hn::Sub(hn::Mul(face_hi_min, up(8.0f)), hn::Mul(bias(face_lo_min, ae_lo), down(16.0f)));
    const auto edge_wins = hn::And(hn::Gt(th_lo, hn::Zero(d)),
                                   hn::Lt(hn::Mul(edge_hi2_min, up(4.0f)), hn::Mul(hn::Mul(th_lo, th_lo), down(4.0f))));
    const auto face_wins = hn::Or(hn::Le(th_hi, hn::Zero(d)),
                                  hn::Gt(hn::Mul(edge_lo2_min, down(4.0f)), hn::Mul(hn::Mul(th_hi, th_hi), up(4.0f))));
    AxisChoice<D> out;
    out.axis = hn::IfThenElse(edge_wins, edge_axis, face_axis);
    out.certain = hn::Or(hn::And(edge_wins, hn::Eq(edge_count, one)), hn::And(face_wins, hn::Eq(face_count, one)));
    // Pairs this small are the scalar test's: the float intervals assume relative round-off, which products of their
    // values lose to underflow (found by fuzz_narrowphase: boxes of 5e-22 m, an edge chosen where collide() reports
    // a face of half its depth).
    out.certain = hn::And(out.certain, hn::Ge(p.S, hn::Set(d, kBatchMinContactMagnitude)));
    return out;
}


// Stage 2 for the lanes [lane0, lane0 + Lanes(dd)) of a float vector whose first lane is pair `base`: A[f], B[f]
// point at that vector's first lane; sel holds stage 1's choice per lane of the vector (kind: 0 a face of A, 1 a
// face of B, 2 an edge; i, j: which axes). Writes the contact of these lanes to `out` at base + lane0 and 1 or 0 to
// certain[lane0 + k]: whether the contact is certified to be the scalar collide's.
template <class DD>
HWY_INLINE void contact_on_axis(DD dd, const float* HWY_RESTRICT const* A, const float* HWY_RESTRICT const* B,
                                std::size_t lane0, const float* const* sel, const ContactLanes& out, std::size_t base,
                                float* certain_out) {
    using VD = hn::Vec<DD>;
    const hn::Rebind<float, DD> dh;  // as many floats as doubles
    using VH = hn::Vec<decltype(dh)>;
    auto load = [&](const float* p) { return hn::PromoteTo(dd, hn::LoadU(dh, p + lane0)); };
    VD a[3][3], b[3][3], ea[3], eb[3], t[3];
    TUMBLE_UNROLL
    for (int i = 0; i < 3; ++i) {
        TUMBLE_UNROLL
        for (int k = 0; k < 3; ++k) {
            a[i][k] = load(A[ObbBatch::kAxis00 + 3 * i + k]);
            b[i][k] = load(B[ObbBatch::kAxis00 + 3 * i + k]);
        }
        ea[i] = load(A[ObbBatch::kHalfX + i]);
        eb[i] = load(B[ObbBatch::kHalfX + i]);
        t[i] = hn::Sub(load(B[ObbBatch::kCenterX + i]), load(A[ObbBatch::kCenterX + i]));
    }
    const VD kind = load(sel[0]), ui = load(sel[1]), vj = load(sel[2]);
    const auto face_a = hn::Eq(kind, hn::Zero(dd)), face_b = hn::Eq(kind, hn::Set(dd, 1.0));
    const auto i_is0 = hn::Eq(ui, hn::Zero(dd)), i_is1 = hn::Eq(ui, hn::Set(dd, 1.0));
    const auto j_is0 = hn::Eq(vj, hn::Zero(dd)), j_is1 = hn::Eq(vj, hn::Set(dd, 1.0));
    // L = a_i (faces of A), b_j (faces of B) or a_i x b_j.
    VD L[3];
    {
        VD uu[3], vv[3];
        TUMBLE_UNROLL
        for (int c = 0; c < 3; ++c) {
            uu[c] = hn::IfThenElse(i_is0, a[0][c], hn::IfThenElse(i_is1, a[1][c], a[2][c]));
            vv[c] = hn::IfThenElse(j_is0, b[0][c], hn::IfThenElse(j_is1, b[1][c], b[2][c]));
        }
        // Products of floats are exact in double: each component is the exact cross product rounded once.
        const VD cross[3] = {hn::Sub(hn::Mul(uu[1], vv[2]), hn::Mul(uu[2], vv[1])),
                             hn::Sub(hn::Mul(uu[2], vv[0]), hn::Mul(uu[0], vv[2])),
                             hn::Sub(hn::Mul(uu[0], vv[1]), hn::Mul(uu[1], vv[0]))};
        TUMBLE_UNROLL
        for (int c = 0; c < 3; ++c) L[c] = hn::IfThenElse(face_a, uu[c], hn::IfThenElse(face_b, vv[c], cross[c]));
    }
    auto dot = [](const VD* x, const VD* y) { return hn::MulAdd(x[2], y[2], hn::MulAdd(x[1], y[1], hn::Mul(x[0], y[0]))); };
    // The scalar test's formula on every axis: rA + rB - |t . L| with rA = sum_k e_A,k |a_k . L| (a_i . L = 0 for an
    // edge up to the rounding of L, inside the bound), depth = that / |L|.
    VD over = hn::Zero(dd);
    TUMBLE_UNROLL
    for (int k = 0; k < 3; ++k) {
        over = hn::MulAdd(ea[k], hn::Abs(dot(a[k], L)), over);
        over = hn::MulAdd(eb[k], hn::Abs(dot(b[k], L)), over);
    }
    const VD tl = dot(t, L);
    over = hn::Sub(over, hn::Abs(tl));
    const VD len = hn::Sqrt(dot(L, L));
    const VD inv_len = hn::Div(hn::Set(dd, 1.0), len);
    const VD depth = hn::Mul(over, inv_len);

    // Error bounds against the scalar collide's double values (docs/batch.md).
    const VD zero = hn::Zero(dd);
    const VD tau = hn::Add(hn::Add(hn::Abs(t[0]), hn::Abs(t[1])), hn::Abs(t[2]));
    const VD S = hn::Add(hn::Add(hn::Add(hn::Add(ea[0], ea[1]), ea[2]), hn::Add(hn::Add(eb[0], eb[1]), eb[2])), tau);
    const VD e_depth = hn::MulAdd(hn::Set(dd, 0x1p-44), S, hn::Mul(hn::Set(dd, 0x1p-49), hn::Abs(depth)));
    const VD e_sign = hn::Mul(hn::Mul(hn::Set(dd, 0x1p-44), tau), len);
    const VD e_normal_abs = hn::IfThenElseZero(hn::Eq(kind, hn::Set(dd, 2.0)), hn::Set(dd, 0x1p-44));
    const auto negative = hn::Lt(tl, zero);
    const VD sign = hn::IfThenElse(negative, hn::Set(dd, -1.0), hn::Set(dd, 1.0));

    // A value is certified when both ends of its interval round to the same float; that float is then the scalar's.
    const VH one_h = hn::Set(dh, 1.0f);
    auto flag = [&](const auto& mask) { return hn::Eq(hn::DemoteTo(dh, hn::IfThenElseZero(mask, hn::Set(dd, 1.0))), one_h); };
    auto certain = flag(hn::Gt(hn::Abs(tl), e_sign));
    const VH depth_lo = hn::DemoteTo(dh, hn::Max(hn::Sub(depth, e_depth), zero));
    certain = hn::And(certain, hn::Eq(depth_lo, hn::DemoteTo(dh, hn::Max(hn::Add(depth, e_depth), zero))));
    VH normal[3];
    TUMBLE_UNROLL
    for (int c = 0; c < 3; ++c) {
        const VD n = hn::Mul(hn::Mul(L[c], inv_len), sign);
        const VD e = hn::MulAdd(hn::Set(dd, 0x1p-47), hn::Abs(n), e_normal_abs);
        normal[c] = hn::DemoteTo(dh, hn::Sub(n, e));  // x - 0 keeps the sign of a zero (faces: e = 0 for n = 0)
        certain = hn::And(certain, hn::Eq(normal[c], hn::DemoteTo(dh, hn::Add(n, e))));
    }
    const std::size_t at = base + lane0;
    hn::StoreU(depth_lo, dh, out.depth + at);
    TUMBLE_UNROLL
    for (int c = 0; c < 3; ++c) hn::StoreU(normal[c], dh, out.normal[c] + at);
    hn::StoreU(hn::DemoteTo(dh, hn::IfThenElseZero(negative, hn::Set(dd, 1.0))), dh, out.negative + at);
    hn::StoreU(hn::IfThenElseZero(certain, one_h), dh, certain_out + lane0);
}

// Pairs (A[i], B[i]), i < count: status (0 separated, 1 contact certified, 2 undecided), and for status 1 the
// contact. The arrays of `out` hold `count` rounded up to a multiple of 16.
Counts CollidePairs(const float* const* A, const float* const* B, std::size_t count, const ContactLanes& out) {
    using DF = hn::ScalableTag<float>;
    const DF d;
    const hn::ScalableTag<double> dd;
    const hn::Rebind<float, decltype(dd)> dh;
    const std::size_t N = hn::Lanes(d), ND = hn::Lanes(dd);
    using V = hn::Vec<DF>;
    Counts counts;
    const float* a[ObbBatch::kFieldCount];
    const float* b[ObbBatch::kFieldCount];
    HWY_ALIGN float kind[HWY_MAX_BYTES / sizeof(float)], ui[HWY_MAX_BYTES / sizeof(float)],
        vj[HWY_MAX_BYTES / sizeof(float)], first[HWY_MAX_BYTES / sizeof(float)], second[HWY_MAX_BYTES / sizeof(float)];
    const float* sel[3] = {kind, ui, vj};
    const V two = hn::Set(d, 2.0f), one = hn::Set(d, 1.0f);
    for (std::size_t i = 0; i < count; i += N) {
        for (int f = 0; f < ObbBatch::kFieldCount; ++f) {
            a[f] = A[f] + i;
            b[f] = B[f] + i;
        }
        Lanes<DF> p(d, a, b);
        hn::Mask<DF> separated, overlapping;
        p.classify(d, separated, overlapping, false);  // edges are computed whenever a lane may overlap
        const auto in_range = hn::FirstN(d, count - i);
        counts.separated += hn::CountTrue(d, hn::And(separated, in_range));
        const V undecided_or_separated = hn::IfThenZeroElse(separated, two);
        if (hn::AllFalse(d, overlapping)) {
            hn::Store(undecided_or_separated, d, out.status + i);
            continue;
        }
        const AxisChoice<DF> choice = choose_axis(d, p);
        const auto certain = hn::And(overlapping, choice.certain);
        if (hn::AllFalse(d, certain)) {
            hn::Store(undecided_or_separated, d, out.status + i);
            continue;
        }
        // The chosen axis as (kind, i, j): faces of A are 0-2, faces of B 3-5, edges 6 + 3 i + j.
        const V axis = choice.axis;
        const V edge = hn::Sub(axis, hn::Set(d, 6.0f));
        const auto is_face_a = hn::Lt(axis, hn::Set(d, 2.5f)), is_edge = hn::Gt(axis, hn::Set(d, 5.5f));
        const V edge_i = hn::Add(hn::IfThenElseZero(hn::Gt(edge, hn::Set(d, 2.5f)), one),
                                 hn::IfThenElseZero(hn::Gt(edge, hn::Set(d, 5.5f)), one));
        hn::Store(hn::IfThenElse(is_face_a, hn::Zero(d), hn::IfThenElse(is_edge, two, one)), d, kind);
        hn::Store(hn::IfThenElse(is_edge, edge_i, axis), d, ui);
        hn::Store(hn::IfThenElse(is_edge, hn::NegMulAdd(edge_i, hn::Set(d, 3.0f), edge), hn::Sub(axis, hn::Set(d, 3.0f))),
                  d, vj);
        hn::Store(axis, d, out.axis + i);
        hn::Store(hn::IfThenElseZero(certain, one), d, first);
        for (std::size_t lane0 = 0; lane0 < N && i + lane0 < count; lane0 += ND) {
            if (hn::AllFalse(dh, hn::Eq(hn::LoadU(dh, first + lane0), hn::Set(dh, 1.0f)))) {
                hn::StoreU(hn::Zero(dh), dh, second + lane0);
                continue;
            }
            contact_on_axis(dd, a, b, lane0, sel, out, i, second);
        }
        const auto contact = hn::And(certain, hn::Eq(hn::Load(d, second), one));
        counts.overlapping += hn::CountTrue(d, hn::And(contact, in_range));
        hn::Store(hn::IfThenElse(contact, one, undecided_or_separated), d, out.status + i);
    }
    return counts;
}

std::int64_t TargetBits() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace tumble::batch_detail
HWY_AFTER_NAMESPACE();

// ---------------------------------------------------------------------------------------------------------------
// Target-independent code, compiled once.

#if HWY_ONCE

namespace tumble {
namespace batch_detail {

HWY_EXPORT(ClassifyPairs);
HWY_EXPORT(ClassifyIndexed);
HWY_EXPORT(CollidePairs);
HWY_EXPORT(TargetBits);

// An upper bound on max |a_k . a_l - delta_kl| for the box's axes, or +inf when the filter must not be used for this
// box (a non-finite value, a negative half extent, axes further than kBatchMaxAxisError from orthonormal). The dot
// products of float components are formed in double: products exact, two roundings of at most 2^-53 |a_k| |a_l|.
float axis_error_bound(const Obb& box) {
    const float inf = std::numeric_limits<float>::infinity();
    for (int i = 0; i < 3; ++i) {
        if (!(box.half_extents[i] >= 0.0f) || !std::isfinite(box.half_extents[i]) || !std::isfinite(box.center[i]))
            return inf;
        for (int k = 0; k < 3; ++k)
            if (!std::isfinite(box.axes[i][k])) return inf;
    }
    double worst = 0.0;
    for (int k = 0; k < 3; ++k)
        for (int l = k; l < 3; ++l) {
            double dot = 0.0;
            for (int c = 0; c < 3; ++c) dot += static_cast<double>(box.axes[k][c]) * static_cast<double>(box.axes[l][c]);
            worst = std::max(worst, std::abs(dot - (k == l ? 1.0 : 0.0)));
        }
    if (!(worst <= kBatchMaxAxisError)) return inf;
    // + 2^-50 covers the double round-off; rounding to float may go down by half an ulp, so step one ulp up.
    return std::nextafter(static_cast<float>(worst + 0x1p-50), inf);
}

std::string size_message(const char* function, std::size_t a, std::size_t b, std::size_t results) {
    return std::string(function) + ": the spans must have the same size, got " + std::to_string(a) + ", " +
           std::to_string(b) + " and " + std::to_string(results) + " results";
}

void fields(const ObbBatch& batch, const float* (&out)[ObbBatch::kFieldCount]) {
    for (int f = 0; f < ObbBatch::kFieldCount; ++f) out[f] = batch.data(static_cast<ObbBatch::Field>(f));
}

// Scalar pass over the pairs the filter left undecided; fills stats.
template <class Finish>
void finish_undecided(std::uint8_t* status, std::size_t count, const Counts& counts, BatchStats* stats,
                      const Finish& finish) {
    std::size_t undecided = 0;
    for (std::size_t i = 0; i < count; ++i)
        if (status[i] == kUndecided) {
            status[i] = finish(i) ? 1 : 0;
            ++undecided;
        }
    if (stats) {
        stats->pairs += count;
        stats->simd_separated += counts.separated;
        stats->simd_overlapping += counts.overlapping;
        stats->scalar += undecided;
    }
}

}  // namespace batch_detail

// --- ObbBatch ---------------------------------------------------------------------------------------------------

void ObbBatch::Free::operator()(float* p) const noexcept { ::operator delete[](p, std::align_val_t{64}); }

ObbBatch::ObbBatch(std::span<const Obb> boxes) {
    reserve(boxes.size());
    for (const Obb& b : boxes) push_back(b);
}

ObbBatch::ObbBatch(const ObbBatch& other) : size_(0), capacity_(0) {
    if (other.capacity_ == 0) return;
    reallocate(other.capacity_);
    std::memcpy(storage_.get(), other.storage_.get(), sizeof(float) * kFieldCount * capacity_);
    size_ = other.size_;
}

ObbBatch& ObbBatch::operator=(const ObbBatch& other) {
    if (this != &other) {
        ObbBatch copy(other);
        *this = std::move(copy);
    }
    return *this;
}

ObbBatch::ObbBatch(ObbBatch&& other) noexcept
    : storage_(std::move(other.storage_)), size_(other.size_), capacity_(other.capacity_) {
    other.size_ = other.capacity_ = 0;
}

ObbBatch& ObbBatch::operator=(ObbBatch&& other) noexcept {
    storage_ = std::move(other.storage_);
    size_ = other.size_;
    capacity_ = other.capacity_;
    other.size_ = other.capacity_ = 0;
    return *this;
}

void ObbBatch::reallocate(std::size_t capacity) {
    // Every lane of the new arrays holds a valid default box; the old boxes are copied over.
    std::unique_ptr<float[], Free> next(
        static_cast<float*>(::operator new[](sizeof(float) * kFieldCount * capacity, std::align_val_t{64})));
    const Obb fill{};
    const float fill_error = batch_detail::axis_error_bound(fill);
    for (std::size_t i = 0; i < capacity; ++i) {
        float* base = next.get();
        for (int k = 0; k < 3; ++k) {
            base[(kCenterX + k) * capacity + i] = fill.center[k];
            base[(kHalfX + k) * capacity + i] = fill.half_extents[k];
            for (int c = 0; c < 3; ++c) base[(kAxis00 + 3 * k + c) * capacity + i] = fill.axes[k][c];
        }
        base[kAxisError * capacity + i] = fill_error;
    }
    for (int f = 0; f < kFieldCount; ++f)
        if (size_ > 0) std::memcpy(next.get() + f * capacity, field(f), sizeof(float) * size_);
    storage_ = std::move(next);
    capacity_ = capacity;
}

void ObbBatch::reserve(std::size_t n) {
    if (n <= capacity_) return;
    const std::size_t grown = std::max(n, capacity_ + capacity_ / 2);
    reallocate((grown + kLanes - 1) / kLanes * kLanes);
}

void ObbBatch::clear() noexcept {
    // Padding must stay valid boxes: reset the lanes in use to the default box.
    const Obb fill{};
    for (std::size_t i = 0; i < size_; ++i) store(i, fill);
    size_ = 0;
}

void ObbBatch::resize(std::size_t n) {
    if (n > size_) {
        reserve(n);  // new lanes already hold default boxes
    } else {
        const Obb fill{};
        for (std::size_t i = n; i < size_; ++i) store(i, fill);
    }
    size_ = n;
}

void ObbBatch::push_back(const Obb& box) {
    if (size_ == capacity_) reserve(size_ + 1);
    store(size_, box);
    ++size_;
}

void ObbBatch::set(std::size_t i, const Obb& box) {
    if (i >= size_)
        throw InvalidArgument("ObbBatch::set: index " + std::to_string(i) + " is out of range (size " +
                              std::to_string(size_) + ")");
    store(i, box);
}

Obb ObbBatch::get(std::size_t i) const {
    if (i >= size_)
        throw InvalidArgument("ObbBatch::get: index " + std::to_string(i) + " is out of range (size " +
                              std::to_string(size_) + ")");
    Obb box;
    for (int k = 0; k < 3; ++k) {
        box.center[k] = data(static_cast<Field>(kCenterX + k))[i];
        box.half_extents[k] = data(static_cast<Field>(kHalfX + k))[i];
        for (int c = 0; c < 3; ++c) box.axes[k][c] = data(static_cast<Field>(kAxis00 + 3 * k + c))[i];
    }
    return box;
}

void ObbBatch::store(std::size_t i, const Obb& box) noexcept {
    for (int k = 0; k < 3; ++k) {
        field(kCenterX + k)[i] = box.center[k];
        field(kHalfX + k)[i] = box.half_extents[k];
        for (int c = 0; c < 3; ++c) field(kAxis00 + 3 * k + c)[i] = box.axes[k][c];
    }
    field(kAxisError)[i] = batch_detail::axis_error_bound(box);
}

// --- The tests --------------------------------------------------------------------------------------------------

void overlap(const ObbBatch& a, const ObbBatch& b, std::span<std::uint8_t> results, BatchStats* stats) {
    using namespace batch_detail;
    if (a.size() != b.size() || a.size() != results.size())
        throw InvalidArgument(size_message("overlap(ObbBatch, ObbBatch)", a.size(), b.size(), results.size()));
    const std::size_t count = results.size();
    if (count == 0) {
        if (stats) *stats += BatchStats{};
        return;
    }
    const float* fa[ObbBatch::kFieldCount];
    const float* fb[ObbBatch::kFieldCount];
    fields(a, fa);
    fields(b, fb);
    const Counts counts = HWY_DYNAMIC_DISPATCH(ClassifyPairs)(fa, fb, count, results.data());
    finish_undecided(results.data(), count, counts, stats,
                     [&](std::size_t i) { return tumble::overlap(a.get(i), b.get(i)); });
}

void overlap(const ObbBatch& boxes, std::span<const std::uint32_t> first, std::span<const std::uint32_t> second,
             std::span<std::uint8_t> results, BatchStats* stats) {
    using namespace batch_detail;
    if (first.size() != second.size() || first.size() != results.size())
        throw InvalidArgument(size_message("overlap(ObbBatch, first, second)", first.size(), second.size(),
                                           results.size()));
    const std::size_t count = results.size();
    for (std::size_t i = 0; i < count; ++i)
        if (first[i] >= boxes.size() || second[i] >= boxes.size())
            throw InvalidArgument("overlap(ObbBatch, first, second): pair " + std::to_string(i) + " (" +
                                  std::to_string(first[i]) + ", " + std::to_string(second[i]) +
                                  ") indexes past the " + std::to_string(boxes.size()) + " boxes");
    if (count == 0) return;
    const float* f[ObbBatch::kFieldCount];
    fields(boxes, f);
    const Counts counts = HWY_DYNAMIC_DISPATCH(ClassifyIndexed)(f, first.data(), second.data(), count, results.data());
    finish_undecided(results.data(), count, counts, stats,
                     [&](std::size_t i) { return tumble::overlap(boxes.get(first[i]), boxes.get(second[i])); });
}

void collide(const ObbBatch& a, const ObbBatch& b, std::span<std::optional<Contact>> results, BatchStats* stats) {
    using namespace batch_detail;
    if (a.size() != b.size() || a.size() != results.size())
        throw InvalidArgument(size_message("collide(ObbBatch, ObbBatch)", a.size(), b.size(), results.size()));
    const float* fa[ObbBatch::kFieldCount];
    const float* fb[ObbBatch::kFieldCount];
    fields(a, fa);
    fields(b, fb);
    constexpr std::size_t kBlock = 256;  // a multiple of ObbBatch::kLanes: field pointers stay aligned
    alignas(64) float status[kBlock], axis[kBlock], negative[kBlock], depth[kBlock], normal[3][kBlock];
    const ContactLanes lanes{status, axis, negative, depth, {normal[0], normal[1], normal[2]}};
    const float* pa[ObbBatch::kFieldCount];
    const float* pb[ObbBatch::kFieldCount];
    for (std::size_t begin = 0; begin < results.size(); begin += kBlock) {
        const std::size_t n = std::min(kBlock, results.size() - begin);
        for (int f = 0; f < ObbBatch::kFieldCount; ++f) {
            pa[f] = fa[f] + begin;
            pb[f] = fb[f] + begin;
        }
        const Counts counts = HWY_DYNAMIC_DISPATCH(CollidePairs)(pa, pb, n, lanes);
        // Without branches on the status, which is random for mixed input: every result starts as `none` (a
        // trivial copy), and the lanes with a certified contact or left to the scalar test are listed.
        static const std::optional<Contact> none;
        std::uint16_t contact[kBlock], undecided[kBlock];
        std::size_t contacts = 0, scalar = 0;
        for (std::size_t k = 0; k < n; ++k) {
            results[begin + k] = none;
            contact[contacts] = static_cast<std::uint16_t>(k);
            contacts += status[k] == static_cast<float>(kOverlapping);
            undecided[scalar] = static_cast<std::uint16_t>(k);
            scalar += status[k] == static_cast<float>(kUndecided);
        }
        for (std::size_t m = 0; m < contacts; ++m) {
            const std::size_t k = contact[m];
            results[begin + k].emplace(Contact{static_cast<int>(axis[k]), negative[k] != 0.0f, depth[k],
                                               glm::vec3(normal[0][k], normal[1][k], normal[2][k])});
        }
        for (std::size_t m = 0; m < scalar; ++m) {
            const std::size_t i = begin + undecided[m];
            results[i] = tumble::collide(a.get(i), b.get(i));
        }
        if (stats) {
            stats->pairs += n;
            stats->simd_separated += counts.separated;
            stats->simd_overlapping += counts.overlapping;
            stats->scalar += scalar;
        }
    }
}

const char* batch_target_name() {
    using namespace batch_detail;
    return hwy::TargetName(HWY_DYNAMIC_DISPATCH(TargetBits)());
}

}  // namespace tumble

#endif  // HWY_ONCE
