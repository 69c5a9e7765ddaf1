#pragma once
/// @file
/// Growth of Tumble's long-lived buffers (bodies, contacts, events, manifolds).
///
/// std::vector doubles its capacity when it grows, so a buffer holds between 1x and 2x what it needs (1.39x on
/// average over sizes). The world keeps its buffers between steps so that a steady scene does not allocate, which
/// makes that slack permanent: these helpers grow by half the capacity instead (1.5x: at most 1.5x, 1.22x on average),
/// at the price of a few more reallocations while a scene builds up. Growth never shrinks a buffer and never changes
/// its contents. Not for hot inner loops: each call checks the capacity.
#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

namespace tumble {

/// Makes room for `n` elements in `v`: when its capacity is smaller, grows it to max(n, 1.5 x capacity, 16)
/// elements. Throws what std::vector::reserve throws (std::length_error, std::bad_alloc), leaving `v` unchanged.
template <class T, class Alloc>
void reserve_for(std::vector<T, Alloc>& v, std::size_t n) {
    if (n <= v.capacity()) return;
    v.reserve(std::max({n, v.capacity() + v.capacity() / 2, std::size_t{16}}));
}

/// Makes room for `n` elements in `v`, which is being filled by a pass that has done `done` of its `total` items:
/// when its capacity is smaller, grows it to what the pass projects for all of them, n x total / done, and at least
/// 1.25x its capacity (in case the projection fell short before). A pass whose items yield evenly ends with the
/// capacity it needs, in one reallocation. Requires 0 < done <= total. Throws as `reserve_for`.
template <class T, class Alloc>
void reserve_projected(std::vector<T, Alloc>& v, std::size_t n, std::size_t done, std::size_t total) {
    if (n <= v.capacity()) return;
    const std::size_t projected = done > 0 && done < total ? n / done * total + n % done * total / done : n;
    v.reserve(std::max({n, projected, v.capacity() + v.capacity() / 4}));
}

/// `v.push_back(value)` with the growth of `reserve_for`. (`value`'s type is not deduced from it, so that a braced
/// initializer list works.)
template <class T, class Alloc>
void push_back_grown(std::vector<T, Alloc>& v, const std::type_identity_t<T>& value) {
    reserve_for(v, v.size() + 1);
    v.push_back(value);
}
template <class T, class Alloc>
void push_back_grown(std::vector<T, Alloc>& v, std::type_identity_t<T>&& value) {
    reserve_for(v, v.size() + 1);
    v.push_back(std::move(value));
}

}  // namespace tumble
