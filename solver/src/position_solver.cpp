// The XPBD rigid-body solver (see position_solver.hpp for the method, its sources and the contract).
//
// Notation: h = dt / substeps; for a contact point, r_a and r_b are its anchors turned into the world frame (arms
// from the bodies' centres), p_a = x_a + r_a, p_b = x_b + r_b, n the manifold's normal from A to B and
// s = (p_b - p_a) . n the signed gap. A positional impulse P (kg m) applied to B at r_b and -P to A at r_a moves
// x_b by P / m_b and turns q_b by I_b^-1 (r_b x P) (Mueller et al. 2020, eqs. 6-9), and the opposite for A.

#include <tumble/solver/position_solver.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include <tumble/core/assert.hpp>
#include <tumble/core/error.hpp>

#include "solver_internal.hpp"

namespace tumble {

void validate(const SolverSettings& s) {
    if (s.substeps < 1 || s.substeps > 256)
        throw InvalidArgument("SolverSettings: substeps is " + std::to_string(s.substeps) + " (must be 1..256)");
    if (s.iterations < 1 || s.iterations > 64)
        throw InvalidArgument("SolverSettings: iterations is " + std::to_string(s.iterations) + " (must be 1..64)");
    if (!(std::isfinite(s.restitution_threshold) && s.restitution_threshold >= 0.0f))
        throw InvalidArgument("SolverSettings: restitution_threshold is " + std::to_string(s.restitution_threshold) +
                              " (must be finite and >= 0 m/s)");
    if (!(std::isfinite(s.slop) && s.slop >= 0.0f))
        throw InvalidArgument("SolverSettings: slop is " + std::to_string(s.slop) + " (must be finite and >= 0 metres)");
    if (!(std::isfinite(s.contact_hertz) && s.contact_hertz > 0.0f))
        throw InvalidArgument("SolverSettings: contact_hertz is " + std::to_string(s.contact_hertz) +
                              " (must be finite and > 0 Hz)");
    if (s.method != SolverMethod::xpbd && s.method != SolverMethod::soft_step)
        throw InvalidArgument("SolverSettings: method is " + std::to_string(static_cast<int>(s.method)) +
                              " (must be SolverMethod::xpbd or SolverMethod::soft_step)");
}

glm::vec3 box_inertia(float mass, const glm::vec3& h) {
    const glm::vec3 h2 = h * h;
    return mass / 3.0f * glm::vec3(h2.y + h2.z, h2.x + h2.z, h2.x + h2.y);
}

namespace {
using namespace detail;

constexpr std::uint32_t kNone = 0xffffffffu;

// Most passes of the velocity pass's normal part over one manifold's points in a substep, and the relative normal
// velocity (m/s) below which the points count as agreeing.
constexpr int kVelocityPasses = 16;
// Most sweeps of the velocity pass over an island's manifolds in a substep.
constexpr int kVelocitySweeps = 1;
constexpr float kVelocityTolerance = 1e-5f;
// The same for the position pass: most passes over one manifold's points, and the penetration beyond the slop (m)
// below which they count as agreeing and as touching.
constexpr int kPositionPasses = 4;
// Starting overlap, metres, beyond which a point's overlap is taken out without speed (split impulse).
constexpr float kSplitOverlap = 1e-3f;
constexpr float kMaxPushSpeed = 3.0f;
constexpr float kPositionTolerance = 1e-6f;
// Depth, metres, below which a manifold's local passes and an island's passes count as converged: a few float steps
// of a coordinate tens of metres from the origin (one step at 40 m is 3.8e-6 m), below which a pass only moves
// round-off about.
constexpr float kConverged = 1e-5f;

// One side of a contact during a substep: its pose now and at the start of the substep, its mass properties and
// velocities. `body` is the solver body when it is dynamic (the only kind a contact moves).
//
// The corrections of one manifold turn the body by the sum of their rotation vectors, applied to the orientation it
// had when the manifold began (`q0`, `turn`): rotations about different axes do not commute, and turning by each
// corner's correction in sequence would leave a second-order turn about the contact normal (the corners of a square
// hit turn about y, z, -y, -z) that no normal impulse can undo, so a head-on hit of two boxes would set them spinning.
struct Side {
    glm::vec3 x{0.0f};
    glm::quat q{1.0f, 0.0f, 0.0f, 0.0f};
    glm::quat q0{1.0f, 0.0f, 0.0f, 0.0f};
    glm::vec3 turn{0.0f};
    glm::vec3 prev_x{0.0f};
    glm::quat prev_q{1.0f, 0.0f, 0.0f, 0.0f};
    glm::vec3 v{0.0f};
    glm::vec3 w{0.0f};
    float inv_mass = 0.0f;
    glm::vec3 inv_inertia{0.0f};
    SolverBody* body = nullptr;
    glm::vec3* linear_impulse = nullptr;   // the body's sum of P over this substep's corrections (kg m)
    glm::vec3* angular_impulse = nullptr;  // the body's sum of r x P over this substep's corrections (kg m^2)
    glm::vec3* pseudo_shift = nullptr;     // the body's motion by this substep's split impulses (m, rad)
    glm::vec3* pseudo_turn = nullptr;
    std::uint8_t* pseudo_any = nullptr;  // 1 once a split impulse has moved the body in this substep

