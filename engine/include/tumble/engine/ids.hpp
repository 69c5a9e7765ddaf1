#pragma once
/// @file
/// Handles of bodies and meshes, and collision layers.

#include <cstdint>

#include <tumble/core/slot_id.hpp>

namespace tumble {

/// Stable handle of a body: a slot index and a generation that changes when the slot is reused, so a handle to a
/// destroyed body is detected (`World::is_valid`) instead of silently naming another body. Zero-initialised is null.
/// Members `index`, `generation` (0 only for the null id), `is_null()`, `==` and `<=>` (see SlotId). It is the core
/// handle template `SlotId` with a tag of its own: `BodyId{}`, `BodyId{index, generation}` and comparisons work as
/// for any aggregate, but it cannot be forward-declared as a struct.
struct BodyIdTag;  ///< tag type of BodyId (never defined)
using BodyId = SlotId<BodyIdTag>;

/// Stable handle of a static mesh, same scheme as BodyId (a distinct type: a MeshId never converts to a BodyId).
struct MeshIdTag;  ///< tag type of MeshId (never defined)
using MeshId = SlotId<MeshIdTag>;

/// Collision layers are the bits of a 64-bit word. Two shapes collide when each one's `layer` has a bit in the other's
/// `mask`: (a.layer & b.mask) != 0 && (b.layer & a.mask) != 0 (Box2D's category and mask bits). The check runs in
/// the broadphase stage, before the narrowphase. The default puts everything on bit 0 and lets it collide with
/// every layer. A query sees a shape when (shape.layer & QueryFilter::mask) != 0.
inline constexpr std::uint64_t kDefaultLayer = 1;
inline constexpr std::uint64_t kAllLayers = ~std::uint64_t(0);

/// True when shapes on these layers with these masks collide.
constexpr bool layers_collide(std::uint64_t layer_a, std::uint64_t mask_a, std::uint64_t layer_b, std::uint64_t mask_b) {
    return (layer_a & mask_b) != 0 && (layer_b & mask_a) != 0;
}

}  // namespace tumble
