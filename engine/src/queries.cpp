// Queries on the world: raycast, raycast_all, overlap_box, sweep_box. Always through the broadphase (both loose
// octrees for bodies, each mesh's BVH for triangles), then exact tests: ray against box by slabs in the box frame
// (Kay and Kajiya, "Ray tracing complex scenes", 1986; Ericson 5.3.3), ray against triangle by Moller-Trumbore,
// overlap by the SAT, sweeps by the swept SAT (narrowphase/sweep.hpp). Conventions: query.hpp, docs/game.md.

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <tumble/core/checks.hpp>
#include <tumble/core/error.hpp>
#include <tumble/narrowphase/sat.hpp>
#include <tumble/narrowphase/sweep.hpp>
#include <tumble/narrowphase/validate.hpp>
#include <tumble/narrowphase/contact_policy.hpp>

#include "world_impl.hpp"

namespace tumble {
namespace {

// A shape the box already touches blocks a sweep only when the motion goes into it by more than this fraction of
// its length (so that sliding along a surface, which leaves round-off in the normal direction, is not blocked).
constexpr double kSweepInto = 1e-4;

void check_ray(const glm::vec3& origin, const glm::vec3& direction, float max_distance, const char* where) {
    if (!all_finite(origin)) throw InvalidArgument(std::string(where) + ": origin is not finite");
    if (!all_finite(direction)) throw InvalidArgument(std::string(where) + ": direction is not finite");
    if (glm::dot(glm::dvec3(direction), glm::dvec3(direction)) == 0.0)
        throw InvalidArgument(std::string(where) + ": direction is zero");
    if (!(max_distance >= 0.0f))
        throw InvalidArgument(std::string(where) + ": max_distance is " + std::to_string(max_distance) +
                              " (must be >= 0 metres, +infinity allowed)");
}

QueryFilter without_wake(QueryFilter filter) {
    filter.wake = false;
    return filter;
}

// The non-const queries run the const ones and then wake the bodies they report.
void wake_reported(World::Impl& world, BodyId body) {
    if (!body.is_null()) world.wake_body(body.index);
}

// The argument checks of sweep_box, shared by World::sweep_box (which checks before it looks at filter.wake, as the
// other queries do) and World::Impl::sweep_box (which the step's CCD and move_and_slide call directly).
void check_sweep(const Obb& box, const glm::vec3& displacement, const char* where) {
    require_valid(box, std::string(where) + ": box");
    if (!all_finite(displacement)) throw InvalidArgument(std::string(where) + ": displacement is not finite");
}

void reject_wake(const QueryFilter& filter, const char* where) {
    if (filter.wake)
        throw InvalidArgument(std::string(where) + ": filter.wake needs a non-const World (waking changes the world)");
}

// Ordering of hits at equal distance: bodies (by slot) before triangles (by mesh, triangle).
bool tie_less(const RaycastHit& x, const RaycastHit& y) {
    const bool xm = !x.mesh.is_null(), ym = !y.mesh.is_null();
    if (xm != ym) return !xm;
    if (!xm) return x.body < y.body;
    if (x.mesh != y.mesh) return x.mesh < y.mesh;
    return x.triangle < y.triangle;
}
bool hit_less(const RaycastHit& x, const RaycastHit& y) {
    return x.distance != y.distance ? x.distance < y.distance : tie_less(x, y);
}

// Exact ray-box intersection in the box's frame. `u` is the unit direction. Returns the entry distance in
// [0, max_distance] and the outward normal there, or nothing.
std::optional<std::pair<double, glm::dvec3>> ray_box(const Obb& box, const glm::dvec3& o, const glm::dvec3& u,
                                                     double max_distance) {
    const glm::dvec3 p = o - glm::dvec3(box.center);
    double enter = -std::numeric_limits<double>::infinity(), leave = std::numeric_limits<double>::infinity();
    glm::dvec3 normal(0.0);
    for (int i = 0; i < 3; ++i) {
        const glm::dvec3 axis(box.axes[i]);
        const double e = box.half_extents[i];
        const double po = glm::dot(p, axis), du = glm::dot(u, axis);
        if (du == 0.0) {
            if (std::abs(po) > e) return std::nullopt;
            continue;
        }
        double t0 = (-e - po) / du, t1 = (e - po) / du;
        if (t0 > t1) std::swap(t0, t1);
        if (t0 > enter) {
            enter = t0;
            normal = du > 0.0 ? -axis : axis;
        }
        leave = std::min(leave, t1);
        if (enter > leave) return std::nullopt;
    }
    if (leave < 0.0 || enter > max_distance) return std::nullopt;
    if (enter <= 0.0) return std::make_pair(0.0, -u);  // the origin is inside (or on) the box
    return std::make_pair(enter, glm::normalize(normal));
}

}  // namespace

bool World::Impl::body_visible(std::uint32_t slot, const QueryFilter& filter) const {
    const Body& b = state.bodies[slot];
    return filter.bodies && (filter.sensors || !b.sensor) && (b.layer & filter.mask) != 0 && id_of(slot) != filter.ignore;
}

bool World::Impl::mesh_visible(std::uint32_t mesh, const QueryFilter& filter) const {
    return filter.meshes && state.meshes[mesh].alive && (state.meshes[mesh].layer & filter.mask) != 0;
}

void World::Impl::raycast(const glm::vec3& origin, const glm::vec3& direction, float max_distance,
                          const QueryFilter& filter, bool all, std::vector<RaycastHit>& out) const {
    const glm::dvec3 o(origin);
    const glm::dvec3 u = glm::normalize(glm::dvec3(direction));
    const glm::vec3 unit(u);
    std::optional<RaycastHit> best;
    float limit = max_distance;  // closest: the best distance so far; all: max_distance throughout
    auto offer = [&](const RaycastHit& hit) {
        if (all) {
            out.push_back(hit);
        } else if (!best || hit_less(hit, *best)) {
            best = hit;
            limit = hit.distance;
        }
        return limit;
    };
    // Meshes first: a level usually ends the ray within a few metres, which bounds the body walk.
    for (std::uint32_t m = 0; m < state.meshes.size(); ++m) {
        if (!mesh_visible(m, filter)) continue;
        state.meshes[m].index.raycast(origin, unit, limit, [&](const RayHit& h) {
            if (!h.front_face && !filter.back_faces) return limit;
            RaycastHit hit;
            hit.mesh = mesh_id_of(m);
            hit.triangle = h.triangle;
            hit.point = h.point;
            hit.normal = h.front_face ? h.normal : -h.normal;
            hit.distance = h.distance;
            return offer(hit);
        });
    }
    for (const LooseOctree* tree : {&state.active, &state.resting}) {
        tree->raycast(origin, unit, limit, [&](ProxyId proxy, float) {
            const auto slot = static_cast<std::uint32_t>(tree->user_data(proxy));
            if (!body_visible(slot, filter)) return limit;
            const auto exact = ray_box(state.bodies[slot].obb(), o, u, static_cast<double>(limit));
            if (!exact) return limit;
            RaycastHit hit;
            hit.body = id_of(slot);
            hit.distance = static_cast<float>(exact->first);
            hit.point = glm::vec3(o + u * exact->first);
            hit.normal = glm::vec3(exact->second);
            return offer(hit);
        });
    }
    if (all)
        std::sort(out.begin(), out.end(), hit_less);
    else if (best)
        out.push_back(*best);
}

OverlapResult World::Impl::overlap_box(const Obb& box, const QueryFilter& filter) const {
    OverlapResult result;
    const Aabb bounds = box.aabb();
    std::vector<ProxyId> found;
    for (const LooseOctree* tree : {&state.active, &state.resting}) {
        found.clear();
        tree->query(bounds, found);
        for (ProxyId p : found) {
            const auto slot = static_cast<std::uint32_t>(tree->user_data(p));
            if (body_visible(slot, filter) && overlap(box, state.bodies[slot].obb()))
                result.bodies.push_back(id_of(slot));
        }
    }
    std::vector<std::uint32_t> triangles;
    for (std::uint32_t m = 0; m < state.meshes.size(); ++m) {
        if (!mesh_visible(m, filter)) continue;
        triangles.clear();
        state.meshes[m].index.query(bounds, triangles);
        for (std::uint32_t t : triangles)
            if (overlap(box, state.meshes[m].index.triangle(t))) result.triangles.push_back({mesh_id_of(m), t});
    }
    std::sort(result.bodies.begin(), result.bodies.end());
    std::sort(result.triangles.begin(), result.triangles.end());
    return result;
}

std::optional<BoxSweepHit> World::Impl::sweep_box(const Obb& box, const glm::vec3& displacement,
                                                  const QueryFilter& filter, const char* where) const {
    check_sweep(box, displacement, where);
    const glm::dvec3 d(displacement);
    const double travel = glm::length(d);
    const Aabb swept = box.aabb().merged(Obb{box.center + displacement, box.axes, box.half_extents}.aabb());

    std::optional<BoxSweepHit> best;
    // Candidates in order: earlier time of impact, then deeper initial overlap, then bodies before triangles by id.
    auto offer = [&](BoxSweepHit hit) {
        if (hit.initially_overlapping && travel > 0.0 && !(glm::dot(d, glm::dvec3(hit.normal)) > kSweepInto * travel))
            return;  // touching and leaving or sliding along: not an obstacle
        if (best) {
            if (hit.toi != best->toi) {
                if (hit.toi > best->toi) return;
            } else if (hit.depth != best->depth) {
                if (hit.depth < best->depth) return;
            } else {
                RaycastHit x, y;
                x.body = hit.body, x.mesh = hit.mesh, x.triangle = hit.triangle;
                y.body = best->body, y.mesh = best->mesh, y.triangle = best->triangle;
                if (!tie_less(x, y)) return;
            }
        }
        hit.position = box.center + displacement * hit.toi;
        best = hit;
    };
    auto from_sweep = [](const SweepHit& s) {
        BoxSweepHit hit;
        hit.toi = s.toi;
        hit.normal = s.normal;
        hit.initially_overlapping = s.initially_overlapping;
        hit.depth = s.depth;
        return hit;
    };

    std::vector<ProxyId> found;
    for (const LooseOctree* tree : {&state.active, &state.resting}) {
        found.clear();
        tree->query(swept, found);
        for (ProxyId p : found) {
            const auto slot = static_cast<std::uint32_t>(tree->user_data(p));
            if (!body_visible(slot, filter)) continue;
            const std::optional<SweepHit> s = sweep(box, displacement, state.bodies[slot].obb());
            if (!s) continue;
            BoxSweepHit hit = from_sweep(*s);
            hit.body = id_of(slot);
            offer(hit);
        }
    }
    std::vector<std::uint32_t> triangles;
    for (std::uint32_t m = 0; m < state.meshes.size(); ++m) {
        if (!mesh_visible(m, filter)) continue;
        triangles.clear();
        state.meshes[m].index.query(swept, triangles);
        for (std::uint32_t t : triangles) {
            const Triangle& tri = state.meshes[m].index.triangle(t);
            const std::optional<SweepHit> s = sweep(box, displacement, tri);
            if (!s) continue;
            BoxSweepHit hit = from_sweep(*s);
            if (!filter.back_faces) {
                // One-sided, as the solver's mesh_contact: a box centred behind the plane does not see the triangle;
                // an initial overlap pushes out through the front; a later hit must approach the front.
                const glm::vec3 front = tri.scaled_normal();
                if (glm::dot(box.center - tri.a, front) < 0.0f) continue;
                if (s->initially_overlapping) {
                    const std::optional<Contact> c = mesh_contact(box, tri, box.center);
                    if (!c) continue;
                    hit.normal = c->normal;
                    hit.depth = c->depth;
                } else if (!(glm::dot(s->normal, front) < 0.0f)) {
                    continue;
                }
            }
            hit.mesh = mesh_id_of(m);
            hit.triangle = t;
            offer(hit);
        }
    }
    return best;
}

// ---------------------------------------------------------------------------------------------------------------
// World members. Each query is a pair overloaded on constness (docs/architecture.md, "Errors"): the const one checks
// its arguments, then refuses filter.wake, then answers; the non-const one runs the const one with filter.wake
// cleared and wakes what it reports. Both therefore give the same answer and throw the same InvalidArgument for the
// same bad arguments; the only difference is that a non-const call may wake bodies.

std::optional<RaycastHit> World::raycast(const glm::vec3& origin, const glm::vec3& direction, float max_distance,
                                         const QueryFilter& filter) const {
    check_ray(origin, direction, max_distance, "World::raycast");
    reject_wake(filter, "World::raycast");
    std::vector<RaycastHit> out;
    impl_->raycast(origin, direction, max_distance, filter, false, out);
    if (out.empty()) return std::nullopt;
    return out.front();
}

std::optional<RaycastHit> World::raycast(const glm::vec3& origin, const glm::vec3& direction, float max_distance,
                                         const QueryFilter& filter) {
    std::optional<RaycastHit> hit = std::as_const(*this).raycast(origin, direction, max_distance, without_wake(filter));
    if (hit && filter.wake) wake_reported(*impl_, hit->body);
    return hit;
}

std::vector<RaycastHit> World::raycast_all(const glm::vec3& origin, const glm::vec3& direction, float max_distance,
                                           const QueryFilter& filter) const {
    check_ray(origin, direction, max_distance, "World::raycast_all");
    reject_wake(filter, "World::raycast_all");
    std::vector<RaycastHit> out;
    impl_->raycast(origin, direction, max_distance, filter, true, out);
    return out;
}

std::vector<RaycastHit> World::raycast_all(const glm::vec3& origin, const glm::vec3& direction, float max_distance,
                                           const QueryFilter& filter) {
    std::vector<RaycastHit> hits = std::as_const(*this).raycast_all(origin, direction, max_distance, without_wake(filter));
    if (filter.wake)
        for (const RaycastHit& h : hits) wake_reported(*impl_, h.body);
    return hits;
}

OverlapResult World::overlap_box(const Obb& box, const QueryFilter& filter) const {
    require_valid(box, "World::overlap_box: box");
    reject_wake(filter, "World::overlap_box");
    return impl_->overlap_box(box, filter);
}

OverlapResult World::overlap_box(const Obb& box, const QueryFilter& filter) {
    OverlapResult result = std::as_const(*this).overlap_box(box, without_wake(filter));
    if (filter.wake)
        for (BodyId id : result.bodies) wake_reported(*impl_, id);
    return result;
}

std::optional<BoxSweepHit> World::sweep_box(const Obb& box, const glm::vec3& displacement,
                                            const QueryFilter& filter) const {
    check_sweep(box, displacement, "World::sweep_box");
    reject_wake(filter, "World::sweep_box");
    return impl_->sweep_box(box, displacement, filter, "World::sweep_box");
}

std::optional<BoxSweepHit> World::sweep_box(const Obb& box, const glm::vec3& displacement, const QueryFilter& filter) {
    std::optional<BoxSweepHit> hit = std::as_const(*this).sweep_box(box, displacement, without_wake(filter));
    if (hit && filter.wake) wake_reported(*impl_, hit->body);
    return hit;
}

}  // namespace tumble
