// The report stage of the step: the contacts and sensor overlaps left at the final positions, contact events, waking
// what awake bodies touched, and the contacts() view. See events.hpp for the event contract.

#include <algorithm>
#include <array>
#include <limits>

#include <tumble/narrowphase/contact_policy.hpp>
#include <tumble/narrowphase/sat.hpp>

#include <tumble/core/growth.hpp>

#include "world_impl.hpp"

namespace tumble {
namespace {

using Touch = World::Impl::Touch;

// A manifold's pair touches after the step when one of its points has a gap of at most this (metres): resting
// contacts sit at -slop, and one that the solver just brought together at 0 up to float round-off.
constexpr float kTouchGap = 1e-5f;

// Order of event pairs: a, then body partners before meshes, then the partner.
int compare_pair(const ContactRecord& x, const ContactRecord& y) {
    if (x.a != y.a) return x.a < y.a ? -1 : 1;
    const bool xm = !x.mesh.is_null(), ym = !y.mesh.is_null();
    if (xm != ym) return xm ? 1 : -1;
    if (xm) return x.mesh == y.mesh ? 0 : (x.mesh < y.mesh ? -1 : 1);
    return x.b == y.b ? 0 : (x.b < y.b ? -1 : 1);
}

// Orders touches for the event diff: by pair, then the deepest contact of a body-mesh pair first (lowest triangle
// on ties).
bool event_order(const Touch& x, const Touch& y) {
    if (const int c = compare_pair(x.record, y.record)) return c < 0;
    if (x.record.contact.depth != y.record.contact.depth) return x.record.contact.depth > y.record.contact.depth;
    return x.record.triangle < y.record.triangle;
}

// aggregate's common case, without a sort. The report lists its touches in a few runs that are each in pair order
// with the touches of one pair together (body pairs by a then b, body-mesh pairs by body, mesh and triangle, then
// sensor pairs), as long as slots are in creation order. When the touches form at most kRuns such runs and no pair
// is in two of them, the runs are merged pair by pair, keeping each pair's first touch in event order: exactly
// what sorting gives. Otherwise returns false and leaves `out` empty.
bool aggregate_runs(const std::vector<Touch>& touches, std::vector<std::uint32_t>& out) {
    constexpr std::size_t kRuns = 4;
    const std::size_t n = touches.size();
    auto group_end = [&](std::size_t i) {  // end of the group of touches of i's pair that starts at i
        std::size_t j = i + 1;
        while (j < n && compare_pair(touches[j].record, touches[i].record) == 0) ++j;
        return j;
    };
    std::array<std::size_t, kRuns + 1> run{};  // run r is [run[r], run[r + 1]); its groups' pairs strictly increase
    std::size_t runs = 0;
    for (std::size_t i = 0, previous = n; i < n;) {
        const std::size_t next = group_end(i);
        if (previous == n || compare_pair(touches[previous].record, touches[i].record) >= 0) {
            if (runs == kRuns) return false;
            run[runs++] = i;
        }
        previous = i;
        i = next;
    }
    run[runs] = n;
    std::array<std::size_t, kRuns> at{}, end{};
    for (std::size_t r = 0; r < runs; ++r) at[r] = run[r], end[r] = run[r + 1];
    for (;;) {
        std::size_t pick = kRuns;
        for (std::size_t r = 0; r < runs; ++r) {
            if (at[r] == end[r]) continue;
            if (pick == kRuns) {
                pick = r;
                continue;
            }
            const int c = compare_pair(touches[at[r]].record, touches[at[pick]].record);
            if (c == 0) {  // one pair in two runs: sort instead
                out.clear();
                return false;
            }
            if (c < 0) pick = r;
        }
        if (pick == kRuns) return true;
        const std::size_t next = group_end(at[pick]);
        std::size_t best = at[pick];
        for (std::size_t j = best + 1; j < next; ++j)
            if (event_order(touches[j], touches[best])) best = j;
        out.push_back(static_cast<std::uint32_t>(best));
        at[pick] = next;
    }
}

// One entry per event pair, sorted, keeping the deepest contact of a body-mesh pair (lowest triangle on ties): indices
// into `touches` (4 bytes per touch instead of a copy of each).
void aggregate(const std::vector<Touch>& touches, std::vector<std::uint32_t>& out) {
    out.clear();
    reserve_for(out, touches.size());
    if (aggregate_runs(touches, out)) return;
    for (std::size_t i = 0; i < touches.size(); ++i) out.push_back(static_cast<std::uint32_t>(i));
    std::sort(out.begin(), out.end(),
              [&](std::uint32_t x, std::uint32_t y) { return event_order(touches[x], touches[y]); });
    out.erase(std::unique(out.begin(), out.end(),
                          [&](std::uint32_t x, std::uint32_t y) {
                              return compare_pair(touches[x].record, touches[y].record) == 0;
                          }),
              out.end());
}

ContactEvent make_event(ContactEventType type, const Touch& s) {
    ContactEvent e;
    e.type = type;
    e.a = s.record.a;
    e.b = s.record.b;
    e.mesh = s.record.mesh;
    e.triangle = s.record.triangle;
    e.contact = s.record.contact;
    e.sensor = s.sensor;
    return e;
}

bool same_contact(const ContactRecord& x, const ContactRecord& y) {
    return x.a == y.a && x.b == y.b && x.mesh == y.mesh && x.triangle == y.triangle;
}

}  // namespace

void World::Impl::report_stage() {
    const auto n = static_cast<std::uint32_t>(scratch.awake_count);

    // The contacts the solver enforced that touch at the final positions: a manifold's pair touches when one of its
    // points' anchors meet (gap <= kTouchGap), and its depth is the largest penetration left, max(0, -gap). This is
    // the physics' own view (resting contacts keep the solver's slop), and it costs no second narrowphase pass.
    Parallel& par = parallel();
    scratch.found_gap.resize(scratch.manifolds.size());
    par.for_each_chunk(scratch.manifolds.size(), 256, [&](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k) {
            const ContactManifold& m = scratch.manifolds[k];
            // The step bodies' final poses, which the velocities stage copied to the bodies: the same floats.
            auto pose = [&](std::uint32_t i, const glm::vec3& anchor) {
                if (i == kStaticGeometry) return anchor;
                const SolverBody& b = scratch.solver_bodies[i];
                return b.position + b.orientation * anchor;
            };
            float gap = std::numeric_limits<float>::max();
            for (int p = 0; p < m.count; ++p) {
                const ContactPoint& cp = m.points[static_cast<std::size_t>(p)];
                gap = std::min(gap, glm::dot(pose(m.b, cp.anchor_b) - pose(m.a, cp.anchor_a), m.normal));
            }
            scratch.found_gap[k] = gap;
        }
    });
    state.touches.clear();
    // Room for the most there can be (every manifold touching, every sensor pair overlapping).
    reserve_for(state.touches, scratch.manifolds.size() + scratch.sensor_pairs.size());
    for (std::size_t k = 0; k < scratch.manifolds.size(); ++k) {
        const float gap = scratch.found_gap[k];
        if (!(gap <= kTouchGap)) continue;
        const ContactManifold& m = scratch.manifolds[k];
        const Contact c{m.axis, m.negative, std::max(0.0f, -gap), m.normal};
        const std::uint32_t candidate = scratch.manifold_candidate[k];
        if (candidate < scratch.body_pairs.size()) {
            state.touches.push_back({{id_of(scratch.candidate_pairs[candidate].pair.a),
                                      id_of(scratch.candidate_pairs[candidate].pair.b), MeshId{}, 0, c},
                                     false});
        } else {
            const TriangleCandidate& t = scratch.triangle_candidates[candidate - scratch.body_pairs.size()];
            state.touches.push_back(
                {{id_of(scratch.solver_slot[t.body]), BodyId{}, mesh_id_of(t.mesh), t.triangle, c}, false});
        }
    }
    stats.contacts = state.touches.size();
    // Sensor overlaps (never pushed apart: collide() tells the depth).
    for (const SlotPair& p : scratch.sensor_pairs)
        if (const std::optional<Contact> c = collide(state.bodies[p.a].obb(), state.bodies[p.b].obb()))
            state.touches.push_back({{id_of(p.a), id_of(p.b), MeshId{}, 0, *c}, true});

