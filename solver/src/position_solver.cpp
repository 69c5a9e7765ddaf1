#include <tumble/solver/position_solver.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <string>

#include <tumble/error.hpp>
#include <tumble/narrowphase/batch.hpp>
#include <tumble/narrowphase/sat.hpp>

namespace tumble {

void validate(const SolverSettings& s) {
    if (s.iterations < 1)
        throw InvalidArgument("SolverSettings: iterations is " + std::to_string(s.iterations) + " (must be >= 1)");
    if (!(std::isfinite(s.static_friction) && s.static_friction >= 0.0f))
        throw InvalidArgument("SolverSettings: static_friction is " + std::to_string(s.static_friction) +
                              " (must be finite and >= 0)");
    if (!(std::isfinite(s.margin) && s.margin >= 0.0f))
        throw InvalidArgument("SolverSettings: margin is " + std::to_string(s.margin) + " (must be finite and >= 0 metres)");
    if (!(std::isfinite(s.tolerance) && s.tolerance >= 0.0f))
        throw InvalidArgument("SolverSettings: tolerance is " + std::to_string(s.tolerance) +
                              " (must be finite and >= 0 metres)");
    if (!(std::isfinite(s.dynamic_friction) && s.dynamic_friction >= 0.0f))
        throw InvalidArgument("SolverSettings: dynamic_friction is " + std::to_string(s.dynamic_friction) +
                              " (must be finite and >= 0)");
}

std::optional<Contact> mesh_contact(const Obb& box, const Triangle& tri, const glm::vec3& start_center,
                                    EdgeFlags active_edges) noexcept {
    const glm::dvec3 n = glm::dvec3(tri.scaled_normal());
    const double n2 = glm::dot(n, n);
    if (!(n2 > 0.0)) return collide(box, tri);  // degenerate: no front side to speak of
    const glm::dvec3 unit = n / std::sqrt(n2);
    const glm::dvec3 a(tri.a);
    const double side_now = glm::dot(glm::dvec3(box.center) - a, unit);
    const double side_start = glm::dot(glm::dvec3(start_center) - a, unit);
    if (side_now < 0.0 && side_start < 0.0) return std::nullopt;  // behind the triangle for the whole step

    std::optional<Contact> c = collide(box, tri);
    if (!c) return std::nullopt;
    // The box moves along -normal. Keep the SAT's choice unless that would push it towards the back, or it comes
    // from an inactive edge or vertex (a seam the neighbouring triangle continues).
    if (glm::dot(glm::dvec3(c->normal), unit) <= 0.0 && !on_inactive_feature(tri, *c, active_edges)) return c;
    double reach = 0.0;  // box radius along the triangle normal
    for (int i = 0; i < 3; ++i)
        reach += static_cast<double>(box.half_extents[i]) * std::abs(glm::dot(glm::dvec3(box.axes[i]), unit));
    Contact out;
    out.axis = 3;
    out.negative = true;
    out.depth = static_cast<float>(std::max(0.0, reach - side_now));
    out.normal = glm::vec3(-unit);
    return out;
}

std::optional<Contact> box_contact(const Obb& a, FaceFlags a_internal, const Obb& b, FaceFlags b_internal) noexcept {
    std::optional<Contact> c = collide(a, b);
    if (!c || (!a_internal && !b_internal)) return c;
    // Which box's internal face the contact comes out of: a's feature faces along +normal, b's along -normal.
    const bool from_a = on_internal_face(a, c->normal, a_internal);
    if (!from_a && !on_internal_face(b, -c->normal, b_internal)) return c;
    const Obb& seam = from_a ? a : b;
    const Obb& other = from_a ? b : a;
    const FaceFlags internal = from_a ? a_internal : b_internal;
    // Push `other` out through the real face of `seam` that needs the least: along the face's outward normal f, the
    // overlap is (seam's reach + other's reach) - (other's centre - seam's centre) . f.
    const glm::dvec3 t = glm::dvec3(other.center) - glm::dvec3(seam.center);
    double best = -1.0;
    int best_face = -1;
    for (int face = 0; face < 6; ++face) {
        if (internal & (1u << face)) continue;
        const int i = face / 2;
        const glm::dvec3 f = glm::dvec3(seam.axes[i]) * (face % 2 ? -1.0 : 1.0);
        double reach = seam.half_extents[i];
        for (int k = 0; k < 3; ++k)
            reach += static_cast<double>(other.half_extents[k]) * std::abs(glm::dot(glm::dvec3(other.axes[k]), f));
        const double depth = reach - glm::dot(t, f);
        if (best_face < 0 || depth < best) best = depth, best_face = face;
    }
    if (best_face < 0) return c;  // every face internal: nothing better to offer
    const int i = best_face / 2;
    const glm::dvec3 f = glm::dvec3(seam.axes[i]) * (best_face % 2 ? -1.0 : 1.0);  // out of seam, towards other
    Contact out;
    out.depth = static_cast<float>(std::max(0.0, best));
    // Normal from a towards b: out of a's face when a is the seam box, into b's face otherwise.
    out.normal = glm::vec3(from_a ? f : -f);
    out.axis = from_a ? i : 3 + i;
    out.negative = from_a ? best_face % 2 == 1 : best_face % 2 == 0;
    return out;
}

namespace {

// Moves the pair apart by `depth` along `normal` (from A to B) and then removes tangential slip within the
// friction bounds. `wa`, `wb`: shares of the correction (0.5/0.5, 1/0, 0/1). `normal_sum`, `friction_sum`: this
// contact's accumulators for the step. A body with no share is never written (islands run on several threads and
// may share static bodies).
void correct(SolverBody& a, SolverBody* b, const glm::vec3& normal, float depth, float wa, float wb,
             float& normal_sum, float& friction_sum, const SolverSettings& s) {
    if (wa > 0.0f) a.position -= normal * (depth * wa);
    if (b && wb > 0.0f) b->position += normal * (depth * wb);
    normal_sum += depth;

    glm::vec3 slip = a.position - a.start_position;
    if (b) slip -= b->position - b->start_position;
    slip -= normal * glm::dot(slip, normal);
    const float len = glm::length(slip);
    if (!(len > 0.0f)) return;
    glm::vec3 fix;
    if (len <= s.static_friction * normal_sum) {
        fix = slip;  // static: the contact sticks, all slip of the step is undone
    } else {
        const float budget = s.dynamic_friction * normal_sum - friction_sum;
        if (!(budget > 0.0f)) return;
        fix = slip * (std::min(budget, len) / len);
    }
    friction_sum += glm::length(fix);
    if (wa > 0.0f) a.position -= fix * wa;
    if (b && wb > 0.0f) b->position += fix * wb;
}

}  // namespace

namespace {

constexpr std::uint32_t kNoIsland = 0xffffffffu;
constexpr std::uint64_t kUntested = ~std::uint64_t(0);

// The box a body can occupy during the step: its OBB stretched along its own axes to cover the motion from the
// start to the predicted position, and grown by `margin`. Corrections move bodies by at most about their
// penetration, which the margin covers as the broadphase's does.
Obb swept_box(const SolverBody& b, float margin) {
    Obb box = b.obb();
    const glm::vec3 motion = b.position - b.start_position;
    box.center = 0.5f * (b.position + b.start_position);
    for (int i = 0; i < 3; ++i) box.half_extents[i] += 0.5f * std::abs(glm::dot(motion, b.axes[i])) + margin;
    return box;
}

// True when `box` lies in `swept`, a box with the same axes (its swept box): the corrections so far kept the body
// within the region its candidates were chosen for. Conservative: a box within a few float round-offs of the boundary
// (4e-6 of the coordinates' magnitude, far more than the rounding of these sums) counts as outside.
bool inside(const Obb& swept, const Obb& box) {
    const glm::vec3 d = box.center - swept.center;
    const float magnitude = std::abs(box.center.x) + std::abs(box.center.y) + std::abs(box.center.z);
    for (int i = 0; i < 3; ++i) {
        const float slack = 4e-6f * (magnitude + swept.half_extents[i]);
        if (!(std::abs(glm::dot(d, swept.axes[i])) + box.half_extents[i] < swept.half_extents[i] - slack)) return false;
    }
    return true;
}


std::uint32_t find_root(std::vector<std::uint32_t>& parent, std::uint32_t x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

}  // namespace

void PositionSolver::build_islands(std::span<const SolverBody> bodies, std::span<const BodyPairRef> pairs,
                                   std::span<const TriangleRef> triangles) {
    // Union-find over dynamic bodies linked by a body pair, culled or not (so the islands, their order and their
    // passes are those of a solver without culling); a contact belongs to the island of its dynamic body. Islands are
    // ranked by their first contact, and each lists its contacts in ascending index.
    const std::size_t contacts = pairs.size() + triangles.size();
    parent_.resize(bodies.size());
    for (std::uint32_t i = 0; i < parent_.size(); ++i) parent_[i] = i;
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        const BodyPairRef& p = pairs[k];
        if (bodies[p.a].dynamic && bodies[p.b].dynamic) {
            const std::uint32_t ra = find_root(parent_, p.a), rb = find_root(parent_, p.b);
            if (ra != rb) parent_[std::max(ra, rb)] = std::min(ra, rb);
        }
    }
    island_of_root_.assign(bodies.size(), kNoIsland);
    contact_island_.assign(contacts, kNoIsland);
    std::uint32_t islands = 0;
    for (std::size_t k = 0; k < contacts; ++k) {
        std::uint32_t body;
        if (k < pairs.size()) {
            const BodyPairRef& p = pairs[k];
            if (!bodies[p.a].dynamic && !bodies[p.b].dynamic) continue;
            body = bodies[p.a].dynamic ? p.a : p.b;
        } else {
            body = triangles[k - pairs.size()].body;
            if (!bodies[body].dynamic) continue;
        }
        const std::uint32_t root = find_root(parent_, body);
        if (island_of_root_[root] == kNoIsland) island_of_root_[root] = islands++;
        contact_island_[k] = island_of_root_[root];
    }
    island_begin_.assign(islands + 1, 0);
    for (std::uint32_t i : contact_island_)
        if (i != kNoIsland) ++island_begin_[i + 1];
    for (std::uint32_t i = 0; i < islands; ++i) island_begin_[i + 1] += island_begin_[i];
    island_contacts_.resize(island_begin_[islands]);
    std::vector<std::uint32_t>& fill = parent_;  // reused as the per-island write cursor
    fill.assign(island_begin_.begin(), island_begin_.end() - 1);
    for (std::uint32_t k = 0; k < contacts; ++k)
        if (contact_island_[k] != kNoIsland) island_contacts_[fill[contact_island_[k]]++] = k;
    island_passes_.assign(islands, 0);
}

int PositionSolver::run_island(std::uint32_t island, std::span<SolverBody> bodies, std::span<const BodyPairRef> pairs,
                               std::span<const TriangleRef> triangles, const SolverSettings& settings) {
    // Two kinds of contact are skipped because testing them would find nothing to correct, so the result is that of
    // testing them: a culled candidate (swept boxes apart) while neither body has been carried out of its swept box,
    // and a contact whose bodies have not moved since it was last tested and found nothing to correct (each body's
    // version counts its moves; a contact keeps the versions it saw).
    auto moved = [&](std::uint32_t i) {
        ++version_[i];
        if (!escaped_[i] && !inside(swept_[i], bodies[i].obb())) escaped_[i] = 1;
    };
    auto versions = [&](std::uint32_t a, std::uint32_t b) {
        return (static_cast<std::uint64_t>(version_[a]) << 32) | version_[b];
    };
    int passes = 0;
    for (int pass = 0; pass < settings.iterations; ++pass) {
        float deepest = 0.0f;
        for (std::uint32_t i = island_begin_[island]; i < island_begin_[island + 1]; ++i) {
            const std::uint32_t k = island_contacts_[i];
            if (k < pairs.size()) {
                const std::uint32_t ia = pairs[k].a, ib = pairs[k].b;
                if (!live_[k] && !escaped_[ia] && !escaped_[ib]) continue;
                if (seen_[k] == versions(ia, ib)) continue;
                SolverBody& a = bodies[ia];
                SolverBody& b = bodies[ib];
                const std::optional<Contact> c = box_contact(a.obb(), a.internal_faces, b.obb(), b.internal_faces);
                if (!c || !(c->depth > 0.0f)) {
                    seen_[k] = versions(ia, ib);
                    continue;
                }
                const float wa = a.dynamic ? (b.dynamic ? 0.5f : 1.0f) : 0.0f;
                correct(a, &b, c->normal, c->depth, wa, 1.0f - wa, normal_sum_[k], friction_sum_[k], settings);
                if (a.dynamic) moved(ia);
                if (b.dynamic) moved(ib);
                normal_[k] = c->normal;
                deepest = std::max(deepest, c->depth);
            } else {
                const TriangleRef& t = triangles[k - pairs.size()];
                if (!live_[k] && !escaped_[t.body]) continue;
                if (seen_[k] == version_[t.body]) continue;
                SolverBody& body = bodies[t.body];
                const std::optional<Contact> c = mesh_contact(body.obb(), t.triangle, body.start_position, t.active_edges);
                if (!c || !(c->depth > 0.0f)) {
                    seen_[k] = version_[t.body];
                    continue;
                }
                correct(body, nullptr, c->normal, c->depth, 1.0f, 0.0f, normal_sum_[k], friction_sum_[k], settings);
                moved(t.body);
                normal_[k] = c->normal;
                deepest = std::max(deepest, c->depth);
            }
        }
        ++passes;
        if (deepest <= settings.tolerance) break;
    }
    return passes;
}

void PositionSolver::solve(std::span<SolverBody> bodies, std::span<const BodyPairRef> pairs,
                           std::span<const TriangleRef> triangles, const SolverSettings& settings, Parallel& parallel) {
    const std::size_t contacts = pairs.size() + triangles.size();
    normal_sum_.assign(contacts, 0.0f);
    friction_sum_.assign(contacts, 0.0f);
    normal_.assign(contacts, glm::vec3(0.0f));
    version_.assign(bodies.size(), 0);
    seen_.assign(contacts, kUntested);

    // Candidates whose swept boxes (motion of the step plus the margin) do not meet cannot touch during the step
    // unless a correction carries a body out of its swept box: one separating-axis test each, and in the passes only
    // a check of two flags, instead of a test per pass. They stay in their islands, so culling changes no result.
    // Body pairs go through the batch test (narrowphase/batch.hpp: several pairs per SIMD instruction, the same
    // answers as overlap()) on the swept boxes also kept as a structure of arrays; triangles one by one.
    swept_.resize(bodies.size());
    swept_batch_.resize(bodies.size());
    parallel.for_each_chunk(bodies.size(), 1024, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            swept_[i] = swept_box(bodies[i], settings.margin);
            swept_batch_.set(i, swept_[i]);  // distinct lanes per chunk: no shared writes
        }
    });
    live_.assign(contacts, 0);
    constexpr std::size_t kCullGrain = 256;
    parallel.for_each_chunk(contacts, kCullGrain, [&](std::size_t begin, std::size_t end) {
        std::uint32_t first[kCullGrain], second[kCullGrain], slot[kCullGrain];
        std::uint8_t meet[kCullGrain];
        std::size_t n = 0;
        for (std::size_t k = begin; k < end; ++k) {
            if (k < pairs.size()) {
                const BodyPairRef& p = pairs[k];
                if (!bodies[p.a].dynamic && !bodies[p.b].dynamic) continue;
                first[n] = p.a;
                second[n] = p.b;
                slot[n++] = static_cast<std::uint32_t>(k);
            } else {
                const TriangleRef& t = triangles[k - pairs.size()];
                live_[k] = bodies[t.body].dynamic && overlap(swept_[t.body], t.triangle);
            }
        }
        overlap(swept_batch_, std::span<const std::uint32_t>(first, n), std::span<const std::uint32_t>(second, n),
                std::span<std::uint8_t>(meet, n));
        for (std::size_t i = 0; i < n; ++i) live_[slot[i]] = meet[i];
    });
    escaped_.assign(bodies.size(), 0);

    build_islands(bodies, pairs, triangles);
    schedule_islands(parallel.threads());
    // Islands share no dynamic body, so they run concurrently, in any order, with the same result as one after the
    // other in index order.
    for_each_island(parallel, [&](std::uint32_t island) {
        island_passes_[island] = run_island(island, bodies, pairs, triangles, settings);
    });
}

