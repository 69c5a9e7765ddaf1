#pragma once
/// @file
/// Position-correction solver: pushes overlapping boxes apart along the contact normal, with positional Coulomb
/// friction, re-testing every contact on the corrected positions at each iteration.
///
/// Sources: Mueller, Heidelberger, Hennix and Ratcliff, "Position Based Dynamics" (2007) for the scheme (predict,
/// project constraints in Gauss-Seidel order, derive velocities from positions); Mueller, Macklin, Chentanez,
/// Jeschke and Kim, "Detailed Rigid Body Simulation with Extended Position Based Dynamics" (2020), section 3.5,
/// and Macklin, Mueller, Chentanez and Kim, "Unified Particle Physics for Real-Time Applications" (2014), eq. 24,
/// for friction as a positional correction bounded by the friction coefficients times the normal correction.
/// Seed 000 for the response rule: each body of a pair moves half the depth.
///
/// Bodies are translated only: contacts never rotate a box (that is the design of Tumble's solver: a box keeps the
/// orientation it was given).

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <tumble/narrowphase/active_edges.hpp>
#include <tumble/narrowphase/batch.hpp>
#include <tumble/narrowphase/shapes.hpp>
#include <tumble/parallel.hpp>

namespace tumble {

/// Settings of the position solver. The defaults suit boxes of 0.1-1 m stepped at 60 Hz.
struct SolverSettings {
    /// Most Gauss-Seidel passes per island and step (dimensionless, >= 1). Each pass re-runs the narrowphase on the
    /// corrected positions. An island (bodies linked by contacts) stops as soon as a pass corrects no contact by
    /// more than `tolerance`: a box resting on the floor takes 2 passes, a stack of 10 boxes needs the most. With
    /// too few passes a pile keeps some penetration and later pushes it out, which lifts boxes a little.
    int iterations = 64;
    /// An island's passes stop when no contact in a pass needed a correction deeper than this (metres, >= 0).
    /// 0 runs every island for all `iterations` passes.
    float tolerance = 1e-5f;
    /// Candidates whose swept boxes (each body's box stretched over its motion in the step) stay farther apart than
    /// twice this are not tested in the passes until a correction carries one of their bodies out of its swept box
    /// (metres, >= 0). It only changes speed, never the result: a larger margin tests more candidates, a smaller one
    /// sees more bodies escape. Like the broadphase margin, it covers the displacement that corrections add.
    float margin = 0.02f;
    /// Coefficient of static friction (dimensionless, >= 0): a contact holds when the tangential slip of the step
    /// is below static_friction times the normal correction. A box rests on a slope of angle a when
    /// tan(a) < static_friction. Typical 0.4-0.8.
    float static_friction = 0.6f;
    /// Coefficient of dynamic (kinetic) friction (dimensionless, >= 0, usually <= static_friction): a sliding
    /// contact loses at most dynamic_friction times the normal correction of tangential displacement per step,
    /// i.e. decelerates by dynamic_friction * g on flat ground.
    float dynamic_friction = 0.4f;
};

/// Throws `InvalidArgument` when a setting is out of its documented range or not finite.
void validate(const SolverSettings& settings);

/// A body as the solver sees it (world frame, metres).
struct SolverBody {
    glm::vec3 position{0.0f};        ///< centre now: predicted, then corrected in place
    glm::vec3 start_position{0.0f};  ///< centre at the start of the step (friction measures slip from here)
    glm::mat3 axes{1.0f};            ///< orientation, columns are the unit box axes
    glm::vec3 half_extents{0.0f};    ///< metres
    bool dynamic = true;             ///< false: static, never moved, takes no share of a correction
    /// Faces covered by flush static neighbours (see FaceFlags, tumble/narrowphase/active_edges.hpp): contacts
    /// never push out through them or their seams (`box_contact`). The engine sets them for static boxes.
    FaceFlags internal_faces = 0;

