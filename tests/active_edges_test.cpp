// Active edges (docs/narrowphase.md, "Active edges"): the adjacency and flags on hand-built meshes, the feature
// tests, and two scenes that catch on seams without them: boxes pushed across tessellated floors of the real levels,
// and a box sliding over a 10 x 10 grid of flush static boxes. Each scene also runs with WorldSettings::active_edges_only switched off, to show that
// without the flags the same boxes do catch on the seams (so the assertions can fail).

#include <cmath>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <tumble/tumble.hpp>

#include "support/test_util.hpp"

namespace {

using tumble::EdgeFlags;
using tumble::Triangle;

constexpr float kDt = 1.0f / 60.0f;

bool edge_active(EdgeFlags f, int j) { return (f >> j & 1u) != 0; }
bool vertex_active(EdgeFlags f, int k) { return (f >> (3 + k) & 1u) != 0; }

// ---------------------------------------------------------------------------------------------------------------
// Adjacency on hand-built meshes.

// An n x n grid of unit squares in the plane y = 0, two triangles each, counter-clockwise seen from +y.
std::vector<Triangle> flat_grid(int n) {
    std::vector<Triangle> out;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const glm::vec3 p00(float(i), 0, float(j)), p10(float(i + 1), 0, float(j)), p01(float(i), 0, float(j + 1)),
                p11(float(i + 1), 0, float(j + 1));
            out.push_back({p00, p01, p11});
            out.push_back({p00, p11, p10});
        }
    return out;
}

TEST(ActiveEdges, FlatGridInteriorEdgesAndVerticesAreInactiveBoundaryActive) {
    const std::vector<Triangle> grid = flat_grid(3);
    tumble::ActiveEdgeStats s;
    const std::vector<EdgeFlags> f = tumble::compute_active_edges(grid, tumble::kActiveEdgeAngle, &s);
    ASSERT_EQ(f.size(), grid.size());
    int boundary = 0, interior = 0;
    for (std::size_t t = 0; t < grid.size(); ++t)
        for (int j = 0; j < 3; ++j) {
            const glm::vec3 p = j == 0 ? grid[t].a : (j == 1 ? grid[t].b : grid[t].c);
            const glm::vec3 q = j == 0 ? grid[t].b : (j == 1 ? grid[t].c : grid[t].a);
            const bool on_boundary = (p.x == q.x && (p.x == 0 || p.x == 3)) || (p.z == q.z && (p.z == 0 || p.z == 3));
            EXPECT_EQ(edge_active(f[t], j), on_boundary) << "triangle " << t << " edge " << j;
            (on_boundary ? boundary : interior)++;
            const bool corner_on_boundary = p.x == 0 || p.x == 3 || p.z == 0 || p.z == 3;
            EXPECT_EQ(vertex_active(f[t], j), corner_on_boundary) << "triangle " << t << " vertex " << j;
        }
    EXPECT_EQ(boundary, 12);
    EXPECT_EQ(s.edges, 54u);
    EXPECT_EQ(s.shared, static_cast<std::size_t>(interior));
    EXPECT_EQ(s.open, 12u);
    EXPECT_EQ(s.inactive, static_cast<std::size_t>(interior));
    EXPECT_EQ(s.vertices, 16u);
    EXPECT_EQ(s.inactive_vertices, 4u);
}

// Two triangles sharing the edge (0,0,0)-(0,0,1): the first in y = 0 on x < 0, the second turned about the edge by
// `bend` radians (positive: up, towards the first one's front, i.e. concave).
std::vector<Triangle> hinge(double bend) {
    const glm::vec3 e0(0, 0, 0), e1(0, 0, 1);
    const Triangle first{{-1, 0, 0.5f}, e1, e0};  // normal (b - a) x (c - a) = +y
    const glm::vec3 w(static_cast<float>(std::cos(bend)), static_cast<float>(std::sin(bend)), 0.5f);
    const Triangle second{e0, e1, w};  // traverses the edge the other way
    return {first, second};
}

TEST(ActiveEdges, DihedralAngleDecidesAgainstTheTolerance) {
    const double deg = 3.14159265358979 / 180;
    struct Case {
        double bend;
        bool active;
    } cases[] = {{0, false},        {3 * deg, false},  {-3 * deg, false}, {-4.9 * deg, false}, {-5.1 * deg, true},
                 {-30 * deg, true}, {30 * deg, false}, {90 * deg, false}, {-90 * deg, true},   {-179 * deg, true}};
    for (const Case& c : cases) {
        const std::vector<Triangle> h = hinge(c.bend);
        const auto f = tumble::compute_active_edges(h);
        EXPECT_EQ(edge_active(f[0], 1), c.active) << "bend " << c.bend / deg << " degrees";  // first: edge b -> c
        EXPECT_EQ(edge_active(f[1], 0), c.active) << "bend " << c.bend / deg << " degrees";  // second: edge a -> b
        // The outer edges are open, hence active, and so is every vertex.
        EXPECT_TRUE(edge_active(f[0], 0) && edge_active(f[0], 2) && edge_active(f[1], 1) && edge_active(f[1], 2));
        for (int k = 0; k < 3; ++k) EXPECT_TRUE(vertex_active(f[0], k) && vertex_active(f[1], k));
    }
    // A wider tolerance takes in a 10 degree convex bend.
    EXPECT_FALSE(edge_active(tumble::compute_active_edges(hinge(-10 * deg), 15 * deg)[0], 1));
}

