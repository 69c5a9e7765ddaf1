// OBB-OBB and OBB-triangle separating-axis tests against the independent long-double reference
// (tests/support/sat_reference.hpp), family by family, plus hand-worked cases of the axis and sign conventions.

#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include <tumble/narrowphase/sat.hpp>

#include "support/test_util.hpp"

namespace {

using tumble::Obb;
using tumble::ObbD;
using tumble::Triangle;
using testutil::Random;

std::string describe(const Obb& o) {
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "{c=(%.9g,%.9g,%.9g) x=(%.9g,%.9g,%.9g) y=(%.9g,%.9g,%.9g) z=(%.9g,%.9g,%.9g) h=(%.9g,%.9g,%.9g)}",
                  o.center.x, o.center.y, o.center.z, o.axes[0].x, o.axes[0].y, o.axes[0].z, o.axes[1].x, o.axes[1].y,
                  o.axes[1].z, o.axes[2].x, o.axes[2].y, o.axes[2].z, o.half_extents.x, o.half_extents.y,
                  o.half_extents.z);
    return buf;
}
std::string describe(const Triangle& t) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "{(%.9g,%.9g,%.9g) (%.9g,%.9g,%.9g) (%.9g,%.9g,%.9g)}", t.a.x, t.a.y, t.a.z, t.b.x,
                  t.b.y, t.b.z, t.c.x, t.c.y, t.c.z);
    return buf;
}

Obb random_box(Random& rng, glm::vec3 center, double min_half, double max_half) {
    return {center, rng.rotation_matrix(), rng.vec(min_half, max_half)};
}

// Runs `count` seeded pairs from `make` against the reference and reports the tally.
template <class Second>
void run_family(const char* name, int count, std::uint64_t seed, const std::function<std::pair<Obb, Second>(Random&)>& make,
                double min_checked_fraction = 0.5) {
    Random rng(seed);
    testutil::Tally tally;
    int failures = 0;
    for (int k = 0; k < count && failures < 10; ++k) {
        const auto [a, b] = make(rng);
        ref::Result r;
        if constexpr (std::is_same_v<Second, Obb>)
            r = ref::box_box(a, b);
        else
            r = ref::box_triangle(a, b);
        const std::string error = testutil::check_against_reference(a, b, r, tally);
        if (!error.empty()) {
            ++failures;
            ADD_FAILURE() << name << " case " << k << ": " << error << "\n  A = " << describe(a)
                          << "\n  B = " << describe(b);
        }
    }
    std::printf("[ family   ] %-28s %6ld decided pairs agree with the reference (%ld overlapping), %ld within the "
                "touching margin\n",
                name, tally.checked, tally.overlapping, tally.ambiguous);
    EXPECT_GE(tally.checked, static_cast<long>(min_checked_fraction * count)) << name << ": too few decided pairs";
    EXPECT_GT(tally.overlapping, 0) << name << ": the family never overlaps";
    EXPECT_LT(tally.overlapping, tally.checked) << name << ": the family never separates";
}

using BoxPair = std::pair<Obb, Obb>;
using BoxTri = std::pair<Obb, Triangle>;

TEST(ObbObbReference, RandomGeneralPairs) {
    run_family<Obb>("random general", 20000, 1, [](Random& rng) {
        return BoxPair{random_box(rng, rng.vec(-1.5, 1.5), 0.05, 1.0), random_box(rng, rng.vec(-1.5, 1.5), 0.05, 1.0)};
    });
}

TEST(ObbObbReference, SharedOrientationParallelEdges) {
    // Every edge of A is parallel to an edge of B: six of the nine edge axes are degenerate.
    run_family<Obb>("parallel edges", 5000, 2, [](Random& rng) {
        const glm::mat3 r = rng.rotation_matrix();
        Obb a{rng.vec(-1, 1), r, rng.vec(0.1, 1.0)};
        // B's axes are A's, permuted and negated: still parallel edges.
        const int p = rng.index(3);
        Obb b{rng.vec(-1, 1), glm::mat3(r[p], r[(p + 1) % 3], r[(p + 2) % 3]), rng.vec(0.1, 1.0)};
        if (rng.uniform() < 0.5) b.axes[0] = -b.axes[0], b.axes[1] = -b.axes[1];
        return BoxPair{a, b};
    });
}

TEST(ObbObbReference, AxisAlignedPairs) {
    run_family<Obb>("axis aligned", 5000, 3, [](Random& rng) {
        return BoxPair{Obb{rng.vec(-1, 1), glm::mat3(1.0f), rng.vec(0.1, 1.0)},
                       Obb{rng.vec(-1, 1), glm::mat3(1.0f), rng.vec(0.1, 1.0)}};
    });
}

