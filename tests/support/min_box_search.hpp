#pragma once
// Reference for OBB fitting: the smallest-volume box around a point cloud found by a search over orientations,
// independent of the library's fitting code.
//
// The search runs over the direction u of one box face normal (the unit sphere, 2 parameters). For a fixed u the
// rest is exact: the smallest rectangle around the points projected on the plane normal to u has a side along an
// edge of their 2D convex hull (Freeman and Shapira, "Determining the minimum-area encasing rectangle for an
// arbitrary closed curve", CACM 18(7), 1975), so every hull edge is tried. Volume(u) = height along u times that
// area. The minimum box has some face normal u*, and at u* this gives its volume exactly; the search finds u* by a
// Fibonacci grid over the half sphere (u and -u are the same) followed by a pattern search on the sphere from the
// best grid directions, with the step halved down to `final_step` radians. Every face normal of the optimal box is a
// u*, so the grid has three chances to land near one. The result is not proven optimal (O'Rourke's 1985 algorithm
// would be), but it is an upper bound on the optimum that a finer grid can only lower, and the box it returns
// contains every point (its extents are measured on all of them).

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include <glm/glm.hpp>

namespace ref {

struct BoxFit {
    glm::dmat3 axes{1.0};   // columns
    glm::dvec3 center{0.0};
    glm::dvec3 half{0.0};
    double volume = 0.0;
    long evaluations = 0;   // directions evaluated
};

struct SearchOptions {
    int grid = 2000;           // directions on the half sphere
    int seeds = 8;             // best grid directions refined by pattern search
    double final_step = 1e-6;  // radians
};

namespace detail {

inline double cross2(const glm::dvec2& o, const glm::dvec2& a, const glm::dvec2& b) {
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

// Convex hull of 2D points (monotone chain), counter-clockwise; `p` is reordered.
inline void hull(std::vector<glm::dvec2>& p, std::vector<glm::dvec2>& h) {
    std::sort(p.begin(), p.end(), [](const glm::dvec2& a, const glm::dvec2& b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
    h.assign(2 * p.size() + 1, {});
    std::size_t k = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        while (k >= 2 && cross2(h[k - 2], h[k - 1], p[i]) <= 0) --k;
        h[k++] = p[i];
    }
    for (std::size_t i = p.size(), t = k + 1; i-- > 1;) {
        while (k >= t && cross2(h[k - 2], h[k - 1], p[i - 1]) <= 0) --k;
        h[k++] = p[i - 1];
    }
    h.resize(k > 1 ? k - 1 : k);
}

// Unit vectors a, b with (a, b, u) orthonormal.
inline void basis(const glm::dvec3& u, glm::dvec3& a, glm::dvec3& b) {
    const glm::dvec3 e = std::abs(u.x) < 0.6 ? glm::dvec3(1, 0, 0) : glm::dvec3(0, 1, 0);
    a = glm::normalize(glm::cross(u, e));
    b = glm::cross(u, a);
}

class Searcher {
public:
    explicit Searcher(std::span<const glm::dvec3> points) : points_(points.begin(), points.end()) {
        std::sort(points_.begin(), points_.end(), [](const glm::dvec3& x, const glm::dvec3& y) {
            return x.x != y.x ? x.x < y.x : (x.y != y.y ? x.y < y.y : x.z < y.z);
        });
        points_.erase(std::unique(points_.begin(), points_.end()), points_.end());
    }

    // Volume of the smallest box with a face normal u; the box's axes in `axes` (columns: in-plane, in-plane, u).
    double volume(const glm::dvec3& u_in, glm::dmat3* axes = nullptr) {
        ++evaluations;
        const glm::dvec3 u = glm::normalize(u_in);
        glm::dvec3 a, b;
        basis(u, a, b);
        double lo = std::numeric_limits<double>::max(), hi = -lo;
        flat_.clear();
        for (const glm::dvec3& p : points_) {
            const double h = glm::dot(p, u);
            lo = std::min(lo, h);
            hi = std::max(hi, h);
            flat_.push_back({glm::dot(p, a), glm::dot(p, b)});
        }
        hull(flat_, hull_);
        double best_area = std::numeric_limits<double>::max();
        glm::dvec2 best_dir(1, 0);
        const std::size_t n = hull_.size();
        if (n < 3) {  // the projection is a point or a segment
            best_area = 0.0;
            if (n == 2 && glm::length(hull_[1] - hull_[0]) > 0) best_dir = glm::normalize(hull_[1] - hull_[0]);
        }
        for (std::size_t i = 0; n >= 3 && i < n; ++i) {
            const glm::dvec2 e = hull_[(i + 1) % n] - hull_[i];
            const double len = glm::length(e);
            if (!(len > 0)) continue;
            const glm::dvec2 d = e / len, perp(-d.y, d.x);
            double x0 = std::numeric_limits<double>::max(), x1 = -x0, y0 = x0, y1 = -x0;
            for (const glm::dvec2& p : hull_) {
                x0 = std::min(x0, glm::dot(p, d));
                x1 = std::max(x1, glm::dot(p, d));
                y0 = std::min(y0, glm::dot(p, perp));
                y1 = std::max(y1, glm::dot(p, perp));
            }
            const double area = (x1 - x0) * (y1 - y0);
            if (area < best_area) best_area = area, best_dir = d;
        }
        if (axes) {
            const glm::dvec3 x = a * best_dir.x + b * best_dir.y;
            *axes = glm::dmat3(x, glm::cross(u, x), u);
        }
        return (hi - lo) * best_area;
    }

    BoxFit run(const SearchOptions& o) {
        struct Candidate {
            double volume;
            glm::dvec3 u;
        };
        std::vector<Candidate> grid;
        const double golden = 3.141592653589793 * (3.0 - std::sqrt(5.0));
        for (int i = 0; i < o.grid; ++i) {
            const double z = (i + 0.5) / o.grid, r = std::sqrt(1 - z * z), phi = golden * i;
            const glm::dvec3 u(r * std::cos(phi), r * std::sin(phi), z);
            grid.push_back({volume(u), u});
        }
        std::sort(grid.begin(), grid.end(), [](const Candidate& x, const Candidate& y) { return x.volume < y.volume; });
        // Spacing of the grid: each direction covers 2 pi / grid steradians.
        const double spacing = std::sqrt(2 * 3.141592653589793 / o.grid);
        Candidate best = grid.front();
        for (int s = 0; s < std::min<int>(o.seeds, static_cast<int>(grid.size())); ++s) {
            Candidate c = grid[static_cast<std::size_t>(s)];
            for (double step = spacing; step >= o.final_step;) {
                glm::dvec3 ta, tb;
                basis(c.u, ta, tb);
                bool moved = false;
                for (int k = 0; k < 8; ++k) {
                    const double angle = k * 3.141592653589793 / 4;
                    const glm::dvec3 dir = ta * std::cos(angle) + tb * std::sin(angle);
                    const glm::dvec3 u = glm::normalize(c.u * std::cos(step) + dir * std::sin(step));
                    const double v = volume(u);
                    if (v < c.volume) {
                        c = {v, u};
                        moved = true;
                    }
                }
                if (!moved) step *= 0.5;
            }
            if (c.volume < best.volume) best = c;
        }
        BoxFit out;
        volume(best.u, &out.axes);
        // Extents on all points in the chosen frame.
        glm::dvec3 lo(std::numeric_limits<double>::max()), hi(-std::numeric_limits<double>::max());
        for (const glm::dvec3& p : points_)
            for (int k = 0; k < 3; ++k) {
                lo[k] = std::min(lo[k], glm::dot(p, out.axes[k]));
                hi[k] = std::max(hi[k], glm::dot(p, out.axes[k]));
            }
        out.half = (hi - lo) * 0.5;
        out.center = out.axes * ((hi + lo) * 0.5);
        out.volume = 8 * out.half.x * out.half.y * out.half.z;
        out.evaluations = evaluations;
        return out;
    }

    long evaluations = 0;

private:
    std::vector<glm::dvec3> points_;
    std::vector<glm::dvec2> flat_, hull_;
};

}  // namespace detail

// Smallest box found by the search (see the file comment). `points` in any frame; the box is in the same frame.
inline BoxFit min_volume_box(std::span<const glm::dvec3> points, const SearchOptions& options = {}) {
    detail::Searcher s(points);
    return s.run(options);
}

// Volume of the axis-aligned bounding box.
inline double aabb_volume(std::span<const glm::dvec3> points) {
    glm::dvec3 lo(std::numeric_limits<double>::max()), hi(-std::numeric_limits<double>::max());
    for (const glm::dvec3& p : points) lo = glm::min(lo, p), hi = glm::max(hi, p);
    const glm::dvec3 s = hi - lo;
    return s.x * s.y * s.z;
}

}  // namespace ref