TEST(ActiveEdges, FlippedNeighbourLeavesTheEdgeActive) {
    std::vector<Triangle> h = hinge(0.0);
    std::swap(h[1].a, h[1].b);  // same plane, same edge, wound the other way round
    tumble::ActiveEdgeStats s;
    const auto f = tumble::compute_active_edges(h, tumble::kActiveEdgeAngle, &s);
    EXPECT_TRUE(edge_active(f[0], 1));
    EXPECT_EQ(s.inconsistent, 2u);
}

TEST(ActiveEdges, TJunctionsCountAsNeighboursOnlyWhenTheyCoverTheWholeEdge) {
    // A big triangle with the edge (0,0,0)-(0,0,2) and, across it, two triangles meeting at (0,0,1).
    const Triangle big{{-1, 0, 1}, {0, 0, 2}, {0, 0, 0}};
    const Triangle low{{0, 0, 0}, {0, 0, 1}, {1, 0, 0.5f}};
    const Triangle high{{0, 0, 1}, {0, 0, 2}, {1, 0, 1.5f}};
    tumble::ActiveEdgeStats s;
    auto f = tumble::compute_active_edges(std::vector<Triangle>{big, low, high}, tumble::kActiveEdgeAngle, &s);
    EXPECT_FALSE(edge_active(f[0], 1));
    EXPECT_FALSE(edge_active(f[1], 0));
    EXPECT_FALSE(edge_active(f[2], 0));
    EXPECT_EQ(s.t_junction, 3u);
    // Without the upper half, the big edge is only half covered: it stays active; the lower small edge is covered.
    f = tumble::compute_active_edges(std::vector<Triangle>{big, low}, tumble::kActiveEdgeAngle, &s);
    EXPECT_TRUE(edge_active(f[0], 1));
    EXPECT_FALSE(edge_active(f[1], 0));
    // The T-junction vertex (0,0,1) also ends the small triangles' outer edges, which are open: it is active.
    f = tumble::compute_active_edges(std::vector<Triangle>{big, low, high});
    EXPECT_TRUE(vertex_active(f[1], 1));
}

TEST(ActiveEdges, ThreeTrianglesOnAnEdge) {
    // Floor on both sides of the line x = 0 and a wall rising from it: each floor edge is continued by the other
    // floor (flat) and the wall (concave); the wall's bottom edge by either floor (concave).
    const Triangle left{{-1, 0, 0.5f}, {0, 0, 1}, {0, 0, 0}};
    const Triangle right{{0, 0, 0}, {0, 0, 1}, {1, 0, 0.5f}};
    const Triangle wall{{0, 0, 1}, {0, 0, 0}, {0, 1, 0.5f}};
    tumble::ActiveEdgeStats s;
    const auto f = tumble::compute_active_edges(std::vector<Triangle>{left, right, wall}, tumble::kActiveEdgeAngle, &s);
    EXPECT_FALSE(edge_active(f[0], 1));
    EXPECT_FALSE(edge_active(f[1], 0));
    EXPECT_EQ(s.multiply_shared, 3u);
    // The wall runs (0,0,1) -> (0,0,0) like `left` does: flipped against it, consistent with `right`, which
    // continues it concavely.
    EXPECT_FALSE(edge_active(f[2], 0));
}

// ---------------------------------------------------------------------------------------------------------------
// Feature tests.

