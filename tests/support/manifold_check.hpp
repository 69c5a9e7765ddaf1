#pragma once
// Checks of a contact manifold against the shapes, in long double and independent of the narrowphase code: every
// point lies on the features its id names, inside or on the other shape, its depth is its distance below the
// reference face, and the contact part is exactly collide()'s.

#include <cmath>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#include <algorithm>

#include <tumble/narrowphase/manifold.hpp>

#include "sat_reference.hpp"
#include "test_util.hpp"

namespace mcheck {

using ref::R;
using ref::V3;

inline R length(const V3& v) { return std::sqrt(ref::dot(v, v)); }

// A box in long double with the inverse of its axis matrix, for local coordinates of axes as given.
struct BoxL {
    V3 c;
    V3 ax[3];
    R h[3];
    R inv[3][3];  // rows: local coordinate k = dot(inv[k], p - c)
    template <class T>
    explicit BoxL(const tumble::ObbT<T>& o) : c(o.center) {
        for (int i = 0; i < 3; ++i) {
            ax[i] = V3(o.axes[i]);
            h[i] = o.half_extents[i];
        }
        const V3 r0 = ref::cross(ax[1], ax[2]), r1 = ref::cross(ax[2], ax[0]), r2 = ref::cross(ax[0], ax[1]);
        const R det = ref::dot(ax[0], r0);
        const V3 rows[3] = {r0 * (1 / det), r1 * (1 / det), r2 * (1 / det)};
        for (int k = 0; k < 3; ++k) inv[k][0] = rows[k].x, inv[k][1] = rows[k].y, inv[k][2] = rows[k].z;
    }
    R local(const V3& p, int k) const {
        const V3 d = p - c;
        return inv[k][0] * d.x + inv[k][1] * d.y + inv[k][2] * d.z;
    }
    V3 corner(int k) const {
        V3 p = c;
        for (int i = 0; i < 3; ++i) p = p + ax[i] * ((k >> i) & 1 ? h[i] : -h[i]);
        return p;
    }
    // How far p lies outside the box (0 inside), in metres (axes are unit to ~1e-7).
    R outside(const V3& p) const {
        R worst = 0;
        for (int k = 0; k < 3; ++k) worst = std::max(worst, std::abs(local(p, k)) - h[k]);
        return worst;
    }
    // Distance from p to the box's feature f (manifold.hpp numbering).
    R distance_to_feature(const V3& p, int f) const {
        if (f < 8) return length(p - corner(f));
        if (f < 20) {
            const int axis = (f - 8) / 4, bits = (f - 8) % 4;
            const int pa = axis == 0 ? 1 : 0, qa = axis == 2 ? 1 : 2;
            R e = 0;
            e = std::max(e, std::abs(local(p, pa) - ((bits & 1) ? h[pa] : -h[pa])));
            e = std::max(e, std::abs(local(p, qa) - ((bits & 2) ? h[qa] : -h[qa])));
            e = std::max(e, std::abs(local(p, axis)) - h[axis]);
            return e;
        }
        if (f < 26) {
            const int axis = (f - 20) / 2;
            const bool plus = (f - 20) % 2 == 1;
            R e = std::abs(local(p, axis) - (plus ? h[axis] : -h[axis]));
            for (int k = 0; k < 3; ++k)
                if (k != axis) e = std::max(e, std::abs(local(p, k)) - h[k]);
            return e;
        }
        return 1e300L;
    }
    R size() const { return std::sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]); }
};

// Closest point on segment [a, b] to p.
inline V3 closest_on_segment(const V3& p, const V3& a, const V3& b) {
    const V3 d = b - a;
    const R dd = ref::dot(d, d);
    R t = dd > 0 ? ref::dot(p - a, d) / dd : 0;
    t = std::min<R>(1, std::max<R>(0, t));
    return a + d * t;
}

struct TriL {
    V3 v[3];
    template <class T>
    explicit TriL(const tumble::TriangleT<T>& t) : v{V3(t.a), V3(t.b), V3(t.c)} {}
    // Distance from p to the closed triangle.
    R distance(const V3& p) const {
        const V3 n = ref::cross(v[1] - v[0], v[2] - v[0]);
        const R nn = ref::dot(n, n);
        R best = 1e300L;
        for (int j = 0; j < 3; ++j) best = std::min(best, length(p - closest_on_segment(p, v[j], v[(j + 1) % 3])));
        if (nn > 0) {
            const R dist = ref::dot(p - v[0], n) / std::sqrt(nn);
            const V3 q = p - n * (ref::dot(p - v[0], n) / nn);
            bool inside = true;
            for (int j = 0; j < 3; ++j)
                if (ref::dot(ref::cross(v[(j + 1) % 3] - v[j], q - v[j]), n) < 0) inside = false;
            if (inside) best = std::min(best, std::abs(dist));
        }
        return best;
    }
    R distance_to_feature(const V3& p, int f) const {
        if (f < 3) return length(p - v[f]);
        if (f >= 8 && f < 11) return length(p - closest_on_segment(p, v[f - 8], v[(f - 7) % 3]));
        if (f == 20) return distance(p);
        return 1e300L;
    }
};

