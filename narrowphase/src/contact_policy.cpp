// Contact policies for static geometry (see contact_policy.hpp for the rules and the sources).

#include <tumble/narrowphase/contact_policy.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tumble {
namespace {

using glm::dvec3;

const double kSinFeatureAngle = std::sin(kFeatureAngle);
const double kCosFaceEdgeAngle = std::cos(kFaceEdgeAngle);

// The signed distance of `point` in front of the plane of `tri`, whose unit front normal is `unit` (front_side).
double side_of(const Triangle& tri, const glm::vec3& point, const dvec3& unit) {
    return glm::dot(dvec3(point) - dvec3(tri.a), unit);
}
// The unit front normal of a triangle and the signed distance of `point` in front of its plane; false for a
// degenerate triangle (no front side to speak of).
bool front_side(const Triangle& tri, const glm::vec3& point, dvec3& unit, double& side) {
    const dvec3 n = dvec3(tri.scaled_normal());
    const double n2 = glm::dot(n, n);
    if (!(n2 > 0.0)) return false;
    unit = n / std::sqrt(n2);
    side = side_of(tri, point, unit);
    return true;
}

// The face of `seam` that is not internal and needs the least push to separate `other` from it: along the face's
// outward normal f, the overlap is (seam's reach + other's reach) - (other's centre - seam's centre) . f. Returns
// the face (2 axis + 1 for the - side) and its overlap, or -1 when every face is internal.
int least_real_face(const Obb& seam, const Obb& other, FaceFlags internal, double& overlap) {
    const dvec3 t = dvec3(other.center) - dvec3(seam.center);
    int best_face = -1;
    for (int face = 0; face < 6; ++face) {
        if (internal & (1u << face)) continue;
        const int i = face / 2;
        const dvec3 f = dvec3(seam.axes[i]) * (face % 2 ? -1.0 : 1.0);
        double reach = seam.half_extents[i];
        for (int k = 0; k < 3; ++k)
            reach += static_cast<double>(other.half_extents[k]) * std::abs(glm::dot(dvec3(other.axes[k]), f));
        const double depth = reach - glm::dot(t, f);
        if (best_face < 0 || depth < overlap) overlap = depth, best_face = face;
    }
    return best_face;
}

// True when `p`, projected along the triangle's unit normal `unit`, falls inside the triangle grown by `tolerance`
// metres (barycentric signs of the projection; the edge functions are divided by the edge lengths).
bool projects_inside(const Triangle& tri, const dvec3& unit, const glm::vec3& p, double tolerance) {
    const dvec3 v[3] = {dvec3(tri.a), dvec3(tri.b), dvec3(tri.c)};
    const dvec3 q(p);
    for (int j = 0; j < 3; ++j) {
        const dvec3 e = v[(j + 1) % 3] - v[j];
        const double len = std::sqrt(glm::dot(e, e));
        if (!(len > 0.0)) continue;
        if (glm::dot(glm::cross(e, q - v[j]), unit) / len < -tolerance) return false;
    }
    return true;
}

// The face manifold that pushes `box` out through the triangle's front (axis 3, the normal -front), keeping only the
// points over the triangle. A point whose projection falls outside it (the face clipping's fallback, the box's
// deepest corner, when the box is beside the triangle rather than over it) would push the box by its reach behind
// the plane's extension: a box next to the foot of a wall or below a step would be thrown out of its place. The
// neighbouring triangles hold the box there. Points deeper behind the plane than `deepest` metres are dropped as
// well. Nothing when no point is kept.
std::optional<Manifold> front_face_manifold(const Obb& box, const Triangle& tri, const dvec3& unit, float margin,
                                            double deepest) {
    std::optional<Manifold> face = face_manifold(box, tri, 3, true, margin);
    if (!face) return std::nullopt;
    const double tolerance = 1e-4 * std::max({box.half_extents.x, box.half_extents.y, box.half_extents.z});
    int kept = 0;
    for (int k = 0; k < face->count; ++k) {
        const ManifoldPoint& p = face->points[static_cast<std::size_t>(k)];
        if (p.depth <= deepest && projects_inside(tri, unit, p.point_b, tolerance))
            face->points[static_cast<std::size_t>(kept++)] = p;
    }
    if (kept == 0) return std::nullopt;
    face->count = kept;
    return face;
}

// An edge-edge manifold (one point) whose normal lies within kFaceEdgeAngle of a face normal of the box is a
// triangle edge lying along that face: a box resting across a ledge, or a plate lying tilted over a step, where the
// face axis loses the SAT because it measures the whole triangle, far parts included, not the part under the face.
// One point cannot hold a face on an edge: the box rocks about it, and the point jumps from one end of the edge to
// the other as it does. The face's manifold (the triangle clipped to the face: both ends of the edge under it, and
// any of the triangle below the face) holds it, as the supporting faces clipped along the contact normal do in Jolt
// (Rouwe, ManifoldBetweenTwoFaces). The replacement when it has at least two points and does not push the box
// towards the triangle's back (`unit`: its front normal) where the SAT's normal did not; nothing otherwise (the
// caller keeps the SAT's manifold, not copied here).
std::optional<Manifold> face_for_edge(const Obb& box, const Triangle& tri, const dvec3& unit, const Manifold& m,
                                      float margin) {
    if (m.axis < 4) return std::nullopt;  // a face axis of the box (0-2) or the triangle's (3)
    const dvec3 n(m.normal);
    for (int i = 0; i < 3; ++i) {  // the box's axes are orthogonal: at most one lies within the angle
        const double c = glm::dot(n, dvec3(box.axes[i]));
        if (!(std::abs(c) >= kCosFaceEdgeAngle)) continue;
        std::optional<Manifold> face = face_manifold(box, tri, i, c < 0.0, margin);
        if (face && face->count >= 2 && !(glm::dot(dvec3(face->normal), unit) > kSinFeatureAngle)) return face;
        return std::nullopt;
    }
    return std::nullopt;
}

// Which box of a pair the contact with normal `normal` (from a towards b) comes out of through an internal face:
// 1 for a, 2 for b, 0 for neither (a is checked first).
int internal_side(const Obb& a, FaceFlags a_internal, const Obb& b, FaceFlags b_internal, const glm::vec3& normal) {
    if (on_internal_face(a, normal, a_internal)) return 1;
    if (on_internal_face(b, -normal, b_internal)) return 2;
    return 0;
}

}  // namespace

