// The soft step's position pass in SIMD lanes (solver/src/soft_positions.cpp) against the scalar code it stands for
// (tumble::detail::rotate_substep, GLM's mat3_cast and quaternion product, world_inverse_inertia), bit for bit, on
// every Highway target this CPU runs, for every batch size from 1 to PositionLanes::kMax; and the local passes of
// several manifolds in lanes, and their point friction (solver/src/soft_lanes.cpp), against the one-manifold loops of
// soft_step.cpp, the same way.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
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

// The sides of a random manifold as the lane tests draw them: velocities (`spin` scales the angular ones, rad/s),
// world inverse inertias and turns of the sides that move (own_a, own_b); zeros and the identity for the others.
template <class M>
void random_sides(M& m, std::mt19937& rng, float spin) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f), mass(0.05f, 20.0f);
    auto vec = [&](float scale) { return glm::vec3(u(rng), u(rng), u(rng)) * scale; };
    auto inertia = [&]() {
        const glm::mat3 r = glm::mat3_cast(random_rotation(rng));
        const glm::vec3 d(1.0f / mass(rng), 1.0f / mass(rng), 1.0f / mass(rng));
        return glm::mat3(r[0] * d.x, r[1] * d.y, r[2] * d.z) * glm::transpose(r);
    };
    m.va = m.own_a ? vec(2.0f) : glm::vec3(0.0f);
    m.wa = m.own_a ? vec(spin) : glm::vec3(0.0f);
    m.vb = m.own_b ? vec(2.0f) : glm::vec3(0.0f);
    m.wb = m.own_b ? vec(spin) : glm::vec3(0.0f);
    if (m.own_a) m.inertia_a = inertia();
    if (m.own_b) m.inertia_b = inertia();
    if (m.own_a) m.dra = glm::mat3_cast(random_rotation(rng));
    if (m.own_b) m.drb = glm::mat3_cast(random_rotation(rng));
}

// The same cases with side B still, as the soft step holds a triangle or a resting body: not own, inverse mass and
// inertia 0, velocities +0, no turn. The lanes' still_b variants must give them the bits of the full passes, which
// are the scalar code's.
template <class M>
std::vector<M> with_still_b(std::vector<M> cases) {
    for (M& m : cases) {
        m.own_a = true;
        m.own_b = false;
        m.inv_mass_b = 0.0f;
        m.vb = m.wb = glm::vec3(0.0f);
        m.inertia_b = glm::mat3(0.0f);
        m.drb = glm::mat3(1.0f);
    }
    return cases;
}

// The cases, then the same cases in order of their point count: the soft step fills its lane batches by point count,
// so that most batches hold manifolds of one count and the passes in lanes stop at the batch's largest count; the
// first copy mixes counts within a batch (1, 2, 3, 4, 1, ...), the second gives batches of 1-3 points only.
template <class M>
std::vector<M> and_by_count(std::vector<M> cases) {
    std::vector<M> sorted = cases;
    std::stable_sort(sorted.begin(), sorted.end(), [](const M& x, const M& y) { return x.count < y.count; });
    cases.insert(cases.end(), sorted.begin(), sorted.end());
    return cases;
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

bool same_bits(float a, float b) { return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b); }

// The sides' velocities of lane l equal, bit for bit, those of the scalar reference `e` (frames and units as
// FrictionLanes).
template <class M>
void expect_same_sides(const tumble::detail::FrictionLanes& f, int l, const M& e, const std::string& where) {
    for (int c = 0; c < 3; ++c) {
        ASSERT_TRUE(same_bits(f.va[c][l], e.va[c])) << where << ", va " << c;
        ASSERT_TRUE(same_bits(f.wa[c][l], e.wa[c])) << where << ", wa " << c;
        ASSERT_TRUE(same_bits(f.vb[c][l], e.vb[c])) << where << ", vb " << c;
        ASSERT_TRUE(same_bits(f.wb[c][l], e.wb[c])) << where << ", wb " << c;
    }
}

// Tests that force Highway targets hand the choice back to Highway after them.
class ForcesTargets : public ::testing::Test {
protected:
    void TearDown() override { hwy::SetSupportedTargetsForTest(0); }
};
class PositionPass : public ForcesTargets {};

// batch(where, first, n) for each of `targets` (forced in turn), every batch size n from 1 to kNormalLanes and every
// batch of n consecutive items of `count` from `first`; `where` names the target and the size for messages. Stops at
// the first fatal failure. (Once a target is forced, Highway reports only that one as supported: the list is taken
// before.)
template <class Batch>
void each_batch(const std::vector<std::int64_t>& targets, std::size_t count, Batch&& batch) {
    for (const std::int64_t target : targets) {
        hwy::SetSupportedTargetsForTest(target);
        for (int n = 1; n <= tumble::detail::kNormalLanes; ++n)
            for (std::size_t first = 0; first + static_cast<std::size_t>(n) <= count; first += n) {
                batch(std::string(hwy::TargetName(target)) + ", batch of " + std::to_string(n), first, n);
                if (::testing::Test::HasFatalFailure()) return;
            }
    }
}

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

