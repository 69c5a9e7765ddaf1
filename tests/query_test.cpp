// World queries (raycast, raycast_all, overlap_box, sweep_box) against brute force over every body and triangle,
// on random scenes with bodies awake, asleep and static, and on the real levels; filters, bad input, waking.

#include <algorithm>
#include <cstdio>
#include <limits>

#include <gtest/gtest.h>

#include <tumble/tumble.hpp>

#include "support/game_scenes.hpp"
#include "support/test_util.hpp"

namespace {

using namespace gamescene;
using tumble::BodyId;
using tumble::MeshId;
using tumble::QueryFilter;
using tumble::World;

// A world with random boxes of every kind and random triangles, and a list of what it holds.
struct Scene {
    World world;
    std::vector<BodyId> bodies;
    MeshId mesh;
    std::vector<tumble::Triangle> triangles;

    explicit Scene(std::uint64_t seed, int boxes = 300, int tris = 300) : world(no_gravity()) {
        testutil::Random rng(seed);
        for (int i = 0; i < boxes; ++i) {
            tumble::BodyDef d = box(rng.vec(-10, 10), rng.vec(0.05, 0.8), rng.uniform() < 0.3 ? 0.0f : 1.0f);
            d.orientation = rng.rotation();
            d.sensor = rng.uniform() < 0.1;
            d.layer = rng.uniform() < 0.2 ? 2u : 1u;
            bodies.push_back(world.create_body(d));
        }
        tumble::TriangleMesh m;
        for (int i = 0; i < tris; ++i) {
            const glm::vec3 c = rng.vec(-10, 10);
            const float s = rng.uniformf(0.2, 3.0);
            const auto base = static_cast<std::uint32_t>(m.vertices.size());
            m.vertices.insert(m.vertices.end(), {c + rng.vec(-s, s), c + rng.vec(-s, s), c + rng.vec(-s, s)});
            m.indices.insert(m.indices.end(), {base, base + 1, base + 2});
        }
        mesh = world.add_mesh(m);
        for (std::size_t t = 0; t < m.triangle_count(); ++t) triangles.push_back(m.triangle(t));
        // Without gravity the dynamic boxes come to rest (overlapping ones are pushed apart first) and fall asleep;
        // then a third of them is woken, so that queries see both octrees.
        for (int n = 0; n < 120; ++n) world.step(kDt);
        for (std::size_t i = 0; i < bodies.size(); i += 3) world.wake(bodies[i]);
    }
    static tumble::WorldSettings no_gravity() {
        tumble::WorldSettings s;
        s.gravity = glm::vec3(0.0f);
        return s;
    }
    bool visible(BodyId id, const QueryFilter& f) const {
        const tumble::BodyState s = world.body(id);
        return f.bodies && (f.sensors || !s.sensor) && (s.layer & f.mask) != 0 && id != f.ignore;
    }
};

// Every hit by brute force, sorted by distance.
std::vector<tumble::RaycastHit> brute_ray(const Scene& s, glm::vec3 origin, glm::vec3 dir, float max_distance,
                                          const QueryFilter& f) {
    const V o(origin), u(glm::normalize(glm::dvec3(dir)).x, glm::normalize(glm::dvec3(dir)).y,
                         glm::normalize(glm::dvec3(dir)).z);
    std::vector<tumble::RaycastHit> out;
    for (BodyId id : s.bodies) {
        if (!s.visible(id, f)) continue;
        if (const auto t = brute_ray_box(s.world.obb(id), o, u, max_distance)) {
            tumble::RaycastHit h;
            h.body = id;
            h.distance = static_cast<float>(*t);
            out.push_back(h);
        }
    }
    if (f.meshes && (f.mask & tumble::kDefaultLayer))
        for (std::uint32_t t = 0; t < s.triangles.size(); ++t)
            if (const auto hit = brute_ray_triangle(s.triangles[t], o, u, max_distance); hit && (hit->front || f.back_faces)) {
                tumble::RaycastHit h;
                h.mesh = s.mesh;
                h.triangle = t;
                h.distance = static_cast<float>(hit->t);
                out.push_back(h);
            }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.distance < b.distance; });
    return out;
}

bool same_target(const tumble::RaycastHit& a, const tumble::RaycastHit& b) {
    return a.body == b.body && a.mesh == b.mesh && (a.mesh.is_null() || a.triangle == b.triangle);
}

