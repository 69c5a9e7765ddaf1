#include "drop_scene.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace tumble::samples {

glm::quat Rng::rotation() {
    const double u1 = uniform(), u2 = uniform(), u3 = uniform();
    const double two_pi = 6.283185307179586;
    const double a = std::sqrt(1.0 - u1), b = std::sqrt(u1);
    return glm::normalize(glm::quat(static_cast<float>(b * std::cos(two_pi * u3)),
                                    static_cast<float>(a * std::sin(two_pi * u2)),
                                    static_cast<float>(a * std::cos(two_pi * u2)),
                                    static_cast<float>(b * std::sin(two_pi * u3))));
}

std::vector<BodyDef> spawn_boxes(const TriangleMesh& level, const DropOptions& options) {
    std::vector<Triangle> triangles(level.triangle_count());
    for (std::size_t t = 0; t < triangles.size(); ++t) triangles[t] = level.triangle(t);
    const MeshIndex index(triangles);

    // Floor triangles, with their cumulative area for area-weighted picking.
    std::vector<std::uint32_t> floors;
    std::vector<double> cumulative;
    double total = 0.0;
    for (std::uint32_t t = 0; t < triangles.size(); ++t) {
        const glm::vec3 n = triangles[t].scaled_normal();
        const float len = glm::length(n);
        if (!(len > 0.0f) || n.y / len < options.min_floor_normal_y) continue;
        total += 0.5 * static_cast<double>(len);
        floors.push_back(t);
        cumulative.push_back(total);
    }
    if (floors.empty()) throw Error("spawn_boxes: the level has no upward-facing floor triangles");

    Rng rng(options.seed);
    LooseOctree placed_index(index.bounds().expanded(8.0f));
    std::vector<BodyDef> placed;
    std::vector<Obb> placed_boxes;
    std::vector<std::uint32_t> near_triangles;
    std::vector<ProxyId> near_boxes;
    const glm::vec3 horizontal[8] = {{1, 0, 0}, {-1, 0, 0}, {0, 0, 1}, {0, 0, -1},
                                     {0.7071068f, 0, 0.7071068f}, {-0.7071068f, 0, 0.7071068f},
                                     {0.7071068f, 0, -0.7071068f}, {-0.7071068f, 0, -0.7071068f}};
    const long budget = static_cast<long>(options.boxes) * options.max_attempts_per_box;
    for (long attempt = 0; attempt < budget && static_cast<int>(placed.size()) < options.boxes; ++attempt) {
        // A random point on a random floor triangle.
        const double pick = rng.uniform() * total;
        const std::size_t k = static_cast<std::size_t>(std::lower_bound(cumulative.begin(), cumulative.end(), pick) -
                                                       cumulative.begin());
        const Triangle& floor = triangles[floors[std::min(k, floors.size() - 1)]];
        const float r1 = std::sqrt(static_cast<float>(rng.uniform())), r2 = static_cast<float>(rng.uniform());
        const glm::vec3 foot = floor.a * (1.0f - r1) + floor.b * (r1 * (1.0f - r2)) + floor.c * (r1 * r2);

        BodyDef def;
        def.half_extents = {rng.uniform(options.min_half_extent, options.max_half_extent),
                            rng.uniform(options.min_half_extent, options.max_half_extent),
                            rng.uniform(options.min_half_extent, options.max_half_extent)};
        def.orientation = rng.rotation();
        const float height = rng.uniform(options.min_height, options.max_height);
        def.position = foot + glm::vec3(0.0f, height, 0.0f);
        const Obb box{def.position, glm::mat3_cast(def.orientation), def.half_extents};
        const float reach = glm::length(def.half_extents);

        // Clear above the floor point up to the top of the box: the box is below any ceiling.
        if (index.raycast(foot + glm::vec3(0.0f, 1e-3f, 0.0f), {0.0f, 1.0f, 0.0f}, height + reach)) continue;
        // Inside the level: horizontal rays hit front faces.
        bool inside = true;
        for (const glm::vec3& dir : horizontal) {
            const std::optional<RayHit> hit = index.raycast(def.position, dir, 1e4f);
            if (!hit || !hit->front_face) {
                inside = false;
                break;
            }
        }
        if (!inside) continue;
        // Touching nothing.
        const Aabb bounds = box.aabb();
        near_triangles.clear();
        index.query(bounds, near_triangles);
        if (std::any_of(near_triangles.begin(), near_triangles.end(),
                        [&](std::uint32_t t) { return overlap(box, triangles[t]); }))
            continue;
        near_boxes.clear();
        placed_index.query(bounds, near_boxes);
        if (std::any_of(near_boxes.begin(), near_boxes.end(),
                        [&](ProxyId p) { return overlap(box, placed_boxes[placed_index.user_data(p)]); }))
            continue;

        placed_index.insert(bounds, placed.size());
        placed_boxes.push_back(box);
        placed.push_back(def);
    }
    if (static_cast<int>(placed.size()) < options.boxes)
        throw Error("spawn_boxes: placed only " + std::to_string(placed.size()) + " of " +
                    std::to_string(options.boxes) + " boxes; the level has too little free floor for them");
    return placed;
}