namespace {

using tumble::detail::NormalLanes;

// One manifold's local passes as soft_step.cpp's `visit` runs them (its loop, on this struct): the reference the
// lanes must give bit for bit.
struct Manifold {
    int count = 1;
    float inv_masses = 0.0f;
    float vn0[4], bias[4], gain[4], impulse_scale[4], normal_mass[4], impulse[4], approach[4];
    bool met[4];
    glm::vec3 ua[4], ub[4], ia[4], ib[4];
    float pushed = 0.0f;
    glm::vec3 dw_a{0.0f}, dw_b{0.0f};
};

void scalar_passes(Manifold& m, int passes, float tolerance) {
    m.pushed = 0.0f;
    m.dw_a = m.dw_b = glm::vec3(0.0f);
    for (int pass = 0; pass < passes; ++pass) {
        float largest = 0.0f;
        for (int p = 0; p < m.count; ++p) {
            const float vn = m.vn0[p] + m.inv_masses * m.pushed + glm::dot(m.dw_b, m.ub[p]) - glm::dot(m.dw_a, m.ua[p]);
            const float impulse = m.gain[p] * (vn + m.bias[p]) - m.impulse_scale[p] * m.impulse[p];
            const float total = std::max(m.impulse[p] + impulse, 0.0f);
            const float change = total - m.impulse[p];
            m.impulse[p] = total;
            if (change == 0.0f) continue;
            if (!m.met[p] && m.impulse[p] > 0.0f) {
                m.approach[p] = vn;
                m.met[p] = true;
            }
            m.pushed += change;
            m.dw_a -= change * m.ia[p];
            m.dw_b += change * m.ib[p];
            largest = std::max(largest, std::abs(change) / m.normal_mass[p]);
        }
        if (largest <= tolerance) break;
    }
}

// Manifolds of 1-4 points as the soft step sets them up: soft points pushing out overlap, rigid ones, speculative
// ones that stay apart (bias > 0), points that pull and are clamped to zero, points already at rest (the passes
// change nothing and stop after one), and warm-started impulses; with the ±0 cases of the clamp.
std::vector<Manifold> manifolds() {
    std::mt19937 rng(20261129);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f), mass(0.05f, 20.0f);
    std::vector<Manifold> out;
    for (int i = 0; i < 600; ++i) {
        Manifold m;
        m.count = 1 + i % 4;
        m.inv_masses = 1.0f / mass(rng) + (i % 3 == 0 ? 0.0f : 1.0f / mass(rng));
        for (int p = 0; p < 4; ++p) {
            m.normal_mass[p] = mass(rng);
            m.vn0[p] = 2.0f * u(rng);
            m.bias[p] = i % 5 == 1 ? 0.5f * (u(rng) + 1.0f) : (i % 5 == 2 ? 0.0f : -3.0f * (u(rng) + 1.0f) * 0.5f);
            const float scale = i % 2 == 0 ? 0.9f : 1.0f;
            m.gain[p] = -m.normal_mass[p] * scale;
            m.impulse_scale[p] = i % 2 == 0 ? 0.05f : 0.0f;
            m.impulse[p] = i % 4 == 0 ? 0.0f : std::abs(u(rng)) * m.normal_mass[p];
            m.approach[p] = u(rng);
            m.met[p] = (i + p) % 3 == 0;
            m.ua[p] = glm::vec3(u(rng), u(rng), u(rng));
            m.ub[p] = glm::vec3(u(rng), u(rng), u(rng));
            m.ia[p] = glm::vec3(u(rng), u(rng), u(rng)) * 0.5f;
            m.ib[p] = glm::vec3(u(rng), u(rng), u(rng)) * 0.5f;
        }
        if (i % 11 == 0)  // at rest: no velocity, no bias, no impulse (every change is zero)
            for (int p = 0; p < 4; ++p) m.vn0[p] = m.bias[p] = m.impulse[p] = 0.0f;
        if (i % 13 == 0)  // pulling apart from zero: the clamp gives +0 from -0 sums
            for (int p = 0; p < 4; ++p) {
                m.impulse[p] = -0.0f;
                m.vn0[p] = 1.0f;
            }
        out.push_back(m);
    }
    return and_by_count(std::move(out));
}

void set_lane(NormalLanes& s, int l, const Manifold& m) {
    s.count[l] = m.count;
    s.inv_masses[l] = m.inv_masses;
    for (int p = 0; p < 4; ++p) {
        const bool has = p < m.count;  // an unused point holds what the soft step puts there: zeros, mass 1
        s.vn0[p][l] = has ? m.vn0[p] : 0.0f;
        s.bias[p][l] = has ? m.bias[p] : 0.0f;
        s.gain[p][l] = has ? m.gain[p] : 0.0f;
        s.impulse_scale[p][l] = has ? m.impulse_scale[p] : 0.0f;
        s.normal_mass[p][l] = has ? m.normal_mass[p] : 1.0f;
        s.impulse[p][l] = has ? m.impulse[p] : 0.0f;
        s.approach[p][l] = has ? m.approach[p] : 0.0f;
        s.met[p][l] = has && m.met[p] ? 1.0f : 0.0f;
        for (int c = 0; c < 3; ++c) {
            s.ua[p][c][l] = has ? m.ua[p][c] : 0.0f;
            s.ub[p][c][l] = has ? m.ub[p][c] : 0.0f;
            s.ia[p][c][l] = has ? m.ia[p][c] : 0.0f;
            s.ib[p][c][l] = has ? m.ib[p][c] : 0.0f;
        }
    }
}

class NormalPasses : public ForcesTargets {};

