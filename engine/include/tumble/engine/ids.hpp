#pragma once
/// @file
/// Handles of bodies and meshes, and collision layers.

#include <compare>
#include <cstdint>

namespace tumble {

/// Stable handle of a body: a slot index and a generation that changes when the slot is reused, so a handle to a
/// destroyed body is detected (`World::is_valid`) instead of silently naming another body. Zero-initialised is null.
struct BodyId {
    std::uint32_t index = 0;
    std::uint32_t generation = 0;  ///< 0 only for the null id
    bool is_null() const { return generation == 0; }
    friend bool operator==(const BodyId&, const BodyId&) = default;
    friend auto operator<=>(const BodyId&, const BodyId&) = default;
};

/// Stable handle of a static mesh, same scheme as BodyId.
struct MeshId {
    std::uint32_t index = 0;
    std::uint32_t generation = 0;
    bool is_null() const { return generation == 0; }
    friend bool operator==(const MeshId&, const MeshId&) = default;
    friend auto operator<=>(const MeshId&, const MeshId&) = default;
};

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