QueryFilter random_filter(testutil::Random& rng, const Scene& s) {
    QueryFilter f;
    const double k = rng.uniform();
    if (k < 0.15) f.mask = 2;
    else if (k < 0.25) f.sensors = true;
    else if (k < 0.35) f.back_faces = true;
    else if (k < 0.4) f.meshes = false;
    else if (k < 0.45) f.bodies = false;
    if (rng.uniform() < 0.2) f.ignore = s.bodies[static_cast<std::size_t>(rng.index(static_cast<int>(s.bodies.size())))];
    return f;
}

TEST(Raycast, ClosestAndAllHitsEqualBruteForceOnARandomScene) {
    Scene s(101);
    ASSERT_GT(s.world.stats().sleeping_bodies, 100u) << "the scene should have sleeping bodies";
    testutil::Random rng(5);
    int hits = 0, body_hits = 0, listed = 0, ambiguous = 0;
    for (int r = 0; r < 2000; ++r) {
        const glm::vec3 origin = rng.vec(-14, 14);
        glm::vec3 dir = rng.unit() * rng.uniformf(0.2, 5.0);  // not unit: the world normalises
        if (r % 2 == 0) {                                      // aimed at a body
            const BodyId target = s.bodies[static_cast<std::size_t>(rng.index(static_cast<int>(s.bodies.size())))];
            dir = s.world.body(target).position + rng.vec(-0.3, 0.3) - origin;
        }
        if (r % 10 == 1) dir = {0, -1, 0};  // straight down, zero components
        const float max_distance = rng.uniform() < 0.1 ? std::numeric_limits<float>::infinity() : rng.uniformf(1, 30);
        const QueryFilter f = random_filter(rng, s);
        const auto want = brute_ray(s, origin, dir, max_distance, f);
        const auto got = s.world.raycast(origin, dir, max_distance, f);
        const auto all = s.world.raycast_all(origin, dir, max_distance, f);
        ASSERT_EQ(got.has_value(), !want.empty())
            << "ray " << r << " want " << (want.empty() ? -1.0f : want[0].distance) << " body "
            << (want.empty() ? 0 : want[0].body.index) << " max " << max_distance << " o " << origin.x << " " << origin.y
            << " " << origin.z << " d " << dir.x << " " << dir.y << " " << dir.z;
        ASSERT_EQ(all.size(), want.size()) << "ray " << r;
        listed += static_cast<int>(all.size());
        for (std::size_t i = 0; i < all.size(); ++i) {
            EXPECT_NEAR(all[i].distance, want[i].distance, 1e-4f * (1 + want[i].distance)) << "ray " << r << " hit " << i;
            if (i > 0) {
                EXPECT_LE(all[i - 1].distance, all[i].distance);
            }
        }
        if (!got) continue;
        ++hits;
        body_hits += !got->body.is_null();
        EXPECT_NEAR(got->distance, want[0].distance, 1e-4f * (1 + want[0].distance)) << "ray " << r;
        if (!same_target(*got, want[0])) {
            // Only a tie within round-off may pick another target.
            ++ambiguous;
            EXPECT_LT(want[1].distance - want[0].distance, 1e-4f) << "ray " << r << " hit the wrong thing";
        }
        EXPECT_TRUE(same_target(*got, all[0])) << "raycast and raycast_all disagree on ray " << r;
        const glm::vec3 u = glm::normalize(dir);
        EXPECT_NEAR(glm::length(got->normal), 1.0f, 1e-5f);
        EXPECT_LE(glm::dot(got->normal, u), 1e-6f) << "the normal must face the ray";
        EXPECT_LT(glm::length(got->point - (origin + u * got->distance)), 1e-4f * (1 + got->distance));
    }
    std::printf("[ raycast  ] 2000 rays: %d closest hits (%d bodies) and %d listed hits agree with brute force, %d ties\n",
                hits, body_hits, listed, ambiguous);
    EXPECT_GT(hits, 500);
    EXPECT_GT(body_hits, 350);
}