    Obb obb() const { return {position, axes, half_extents}; }
};

/// A candidate pair of bodies (indices into the body array).
struct BodyPairRef {
    std::uint32_t a = 0;
    std::uint32_t b = 0;
};

/// A candidate pair of a body and a static mesh triangle.
struct TriangleRef {
    std::uint32_t body = 0;
    Triangle triangle;
    /// The triangle's active edges in its mesh (see EdgeFlags); all active by default, as for a lone triangle.
    EdgeFlags active_edges = kAllEdgesActive;
};

/// One-sided box-triangle contact for static meshes, decided on top of the exact two-sided `collide`.
///
/// A mesh triangle has a front (counter-clockwise) side only. When the box centre is behind the triangle's plane
/// both at `start_center` (the start of the step) and now, the triangle is ignored (the box is on its far side).
/// Otherwise the box is always pushed out through the front: if the SAT's least-penetration axis would push the
/// box towards the back, the contact is replaced by the triangle-normal axis (axis 3, normal = -front normal,
/// depth = the box's reach behind the plane). Using the start of the step as well as the current centre keeps a
/// fast box whose centre crossed a floor in one step from being pushed out of the back (which loses boxes in other
/// engines).
///
/// Active edges: when the SAT's contact is supported on the triangle's side by an inactive feature
/// (`on_inactive_feature`: an inactive edge, or a vertex whose two edges are inactive), the neighbouring triangle
/// continues the surface there and the contact is replaced in the same way, by the triangle-normal axis with the
/// box's reach behind the plane as depth. This removes ghost collisions on the seams of tessellated floors.
/// `active_edges` = kAllEdgesActive (the default) keeps every SAT answer that pushes to the front.
/// Returns nothing when there is no contact. Same frames and units as `collide`.
std::optional<Contact> mesh_contact(const Obb& box, const Triangle& tri, const glm::vec3& start_center,
                                    EdgeFlags active_edges = kAllEdgesActive) noexcept;

/// Box-box contact that never pushes through an internal face (a face covered by a flush static neighbour, see
/// FaceFlags): `collide(a, b)`, then, when the contact comes out of a feature of a box that touches one of its
/// internal faces (`on_internal_face`, seen from that box towards the other), the contact is replaced by the face
/// of that box that is not internal and needs the least push (the exact overlap of the two boxes along its
/// normal). With flush static boxes laid as a floor this keeps a box sliding across their seams from being pushed
/// back or sideways. When both boxes have such features the first one's (a's) is treated. With no internal faces
/// this is `collide(a, b)`. Same frames and units as `collide`; nothing when the boxes are separated.
std::optional<Contact> box_contact(const Obb& a, FaceFlags a_internal, const Obb& b, FaceFlags b_internal) noexcept;

/// Runs the position iterations of one step. Holds scratch memory between steps, so a long-lived solver does not
/// allocate once its buffers have grown to the largest contact count seen.
class PositionSolver {
public:
    /// Splits the contacts into islands (dynamic bodies linked by body pairs; static bodies and triangles link
    /// nothing) and runs Gauss-Seidel passes on each island until a pass corrects nothing deeper than
    /// `settings.tolerance`, at most `settings.iterations` passes. Islands share no dynamic body, so solving them one
    /// after the other gives the same result as interleaving them. In each pass every body pair and every
    /// body-triangle pair of the island is re-tested with the narrowphase at the current positions and, when they
    /// overlap, corrected. Contacts that would give nothing to correct are skipped, with the same result as testing
    /// them: candidates whose swept boxes (each body's box stretched over its motion in the step and grown by
    /// `settings.margin`) do not meet, as long as no correction has carried either body out of its swept box, and
    /// contacts whose bodies have not moved since a test that corrected nothing:
    /// - dynamic-dynamic: A moves by -depth/2 and B by +depth/2 along the normal (seed 000's response);
    /// - dynamic against a static body or a triangle: the dynamic one moves the whole depth;
    /// then friction removes tangential slip (relative motion since `start_position`) up to the Coulomb bound on
    /// the normal correction accumulated by that contact in this step. Pairs are processed in the order given,
    /// which makes the result deterministic for a given order. Pair indices must be valid (not checked: the engine
    /// builds them). `settings` must satisfy `validate`.
    /// Islands and the swept-box culling run on `parallel` (results identical for any number of
    /// threads: islands share no dynamic body).
    void solve(std::span<SolverBody> bodies, std::span<const BodyPairRef> pairs, std::span<const TriangleRef> triangles,
               const SolverSettings& settings, Parallel& parallel = serial());

