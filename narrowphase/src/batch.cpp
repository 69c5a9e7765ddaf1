// Batch OBB-OBB tests (batch.hpp): a float SIMD filter with a rigorous error bound, compiled for every x86 target by
// Highway (this file is included once per target by hwy/foreach_target.h), and the scalar tests for what the filter
// leaves undecided. The bound is derived in docs/batch.md; the constants below are named after the terms there.
//
// Notation: a_i, b_j the boxes' axes as given (float, not quite orthonormal), e the half extents, t = B.c - A.c,
// R_ij = a_i . b_j, TA_i = t . a_i, TB_j = t . b_j. On axis k the scalar test evaluates (in double, to ~1e-16)
//     X_k = rA + rB - |t . L|   with L the axis as numbered (L = a_i x b_j for the edges),
// and reports separated iff some X_k < 0 on an axis it does not skip as parallel. The filter evaluates the
// Gottschalk closed forms F_k in float; |F_k - X_k| <= E for one per-lane bound
//     E = (kRoundOff u + kAxisErrorFactor g) S + kTiny,   S = sum e_A + sum e_B + |t|_1,
// where u = 2^-24 and g bounds both boxes' max |a_k . a_l - delta_kl|. F_k < -E on some axis proves "separated",
// F_k > E on all fifteen proves "overlapping"; otherwise the scalar test decides.

#include <tumble/error.hpp>
#include <tumble/narrowphase/batch.hpp>
#include <tumble/narrowphase/sat.hpp>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/batch.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target

#include <hwy/highway.h>

#ifndef TUMBLE_NARROWPHASE_BATCH_CONSTANTS
#define TUMBLE_NARROWPHASE_BATCH_CONSTANTS
namespace tumble::batch_detail {

// Status of a pair after the filter.
constexpr std::uint8_t kSeparated = 0;
constexpr std::uint8_t kOverlapping = 1;
constexpr std::uint8_t kUndecided = 2;

// The bound's constants (docs/batch.md, "The bound"). The round-off of the closed forms is at most 25 u S on an edge
// axis and 9 u S on a face axis; 36 leaves 11 u S (6.6e-7 S) for the scalar test's own double round-off (~1e-15 S)
// and for the largest value an axis the scalar test skips as parallel can have (|L| < 1e-12: |X| < 1.01e-12 S), so
// that a decided sign is the scalar test's sign on an axis it really tests.
constexpr float kUnitRoundOff = 0x1p-24f;
constexpr float kRoundOff = 36.0f;
// The closed forms assume orthonormal axes; the actual axes change them by at most 4.1 g S (a cross product of two
// axes is within 3.2 g of the third, for g <= 1e-3).
constexpr float kAxisErrorFactor = 4.5f;
// Boxes whose axes are further than this from orthonormal are left to the scalar test (the 3.2 g above needs g small).
constexpr double kMaxAxisError = 1e-3;
// Absolute slack for underflow (flush-to-zero included: ~30 operations of at most 2^-126 each).
constexpr float kTiny = 1e-36f;
// Lanes whose magnitudes could overflow float in the closed forms are left to the scalar test.
constexpr float kMaxMagnitude = 1e36f;

struct Counts {
    std::size_t separated = 0;
    std::size_t overlapping = 0;
};

}  // namespace tumble::batch_detail
#endif

// ---------------------------------------------------------------------------------------------------------------
// Per-target code.