TEST(Raycast, NormalsOfBoxFacesAndTriangleSides) {
    World w;
    const BodyId b = w.create_body(box({0, 0, 0}, {1, 2, 3}, 0.0f));
    auto hit = w.raycast({-5, 0.5f, 0.5f}, {1, 0, 0}, 10.0f);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->body, b);
    EXPECT_FLOAT_EQ(hit->distance, 4.0f);
    EXPECT_EQ(hit->normal, glm::vec3(-1, 0, 0));
    EXPECT_EQ(hit->point, glm::vec3(-1, 0.5f, 0.5f));
    // From inside: distance 0, normal against the ray.
    hit = w.raycast({0, 0, 0}, {0, 0, 2}, 10.0f);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->distance, 0.0f);
    EXPECT_EQ(hit->normal, glm::vec3(0, 0, -1));
    // Out of reach.
    EXPECT_FALSE(w.raycast({-5, 0, 0}, {1, 0, 0}, 3.99f));

    // A floor triangle facing +y: hit from above, not from below unless back faces are asked for.
    World v;
    const MeshId m = v.add_mesh(floor_mesh(0.0f, 2.0f));
    hit = v.raycast({0.5f, 3, 0.25f}, {0, -1, 0}, 10.0f);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->mesh, m);
    EXPECT_FLOAT_EQ(hit->distance, 3.0f);
    EXPECT_EQ(hit->normal, glm::vec3(0, 1, 0));
    EXPECT_FALSE(v.raycast({0.5f, -3, 0.25f}, {0, 1, 0}, 10.0f));
    QueryFilter both;
    both.back_faces = true;
    hit = v.raycast({0.5f, -3, 0.25f}, {0, 1, 0}, 10.0f, both);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->normal, glm::vec3(0, -1, 0));
}

TEST(Raycast, RaysFromSpawnPointsEqualBruteForceOnRealLevels) {
    int rays = 0, hits = 0;
    for (const auto& path : levels()) {
        const tumble::ObjFile file = tumble::load_obj(path);
        World w;
        const MeshId m = w.add_mesh(file.mesh);
        testutil::Random rng(9);
        for (const tumble::SpawnPoint& sp : file.spawns) {
            for (int k = 0; k < 12; ++k) {
                const glm::vec3 dir = rng.unit();
                const V o(sp.position), u(dir);
                std::optional<std::pair<LD, std::uint32_t>> want;
                for (std::uint32_t t = 0; t < file.mesh.triangle_count(); ++t)
                    if (const auto h = brute_ray_triangle(file.mesh.triangle(t), o, u, 1e4L); h && h->front)
                        if (!want || h->t < want->first) want = {{h->t, t}};
                const auto got = w.raycast(sp.position, dir, 1e4f);
                ++rays;
                ASSERT_EQ(got.has_value(), want.has_value()) << path.filename() << " spawn ray " << k;
                if (!got) continue;
                ++hits;
                EXPECT_EQ(got->mesh, m);
                EXPECT_NEAR(got->distance, static_cast<double>(want->first), 1e-4 * (1 + static_cast<double>(want->first)));
            }
        }
    }
    std::printf("[ raycast  ] %d rays from spawn points of the real levels: %d front-face hits equal brute force\n", rays,
                hits);
    EXPECT_GT(hits, 0);
}

TEST(OverlapBox, EqualsBruteForceOnARandomScene) {
    Scene s(202);
    testutil::Random rng(6);
    long bodies = 0, triangles = 0;
    for (int q = 0; q < 1000; ++q) {
        const tumble::Obb probe{rng.vec(-11, 11), rng.rotation_matrix(), rng.vec(0.1, 2.5)};
        QueryFilter f = random_filter(rng, s);
        const tumble::OverlapResult got = s.world.overlap_box(probe, f);
        std::vector<BodyId> want_bodies;
        for (BodyId id : s.bodies)
            if (s.visible(id, f) && tumble::overlap(probe, s.world.obb(id))) want_bodies.push_back(id);
        std::vector<tumble::MeshTriangle> want_tris;
        if (f.meshes && (f.mask & tumble::kDefaultLayer))
            for (std::uint32_t t = 0; t < s.triangles.size(); ++t)
                if (tumble::overlap(probe, s.triangles[t])) want_tris.push_back({s.mesh, t});
        std::sort(want_bodies.begin(), want_bodies.end());
        EXPECT_EQ(got.bodies, want_bodies) << "query " << q;
        EXPECT_EQ(got.triangles, want_tris) << "query " << q;
        bodies += static_cast<long>(got.bodies.size());
        triangles += static_cast<long>(got.triangles.size());
    }
    std::printf("[ overlap  ] 1000 boxes: %ld body and %ld triangle overlaps equal brute force\n", bodies, triangles);
    EXPECT_GT(bodies, 300);
    EXPECT_GT(triangles, 300);
}