    // Generalized inverse mass along unit direction d at arm r (Mueller et al. 2020, eq. 2).
    TUMBLE_SOLVER_INLINE float weight(const glm::vec3& r, const glm::vec3& d) const {
        if (!body) return 0.0f;
        const glm::vec3 u = unrotate(q, glm::cross(r, d));
        return inv_mass + glm::dot(u * inv_inertia, u);
    }
    // Applies the positional impulse p (kg m) at arm r; `real` impulses count towards the velocities, the others
    // only move the body.
    TUMBLE_SOLVER_INLINE void push(const glm::vec3& r, const glm::vec3& p, bool real = true) {
        if (!body) return;
        x += p * inv_mass;
        const glm::vec3 moment = glm::cross(r, p);
        const glm::vec3 theta = inverse_inertia_times(q, inv_inertia, moment);
        if (real) {
            *linear_impulse += p;
            *angular_impulse += moment;
        } else {
            *pseudo_shift += p * inv_mass;
            *pseudo_turn += theta;
            *pseudo_any = 1;
        }
        if (theta != glm::vec3(0.0f)) {
            turn += theta;
            q = turned(q0, turn);
        }
        body->position = x;
        body->orientation = q;
    }
    // Generalized inverse mass of a pure rotation about unit axis d: d . I^-1 d.
    float angular_weight(const glm::vec3& d) const {
        if (!body) return 0.0f;
        const glm::vec3 u = unrotate(q, d);
        return glm::dot(u * inv_inertia, u);
    }
    // Applies the positional angular impulse m (kg m^2) about the centre.
    void twist(const glm::vec3& m) {
        if (!body) return;
        *angular_impulse += m;
        turn += inverse_inertia_times(q, inv_inertia, m);
        q = turned(q0, turn);
        body->orientation = q;
    }
    // Applies the angular impulse m (N m s) about the centre.
    void spin(const glm::vec3& m) {
        if (!body) return;
        w += inverse_inertia_times(q, inv_inertia, m);
        body->angular_velocity = w;
    }
    // Applies the velocity impulse p (N s) at arm r.
    void kick(const glm::vec3& r, const glm::vec3& p) {
        if (!body) return;
        v += p * inv_mass;
        w += inverse_inertia_times(q, inv_inertia, glm::cross(r, p));
        body->velocity = v;
        body->angular_velocity = w;
    }
    glm::vec3 point_velocity(const glm::vec3& r) const { return v + glm::cross(w, r); }
    // How far the split impulses of this substep moved the body's point at arm r (to first order in the turn).
    TUMBLE_SOLVER_INLINE glm::vec3 pseudo_motion(const glm::vec3& r) const {
        if (!body || !*pseudo_any) return glm::vec3(0.0f);
        return *pseudo_shift + glm::cross(*pseudo_turn, r);
    }
};

// True when the point's anchor on the incident body (the one the reference face does not belong to) is over the
// manifold's reference face, within kOverhang (ContactSides).
bool over_reference(const ContactSides& face, const Side& a, const Side& b, const ContactPoint& cp) {
    if (face.count == 0) return true;
    const Side& ref = face.reference_is_a ? a : b;
    const glm::vec3 incident = face.reference_is_a ? b.x + rotate(b.q, cp.anchor_b) : a.x + rotate(a.q, cp.anchor_a);
    const glm::vec3 local = unrotate(ref.q, incident - ref.x);
    for (int k = 0; k < face.count; ++k) {
        const glm::vec4& plane = face.planes[static_cast<std::size_t>(k)];
        if (glm::dot(glm::vec3(plane), local) > plane.w + kOverhang) return false;
    }
    return true;
}

// A pair of anchors (body frames) now: their world points p_a and p_b, and the arms from each centre to their
// midpoint, where both bodies' impulses act. One point of application makes every contact impulse conserve angular
// momentum exactly, also when the anchors have drifted apart along the surface; two points would add the moment of
// the pair, (p_b - p_a) x P.
struct Arms {
    glm::vec3 pa, pb, ra, rb;
};
TUMBLE_SOLVER_INLINE Arms arms(const Side& a, const Side& b, const glm::vec3& anchor_a, const glm::vec3& anchor_b) {
    Arms out;
    out.pa = a.x + rotate(a.q, anchor_a);
    out.pb = b.x + rotate(b.q, anchor_b);
    const glm::vec3 mid = 0.5f * (out.pa + out.pb);
    out.ra = mid - a.x;
    out.rb = mid - b.x;
    return out;
}

}  // namespace

void PositionSolver::build_islands(std::span<const SolverBody> bodies, std::span<const ContactManifold> manifolds) {
    // Union-find over dynamic bodies linked by a manifold between two dynamic bodies (Tarjan 1975, path halving);
    // fixed and kinematic bodies link nothing (they would merge everything on one floor into one island). Islands
    // are numbered by their smallest body index; each lists its dynamic bodies and its manifolds in ascending order.
    const auto n = static_cast<std::uint32_t>(bodies.size());
    parent_.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) parent_[i] = i;
    auto find = [&](std::uint32_t x) {
        while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
        return x;
    };
    auto dynamic = [&](std::uint32_t i) { return i != kStaticGeometry && bodies[i].motion == Motion::dynamic; };
    for (const ContactManifold& m : manifolds) {
        if (!dynamic(m.a) || !dynamic(m.b)) continue;
        const std::uint32_t ra = find(m.a), rb = find(m.b);
        if (ra != rb) parent_[std::max(ra, rb)] = std::min(ra, rb);
    }
    reset(island_of_root_, n, kNone);
    reset(body_island_, n, kNone);
    std::uint32_t islands = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        if (!dynamic(i)) continue;
        const std::uint32_t root = find(i);
        if (island_of_root_[root] == kNone) island_of_root_[root] = islands++;
        body_island_[i] = island_of_root_[root];
    }
    island_count_ = islands;
    group_begin_.clear();  // schedule_islands: one island a group, unless group_islands says otherwise
    // CSR lists: bodies, then manifolds (a manifold belongs to the island of its dynamic body).
    reset(body_begin_, islands + 1, std::uint32_t{0});
    for (std::uint32_t i = 0; i < n; ++i)
        if (body_island_[i] != kNone) ++body_begin_[body_island_[i] + 1];
    for (std::uint32_t i = 0; i < islands; ++i) body_begin_[i + 1] += body_begin_[i];
    island_bodies_.resize(body_begin_[islands]);
    std::vector<std::uint32_t>& fill = parent_;  // reused as the write cursor
    fill.assign(body_begin_.begin(), body_begin_.end() - 1);
    for (std::uint32_t i = 0; i < n; ++i)
        if (body_island_[i] != kNone) island_bodies_[fill[body_island_[i]]++] = i;

    auto island_of = [&](const ContactManifold& m) {
        if (dynamic(m.a)) return body_island_[m.a];
        return dynamic(m.b) ? body_island_[m.b] : kNone;
    };
    reset(manifold_begin_, islands + 1, std::uint32_t{0});
    for (const ContactManifold& m : manifolds)
        if (const std::uint32_t i = island_of(m); i != kNone) ++manifold_begin_[i + 1];
    for (std::uint32_t i = 0; i < islands; ++i) manifold_begin_[i + 1] += manifold_begin_[i];
    island_manifolds_.resize(manifold_begin_[islands]);
    fill.assign(manifold_begin_.begin(), manifold_begin_.end() - 1);
    for (std::uint32_t k = 0; k < manifolds.size(); ++k)
        if (const std::uint32_t i = island_of(manifolds[k]); i != kNone) island_manifolds_[fill[i]++] = k;
}

