// Contact manifolds. See manifold.hpp for the contract, the method and the feature ids.
//
// Everything runs in the frame of collide(): double, relative to the first box's centre, scaled like the SAT input
// (sat_core.hpp). The SAT result picks the case:
//   face axis  -> reference face, incident polygon, Sutherland-Hodgman against the reference face's side planes,
//                 points below the reference face, at most 4 kept;
//   edge axis  -> the closest points of the two supporting edges.
// Each polygon vertex carries the incident feature it lies on and the set of side planes it lies on; each polygon
// edge carries the same for the edge, so a vertex created by a cut gets its features from the edge that was cut
// and the plane that cut it. The feature ids follow from those at the end.
//
// Speculative manifolds (a margin > 0) run the same construction on shapes that may be apart: the exact SAT with
// the margin picks the axis of greatest separation (or least penetration), the clipping is the same, and points
// above the reference face by up to the margin are kept with their signed depth (negative: a gap).

#include <tumble/narrowphase/manifold.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include "sat_core.hpp"

namespace tumble {
namespace {

using detail::dvec3;

// A box in the manifold's frame: its centre, and its axes (as given) and half extents where the loaded pair holds them.
struct BoxG {
    dvec3 c{0.0};
    const dvec3* ax = nullptr;  // 3 axes
    const double* h = nullptr;  // 3 half extents
};

constexpr int kMaxPoly = 16;  // a quad cut by 4 planes has at most 8 corners, a triangle at most 7

// Tolerances, relative to the pair's size (its largest half extent, or half the triangle's longest edge):
// - a point this close to a side plane lies on it (round-off, ~1e-16, with a wide margin);
constexpr double kOnPlane = 1e-10;
// - a clipped point this far above the reference face still counts (touching shapes give depth 0 up to round-off),
//   and two points this close are one (also: closest points of two edges this close to one normal line lie on it);
constexpr double kKeepAbove = 1e-9;
constexpr double kSamePoint = 1e-9;
// - in the reduction to 4 points, depths within kTieDepth and squared distances or areas within kTieArea of the
//   best count as ties, which go to the smaller id: the choice then does not flicker from step to step while the
//   configuration stays the same (a resting box's corners are equally deep up to its tilt).
constexpr double kTieDepth = 1e-3;
constexpr double kTieArea = 1e-3;

// Left uninitialised (a Poly holds 16 of them, and a manifold makes a few Polys): whoever makes a vertex sets every
// field.
struct PolyVertex {
    dvec3 p;
    int inc;            // incident feature the vertex lies on (corner, edge or face)
    unsigned ref;       // side planes the vertex lies on (bit k: side plane k)
    int edge_inc;       // incident feature of the edge from this vertex to the next
    unsigned edge_ref;  // side planes that edge lies on
};

// A convex polygon's corners in order; those who fill one write v[0 .. n - 1] in place.
struct Poly {
    PolyVertex v[kMaxPoly];
    int n = 0;
};

// Half-space dot(n, x) <= d. Left uninitialised like PolyVertex: whoever makes a plane sets both fields.
struct Plane {
    dvec3 n;
    double d;
};

// Signed distance of p from the plane (in units of |pl.n|), snapped to 0 within `eps`: a vertex that lies on the
// plane up to round-off is on it, so an edge lying in the plane is never cut at a random point along it.
double plane_distance(const Plane& pl, const dvec3& p, double eps) {
    const double d = glm::dot(pl.n, p) - pl.d;
    return std::abs(d) <= eps ? 0.0 : d;
}

// Sutherland-Hodgman: the part of polygon `in` inside plane `pl`, whose normal is `length` long (Ericson 8.3.4). A
// vertex on the plane is kept and an intersection is made only where an edge strictly crosses, so no point is emitted
// twice. Returns false, leaving `out` alone, when no vertex lies outside the plane: the part inside is `in` itself.
bool clip(const Poly& in, const Plane& pl, double length, unsigned bit, int inc_face, double eps, Poly& out) {
    const double tol = eps * length;
    double distance[kMaxPoly];
    bool outside = false;
    for (int k = 0; k < in.n; ++k) {
        distance[k] = plane_distance(pl, in.v[k].p, tol);
        outside |= distance[k] > 0.0;
    }
    if (!outside) return false;
    out.n = 0;
    for (int k = 0; k < in.n; ++k) {
        const int next = k + 1 == in.n ? 0 : k + 1;
        const PolyVertex& cur = in.v[k];
        const PolyVertex& nxt = in.v[next];
        const double dc = distance[k];
        const double dn = distance[next];
        // Written in place (`push` without the copy); a polygon of n corners cut by a plane has at most n + 1.
        if (dc <= 0.0 && out.n < kMaxPoly) {
            PolyVertex& v = out.v[out.n++];
            v = cur;
            if (dc == 0.0 && dn > 0.0) {  // the polygon goes on along the plane from here
                v.edge_inc = inc_face;
                v.edge_ref = bit;
            }
        }
        if (((dc < 0.0 && dn > 0.0) || (dc > 0.0 && dn < 0.0)) && out.n < kMaxPoly) {
            PolyVertex& x = out.v[out.n++];
            x.p = cur.p + (nxt.p - cur.p) * (dc / (dc - dn));
            x.inc = cur.edge_inc;
            x.ref = cur.edge_ref | bit;
            if (dc < 0.0) {  // leaving: the new edge runs along the plane
                x.edge_inc = inc_face;
                x.edge_ref = bit;
            } else {  // entering: the rest of the cut edge
                x.edge_inc = cur.edge_inc;
                x.edge_ref = cur.edge_ref;
            }
        }
    }
    return true;
}

// The features of box face (k, positive)'s corners in the cyclic order below: {corner, edge to the next corner}, by
// face 2 k + positive.
struct FaceCornerFeatures {
    std::uint8_t corner[4], edge[4];
};
constexpr std::array<FaceCornerFeatures, 6> kFaceCorners = [] {
    // Corners in cyclic order by the signs (bit 0: axis k1, bit 1: axis k2): (-,-), (+,-), (+,+), (-,+); the edge
    // from corner m to corner m + 1 runs along k1 for even m and along k2 for odd m.
    constexpr int kSigns[4] = {0b00, 0b01, 0b11, 0b10};
    std::array<FaceCornerFeatures, 6> t{};
    for (int face = 0; face < 6; ++face) {
        const int k = face / 2, k1 = (k + 1) % 3, k2 = (k + 2) % 3;
        const bool positive = face % 2 == 1;
        for (int m = 0; m < 4; ++m) {
            const int plus1 = kSigns[m] & 1, plus2 = (kSigns[m] >> 1) & 1;
            const int corner = ((positive ? 1 : 0) << k) | (plus1 << k1) | (plus2 << k2);
            t[static_cast<std::size_t>(face)].corner[m] = static_cast<std::uint8_t>(box_corner_feature(corner));
            t[static_cast<std::size_t>(face)].edge[m] =
                static_cast<std::uint8_t>(box_edge_feature(m % 2 == 0 ? k1 : k2, corner));
        }
    }
    return t;
}();

// The four corners of box face (k, positive) in cyclic order (see kFaceCorners), with their corner and edge features.
Poly box_face_polygon(const BoxG& b, int k, bool positive) {
    const int k1 = k == 2 ? 0 : k + 1, k2 = k == 0 ? 2 : k - 1;
    // A corner is ((c + ax_k (+-h_k)) + ax_k1 (+-h_k1)) + ax_k2 (+-h_k2); the face centre and the two half edges are
    // formed once (a product with -h is the negated product, and adding it is subtracting the product: the same bits).
    const dvec3 centre = b.c + b.ax[k] * (positive ? b.h[k] : -b.h[k]);
    const dvec3 half1 = b.ax[k1] * b.h[k1], half2 = b.ax[k2] * b.h[k2];
    const FaceCornerFeatures& f = kFaceCorners[(2 * static_cast<std::size_t>(k)) + (positive ? 1u : 0u)];
    Poly poly;
    poly.v[0].p = (centre - half1) - half2;
    poly.v[1].p = (centre + half1) - half2;
    poly.v[2].p = (centre + half1) + half2;
    poly.v[3].p = (centre - half1) + half2;
    for (int m = 0; m < 4; ++m) {
        PolyVertex& v = poly.v[m];
        v.inc = f.corner[m];
        v.ref = 0;
        v.edge_inc = f.edge[m];
        v.edge_ref = 0;
    }
    poly.n = 4;
    return poly;
}

// The triangle's corners in order, with their vertex and edge features.
Poly triangle_polygon(const dvec3 v[3]) {
    Poly poly;
    for (int j = 0; j < 3; ++j) {
        PolyVertex& x = poly.v[j];
        x.p = v[j];
        x.inc = triangle_vertex_feature(j);
        x.ref = 0;
        x.edge_inc = triangle_edge_feature(j);
        x.edge_ref = 0;
    }
    poly.n = 3;
    return poly;
}

// Reference feature of a point lying on the side planes in `mask` (bit k: side plane k) of a box face (axis `axis`,
// side `positive`), whose plane 2m is the - face of axis (axis + 1 + m) % 3 and plane 2m + 1 its + face: the face
// itself, the edge of the one side plane, or the corner of two. Both planes of one zero-width slab are one place.
constexpr int box_reference_feature(int axis, bool positive, unsigned mask) {
    int corner = (positive ? 1 : 0) << axis;
    int first_q = -1, along = -1;  // for an edge: the side axis it lies on and the axis it runs along
    int used = 0;
    for (int k = 0; k < 4; ++k) {
        if (!(mask & (1u << k))) continue;
        const int q = (axis + 1 + k / 2) % 3;
        if (q == first_q) continue;
        corner |= (k & 1) << q;
        first_q = q;
        along = 3 - axis - q;
        if (++used == 2) break;
    }
    if (used == 0) return box_face_feature(axis, positive);
    if (used == 1) return box_edge_feature(along, corner);
    return box_corner_feature(corner);
}

// The same for a triangle face, whose side plane j holds edge j: the face, an edge, or the vertex where two meet.
constexpr int triangle_reference_feature(unsigned mask) {
    if (mask == 0) return kTriangleFaceFeature;
    int first = -1, second = -1;
    for (int j = 0; j < 3; ++j)
        if (mask & (1u << j)) (first < 0 ? first : second) = j;
    if (second < 0) return triangle_edge_feature(first);
    // Edges j and j + 1 meet at vertex j + 1; edges 0 and 2 meet at vertex 0.
    return triangle_vertex_feature(second == first + 1 ? second : 0);
}

// Every mask's reference feature, looked up per clipped point: [face][mask] for the six box faces (2 axis + side)
// and, in row 6, the triangle's face (masks of three planes).
using FeatureRow = std::array<std::uint8_t, 16>;
constexpr std::array<FeatureRow, 7> kReferenceFeatures = [] {
    std::array<FeatureRow, 7> t{};
    for (unsigned mask = 0; mask < 16; ++mask) {
        for (int face = 0; face < 6; ++face)
            t[static_cast<std::size_t>(face)][mask] =
                static_cast<std::uint8_t>(box_reference_feature(face / 2, face % 2 == 1, mask));
        t[6][mask] = static_cast<std::uint8_t>(triangle_reference_feature(mask & 7u));
    }
    return t;
}();

// The reference face and what a point's side-plane set means on it.
struct Reference {
    Plane side[4];          // the first `sides` are set
    double side_length[4];  // |side[k].n|, of the first `sides`
    int sides = 0;
    dvec3 nr{0.0};     // unit outward normal of the reference face, towards the incident shape
    double top = 0.0;  // the face's plane is dot(nr, x) = top; a point's depth is top - dot(nr, x)
    bool is_a = true;  // the reference face belongs to A (the first box)
    bool box = false;  // a box face: side planes 2m and 2m + 1 are the two faces of one slab (box_reference)
    bool positive = true;  // box reference: the face's side
    // The face's row of kReferenceFeatures: a triangle's unless box_reference sets a box face's.
    const FeatureRow* features = &kReferenceFeatures[6];