TEST(SweepBox, EqualsBruteForceOverEveryShape) {
    Scene s(303);
    testutil::Random rng(7);
    int hits = 0, initial = 0;
    for (int q = 0; q < 1000; ++q) {
        const tumble::Obb probe{rng.vec(-11, 11), rng.rotation_matrix(), rng.vec(0.1, 1.0)};
        const glm::vec3 d = rng.vec(-8, 8);
        QueryFilter f = random_filter(rng, s);
        const auto got = s.world.sweep_box(probe, d, f);
        // Brute force: the earliest obstacle over every shape, with the documented rules for initial overlaps and
        // one-sided triangles.
        float best = 2.0f;
        float best_depth = -1.0f;
        auto consider = [&](const std::optional<tumble::SweepHit>& h, glm::vec3 normal, float depth) {
            if (!h) return;
            if (h->initially_overlapping && !(glm::dot(glm::dvec3(d), glm::dvec3(normal)) > 1e-4 * glm::length(glm::dvec3(d))))
                return;
            if (h->toi < best || (h->toi == best && depth > best_depth)) best = h->toi, best_depth = depth;
        };
        for (BodyId id : s.bodies)
            if (s.visible(id, f)) {
                const auto h = tumble::sweep(probe, d, s.world.obb(id));
                if (h) consider(h, h->normal, h->depth);
            }
        if (f.meshes && (f.mask & tumble::kDefaultLayer))
            for (const tumble::Triangle& t : s.triangles) {
                const auto h = tumble::sweep(probe, d, t);
                if (!h) continue;
                if (f.back_faces) {
                    consider(h, h->normal, h->depth);
                    continue;
                }
                const glm::vec3 front = t.scaled_normal();
                if (glm::dot(probe.center - t.a, front) < 0.0f) continue;
                if (h->initially_overlapping) {
                    const auto c = tumble::mesh_contact(probe, t, probe.center);
                    if (c) consider(h, c->normal, c->depth);
                } else if (glm::dot(h->normal, front) < 0.0f) {
                    consider(h, h->normal, 0.0f);
                }
            }
        ASSERT_EQ(got.has_value(), best <= 1.0f) << "sweep " << q;
        if (!got) continue;
        ++hits;
        initial += got->initially_overlapping;
        EXPECT_EQ(got->toi, best) << "sweep " << q;
        EXPECT_EQ(got->position, probe.center + d * got->toi);
        EXPECT_NEAR(glm::length(got->normal), 1.0f, 1e-5f);
        EXPECT_TRUE(got->body.is_null() != got->mesh.is_null());
    }
    std::printf("[ sweep    ] 1000 world sweeps: %d hits (%d initial overlaps) equal brute force\n", hits, initial);
    EXPECT_GT(hits, 300);
}

TEST(SweepBox, ABoxOnAFloorSlidesFreelyAndIsBlockedByAWall) {
    World w;
    w.add_mesh(floor_mesh());
    const BodyId wall = w.create_body(box({3, 1, 0}, {0.1f, 1, 5}, 0.0f));
    const tumble::Obb resting{{0, 0.5f, 0}, glm::mat3(1.0f), glm::vec3(0.5f)};  // touching the floor
    // Sideways along the floor: the touching floor is no obstacle; the wall is, at x = 2.9 - 0.5.
    auto hit = w.sweep_box(resting, {5, 0, 0});
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->body, wall);
    EXPECT_FLOAT_EQ(hit->toi, 2.4f / 5.0f);
    EXPECT_EQ(hit->normal, glm::vec3(1, 0, 0));
    EXPECT_FALSE(hit->initially_overlapping);
    // Up: free. Down, into the floor it touches: blocked at once.
    EXPECT_FALSE(w.sweep_box(resting, {0, 3, 0}));
    hit = w.sweep_box(resting, {0, -1, 0});
    ASSERT_TRUE(hit);
    EXPECT_FALSE(hit->mesh.is_null());
    EXPECT_TRUE(hit->initially_overlapping);
    EXPECT_EQ(hit->toi, 0.0f);
    EXPECT_EQ(hit->normal, glm::vec3(0, -1, 0));
}

