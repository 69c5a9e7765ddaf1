// OBB fitting from point clouds (see fit.hpp for the contract and the sources of the methods).
//
// Layout: every method returns an orientation (a right-handed orthonormal frame, in double); `box_in_frame` then
// measures the points along that frame, so containment never depends on how the orientation was found.

#include <tumble/narrowphase/fit.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Eigenvalues>

#include <tumble/core/error.hpp>

#include "convex_hull.hpp"

namespace tumble {
namespace {

using glm::dvec2;
using glm::dvec3;
using Frame = glm::dmat3;  // columns: the box axes, orthonormal and right-handed

// A cloud is treated as flat (or linear) when its spread across the plane (line) is below this fraction of its
// largest spread. At 1e-6 the surface of such a slab differs from its two faces by less than float round-off, and
// Qhull is spared a hull that is flat up to noise.
constexpr double kFlat = 1e-6;

std::string describe(const dvec3& p) {
    return "(" + std::to_string(p.x) + ", " + std::to_string(p.y) + ", " + std::to_string(p.z) + ")";
}

// A unit vector perpendicular to unit `x`: x crossed with the coordinate axis least aligned with it.
dvec3 any_perpendicular(const dvec3& x) {
    const dvec3 a = glm::abs(x);
    const dvec3 e = a.x <= a.y && a.x <= a.z ? dvec3(1, 0, 0) : (a.y <= a.z ? dvec3(0, 1, 0) : dvec3(0, 0, 1));
    return glm::normalize(glm::cross(x, e));
}

// Right-handed orthonormal frame whose first axis is along `x` and second as close to `y` as possible.
Frame make_frame(dvec3 x, dvec3 y) {
    x = glm::normalize(x);
    y -= x * glm::dot(x, y);
    const double ly = glm::length(y);
    y = ly > 1e-12 ? y / ly : any_perpendicular(x);
    return Frame(x, y, glm::cross(x, y));
}

// Principal axes of a symmetric 3x3 matrix, largest eigenvalue first.
Frame principal_frame(const Eigen::Matrix3d& m) {
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> solver(m, Eigen::ComputeEigenvectors);
    const Eigen::Matrix3d& v = solver.eigenvectors();  // columns, eigenvalues increasing
    return make_frame({v(0, 2), v(1, 2), v(2, 2)}, {v(0, 1), v(1, 1), v(2, 1)});
}

// (a) Covariance of the points (Gottschalk, Lin and Manocha 1996; Ericson 2005, section 4.4.3).
Frame covariance_frame(std::span<const dvec3> q) {
    dvec3 mean(0.0);
    for (const dvec3& p : q) mean += p;
    mean /= static_cast<double>(q.size());
    Eigen::Matrix3d c = Eigen::Matrix3d::Zero();
    for (const dvec3& p : q) {
        const Eigen::Vector3d d(p.x - mean.x, p.y - mean.y, p.z - mean.z);
        c += d * d.transpose();
    }
    return principal_frame(c / static_cast<double>(q.size()));
}

// Least and greatest projection of the points on each axis of `f`.
void projection_range(std::span<const dvec3> q, const Frame& f, dvec3& lo, dvec3& hi) {
    lo = dvec3(std::numeric_limits<double>::max());
    hi = dvec3(-std::numeric_limits<double>::max());
    for (const dvec3& p : q)
        for (int k = 0; k < 3; ++k) {
            const double x = glm::dot(p, f[k]);
            lo[k] = std::min(lo[k], x);
            hi[k] = std::max(hi[k], x);
        }
}

// Spread (max - min) of the points along each axis of `f`.
dvec3 spreads(std::span<const dvec3> q, const Frame& f) {
    dvec3 lo, hi;
    projection_range(q, f, lo, hi);
    return hi - lo;
}

// 2D cross product of (a - o) and (b - o).
double cross2(const glm::dvec2& o, const glm::dvec2& a, const glm::dvec2& b) {
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

// Convex hull of 2D points, counter-clockwise, without collinear points (Andrew's monotone chain: A. M. Andrew,
// "Another efficient algorithm for convex hulls in two dimensions", Information Processing Letters 9, 1979).
// Large inputs are first thinned by the Akl-Toussaint heuristic (Akl and Toussaint, "A fast convex hull algorithm",
// Information Processing Letters 7, 1978): points strictly inside the polygon of the extreme points along 8
// directions cannot be hull vertices, and only the rest are sorted.
std::vector<glm::dvec2> hull_2d(std::vector<glm::dvec2> p) {
    if (p.size() > 32) {
        static constexpr double kDirs[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
        std::array<glm::dvec2, 8> poly;
        std::array<double, 8> best;
        poly.fill(p[0]);
        for (std::size_t j = 0; j < 8; ++j) best[j] = p[0].x * kDirs[j][0] + p[0].y * kDirs[j][1];
        for (const glm::dvec2& x : p)
            for (std::size_t j = 0; j < 8; ++j) {
                const double v = x.x * kDirs[j][0] + x.y * kDirs[j][1];
                if (v > best[j]) best[j] = v, poly[j] = x;
            }
        // Extremes in counter-clockwise order of their directions form a convex polygon (repeats allowed).
        std::size_t m = 0;
        for (std::size_t j = 0; j < 8; ++j)
            if (m == 0 || (poly[j] != poly[m - 1] && (j < 7 || poly[j] != poly[0]))) poly[m++] = poly[j];
        if (m >= 3) {
            std::erase_if(p, [&](const glm::dvec2& x) {
                for (std::size_t j = 0; j < m; ++j)
                    if (!(cross2(poly[j], poly[(j + 1) % m], x) > 0.0)) return false;  // on or outside an edge
                return true;                                                        // strictly inside
            });
        }
    }
    std::sort(p.begin(), p.end(), [](const glm::dvec2& a, const glm::dvec2& b) { return a.x != b.x ? a.x < b.x : a.y < b.y; });
    p.erase(std::unique(p.begin(), p.end()), p.end());
    if (p.size() < 3) return p;
    std::vector<glm::dvec2> h(2 * p.size());
    std::size_t k = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {  // lower chain
        while (k >= 2 && cross2(h[k - 2], h[k - 1], p[i]) <= 0.0) --k;
        h[k++] = p[i];
    }
    for (std::size_t i = p.size() - 1, lower = k + 1; i-- > 0;) {  // upper chain
        while (k >= lower && cross2(h[k - 2], h[k - 1], p[i]) <= 0.0) --k;
        h[k++] = p[i];
    }
    h.resize(k - 1);  // the last point is the first one again
    return h;
}

// Second moment about the origin of a triangle's area, divided by its area: the integral of x x^T over the
// triangle is area/12 (a a^T + b b^T + c c^T + 9 m m^T) with m the centroid (Gottschalk et al. 1996, eq. for C_jk).
template <class M, class V>
M triangle_moment(const V& a, const V& b, const V& c) {
    const V m = (a + b + c) / 3.0;
    return (a * a.transpose() + b * b.transpose() + c * c.transpose() + 9.0 * m * m.transpose()) / 12.0;
}

// In-plane principal axes of a flat cloud: area-weighted covariance of its 2D hull polygon in the plane spanned by
// the first two axes of `pca`. Collinear clouds keep `pca`, whose first axis is the line.
Frame planar_hull_frame(std::span<const dvec3> q, const Frame& pca) {
    std::vector<glm::dvec2> flat;
    flat.reserve(q.size());
    for (const dvec3& p : q) flat.push_back({glm::dot(p, pca[0]), glm::dot(p, pca[1])});
    const std::vector<glm::dvec2> h = hull_2d(std::move(flat));
    if (h.size() < 3) return pca;
    double area = 0.0;
    Eigen::Vector2d first_moment = Eigen::Vector2d::Zero();
    Eigen::Matrix2d second_moment = Eigen::Matrix2d::Zero();
    const Eigen::Vector2d o(h[0].x, h[0].y);
    for (std::size_t i = 1; i + 1 < h.size(); ++i) {  // fan of the convex polygon
        const Eigen::Vector2d b(h[i].x, h[i].y), c(h[i + 1].x, h[i + 1].y);
        const double a = 0.5 * cross2(h[0], h[i], h[i + 1]);
        area += a;
        first_moment += a * (o + b + c) / 3.0;
        second_moment += a * triangle_moment<Eigen::Matrix2d>(o, b, c);
    }
    if (!(area > 0.0)) return pca;
    const Eigen::Vector2d mean = first_moment / area;
    const Eigen::Matrix2d cov = second_moment / area - mean * mean.transpose();
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d> solver(cov, Eigen::ComputeEigenvectors);
    const Eigen::Vector2d major = solver.eigenvectors().col(1);
    return make_frame(pca[0] * major.x() + pca[1] * major.y(), pca[0] * -major.y() + pca[1] * major.x());
}

// (b) Covariance of the convex hull's surface, area weighted (Gottschalk, Lin and Manocha 1996, section 4.1).
Frame hull_covariance_frame(std::span<const dvec3> q) {
    const Frame pca = covariance_frame(q);
    const dvec3 s = spreads(q, pca);
    const double size = std::max({s.x, s.y, s.z});
    if (std::min({s.x, s.y, s.z}) <= kFlat * size) return planar_hull_frame(q, pca);

    std::vector<detail::HullTriangle> triangles;
    std::string error;
    if (!detail::convex_hull_triangles(q, triangles, error)) return planar_hull_frame(q, pca);
    double area = 0.0;
    Eigen::Vector3d first_moment = Eigen::Vector3d::Zero();
    Eigen::Matrix3d second_moment = Eigen::Matrix3d::Zero();
    for (const detail::HullTriangle& t : triangles) {
        const Eigen::Vector3d a(t[0].x, t[0].y, t[0].z), b(t[1].x, t[1].y, t[1].z), c(t[2].x, t[2].y, t[2].z);
        const double w = 0.5 * (b - a).cross(c - a).norm();
        area += w;
        first_moment += w * (a + b + c) / 3.0;
        second_moment += w * triangle_moment<Eigen::Matrix3d>(a, b, c);
    }
    if (!(area > 0.0)) return planar_hull_frame(q, pca);
    const Eigen::Vector3d mean = first_moment / area;
    return principal_frame(second_moment / area - mean * mean.transpose());
}

// (c) DiTO-14 (Larsson and Kallberg 2011).
class Dito {
public:
    explicit Dito(std::span<const dvec3> q) {
        // Extremal points along the 7 directions: coordinate axes and cube diagonals (need not be unit here).
        static constexpr std::array<std::array<double, 3>, 7> kDirections{
            {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}, {1, 1, -1}, {1, -1, 1}, {1, -1, -1}}};
        std::array<double, 7> lo, hi;
        lo.fill(std::numeric_limits<double>::max());
        hi.fill(-std::numeric_limits<double>::max());
        std::array<std::size_t, 7> arg_lo{}, arg_hi{};
        for (std::size_t i = 0; i < q.size(); ++i)
            for (std::size_t j = 0; j < 7; ++j) {
                const double x = glm::dot(q[i], dvec3(kDirections[j][0], kDirections[j][1], kDirections[j][2]));
                if (x < lo[j]) lo[j] = x, arg_lo[j] = i;
                if (x > hi[j]) hi[j] = x, arg_hi[j] = i;
            }
        for (std::size_t j = 0; j < 7; ++j) {
            extremal_[2 * j] = q[arg_lo[j]];
            extremal_[2 * j + 1] = q[arg_hi[j]];
        }
    }

    Frame frame() {
        // Base triangle: the farthest pair of extremal points along the same direction, then the extremal point
        // farthest from the line through them.
        std::size_t pair = 0;
        double best = -1.0;
        for (std::size_t j = 0; j < 7; ++j) {
            const double d = glm::dot(extremal_[2 * j + 1] - extremal_[2 * j], extremal_[2 * j + 1] - extremal_[2 * j]);
            if (d > best) best = d, pair = j;
        }
        const dvec3 p0 = extremal_[2 * pair], p1 = extremal_[2 * pair + 1];
        const double length = std::sqrt(best);
        if (!(length > 0.0)) return Frame(1.0);  // every point is the same point
        const dvec3 e0 = (p1 - p0) / length;
        dvec3 p2 = p0;
        double far = -1.0;
        for (const dvec3& p : extremal_) {
            const dvec3 d = p - p0;
            const double off = glm::dot(d, d) - glm::dot(d, e0) * glm::dot(d, e0);
            if (off > far) far = off, p2 = p;
        }
        // Extremal points on a line: the line is the first axis (the cloud is a segment, or nearly).
        if (!(std::sqrt(std::max(far, 0.0)) > kFlat * length)) return make_frame(e0, any_perpendicular(e0));
        const dvec3 n = glm::normalize(glm::cross(p1 - p0, p2 - p0));
        // The extremal points farthest below and above the base plane span two tetrahedra with it.
        double below = 0.0, above = 0.0;
        dvec3 q_below = p0, q_above = p0;
        for (const dvec3& p : extremal_) {
            const double h = glm::dot(p - p0, n);
            if (h < below) below = h, q_below = p;
            if (h > above) above = h, q_above = p;
        }
        const bool flat = !(-below > kFlat * length) && !(above > kFlat * length);
        // The axis-aligned box is the paper's first candidate; for a flat cloud only when it is flat too, so that
        // the result keeps the plane normal as an axis.
        const dvec3 aabb = spreads(extremal_, Frame(1.0));
        if (!flat || std::min({aabb.x, aabb.y, aabb.z}) <= kFlat * length) consider(Frame(1.0));
        consider_triangle(p0, p1, p2, n);
        for (const auto& [apex, height] : {std::pair{q_below, -below}, std::pair{q_above, above}}) {
            if (!(height > kFlat * length)) continue;  // flat on this side
            consider_triangle(p0, p1, apex, std::nullopt);
            consider_triangle(p1, p2, apex, std::nullopt);
            consider_triangle(p2, p0, apex, std::nullopt);
        }
        return best_;
    }

private:
    // The three frames of a triangle: each edge with the triangle normal.
    void consider_triangle(const dvec3& a, const dvec3& b, const dvec3& c, std::optional<dvec3> normal) {
        dvec3 n = normal ? *normal : glm::cross(b - a, c - a);
        const double ln = glm::length(n);
        if (!(ln > 0.0)) return;
        n /= ln;
        for (const dvec3& edge : {b - a, c - b, a - c}) {
            const double le = glm::length(edge);
            if (!(le > 0.0)) continue;
            const dvec3 u = edge / le;
            consider(make_frame(u, glm::cross(n, u)));
        }
    }

    // Scores a frame by the half surface area of the box around the extremal points (the paper's measure).
    void consider(const Frame& f) {
        const dvec3 s = spreads(extremal_, f);
        const double score = s.x * s.y + s.y * s.z + s.z * s.x;
        if (score < best_score_) best_score_ = score, best_ = f;
    }

    std::array<dvec3, 14> extremal_{};
    Frame best_{1.0};
    double best_score_ = std::numeric_limits<double>::max();
};

// Smallest-area rectangle around a convex polygon (counter-clockwise, no collinear vertices, >= 3 vertices): one of
// its sides lies along a polygon edge (Freeman and Shapira 1975), and rotating calipers (Toussaint, "Solving
// geometric problems with the rotating calipers", 1983) find the extreme vertices for every edge in O(n) total.
// Returns the area and the unit direction of the side along the edge.
std::pair<double, glm::dvec2> min_area_rectangle(const std::vector<glm::dvec2>& h) {
    const std::size_t n = h.size();
    auto next = [n](std::size_t i) { return i + 1 == n ? 0 : i + 1; };
    double best = std::numeric_limits<double>::max();
    glm::dvec2 best_dir(1.0, 0.0);
    std::size_t right = 0, top = 0, left = 0;  // farthest along the edge, from the edge, against the edge
    for (std::size_t i = 0; i < n; ++i) {
        const glm::dvec2 e = h[next(i)] - h[i];
        const double len = glm::length(e);
        const glm::dvec2 d = e / len, up(-d.y, d.x);  // up points into the polygon
        if (i == 0) right = next(i);
        for (std::size_t k = 0; k < n && glm::dot(h[next(right)] - h[right], d) > 0.0; ++k) right = next(right);
        if (i == 0) top = right;
        for (std::size_t k = 0; k < n && glm::dot(h[next(top)] - h[top], up) > 0.0; ++k) top = next(top);
        if (i == 0) left = top;
        for (std::size_t k = 0; k < n && glm::dot(h[next(left)] - h[left], d) < 0.0; ++k) left = next(left);
        const double width = glm::dot(h[right] - h[left], d);
        const double height = glm::dot(h[top] - h[i], up);
        if (width * height < best) best = width * height, best_dir = d;
    }
    return {best, best_dir};
}

// Rounds of `refine_frame` for FitMethod::dito_refined, and the relative volume gain below which a round ends the
// descent. Later rounds on the real meshes gain less than 1e-4 each (3DSMaxExport.STL: 16 rounds gain 2e-4 over
// the 6 it takes with this threshold).
constexpr int kRefineRounds = 16;
constexpr double kRefineGain = 1e-4;

// Local improvement of a frame: with one axis held, the best rotation about it is the minimum-area rectangle of the
// points projected on the plane of the other two, found exactly. Tries the three axes in turn and keeps a rotation
// only when it lowers the volume, until a full round gains less than kRefineGain (at most `rounds` rounds). The volume counts
// every spread as at least kFlat times the largest, so that a flat cloud still gets its smallest rectangle.
Frame refine_frame(std::span<const dvec3> cloud, Frame f, int rounds) {
    // Duplicate points (meshes often store one vertex per triangle corner) cannot change a hull.
    std::vector<dvec3> q(cloud.begin(), cloud.end());
    std::sort(q.begin(), q.end(), [](const dvec3& a, const dvec3& b) {
        return a.x != b.x ? a.x < b.x : (a.y != b.y ? a.y < b.y : a.z < b.z);
    });
    q.erase(std::unique(q.begin(), q.end()), q.end());
    dvec3 s = spreads(q, f);
    const double floor = kFlat * std::max({s.x, s.y, s.z});
    auto volume_of = [floor](const dvec3& spread) {
        return (spread.x + floor) * (spread.y + floor) * (spread.z + floor);
    };
    double volume = volume_of(s);
    std::vector<glm::dvec2> flat(q.size());
    for (int round = 0; round < rounds; ++round) {
        const double start = volume;
        for (int k = 0; k < 3; ++k) {
            const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
            const dvec3 u = f[k], a = f[k1], b = f[k2];
            for (std::size_t i = 0; i < q.size(); ++i) flat[i] = {glm::dot(q[i], a), glm::dot(q[i], b)};
            const std::vector<glm::dvec2> h = hull_2d(flat);
            if (h.size() < 3) continue;
            // The rectangle's side directions are d, -d and the two perpendiculars; take the one nearest the current
            // axis a = (1, 0), so that an unchanged box keeps its axes instead of swapping them on round-off.
            dvec2 dir = min_area_rectangle(h).second;
            dvec2 d = dir;
            for (int turn = 0; turn < 3; ++turn) {
                d = {-d.y, d.x};
                if (d.x > dir.x) dir = d;
            }
            Frame g = f;
            g[k1] = glm::normalize(a * dir.x + b * dir.y);
            g[k2] = glm::cross(u, g[k1]);  // (u, a', b') keeps the handedness of (u, a, b)
            const dvec3 gs = spreads(q, g);
            if (!(volume_of(gs) < volume * (1.0 - 1e-12))) continue;
            f = g;
            s = gs;
            volume = volume_of(gs);
        }
        if (!(volume < start * (1.0 - kRefineGain))) break;
    }
    return f;
}

// The tightest box with the frame's axes around the points: the centre from the double-precision spreads, the half
// extents measured again in T exactly as ObbT<T>::contains measures, then rounded outwards (see fit.hpp).
template <class T>
ObbT<T> box_in_frame(std::span<const Vec3T<T>> points, std::span<const dvec3> q, const dvec3& origin, const Frame& f) {
    dvec3 lo, hi;
    projection_range(q, f, lo, hi);
    dvec3 center = origin;
    for (int k = 0; k < 3; ++k) center += f[k] * (0.5 * (lo[k] + hi[k]));

    ObbT<T> box;
    box.center = Vec3T<T>(center);
    box.axes = Mat3T<T>(f);
    Vec3T<T> h(T(0));
    double reach = 0.0;
    bool exact[3] = {true, true, true};  // every term d_j * a_kj of every projection on axis k is exactly zero
    for (const Vec3T<T>& p : points) {
        const Vec3T<T> d = p - box.center;
        for (int k = 0; k < 3; ++k) {
            h[k] = std::max(h[k], std::abs(glm::dot(d, box.axes[k])));
            for (int j = 0; j < 3; ++j) exact[k] = exact[k] && (d[j] == T(0) || box.axes[k][j] == T(0));
        }
        reach = std::max(reach, glm::length(dvec3(d)));
    }
    // A dot product evaluated in another order or with fused multiply-adds differs by at most ~3 epsilon |d|; pad
    // by 4. Only projections made of exact zeros are zero however they are evaluated: those keep a zero extent.
    const double pad = 4.0 * static_cast<double>(std::numeric_limits<T>::epsilon()) * reach;
    for (int k = 0; k < 3; ++k)
        if (!exact[k]) h[k] = static_cast<T>(static_cast<double>(h[k]) + pad);
    box.half_extents = h;
    return box;
}

template <class T>
ObbT<T> fit(std::span<const Vec3T<T>> points, FitMethod method) {
    if (method != FitMethod::covariance && method != FitMethod::hull_covariance && method != FitMethod::dito &&
        method != FitMethod::dito_refined)
        throw InvalidArgument("fit_obb: method " + std::to_string(static_cast<int>(method)) +
                              " is not a FitMethod enumerator");
    if (points.empty()) throw InvalidArgument("fit_obb: no points (the point cloud is empty)");
    for (std::size_t i = 0; i < points.size(); ++i) {
        const Vec3T<T>& p = points[i];
        if (!(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z)))
            throw InvalidArgument("fit_obb: point " + std::to_string(i) + " " + describe(dvec3(p)) +
                                  " is not finite (every coordinate must be a finite number)");
    }
    // Work relative to the middle of the bounding box: the spreads then do not lose digits to a far origin.
    dvec3 lo(points[0]), hi(points[0]);
    for (const Vec3T<T>& p : points) lo = glm::min(lo, dvec3(p)), hi = glm::max(hi, dvec3(p));
    const dvec3 origin = 0.5 * (lo + hi);
    if (lo == hi) return {points[0], Mat3T<T>(T(1)), Vec3T<T>(T(0))};  // all points identical
    std::vector<dvec3> q;
    q.reserve(points.size());
    for (const Vec3T<T>& p : points) q.push_back(dvec3(p) - origin);

    Frame f(1.0);
    switch (method) {
        case FitMethod::covariance: f = covariance_frame(q); break;
        case FitMethod::hull_covariance: f = hull_covariance_frame(q); break;
        case FitMethod::dito: f = Dito(q).frame(); break;
        case FitMethod::dito_refined: f = refine_frame(q, Dito(q).frame(), kRefineRounds); break;
    }
    return box_in_frame<T>(points, q, origin, f);
}

}  // namespace

std::string_view to_string(FitMethod method) {
    switch (method) {
        case FitMethod::covariance: return "covariance";
        case FitMethod::hull_covariance: return "hull_covariance";
        case FitMethod::dito: return "dito";
        case FitMethod::dito_refined: return "dito_refined";
    }
    return "unknown";
}

Obb fit_obb(std::span<const glm::vec3> points, FitMethod method) { return fit<float>(points, method); }
ObbD fit_obb(std::span<const glm::dvec3> points, FitMethod method) { return fit<double>(points, method); }

}  // namespace tumble
