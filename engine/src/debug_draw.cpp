// Debug drawing: World::debug_draw walks bodies, proxies, octree cells, contacts and meshes and calls the game's
// DebugDraw. Nothing here changes the world.

#include <tumble/engine/debug_draw.hpp>

#include <cstdio>

#include "world_impl.hpp"

namespace tumble {

void DebugDraw::box(const Obb& b, const glm::vec3& color) {
    const std::array<glm::vec3, 8> c = b.corners();
    // Corner k has bit i set when it is on the + side of axis i: an edge joins corners differing in one bit.
    for (int k = 0; k < 8; ++k)
        for (int bit = 1; bit < 8; bit <<= 1)
            if (!(k & bit)) line(c[static_cast<std::size_t>(k)], c[static_cast<std::size_t>(k | bit)], color);
}

void DebugDraw::body(BodyId, const Obb& b, const glm::vec3& color) { box(b, color); }

void DebugDraw::point(const glm::vec3& p, float size, const glm::vec3& color) {
    const float h = 0.5f * size;
    line(p - glm::vec3(h, 0, 0), p + glm::vec3(h, 0, 0), color);
    line(p - glm::vec3(0, h, 0), p + glm::vec3(0, h, 0), color);
    line(p - glm::vec3(0, 0, h), p + glm::vec3(0, 0, h), color);
}

void DebugDraw::text(const glm::vec3&, std::string_view, const glm::vec3&) {}

namespace {

// Centre of the feature of box `b` that reaches farthest along `n` (a face, edge or vertex centre): along each box
// axis nearly perpendicular to n the feature spans the whole extent, so its centre stays at 0 there.
glm::vec3 support_feature(const Obb& b, const glm::vec3& n) {
    glm::vec3 p = b.center;
    for (int i = 0; i < 3; ++i) {
        const float s = glm::dot(b.axes[i], n);
        if (std::abs(s) > 1e-3f) p += b.axes[i] * (s > 0.0f ? b.half_extents[i] : -b.half_extents[i]);
    }
    return p;
}

// Closest point of a box to p (clamped in the box frame).
glm::vec3 closest_on_box(const Obb& b, const glm::vec3& p) {
    glm::vec3 q = b.center;
    for (int i = 0; i < 3; ++i) {
        const float x = glm::clamp(glm::dot(p - b.center, b.axes[i]), -b.half_extents[i], b.half_extents[i]);
        q += b.axes[i] * x;
    }
    return q;
}

// Closest point of a triangle to p (Ericson, Real-Time Collision Detection, 5.1.5).
glm::vec3 closest_on_triangle(const Triangle& t, const glm::vec3& p) {
    const glm::vec3 ab = t.b - t.a, ac = t.c - t.a, ap = p - t.a;
    const float d1 = glm::dot(ab, ap), d2 = glm::dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) return t.a;
    const glm::vec3 bp = p - t.b;
    const float d3 = glm::dot(ab, bp), d4 = glm::dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) return t.b;
    const float vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) return t.a + ab * (d1 / (d1 - d3));
    const glm::vec3 cp = p - t.c;
    const float d5 = glm::dot(ab, cp), d6 = glm::dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) return t.c;
    const float vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) return t.a + ac * (d2 / (d2 - d6));
    const float va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) return t.b + (t.c - t.b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    const float denom = 1.0f / (va + vb + vc);
    return t.a + ab * (vb * denom) + ac * (vc * denom);
}

void draw_aabb(DebugDraw& draw, const Aabb& b, const glm::vec3& color) { draw.box(Obb::from_aabb(b), color); }

}  // namespace

void World::debug_draw(DebugDraw& draw, const DebugDrawOptions& options) const {
    const Impl& w = *impl_;
    for (std::uint32_t slot = 0; slot < w.state.bodies.size(); ++slot) {
        const Impl::Body& b = w.state.bodies[slot];
        if (!b.alive) continue;
        if (options.bodies) {
            const glm::vec3 color = b.sensor      ? DebugColors::sensor
                                    : b.kinematic ? DebugColors::kinematic
                                    : !b.dynamic() ? DebugColors::fixed
                                    : b.sleeping() ? DebugColors::sleeping
                                                   : DebugColors::awake;
            draw.body(w.id_of(slot), b.obb(), color);
        }
        if (options.sleep_labels && b.sleeping())
            draw.text(b.position + glm::vec3(0.0f, b.half_extents.y + 0.1f, 0.0f), "sleeping", DebugColors::sleeping);
        if (options.proxies) draw_aabb(draw, w.tree_of(b).aabb(b.proxy), DebugColors::proxy);
    }
    if (options.octree_cells) {
        std::vector<OctreeCell> cells;
        w.state.active.cells(cells);
        w.state.resting.cells(cells);
        for (const OctreeCell& c : cells) draw_aabb(draw, c.bound, DebugColors::cell);
    }
    if (options.contacts) {
        for (const ContactRecord& r : contacts()) {
            // A representative point: the feature of a that reaches into b, moved onto b.
            const Obb a = w.state.bodies[r.a.index].obb();
            const glm::vec3 deepest = support_feature(a, r.contact.normal);
            const glm::vec3 p =
                r.mesh.is_null()
                    ? closest_on_box(w.state.bodies[r.b.index].obb(), deepest)
                    : closest_on_triangle(w.state.meshes[r.mesh.index].index.triangle(r.triangle), deepest);
            draw.point(p, 0.05f, DebugColors::contact);
            // The normal points from a towards b; draw it as the direction a is pushed out (-normal) from the point.
            draw.line(p, p - r.contact.normal * options.normal_length, DebugColors::contact);
            draw.line(p, p + r.contact.normal * r.contact.depth, DebugColors::depth);
            if (options.depth_labels) {
                char label[32];
                std::snprintf(label, sizeof label, "%.1f mm", static_cast<double>(r.contact.depth) * 1e3);
                draw.text(p, label, DebugColors::depth);
            }
        }
    }
    if (options.meshes) {
        for (const Impl::Mesh& m : w.state.meshes) {
            if (!m.alive) continue;
            for (const Triangle& t : m.index.triangles()) {
                draw.line(t.a, t.b, DebugColors::fixed);
                draw.line(t.b, t.c, DebugColors::fixed);
                draw.line(t.c, t.a, DebugColors::fixed);
            }
        }
    }
}

}  // namespace tumble
