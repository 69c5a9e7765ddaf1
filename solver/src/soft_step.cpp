// The soft step (SolverMethod::soft_step; see position_solver.hpp for the contract).
//
// Sources:
// - Catto, "Solver2D" (2024) and Box2D v3 (`solver.c`, `contact_solver.c`): the substep loop of the soft step
//   (integrate velocities, warm start, solve with bias, integrate positions, relax without bias; restitution after
//   the substeps), soft contact constraints (a spring-damper of 30 Hz and damping ratio 10, twice as stiff against
//   static bodies, stepped implicitly), push-out of overlap at no more than 3 m/s, speculative points that act only
//   when they would close within the substep, and anchors fixed for the step whose separation follows the bodies'
//   motion: s = (dp_b - dp_a + dR_b r_b - dR_a r_a) . n + (s_0 - (r_b - r_a) . n).
// - Catto, "Iterative Dynamics with Temporal Coherence" (GDC 2005): sequential impulses with accumulated impulses
//   clamped (normal >= 0, friction within the Coulomb cone) and warm-started from the last solve.
// - Duff, Burgess, Christensen, Hery, Kensler, Liani and Villemin, "Building an Orthonormal Basis, Revisited" (JCGT
//   2017): the friction tangents of a normal.
// Free rotation between the solves uses the same angular-momentum-preserving substep as the XPBD method
// (solver_internal.hpp).
//
// Frames: arms r_a, r_b, normals, tangents and impulses are world frame; the arms are taken at the start of the step
// and are not turned with the bodies (as Box2D v3). Impulses are N s and apply +P to B at r_b and -P to A at r_a.

#include <tumble/solver/position_solver.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <numbers>

#include <tumble/core/assert.hpp>
#include <tumble/core/parallel_sort.hpp>

#include "solver_internal.hpp"

