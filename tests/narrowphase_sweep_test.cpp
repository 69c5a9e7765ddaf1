// Swept separating-axis tests (sweep.hpp) against an independent reference: the long-double static SAT of
// tests/support/sat_reference.hpp evaluated along the motion.
//
// The reference: g(t) = the reference's signed distance (largest separation over the candidate axes, or minus the
// least depth) of box A moved by t d against B. Every axis contributes max(-push_plus, -push_minus), each affine in
// t, so g is convex; the boxes touch first at the smallest t with g(t) <= 0. The reference finds the minimum of g
// on [0, 1] by golden-section search and then the first zero by bisection, in long double, with no code shared
// with narrowphase/. The test checks that at the reported time of impact the shapes touch (g ~ 0) on the way in,
// and that the reported normal is a separating plane at that time (every point of A on one side, B on the other).

#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include <tumble/narrowphase/sat.hpp>
#include <tumble/narrowphase/sweep.hpp>

#include "support/test_util.hpp"

namespace {

using tumble::Obb;
using tumble::ObbD;
using tumble::Triangle;
using tumble::TriangleD;
using testutil::Random;
using LD = long double;

template <class T>
tumble::ObbT<LD> moved(const tumble::ObbT<T>& a, const tumble::Vec3T<T>& d, LD t) {
    tumble::ObbT<LD> out;
    for (int k = 0; k < 3; ++k) {
        out.center[k] = static_cast<LD>(a.center[k]) + t * static_cast<LD>(d[k]);
        out.half_extents[k] = a.half_extents[k];
        for (int i = 0; i < 3; ++i) out.axes[i][k] = a.axes[i][k];
    }
    return out;
}
template <class T>
tumble::ObbT<LD> widen(const tumble::ObbT<T>& b) {
    return moved(b, tumble::Vec3T<T>(0), 0);
}
template <class T>
tumble::TriangleT<LD> widen(const tumble::TriangleT<T>& t) {
    tumble::TriangleT<LD> out;
    for (int k = 0; k < 3; ++k) {
        out.a[k] = t.a[k];
        out.b[k] = t.b[k];
        out.c[k] = t.c[k];
    }
    return out;
}

ref::Result reference(const tumble::ObbT<LD>& a, const tumble::ObbT<LD>& b) { return ref::box_box(a, b); }
ref::Result reference(const tumble::ObbT<LD>& a, const tumble::TriangleT<LD>& b) { return ref::box_triangle(a, b); }

// The points of the second shape, long double.
std::vector<ref::V3> points(const tumble::ObbT<LD>& b) {
    const auto c = ref::Box(b).corners();
    return {c.begin(), c.end()};
}
std::vector<ref::V3> points(const tumble::TriangleT<LD>& t) { return {ref::V3(t.a), ref::V3(t.b), ref::V3(t.c)}; }

struct Expected {
    enum Kind { kMiss, kHit, kInitial, kAmbiguous } kind = kMiss;
    LD toi = 0;    // first zero of g (kHit)
    LD t_min = 0;  // where g is least on [0, 1]
    LD size = 0;
};

template <class T, class Shape>
Expected expected(const tumble::ObbT<T>& a, const tumble::Vec3T<T>& d, const Shape& b) {
    const auto B = widen(b);
    auto g = [&](LD t) { return reference(moved(a, d, t), B).signed_distance(); };
    Expected e;
    e.size = reference(moved(a, d, 0), B).size;
    const LD margin = testutil::kTouchMargin * e.size;
    const LD g0 = g(0);
    if (std::abs(g0) <= margin) return e.kind = Expected::kAmbiguous, e;
    if (g0 < 0) return e.kind = Expected::kInitial, e;
    // Golden-section search for the minimum of the convex g on [0, 1].
    const LD phi = (std::sqrt(5.0L) - 1) / 2;
    LD lo = 0, hi = 1, x1 = hi - phi * (hi - lo), x2 = lo + phi * (hi - lo), g1 = g(x1), g2 = g(x2);
    for (int k = 0; k < 64; ++k) {  // 0.618^64 ~ 4e-14
        if (g1 <= g2) {
            hi = x2, x2 = x1, g2 = g1, x1 = hi - phi * (hi - lo), g1 = g(x1);
        } else {
            lo = x1, x1 = x2, g1 = g2, x2 = lo + phi * (hi - lo), g2 = g(x2);
        }
    }
    e.t_min = (lo + hi) / 2;
    LD g_min = g(e.t_min);
    if (g(1) < g_min) e.t_min = 1, g_min = g(1);
    if (std::abs(g_min) <= margin) return e.kind = Expected::kAmbiguous, e;
    if (g_min > 0) return e.kind = Expected::kMiss, e;
    LD a0 = 0, a1 = e.t_min;  // g(a0) > 0 >= g(a1)
    for (int k = 0; k < 64; ++k) {
        const LD m = (a0 + a1) / 2;
        (g(m) > 0 ? a0 : a1) = m;
    }
    e.toi = a1;
    e.kind = Expected::kHit;
    return e;
}

struct SweepTally {
    long hits = 0, misses = 0, initial = 0, ambiguous = 0;
    long checked() const { return hits + misses + initial; }
};

// Empty when the sweep agrees with the reference.
template <class T, class Shape>
std::string check(const tumble::ObbT<T>& a, const tumble::Vec3T<T>& d, const Shape& b, SweepTally& tally) {
    const Expected e = expected(a, d, b);
    const auto got = tumble::sweep(a, d, b);
    switch (e.kind) {
        case Expected::kAmbiguous:
            ++tally.ambiguous;
            return {};
        case Expected::kMiss:
            ++tally.misses;
            if (got) return "reported a hit at t = " + std::to_string(static_cast<double>(got->toi)) + ", the reference misses";
            return {};
        case Expected::kInitial:
            ++tally.initial;
            if (!got || !got->initially_overlapping || got->toi != T(0))
                return "the shapes overlap at t = 0 and the sweep does not say so";
            if (const auto c = tumble::collide(a, b); !c || c->axis != got->axis || c->depth != got->depth)
                return "an initial overlap does not carry collide()'s contact";
            return {};
        case Expected::kHit:
            break;
    }
    ++tally.hits;
    if (!got) return "missed a hit the reference finds at t = " + std::to_string(static_cast<double>(e.toi));
    if (got->initially_overlapping) return "says initially overlapping, the reference separates at t = 0";
    const LD t = got->toi;
    const auto B = widen(b);
    // The time of impact is returned in T: rounding it moves the box by up to eps(T) |d|.
    const LD travel = std::sqrt(static_cast<LD>(glm::dot(glm::dvec3(d), glm::dvec3(d))));
    const LD tol = 4 * static_cast<LD>(std::numeric_limits<T>::epsilon()) * travel + 1e-9L * e.size;
    const LD g = reference(moved(a, d, t), B).signed_distance();
    if (std::abs(g) > tol)
        return "at the reported t = " + std::to_string(static_cast<double>(t)) + " the signed distance is " +
               std::to_string(static_cast<double>(g)) + " (reference first contact at " +
               std::to_string(static_cast<double>(e.toi)) + ")";
    if (!(t <= e.t_min + 1e-9L || std::abs(t - e.toi) <= 1e-9L))
        return "the reported t = " + std::to_string(static_cast<double>(t)) + " is the exit, not the entry (" +
               std::to_string(static_cast<double>(e.toi)) + ")";
    // The normal: unit, pointing along the motion, and a separating plane at the time of impact.
    const ref::V3 n(got->normal);
    const LD len = std::sqrt(ref::dot(n, n));
    if (std::abs(len - 1) > 1e-6L) return "normal is not unit";
    if (!(ref::dot(n, ref::V3(d)) > 0)) return "the normal does not point along the motion";
    LD max_a = -std::numeric_limits<LD>::infinity(), min_b = std::numeric_limits<LD>::infinity();
    for (const ref::V3& p : ref::Box(moved(a, d, t)).corners()) max_a = std::max(max_a, ref::dot(p, n) / len);
    for (const ref::V3& p : points(B)) min_b = std::min(min_b, ref::dot(p, n) / len);
    // A face axis is reported over an edge axis that entered later by at most collide()'s absolute face bias,
    // (kFaceBiasAbsolute + kFaceBiasAxisError * axis_error) * size of travel (sweep.hpp, ties), axis_error being
    // the input axes' departure from orthonormality; its plane then overlaps by at most that much at impact.
    LD axis_error = 0;
    auto measure = [&](const tumble::Mat3T<T>& m) {
        for (int k = 0; k < 3; ++k)
            for (int l = 0; l < 3; ++l)
                axis_error = std::max(axis_error, std::abs(ref::dot(ref::V3(m[k]), ref::V3(m[l])) - (k == l ? 1 : 0)));
    };
    measure(a.axes);
    if constexpr (std::is_same_v<Shape, tumble::ObbT<T>>) measure(B.axes);
    const int first_edge = std::is_same_v<Shape, tumble::ObbT<T>> ? 6 : 4;
    const LD bias = (tumble::kFaceBiasAbsolute + tumble::kFaceBiasAxisError * axis_error) * e.size;
    const LD allowance = tol + (got->axis < first_edge ? bias : 0);
    if (max_a - min_b > allowance)
        return "the normal is not a separating plane at the time of impact: overlap " +
               std::to_string(static_cast<double>(max_a - min_b));
    return {};
}

template <class T, class Shape>
using Maker = std::function<void(Random&, tumble::ObbT<T>&, tumble::Vec3T<T>&, Shape&)>;

template <class T, class Shape>
SweepTally run_family(const char* name, int count, std::uint64_t seed, const Maker<T, Shape>& make) {
    Random rng(seed);
    SweepTally tally;
    int failures = 0;
    for (int k = 0; k < count && failures < 10; ++k) {
        tumble::ObbT<T> a;
        tumble::Vec3T<T> d;
        Shape b;
        make(rng, a, d, b);
        const std::string error = check(a, d, b, tally);
        if (!error.empty()) {
            ++failures;
            ADD_FAILURE() << name << " case " << k << ": " << error;
        }
    }
    std::printf("[ sweep    ] %-30s %6ld decided sweeps agree with the reference: %ld hits, %ld misses, %ld initial "
                "overlaps; %ld grazing or touching (not compared)\n",
                name, tally.checked(), tally.hits, tally.misses, tally.initial, tally.ambiguous);
    EXPECT_GE(tally.checked(), count * 9 / 10) << name;
    EXPECT_GT(tally.hits, count / 10) << name << ": too few hits to test anything";
    EXPECT_GT(tally.misses, 0) << name << ": the family never misses";
    return tally;
}

Obb random_box(Random& rng, glm::vec3 center, double lo, double hi) { return {center, rng.rotation_matrix(), rng.vec(lo, hi)}; }

// Half of the displacements aim at the target (plus noise), half are random: enough hits and misses of each kind.
template <class V>
V displacement(Random& rng, const V& from, const V& target) {
    if (rng.uniform() < 0.5) return V(rng.vec(-6, 6));
    return (target - from) * static_cast<typename V::value_type>(rng.uniform(0.3, 2.0)) + V(rng.vec(-0.7, 0.7));
}

TEST(SweepObbObb, RandomGeneral) {
    run_family<float, Obb>("box-box random", 8000, 11, [](Random& rng, Obb& a, glm::vec3& d, Obb& b) {
        a = random_box(rng, rng.vec(-3, 3), 0.05, 1.0);
        b = random_box(rng, rng.vec(-1, 1), 0.05, 1.0);
        d = displacement(rng, a.center, b.center);
    });
}

TEST(SweepObbObb, AxisAlignedWithZeroVelocityComponents) {
    run_family<float, Obb>("box-box axis aligned", 4000, 12, [](Random& rng, Obb& a, glm::vec3& d, Obb& b) {
        a = {rng.vec(-3, 3), glm::mat3(1.0f), rng.vec(0.1, 1.0)};
        b = {rng.vec(-1, 1), glm::mat3(1.0f), rng.vec(0.1, 1.0)};
        d = displacement(rng, a.center, b.center);
        for (int k = 0; k < 3; ++k)
            if (rng.uniform() < 0.4) d[k] = 0.0f;  // projections that never move on that axis
    });
}

TEST(SweepObbObb, SharedOrientationParallelEdges) {
    run_family<float, Obb>("box-box parallel edges", 4000, 13, [](Random& rng, Obb& a, glm::vec3& d, Obb& b) {
        const glm::mat3 r = rng.rotation_matrix();
        a = {rng.vec(-3, 3), r, rng.vec(0.1, 1.0)};
        b = {rng.vec(-1, 1), r, rng.vec(0.1, 1.0)};
        d = displacement(rng, a.center, b.center);
    });
}

TEST(SweepObbObb, FarFromTheOrigin) {
    run_family<float, Obb>("box-box far (1e3-1e4 m)", 4000, 14, [](Random& rng, Obb& a, glm::vec3& d, Obb& b) {
        const glm::vec3 base = rng.vec(1e3, 1e4);
        a = random_box(rng, base + rng.vec(-3, 3), 0.1, 1.0);
        b = random_box(rng, base + rng.vec(-1, 1), 0.1, 1.0);
        d = displacement(rng, a.center, b.center);
    });
}

TEST(SweepObbObb, DoublePrecision) {
    run_family<double, ObbD>("box-box double", 2000, 15, [](Random& rng, ObbD& a, glm::dvec3& d, ObbD& b) {
        a = {glm::dvec3(rng.vec(-3, 3)) + 1e6, glm::dmat3(rng.rotation_matrix()), glm::dvec3(rng.vec(0.1, 1.0))};
        b = {glm::dvec3(rng.vec(-1, 1)) + 1e6, glm::dmat3(rng.rotation_matrix()), glm::dvec3(rng.vec(0.1, 1.0))};
        d = displacement(rng, a.center, b.center);
    });
}

TEST(SweepObbObb, FastThinTargets) {
    // 100 m/s over 1/60 s against walls 0.1 m thick: the case continuous collision detection exists for.
    run_family<float, Obb>("box-box fast, thin walls", 4000, 16, [](Random& rng, Obb& a, glm::vec3& d, Obb& b) {
        b = {rng.vec(-0.5, 0.5), rng.rotation_matrix(), glm::vec3(rng.uniformf(0.5, 2), rng.uniformf(0.5, 2), 0.05f)};
        a = random_box(rng, b.center - b.axes[2] * rng.uniformf(0.5, 1.0) + rng.vec(-1, 1), 0.1, 0.4);
        d = (b.center - a.center + rng.vec(-1.5, 1.5)) * rng.uniformf(1.0f, 2.5f);
        d = glm::normalize(d) * 1.6667f;
    });
}

TEST(SweepObbTriangle, RandomGeneral) {
    run_family<float, Triangle>("box-triangle random", 8000, 21,
                                [](Random& rng, Obb& a, glm::vec3& d, Triangle& t) {
                                    a = random_box(rng, rng.vec(-3, 3), 0.05, 1.0);
                                    t = {rng.vec(-1.5, 1.5), rng.vec(-1.5, 1.5), rng.vec(-1.5, 1.5)};
                                    d = displacement(rng, a.center, t.centroid());
                                });
}

TEST(SweepObbTriangle, AxisAlignedFloorsAndWalls) {
    run_family<float, Triangle>("box-triangle floors and walls", 4000, 22,
                                [](Random& rng, Obb& a, glm::vec3& d, Triangle& t) {
                                    a = {rng.vec(-2, 2), glm::mat3(1.0f), rng.vec(0.1, 0.8)};
                                    const int up = rng.index(3);
                                    const float h = rng.uniformf(-1, 1);
                                    glm::vec3 p[3];
                                    for (auto& q : p) {
                                        q = rng.vec(-2, 2);
                                        q[up] = h;
                                    }
                                    t = {p[0], p[1], p[2]};
                                    d = displacement(rng, a.center, t.centroid());
                                    for (int k = 0; k < 3; ++k)
                                        if (rng.uniform() < 0.3) d[k] = 0.0f;
                                });
}

TEST(SweepObbTriangle, FarFromTheOriginAndDouble) {
    run_family<float, Triangle>("box-triangle far (1e3-1e4 m)", 4000, 23,
                                [](Random& rng, Obb& a, glm::vec3& d, Triangle& t) {
                                    const glm::vec3 base = rng.vec(1e3, 1e4);
                                    a = random_box(rng, base + rng.vec(-3, 3), 0.1, 1.0);
                                    t = {base + rng.vec(-1.5, 1.5), base + rng.vec(-1.5, 1.5), base + rng.vec(-1.5, 1.5)};
                                    d = displacement(rng, a.center, t.centroid());
                                });
    run_family<double, TriangleD>("box-triangle double", 2000, 24,
                                  [](Random& rng, ObbD& a, glm::dvec3& d, TriangleD& t) {
                                      a = {glm::dvec3(rng.vec(-3, 3)), glm::dmat3(rng.rotation_matrix()),
                                           glm::dvec3(rng.vec(0.1, 1.0))};
                                      t = {glm::dvec3(rng.vec(-1.5, 1.5)), glm::dvec3(rng.vec(-1.5, 1.5)),
                                           glm::dvec3(rng.vec(-1.5, 1.5))};
                                      d = displacement(rng, a.center, t.centroid());
                                  });
}

// Hand-worked cases of the conventions.

TEST(SweepConventions, BoxFallingFlatOntoAFloorHitsTheFaceAxis) {
    const Obb floor{{0, -0.5f, 0}, glm::mat3(1.0f), {5, 0.5f, 5}};
    const Obb box{{0.3f, 2.0f, -0.2f}, glm::mat3(1.0f), {0.5f, 0.5f, 0.5f}};
    const auto hit = tumble::sweep(box, glm::vec3(0, -3, 0), floor);
    ASSERT_TRUE(hit);
    EXPECT_FLOAT_EQ(hit->toi, 1.5f / 3.0f);  // the box's bottom at 1.5 m falls 1.5 of the 3 m
    EXPECT_EQ(hit->axis, 1);                 // A's y: the face axis, not one of the edge axes that tie with it
    EXPECT_TRUE(hit->negative);
    EXPECT_EQ(hit->normal, glm::vec3(0, -1, 0));
    EXPECT_FALSE(hit->initially_overlapping);
    // Not reaching it, and moving away.
    EXPECT_FALSE(tumble::sweep(box, glm::vec3(0, -1.4f, 0), floor));
    EXPECT_FALSE(tumble::sweep(box, glm::vec3(0, 3, 0), floor));
}

TEST(SweepConventions, TunnellingThroughAThinWallIsCaught) {
    // A 0.5 m box moving 1.67 m in one step (100 m/s at 60 Hz) straight through a 0.1 m wall: the static test at the
    // start and at the end both separate, the sweep finds the contact.
    const Obb wall{{0, 1, 0}, glm::mat3(1.0f), {0.05f, 2, 2}};
    const Obb box{{-0.8f, 1, 0}, glm::mat3(1.0f), {0.25f, 0.25f, 0.25f}};
    const glm::vec3 d(1.6667f, 0, 0);
    EXPECT_FALSE(tumble::overlap(box, wall));
    EXPECT_FALSE(tumble::overlap(Obb{box.center + d, box.axes, box.half_extents}, wall));
    const auto hit = tumble::sweep(box, d, wall);
    ASSERT_TRUE(hit);
    EXPECT_NEAR(hit->toi, 0.5f / 1.6667f, 1e-6f);
    EXPECT_EQ(hit->normal, glm::vec3(1, 0, 0));
}

TEST(SweepConventions, EdgeAgainstEdgeReportsTheEdgeAxis) {
    // Box A rotated 45 degrees about z moves along -y onto box B rotated 45 degrees about x: A's lowest edge (along z)
    // meets B's highest edge (along x) at a point; the first contact is on the axis A_z-edge x B_x-edge = y.
    const float c = std::sqrt(0.5f);
    const Obb a{{0, 3, 0}, testutil::rotation_about({0, 0, 1}, 0.7853981633974483), {0.5f, 0.5f, 0.5f}};
    const Obb b{{0, 0, 0}, testutil::rotation_about({1, 0, 0}, 0.7853981633974483), {0.5f, 0.5f, 0.5f}};
    const auto hit = tumble::sweep(a, glm::vec3(0, -3, 0), b);
    ASSERT_TRUE(hit);
    EXPECT_NEAR(hit->toi, (3.0f - 2.0f * c) / 3.0f, 1e-6f);
    EXPECT_GE(hit->axis, 6);
    EXPECT_NEAR(hit->normal.y, -1.0f, 1e-6f);
}

TEST(SweepConventions, InitialOverlapAndZeroDisplacement) {
    const Obb a{{0, 0, 0}, glm::mat3(1.0f), {1, 1, 1}};
    const Obb b{{1.5f, 0, 0}, glm::mat3(1.0f), {1, 1, 1}};
    for (const glm::vec3 d : {glm::vec3(0), glm::vec3(-5, 0, 0), glm::vec3(0, 3, 1)}) {
        const auto hit = tumble::sweep(a, d, b);
        ASSERT_TRUE(hit);
        EXPECT_TRUE(hit->initially_overlapping);
        EXPECT_EQ(hit->toi, 0.0f);
        EXPECT_EQ(hit->axis, 0);
        EXPECT_FLOAT_EQ(hit->depth, 0.5f);
        EXPECT_EQ(hit->normal, glm::vec3(1, 0, 0));
    }
    const Obb far{{5, 0, 0}, glm::mat3(1.0f), {1, 1, 1}};
    EXPECT_FALSE(tumble::sweep(a, glm::vec3(0), far));
    // Touching counts (closed boxes, as in overlap()): a box resting on another and sliding along it touches it at
    // t = 0 with depth 0; moving away from it does not.
    const Obb on_top{{0.3f, 2, 0}, glm::mat3(1.0f), {1, 1, 1}};
    const auto slide = tumble::sweep(on_top, glm::vec3(2, 0, 0), a);
    ASSERT_TRUE(slide);
    EXPECT_TRUE(slide->initially_overlapping);
    EXPECT_EQ(slide->depth, 0.0f);
    EXPECT_EQ(slide->normal, glm::vec3(0, -1, 0));
    EXPECT_TRUE(tumble::sweep(on_top, glm::vec3(0, 1, 0), a));
    EXPECT_FALSE(tumble::sweep(Obb{{0.3f, 2.001f, 0}, glm::mat3(1.0f), {1, 1, 1}}, glm::vec3(2, 0.5f, 0), a));
}

TEST(SweepConventions, ZeroMotionOnATouchingPairThatCollideCallsSeparatedIsNoHit) {
    // Found by fuzz_narrowphase: a box against a box 5.5e29 m long, not moving. The sweep's intervals say the pair
    // touches at t = 0 while collide() rounds it to separated; the sweep then fell back to the latest entering axis,
    // but with no motion no axis enters, and it returned axis -1 with a NaN normal. It now agrees with collide().
    const Obb a{{0, 3689984, 6250240},
                glm::mat3(glm::vec3(-0.0219752789f, 0.994716287f, -0.100281566f),
                          glm::vec3(-0.100523442f, 0.0975991488f, 0.990136027f),
                          glm::vec3(0.994691849f, 0.0318392515f, 0.0978476405f)),
                {7368704, 7368704, 3503104}};
    const Obb b{{7959552, 4809984, -768768},
                glm::mat3(glm::vec3(-0.335385561f, 0.664637923f, -0.667662621f),
                          glm::vec3(-0.664591551f, 0.335385263f, 0.667708755f),
                          glm::vec3(0.667708755f, 0.667662621f, 0.329229176f)),
                {5.54286406e+29f, 57088, 0}};
    for (const glm::vec3& d : {glm::vec3(0.0f), glm::vec3(1.0f, 0.0f, 0.0f)}) {
        const auto hit = tumble::sweep(a, d, b);
        if (!hit) continue;
        EXPECT_GE(hit->axis, 0);
        EXPECT_TRUE(std::isfinite(hit->normal.x) && std::isfinite(hit->normal.y) && std::isfinite(hit->normal.z));
    }
    EXPECT_EQ(tumble::sweep(a, glm::vec3(0.0f), b).has_value(), tumble::overlap(a, b));
}

TEST(SweepConventions, NonFiniteInputIsNoHit) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    const Obb a{{0, 0, 0}, glm::mat3(1.0f), {1, 1, 1}};
    const Obb b{{3, 0, 0}, glm::mat3(1.0f), {1, 1, 1}};
    EXPECT_TRUE(tumble::sweep(a, glm::vec3(2, 0, 0), b));
    EXPECT_FALSE(tumble::sweep(a, glm::vec3(nan, 0, 0), b));
    EXPECT_FALSE(tumble::sweep(a, glm::vec3(inf, 0, 0), b));
    Obb bad = b;
    bad.center.y = nan;
    EXPECT_FALSE(tumble::sweep(a, glm::vec3(2, 0, 0), bad));
    EXPECT_FALSE(tumble::sweep(a, glm::vec3(2, 0, 0), Triangle{{3, 0, 0}, {3, 1, nan}, {3, 0, 1}}));
}

TEST(SweepConventions, TriangleHitFromTheFrontAndTheBack) {
    // A floor triangle facing +y; a box falling onto it hits with normal -y (box towards triangle), and a box rising
    // into it from below hits with +y: the narrowphase sweep is two-sided.
    const Triangle floor{{-2, 0, -2}, {0, 0, 2}, {2, 0, -2}};
    ASSERT_GT(floor.scaled_normal().y, 0.0f);
    const Obb above{{0, 1, 0}, glm::mat3(1.0f), {0.25f, 0.25f, 0.25f}};
    const auto down = tumble::sweep(above, glm::vec3(0, -2, 0), floor);
    ASSERT_TRUE(down);
    EXPECT_FLOAT_EQ(down->toi, 0.375f);
    EXPECT_EQ(down->normal, glm::vec3(0, -1, 0));
    const Obb below{{0, -1, 0}, glm::mat3(1.0f), {0.25f, 0.25f, 0.25f}};
    const auto up = tumble::sweep(below, glm::vec3(0, 2, 0), floor);
    ASSERT_TRUE(up);
    EXPECT_FLOAT_EQ(up->toi, 0.375f);
    EXPECT_EQ(up->normal, glm::vec3(0, 1, 0));
}

}  // namespace
