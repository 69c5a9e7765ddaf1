#pragma once
/// @file
/// The rigid-body solver: extended position-based dynamics (XPBD) for boxes with mass, inertia, rotation, Coulomb
/// friction and restitution, in substeps, over contact manifolds found once per step. A second method, Box2D v3's
/// soft step with warm starting (SolverMethod::soft_step, solver/src/soft_step.cpp, which lists its sources), runs
/// on the same bodies, manifolds and islands; the sources and the contract below are XPBD's.
///
/// Sources:
/// - Mueller, Macklin, Chentanez, Jeschke and Kim, "Detailed Rigid Body Simulation with Extended Position Based
///   Dynamics" (SCA 2020): the substep loop (algorithm 2), positional contact constraints with generalized inverse
///   masses w = 1/m + (r x n)^T I^-1 (r x n) (section 3.3, eqs. 2-9), static friction as a positional correction and
///   dynamic friction and restitution in the velocity pass (sections 3.5-3.6, eqs. 26-34).
/// - Macklin, Storey, Lu, Terdiman, Chentanez, Jeschke and Mueller, "Small Steps in Physics Simulation" (SCA 2019):
///   substeps with one iteration each instead of many iterations per step.
/// - Free rotation keeps the world angular momentum L exactly and advances the orientation with an implicit midpoint
///   step (w = I(q)^-1 L at the half-turned orientation). Catto's implicit gyroscopic step ("Numerical Methods", GDC
///   2015), which the design named first, was measured against it: 6 % of L and 10 % of the energy lost over 10 s
///   of free spin at 8 substeps, against 0.09 % of L (docs/architecture.md).
/// - Catto, "Solver2D" and Box2D v3 (2024): contacts found once per step with a speculative margin, their anchors
///   followed through the substeps from the bodies' motion instead of re-running the narrowphase; overlap found at
///   the start of a step pushed out at no more than 3 m/s beyond the approach speed (Box2D's contact push speed),
///   or as fast as stopping what closed the point in the substep takes.
/// - Catto, "Iterative Dynamics with Temporal Coherence" (GDC 2005) and Bullet's split impulse: overlap a point
///   starts the step with (beyond 1 mm) is removed by moving the bodies without giving them speed.
///
/// A contact point holds one anchor on each body, in that body's frame, taken from the manifold at the start of the
/// step, and the manifold's normal (world frame, fixed for the step). In each substep the separation of a point is
/// recomputed from where its anchors are now: s = (p_b - p_a) . n. A point with s < -slop is pushed apart by the
/// positional impulse that makes s = -slop, shared by the generalized inverse masses, so contacts conserve momentum
/// and angular momentum. Two bodies of equal mass that do not rotate (fixed rotation) therefore each move half the
/// depth, the translation-only response of a plain separating-axis test.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include <tumble/core/parallel.hpp>

