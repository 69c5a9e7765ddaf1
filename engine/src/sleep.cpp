// Sleeping: islands of touching bodies fall asleep together when all of them have been quiet long enough, and wake
// together. See SleepSettings (world.hpp) for the rules and docs/game.md for the measurements.
//
// Islands are found per step by union-find (Tarjan, "Efficiency of a good but not linear set union algorithm",
// 1975; path halving) over the pairs of awake dynamic bodies that touch or nearly touch (within the broadphase
// margin) after the step. Static bodies,
// meshes and kinematic bodies do not join islands (they would merge everything resting on one floor into one
// island); a body touching a moving kinematic body, or one that just woke a sleeping body, does not sleep.
// A sleeping island keeps the contacts and sensor overlaps it had when it fell asleep, so contacts() still lists
// them and their events continue after it wakes.

#include <algorithm>
#include <limits>
#include <numeric>

#include "world_impl.hpp"

namespace tumble {

void World::Impl::sleep_stage() {
    update_sleep(scratch.dt, scratch.sleep_blocked);
    // Proxies of the bodies still awake back to their final boxes.
    update_active_proxies(static_cast<std::uint32_t>(scratch.awake_count), [&](std::uint32_t k, Aabb& box) {
        const Body& b = state.bodies[state.awake[k]];
        if (b.awake) box = proxy_box(b);
        return b.awake;
    });
    stats.sleeping_bodies = state.sleeping_bodies;
}

void World::Impl::update_sleep(float dt, const std::vector<std::uint8_t>& blocked) {
    const auto n = static_cast<std::uint32_t>(blocked.size());
    const SleepSettings& sleep = state.settings.sleep;
    for (std::uint32_t k = 0; k < n; ++k) {
        Body& b = state.bodies[state.awake[k]];
        if (!b.dynamic() || !b.awake) continue;
        // Quiet while every point stays within the distance a point at the threshold speed covers in the sleep
        // time (Jolt's sleep test, PhysicsSettings::mPointVelocitySleepThreshold over mTimeBeforeSleep): a box that
        // trembles in place in a pile sleeps, one that creeps on at the threshold speed does not. The window, and
        // the pose it measures from, start again at the first step that leaves the ball (quiet_time 0: no window).
        if (!sleep.enabled) {
            b.quiet_time = 0.0f;
        } else if (b.quiet_time > 0.0f && b.drift() <= sleep.linear_velocity * sleep.time) {
            b.quiet_time += dt;
        } else {
            b.rest_position = b.position;
            b.rest_orientation = b.orientation;
            b.quiet_time = dt;
        }
    }
    if (!sleep.enabled) return;

    // Union-find over the awake dynamic bodies of this step (indices k < n). Its lists are the step's scratch, grown
    // as the others are, so that a step with sleeping on allocates nothing once warmed up.
    std::vector<std::uint32_t>& parent = scratch.sleep_parent;
    reserve_for(parent, n);
    parent.resize(n);
    std::iota(parent.begin(), parent.end(), 0u);
    auto find = [&](std::uint32_t k) {
        while (parent[k] != k) k = parent[k] = parent[parent[k]];
        return k;
    };
    auto step_index = [&](std::uint32_t slot) -> std::uint32_t {
        return scratch.solver_stamp[slot] == scratch.stamp && scratch.solver_index[slot] < n
                   ? scratch.solver_index[slot]
                   : kNone;
    };
    for (const SlotPair& pair : scratch.near_pairs) {
        const std::uint32_t ka = step_index(pair.a), kb = step_index(pair.b);
        if (ka == kNone || kb == kNone || !state.bodies[state.awake[ka]].dynamic() ||
            !state.bodies[state.awake[kb]].dynamic())
            continue;
        const std::uint32_t ra = find(ka), rb = find(kb);
        if (ra != rb) parent[std::max(ra, rb)] = std::min(ra, rb);  // the smallest index represents the island
    }
    std::vector<std::uint32_t>& root = scratch.sleep_root;
    reserve_for(root, n);
    root.resize(n);
    for (std::uint32_t k = 0; k < n; ++k) root[k] = find(k);
    // Per island: can it sleep? Every member dynamic, still awake, quiet long enough and not blocked.
    std::vector<std::uint8_t>& can_sleep = scratch.sleep_can;
    reserve_for(can_sleep, n);
    can_sleep.assign(n, 1);
    for (std::uint32_t k = 0; k < n; ++k) {
        const Body& b = state.bodies[state.awake[k]];
        if (!b.dynamic() || !b.awake || blocked[k] || b.quiet_time < sleep.time) can_sleep[root[k]] = 0;
    }
    // Members of the islands that may sleep, grouped by representative, in index order within each.
    std::vector<std::uint32_t>& order = scratch.sleep_order;
    order.clear();
    for (std::uint32_t k = 0; k < n; ++k)
        if (can_sleep[root[k]]) push_back_grown(order, k);
    if (order.empty()) return;
    // The order a stable sort by representative gives, without the buffer a stable sort allocates.
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t x, std::uint32_t y) { return root[x] != root[y] ? root[x] < root[y] : x < y; });

    std::vector<std::uint32_t>& fell_asleep = scratch.sleep_fell;  // island ids created now
    fell_asleep.clear();
    for (std::size_t first = 0; first < order.size();) {
        std::size_t last = first;
        while (last < order.size() && root[order[last]] == root[order[first]]) ++last;
        std::uint32_t id;
        if (!state.free_islands.empty()) {
            id = state.free_islands.back();
            state.free_islands.pop_back();
        } else {
            id = static_cast<std::uint32_t>(state.islands.size());
            state.islands.emplace_back();
        }
        Island& island = state.islands[id];
        island.alive = true;
        island.bodies.clear();
        island.touches.clear();
        for (std::size_t m = first; m < last; ++m) {
            const std::uint32_t slot = state.awake[order[m]];
            Body& b = state.bodies[slot];
            island.bodies.push_back(slot);
            b.island = id;
            b.awake = false;
            b.candidate_drift = std::numeric_limits<float>::infinity();  // its manifolds leave the contact cache
            b.velocity = glm::vec3(0.0f);
            b.angular_velocity = glm::vec3(0.0f);
            state.active.remove(b.proxy);
            b.proxy = state.resting.insert(proxy_box(b), slot);
            ++state.sleeping_bodies;
            forget_candidates_near(state.resting.aabb(b.proxy));  // awake bodies near it query again
        }
        fell_asleep.push_back(id);
        first = last;
    }

    // Touches with nobody awake left in them freeze with the island of their sleeping body; their event pairs
    // leave the awake set silently (no end event while asleep).
    auto asleep_now = [&](BodyId id) { return !id.is_null() && state.bodies[id.index].sleeping(); };
    auto awake_now = [&](BodyId id) { return !id.is_null() && state.bodies[id.index].awake; };
    for (const Touch& t : state.touches) {
        if (awake_now(t.record.a) || awake_now(t.record.b)) continue;
        const BodyId sleeper = asleep_now(t.record.a) ? t.record.a : t.record.b;
        if (!asleep_now(sleeper)) continue;
        const std::uint32_t id = state.bodies[sleeper.index].island;
        if (std::find(fell_asleep.begin(), fell_asleep.end(), id) != fell_asleep.end())
            state.islands[id].touches.push_back(t);
    }
    std::erase_if(state.event_pairs, [&](const Touch& s) {
        return !awake_now(s.record.a) && !awake_now(s.record.b) && (asleep_now(s.record.a) || asleep_now(s.record.b));
    });
}

