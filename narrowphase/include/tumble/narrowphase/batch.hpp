#pragma once
/// @file
/// Batch OBB-OBB separating-axis tests: many pairs per call, several pairs per SIMD instruction, with exactly the
/// answers of the scalar `overlap` and `collide` of sat.hpp.
///
/// Shapes and frames are those of sat.hpp: an `Obb` is a centre (world frame, metres), three unit axes (columns of
/// `axes`, world frame) and three half extents (metres); axes are numbered as documented at `collide` (0-2 A's axes,
/// 3-5 B's, 6-14 cross(A_i, B_j) with i outer). Boxes are stored as a structure of arrays (`ObbBatch`) and pair i of
/// a call is (a[i], b[i]), or (boxes[first[i]], boxes[second[i]]) for the indexed form.
///
/// How (docs/batch.md): the pairs are tested 4, 8 or 16 at a time in float SIMD with Highway's dynamic dispatch (one
/// binary runs AVX-512, AVX2, SSE4, SSSE3 or portable code, whatever the CPU offers). Float arithmetic is only a
/// filter: on each of the 15 axes the Gottschalk closed forms (R = A^T B, |R|, T in A's frame; Gottschalk, Lin and
/// Manocha, "OBBTree", SIGGRAPH 1996; Ericson, Real-Time Collision Detection, 4.4.1) are compared with a rigorous
/// bound on their error: float round-off (unit round-off 2^-24, counted term by term) plus the departure of each box's
/// axes from orthonormality (the scalar test uses the actual, not quite orthonormal axes). This is the filtered-
/// predicate idea of Shewchuk ("Adaptive Precision Floating-Point Arithmetic and Fast Robust Geometric
/// Predicates", 1997): a pair with an axis that separates it by more than the bound is separated, a pair that
/// overlaps by more than the bound on every axis overlaps, and every other pair (near-touching, edges too close to
/// parallel to tell, NaN or infinite input, magnitudes that overflow float) is finished by the scalar test itself.
/// `collide` computes the contact of a pair proven overlapping in SIMD as well (the axis from float intervals on every
/// axis's depth, then sign, depth and normal on that axis in double) and keeps it only when every value is certified
/// to round to the float the scalar `collide` returns; otherwise the pair goes to the scalar `collide`, as do pairs
/// smaller than 2^-40 m (sum of extents and centre distance), where float underflow voids the certificate.
///
/// Guarantee: every result equals what the scalar `overlap(a, b)` / `collide(a, b)` returns for the same pair, bit
/// for bit, on every CPU; the tests check it target by target. Like the scalar tests these never report an error
/// for bad shapes: NaN or infinite values give "separated" (false, or no contact); non-orthonormal axes or negative
/// extents give what the scalar test gives. Only mismatched sizes and out-of-range indices throw.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include <tumble/narrowphase/shapes.hpp>

namespace tumble {

/// Where the pairs of a batch call were decided (for tests, benchmarks and tuning; add them up across calls).
struct BatchStats {
    std::uint64_t pairs = 0;             ///< pairs tested
    std::uint64_t simd_separated = 0;    ///< decided separated by the SIMD filter
    std::uint64_t simd_overlapping = 0;  ///< decided overlapping by the SIMD filter
    std::uint64_t scalar = 0;            ///< finished by the scalar test (undecided by the filter; `collide`: also overlapping)