namespace tumble {

/// Which method `PositionSolver::solve` steps the bodies with.
enum class SolverMethod : std::uint8_t {
    /// Extended position-based dynamics (Mueller et al. 2020): positional corrections swept to convergence in every
    /// substep. Exact resting contact (no penetration left), nothing carried from one step to the next. The default.
    xpbd,
    /// Box2D v3's soft step (Catto, "Solver2D", 2024; Box2D v3 `solver.c` and `contact_solver.c`): in each substep
    /// one solve iteration of soft contact constraints with a bias towards zero penetration (at most 3 m/s), the
    /// positions integrated, then one relax iteration without bias; restitution once after the substeps.
    /// Accumulated normal and friction impulses are warm-started from the previous substep and, through the
    /// engine's contact cache (ContactWarmStart, by feature id or, when the id changed, by position within 1 cm),
    /// from the previous step, so a stack's load is carried from step to step instead of being found again by many
    /// sweeps. Cost per step is bounded: `substeps` x 3 passes over the contact points, each iterating a manifold's
    /// points until they agree (at most 2 times in the solve, 8 in the relax; `iterations` is not used). Large
    /// islands are coloured and solved on all threads, with the same bits for any thread count. Resting contacts
    /// are springs of `contact_hertz`: a contact sinks by its load over m_eff (2 pi f)^2 (a 1 kg box on four floor
    /// points: 0.07 mm; a ten-cube column of 0.5 m: 2.6 cm at its top). Four substeps are Box2D's default; the
    /// solver accepts any count in `substeps`.
    soft_step,
};

/// Settings of the rigid-body solver. The defaults suit boxes of 0.1-1 m stepped at 60 Hz.
struct SolverSettings {
    /// Substeps per step (1..256). Each substep integrates the bodies over dt / substeps, corrects positions and
    /// orientations, derives velocities and applies restitution and dynamic friction. More substeps make tall stacks
    /// stiffer and bounces more exact; the cost grows linearly.
    int substeps = 8;
    /// Most position passes over an island's contacts in each substep (1..64). The passes stop once a pass finds
    /// no point deeper than 1e-6 m (after at least two), so a lone box takes two; a stack needs about as many as it
    /// is tall, or it sinks in a step and springs back in the next (measured: a 10-box stack gained 0.039 J in a step
    /// at 2 passes, 0.0003 J at 16).
    int iterations = 16;
    /// Restitution acts only on contacts that approach faster than this (metres per second, >= 0): slower impacts
    /// are inelastic, so resting and slowly landing boxes do not jitter (Box2D v3 and Jolt use 1 m/s).
    float restitution_threshold = 1.0f;
    /// Penetration the solver leaves in resting contacts (metres, >= 0). Resting boxes keep touching by this much;
    /// 0 (the default) pushes every contact out exactly, as a plain separating-axis response does. The speculative
    /// contacts and the contacts' engagement keep resting boxes' contacts from flickering without it.
    float slop = 0.0f;
    /// The method (see SolverMethod). `xpbd` by default; `soft_step` trades exact resting contact for a fixed,
    /// much smaller cost per step in large piles (docs/benchmarks.md).
    SolverMethod method = SolverMethod::xpbd;
    /// Stiffness of the soft step's contacts (hertz, finite, > 0; Box2D v3's b2WorldDef::contactHertz): a resting
    /// contact behaves as a spring of this frequency for the contact's effective mass, so it sinks by about
    /// load / (m_eff (2 pi f)^2), and a stack sinks by the sum of its contacts' shares. Capped at a quarter of the
    /// substep rate (a contact stiffer than that would ring); contacts with a body that cannot move use twice this.
    /// Higher values sink less and ring more. Not used by the XPBD method.
    float contact_hertz = 30.0f;
};

/// Throws `InvalidArgument` when a setting is out of its documented range or not finite.
void validate(const SolverSettings& settings);

/// How a body moves during a step.
enum class Motion : std::uint8_t {
    fixed,      ///< never moves (static bodies, and sleeping bodies that awake ones touch)
    kinematic,  ///< moves with its velocity and angular velocity, never pushed
    dynamic,    ///< gravity, forces and contacts move it
};

/// A body as the solver sees it. World frame, SI units. The solver reads and writes position, orientation,
/// velocity and angular velocity; everything else is input.
struct SolverBody {
    glm::vec3 position{0.0f};                      ///< centre of mass, metres
    glm::quat orientation{1.0f, 0.0f, 0.0f, 0.0f}; ///< unit quaternion; body axes are the columns of its matrix
    glm::vec3 velocity{0.0f};                      ///< metres per second
    glm::vec3 angular_velocity{0.0f};              ///< radians per second, world frame
    float inverse_mass = 0.0f;                     ///< 1 / kg; 0 for fixed and kinematic bodies
    /// Inverse principal moments of inertia in the body frame (1 / (kg m^2)); 0 on an axis the body cannot turn
    /// about (fixed rotation: all three 0).
    glm::vec3 inverse_inertia{0.0f};
    glm::vec3 force{0.0f};   ///< external force through the centre, newtons, constant over the step (dynamic)
    glm::vec3 torque{0.0f};  ///< external torque, newton metres, world frame, constant over the step (dynamic)
    Motion motion = Motion::fixed;
};

/// Principal moments of inertia of a solid box (kg m^2, body frame): I_x = m (h_y^2 + h_z^2) / 3 and so on, for
/// mass `mass` (kg) and half extents `half_extents` (metres); Goldstein, Classical Mechanics, section 5.3.
glm::vec3 box_inertia(float mass, const glm::vec3& half_extents);

/// Body index meaning "static geometry with the identity pose" (mesh triangles): its anchors are world points.
inline constexpr std::uint32_t kStaticGeometry = 0xffffffffu;

/// One point of a contact manifold.
struct ContactPoint {
    glm::vec3 anchor_a{0.0f};  ///< the point on A, in A's body frame (relative to its centre), metres
    glm::vec3 anchor_b{0.0f};  ///< the point on B, in B's body frame (world frame for kStaticGeometry), metres
    /// Static friction anchors: two body-fixed points (frames as above) that stick together while static friction
    /// holds; slip is their tangential offset. Equal to anchor_a and anchor_b for a new contact; the engine carries
    /// them over from the previous step for a point with the same feature id that was `stuck`, so that a resting
    /// contact keeps its place across steps instead of being re-anchored wherever round-off left it.
    glm::vec3 friction_anchor_a{0.0f};
    glm::vec3 friction_anchor_b{0.0f};
    float separation = 0.0f;   ///< signed gap along the normal when the manifold was found, metres (< 0: overlap)
    std::uint32_t id = 0;      ///< feature pair (see tumble/narrowphase/manifold.hpp)
    /// Sum over the step's substeps of the normal impulse this point applied (N s), written by `solve`.
    float normal_impulse = 0.0f;
    /// Written by `solve`: the point touches at the end of the step and its friction anchors are within
    /// kStickDistance of each other along the surface (static friction held it).
    bool stuck = false;
};

/// Warm start of one contact point for the soft step (SolverMethod::soft_step): the normal force (N, >= 0, pushing B
/// away from A) and the friction force on B (N, world frame, tangential) the point held in the last substep of a
/// step. `solve` reads them as the point's starting impulses and writes what the point held at the end; the engine
/// carries them from one step's point to the next step's point with the same feature id (a new point starts from 0).
/// Kept apart from ContactPoint so that the XPBD method, which carries nothing, pays no memory for them.
struct ContactWarmStart {
    float normal_force = 0.0f;
    glm::vec3 friction_force{0.0f};
};

/// Tangential offset (metres) of a point's friction anchors below which it counts as stuck at the end of a step.
inline constexpr float kStickDistance = 5e-4f;

/// A contact manifold between body A and body B (or static geometry), found once per step. (Its one-byte flags sit
/// together after `axis`, with no padding between them: 296 bytes. The reference face's side planes, which only
/// SolverMethod::xpbd reads, are kept apart in ContactSides, so that the soft step pays no memory for them.)
struct ContactManifold {
    std::uint32_t a = 0;                ///< index of body A in the body array
    std::uint32_t b = kStaticGeometry;  ///< index of body B, or kStaticGeometry
    glm::vec3 normal{0.0f, 1.0f, 0.0f}; ///< unit, world frame, from A towards B; fixed for the step
    float friction = 0.0f;              ///< Coulomb coefficient of the pair (static and dynamic), >= 0
    float restitution = 0.0f;           ///< coefficient of restitution of the pair, 0..1
    int count = 0;                      ///< valid entries in `points`, 1..4
    std::array<ContactPoint, 4> points{};
    int axis = -1;          ///< the narrowphase's separating axis and sign (ContactT::axis, ::negative); the solver
    bool negative = false;  ///< does not read them, the engine reports them with the contact
    /// Found where a fast body will first touch (continuous collision detection): a point that was apart at the start
    /// of the step takes its friction anchors where it touches, since the body slid along the surface on its way
    /// there without touching it.
    bool impact = false;
};

/// The reference face of a face contact manifold, for SolverMethod::xpbd (the soft step does not read it): its side
/// planes (unit normal xyz, offset w in metres: x is over the face when dot(xyz, x) <= w for every plane) in the frame
/// of the body the face belongs to (A when `reference_is_a`, else B; world frame for kStaticGeometry), as the
/// narrowphase found them at the start of the step (Manifold::side_normal, ::side_offset). A point that is apart
/// when the manifold is found engages only if its anchor on the other body is over the face (within kOverhang) when
/// it first needs pushing; once engaged, or touching from the start, it acts for the rest of the step. A box sliding
/// past the end of a face found at the start of the step so never hits the plane's extension, while the corners of
/// two equal faces, which sit on each other's edges, do not flicker. 68 bytes.
struct ContactSides {
    std::array<glm::vec4, 4> planes{};
    std::uint8_t count = 0;      ///< planes in use, 0..4; 0: no such limit (edge contacts)
    bool reference_is_a = true;  ///< the reference face is A's
};

/// How far past the edge of its reference face (metres) a contact point may engage: the round-off of points that
/// lie on the edge.
inline constexpr float kOverhang = 1e-4f;

namespace detail {
struct LaneBatch;  // solver/src/solver_internal.hpp
}  // namespace detail

/// Runs the substeps of one step. Holds scratch memory between steps, so a long-lived solver does not allocate
/// once its buffers have grown to the largest body and contact counts seen.
class PositionSolver {
public:
    /// An empty solver (no scratch yet). Copies and moves carry the scratch; they are defined in the library, where
    /// the type of the soft step's lane batches (detail::LaneBatch) is complete.
    PositionSolver();
    ~PositionSolver();
    PositionSolver(const PositionSolver&);
    PositionSolver(PositionSolver&&) noexcept;
    PositionSolver& operator=(const PositionSolver&);
    PositionSolver& operator=(PositionSolver&&) noexcept;
    /// Advances `bodies` by `dt` seconds (> 0) in `settings.substeps` substeps of h = dt / substeps, by
    /// `settings.method`: with SolverMethod::soft_step as that enumerator says (solver/src/soft_step.cpp, without
    /// warm starts from an earlier step: see the overload below); with SolverMethod::xpbd (the default) as follows:
    /// 1. integrate: dynamic bodies v += h (gravity + F / m), x += h v; L = I(q) w + h tau kept, q turned by
    ///    I(q_half)^-1 L over h (implicit midpoint), w = I(q)^-1 L; kinematic bodies follow their velocities exactly
    ///    (x0 + v t, exp(w t / 2) q0); fixed bodies stay;
    /// 2. up to `settings.iterations` passes over each island's manifolds in order (stopping once a pass finds no
    ///    point deeper than 1e-6 m, after two): each point with s < -slop gets the positional impulse that brings it
    ///    to -slop (iterated over the manifold's points until they agree), applied at the midpoint of its anchors;
    ///    then friction removes the tangential slip of the friction anchors at the patch centroid and their twist
    ///    about the normal, within friction times the manifold's normal impulse of the step;
    /// 3. velocities from the corrections: v += sum(P) / (m h); w = I(q)^-1 (L_predicted + sum(r x P) / h);
    /// 4. the velocity pass over the points in contact: the relative normal velocity becomes -restitution times the
    ///    approach before the position pass (0 when that approach was slower than `settings.restitution_threshold`),
    ///    never pulling (the normal impulse stays >= -lambda / h), and dynamic friction removes tangential velocity
    ///    and spin within what the position pass left of the Coulomb cone, or gives back friction the position pass
    ///    spent on normal impulses that this pass took back.
    /// Overlap a point had at the start of the step is removed without speed (split impulse, beyond 1 mm), and so is
    /// overlap that other points' split impulses drove into it in the substep. No point is pushed out faster than
    /// its approach speed plus 3 m/s in a substep, unless stopping what closed it in the substep (other contacts'
    /// corrections included: a heavy box landing on a light one on the floor) takes more.
    /// Islands (dynamic bodies linked by manifolds) run independently on `parallel`; the result is bit-identical for
    /// any number of threads. Manifold and body indices must be valid (a != b, each < bodies.size() or b ==
    /// kStaticGeometry), counts 0..4, inverse masses and inertias >= 0 and 0 for bodies that are not dynamic, and
    /// bodies' quaternions unit length: the engine builds them so, release builds do not check, builds with
    /// assertions check all but the quaternions with TUMBLE_ASSERT (`<tumble/core/assert.hpp>`). `settings` must
    /// satisfy `validate`. Writes each point's normal_impulse.
    void solve(std::span<SolverBody> bodies, std::span<ContactManifold> manifolds, const glm::vec3& gravity, float dt,
               const SolverSettings& settings, Parallel& parallel = serial());
    /// The same, with the soft step's warm starts: `warm` holds 4 entries per manifold (entry 4 k + p for point p of
    /// manifold k), read as the points' starting forces and overwritten with what they held at the end of the step
    /// (ContactWarmStart). Empty: every point starts from 0 and nothing is written. Only SolverMethod::soft_step uses
    /// it; a non-empty `warm` of another size is a contract violation (TUMBLE_ASSERT).
    void solve(std::span<SolverBody> bodies, std::span<ContactManifold> manifolds, std::span<ContactWarmStart> warm,
               const glm::vec3& gravity, float dt, const SolverSettings& settings, Parallel& parallel = serial());
    /// The same, with the manifolds' reference faces: `sides` holds one entry per manifold (entry k for manifold
    /// k), or is empty, which gives no point a limit (as ContactSides::count = 0 would). Only SolverMethod::xpbd
    /// reads it; a non-empty `sides` of another size is a contract violation (TUMBLE_ASSERT).
    void solve(std::span<SolverBody> bodies, std::span<ContactManifold> manifolds, std::span<const ContactSides> sides,
               std::span<ContactWarmStart> warm, const glm::vec3& gravity, float dt, const SolverSettings& settings,
               Parallel& parallel = serial());