TEST_F(NormalPasses, LanesGiveTheOneManifoldBitsOnEveryTargetAndBatchSize) {
    const std::vector<Manifold> all = manifolds();
    const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
    ASSERT_FALSE(targets.empty());
    std::size_t compared = 0, stopped_early = 0, clamped = 0;
    // still_b: side B of every manifold still (I^-1 (r x n) of B zero, as set_up_in_lanes leaves it).
    std::vector<Manifold> still = all;
    for (Manifold& m : still)
        for (glm::vec3& ib : m.ib) ib = glm::vec3(0.0f);
    for (const bool still_b : {false, true})
        for (const int passes : {2, 16}) {  // the solve pass's and the relax pass's most passes
            const std::vector<Manifold>& cases = still_b ? still : all;
            std::vector<Manifold> expected = cases;
            for (Manifold& m : expected) {
                scalar_passes(m, passes, 1e-6f);
                for (int p = 0; p < m.count; ++p) clamped += m.impulse[p] == 0.0f ? 1 : 0;
            }
            each_batch(targets, all.size(), [&](const std::string& batch, std::size_t first, int n) {
                NormalLanes lanes;
                for (int l = 0; l < tumble::detail::kNormalLanes; ++l) {
                    if (l < n) {
                        set_lane(lanes, l, cases[first + static_cast<std::size_t>(l)]);
                    } else {  // an idle lane, as the soft step leaves it: no points
                        Manifold idle{};
                        idle.count = 0;
                        set_lane(lanes, l, idle);
                    }
                }
                tumble::detail::normal_passes_in_lanes(lanes, passes, 1e-6f, still_b);
                for (int l = 0; l < n; ++l) {
                    const Manifold& e = expected[first + static_cast<std::size_t>(l)];
                    const std::string where = batch + (still_b ? ", still B, " : ", ") + std::to_string(passes) +
                                              " passes, manifold " +
                                              std::to_string(first + static_cast<std::size_t>(l));
                    ASSERT_TRUE(same_bits(lanes.pushed[l], e.pushed)) << where << ", pushed";
                    for (int c = 0; c < 3; ++c) {
                        ASSERT_TRUE(same_bits(lanes.dwa[c][l], e.dw_a[c])) << where << ", dw_a " << c;
                        ASSERT_TRUE(same_bits(lanes.dwb[c][l], e.dw_b[c])) << where << ", dw_b " << c;
                    }
                    for (int p = 0; p < e.count; ++p) {
                        ASSERT_TRUE(same_bits(lanes.impulse[p][l], e.impulse[p])) << where << ", impulse " << p;
                        ASSERT_TRUE(same_bits(lanes.approach[p][l], e.approach[p])) << where << ", approach " << p;
                        ASSERT_EQ(lanes.met[p][l] != 0.0f, e.met[p]) << where << ", met " << p;
                    }
                    ++compared;
                }
            });
            ASSERT_FALSE(HasFatalFailure());
            // How many of the manifolds stop before the last pass (the lanes must stop each at its own pass).
            for (const Manifold& m : all) {
                Manifold once = m, twice = m;
                scalar_passes(once, passes - 1, 1e-6f);
                scalar_passes(twice, passes, 1e-6f);
                stopped_early += same_bits(once.pushed, twice.pushed) ? 1 : 0;
            }
        }
    // Every target ran every manifold through batches of every size; the cases reach the early stop and the clamp.
    EXPECT_GT(compared, targets.size() * 2 * 8 * 550);
    EXPECT_GT(stopped_early, 200u);  // 270 of the 1,200 runs
    EXPECT_GT(clamped, 100u);
}

}  // namespace

namespace {

using tumble::detail::FrictionLanes;

// One manifold's point friction as soft_step.cpp's `point_friction` runs it (its loop, on this struct): the reference
// the lanes must give bit for bit. A side that is not `own` is a body that does not move (it takes no impulse, and its
// friction anchor is not turned).
struct Rubbing {
    int count = 1;
    float friction = 0.5f, bias_rate = 0.0f, inv_mass_a = 0.0f, inv_mass_b = 0.0f;
    bool own_a = true, own_b = true;
    glm::vec3 t1{1.0f, 0.0f, 0.0f}, t2{0.0f, 1.0f, 0.0f}, dx{0.0f}, va{0.0f}, wa{0.0f}, vb{0.0f}, wb{0.0f};
    glm::mat3 inertia_a{0.0f}, inertia_b{0.0f}, dra{1.0f}, drb{1.0f};
    glm::vec3 ra[4], rb[4], fa[4], fb[4];
    glm::vec2 tangent_mass[4], tangent_impulse[4];
    float normal_impulse[4];
};

void scalar_friction(Rubbing& m, bool use_bias) {
    for (int p = 0; p < m.count; ++p) {
        const glm::vec3 dv = (m.vb + glm::cross(m.wb, m.rb[p])) - (m.va + glm::cross(m.wa, m.ra[p]));
        glm::vec2 target(0.0f);
        if (use_bias && m.normal_impulse[p] > 0.0f) {
            const glm::vec3 slip =
                m.dx + ((m.own_b ? m.drb * m.fb[p] : m.fb[p]) - (m.own_a ? m.dra * m.fa[p] : m.fa[p]));
            target = -m.bias_rate * glm::vec2(glm::dot(slip, m.t1), glm::dot(slip, m.t2));
        }
        const glm::vec2 old = m.tangent_impulse[p];
        glm::vec2 total = old + glm::vec2(m.tangent_mass[p][0] * (target.x - glm::dot(dv, m.t1)),
                                          m.tangent_mass[p][1] * (target.y - glm::dot(dv, m.t2)));
        const float limit = m.friction * m.normal_impulse[p];
        const float length2 = glm::dot(total, total);
        if (length2 > limit * limit) total *= limit / std::sqrt(length2);
        m.tangent_impulse[p] = total;
        const glm::vec2 change = total - old;
        const glm::vec3 impulse = change.x * m.t1 + change.y * m.t2;
        if (m.own_a) {
            m.va += m.inv_mass_a * -impulse;
            m.wa += m.inertia_a * glm::cross(m.ra[p], -impulse);
        }
        if (m.own_b) {
            m.vb += m.inv_mass_b * impulse;
            m.wb += m.inertia_b * glm::cross(m.rb[p], impulse);
        }
    }
}

// Sliding and sticking points (limits reached and not), both sides moving or one still, points with no normal impulse
// (no bias, limit 0), and tangents from random normals.
std::vector<Rubbing> rubbings() {
    std::mt19937 rng(20261130);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f), mass(0.05f, 20.0f);
    auto vec = [&](float scale) { return glm::vec3(u(rng), u(rng), u(rng)) * scale; };
    std::vector<Rubbing> out;
    for (int i = 0; i < 600; ++i) {
        Rubbing m;
        m.count = 1 + i % 4;
        m.friction = i % 7 == 0 ? 0.05f : 0.6f;
        m.bias_rate = 30.0f * (u(rng) + 1.0f);
        m.own_a = i % 3 != 0;
        m.own_b = i % 5 != 0 || !m.own_a;
        m.inv_mass_a = m.own_a ? 1.0f / mass(rng) : 0.0f;
        m.inv_mass_b = m.own_b ? 1.0f / mass(rng) : 0.0f;
        const glm::vec3 n = glm::normalize(vec(1.0f) + glm::vec3(0.0f, 0.0f, 1e-3f));
        m.t1 = glm::normalize(
            glm::cross(n, std::abs(n.x) < 0.6f ? glm::vec3(1.0f, 0.0f, 0.0f) : glm::vec3(0.0f, 1.0f, 0.0f)));
        m.t2 = glm::cross(n, m.t1);
        m.dx = vec(0.01f);
        random_sides(m, rng, 3.0f);
        for (int p = 0; p < 4; ++p) {
            m.ra[p] = vec(0.5f);
            m.rb[p] = vec(0.5f);
            m.fa[p] = vec(0.5f);
            m.fb[p] = vec(0.5f);
            m.tangent_mass[p] = glm::vec2(mass(rng), mass(rng));
            m.tangent_impulse[p] = glm::vec2(u(rng), u(rng)) * (i % 2 == 0 ? 0.01f : 1.0f);
            m.normal_impulse[p] = (i + p) % 6 == 0 ? 0.0f : std::abs(u(rng)) * 4.0f;
        }
        out.push_back(m);
    }
    return and_by_count(std::move(out));
}

