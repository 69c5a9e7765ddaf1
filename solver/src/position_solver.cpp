#include <tumble/solver/position_solver.hpp>

#include <cmath>
#include <string>

#include <tumble/error.hpp>
#include <tumble/narrowphase/sat.hpp>

namespace tumble {

void validate(const SolverSettings& s) {
    if (s.iterations < 1)
        throw InvalidArgument("SolverSettings: iterations is " + std::to_string(s.iterations) + " (must be >= 1)");
    if (!(std::isfinite(s.static_friction) && s.static_friction >= 0.0f))
        throw InvalidArgument("SolverSettings: static_friction is " + std::to_string(s.static_friction) +
                              " (must be finite and >= 0)");
    if (!(std::isfinite(s.dynamic_friction) && s.dynamic_friction >= 0.0f))
        throw InvalidArgument("SolverSettings: dynamic_friction is " + std::to_string(s.dynamic_friction) +
                              " (must be finite and >= 0)");
}

std::optional<Contact> mesh_contact(const Obb& box, const Triangle& tri, const glm::vec3& start_center,
                                    EdgeFlags active_edges) noexcept {
    const glm::dvec3 n = glm::dvec3(tri.scaled_normal());
    const double n2 = glm::dot(n, n);
    if (!(n2 > 0.0)) return collide(box, tri);  // degenerate: no front side to speak of
    const glm::dvec3 unit = n / std::sqrt(n2);
    const glm::dvec3 a(tri.a);
    const double side_now = glm::dot(glm::dvec3(box.center) - a, unit);
    const double side_start = glm::dot(glm::dvec3(start_center) - a, unit);
    if (side_now < 0.0 && side_start < 0.0) return std::nullopt;  // behind the triangle for the whole step

    std::optional<Contact> c = collide(box, tri);
    if (!c) return std::nullopt;
    // The box moves along -normal. Keep the SAT's choice unless that would push it towards the back, or it comes
    // from an inactive edge or vertex (a seam the neighbouring triangle continues).
    if (glm::dot(glm::dvec3(c->normal), unit) <= 0.0 && !on_inactive_feature(tri, *c, active_edges)) return c;
    double reach = 0.0;  // box radius along the triangle normal
    for (int i = 0; i < 3; ++i)
        reach += static_cast<double>(box.half_extents[i]) * std::abs(glm::dot(glm::dvec3(box.axes[i]), unit));
    Contact out;
    out.axis = 3;
    out.negative = true;
    out.depth = static_cast<float>(std::max(0.0, reach - side_now));
    out.normal = glm::vec3(-unit);
    return out;
}

std::optional<Contact> box_contact(const Obb& a, FaceFlags a_internal, const Obb& b, FaceFlags b_internal) noexcept {
    std::optional<Contact> c = collide(a, b);
    if (!c || (!a_internal && !b_internal)) return c;
    // Which box's internal face the contact comes out of: a's feature faces along +normal, b's along -normal.
    const bool from_a = on_internal_face(a, c->normal, a_internal);
    if (!from_a && !on_internal_face(b, -c->normal, b_internal)) return c;
    const Obb& seam = from_a ? a : b;
    const Obb& other = from_a ? b : a;
    const FaceFlags internal = from_a ? a_internal : b_internal;
    // Push `other` out through the real face of `seam` that needs the least: along the face's outward normal f, the
    // overlap is (seam's reach + other's reach) - (other's centre - seam's centre) . f.
    const glm::dvec3 t = glm::dvec3(other.center) - glm::dvec3(seam.center);
    double best = -1.0;
    int best_face = -1;
    for (int face = 0; face < 6; ++face) {
        if (internal & (1u << face)) continue;
        const int i = face / 2;
        const glm::dvec3 f = glm::dvec3(seam.axes[i]) * (face % 2 ? -1.0 : 1.0);
        double reach = seam.half_extents[i];
        for (int k = 0; k < 3; ++k)
            reach += static_cast<double>(other.half_extents[k]) * std::abs(glm::dot(glm::dvec3(other.axes[k]), f));
        const double depth = reach - glm::dot(t, f);
        if (best_face < 0 || depth < best) best = depth, best_face = face;
    }
    if (best_face < 0) return c;  // every face internal: nothing better to offer
    const int i = best_face / 2;
    const glm::dvec3 f = glm::dvec3(seam.axes[i]) * (best_face % 2 ? -1.0 : 1.0);  // out of seam, towards other
    Contact out;
    out.depth = static_cast<float>(std::max(0.0, best));
    // Normal from a towards b: out of a's face when a is the seam box, into b's face otherwise.
    out.normal = glm::vec3(from_a ? f : -f);
    out.axis = from_a ? i : 3 + i;
    out.negative = from_a ? best_face % 2 == 1 : best_face % 2 == 0;
    return out;
}

namespace {

// Moves the pair apart by `depth` along `normal` (from A to B) and then removes tangential slip within the
// friction bounds. `wa`, `wb`: shares of the correction (0.5/0.5, 1/0, 0/1). `normal_sum`, `friction_sum`: this
// contact's accumulators for the step.
void correct(SolverBody& a, SolverBody* b, const glm::vec3& normal, float depth, float wa, float wb,
             float& normal_sum, float& friction_sum, const SolverSettings& s) {
    a.position -= normal * (depth * wa);
    if (b) b->position += normal * (depth * wb);
    normal_sum += depth;

    glm::vec3 slip = a.position - a.start_position;
    if (b) slip -= b->position - b->start_position;
    slip -= normal * glm::dot(slip, normal);
    const float len = glm::length(slip);
    if (!(len > 0.0f)) return;
    glm::vec3 fix;
    if (len <= s.static_friction * normal_sum) {
        fix = slip;  // static: the contact sticks, all slip of the step is undone
    } else {
        const float budget = s.dynamic_friction * normal_sum - friction_sum;
        if (!(budget > 0.0f)) return;
        fix = slip * (std::min(budget, len) / len);
    }
    friction_sum += glm::length(fix);
    a.position -= fix * wa;
    if (b) b->position += fix * wb;
}

}  // namespace

void PositionSolver::solve(std::span<SolverBody> bodies, std::span<const BodyPairRef> pairs,
                           std::span<const TriangleRef> triangles, const SolverSettings& settings) {
    const std::size_t contacts = pairs.size() + triangles.size();
    normal_sum_.assign(contacts, 0.0f);
    friction_sum_.assign(contacts, 0.0f);
    for (int iteration = 0; iteration < settings.iterations; ++iteration) {
        for (std::size_t k = 0; k < pairs.size(); ++k) {
            SolverBody& a = bodies[pairs[k].a];
            SolverBody& b = bodies[pairs[k].b];
            if (!a.dynamic && !b.dynamic) continue;
            const std::optional<Contact> c = box_contact(a.obb(), a.internal_faces, b.obb(), b.internal_faces);
            if (!c || !(c->depth > 0.0f)) continue;
            const float wa = a.dynamic ? (b.dynamic ? 0.5f : 1.0f) : 0.0f;
            correct(a, &b, c->normal, c->depth, wa, 1.0f - wa, normal_sum_[k], friction_sum_[k], settings);
        }
        for (std::size_t k = 0; k < triangles.size(); ++k) {
            SolverBody& body = bodies[triangles[k].body];
            if (!body.dynamic) continue;
            const std::optional<Contact> c =
                mesh_contact(body.obb(), triangles[k].triangle, body.start_position, triangles[k].active_edges);
            if (!c || !(c->depth > 0.0f)) continue;
            const std::size_t slot = pairs.size() + k;
            correct(body, nullptr, c->normal, c->depth, 1.0f, 0.0f, normal_sum_[slot], friction_sum_[slot], settings);
        }
    }
}

}  // namespace tumble