    /// Islands of the last `solve` (bodies linked by manifolds; a body without contacts is an island of its own).
    std::size_t island_count() const { return island_count_; }

private:
    // Per-point scratch of a substep.
    struct Point {
        float lambda_n = 0.0f;  // positional normal impulse applied in this substep, kg m
        float approach = 0.0f;  // relative normal velocity before the position pass, m/s (< 0: approaching)
        bool over = false;      // engaged, or over its reference face at the start of the substep (may engage)
        bool met = false;       // corrected in this substep (approach recorded)
        float pushed = 0.0f;    // normal correction with speed applied in this substep, m
    };
    // Per-manifold friction scratch of a substep (friction acts on the contact patch as a whole).
    struct Patch {
        float tangential = 0.0f;  // positional friction impulse at the patch centroid, kg m
        glm::vec3 on_a{0.0f};     // the same impulses as a vector, as applied to A, kg m
        float twist = 0.0f;       // positional twist impulse about the normal, kg m^2
    };
    // Per-manifold velocity-pass scratch of a substep: arms of the points (world), which are in contact, the
    // patch centroid's arms and mean radius, and the impulses so far (normal per point N s, friction on A N s,
    // twist on A about the normal N m s).
    struct Velocity {
        glm::vec3 ra[4], rb[4];
        float jv[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        bool active[4] = {false, false, false, false};
        bool any = false;
        int contact_count = 0;
        glm::vec3 centre_a{0.0f}, centre_b{0.0f};
        float patch_radius = 0.0f;
        glm::vec3 jt{0.0f};
        float jw = 0.0f;
    };
    // Soft step (soft_step.cpp). A dynamic body's state during the step: velocities, motion since the step began
    // (translation, rotation as a matrix) and the world inverse inertia at its current orientation.
    struct SoftBody {
        glm::vec3 v{0.0f}, w{0.0f};
        glm::vec3 dp{0.0f};
        glm::mat3 dr{1.0f};
        glm::mat3 inv_inertia{0.0f};
        float inv_mass = 0.0f;
        bool dynamic = false;
    };
    // A contact point's constraint for the step: arms from the centres at the start of the step to the midpoint of
    // its anchors (world; turned with the bodies as they move: the midpoint of the turned arms' ends is where its
    // impulses act), the separation at the start, effective masses, the relative normal velocity as the point first
    // pushed (restitution), and the accumulated impulses of the current substep (N s).
    struct SoftPoint {
        glm::vec3 ra{0.0f}, rb{0.0f};
        float separation = 0.0f;
        // Static friction anchors (ContactPoint::friction_anchor_a, _b) turned into the world at the start of the
        // step, as arms from the centres; the slip of B's anchor from A's is x_b - x_a + dR_b fb - dR_a fa.
        glm::vec3 fa{0.0f}, fb{0.0f};
        float normal_mass = 0.0f;
        float tangent_mass[2] = {0.0f, 0.0f};
        float approach = 0.0f;
        bool met = false;
        float normal_impulse = 0.0f;
        float total_normal_impulse = 0.0f;
        glm::vec2 tangent_impulse{0.0f};
    };
    void solve_xpbd(std::span<SolverBody> bodies, std::span<ContactManifold> manifolds,
                    std::span<const ContactSides> sides, const glm::vec3& gravity, float dt,
                    const SolverSettings& settings, Parallel& parallel);
    void solve_soft(std::span<SolverBody> bodies, std::span<ContactManifold> manifolds,
                    std::span<ContactWarmStart> warm, const glm::vec3& gravity, float dt,
                    const SolverSettings& settings, Parallel& parallel);
    // What the soft step's passes read of a manifold, packed with it so that they touch neither the ContactManifold
    // nor the SolverBody: friction tangents (unit, world frame), the offset x_b - x_a of its bodies at the start, the
    // contact normal, and each side as a dynamic body's place in the island, a kinematic body's index (`kinematic`
    // bit 1 for A, 2 for B) or kStillSide.
    static constexpr std::uint32_t kStillSide = 0xffffffffu;
    struct SoftManifold {
        glm::vec3 t1{0.0f}, t2{0.0f};
        glm::vec3 offset{0.0f};
        glm::vec3 normal{0.0f};
        std::uint32_t a = kStillSide, b = kStillSide;
        float friction = 0.0f, restitution = 0.0f;
        std::uint8_t count = 0;
        std::uint8_t kinematic = 0;
    };
    // Where a manifold's points are at the passes' current time (soft_step.cpp, `locate`): each body's arm to the
    // point of action (world, metres), the separation along the normal (metres), x_b - x_a, and for each side
    // I^-1 (r x n) (world; the body's inverse inertia at that time, times the normal's angular Jacobian). The bodies
    // move, and their inverse inertias change, only in the position pass: what the relax pass works out after it is
    // what the next substep's warm start and solve pass would find again, so they read it instead.
    struct SoftNow {
        glm::vec3 ra[4], rb[4];
        float s[4];
        glm::vec3 dx;
        glm::vec3 ia[4], ib[4];
        float twist;  // a one-point contact's accumulated torsional friction impulse (N m s) about the normal
    };
    // The soft step's scratch of one island, by the manifold's place k in the island (points 4 k + p) and the dynamic
    // body's place in the island (body_local_). As for XPBD, each slot of for_each_island (a thread) keeps one for the
    // islands it runs; the large islands, which run one at a time on all threads, use the first slot's.
    struct SoftScratch {
        std::vector<SoftBody> bodies;            // per dynamic body
        std::vector<glm::quat> start_q;          // per dynamic body: orientation at the start of the step
        std::vector<SoftPoint> points;           // per point
        std::vector<SoftManifold> manifolds;     // per manifold
        std::vector<SoftNow> now;                // per manifold: where its points are (locate)
        std::vector<std::uint64_t> colour_mask;  // per dynamic body: colours its manifolds took (colour_island)
        std::vector<std::uint8_t> colour;        // per manifold: its colour (colour_island)
        std::vector<std::uint32_t> coloured;     // colour_island: the island's manifolds, colour by colour
        std::vector<std::uint64_t> block_key;    // block_island: per body its sort key, then per manifold its sides
        std::vector<std::uint32_t> blocks;       // the island's blocks, colour by colour (block_island)
        std::vector<std::uint64_t> block_sides;  // block_island: per manifold, its dynamic bodies' places (a, b)
        std::vector<std::uint32_t> block_fill;   // block_island: per body, where its manifolds go (counting sort)
        std::vector<detail::LaneBatch> batches;  // a coloured island's manifolds in lane order, colour by colour
        std::vector<std::uint32_t> lone;         // ... and its manifolds with a kinematic side, colour by colour
        void reserve(std::size_t manifolds, std::size_t bodies, bool coloured);  // room for an island of this size
    };
    // How an island's (or group's) passes run: colour by colour (colour_island; on all threads for a large island, on
    // one for the others), or block colour by block colour (block_island).
    enum class SoftMode : std::uint8_t { coloured, blocked };
    std::vector<SoftScratch> soft_slot_scratch_;  // per slot of for_each_island (thread)
    void run_island_soft(std::uint32_t item, SoftScratch& scratch, std::span<SolverBody> bodies,
                         std::span<ContactManifold> manifolds, std::span<ContactWarmStart> warm,
                         const glm::vec3& gravity, float dt, const SolverSettings& settings, Parallel& parallel,
                         SoftMode mode);
    // Greedy colouring of a large island's manifolds (soft step): colour c of the island is places
    // colour_begin[c] .. colour_begin[c + 1] - 1, manifolds that share no dynamic body, in the island's order; the
    // last colour, kSoftColours, holds what did not fit (solved in order, alone). The island's manifolds
    // (island_manifolds_) are put in that order, so that each colour's pass reads the scratch in memory order.
    static constexpr int kSoftColours = 32;
    void colour_island(std::uint32_t island, std::uint32_t last_island, SoftScratch& scratch,
                       std::span<const SolverBody> bodies, std::span<const ContactManifold> manifolds,
                       std::array<std::uint32_t, kSoftColours + 2>& begin);
    // Colouring of a huge island's blocks (soft step), which keeps each thread's work in one place: the island's
    // bodies and manifolds are put in the order of a Morton curve of the bodies' centres (island_bodies_,
    // island_manifolds_, body_local_), the manifolds cut into blocks of kSoftBlock places k, and the blocks coloured
    // greedily so that blocks of one colour share no dynamic body. Block colour c is scratch.blocks[begin[c] ..
    // begin[c + 1]); the last, kSoftColours, holds blocks that took no colour (solved in order, alone). The keys, the
    // bodies' sort and the manifolds' sides are worked out on `parallel`; the result does not depend on its threads.
    static constexpr std::uint32_t kSoftBlock = 1024;
    void block_island(std::uint32_t island, SoftScratch& scratch, std::span<const SolverBody> bodies,
                      std::span<const ContactManifold> manifolds, std::array<std::uint32_t, kSoftColours + 2>& begin,
                      Parallel& parallel);