void set_lane(FrictionLanes& s, int l, const Rubbing& m) {
    s.count[l] = m.count;
    s.friction[l] = m.friction;
    s.bias_rate[l] = m.bias_rate;
    s.own_a[l] = m.own_a ? 1.0f : 0.0f;
    s.own_b[l] = m.own_b ? 1.0f : 0.0f;
    s.inv_mass_a[l] = m.inv_mass_a;
    s.inv_mass_b[l] = m.inv_mass_b;
    tumble::detail::set_friction_frame(s, l, m.t1, m.t2, m.dx, m.va, m.wa, m.vb, m.wb, m.inertia_a, m.inertia_b, m.dra,
                                       m.drb);
    for (int p = 0; p < 4; ++p)
        tumble::detail::set_friction_point(s, l, p, m.ra[p], m.rb[p], m.fa[p], m.fb[p], m.tangent_mass[p],
                                           m.tangent_impulse[p], m.normal_impulse[p]);
}

class FrictionPass : public ForcesTargets {};

TEST_F(FrictionPass, LanesGiveTheOneManifoldBitsOnEveryTargetAndBatchSize) {
    const std::vector<Rubbing> all = rubbings();
    const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
    ASSERT_FALSE(targets.empty());
    std::size_t compared = 0, sliding = 0;
    const std::vector<Rubbing> still = with_still_b(all);
    for (const bool still_b : {false, true})
        for (const bool use_bias : {true, false}) {
            const std::vector<Rubbing>& cases = still_b ? still : all;
            std::vector<Rubbing> expected = cases;
            for (Rubbing& m : expected) {
                const Rubbing before = m;
                scalar_friction(m, use_bias);
                for (int p = 0; p < m.count; ++p)  // the cone's limit reached: the point slides
                    sliding += glm::length(m.tangent_impulse[p]) >= m.friction * m.normal_impulse[p] * 0.999f &&
                                       m.normal_impulse[p] > 0.0f && m.tangent_impulse[p] != before.tangent_impulse[p]
                                   ? 1
                                   : 0;
            }
            each_batch(targets, all.size(), [&](const std::string& batch, std::size_t first, int n) {
                FrictionLanes lanes;
                for (int l = 0; l < tumble::detail::kNormalLanes; ++l) {
                    Rubbing idle{};
                    idle.count = 0;
                    for (int p = 0; p < 4; ++p) {  // as the soft step leaves an idle lane: zeros
                        idle.ra[p] = idle.rb[p] = idle.fa[p] = idle.fb[p] = glm::vec3(0.0f);
                        idle.tangent_mass[p] = idle.tangent_impulse[p] = glm::vec2(0.0f);
                        idle.normal_impulse[p] = 0.0f;
                    }
                    set_lane(lanes, l, l < n ? cases[first + static_cast<std::size_t>(l)] : idle);
                }
                tumble::detail::friction_in_lanes(lanes, use_bias, still_b);
                for (int l = 0; l < n; ++l) {
                    const Rubbing& e = expected[first + static_cast<std::size_t>(l)];
                    const std::string where = batch + (still_b ? ", still B" : "") +
                                              (use_bias ? ", solve pass" : ", relax pass") + ", manifold " +
                                              std::to_string(first + static_cast<std::size_t>(l));
                    ASSERT_NO_FATAL_FAILURE(expect_same_sides(lanes, l, e, where));
                    for (int p = 0; p < e.count; ++p)
                        for (int j = 0; j < 2; ++j)
                            ASSERT_TRUE(same_bits(lanes.tangent_impulse[p][j][l], e.tangent_impulse[p][j]))
                                << where << ", tangent impulse " << p << j;
                    ++compared;
                }
            });
            ASSERT_FALSE(HasFatalFailure());
        }
    // Every target ran every manifold through batches of every size; the cases reach the friction cone's limit.
    EXPECT_GT(compared, targets.size() * 2 * 8 * 550);
    EXPECT_GT(sliding, 200u);
}

}  // namespace