namespace tumble {

namespace {
using namespace detail;

// Box2D v3's defaults (b2DefaultWorldDef): damping ratio 10, push-out speed 3 m/s (the stiffness is
// SolverSettings::contact_hertz).
constexpr float kContactDampingRatio = 10.0f;
constexpr float kContactSpeed = 3.0f;
// Radius (metres) of the contact patch that a one-point contact's torsional friction assumes: the largest torque it
// exerts about its normal is friction times this times its normal force (PhysX's torsional patch radius). MuJoCo's
// contacts with torsional friction (Todorov, Erez and Tassa, "MuJoCo: A physics engine for model-based control",
// IROS 2012) default to a torque of at most 0.005 m times the normal force, the same size. Contacts of two or more
// points resist spin through their points' friction and get none: on the four-point faces of a column of cubes it
// fought the static friction's correction of rotational slip and let the column lean (9.9 cm in the column test at
// this radius).
constexpr float kTorsionPatchRadius = 0.005f;
// Most passes over one manifold's points in a relax or restitution pass (which set the velocities the bodies leave
// with) and in a solve pass, and the velocity change (m/s) below which its points count as agreeing. Measured: one
// pass in the solve left a square inelastic hit spinning at 0.009 rad/s, two leave 5e-7; eight in the solve too cost
// half as much again on Box2D's large pyramid for nothing the tests see.
constexpr int kLocalPasses = 8;
constexpr int kSolveLocalPasses = 2;
constexpr float kLocalTolerance = 1e-5f;
// The solve and relax passes push a manifold's points without touching the bodies until the end (the inertia
// products done once per point), which makes a local pass cheap enough for the relax pass to run up to 16 of them, to
// 1e-6 m/s. Measured on this solver's tests, (passes, tolerance) = (16, 1e-6): the 20-row pyramid kept awake creeps
// 0.82 mm between 5 s and 15 s and a column of ten cubes leans 4.8 mm (SoftStep tests: < 1 mm and < 8.7 mm). Both are
// chaotic measures: a change of round-off alone moved them over 0.17-4.2 mm and 1.4-4.8 mm with this solver, and over
// 0.73-1.87 mm and 1.4-7.4 mm with the point-by-point pushes before it (docs/benchmarks.md).
constexpr int kBlockPasses = 16;
constexpr float kBlockTolerance = 1e-6f;
// The manifold packing's prefetch distance (manifolds), and how much of a ContactManifold it fetches.
constexpr std::uint32_t kManifoldsAhead = 8;
constexpr std::size_t kPackedBytes = sizeof(ContactManifold);
// A blocked island's passes (each_manifold) fetch a manifold's scratch (its SoftManifold, points and SoftNow, 644
// bytes over three arrays) this many manifolds ahead: the 1e5 pile's solve took 3-5 % less with 4 or 8.
constexpr std::uint32_t kBlockAhead = 8;
// Islands with at least this many manifolds and at least 1 / kColouredShare of all the step's manifolds are coloured
// and solved colour by colour on all threads (Box2D v3's constraint graph colouring); the others (coloured too, in
// groups) run on one thread each, as many at once as there are threads. Spreading every island of 256 manifolds or
// more over the threads made 1e4 boxes in the medium level slower on 2 threads (41 ms a step against 33): its many
// mid-sized islands had kept both threads busy on their own, and colour by colour each waits for the other thread at
// every colour.
constexpr std::uint32_t kColouredIsland = 256;
constexpr std::uint64_t kColouredShare = 4;
// Islands beyond this many manifolds are coloured by blocks of nearby manifolds instead (block_island): colour by
// colour, a pile of 1e5 boxes in the medium level took 1,635 ms a step on 2 threads (2,901 ms of CPU) against
// 1,355 ms (1,922) whole on one thread, since each colour visited the whole island; in blocks it takes 1,094 ms.
// Box2D's base-100 pyramid (14,950 manifolds) is coloured manifold by manifold: 48 ms instead of 67.
constexpr std::uint32_t kColouredIslandMax = 65536;
// Fewest items per chunk of a coloured island's passes. A pass is cut into one chunk per thread (the items of a
// colour share no dynamic body, so any cut gives the same bits): smaller chunks cost more in handing them out than
// they gained (Box2D's base-100 pyramid on 2 threads: 57 ms a step at 64 items per chunk, 47 ms at 1,024).
constexpr std::size_t kColourGrain = 256;
// Most work (bodies plus four per manifold) of a group of small islands run as one (group_islands): enough manifolds
// of each colour to fill some of the SIMD lanes and bodies for the position pass's, and well under the share of a
// thread that schedule_islands packs into a unit. 1e4 boxes in the medium level (steps 60-300), two threads: 16.2 ms a
// step at 256, 15.7-15.9 at 1,024, 16.1-16.2 at 4,096 (the same bits: an island's colours do not depend on its group);
// with the scratch held per thread (for_each_island's slots), the solve stage took 8.7-8.9 ms at 1,024 against
// 10.0-10.2 at 256. Each slot's scratch holds lane batches for the largest group (18 kB per 16 manifolds, about
// 0.6 MB at 1,024), a cost per thread, not per body.
constexpr std::uint32_t kSoftGroupWork = 1024;

// A soft constraint stepped implicitly over h (Catto, "Solver2D"): the velocity bias per metre of penetration, the
// scale of the effective mass, and the share of the accumulated impulse that relaxes each iteration.
struct Softness {
    float bias_rate = 0.0f;
    float mass_scale = 1.0f;
    float impulse_scale = 0.0f;
};
Softness make_soft(float hertz, float damping_ratio, float h) {
    if (hertz == 0.0f) return {};
    const float omega = 2.0f * std::numbers::pi_v<float> * hertz;
    const float a1 = 2.0f * damping_ratio + h * omega;
    const float a2 = h * omega * a1;
    const float a3 = 1.0f / (1.0f + a2);
    return {omega / a1, a2 * a3, a3};
}

// Two unit tangents t1, t2 with (t1, t2, n) a right-handed orthonormal basis, for a unit normal n (Duff et al. 2017,
// listing 3). Depends only on n, so the same normal gives the same tangents in every run.
void tangents_of(const glm::vec3& n, glm::vec3& t1, glm::vec3& t2) {
    const float sign = std::copysign(1.0f, n.z);
    const float a = -1.0f / (sign + n.z);
    const float b = n.x * n.y * a;
    t1 = glm::vec3(1.0f + sign * n.x * n.x * a, sign * b, -sign * n.x);
    t2 = glm::vec3(b, sign + n.y * n.y * a, -n.y);
}

// Point p of lane l with nothing in it: values that the lane computes with and throws away.
void clear_point(NormalLanes& s, int p, int l) {
    s.vn0[p][l] = s.bias[p][l] = s.gain[p][l] = s.impulse_scale[p][l] = s.impulse[p][l] = s.approach[p][l] = 0.0f;
    s.normal_mass[p][l] = 1.0f;
    s.met[p][l] = 0.0f;
    for (int c = 0; c < 3; ++c) s.ua[p][c][l] = s.ub[p][c][l] = s.ia[p][c][l] = s.ib[p][c][l] = 0.0f;
}
// Lane l with no manifold in it.
void clear_lane(NormalLanes& s, int l) {
    s.count[l] = 0;
    s.inv_masses[l] = 0.0f;
    for (int p = 0; p < 4; ++p) clear_point(s, p, l);
}
// Lane l of a SetUpLanes with no manifold in it: zeros.
void clear_set_up(SetUpLanes& s, int l) {
    s.count[l] = 0;
    s.mass_scale[l] = s.impulse_scale[l] = s.twist[l] = 0.0f;
    for (int c = 0; c < 3; ++c) s.normal[c][l] = s.offset[c][l] = s.dpa[c][l] = s.dpb[c][l] = 0.0f;
    for (int p = 0; p < 4; ++p) {
        s.separation[p][l] = s.s[p][l] = 0.0f;
        for (int c = 0; c < 3; ++c) s.arm_a[p][c][l] = s.arm_b[p][c][l] = 0.0f;
    }
}
// Lane l of a FrictionLanes with no friction to run: zeros.
void clear_friction(FrictionLanes& s, int l) {
    s.count[l] = 0;
    s.friction[l] = s.bias_rate[l] = s.own_a[l] = s.own_b[l] = s.inv_mass_a[l] = s.inv_mass_b[l] = 0.0f;
    const glm::vec3 zero(0.0f);
    const glm::mat3 none(0.0f);
    set_friction_frame(s, l, zero, zero, zero, zero, zero, zero, zero, none, none, none, none);
    for (int p = 0; p < 4; ++p)
        set_friction_point(s, l, p, zero, zero, zero, zero, glm::vec2(0.0f), glm::vec2(0.0f), 0.0f);
}

// Greedy graph colouring (Box2D v3's constraint graph colours): item i, in order, takes the lowest of `colours` colours
// that none of its dynamic bodies has yet (`colours` itself when none is free), and the items are then listed colour
// by colour in their order: colour c is order[begin[c] .. begin[c + 1]), begin holding colours + 2 entries.
// `each_body(i, f)` calls f(local index) for each dynamic body of item i; `mask` holds one word per body.
template <class EachBody>
void greedy_colour(std::uint32_t items, std::uint32_t body_count, int colours, EachBody&& each_body,
                   std::vector<std::uint64_t>& mask, std::vector<std::uint8_t>& colour,
                   std::vector<std::uint32_t>& order, std::uint32_t* begin) {
    mask.assign(body_count, 0);
    colour.resize(items);
    order.resize(items);
    std::array<std::uint32_t, 65> count{};
    for (std::uint32_t i = 0; i < items; ++i) {
        std::uint64_t used = 0;
        each_body(i, [&](std::uint32_t k) { used |= mask[k]; });
        int c = std::countr_one(used);
        if (c >= colours) {
            c = colours;
        } else {
            const std::uint64_t bit = std::uint64_t{1} << c;
            each_body(i, [&](std::uint32_t k) { mask[k] |= bit; });
        }
        colour[i] = static_cast<std::uint8_t>(c);
        ++count[static_cast<std::size_t>(c)];
    }
    begin[0] = 0;
    for (int c = 0; c <= colours; ++c)
        begin[static_cast<std::size_t>(c) + 1] =
            begin[static_cast<std::size_t>(c)] + count[static_cast<std::size_t>(c)];
    std::array<std::uint32_t, 65> fill{};
    for (int c = 0; c <= colours; ++c) fill[static_cast<std::size_t>(c)] = begin[static_cast<std::size_t>(c)];
    for (std::uint32_t i = 0; i < items; ++i) order[fill[colour[i]]++] = i;
}

}  // namespace

void PositionSolver::SoftScratch::reserve(std::size_t manifold_count, std::size_t body_count, bool colours) {
    if (bodies.capacity() < body_count) {
        const std::size_t room = std::max(body_count, bodies.capacity() + bodies.capacity() / 4);
        bodies.reserve(room);
        start_q.reserve(room);
    }
    if (colours && colour_mask.capacity() < body_count) colour_mask.reserve(body_count);
    if (points.capacity() < 4 * manifold_count) {
        const std::size_t room = std::max(manifold_count, manifolds.capacity() + manifolds.capacity() / 4);
        points.reserve(4 * room);
        manifolds.reserve(room);
        now.reserve(room);
    }
    if (colours && colour.capacity() < manifold_count) {
        colour.reserve(manifold_count);
        coloured.reserve(manifold_count);
    }
    // At most one batch per colour is not full; at most every manifold is lone.
    const std::size_t most_batches =
        std::min(manifold_count, (manifold_count + kNormalLanes - 1) / kNormalLanes + PositionSolver::kSoftColours);
    const bool laned = colours && manifold_count <= kColouredIslandMax;  // a blocked island has no batches
    if (laned && batches.size() < most_batches) batches.resize(most_batches);
    if (laned && lone.size() < manifold_count) lone.resize(manifold_count);
    if (colours && manifold_count > kColouredIslandMax) {
        if (block_key.capacity() < std::max(manifold_count, body_count)) {
            block_key.reserve(std::max(manifold_count, body_count));  // block_island: bodies, then manifolds
            blocks.reserve(manifold_count / PositionSolver::kSoftBlock + 1);
        }
        // block_island's per-manifold sides, and before them the buffer of its bodies' parallel_sort (which may swap
        // it with block_key: both hold room for either).
        if (block_sides.capacity() < std::max(manifold_count, body_count))
            block_sides.reserve(std::max(manifold_count, body_count));
        if (block_fill.capacity() < body_count + 1) block_fill.reserve(body_count + 1);
    }
}

PositionSolver::PositionSolver() = default;
PositionSolver::~PositionSolver() = default;
PositionSolver::PositionSolver(const PositionSolver&) = default;
PositionSolver::PositionSolver(PositionSolver&&) noexcept = default;
PositionSolver& PositionSolver::operator=(const PositionSolver&) = default;
PositionSolver& PositionSolver::operator=(PositionSolver&&) noexcept = default;

void PositionSolver::solve_soft(std::span<SolverBody> bodies, std::span<ContactManifold> manifolds,
                                std::span<ContactWarmStart> warm, const glm::vec3& gravity, float dt,
                                const SolverSettings& settings, Parallel& parallel) {
    body_local_.resize(bodies.size());
    build_islands(bodies, manifolds);
    // Islands run coloured on one thread each, as many at once as there are threads, except an island that holds a
    // large share of the step's contacts: it runs alone, its passes spread over the threads colour by colour. Which
    // islands those are depends on the islands only, never on the thread count, so the results do not either.
    const std::uint32_t total = manifold_begin_.empty() ? 0 : manifold_begin_.back();
    auto large = [&](std::uint32_t island) {
        const std::uint32_t count = manifold_begin_[island + 1] - manifold_begin_[island];
        return count >= kColouredIsland && count <= kColouredIslandMax &&
               std::uint64_t{count} * kColouredShare >= total;
    };
    // Beyond kColouredIslandMax, such an island is coloured by blocks of nearby manifolds instead (block_island).
    auto huge = [&](std::uint32_t island) {
        const std::uint32_t count = manifold_begin_[island + 1] - manifold_begin_[island];
        return count > kColouredIslandMax && std::uint64_t{count} * kColouredShare >= total;
    };
    // The other islands run in groups of consecutive ones (group_islands), as one island each, coloured together:
    // a manifold's colour depends only on the manifolds before it that share a body, which are its own island's, so
    // each island gets the colours, and the bits, it gets alone, while a colour's manifolds of all the group's islands
    // fill the SIMD lanes together (small islands alone have a manifold or two of each colour), and each pass over the
    // bodies runs over the whole group (the position pass in SIMD lanes).
    group_islands(kSoftGroupWork, [&](std::uint32_t island) { return large(island) || huge(island); });
    schedule_islands(parallel.threads());
    // The coloured or blocked island a work item is, if it is one (such an island is a group of its own).
    auto spread = [&](std::uint32_t item) {
        const std::uint32_t island = group_begin_[item];
        return group_begin_[item + 1] == island + 1 && (large(island) || huge(island));
    };
    // Each slot's (thread's) scratch, sized for the largest item any slot may take (the first slot's also for the
    // large islands), and for at least the largest group that group_islands can make: which islands make up a group
    // shifts from step to step as any island before it changes, and the scratch should not grow each time.
    std::size_t most_manifolds = kSoftGroupWork / 4, most_bodies = kSoftGroupWork;
    std::size_t spread_manifolds = 0, spread_bodies = 0;
    for (std::uint32_t item = 0; item + 1 < group_begin_.size(); ++item) {
        const std::uint32_t first = group_begin_[item], last = group_begin_[item + 1];
        const std::size_t m = manifold_begin_[last] - manifold_begin_[first],
                          b = body_begin_[last] - body_begin_[first];
        std::size_t& mm = spread(item) ? spread_manifolds : most_manifolds;
        std::size_t& mb = spread(item) ? spread_bodies : most_bodies;
        mm = std::max(mm, m);
        mb = std::max(mb, b);
    }
    const std::size_t slots = island_slots(parallel);
    if (soft_slot_scratch_.size() < slots) soft_slot_scratch_.resize(slots);
    for (std::size_t s = 0; s < slots; ++s) soft_slot_scratch_[s].reserve(most_manifolds, most_bodies, true);
    soft_slot_scratch_[0].reserve(spread_manifolds, spread_bodies, true);
    for_each_island(parallel, [&](std::uint32_t item, std::size_t slot) {
        if (!spread(item))
            run_island_soft(item, soft_slot_scratch_[slot], bodies, manifolds, warm, gravity, dt, settings, serial(),
                            SoftMode::coloured);
    });
    for (std::uint32_t item : island_order_)
        if (spread(item))
            run_island_soft(item, soft_slot_scratch_[0], bodies, manifolds, warm, gravity, dt, settings, parallel,
                            large(group_begin_[item]) ? SoftMode::coloured : SoftMode::blocked);
}

void PositionSolver::colour_island(std::uint32_t island, std::uint32_t last_island, SoftScratch& scratch,
                                   std::span<const SolverBody> bodies, std::span<const ContactManifold> manifolds,
                                   std::array<std::uint32_t, kSoftColours + 2>& begin) {
    const std::uint32_t body_count = body_begin_[last_island] - body_begin_[island];
    std::uint32_t* manifold_list = island_manifolds_.data() + manifold_begin_[island];
    const std::uint32_t manifold_count = manifold_begin_[last_island] - manifold_begin_[island];
    auto moves = [&](std::uint32_t i) { return i != kStaticGeometry && bodies[i].motion == Motion::dynamic; };
    greedy_colour(
        manifold_count, body_count, kSoftColours,
        [&](std::uint32_t k, auto&& f) {
            const ContactManifold& m = manifolds[manifold_list[k]];
            if (moves(m.a)) f(body_local_[m.a]);
            if (moves(m.b)) f(body_local_[m.b]);
        },
        scratch.colour_mask, scratch.colour, scratch.coloured, begin.data());
    // The island's manifolds in that order, so that a colour is a run of places k and its pass reads the scratch in
    // memory order (the scratch is packed after this). The passes visit the same manifolds in the same order as
    // through the list of places, so the results are the same bits.
    for (std::uint32_t j = 0; j < manifold_count; ++j) scratch.coloured[j] = manifold_list[scratch.coloured[j]];
    std::copy(scratch.coloured.begin(), scratch.coloured.begin() + manifold_count, manifold_list);
}

void PositionSolver::block_island(std::uint32_t island, SoftScratch& scratch, std::span<const SolverBody> bodies,
                                  std::span<const ContactManifold> manifolds,
                                  std::array<std::uint32_t, kSoftColours + 2>& begin, Parallel& parallel) {
    std::uint32_t* body_list = island_bodies_.data() + body_begin_[island];
    const std::uint32_t body_count = body_begin_[island + 1] - body_begin_[island];
    std::uint32_t* manifold_list = island_manifolds_.data() + manifold_begin_[island];
    const std::uint32_t manifold_count = manifold_begin_[island + 1] - manifold_begin_[island];
    auto moves = [&](std::uint32_t i) { return i != kStaticGeometry && bodies[i].motion == Motion::dynamic; };
    // The island's bodies in Morton order (Morton 1966) of their centres on a grid of 1024 cells a side over the
    // island, ties in index order, and its manifolds in the order of their first dynamic body, ties in index order:
    // nearby manifolds and bodies sit next to each other in the scratch. It depends on the island only.
    glm::vec3 low(std::numeric_limits<float>::max()), high(-std::numeric_limits<float>::max());
    for (std::uint32_t k = 0; k < body_count; ++k) {
        low = glm::min(low, bodies[body_list[k]].position);
        high = glm::max(high, bodies[body_list[k]].position);
    }
    const glm::vec3 scale = 1023.0f / glm::max(high - low, glm::vec3(1e-6f));
    auto spread = [](std::uint64_t x) {  // the 10 low bits of x, two zero bits after each
        x &= 0x3ffu;
        x = (x | (x << 16)) & 0x30000ffu;
        x = (x | (x << 8)) & 0x300f00fu;
        x = (x | (x << 4)) & 0x30c30c3u;
        x = (x | (x << 2)) & 0x9249249u;
        return x;
    };
    std::vector<std::uint64_t>& key = scratch.block_key;
    key.resize(body_count);
    // The keys and the sorts on the threads: each key is its body's own, and keys are distinct (the body index in
    // the low bits), so parallel_sort's order is std::sort's.
    parallel.for_each_chunk(body_count, kSortRun, [&](std::size_t first, std::size_t last) {
        for (std::size_t k = first; k < last; ++k) {
            const glm::vec3 cell = (bodies[body_list[k]].position - low) * scale;
            const std::uint64_t code = spread(static_cast<std::uint64_t>(cell.x)) |
                                       (spread(static_cast<std::uint64_t>(cell.y)) << 1) |
                                       (spread(static_cast<std::uint64_t>(cell.z)) << 2);
            key[k] = (code << 32) | body_list[k];
        }
    });
    parallel_sort(key, scratch.block_sides, std::less<>{}, parallel);
    for (std::uint32_t k = 0; k < body_count; ++k) {
        body_list[k] = static_cast<std::uint32_t>(key[k] & 0xffffffffu);
        body_local_[body_list[k]] = k;
    }
    // The manifolds in the order of their first dynamic body, ties in index order. build_islands lists an island's
    // manifolds in ascending index, so a counting sort by that body, which keeps the order of ties, gives that order;
    // it also carries each manifold's dynamic bodies (their places, or kStillSide), which the colouring below then
    // reads in order instead of reading every manifold and its bodies again at random.
    TUMBLE_ASSERT(std::is_sorted(manifold_list, manifold_list + manifold_count));
    std::vector<std::uint64_t>& sides = scratch.block_sides;
    std::vector<std::uint32_t>& fill = scratch.block_fill;
    sides.resize(manifold_count);
    fill.assign(std::size_t{body_count} + 1, 0);
    auto place_of = [&](std::uint32_t i) { return moves(i) ? body_local_[i] : kStillSide; };
    // A manifold's sides packed in 64 bits: A's place high, B's low (kStillSide for a side that does not move).
    auto side_a = [](std::uint64_t both) { return static_cast<std::uint32_t>(both >> 32); };
    auto side_b = [](std::uint64_t both) { return static_cast<std::uint32_t>(both); };
    auto first_moving = [&](std::uint64_t both) { return side_a(both) != kStillSide ? side_a(both) : side_b(both); };
    parallel.for_each_chunk(manifold_count, kSortRun, [&](std::size_t first, std::size_t last) {
        for (std::size_t k = first; k < last; ++k) {
            const ContactManifold& m = manifolds[manifold_list[k]];
            sides[k] = (std::uint64_t{place_of(m.a)} << 32) | place_of(m.b);
        }
    });
    for (std::uint32_t k = 0; k < manifold_count; ++k) ++fill[first_moving(sides[k]) + std::size_t{1}];
    for (std::uint32_t k = 0; k < body_count; ++k) fill[k + 1] += fill[k];
    std::vector<std::uint64_t>& sorted_sides = key;  // the bodies' keys are done with
    sorted_sides.resize(manifold_count);
    scratch.coloured.resize(manifold_count);  // free: a blocked island is not put through colour_island
    std::uint32_t* const order = scratch.coloured.data();
    for (std::uint32_t k = 0; k < manifold_count; ++k) {
        const std::uint32_t to = fill[first_moving(sides[k])]++;
        order[to] = manifold_list[k];
        sorted_sides[to] = sides[k];
    }
    std::copy(order, order + manifold_count, manifold_list);
    // Greedy colouring of the blocks in that order: a block takes the lowest colour none of its bodies has yet.
    const std::uint32_t block_count = (manifold_count + kSoftBlock - 1) / kSoftBlock;
    greedy_colour(
        block_count, body_count, kSoftColours,
        [&](std::uint32_t j, auto&& f) {
            const std::uint32_t first = j * kSoftBlock, last = std::min(first + kSoftBlock, manifold_count);
            for (std::uint32_t k = first; k < last; ++k) {
                const std::uint32_t a = side_a(sorted_sides[k]), b = side_b(sorted_sides[k]);
                if (a != kStillSide) f(a);
                if (b != kStillSide) f(b);
            }
        },
        scratch.colour_mask, scratch.colour, scratch.blocks, begin.data());
}

void PositionSolver::run_island_soft(std::uint32_t item, SoftScratch& scratch, std::span<SolverBody> bodies,
                                     std::span<ContactManifold> manifolds, std::span<ContactWarmStart> warm,
                                     const glm::vec3& gravity, float dt, const SolverSettings& settings,
                                     Parallel& parallel, SoftMode mode) {
    const int substeps = settings.substeps;
    const float h = dt / static_cast<float>(substeps);
    const float inv_h = 1.0f / h;
    // The item's islands, run as one: their bodies and manifolds are contiguous in the CSR lists. A coloured or
    // blocked item is one island.
    const std::uint32_t island = group_begin_[item], last_island = group_begin_[item + 1];
    const std::uint32_t* body_list = island_bodies_.data() + body_begin_[island];
    const std::uint32_t body_count = body_begin_[last_island] - body_begin_[island];
    const std::uint32_t* manifold_list = island_manifolds_.data() + manifold_begin_[island];
    const std::uint32_t manifold_count = manifold_begin_[last_island] - manifold_begin_[island];
    // The island's scratch: bodies by their place in the island (body_local_), points and manifolds by the
    // manifold's place k. A blocked island is first put in its blocks' order.
    std::array<std::uint32_t, kSoftColours + 2> colour_begin{};
    if (mode == SoftMode::blocked)  // which also gives the bodies their places in its order
        block_island(island, scratch, bodies, manifolds, colour_begin, parallel);
    else
        for (std::uint32_t k = 0; k < body_count; ++k) body_local_[body_list[k]] = k;
    // Grown, never shrunk (grow_to): the passes below write every body's, manifold's and point's entries before they
    // read them (the points a manifold does not have as SoftPoint{}, in the packing, on the threads), so what a
    // slot's scratch holds from the islands it ran before never reaches a result.
    grow_to(scratch.bodies, body_count);
    grow_to(scratch.start_q, body_count);
    grow_to(scratch.points, 4 * std::size_t{manifold_count});
    grow_to(scratch.manifolds, manifold_count);
    grow_to(scratch.now, manifold_count);
    SoftBody* const soft_body = scratch.bodies.data();
    SoftPoint* const soft_point = scratch.points.data();
    SoftManifold* const soft_manifold = scratch.manifolds.data();
    // Box2D v3's contact softness: `contact_hertz`, at most a quarter of the substep rate, twice as stiff when one side
    // cannot move.
    const float hertz = settings.contact_hertz;
    const Softness contact_soft = make_soft(std::min(hertz, 0.25f * inv_h), kContactDampingRatio, h);
    const Softness static_soft = make_soft(2.0f * hertz, kContactDampingRatio, h);

    // The state of a contact side at time t from the start of the step: a dynamic body's own state, a kinematic
    // body's exact motion (written into `moving`), or a body that does not move. `side` reads it from a packed side
    // of SoftManifold (`kinematic` says whether the side is a kinematic body's index).
    SoftBody still;  // never written: `apply` skips bodies that are not dynamic
    auto side = [&](std::uint32_t ref, bool kinematic, float t, SoftBody& moving) -> SoftBody& {
        if (ref == kStillSide) return still;
        if (!kinematic) return soft_body[ref];
        const SolverBody& b = bodies[ref];
        moving = SoftBody{};
        moving.v = b.velocity;
        moving.w = b.angular_velocity;
        moving.dp = b.velocity * t;
        const float angle = glm::length(b.angular_velocity) * t;
        if (angle > 0.0f) moving.dr = glm::mat3_cast(glm::angleAxis(angle, glm::normalize(b.angular_velocity)));
        return moving;
    };
    auto apply = [](SoftBody& s, const glm::vec3& r, const glm::vec3& p) {
        if (!s.dynamic) return;
        s.v += s.inv_mass * p;
        s.w += s.inv_inertia * glm::cross(r, p);
    };
    auto velocity_at = [](const SoftBody& s, const glm::vec3& r) { return s.v + glm::cross(s.w, r); };
    // A side's angular velocity change per unit torsional impulse about n (zero for a side that is not dynamic).
    auto twist_arm = [](const SoftBody& s, const glm::vec3& n) {
        return s.dynamic ? s.inv_inertia * n : glm::vec3(0.0f);
    };
    // Adds `impulse` (N s) to a point's accumulated normal impulse, kept >= 0, and applies the change along n at the
    // point's arms; returns the change.
    auto push_normal = [&](SoftPoint& c, SoftBody& a, SoftBody& b, const glm::vec3& ra, const glm::vec3& rb,
                           const glm::vec3& n, float impulse) {
        const float total = std::max(c.normal_impulse + impulse, 0.0f);
        const float change = total - c.normal_impulse;
        c.normal_impulse = total;
        apply(a, ra, -change * n);
        apply(b, rb, change * n);
        return change;
    };
    // visit(k, m, a, b) for each of the island's manifolds (its SoftManifold) with its two sides at time t: for a
    // coloured island (or group of islands) colour by colour, each colour's manifolds (which share no dynamic body) on
    // all threads (one, for a group), then the manifolds that took no colour, in order; for a blocked island block
    // colour by block colour,
    // each colour's blocks on all threads and each block's manifolds in order, then the blocks that took no colour.
    if (mode == SoftMode::coloured) colour_island(island, last_island, scratch, bodies, manifolds, colour_begin);
    const std::uint32_t* block_list = mode == SoftMode::blocked ? scratch.blocks.data() : nullptr;
    const auto threads = static_cast<std::size_t>(std::max(parallel.threads(), 1));
    auto grain = [&](std::size_t count) { return std::max(kColourGrain, (count + threads - 1) / threads); };
    auto still_or_own = [&](std::uint32_t ref) -> SoftBody& { return ref == kStillSide ? still : soft_body[ref]; };
    auto visit_one = [&](float t, auto& visit, std::uint32_t k) __attribute__((always_inline)) {
        const SoftManifold& m = soft_manifold[k];
        if (m.kinematic == 0) {  // the common case: no kinematic side to work out (and no SoftBody to build)
            visit(k, m, still_or_own(m.a), still_or_own(m.b));
            return;
        }
        SoftBody ka, kb;
        visit(k, m, side(m.a, (m.kinematic & 1u) != 0, t, ka), side(m.b, (m.kinematic & 2u) != 0, t, kb));
    };
    auto each_manifold = [&](float t, auto&& visit) {
        auto one = [&](std::uint32_t k) { visit_one(t, visit, k); };
        if (mode == SoftMode::blocked) {
            auto block = [&](std::uint32_t j) {
                const std::uint32_t last = std::min((j + 1) * kSoftBlock, manifold_count);
                for (std::uint32_t k = j * kSoftBlock; k < last; ++k) {
                    if (k + kBlockAhead < last) {
                        const std::uint32_t ahead = k + kBlockAhead;
                        const auto* points = reinterpret_cast<const char*>(soft_point + 4 * std::size_t{ahead});
                        for (std::size_t at = 0; at < 4 * sizeof(SoftPoint); at += 64) __builtin_prefetch(points + at);
                        const auto* now = reinterpret_cast<const char*>(scratch.now.data() + ahead);
                        for (std::size_t at = 0; at < sizeof(SoftNow); at += 64) __builtin_prefetch(now + at);
                        __builtin_prefetch(soft_manifold + ahead);
                    }
                    one(k);
                }
            };
            for (int c = 0; c <= kSoftColours; ++c) {
                const std::uint32_t first = colour_begin[static_cast<std::size_t>(c)];
                const std::uint32_t count = colour_begin[static_cast<std::size_t>(c) + 1] - first;
                if (c == kSoftColours) {
                    for (std::uint32_t j = 0; j < count; ++j) block(block_list[first + j]);
                } else {
                    parallel.for_each_chunk(count, 1, [&](std::size_t begin, std::size_t end) {
                        for (std::size_t j = begin; j < end; ++j) block(block_list[first + j]);
                    });
                }
            }
            return;
        }
        for (int c = 0; c < kSoftColours; ++c) {
            const std::uint32_t first = colour_begin[static_cast<std::size_t>(c)];
            const std::uint32_t count = colour_begin[static_cast<std::size_t>(c) + 1] - first;
            parallel.for_each_chunk(count, grain(count), [&](std::size_t begin, std::size_t end) {
                for (std::size_t k = begin; k < end; ++k) one(static_cast<std::uint32_t>(first + k));
            });
        }
        for (std::uint32_t k = colour_begin[kSoftColours]; k < colour_begin[kSoftColours + 1]; ++k) one(k);
    };
    // A coloured island's manifolds are held in lane order for the whole step (scratch.batches, built after they are
    // packed below): each colour's manifolds without a kinematic side in batches of up to kNormalLanes, which share no
    // dynamic body and so are visited side by side in SIMD lanes with the bits of one at a time; those with a
    // kinematic side apart (scratch.lone), visited alone. Colour c is batches batch_begin[c] .. batch_begin[c + 1] - 1
    // and lone manifolds lone_begin[c] .. lone_begin[c + 1] - 1. Blocked islands are visited one manifold at a time:
    // lanes over 8 blocks of a colour (one block's manifolds after another's in each lane) made the 1e5 pile's solve
    // slower (553 ms a step against 423, with each pass's lanes gathered from the scratch).
    std::array<std::uint32_t, kSoftColours + 1> batch_begin{}, lone_begin{};
    // run(batch) for each batch of each colour, the colour's batches on all threads, and visit(k, m, a, b) for its
    // lone manifolds; then visit for the manifolds that took no colour, in order (a coloured island only).
    auto each_batch = [&](float t, auto&& run, auto&& visit) {
        for (int c = 0; c < kSoftColours; ++c) {
            const std::uint32_t first = batch_begin[static_cast<std::size_t>(c)];
            const std::uint32_t count = batch_begin[static_cast<std::size_t>(c) + 1] - first;
            const std::size_t per_thread = (count + threads - 1) / threads;
            parallel.for_each_chunk(count, std::max(kColourGrain / kNormalLanes, per_thread),
                                    [&](std::size_t begin, std::size_t end) {
                                        for (std::size_t j = begin; j < end; ++j) run(scratch.batches[first + j]);
                                    });
            for (std::uint32_t j = lone_begin[static_cast<std::size_t>(c)];
                 j < lone_begin[static_cast<std::size_t>(c) + 1]; ++j)
                visit_one(t, visit, scratch.lone[j]);
        }
        for (std::uint32_t k = colour_begin[kSoftColours]; k < colour_begin[kSoftColours + 1]; ++k)
            visit_one(t, visit, k);
    };
    // visit(mi) for each of the island's manifolds, for work that touches the manifold only (on all threads for a
    // coloured island).
    auto each_manifold_index = [&](auto&& visit) {
        parallel.for_each_chunk(manifold_count, grain(manifold_count), [&](std::size_t begin, std::size_t end) {
            for (std::size_t k = begin; k < end; ++k) visit(static_cast<std::uint32_t>(k), manifold_list[k]);
        });
    };
    // body(i) for each of the island's dynamic bodies (on all threads for a coloured island: each touches only its
    // own body).
    auto each_body = [&](auto&& body) {
        parallel.for_each_chunk(body_count, grain(body_count), [&](std::size_t begin, std::size_t end) {
            for (std::size_t k = begin; k < end; ++k) body(static_cast<std::uint32_t>(k), body_list[k]);
        });
    };

    // Bodies: velocities, no motion yet, the world inverse inertia at the starting orientation.
    each_body([&](std::uint32_t k, std::uint32_t i) {
        const SolverBody& b = bodies[i];
        SoftBody& s = soft_body[k];
        scratch.start_q[k] = b.orientation;
        s.v = b.velocity;
        s.w = b.angular_velocity;
        s.dp = glm::vec3(0.0f);
        s.dr = glm::mat3(1.0f);
        s.inv_inertia = world_inverse_inertia(b.orientation, b.inverse_inertia);
        s.inv_mass = b.inverse_mass;
        s.dynamic = true;
    });

    // Manifolds packed for the passes, and their points: arms, effective masses, the approach speed, and the warm
    // start carried from the last step. Reads the bodies only.
    // The island's manifolds are in colour order, scattered over the step's: what a later visit reads is fetched
    // ahead, the manifold and its warm starts kManifoldsAhead manifolds before, its bodies half as far.
    each_manifold_index([&](std::uint32_t k, std::uint32_t mi) {
        if (k + kManifoldsAhead < manifold_count) {
            const std::uint32_t ahead = manifold_list[k + kManifoldsAhead];
            const auto* line = reinterpret_cast<const char*>(&manifolds[ahead]);
            for (std::size_t at = 0; at < kPackedBytes; at += 64) __builtin_prefetch(line + at);
            if (!warm.empty()) __builtin_prefetch(&warm[4 * std::size_t{ahead}]);
        }
        if (k + kManifoldsAhead / 2 < manifold_count) {
            const ContactManifold& near = manifolds[manifold_list[k + kManifoldsAhead / 2]];
            if (near.a != kStaticGeometry) __builtin_prefetch(&bodies[near.a]);
            if (near.b != kStaticGeometry) __builtin_prefetch(&bodies[near.b]);
        }
        const ContactManifold& m = manifolds[mi];
        SoftManifold& sm = soft_manifold[k];
        auto pack = [&](std::uint32_t index, std::uint8_t kinematic_bit, std::uint32_t& ref) {
            ref = kStillSide;
            if (index == kStaticGeometry) return;
            if (bodies[index].motion == Motion::dynamic) {
                ref = body_local_[index];
            } else if (bodies[index].motion == Motion::kinematic) {
                ref = index;
                sm.kinematic |= kinematic_bit;
            }
        };
        sm.kinematic = 0;
        pack(m.a, 1u, sm.a);
        pack(m.b, 2u, sm.b);
        sm.normal = m.normal;
        sm.friction = m.friction;
        sm.restitution = m.restitution;
        sm.count = static_cast<std::uint8_t>(m.count);
        scratch.now[k].twist = 0.0f;
        SoftBody ka, kb;
        const SoftBody& a = side(sm.a, (sm.kinematic & 1u) != 0, 0.0f, ka);
        const SoftBody& b = side(sm.b, (sm.kinematic & 2u) != 0, 0.0f, kb);
        const glm::vec3 xa = m.a == kStaticGeometry ? glm::vec3(0.0f) : bodies[m.a].position;
        const glm::quat qa = m.a == kStaticGeometry ? glm::quat(1.0f, 0.0f, 0.0f, 0.0f) : bodies[m.a].orientation;
        const glm::vec3 xb = m.b == kStaticGeometry ? glm::vec3(0.0f) : bodies[m.b].position;
        const glm::quat qb = m.b == kStaticGeometry ? glm::quat(1.0f, 0.0f, 0.0f, 0.0f) : bodies[m.b].orientation;
        const glm::vec3 n = m.normal;
        tangents_of(n, sm.t1, sm.t2);
        sm.offset = xb - xa;
        const glm::vec3 &t1 = sm.t1, &t2 = sm.t2;
        auto effective_mass = [&](const glm::vec3& ra, const glm::vec3& rb, const glm::vec3& d) {
            const glm::vec3 ua = glm::cross(ra, d), ub = glm::cross(rb, d);
            const float k_ =
                a.inv_mass + b.inv_mass + glm::dot(ua, a.inv_inertia * ua) + glm::dot(ub, b.inv_inertia * ub);
            return k_ > 0.0f ? 1.0f / k_ : 0.0f;
        };
        for (int p = 0; p < m.count; ++p) {
            const ContactPoint& cp = m.points[static_cast<std::size_t>(p)];
            SoftPoint& sp = soft_point[4 * std::size_t{k} + static_cast<std::uint32_t>(p)];
            const glm::vec3 pa = xa + rotate(qa, cp.anchor_a), pb = xb + rotate(qb, cp.anchor_b);
            const glm::vec3 mid = 0.5f * (pa + pb);
            sp.ra = mid - xa;
            sp.rb = mid - xb;
            sp.separation = cp.separation;
            sp.fa = rotate(qa, cp.friction_anchor_a);
            sp.fb = rotate(qb, cp.friction_anchor_b);
            sp.normal_mass = effective_mass(sp.ra, sp.rb, n);
            sp.tangent_mass[0] = effective_mass(sp.ra, sp.rb, t1);
            sp.tangent_mass[1] = effective_mass(sp.ra, sp.rb, t2);
            sp.approach = 0.0f;
            sp.met = false;
            const ContactWarmStart start =
                warm.empty() ? ContactWarmStart{} : warm[4 * std::size_t{mi} + static_cast<std::uint32_t>(p)];
            sp.normal_impulse = std::max(0.0f, start.normal_force) * h;
            sp.tangent_impulse = glm::vec2(glm::dot(start.friction_force, t1), glm::dot(start.friction_force, t2)) * h;
            sp.total_normal_impulse = 0.0f;
        }
        for (int p = m.count; p < 4; ++p) soft_point[4 * std::size_t{k} + static_cast<std::uint32_t>(p)] = SoftPoint{};
    });

    // Lane l of `batch` loaded with manifold k: its manifold and point entries, and a still side's entries (points it
    // does not have: zeros, as clear_point and clear_friction leave them). Left as they are, because the first substep
    // writes them before any pass reads them: an own side's entries (its velocities, inverse inertia, turn and motion:
    // load_sides in the warm start), where the points are now (dx, ra, rb and s: the warm start's locate in lanes), and
    // I^-1 (r x n) and the other entries the first solve pass sets up.
    auto load_lane = [&](LaneBatch& batch, int l, std::uint32_t k) {
        const SoftManifold& m = soft_manifold[k];
        const SoftBody& a = still_or_own(m.a);
        const SoftBody& b = still_or_own(m.b);
        NormalLanes& lanes = batch.normal;
        FrictionLanes& rubbing = batch.rubbing;
        SetUpLanes& setup = batch.setup;
        const Softness& soft = (a.inv_mass == 0.0f || b.inv_mass == 0.0f) ? static_soft : contact_soft;
        const SoftPoint* sp = soft_point + 4 * std::size_t{k};
        batch.place[l] = k;
        batch.a[l] = m.a;
        batch.b[l] = m.b;
        rubbing.count[l] = m.friction > 0.0f ? m.count : 0;
        rubbing.friction[l] = m.friction;
        rubbing.bias_rate[l] = soft.bias_rate;
        rubbing.own_a[l] = m.a != kStillSide ? 1.0f : 0.0f;
        rubbing.own_b[l] = m.b != kStillSide ? 1.0f : 0.0f;
        rubbing.inv_mass_a[l] = a.inv_mass;
        rubbing.inv_mass_b[l] = b.inv_mass;
        for (int c = 0; c < 3; ++c) {
            rubbing.t1[c][l] = m.t1[c];
            rubbing.t2[c][l] = m.t2[c];
        }
        if (m.a == kStillSide) {
            set_side(rubbing.va, rubbing.wa, rubbing.inv_inertia_a, rubbing.dra, l, a.v, a.w, a.inv_inertia, a.dr);
            for (int c = 0; c < 3; ++c) setup.dpa[c][l] = a.dp[c];
        }
        if (m.b == kStillSide) {
            set_side(rubbing.vb, rubbing.wb, rubbing.inv_inertia_b, rubbing.drb, l, b.v, b.w, b.inv_inertia, b.dr);
            for (int c = 0; c < 3; ++c) setup.dpb[c][l] = b.dp[c];
        }
        lanes.count[l] = m.count;
        lanes.inv_masses[l] = 0.0f;
        setup.count[l] = m.count;
        setup.mass_scale[l] = soft.mass_scale;
        setup.impulse_scale[l] = soft.impulse_scale;
        setup.twist[l] = scratch.now[k].twist;
        for (int c = 0; c < 3; ++c) {
            setup.normal[c][l] = m.normal[c];
            setup.offset[c][l] = m.offset[c];
        }
        for (int p = 0; p < 4; ++p) {
            // Of a point's normal entries, vn0, bias, gain, impulse_scale, ua, ub, ia and ib are left as they are: the
            // step's first set-up in lanes (the first substep's solve pass, `fresh`) writes them for every point, as
            // clear_point would for a point the lane does not have, before any pass reads them.
            const bool has = p < m.count;
            const SoftPoint& c = sp[has ? p : 0];
            lanes.normal_mass[p][l] = has ? c.normal_mass : 1.0f;
            lanes.impulse[p][l] = has ? c.normal_impulse : 0.0f;
            lanes.approach[p][l] = has ? c.approach : 0.0f;
            lanes.met[p][l] = has && c.met ? 1.0f : 0.0f;
            rubbing.normal_impulse[p][l] = has ? c.normal_impulse : 0.0f;
            for (int j = 0; j < 2; ++j) {
                rubbing.tangent_mass[p][j][l] = has ? c.tangent_mass[j] : 0.0f;
                rubbing.tangent_impulse[p][j][l] = has ? c.tangent_impulse[j] : 0.0f;
            }
            for (int i = 0; i < 3; ++i) {
                rubbing.fa[p][i][l] = has ? c.fa[i] : 0.0f;
                rubbing.fb[p][i][l] = has ? c.fb[i] : 0.0f;
            }
            batch.total[p][l] = has ? c.total_normal_impulse : 0.0f;
            setup.separation[p][l] = has ? c.separation : 0.0f;
            for (int i = 0; i < 3; ++i) {
                setup.arm_a[p][i][l] = has ? c.ra[i] : 0.0f;
                setup.arm_b[p][i][l] = has ? c.rb[i] : 0.0f;
            }
        }
    };
    // The sides' entries of a batch's used lanes from the bodies, before each pass over it, and the lanes' own bodies'
    // velocities back after it (a still side keeps its own). `moved`: the bodies may have moved since the batch's last
    // pass (its first pass of a substep, or the relax pass after the position pass), so their turns, displacements and
    // inverse inertias are loaded too; else only their velocities, which every other pass changes.
    // A still side (kStillSide) is skipped: load_lane gave it the entries of `still`, which the passes never change
    // (they move only own sides), so they are what loading it again would write.
    auto load_side = [&](std::uint32_t ref, int l, bool moved, float(&v)[3][kNormalLanes], float(&w)[3][kNormalLanes],
                         float(&inv_inertia)[9][kNormalLanes], float(&dr)[9][kNormalLanes],
                         float(&dp)[3][kNormalLanes]) {
        if (ref == kStillSide) return;
        const SoftBody& own = soft_body[ref];
        if (moved) {
            set_side(v, w, inv_inertia, dr, l, own.v, own.w, own.inv_inertia, own.dr);
            for (int c = 0; c < 3; ++c) dp[c][l] = own.dp[c];
            return;
        }
        for (int c = 0; c < 3; ++c) {
            v[c][l] = own.v[c];
            w[c][l] = own.w[c];
        }
    };
    auto load_sides = [&](LaneBatch& batch, bool moved) {
        FrictionLanes& rubbing = batch.rubbing;
        for (int l = 0; l < batch.used; ++l) {
            load_side(batch.a[l], l, moved, rubbing.va, rubbing.wa, rubbing.inv_inertia_a, rubbing.dra,
                      batch.setup.dpa);
            load_side(batch.b[l], l, moved, rubbing.vb, rubbing.wb, rubbing.inv_inertia_b, rubbing.drb,
                      batch.setup.dpb);
        }
    };
    auto store_sides = [&](const LaneBatch& batch) {
        const FrictionLanes& rubbing = batch.rubbing;
        for (int l = 0; l < batch.used; ++l)
            for (int c = 0; c < 3; ++c) {
                if (batch.a[l] != kStillSide) {
                    soft_body[batch.a[l]].v[c] = rubbing.va[c][l];
                    soft_body[batch.a[l]].w[c] = rubbing.wa[c][l];
                }
                if (batch.b[l] != kStillSide) {
                    soft_body[batch.b[l]].v[c] = rubbing.vb[c][l];
                    soft_body[batch.b[l]].w[c] = rubbing.wb[c][l];
                }
            }
    };
    if (mode == SoftMode::coloured) {
        // Places: each colour's manifolds in order, kNormalLanes to a batch, those with a kinematic side apart.
        std::uint32_t batches = 0, lone = 0;
        for (int c = 0; c < kSoftColours; ++c) {
            std::uint32_t in_lanes = 0;
            for (std::uint32_t k = colour_begin[static_cast<std::size_t>(c)];
                 k < colour_begin[static_cast<std::size_t>(c) + 1]; ++k) {
                if (soft_manifold[k].kinematic != 0)
                    ++lone;
                else
                    ++in_lanes;
            }
            batches += (in_lanes + kNormalLanes - 1) / kNormalLanes;
        }
        // Grown, never shrunk: a LaneBatch is 18 kB, and resizing down and up again would zero them every step.
        if (scratch.batches.size() < batches)
            scratch.batches.resize(std::max<std::size_t>(batches, scratch.batches.size() + scratch.batches.size() / 4));
        if (scratch.lone.size() < lone)
            scratch.lone.resize(std::max<std::size_t>(lone, scratch.lone.size() + scratch.lone.size() / 4));
        batches = 0;
        lone = 0;
        // Within a colour, the manifolds whose side B is still (a triangle, a resting body) fill the batches first,
        // so that most of them are in batches whose every side B is still (LaneBatch::still_b): their passes leave
        // side B out. Within each of those two parts they go by point count, fewest first, so that a batch's lanes
        // mostly have as many points as each other: the passes in lanes stop at the batch's largest count. A colour's
        // manifolds share no body that moves, so the order they take in its batches changes no result.
        for (int c = 0; c < kSoftColours; ++c) {
            batch_begin[static_cast<std::size_t>(c)] = batches;
            lone_begin[static_cast<std::size_t>(c)] = lone;
            const std::uint32_t first = colour_begin[static_cast<std::size_t>(c)];
            const std::uint32_t last = colour_begin[static_cast<std::size_t>(c) + 1];
            for (std::uint32_t k = first; k < last; ++k)
                if (soft_manifold[k].kinematic != 0) scratch.lone[lone++] = k;
            // The parts, side B still with 0 .. 4 points and then side B moving with 0 .. 4, by a counting sort into
            // scratch.coloured (free once colour_island has put the manifolds in colour order).
            auto part_of = [&](const SoftManifold& m) {
                return (m.b == kStillSide ? 0 : 5) + std::min<int>(m.count, 4);
            };
            std::array<std::uint32_t, 11> part_at{};
            for (std::uint32_t k = first; k < last; ++k)
                if (soft_manifold[k].kinematic == 0) ++part_at[static_cast<std::size_t>(part_of(soft_manifold[k])) + 1];
            for (std::size_t q = 1; q < part_at.size(); ++q) part_at[q] += part_at[q - 1];
            const std::uint32_t in_lanes = part_at.back();
            std::uint32_t* const order = scratch.coloured.data() + first;
            for (std::uint32_t k = first; k < last; ++k)
                if (soft_manifold[k].kinematic == 0)
                    order[part_at[static_cast<std::size_t>(part_of(soft_manifold[k]))]++] = k;
            for (std::uint32_t j = 0; j < in_lanes; ++j) {
                const std::uint32_t k = order[j];
                if (j % kNormalLanes == 0) {
                    scratch.batches[batches].used = 0;
                    scratch.batches[batches++].still_b = true;
                }
                LaneBatch& batch = scratch.batches[batches - 1];
                batch.place[batch.used++] = k;
                batch.still_b = batch.still_b && soft_manifold[k].b == kStillSide;
            }
        }
        batch_begin[kSoftColours] = batches;
        lone_begin[kSoftColours] = lone;
        // Their entries, on all threads.
        parallel.for_each_chunk(batches, grain(std::size_t{batches} * kNormalLanes) / kNormalLanes,
                                [&](std::size_t begin, std::size_t end) {
                                    for (std::size_t j = begin; j < end; ++j) {
                                        LaneBatch& batch = scratch.batches[j];
                                        for (int l = 0; l < batch.used; ++l) load_lane(batch, l, batch.place[l]);
                                        for (int l = batch.used; l < kNormalLanes; ++l) {
                                            clear_lane(batch.normal, l);
                                            clear_friction(batch.rubbing, l);
                                            clear_set_up(batch.setup, l);
                                            for (int p = 0; p < 4; ++p) batch.total[p][l] = 0.0f;
                                        }
                                    }
                                });
    }

    // Where a manifold's points are now: each body's anchor arm turned with the body (dR r), the separation
    // s = (x_b - x_a + dR_b r_b - dR_a r_a) . n + (s_0 - 0), since at the start x_b + r_b = x_a + r_a (the midpoint),
    // and the arms from the two centres to the midpoint of the two anchors now. Impulses act at that one point, so
    // every contact impulse keeps the momentum and the angular momentum of the pair exactly, however far the
    // bodies have moved since the arms were taken (fixed arms, as Box2D's, would not). The bodies move only in the
    // position pass, so a manifold's SoftNow found by the relax pass (or, in the first substep, by the warm start) is
    // what the next warm start and solve pass would find again: they read it (scratch.now) instead.
    using Now = SoftNow;
    SoftNow* const soft_now = scratch.now.data();
    auto locate = [&](const SoftManifold& m, const SoftPoint* sp, const SoftBody& a, const SoftBody& b, Now& now) {
        now.dx = m.offset + (b.dp - a.dp);
        // A side that never moves (kStillSide) keeps its arms: its turn is the identity.
        const bool a_turns = m.a != kStillSide, b_turns = m.b != kStillSide;
        for (int p = 0; p < m.count; ++p) {
            const glm::vec3 pra = a_turns ? a.dr * sp[p].ra : sp[p].ra;
            const glm::vec3 prb = b_turns ? b.dr * sp[p].rb : sp[p].rb;
            now.s[p] = glm::dot(now.dx + prb - pra, m.normal) + sp[p].separation;
            now.ra[p] = 0.5f * (pra + prb + now.dx);
            now.rb[p] = now.ra[p] - now.dx;
        }
    };

    // One pass of sequential impulses over the island's points: the normal constraints (soft, with bias, when
    // `use_bias`; rigid without), repeated over the manifold's points until they agree (a single pass over the four
    // corners of a square hit leaves the first corner with the most and the bodies spinning; kSolveLocalPasses with
    // bias, kBlockPasses without), then friction within the cone of each point's normal impulse.
    auto solve_pass = [&](float t, bool use_bias, bool first_substep) {
        const int passes = use_bias ? kSolveLocalPasses : kBlockPasses;
        // The visit in parts: `set_up` works out what the local passes of manifold k start from, the passes run,
        // `finish_normal` applies their result to the bodies and runs torsional friction, and `point_friction` runs
        // each point's friction. For one manifold alone they run here; for several that share no dynamic body the
        // local passes and the point friction run in SIMD lanes with the same operations (normal_passes_in_lanes,
        // friction_in_lanes; `visit_lanes`). The visit is forced inline into each_manifold's loops (GCC called it once
        // per manifold: about 1 % of the solve's instructions); with -ffp-contract=off inlining changes no result.
        //
        // The manifold's normal constraints are solved together, without touching the bodies until the end: an
        // impulse change d at point p moves A's angular velocity by -d I_a^-1 (r_ap x n), B's by +d I_b^-1 (r_bp x n),
        // and the pair's relative normal velocity by d (1/m_a + 1/m_b), so the passes keep those sums (dw_a, dw_b,
        // pushed) and read each point's normal velocity from them, as pushing the bodies point by point would, with
        // the inertia products done once per point instead of once per push. The velocities stay those of the two
        // bodies' motion: keeping each point's own running total instead (through the manifold's K matrix) failed the
        // creep and lean tests under changes of round-off (docs/benchmarks.md).
        struct SetUp {
            glm::vec3 ua[4], ub[4];  // r x n of each side's arm (the inertia products I^-1 (r x n) are in SoftNow)
            // The normal velocity before the passes, the velocity bias, and the gain (-m_n times the mass scale: 1
            // for a rigid or speculative point) and impulse scale of the soft constraint.
            float vn0[4], bias[4], gain[4], impulse_scale[4];
        };
        auto set_up = [&](std::uint32_t k, const SoftManifold& m, SoftBody& a, SoftBody& b, SetUp& u)
            __attribute__((always_inline)) {
            const Softness& soft = (a.inv_mass == 0.0f || b.inv_mass == 0.0f) ? static_soft : contact_soft;
            const glm::vec3 n = m.normal;
            SoftPoint* sp = soft_point + 4 * std::size_t{k};
            Now& now = soft_now[k];
            if (!use_bias)
                locate(m, sp, a, b, now);  // the relax pass runs after the bodies moved; the solve pass before
            glm::vec3 *const ia = now.ia, *const ib = now.ib;
            // The arms and the inverse inertias change only where the bodies move: the relax pass works out the
            // inertia products for the next substep's solve pass too.
            const bool fresh = !use_bias || first_substep;
            for (int p = 0; p < m.count; ++p) {
                u.ua[p] = glm::cross(now.ra[p], n);
                u.ub[p] = glm::cross(now.rb[p], n);
                if (fresh) {
                    ia[p] = m.a != kStillSide ? a.inv_inertia * u.ua[p] : glm::vec3(0.0f);
                    ib[p] = m.b != kStillSide ? b.inv_inertia * u.ub[p] : glm::vec3(0.0f);
                }
                u.vn0[p] = glm::dot(velocity_at(b, now.rb[p]) - velocity_at(a, now.ra[p]), n);
                const float sep = now.s[p];
                u.bias[p] = 0.0f;
                u.gain[p] = -sp[p].normal_mass;
                u.impulse_scale[p] = 0.0f;
                if (sep > 0.0f) {
                    u.bias[p] = sep * inv_h;  // speculative: acts only if the point would close within the substep
                } else if (use_bias) {
                    u.bias[p] = std::max(soft.bias_rate * sep, -kContactSpeed);
                    u.gain[p] = -sp[p].normal_mass * soft.mass_scale;
                    u.impulse_scale[p] = soft.impulse_scale;
                }
            }
        };
        // The end of manifold k's visit: its local passes' result applied to the bodies, the step's normal impulse,
        // and torsional friction; true when its point friction is to run (point_friction).
        auto finish_normal = [&](std::uint32_t k, const SoftManifold& m, SoftBody& a, SoftBody& b, float pushed,
                                 const glm::vec3& dw_a, const glm::vec3& dw_b) __attribute__((always_inline)) {
            const glm::vec3 n = m.normal;
            SoftPoint* sp = soft_point + 4 * std::size_t{k};
            Now& now = soft_now[k];
            if (a.dynamic) {
                a.v -= (a.inv_mass * pushed) * n;
                a.w += dw_a;
            }
            if (b.dynamic) {
                b.v += (b.inv_mass * pushed) * n;
                b.w += dw_b;
            }
            // The relax pass sets the substep's last normal impulses (friction does not change them): add them to
            // the step's total here rather than in a pass of its own over every point.
            if (!use_bias)
                for (int p = 0; p < m.count; ++p) sp[p].total_normal_impulse += sp[p].normal_impulse;
            if (!(m.friction > 0.0f)) return false;
            // Torsional friction of a one-point contact: its point friction cannot resist spin about the normal, so a
            // box pinched at two opposite corners would spin about the line through them for ever (the points lie on
            // the axis and never slip). The relative spin about n is taken out up to a torque of friction times
            // kTorsionPatchRadius times the point's normal force, accumulated over the step's substeps as the other
            // impulses are (not carried to the next step).
            if (m.count == 1) {
                const float limit = m.friction * kTorsionPatchRadius * sp[0].normal_impulse;
                const glm::vec3 ja = twist_arm(a, n), jb = twist_arm(b, n);
                const float k_twist = glm::dot(n, ja) + glm::dot(n, jb);
                if (k_twist > 0.0f) {
                    const float old = now.twist;
                    const float total = std::clamp(old - glm::dot(b.w - a.w, n) / k_twist, -limit, limit);
                    now.twist = total;
                    if (a.dynamic) a.w -= (total - old) * ja;
                    if (b.dynamic) b.w += (total - old) * jb;
                }
            }
            return true;
        };
        // The point friction of manifold k, after `finish_normal` (friction_in_lanes runs the same operations in SIMD
        // lanes).
        auto point_friction = [&](std::uint32_t k, const SoftManifold& m, SoftBody& a, SoftBody& b)
            __attribute__((always_inline)) {
            const Softness& soft = (a.inv_mass == 0.0f || b.inv_mass == 0.0f) ? static_soft : contact_soft;
            SoftPoint* sp = soft_point + 4 * std::size_t{k};
            const Now& now = soft_now[k];
            const glm::vec3& t1 = m.t1;
            const glm::vec3& t2 = m.t2;
            for (int p = 0; p < m.count; ++p) {
                SoftPoint& c = sp[p];
                const glm::vec3 dv = velocity_at(b, now.rb[p]) - velocity_at(a, now.ra[p]);
                glm::vec2 target(0.0f);
                if (use_bias && c.normal_impulse > 0.0f) {
                    // Static friction holds the friction anchors together: their tangential offset (slip) is taken
                    // out softly, as the normal constraint takes out penetration, so that slow creep is undone.
                    const glm::vec3 slip =
                        now.dx + ((m.b != kStillSide ? b.dr * c.fb : c.fb) - (m.a != kStillSide ? a.dr * c.fa : c.fa));
                    target = -soft.bias_rate * glm::vec2(glm::dot(slip, t1), glm::dot(slip, t2));
                }
                const glm::vec2 old = c.tangent_impulse;
                glm::vec2 total = old + glm::vec2(c.tangent_mass[0] * (target.x - glm::dot(dv, t1)),
                                                  c.tangent_mass[1] * (target.y - glm::dot(dv, t2)));
                const float limit = m.friction * c.normal_impulse;
                const float length2 = glm::dot(total, total);
                if (length2 > limit * limit) total *= limit / std::sqrt(length2);
                c.tangent_impulse = total;
                const glm::vec2 change = total - old;
                const glm::vec3 impulse = change.x * t1 + change.y * t2;
                apply(a, now.ra[p], -impulse);
                apply(b, now.rb[p], impulse);
            }
        };
        auto visit = [&](std::uint32_t k, const SoftManifold& m, SoftBody& a, SoftBody& b)
            __attribute__((always_inline)) {
            SetUp u;
            set_up(k, m, a, b, u);
            SoftPoint* sp = soft_point + 4 * std::size_t{k};
            const glm::vec3* ia = soft_now[k].ia;
            const glm::vec3* ib = soft_now[k].ib;
            // The local passes: the points in order, each impulse change moving the normal velocity the later points
            // read (Gauss-Seidel), until no point's impulse changes by more than kBlockTolerance times its effective
            // mass, or `passes` (normal_passes_in_lanes runs the same operations in SIMD lanes).
            const int count = m.count;
            const float inv_masses = a.inv_mass + b.inv_mass;
            float pushed = 0.0f;
            glm::vec3 dw_a(0.0f), dw_b(0.0f);
            for (int pass = 0; pass < passes; ++pass) {
                float largest = 0.0f;
                for (int p = 0; p < count; ++p) {
                    SoftPoint& c = sp[p];
                    const float vn = u.vn0[p] + inv_masses * pushed + glm::dot(dw_b, u.ub[p]) - glm::dot(dw_a, u.ua[p]);
                    const float impulse = u.gain[p] * (vn + u.bias[p]) - u.impulse_scale[p] * c.normal_impulse;
                    const float total = std::max(c.normal_impulse + impulse, 0.0f);
                    const float change = total - c.normal_impulse;
                    c.normal_impulse = total;
                    if (change == 0.0f) continue;
                    if (!c.met && c.normal_impulse > 0.0f) {
                        c.approach = vn;  // the relative normal velocity as the point first pushes (restitution)
                        c.met = true;
                    }
                    pushed += change;
                    dw_a -= change * ia[p];
                    dw_b += change * ib[p];
                    largest = std::max(largest, std::abs(change) / c.normal_mass);
                }
                if (largest <= kBlockTolerance) break;
            }
            if (finish_normal(k, m, a, b, pushed, dw_a, dw_b)) point_friction(k, m, a, b);
        };
        if (mode != SoftMode::coloured) {
            each_manifold(t, visit);
            return;
        }
        // A batch's visit in lanes: set_up_in_lanes, normal_passes_in_lanes, finish_in_lanes and friction_in_lanes do
        // what `visit` does, with its bits.
        const bool locating = !use_bias, fresh = !use_bias || first_substep;
        auto run = [&](LaneBatch& batch) {
            load_sides(batch, !use_bias);  // the solve pass follows the warm start, which loaded the rest
            set_up_in_lanes(batch.setup, batch.normal, batch.rubbing, locating, fresh, use_bias, inv_h, kContactSpeed,
                            batch.still_b);
            normal_passes_in_lanes(batch.normal, passes, kBlockTolerance, batch.still_b);
            finish_in_lanes(batch.setup, batch.normal, batch.rubbing, kTorsionPatchRadius, batch.still_b);
            friction_in_lanes(batch.rubbing, use_bias, batch.still_b);
            // The relax pass sets the substep's last normal impulses (finish_normal). Over every lane and point, as
            // whole rows: a point a lane does not have, and an idle lane, hold an impulse of +0 (load_lane, clear_lane;
            // the passes leave it) and add it to a total that nothing reads.
            if (!use_bias)
                for (int p = 0; p < 4; ++p)
                    for (int l = 0; l < kNormalLanes; ++l) batch.total[p][l] += batch.normal.impulse[p][l];
            store_sides(batch);
        };
        each_batch(t, run, visit);
    };

    // The position pass of body k (its place in the island), and of bodies first .. first + n - 1 in SIMD lanes
    // (PositionLanes, soft_positions.cpp: the same operations in the same order, so the same bits).
    auto integrate_one = [&](std::size_t k) {
        SolverBody& b = bodies[body_list[k]];
        SoftBody& s = soft_body[k];
        b.position += h * s.v;
        s.dp += h * s.v;
        if (b.inverse_inertia == glm::vec3(0.0f)) return;
        rotate_substep(b.orientation, s.w, b.inverse_inertia, glm::vec3(0.0f), h);
        s.dr = glm::mat3_cast(b.orientation * glm::conjugate(scratch.start_q[k]));
        s.inv_inertia = world_inverse_inertia(b.orientation, b.inverse_inertia);
    };
    const std::size_t position_lanes = detail::position_lanes();
    auto integrate_lanes = [&](std::size_t first, std::size_t n) {
        PositionLanes batch;
        const std::size_t filled = lanes_to_fill(n, position_lanes);
        for (std::size_t j = 0; j < filled; ++j) {
            const std::size_t k = first + std::min(j, n - 1);  // the last body again in the lanes past n
            const SolverBody& b = bodies[body_list[k]];
            const SoftBody& s = soft_body[k];
            set_lane(batch, j, b.position, s.dp, s.v, s.w, b.inverse_inertia, b.orientation, scratch.start_q[k]);
        }
        integrate_positions(batch, n, h);
        for (std::size_t j = 0; j < n; ++j) {
            SolverBody& b = bodies[body_list[first + j]];
            SoftBody& s = soft_body[first + j];
            for (int c = 0; c < 3; ++c) {
                b.position[c] = batch.position[c][j];
                s.dp[c] = batch.dp[c][j];
            }
            if (b.inverse_inertia == glm::vec3(0.0f)) continue;
            b.orientation = glm::quat(batch.q[0][j], batch.q[1][j], batch.q[2][j], batch.q[3][j]);
            for (int c = 0; c < 3; ++c) {
                s.w[c] = batch.w[c][j];
                for (int i = 0; i < 3; ++i) {
                    s.dr[c][i] = batch.dr[3 * c + i][j];
                    s.inv_inertia[c][i] = batch.inv_inertia[3 * c + i][j];
                }
            }
        }
    };

    for (int step = 0; step < substeps; ++step) {
        const float t0 = h * static_cast<float>(step), t1 = h * static_cast<float>(step + 1);
        // 1. Velocities: gravity, forces and torques.
        each_body([&](std::uint32_t k, std::uint32_t i) {
            const SolverBody& b = bodies[i];
            SoftBody& s = soft_body[k];
            s.v += h * (gravity + b.force * b.inverse_mass);
            if (b.torque != glm::vec3(0.0f)) s.w += s.inv_inertia * (h * b.torque);
        });
        // 2. Warm start: every point's accumulated impulses, from the last substep or step.
        auto warm_start = [&](std::uint32_t k, const SoftManifold& m, SoftBody& a, SoftBody& b) {
            const glm::vec3& ta = m.t1;
            const glm::vec3& tb = m.t2;
            const SoftPoint* sp = soft_point + 4 * std::size_t{k};
            Now& now = soft_now[k];
            if (step == 0) locate(m, sp, a, b, now);  // later substeps: the last relax pass found it
            for (int p = 0; p < m.count; ++p) {
                const SoftPoint& c = sp[p];
                const glm::vec3 impulse =
                    c.normal_impulse * m.normal + c.tangent_impulse.x * ta + c.tangent_impulse.y * tb;
                if (impulse == glm::vec3(0.0f)) continue;
                apply(a, now.ra[p], -impulse);
                apply(b, now.rb[p], impulse);
            }
            if (now.twist != 0.0f) {
                if (a.dynamic) a.w -= now.twist * twist_arm(a, m.normal);
                if (b.dynamic) b.w += now.twist * twist_arm(b, m.normal);
            }
        };
        if (mode == SoftMode::coloured) {
            // In lanes (warm_start_in_lanes, with the bits of the code above); in the first substep the points are
            // located first (set_up_in_lanes locating, as `locate`; the rest of what it works out is not used).
            // After the first substep only the velocities are loaded: the bodies have not moved since the last relax
            // pass loaded this batch's turns, displacements and inverse inertias (only the position pass moves them).
            each_batch(
                t0,
                [&](LaneBatch& batch) {
                    load_sides(batch, step == 0);
                    if (step == 0)
                        set_up_in_lanes(batch.setup, batch.normal, batch.rubbing, true, false, true, inv_h,
                                        kContactSpeed, batch.still_b);
                    warm_start_in_lanes(batch.setup, batch.normal, batch.rubbing, batch.still_b);
                    store_sides(batch);
                },
                warm_start);
        } else {
            each_manifold(t0, warm_start);
        }
        // 3. Solve with bias.
        solve_pass(t0, true, step == 0);
        // 4. Positions: x += h v; free rotation over h keeping the angular momentum (rotate_substep); the motion since
        // the step began; the world inverse inertia at the new orientation. A body that cannot turn keeps all but x.
        parallel.for_each_chunk(body_count, grain(body_count), [&](std::size_t begin, std::size_t end) {
            for (std::size_t first = begin; first < end;) {
                const std::size_t n = std::min(end - first, PositionLanes::kMax);
                if (n < position_lanes / 2) {  // a few bodies (small islands): one at a time
                    for (std::size_t k = first; k < first + n; ++k) integrate_one(k);
                } else {  // in SIMD lanes, with the bits of the code above (soft_positions.cpp)
                    integrate_lanes(first, n);
                }
                first += n;
            }
        });
        // 5. Relax: the same constraints without bias, taking out the speed the push-out gave.
        solve_pass(t1, false, false);
    }

    // A coloured island's lanes back into its points, for restitution and the read-out.
    if (mode == SoftMode::coloured)
        parallel.for_each_chunk(batch_begin[kSoftColours],
                                grain(std::size_t{batch_begin[kSoftColours]} * kNormalLanes) / kNormalLanes,
                                [&](std::size_t begin, std::size_t end) {
                                    for (std::size_t j = begin; j < end; ++j) {
                                        const LaneBatch& batch = scratch.batches[j];
                                        for (int l = 0; l < batch.used; ++l) {
                                            SoftPoint* sp = soft_point + 4 * std::size_t{batch.place[l]};
                                            for (int p = 0; p < batch.setup.count[l]; ++p) {
                                                SoftPoint& c = sp[p];
                                                c.normal_impulse = batch.normal.impulse[p][l];
                                                c.approach = batch.normal.approach[p][l];
                                                c.met = batch.normal.met[p][l] != 0.0f;
                                                c.tangent_impulse = glm::vec2(batch.rubbing.tangent_impulse[p][0][l],
                                                                              batch.rubbing.tangent_impulse[p][1][l]);
                                                c.total_normal_impulse = batch.total[p][l];
                                            }
                                            soft_now[batch.place[l]].twist = batch.setup.twist[l];
                                        }
                                    }
                                });

    // Restitution, once after the substeps, on points that met faster than the threshold: the relative normal
    // velocity becomes -restitution times what it was as the point first pushed, never pulling; repeated over a
    // manifold's points until they agree, as the passes are.
    each_manifold(dt, [&](std::uint32_t k, const SoftManifold& m, SoftBody& a, SoftBody& b) {
        if (m.restitution == 0.0f) return;
        SoftPoint* sp = soft_point + 4 * std::size_t{k};
        Now now;
        locate(m, sp, a, b, now);
        for (int pass = 0; pass < kLocalPasses; ++pass) {
            float largest = 0.0f;
            for (int p = 0; p < m.count; ++p) {
                SoftPoint& c = sp[p];
                if (!c.met || c.approach > -settings.restitution_threshold) continue;  // met: it pushed
                const float vn = glm::dot(velocity_at(b, now.rb[p]) - velocity_at(a, now.ra[p]), m.normal);
                const float change = push_normal(c, a, b, now.ra[p], now.rb[p], m.normal,
                                                 -c.normal_mass * (vn + m.restitution * c.approach));
                c.total_normal_impulse += change;
                largest = std::max(largest, std::abs(change) / c.normal_mass);
            }
            if (largest <= kLocalTolerance) break;
        }
    });

    // Out: velocities, and each point's impulses (the warm start of the next step, and the step's normal impulse).
    each_body([&](std::uint32_t k, std::uint32_t i) {
        bodies[i].velocity = soft_body[k].v;
        bodies[i].angular_velocity = soft_body[k].w;
    });
    each_manifold_index([&](std::uint32_t k, std::uint32_t mi) {
        ContactManifold& m = manifolds[mi];
        for (int p = 0; p < m.count; ++p) {
            const SoftPoint& c = soft_point[4 * std::size_t{k} + static_cast<std::uint32_t>(p)];
            ContactPoint& cp = m.points[static_cast<std::size_t>(p)];
            cp.normal_impulse = c.total_normal_impulse;
            if (warm.empty()) continue;
            ContactWarmStart& end = warm[4 * std::size_t{mi} + static_cast<std::uint32_t>(p)];
            end.normal_force = c.normal_impulse * inv_h;
            end.friction_force =
                (c.tangent_impulse.x * soft_manifold[k].t1 + c.tangent_impulse.y * soft_manifold[k].t2) * inv_h;
        }
    });
}

}  // namespace tumble