DropResult run_drop(const std::filesystem::path& level, const DropOptions& options, int steps, float dt,
                    const std::function<void(int, double, const World&)>& progress) {
    const ObjFile file = load_obj(level);
    WorldSettings settings;
    settings.sleep.enabled = options.sleep;
    settings.threads = options.threads;
    World world(settings);
    world.add_mesh(file.mesh);
    float lowest = std::numeric_limits<float>::max();
    for (const glm::vec3& v : file.mesh.vertices) lowest = std::min(lowest, v.y);
    std::vector<BodyId> ids;
    for (const BodyDef& def : spawn_boxes(file.mesh, options)) ids.push_back(world.create_body(def));

    DropResult r;
    r.level = level.filename().string();
    r.triangles = file.mesh.triangle_count();
    r.boxes = options.boxes;
    r.steps = steps;
    double total_ms = 0.0;
    for (int s = 0; s < steps; ++s) {
        const auto t0 = std::chrono::steady_clock::now();
        world.step(dt);
        total_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        if (progress) progress(s + 1, total_ms / (s + 1), world);
    }
    r.ms_per_step = steps > 0 ? total_ms / steps : 0.0;
    double tilt_sum = 0.0;
    for (BodyId id : ids) {
        const BodyState b = world.body(id);
        if (b.position.y < lowest) ++r.fell_through;
        const glm::dvec3 w(b.angular_velocity);
        const glm::dvec3 w_body = glm::conjugate(glm::dquat(b.orientation)) * w;
        r.energy_J += 0.5 * b.mass * glm::dot(glm::dvec3(b.velocity), glm::dvec3(b.velocity)) +
                      0.5 * glm::dot(w_body, glm::dvec3(b.inertia) * w_body);
        const float point_speed = glm::length(b.velocity) + glm::length(b.angular_velocity) * glm::length(b.half_extents);
        if (point_speed < 0.05f) {
            ++r.resting;
            tilt_sum += tilt_degrees(b.orientation);
        }
    }
    r.mean_tilt_deg = r.resting > 0 ? tilt_sum / r.resting : 0.0;
    for (const ContactRecord& c : world.contacts()) r.max_penetration = std::max(r.max_penetration, c.contact.depth);
    r.state_hash = state_hash(world);
    return r;
}

void FloatHash::feed(float v) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    for (int i = 0; i < 4; ++i) {
        h_ ^= (bits >> (8 * i)) & 0xffu;
        h_ *= 0x100000001b3ull;
    }
}

void FloatHash::feed_body(const glm::vec3& position, const glm::quat& orientation, const glm::vec3& velocity,
                          const glm::vec3& angular_velocity) {
    for (int k = 0; k < 3; ++k) feed(position[k]);
    feed(orientation.w);
    feed(orientation.x);
    feed(orientation.y);
    feed(orientation.z);
    for (int k = 0; k < 3; ++k) feed(velocity[k]);
    for (int k = 0; k < 3; ++k) feed(angular_velocity[k]);
}

std::uint64_t state_hash(const World& world) {
    FloatHash h;
    world.for_each_body([&](BodyId id) {
        const BodyState b = world.body(id);
        h.feed_body(b.position, b.orientation, b.velocity, b.angular_velocity);
    });
    return h.value();
}

double tilt_degrees(const glm::quat& orientation) {
    const glm::dmat3 r = glm::mat3_cast(glm::dquat(orientation));
    double nearest = 0.0;
    for (int i = 0; i < 3; ++i) nearest = std::max(nearest, std::abs(r[i].y));
    return std::acos(std::min(nearest, 1.0)) * 180.0 / 3.14159265358979323846;
}

std::string hex(std::uint64_t value) {
    char buffer[19];
    std::snprintf(buffer, sizeof buffer, "0x%016llx", static_cast<unsigned long long>(value));
    return buffer;
}

}  // namespace tumble::samples
