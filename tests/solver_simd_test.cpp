// The soft step's position pass in SIMD lanes (solver/src/soft_positions.cpp) against the scalar code it stands for
// (tumble::detail::rotate_substep, GLM's mat3_cast and quaternion product, world_inverse_inertia), bit for bit, on
// every Highway target this CPU runs, for every batch size from 1 to PositionLanes::kMax.

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include "solver_internal.hpp"

namespace {

using tumble::detail::PositionLanes;

struct Body {
    glm::vec3 position, dp, v, w, inv;
    glm::quat q, start;
    glm::mat3 dr{1.0f}, inv_inertia{0.0f};
};

// The scalar position pass of soft_step.cpp for one body.
void scalar_pass(Body& b, float h) {
    b.position += h * b.v;
    b.dp += h * b.v;
    if (b.inv == glm::vec3(0.0f)) return;
    tumble::detail::rotate_substep(b.q, b.w, b.inv, glm::vec3(0.0f), h);
    b.dr = glm::mat3_cast(b.q * glm::conjugate(b.start));
    b.inv_inertia = tumble::detail::world_inverse_inertia(b.q, b.inv);
}

glm::quat random_rotation(std::mt19937& rng) {
    std::normal_distribution<float> g(0.0f, 1.0f);
    return glm::normalize(glm::quat(g(rng), g(rng), g(rng), g(rng)));
}

// Boxes as the engine makes them, and the cases at the edges of the scalar code's branches: no turn possible (zero
// inverse moments: the pass leaves the orientation alone), no spin (w = 0: rotate_substep's early return), one axis
// that cannot turn, a huge inverse moment (above kMaxInverseMoment), fast spin and a quaternion a little off unit.
std::vector<Body> cases() {
    std::mt19937 rng(20261128);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f), size(0.01f, 2.0f), mass(0.1f, 50.0f);
    std::vector<Body> out;
    for (int i = 0; i < 400; ++i) {
        Body b;
        b.position = glm::vec3(u(rng), u(rng), u(rng)) * 100.0f;
        b.dp = glm::vec3(u(rng), u(rng), u(rng)) * 0.1f;
        b.v = glm::vec3(u(rng), u(rng), u(rng)) * 20.0f;
        b.w = glm::vec3(u(rng), u(rng), u(rng)) * (i % 7 == 0 ? 200.0f : 10.0f);
        const glm::vec3 e(size(rng), size(rng), size(rng));
        const float m = mass(rng);
        b.inv = 1.0f / (glm::vec3(e.y * e.y + e.z * e.z, e.x * e.x + e.z * e.z, e.x * e.x + e.y * e.y) * (m / 3.0f));
        b.q = random_rotation(rng);
        b.start = random_rotation(rng);
        switch (i % 10) {
            case 1:
                b.inv = glm::vec3(0.0f);
                break;
            case 2:
                b.w = glm::vec3(0.0f);
                break;
            case 3:
                b.inv.y = 0.0f;
                break;
            case 4:
                b.inv.x = 3e30f;
                break;
            case 5:
                b.q = glm::quat(b.q.w * 1.0001f, b.q.x, b.q.y, b.q.z);
                break;
            default:
                break;
        }
        out.push_back(b);
    }
    return out;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

class PositionPass : public ::testing::Test {
protected:
    void TearDown() override { hwy::SetSupportedTargetsForTest(0); }
};

TEST_F(PositionPass, LanesGiveTheScalarBitsOnEveryTargetAndBatchSize) {
    const std::vector<Body> bodies = cases();
    const float h = 1.0f / 240.0f;
    std::vector<Body> expected = bodies;
    for (Body& b : expected) scalar_pass(b, h);
    const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
    ASSERT_FALSE(targets.empty());
    std::size_t compared = 0;
    for (const std::int64_t target : targets) {
        hwy::SetSupportedTargetsForTest(target);
        const std::size_t lanes = tumble::detail::position_lanes();
        ASSERT_GE(lanes, 1u);
        ASSERT_LE(lanes, PositionLanes::kMax);
        for (std::size_t n = 1; n <= PositionLanes::kMax; ++n) {
            for (std::size_t first = 0; first + n <= bodies.size(); first += n) {
                PositionLanes batch;
                const std::size_t filled = tumble::detail::lanes_to_fill(n, lanes);
                for (std::size_t j = 0; j < filled; ++j) {
                    const Body& b = bodies[first + std::min(j, n - 1)];
                    tumble::detail::set_lane(batch, j, b.position, b.dp, b.v, b.w, b.inv, b.q, b.start);
                }
                tumble::detail::integrate_positions(batch, n, h);
                for (std::size_t j = 0; j < n; ++j) {
                    const Body& e = expected[first + j];
                    const std::string where = std::string(hwy::TargetName(target)) + ", batch of " + std::to_string(n) +
                                              ", body " + std::to_string(first + j);
                    for (int c = 0; c < 3; ++c) {
                        ASSERT_TRUE(same_bits(batch.position[c][j], e.position[c])) << where << ", position " << c;
                        ASSERT_TRUE(same_bits(batch.dp[c][j], e.dp[c])) << where << ", dp " << c;
                    }
                    if (e.inv == glm::vec3(0.0f)) continue;  // the pass keeps the rest of such a body
                    const float q[4] = {e.q.w, e.q.x, e.q.y, e.q.z};
                    for (int c = 0; c < 4; ++c) ASSERT_TRUE(same_bits(batch.q[c][j], q[c])) << where << ", q " << c;
                    for (int c = 0; c < 3; ++c) {
                        ASSERT_TRUE(same_bits(batch.w[c][j], e.w[c])) << where << ", w " << c;
                        for (int i = 0; i < 3; ++i) {
                            ASSERT_TRUE(same_bits(batch.dr[3 * c + i][j], e.dr[c][i])) << where << ", dr " << c << i;
                            ASSERT_TRUE(same_bits(batch.inv_inertia[3 * c + i][j], e.inv_inertia[c][i]))
                                << where << ", inverse inertia " << c << i;
                        }
                    }
                    ++compared;
                }
            }
        }
    }
    // Every target ran every body through batches of every size (bodies that cannot turn counted apart).
    EXPECT_GT(compared, targets.size() * 16 * 300);
}

}  // namespace