void PositionSolver::schedule_islands(int threads) {
    // Largest first, each large island a unit of its own and the small ones grouped up to a fraction of the work
    // per thread: threads take units as they free up (longest processing time first, Graham 1969), so one thread
    // is not left with several of the large islands while the other idles, and the units stay few.
    const auto islands = static_cast<std::uint32_t>(island_passes_.size());
    island_order_.resize(islands);
    for (std::uint32_t i = 0; i < islands; ++i) island_order_[i] = i;
    auto size = [&](std::uint32_t i) { return island_begin_[i + 1] - island_begin_[i]; };
    std::sort(island_order_.begin(), island_order_.end(), [&](std::uint32_t x, std::uint32_t y) {
        return size(x) != size(y) ? size(x) > size(y) : x < y;
    });
    const std::size_t target = std::max<std::size_t>(
        64, island_begin_[islands] / (8 * static_cast<std::size_t>(std::max(threads, 1))));
    unit_begin_.clear();
    std::size_t in_unit = 0;
    for (std::uint32_t o = 0; o < islands; ++o) {
        if (o == 0 || in_unit + size(island_order_[o]) > target) {
            unit_begin_.push_back(o);
            in_unit = 0;
        }
        in_unit += size(island_order_[o]);
    }
    unit_begin_.push_back(islands);
}