std::optional<Contact> mesh_contact(const Obb& box, const Triangle& tri, const glm::vec3& start_center,
                                    EdgeFlags active_edges) noexcept {
    dvec3 unit;
    double side_now, side_start;
    if (!front_side(tri, box.center, unit, side_now)) return collide(box, tri);
    side_start = side_of(tri, start_center, unit);
    if (side_now < 0.0 && side_start < 0.0) return std::nullopt;  // behind the triangle for the whole step

    std::optional<Contact> c = collide(box, tri);
    if (!c) return std::nullopt;
    // The box moves along -normal. Keep the SAT's choice unless that would push it towards the back, or it comes
    // from an inactive edge or vertex (a seam the neighbouring triangle continues).
    if (glm::dot(dvec3(c->normal), unit) <= 0.0 && !on_inactive_feature(tri, *c, active_edges)) return c;
    // Pushed out through the front instead, where the box lies over the triangle (front_face_manifold).
    if (!front_face_manifold(box, tri, unit, 0.0f, std::numeric_limits<double>::infinity())) return std::nullopt;
    double reach = 0.0;  // box radius along the triangle normal
    for (int i = 0; i < 3; ++i)
        reach += static_cast<double>(box.half_extents[i]) * std::abs(glm::dot(dvec3(box.axes[i]), unit));
    Contact out;
    out.axis = 3;
    out.negative = true;
    out.depth = static_cast<float>(std::max(0.0, reach - side_now));
    out.normal = glm::vec3(-unit);
    return out;
}