// Thickness of a box along unit n: the length of its projection.
inline R thickness(const BoxL& b, const V3& n) {
    R t = 0;
    for (int i = 0; i < 3; ++i) t += 2 * b.h[i] * std::abs(ref::dot(b.ax[i], n));
    return t;
}

struct Stats {
    long points = 0;
    long inside_checked = 0;  // incident points checked inside the other shape
    long pass_through = 0;    // points deeper than the other shape is thick: not checked inside
};

// Compares a manifold with collide() and with the shapes. Empty string when everything holds. `tol` in metres.
//
// What is checked, for every point (see manifold.hpp):
// - the contact part equals collide()'s, 1..4 points, distinct ids;
// - point_a lies on the feature of A its id names, point_b on the feature of B;
// - point_a = point_b + depth * normal, 0 <= depth <= the manifold's depth;
// - depth is the point's distance below the reference face (for an edge contact, between the edges);
// - the incident point (point_b for A's faces, point_a for B's or the triangle's face, both for edge contacts)
//   lies inside or on the other shape, whenever that is geometrically possible: for a face contact when the point
//   is no deeper than the reference box is thick along the normal (deeper, the incident face has passed through
//   the box), for an edge contact when it is no deeper than the narrower side of the other edge's cross-section
//   (the ray from a point of a box edge along the normal, which is perpendicular to the edge and points into the
//   box, stays inside for at least 2 min(h_p, h_q) over the box's other two axes p, q).
template <class T, class Shape>
std::string check(const tumble::ObbT<T>& a, const Shape& b, const tumble::ManifoldT<T>& m, long double tol,
                  Stats* stats = nullptr) {
    const auto c = tumble::collide(a, b);
    if (!c) return "collide() reports nothing but the manifold exists";
    if (m.axis != c->axis || m.negative != c->negative || m.depth != c->depth || m.normal != c->normal)
        return "the manifold's contact differs from collide()";
    if (m.count < 1 || m.count > tumble::kMaxManifoldPoints) return "count " + std::to_string(m.count);
    const BoxL A(a);
    const V3 n(m.normal);
    std::set<std::uint32_t> ids;
    constexpr bool kTriangle = std::is_same_v<Shape, tumble::TriangleT<T>>;
    const int first_edge = kTriangle ? 4 : 6;
    const bool edge = m.axis >= first_edge;
    const bool ref_is_a = m.axis < 3;
    for (int k = 0; k < m.count; ++k) {
        const auto& p = m.points[static_cast<std::size_t>(k)];
        const std::string at = "point " + std::to_string(k) + " (features " + std::to_string(tumble::feature_a(p.id)) +
                               ", " + std::to_string(tumble::feature_b(p.id)) + "): ";
        if (!ids.insert(p.id).second) return at + "duplicate id";
        const V3 pa(p.point_a), pb(p.point_b);
        const R depth = p.depth;
        if (!(depth >= 0) || depth > static_cast<R>(m.depth) + tol) return at + "depth " + testutil::num(depth) + " out of range";
        if (length(pa - (pb + n * depth)) > tol)
            return at + "point_a - point_b - depth * normal is " + testutil::num(length(pa - (pb + n * depth))) + " m";
        const int fa = tumble::feature_a(p.id), fb = tumble::feature_b(p.id);
        const R da = A.distance_to_feature(pa, fa);
        if (da > tol) return at + "point_a is " + testutil::num(da) + " m from A's feature";
        R want = depth, thick_a = thickness(A, n), thick_b = 0;
        // For an edge contact the depth up to which the other shape must contain the point: its edge's chord.
        auto chord = [&](const BoxL& box, int f) {
            const int axis = (f - 8) / 4;
            return 2 * std::min(box.h[(axis + 1) % 3], box.h[(axis + 2) % 3]);
        };
        if (edge) {
            thick_a = chord(A, fa);
            thick_b = 0;
        }
        bool b_inside_a = false, a_inside_b = false;
        if constexpr (kTriangle) {
            const TriL B(b);
            const R db = B.distance_to_feature(pb, fb);
            if (db > tol) return at + "point_b is " + testutil::num(db) + " m from the triangle's feature";
            if (m.axis < 3) {  // box face: depth of point_b below it
                want = thick_a / 2 - ref::dot(pb - A.c, n);
            } else if (m.axis == 3) {  // triangle face: depth of point_a beyond it
                want = ref::dot(pa, n) - std::min({ref::dot(B.v[0], n), ref::dot(B.v[1], n), ref::dot(B.v[2], n)});
            } else {
                want = ref::dot(pa - pb, n);
            }
            b_inside_a = ref_is_a || edge;  // the triangle has no inside
        } else {
            const BoxL B(b);
            thick_b = edge ? chord(B, fb) : thickness(B, n);
            const R db = B.distance_to_feature(pb, fb);
            if (db > tol) return at + "point_b is " + testutil::num(db) + " m from B's feature";
            if (m.axis < 3)
                want = thick_a / 2 - ref::dot(pb - A.c, n);
            else if (m.axis < 6)
                want = thick_b / 2 + ref::dot(pa - B.c, n);
            else
                want = ref::dot(pa - pb, n);
            b_inside_a = ref_is_a || edge;
            a_inside_b = !ref_is_a;  // B's faces, and edge contacts
            if (a_inside_b) {
                if (depth > thick_b - tol) {
                    if (stats) ++stats->pass_through;
                } else {
                    if (stats) ++stats->inside_checked;
                    if (B.outside(pa) > tol) return at + "point_a is outside B by " + testutil::num(B.outside(pa));
                }
            }
        }
        if (b_inside_a) {
            if (depth > thick_a - tol) {
                if (stats) ++stats->pass_through;
            } else {
                if (stats) ++stats->inside_checked;
                if (A.outside(pb) > tol) return at + "point_b is outside A by " + testutil::num(A.outside(pb));
            }
        }
        if (std::abs(std::max<R>(want, 0) - depth) > tol)
            return at + "depth " + testutil::num(depth) + ", distance below the reference face " + testutil::num(want);
        if (stats) ++stats->points;
    }
    return {};
}