void World::Impl::wake_island(std::uint32_t id) {
    Island& island = state.islands[id];
    if (!island.alive) return;
    for (std::uint32_t slot : island.bodies) {
        Body& b = state.bodies[slot];
        if (!b.alive || b.island != id) continue;
        b.island = kNone;
        b.quiet_time = 0.0f;
        state.resting.remove(b.proxy);
        b.awake = true;
        b.proxy = state.active.insert(proxy_box(b), slot);
        state.awake.push_back(slot);
        --state.sleeping_bodies;
    }
    state.woken_touches.insert(state.woken_touches.end(), island.touches.begin(), island.touches.end());
    island.bodies.clear();
    island.touches.clear();
    island.alive = false;
    state.free_islands.push_back(id);
    contact_view_dirty = true;
}

void World::Impl::wake_body(std::uint32_t slot) {
    if (state.bodies[slot].sleeping()) wake_island(state.bodies[slot].island);
}

void World::Impl::wake_near(const Aabb& box) {
    if (state.sleeping_bodies == 0) return;
    scratch.query_proxies.clear();
    state.resting.query(box, scratch.query_proxies);
    std::vector<std::uint32_t> sleepers;
    for (ProxyId p : scratch.query_proxies) {
        const auto slot = static_cast<std::uint32_t>(state.resting.user_data(p));
        if (state.bodies[slot].sleeping()) sleepers.push_back(state.bodies[slot].island);
    }
    std::sort(sleepers.begin(), sleepers.end());
    for (std::uint32_t id : sleepers) wake_island(id);
}

void World::Impl::wake_touching(const MeshIndex& mesh) {
    if (mesh.size() == 0 || state.sleeping_bodies == 0) return;
    scratch.query_proxies.clear();
    state.resting.query(mesh.bounds(), scratch.query_proxies);
    std::vector<std::pair<std::uint32_t, Aabb>> sleepers;
    for (ProxyId p : scratch.query_proxies) {
        const auto slot = static_cast<std::uint32_t>(state.resting.user_data(p));
        if (state.bodies[slot].sleeping()) sleepers.emplace_back(slot, state.resting.aabb(p));
    }
    std::sort(sleepers.begin(), sleepers.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<std::uint32_t> found;
    for (const auto& [slot, box] : sleepers) {
        found.clear();
        mesh.query(box, found);
        if (!found.empty()) wake_body(slot);
    }
}

void World::Impl::wake_everything() {
    for (std::uint32_t id = 0; id < state.islands.size(); ++id) wake_island(id);
}

}  // namespace tumble
