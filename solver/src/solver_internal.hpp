#pragma once
// Helpers shared by the two methods of the rigid-body solver (position_solver.cpp: XPBD; soft_step.cpp: the soft
// step). Internal to tumble::solver.

#include <algorithm>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include <tumble/core/growth.hpp>
#include <tumble/solver/position_solver.hpp>

namespace tumble::detail {

// v = n copies of value, growing the buffer geometrically (reserve_for; std::vector::assign allocates exactly n when it
// grows), so that a scene whose contact count creeps up does not allocate in every step that sets a new maximum.
template <class T>
void reset(std::vector<T>& v, std::size_t n, const T& value) {
    reserve_for(v, n);
    v.assign(n, value);
}
// v with room for at least n elements, never shrunk: for scratch whose first n elements the caller writes before it
// reads them. resize(n) after a smaller use value-initialises the elements it adds back, which for an island of
// 300,000 manifolds (the 1e5 pile's, after the small islands the same scratch serves) is a serial pass over 200 MB.
template <class T>
void grow_to(std::vector<T>& v, std::size_t n) {
    if (v.size() < n) v.resize(n);
}
// The small helpers of the inner loops are forced inline: GCC left them as calls, and the calls were a third of the
// solver's time. Inlining changes no result (no contraction into FMAs: -ffp-contract=off).
#define TUMBLE_SOLVER_INLINE [[gnu::always_inline]] inline

// R v and R^T v for the rotation of a unit quaternion.
TUMBLE_SOLVER_INLINE glm::vec3 rotate(const glm::quat& q, const glm::vec3& v) { return q * v; }
TUMBLE_SOLVER_INLINE glm::vec3 unrotate(const glm::quat& q, const glm::vec3& v) { return glm::conjugate(q) * v; }

// I^-1 v in the world frame for inverse principal moments `inv` in the body frame of orientation q.
TUMBLE_SOLVER_INLINE glm::vec3 inverse_inertia_times(const glm::quat& q, const glm::vec3& inv, const glm::vec3& v) {
    return rotate(q, inv * unrotate(q, v));
}

// q turned by the small rotation vector `theta` (radians, world frame): q + 1/2 [theta, 0] q, normalised.
TUMBLE_SOLVER_INLINE glm::quat turned(const glm::quat& q, const glm::vec3& theta) {
    return glm::normalize(q + 0.5f * (glm::quat(0.0f, theta.x, theta.y, theta.z) * q));
}

// I v in the world frame for principal moments `inertia` in the body frame of orientation q.
TUMBLE_SOLVER_INLINE glm::vec3 inertia_times(const glm::quat& q, const glm::vec3& inertia, const glm::vec3& v) {
    return rotate(q, inertia * unrotate(q, v));
}

// One substep of the rotation of a free body (orientation q, angular velocity w, inverse principal moments inv) under
// torque tau (world frame): the world angular momentum
// L = I_world w + h tau is the state that only torques change; the gyroscopic term -w x I w is what turns a constant
// L into a changing w as the body turns. The orientation advances with w at the midpoint of the substep (implicit
// midpoint, one fixed-point step: w_half = I(q_half)^-1 L with q_half from w = I(q)^-1 L), and the new w is
// I(q_new)^-1 L. This keeps L exactly and the kinetic energy of free spin within 1e-5 over 10 s at 8 substeps of
// 1/60 s, where Catto's implicit Euler step ("Numerical Methods", GDC 2015) loses 6 % of L and 10 % of the energy
// (docs/architecture.md). Axes with a zero moment (fixed rotation) keep w at 0 about them.
inline void rotate_substep(glm::quat& q, glm::vec3& w, const glm::vec3& inv, const glm::vec3& torque, float h) {
    glm::vec3 inertia(0.0f);
    for (int k = 0; k < 3; ++k) inertia[k] = inv[k] > 0.0f ? 1.0f / inv[k] : 0.0f;
    const glm::vec3 l = inertia_times(q, inertia, w) + h * torque;
    const glm::vec3 w0 = inverse_inertia_times(q, inv, l);
    if (w0 == glm::vec3(0.0f)) {
        w = w0;
        return;
    }
    const glm::quat half = turned(q, 0.5f * h * w0);
    q = turned(q, h * inverse_inertia_times(half, inv, l));
    w = inverse_inertia_times(q, inv, l);
}

// Largest inverse principal moment used (1 / (kg m^2)): a box of tiny half extents has +infinity, which the world
// inverse inertia R diag(inv) R^T would turn into NaN (infinity times a zero entry of R).
inline constexpr float kMaxInverseMoment = 1e30f;

// R diag(min(inv, kMaxInverseMoment)) R^T: the world inverse inertia (1 / (kg m^2)) at orientation q, for inverse
// principal moments `inv` in the body frame.
inline glm::mat3 world_inverse_inertia(const glm::quat& q, const glm::vec3& inv) {
    const glm::mat3 r = glm::mat3_cast(q);
    const glm::vec3 d = glm::min(inv, glm::vec3(kMaxInverseMoment));
    const glm::mat3 rd(r[0] * d.x, r[1] * d.y, r[2] * d.z);
    return rd * glm::transpose(r);
}

// Manifolds whose local passes run side by side in SIMD lanes (normal_passes_in_lanes). Sixteen fill an AVX-512
// register; narrower targets run a batch as two or four groups of lanes, each to the end of its own passes. Every lane
// gets the bits of the one-manifold code, so the batch width changes no result. Measured against eight (the same
// bits; docs/benchmarks.md, "Sixteen lanes"): the base-100 pyramid's solve 5-8 % faster on AVX-512, the 1e4 levels'
// 2-5 %.
inline constexpr int kNormalLanes = 16;
// The local passes of the soft step's solve and relax passes (soft_step.cpp, `solve_pass`) for up to kNormalLanes
// manifolds at once, structure of arrays: lane l holds manifold l's points p < count[l]. Per point p and lane l: the
// normal velocity before the passes (vn0, m/s), the velocity bias (m/s), the gain (-m_n times the soft constraint's
// mass scale, kg) and its impulse scale, the effective mass m_n (kg), the accumulated normal impulse (N s, in and
// out), whether the point has pushed (met: 1 or 0) and its normal velocity when it first did (approach, m/s; in and
// out), the angular Jacobians r x n of each side (ua, ub, metres) and I^-1 (r x n) (ia, ib, 1 / (kg m)), by world
// component c. Out per lane: the normal impulse added over the manifold (pushed, N s) and the changes of A's and B's
// angular velocities (dwa, dwb, rad/s). A lane without a manifold has count 0; every entry, used or not, must be
// initialised (the lanes compute with the unused ones and throw the results away).
struct NormalLanes {
    static constexpr int L = kNormalLanes;
    std::int32_t count[L];
    float inv_masses[L];
    float vn0[4][L], bias[4][L], gain[4][L], impulse_scale[4][L], normal_mass[4][L], impulse[4][L], approach[4][L];
    float met[4][L];
    float ua[4][3][L], ub[4][3][L], ia[4][3][L], ib[4][3][L];
    float pushed[L], dwa[3][L], dwb[3][L];
};
// Up to `passes` local passes in each lane of `s`, every lane with exactly the operations, in the same order, of the
// one-manifold loop in soft_step.cpp (`visit` in `solve_pass`), so that it gets that loop's bits whatever the other
// lanes hold and whatever instruction set runs it (soft_lanes.cpp). A lane stops after the first pass in which no
// point's impulse changed by more than `tolerance` times its effective mass (m/s).
// `still_b` (here and in the four below): every lane's side B is still (own_b 0, inverse mass and inertia 0,
// velocities +0), and what side B would compute is left out, with the same bits (soft_lanes.cpp).
void normal_passes_in_lanes(NormalLanes& s, int passes, float tolerance, bool still_b = false);

// The friction of the soft step's solve and relax passes (soft_step.cpp, `point_friction` in `solve_pass`) for up to
// kNormalLanes manifolds at once, structure of arrays, after their normal impulses and torsional friction: lane l
// holds manifold l's points p < count[l] (count 0: no friction to run). Per lane, world frame: the friction
// coefficient, the soft constraint's bias rate (1/s), the tangents t1, t2, the offset dx = x_b - x_a now (metres),
// and of each side its linear and angular velocity (va, wa, vb, wb: in and out, m/s and rad/s), inverse mass (1/kg),
// inverse inertia (1 / (kg m^2), column c row i at 3 c + i), turn since the step began (dra, drb, the same layout) and
// whether it is the lane's own dynamic body (own_a, own_b: 1 or 0; a side that is not takes no impulse and keeps its
// friction anchor unturned). Per point: the arms to the point of action (ra, rb, metres), the friction anchors as arms
// (fa, fb), the tangent effective masses (kg), the tangent impulses (N s, in and out) and the normal impulse (N s).
// Every entry, used or not, must be initialised (the lanes compute with the unused ones and throw the results away).
struct FrictionLanes {
    static constexpr int L = kNormalLanes;
    std::int32_t count[L];
    float friction[L], bias_rate[L], own_a[L], own_b[L], inv_mass_a[L], inv_mass_b[L];
    float t1[3][L], t2[3][L], dx[3][L], va[3][L], wa[3][L], vb[3][L], wb[3][L];
    float inv_inertia_a[9][L], inv_inertia_b[9][L], dra[9][L], drb[9][L];
    float ra[4][3][L], rb[4][3][L], fa[4][3][L], fb[4][3][L];
    float tangent_mass[4][2][L], tangent_impulse[4][2][L], normal_impulse[4][L];
};
// Lane l's entries of one side: its velocity rows, angular velocity rows, inverse inertia and turn (frames and units
// as FrictionLanes; matrices as GLM's columns).
inline void set_side(float (&v)[3][kNormalLanes], float (&w)[3][kNormalLanes], float (&inv_inertia)[9][kNormalLanes],
                     float (&dr)[9][kNormalLanes], int l, const glm::vec3& velocity, const glm::vec3& angular_velocity,
                     const glm::mat3& inv_inertia_of, const glm::mat3& dr_of) {
    for (int c = 0; c < 3; ++c) {
        v[c][l] = velocity[c];
        w[c][l] = angular_velocity[c];
        for (int i = 0; i < 3; ++i) {
            inv_inertia[3 * c + i][l] = inv_inertia_of[c][i];
            dr[3 * c + i][l] = dr_of[c][i];
        }
    }
}
// Lane l's sides (frames and units as FrictionLanes; matrices as GLM's columns).
inline void set_sides(FrictionLanes& s, int l, const glm::vec3& va, const glm::vec3& wa, const glm::vec3& vb,
                      const glm::vec3& wb, const glm::mat3& inv_inertia_a, const glm::mat3& inv_inertia_b,
                      const glm::mat3& dra, const glm::mat3& drb) {
    set_side(s.va, s.wa, s.inv_inertia_a, s.dra, l, va, wa, inv_inertia_a, dra);
    set_side(s.vb, s.wb, s.inv_inertia_b, s.drb, l, vb, wb, inv_inertia_b, drb);
}
// Lane l's tangents, offset and sides.
inline void set_friction_frame(FrictionLanes& s, int l, const glm::vec3& t1, const glm::vec3& t2, const glm::vec3& dx,
                               const glm::vec3& va, const glm::vec3& wa, const glm::vec3& vb, const glm::vec3& wb,
                               const glm::mat3& inv_inertia_a, const glm::mat3& inv_inertia_b, const glm::mat3& dra,
                               const glm::mat3& drb) {
    for (int c = 0; c < 3; ++c) {
        s.t1[c][l] = t1[c];
        s.t2[c][l] = t2[c];
        s.dx[c][l] = dx[c];
    }
    set_sides(s, l, va, wa, vb, wb, inv_inertia_a, inv_inertia_b, dra, drb);
}
// Point p of lane l (frames and units as FrictionLanes).
inline void set_friction_point(FrictionLanes& s, int l, int p, const glm::vec3& ra, const glm::vec3& rb,
                               const glm::vec3& fa, const glm::vec3& fb, const glm::vec2& tangent_mass,
                               const glm::vec2& tangent_impulse, float normal_impulse) {
    s.normal_impulse[p][l] = normal_impulse;
    for (int j = 0; j < 2; ++j) {
        s.tangent_mass[p][j][l] = tangent_mass[j];
        s.tangent_impulse[p][j][l] = tangent_impulse[j];
    }
    for (int c = 0; c < 3; ++c) {
        s.ra[p][c][l] = ra[c];
        s.rb[p][c][l] = rb[c];
        s.fa[p][c][l] = fa[c];
        s.fb[p][c][l] = fb[c];
    }
}
// The point friction of every lane of `s`, the points in order, each lane with exactly the operations, in the same
// order, of the one-manifold loop in soft_step.cpp (`point_friction`), so with its bits on every instruction set
// (soft_lanes.cpp). `use_bias`: the solve pass (static friction's anchors pulled together at the bias rate) rather
// than the relax pass.
void friction_in_lanes(FrictionLanes& s, bool use_bias, bool still_b = false);

// The rest of a visit of the soft step's solve and relax passes (soft_step.cpp, `solve_pass`) for the lanes of a
// NormalLanes and a FrictionLanes: what `set_up` (with `locate` in the relax pass) works out before the local passes,
// and what `finish_normal` does after them. Per lane, world frame: the manifold's point count, its contact normal, the
// offset x_b - x_a at the start of the step and each side's displacement since (dpa, dpb; metres), the soft
// constraint's mass and impulse scales (its bias rate is FrictionLanes::bias_rate), and a one-point contact's
// torsional friction impulse (twist, N m s; in and out). Per point: the arms at the start of the step (arm_a, arm_b,
// metres; SoftPoint::ra, rb), the separation then and the separation now (metres; `s`: in for the solve pass, out of
// the relax pass). Every entry, used or not, must be initialised.
struct SetUpLanes {
    static constexpr int L = kNormalLanes;
    std::int32_t count[L];
    float normal[3][L], offset[3][L], dpa[3][L], dpb[3][L];
    float mass_scale[L], impulse_scale[L], twist[L];
    float arm_a[4][3][L], arm_b[4][3][L], separation[4][L], s[4][L];
};
// `set_up` of every lane of `u` before its local passes, each lane with exactly the operations, in the same order, of
// the one-manifold code, so with its bits on every instruction set (soft_lanes.cpp). In: `u`; of `rubbing` the sides
// (own_a, own_b, inverse masses, velocities, inverse inertias, turns) and the bias rate; of `normal` the effective
// masses. `locate` (the relax pass): the points are located anew from the bodies' motion (out: u.s, rubbing.dx, ra,
// rb); else they are read from there. `fresh`: I^-1 (r x n) is worked out (out: normal.ia, ib); else read from there.
// `use_bias`: the solve pass (soft constraints pushing out overlap at no more than `max_push`, m/s) rather than the
// relax pass; `inv_h`: 1 / the substep (1/s). Out: normal.inv_masses, vn0, bias, gain, impulse_scale, ua, ub (points a
// lane does not have: as clear_point leaves them).
void set_up_in_lanes(SetUpLanes& u, NormalLanes& normal, FrictionLanes& rubbing, bool locate, bool fresh, bool use_bias,
                     float inv_h, float max_push, bool still_b = false);
// `finish_normal` of every lane after its local passes, with the same bits: the lane's own sides' velocities (in
// `rubbing`) take the passes' result (normal.pushed, dwa, dwb), rubbing.normal_impulse takes the normal impulses, and a
// one-point contact with friction gets its torsional friction, at most friction times `torsion_radius` (metres) times
// its normal impulse (u.twist in and out).
void finish_in_lanes(SetUpLanes& u, NormalLanes& normal, FrictionLanes& rubbing, float torsion_radius,
                     bool still_b = false);

// The warm start of the soft step (soft_step.cpp, step 2 of a substep) for the lanes of the three lane structures, with
// the bits of the one-manifold code: each point's accumulated impulses (normal.impulse, rubbing.tangent_impulse along
// rubbing.t1, t2) applied at its arms (rubbing.ra, rb) to the lane's own sides, whose velocities are in `rubbing`, and
// a one-point contact's torsional impulse (u.twist) about the normal.
void warm_start_in_lanes(SetUpLanes& u, NormalLanes& normal, FrictionLanes& rubbing, bool still_b = false);

// kNormalLanes manifolds of one colour of a coloured island, held in lane order for a whole step (soft_step.cpp):
// the three lane structures, whose manifold and point entries carry over from pass to pass (the sides' entries are
// loaded from the bodies before each pass), each point's normal impulse summed over the step's relax passes (N s),
// and for each used lane the manifold's place k in the island and its sides (SoftManifold::a, b).
struct LaneBatch {
    SetUpLanes setup;
    NormalLanes normal;
    FrictionLanes rubbing;
    float total[4][kNormalLanes];
    std::uint32_t place[kNormalLanes], a[kNormalLanes], b[kNormalLanes];
    std::int32_t used;
    bool still_b;  // every used lane's side B is still (the passes' still_b)
};

// The soft step's position pass for up to kMax bodies, one per lane, structure of arrays (soft_positions.cpp). In:
// position (metres), dp (metres moved since the step began), v (m/s), w (rad/s), q (orientation, rows w x y z), inv
// (inverse principal moments, 1 / (kg m^2)), start (orientation at the start of the step, w x y z); all world frame.
// Out: position and dp advanced by h v, q and w after the free rotation over h (rotate_substep with no torque), dr
// (the turn q start^* as a matrix, columns 0-2 in rows 3 c + i) and inv_inertia (R diag(min(inv, kMaxInverseMoment))
// R^T, the same layout). Every lane gets the bits of the scalar code, whatever instruction set runs it; lanes past
// `count` up to a whole vector (position_lanes) must hold finite values, and their results mean nothing.
struct alignas(64) PositionLanes {
    static constexpr std::size_t kMax = 16;
    float position[3][kMax], dp[3][kMax], v[3][kMax], w[3][kMax], q[4][kMax], inv[3][kMax], start[4][kMax];
    float dr[9][kMax], inv_inertia[9][kMax];
};
void integrate_positions(PositionLanes& batch, std::size_t count, float h);
// Lane j of `batch` set to one body's inputs (frames and units as PositionLanes).
inline void set_lane(PositionLanes& batch, std::size_t j, const glm::vec3& position, const glm::vec3& dp,
                     const glm::vec3& v, const glm::vec3& w, const glm::vec3& inv, const glm::quat& q,
                     const glm::quat& start) {
    for (int c = 0; c < 3; ++c) {
        batch.position[c][j] = position[c];
        batch.dp[c][j] = dp[c];
        batch.v[c][j] = v[c];
        batch.w[c][j] = w[c];
        batch.inv[c][j] = inv[c];
    }
    const float qs[4] = {q.w, q.x, q.y, q.z}, ss[4] = {start.w, start.x, start.y, start.z};
    for (std::size_t c = 0; c < 4; ++c) {
        batch.q[c][j] = qs[c];
        batch.start[c][j] = ss[c];
    }
}
// Lanes of the instruction set integrate_positions runs on (at most PositionLanes::kMax): it works out whole vectors.
std::size_t position_lanes();
// The lanes a batch of n bodies must fill (n rounded up to whole vectors of `lanes`).
inline std::size_t lanes_to_fill(std::size_t n, std::size_t lanes) {
    return std::min(PositionLanes::kMax, (n + lanes - 1) / lanes * lanes);
}

}  // namespace tumble::detail
