// Active-edge feature tests (see active_edges.hpp for the contract and the sources).

#include <tumble/narrowphase/active_edges.hpp>

#include <cmath>

namespace tumble {
namespace {

using glm::dvec3;

const double kSinAngle = std::sin(kFeatureAngle);

bool finite(const dvec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

// Edge index of the pair of vertices (i, j), i != j: (0, 1) -> 0, (1, 2) -> 1, (2, 0) -> 2.
int edge_of(int i, int j) { return i + j == 1 ? 0 : (i + j == 3 ? 1 : 2); }

}  // namespace

bool on_inactive_feature(const Triangle& tri, const Contact& c, EdgeFlags active) noexcept {
    if ((active & kAllEdgesActive) == kAllEdgesActive || c.axis == 3) return false;
    const dvec3 n(c.normal);
    const dvec3 v[3] = {dvec3(tri.a), dvec3(tri.b), dvec3(tri.c)};
    if (!finite(n) || !finite(v[0]) || !finite(v[1]) || !finite(v[2])) return false;
    if (!(glm::length(glm::cross(v[1] - v[0], v[2] - v[0])) > 0.0)) return false;  // degenerate: no flags apply
    // The triangle's part nearest the box lies least far along the normal (which points from the box to it): the
    // deepest vertex, or the edge from it that is perpendicular to the normal within kFeatureAngle (the more
    // perpendicular one when both are, as for a normal within kFeatureAngle of the face normal: replacing such a
    // contact by the face normal turns it by less than that angle, and drops a sideways component when the edge is
    // a seam).
    double p[3];
    int deepest = 0;
    for (int k = 0; k < 3; ++k) {
        p[k] = glm::dot(v[k], n);
        if (p[k] < p[deepest]) deepest = k;
    }
    int other = -1;
    double best_slope = kSinAngle;
    for (int k = 0; k < 3; ++k) {
        if (k == deepest) continue;
        const double slope = (p[k] - p[deepest]) / glm::length(v[k] - v[deepest]);
        if (slope <= best_slope) best_slope = slope, other = k;
    }
    if (other >= 0) return !(active & (1u << edge_of(deepest, other)));  // an edge
    return !(active & (1u << (3 + deepest)));                             // a vertex
}

bool on_internal_face(const Obb& box, const glm::vec3& outward, FaceFlags internal) noexcept {
    if (!internal) return false;
    const dvec3 u(outward);
    for (int i = 0; i < 3; ++i) {
        const double d = glm::dot(u, dvec3(box.axes[i]));
        if (!(std::abs(d) > kSinAngle)) continue;  // the feature spans this axis (or NaN)
        if (internal & (1u << (d > 0.0 ? 2 * i : 2 * i + 1))) return true;
    }
    return false;
}

FaceFlags covered_faces(const Obb& box, const Obb& neighbour, float tolerance) noexcept {
    FaceFlags out = 0;
    const double tol = tolerance;
    for (int i = 0; i < 3; ++i) {
        for (int side = 0; side < 2; ++side) {
            const dvec3 n = dvec3(box.axes[i]) * (side == 0 ? 1.0 : -1.0);
            const dvec3 centre = dvec3(box.center) + n * static_cast<double>(box.half_extents[i]);
            const dvec3 u(box.axes[(i + 1) % 3]), w(box.axes[(i + 2) % 3]);
            const double hu = box.half_extents[(i + 1) % 3], hw = box.half_extents[(i + 2) % 3];
            for (int k = 0; k < 3; ++k) {
                const double along = glm::dot(dvec3(neighbour.axes[k]), n);
                if (!(std::abs(along) >= 1.0 - 1e-6)) continue;  // not parallel within ~1.4e-3 rad
                // The neighbour's face whose outward normal is -n.
                const dvec3 m = dvec3(neighbour.axes[k]) * (along > 0.0 ? -1.0 : 1.0);
                const dvec3 other = dvec3(neighbour.center) + m * static_cast<double>(neighbour.half_extents[k]);
                if (!(std::abs(glm::dot(other - centre, n)) <= tol)) break;
                const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
                const dvec3 a1(neighbour.axes[k1]), a2(neighbour.axes[k2]);
                bool inside = true;
                for (int corner = 0; corner < 4 && inside; ++corner) {
                    const dvec3 p = centre + u * ((corner & 1) ? hu : -hu) + w * ((corner & 2) ? hw : -hw) - other;
                    inside = std::abs(glm::dot(p, a1)) <= neighbour.half_extents[k1] + tol &&
                             std::abs(glm::dot(p, a2)) <= neighbour.half_extents[k2] + tol;
                }
                if (inside) out = static_cast<FaceFlags>(out | (1u << (2 * i + side)));
                break;
            }
        }
    }
    return out;
}

}  // namespace tumble