    BatchStats& operator+=(const BatchStats& o) {
        pairs += o.pairs;
        simd_separated += o.simd_separated;
        simd_overlapping += o.simd_overlapping;
        scalar += o.scalar;
        return *this;
    }
};

/// Float OBBs as a structure of arrays, 64-byte aligned and padded to a multiple of 16 boxes (the widest vector), the
/// padding holding valid default boxes. Each box also keeps an upper bound on the departure of its axes from
/// orthonormality, computed when it is stored; the arrays are therefore read-only from outside: boxes go in through
/// `push_back`, `set` and `resize` only. `set` on distinct indices may run on several threads at once; a moved-from
/// batch is empty.
class ObbBatch {
public:
    /// Boxes are padded to a multiple of this many lanes.
    static constexpr std::size_t kLanes = 16;
    /// The arrays: centre x, y, z; axes[0].x, .y, .z, axes[1].x, ..., axes[2].z; half extents x, y, z; axis error.
    enum Field : int {
        kCenterX = 0,
        kAxis00 = 3,  ///< axes[0].x; axes[i][k] is field kAxis00 + 3 i + k
        kHalfX = 12,
        kAxisError = 15,
        kFieldCount = 16
    };

    ObbBatch() = default;
    /// A batch holding `boxes` in order.
    explicit ObbBatch(std::span<const Obb> boxes);
    ObbBatch(const ObbBatch& other);
    ObbBatch& operator=(const ObbBatch& other);
    ObbBatch(ObbBatch&& other) noexcept;
    ObbBatch& operator=(ObbBatch&& other) noexcept;
    ~ObbBatch() = default;

    std::size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }
    /// Boxes that fit without reallocating (a multiple of kLanes).
    std::size_t capacity() const noexcept { return capacity_; }
    /// Makes room for `n` boxes (never shrinks).
    void reserve(std::size_t n);
    /// Removes every box; keeps the memory (no allocation to refill up to `capacity()`).
    void clear() noexcept;
    /// Grows with default boxes (centre 0, identity axes, zero extents) or drops boxes from the end.
    void resize(std::size_t n);
    void push_back(const Obb& box);
    /// Replaces box i. Throws `InvalidArgument` when i >= size().
    void set(std::size_t i, const Obb& box);
    /// Box i as it was stored. Throws `InvalidArgument` when i >= size().
    Obb get(std::size_t i) const;
    /// The array of one field: `capacity()` floats, 64-byte aligned; entries from size() on are padding.
    const float* data(Field f) const noexcept { return storage_.get() + static_cast<std::size_t>(f) * capacity_; }

private:
    struct Free {
        void operator()(float* p) const noexcept;
    };
    void store(std::size_t i, const Obb& box) noexcept;
    float* field(int f) noexcept { return storage_.get() + static_cast<std::size_t>(f) * capacity_; }
    void reallocate(std::size_t capacity);

    std::unique_ptr<float[], Free> storage_;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
};

/// Box-box overlap of pairs (a[i], b[i]): results[i] = 1 when the closed boxes share a point (touching counts), else
/// 0; exactly `overlap(a.get(i), b.get(i))`. Throws `InvalidArgument` unless a, b and results have the same size.
/// `stats`, when given, is added to.
void overlap(const ObbBatch& a, const ObbBatch& b, std::span<std::uint8_t> results, BatchStats* stats = nullptr);

/// The same for pairs of one set of boxes: results[i] for (boxes[first[i]], boxes[second[i]]). Throws
/// `InvalidArgument` unless first, second and results have the same size and every index is below boxes.size().
void overlap(const ObbBatch& boxes, std::span<const std::uint32_t> first, std::span<const std::uint32_t> second,
             std::span<std::uint8_t> results, BatchStats* stats = nullptr);

/// Box-box contact of pairs (a[i], b[i]): results[i] is exactly `collide(a.get(i), b.get(i))` (nothing when
/// separated; otherwise axis, sign, depth and normal as documented at `collide`). Throws `InvalidArgument` unless a,
/// b and results have the same size.
void collide(const ObbBatch& a, const ObbBatch& b, std::span<std::optional<Contact>> results,
             BatchStats* stats = nullptr);

/// Name of the instruction set the batch tests run with on this machine ("AVX3", "AVX2", "SSE4", ...; Highway's
/// names, AVX3 being AVX-512).
const char* batch_target_name();

}  // namespace tumble