    void build_islands(std::span<const SolverBody> bodies, std::span<const ContactManifold> manifolds);
    // Runs `run(item, slot)` for every work item of schedule_islands (an island of the last build_islands, or a group
    // of them after group_islands), on `parallel`. A unit's items run one after another on one thread. Slot s, of
    // island_slots(parallel) slots that run at once, takes unit s first (so unit 0, which holds the largest item,
    // runs in slot 0) and then the next unit not yet taken, as it frees up; a slot's scratch serves whatever units it
    // takes, so scratch is held per thread, not per unit. Which slot runs the other units depends on timing: `run`
    // must give the same results whatever scratch it is handed.
    template <class Run>
    void for_each_island(Parallel& parallel, Run&& run) {
        const std::size_t units = unit_begin_.empty() ? 0 : unit_begin_.size() - 1;
        const std::size_t slots = island_slots(parallel);
        std::atomic<std::size_t> next{slots};
        parallel.for_each_chunk(slots, 1, [&](std::size_t slot, std::size_t) {
            for (std::size_t u = slot; u < units; u = next.fetch_add(1, std::memory_order_relaxed))
                for (std::uint32_t o = unit_begin_[u]; o < unit_begin_[u + 1]; ++o) run(island_order_[o], slot);
        });
    }
    // How many slots for_each_island runs the units in (at least 1): one per thread, or per unit if fewer.
    std::size_t island_slots(const Parallel& parallel) const {
        const std::size_t units = unit_begin_.empty() ? 0 : unit_begin_.size() - 1;
        return std::max<std::size_t>(1, std::min(units, static_cast<std::size_t>(std::max(parallel.threads(), 1))));
    }
    // Work items of several islands each (soft step): consecutive islands, by index, up to `most_work` (bodies plus
    // four per manifold) a group, except that an island for which alone(i) holds is a group of its own. A group's
    // islands run as one (their bodies and manifolds are contiguous in the CSR lists): since they share no dynamic
    // body, each island's arithmetic is what it would be alone, and the passes over bodies run over more of them at
    // once (the position pass in SIMD lanes). Cleared by build_islands.
    void group_islands(std::uint32_t most_work, FunctionRef<bool(std::uint32_t)> alone);
    // Orders the work items (groups of islands, group_begin_; one island each unless group_islands ran) into units.
    void schedule_islands(int threads);
    // XPBD's per-manifold scratch of one island, by the manifold's place k in the island (points 4 k + p). Each
    // slot of for_each_island (a thread) keeps one and reuses it for its islands, so it is sized for the step's
    // largest island, not for every island of the step.
    struct IslandScratch {
        std::vector<Point> points;          // per point: this substep's state
        std::vector<std::uint8_t> engaged;  // per point: acting in this step (see ContactSides)
        std::vector<float> split;           // per point: starting overlap not yet taken out, m
        std::vector<float> normal;          // per manifold: normal positional impulse of the step so far, kg m
        std::vector<float> tangential;      // per manifold: friction positional impulse of the step, kg m
        std::vector<float> twist;           // per manifold: twist positional impulse of the step, kg m^2
        std::vector<Patch> patches;         // per manifold: this substep's friction
        std::vector<Velocity> velocity;     // per manifold: this substep's velocity pass
        // Per dynamic body, by its place in the island (body_local_).
        std::vector<glm::vec3> prev_x;  // pose at the start of the substep
        std::vector<glm::quat> prev_q;
        std::vector<glm::vec3> predicted_x;  // pose after the substep's integration
        std::vector<glm::quat> predicted_q;
        std::vector<std::uint8_t> corrected;     // moved by a contact in this substep
        std::vector<glm::vec3> linear_impulse;   // sum of P of this substep's corrections, kg m
        std::vector<glm::vec3> angular_impulse;  // sum of r x P of this substep's corrections, kg m^2
        std::vector<glm::vec3> pseudo_shift;     // translation by this substep's split impulses, m
        std::vector<glm::vec3> pseudo_turn;      // rotation vector of this substep's split impulses, rad
        std::vector<std::uint8_t> pseudo_any;    // moved by a split impulse in this substep
        void reserve(std::size_t manifolds, std::size_t bodies);  // room for an island of this size
    };
    std::vector<IslandScratch> slot_scratch_;  // per slot of for_each_island (thread)
    void run_island(std::uint32_t island, IslandScratch& scratch, std::span<SolverBody> bodies,
                    std::span<ContactManifold> manifolds, std::span<const ContactSides> sides, const glm::vec3& gravity,
                    float dt, const SolverSettings& settings);

    std::size_t island_count_ = 0;
    std::vector<std::uint32_t> parent_;          // union-find over body indices
    std::vector<std::uint32_t> island_of_root_;
    std::vector<std::uint32_t> body_island_;     // island of each dynamic body
    std::vector<std::uint32_t> island_bodies_;  // CSR: dynamic bodies of each island, ascending (blocked: block_island)
    std::vector<std::uint32_t> body_begin_;
    std::vector<std::uint32_t> island_manifolds_;  // CSR: manifolds of each island, ascending or by colour
    std::vector<std::uint32_t> manifold_begin_;
    std::vector<std::uint32_t> group_begin_;       // work item g: islands group_begin_[g] .. group_begin_[g + 1]
    std::vector<std::uint32_t> island_order_;      // work items (groups of islands), most work first
    std::vector<std::uint64_t> island_key_;        // schedule_islands: per work item, its sort key (work, index)
    std::vector<std::uint32_t> unit_begin_;        // work unit u runs island_order_[unit_begin_[u] .. unit_begin_[u+1])
    std::vector<std::uint32_t> body_local_;        // per dynamic body: its place in its island (XPBD's run_island)
};

}  // namespace tumble