    // Events: this step's pairs against the last step's, plus the pairs of islands woken since then. Without woken
    // islands (the common case) the last step's pairs are compared as they are, with no copy.
    const std::vector<Touch>* previous = &state.event_pairs;
    if (!state.woken_touches.empty()) {
        std::vector<std::uint32_t>& woken = scratch.event_woken;
        aggregate(state.woken_touches, woken);
        // Merged by pair; a pair in both keeps the last step's state.
        std::vector<Touch>& merged = scratch.event_previous;
        merged.clear();
        std::size_t i = 0, j = 0;
        while (i < state.event_pairs.size() || j < woken.size()) {
            const int c = i == state.event_pairs.size() ? 1
                          : j == woken.size()
                              ? -1
                              : compare_pair(state.event_pairs[i].record, state.woken_touches[woken[j]].record);
            if (c > 0) {
                merged.push_back(state.woken_touches[woken[j++]]);
            } else {
                merged.push_back(state.event_pairs[i++]);
                if (c == 0) ++j;
            }
        }
        state.woken_touches.clear();
        previous = &merged;
    }
    std::vector<std::uint32_t>& current = scratch.event_current;
    aggregate(state.touches, current);
    state.events.clear();
    // At least one event per pair of the larger side; more (pairs that began and pairs that ended) grow the list.
    reserve_for(state.events, std::max(previous->size(), current.size()));
    std::size_t i = 0, j = 0;
    while (i < previous->size() || j < current.size()) {
        const int c = i == previous->size() ? 1
                      : j == current.size() ? -1
                                            : compare_pair((*previous)[i].record, state.touches[current[j]].record);
        if (c < 0) {
            push_back_grown(state.events, make_event(ContactEventType::end, (*previous)[i++]));
        } else if (c > 0) {
            push_back_grown(state.events, make_event(ContactEventType::begin, state.touches[current[j++]]));
        } else {
            push_back_grown(state.events, make_event(ContactEventType::persist, state.touches[current[j++]]));
            ++i;
        }
    }
    state.event_pairs.clear();
    reserve_for(state.event_pairs, current.size());
    for (const std::uint32_t t : current) state.event_pairs.push_back(state.touches[t]);

