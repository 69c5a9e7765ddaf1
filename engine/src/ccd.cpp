// Continuous collision detection (opt-in per body, BodyDef::ccd): time-of-impact contacts in the narrowphase stage,
// and for every body the guard that keeps its centre in front of the one-sided mesh triangles (end of this file).
//
// Every contact is found at the start of the step with a speculative margin that covers the step's motion, so a
// body cannot pass through anything for lack of a contact. For a fast body, though, the separating axis of the
// shapes where they are at the start of the step can be far from the axis along which they will meet (a box thrown
// at a wall from a few metres away, turned: the greatest separation may lie along one of its own faces or an edge
// axis), and a contact along the wrong axis deflects it. A CCD body moving more than a quarter of its smallest half
// extent in the step therefore has its contacts with static geometry (static bodies, sleeping bodies, kinematic
// bodies at rest, mesh triangles approached from the front) taken where it will first touch them: its predicted
// translation over the step is swept with the exact swept SAT (narrowphase/sweep.hpp; Ericson, Real-Time Collision
// Detection, 2005, section 5.5.8 for the moving separating-axis test), the manifold is computed at the time of
// impact, and its points on the body are moved back by the distance travelled, so that the solver sees a gap that
// closes exactly at the impact. Shapes the box already touches at the start keep the start-of-step manifold.

#include <algorithm>

#include <tumble/narrowphase/contact_policy.hpp>
#include <tumble/narrowphase/sweep.hpp>

#include "world_impl.hpp"