TEST(Queries, BadInputThrowsAndChangesNothing) {
    Scene s(404, 50, 50);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const glm::vec3 o(0, 0, 0), d(1, 0, 0);
    EXPECT_THROW(s.world.raycast({nan, 0, 0}, d, 10.0f), tumble::InvalidArgument);
    EXPECT_THROW(s.world.raycast(o, {0, nan, 0}, 10.0f), tumble::InvalidArgument);
    EXPECT_THROW(s.world.raycast(o, {0, 0, 0}, 10.0f), tumble::InvalidArgument);
    EXPECT_THROW(s.world.raycast(o, d, -1.0f), tumble::InvalidArgument);
    EXPECT_THROW(s.world.raycast(o, d, nan), tumble::InvalidArgument);
    EXPECT_THROW(s.world.raycast_all(o, {0, 0, 0}, 10.0f), tumble::InvalidArgument);
    EXPECT_THROW(s.world.raycast_all({0, 0, std::numeric_limits<float>::infinity()}, d, 10.0f), tumble::InvalidArgument);
    EXPECT_NO_THROW(s.world.raycast(o, d, std::numeric_limits<float>::infinity()));
    EXPECT_NO_THROW(s.world.raycast(o, d, 0.0f));
    tumble::Obb bad{{0, 0, 0}, glm::mat3(1.0f), {1, -1, 1}};
    EXPECT_THROW(s.world.overlap_box(bad), tumble::InvalidArgument);
    EXPECT_THROW(s.world.sweep_box(bad, d), tumble::InvalidArgument);
    bad = {{0, nan, 0}, glm::mat3(1.0f), {1, 1, 1}};
    EXPECT_THROW(s.world.overlap_box(bad), tumble::InvalidArgument);
    bad = {{0, 0, 0}, glm::mat3(2.0f), {1, 1, 1}};  // scaled axes
    EXPECT_THROW(s.world.sweep_box(bad, d), tumble::InvalidArgument);
    EXPECT_THROW(s.world.sweep_box({{0, 0, 0}, glm::mat3(1.0f), {1, 1, 1}}, {nan, 0, 0}), tumble::InvalidArgument);
    // The const overloads cannot wake.
    QueryFilter wake;
    wake.wake = true;
    const World& view = s.world;
    EXPECT_THROW(view.raycast(o, d, 10.0f, wake), tumble::InvalidArgument);
    EXPECT_THROW(view.raycast_all(o, d, 10.0f, wake), tumble::InvalidArgument);
    EXPECT_THROW(view.overlap_box({{0, 0, 0}, glm::mat3(1.0f), {1, 1, 1}}, wake), tumble::InvalidArgument);
    EXPECT_THROW(view.sweep_box({{0, 0, 0}, glm::mat3(1.0f), {1, 1, 1}}, d, wake), tumble::InvalidArgument);
}

TEST(Queries, AQueryThatAsksToWakeWakesWhatItReports) {
    tumble::WorldSettings settings;
    World w(settings);
    w.add_mesh(floor_mesh());
    const BodyId a = w.create_body(box({0, 0.5f, 0}));
    const BodyId b = w.create_body(box({4, 0.5f, 0}));
    for (int n = 0; n < 90; ++n) w.step(kDt);
    ASSERT_TRUE(w.body(a).sleeping);
    ASSERT_TRUE(w.body(b).sleeping);
    QueryFilter f;
    EXPECT_TRUE(w.raycast({0, 5, 0}, {0, -1, 0}, 10.0f, f));
    EXPECT_TRUE(w.body(a).sleeping) << "a query without wake changes nothing";
    f.wake = true;
    const auto hit = w.raycast({0, 5, 0}, {0, -1, 0}, 10.0f, f);
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->body, a);
    EXPECT_FALSE(w.body(a).sleeping);
    EXPECT_TRUE(w.body(b).sleeping);
    const auto over = w.overlap_box({{4, 0.5f, 0}, glm::mat3(1.0f), glm::vec3(0.2f)}, f);
    EXPECT_EQ(over.bodies, std::vector<BodyId>{b});
    EXPECT_FALSE(w.body(b).sleeping);
}

}  // namespace