void PositionSolver::group_islands(std::uint32_t most_work, FunctionRef<bool(std::uint32_t)> alone) {
    const auto islands = static_cast<std::uint32_t>(island_count_);
    reserve_for(group_begin_, std::size_t{islands} + 1);  // the most groups there can be: no allocation in the loop
    group_begin_.clear();
    std::uint64_t in_group = 0;
    bool open = false;  // the last group takes more islands
    for (std::uint32_t i = 0; i < islands; ++i) {
        const std::uint64_t work =
            (body_begin_[i + 1] - body_begin_[i]) + 4 * std::uint64_t{manifold_begin_[i + 1] - manifold_begin_[i]};
        const bool single = alone(i);
        if (!open || single || in_group + work > most_work) {
            group_begin_.push_back(i);
            in_group = 0;
        }
        in_group += work;
        open = !single;
    }
    group_begin_.push_back(islands);
}

void PositionSolver::schedule_islands(int threads) {
    // Largest first, each large item a unit of its own and the small ones packed into units up to a fraction of the
    // work per thread: threads take units as they free up (longest processing time first, Graham 1969). The units
    // depend on the thread count, but islands share no dynamic body, so the results do not. Without group_islands,
    // every island is an item of its own.
    if (group_begin_.empty()) {
        reserve_for(group_begin_, island_count_ + 1);
        group_begin_.resize(island_count_ + 1);
        for (std::uint32_t i = 0; i <= island_count_; ++i) group_begin_[i] = i;
    }
    const auto items = static_cast<std::uint32_t>(group_begin_.size() - 1);
    auto work = [&](std::uint32_t g) -> std::uint64_t {
        const std::uint32_t first = group_begin_[g], last = group_begin_[g + 1];
        return (body_begin_[last] - body_begin_[first]) +
               4 * std::uint64_t{manifold_begin_[last] - manifold_begin_[first]};
    };
    // Most work first, then by index: sorted as one integer key per item (the work's complement above the index),
    // which is the order a comparison of the two gives, at a fraction of its cost for thousands of small islands.
    island_key_.resize(items);
    for (std::uint32_t g = 0; g < items; ++g)
        island_key_[g] = ((std::uint64_t{0xffffffffu} - std::min<std::uint64_t>(work(g), 0xffffffffu)) << 32) | g;
    std::sort(island_key_.begin(), island_key_.end());
    island_order_.resize(items);
    for (std::uint32_t o = 0; o < items; ++o) island_order_[o] = static_cast<std::uint32_t>(island_key_[o]);
    std::size_t total = 0;
    for (std::uint32_t g = 0; g < items; ++g) total += work(g);
    const std::size_t target = std::max<std::size_t>(64, total / (8 * static_cast<std::size_t>(std::max(threads, 1))));
    unit_begin_.clear();
    std::size_t in_unit = 0;
    for (std::uint32_t o = 0; o < items; ++o) {
        if (o == 0 || in_unit + work(island_order_[o]) > target) {
            unit_begin_.push_back(o);
            in_unit = 0;
        }
        in_unit += work(island_order_[o]);
    }
    unit_begin_.push_back(items);
}

void PositionSolver::solve(std::span<SolverBody> bodies, std::span<ContactManifold> manifolds, const glm::vec3& gravity,
                           float dt, const SolverSettings& settings, Parallel& parallel) {
    solve(bodies, manifolds, {}, gravity, dt, settings, parallel);
}

void PositionSolver::solve(std::span<SolverBody> bodies, std::span<ContactManifold> manifolds,
                           std::span<ContactWarmStart> warm, const glm::vec3& gravity, float dt,
                           const SolverSettings& settings, Parallel& parallel) {
    solve(bodies, manifolds, {}, warm, gravity, dt, settings, parallel);
}

void PositionSolver::solve(std::span<SolverBody> bodies, std::span<ContactManifold> manifolds,
                           std::span<const ContactSides> sides, std::span<ContactWarmStart> warm,
                           const glm::vec3& gravity, float dt, const SolverSettings& settings, Parallel& parallel) {
    const std::size_t n = bodies.size();
    TUMBLE_ASSERT(warm.empty() || warm.size() == 4 * manifolds.size());
    TUMBLE_ASSERT(sides.empty() || sides.size() == manifolds.size());
    if constexpr (kAssertsEnabled) {
        // The engine's contract (position_solver.hpp): indices in range, at most 4 points, inverse masses and
        // inertias >= 0 (not NaN; +infinity is what a box of tiny half extents
        // gives its inverse inertia: create_body refuses masses below kMinDynamicMass, not such sizes).
        for (const SolverBody& b : bodies) {
            TUMBLE_ASSERT(b.inverse_mass >= 0.0f);
            TUMBLE_ASSERT(b.inverse_inertia.x >= 0.0f && b.inverse_inertia.y >= 0.0f && b.inverse_inertia.z >= 0.0f);
            TUMBLE_ASSERT(b.motion == Motion::dynamic ||
                          (b.inverse_mass == 0.0f && b.inverse_inertia == glm::vec3(0.0f)));
        }
        for (const ContactManifold& m : manifolds) {
            TUMBLE_ASSERT(m.a < n && (m.b < n || m.b == kStaticGeometry) && m.a != m.b);
            TUMBLE_ASSERT(m.count >= 0 && m.count <= 4);
        }
        for (const ContactSides& face : sides) TUMBLE_ASSERT(face.count <= 4);
    }
    if (settings.method == SolverMethod::soft_step)
        solve_soft(bodies, manifolds, warm, gravity, dt, settings, parallel);
    else
        solve_xpbd(bodies, manifolds, sides, gravity, dt, settings, parallel);

    // Kinematic bodies follow their velocities over the whole step (they belong to no island, and the islands read
    // their poses at the start of the step, which stay in `bodies` until here).
    for (std::size_t i = 0; i < n; ++i) {
        SolverBody& b = bodies[i];
        if (b.motion != Motion::kinematic) continue;
        b.position = b.position + b.velocity * dt;
        const float angle = glm::length(b.angular_velocity) * dt;
        if (angle > 0.0f)
            b.orientation = glm::normalize(glm::angleAxis(angle, glm::normalize(b.angular_velocity)) * b.orientation);
    }

    // Which points stuck: touching at the end of the step, friction anchors together.
    parallel.for_each_chunk(manifolds.size(), 256, [&](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k) {
            ContactManifold& m = manifolds[k];
            auto pose = [&](std::uint32_t i, glm::vec3& x, glm::quat& q) {
                if (i == kStaticGeometry) return;
                x = bodies[i].position;
                q = bodies[i].orientation;
            };
            glm::vec3 xa(0.0f), xb(0.0f);
            glm::quat qa(1.0f, 0.0f, 0.0f, 0.0f), qb(1.0f, 0.0f, 0.0f, 0.0f);
            pose(m.a, xa, qa);
            pose(m.b, xb, qb);
            for (int p = 0; p < m.count; ++p) {
                ContactPoint& cp = m.points[static_cast<std::size_t>(p)];
                const float gap = glm::dot((xb + rotate(qb, cp.anchor_b)) - (xa + rotate(qa, cp.anchor_a)), m.normal);
                glm::vec3 slip = (xa + rotate(qa, cp.friction_anchor_a)) - (xb + rotate(qb, cp.friction_anchor_b));
                slip -= m.normal * glm::dot(slip, m.normal);
                cp.stuck = m.friction > 0.0f && gap + settings.slop <= kPositionTolerance &&
                           glm::dot(slip, slip) <= kStickDistance * kStickDistance;
            }
        }
    });
}