namespace tumble {
namespace {

// A step shorter than this fraction of the body's smallest half extent cannot pick the wrong axis by much, so it is
// not swept.
constexpr float kCcdMotionFraction = 0.25f;
// Overlap, metres, beyond which a swept body the solver left inside an obstacle it hit is put back (ccd_clamp).
constexpr float kCcdTolerance = 1e-3f;
// Triangle candidates per chunk of the mesh guard's first pass on the threads, and bodies per chunk of its second.
constexpr std::size_t kGuardGrain = 512;
constexpr std::size_t kGuardBodyGrain = 64;
// keep_in_front_of_meshes: how far in front of a triangle's plane a centre that went through it is put back
// (metres; less if it started the step closer), and the slack of its inside-the-triangle test (a fraction of the
// squared doubled area, about that fraction of an edge's length times the triangle's height).
constexpr float kMeshGuardGap = 1e-3f;
constexpr float kMeshGuardEdgeSlack = 1e-4f;

// The manifold found at the impact pose, expressed for the start pose: points on the moving body (A) moved back by
// the distance travelled, depths reduced by the gap that motion closes along the normal.
//
// The reference face's side planes are dropped (sides = 0): every point acts once its gap closes. They keep a box
// that slides past a ledge from being held up by points beyond the edge; at an impact the face has just been found
// to be where the body arrives, and a body that also slides along it (a box thrown at a wall at an angle) would
// otherwise carry the face away from the points anchored on the obstacle within a substep or two, leaving the hit
// to one edge of the face and setting the body spinning.
Manifold back_to_start(Manifold m, const glm::vec3& travelled) {
    const float closing = glm::dot(travelled, m.normal);
    m.depth -= closing;
    m.sides = 0;
    for (int k = 0; k < m.count; ++k) {
        ManifoldPoint& p = m.points[static_cast<std::size_t>(k)];
        p.point_a -= travelled;
        p.depth -= closing;
    }
    return m;
}

}  // namespace

bool World::Impl::swept_for_ccd(std::uint32_t k) const {
    if (k >= scratch.awake_count) return false;
    const Body& b = state.bodies[state.awake[k]];
    if (!b.ccd || !b.dynamic() || b.sensor) return false;
    const float smallest = std::min({b.half_extents.x, b.half_extents.y, b.half_extents.z});
    const float threshold = kCcdMotionFraction * smallest;
    // How far its points move: the translation plus the turn times its radius.
    const glm::vec3 motion = scratch.end_center[k] - start_center(k);
    const glm::quat turn = scratch.end_orientation[k] * glm::conjugate(state.bodies[state.awake[k]].orientation);
    const float angle = 2.0f * std::acos(std::min(1.0f, std::abs(turn.w)));
    const float reach = glm::length(motion) + glm::length(b.half_extents) * std::min(angle, 2.0f);
    return reach > threshold;
}

std::optional<Manifold> World::Impl::impact_manifold(std::uint32_t k, const Obb& other, float& toi) const {
    const Obb box = start_box(k);
    const glm::vec3 motion = scratch.end_center[k] - box.center;
    const std::optional<SweepHit> hit = sweep(box, motion, other);
    if (!hit || hit->initially_overlapping) return std::nullopt;
    toi = hit->toi;
    const glm::vec3 travelled = motion * hit->toi;
    const Obb at{box.center + travelled, box.axes, box.half_extents};
    const std::optional<Manifold> m = collide_manifold(at, other, state.settings.broadphase_margin);
    if (!m) return std::nullopt;
    return back_to_start(*m, travelled);
}

std::optional<Manifold> World::Impl::impact_manifold(std::uint32_t k, const Triangle& tri, EdgeFlags active_edges,
                                                     float& toi) const {
    const Obb box = start_box(k);
    const glm::vec3 motion = scratch.end_center[k] - box.center;
    const glm::vec3 front = tri.scaled_normal();
    // One-sided: only a box in front of the triangle moving against its front face.
    if (glm::dot(box.center - tri.a, front) < 0.0f || !(glm::dot(motion, front) < 0.0f)) return std::nullopt;
    const std::optional<SweepHit> hit = sweep(box, motion, tri);
    if (!hit || hit->initially_overlapping) return std::nullopt;
    toi = hit->toi;
    const glm::vec3 travelled = motion * hit->toi;
    const Obb at{box.center + travelled, box.axes, box.half_extents};
    const std::optional<Manifold> m =
        mesh_manifold(at, tri, box.center, active_edges, state.settings.broadphase_margin);
    if (!m) return std::nullopt;
    return back_to_start(*m, travelled);
}

void World::Impl::ccd_clamp() {
    // The impact manifold holds the points that touch first; a box that the hit sets spinning (a corner-first hit
    // at 100 m/s turns a thin box at hundreds of rad/s) can swing its other corners through a thin wall, and its
    // centre after them, before the next step's contacts see them. As in Box2D v3's continuous step, the translation
    // the solver gave a swept body is swept again against the static geometry near it (with the orientation the
    // body started the step with); where it meets something it did not touch at the start, or moves into something
    // it touched then, the body goes back to where it first touched it, with its starting orientation. It keeps the
    // velocities the solver gave it, and the next step's contacts take it from there.
    std::vector<float>& back_to = scratch.ccd_back_to;
    back_to.assign(scratch.awake_count, 2.0f);
    // `touching`: the SAT contact at the start of the step, if any; `hit`: the sweep of the solved translation.
    // `at_end`: the contact at the solved pose (turned as the solver turned it).
    auto check = [&](std::uint32_t k, const glm::vec3& moved, const std::optional<Contact>& touching,
                     const std::optional<SweepHit>& hit, const std::optional<Contact>& at_end) {
        const bool inside_at_end = at_end && at_end->depth > kCcdTolerance;
        if (!hit && !inside_at_end) return;
        float toi = hit ? hit->toi : 0.0f;
        if (hit && hit->initially_overlapping) {
            // Moving into it by more than the tolerance (the normal points from the body towards the obstacle).
            if (!inside_at_end && (!touching || glm::dot(moved, touching->normal) <= kCcdTolerance)) return;
            toi = 0.0f;
        }
        back_to[k] = std::min(back_to[k], toi);
    };
    auto solved_box = [&](std::uint32_t k) {
        const SolverBody& b = scratch.solver_bodies[k];
        return Obb{b.position, glm::mat3_cast(b.orientation), half_extents_of(k)};
    };
    auto moved_of = [&](std::uint32_t k) { return scratch.solver_bodies[k].position - start_center(k); };
    if (scratch.swept_bodies > 0) {  // (most steps sweep no body: nothing to look for among the candidates)
        for (const BodyPair& p : scratch.body_pairs) {
            std::uint32_t k = p.a, other = p.b;
            if (!(scratch.solver_bodies[other].motion == Motion::fixed && swept_for_ccd(k))) std::swap(k, other);
            if (!(scratch.solver_bodies[other].motion == Motion::fixed && swept_for_ccd(k))) continue;
            const glm::vec3 moved = moved_of(k);
            check(k, moved, collide(start_box(k), start_box(other)), sweep(start_box(k), moved, start_box(other)),
                  collide(solved_box(k), start_box(other)));
        }
        for (const TriangleCandidate& tc : scratch.triangle_candidates) {
            if (!swept_for_ccd(tc.body)) continue;
            const std::uint32_t k = tc.body;
            const glm::vec3 moved = moved_of(k);
            const Triangle& tri = shape_of(tc);
            // One-sided: only what comes at the front face counts.
            const glm::vec3 front = tri.scaled_normal();
            if (glm::dot(start_center(k) - tri.a, front) < 0.0f) continue;
            check(k, moved, mesh_contact(start_box(k), tri, start_center(k), tc.active_edges),
                  sweep(start_box(k), moved, tri), mesh_contact(solved_box(k), tri, start_center(k), tc.active_edges));
        }
    }
    // A CCD body the solver moved far though it was not swept (a resting box hit by a fast one), or moved off the
    // path it was swept along: its solved translation against the level's triangles (the candidates above only
    // cover what lay along the predicted motion).
    QueryFilter meshes_only;
    meshes_only.bodies = false;
    for (std::uint32_t k = 0; k < scratch.awake_count; ++k) {
        const Body& b = state.bodies[state.awake[k]];
        if (!b.ccd || !b.dynamic() || b.sensor || state.meshes.empty()) continue;
        meshes_only.mask = b.mask;  // the meshes it collides with (layers_collide also needs the mesh's mask)
        const glm::vec3 moved = moved_of(k);
        const float smallest = std::min({b.half_extents.x, b.half_extents.y, b.half_extents.z});
        if (!(glm::length(moved) > kCcdMotionFraction * smallest)) continue;
        const std::optional<BoxSweepHit> hit = sweep_box(start_box(k), moved, meshes_only, "World::step");
        if (hit) back_to[k] = std::min(back_to[k], hit->initially_overlapping ? 0.0f : hit->toi);
    }
    for (std::uint32_t k = 0; k < scratch.awake_count; ++k) {
        if (!(back_to[k] <= 1.0f)) continue;
        SolverBody& body = scratch.solver_bodies[k];
        body.position = start_center(k) + moved_of(k) * back_to[k];
        body.orientation = state.bodies[state.awake[k]].orientation;  // not written back before the velocities stage
    }
}

// Every dynamic body, CCD or not: the one-sided rule (docs/game.md) means a box whose centre ends a step behind a
// level triangle no longer sees that triangle and falls out of the level. The contact points of a step are found at
// its start, and a box that an impact sets spinning within the step (a thin box landing on a corner at 5 m/s turns at
// 50 rad/s, 50 degrees in one step) can bring corners that no manifold of the step holds down through the floor, and
// its centre after them. So the path of each body's centre over the step (start to solved position) is checked
// against the triangles of its mesh candidates: where it goes in through a front face, the body is put back in front
// of the first such face, kMeshGuardGap along its normal, keeping the orientation and spin the solver gave it and
// losing the part of its velocity that goes into the face (an inelastic stop); the next step's contacts push out
// what still overlaps, without speed (the solver's split impulse). A centre that stays in front of every triangle is
// never touched, so this changes nothing else.
void World::Impl::keep_in_front_of_meshes() {
    std::vector<float>& first = scratch.mesh_guard_at;
    std::vector<glm::vec3>& face = scratch.mesh_guard_normal;
    first.assign(scratch.awake_count, 2.0f);
    face.resize(scratch.awake_count);
    // The triangles the broadphase found for each body cover its centre's path while that path stays inside the box
    // they were found with (the common case: the solver moved the body about as predicted). A body's candidates sit
    // together (the broadphase lists them body by body), and a chunk of candidates on the threads takes every body
    // whose first candidate it holds, whole: each body's candidates are seen in order by one thread.
    auto guard_candidate = [&](const TriangleCandidate& tc) {
        const Triangle& tri = shape_of(tc);
        const glm::vec3 from = start_center(tc.body), to = scratch.solver_bodies[tc.body].position;
        const glm::vec3 n = tri.scaled_normal();
        const float before = glm::dot(from - tri.a, n), after = glm::dot(to - tri.a, n);
        if (!(before > 0.0f && after < 0.0f)) return;
        const float t = before / (before - after);
        if (!(t < first[tc.body])) return;
        // Where the path meets the plane, inside the triangle (each edge's side test; a little outside counts too,
        // so that a path through an edge two triangles share is caught by one of them whatever the rounding).
        const glm::vec3 p = from + (to - from) * t;
        const float slack = -kMeshGuardEdgeSlack * glm::dot(n, n);
        if (glm::dot(glm::cross(tri.b - tri.a, p - tri.a), n) < slack ||
            glm::dot(glm::cross(tri.c - tri.b, p - tri.b), n) < slack ||
            glm::dot(glm::cross(tri.a - tri.c, p - tri.c), n) < slack)
            return;
        first[tc.body] = t;
        face[tc.body] = glm::normalize(n);
    };
    const std::vector<TriangleCandidate>& candidates = scratch.triangle_candidates;
    parallel().for_each_chunk(candidates.size(), kGuardGrain, [&](std::size_t begin, std::size_t end) {
        const std::size_t chunk_end = end;
        while (begin < chunk_end && begin > 0 && candidates[begin].body == candidates[begin - 1].body) ++begin;
        if (begin == chunk_end) return;
        while (end < candidates.size() && candidates[end].body == candidates[end - 1].body) ++end;
        for (std::size_t c = begin; c < end; ++c) {
            // Two chunks never write one body's entries only while the list stays in body order.
            TUMBLE_ASSERT(c == 0 || candidates[c - 1].body <= candidates[c].body);
            guard_candidate(candidates[c]);
        }
    });
    // A body the solver moved out of that box (deflected by a hit into a direction it was not going): its path is
    // cast against the meshes' BVHs (bodies apart on the threads; each writes only its own entries).
    parallel().for_each_chunk(
        scratch.awake_count, kGuardBodyGrain, [&](std::size_t chunk_begin, std::size_t chunk_end) {
            for (auto k = static_cast<std::uint32_t>(chunk_begin); k < chunk_end; ++k) {
                const Body& b = state.bodies[state.awake[k]];
                if (!b.dynamic() || b.sensor) continue;
                const glm::vec3 from = start_center(k), to = scratch.solver_bodies[k].position;
                const Aabb searched = state.active.aabb(b.proxy);
                if (searched.contains(Aabb{to, to})) continue;
                const float length = glm::length(to - from);
                if (!(length > 0.0f)) continue;
                const glm::vec3 direction = (to - from) / length;
                for (std::uint32_t m : scratch.mesh_order) {
                    if (!layers_collide(b.layer, b.mask, state.meshes[m].layer, state.meshes[m].mask)) continue;
                    state.meshes[m].index.raycast(from, direction, length, [&](const RayHit& hit) {
                        if (!hit.front_face) return length;
                        const float t = hit.distance / length;
                        if (t < first[k]) {
                            first[k] = t;
                            face[k] = hit.normal;
                        }
                        return length;
                    });
                }
            }
        });
    std::size_t guarded = 0;
    for (std::uint32_t k = 0; k < scratch.awake_count; ++k) {
        if (!(first[k] <= 1.0f)) continue;
        const glm::vec3 unit = face[k];
        SolverBody& body = scratch.solver_bodies[k];
        const glm::vec3 from = start_center(k);
        const glm::vec3 crossing = from + (body.position - from) * first[k];
        body.position = crossing + unit * std::min(kMeshGuardGap, glm::dot(from - crossing, unit));
        const float into = glm::dot(body.velocity, unit);
        if (into < 0.0f) body.velocity -= into * unit;
        ++guarded;
    }
    stats.mesh_guards = guarded;
}

}  // namespace tumble