namespace {

using tumble::detail::SetUpLanes;

// One manifold's set-up and finish as soft_step.cpp's `set_up` (with `locate`) and `finish_normal` run them (their code,
// on this struct): the reference set_up_in_lanes and finish_in_lanes must give bit for bit. A side that is not `own` is
// a body that does not move (no turn, no impulse).
struct Visit {
    int count = 1;
    bool own_a = true, own_b = true;
    float inv_mass_a = 0.0f, inv_mass_b = 0.0f, friction = 0.5f, bias_rate = 0.0f, mass_scale = 1.0f,
          impulse_scale = 0.0f, twist = 0.0f;
    glm::vec3 n{0.0f, 0.0f, 1.0f}, offset{0.0f}, dpa{0.0f}, dpb{0.0f}, dx{0.0f}, va{0.0f}, wa{0.0f}, vb{0.0f}, wb{0.0f};
    glm::mat3 inertia_a{0.0f}, inertia_b{0.0f}, dra{1.0f}, drb{1.0f};
    glm::vec3 arm_a[4], arm_b[4], ra[4], rb[4], ia[4], ib[4], ua[4], ub[4];
    float separation[4], s[4], normal_mass[4], impulse[4], vn0[4], bias[4], gain[4], scale[4];
    float inv_masses = 0.0f;
    // The local passes' result that finish_normal applies.
    float pushed = 0.0f;
    glm::vec3 dwa{0.0f}, dwb{0.0f};
};

void scalar_set_up(Visit& m, bool locate, bool fresh, bool use_bias, float inv_h, float max_push) {
    m.inv_masses = m.inv_mass_a + m.inv_mass_b;
    if (locate) {
        m.dx = m.offset + (m.dpb - m.dpa);
        for (int p = 0; p < m.count; ++p) {
            const glm::vec3 pra = m.own_a ? m.dra * m.arm_a[p] : m.arm_a[p];
            const glm::vec3 prb = m.own_b ? m.drb * m.arm_b[p] : m.arm_b[p];
            m.s[p] = glm::dot(m.dx + prb - pra, m.n) + m.separation[p];
            m.ra[p] = 0.5f * (pra + prb + m.dx);
            m.rb[p] = m.ra[p] - m.dx;
        }
    }
    for (int p = 0; p < m.count; ++p) {
        m.ua[p] = glm::cross(m.ra[p], m.n);
        m.ub[p] = glm::cross(m.rb[p], m.n);
        if (fresh) {
            m.ia[p] = m.own_a ? m.inertia_a * m.ua[p] : glm::vec3(0.0f);
            m.ib[p] = m.own_b ? m.inertia_b * m.ub[p] : glm::vec3(0.0f);
        }
        m.vn0[p] = glm::dot((m.vb + glm::cross(m.wb, m.rb[p])) - (m.va + glm::cross(m.wa, m.ra[p])), m.n);
        const float sep = m.s[p];
        m.bias[p] = 0.0f;
        m.gain[p] = -m.normal_mass[p];
        m.scale[p] = 0.0f;
        if (sep > 0.0f) {
            m.bias[p] = sep * inv_h;
        } else if (use_bias) {
            m.bias[p] = std::max(m.bias_rate * sep, -max_push);
            m.gain[p] = -m.normal_mass[p] * m.mass_scale;
            m.scale[p] = m.impulse_scale;
        }
    }
}

void scalar_finish(Visit& m, float torsion_radius) {
    if (m.own_a) {
        m.va -= (m.inv_mass_a * m.pushed) * m.n;
        m.wa += m.dwa;
    }
    if (m.own_b) {
        m.vb += (m.inv_mass_b * m.pushed) * m.n;
        m.wb += m.dwb;
    }
    if (!(m.friction > 0.0f) || m.count != 1) return;
    const float limit = m.friction * torsion_radius * m.impulse[0];
    const glm::vec3 ja = m.own_a ? m.inertia_a * m.n : glm::vec3(0.0f);
    const glm::vec3 jb = m.own_b ? m.inertia_b * m.n : glm::vec3(0.0f);
    const float k = glm::dot(m.n, ja) + glm::dot(m.n, jb);
    if (!(k > 0.0f)) return;
    const float old = m.twist;
    const float total = std::clamp(old - glm::dot(m.wb - m.wa, m.n) / k, -limit, limit);
    m.twist = total;
    if (m.own_a) m.wa -= (total - old) * ja;
    if (m.own_b) m.wb += (total - old) * jb;
}

// Manifolds of 1-4 points between two moving bodies or a body and a side that does not move, turned bodies,
// speculative points (separation > 0), overlaps pushed out at the speed limit and below it, points with and without
// friction, and one-point contacts whose torsional friction reaches its limit or not.
std::vector<Visit> visits() {
    std::mt19937 rng(20261201);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f), mass(0.05f, 20.0f);
    auto vec = [&](float scale) { return glm::vec3(u(rng), u(rng), u(rng)) * scale; };
    std::vector<Visit> out;
    for (int i = 0; i < 600; ++i) {
        Visit m;
        m.count = i % 3 == 0 ? 1 : 1 + i % 4;
        m.own_a = i % 3 != 1;
        m.own_b = i % 5 != 0 || !m.own_a;
        m.inv_mass_a = m.own_a ? 1.0f / mass(rng) : 0.0f;
        m.inv_mass_b = m.own_b ? 1.0f / mass(rng) : 0.0f;
        m.friction = i % 7 == 0 ? 0.0f : 0.6f;
        m.bias_rate = 40.0f * (u(rng) + 1.0f);
        m.mass_scale = 0.5f + 0.4f * u(rng);
        m.impulse_scale = 0.1f * (u(rng) + 1.0f);
        m.twist = 0.002f * u(rng);
        m.n = glm::normalize(vec(1.0f) + glm::vec3(0.0f, 0.0f, 1e-3f));
        m.offset = vec(1.0f);
        m.dpa = m.own_a ? vec(0.01f) : glm::vec3(0.0f);
        m.dpb = m.own_b ? vec(0.01f) : glm::vec3(0.0f);
        m.dx = vec(1.0f);
        const float spin = i % 6 == 3 ? 1e-4f : (i % 2 == 0 ? 0.05f : 3.0f);  // slow: torsion within its limit
        random_sides(m, rng, spin);
        for (int p = 0; p < 4; ++p) {
            m.arm_a[p] = vec(0.5f);
            m.arm_b[p] = vec(0.5f);
            m.ra[p] = vec(0.5f);
            m.rb[p] = vec(0.5f);
            m.ia[p] = vec(0.3f);
            m.ib[p] = vec(0.3f);
            m.separation[p] = (i + p) % 4 == 0 ? 0.02f * (u(rng) + 1.0f) : -0.05f * (u(rng) + 1.0f);
            m.s[p] = (i + p) % 5 == 0 ? 0.02f * (u(rng) + 1.0f) : -0.05f * (u(rng) + 1.0f);
            m.normal_mass[p] = mass(rng);
            m.impulse[p] = std::abs(u(rng)) * (i % 4 == 0 ? 0.01f : 2.0f);
        }
        m.pushed = u(rng);
        m.dwa = vec(spin < 1e-3f ? 1e-5f : 0.5f);
        m.dwb = vec(spin < 1e-3f ? 1e-5f : 0.5f);
        out.push_back(m);
    }
    return and_by_count(std::move(out));
}