template <class F>
void PositionSolver::for_each_island(Parallel& parallel, F&& f) const {
    const std::size_t units = unit_begin_.empty() ? 0 : unit_begin_.size() - 1;
    parallel.for_each_chunk(units, 1, [&](std::size_t first, std::size_t last) {
        for (std::size_t u = first; u < last; ++u)
            for (std::uint32_t o = unit_begin_[u]; o < unit_begin_[u + 1]; ++o) f(island_order_[o]);
    });
}

void PositionSolver::settle_velocities(std::span<const SolverBody> bodies, std::span<glm::vec3> velocities,
                                       std::span<const BodyPairRef> pairs, std::span<const TriangleRef> triangles,
                                       const SolverSettings& settings, Parallel& parallel) const {
    // The change of relative velocity `fix` (applied to B, its opposite to A) that stops the normal motion of a
    // contact and, with the normal change as the impulse, applies Coulomb friction to the tangential motion:
    // all of it when it is below static_friction times the normal change, else dynamic_friction times that.
    auto settle = [&](const glm::vec3& relative, const glm::vec3& n) {
        const float along = glm::dot(relative, n);
        glm::vec3 fix = -n * along;
        const glm::vec3 tangential = relative - n * along;
        const float slide = glm::length(tangential);
        const float impulse = std::abs(along);
        if (slide > 0.0f && impulse > 0.0f) {
            if (slide <= settings.static_friction * impulse)
                fix -= tangential;
            else
                fix -= tangential * (std::min(settings.dynamic_friction * impulse, slide) / slide);
        }
        return fix;
    };
    for_each_island(parallel, [&](std::uint32_t island) {
        for (int pass = 0; pass < island_passes_[island]; ++pass) {
            for (std::uint32_t i = island_begin_[island]; i < island_begin_[island + 1]; ++i) {
                const std::uint32_t k = island_contacts_[i];
                if (!(normal_sum_[k] > 0.0f)) continue;
                if (k < pairs.size()) {
                    const SolverBody& a = bodies[pairs[k].a];
                    const SolverBody& b = bodies[pairs[k].b];
                    glm::vec3& va = velocities[pairs[k].a];
                    glm::vec3& vb = velocities[pairs[k].b];
                    const glm::vec3 fix = settle(vb - va, normal_[k]);
                    const float wa = a.dynamic ? (b.dynamic ? 0.5f : 1.0f) : 0.0f;
                    if (wa > 0.0f) va -= fix * wa;  // bodies with no share are never written: islands run at once
                    if (wa < 1.0f) vb += fix * (1.0f - wa);
                } else {
                    glm::vec3& v = velocities[triangles[k - pairs.size()].body];
                    v -= settle(-v, normal_[k]);  // the triangle is B (at rest), the box A
                }
            }
        }
    });
}

}  // namespace tumble
