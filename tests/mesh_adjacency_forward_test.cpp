// The former include path of compute_active_edges, tumble/broadphase/mesh_adjacency.hpp, is a forwarding header to
// tumble/narrowphase/mesh_adjacency.hpp (public include paths are a contract). This file includes nothing else of
// Tumble, so it fails to compile if the forwarding breaks, and checks that both paths name the same function.

#include <tumble/broadphase/mesh_adjacency.hpp>

#include <span>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include <tumble/narrowphase/mesh_adjacency.hpp>

namespace {

TEST(MeshAdjacencyHeader, FormerBroadphasePathForwardsToTheNarrowphase) {
    static_assert(std::is_same_v<decltype(&tumble::compute_active_edges),
                                 std::vector<tumble::EdgeFlags> (*)(std::span<const tumble::Triangle>, double,
                                                                    tumble::ActiveEdgeStats*)>);
    // A flat unit square of two triangles, counter-clockwise seen from +y: the diagonal they share is inactive for
    // both (edge 2 of the first, edge 0 of the second), the four outer edges are active.
    const glm::vec3 p00(0, 0, 0), p10(1, 0, 0), p01(0, 0, 1), p11(1, 0, 1);
    const std::vector<tumble::Triangle> square{{p00, p01, p11}, {p00, p11, p10}};
    tumble::ActiveEdgeStats stats;
    const std::vector<tumble::EdgeFlags> flags = tumble::compute_active_edges(square, tumble::kActiveEdgeAngle, &stats);
    ASSERT_EQ(flags.size(), 2u);
    EXPECT_EQ(flags[0] & 0b111, 0b011);
    EXPECT_EQ(flags[1] & 0b111, 0b110);
    EXPECT_EQ(stats.inactive, 2u);
}

}  // namespace