// Lane l of the three lane structures holding `m` (the entries soft_step.cpp's `load_lane` fills; points `m` does not
// have: zeros, effective mass 1).
void set_lane(SetUpLanes& u, NormalLanes& nl, FrictionLanes& f, int l, const Visit& m) {
    u.count[l] = m.count;
    nl.count[l] = m.count;
    u.mass_scale[l] = m.mass_scale;
    u.impulse_scale[l] = m.impulse_scale;
    u.twist[l] = m.twist;
    f.count[l] = m.friction > 0.0f ? m.count : 0;
    f.friction[l] = m.friction;
    f.bias_rate[l] = m.bias_rate;
    f.own_a[l] = m.own_a ? 1.0f : 0.0f;
    f.own_b[l] = m.own_b ? 1.0f : 0.0f;
    f.inv_mass_a[l] = m.inv_mass_a;
    f.inv_mass_b[l] = m.inv_mass_b;
    tumble::detail::set_friction_frame(f, l, glm::vec3(1.0f, 0.0f, 0.0f), glm::vec3(0.0f, 1.0f, 0.0f), m.dx, m.va, m.wa,
                                       m.vb, m.wb, m.inertia_a, m.inertia_b, m.dra, m.drb);
    nl.pushed[l] = m.pushed;
    for (int c = 0; c < 3; ++c) {
        u.normal[c][l] = m.n[c];
        u.offset[c][l] = m.offset[c];
        u.dpa[c][l] = m.dpa[c];
        u.dpb[c][l] = m.dpb[c];
        nl.dwa[c][l] = m.dwa[c];
        nl.dwb[c][l] = m.dwb[c];
    }
    const glm::vec3 zero(0.0f);
    for (int p = 0; p < 4; ++p) {
        const bool has = p < m.count;
        tumble::detail::set_friction_point(f, l, p, has ? m.ra[p] : zero, has ? m.rb[p] : zero, zero, zero,
                                           glm::vec2(0.0f), glm::vec2(0.0f), 0.0f);
        u.separation[p][l] = has ? m.separation[p] : 0.0f;
        u.s[p][l] = has ? m.s[p] : 0.0f;
        nl.normal_mass[p][l] = has ? m.normal_mass[p] : 1.0f;
        nl.impulse[p][l] = has ? m.impulse[p] : 0.0f;
        nl.approach[p][l] = nl.met[p][l] = 0.0f;
        for (int c = 0; c < 3; ++c) {
            u.arm_a[p][c][l] = has ? m.arm_a[p][c] : 0.0f;
            u.arm_b[p][c][l] = has ? m.arm_b[p][c] : 0.0f;
            nl.ia[p][c][l] = has ? m.ia[p][c] : 0.0f;
            nl.ib[p][c][l] = has ? m.ib[p][c] : 0.0f;
            nl.ua[p][c][l] = nl.ub[p][c][l] = 0.0f;
        }
        nl.vn0[p][l] = nl.bias[p][l] = nl.gain[p][l] = nl.impulse_scale[p][l] = 0.0f;
    }
}