TEST(ObbObbReference, NestedAndConcentric) {
    run_family<Obb>("nested and concentric", 5000, 4, [](Random& rng) {
        const Obb a = random_box(rng, rng.vec(-1, 1), 0.5, 1.5);
        Obb b = random_box(rng, a.center, 0.05, 0.3);
        const double kind = rng.uniform();
        if (kind < 0.6) {
            b.center = a.center + a.axes * (rng.vec(-0.5, 0.5) * a.half_extents);  // nested inside A
        } else if (kind < 0.8) {
            b.center = a.center + a.axes * (rng.vec(-2.0, 2.0) * a.half_extents);  // inside, poking out or outside
        } else if (kind < 0.9) {
            b = a;  // identical boxes
        }  // else concentric
        return BoxPair{a, b};
    }, 0.9);
}

TEST(ObbObbReference, DegenerateExtents) {
    // Flat boxes, segments and points: some half extents are exactly zero.
    run_family<Obb>("zero extents", 10000, 5, [](Random& rng) {
        Obb a = random_box(rng, rng.vec(-0.8, 0.8), 0.1, 1.0);
        Obb b = random_box(rng, rng.vec(-0.8, 0.8), 0.1, 1.0);
        for (Obb* o : {&a, &b})
            for (int k = 0; k < 3; ++k)
                if (rng.uniform() < 0.4) o->half_extents[k] = 0.0f;
        return BoxPair{a, b};
    }, 0.3);
}

TEST(ObbObbReference, FarFromOrigin) {
    run_family<Obb>("far from origin", 10000, 6, [](Random& rng) {
        const double far = std::pow(10.0, rng.uniform(3, 5));
        const glm::vec3 base = rng.unit() * static_cast<float>(far);
        return BoxPair{random_box(rng, base + rng.vec(-1, 1), 0.1, 1.0), random_box(rng, base + rng.vec(-1, 1), 0.1, 1.0)};
    });
}

TEST(ObbObbReference, DoublePrecisionBoxes) {
    Random rng(7);
    testutil::Tally tally;
    for (int k = 0; k < 5000; ++k) {
        const glm::dmat3 r1 = glm::mat3_cast(glm::dquat(rng.rotation()));
        const glm::dmat3 r2 = glm::mat3_cast(glm::dquat(rng.rotation()));
        const glm::dvec3 base(1e7 * rng.uniform(-1, 1), 1e7 * rng.uniform(-1, 1), 0.0);
        const ObbD a{base + glm::dvec3(rng.vec(-1, 1)), r1, glm::dvec3(rng.vec(0.1, 1.0))};
        const ObbD b{base + glm::dvec3(rng.vec(-1, 1)), r2, glm::dvec3(rng.vec(0.1, 1.0))};
        const std::string error = testutil::check_against_reference(a, b, ref::box_box(a, b), tally);
        ASSERT_TRUE(error.empty()) << "case " << k << ": " << error;
    }
    std::printf("[ family   ] %-28s %6ld decided pairs agree with the reference (%ld overlapping)\n", "double, 1e7 m",
                tally.checked, tally.overlapping);
    EXPECT_GT(tally.checked, 4000);
}

// --- Hand-worked conventions -----------------------------------------------------------------------------------

const Obb kUnit{glm::vec3(0.0f), glm::mat3(1.0f), glm::vec3(1.0f)};

TEST(ObbObbConventions, FaceAxisSignAndDepth) {
    Obb b = kUnit;
    b.center = {1.5f, 0.2f, -0.1f};
    auto c = tumble::collide(kUnit, b);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->axis, 0);
    EXPECT_FALSE(c->negative);
    EXPECT_NEAR(c->depth, 0.5f, 1e-6f);
    EXPECT_EQ(c->normal, glm::vec3(1, 0, 0));

    b.center = {0.1f, -1.75f, 0.0f};
    c = tumble::collide(kUnit, b);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->axis, 1);
    EXPECT_TRUE(c->negative);
    EXPECT_NEAR(c->depth, 0.25f, 1e-6f);
    EXPECT_EQ(c->normal, glm::vec3(0, -1, 0));
}

