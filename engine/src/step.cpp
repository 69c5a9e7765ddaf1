// World::step: the step as named stages over the step context (World::Impl::StepContext, `scratch`). The report and
// sleep stages are in contacts.cpp and sleep.cpp; docs/architecture.md describes each stage and its equations.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <span>

#include <tumble/core/parallel_sort.hpp>
#include <tumble/narrowphase/contact_policy.hpp>

#include "world_impl.hpp"

namespace tumble {
namespace {

// Runs one stage and adds its wall-clock time to `ms`.
template <class F>
void timed(double& ms, F&& stage) {
    const auto start = std::chrono::steady_clock::now();
    stage();
    ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// The same contact seen from the other body: normal reversed, the two points of each pair swapped.
Manifold reversed(Manifold m) {
    m.normal = -m.normal;
    m.reference_is_a = !m.reference_is_a;
    for (int k = 0; k < m.count; ++k) {
        ManifoldPoint& p = m.points[static_cast<std::size_t>(k)];
        std::swap(p.point_a, p.point_b);
        p.id = feature_id(feature_b(p.id), feature_a(p.id));
    }
    return m;
}

// Chunk size of the stages that run per body or per candidate on several threads.
constexpr std::size_t kBodyGrain = 64;
constexpr std::size_t kCandidateGrain = 128;
constexpr std::size_t kCarryGrain = 256;
// update_active_proxies: an entry of a wave whose body's proxy stays.
constexpr ProxyId kNoProxy = 0xffffffffu;

}  // namespace

void World::Impl::step(float dt) {
    scratch.dt = dt;
    stats = {};
    // Kept mesh candidates (broadphase_stage): a still body's unqueried triangles were beyond the margin of its query's
    // step, at least half the broadphase margin plus its fall under gravity in that step's dt, and it has moved less
    // than the reuse distance since. A body whose support goes falls at most |g| dt^2 in this step, so every body's
    // candidates are forgotten once dt^2 exceeds the shortest dt^2 since they were last forgotten by more than what
    // half the margin less the reuse distance covers (a variable dt within that keeps them).
    // Nothing is kept without a reuse distance (set_settings forgets the candidates when it changes).
    if (const float reuse = reuse_distance(); reuse > 0.0f) {
        const float slack = 0.5f * state.settings.broadphase_margin - reuse;
        const float gravity = glm::length(state.settings.gravity);
        const float reach = slack < 0.0f     ? -1.0f
                            : gravity > 0.0f ? slack / gravity
                                             : std::numeric_limits<float>::infinity();
        if (state.candidate_dt > 0.0f && !(dt * dt <= state.candidate_dt * state.candidate_dt + reach))
            forget_mesh_candidates();
        state.candidate_dt = state.candidate_dt > 0.0f ? std::min(state.candidate_dt, dt) : dt;
    }
    timed(stats.step_ms, [&] {
        timed(stats.integrate_ms, [&] { integrate_stage(); });
        timed(stats.broadphase_ms, [&] { broadphase_stage(); });
        timed(stats.narrowphase_ms, [&] { narrowphase_stage(); });
        timed(stats.solve_ms, [&] { solve_stage(); });
        timed(stats.velocities_ms, [&] { velocities_stage(); });
        timed(stats.report_ms, [&] { report_stage(); });
        timed(stats.sleep_ms, [&] { sleep_stage(); });
    });
}

// Stage 1. The awake set in creation order (deterministic whatever the order bodies woke in and whichever slots they
// have), each awake body's solver state, and its predicted motion over the step: the broadphase box and the
// speculative margin must cover it.
void World::Impl::integrate_stage() {
    ++scratch.stamp;
    std::erase_if(state.awake,
                  [&](std::uint32_t slot) { return !state.bodies[slot].alive || !state.bodies[slot].awake; });
    // The list is last step's sorted list (minus the bodies that fell asleep) followed by the bodies woken since:
    // sorting only that tail and merging costs far less than sorting it all, with the same result.
    const auto by_sequence = [&](std::uint32_t x, std::uint32_t y) { return created_before(x, y); };
    const auto unsorted = std::is_sorted_until(state.awake.begin(), state.awake.end(), by_sequence);
    if (unsorted != state.awake.end()) {
        std::sort(unsorted, state.awake.end(), by_sequence);
        scratch.awake_merge.resize(state.awake.size());
        std::merge(state.awake.begin(), unsorted, unsorted, state.awake.end(), scratch.awake_merge.begin(),
                   by_sequence);
        state.awake.swap(scratch.awake_merge);
    }
    state.awake.erase(std::unique(state.awake.begin(), state.awake.end()), state.awake.end());
    const auto n = static_cast<std::uint32_t>(state.awake.size());
    scratch.awake_count = n;

    const float dt = scratch.dt;
    scratch.solver_bodies.resize(n);
    scratch.solver_slot.assign(state.awake.begin(), state.awake.end());
    scratch.end_center.resize(n);
    scratch.end_orientation.resize(n);
    // Bodies apart on the threads: each writes only its own entries (k, and its slot's).
    parallel().for_each_chunk(n, kBodyGrain, [&](std::size_t chunk_begin, std::size_t chunk_end) {
        for (auto k = static_cast<std::uint32_t>(chunk_begin); k < chunk_end; ++k) {
            const Body& b = state.bodies[state.awake[k]];
            TUMBLE_ASSERT(b.alive && b.awake && proxy_in_sync(state.awake[k]));
            SolverBody& s = scratch.solver_bodies[k];
            s = solver_body_of(b);
            // Predicted motion: x + v dt + a dt^2 bounds the substeps' semi-implicit Euler path (which ends at
            // x + v dt + a dt^2 (n + 1) / 2n); the rotation by (|w| + |I^-1 tau| dt) dt.
            glm::vec3 displacement = s.velocity * dt;
            float angle = glm::length(s.angular_velocity) * dt;
            if (s.motion == Motion::dynamic) {
                displacement += (state.settings.gravity + s.force * s.inverse_mass) * (dt * dt);
                const float spin_up = std::max({s.inverse_inertia.x, s.inverse_inertia.y, s.inverse_inertia.z}) *
                                      glm::length(s.torque) * dt;
                angle += spin_up * dt;
            }
            glm::quat turned = b.orientation;
            if (glm::length(s.angular_velocity) > 0.0f && angle > 0.0f)
                turned = glm::normalize(
                    glm::angleAxis(std::min(angle, 3.14159265f), glm::normalize(s.angular_velocity)) * b.orientation);
            scratch.end_center[k] = b.position + displacement;
            scratch.end_orientation[k] = turned;
            scratch.solver_stamp[state.awake[k]] = scratch.stamp;
            scratch.solver_index[state.awake[k]] = k;
        }
    });
}

void World::Impl::update_active_proxies(std::uint32_t count, FunctionRef<bool(std::uint32_t, Aabb&)> box_of) {
    if (parallel().threads() == 1) {  // the batch's passes only pay on several threads; the same result
        Aabb box;
        for (std::uint32_t k = 0; k < count; ++k)
            if (box_of(k, box)) state.active.update(state.bodies[state.awake[k]].proxy, box);
        return;
    }
    constexpr std::uint32_t kWave = 4096;
    for (std::uint32_t first = 0; first < count; first += kWave) {
        const std::uint32_t size = std::min(count - first, kWave);
        scratch.proxy_ids.resize(size);
        scratch.proxy_boxes.resize(size);
        // Bodies whose proxy stays get no entry: each chunk's entries are packed at its start, then the chunks'
        // entries are packed in chunk order.
        parallel().for_each_chunk(size, kBodyGrain, [&](std::size_t begin, std::size_t end) {
            std::size_t to = begin;
            for (std::size_t i = begin; i < end; ++i) {
                const std::uint32_t k = first + static_cast<std::uint32_t>(i);
                if (box_of(k, scratch.proxy_boxes[to])) scratch.proxy_ids[to++] = state.bodies[state.awake[k]].proxy;
            }
            for (std::size_t i = to; i < end; ++i) scratch.proxy_ids[i] = kNoProxy;
        });
        std::size_t kept = 0;
        for (std::size_t i = 0; i < size; ++i) {
            if (scratch.proxy_ids[i] == kNoProxy) continue;
            scratch.proxy_ids[kept] = scratch.proxy_ids[i];
            scratch.proxy_boxes[kept++] = scratch.proxy_boxes[i];
        }
        state.active.update(std::span<const ProxyId>(scratch.proxy_ids.data(), kept),
                            std::span<const Aabb>(scratch.proxy_boxes.data(), kept), parallel());
    }
}

// Stage 2. Awake proxies cover the start and predicted end boxes, plus the margin and the bulge of a turning or
// accelerating path between them; pairs among them come from the active octree, pairs with resting bodies from
// querying the resting octree, and each awake dynamic body queries every mesh's BVH. Layers and sensors are sorted
// out here, before the narrowphase.
void World::Impl::broadphase_stage() {
    const auto n = static_cast<std::uint32_t>(scratch.awake_count);
    const float dt = scratch.dt;
    update_active_proxies(n, [&](std::uint32_t k, Aabb& box) {
        const SolverBody& s = scratch.solver_bodies[k];
        const float radius = glm::length(half_extents_of(k));
        const float angle = glm::length(s.angular_velocity) * dt;
        float bulge = radius * std::min(angle * angle / 8.0f, 1.0f);  // arc beyond its chord, r (1 - cos(a / 2))
        if (s.motion == Motion::dynamic)
            bulge += glm::length(state.settings.gravity + s.force * s.inverse_mass) * dt * dt / 8.0f;
        box = start_box(k).aabb().merged(end_box(k).aabb()).expanded(state.settings.broadphase_margin + bulge);
        return true;
    });
    scratch.candidate_pairs.clear();
    scratch.sensor_pairs.clear();
    auto consider = [&](std::uint32_t x, std::uint32_t y, std::vector<KeyedPair>& candidates,
                        std::vector<SlotPair>& sensors) {
        const Body& bx = state.bodies[x];
        const Body& by = state.bodies[y];
        if (!layers_collide(bx.layer, bx.mask, by.layer, by.mask)) return;
        const bool x_first = bx.sequence < by.sequence;  // created_before(x, y)
        const SlotPair pair = x_first ? SlotPair{x, y} : SlotPair{y, x};
        if (bx.sensor || by.sensor) {
            // A sensor detects dynamic and kinematic bodies, not static bodies or other sensors.
            const Body& other = bx.sensor ? by : bx;
            if (!(bx.sensor && by.sensor) && (other.dynamic() || other.kinematic)) sensors.push_back(pair);
            return;
        }
        // Static-static and kinematic-static pairs never need a test; an awake kinematic body against a sleeping one
        // is kept so that the contact wakes it.
        if (!bx.dynamic() && !by.dynamic()) return;
        candidates.push_back(x_first ? KeyedPair{bx.sequence, by.sequence, pair}
                                     : KeyedPair{by.sequence, bx.sequence, pair});
    };
    Parallel& par = parallel();
    scratch.proxy_pairs.clear();
    state.active.find_pairs(scratch.proxy_pairs, par);
    for (const ProxyPair& p : scratch.proxy_pairs) {
        const auto x = static_cast<std::uint32_t>(state.active.user_data(p.a));
        const auto y = static_cast<std::uint32_t>(state.active.user_data(p.b));
        TUMBLE_ASSERT(proxy_in_sync(x) && state.bodies[x].awake && state.bodies[x].proxy == p.a);
        TUMBLE_ASSERT(proxy_in_sync(y) && state.bodies[y].awake && state.bodies[y].proxy == p.b);
        consider(x, y, scratch.candidate_pairs, scratch.sensor_pairs);
    }
    // The per-body passes below run in chunks of kBodyGrain bodies on the threads, a wave of chunks at a time; each
    // chunk fills a chunk scratch, and after the wave the scratches are appended in chunk order. Only one wave's
    // results are held twice, not the whole step's.
    const std::size_t wave_chunks = std::max<std::size_t>(32, 8 * static_cast<std::size_t>(par.threads()));
    if (scratch.chunk_scratch.size() < std::min(wave_chunks, chunk_count(n, kBodyGrain)))
        scratch.chunk_scratch.resize(std::min(wave_chunks, chunk_count(n, kBodyGrain)));
    // merge(chunk scratches of the wave, bodies done so far).
    auto in_waves = [&](auto&& fill, auto&& merge) {
        for (std::size_t first = 0; first < n; first += wave_chunks * kBodyGrain) {
            const std::size_t count = std::min<std::size_t>(n - first, wave_chunks * kBodyGrain);
            par.for_each_chunk(count, kBodyGrain, [&](std::size_t begin, std::size_t end) {
                fill(scratch.chunk_scratch[begin / kBodyGrain], first + begin, first + end);
            });
            merge(std::span(scratch.chunk_scratch.data(), chunk_count(count, kBodyGrain)), first + count);
        }
    };
    // Appends the chunks' lists `of` to `to`, making room for what the bodies done so far project.
    auto append = [&](auto& to, std::span<const StepContext::ChunkScratch> chunks, std::size_t done, auto of) {
        std::size_t need = to.size();
        for (const StepContext::ChunkScratch& c : chunks) need += (c.*of).size();
        reserve_projected(to, need, done, n);
        for (const StepContext::ChunkScratch& c : chunks) to.insert(to.end(), (c.*of).begin(), (c.*of).end());
    };
    // Kept candidates. A still dynamic body, one that has moved less than the reuse distance since its last query
    // (Body::candidate_drift), counting how far its velocities and the API's push carry it in this step, queries
    // neither the resting octree nor the meshes: its candidates are the resting bodies and triangles of its
    // manifolds of the last step (the contact cache). What that query found without a manifold was beyond the
    // speculative margin (half the broadphase margin at least) then; it has not moved the distance since, and
    // resting bodies do not move (one that comes to rest near it, or that the API changes, makes it query again:
    // forget_candidates_near). The idea is Box2D v3's: a pair found once is kept while its bodies stay within their
    // enlarged boxes. A pair with a resting body that is near (within the margin, report_stage) but has no manifold
    // is seen again, and wakes that body's island, once the still body's drift reaches the distance and it queries.
    const ContactCache& cache = state.contact_cache;
    const float reuse = reuse_distance();
    // How far the force and torque the API applied for this step can move body k's farthest point in it (gravity,
    // constant since the query, is in the margin the query's step tested with).
    auto pushed = [&](std::uint32_t k) {
        const SolverBody& s = scratch.solver_bodies[k];
        const float spin_up = std::max({s.inverse_inertia.x, s.inverse_inertia.y, s.inverse_inertia.z}) *
                              glm::length(s.torque) * glm::length(half_extents_of(k));
        return (glm::length(s.force) * s.inverse_mass + spin_up) * scratch.dt * scratch.dt;
    };
    auto still = [&](std::uint32_t k, const Body& b) {
        return reuse > 0.0f && b.dynamic() && !b.sensor && b.candidate_drift + coast_of(k) + pushed(k) < reuse &&
               may_keep(k);
    };
    scratch.candidates_queried.assign(n, 1);
    // Pairs with resting bodies: one query per awake body that is not still.
    in_waves(
        [&](StepContext::ChunkScratch& c, std::size_t begin, std::size_t end) {
            c.candidates.clear();
            c.sensors.clear();
            for (std::size_t k = begin; k < end; ++k) {
                const Body& b = state.bodies[state.awake[k]];
                if (still(static_cast<std::uint32_t>(k), b)) {
                    scratch.candidates_queried[k] = 0;
                    continue;
                }
                c.proxies.clear();
                state.resting.query(state.active.aabb(b.proxy), c.proxies);
                for (ProxyId p : c.proxies) {
                    const auto slot = static_cast<std::uint32_t>(state.resting.user_data(p));
                    TUMBLE_ASSERT(proxy_in_sync(slot) && !state.bodies[slot].awake && state.bodies[slot].proxy == p);
                    if (state.bodies[slot].sensor) scratch.candidates_queried[k] = 2;
                    consider(state.awake[k], slot, c.candidates, c.sensors);
                }
            }
        },
        [&](std::span<const StepContext::ChunkScratch> chunks, std::size_t done) {
            append(scratch.candidate_pairs, chunks, done, &StepContext::ChunkScratch::candidates);
            append(scratch.sensor_pairs, chunks, done, &StepContext::ChunkScratch::sensors);
        });
    // The still bodies' kept pairs with resting bodies: the cache's body pairs of a still body and a body that is
    // not awake, both still alive in their slots (the sort below puts them in order).
    std::uint32_t still_bodies = 0;
    for (std::uint32_t k = 0; k < n; ++k) still_bodies += scratch.candidates_queried[k] == 0 ? 1 : 0;
    if (still_bodies > 0) {
        TUMBLE_ASSERT(cache.pair_slots.size() == cache.pairs);
        auto is = [&](std::uint32_t slot, std::uint64_t sequence) {
            return slot < state.bodies.size() && state.bodies[slot].alive && state.bodies[slot].sequence == sequence;
        };
        auto kept_by = [&](std::uint32_t slot) {
            return scratch.solver_stamp[slot] == scratch.stamp && scratch.solver_index[slot] < n &&
                   scratch.candidates_queried[scratch.solver_index[slot]] == 0;
        };
        for (std::size_t i = 0; i < cache.pairs; ++i) {
            const SlotPair& p = cache.pair_slots[i];
            if (!is(p.a, cache.keys[i].a) || !is(p.b, cache.keys[i].b)) continue;
            const Body& a = state.bodies[p.a];
            const Body& b = state.bodies[p.b];
            if ((a.awake && kept_by(p.a) && !b.awake) || (b.awake && kept_by(p.b) && !a.awake))
                consider(p.a, p.b, scratch.candidate_pairs, scratch.sensor_pairs);
        }
    }
    // Deterministic processing order, independent of the octrees' internal layout and of which slots earlier
    // destroy_body calls freed: pairs are sorted by the creation sequence of their bodies, not by slot.
    auto by_creation = [&](const SlotPair& x, const SlotPair& y) {
        return x.a != y.a ? created_before(x.a, y.a) : created_before(x.b, y.b);
    };
    // Pairs are distinct, so their order is unique; parallel_sort spreads it over the threads. Candidates carry their
    // bodies' sequences (KeyedPair), so that sorting them reads no body: the order by_creation gives.
    parallel_sort(scratch.candidate_pairs, scratch.pair_sort, std::less<>(), par);
    std::sort(scratch.sensor_pairs.begin(), scratch.sensor_pairs.end(), by_creation);
    scratch.mesh_order.clear();
    for (std::uint32_t m = 0; m < state.meshes.size(); ++m)
        if (state.meshes[m].alive) scratch.mesh_order.push_back(m);
    std::sort(scratch.mesh_order.begin(), scratch.mesh_order.end(),
              [&](std::uint32_t x, std::uint32_t y) { return state.meshes[x].sequence < state.meshes[y].sequence; });
    scratch.body_pairs.clear();
    for (const KeyedPair& p : scratch.candidate_pairs)
        scratch.body_pairs.push_back({solver_index_of(p.pair.a), solver_index_of(p.pair.b)});

    // Mesh candidates: each awake dynamic body queries every mesh's BVH, unless it is still (above): then its
    // candidates are the triangles of its manifolds of the last step (the contact cache's triangle part, in the order
    // a query gives: by mesh sequence, then triangle).
    // The mesh slot of a mesh sequence (kNone: no live mesh has it).
    auto mesh_of = [&](std::uint64_t sequence) {
        const auto at =
            std::lower_bound(scratch.mesh_order.begin(), scratch.mesh_order.end(), sequence,
                             [&](std::uint32_t m, std::uint64_t s) { return state.meshes[m].sequence < s; });
        return at != scratch.mesh_order.end() && state.meshes[*at].sequence == sequence ? *at : kNone;
    };
    // Still body k's kept triangle candidates into `out`.
    auto keep_candidates = [&](std::uint32_t k, const Body& b, std::vector<TriangleCandidate>& out) {
        const auto triangles = std::span(cache.keys).subspan(cache.pairs);
        auto at = std::lower_bound(triangles.begin(), triangles.end(), ManifoldKey{b.sequence, 0, 0});
        for (; at != triangles.end() && at->a == b.sequence; ++at) {
            const std::uint32_t m = mesh_of(at->b);
            if (m == kNone || !layers_collide(b.layer, b.mask, state.meshes[m].layer, state.meshes[m].mask)) continue;
            push_back_grown(out, triangle_candidate(k, m, at->triangle));
        }
    };
    scratch.triangle_candidates.clear();
    in_waves(
        [&](StepContext::ChunkScratch& c, std::size_t begin, std::size_t end) {
            c.triangles.clear();
            for (std::size_t k = begin; k < end; ++k) {
                const Body& b = state.bodies[state.awake[k]];
                if (!b.dynamic() || b.sensor) continue;
                if (scratch.candidates_queried[k] == 0) {
                    keep_candidates(static_cast<std::uint32_t>(k), b, c.triangles);
                    continue;
                }
                const Aabb box = state.active.aabb(b.proxy);
                for (std::uint32_t m : scratch.mesh_order) {
                    if (!layers_collide(b.layer, b.mask, state.meshes[m].layer, state.meshes[m].mask)) continue;
                    c.found.clear();
                    state.meshes[m].index.query(box, c.found);
                    std::sort(c.found.begin(), c.found.end());
                    for (std::uint32_t t : c.found)
                        push_back_grown(c.triangles, triangle_candidate(static_cast<std::uint32_t>(k), m, t));
                }
            }
        },
        [&](std::span<const StepContext::ChunkScratch> chunks, std::size_t done) {
            append(scratch.triangle_candidates, chunks, done, &StepContext::ChunkScratch::triangles);
        });
    stats.body_pairs = scratch.body_pairs.size();
    stats.triangle_pairs = scratch.triangle_candidates.size();
    stats.kept_candidate_bodies = still_bodies;
}

namespace {
// Step body i's pose at the start of the step, where its manifolds are found (kStaticGeometry: the world frame).
void start_pose(const std::vector<SolverBody>& bodies, std::uint32_t i, glm::vec3& x, glm::quat& q) {
    x = glm::vec3(0.0f);
    q = glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
    if (i == kStaticGeometry) return;
    x = bodies[i].position;
    q = bodies[i].orientation;
}
// The gap point c starts the step from along the unit `normal`, its anchors taken at the poses (xa, qa) and (xb, qb)
// (B static: world frame), and its friction anchors: the point of A and the point of B across the gap from it along
// the normal, which coincide along the surface (slip is measured from there).
void set_gap(ContactPoint& c, const glm::vec3& xa, const glm::quat& qa, const glm::vec3& xb, const glm::quat& qb,
             bool b_static, const glm::vec3& normal) {
    const glm::vec3 pa = xa + qa * c.anchor_a, pb = b_static ? c.anchor_b : xb + qb * c.anchor_b;
    c.separation = glm::dot(pb - pa, normal);
    c.friction_anchor_a = c.anchor_a;
    const glm::vec3 across = pa + c.separation * normal;
    c.friction_anchor_b = b_static ? across : glm::conjugate(qb) * (across - xb);
}
}  // namespace

ContactManifold World::Impl::to_solver(const Manifold& m, std::uint32_t a, std::uint32_t b, float friction,
                                       float restitution, ContactSides* face) const {
    ContactManifold out;
    out.a = a;
    out.b = b;
    out.normal = glm::normalize(m.normal);
    out.friction = friction;
    out.restitution = restitution;
    out.count = m.count;
    out.axis = m.axis;
    out.negative = m.negative;
    glm::vec3 xa, xb;
    glm::quat qa, qb;
    start_pose(scratch.solver_bodies, a, xa, qa);
    start_pose(scratch.solver_bodies, b, xb, qb);
    if (face) {
        face->count = static_cast<std::uint8_t>(m.sides);
        face->reference_is_a = m.reference_is_a;
        const glm::vec3 xr = m.reference_is_a ? xa : xb;
        const glm::quat qr = m.reference_is_a ? qa : qb;
        for (int k = 0; k < m.sides; ++k) {
            const glm::vec3 n = m.side_normal[static_cast<std::size_t>(k)];
            face->planes[static_cast<std::size_t>(k)] =
                glm::vec4(glm::conjugate(qr) * n, m.side_offset[static_cast<std::size_t>(k)] - glm::dot(n, xr));
        }
    }
    // Static geometry's frame is the world frame: its points are their own anchors. Turning them by the identity
    // quaternion, as for a body, adds only zeros, so taking them as they are saves three of the five rotations of a
    // mesh contact's point and changes nothing but, at most, the sign of a zero coordinate.
    const bool b_static = b == kStaticGeometry;
    for (int k = 0; k < m.count; ++k) {
        const ManifoldPoint& p = m.points[static_cast<std::size_t>(k)];
        ContactPoint& c = out.points[static_cast<std::size_t>(k)];
        c.anchor_a = glm::conjugate(qa) * (p.point_a - xa);
        c.anchor_b = b_static ? p.point_b : glm::conjugate(qb) * (p.point_b - xb);
        set_gap(c, xa, qa, xb, qb, b_static, out.normal);
        c.id = p.id;
    }
    return out;
}

ContactManifold World::Impl::kept_manifold(const CarriedManifold& kept, std::uint32_t a, std::uint32_t b,
                                           float friction, float restitution) const {
    ContactManifold out;
    out.a = a;
    out.b = b;
    out.normal = kept.normal;
    out.friction = friction;
    out.restitution = restitution;
    out.count = kept.count;
    out.axis = kept.axis;
    out.negative = (kept.keep & kNegative) != 0;
    glm::vec3 xa, xb;
    glm::quat qa, qb;
    start_pose(scratch.solver_bodies, a, xa, qa);
    start_pose(scratch.solver_bodies, b, xb, qb);
    // A carried point's friction anchors are its anchors as to_solver made them (or, where it stuck, where it stuck,
    // within kStickDistance of them along the surface): the two points across the gap it was found with.
    for (int k = 0; k < kept.count; ++k) {
        const CarriedPoint& p = kept.points[static_cast<std::size_t>(k)];
        ContactPoint& c = out.points[static_cast<std::size_t>(k)];
        c.anchor_a = p.friction_anchor_a;
        c.anchor_b = p.friction_anchor_b;
        set_gap(c, xa, qa, xb, qb, b == kStaticGeometry, out.normal);
        c.id = p.id;
    }
    return out;
}

float World::Impl::reuse_distance() const {
    return state.settings.solver.method == SolverMethod::soft_step ? state.settings.manifold_reuse_distance : 0.0f;
}

World::Impl::TriangleCandidate World::Impl::triangle_candidate(std::uint32_t k, std::uint32_t mesh,
                                                               std::uint32_t triangle) const {
    const EdgeFlags edges =
        state.settings.active_edges_only ? state.meshes[mesh].active_edges[triangle] : kAllEdgesActive;
    return {k, mesh, triangle, edges};
}

float World::Impl::coast_of(std::uint32_t k) const {
    const SolverBody& s = scratch.solver_bodies[k];
    return (glm::length(s.velocity) + glm::length(s.angular_velocity) * glm::length(half_extents_of(k))) * scratch.dt;
}

bool World::Impl::may_keep(std::uint32_t k) const {
    return !state.bodies[scratch.solver_slot[k]].moved_by_api && !swept_for_ccd(k);
}

void World::Impl::forget_mesh_candidates() {
    for (Body& b : state.bodies) b.candidate_drift = std::numeric_limits<float>::infinity();
    state.candidate_dt = 0.0f;
}

void World::Impl::forget_candidates_near(const Aabb& box) {
    if (reuse_distance() <= 0.0f || state.active.size() == 0) return;
    scratch.query_proxies.clear();
    state.active.query(box.expanded(state.settings.broadphase_margin), scratch.query_proxies);
    for (ProxyId p : scratch.query_proxies)
        state.bodies[static_cast<std::uint32_t>(state.active.user_data(p))].candidate_drift =
            std::numeric_limits<float>::infinity();
}

glm::vec3 World::Impl::solved_displacement(std::uint32_t k) const {
    return scratch.solver_bodies[k].position - state.bodies[scratch.solver_slot[k]].position;
}

float World::Impl::solved_turn(std::uint32_t k) const {
    const Body& start = state.bodies[scratch.solver_slot[k]];
    const glm::quat turn = scratch.solver_bodies[k].orientation * glm::conjugate(start.orientation);
    const float angle = 2.0f * std::atan2(glm::length(glm::vec3(turn.x, turn.y, turn.z)), std::abs(turn.w));
    return angle * glm::length(start.half_extents);
}

// Stage 3. One manifold per candidate whose shapes are within the speculative margin at the start of the step: the
// broadphase margin plus how far the two bodies' points can move in the step (their predicted motion). Contacts of
// a fast CCD body with static geometry are taken at the time of impact of its motion instead (ccd.cpp). Candidates
// run in chunks on several threads; the manifolds are gathered in candidate order.
void World::Impl::narrowphase_stage() {
    const std::size_t pairs = scratch.body_pairs.size(), total = pairs + scratch.triangle_candidates.size();
    std::size_t sweeps = 0;
    for (std::uint32_t k = 0; k < scratch.awake_count; ++k) sweeps += swept_for_ccd(k) ? 1 : 0;
    // How far a body's points can move in the step (resting bodies: 0), for the speculative margin of body pairs.
    auto margin_of = [&](std::uint32_t k) {
        const float radius = glm::length(half_extents_of(k));
        const glm::vec3 moved = scratch.end_center[k] - start_center(k);
        const glm::quat turn = scratch.end_orientation[k] * glm::conjugate(scratch.solver_bodies[k].orientation);
        const float angle = 2.0f * std::acos(std::min(1.0f, std::abs(turn.w)));
        return 0.5f * state.settings.broadphase_margin + glm::length(moved) + radius * std::min(angle, 2.0f);
    };
    stats.ccd_sweeps = sweeps;
    scratch.swept_bodies = sweeps;
    // Each step body's margin once, not once per candidate (a body has many): the same floats.
    const std::size_t step_bodies = scratch.solver_bodies.size();
    scratch.body_distance.resize(step_bodies);
    parallel().for_each_chunk(step_bodies, 512, [&](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k) scratch.body_distance[k] = margin_of(static_cast<std::uint32_t>(k));
    });
    const float* const margin = scratch.body_distance.data();
    // The start box of the step body a chunk of candidates last asked for: candidates come sorted by their first body,
    // so most ask for the box of the one before, and its axes (from the orientation) are not worked out again.
    struct LastBox {
        std::uint32_t body = std::numeric_limits<std::uint32_t>::max();
        Obb box;
        // Where the chunk's last look-up of a kept manifold ended in the contact cache, and in which part (body pairs
        // 0, triangles 1; 2: none yet): candidates come in key order within each part, so the next starts there.
        std::size_t cached = 0;
        int part = 2;
    };
    auto box_of = [&](std::uint32_t k, LastBox& last) -> const Obb& {
        if (last.body != k) {
            last.box = start_box(k);
            last.body = k;
        }
        return last.box;
    };
    // Kept manifolds (soft step; WorldSettings::manifold_reuse_distance): the last step's manifold of the pair with
    // `key` in the contact cache, if it may be taken again as it is: it is keepable, and its bodies' motion since it
    // was found plus `coast`, how far their velocities at the start of the step carry them in it, stays under the
    // distance. (Without the second part, a resting body struck hard would keep a manifold that lacks the points its
    // motion brings within reach.)
    const ContactCache& cache = state.contact_cache;
    const float reuse = reuse_distance();
    auto kept_of = [&](const ManifoldKey& key, int part, float coast, LastBox& last) -> const CarriedManifold* {
        const std::size_t begin = part == 0 ? 0 : cache.pairs, end = part == 0 ? cache.pairs : cache.keys.size();
        std::size_t j = last.cached;
        if (last.part != part)
            j = static_cast<std::size_t>(std::lower_bound(cache.keys.begin() + static_cast<std::ptrdiff_t>(begin),
                                                          cache.keys.begin() + static_cast<std::ptrdiff_t>(end), key) -
                                         cache.keys.begin());
        while (j < end && cache.keys[j] < key) ++j;
        last.cached = j;
        last.part = part;
        if (j == end || cache.keys[j] != key) return nullptr;
        const CarriedManifold& m = cache.manifolds[j];
        return (m.keep & kKeepable) && m.drift + coast < reuse ? &m : nullptr;
    };
    // The same for a body pair, its translation taken relative: a pair that moves together keeps its manifold (the
    // points' anchors are in the bodies' frames and the gaps are worked out anew; the normal, in the world frame, is
    // kept, so each body's turn counts whole).
    auto pair_coast_of = [&](std::uint32_t a, std::uint32_t b) {
        const SolverBody& sa = scratch.solver_bodies[a];
        const SolverBody& sb = scratch.solver_bodies[b];
        return (glm::length(sb.velocity - sa.velocity) +
                (glm::length(sa.angular_velocity) * glm::length(half_extents_of(a)) +
                 glm::length(sb.angular_velocity) * glm::length(half_extents_of(b)))) *
               scratch.dt;
    };
    // Candidate k's manifold, if it has one, into `out` (returns 0 if it has none, 1 if found, 2 if kept; a kept
    // one's drift into `drift`).
    auto find = [&](std::size_t k, ContactManifold& out, ContactSides* face, LastBox& last,
                    float& drift) -> std::uint8_t {
        float toi = 2.0f;  // time of impact of a swept body, as a fraction of the step (> 1: none)
        drift = 0.0f;
        if (k < pairs) {
            const BodyPair& p = scratch.body_pairs[k];
            const Body& A = state.bodies[scratch.solver_slot[p.a]];
            const Body& B = state.bodies[scratch.solver_slot[p.b]];
            if (reuse > 0.0f && may_keep(p.a) && may_keep(p.b))
                if (const CarriedManifold* kept =
                        kept_of({A.sequence, B.sequence, 0}, 0, pair_coast_of(p.a, p.b), last)) {
                    out = kept_manifold(*kept, p.a, p.b, combined_friction(A.friction, B.friction),
                                        combined_restitution(A.restitution, B.restitution));
                    drift = kept->drift;
                    return 2;
                }
            const FaceFlags fa = state.settings.active_edges_only ? A.internal_faces : FaceFlags{0};
            const FaceFlags fb = state.settings.active_edges_only ? B.internal_faces : FaceFlags{0};
            std::optional<Manifold> m;
            if (scratch.solver_bodies[p.b].motion == Motion::fixed && swept_for_ccd(p.a))
                m = impact_manifold(p.a, start_box(p.b), toi);
            else if (scratch.solver_bodies[p.a].motion == Motion::fixed && swept_for_ccd(p.b)) {
                m = impact_manifold(p.b, start_box(p.a), toi);
                if (m) m = reversed(*m);
            }
            if (!m) m = box_manifold(box_of(p.a, last), fa, start_box(p.b), fb, margin[p.a] + margin[p.b]);
            if (!m) return 0;
            out = to_solver(*m, p.a, p.b, combined_friction(A.friction, B.friction),
                            combined_restitution(A.restitution, B.restitution), face);
        } else {
            const TriangleCandidate& t = scratch.triangle_candidates[k - pairs];
            const Body& A = state.bodies[scratch.solver_slot[t.body]];
            const Mesh& mesh = state.meshes[t.mesh];
            const MeshMaterial& material = mesh.material;
            if (reuse > 0.0f && may_keep(t.body))
                if (const CarriedManifold* kept =
                        kept_of({A.sequence, mesh.sequence, t.triangle}, 1, coast_of(t.body), last)) {
                    out =
                        kept_manifold(*kept, t.body, kStaticGeometry, combined_friction(A.friction, material.friction),
                                      combined_restitution(A.restitution, material.restitution));
                    drift = kept->drift;
                    return 2;
                }
            std::optional<Manifold> m;
            if (swept_for_ccd(t.body)) m = impact_manifold(t.body, shape_of(t), t.active_edges, toi);
            if (!m)
                m = mesh_manifold(box_of(t.body, last), shape_of(t), start_center(t.body), t.active_edges,
                                  margin[t.body]);
            if (!m) return 0;
            out = to_solver(*m, t.body, kStaticGeometry, combined_friction(A.friction, material.friction),
                            combined_restitution(A.restitution, material.restitution), face);
        }
        out.impact = toi <= 1.0f;
        return 1;
    };
    scratch.manifolds.clear();
    scratch.manifold_sides.clear();
    scratch.manifold_candidate.clear();
    scratch.manifold_drift.clear();
    scratch.manifold_pairs = 0;
    std::size_t points = 0, kept = 0;
    // Only XPBD reads the reference faces (ContactSides); the soft step holds none.
    const bool faces = state.settings.solver.method == SolverMethod::xpbd;
    // Candidates run in waves of a few thousand, in chunks on several threads: candidate first + i of a wave writes
    // slot i of the wave's buffer (candidate_found[i] = 1 when it has a manifold), and after the wave the manifolds
    // found are appended in candidate order. The step holds the manifolds found and one wave's slots, not a slot for
    // every candidate (a box has many candidate triangles and few manifolds). Waves change no result.
    const std::size_t wave =
        std::max<std::size_t>(2048, 4 * kCandidateGrain * static_cast<std::size_t>(parallel().threads()));
    for (std::size_t first = 0; first < total; first += wave) {
        const std::size_t last = std::min(total, first + wave);
        scratch.wave_manifolds.resize(last - first);
        if (faces) scratch.wave_sides.resize(last - first);
        if (reuse > 0.0f) scratch.wave_drift.resize(last - first);
        scratch.candidate_found.assign(last - first, 0);
        parallel().for_each_chunk(last - first, kCandidateGrain, [&](std::size_t begin, std::size_t end) {
            LastBox box;
            float drift = 0.0f;
            for (std::size_t i = begin; i < end; ++i) {
                scratch.candidate_found[i] =
                    find(first + i, scratch.wave_manifolds[i], faces ? &scratch.wave_sides[i] : nullptr, box, drift);
                if (reuse > 0.0f) scratch.wave_drift[i] = drift;
            }
        });
        std::size_t found = 0;
        for (std::size_t i = 0; i < last - first; ++i) found += scratch.candidate_found[i] != 0 ? 1 : 0;
        reserve_projected(scratch.manifolds, scratch.manifolds.size() + found, last, total);
        if (faces) reserve_projected(scratch.manifold_sides, scratch.manifold_sides.size() + found, last, total);
        if (reuse > 0.0f) reserve_projected(scratch.manifold_drift, scratch.manifold_drift.size() + found, last, total);
        for (std::size_t i = 0; i < last - first; ++i) {
            if (!scratch.candidate_found[i]) continue;
            const std::size_t k = first + i;
            scratch.manifolds.push_back(scratch.wave_manifolds[i]);
            if (faces) scratch.manifold_sides.push_back(scratch.wave_sides[i]);
            if (reuse > 0.0f) scratch.manifold_drift.push_back(scratch.wave_drift[i]);
            kept += scratch.candidate_found[i] == 2 ? 1 : 0;
            if (k < pairs) ++scratch.manifold_pairs;
            push_back_grown(scratch.manifold_candidate, static_cast<std::uint32_t>(k));
            points += static_cast<std::size_t>(scratch.wave_manifolds[i].count);
        }
    }
    // The API's poses have been seen: the manifolds found now may be kept from the next step on.
    for (std::uint32_t slot : scratch.solver_slot) state.bodies[slot].moved_by_api = false;
    carry_contacts();
    stats.manifolds = scratch.manifolds.size();
    stats.kept_manifolds = kept;
    stats.contact_points = points;
}

namespace {
// How far (metres, on body A) a new contact point may be from a carried one whose feature id it does not share and
// still take its warm start (soft step).
constexpr float kWarmStartReach = 0.01f;
}  // namespace

void World::Impl::carry_contacts() {
    // Merge-join of the new and the cached manifolds, part by part (body pairs, then triangles), on the pair key.
    ContactCache& cache = state.contact_cache;
    const bool soft = state.settings.solver.method == SolverMethod::soft_step;
    const bool warm = soft && !cache.warm.empty();
    if (soft) {
        reserve_for(scratch.warm_source, scratch.manifolds.size());
        scratch.warm_source.assign(scratch.manifolds.size(), WarmSource{});
    } else {
        scratch.warm_source.clear();
        cache.warm.clear();
    }
    auto join_range = [&](std::size_t begin, std::size_t end, std::size_t cached_begin, std::size_t cached_end) {
        if (begin == end) return;
        std::size_t j = static_cast<std::size_t>(
            std::lower_bound(cache.keys.begin() + static_cast<std::ptrdiff_t>(cached_begin),
                             cache.keys.begin() + static_cast<std::ptrdiff_t>(cached_end), manifold_key(begin)) -
            cache.keys.begin());
        for (std::size_t i = begin; i < end && j < cached_end; ++i) {
            const ManifoldKey key = manifold_key(i);
            while (j < cached_end && cache.keys[j] < key) ++j;
            if (j == cached_end || cache.keys[j] != key) continue;
            ContactManifold& now = scratch.manifolds[i];
            const CarriedManifold& before = cache.manifolds[j];
            unsigned taken = 0;  // old points a new point took over (each goes to one new point)
            int match[4] = {-1, -1, -1, -1};
            for (int p = 0; p < now.count; ++p) {
                ContactPoint& cp = now.points[static_cast<std::size_t>(p)];
                for (int q = 0; q < before.count; ++q) {
                    const CarriedPoint& old = before.points[static_cast<std::size_t>(q)];
                    if (old.id != cp.id || !(before.held & (1u << q))) continue;
                    if (before.stuck & (1u << q)) {
                        cp.friction_anchor_a = old.friction_anchor_a;
                        cp.friction_anchor_b = old.friction_anchor_b;
                    }
                    match[p] = q;
                    taken |= 1u << q;
                    break;
                }
            }
            if (!warm) continue;
            // With the soft step, a point whose feature id changed but which is where an old one was (within
            // kWarmStartReach on A, in A's frame) takes its warm start: two equal faces resting on each other swap
            // which one is the reference face from step to step, and every id with it (Jolt Physics matches contact
            // points by position the same way). Its friction anchors start afresh.
            WarmSource& source = scratch.warm_source[i];
            for (int p = 0; p < now.count; ++p) {
                for (int q = 0; match[p] < 0 && q < before.count; ++q) {
                    if ((taken & (1u << q)) || !(before.held & (1u << q))) continue;
                    const glm::vec3 d = before.points[static_cast<std::size_t>(q)].friction_anchor_a -
                                        now.points[static_cast<std::size_t>(p)].anchor_a;
                    if (glm::dot(d, d) > kWarmStartReach * kWarmStartReach) continue;
                    match[p] = q;
                    taken |= 1u << q;
                }
                if (match[p] >= 0) {
                    source.manifold = static_cast<std::uint32_t>(j);
                    source.point[static_cast<std::size_t>(p)] = static_cast<std::int8_t>(match[p]);
                }
            }
        }
    };
    // Manifold i's carried manifold is the one with its key, if any: each chunk of manifolds finds where its first
    // key would be among the carried keys and walks on from there, on the threads. Chunks write only their own
    // manifolds and warm sources.
    auto join = [&](std::size_t begin, std::size_t end, std::size_t cached_begin, std::size_t cached_end) {
        parallel().for_each_chunk(end - begin, kCarryGrain, [&](std::size_t first, std::size_t last) {
            join_range(begin + first, begin + last, cached_begin, cached_end);
        });
    };
    join(0, scratch.manifold_pairs, 0, cache.pairs);
    join(scratch.manifold_pairs, scratch.manifolds.size(), cache.pairs, cache.manifolds.size());
    if (!soft) return;

    // The carried warm starts (4 per carried manifold) become the step's (4 per manifold, in the step's order), in
    // place. The join takes carried manifolds in increasing order, so a manifold's source lies below it or above it
    // in the array in runs: those from below are moved first, from the top down, then the rest from the bottom up,
    // and no entry is overwritten before it is read.
    const std::size_t count = scratch.manifolds.size();
    const std::size_t carried = warm ? cache.manifolds.size() : 0;  // cache.warm holds 4 per carried manifold
    reserve_for(cache.warm, 4 * std::max(count, carried));
    cache.warm.resize(4 * std::max(count, carried));
    auto take = [&](std::size_t i) {
        const WarmSource& source = scratch.warm_source[i];
        std::array<ContactWarmStart, 4> moved{};
        if (source.manifold != kNoManifold)
            for (std::size_t p = 0; p < 4; ++p)
                if (source.point[p] >= 0)
                    moved[p] = cache.warm[4 * std::size_t{source.manifold} + static_cast<std::size_t>(source.point[p])];
        std::copy(moved.begin(), moved.end(), cache.warm.begin() + static_cast<std::ptrdiff_t>(4 * i));
    };
    auto from_below = [&](std::size_t i) {
        const std::uint32_t m = scratch.warm_source[i].manifold;
        return m != kNoManifold && m < i;
    };
    for (std::size_t i = count; i-- > 0;)
        if (from_below(i)) take(i);
    for (std::size_t i = 0; i < count; ++i)
        if (!from_below(i)) take(i);
    cache.warm.resize(4 * count);
}

void World::Impl::cache_contacts() {
    ContactCache& cache = state.contact_cache;
    const bool soft = state.settings.solver.method == SolverMethod::soft_step;
    const bool reuse = reuse_distance() > 0.0f;
    // Each step body's motion in the step once (a body has several manifolds), on the threads.
    // An awake body's candidate_drift: this step's motion, added to the drift since its last mesh query unless it
    // queried in this step (Body::candidate_drift).
    if (reuse)
        parallel().for_each_chunk(scratch.solver_bodies.size(), 512, [&](std::size_t begin, std::size_t end) {
            for (std::size_t k = begin; k < end; ++k) {
                const auto i = static_cast<std::uint32_t>(k);
                scratch.body_distance[k] = solved_turn(i);
                if (k >= scratch.awake_count) continue;
                Body& b = state.bodies[scratch.solver_slot[k]];
                const float since = scratch.candidates_queried[k] == 0 ? b.candidate_drift : 0.0f;
                b.candidate_drift = scratch.candidates_queried[k] == 2
                                        ? std::numeric_limits<float>::infinity()  // found a sensor: query again
                                        : since + glm::length(solved_displacement(i)) + scratch.body_distance[k];
            }
        });
    const float* const turned = scratch.body_distance.data();
    // A manifold's motion in the step: with a triangle, its body's displacement plus its turn; between two bodies, the
    // displacement of B relative to A plus both turns (kept_of, pair_coast_of).
    auto moved = [&](const ContactManifold& m) {
        if (m.b == kStaticGeometry) return glm::length(solved_displacement(m.a)) + turned[m.a];
        return glm::length(solved_displacement(m.b) - solved_displacement(m.a)) + (turned[m.a] + turned[m.b]);
    };
    // Manifold i as carried, its carried points' warm starts (read from the step's, 4 per manifold) into `warm`, in
    // carried order; a count of 0: nothing of it is carried.
    auto carry = [&](std::size_t i, std::array<ContactWarmStart, 4>& warm) {
        const ContactManifold& m = scratch.manifolds[i];
        CarriedManifold carried;
        warm = {};
        for (int p = 0; p < m.count; ++p) {
            const ContactPoint& cp = m.points[static_cast<std::size_t>(p)];
            const ContactWarmStart w = soft ? cache.warm[4 * i + static_cast<std::size_t>(p)] : ContactWarmStart{};
            const bool held = w.normal_force != 0.0f || w.friction_force != glm::vec3(0.0f);
            if (!cp.stuck && !held && !reuse) continue;
            if (cp.stuck) carried.stuck = static_cast<std::uint8_t>(carried.stuck | (1u << carried.count));
            if (cp.stuck || held) carried.held = static_cast<std::uint8_t>(carried.held | (1u << carried.count));
            warm[static_cast<std::size_t>(carried.count)] = w;
            carried.points[static_cast<std::size_t>(carried.count++)] = {cp.id, cp.friction_anchor_a,
                                                                         cp.friction_anchor_b};
        }
        // With kept manifolds on, every point is carried, and the manifold may be kept whole for the next step
        // unless it was found at a time of impact: the bodies' motion since it was found, this step's added.
        if (carried.count > 0 && reuse && !m.impact) {
            carried.keep = static_cast<std::uint8_t>(kKeepable | (m.negative ? kNegative : 0));
            carried.axis = static_cast<std::int16_t>(m.axis);
            carried.normal = m.normal;
            carried.drift = scratch.manifold_drift[i] + moved(m);
        }
        return carried;
    };
    const std::size_t count = scratch.manifolds.size();
    // Room for every manifold, growing geometrically as the scratch does: how many points stick varies from step to
    // step, and a new highest count must not allocate in a steady-state step.
    reserve_for(cache.keys, count);
    reserve_for(cache.manifolds, count);
    if (reuse) {
        // With kept manifolds on (soft step), every point of every manifold is carried (a manifold has at least one
        // point), so manifold i is carried manifold i: on the threads, each in its own place, its warm starts read
        // and written in place.
        reserve_for(cache.pair_slots, scratch.manifold_pairs);
        cache.keys.resize(count);
        cache.manifolds.resize(count);
        cache.pair_slots.resize(scratch.manifold_pairs);
        cache.pairs = scratch.manifold_pairs;
        parallel().for_each_chunk(count, kCarryGrain, [&](std::size_t begin, std::size_t end) {
            std::array<ContactWarmStart, 4> warm{};
            for (std::size_t i = begin; i < end; ++i) {
                cache.manifolds[i] = carry(i, warm);
                TUMBLE_ASSERT(cache.manifolds[i].count == scratch.manifolds[i].count && scratch.manifolds[i].count > 0);
                std::copy(warm.begin(), warm.end(), cache.warm.begin() + static_cast<std::ptrdiff_t>(4 * i));
                cache.keys[i] = manifold_key(i);
                if (i < scratch.manifold_pairs)
                    cache.pair_slots[i] = {scratch.solver_slot[scratch.manifolds[i].a],
                                           scratch.solver_slot[scratch.manifolds[i].b]};
            }
        });
        cache.warm.resize(4 * count);
        return;
    }
    cache.keys.clear();
    cache.manifolds.clear();
    cache.pair_slots.clear();
    cache.pairs = 0;
    // The step's warm starts (4 per manifold, carry_contacts) are compacted in place into the carried ones: the
    // carried manifold c of manifold i has c <= i, and its point k of point p has k <= p.
    std::array<ContactWarmStart, 4> warm{};
    for (std::size_t i = 0; i < count; ++i) {
        const CarriedManifold carried = carry(i, warm);
        if (carried.count == 0) continue;
        if (soft)
            std::copy(warm.begin(), warm.end(),
                      cache.warm.begin() + static_cast<std::ptrdiff_t>(4 * cache.manifolds.size()));
        cache.keys.push_back(manifold_key(i));
        cache.manifolds.push_back(carried);
        if (i < scratch.manifold_pairs) ++cache.pairs;
    }
    cache.warm.resize(soft ? 4 * cache.manifolds.size() : 0);
}

// Stage 4. The substeps (PositionSolver::solve): integrate, positions at the anchors, velocities, restitution and
// dynamic friction; islands on the thread pool. Then the CCD clamp and the guard that keeps centres in front of mesh
// faces (ccd.cpp).
void World::Impl::solve_stage() {
    scratch.solver.solve(scratch.solver_bodies, scratch.manifolds, scratch.manifold_sides, state.contact_cache.warm,
                         state.settings.gravity, scratch.dt, state.settings.solver, parallel());
    stats.islands = scratch.solver.island_count();
    ccd_clamp();
    keep_in_front_of_meshes();
    cache_contacts();
}

// Stage 5. The solver's poses and velocities back to the bodies; forces and torques of the step cleared.
void World::Impl::velocities_stage() {
    for (std::uint32_t k = 0; k < scratch.awake_count; ++k) {
        TUMBLE_ASSERT(state.awake[k] < state.bodies.size() && state.bodies[state.awake[k]].alive &&
                      scratch.solver_slot[k] == state.awake[k]);
        Body& b = state.bodies[state.awake[k]];
        const SolverBody& s = scratch.solver_bodies[k];
        b.position = s.position;
        b.orientation = s.orientation;
        if (s.motion == Motion::dynamic) {
            b.velocity = s.velocity;
            b.angular_velocity = s.angular_velocity;
        }
        b.force = glm::vec3(0.0f);
        b.torque = glm::vec3(0.0f);
    }
}

}  // namespace tumble