// An idle lane's manifold, as the soft step leaves it: no points, zeros, effective masses 1.
Visit idle_visit() {
    Visit idle{};
    idle.count = 0;
    for (int p = 0; p < 4; ++p) {
        idle.arm_a[p] = idle.arm_b[p] = idle.ra[p] = idle.rb[p] = idle.ia[p] = idle.ib[p] = glm::vec3(0.0f);
        idle.separation[p] = idle.s[p] = idle.impulse[p] = 0.0f;
        idle.normal_mass[p] = 1.0f;
    }
    return idle;
}

class SetUpAndFinish : public ForcesTargets {};

TEST_F(SetUpAndFinish, LanesGiveTheOneManifoldBitsOnEveryTargetAndBatchSize) {
    const std::vector<Visit> all = visits();
    const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
    ASSERT_FALSE(targets.empty());
    const float inv_h = 240.0f, max_push = 3.0f, radius = 0.005f;
    struct Pass {
        const char* name;
        bool locate, fresh, use_bias;
    };
    // The solve pass of the first substep and of the later ones, and the relax pass.
    const Pass passes[] = {{"first solve pass", false, true, true},
                           {"later solve pass", false, false, true},
                           {"relax pass", true, true, false}};
    std::size_t compared = 0, speculative = 0, at_push_limit = 0, twisted = 0, at_twist_limit = 0;
    const std::vector<Visit> still = with_still_b(all);
    for (const bool still_b : {false, true})
        for (const Pass& pass : passes) {
            const std::vector<Visit>& cases = still_b ? still : all;
            std::vector<Visit> expected = cases;
            for (Visit& m : expected) {
                scalar_set_up(m, pass.locate, pass.fresh, pass.use_bias, inv_h, max_push);
                const float before = m.twist;
                scalar_finish(m, radius);
                for (int p = 0; p < m.count; ++p) {
                    speculative += m.s[p] > 0.0f ? 1 : 0;
                    at_push_limit += m.bias[p] == -max_push ? 1 : 0;
                }
                twisted += m.twist != before ? 1 : 0;
                at_twist_limit +=
                    m.twist != before && std::abs(m.twist) == m.friction * radius * m.impulse[0] && m.twist != 0.0f ? 1
                                                                                                                    : 0;
            }
            each_batch(targets, all.size(), [&](const std::string& batch, std::size_t first, int n) {
                SetUpLanes u;
                NormalLanes nl;
                FrictionLanes f;
                for (int l = 0; l < tumble::detail::kNormalLanes; ++l)
                    set_lane(u, nl, f, l, l < n ? cases[first + static_cast<std::size_t>(l)] : idle_visit());
                tumble::detail::set_up_in_lanes(u, nl, f, pass.locate, pass.fresh, pass.use_bias, inv_h, max_push,
                                                still_b);
                tumble::detail::finish_in_lanes(u, nl, f, radius, still_b);
                for (int l = 0; l < n; ++l) {
                    const Visit& e = expected[first + static_cast<std::size_t>(l)];
                    const std::string where = batch + (still_b ? ", still B, " : ", ") + pass.name + ", manifold " +
                                              std::to_string(first + static_cast<std::size_t>(l));
                    ASSERT_TRUE(same_bits(nl.inv_masses[l], e.inv_masses)) << where << ", inverse masses";
                    ASSERT_TRUE(same_bits(u.twist[l], e.twist)) << where << ", twist";
                    ASSERT_NO_FATAL_FAILURE(expect_same_sides(f, l, e, where));
                    for (int c = 0; c < 3 && pass.locate; ++c)
                        ASSERT_TRUE(same_bits(f.dx[c][l], e.dx[c])) << where << ", dx " << c;
                    for (int p = 0; p < e.count; ++p) {
                        const std::string at = where + ", point " + std::to_string(p);
                        ASSERT_TRUE(same_bits(nl.vn0[p][l], e.vn0[p])) << at << ", vn0";
                        ASSERT_TRUE(same_bits(nl.bias[p][l], e.bias[p])) << at << ", bias";
                        ASSERT_TRUE(same_bits(nl.gain[p][l], e.gain[p])) << at << ", gain";
                        ASSERT_TRUE(same_bits(nl.impulse_scale[p][l], e.scale[p])) << at << ", impulse scale";
                        ASSERT_TRUE(same_bits(f.normal_impulse[p][l], e.impulse[p])) << at << ", normal impulse";
                        if (pass.locate) {
                            ASSERT_TRUE(same_bits(u.s[p][l], e.s[p])) << at << ", separation";
                        }
                        for (int c = 0; c < 3; ++c) {
                            ASSERT_TRUE(same_bits(nl.ua[p][c][l], e.ua[p][c])) << at << ", ua " << c;
                            ASSERT_TRUE(same_bits(nl.ub[p][c][l], e.ub[p][c])) << at << ", ub " << c;
                            ASSERT_TRUE(same_bits(nl.ia[p][c][l], e.ia[p][c])) << at << ", ia " << c;
                            ASSERT_TRUE(same_bits(nl.ib[p][c][l], e.ib[p][c])) << at << ", ib " << c;
                            if (pass.locate) {
                                ASSERT_TRUE(same_bits(f.ra[p][c][l], e.ra[p][c])) << at << ", ra " << c;
                                ASSERT_TRUE(same_bits(f.rb[p][c][l], e.rb[p][c])) << at << ", rb " << c;
                            }
                        }
                    }
                    ++compared;
                }
            });
            ASSERT_FALSE(HasFatalFailure());
        }
    // Every target ran every manifold through batches of every size, in each pass; the cases reach the speculative
    // points, the push-out speed limit, and torsional friction within and at its limit.
    std::printf(
        "[ lanes    ] %zu compared; %zu speculative points, %zu at the push limit, %zu twisted, %zu at the "
        "twist limit\n",
        compared, speculative, at_push_limit, twisted, at_twist_limit);
    EXPECT_GT(compared, targets.size() * 3 * 8 * 550);
    EXPECT_GT(speculative, 300u);
    EXPECT_GT(at_push_limit, 100u);
    EXPECT_GT(twisted - at_twist_limit, 30u);
    EXPECT_GT(at_twist_limit, 30u);
}

}  // namespace