TEST(ObbObbConventions, BFaceAxis) {
    // B rotated 45 degrees about z sits above A's corner region; B's own x face is the shallowest.
    Obb b{glm::vec3(0.0f), testutil::rotation_about({0, 0, 1}, 0.7853981633974483), glm::vec3(0.5f, 2.0f, 2.0f)};
    b.center = glm::vec3(b.axes[0]) * 1.7f;  // along B's x axis
    const auto c = tumble::collide(kUnit, b);
    ASSERT_TRUE(c);
    // A reaches sqrt(2) along B's x; B reaches 0.5: depth = sqrt(2) + 0.5 - 1.7.
    EXPECT_EQ(c->axis, 3);
    EXPECT_FALSE(c->negative);
    EXPECT_NEAR(c->depth, std::sqrt(2.0f) + 0.5f - 1.7f, 1e-5f);
}

TEST(ObbObbConventions, EdgeEdgeAxisIndexAndSign) {
    // A turned 45 degrees about z has an edge along z at x = sqrt(2); B turned 45 degrees about y has an edge along y
    // at x = -sqrt(2) from its centre. With B centred at x = 2 sqrt(2) - d the two edges cross at depth d.
    // L = A_z x B_y = z x y = -x, axis 6 + 3*2 + 1 = 13; the normal from A to B is +x, so negative is true.
    const float d = 0.1f;
    const Obb a{glm::vec3(0.0f), testutil::rotation_about({0, 0, 1}, 0.7853981633974483), glm::vec3(1.0f)};
    const Obb b{glm::vec3(2.0f * std::sqrt(2.0f) - d, 0.0f, 0.0f), testutil::rotation_about({0, 1, 0}, 0.7853981633974483),
                glm::vec3(1.0f)};
    const auto c = tumble::collide(a, b);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->axis, 13);
    EXPECT_TRUE(c->negative);
    EXPECT_NEAR(c->depth, d, 1e-5f);
    EXPECT_NEAR(c->normal.x, 1.0f, 1e-6f);
    EXPECT_NEAR(c->normal.y, 0.0f, 1e-6f);
    EXPECT_NEAR(c->normal.z, 0.0f, 1e-6f);
}

TEST(ObbObbConventions, TouchingCountsAsOverlapAndConcentricIsPositive) {
    Obb b = kUnit;
    b.center = {2.0f, 0.0f, 0.0f};  // faces exactly touching
    EXPECT_TRUE(tumble::overlap(kUnit, b));
    const auto c = tumble::collide(kUnit, b);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->depth, 0.0f);
    b.center = {2.0f + 4e-7f, 0.0f, 0.0f};
    EXPECT_FALSE(tumble::overlap(kUnit, b));
    EXPECT_FALSE(tumble::collide(kUnit, b));

    const auto same = tumble::collide(kUnit, kUnit);
    ASSERT_TRUE(same);
    EXPECT_FALSE(same->negative);
    EXPECT_EQ(same->depth, 2.0f);
}

TEST(ObbObbConventions, RestingStackPrefersFaceAxis) {
    // Equal boxes stacked flat, the upper one turned about the vertical: several edge axes are the vertical again and
    // tie with the face axis. The contact must stay on a face axis with a vertical normal.
    Random rng(11);
    for (int k = 0; k < 2000; ++k) {
        const Obb lower{glm::vec3(0.0f), testutil::rotation_about({0, 1, 0}, rng.uniform(0, 6.3)), glm::vec3(0.5f, 0.25f, 0.5f)};
        Obb upper{glm::vec3(rng.uniformf(-0.3, 0.3), 0.5f - 0.003f, rng.uniformf(-0.3, 0.3)),
                  testutil::rotation_about({0, 1, 0}, rng.uniform(0, 6.3)), glm::vec3(0.5f, 0.25f, 0.5f)};
        const auto c = tumble::collide(lower, upper);
        ASSERT_TRUE(c) << k;
        EXPECT_LT(c->axis, 6) << "case " << k << " chose edge axis " << c->axis;
        EXPECT_NEAR(c->normal.y, 1.0f, 1e-6f) << k;
        EXPECT_NEAR(c->depth, 0.003f, 1e-6f) << k;
    }
}

TEST(ObbObbConventions, NonFiniteInputIsSeparated) {
    const float bad[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()};
    for (float v : bad) {
        Obb b = kUnit;
        b.center.y = v;
        EXPECT_FALSE(tumble::overlap(kUnit, b));
        EXPECT_FALSE(tumble::collide(kUnit, b));
        b = kUnit;
        b.half_extents.z = v;
        EXPECT_FALSE(tumble::overlap(kUnit, b));
        b = kUnit;
        b.axes[1].x = v;
        EXPECT_FALSE(tumble::collide(b, kUnit));
        const Triangle t{{0, 0, 0}, {v, 0, 0}, {0, 1, 0}};
        EXPECT_FALSE(tumble::overlap(kUnit, t));
        EXPECT_FALSE(tumble::collide(kUnit, t));
    }
}