    // Islands link bodies that touch or nearly touch (within the broadphase margin): the solver leaves resting
    // bodies touching only up to round-off, and a box sitting a hair above its support must still sleep and wake
    // with it. An awake body near a sleeping one wakes its island (from the next step on), and the awake body's own
    // island does not fall asleep in this step. A moving kinematic body keeps the dynamic bodies near it awake.
    scratch.near_flags.resize(scratch.body_pairs.size());
    par.for_each_chunk(scratch.body_pairs.size(), 256, [&](std::size_t begin, std::size_t end) {
        for (std::size_t p = begin; p < end; ++p) {
            const Obb a = state.bodies[scratch.solver_slot[scratch.body_pairs[p].a]].obb();
            const Obb grown{a.center, a.axes, a.half_extents + glm::vec3(state.settings.broadphase_margin)};
            scratch.near_flags[p] = overlap(grown, state.bodies[scratch.solver_slot[scratch.body_pairs[p].b]].obb());
        }
    });
    scratch.near_pairs.clear();
    for (std::size_t p = 0; p < scratch.body_pairs.size(); ++p)
        if (scratch.near_flags[p]) scratch.near_pairs.push_back(scratch.candidate_pairs[p].pair);
    std::vector<std::uint8_t>& blocked = scratch.sleep_blocked;
    blocked.assign(n, 0);
    auto step_index = [&](std::uint32_t slot) -> std::uint32_t {
        return scratch.solver_stamp[slot] == scratch.stamp && scratch.solver_index[slot] < n
                   ? scratch.solver_index[slot]
                   : kNone;
    };
    for (const SlotPair& pair : scratch.near_pairs) {
        const std::uint32_t ka = step_index(pair.a), kb = step_index(pair.b);
        const Body& a = state.bodies[pair.a];
        const Body& b = state.bodies[pair.b];
        if (a.sleeping() && kb != kNone) {
            wake_island(a.island);
            blocked[kb] = 1;
        } else if (b.sleeping() && ka != kNone) {
            wake_island(b.island);
            blocked[ka] = 1;
        } else if (ka != kNone && kb != kNone && a.kinematic != b.kinematic) {
            blocked[a.kinematic ? kb : ka] = 1;
        }
    }

    stats.awake_bodies = n;
    contact_view_dirty = true;
    if (callback)
        for (const ContactEvent& e : state.events) callback(e);
}

void World::Impl::build_contact_view() const {
    contact_view.clear();
    auto add = [&](const std::vector<Touch>& list) {
        for (const Touch& t : list)
            if (!t.sensor) contact_view.push_back(t.record);
    };
    add(state.touches);
    add(state.woken_touches);
    for (const Island& island : state.islands)
        if (island.alive) add(island.touches);
    // contacts() order: body pairs (by the creation order of a, then b) first, then body-triangle contacts (by a,
    // the mesh's creation order, triangle). Records name live bodies and meshes here (forget_touches drops the
    // others), so their slots hold the sequence numbers.
    auto created = [&](BodyId id) { return state.bodies[id.index].sequence; };
    auto contact_less = [&](const ContactRecord& x, const ContactRecord& y) {
        const bool xm = !x.mesh.is_null(), ym = !y.mesh.is_null();
        if (xm != ym) return !xm;
        if (x.a != y.a) return created(x.a) < created(y.a);
        if (!xm) return created(x.b) < created(y.b);
        if (x.mesh != y.mesh) return state.meshes[x.mesh.index].sequence < state.meshes[y.mesh.index].sequence;
        return x.triangle < y.triangle;
    };
    std::stable_sort(contact_view.begin(), contact_view.end(), contact_less);
    contact_view.erase(std::unique(contact_view.begin(), contact_view.end(), same_contact), contact_view.end());
    contact_view_dirty = false;
}

void World::Impl::forget_touches(BodyId body, MeshId mesh) {
    auto names = [&](const Touch& t) {
        return (!body.is_null() && (t.record.a == body || t.record.b == body)) || (!mesh.is_null() && t.record.mesh == mesh);
    };
    std::erase_if(state.touches, names);
    std::erase_if(state.woken_touches, names);
    for (Island& island : state.islands) std::erase_if(island.touches, names);
    contact_view_dirty = true;
}

}  // namespace tumble