// --- Brute-force clipping, for face contacts ------------------------------------------------------------------
//
// Every corner of the polygon "incident face clipped by the reference face's side planes" is one of: an incident
// face corner inside the side planes, an incident edge crossing a side plane inside the others, or a reference face
// corner whose projection along the normal falls inside the incident face. This enumerates all of them in long
// double, without the clipping code, and returns those at or below the reference face (depth >= -tol): the points a
// manifold may choose from.
struct ClipPoint {
    V3 p;      // on the incident shape
    R depth;   // below the reference face
};

// Face (axis k, sign s) of box b as a polygon (4 corners in cyclic order), plus its outward unit normal.
inline std::vector<V3> box_face(const BoxL& b, int k, int s) {
    const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    const R sg[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    std::vector<V3> out;
    for (auto& g : sg) out.push_back(b.c + b.ax[k] * (s * b.h[k]) + b.ax[k1] * (g[0] * b.h[k1]) + b.ax[k2] * (g[1] * b.h[k2]));
    return out;
}

template <class T, class Shape>
std::vector<ClipPoint> brute_clip(const tumble::ObbT<T>& a, const Shape& b, const tumble::ManifoldT<T>& m, R tol) {
    constexpr bool kTriangle = std::is_same_v<Shape, tumble::TriangleT<T>>;
    const V3 n(m.normal);
    const BoxL A(a);
    // Reference: a box face of A or B (outward normal nr), or the triangle (nr = -n).
    const bool ref_a = m.axis < 3;
    V3 nr = ref_a ? n : n * -1;
    std::vector<V3> ref_poly, inc_poly;
    R top = 0;
    std::vector<std::pair<V3, R>> side;  // half-spaces dot(u, x) <= w
    auto box_ref = [&](const BoxL& r, int axis) {
        const int s = ref::dot(r.ax[axis], nr) > 0 ? 1 : -1;
        ref_poly = box_face(r, axis, s);
        for (int i = 0; i < 3; ++i) top += r.h[i] * std::abs(ref::dot(r.ax[i], nr));
        top += ref::dot(nr, r.c);
        for (int q = 0; q < 3; ++q) {
            if (q == axis) continue;
            const V3 u = r.ax[q] * (1 / length(r.ax[q]));
            R w = 0;
            for (int i = 0; i < 3; ++i) w += r.h[i] * std::abs(ref::dot(r.ax[i], u));
            side.push_back({u, w + ref::dot(u, r.c)});
            side.push_back({u * -1, w - ref::dot(u, r.c)});
        }
    };
    auto box_inc = [&](const BoxL& i) {
        int k = 0;
        R best = -1;
        for (int q = 0; q < 3; ++q) {
            const R c = std::abs(ref::dot(i.ax[q], nr)) / length(i.ax[q]);
            if (c > best) best = c, k = q;
        }
        inc_poly = box_face(i, k, ref::dot(i.ax[k], nr) < 0 ? 1 : -1);
    };
    if constexpr (kTriangle) {
        const TriL B(b);
        if (m.axis < 3) {
            box_ref(A, m.axis);
            inc_poly = {B.v[0], B.v[1], B.v[2]};
        } else {
            ref_poly = {B.v[0], B.v[1], B.v[2]};
            top = std::max({ref::dot(nr, B.v[0]), ref::dot(nr, B.v[1]), ref::dot(nr, B.v[2])});
            const V3 tn = ref::cross(B.v[1] - B.v[0], B.v[2] - B.v[0]);
            for (int j = 0; j < 3; ++j) {
                const V3 o = ref::cross(B.v[(j + 1) % 3] - B.v[j], tn);
                side.push_back({o, ref::dot(o, B.v[j])});
            }
            box_inc(A);
        }
    } else {
        const BoxL B(b);
        if (ref_a) {
            box_ref(A, m.axis);
            box_inc(B);
        } else {
            box_ref(B, m.axis - 3);
            box_inc(A);
        }
    }
    auto inside_sides = [&](const V3& p, int skip) {
        for (int k = 0; k < static_cast<int>(side.size()); ++k) {
            if (k == skip) continue;
            const R scale = length(side[static_cast<std::size_t>(k)].first);
            if (ref::dot(side[static_cast<std::size_t>(k)].first, p) - side[static_cast<std::size_t>(k)].second > tol * scale) return false;
        }
        return true;
    };
    std::vector<ClipPoint> out;
    auto add = [&](const V3& p) {
        const R d = top - ref::dot(nr, p);
        if (d >= -tol) out.push_back({p, d});
    };
    const int ni = static_cast<int>(inc_poly.size());
    for (const V3& p : inc_poly)
        if (inside_sides(p, -1)) add(p);
    for (int e = 0; e < ni; ++e) {
        const V3 p = inc_poly[static_cast<std::size_t>(e)], q = inc_poly[static_cast<std::size_t>((e + 1) % ni)];
        for (int k = 0; k < static_cast<int>(side.size()); ++k) {
            const auto& [u, w] = side[static_cast<std::size_t>(k)];
            const R dp = ref::dot(u, p) - w, dq = ref::dot(u, q) - w;
            if ((dp < 0 && dq > 0) || (dp > 0 && dq < 0)) {
                const V3 x = p + (q - p) * (dp / (dp - dq));
                if (inside_sides(x, k)) add(x);
            }
        }
    }
    // Reference corners projected along the normal onto the incident face's plane, if inside the incident face.
    if (ni >= 3) {
        const V3 fn = ref::cross(inc_poly[1] - inc_poly[0], inc_poly[2] - inc_poly[0]);
        const R fnn = ref::dot(fn, fn), den = ref::dot(fn, nr);
        if (fnn > 0 && std::abs(den) > 1e-12L * std::sqrt(fnn)) {
            for (const V3& c : ref_poly) {
                const V3 x = c - nr * (ref::dot(fn, c - inc_poly[0]) / den);
                bool in = true;
                for (int e = 0; e < ni && in; ++e) {
                    const V3 p = inc_poly[static_cast<std::size_t>(e)], q = inc_poly[static_cast<std::size_t>((e + 1) % ni)];
                    in = ref::dot(ref::cross(q - p, x - p), fn) >= -tol * std::sqrt(fnn) * length(q - p);
                }
                if (in && inside_sides(x, -1)) add(x);
            }
        }
    }
    return out;
}

// Twice the area of the convex hull of points projected on the plane with unit normal n.
inline R hull_area2(std::vector<V3> pts, const V3& n) {
    if (pts.size() < 3) return 0;
    V3 u = std::abs(n.x) < 0.6L ? ref::cross(n, V3(1, 0, 0)) : ref::cross(n, V3(0, 1, 0));
    u = u * (1 / length(u));
    const V3 w = ref::cross(n, u);
    std::vector<std::pair<R, R>> q;
    for (const V3& p : pts) q.push_back({ref::dot(p, u), ref::dot(p, w)});
    std::sort(q.begin(), q.end());
    auto turn = [](const std::pair<R, R>& o, const std::pair<R, R>& a, const std::pair<R, R>& b) {
        return (a.first - o.first) * (b.second - o.second) - (a.second - o.second) * (b.first - o.first);
    };
    std::vector<std::pair<R, R>> h(2 * q.size());
    std::size_t k = 0;
    for (std::size_t i = 0; i < q.size(); ++i) {
        while (k >= 2 && turn(h[k - 2], h[k - 1], q[i]) <= 0) --k;
        h[k++] = q[i];
    }
    for (std::size_t i = q.size() - 1, t = k + 1; i-- > 0;) {
        while (k >= t && turn(h[k - 2], h[k - 1], q[i]) <= 0) --k;
        h[k++] = q[i];
    }
    R area = 0;
    for (std::size_t i = 0; i + 1 < k; ++i) area += h[i].first * h[i + 1].second - h[i + 1].first * h[i].second;
    return std::abs(area);
}

struct Selection {
    long reduced = 0;             // face contacts with more than 4 candidate points
    R worst_area_ratio = 1;       // least (area kept) / (area of all candidates) among those
    R worst_depth_shortfall = 0;  // largest (deepest candidate - deepest kept), relative to the size
};

// For a face contact: every point is one of the brute-force candidates; with at most 4 distinct candidates all
// are kept; with more, 4 are kept, the deepest among them within the documented tie tolerance (1e-3 of the size)
// of the deepest candidate. Records how much of the candidates' area the kept points span.
template <class T, class Shape>
std::string check_selection(const tumble::ObbT<T>& a, const Shape& b, const tumble::ManifoldT<T>& m, R tol, R size,
                            Selection& sel) {
    constexpr bool kTriangle = std::is_same_v<Shape, tumble::TriangleT<T>>;
    if (m.axis >= (kTriangle ? 4 : 6)) return {};
    const std::vector<ClipPoint> all = brute_clip(a, b, m, tol);
    const bool ref_a = m.axis < 3;
    // Distinct candidates (the clipping may meet a corner twice), and how many lie clearly below the face: points
    // within the tolerance of depth 0 may or may not be kept.
    std::vector<ClipPoint> distinct;
    for (const ClipPoint& c : all) {
        bool dup = false;
        for (const ClipPoint& d : distinct) dup |= length(d.p - c.p) <= 1e-12L * size;
        if (!dup) distinct.push_back(c);
    }
    int clear = 0;
    R closest = 1e300L;
    for (std::size_t i = 0; i < distinct.size(); ++i) {
        clear += distinct[i].depth > 4 * tol;
        for (std::size_t j = 0; j < i; ++j) closest = std::min(closest, length(distinct[i].p - distinct[j].p));
    }
    std::vector<V3> kept;
    R deepest = -1e300L, deepest_kept = -1e300L;
    for (const ClipPoint& c : distinct) deepest = std::max(deepest, c.depth);
    for (int k = 0; k < m.count; ++k) {
        const auto& p = m.points[static_cast<std::size_t>(k)];
        const V3 x(ref_a ? p.point_b : p.point_a);
        kept.push_back(x);
        deepest_kept = std::max<R>(deepest_kept, p.depth);
        R best = 1e300L;
        for (const ClipPoint& c : all) best = std::min(best, length(c.p - x));
        if (best > 4 * tol && !all.empty())
            return "point " + std::to_string(k) + " is " + testutil::num(best) + " m from every clipped corner";
    }
    if (all.empty()) return {};  // a fallback point (nothing below the face within the side planes)
    // Corners closer than the output precision, or than the 1e-9 of the size within which the manifold merges points:
    // counts are not meaningful.
    if (closest <= std::max(8 * tol, 2e-9L * size)) return {};
    const int limit = tumble::kMaxManifoldPoints;
    const int n_all = static_cast<int>(distinct.size());
    if (m.count < std::min(limit, clear) || m.count > std::min(limit, n_all))
        return "kept " + std::to_string(m.count) + " points of " + std::to_string(n_all) + " clipped corners (" +
               std::to_string(clear) + " clearly below the face)";
    if (clear <= limit) return {};
    ++sel.reduced;
    if (deepest - deepest_kept > 1e-3L * size + 4 * tol)
        return "the deepest clipped corner (" + testutil::num(deepest) + ") was dropped; deepest kept " + testutil::num(deepest_kept);
    sel.worst_depth_shortfall = std::max(sel.worst_depth_shortfall, (deepest - deepest_kept) / size);
    const V3 n(m.normal);
    std::vector<V3> corners;
    for (const ClipPoint& c : distinct) corners.push_back(c.p);
    const R total = hull_area2(corners, n);
    if (total > 1e-12L * size * size) sel.worst_area_ratio = std::min(sel.worst_area_ratio, hull_area2(kept, n) / total);
    return {};
}

}  // namespace mcheck