// --- OBB - triangle ----------------------------------------------------------------------------------------------

Triangle random_triangle(Random& rng, glm::vec3 around, double spread) {
    return {around + rng.vec(-spread, spread), around + rng.vec(-spread, spread), around + rng.vec(-spread, spread)};
}

TEST(ObbTriangleReference, RandomTriangles) {
    run_family<Triangle>("box-triangle random", 20000, 21, [](Random& rng) {
        return BoxTri{random_box(rng, rng.vec(-1, 1), 0.1, 1.0), random_triangle(rng, rng.vec(-1, 1), 1.5)};
    });
}

TEST(ObbTriangleReference, TinyAndSliverTriangles) {
    run_family<Triangle>("box-triangle tiny/sliver", 10000, 22, [](Random& rng) {
        const Obb box = random_box(rng, glm::vec3(0.0f), 0.2, 1.0);
        const glm::vec3 p = rng.vec(-1.2, 1.2);
        if (rng.uniform() < 0.5) return BoxTri{box, random_triangle(rng, p, 1e-3)};  // tiny
        const glm::vec3 dir = rng.unit() * rng.uniformf(0.5, 2.0);
        const glm::vec3 thin = rng.unit() * rng.uniformf(1e-5, 1e-3);
        return BoxTri{box, Triangle{p - dir, p + dir, p + thin}};  // sliver
    }, 0.3);
}

TEST(ObbTriangleReference, InsideBoxAndPiercingVertex) {
    run_family<Triangle>("box-triangle inside/pierce", 10000, 23, [](Random& rng) {
        const Obb box = random_box(rng, rng.vec(-1, 1), 0.3, 1.0);
        if (rng.uniform() < 0.5) {
            // Fully inside: vertices at random local points.
            auto inside = [&] { return box.center + box.axes * (rng.vec(-0.9, 0.9) * box.half_extents); };
            return BoxTri{box, Triangle{inside(), inside(), inside()}};
        }
        // A box corner pokes through the triangle: triangle around a corner, normal roughly along the diagonal.
        const auto corners = box.corners();
        const glm::vec3 corner = corners[static_cast<std::size_t>(rng.index(8))];
        const glm::vec3 out = glm::normalize(corner - box.center);
        const glm::vec3 plane_point = corner - out * rng.uniformf(-0.05, 0.2);
        glm::vec3 u = glm::normalize(glm::cross(out, rng.unit())), v = glm::cross(out, u);
        const float s = rng.uniformf(0.3, 2.0);
        return BoxTri{box, Triangle{plane_point + u * s, plane_point - u * (0.5f * s) + v * s,
                                    plane_point - u * (0.5f * s) - v * s}};
    }, 0.5);
}

TEST(ObbTriangleReference, EdgeCrossingEdge) {
    // A long thin triangle whose edge passes close to a box edge, at random angles.
    run_family<Triangle>("box-triangle edge-edge", 10000, 24, [](Random& rng) {
        const Obb box = random_box(rng, glm::vec3(0.0f), 0.3, 1.0);
        const auto corners = box.corners();
        const int k = rng.index(8);
        const int axis = rng.index(3);
        const glm::vec3 p0 = corners[static_cast<std::size_t>(k)];
        const glm::vec3 p1 = corners[static_cast<std::size_t>(k ^ (1 << axis))];
        const glm::vec3 mid = 0.5f * (p0 + p1) + rng.unit() * rng.uniformf(0.0, 0.05);
        const glm::vec3 dir = rng.unit();
        const glm::vec3 away = glm::normalize(mid - box.center) + rng.unit() * 0.3f;
        return BoxTri{box, Triangle{mid - dir * 2.0f, mid + dir * 2.0f, mid + away * 2.0f}};
    }, 0.5);
}

TEST(ObbTriangleReference, FarFromOrigin) {
    run_family<Triangle>("box-triangle far", 10000, 25, [](Random& rng) {
        const glm::vec3 base = rng.unit() * static_cast<float>(std::pow(10.0, rng.uniform(3, 5)));
        return BoxTri{random_box(rng, base + rng.vec(-1, 1), 0.1, 1.0), random_triangle(rng, base + rng.vec(-1, 1), 1.5)};
    });
}

TEST(ObbTriangleConventions, FloorContactPointsFromBoxToTriangle) {
    // Unit box at the origin sunk 0.1 m into an upward-facing floor at y = -0.9. Axis 1 (box y) and axis 3 (the
    // triangle normal) tie at depth 0.1; the first face axis wins; the normal points from the box down to the floor.
    const Triangle floor{{-5, -0.9f, 5}, {5, -0.9f, 5}, {0, -0.9f, -5}};
    ASSERT_GT(floor.scaled_normal().y, 0.0f);
    const auto c = tumble::collide(kUnit, floor);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->axis, 1);
    EXPECT_TRUE(c->negative);
    EXPECT_NEAR(c->depth, 0.1f, 1e-6f);
    EXPECT_EQ(c->normal, glm::vec3(0, -1, 0));
}