TEST(ActiveEdges, SupportingFeatureOfATriangleContact) {
    const Triangle t{{0, 0, 0}, {0, 0, 2}, {2, 0, 0}};  // front +y; edge 0 along z at x = 0, edge 1 the diagonal
    tumble::Contact c;
    c.axis = 4;
    // The box is on the -x side: the normal (box to triangle) is +x; the deepest part is edge 0 (a, b at x = 0).
    c.normal = {1, 0, 0};
    EXPECT_TRUE(tumble::on_inactive_feature(t, c, EdgeFlags(0b111110)));   // edge 0 inactive
    EXPECT_FALSE(tumble::on_inactive_feature(t, c, EdgeFlags(0b111101)));  // edge 0 active
    // Tilted down by 45 degrees about z: still perpendicular to edge 0.
    c.normal = glm::normalize(glm::vec3(1, -1, 0));
    EXPECT_TRUE(tumble::on_inactive_feature(t, c, EdgeFlags(0b111110)));
    // Turned about y by 2 degrees: vertex a is deepest alone; it decides.
    c.normal = {std::cos(0.035f), 0, std::sin(0.035f)};
    EXPECT_FALSE(tumble::on_inactive_feature(t, c, EdgeFlags(0b111110)));  // vertex a active
    EXPECT_TRUE(tumble::on_inactive_feature(t, c, EdgeFlags(0b110110)));   // vertex a inactive
    // Turned by only 0.3 degrees: within kFeatureAngle of edge 0.
    c.normal = {std::cos(0.005f), 0, std::sin(0.005f)};
    EXPECT_TRUE(tumble::on_inactive_feature(t, c, EdgeFlags(0b111110)));
    // A box face along the face normal: its deepest vertex and most perpendicular edge decide, and the replacement
    // by the face normal is then the same contact (checked with mesh_contact below). Axis 3 is never inactive.
    c.normal = {0, -1, 0};
    EXPECT_TRUE(tumble::on_inactive_feature(t, c, EdgeFlags(0)));
    EXPECT_FALSE(tumble::on_inactive_feature(t, c, tumble::kAllEdgesActive));
    c.axis = 3;
    c.normal = {1, 0, 0};
    EXPECT_FALSE(tumble::on_inactive_feature(t, c, EdgeFlags(0)));
    const tumble::Obb resting{{0.5f, 0.099f, 0.5f}, glm::mat3(1.0f), {0.2f, 0.1f, 0.2f}};
    const auto sat = tumble::mesh_contact(resting, t, resting.center);
    const auto flagged = tumble::mesh_contact(resting, t, resting.center, EdgeFlags(0));
    ASSERT_TRUE(sat && flagged);
    EXPECT_EQ(sat->normal, glm::vec3(0, -1, 0));
    EXPECT_EQ(flagged->normal, glm::vec3(0, -1, 0));
    EXPECT_NEAR(flagged->depth, sat->depth, 1e-7f);
}

TEST(ActiveEdges, FlushFacesOfBoxes) {
    const glm::mat3 I(1.0f);
    const tumble::Obb a{{0, 0, 0}, I, {0.5f, 0.5f, 0.5f}};
    const tumble::Obb right{{1, 0, 0}, I, {0.5f, 0.5f, 0.5f}};
    EXPECT_EQ(tumble::covered_faces(a, right, 1e-5f), 0b000001);  // a's +x face
    EXPECT_EQ(tumble::covered_faces(right, a, 1e-5f), 0b000010);  // right's -x face
    // A gap of 1 mm, a step of 1 mm, a half-size neighbour: not covered.
    EXPECT_EQ(tumble::covered_faces(a, {{1.001f, 0, 0}, I, {0.5f, 0.5f, 0.5f}}, 1e-5f), 0);
    EXPECT_EQ(tumble::covered_faces(a, {{1, 0.001f, 0}, I, {0.5f, 0.5f, 0.5f}}, 1e-5f), 0);
    EXPECT_EQ(tumble::covered_faces(a, {{0.75f, 0, 0}, I, {0.25f, 0.25f, 0.25f}}, 1e-5f), 0);
    // A larger neighbour covers; the face is covered even when the neighbour is turned 90 degrees about x.
    EXPECT_EQ(tumble::covered_faces(a, {{1.5f, 0, 0}, I, {1, 2, 2}}, 1e-5f), 0b000001);
    const glm::mat3 turned = testutil::rotation_about({1, 0, 0}, 1.5707963267948966);
    EXPECT_EQ(tumble::covered_faces(a, {{1, 0, 0}, turned, {0.5f, 0.5f, 0.5f}}, 1e-5f), 0b000001);
    const glm::mat3 diagonal = testutil::rotation_about({1, 0, 0}, 0.7853981633974483);
    EXPECT_EQ(tumble::covered_faces(a, {{1, 0, 0}, diagonal, {0.5f, 0.5f, 0.5f}}, 1e-5f), 0);
    // The support feature of a box: an edge between the top and a covered face touches an internal face.
    EXPECT_TRUE(tumble::on_internal_face(a, glm::normalize(glm::vec3(1, 1, 0)), 0b000001));
    EXPECT_FALSE(tumble::on_internal_face(a, {0, 1, 0}, 0b000001));
    EXPECT_FALSE(tumble::on_internal_face(a, glm::normalize(glm::vec3(-1, 1, 0)), 0b000001));
}

