// Continuous collision detection (opt-in per body, BodyDef::ccd), run at the end of stage 1 of the step.
//
// The predicted motion x -> x* of a fast body is swept with the exact swept SAT (narrowphase/sweep.hpp) against
// static geometry: mesh triangles approached from their front, static bodies, sleeping bodies and kinematic bodies
// at rest, all found through the broadphase (the resting octree and the mesh BVHs, queried with the swept box).
// Shapes the box already overlaps or touches at the start are left to the solver, which handles them in this step.
// At the first time of impact the predicted position is moved back to the contact, and the velocity loses its
// component into the surface (inelastic, like every contact of the position solver); the solver then resolves the
// contact at depth ~0. What is left of the motion (1 - toi) is not replayed in the same step.
//
// Awake dynamic bodies are not swept against each other: two fast boxes may still pass through each other.

#include <tumble/narrowphase/sweep.hpp>

#include "world_impl.hpp"

namespace tumble {
namespace {

// A step shorter than this fraction of the body's smallest half extent cannot carry it through anything the
// solver would not push it back out of, so it is not swept.
constexpr float kCcdMotionFraction = 0.25f;

}  // namespace

void World::Impl::continuous_collision(std::uint32_t k) {
    Body& b = bodies[awake[k]];
    SolverBody& s = solver_bodies[k];
    const glm::vec3 d = s.position - s.start_position;
    const float smallest = std::min({b.half_extents.x, b.half_extents.y, b.half_extents.z});
    if (!(glm::dot(d, d) > kCcdMotionFraction * kCcdMotionFraction * smallest * smallest)) return;
    ++stats.ccd_sweeps;

    const Obb box{s.start_position, s.axes, b.half_extents};
    const Aabb swept = box.aabb().merged(Obb{s.position, s.axes, b.half_extents}.aabb());
    float best = 1.0f;
    glm::vec3 normal(0.0f);
    auto consider = [&](const std::optional<SweepHit>& hit) {
        if (hit && !hit->initially_overlapping && hit->toi < best) {
            best = hit->toi;
            normal = hit->normal;
        }
    };
    query_proxies.clear();
    resting.query(swept, query_proxies);
    for (ProxyId p : query_proxies) {
        const Body& other = bodies[resting.user_data(p)];
        if (other.sensor || !layers_collide(b.layer, b.mask, other.layer, other.mask)) continue;
        consider(sweep(box, d, other.obb()));
    }
    for (const Mesh& m : meshes) {
        if (!m.alive || !layers_collide(b.layer, b.mask, m.layer, m.mask)) continue;
        query_result.clear();
        m.index.query(swept, query_result);
        for (std::uint32_t t : query_result) {
            const Triangle& tri = m.index.triangle(t);
            const glm::vec3 front = tri.scaled_normal();
            // One-sided, as the solver's mesh_contact: only a box in front moving against the front face.
            if (glm::dot(s.start_position - tri.a, front) < 0.0f) continue;
            const std::optional<SweepHit> hit = sweep(box, d, tri);
            if (hit && glm::dot(hit->normal, front) < 0.0f) consider(hit);
        }
    }
    if (best >= 1.0f) return;
    s.position = s.start_position + d * best;
    predicted[k] = s.position;
    const float into = glm::dot(b.velocity, normal);
    if (into > 0.0f) b.velocity -= normal * into;
}

}  // namespace tumble