TEST(ObbTriangleConventions, TriangleNormalAxisAndEdgeAxisNumbering) {
    // A tilted plane under the box: the triangle normal is the least axis (3).
    const glm::vec3 n = glm::normalize(glm::vec3(0.3f, 1.0f, 0.2f));
    const glm::vec3 u = glm::normalize(glm::cross(n, glm::vec3(1, 0, 0))), v = glm::cross(n, u);
    const glm::vec3 p = -n * 1.2f;  // plane 1.2 m below the centre along n; the box reaches further
    Triangle t{p - u * 5.0f - v * 5.0f, p + u * 5.0f, p + v * 5.0f};
    if (glm::dot(t.scaled_normal(), n) < 0) std::swap(t.b, t.c);
    const auto c = tumble::collide(kUnit, t);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->axis, 3);
    EXPECT_TRUE(c->negative);  // the triangle is on the -n side of the box
    const float reach = std::abs(n.x) + std::abs(n.y) + std::abs(n.z);
    EXPECT_NEAR(c->depth, reach - 1.2f, 1e-5f);
    EXPECT_NEAR(glm::dot(c->normal, -n), 1.0f, 1e-6f);

    // Edge axis: a triangle edge along z just inside the box's +x,+y edge (parallel to box z would be degenerate, so
    // tilt it): axis 4 + 3*i + j must name cross(box axis i, edge j).
    Random rng(31);
    int edge_contacts = 0;
    for (int k = 0; k < 500; ++k) {
        const Triangle tri = random_triangle(rng, rng.vec(-1.3, 1.3), 1.0);
        const auto got = tumble::collide(kUnit, tri);
        if (!got || got->axis < 4) continue;
        ++edge_contacts;
        const int i = (got->axis - 4) / 3, j = (got->axis - 4) % 3;
        const glm::vec3 e[3] = {tri.b - tri.a, tri.c - tri.b, tri.a - tri.c};
        const glm::vec3 L = glm::normalize(glm::cross(kUnit.axes[i], e[j]));
        EXPECT_NEAR(std::abs(glm::dot(L, got->normal)), 1.0f, 1e-5f) << k;
        EXPECT_EQ(glm::dot(L, got->normal) < 0, got->negative) << k;
    }
    EXPECT_GT(edge_contacts, 5);
}

TEST(ObbTriangleConventions, DegenerateTrianglesCollideAsSegmentsWithoutNaN) {
    // Collinear and coincident vertices: axis 3 is skipped, never NaN.
    const Triangle collinear{{-2, 0.5f, 0}, {0, 0.5f, 0}, {2, 0.5f, 0}};
    const auto c = tumble::collide(kUnit, collinear);
    ASSERT_TRUE(c);
    EXPECT_NE(c->axis, 3);
    EXPECT_TRUE(std::isfinite(c->depth));
    EXPECT_TRUE(std::isfinite(c->normal.x) && std::isfinite(c->normal.y) && std::isfinite(c->normal.z));
    EXPECT_NEAR(c->depth, 0.5f, 1e-6f);  // pushed out along y: 1 - 0.5

    const Triangle point{{0.2f, 0.9f, 0.1f}, {0.2f, 0.9f, 0.1f}, {0.2f, 0.9f, 0.1f}};
    const auto p = tumble::collide(kUnit, point);
    ASSERT_TRUE(p);
    EXPECT_NEAR(p->depth, 0.1f, 1e-6f);
    EXPECT_EQ(p->axis, 1);
    const Triangle far_point{{0.2f, 1.1f, 0.1f}, {0.2f, 1.1f, 0.1f}, {0.2f, 1.1f, 0.1f}};
    EXPECT_FALSE(tumble::overlap(kUnit, far_point));

    // Random degenerate triangles against the reference.
    run_family<Triangle>("box-triangle degenerate", 5000, 26, [](Random& rng) {
        const Obb box = random_box(rng, glm::vec3(0.0f), 0.3, 1.0);
        const glm::vec3 a = rng.vec(-1.3, 1.3), d = rng.vec(-1, 1);
        const float s = rng.uniformf(-1, 2);
        return BoxTri{box, Triangle{a, a + d, rng.uniform() < 0.2 ? a : a + d * s}};
    }, 0.5);
}

}  // namespace