TEST(ActiveEdges, BoxContactNeverPushesThroughAnInternalFace) {
    // Two flush static unit boxes A (x in [-0.5, 0.5]) and B (x in [0.5, 1.5]), tops at y = 0.5.
    const glm::mat3 I(1.0f);
    const tumble::Obb A{{0, 0, 0}, I, glm::vec3(0.5f)}, B{{1, 0, 0}, I, glm::vec3(0.5f)};
    const tumble::FaceFlags a_internal = tumble::covered_faces(A, B, 1e-5f), b_internal = tumble::covered_faces(B, A, 1e-5f);
    // A small box sunk 3 mm into the tops that has crossed the seam into B by 1 mm: the SAT against B alone pushes it
    // back along -x; with B's internal face it is pushed up by the 3 mm.
    const tumble::Obb d{{0.5f - 0.2f + 0.001f, 0.5f + 0.1f - 0.003f, 0}, I, {0.2f, 0.1f, 0.2f}};
    const auto sat = tumble::collide(d, B);
    ASSERT_TRUE(sat);
    EXPECT_EQ(sat->normal, glm::vec3(1, 0, 0));
    EXPECT_NEAR(sat->depth, 0.001f, 1e-6f);
    auto c = tumble::box_contact(d, 0, B, b_internal);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->normal, glm::vec3(0, -1, 0));  // from d to B: d moves up
    EXPECT_NEAR(c->depth, 0.003f, 1e-6f);
    EXPECT_EQ(c->axis, 4);  // B's y axis
    EXPECT_TRUE(c->negative);
    // The same pair the other way round: the normal flips, the axis is A's (the first box's) y axis.
    c = tumble::box_contact(B, b_internal, d, 0);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->normal, glm::vec3(0, 1, 0));
    EXPECT_EQ(c->axis, 1);
    EXPECT_FALSE(c->negative);
    // Against A's outer face (x = -0.5, not internal) a box pushing in from the side keeps the SAT's sideways push.
    const tumble::Obb side{{-0.5f - 0.2f + 0.004f, 0, 0}, I, {0.2f, 0.1f, 0.2f}};
    c = tumble::box_contact(side, 0, A, a_internal);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->normal, glm::vec3(1, 0, 0));
    EXPECT_NEAR(c->depth, 0.004f, 1e-6f);
    // Without internal faces box_contact is collide.
    c = tumble::box_contact(d, 0, B, 0);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->normal, sat->normal);
    EXPECT_EQ(c->depth, sat->depth);
}

