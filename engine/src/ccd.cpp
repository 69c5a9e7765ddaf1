// Continuous collision detection (opt-in per body, BodyDef::ccd), run at the end of stage 1 of the step.
//
// The predicted motion x -> x* of a fast body is swept with the exact swept SAT (narrowphase/sweep.hpp) against
// static geometry: mesh triangles approached from their front, static bodies, sleeping bodies and kinematic bodies
// at rest, all found through the broadphase (the resting octree and the mesh BVHs, queried with the swept box).
// Shapes the box already overlaps or touches at the start are left to the solver, which handles them in this step,
// unless the motion drives into them by more than the motion threshold below (a box pushed against a thin wall at
// speed). At the first time of impact the predicted position is moved to the contact, and the velocity and what is
// left of the motion lose their components into the surface (inelastic, like every contact of the position
// solver); what is left is swept again along the surface, up to three sweeps in all. The solver then resolves the
// contacts at depth ~0.
//
// Awake dynamic bodies are not swept against each other: two fast boxes may still pass through each other.

#include <algorithm>

#include <tumble/narrowphase/sweep.hpp>
#include <tumble/solver/position_solver.hpp>

#include "world_impl.hpp"

namespace tumble {
namespace {

// A step shorter than this fraction of the body's smallest half extent cannot carry it through anything the
// solver would not push it back out of, so it is not swept.
constexpr float kCcdMotionFraction = 0.25f;
// Sweeps per body per step: the first impact, then up to two slides along what was hit (a corner).
constexpr int kCcdIterations = 3;

}  // namespace

void World::Impl::continuous_collision(std::uint32_t k) {
    Body& b = bodies[awake[k]];
    SolverBody& s = solver_bodies[k];
    const float smallest = std::min({b.half_extents.x, b.half_extents.y, b.half_extents.z});
    const float threshold = kCcdMotionFraction * smallest;
    glm::vec3 remaining = s.position - s.start_position;
    if (!(glm::dot(remaining, remaining) > threshold * threshold)) return;
    ++stats.ccd_sweeps;

    glm::vec3 at = s.start_position;
    for (int iteration = 0; iteration < kCcdIterations; ++iteration) {
        const Obb box{at, s.axes, b.half_extents};
        const Aabb swept = box.aabb().merged(Obb{at + remaining, s.axes, b.half_extents}.aabb());
        float best = 1.0f;
        glm::vec3 normal(0.0f);
        // A shape already touched is the solver's, unless the motion drives into it by more than the threshold (a
        // body pushed against a thin wall at speed): then it stops the motion at once.
        auto consider = [&](const std::optional<SweepHit>& hit, const glm::vec3& initial_normal) {
            if (!hit) return;
            const glm::vec3 n = hit->initially_overlapping ? initial_normal : hit->normal;
            if (hit->initially_overlapping && !(glm::dot(remaining, n) > threshold)) return;
            if (hit->toi < best || (hit->toi == best && best < 1.0f && glm::dot(remaining, n) > glm::dot(remaining, normal))) {
                best = hit->toi;
                normal = n;
            }
        };
        query_proxies.clear();
        resting.query(swept, query_proxies);
        for (ProxyId p : query_proxies) {
            const Body& other = bodies[resting.user_data(p)];
            if (other.sensor || !layers_collide(b.layer, b.mask, other.layer, other.mask)) continue;
            const std::optional<SweepHit> hit = sweep(box, remaining, other.obb());
            consider(hit, hit ? hit->normal : glm::vec3(0.0f));
        }
        for (const Mesh& m : meshes) {
            if (!m.alive || !layers_collide(b.layer, b.mask, m.layer, m.mask)) continue;
            query_result.clear();
            m.index.query(swept, query_result);
            for (std::uint32_t t : query_result) {
                const Triangle& tri = m.index.triangle(t);
                const glm::vec3 front = tri.scaled_normal();
                // One-sided, as the solver's mesh_contact: only a box in front moving against the front face.
                if (glm::dot(at - tri.a, front) < 0.0f) continue;
                const std::optional<SweepHit> hit = sweep(box, remaining, tri);
                if (!hit) continue;
                if (hit->initially_overlapping) {
                    if (const std::optional<Contact> c = mesh_contact(box, tri, at)) consider(hit, c->normal);
                } else if (glm::dot(hit->normal, front) < 0.0f) {
                    consider(hit, hit->normal);
                }
            }
        }
        if (best >= 1.0f) {
            at += remaining;
            break;
        }
        // Move to the contact; what is left of the motion and the velocity lose their components into the surface.
        at += remaining * best;
        remaining *= 1.0f - best;
        remaining -= normal * std::max(0.0f, glm::dot(remaining, normal));
        b.velocity -= normal * std::max(0.0f, glm::dot(b.velocity, normal));
        if (!(glm::dot(remaining, remaining) > threshold * threshold) || iteration + 1 == kCcdIterations) break;
    }
    s.position = at;
    predicted[k] = at;
}

}  // namespace tumble