HWY_BEFORE_NAMESPACE();
namespace tumble::batch_detail {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Classifies the lanes of one vector of pairs; A[f] and B[f] point at field f of the vector's first lane (aligned).
template <class D>
HWY_INLINE void classify_vector(D d, const float* HWY_RESTRICT const* A, const float* HWY_RESTRICT const* B,
                                hn::Mask<D>& separated, hn::Mask<D>& overlapping) {
    using V = hn::Vec<D>;
    V a[3][3], b[3][3], ea[3], eb[3], t[3];
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) {
            a[i][k] = hn::Load(d, A[ObbBatch::kAxis00 + 3 * i + k]);
            b[i][k] = hn::Load(d, B[ObbBatch::kAxis00 + 3 * i + k]);
        }
        ea[i] = hn::Load(d, A[ObbBatch::kHalfX + i]);
        eb[i] = hn::Load(d, B[ObbBatch::kHalfX + i]);
        t[i] = hn::Sub(hn::Load(d, B[ObbBatch::kCenterX + i]), hn::Load(d, A[ObbBatch::kCenterX + i]));
    }
    const V g = hn::Max(hn::Load(d, A[ObbBatch::kAxisError]), hn::Load(d, B[ObbBatch::kAxisError]));

    auto dot = [](const V* u, const V* v) { return hn::MulAdd(u[2], v[2], hn::MulAdd(u[1], v[1], hn::Mul(u[0], v[0]))); };
    V R[3][3], AR[3][3], TA[3], TB[3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            R[i][j] = dot(a[i], b[j]);
            AR[i][j] = hn::Abs(R[i][j]);
        }
    for (int i = 0; i < 3; ++i) {
        TA[i] = dot(t, a[i]);
        TB[i] = dot(t, b[i]);
    }

    const V sum_a = hn::Add(hn::Add(ea[0], ea[1]), ea[2]);
    const V sum_b = hn::Add(hn::Add(eb[0], eb[1]), eb[2]);
    const V sum_t = hn::Add(hn::Add(hn::Abs(t[0]), hn::Abs(t[1])), hn::Abs(t[2]));
    const V S = hn::Add(hn::Add(sum_a, sum_b), sum_t);
    const V E = hn::MulAdd(hn::MulAdd(hn::Set(d, kAxisErrorFactor), g, hn::Set(d, kRoundOff * kUnitRoundOff)), S,
                           hn::Set(d, kTiny));

    // The least of the fifteen closed forms.
    V least;
    // Axes 0-2: rA = e_A,i (the actual axes: sum_k e_A,k |a_k . a_i|, within g sum e_A).
    for (int i = 0; i < 3; ++i) {
        const V rb = hn::MulAdd(eb[2], AR[i][2], hn::MulAdd(eb[1], AR[i][1], hn::Mul(eb[0], AR[i][0])));
        const V over = hn::Sub(hn::Add(ea[i], rb), hn::Abs(TA[i]));
        least = i == 0 ? over : hn::Min(least, over);
    }
    // Axes 3-5.
    for (int j = 0; j < 3; ++j) {
        const V ra = hn::MulAdd(ea[2], AR[2][j], hn::MulAdd(ea[1], AR[1][j], hn::Mul(ea[0], AR[0][j])));
        const V over = hn::Sub(hn::Add(ra, eb[j]), hn::Abs(TB[j]));
        least = hn::Min(least, over);
    }
    // Axes 6-14, L = a_i x b_j: |a_i1 . L| = |R_i2,j|, |b_j1 . L| = |R_i,j2|, t . L = TA_i2 R_i1,j - TA_i1 R_i2,j.
    for (int i = 0; i < 3; ++i) {
        const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; ++j) {
            const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            const V ra = hn::MulAdd(ea[i2], AR[i1][j], hn::Mul(ea[i1], AR[i2][j]));
            const V rb = hn::MulAdd(eb[j2], AR[i][j1], hn::Mul(eb[j1], AR[i][j2]));
            const V tl = hn::NegMulAdd(TA[i1], R[i2][j], hn::Mul(TA[i2], R[i1][j]));
            const V over = hn::Sub(hn::Add(ra, rb), hn::Abs(tl));
            least = hn::Min(least, over);
        }
    }
    // A box the filter must not judge has g = +inf (non-finite value, negative extent, axes far from orthonormal);
    // NaN or overflow elsewhere makes S NaN or huge. Such lanes stay undecided.
    const auto valid = hn::And(hn::Lt(S, hn::Set(d, kMaxMagnitude)), hn::Lt(g, hn::Set(d, 1.0f)));
    separated = hn::And(valid, hn::Lt(least, hn::Neg(E)));
    overlapping = hn::And(valid, hn::Gt(least, E));
}

