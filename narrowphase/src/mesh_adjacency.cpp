// Edge adjacency and active-edge flags of a static triangle mesh (see mesh_adjacency.hpp).

#include <tumble/narrowphase/mesh_adjacency.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

namespace tumble {
namespace {

using glm::dvec3;

constexpr double kPi = 3.14159265358979323846;

dvec3 corner(const Triangle& t, int k) { return dvec3(k == 0 ? t.a : (k == 1 ? t.b : t.c)); }

// True when a neighbour whose vertex off the shared line is `w` continues triangle `t`'s surface across its edge j:
// it bends away from t's plane by at most `tolerance` radians, or towards t's front (concave), short of folding
// back onto t (a knife edge, which is a real corner).
bool continues(const Triangle& t, int j, const dvec3& w, double tolerance) {
    const dvec3 p = corner(t, j), q = corner(t, (j + 1) % 3);
    const dvec3 n = glm::normalize(glm::cross(corner(t, 1) - corner(t, 0), corner(t, 2) - corner(t, 0)));
    const dvec3 e = glm::normalize(q - p);
    const dvec3 out = glm::cross(e, n);  // in t's plane, perpendicular to the edge, away from t's interior
    const double bend = std::atan2(glm::dot(w - p, n), glm::dot(w - p, out));
    return bend >= -tolerance && bend <= kPi - tolerance;
}

struct HalfEdge {
    std::uint32_t lo, hi;  // welded vertex ids of the endpoints, lo < hi
    std::uint32_t tri;
    std::uint8_t edge;     // 0, 1, 2
    bool forward;          // the triangle runs lo -> hi
};

// An edge without a shared neighbour, for the T-junction search.
struct OpenEdge {
    std::uint32_t tri;
    int edge;
    dvec3 p, q;      // start and end, in the triangle's winding
    Aabb box;
};

}  // namespace

std::vector<EdgeFlags> compute_active_edges(std::span<const Triangle> triangles, double angle_tolerance,
                                            ActiveEdgeStats* stats) {
    const std::size_t n = triangles.size();
    ActiveEdgeStats s;
    s.edges = 3 * n;
    std::vector<EdgeFlags> flags(n, kAllEdgesActive);
    if (n == 0) {
        if (stats) *stats = s;
        return flags;
    }
    auto position = [&](std::size_t c) { return corner(triangles[c / 3], static_cast<int>(c % 3)); };

    // Weld corners by exact position: sort, then number the distinct positions.
    std::vector<std::uint32_t> order(3 * n);
    std::iota(order.begin(), order.end(), 0u);
    auto less = [](const dvec3& x, const dvec3& y) { return x.x != y.x ? x.x < y.x : (x.y != y.y ? x.y < y.y : x.z < y.z); };
    std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
        const dvec3 px = position(x), py = position(y);
        return less(px, py) || (!less(py, px) && x < y);
    });
    std::vector<std::uint32_t> id(3 * n);
    std::uint32_t next = 0;
    for (std::size_t k = 0; k < order.size(); ++k) {
        if (k > 0 && position(order[k]) != position(order[k - 1])) ++next;
        id[order[k]] = next;
    }

    std::vector<HalfEdge> half;
    half.reserve(3 * n);
    for (std::uint32_t t = 0; t < n; ++t)
        for (std::uint8_t j = 0; j < 3; ++j) {
            const std::uint32_t from = id[3 * t + j], to = id[3 * t + (j + 1) % 3];
            half.push_back({std::min(from, to), std::max(from, to), t, j, from < to});
        }
    std::sort(half.begin(), half.end(), [](const HalfEdge& x, const HalfEdge& y) {
        if (x.lo != y.lo) return x.lo < y.lo;
        if (x.hi != y.hi) return x.hi < y.hi;
        return x.tri != y.tri ? x.tri < y.tri : x.edge < y.edge;
    });

    std::vector<OpenEdge> open;
    Aabb bounds = Aabb::empty();
    for (const Triangle& t : triangles) bounds = bounds.merged(t.aabb());
    for (std::size_t begin = 0; begin < half.size();) {
        std::size_t end = begin + 1;
        while (end < half.size() && half[end].lo == half[begin].lo && half[end].hi == half[begin].hi) ++end;
        const std::size_t count = end - begin;
        for (std::size_t a = begin; a < end; ++a) {
            const HalfEdge& e = half[a];
            if (count == 1) {
                const Triangle& t = triangles[e.tri];
                const dvec3 p = corner(t, e.edge), q = corner(t, (e.edge + 1) % 3);
                open.push_back({e.tri, e.edge, p, q, Aabb{glm::vec3(glm::min(p, q)), glm::vec3(glm::max(p, q))}});
                continue;
            }
            ++s.shared;
            if (count >= 3) ++s.multiply_shared;
            bool flipped = false;
            for (std::size_t b = begin; b < end; ++b) {
                const HalfEdge& o = half[b];
                if (b == a || o.tri == e.tri) continue;
                if (o.forward == e.forward) {  // same direction: one of the two is wound the other way round
                    flipped = true;
                    continue;
                }
                const dvec3 w = corner(triangles[o.tri], (o.edge + 2) % 3);
                if (continues(triangles[e.tri], e.edge, w, angle_tolerance))
                    flags[e.tri] = static_cast<EdgeFlags>(flags[e.tri] & ~(1u << e.edge));
            }
            if (flipped) ++s.inconsistent;
        }
        begin = end;
    }

    // T-junctions: open edges whose whole length is covered by collinear open edges of other triangles running the
    // other way. Sweep along x over the edges' boxes to find candidates.
    const double line_tolerance = 1e-6 * static_cast<double>(glm::length(bounds.max - bounds.min));
    std::sort(open.begin(), open.end(), [](const OpenEdge& x, const OpenEdge& y) {
        return x.box.min.x != y.box.min.x ? x.box.min.x < y.box.min.x : (x.tri != y.tri ? x.tri < y.tri : x.edge < y.edge);
    });
    struct Interval {
        double from, to;
        bool continuing;
    };
    std::vector<std::vector<Interval>> cover(open.size());
    // Adds to `cover[i]` the part of open edge i's length that edge k runs along, if k is collinear and opposite.
    auto try_partner = [&](std::size_t i, std::size_t k) {
        const OpenEdge& e = open[i];
        const OpenEdge& f = open[k];
        if (e.tri == f.tri) return;
        const dvec3 d = e.q - e.p;
        const double length = glm::length(d);
        const dvec3 u = d / length;
        auto off_line = [&](const dvec3& x) { return glm::length((x - e.p) - u * glm::dot(x - e.p, u)); };
        if (off_line(f.p) > line_tolerance || off_line(f.q) > line_tolerance) return;
        if (!(glm::dot(f.q - f.p, u) < 0.0)) return;  // must run the other way
        const double t0 = glm::dot(f.p - e.p, u) / length, t1 = glm::dot(f.q - e.p, u) / length;
        const double from = std::max(0.0, std::min(t0, t1)), to = std::min(1.0, std::max(t0, t1));
        if (!(to > from)) return;
        const dvec3 w = corner(triangles[f.tri], (f.edge + 2) % 3);
        cover[i].push_back({from, to, continues(triangles[e.tri], e.edge, w, angle_tolerance)});
    };
    const float reach = static_cast<float>(line_tolerance);
    for (std::size_t i = 0; i < open.size(); ++i) {
        const Aabb bi = open[i].box.expanded(reach);
        for (std::size_t k = i + 1; k < open.size() && open[k].box.min.x <= bi.max.x; ++k) {
            if (!bi.overlaps(open[k].box)) continue;
            try_partner(i, k);
            try_partner(k, i);
        }
    }
    for (std::size_t i = 0; i < open.size(); ++i) {
        const double slack = line_tolerance / glm::length(open[i].q - open[i].p);
        auto covered = [&](bool continuing_only) {
            std::vector<Interval> parts;
            for (const Interval& v : cover[i])
                if (!continuing_only || v.continuing) parts.push_back(v);
            std::sort(parts.begin(), parts.end(), [](const Interval& x, const Interval& y) { return x.from < y.from; });
            double reached = 0.0;
            for (const Interval& v : parts) {
                if (v.from > reached + slack) return false;
                reached = std::max(reached, v.to);
            }
            return reached >= 1.0 - slack;
        };
        if (!covered(false)) {
            ++s.open;
            continue;
        }
        ++s.t_junction;
        if (covered(true)) flags[open[i].tri] = static_cast<EdgeFlags>(flags[open[i].tri] & ~(1u << open[i].edge));
    }

    // Vertices: active when any edge ending at them is active for its triangle.
    std::vector<char> vertex_active(static_cast<std::size_t>(next) + 1, 0);
    for (std::size_t t = 0; t < n; ++t)
        for (int j = 0; j < 3; ++j)
            if (flags[t] >> j & 1u) vertex_active[id[3 * t + j]] = vertex_active[id[3 * t + (j + 1) % 3]] = 1;
    for (std::size_t t = 0; t < n; ++t) {
        for (int j = 0; j < 3; ++j) s.inactive += (flags[t] >> j & 1u) ? 0 : 1;
        for (int k = 0; k < 3; ++k)
            if (!vertex_active[id[3 * t + k]]) flags[t] = static_cast<EdgeFlags>(flags[t] & ~(1u << (3 + k)));
    }
    s.vertices = static_cast<std::size_t>(next) + 1;
    for (char a : vertex_active) s.inactive_vertices += a ? 0 : 1;
    if (stats) *stats = s;
    return flags;
}

}  // namespace tumble