    /// The velocity pass that follows (Mueller et al. 2020, section 3.6, with restitution 0). After the engine has
    /// turned the corrected positions into velocities, every contact that `solve` corrected in this step is left
    /// with no relative motion along its normal: a correction that pushed out penetration left from an earlier step
    /// would otherwise become a separating speed (position-based dynamics turns every displacement into velocity),
    /// so stacks would rebound like springs and boxes freed from a deep overlap would be launched, gaining energy
    /// from nothing. The normal velocity removed is an impulse, and Coulomb friction acts on it as in an impulse
    /// solver: the tangential relative velocity is removed when it is below static_friction times the normal change,
    /// else reduced by dynamic_friction times it, so a box landing on a slope gentler than atan(static_friction)
    /// sticks. Contacts are visited in the order `solve` used, as many passes as their island took there; changes are
    /// split half and half between two dynamic bodies, all on the dynamic one otherwise. `velocities[i]` (m/s, world)
    /// belongs to `bodies[i]`; only dynamic bodies' velocities change. Must follow a `solve` with the same pairs,
    /// triangles and settings.
    void settle_velocities(std::span<const SolverBody> bodies, std::span<glm::vec3> velocities,
                           std::span<const BodyPairRef> pairs, std::span<const TriangleRef> triangles,
                           const SolverSettings& settings, Parallel& parallel = serial()) const;

    /// Islands of the last `solve` and the passes each took (for statistics and tests).
    std::size_t island_count() const { return island_passes_.size(); }
    int island_passes(std::size_t island) const { return island_passes_[island]; }

private:
    void build_islands(std::span<const SolverBody> bodies, std::span<const BodyPairRef> pairs,
                       std::span<const TriangleRef> triangles);
    int run_island(std::uint32_t island, std::span<SolverBody> bodies, std::span<const BodyPairRef> pairs,
                   std::span<const TriangleRef> triangles, const SolverSettings& settings);
    // Orders the islands largest first and groups them into work units for `threads` threads (see solve).
    void schedule_islands(int threads);
    // Calls f(island) for every island, unit by unit on `parallel`.
    template <class F>
    void for_each_island(Parallel& parallel, F&& f) const;

    std::vector<float> normal_sum_;    // normal correction accumulated per contact this step (metres)
    std::vector<float> friction_sum_;  // tangential correction accumulated per contact this step (metres)
    std::vector<glm::vec3> normal_;    // the contact normal of each contact's last correction this step
    // Islands: contacts grouped by island in ascending contact index (pairs k, then triangles pairs.size() + k).
    std::vector<std::uint32_t> parent_;          // union-find over body indices
    std::vector<std::uint32_t> island_of_root_;  // island rank of a union-find root
    std::vector<std::uint32_t> contact_island_;  // island of each contact, or none
    std::vector<std::uint32_t> island_begin_;    // CSR offsets into island_contacts_
    std::vector<std::uint32_t> island_contacts_;
    std::vector<int> island_passes_;
    std::vector<std::uint32_t> island_order_;  // islands, most contacts first (ties: lower index first)
    std::vector<std::uint32_t> unit_begin_;    // work unit u runs island_order_[unit_begin_[u] .. unit_begin_[u + 1])
    std::vector<Obb> swept_;             // per body: its box over the step's motion, grown by the margin
    ObbBatch swept_batch_;               // the same boxes as a structure of arrays, for the batch test
    std::vector<std::uint8_t> live_;     // per contact: the swept boxes meet
    std::vector<std::uint8_t> escaped_;  // per body: a correction carried it out of its swept box in this step
    std::vector<std::uint32_t> version_; // per body: corrections applied so far in this step
    std::vector<std::uint64_t> seen_;    // per contact: body versions at its last test that corrected nothing
};

}  // namespace tumble