std::optional<Manifold> mesh_manifold(const Obb& box, const Triangle& tri, const glm::vec3& start_center,
                                      EdgeFlags active_edges, float margin) noexcept {
    dvec3 unit;
    double side_now, side_start;
    if (!front_side(tri, box.center, unit, side_now)) return collide_manifold(box, tri, margin);
    side_start = side_of(tri, start_center, unit);
    if (!(side_now >= 0.0 || side_start >= 0.0)) return std::nullopt;  // behind it for the whole step (or NaN)
    std::optional<Manifold> m = collide_manifold(box, tri, margin);
    if (!m) return std::nullopt;
    // Towards the back beyond round-off: a box resting across a ledge meets the top edge of the wall below it
    // along an axis perpendicular to the wall, give or take float error, and that contact is the right one.
    const bool towards_back = glm::dot(dvec3(m->normal), unit) > kSinFeatureAngle;
    const bool seam = on_inactive_feature(tri, m->contact(), active_edges);
    if (!towards_back && !seam) {
        if (std::optional<Manifold> face = face_for_edge(box, tri, unit, *m, margin)) return face;
        return m;
    }
    if (seam) return front_face_manifold(box, tri, unit, margin, std::numeric_limits<double>::infinity());
    // A box apart from the triangle (within the margin) along an axis that leads to its back does not meet it from
    // the front: no contact. (Replacing it by the face normal would measure the box against the face's plane,
    // which is not there below a lintel or beside a wall's end.) An overlapping box is pushed out through the
    // front where it lies over the triangle, but only by the points that can have crossed the plane from the front
    // since the box was last resolved: no deeper than the SAT's depth plus the margin (the step's motion). Deeper
    // points were behind the plane before, as the corners of a box lying across a ledge are behind the wall below
    // the ledge; the triangles they really sit in hold them, and a push through this one would throw the box.
    if (m->depth < 0.0f) return std::nullopt;
    return front_face_manifold(box, tri, unit, margin, static_cast<double>(m->depth) + static_cast<double>(margin));
}

std::optional<Contact> box_contact(const Obb& a, FaceFlags a_internal, const Obb& b, FaceFlags b_internal) noexcept {
    std::optional<Contact> c = collide(a, b);
    if (!c || (!a_internal && !b_internal)) return c;
    const int which = internal_side(a, a_internal, b, b_internal, c->normal);
    if (which == 0) return c;
    const bool from_a = which == 1;
    double best = 0.0;
    const int best_face = least_real_face(from_a ? a : b, from_a ? b : a, from_a ? a_internal : b_internal, best);
    if (best_face < 0) return c;  // every face internal: nothing better to offer
    const int i = best_face / 2;
    const Obb& seam = from_a ? a : b;
    const dvec3 f = dvec3(seam.axes[i]) * (best_face % 2 ? -1.0 : 1.0);  // out of seam, towards other
    Contact out;
    out.depth = static_cast<float>(std::max(0.0, best));
    // Normal from a towards b: out of a's face when a is the seam box, into b's face otherwise.
    out.normal = glm::vec3(from_a ? f : -f);
    out.axis = from_a ? i : 3 + i;
    out.negative = from_a ? best_face % 2 == 1 : best_face % 2 == 0;
    return out;
}

std::optional<Manifold> box_manifold(const Obb& a, FaceFlags a_internal, const Obb& b, FaceFlags b_internal,
                                     float margin) noexcept {
    std::optional<Manifold> m = collide_manifold(a, b, margin);
    if (!m || (!a_internal && !b_internal)) return m;
    const int which = internal_side(a, a_internal, b, b_internal, m->normal);
    if (which == 0) return m;
    const bool from_a = which == 1;
    double best = 0.0;
    const int best_face = least_real_face(from_a ? a : b, from_a ? b : a, from_a ? a_internal : b_internal, best);
    if (best_face < 0) return m;
    const int i = best_face / 2;
    // The face's axis as the SAT numbers it, and the sign that makes the normal point from a towards b.
    const int axis = from_a ? i : 3 + i;
    const bool negative = from_a ? best_face % 2 == 1 : best_face % 2 == 0;
    return face_manifold(a, b, axis, negative, margin);
}

}  // namespace tumble