namespace {

// One manifold's warm start as soft_step.cpp runs it (its code, on a Visit): each point's accumulated impulses along
// the normal and the tangents t1 = x, t2 = y of this test, applied at its arms to the sides that move; then a one-point
// contact's torsional impulse.
void scalar_warm_start(Visit& m, const glm::vec2 (&tangent)[4]) {
    const glm::vec3 t1(1.0f, 0.0f, 0.0f), t2(0.0f, 1.0f, 0.0f);
    for (int p = 0; p < m.count; ++p) {
        const glm::vec3 impulse = m.impulse[p] * m.n + tangent[p].x * t1 + tangent[p].y * t2;
        if (impulse == glm::vec3(0.0f)) continue;
        if (m.own_a) {
            m.va += m.inv_mass_a * -impulse;
            m.wa += m.inertia_a * glm::cross(m.ra[p], -impulse);
        }
        if (m.own_b) {
            m.vb += m.inv_mass_b * impulse;
            m.wb += m.inertia_b * glm::cross(m.rb[p], impulse);
        }
    }
    if (m.twist != 0.0f) {
        if (m.own_a) m.wa -= m.twist * (m.inertia_a * m.n);
        if (m.own_b) m.wb += m.twist * (m.inertia_b * m.n);
    }
}

class WarmStart : public ForcesTargets {};

TEST_F(WarmStart, LanesGiveTheOneManifoldBitsOnEveryTargetAndBatchSize) {
    std::vector<Visit> all = visits();
    // Tangent impulses, and the cases the code skips: points with no impulse at all, and manifolds with no twist.
    std::mt19937 rng(20261202);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<std::array<glm::vec2, 4>> tangents(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        for (int p = 0; p < 4; ++p) {
            tangents[i][static_cast<std::size_t>(p)] = glm::vec2(u(rng), u(rng)) * 0.3f;
            if ((i + static_cast<std::size_t>(p)) % 5 == 0) {
                all[i].impulse[p] = 0.0f;
                tangents[i][static_cast<std::size_t>(p)] = glm::vec2(i % 2 == 0 ? 0.0f : -0.0f, 0.0f);
            }
        }
        if (i % 3 == 1) all[i].twist = 0.0f;
        // Bodies at rest, with velocities of -0, and no impulse to apply: adding the zero impulses would turn some of
        // those into +0, so only skipping the points without impulse, as the code does, keeps their bits.
        if (i % 10 == 4) {
            all[i].va = all[i].wa = all[i].vb = all[i].wb = glm::vec3(-0.0f);
            all[i].twist = 0.0f;
            for (int p = 0; p < 4; ++p) {
                all[i].impulse[p] = 0.0f;
                tangents[i][static_cast<std::size_t>(p)] = glm::vec2(0.0f);
            }
        }
    }
    const std::vector<Visit> still = with_still_b(all);
    const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
    ASSERT_FALSE(targets.empty());
    std::size_t skipped = 0, twisted = 0, compared = 0;
    for (const bool still_b : {false, true}) {
        const std::vector<Visit>& cases = still_b ? still : all;
        std::vector<Visit> expected = cases;
        for (std::size_t i = 0; i < cases.size(); ++i) {
            glm::vec2 t[4];
            for (int p = 0; p < 4; ++p) t[p] = tangents[i][static_cast<std::size_t>(p)];
            scalar_warm_start(expected[i], t);
            for (int p = 0; p < cases[i].count; ++p)
                skipped += cases[i].impulse[p] == 0.0f && t[p] == glm::vec2(0.0f) ? 1 : 0;
            twisted += cases[i].twist != 0.0f ? 1 : 0;
        }
        each_batch(targets, cases.size(), [&](const std::string& batch, std::size_t first, int n) {
            SetUpLanes s;
            NormalLanes nl;
            FrictionLanes f;
            for (int l = 0; l < tumble::detail::kNormalLanes; ++l) {
                const bool used = l < n;
                const std::size_t i = first + static_cast<std::size_t>(l);
                set_lane(s, nl, f, l, used ? cases[i] : idle_visit());
                for (int p = 0; p < 4; ++p)
                    for (int j = 0; j < 2; ++j)
                        f.tangent_impulse[p][j][l] =
                            used && p < cases[i].count ? tangents[i][static_cast<std::size_t>(p)][j] : 0.0f;
            }
            tumble::detail::warm_start_in_lanes(s, nl, f, still_b);
            for (int l = 0; l < n; ++l) {
                const Visit& e = expected[first + static_cast<std::size_t>(l)];
                const std::string where = batch + (still_b ? ", still B" : "") + ", manifold " +
                                          std::to_string(first + static_cast<std::size_t>(l));
                ASSERT_NO_FATAL_FAILURE(expect_same_sides(f, l, e, where));
                ++compared;
            }
        });
        ASSERT_FALSE(HasFatalFailure());
    }
    // Every target ran every manifold through batches of every size; the cases reach the skipped points and the twist.
    EXPECT_GT(compared, targets.size() * 8 * 550);
    EXPECT_GT(skipped, 200u);
    EXPECT_GT(twisted, 200u);
}

}  // namespace