void PositionSolver::solve_xpbd(std::span<SolverBody> bodies, std::span<ContactManifold> manifolds,
                                std::span<const ContactSides> sides, const glm::vec3& gravity, float dt,
                                const SolverSettings& settings, Parallel& parallel) {
    const std::size_t n = bodies.size();
    body_local_.resize(n);
    for (ContactManifold& m : manifolds)
        for (int k = 0; k < m.count; ++k) m.points[static_cast<std::size_t>(k)].normal_impulse = 0.0f;

    build_islands(bodies, manifolds);
    schedule_islands(parallel.threads());
    // Each slot (thread) runs its islands one after another in scratch of its own, sized here for the largest island
    // it may take: the per-manifold and per-body scratch is held for what runs at once, not for every manifold and
    // body of the step. Slot 0 runs unit 0, which holds the largest islands, and may take any later unit; the other
    // slots take only later units.
    const std::size_t slots = island_slots(parallel);
    if (slot_scratch_.size() < slots) slot_scratch_.resize(slots);
    std::size_t first_manifolds = 0, first_bodies = 0, later_manifolds = 0, later_bodies = 0;
    for (std::uint32_t o = 0; o < island_order_.size(); ++o) {  // island_order_ not empty: unit 0 exists
        const std::uint32_t island = island_order_[o];
        const bool first = o < unit_begin_[1];
        std::size_t& most_manifolds = first ? first_manifolds : later_manifolds;
        std::size_t& most_bodies = first ? first_bodies : later_bodies;
        most_manifolds = std::max<std::size_t>(most_manifolds, manifold_begin_[island + 1] - manifold_begin_[island]);
        most_bodies = std::max<std::size_t>(most_bodies, body_begin_[island + 1] - body_begin_[island]);
    }
    slot_scratch_[0].reserve(std::max(first_manifolds, later_manifolds), std::max(first_bodies, later_bodies));
    for (std::size_t s = 1; s < slots; ++s) slot_scratch_[s].reserve(later_manifolds, later_bodies);
    for_each_island(parallel, [&](std::uint32_t island, std::size_t slot) {
        run_island(island, slot_scratch_[slot], bodies, manifolds, sides, gravity, dt, settings);
    });
}

void PositionSolver::IslandScratch::reserve(std::size_t manifolds, std::size_t bodies) {
    if (prev_x.capacity() < bodies) {
        const std::size_t room = std::max(bodies, prev_x.capacity() + prev_x.capacity() / 4);
        prev_x.reserve(room);
        prev_q.reserve(room);
        predicted_x.reserve(room);
        predicted_q.reserve(room);
        corrected.reserve(room);
        linear_impulse.reserve(room);
        angular_impulse.reserve(room);
        pseudo_shift.reserve(room);
        pseudo_turn.reserve(room);
        pseudo_any.reserve(room);
    }
    if (velocity.capacity() >= manifolds) return;
    const std::size_t room = std::max(manifolds, velocity.capacity() + velocity.capacity() / 4);
    points.reserve(4 * room);
    engaged.reserve(4 * room);
    split.reserve(4 * room);
    normal.reserve(room);
    tangential.reserve(room);
    twist.reserve(room);
    patches.reserve(room);
    velocity.reserve(room);
}