template <class D>
HWY_INLINE void store_status(D d, const hn::Mask<D>& separated, const hn::Mask<D>& overlapping, std::size_t count,
                             std::uint8_t* HWY_RESTRICT status, Counts& counts) {
    constexpr std::size_t kMaxLanes = HWY_MAX_BYTES / sizeof(float);
    std::uint8_t sep_bits[(kMaxLanes + 7) / 8 + 8] = {};
    std::uint8_t ovl_bits[(kMaxLanes + 7) / 8 + 8] = {};
    hn::StoreMaskBits(d, separated, sep_bits);
    hn::StoreMaskBits(d, overlapping, ovl_bits);
    for (std::size_t lane = 0; lane < count; ++lane) {
        const bool s = (sep_bits[lane / 8] >> (lane % 8)) & 1;
        const bool o = (ovl_bits[lane / 8] >> (lane % 8)) & 1;
        status[lane] = o ? kOverlapping : (s ? kSeparated : kUndecided);
        counts.separated += s;
        counts.overlapping += o;
    }
}

// Pairs (A[i], B[i]) for i < count; A[f], B[f] are the field arrays (aligned, padded to a multiple of 16 lanes).
Counts ClassifyPairs(const float* const* A, const float* const* B, std::size_t count, std::uint8_t* status) {
    const hn::ScalableTag<float> d;
    const std::size_t N = hn::Lanes(d);
    Counts counts;
    const float* a[ObbBatch::kFieldCount];
    const float* b[ObbBatch::kFieldCount];
    for (std::size_t i = 0; i < count; i += N) {
        for (int f = 0; f < ObbBatch::kFieldCount; ++f) {
            a[f] = A[f] + i;
            b[f] = B[f] + i;
        }
        hn::Mask<decltype(d)> separated, overlapping;
        classify_vector(d, a, b, separated, overlapping);
        store_status(d, separated, overlapping, count - i < N ? count - i : N, status + i, counts);
    }
    return counts;
}

// Pairs (boxes[first[i]], boxes[second[i]]): each block of ObbBatch::kLanes pairs is gathered into aligned arrays.
Counts ClassifyIndexed(const float* const* boxes, const std::uint32_t* first, const std::uint32_t* second,
                       std::size_t count, std::uint8_t* status) {
    const hn::ScalableTag<float> d;
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
            for (int f = 0; f < ObbBatch::kFieldCount; ++f) {
                ga[f][lane] = boxes[f][ia];
                gb[f][lane] = boxes[f][ib];
            }
        }
        for (std::size_t v = 0; v < n; v += N) {
            for (int f = 0; f < ObbBatch::kFieldCount; ++f) {
                a[f] = ga[f] + v;
                b[f] = gb[f] + v;
            }
            hn::Mask<decltype(d)> separated, overlapping;
            classify_vector(d, a, b, separated, overlapping);
            store_status(d, separated, overlapping, n - v < N ? n - v : N, status + begin + v, counts);
        }
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

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <string>

namespace tumble {
namespace batch_detail {

HWY_EXPORT(ClassifyPairs);
HWY_EXPORT(ClassifyIndexed);
HWY_EXPORT(TargetBits);

// An upper bound on max |a_k . a_l - delta_kl| for the box's axes, or +inf when the filter must not be used for this
// box (a non-finite value, a negative half extent, axes further than kMaxAxisError from orthonormal). The dot
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
    if (!(worst <= kMaxAxisError)) return inf;
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
    std::uint8_t status[kBlock];
    const float* pa[ObbBatch::kFieldCount];
    const float* pb[ObbBatch::kFieldCount];
    for (std::size_t begin = 0; begin < results.size(); begin += kBlock) {
        const std::size_t n = std::min(kBlock, results.size() - begin);
        for (int f = 0; f < ObbBatch::kFieldCount; ++f) {
            pa[f] = fa[f] + begin;
            pb[f] = fb[f] + begin;
        }
        const Counts counts = HWY_DYNAMIC_DISPATCH(ClassifyPairs)(pa, pb, n, status);
        std::size_t scalar = 0;
        for (std::size_t k = 0; k < n; ++k) {
            const std::size_t i = begin + k;
            if (status[k] == kSeparated) {
                results[i].reset();
            } else {
                results[i] = tumble::collide(a.get(i), b.get(i));
                ++scalar;
            }
        }
        if (stats) {
            stats->pairs += n;
            stats->simd_separated += counts.separated;
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
