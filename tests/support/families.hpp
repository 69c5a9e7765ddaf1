#pragma once
// Seeded families of box-box and box-triangle configurations, for either scalar type. The reference tests
// (narrowphase_sat_test.cpp), the FCL cross-check and the manifold tests draw their cases from here.
//
// Every family is a struct with a name, a case count, a seed, the fraction of cases expected to be decided (not
// within the touching margin), and `make<T>(rng)`, which builds the pair in double and rounds it to T once: the
// rounded shapes are the ones "as given" to the code under test and to the reference.

#include <cmath>
#include <utility>

#include <tumble/narrowphase/shapes.hpp>

#include "test_util.hpp"

namespace fam {

using testutil::Random;
using tumble::ObbD;
using tumble::TriangleD;
template <class T>
using BoxPair = std::pair<tumble::ObbT<T>, tumble::ObbT<T>>;
template <class T>
using BoxTri = std::pair<tumble::ObbT<T>, tumble::TriangleT<T>>;

constexpr double kTau = 6.283185307179586;

// --- Building blocks ---------------------------------------------------------------------------------------------

template <class T>
tumble::ObbT<T> random_box(Random& rng, const glm::dvec3& center, double min_half, double max_half) {
    return {tumble::Vec3T<T>(center), testutil::random_rotation<T>(rng),
            testutil::random_vec<T>(rng, min_half, max_half)};
}
template <class T>
tumble::ObbT<T> random_box(Random& rng, double spread, double min_half, double max_half) {
    const glm::dvec3 c(rng.uniform(-spread, spread), rng.uniform(-spread, spread), rng.uniform(-spread, spread));
    return random_box<T>(rng, c, min_half, max_half);
}
inline glm::dvec3 random_dvec(Random& rng, double lo, double hi) {
    return {rng.uniform(lo, hi), rng.uniform(lo, hi), rng.uniform(lo, hi)};
}
// Signed distance for the near-touching families: |s| log-uniform in [1e-6, 1e-3] of the size, either sign
// (positive: separated by s; negative: penetrating by -s). A third fall within the 1e-5 touching margin.
inline double near_touch(Random& rng, double size) {
    const double s = testutil::log_uniform(rng, -6, -3) * size;
    return rng.uniform() < 0.5 ? s : -s;
}
// A proper or improper signed permutation of the columns of m (the same box with its axes renamed).
inline glm::dmat3 shuffle_axes(Random& rng, const glm::dmat3& m) {
    const int p = rng.index(3);
    const bool swap = rng.uniform() < 0.5;
    glm::dmat3 out(m[p], m[(p + 1) % 3], m[(p + 2) % 3]);
    if (swap) std::swap(out[1], out[2]);
    for (int k = 0; k < 3; ++k)
        if (rng.uniform() < 0.5) out[k] = -out[k];
    return out;
}
inline glm::dvec3 unit(const glm::dvec3& v) { return v / std::sqrt(glm::dot(v, v)); }
// A random face (axis i, sign) of box o: its unit outward normal and the two other axes (unit).
struct Face {
    int axis;
    glm::dvec3 n, u, w;
};
inline Face random_face(Random& rng, const ObbD& o) {
    const int i = rng.index(3);
    const double s = rng.uniform() < 0.5 ? -1.0 : 1.0;
    return {i, s * unit(o.axes[i]), unit(o.axes[(i + 1) % 3]), unit(o.axes[(i + 2) % 3])};
}
// A point on the plane of face f pushed `offset` along its normal, at tangential fractions (fu, fw) of A's extents.
inline glm::dvec3 on_face(const ObbD& a, const Face& f, double offset, double fu, double fw) {
    return a.center + f.n * (testutil::support(a, f.n) + offset) + f.u * (fu * a.half_extents[(f.axis + 1) % 3]) +
           f.w * (fw * a.half_extents[(f.axis + 2) % 3]);
}
inline double half_diagonal(const ObbD& o) { return glm::length(o.half_extents); }

// --- Box - box ---------------------------------------------------------------------------------------------------

struct RandomGeneral {
    static constexpr const char* name = "random general";
    static constexpr int count = 20000;
    static constexpr std::uint64_t seed = 1;
    static constexpr double min_checked = 0.9;
    template <class T>
    static BoxPair<T> make(Random& rng) {
        return {random_box<T>(rng, 1.5, 0.05, 1.0), random_box<T>(rng, 1.5, 0.05, 1.0)};
    }
};

struct ParallelEdges {
    // Every edge of A is parallel to an edge of B: six of the nine edge axes are degenerate.
    static constexpr const char* name = "parallel edges";
    static constexpr int count = 5000;
    static constexpr std::uint64_t seed = 2;
    static constexpr double min_checked = 0.9;
    template <class T>
    static BoxPair<T> make(Random& rng) {
        const tumble::Mat3T<T> r = testutil::random_rotation<T>(rng);
        const tumble::ObbT<T> a{testutil::random_vec<T>(rng, -1, 1), r, testutil::random_vec<T>(rng, 0.1, 1.0)};
        const int p = rng.index(3);
        tumble::ObbT<T> b{testutil::random_vec<T>(rng, -1, 1), tumble::Mat3T<T>(r[p], r[(p + 1) % 3], r[(p + 2) % 3]),
                          testutil::random_vec<T>(rng, 0.1, 1.0)};
        if (rng.uniform() < 0.5) b.axes[0] = -b.axes[0], b.axes[1] = -b.axes[1];
        return {a, b};
    }
};

struct ParallelEdgesOneUlpApart {
    // B's axes are A's permuted, then made orthonormal again by Gram-Schmidt: edges that were exactly parallel are now
    // a few ulps apart (1e-16 rad in double, 1e-8 in float), an edge axis of garbage direction for any test that
    // forms it by a plain cross product and checks only |L| > 0.
    static constexpr const char* name = "parallel edges a few ulps apart";
    static constexpr int count = 5000;
    static constexpr std::uint64_t seed = 14;
    static constexpr double min_checked = 0.9;
    template <class T>
    static BoxPair<T> make(Random& rng) {
        const tumble::ObbT<T> a = random_box<T>(rng, 1.0, 0.1, 1.0);
        const int p = rng.index(3);
        const tumble::ObbT<T> b{testutil::random_vec<T>(rng, -1, 1),
                                tumble::Mat3T<T>(a.axes[p], a.axes[(p + 1) % 3], a.axes[(p + 2) % 3]),
                                testutil::random_vec<T>(rng, 0.1, 1.0)};
        tumble::ObbD d = testutil::widen(b);
        d.axes[0] = glm::normalize(d.axes[0]);
        d.axes[1] = glm::normalize(d.axes[1] - d.axes[0] * glm::dot(d.axes[0], d.axes[1]));
        d.axes[2] = glm::cross(d.axes[0], d.axes[1]);
        return {a, testutil::narrow<T>(d)};
    }
};

struct AxisAligned {
    static constexpr const char* name = "axis aligned";
    static constexpr int count = 5000;
    static constexpr std::uint64_t seed = 3;
    static constexpr double min_checked = 0.9;
    template <class T>
    static BoxPair<T> make(Random& rng) {
        const tumble::Mat3T<T> id(T(1));
        return {{testutil::random_vec<T>(rng, -1, 1), id, testutil::random_vec<T>(rng, 0.1, 1.0)},
                {testutil::random_vec<T>(rng, -1, 1), id, testutil::random_vec<T>(rng, 0.1, 1.0)}};
    }
};

struct NestedConcentric {
    static constexpr const char* name = "nested, concentric, identical";
    static constexpr int count = 5000;
    static constexpr std::uint64_t seed = 4;
    static constexpr double min_checked = 0.9;
    template <class T>
    static BoxPair<T> make(Random& rng) {
        const tumble::ObbT<T> a = random_box<T>(rng, 1.0, 0.5, 1.5);
        tumble::ObbT<T> b = random_box<T>(rng, glm::dvec3(a.center), 0.05, 0.3);
        const double kind = rng.uniform();
        if (kind < 0.6) {
            b.center = a.center + a.axes * (testutil::random_vec<T>(rng, -0.5, 0.5) * a.half_extents);  // nested
        } else if (kind < 0.8) {
            b.center = a.center + a.axes * (testutil::random_vec<T>(rng, -2.0, 2.0) * a.half_extents);
        } else if (kind < 0.9) {
            b = a;  // identical
        }  // else concentric
        return {a, b};
    }
};

struct ZeroExtents {
    // Flat boxes, segments and points: some half extents are exactly zero.
    static constexpr const char* name = "zero extents";
    static constexpr int count = 10000;
    static constexpr std::uint64_t seed = 5;
    static constexpr double min_checked = 0.9;
    template <class T>
    static BoxPair<T> make(Random& rng) {
        tumble::ObbT<T> a = random_box<T>(rng, 0.8, 0.1, 1.0);
        tumble::ObbT<T> b = random_box<T>(rng, 0.8, 0.1, 1.0);
        for (tumble::ObbT<T>* o : {&a, &b})
            for (int k = 0; k < 3; ++k)
                if (rng.uniform() < 0.4) o->half_extents[k] = T(0);
        return {a, b};
    }
};

struct FarFromOrigin {
    static constexpr const char* name = "far from origin 1e3..1e5 m";
    static constexpr int count = 10000;
    static constexpr std::uint64_t seed = 6;
    static constexpr double min_checked = 0.9;
    template <class T>
    static BoxPair<T> make(Random& rng) {
        // The base point is rounded to T first, so that both boxes sit within ~1 m of each other also in float.
        const glm::dvec3 base(tumble::Vec3T<T>(testutil::random_unit(rng) * testutil::log_uniform(rng, 3, 5)));
        return {random_box<T>(rng, base + random_dvec(rng, -1, 1), 0.1, 1.0),
                random_box<T>(rng, base + random_dvec(rng, -1, 1), 0.1, 1.0)};
    }
};

struct NearParallel {
    // B's axes are A's turned by 1e-12 to 1e-3 rad about a random axis (where Gomez's float test fails, and far below).
    static constexpr const char* name = "near-parallel 1e-12..1e-3 rad";
    static constexpr int count = 20000;
    static constexpr std::uint64_t seed = 7;
    static constexpr double min_checked = 0.9;
    template <class T>
    static BoxPair<T> make(Random& rng) {
        const tumble::ObbT<T> a = random_box<T>(rng, 1.0, 0.1, 1.0);
        const double angle = testutil::log_uniform(rng, -12, -3);
        const glm::dmat3 axes = testutil::rotation_about_d(testutil::random_unit(rng), angle) *
                                shuffle_axes(rng, glm::dmat3(a.axes));
        const ObbD b{random_dvec(rng, -1, 1), axes, random_dvec(rng, 0.1, 1.0)};
        return {a, testutil::narrow<T>(b)};
    }
};

struct TouchFaceFace {
    // B's face against A's face, parallel or tilted by up to 1e-4 rad, separated or sunk by 1e-6..1e-3.
    static constexpr const char* name = "near-touching face-face";
    static constexpr int count = 10000;
    static constexpr std::uint64_t seed = 8;
    static constexpr double min_checked = 0.55;
    template <class T>
    static BoxPair<T> make(Random& rng) {
        const tumble::ObbT<T> a = random_box<T>(rng, 1.0, 0.2, 1.0);
        const ObbD A = testutil::widen(a);
        const Face f = random_face(rng, A);
        glm::dmat3 axes = testutil::rotation_about_d(f.n, rng.uniform(0, kTau)) * shuffle_axes(rng, A.axes);
        if (rng.uniform() < 0.5) axes = testutil::rotation_about_d(testutil::random_unit(rng), testutil::log_uniform(rng, -8, -4)) * axes;
        ObbD B{glm::dvec3(0.0), axes, random_dvec(rng, 0.2, 1.0)};
        const double s = near_touch(rng, std::max(half_diagonal(A), half_diagonal(B)));
        B.center = on_face(A, f, testutil::support(B, f.n) + s, rng.uniform(-1, 1), rng.uniform(-1, 1));
        return {a, testutil::narrow<T>(B)};
    }
};

struct TouchFaceEdge {
    // An edge of B lies parallel to A's face (B turned 0.2..1.37 rad about a line in the face).
    static constexpr const char* name = "near-touching face-edge";
    static constexpr int count = 10000;
    static constexpr std::uint64_t seed = 9;
    static constexpr double min_checked = 0.55;
    template <class T>
    static BoxPair<T> make(Random& rng) {
        const tumble::ObbT<T> a = random_box<T>(rng, 1.0, 0.2, 1.0);
        const ObbD A = testutil::widen(a);
        const Face f = random_face(rng, A);
        const double theta = rng.uniform(0.2, 1.37) * (rng.uniform() < 0.5 ? -1 : 1);
        const glm::dmat3 axes = testutil::rotation_about_d(f.n, rng.uniform(0, kTau)) *
                                testutil::rotation_about_d(f.u, theta) * shuffle_axes(rng, A.axes);
        ObbD B{glm::dvec3(0.0), axes, random_dvec(rng, 0.2, 1.0)};
        const double s = near_touch(rng, std::max(half_diagonal(A), half_diagonal(B)));
        B.center = on_face(A, f, testutil::support(B, f.n) + s, rng.uniform(-0.9, 0.9), rng.uniform(-0.9, 0.9));
        return {a, testutil::narrow<T>(B)};
    }
};

struct TouchEdgeEdge {
    // An edge of A and an edge of B cross at distance s along their common normal, both supporting.
    static constexpr const char* name = "near-touching edge-edge";
    static constexpr int count = 10000;
    static constexpr std::uint64_t seed = 10;
    static constexpr double min_checked = 0.55;
    template <class T>
    static BoxPair<T> make(Random& rng) {
        for (;;) {
            const tumble::ObbT<T> a = random_box<T>(rng, 1.0, 0.2, 1.0);
            const ObbD A = testutil::widen(a);
            ObbD B{glm::dvec3(0.0), glm::dmat3(testutil::random_rotation<double>(rng)), random_dvec(rng, 0.2, 1.0)};
            const int i = rng.index(3), j = rng.index(3);
            const glm::dvec3 L = glm::cross(A.axes[i], B.axes[j]);
            if (glm::length(L) < 0.3) continue;
            const glm::dvec3 n = unit(L);
            glm::dvec3 pa = A.center + A.axes[i] * (rng.uniform(-0.8, 0.8) * A.half_extents[i]);
            for (int k = 0; k < 3; ++k)
                if (k != i) pa += A.axes[k] * (glm::dot(A.axes[k], n) >= 0 ? A.half_extents[k] : -A.half_extents[k]);
            glm::dvec3 pb = B.axes[j] * (rng.uniform(-0.8, 0.8) * B.half_extents[j]);
            for (int k = 0; k < 3; ++k)
                if (k != j) pb -= B.axes[k] * (glm::dot(B.axes[k], n) >= 0 ? B.half_extents[k] : -B.half_extents[k]);
            const double s = near_touch(rng, std::max(half_diagonal(A), half_diagonal(B)));
            B.center = pa + n * s - pb;
            return {a, testutil::narrow<T>(B)};
        }
    }
};

struct TouchVertexFace {
    // B's lowest corner (random orientation) against A's face.
    static constexpr const char* name = "near-touching vertex-face";
    static constexpr int count = 10000;
    static constexpr std::uint64_t seed = 11;
    static constexpr double min_checked = 0.55;
    template <class T>
    static BoxPair<T> make(Random& rng) {
        const tumble::ObbT<T> a = random_box<T>(rng, 1.0, 0.2, 1.0);
        const ObbD A = testutil::widen(a);
        const Face f = random_face(rng, A);
        ObbD B{glm::dvec3(0.0), glm::dmat3(testutil::random_rotation<double>(rng)), random_dvec(rng, 0.2, 1.0)};
        const double s = near_touch(rng, std::max(half_diagonal(A), half_diagonal(B)));
        const glm::dvec3 q = on_face(A, f, s, rng.uniform(-0.8, 0.8), rng.uniform(-0.8, 0.8));
        B.center = q - testutil::lowest_corner_offset(B, f.n);
        return {a, testutil::narrow<T>(B)};
    }
};

struct ExtremeAspect {
    // Half extents log-uniform in [1e-3, 1e3] on each axis: planks, plates and needles, random or nearly aligned.
    static constexpr const char* name = "aspect ratios 1e-3..1e3";
    static constexpr int count = 10000;
    static constexpr std::uint64_t seed = 12;
    static constexpr double min_checked = 0.9;
    template <class T>
    static BoxPair<T> make(Random& rng) {
        auto extents = [&] {
            return glm::dvec3(testutil::log_uniform(rng, -3, 3), testutil::log_uniform(rng, -3, 3),
                              testutil::log_uniform(rng, -3, 3));
        };
        const ObbD A{random_dvec(rng, -1, 1), glm::dmat3(testutil::random_rotation<T>(rng)), extents()};
        glm::dmat3 axes = testutil::random_rotation<double>(rng);
        if (rng.uniform() < 0.3)
            axes = testutil::rotation_about_d(testutil::random_unit(rng), testutil::log_uniform(rng, -9, -2)) *
                   shuffle_axes(rng, A.axes);
        ObbD B{glm::dvec3(0.0), axes, extents()};
        // B's centre near A's surface, on the scale of either box.
        B.center = A.center + A.axes * (random_dvec(rng, -1.2, 1.2) * A.half_extents) +
                   B.axes * (random_dvec(rng, -1.0, 1.0) * B.half_extents);
        return {testutil::narrow<T>(A), testutil::narrow<T>(B)};
    }
};

struct Scales {
    // A random general pair scaled by 1e-4..1e4 as a whole: tiny and huge boxes.
    static constexpr const char* name = "scales 1e-4..1e4";
    static constexpr int count = 10000;
    static constexpr std::uint64_t seed = 13;
    static constexpr double min_checked = 0.9;
    template <class T>
    static BoxPair<T> make(Random& rng) {
        const double k = testutil::log_uniform(rng, -4, 4);
        ObbD A = testutil::widen(random_box<double>(rng, 1.5, 0.05, 1.0));
        ObbD B = testutil::widen(random_box<double>(rng, 1.5, 0.05, 1.0));
        for (ObbD* o : {&A, &B}) o->center *= k, o->half_extents *= k;
        return {testutil::narrow<T>(A), testutil::narrow<T>(B)};
    }
};

// --- Box - triangle ----------------------------------------------------------------------------------------------

template <class T>
tumble::TriangleT<T> random_triangle(Random& rng, const glm::dvec3& around, double spread) {
    return testutil::narrow<T>(TriangleD{around + random_dvec(rng, -spread, spread), around + random_dvec(rng, -spread, spread),
                                         around + random_dvec(rng, -spread, spread)});
}
inline TriangleD maybe_flip(Random& rng, TriangleD t) {
    if (rng.uniform() < 0.5) std::swap(t.b, t.c);
    return t;
}

struct TriRandom {
    static constexpr const char* name = "box-triangle random";
    static constexpr int count = 20000;
    static constexpr std::uint64_t seed = 21;
    static constexpr double min_checked = 0.9;
    template <class T>
    static BoxTri<T> make(Random& rng) {
        const tumble::ObbT<T> box = random_box<T>(rng, 1.0, 0.1, 1.0);
        return {box, random_triangle<T>(rng, random_dvec(rng, -1, 1), 1.5)};
    }
};

struct TriTinySliver {
    static constexpr const char* name = "box-triangle tiny, sliver";
    static constexpr int count = 10000;
    static constexpr std::uint64_t seed = 22;
    static constexpr double min_checked = 0.3;
    template <class T>
    static BoxTri<T> make(Random& rng) {
        const tumble::ObbT<T> box = random_box<T>(rng, glm::dvec3(0.0), 0.2, 1.0);
        const glm::dvec3 p = random_dvec(rng, -1.2, 1.2);
        if (rng.uniform() < 0.5) return {box, random_triangle<T>(rng, p, 1e-3)};  // tiny
        const glm::dvec3 dir = testutil::random_unit(rng) * rng.uniform(0.5, 2.0);
        const glm::dvec3 thin = testutil::random_unit(rng) * testutil::log_uniform(rng, -9, -3);
        return {box, testutil::narrow<T>(TriangleD{p - dir, p + dir, p + thin})};  // sliver
    }
};

struct TriInsidePierced {
    static constexpr const char* name = "box-triangle inside, pierced";
    static constexpr int count = 10000;
    static constexpr std::uint64_t seed = 23;
    static constexpr double min_checked = 0.5;
    template <class T>
    static BoxTri<T> make(Random& rng) {
        const tumble::ObbT<T> box = random_box<T>(rng, 1.0, 0.3, 1.0);
        const ObbD B = testutil::widen(box);
        if (rng.uniform() < 0.5) {
            auto inside = [&] { return B.center + B.axes * (random_dvec(rng, -0.9, 0.9) * B.half_extents); };
            return {box, testutil::narrow<T>(TriangleD{inside(), inside(), inside()})};
        }
        // A box corner pokes through the triangle, whose normal is roughly along the corner's diagonal.
        const auto corners = B.corners();
        const glm::dvec3 corner = corners[static_cast<std::size_t>(rng.index(8))];
        const glm::dvec3 out = unit(corner - B.center);
        const glm::dvec3 plane_point = corner - out * rng.uniform(-0.05, 0.2);
        const glm::dvec3 u = unit(glm::cross(out, testutil::random_unit(rng))), v = glm::cross(out, u);
        const double s = rng.uniform(0.3, 2.0);
        return {box, testutil::narrow<T>(maybe_flip(rng, TriangleD{plane_point + u * s, plane_point - u * (0.5 * s) + v * s,
                                                                   plane_point - u * (0.5 * s) - v * s}))};
    }
};

struct TriEdgeCrossing {
    // A long triangle whose edge passes close to a box edge, at random angles.
    static constexpr const char* name = "box-triangle edge across edge";
    static constexpr int count = 10000;
    static constexpr std::uint64_t seed = 24;
    static constexpr double min_checked = 0.5;
    template <class T>
    static BoxTri<T> make(Random& rng) {
        const tumble::ObbT<T> box = random_box<T>(rng, glm::dvec3(0.0), 0.3, 1.0);
        const ObbD B = testutil::widen(box);
        const auto corners = B.corners();
        const int k = rng.index(8), axis = rng.index(3);
        const glm::dvec3 p0 = corners[static_cast<std::size_t>(k)];
        const glm::dvec3 p1 = corners[static_cast<std::size_t>(k ^ (1 << axis))];
        const glm::dvec3 mid = 0.5 * (p0 + p1) + testutil::random_unit(rng) * rng.uniform(0.0, 0.05);
        const glm::dvec3 dir = testutil::random_unit(rng);
        const glm::dvec3 away = unit(mid - B.center) + testutil::random_unit(rng) * 0.3;
        return {box, testutil::narrow<T>(TriangleD{mid - dir * 2.0, mid + dir * 2.0, mid + away * 2.0})};
    }
};

struct TriFar {
    static constexpr const char* name = "box-triangle far 1e3..1e5 m";
    static constexpr int count = 10000;
    static constexpr std::uint64_t seed = 25;
    static constexpr double min_checked = 0.9;
    template <class T>
    static BoxTri<T> make(Random& rng) {
        const glm::dvec3 base(tumble::Vec3T<T>(testutil::random_unit(rng) * testutil::log_uniform(rng, 3, 5)));
        return {random_box<T>(rng, base + random_dvec(rng, -1, 1), 0.1, 1.0),
                random_triangle<T>(rng, base + random_dvec(rng, -1, 1), 1.5)};
    }
};

struct TriDegenerate {
    // Collinear and coincident vertices: the normal axis must be skipped, never NaN.
    static constexpr const char* name = "box-triangle degenerate";
    static constexpr int count = 5000;
    static constexpr std::uint64_t seed = 26;
    static constexpr double min_checked = 0.5;
    template <class T>
    static BoxTri<T> make(Random& rng) {
        const tumble::ObbT<T> box = random_box<T>(rng, glm::dvec3(0.0), 0.3, 1.0);
        const tumble::Vec3T<T> a = testutil::random_vec<T>(rng, -1.3, 1.3), d = testutil::random_vec<T>(rng, -1, 1);
        const T s = static_cast<T>(rng.uniform(-1, 2));
        const double kind = rng.uniform();
        const tumble::Vec3T<T> c = kind < 0.2 ? a : (kind < 0.4 ? a + d : a + d * s);
        return {box, tumble::TriangleT<T>{a, a + d, c}};
    }
};

struct TriTouchFaceFace {
    // A triangle lying on a box face (parallel or tilted by up to 1e-4 rad), separated or sunk by 1e-6..1e-3.
    static constexpr const char* name = "box-triangle near-touching face-face";
    static constexpr int count = 10000;
    static constexpr std::uint64_t seed = 27;
    static constexpr double min_checked = 0.55;
    template <class T>
    static BoxTri<T> make(Random& rng) {
        const tumble::ObbT<T> box = random_box<T>(rng, 1.0, 0.2, 1.0);
        const ObbD A = testutil::widen(box);
        const Face f = random_face(rng, A);
        const double s = near_touch(rng, half_diagonal(A));
        TriangleD t{on_face(A, f, s, rng.uniform(-1.6, 1.6), rng.uniform(-1.6, 1.6)),
                    on_face(A, f, s, rng.uniform(-1.6, 1.6), rng.uniform(-1.6, 1.6)),
                    on_face(A, f, s, rng.uniform(-1.6, 1.6), rng.uniform(-1.6, 1.6))};
        if (rng.uniform() < 0.5) {
            const glm::dmat3 tilt = testutil::rotation_about_d(testutil::random_unit(rng), testutil::log_uniform(rng, -8, -4));
            const glm::dvec3 c = (t.a + t.b + t.c) / 3.0;
            t = {c + tilt * (t.a - c), c + tilt * (t.b - c), c + tilt * (t.c - c)};
        }
        return {box, testutil::narrow<T>(maybe_flip(rng, t))};
    }
};

struct TriTouchFaceEdge {
    // Either a triangle edge lies parallel to a box face, or a box edge lies parallel to the triangle's plane.
    static constexpr const char* name = "box-triangle near-touching face-edge";
    static constexpr int count = 10000;
    static constexpr std::uint64_t seed = 28;
    static constexpr double min_checked = 0.55;
    template <class T>
    static BoxTri<T> make(Random& rng) {
        const tumble::ObbT<T> box = random_box<T>(rng, 1.0, 0.2, 1.0);
        const ObbD A = testutil::widen(box);
        const double s = near_touch(rng, half_diagonal(A));
        if (rng.uniform() < 0.5) {
            // Triangle edge on the box face, the third vertex above it.
            const Face f = random_face(rng, A);
            const glm::dvec3 p0 = on_face(A, f, s, rng.uniform(-1.2, 1.2), rng.uniform(-1.2, 1.2));
            const glm::dvec3 p1 = on_face(A, f, s, rng.uniform(-1.2, 1.2), rng.uniform(-1.2, 1.2));
            const glm::dvec3 p2 = 0.5 * (p0 + p1) + f.n * rng.uniform(0.2, 1.5) + (f.u * rng.uniform(-1, 1) + f.w * rng.uniform(-1, 1));
            return {box, testutil::narrow<T>(maybe_flip(rng, TriangleD{p0, p1, p2}))};
        }
        // Box edge on the triangle's plane: build the box around a plane with normal m, then the triangle under it.
        const glm::dvec3 m = testutil::random_unit(rng);
        const glm::dvec3 u = unit(glm::cross(m, testutil::random_unit(rng))), w = glm::cross(m, u);
        const double theta = rng.uniform(0.2, 1.37) * (rng.uniform() < 0.5 ? -1 : 1);
        const glm::dmat3 axes = testutil::rotation_about_d(m, rng.uniform(0, kTau)) * testutil::rotation_about_d(u, theta) *
                                shuffle_axes(rng, glm::dmat3(u, w, m));
        const ObbD B = testutil::widen(testutil::narrow<T>(ObbD{A.center, axes, A.half_extents}));
        const glm::dvec3 p0 = B.center + testutil::lowest_corner_offset(B, m) - m * s;  // on the plane, under the box
        auto in_plane = [&](double r, double angle) { return p0 + (u * std::cos(angle) + w * std::sin(angle)) * r; };
        const double phase = rng.uniform(0, kTau), r = rng.uniform(0.5, 2.5) * half_diagonal(B);
        return {testutil::narrow<T>(B),
                testutil::narrow<T>(maybe_flip(rng, TriangleD{in_plane(r, phase), in_plane(r, phase + 2.1),
                                                              in_plane(r * rng.uniform(0.5, 1.5), phase + 4.2)}))};
    }
};

struct TriTouchEdgeEdge {
    // A triangle edge crosses a box edge at distance s along their common normal, both supporting.
    static constexpr const char* name = "box-triangle near-touching edge-edge";
    static constexpr int count = 10000;
    static constexpr std::uint64_t seed = 29;
    static constexpr double min_checked = 0.55;
    template <class T>
    static BoxTri<T> make(Random& rng) {
        for (;;) {
            const tumble::ObbT<T> box = random_box<T>(rng, 1.0, 0.2, 1.0);
            const ObbD A = testutil::widen(box);
            const int i = rng.index(3);
            const glm::dvec3 e = testutil::random_unit(rng);
            const glm::dvec3 L = glm::cross(A.axes[i], e);
            if (glm::length(L) < 0.3) continue;
            const glm::dvec3 n = unit(L);
            glm::dvec3 pa = A.center + A.axes[i] * (rng.uniform(-0.8, 0.8) * A.half_extents[i]);
            for (int k = 0; k < 3; ++k)
                if (k != i) pa += A.axes[k] * (glm::dot(A.axes[k], n) >= 0 ? A.half_extents[k] : -A.half_extents[k]);
            const double s = near_touch(rng, half_diagonal(A));
            const glm::dvec3 q = pa + n * s;
            const glm::dvec3 p0 = q - e * rng.uniform(0.3, 1.5), p1 = q + e * rng.uniform(0.3, 1.5);
            const glm::dvec3 p2 = q + n * rng.uniform(0.2, 1.5) + glm::cross(n, e) * rng.uniform(-1, 1);
            return {box, testutil::narrow<T>(maybe_flip(rng, TriangleD{p0, p1, p2}))};
        }
    }
};

struct TriTouchVertexFace {
    // Either a triangle vertex against a box face, or a box corner against the triangle's face.
    static constexpr const char* name = "box-triangle near-touching vertex-face";
    static constexpr int count = 10000;
    static constexpr std::uint64_t seed = 30;
    static constexpr double min_checked = 0.55;
    template <class T>
    static BoxTri<T> make(Random& rng) {
        const tumble::ObbT<T> box = random_box<T>(rng, 1.0, 0.2, 1.0);
        const ObbD A = testutil::widen(box);
        const double s = near_touch(rng, half_diagonal(A));
        if (rng.uniform() < 0.5) {
            const Face f = random_face(rng, A);
            const glm::dvec3 p0 = on_face(A, f, s, rng.uniform(-0.8, 0.8), rng.uniform(-0.8, 0.8));
            auto above = [&] { return p0 + f.n * rng.uniform(0.1, 1.5) + f.u * rng.uniform(-1.5, 1.5) + f.w * rng.uniform(-1.5, 1.5); };
            return {box, testutil::narrow<T>(maybe_flip(rng, TriangleD{p0, above(), above()}))};
        }
        const glm::dvec3 m = testutil::random_unit(rng);
        const glm::dvec3 u = unit(glm::cross(m, testutil::random_unit(rng))), w = glm::cross(m, u);
        const glm::dvec3 p0 = A.center + testutil::lowest_corner_offset(A, m) - m * s;
        auto in_plane = [&](double r, double angle) { return p0 + (u * std::cos(angle) + w * std::sin(angle)) * r; };
        const double phase = rng.uniform(0, kTau), r = rng.uniform(0.2, 2.0);
        return {box, testutil::narrow<T>(maybe_flip(rng, TriangleD{in_plane(r, phase), in_plane(r * rng.uniform(0.5, 1.5), phase + 2.1),
                                                                   in_plane(r * rng.uniform(0.5, 1.5), phase + 4.2)}))};
    }
};

struct TriNearParallelEdges {
    // Triangle edges within 1e-12..1e-3 rad of a box axis, near a box edge; the triangle's plane either random or
    // within the same angle of a box face.
    static constexpr const char* name = "box-triangle edges near-parallel to box axes";
    static constexpr int count = 10000;
    static constexpr std::uint64_t seed = 31;
    static constexpr double min_checked = 0.8;
    template <class T>
    static BoxTri<T> make(Random& rng) {
        const tumble::ObbT<T> box = random_box<T>(rng, 1.0, 0.2, 1.0);
        const ObbD A = testutil::widen(box);
        const int i = rng.index(3);
        const glm::dmat3 turn = testutil::rotation_about_d(testutil::random_unit(rng), testutil::log_uniform(rng, -12, -3));
        const glm::dvec3 dir = turn * unit(A.axes[i]);
        const auto corners = A.corners();
        const glm::dvec3 corner = corners[static_cast<std::size_t>(rng.index(8))];
        const glm::dvec3 p = corner + testutil::random_unit(rng) * rng.uniform(0.0, 0.1);
        const glm::dvec3 p0 = p - dir * rng.uniform(0.2, 2.0), p1 = p + dir * rng.uniform(0.2, 2.0);
        glm::dvec3 side = testutil::random_unit(rng);
        if (rng.uniform() < 0.5) side = turn * unit(A.axes[(i + 1 + rng.index(2)) % 3]) * (rng.uniform() < 0.5 ? -1.0 : 1.0);
        const glm::dvec3 p2 = 0.5 * (p0 + p1) + side * rng.uniform(0.3, 2.0);
        return {box, testutil::narrow<T>(maybe_flip(rng, TriangleD{p0, p1, p2}))};
    }
};

struct TriExtremeAspect {
    // Boxes with half extents 1e-3..1e3 and triangles with sides 1e-3..1e3 (long slivers, big and tiny).
    static constexpr const char* name = "box-triangle aspect ratios 1e-3..1e3";
    static constexpr int count = 10000;
    static constexpr std::uint64_t seed = 32;
    static constexpr double min_checked = 0.9;
    template <class T>
    static BoxTri<T> make(Random& rng) {
        const ObbD A{random_dvec(rng, -1, 1), glm::dmat3(testutil::random_rotation<T>(rng)),
                     glm::dvec3(testutil::log_uniform(rng, -3, 3), testutil::log_uniform(rng, -3, 3), testutil::log_uniform(rng, -3, 3))};
        const glm::dvec3 p0 = A.center + A.axes * (random_dvec(rng, -1.2, 1.2) * A.half_extents);
        const glm::dvec3 d1 = testutil::random_unit(rng) * testutil::log_uniform(rng, -3, 3);
        glm::dvec3 d2 = testutil::random_unit(rng) * testutil::log_uniform(rng, -3, 3);
        if (rng.uniform() < 0.5) d2 = d1 * rng.uniform(-1, 1) + testutil::random_unit(rng) * testutil::log_uniform(rng, -3, 0);
        const glm::dvec3 shift = -(d1 + d2) * rng.uniform(0, 1) * 0.5;
        return {testutil::narrow<T>(A), testutil::narrow<T>(TriangleD{p0 + shift, p0 + shift + d1, p0 + shift + d2})};
    }
};

struct TriScales {
    static constexpr const char* name = "box-triangle scales 1e-4..1e4";
    static constexpr int count = 10000;
    static constexpr std::uint64_t seed = 33;
    static constexpr double min_checked = 0.9;
    template <class T>
    static BoxTri<T> make(Random& rng) {
        const double k = testutil::log_uniform(rng, -4, 4);
        ObbD A = testutil::widen(random_box<double>(rng, 1.0, 0.1, 1.0));
        TriangleD t = testutil::widen(random_triangle<double>(rng, random_dvec(rng, -1, 1), 1.5));
        A.center *= k, A.half_extents *= k;
        t.a *= k, t.b *= k, t.c *= k;
        return {testutil::narrow<T>(A), testutil::narrow<T>(t)};
    }
};

}  // namespace fam