// The engine keeps static boxes' internal faces up to date: a face is internal only while a flush static neighbour
// covers it. A weightless box pushed into A's +x face stops there (pushed back along x) once B, which covered that
// face, has been destroyed or moved away; a stale flag would push it along y instead.
TEST(ActiveEdges, InternalFacesFollowStaticBoxesThatAreDestroyedOrMoved) {
    for (int change = 0; change < 3; ++change) {
        tumble::WorldSettings settings;
        settings.gravity = glm::vec3(0.0f);
        tumble::World w(settings);
        tumble::BodyDef s;
        s.half_extents = glm::vec3(0.5f);
        s.mass = 0.0f;
        w.create_body(s);  // A at the origin
        s.position = {1, 0, 0};
        const tumble::BodyId b = w.create_body(s);  // B, flush against A's +x face
        if (change == 0) w.destroy_body(b);
        if (change == 1) w.set_position(b, {1, 5, 0});
        if (change == 2) {  // turned and moved: no longer flush
            w.set_orientation(b, glm::quat_cast(testutil::rotation_about({0, 1, 0}, 0.5)));
            w.set_position(b, {3, 0, 0});
        }
        tumble::BodyDef d;
        d.half_extents = {0.2f, 0.2f, 0.2f};
        d.position = {0.75f, 0.1f, 0.0f};
        d.velocity = {-1.0f, 0, 0};
        const tumble::BodyId id = w.create_body(d);
        for (int n = 0; n < 30; ++n) w.step(kDt);
        const tumble::BodyState st = w.body(id);
        EXPECT_NEAR(st.position.x, 0.7f, 1e-3f) << "change " << change;  // resting against A's +x face
        // A stale flag would push it out along y by ~0.6 m; what is left is the solver's round-off of a square hit
        // on a turning box (1e-5 m/s of spin after the velocity pass).
        EXPECT_NEAR(st.position.y, 0.1f, 1e-4f) << "change " << change;
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Scenes.

// What happened to one sliding box.
struct Slide {
    int steps = 0;
    int tilted_predicted = 0;    // contacts at the predicted position (what the solver's first pass sees) whose
                                 // normal is not vertical (|n.y| < 0.9999)
    int tilted_reported = 0;     // the same for World::contacts() after each step
    float max_sideways = 0.0f;   // largest horizontal velocity change, m/s
    float max_rise = 0.0f;       // largest height change of the box centre, m
};

// Counts the non-vertical contacts of a box at its predicted position `box` (start of the step at `start`).
using Probe = std::function<int(const tumble::Obb& box, const glm::vec3& start)>;

// Slides the body `id` for `steps` steps with horizontal velocity `v`. Before every step, `probe` counts the tilted
// contacts at the position the step predicts (x + (v + g dt) dt, stage 1 of World::step); after it, the tilted
// contacts the world reports and the change of velocity and height.
Slide slide(tumble::World& w, tumble::BodyId id, glm::vec3 v, int steps, const Probe& probe) {
    Slide r;
    w.set_velocity(id, v);
    const float y0 = w.body(id).position.y;
    for (int n = 0; n < steps; ++n) {
        const tumble::BodyState before = w.body(id);
        tumble::Obb predicted = w.obb(id);
        predicted.center += (before.velocity + w.settings().gravity * kDt) * kDt;
        r.tilted_predicted += probe(predicted, before.position);
        w.step(kDt);
        ++r.steps;
        for (const tumble::ContactRecord& c : w.contacts())
            if ((c.a == id || c.b == id) && std::abs(c.contact.normal.y) < 0.9999f) ++r.tilted_reported;
        const tumble::BodyState s = w.body(id);
        r.max_sideways = std::max(r.max_sideways, glm::length(glm::vec2(s.velocity.x - v.x, s.velocity.z - v.z)));
        r.max_rise = std::max(r.max_rise, std::abs(s.position.y - y0));
    }
    return r;
}

// Settings with active edges on or off. The sliding boxes have friction 0, which makes every pair they are in
// frictionless (pairs combine friction as sqrt(a * b)).
tumble::WorldSettings with_active_edges(bool active_edges) {
    tumble::WorldSettings s;
    s.active_edges_only = active_edges;
    return s;
}

// A straight path across a large flat floor region of a level: the box's footprint stays on floor triangles at one
// height over the whole path plus a margin, nothing else comes within 2 cm above the floor, and the footprint
// crosses at least `min_triangles` different triangles.
struct FloorPath {
    glm::vec3 start;  // box centre, resting on the floor
    glm::vec3 direction;
    glm::quat orientation;
    int triangles = 0;  // distinct floor triangles under the path
};

std::vector<FloorPath> find_floor_paths(const tumble::TriangleMesh& mesh, const glm::vec3& half, float length, int want,
                                        int min_triangles, std::uint64_t seed) {
    std::vector<Triangle> tris;
    for (std::size_t t = 0; t < mesh.triangle_count(); ++t) tris.push_back(mesh.triangle(t));
    const tumble::MeshIndex index(tris);
    std::vector<std::uint32_t> floors;
    for (std::uint32_t t = 0; t < tris.size(); ++t)
        if (glm::normalize(tris[t].scaled_normal()).y > 0.99999f) floors.push_back(t);
    testutil::Random rng(seed);
    std::vector<FloorPath> out;
    std::vector<std::uint32_t> found;
    for (int attempt = 0; attempt < 20000 && static_cast<int>(out.size()) < want; ++attempt) {
        const Triangle& t = tris[floors[static_cast<std::size_t>(rng.index(static_cast<int>(floors.size())))]];
        double u = rng.uniform(), v = rng.uniform();
        if (u + v > 1) u = 1 - u, v = 1 - v;
        const glm::vec3 p = t.a + (t.b - t.a) * static_cast<float>(u) + (t.c - t.a) * static_cast<float>(v);
        const double heading = rng.uniform(0, 6.283185307179586);
        const glm::vec3 dir(static_cast<float>(std::cos(heading)), 0, static_cast<float>(std::sin(heading)));
        const glm::quat q = glm::quat_cast(testutil::rotation_about({0, 1, 0}, rng.uniform(0, 6.283185307179586)));
        const glm::mat3 axes = glm::mat3_cast(q);
        const float y0 = p.y;
        bool ok = true;
        std::vector<std::uint32_t> under;
        for (float s = -0.3f; s <= length + 0.3f && ok; s += 0.02f) {
            const glm::vec3 c = p + dir * s;
            for (int k = 0; k < 5 && ok; ++k) {  // centre and the four bottom corners
                glm::vec3 probe = c;
                if (k > 0) probe += axes[0] * (k & 1 ? half.x : -half.x) + axes[2] * (k & 2 ? half.z : -half.z);
                const auto hit = index.raycast(probe + glm::vec3(0, 0.5f, 0), {0, -1, 0}, 1.0f);
                ok = hit && hit->normal.y > 0.99999f && std::abs(hit->point.y - y0) < 1e-5f;
                if (ok) under.push_back(hit->triangle);
            }
            const tumble::Obb raised{c + glm::vec3(0, half.y + 0.02f, 0), axes, half};
            found.clear();
            index.query(raised.aabb(), found);
            for (std::uint32_t f : found) ok = ok && !tumble::overlap(raised, tris[f]);
            // Nor does anything but floor come up to the floor under the box: the box sunk 1 mm into the floor meets
            // only floor triangles. (oa_rpg3dm2 has 45-degree ramps buried under its floors with their top edges
            // in the floor's plane: a box crossing such an edge meets a real corner of the level, not a seam.)
            const tumble::Obb sunk{c + glm::vec3(0, half.y - 1e-3f, 0), axes, half};
            found.clear();
            index.query(sunk.aabb(), found);
            for (std::uint32_t f : found)
                ok = ok && (glm::normalize(tris[f].scaled_normal()).y > 0.99999f || !tumble::overlap(sunk, tris[f]));
        }
        if (!ok) continue;
        std::sort(under.begin(), under.end());
        const int distinct = static_cast<int>(std::unique(under.begin(), under.end()) - under.begin());
        if (distinct < min_triangles) continue;
        out.push_back({glm::vec3(p.x, y0 + half.y, p.z), dir, q, distinct});
    }
    return out;
}

std::vector<std::filesystem::path> levels() { return testutil::real_levels(); }

TEST(ActiveEdges, RealLevelStatistics) {
    for (const auto& path : levels()) {
        const tumble::ObjFile file = tumble::load_obj(path);
        std::vector<Triangle> tris;
        for (std::size_t t = 0; t < file.mesh.triangle_count(); ++t) tris.push_back(file.mesh.triangle(t));
        tumble::ActiveEdgeStats s;
        tumble::compute_active_edges(tris, tumble::kActiveEdgeAngle, &s);
        EXPECT_EQ(s.edges, s.shared + s.t_junction + s.open);
        std::printf("[ edges    ] %s: %zu triangle edges: %zu shared (%zu by 3+), %zu T-junction, %zu open, %zu flipped; "
                    "%zu inactive; %zu of %zu vertices inactive\n",
                    path.filename().c_str(), s.edges, s.shared, s.multiply_shared, s.t_junction, s.open, s.inconsistent,
                    s.inactive, s.inactive_vertices, s.vertices);
    }
}

// Boxes given a horizontal velocity across large flat floors of the real levels, frictionless so that any catch
// shows. With active edges every contact normal stays vertical and the box keeps its velocity; without them (the
// same paths), boxes catch on the seams.
TEST(ActiveEdges, BoxesSlideAcrossTessellatedLevelFloorsWithVerticalNormals) {
    const glm::vec3 half(0.3f, 0.15f, 0.2f);
    const float speed = 1.5f, length = 2.5f;
    const int steps = static_cast<int>(length / (speed * kDt));
    int paths = 0, seams = 0, caught_off = 0, tilted_off = 0;
    float worst_off = 0.0f;
    for (const auto& path : levels()) {
        const tumble::ObjFile file = tumble::load_obj(path);
        const std::vector<FloorPath> found = find_floor_paths(file.mesh, half, length, 12, 6, 99);
        EXPECT_GE(found.size(), 8u) << path.filename();
        std::vector<Triangle> tris;
        for (std::size_t t = 0; t < file.mesh.triangle_count(); ++t) tris.push_back(file.mesh.triangle(t));
        const std::vector<EdgeFlags> flags = tumble::compute_active_edges(tris);
        const tumble::MeshIndex index(tris);
        for (bool active : {true, false}) {
            std::vector<std::uint32_t> near;
            const Probe probe = [&](const tumble::Obb& box, const glm::vec3& start) {
                int tilted = 0;
                near.clear();
                index.query(box.aabb(), near);
                for (std::uint32_t t : near) {
                    const auto c = tumble::mesh_contact(box, tris[t], start, active ? flags[t] : tumble::kAllEdgesActive);
                    if (c && c->depth > 0.0f && std::abs(c->normal.y) < 0.9999f) ++tilted;
                }
                return tilted;
            };
            tumble::World w(with_active_edges(active));
            w.add_mesh(file.mesh);
            for (const FloorPath& p : found) {
                tumble::BodyDef d;
                d.friction = 0.0f;
                d.position = p.start;
                d.orientation = p.orientation;
                d.half_extents = half;
                const tumble::BodyId id = w.create_body(d);
                for (int n = 0; n < 3; ++n) w.step(kDt);  // settle onto the floor
                const Slide r = slide(w, id, p.direction * speed, steps, probe);
                w.destroy_body(id);
                if (active) {
                    ++paths;
                    seams += p.triangles - 1;
                    EXPECT_EQ(r.tilted_predicted, 0) << path.filename() << " path " << paths;
                    EXPECT_EQ(r.tilted_reported, 0) << path.filename() << " path " << paths;
                    EXPECT_LT(r.max_sideways, 1e-3f) << path.filename() << " path " << paths;
                    EXPECT_LT(r.max_rise, 1e-3f) << path.filename() << " path " << paths;
                } else {
                    tilted_off += r.tilted_predicted;
                    worst_off = std::max(worst_off, r.max_sideways);
                    if (r.tilted_predicted > 0 || r.max_sideways >= 1e-3f) ++caught_off;
                }
            }
        }
    }
    std::printf("[ slide    ] %d paths crossing %d+ triangle seams at %.1f m/s: with active edges every normal vertical "
                "and no velocity change; without, %d paths caught (%d tilted normals, velocity changed by up to "
                "%.3f m/s)\n", paths, seams, static_cast<double>(speed), caught_off, tilted_off,
                static_cast<double>(worst_off));
    EXPECT_GT(caught_off, 0) << "without active edges the boxes should catch somewhere (or this test cannot fail)";
}

// Gently curved tessellated surfaces: a valley and a bump, circular arcs of radius 11.5 m cut into 0.3 m strips that
// turn by 1.5 degrees from one to the next (below the 5 degree tolerance, so every seam is inactive), each strip
// split into triangles across the slide too. A box sliding across them (along x, turned about the vertical) only
// ever gets the face normals of the triangles it touches and is never pushed sideways (along z).
TEST(ActiveEdges, BoxesSlideAcrossGentlyCurvedSurfacesWithFaceNormalsOnly) {
    const double step = 1.5 * 3.14159265358979 / 180, radius = 0.3 / step;
    int runs = 0, caught_off = 0, tilted_off = 0;
    for (int shape = 0; shape < 2; ++shape) {  // 0: valley (concave seams), 1: bump (convex seams below tolerance)
        const double sign = shape == 0 ? 1.0 : -1.0;
        tumble::TriangleMesh mesh;
        const int strips = 24, across = 5;
        for (int i = 0; i <= strips; ++i) {
            const double phi = (i - strips / 2) * step;
            const float x = static_cast<float>(radius * std::sin(phi));
            const float y = static_cast<float>(sign * radius * (1 - std::cos(phi)));
            for (int j = 0; j <= across; ++j) mesh.vertices.push_back({x, y, -2.0f + 0.8f * static_cast<float>(j)});
        }
        for (int i = 0; i < strips; ++i)
            for (int j = 0; j < across; ++j) {
                const std::uint32_t a = static_cast<std::uint32_t>(i * (across + 1) + j), b = a + 1,
                                    c = a + static_cast<std::uint32_t>(across + 1), d = c + 1;
                mesh.indices.insert(mesh.indices.end(), {a, b, d, a, d, c});  // counter-clockwise from +y
            }
        std::vector<Triangle> tris;
        for (std::size_t t = 0; t < mesh.triangle_count(); ++t) tris.push_back(mesh.triangle(t));
        ASSERT_GT(glm::normalize(tris[0].scaled_normal()).y, 0.9f);
        const std::vector<EdgeFlags> flags = tumble::compute_active_edges(tris);
        int active_inner = 0;
        for (EdgeFlags f : flags) active_inner += (f & 0b111) == 0b111 ? 0 : 1;
        EXPECT_EQ(active_inner, static_cast<int>(tris.size()));  // every triangle has inner (inactive) edges
        for (bool active : {true, false}) {
            const Probe probe = [&](const tumble::Obb& box, const glm::vec3& start) {
                int off_face = 0;
                for (std::size_t t = 0; t < tris.size(); ++t) {
                    const auto c = tumble::mesh_contact(box, tris[t], start, active ? flags[t] : tumble::kAllEdgesActive);
                    const glm::vec3 n = glm::normalize(tris[t].scaled_normal());
                    if (c && c->depth > 0.0f && std::abs(glm::dot(c->normal, n)) < 0.9999f) ++off_face;
                }
                return off_face;
            };
            testutil::Random rng(8);
            for (int run = 0; run < 6; ++run) {
                tumble::World w(with_active_edges(active));
                w.add_mesh(mesh);
                tumble::BodyDef d;
                d.friction = 0.0f;
                d.half_extents = {0.3f, 0.15f, 0.2f};
                d.orientation = glm::quat_cast(testutil::rotation_about({0, 1, 0}, rng.uniform(0, 6.28)));
                const float x0 = -2.2f;
                const double phi0 = std::asin(x0 / radius);
                d.position = {x0, static_cast<float>(sign * radius * (1 - std::cos(phi0))) + 0.6f,
                              static_cast<float>(rng.uniform(-1, 1))};
                const tumble::BodyId id = w.create_body(d);
                for (int n = 0; n < 60; ++n) w.step(kDt);  // drop and settle (on the slope it starts to slide)
                const float speed = shape == 0 ? 1.0f : 3.5f;
                w.set_velocity(id, {speed, 0, 0});
                int off_face = 0;
                float lateral = 0.0f;
                for (int n = 0; n < 150 && w.body(id).position.x < 2.2f; ++n) {
                    const tumble::BodyState before = w.body(id);
                    tumble::Obb predicted = w.obb(id);
                    predicted.center += (before.velocity + w.settings().gravity * kDt) * kDt;
                    off_face += probe(predicted, before.position);
                    w.step(kDt);
                    lateral = std::max(lateral, std::abs(w.body(id).velocity.z));
                }
                if (active) {
                    ++runs;
                    EXPECT_EQ(off_face, 0) << "shape " << shape << " run " << run;
                    EXPECT_LT(lateral, 1e-3f) << "shape " << shape << " run " << run;
                } else {
                    tilted_off += off_face;
                    if (off_face > 0 || lateral >= 1e-3f) ++caught_off;
                }
            }
        }
    }
    std::printf("[ curved   ] %d runs over a valley and a bump tessellated at 1.5 degrees: only face normals with active "
                "edges; without, %d runs got edge normals or sideways pushes (%d contacts)\n", runs, caught_off,
                tilted_off);
    EXPECT_GT(caught_off, 0);
}

// A 10 x 10 grid of flush static unit boxes, top at y = 0, and a box sliding over it in several directions and
// turned about the vertical. It is never pushed sideways or up; without the internal faces it is.
TEST(ActiveEdges, BoxSlidesOverAGridOfFlushStaticBoxesWithoutBeingPushedSideways) {
    // The grid, and its internal faces worked out here from covered_faces between every two boxes.
    std::vector<tumble::Obb> grid;
    for (int i = 0; i < 10; ++i)
        for (int j = 0; j < 10; ++j)
            grid.push_back({{static_cast<float>(i), -0.5f, static_cast<float>(j)}, glm::mat3(1.0f), glm::vec3(0.5f)});
    std::vector<tumble::FaceFlags> internal(grid.size(), 0);
    int internal_count = 0;
    for (std::size_t i = 0; i < grid.size(); ++i) {
        for (std::size_t j = 0; j < grid.size(); ++j)
            if (i != j) internal[i] = static_cast<tumble::FaceFlags>(internal[i] | tumble::covered_faces(grid[i], grid[j], 1e-5f));
        for (int f = 0; f < 6; ++f) internal_count += internal[i] >> f & 1;
    }
    EXPECT_EQ(internal_count, 2 * 2 * 9 * 10);  // 90 shared faces in each of x and z, two sides each
    int caught_off = 0, tilted_off = 0, runs = 0;
    float worst_off = 0.0f;
    for (bool active : {true, false}) {
        const Probe probe = [&](const tumble::Obb& box, const glm::vec3&) {
            int tilted = 0;
            for (std::size_t k = 0; k < grid.size(); ++k) {
                const auto c = tumble::box_contact(box, 0, grid[k], active ? internal[k] : tumble::FaceFlags{0});
                if (c && c->depth > 0.0f && std::abs(c->normal.y) < 0.9999f) ++tilted;
            }
            return tilted;
        };
        testutil::Random rng(3);
        for (int run = 0; run < 12; ++run) {
            tumble::World w(with_active_edges(active));
            for (const tumble::Obb& g : grid) {
                tumble::BodyDef d;
                d.position = g.center;
                d.half_extents = g.half_extents;
                d.mass = 0.0f;
                w.create_body(d);
            }
            // Along x, along z, then random headings, the box turned about the vertical.
            const double heading = run < 2 ? 1.5707963267948966 * run : rng.uniform(0, 6.283185307179586);
            const glm::vec3 dir(static_cast<float>(std::cos(heading)), 0, static_cast<float>(std::sin(heading)));
            tumble::BodyDef d;
            d.friction = 0.0f;
            d.half_extents = {0.3f, 0.2f, 0.25f};
            d.orientation = glm::quat_cast(testutil::rotation_about({0, 1, 0}, run < 2 ? 0.0 : rng.uniform(0, 6.28)));
            d.position = glm::vec3(4.5f, 0.2f, 4.5f) - dir * 3.0f;
            const tumble::BodyId id = w.create_body(d);
            for (int n = 0; n < 3; ++n) w.step(kDt);
            const Slide r = slide(w, id, dir * 1.5f, 240, probe);  // 6 m across the middle of the grid
            if (active) {
                ++runs;
                EXPECT_EQ(r.tilted_predicted, 0) << "run " << run;
                EXPECT_EQ(r.tilted_reported, 0) << "run " << run;
                // The box rocks a little as its corners cross the seams (it is a rigid body now: a corner that
                // passes onto the next box meets a new manifold), and a normal from its own slightly tilted bottom
                // face, vertical to 1e-4 (no tilted normal above), has a horizontal part: measured up to 4.1 mm/s
                // of sideways velocity over the 6 m and 1.2 mm of rise, against 1.4 m/s without internal faces.
                EXPECT_LT(r.max_sideways, 5e-3f) << "run " << run;
                EXPECT_LT(r.max_rise, 2e-3f) << "run " << run;
            } else {
                tilted_off += r.tilted_predicted;
                worst_off = std::max(worst_off, r.max_sideways);
                if (r.tilted_predicted > 0 || r.max_sideways >= 1e-3f) ++caught_off;
            }
        }
    }
    std::printf("[ grid     ] %d runs across 10 x 10 flush static boxes: never pushed sideways with internal faces; "
                "without, %d runs caught (%d tilted normals, velocity changed by up to %.3f m/s)\n",
                runs, caught_off, tilted_off, static_cast<double>(worst_off));
    EXPECT_GT(caught_off, 0) << "without internal faces the box should catch on a seam (or this test cannot fail)";
}

}  // namespace