    // Reference feature of a point lying on the side planes in `mask`.
    int feature(unsigned mask) const { return (*features)[mask & 15u]; }
};

// Side planes of a reference box face (axis r; nr its outward unit normal). Slab widths are the box's support
// along each unit side axis, so axes orthonormal only to float precision are covered.
[[gnu::always_inline]] inline Reference box_reference(const BoxG& b, int r, const dvec3& nr, bool is_a) {
    Reference ref;
    ref.nr = nr;
    ref.is_a = is_a;
    ref.box = true;
    ref.positive = glm::dot(b.ax[r], nr) > 0.0;
    ref.features = &kReferenceFeatures[(2 * static_cast<std::size_t>(r)) + (ref.positive ? 1u : 0u)];
    auto support = [&](const dvec3& u) {
        return b.h[0] * std::abs(glm::dot(b.ax[0], u)) + b.h[1] * std::abs(glm::dot(b.ax[1], u)) +
               b.h[2] * std::abs(glm::dot(b.ax[2], u));
    };
    ref.top = glm::dot(nr, b.c) + support(nr);
    for (int m = 0; m < 2; ++m) {
        const int q = (r + 1 + m) % 3;
        const dvec3 u = b.ax[q] / std::sqrt(glm::dot(b.ax[q], b.ax[q]));
        const double w = support(u), c = glm::dot(u, b.c);
        const double length = std::sqrt(glm::dot(u, u));  // of -u too: negation is exact
        const auto k = 2 * static_cast<std::size_t>(m);
        ref.side[k] = {-u, w - c};     // plane 2m: the - face of axis q
        ref.side[k + 1] = {u, w + c};  // plane 2m + 1: the + face
        ref.side_length[k] = ref.side_length[k + 1] = length;
    }
    ref.sides = 4;
    return ref;
}

// The face of box b most anti-parallel to nr: its axis and side.
void incident_face(const BoxG& b, const dvec3& nr, int& k, bool& positive) {
    double best = -1.0;
    k = 0;
    for (int i = 0; i < 3; ++i) {
        const double c = std::abs(glm::dot(b.ax[i], nr)) / std::sqrt(glm::dot(b.ax[i], b.ax[i]));
        if (c > best) best = c, k = i;
    }
    positive = glm::dot(b.ax[k], nr) < 0.0;
}

// Left uninitialised like PolyVertex (a candidate set holds 49): whoever makes one sets every field.
struct ManifoldCandidate {
    dvec3 p;  // on the incident shape
    double depth;
    std::uint32_t id;
};

// Which points a manifold keeps: those with depth >= -below (scaled like the input); `signed_depth` keeps the depth
// of a point above the reference face negative (speculative manifolds) instead of reporting 0 (touching).
struct Keep {
    double below = 0.0;
    bool signed_depth = false;
    // When no clipped point lies over the reference face, a manifold of overlapping shapes takes the incident shape's
    // deepest corner instead (a triangle that meets a box face which clipping cannot resolve: its point nearest the
    // face, build_manifold). Shapes that are apart get no point then: their faces do not face each other, and a
    // corner beside the reference face would make a contact with the face's plane beyond its edge.
    bool outside_fallback = true;
    // A plain manifold's `below`: kKeepAbove times the pair's size (plain_keep), which build_manifold sets once it has
    // the size, rather than the caller working the size out a second time.
    bool plain = false;
};

struct ManifoldCandidateSet {
    ManifoldCandidate c[3 * kMaxPoly + 1];
    int n = 0;
    void add(const ManifoldCandidate& x) {
        if (ManifoldCandidate* slot = next(x.id)) *slot = x;
    }
    // Where a new candidate of feature pair `id` goes (the caller sets it), or nothing when the set has that pair
    // already (from a neighbouring face) or is full.
    ManifoldCandidate* next(std::uint32_t id) {
        for (int k = 0; k < n; ++k)
            if (c[k].id == id) return nullptr;
        return n < 3 * kMaxPoly + 1 ? &c[n++] : nullptr;
    }
};

// Clips `poly` by the reference's side planes and adds its corners to `out`. `eps`: distance (metres, scaled) within
// which a point counts as lying on a plane.
void collect(const Poly& poly, const Reference& ref, int inc_face, double eps, ManifoldCandidateSet& out) {
    Poly buffers[2];  // each clip that cuts reads one (or `poly`) and writes the other
    const Poly* clipped = &poly;
    for (int k = 0; k < ref.sides; ++k) {
        Poly& next = clipped == &buffers[0] ? buffers[1] : buffers[0];
        if (clip(*clipped, ref.side[k], ref.side_length[k], 1u << k, inc_face, eps, next)) clipped = &next;
    }
    const Poly& a = *clipped;
    for (int k = 0; k < a.n; ++k) {
        const int fr = ref.feature(a.v[k].ref), fi = a.v[k].inc;
        const std::uint32_t id = ref.is_a ? feature_id(fr, fi) : feature_id(fi, fr);
        if (ManifoldCandidate* x = out.next(id)) {
            x->p = a.v[k].p;
            x->depth = ref.top - glm::dot(ref.nr, x->p);
            x->id = id;
        }
    }
}

// Squared-area measure of triangle (a, b, c) projected on the reference plane (twice its area).
double area2(const dvec3& a, const dvec3& b, const dvec3& c, const dvec3& n) {
    return std::abs(glm::dot(glm::cross(b - a, c - a), n));
}

// Keeps at most kMaxManifoldPoints candidates with depth >= -keep.below, clamping depths at 0 unless
// keep.signed_depth; never leaves none. Ties (within the tolerances, relative to `size`) go to the smaller id, so that
// the choice does not flicker.
int select(ManifoldCandidateSet& all, const dvec3& n, double size, const Keep& keep,
           ManifoldCandidate out[kMaxManifoldPoints]) {
    // By id (unique: `add` keeps one candidate per id), so any sort gives this order; a handful of candidates at most.
    for (int k = 1; k < all.n; ++k) {
        const ManifoldCandidate x = all.c[k];
        int j = k;
        for (; j > 0 && all.c[j - 1].id > x.id; --j) all.c[j] = all.c[j - 1];
        all.c[j] = x;
    }
    const double keep_tol = keep.below, same2 = kSamePoint * kSamePoint * size * size;
    ManifoldCandidate kept[3 * kMaxPoly + 1];
    int m = 0, deepest = -1;
    for (int k = 0; k < all.n; ++k) {
        if (deepest < 0 || all.c[k].depth > all.c[deepest].depth) deepest = k;
        if (all.c[k].depth < -keep_tol) continue;
        bool duplicate = false;
        for (int j = 0; j < m && !duplicate; ++j) {
            const dvec3 d = kept[j].p - all.c[k].p;
            duplicate = glm::dot(d, d) <= same2;
        }
        if (!duplicate) kept[m++] = all.c[k];
    }
    if (m == 0) {
        if (deepest < 0) return 0;
        kept[m++] = all.c[deepest];  // touching within round-off: the best one there is
    }
    if (!keep.signed_depth)
        for (int k = 0; k < m; ++k) kept[k].depth = std::max(kept[k].depth, 0.0);
    if (m <= kMaxManifoldPoints) {
        std::copy(kept, kept + m, out);
        return m;
    }
    const double depth_tol = kTieDepth * size, area_tol = kTieArea * size * size;
    bool used[3 * kMaxPoly + 1] = {};
    auto pick = [&](auto score, double tol) {
        int best = -1;
        double best_score = 0.0;
        for (int k = 0; k < m; ++k) {
            if (used[k]) continue;
            const double s = score(kept[k], k);
            if (best < 0 || s > best_score + tol) best = k, best_score = s;
        }
        used[best] = true;
        return best;
    };
    const int i1 = pick([](const ManifoldCandidate& c, int) { return c.depth; }, depth_tol);
    const dvec3 p1 = kept[i1].p;
    const int i2 = pick(
        [&](const ManifoldCandidate& c, int) {
            const dvec3 d = c.p - p1 - n * glm::dot(c.p - p1, n);
            return glm::dot(d, d);
        },
        area_tol);
    const dvec3 p2 = kept[i2].p;
    // area2(p1, p2, x) of every candidate left, kept for the fourth pick (which needs it again) and for `base`.
    double area12[3 * kMaxPoly + 1];
    const int i3 = pick([&](const ManifoldCandidate& c, int k) { return area12[k] = area2(p1, p2, c.p, n); }, area_tol);
    const dvec3 p3 = kept[i3].p;
    const double base = area12[i3];
    const int i4 = pick([&](const ManifoldCandidate& c,
                            int k) { return area12[k] + area2(p2, p3, c.p, n) + area2(p3, p1, c.p, n) - base; },
                        area_tol);
    int picked[4] = {i1, i2, i3, i4};
    std::sort(picked, picked + 4);
    for (int k = 0; k < 4; ++k) out[k] = kept[picked[k]];
    return 4;
}

// Closest points of segments p0 + s d1 and q0 + t d2, s, t in [0, 1] (Ericson 5.1.9).
[[gnu::always_inline]] inline void closest_points(const dvec3& p0, const dvec3& d1, const dvec3& q0, const dvec3& d2,
                                                  dvec3& a, dvec3& b) {
    const dvec3 r = p0 - q0;
    const double aa = glm::dot(d1, d1), ee = glm::dot(d2, d2), f = glm::dot(d2, r);
    double s = 0.0, t = 0.0;
    if (aa <= 0.0 && ee <= 0.0) {
        s = t = 0.0;
    } else if (aa <= 0.0) {
        t = std::clamp(f / ee, 0.0, 1.0);
    } else {
        const double c = glm::dot(d1, r);
        if (ee <= 0.0) {
            s = std::clamp(-c / aa, 0.0, 1.0);
        } else {
            const double bb = glm::dot(d1, d2), denom = aa * ee - bb * bb;
            s = denom > 0.0 ? std::clamp((bb * f - c * ee) / denom, 0.0, 1.0) : 0.0;
            t = (bb * s + f) / ee;
            if (t < 0.0) {
                t = 0.0;
                s = std::clamp(-c / aa, 0.0, 1.0);
            } else if (t > 1.0) {
                t = 1.0;
                s = std::clamp((bb - c) / aa, 0.0, 1.0);
            }
        }
    }
    a = p0 + d1 * s;
    b = q0 + d2 * t;
}

// A convex planar polygon: its corners in order and a normal of its plane, zero when the polygon is too thin for one
// to be formed (a segment or a point, which its edges cover).
struct Flat {
    const dvec3* p = nullptr;
    int n = 0;
    dvec3 normal{0.0};
};

// Normal of the plane through p0, p1, p2 (corners of a convex polygon in order), from the longer of the two edges
// at p1 and the other as the SAT forms the triangle normal; zero when the two edges are (nearly) parallel or empty.
dvec3 flat_normal(const dvec3& p0, const dvec3& p1, const dvec3& p2) {
    const dvec3 e0 = p1 - p0, e1 = p2 - p1;
    const double l0 = glm::dot(e0, e0), l1 = glm::dot(e1, e1);
    const dvec3 n = l0 >= l1 ? detail::cross_robust(e0, e1, l0, l1) : detail::cross_robust(e1, e0, l1, l0);
    return glm::dot(n, n) > detail::kParallel2 * l0 * l1 ? n : dvec3(0.0);
}

// Whether x, seen along the polygon's normal, lies within the polygon (its boundary included). Needs a normal.
bool within(const Flat& f, const dvec3& x) {
    bool left = false, right = false;
    for (int k = 0; k < f.n; ++k) {
        const double s = glm::dot(glm::cross(f.p[(k + 1) % f.n] - f.p[k], x - f.p[k]), f.normal);
        left = left || s > 0.0;
        right = right || s < 0.0;
    }
    return !(left && right);
}

// A point of a triangle, the triangle feature it lies on, and its squared distance from what it is nearest to.
struct Nearest {
    dvec3 p{0.0};
    int feature = triangle_vertex_feature(0);
    double distance2 = std::numeric_limits<double>::infinity();
};

// The point of triangle `v` nearest the convex polygon `face`, with the triangle feature (vertex, edge or face) it
// lies on. The closest points of two convex polygons (Ericson 5.1.9 for the segments) are a vertex of one over the
// other's inside, or two points of their edges; where the polygons meet, an edge of one passes through the other.
// All of those are tried and the pair the least apart wins (the first on a tie).
Nearest triangle_point_nearest(const dvec3 v[3], const Flat& face) {
    const dvec3 tn = flat_normal(v[0], v[1], v[2]);
    const Flat tri{v, 3, tn};
    Nearest best;
    const auto offer = [&](const dvec3& on_tri, const dvec3& on_face, int f) {
        const dvec3 d = on_tri - on_face;
        const double d2 = glm::dot(d, d);
        if (d2 < best.distance2) best = {on_tri, f, d2};
    };
    // x moved along the plane normal n (non-zero) of a polygon through o into that plane.
    const auto onto = [](const dvec3& x, const dvec3& o, const dvec3& n) {
        return x - n * (glm::dot(n, x - o) / glm::dot(n, n));
    };
    // Where segment [a, b] passes through the plane of normal n through o, if it does.
    const auto crossing = [](const dvec3& a, const dvec3& b, const dvec3& o, const dvec3& n, dvec3& x) {
        const double da = glm::dot(n, a - o), db = glm::dot(n, b - o);
        if (!((da <= 0.0 && db >= 0.0) || (da >= 0.0 && db <= 0.0)) || da == db) return false;
        x = a + (b - a) * (da / (da - db));
        return true;
    };
    for (int j = 0; j < 3; ++j) {
        const dvec3 &a = v[j], &b = v[(j + 1) % 3];
        for (int k = 0; k < face.n; ++k) {
            dvec3 pt, pf;
            closest_points(a, b - a, face.p[k], face.p[(k + 1) % face.n] - face.p[k], pt, pf);
            offer(pt, pf, triangle_edge_feature(j));
        }
        if (face.normal == dvec3(0.0)) continue;
        const dvec3 x = onto(a, face.p[0], face.normal);
        if (within(face, x)) offer(a, x, triangle_vertex_feature(j));
        dvec3 c;
        if (crossing(a, b, face.p[0], face.normal, c) && within(face, c)) offer(c, c, triangle_edge_feature(j));
    }
    if (tn != dvec3(0.0)) {
        for (int k = 0; k < face.n; ++k) {
            const dvec3 x = onto(face.p[k], v[0], tn);
            if (within(tri, x)) offer(x, face.p[k], kTriangleFaceFeature);
            dvec3 c;
            if (crossing(face.p[k], face.p[(k + 1) % face.n], v[0], tn, c) && within(tri, c))
                offer(c, c, kTriangleFaceFeature);
        }
    }
    return best;
}

// The edge of box b along axis i that supports b in direction dir: its end points and feature.
[[gnu::always_inline]] inline void support_edge(const BoxG& b, int i, const dvec3& dir, dvec3& p0, dvec3& p1,
                                                int& feature) {
    dvec3 mid = b.c;
    int corner = 0;
    for (const int k : {i == 0 ? 1 : 0, i == 2 ? 1 : 2}) {  // the other two axes, in increasing order
        const bool plus = glm::dot(b.ax[k], dir) >= 0.0;
        mid += b.ax[k] * (plus ? b.h[k] : -b.h[k]);
        corner |= (plus ? 1 : 0) << k;
    }
    p0 = mid - b.ax[i] * b.h[i];
    p1 = mid + b.ax[i] * b.h[i];
    feature = box_edge_feature(i, corner);
}

// A point of the scaled frame in the world: unscaled (exact) and moved back by `origin`.
template <class T>
[[gnu::always_inline]] inline Vec3T<T> to_world(const dvec3& p, int exponent, const dvec3& origin) {
    return Vec3T<T>(
        origin + dvec3(detail::unscale(p.x, exponent), detail::unscale(p.y, exponent), detail::unscale(p.z, exponent)));
}

// The contact of a manifold of `count` points, written into `m` (default-constructed: what is not set keeps its
// default). Written in place, as are the functions below, so that the manifold (about 230 bytes) is not copied on its
// way out.
template <class T>
[[gnu::always_inline]] inline void set_contact(const detail::SatAxis& s, int exponent, const Keep& keep, int count,
                                               ManifoldT<T>& m) {
    const ContactT<T> c = detail::to_contact<T>(s, exponent);
    m.axis = c.axis;
    m.negative = c.negative;
    m.depth = keep.signed_depth ? static_cast<T>(detail::unscale(s.depth, exponent)) : c.depth;
    m.normal = c.normal;
    m.count = count;
}

// The contact and the points of a face manifold: each candidate lies on the incident shape, its partner on the
// reference face (depth along nr above it).
template <class T>
[[gnu::always_inline]] inline void make_manifold(const detail::SatAxis& s, int exponent, const dvec3& origin,
                                                 const ManifoldCandidate* pts, int count, bool ref_is_a,
                                                 const dvec3& nr, const Keep& keep, ManifoldT<T>& m) {
    set_contact(s, exponent, keep, count, m);
    for (int k = 0; k < count; ++k) {
        const dvec3 incident = pts[k].p;
        const dvec3 on_reference = pts[k].p + nr * pts[k].depth;
        const dvec3 pa = ref_is_a ? on_reference : incident, pb = ref_is_a ? incident : on_reference;
        ManifoldPointT<T>& out = m.points[static_cast<std::size_t>(k)];
        out.point_a = to_world<T>(pa, exponent, origin);
        out.point_b = to_world<T>(pb, exponent, origin);
        out.depth = static_cast<T>(detail::unscale(pts[k].depth, exponent));
        out.id = pts[k].id;
    }
}

// The manifold with its reference face's side planes in the world frame, unit normals: where the face ends.
template <class T>
[[gnu::always_inline]] inline void set_reference(const Reference& ref, int exponent, const dvec3& origin,
                                                 ManifoldT<T>& m) {
    m.reference_is_a = ref.is_a;
    m.sides = ref.sides;
    dvec3 n(0.0);
    for (int k = 0; k < ref.sides; ++k) {
        const double len = ref.side_length[k];
        // A box face's planes 2m and 2m + 1 have normals -u and u: the second is the first's negation (exact).
        n = ref.box && (k & 1) != 0 ? -n : ref.side[k].n / len;
        m.side_normal[static_cast<std::size_t>(k)] = Vec3T<T>(n);
        m.side_offset[static_cast<std::size_t>(k)] =
            static_cast<T>(detail::unscale(ref.side[k].d / len, exponent) + glm::dot(n, origin));
    }
}

// Index of the longest of three edges.
[[gnu::always_inline]] inline int E2max_index(const dvec3 E[3]) {
    const double e0 = glm::dot(E[0], E[0]), e1 = glm::dot(E[1], E[1]), e2 = glm::dot(E[2], E[2]);
    return e0 >= e1 ? (e0 >= e2 ? 0 : 2) : (e1 >= e2 ? 1 : 2);
}

// Edge-edge contact: one point, the closest points of the two edges (`c.p` on B's edge, `pa` on A's). They differ
// by depth * normal, the edges' common perpendicular, unless the closest points sit at an edge's end.
template <class T>
[[gnu::always_inline]] inline void make_edge_manifold(const detail::SatAxis& s, int exponent, const dvec3& origin,
                                                      const ManifoldCandidate& c, const dvec3& pa, const Keep& keep,
                                                      ManifoldT<T>& m) {
    set_contact(s, exponent, keep, 1, m);
    ManifoldPointT<T>& out = m.points[0];
    out.point_a = to_world<T>(pa, exponent, origin);
    out.point_b = to_world<T>(c.p, exponent, origin);
    out.depth = static_cast<T>(detail::unscale(c.depth, exponent));
    out.id = c.id;
}

// Face contact of the reference face `ref` against box `inc`: its face most anti-parallel to the reference face,
// clipped; if nothing of it lies below the reference face, the box's other faces that face the reference too (the
// overlap can lie under one of them when a face axis wins by the face bias, or at 45 degrees); if every one lies
// outside the side planes, the box's deepest corner.
int incident_box_contact(const Reference& ref, const BoxG& inc, double size, const Keep& keep,
                         ManifoldCandidate out[kMaxManifoldPoints]) {
    const dvec3& nr = ref.nr;
    int k;
    bool positive;
    incident_face(inc, nr, k, positive);
    ManifoldCandidateSet all;
    collect(box_face_polygon(inc, k, positive), ref, box_face_feature(k, positive), kOnPlane * size, all);
    double best = -1e300;
    for (int j = 0; j < all.n; ++j) best = std::max(best, all.c[j].depth);
    if (best < -keep.below) {
        for (int i = 0; i < 3; ++i) {
            const double c = glm::dot(inc.ax[i], nr);
            if (i == k || c == 0.0) continue;
            collect(box_face_polygon(inc, i, c < 0.0), ref, box_face_feature(i, c < 0.0), kOnPlane * size, all);
        }
    }
    if (all.n == 0 && keep.outside_fallback) {
        int corner = 0;
        dvec3 p = inc.c;
        for (int i = 0; i < 3; ++i) {
            const bool plus = glm::dot(inc.ax[i], nr) < 0.0;
            p += inc.ax[i] * (plus ? inc.h[i] : -inc.h[i]);
            corner |= (plus ? 1 : 0) << i;
        }
        const int fr = ref.feature(0), fi = box_corner_feature(corner);
        all.add({p, ref.top - glm::dot(nr, p), ref.is_a ? feature_id(fr, fi) : feature_id(fi, fr)});
    }
    return select(all, nr, size, keep, out);
}

// The pair's size, which scales the manifold's tolerances: the largest half extent, or half the triangle's longest
// edge; what the SAT's contact choice takes too (SatAxis::size), worked out here for an axis it did not choose.
double pair_size(const detail::BoxPairD& p) { return std::max({p.ea[0], p.ea[1], p.ea[2], p.eb[0], p.eb[1], p.eb[2]}); }
double pair_size(const detail::BoxTriD& p) {
    double emax2 = 0.0;
    for (int j = 0; j < 3; ++j) {
        const dvec3 e = p.v[(j + 1) % 3] - p.v[j];
        emax2 = std::max(emax2, glm::dot(e, e));
    }
    return std::max({p.e[0], p.e[1], p.e[2], 0.5 * std::sqrt(emax2)});
}

// The manifold of a loaded box pair for the contact axis `s` (what the SAT reported, or a face axis a contact
// policy chose): the reference face clipped against the incident box for a face axis, the closest points of the
// two supporting edges for an edge axis.
template <class T>
void build_manifold(const detail::BoxPairD& p, const detail::SatAxis& s, const dvec3& origin, Keep keep,
                    ManifoldT<T>& m) {
    const BoxG A{dvec3(0.0), p.a, p.ea}, B{p.t, p.b, p.eb};
    const double size = s.size >= 0.0 ? s.size : pair_size(p);
    if (keep.plain) keep.below = kKeepAbove * size;  // = plain_keep(p)
    ManifoldCandidate pts[kMaxManifoldPoints];
    if (s.axis < 6) {
        const bool ref_is_a = s.axis < 3;
        const dvec3 nr = ref_is_a ? s.normal : -s.normal;
        const Reference ref = ref_is_a ? box_reference(A, s.axis, nr, true) : box_reference(B, s.axis - 3, nr, false);
        const int count = incident_box_contact(ref, ref_is_a ? B : A, size, keep, pts);
        make_manifold<T>(s, p.exponent, origin, pts, count, ref_is_a, nr, keep, m);
        set_reference(ref, p.exponent, origin, m);
        return;
    }
    const int i = (s.axis - 6) / 3, j = (s.axis - 6) % 3;
    dvec3 a0, a1, b0, b1, pa, pb;
    int fa, fb;
    support_edge(A, i, s.normal, a0, a1, fa);
    support_edge(B, j, -s.normal, b0, b1, fb);
    closest_points(a0, a1 - a0, b0, b1 - b0, pa, pb);
    const double depth = glm::dot(pa - pb, s.normal);
    pts[0] = {pb, keep.signed_depth ? depth : std::max(depth, 0.0), feature_id(fa, fb)};
    make_edge_manifold<T>(s, p.exponent, origin, pts[0], pa, keep, m);
}

// The same for a loaded box and triangle.
template <class T>
void build_manifold(const detail::BoxTriD& p, const detail::SatAxis& s, const dvec3& origin, Keep keep,
                    ManifoldT<T>& m) {
    const BoxG A{dvec3(0.0), p.a, p.e};
    const dvec3* v = p.v;
    const dvec3 E[3] = {v[1] - v[0], v[2] - v[1], v[0] - v[2]};
    const double size = s.size >= 0.0 ? s.size : pair_size(p);
    if (keep.plain) keep.below = kKeepAbove * size;  // = plain_keep(p)
    ManifoldCandidate pts[kMaxManifoldPoints];
    if (s.axis < 3) {
        // A box face is the reference; the triangle is the incident polygon.
        const Reference ref = box_reference(A, s.axis, s.normal, true);
        ManifoldCandidateSet all;
        collect(triangle_polygon(v), ref, kTriangleFaceFeature, kOnPlane * size, all);
        bool kept = false;  // a clipped point that select() keeps: at or below the face, within keep.below
        for (int k = 0; k < all.n; ++k) kept = kept || all.c[k].depth >= -keep.below;
        if (!kept && keep.outside_fallback) {
            // Clipping counts a point within kOnPlane of the pair's size as on a side plane, so a face narrower than
            // that can lose every crossing. A box 1e-41 m wide on a triangle edge of 4e-22 m (fuzz_narrowphase) then
            // kept nothing although the two meet, and the triangle's deepest vertex lay 4.2e-22 m beside the box;
            // with the triangle turned, it kept only a point 1.7e-22 m above the face. Where the triangle meets the
            // face within that tolerance, the point is the triangle's point nearest the face, which lies in the box.
            // Otherwise the triangle lies beside the face (a face axis that the speculative face bias preferred for
            // shapes apart, or one a caller chose): the point is its deepest vertex if clipping kept nothing, and
            // select() takes the deepest clipped point if it kept some.
            const Poly face = box_face_polygon(A, s.axis, ref.positive);
            dvec3 corners[4];
            for (int k = 0; k < 4; ++k) corners[k] = face.v[k].p;
            const Flat flat{corners, 4, flat_normal(corners[0], corners[1], corners[2])};
            const Nearest closest = triangle_point_nearest(v, flat);
            const double tolerance = kOnPlane * size;
            const auto add = [&](const dvec3& q, int f) {
                all.add({q, ref.top - glm::dot(s.normal, q), feature_id(ref.feature(0), f)});
            };
            if (closest.distance2 <= tolerance * tolerance) {
                all.n = 0;
                add(closest.p, closest.feature);
            } else if (all.n == 0) {
                int j = 0;
                for (int k = 1; k < 3; ++k)
                    if (glm::dot(s.normal, v[k]) < glm::dot(s.normal, v[j])) j = k;
                add(v[j], triangle_vertex_feature(j));
            }
        }
        const int count = select(all, s.normal, size, keep, pts);
        make_manifold<T>(s, p.exponent, origin, pts, count, true, s.normal, keep, m);
        set_reference(ref, p.exponent, origin, m);
        return;
    }
    if (s.axis == 3) {
        // The triangle's face is the reference; the box face most aligned with the normal is incident.
        const dvec3 nr = -s.normal;  // from the triangle towards the box
        const dvec3 n = glm::cross(E[0], E[1]);
        Reference ref;
        ref.nr = nr;
        ref.is_a = false;
        ref.top = std::max({glm::dot(nr, v[0]), glm::dot(nr, v[1]), glm::dot(nr, v[2])});
        for (int j = 0; j < 3; ++j) {
            const dvec3 o = glm::cross(E[j], n);  // outward in the triangle's plane
            ref.side[j] = {o, glm::dot(o, v[j])};
            ref.side_length[j] = std::sqrt(glm::dot(o, o));
        }
        ref.sides = 3;
        const int count = incident_box_contact(ref, A, size, keep, pts);
        make_manifold<T>(s, p.exponent, origin, pts, count, false, nr, keep, m);
        set_reference(ref, p.exponent, origin, m);
        return;
    }
    // Edge-edge: the box edge supporting the box towards the triangle, and the triangle's edge j. A degenerate
    // (collinear) triangle's edges overlap on one line: its supporting feature is then the longest edge, which
    // holds the other two.
    const int i = (s.axis - 4) / 3;
    int j = (s.axis - 4) % 3;
    bool flat = s.flat_triangle == 1;
    if (s.flat_triangle < 0) {  // the triangle normal as the SAT forms it (tri_normal_axis)
        const int l = E2max_index(E);
        const int l1 = (l + 1) % 3;
        const double El = glm::dot(E[l], E[l]), El1 = glm::dot(E[l1], E[l1]);
        const dvec3 n = detail::cross_robust(E[l], E[l1], El, El1);
        flat = !(glm::dot(n, n) > detail::kParallel2 * El * El1);
    }
    if (flat) j = E2max_index(E);
    dvec3 a0, a1, pa, pb;
    int fa;
    support_edge(A, i, s.normal, a0, a1, fa);
    closest_points(a0, a1 - a0, v[j], E[j], pa, pb);
    const double depth = glm::dot(pa - pb, s.normal);
    pts[0] = {pb, keep.signed_depth ? depth : std::max(depth, 0.0), feature_id(fa, triangle_edge_feature(j))};
    // When the SAT took this axis on a tie (a touching pair: several axes at depth 0), edge j may not reach the box
    // edge at all: the closest points then lie apart across the normal, or along it on the far side of the triangle
    // (point_a != point_b + depth * normal; both found by fuzz_narrowphase), and the vertex off edge j may be what
    // touches. Take that vertex when its points differ by less from the SAT's depth along the normal. For the
    // supporting edges of a contact that is not a tie, the closest points differ by exactly that (up to round-off).
    const auto off = [&](const dvec3& qa, const dvec3& qb) {
        const dvec3 g = qa - qb - s.depth * s.normal;
        return glm::dot(g, g);
    };
    const double tolerance = kSamePoint * size;
    if (off(pa, pb) > tolerance * tolerance) {
        const int opposite = (j + 2) % 3;
        dvec3 va, vb;
        closest_points(a0, a1 - a0, v[opposite], dvec3(0.0), va, vb);
        if (off(va, vb) < off(pa, pb)) {
            const double vertex_depth = glm::dot(va - vb, s.normal);
            pts[0] = {vb, keep.signed_depth ? vertex_depth : std::max(vertex_depth, 0.0),
                      feature_id(fa, triangle_vertex_feature(opposite))};
            make_edge_manifold<T>(s, p.exponent, origin, pts[0], va, keep, m);
            return;
        }
    }
    make_edge_manifold<T>(s, p.exponent, origin, pts[0], pa, keep, m);
}

// The size tolerance of a plain (touching) manifold: points above the reference face by round-off still count.
// build_manifold works out the same from its size when Keep::plain is set.
template <class Input>
double plain_keep(const Input& p) {
    return kKeepAbove * pair_size(p);
}

// The manifold of a loaded pair `p` on the contact axis `s`, built in place (one return, so that it is not copied on
// its way out); with `drop_empty`, nothing when it kept no point.
template <class T, class Input>
std::optional<ManifoldT<T>> built(const Input& p, const detail::SatAxis& s, const dvec3& origin, Keep keep,
                                  bool drop_empty) {
    std::optional<ManifoldT<T>> out(std::in_place);
    build_manifold<T>(p, s, origin, keep, *out);
    if (drop_empty && out->count == 0) out.reset();
    return out;
}

// The plain manifold: the contact axis of `load_and_sat` (sat_core.hpp: the fast path, the exact core where it cannot
// answer), then the points on it.
template <class T, class Shape>
std::optional<ManifoldT<T>> plain_manifold(const ObbT<T>& a, const Shape& b) noexcept {
    detail::InputOf<T, Shape> p;
    detail::SatAxis s;
    if (!detail::load_and_sat<true>(a, b, p, &s, nullptr)) return std::nullopt;
    return detail::manifold_on_axis<T, Shape>(a, p, s);
}

// The speculative manifold: the contact axis of the SAT with the margin (the fast path, sat_fast.cpp, and the exact
// core where it cannot answer, as `load_and_sat` does for the plain test), points up to the margin above the
// reference face.
template <class T, class Shape>
std::optional<ManifoldT<T>> speculative(const ObbT<T>& a, const Shape& b, T margin) noexcept {
    if (!(margin > T(0))) return plain_manifold(a, b);
    detail::InputOf<T, Shape> p;
    detail::SatAxis s;
    double m = static_cast<double>(margin);  // load_fast leaves the input unscaled (exponent 0)
    const int fast =
        std::isfinite(m) && detail::load_fast(a, b, p) ? detail::sat_fast<true, true>(p, &s, nullptr, m) : -1;
    if (fast == 0) return std::nullopt;
    if (fast < 0) {
        if (!detail::load(a, b, p)) return std::nullopt;
        m = detail::unscale(static_cast<double>(margin), -p.exponent);
        if (!std::isfinite(m) || !detail::sat<true>(p, &s, m)) return std::nullopt;
    }
    if (s.axis < 0) return std::nullopt;  // as above
    return built<T>(p, s, dvec3(a.center), Keep{m, true, s.depth >= 0.0}, true);
}

// The contact axis of a face chosen by the caller: face `axis` as numbered by the SAT, its unit normal (negated when
// `negative`) from A towards B, and the depth along it (the shapes' overlap along that direction; negative for a gap).
// False for an axis that is not a face axis, a zero axis (or a degenerate triangle for axis 3), or NaN.
bool face_axis(const detail::BoxPairD& p, int axis, bool negative, detail::SatAxis& out) {
    if (axis < 0 || axis > 5) return false;
    const dvec3 u = axis < 3 ? p.a[axis] : p.b[axis - 3];
    const double len = std::sqrt(glm::dot(u, u));
    if (!(len > 0.0)) return false;
    const dvec3 n = (negative ? -u : u) / len;
    double ra = 0.0, rb = 0.0;
    for (int i = 0; i < 3; ++i) {
        ra += p.ea[i] * std::abs(glm::dot(p.a[i], n));
        rb += p.eb[i] * std::abs(glm::dot(p.b[i], n));
    }
    out.axis = axis;
    out.negative = negative;
    out.normal = n;
    out.depth = ra + rb - glm::dot(p.t, n);
    return std::isfinite(out.depth);
}
bool face_axis(const detail::BoxTriD& p, int axis, bool negative, detail::SatAxis& out) {
    if (axis < 0 || axis > 3) return false;
    dvec3 u;
    if (axis < 3) {
        u = p.a[axis];
    } else {
        const detail::TriEdges te = detail::tri_edges(p);
        const detail::EdgeAxis x = detail::tri_normal_axis(p, te);
        if (!x.valid) return false;
        u = x.L;
    }
    const double len = std::sqrt(glm::dot(u, u));
    if (!(len > 0.0)) return false;
    const dvec3 n = (negative ? -u : u) / len;
    double r = 0.0;
    for (int i = 0; i < 3; ++i) r += p.e[i] * std::abs(glm::dot(p.a[i], n));
    const double lo = std::min({glm::dot(p.v[0], n), glm::dot(p.v[1], n), glm::dot(p.v[2], n)});
    out.axis = axis;
    out.negative = negative;
    out.normal = n;
    out.depth = r - lo;  // the box, pushed along -n, clears the triangle's nearest point
    return std::isfinite(out.depth);
}

template <class T, class Shape>
std::optional<ManifoldT<T>> on_face(const ObbT<T>& a, const Shape& b, int axis, bool negative, T margin) noexcept {
    detail::InputOf<T, Shape> p;
    detail::SatAxis s;
    if (!detail::load(a, b, p) || !face_axis(p, axis, negative, s)) return std::nullopt;
    const bool spec = margin > T(0);
    const double m = spec ? detail::unscale(static_cast<double>(margin), -p.exponent) : plain_keep(p);
    if (!std::isfinite(m) || !(s.depth >= -m)) return std::nullopt;
    return built<T>(p, s, dvec3(a.center), Keep{m, spec, !spec || s.depth >= 0.0}, true);
}

}  // namespace

template <class T>
std::optional<ManifoldT<T>> collide_manifold(const ObbT<T>& a, const ObbT<T>& b) noexcept {
    return plain_manifold(a, b);
}

template <class T>
std::optional<ManifoldT<T>> collide_manifold(const ObbT<T>& box, const TriangleT<T>& tri) noexcept {
    return plain_manifold(box, tri);
}

template <class T>
std::optional<ManifoldT<T>> collide_manifold(const ObbT<T>& a, const ObbT<T>& b, T margin) noexcept {
    return speculative(a, b, margin);
}

template <class T>
std::optional<ManifoldT<T>> collide_manifold(const ObbT<T>& box, const TriangleT<T>& tri, T margin) noexcept {
    return speculative(box, tri, margin);
}

template <class T>
std::optional<ManifoldT<T>> face_manifold(const ObbT<T>& a, const ObbT<T>& b, int axis, bool negative,
                                          T margin) noexcept {
    return on_face(a, b, axis, negative, margin);
}

template <class T>
std::optional<ManifoldT<T>> face_manifold(const ObbT<T>& box, const TriangleT<T>& tri, int axis, bool negative,
                                          T margin) noexcept {
    return on_face(box, tri, axis, negative, margin);
}

namespace detail {

template <class T, class Shape>
std::optional<ManifoldT<T>> manifold_on_axis(const ObbT<T>& a, const InputOf<T, Shape>& p, const SatAxis& s) noexcept {
    if (s.axis < 0) return std::nullopt;  // no axis could be formed (zero axes): no face or edge to take points from
    return built<T>(p, s, dvec3(a.center), Keep{.plain = true}, false);
}

template std::optional<ManifoldT<float>> manifold_on_axis<float, ObbT<float>>(const ObbT<float>&, const BoxPairD&,
                                                                               const SatAxis&) noexcept;
template std::optional<ManifoldT<double>> manifold_on_axis<double, ObbT<double>>(const ObbT<double>&, const BoxPairD&,
                                                                                  const SatAxis&) noexcept;
template std::optional<ManifoldT<float>> manifold_on_axis<float, TriangleT<float>>(const ObbT<float>&, const BoxTriD&,
                                                                                    const SatAxis&) noexcept;
template std::optional<ManifoldT<double>> manifold_on_axis<double, TriangleT<double>>(const ObbT<double>&,
                                                                                       const BoxTriD&,
                                                                                       const SatAxis&) noexcept;

}  // namespace detail

template std::optional<ManifoldT<float>> collide_manifold<float>(const ObbT<float>&, const ObbT<float>&) noexcept;
template std::optional<ManifoldT<double>> collide_manifold<double>(const ObbT<double>&, const ObbT<double>&) noexcept;
template std::optional<ManifoldT<float>> collide_manifold<float>(const ObbT<float>&, const TriangleT<float>&) noexcept;
template std::optional<ManifoldT<double>> collide_manifold<double>(const ObbT<double>&,
                                                                   const TriangleT<double>&) noexcept;
template std::optional<ManifoldT<float>> collide_manifold<float>(const ObbT<float>&, const ObbT<float>&, float) noexcept;
template std::optional<ManifoldT<double>> collide_manifold<double>(const ObbT<double>&, const ObbT<double>&,
                                                                   double) noexcept;
template std::optional<ManifoldT<float>> collide_manifold<float>(const ObbT<float>&, const TriangleT<float>&,
                                                                 float) noexcept;
template std::optional<ManifoldT<double>> collide_manifold<double>(const ObbT<double>&, const TriangleT<double>&,
                                                                   double) noexcept;
template std::optional<ManifoldT<float>> face_manifold<float>(const ObbT<float>&, const ObbT<float>&, int, bool,
                                                              float) noexcept;
template std::optional<ManifoldT<double>> face_manifold<double>(const ObbT<double>&, const ObbT<double>&, int, bool,
                                                                double) noexcept;
template std::optional<ManifoldT<float>> face_manifold<float>(const ObbT<float>&, const TriangleT<float>&, int, bool,
                                                              float) noexcept;
template std::optional<ManifoldT<double>> face_manifold<double>(const ObbT<double>&, const TriangleT<double>&, int,
                                                                bool, double) noexcept;

}  // namespace tumble
