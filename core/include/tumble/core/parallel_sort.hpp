#pragma once
/// @file
/// A merge sort on the threads of a `Parallel` whose result does not depend on the thread count (module
/// tumble::core).
///
/// The array is cut into runs of kSortRun elements, each sorted with std::sort, and the runs are merged pairwise in
/// rounds, as a bottom-up merge sort (Knuth, The Art of Computer Programming vol. 3, section 5.2.4). Each round's
/// output is cut into blocks of kSortRun elements that are merged at once: a block finds where it starts in its two
/// input runs by a binary search on the merge path (Odeh, Green, Mwassi, Shmueli and Birk, "Merge Path - Parallel
/// Merging Made Simple", IPDPS workshops 2012), so a long merge is spread over the threads as well. Runs, rounds and
/// blocks depend on the element count only, and each merge keeps the first run's element first on ties, as
/// std::merge does: the result is bit-identical for any thread count, also when elements compare equal.

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include <tumble/core/growth.hpp>
#include <tumble/core/parallel.hpp>

namespace tumble {

/// Elements per run sorted on its own, and per block of a merge round (parallel_sort).
inline constexpr std::size_t kSortRun = 2048;

/// Sorts `v` by `less` (a strict weak order, as for std::sort) on the threads of `parallel`, merging through
/// `buffer`, which ends up holding v.size() elements of no meaning (its capacity grows by reserve_for's 1.5x and is
/// kept, so a caller that keeps it does not allocate once it has grown). The order of elements that compare equal
/// depends on v's initial order and size only, never on the thread count. Up to kSortRun elements it is std::sort.
/// Throws what growing `buffer` throws (std::bad_alloc), with `v` unchanged; `less` must not throw, and is called
/// from several threads at once (it must only read shared state).
template <class T, class Less>
void parallel_sort(std::vector<T>& v, std::vector<T>& buffer, Less less, Parallel& parallel) {
    const std::size_t n = v.size();
    if (n <= kSortRun) {
        std::sort(v.begin(), v.end(), less);
        return;
    }
    reserve_for(buffer, n);
    buffer.resize(n);
    parallel.for_each_chunk(n, kSortRun, [&](std::size_t begin, std::size_t end) {
        std::sort(v.begin() + static_cast<std::ptrdiff_t>(begin), v.begin() + static_cast<std::ptrdiff_t>(end), less);
    });
    const T* from = v.data();
    T* to = buffer.data();
    for (std::size_t width = kSortRun; width < n; width *= 2) {
        // Output block b is [b kSortRun, (b + 1) kSortRun) of the merge of the runs [lo, mid) and [mid, hi) that
        // holds it (2 width is a multiple of kSortRun, so no block straddles two merges).
        parallel.for_each_chunk(chunk_count(n, kSortRun), 1, [&](std::size_t first, std::size_t last) {
            for (std::size_t b = first; b < last; ++b) {
                const std::size_t lo = b * kSortRun / (2 * width) * (2 * width);
                const std::size_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
                const T* a = from + lo;
                const T* c = from + mid;
                const std::size_t na = mid - lo, nc = hi - mid;
                // Elements of the first run among the first k of the merge: the smallest i with i + j = k such
                // that the first run's element i does not come before the second run's element j - 1.
                auto split = [&](std::size_t k) {
                    std::size_t low = k > nc ? k - nc : 0, high = std::min(k, na);
                    while (low < high) {
                        const std::size_t i = low + (high - low) / 2;
                        if (!less(c[k - i - 1], a[i]))
                            low = i + 1;
                        else
                            high = i;
                    }
                    return low;
                };
                const std::size_t k0 = b * kSortRun - lo, k1 = std::min(k0 + kSortRun, hi - lo);
                const std::size_t i0 = split(k0), i1 = split(k1);
                std::merge(a + i0, a + i1, c + (k0 - i0), c + (k1 - i1), to + lo + k0, less);
            }
        });
        from = to;
        to = to == buffer.data() ? v.data() : buffer.data();
    }
    if (from != v.data()) v.swap(buffer);
}

}  // namespace tumble