void PositionSolver::run_island(std::uint32_t island, IslandScratch& scratch, std::span<SolverBody> bodies,
                                std::span<ContactManifold> manifolds, std::span<const ContactSides> sides,
                                const glm::vec3& gravity, float dt, const SolverSettings& settings) {
    const int substeps = settings.substeps;
    const float h = dt / static_cast<float>(substeps);
    const std::uint32_t* body_list = island_bodies_.data() + body_begin_[island];
    const std::uint32_t body_count = body_begin_[island + 1] - body_begin_[island];
    const std::uint32_t* manifold_list = island_manifolds_.data() + manifold_begin_[island];
    const std::uint32_t manifold_count = manifold_begin_[island + 1] - manifold_begin_[island];
    if constexpr (kAssertsEnabled) {
        // build_islands: an island lists dynamic bodies and the manifolds that touch one of them, all in range.
        TUMBLE_ASSERT(island < island_count_);
        for (std::uint32_t i = 0; i < body_count; ++i)
            TUMBLE_ASSERT(body_list[i] < bodies.size() && bodies[body_list[i]].motion == Motion::dynamic &&
                          body_island_[body_list[i]] == island);
        for (std::uint32_t k = 0; k < manifold_count; ++k) {
            TUMBLE_ASSERT(manifold_list[k] < manifolds.size());
            const ContactManifold& m = manifolds[manifold_list[k]];
            TUMBLE_ASSERT((m.a != kStaticGeometry && body_island_[m.a] == island) ||
                          (m.b != kStaticGeometry && body_island_[m.b] == island));
        }
    }

    // The island's scratch, by its manifolds' order in the island (k): points and their flags 4 k + p.
    reset(scratch.points, 4 * std::size_t{manifold_count}, Point{});
    reset(scratch.engaged, 4 * std::size_t{manifold_count}, std::uint8_t{0});
    reset(scratch.split, 4 * std::size_t{manifold_count}, 0.0f);
    for (std::uint32_t k = 0; k < manifold_count; ++k) {
        const ContactManifold& m = manifolds[manifold_list[k]];
        for (int p = 0; p < m.count; ++p) {
            const float separation = m.points[static_cast<std::size_t>(p)].separation;
            scratch.engaged[4 * std::size_t{k} + static_cast<std::size_t>(p)] = separation <= 0.0f;
            const float overlap = -(separation + settings.slop);
            scratch.split[4 * std::size_t{k} + static_cast<std::size_t>(p)] = overlap > kSplitOverlap ? overlap : 0.0f;
        }
    }
    reset(scratch.normal, manifold_count, 0.0f);
    reset(scratch.tangential, manifold_count, 0.0f);
    reset(scratch.twist, manifold_count, 0.0f);
    reset(scratch.patches, manifold_count, Patch{});
    scratch.velocity.resize(manifold_count);
    Point* const point_state = scratch.points.data();
    std::uint8_t* const engaged_flags = scratch.engaged.data();
    float* const split_left = scratch.split.data();
    float* const normal_so_far = scratch.normal.data();
    float* const tangential_so_far = scratch.tangential.data();
    float* const twist_so_far = scratch.twist.data();
    Patch* const patch_of = scratch.patches.data();
    Velocity* const velocity_of = scratch.velocity.data();
    // ... and by its dynamic bodies' order in the island (body_local_): their poses and impulses of a substep.
    for (std::uint32_t k = 0; k < body_count; ++k) body_local_[body_list[k]] = k;
    scratch.prev_x.resize(body_count);
    scratch.prev_q.resize(body_count);
    scratch.predicted_x.resize(body_count);
    scratch.predicted_q.resize(body_count);
    scratch.corrected.resize(body_count);
    scratch.linear_impulse.resize(body_count);
    scratch.angular_impulse.resize(body_count);
    scratch.pseudo_shift.resize(body_count);
    scratch.pseudo_turn.resize(body_count);
    scratch.pseudo_any.resize(body_count);
    glm::vec3* const body_prev_x = scratch.prev_x.data();
    glm::quat* const body_prev_q = scratch.prev_q.data();
    glm::vec3* const body_predicted_x = scratch.predicted_x.data();
    glm::quat* const body_predicted_q = scratch.predicted_q.data();
    std::uint8_t* const body_corrected = scratch.corrected.data();
    glm::vec3* const body_linear_impulse = scratch.linear_impulse.data();
    glm::vec3* const body_angular_impulse = scratch.angular_impulse.data();
    glm::vec3* const body_pseudo_shift = scratch.pseudo_shift.data();
    glm::vec3* const body_pseudo_turn = scratch.pseudo_turn.data();
    std::uint8_t* const body_pseudo_any = scratch.pseudo_any.data();

    // A contact side at substep end time t (seconds from the start of the step).
    auto side = [&](std::uint32_t index, float t) {
        Side s;
        if (index == kStaticGeometry) return s;
        SolverBody& b = bodies[index];
        s.v = b.velocity;
        s.w = b.angular_velocity;
        switch (b.motion) {
            case Motion::dynamic:
                s.x = b.position;
                s.q = s.q0 = b.orientation;
                s.prev_x = body_prev_x[body_local_[index]];
                s.prev_q = body_prev_q[body_local_[index]];
                s.inv_mass = b.inverse_mass;
                s.inv_inertia = b.inverse_inertia;
                s.body = &b;
                s.linear_impulse = &body_linear_impulse[body_local_[index]];
                s.angular_impulse = &body_angular_impulse[body_local_[index]];
                s.pseudo_shift = &body_pseudo_shift[body_local_[index]];
                s.pseudo_turn = &body_pseudo_turn[body_local_[index]];
                s.pseudo_any = &body_pseudo_any[body_local_[index]];
                break;
            case Motion::kinematic: {
                // Exact constant-velocity motion from the start of the step (its pose in `bodies` until the islands
                // are done), shared by every island that reads it.
                auto pose = [&](float at, glm::vec3& x, glm::quat& q) {
                    x = b.position + b.velocity * at;
                    const float angle = glm::length(b.angular_velocity) * at;
                    q = angle > 0.0f
                            ? glm::normalize(glm::angleAxis(angle, glm::normalize(b.angular_velocity)) * b.orientation)
                            : b.orientation;
                };
                pose(t, s.x, s.q);
                pose(t - h, s.prev_x, s.prev_q);
                break;
            }
            case Motion::fixed:
                s.x = s.prev_x = b.position;
                s.q = s.prev_q = b.orientation;
                s.v = s.w = glm::vec3(0.0f);
                break;
        }
        return s;
    };

    // Dynamic friction on a manifold's patch in the velocity pass, as in the position pass: the relative tangential
    // velocity at the centroid of the points in contact and the relative spin about the normal, each taken out
    // within what the position pass left of the manifold's cone in this substep (friction times the normal impulses;
    // for the twist, times the patch's mean radius). Accumulated over the passes and sweeps, so that the normal
    // impulses can shift between the points to balance the friction's torque (a box sliding on its face does not
    // pitch). Returns the largest velocity change it made, m/s.
    auto friction = [&](const ContactManifold& m, std::uint32_t k, Side& a, Side& b) {
        Velocity& vs = velocity_of[k];
        const glm::vec3 n = m.normal;
        float largest = 0.0f;
        float normal = 0.0f;
        for (int p = 0; p < m.count; ++p)
            if (vs.active[p]) normal += point_state[4 * k + static_cast<std::uint32_t>(p)].lambda_n / h + vs.jv[p];
        const Patch& pp = patch_of[k];
        const float budget = std::max(0.0f, m.friction * normal - pp.tangential / h);
        // The position pass spent friction on its normal corrections, which overshoot while a sliding box pitches
        // (the friction's moment tips it onto its leading edge); this pass takes the overshoot back (jv < 0), and
        // with it the friction it paid for: without that, a box sliding at 8 substeps decelerated 7 % too fast on a
        // 35 degree ramp with friction 0.6, 35 % at 16.
        const float excess = pp.tangential / h - m.friction * std::max(normal, 0.0f);
        const float given = glm::length(pp.on_a);
        glm::vec3 u = b.point_velocity(vs.centre_b) - a.point_velocity(vs.centre_a);
        u -= n * glm::dot(u, n);
        const float slide = glm::length(u);
        if (excess > 0.0f && given > 0.0f) {
            // Back along the positional friction's direction, by the excess (at most all of it).
            const glm::vec3 dir = pp.on_a / given;
            const glm::vec3 total = dir * (-std::min(excess, given / h));
            const glm::vec3 change = total - vs.jt;
            a.kick(vs.centre_a, change);
            b.kick(vs.centre_b, -change);
            vs.jt = total;
            largest = std::max(largest, glm::length(change) * (a.weight(vs.centre_a, dir) + b.weight(vs.centre_b, dir)));
        } else if (slide > 0.0f) {
            const glm::vec3 dir = u / slide;
            const float wt = a.weight(vs.centre_a, dir) + b.weight(vs.centre_b, dir);
            if (wt > 0.0f) {
                glm::vec3 total = vs.jt + dir * (slide / wt);  // on A; B gets the opposite
                const float len = glm::length(total);
                if (len > budget) total *= budget / len;
                const glm::vec3 change = total - vs.jt;
                a.kick(vs.centre_a, change);
                b.kick(vs.centre_b, -change);
                vs.jt = total;
                largest = std::max(largest, glm::length(change) * wt);
            }
        }
        const float ww = a.angular_weight(n) + b.angular_weight(n);
        if (vs.patch_radius > 0.0f && ww > 0.0f) {
            const float spin = glm::dot(b.w - a.w, n);
            const float twist_budget = std::max(0.0f, m.friction * normal * vs.patch_radius - pp.twist / h);
            const float total = std::clamp(vs.jw + spin / ww, -twist_budget, twist_budget);  // on A about n
            const float change = total - vs.jw;
            a.spin(change * n);
            b.spin(-change * n);
            vs.jw = total;
            largest = std::max(largest, std::abs(change) * ww * vs.patch_radius);
        }
        return largest;
    };

    // A point found in (gap < 0, over its reference face) in this substep: engaged for the rest of the step, its
    // approach speed recorded (restitution).
    auto engage = [&](const ContactManifold& m, ContactPoint& cp, std::uint32_t slot, const Arms& r, const Side& a,
                      const Side& b, const glm::vec3& n, Point& sp) {
        std::uint8_t& engaged = engaged_flags[slot];
        if (!engaged) {
            // At an impact, a point that was apart when the step began starts sticking where it touches: its friction
            // anchors are set now, not where the manifold was found (a box thrown at a wall at an angle would
            // otherwise be dragged back by the whole way it slid before it got there).
            if (m.impact && cp.separation > 0.0f) {
                cp.friction_anchor_a = cp.anchor_a;
                cp.friction_anchor_b = unrotate(b.q, r.pa - b.x);
            }
            engaged = 1;
        }
        if (!sp.met) sp.approach = glm::dot(b.point_velocity(r.rb) - a.point_velocity(r.ra), n);
        sp.met = true;
    };
    for (int step = 0; step < substeps; ++step) {
        const float t = h * static_cast<float>(step + 1);
        // 1. Integrate the island's dynamic bodies.
        for (std::uint32_t k = 0; k < body_count; ++k) {
            const std::uint32_t i = body_list[k];
            SolverBody& b = bodies[i];
            body_prev_x[k] = b.position;
            body_prev_q[k] = b.orientation;
            b.velocity += h * (gravity + b.force * b.inverse_mass);
            b.position += h * b.velocity;
            if (b.inverse_inertia != glm::vec3(0.0f))
                rotate_substep(b.orientation, b.angular_velocity, b.inverse_inertia, b.torque, h);
            body_predicted_x[k] = b.position;
            body_predicted_q[k] = b.orientation;
            body_corrected[k] = 0;
            body_linear_impulse[k] = glm::vec3(0.0f);
            body_angular_impulse[k] = glm::vec3(0.0f);
            body_pseudo_shift[k] = glm::vec3(0.0f);
            body_pseudo_turn[k] = glm::vec3(0.0f);
            body_pseudo_any[k] = 0;
        }
        // Reset the manifolds' scratch; points not yet engaged find out whether they are over their reference
        // face now, before this substep's corrections turn anything.
        for (std::uint32_t k = 0; k < manifold_count; ++k) {
            const std::uint32_t mi = manifold_list[k];
            const ContactManifold& m = manifolds[mi];
            const Side a = side(m.a, t), b = side(m.b, t);
            for (int p = 0; p < m.count; ++p) {
                Point& sp = point_state[4 * k + static_cast<std::uint32_t>(p)];
                sp = Point{};
                const ContactPoint& cp = m.points[static_cast<std::size_t>(p)];
                sp.over = engaged_flags[4 * k + static_cast<std::uint32_t>(p)] || sides.empty() ||
                          over_reference(sides[mi], a, b, cp);
            }
            patch_of[k] = Patch{};
        }

        // 2. Positions. Per manifold, the normal corrections are iterated over its points until they agree
        //    (sequential corrections at the corners of a face contact otherwise leave the bodies turned), then friction
        //    removes the friction anchors' tangential slip at every touching point within friction times the
        //    manifold's normal impulse of the step (one Coulomb cone per manifold: with one cone per point, the point
        //    that took the load could hold while the box turned about it).
        for (int pass = 0; pass < settings.iterations; ++pass) {
            float sweep_deepest = 0.0f;
            for (std::uint32_t k = 0; k < manifold_count; ++k) {
                const std::uint32_t mi = manifold_list[k];
                ContactManifold& m = manifolds[mi];
                Side a = side(m.a, t), b = side(m.b, t);
                const glm::vec3 n = m.normal;
                Point* sp = point_state + 4 * static_cast<std::size_t>(k);
                for (int local = 0; local < kPositionPasses; ++local) {
                    float deepest = 0.0f;
                    for (int p = 0; p < m.count; ++p) {
                        ContactPoint& cp = m.points[static_cast<std::size_t>(p)];
                        const Arms r = arms(a, b, cp.anchor_a, cp.anchor_b);
                        const glm::vec3 &ra = r.ra, &rb = r.rb;
                        const float c = glm::dot(r.pb - r.pa, n) + settings.slop;
                        if (!(c < 0.0f)) continue;
                        if (!sp[p].over) continue;
                        engage(m, cp, 4 * k + static_cast<std::uint32_t>(p), r, a, b, n, sp[p]);
                        const float w = a.weight(ra, n) + b.weight(rb, n);
                        if (!(w > 0.0f)) continue;
                        const float dl = -c / w;
                        // The share that takes out the overlap the point had when the step began moves the bodies
                        // without giving them speed (split impulse, Catto 2006; Bullet's split impulse): that
                        // overlap is an error of earlier steps (a spawn inside another box, a corner that turned
                        // into a wall between two sets of contact points), and pushing it out at depth / h threw
                        // boxes out of a level pile at 15 m/s.
                        float& split = split_left[4 * k + static_cast<std::uint32_t>(p)];
                        float pseudo = std::min(dl, split / w);
                        split -= pseudo * w;
                        // How far split impulses have moved the point along n in this substep (< 0: closing).
                        const float pseudo_moved =
                            glm::dot(b.pseudo_motion(r.pb - b.x) - a.pseudo_motion(r.pa - a.x), n);
                        // Overlap that other points' split impulses drove into this one in this substep is taken
                        // out the same way, without speed: a light box that a heavy one starts the step inside of is
                        // pushed into the floor by that split, and the floor must push it back as far.
                        pseudo += std::max(0.0f, std::min(dl - pseudo, -pseudo_moved / w));
                        // The real share gives the point at most its approach speed plus kMaxPushSpeed (Box2D v3's
                        // contact push speed), or, if more, stops what closed the point in this substep, other
                        // contacts' corrections included: the floor under a light box that a heavy one lands on
                        // must stop the heavy one too, and a bound on the point's own pushes let the light box be
                        // driven through the floor. That motion (since the substep began, less what split impulses
                        // did) is only needed when the first bound falls short.
                        const float limit = (std::max(0.0f, -sp[p].approach) + kMaxPushSpeed) * h;
                        float allowed = (limit - sp[p].pushed) / w;
                        if (allowed < dl - pseudo) {
                            const float start_gap = glm::dot(
                                (b.prev_x + rotate(b.prev_q, cp.anchor_b)) - (a.prev_x + rotate(a.prev_q, cp.anchor_a)),
                                n);
                            const float moved = c - settings.slop - start_gap - pseudo_moved;
                            allowed = std::max(allowed, -moved / w);
                        }
                        const float real = std::max(0.0f, std::min(dl - pseudo, allowed));
                        sp[p].pushed += real * w;
                        // A zero share moves nothing (x + -0 == x, a zero turn is skipped): leaving it out saves
                        // two quaternion rotations per body and changes no bit.
                        if (pseudo != 0.0f) {
                            a.push(ra, -pseudo * n, false);
                            b.push(rb, pseudo * n, false);
                        }
                        if (real != 0.0f) {
                            a.push(ra, -real * n);
                            b.push(rb, real * n);
                        }
                        sp[p].lambda_n += real;
                        deepest = std::max(deepest, -c);
                    }
                    if (local == 0) sweep_deepest = std::max(sweep_deepest, deepest);
                    if (deepest <= kConverged) break;
                }
                float normal = 0.0f;
                for (int p = 0; p < m.count; ++p) normal += sp[p].lambda_n;
                Patch& patch = patch_of[k];
                if (!(normal > 0.0f)) continue;
                if (a.body) body_corrected[body_local_[m.a]] = 1;
                if (b.body) body_corrected[body_local_[m.b]] = 1;
                if (!(m.friction > 0.0f)) continue;
                // The manifold's normal and friction impulses of the step so far: earlier substeps' totals and this
                // substep's running sums (over every pass).
                const float step_normal = normal_so_far[k] + normal;
                const float step_tangential = tangential_so_far[k] + patch.tangential;
                // Friction acts on the contact patch as a whole: the slip of the touching points' friction anchors
                // at their centroid, undone by one tangential correction there, and their turn about the normal,
                // undone by a twist. Correcting corner by corner would spend the cone mostly on turning the box
                // (a corner's generalized inverse mass is several times the centre's) and let it slide.
                glm::vec3 pa[4], pb[4], ca(0.0f), cb(0.0f);
                int touching = 0;
                for (int p = 0; p < m.count; ++p) {
                    const ContactPoint& cp = m.points[static_cast<std::size_t>(p)];
                    if (!(glm::dot((b.x + rotate(b.q, cp.anchor_b)) - (a.x + rotate(a.q, cp.anchor_a)), n) +
                              settings.slop <=
                          kPositionTolerance) ||
                        !engaged_flags[4 * k + static_cast<std::uint32_t>(p)])
                        continue;
                    pa[touching] = a.x + rotate(a.q, cp.friction_anchor_a);
                    pb[touching] = b.x + rotate(b.q, cp.friction_anchor_b);
                    ca += pa[touching];
                    cb += pb[touching];
                    ++touching;
                }
                if (touching == 0) continue;
                ca /= static_cast<float>(touching);
                cb /= static_cast<float>(touching);
                // Tangential slip at the centroid, undone within the manifold's Coulomb cone of the step: all of it
                // while it holds (static), as much as the cone allows otherwise (sliding). Clamping instead of
                // skipping matters when a box rests on several manifolds (two triangles of a floor): each has part
                // of the load but must move the whole box.
                glm::vec3 slip = ca - cb;
                slip -= n * glm::dot(slip, n);
                const float len = glm::length(slip);
                const glm::vec3 mid = 0.5f * (ca + cb);
                const glm::vec3 ra = mid - a.x, rb = mid - b.x;
                if (len > 0.0f) {
                    const glm::vec3 dir = slip / len;
                    const float wt = a.weight(ra, dir) + b.weight(rb, dir);
                    const float allowed = m.friction * step_normal - step_tangential;
                    if (wt > 0.0f && allowed > 0.0f) {
                        const float dlt = std::min(len / wt, allowed);
                        a.push(ra, -dlt * dir);
                        b.push(rb, dlt * dir);
                        patch.tangential += dlt;
                        patch.on_a -= dlt * dir;
                    }
                }
                // Twist: the turn of B's points about the normal relative to A's, around their centroids (small
                // angles: sum of u x v over sum of |u|^2), undone within the cone times the patch's mean radius.
                if (touching >= 2) {
                    float cross = 0.0f, radius2 = 0.0f, radius = 0.0f;
                    for (int t2 = 0; t2 < touching; ++t2) {
                        glm::vec3 u = pa[t2] - ca, v = pb[t2] - cb;
                        u -= n * glm::dot(u, n);
                        v -= n * glm::dot(v, n);
                        cross += glm::dot(glm::cross(u, v), n);
                        radius2 += glm::dot(u, u);
                        radius += glm::length(u);
                    }
                    radius /= static_cast<float>(touching);
                    const float angle = radius2 > 0.0f ? cross / radius2 : 0.0f;
                    const float ww = a.angular_weight(n) + b.angular_weight(n);
                    const float allowed = m.friction * step_normal * radius - twist_so_far[k] - patch.twist;
                    if (angle != 0.0f && ww > 0.0f && allowed > 0.0f) {
                        const float l = std::min(std::abs(angle) / ww, allowed);
                        const float signed_l = angle > 0.0f ? -l : l;  // turns B back by -angle relative to A
                        a.twist(-signed_l * n);
                        b.twist(signed_l * n);
                        patch.twist += l;
                    }
                }
            }
            // Converged: no point of the island was deeper than kConverged at the start of this sweep.
            if (pass > 0 && sweep_deepest <= kConverged) break;
        }

        // 3. Velocities from the corrected motion (bodies nothing touched keep theirs exactly): the corrections'
        //    summed impulses over m h (not the difference of the rounded positions, whose float error at a few metres
        //    from the origin, over h, would add a random 1e-4 m/s a substep), and the angular momentum the integration predicted plus the corrections'
        //    moments over h, turned into w at the final orientation. Taking w from the moments rather than from the
        //    orientation change keeps angular momentum exact however large a correction turns the body (the
        //    orientation change is a nonlinear function of the moments).
        for (std::uint32_t k = 0; k < body_count; ++k) {
            const std::uint32_t i = body_list[k];
            if (!body_corrected[k]) continue;
            SolverBody& b = bodies[i];
            b.velocity += body_linear_impulse[k] * (b.inverse_mass / h);
            if (b.inverse_inertia == glm::vec3(0.0f)) continue;
            glm::vec3 inertia(0.0f);
            for (int c = 0; c < 3; ++c) inertia[c] = b.inverse_inertia[c] > 0.0f ? 1.0f / b.inverse_inertia[c] : 0.0f;
            const glm::vec3 l =
                inertia_times(body_predicted_q[k], inertia, b.angular_velocity) + body_angular_impulse[k] / h;
            b.angular_velocity = inverse_inertia_times(b.orientation, b.inverse_inertia, l);
        }

        // 4. Velocity pass: restitution and dynamic friction at the points pushed in this substep. Sweeps over the
        //    island's manifolds (Gauss-Seidel) until no impulse changes by more than kVelocityTolerance; within a
        //    manifold the normal part is iterated over its points until they agree: one pass of sequential impulses
        //    at the corners of a face contact turns the bodies, and a square hit would leave them spinning. Several
        //    sweeps matter in stacks: the pushes that took out the substep's sinking gave every box an upward speed
        //    that only the contacts above and below it together can take back, and one sweep left a 10-box stack
        //    bouncing (+0.04 J in its third step).
        for (std::uint32_t k = 0; k < manifold_count; ++k) {
            const std::uint32_t mi = manifold_list[k];
            const ContactManifold& m = manifolds[mi];
            Velocity& vs = velocity_of[k];
            vs = Velocity{};
            const Side a = side(m.a, t), b = side(m.b, t);
            const glm::vec3 n = m.normal;
            // The points in contact: pushed in this substep, or touching (gap <= 0). The position pass may have put
            // a resting box's whole push on one corner (Gauss-Seidel order); the touching corners take their share
            // of the velocity pass's impulses, so that the push is spread over the face instead of turning the box.
            bool any = false;
            for (int p = 0; p < m.count; ++p) {
                const ContactPoint& cp = m.points[static_cast<std::size_t>(p)];
                const Arms r = arms(a, b, cp.anchor_a, cp.anchor_b);
                vs.ra[p] = r.ra;
                vs.rb[p] = r.rb;
                const bool pushed = point_state[4 * k + static_cast<std::uint32_t>(p)].lambda_n > 0.0f;
                vs.active[p] = pushed || (glm::dot(r.pb - r.pa, n) <= 0.0f &&
                                          engaged_flags[4 * k + static_cast<std::uint32_t>(p)]);
                any = any || pushed;
            }
            if (!any) continue;
            vs.any = true;
            // The patch: centroid of the points in contact (arms from each centre) and their mean distance from it.
            glm::vec3 centre(0.0f);
            for (int p = 0; p < m.count; ++p)
                if (vs.active[p]) centre += a.x + vs.ra[p], ++vs.contact_count;
            if (vs.contact_count > 0) {
                centre /= static_cast<float>(vs.contact_count);
                vs.centre_a = centre - a.x;
                vs.centre_b = centre - b.x;
                for (int p = 0; p < m.count; ++p) {
                    if (!vs.active[p]) continue;
                    glm::vec3 d = a.x + vs.ra[p] - centre;
                    d -= n * glm::dot(d, n);
                    vs.patch_radius += glm::length(d);
                }
                vs.patch_radius /= static_cast<float>(vs.contact_count);
            }
        }
        for (int sweep = 0; sweep < kVelocitySweeps; ++sweep) {
            float sweep_largest = 0.0f;
            for (std::uint32_t k = 0; k < manifold_count; ++k) {
                const std::uint32_t mi = manifold_list[k];
                Velocity& vs = velocity_of[k];
                if (!vs.any) continue;
                const ContactManifold& m = manifolds[mi];
                Side a = side(m.a, t), b = side(m.b, t);
                const glm::vec3 n = m.normal;
                for (int pass = 0; pass < kVelocityPasses; ++pass) {
                    float largest = 0.0f;
                    for (int p = 0; p < m.count; ++p) {
                        const Point& sp = point_state[4 * k + static_cast<std::uint32_t>(p)];
                        if (!vs.active[p]) continue;
                        const glm::vec3 &ra = vs.ra[p], &rb = vs.rb[p];
                        const float vn = glm::dot(b.point_velocity(rb) - a.point_velocity(ra), n);
                        const float e = sp.approach < -settings.restitution_threshold ? m.restitution : 0.0f;
                        const float target = std::max(-e * sp.approach, 0.0f);
                        const float w = a.weight(ra, n) + b.weight(rb, n);
                        if (!(w > 0.0f)) continue;
                        // The point's normal impulse in this substep, the position pass's push (lambda_n / h) plus
                        // this pass's, stays >= 0: the velocity pass may take back the speed a push gave, never pull.
                        const float total = std::max(vs.jv[p] + (target - vn) / w, -sp.lambda_n / h);
                        const float j = total - vs.jv[p];
                        a.kick(ra, -j * n);
                        b.kick(rb, j * n);
                        vs.jv[p] = total;
                        largest = std::max(largest, std::abs(j) * w);
                    }
                    if (m.friction > 0.0f && vs.contact_count > 0) largest = std::max(largest, friction(m, k, a, b));
                    sweep_largest = std::max(sweep_largest, largest);
                    if (largest <= kVelocityTolerance) break;
                }
            }
            if (sweep_largest <= kVelocityTolerance) break;
        }
        for (std::uint32_t k = 0; k < manifold_count; ++k) {
            const std::uint32_t mi = manifold_list[k];
            const Velocity& vs = velocity_of[k];
            if (!vs.any) continue;
            ContactManifold& m = manifolds[mi];
            // The step's totals, net of what this pass took back: the normal impulses, and the positional friction
            // less any returned along it.
            float given_back = 0.0f;
            if (glm::dot(vs.jt, patch_of[k].on_a) < 0.0f) given_back = glm::length(vs.jt) * h;
            for (int p = 0; p < m.count; ++p) {
                const Point& sp = point_state[4 * k + static_cast<std::uint32_t>(p)];
                normal_so_far[k] += std::max(0.0f, sp.lambda_n + vs.jv[p] * h);
                if (sp.lambda_n > 0.0f) m.points[static_cast<std::size_t>(p)].normal_impulse += sp.lambda_n / h + vs.jv[p];
            }
            tangential_so_far[k] += std::max(0.0f, patch_of[k].tangential - given_back);
            twist_so_far[k] += patch_of[k].twist;
        }
    }
}

}  // namespace tumble
