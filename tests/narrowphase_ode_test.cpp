// Contact manifolds against ODE's dBoxBox (the box-box collider behind dCollide; Debian libode-dev), test-only and
// skipped when ODE is absent. ODE clips the incident face against the reference face too (its intersectRectQuad),
// so where both pick the same axis the point sets must agree: ODE keeps every clipped point (we ask for up to 16),
// Tumble keeps at most 4 of them, the deepest among them. ODE prefers face axes over edge axes unless an edge is 5%
// shallower (its fudge_factor 1.05) and assumes orthonormal axes, so the axis can differ: then ODE's contact must
// be at least as deep as Tumble's least-penetration contact.

#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <tumble/narrowphase/manifold.hpp>

#include "support/families.hpp"
#include "support/test_util.hpp"

#if TUMBLE_HAVE_ODE
#include <ode/ode.h>
#endif

namespace {

#if TUMBLE_HAVE_ODE

struct OdeContact {
    int axis = -1;  // Tumble's numbering
    glm::dvec3 normal{0.0};
    double depth = 0;
    std::vector<std::pair<glm::dvec3, double>> points;  // position, depth
};

template <class T>
void to_ode(const tumble::ObbT<T>& o, dVector3 p, dMatrix3 R, dVector3 side) {
    for (int i = 0; i < 3; ++i) {
        p[i] = static_cast<double>(o.center[i]);
        side[i] = 2.0 * static_cast<double>(o.half_extents[i]);
        for (int j = 0; j < 3; ++j) R[i * 4 + j] = static_cast<double>(o.axes[j][i]);  // row i, column j
        R[i * 4 + 3] = 0;
    }
    p[3] = side[3] = 0;
}

// ODE's closed forms assume orthonormal axes; float axes are orthonormal to ~1e-7 only, which on nearly parallel edges
// ODE turns into wrong axes (the failure of Gomez's float test, Gamasutra 1999). ODE gets the same boxes with their
// axes made orthonormal (testutil::orthonormalized), a change of ~1e-7 of the size, far inside the tolerance.
template <class T>
OdeContact ode_box_box(const tumble::ObbT<T>& a, const tumble::ObbT<T>& b) {
    dVector3 p1, p2, s1, s2, normal;
    dMatrix3 R1, R2;
    to_ode(a, p1, R1, s1);
    to_ode(b, p2, R2, s2);
    dContactGeom contacts[16];
    dReal depth = 0;
    int code = 0;
    const int n = dBoxBox(p1, R1, s1, p2, R2, s2, normal, &depth, &code, 16, contacts, sizeof(dContactGeom));
    OdeContact out;
    if (n <= 0) return out;
    out.axis = code - 1;  // 1-3: box 1's faces, 4-6: box 2's, 7-15: u_i x v_j, i outer: Tumble's order
    out.normal = {normal[0], normal[1], normal[2]};
    out.depth = depth;
    for (int k = 0; k < n; ++k)
        out.points.push_back({{contacts[k].pos[0], contacts[k].pos[1], contacts[k].pos[2]}, contacts[k].depth});
    return out;
}

struct Agreement {
    long compared = 0, same_axis = 0, face = 0, face_reduced = 0, edge = 0, points = 0;
};

// Compares one pair. ODE's face points are the clipped incident points (on B for A's faces, on A for B's faces) and
// its edge point is the midpoint of the two edges' closest points.
template <class T>
std::string compare(const tumble::ObbT<T>& a, const tumble::ObbT<T>& b, Agreement& agree) {
    // Pairs the reference decides as overlapping (not within the touching margin).
    const ref::Result r = ref::box_box(a, b);
    if (r.separated || r.min_depth <= testutil::kTouchMargin * r.size) return {};
    const auto m = tumble::collide_manifold(a, b);
    if (!m) return "no manifold for an overlapping pair";
    const OdeContact ode = ode_box_box(testutil::orthonormalized(a), testutil::orthonormalized(b));
    const double size = std::max(glm::length(glm::dvec3(a.half_extents)), glm::length(glm::dvec3(b.half_extents)));
    const double far = std::max(glm::length(glm::dvec3(a.center)), glm::length(glm::dvec3(b.center)));
    const double tol = (std::is_same_v<T, float> ? 2e-6 : 1e-9) * (size + far);
    // Where a clipped point lies on an incident edge that meets a side plane at a grazing angle, the 1e-7 by which
    // ODE's orthonormalized float boxes differ from the boxes as given moves it along the edge by much more: float
    // points are matched to 1e-4 of the size (their depths still to `tol`), double ones to `tol`.
    const double place = std::is_same_v<T, float> ? std::max(tol, 1e-4 * size) : tol;
    ++agree.compared;
    if (ode.axis < 0) return "ODE finds no contact; Tumble's depth is " + testutil::num(m->depth);
    if (ode.axis != m->axis) {
        // ODE prefers faces by 5% and its closed forms assume orthonormal axes: its contact may be deeper, never
        // shallower than the least penetration.
        if (ode.depth < static_cast<double>(m->depth) - tol)
            return "ODE's axis " + std::to_string(ode.axis) + " is shallower (" + testutil::num(ode.depth) + ") than the least, " +
                   testutil::num(m->depth) + " on axis " + std::to_string(m->axis);
        return {};
    }
    ++agree.same_axis;
    if (std::abs(ode.depth - static_cast<double>(m->depth)) > tol) return "depth differs from ODE's";
    if (glm::dot(ode.normal, glm::dvec3(m->normal)) < 1 - 1e-6) return "normal differs from ODE's";
    if (m->axis >= 6) {
        ++agree.edge;
        const glm::dvec3 mid = 0.5 * (glm::dvec3(m->points[0].point_a) + glm::dvec3(m->points[0].point_b));
        if (m->count != 1 || ode.points.size() != 1) return "edge contact with more than one point";
        if (glm::length(mid - ode.points[0].first) > place) return "edge point differs from ODE's";
        ++agree.points;
        return {};
    }
    ++agree.face;
    // Points within the tolerance of depth 0 may be kept by one and not the other.
    int ode_clear = 0;
    double ode_deepest = 0;
    for (const auto& [pos, d] : ode.points) {
        ode_clear += d > tol;
        ode_deepest = std::max(ode_deepest, d);
    }
    if (ode.points.size() > 4) ++agree.face_reduced;
    const bool on_b = m->axis < 3;
    double deepest = 0;
    for (int k = 0; k < m->count; ++k) {
        const auto& p = m->points[static_cast<std::size_t>(k)];
        const glm::dvec3 x(on_b ? p.point_b : p.point_a);
        deepest = std::max(deepest, static_cast<double>(p.depth));
        bool found = false;
        for (const auto& [pos, d] : ode.points)
            found |= glm::length(pos - x) <= place && std::abs(d - static_cast<double>(p.depth)) <= tol;
        if (!found && p.depth > tol) return "point " + std::to_string(k) + " is not one of ODE's clipped points";
        agree.points += found;
    }
    const int want = std::min(ode_clear, tumble::kMaxManifoldPoints);
    if (m->count < want || m->count > std::max(want, std::min<int>(static_cast<int>(ode.points.size()), tumble::kMaxManifoldPoints)))
        return "Tumble keeps " + std::to_string(m->count) + " points, ODE finds " + std::to_string(ode.points.size()) + " (" +
               std::to_string(ode_clear) + " clearly below the face)";
    // The deepest is kept, up to the documented tie tolerance of the reduction (1e-3 of the largest half extent).
    if (deepest < ode_deepest - 1e-3 * size - tol) return "the deepest of ODE's points was dropped";
    return {};
}

template <class T, class Family>
void run_family(long min_same_axis) {
    testutil::Random rng(Family::seed);
    Agreement agree;
    int failures = 0;
    for (int k = 0; k < Family::count && failures < 10; ++k) {
        const auto [a, b] = Family::template make<T>(rng);
        const std::string error = compare(a, b, agree);
        if (!error.empty()) {
            ++failures;
            ADD_FAILURE() << Family::name << " (" << testutil::scalar_name(T()) << ") case " << k << ": " << error
                          << "\n  A = " << testutil::describe(a) << "\n  B = " << testutil::describe(b);
        }
    }
    std::printf("[ ODE      ] %-6s %-34s %5ld manifolds, %5ld on ODE's axis (%ld face, %ld of them reduced from >4, %ld "
                "edge), %6ld points matched\n",
                testutil::scalar_name(T()), Family::name, agree.compared, agree.same_axis, agree.face,
                agree.face_reduced, agree.edge, agree.points);
    EXPECT_GE(agree.same_axis, min_same_axis);
}

#define ODE_TEST(name, family, min_same_axis)                          \
    TEST(ManifoldVersusOde, name) {                                    \
        dInitODE2(0);                                                  \
        run_family<float, fam::family>(min_same_axis);                 \
        run_family<double, fam::family>(min_same_axis);                \
        dCloseODE();                                                   \
    }

#else

#define ODE_TEST(name, family, min_same_axis) \
    TEST(ManifoldVersusOde, name) { GTEST_SKIP() << "ODE (Debian libode-dev) was not found when building: not compared"; }

#endif

ODE_TEST(RandomGeneralPairs, RandomGeneral, 3000)
ODE_TEST(AxisAlignedPairs, AxisAligned, 2000)
// Parallel edges: A's and B's faces lie in the same planes, the two face axes tie and ODE and Tumble break the tie
// by round-off, about half the time the same way.
ODE_TEST(SharedOrientationParallelEdges, ParallelEdges, 1000)
ODE_TEST(NearTouchingFaceFace, TouchFaceFace, 2000)
ODE_TEST(NearTouchingFaceEdge, TouchFaceEdge, 2000)
ODE_TEST(NearTouchingEdgeEdge, TouchEdgeEdge, 2000)
ODE_TEST(NearTouchingVertexFace, TouchVertexFace, 2000)

}  // namespace
