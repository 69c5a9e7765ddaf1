#pragma once
/// @file
/// `SlotId<Tag>`: the handle scheme of objects stored in reusable slots (module tumble::core). The engine's `BodyId`
/// and `MeshId` (`<tumble/engine/ids.hpp>`) are instances of it.

#include <compare>
#include <cstdint>

namespace tumble {

/// Stable handle of an object kept in a slot array: the slot's index and a generation that changes when the slot is
/// reused, so a handle to a destroyed object is detected instead of silently naming the slot's next occupant.
/// Zero-initialised (`SlotId<Tag>{}`) is the null handle; a live object's generation is never 0. `Tag` only makes
/// handles of different kinds distinct types (a BodyId is not a MeshId); it need not be complete. Handles compare by
/// (index, generation): the order is that of slots, not of creation.
template <class Tag>
struct SlotId {
    std::uint32_t index = 0;       ///< slot in the owner's array
    std::uint32_t generation = 0;  ///< which occupant of the slot; 0 only for the null id
    /// True for the null handle (generation 0), which names nothing.
    bool is_null() const { return generation == 0; }
    friend bool operator==(const SlotId&, const SlotId&) = default;
    friend auto operator<=>(const SlotId&, const SlotId&) = default;
};

}  // namespace tumble
