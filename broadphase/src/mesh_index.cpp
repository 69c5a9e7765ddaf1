#include <tumble/broadphase/mesh_index.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace tumble {
namespace {

constexpr std::uint32_t kLeafSize = 4;      // triangles per leaf at most, unless they cannot be split
constexpr int kBins = 16;                   // SAH bins per split
constexpr int kMaxSahDepth = 48;            // below this depth splits are by median, bounding the tree height
constexpr std::size_t kStackSize = 128;     // > kMaxSahDepth + log2(2^32)

float half_area(const Aabb& b) {
    const glm::vec3 d = glm::max(b.max - b.min, glm::vec3(0.0f));
    return d.x * d.y + d.y * d.z + d.z * d.x;
}

// Slab test: entry distance of the ray into the box, or +inf when it misses within [0, t_max].
float ray_box(const Aabb& b, const glm::vec3& o, const glm::vec3& inv, float t_max) {
    float t0 = 0.0f, t1 = t_max;
    for (int k = 0; k < 3; ++k) {
        float a = (b.min[k] - o[k]) * inv[k];
        float c = (b.max[k] - o[k]) * inv[k];
        if (std::isnan(a) || std::isnan(c)) {  // zero direction component and origin on the slab plane
            if (o[k] < b.min[k] || o[k] > b.max[k]) return std::numeric_limits<float>::infinity();
            continue;
        }
        if (a > c) std::swap(a, c);
        t0 = std::max(t0, a);
        t1 = std::min(t1, c);
        if (t0 > t1) return std::numeric_limits<float>::infinity();
    }
    return t0;
}

}  // namespace

MeshIndex::MeshIndex(std::vector<Triangle> triangles) : triangles_(std::move(triangles)) {
    const auto n = static_cast<std::uint32_t>(triangles_.size());
    if (n == 0) return;
    std::vector<Aabb> boxes(n);
    std::vector<glm::vec3> centroids(n);
    order_.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        boxes[i] = triangles_[i].aabb();
        centroids[i] = boxes[i].center();
        order_[i] = i;
    }
    nodes_.reserve(2 * static_cast<std::size_t>(n) / kLeafSize + 1);
    nodes_.emplace_back();
    build(0, 0, n, 0, boxes, centroids);
    // The leaves' triangle boxes in leaf order: a query reads a leaf's boxes from one run of memory instead of
    // finding each triangle through order_ and taking the min and max of its corners again.
    leaf_boxes_.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) leaf_boxes_[i] = boxes[order_[i]];
}

void MeshIndex::build(std::uint32_t node, std::uint32_t begin, std::uint32_t end, int depth, std::vector<Aabb>& boxes,
                      std::vector<glm::vec3>& centroids) {
    // Iterative over the right spine, recursive over the left: keeps the C++ stack shallow.
    for (;;) {
        Aabb box = Aabb::empty();
        Aabb cbox = Aabb::empty();
        for (std::uint32_t i = begin; i < end; ++i) {
            box = box.merged(boxes[order_[i]]);
            cbox = cbox.merged(centroids[order_[i]]);
        }
        nodes_[node].box = box;
        const std::uint32_t n = end - begin;
        if (n <= kLeafSize) {
            nodes_[node].first = begin;
            nodes_[node].count = n;
            return;
        }
        const glm::vec3 extent = cbox.max - cbox.min;
        const int axis = extent.x >= extent.y && extent.x >= extent.z ? 0 : (extent.y >= extent.z ? 1 : 2);
        std::uint32_t mid = begin;
        if (extent[axis] > 0.0f && depth < kMaxSahDepth) {
            // Binned SAH along the longest centroid axis.
            std::array<Aabb, kBins> bin_box;
            std::array<std::uint32_t, kBins> bin_count{};
            bin_box.fill(Aabb::empty());
            const float scale = static_cast<float>(kBins) / extent[axis];
            auto bin_of = [&](std::uint32_t tri) {
                const int b = static_cast<int>((centroids[tri][axis] - cbox.min[axis]) * scale);
                return std::clamp(b, 0, kBins - 1);
            };
            for (std::uint32_t i = begin; i < end; ++i) {
                const int b = bin_of(order_[i]);
                bin_box[b] = bin_box[b].merged(boxes[order_[i]]);
                ++bin_count[b];
            }
            std::array<float, kBins> right_cost{};
            Aabb acc = Aabb::empty();
            std::uint32_t count = 0;
            for (int b = kBins - 1; b > 0; --b) {
                acc = acc.merged(bin_box[b]);
                count += bin_count[b];
                right_cost[b] = count == 0 ? 0.0f : half_area(acc) * static_cast<float>(count);
            }
            float best = std::numeric_limits<float>::infinity();
            int best_split = -1;
            acc = Aabb::empty();
            count = 0;
            for (int b = 0; b < kBins - 1; ++b) {
                acc = acc.merged(bin_box[b]);
                count += bin_count[b];
                if (count == 0 || count == n) continue;
                const float cost = half_area(acc) * static_cast<float>(count) + right_cost[b + 1];
                if (cost < best) {
                    best = cost;
                    best_split = b;
                }
            }
            if (best_split >= 0) {
                auto it = std::partition(order_.begin() + begin, order_.begin() + end,
                                         [&](std::uint32_t tri) { return bin_of(tri) <= best_split; });
                mid = static_cast<std::uint32_t>(it - order_.begin());
            }
        }
        if (mid == begin || mid == end) {
            // Median split: identical centroids, or too deep for SAH.
            mid = begin + n / 2;
            std::nth_element(order_.begin() + begin, order_.begin() + mid, order_.begin() + end,
                             [&](std::uint32_t p, std::uint32_t q) { return centroids[p][axis] < centroids[q][axis]; });
        }
        const auto left = static_cast<std::uint32_t>(nodes_.size());
        nodes_.emplace_back();
        nodes_.emplace_back();
        nodes_[node].first = left;
        nodes_[node].count = 0;
        build(left, begin, mid, depth + 1, boxes, centroids);
        node = left + 1;
        begin = mid;
        ++depth;
    }
}

void MeshIndex::query(const Aabb& box, std::vector<std::uint32_t>& out) const {
    if (nodes_.empty()) return;
    // Aabb::overlaps without its early outs: the six comparisons at once, one branch instead of up to six that a
    // walk through the tree mispredicts often. The same answer (comparisons of floats have no side effects).
    auto overlaps = [&box](const Aabb& b) {
        return static_cast<bool>((b.min.x <= box.max.x) & (box.min.x <= b.max.x) & (b.min.y <= box.max.y) &
                                 (box.min.y <= b.max.y) & (b.min.z <= box.max.z) & (box.min.z <= b.max.z));
    };
    std::array<std::uint32_t, kStackSize> stack;
    std::size_t top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const Node& node = nodes_[stack[--top]];
        if (!overlaps(node.box)) continue;
        if (node.count > 0) {
            for (std::uint32_t i = node.first; i < node.first + node.count; ++i)
                if (overlaps(leaf_boxes_[i])) out.push_back(order_[i]);
        } else {
            stack[top++] = node.first + 1;  // right below left: left is visited first
            stack[top++] = node.first;
        }
    }
}

std::optional<RayHit> MeshIndex::raycast(const glm::vec3& origin, const glm::vec3& direction,
                                         float max_distance) const {
    std::optional<RayHit> best;
    raycast(origin, direction, max_distance, [&](const RayHit& hit) {
        best = hit;  // the walk only reports hits no farther than the best so far
        return hit.distance;
    });
    return best;
}

void MeshIndex::walk_ray(const glm::vec3& origin, const glm::vec3& direction, float max_distance, void* context,
                         float (*visit)(void*, const RayHit&)) const {
    if (nodes_.empty()) return;
    for (int k = 0; k < 3; ++k)
        if (!std::isfinite(origin[k]) || !std::isfinite(direction[k])) return;
    if (!(max_distance >= 0.0f) || glm::dot(direction, direction) == 0.0f) return;
    const glm::vec3 inv = 1.0f / direction;
    float best_t = max_distance;

    std::array<std::uint32_t, kStackSize> stack;
    std::size_t top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const Node& node = nodes_[stack[--top]];
        if (ray_box(node.box, origin, inv, best_t) == std::numeric_limits<float>::infinity()) continue;
        if (node.count > 0) {
            for (std::uint32_t i = node.first; i < node.first + node.count; ++i) {
                // Moller-Trumbore, both sides, in double so that grazing hits are decided consistently.
                const Triangle& tri = triangles_[order_[i]];
                const glm::dvec3 o(origin), d(direction), a(tri.a);
                const glm::dvec3 e1 = glm::dvec3(tri.b) - a, e2 = glm::dvec3(tri.c) - a;
                const glm::dvec3 pv = glm::cross(d, e2);
                const double det = glm::dot(e1, pv);
                if (det == 0.0) continue;
                const double inv_det = 1.0 / det;
                const glm::dvec3 tv = o - a;
                const double u = glm::dot(tv, pv) * inv_det;
                if (u < 0.0 || u > 1.0) continue;
                const glm::dvec3 qv = glm::cross(tv, e1);
                const double v = glm::dot(d, qv) * inv_det;
                if (v < 0.0 || u + v > 1.0) continue;
                const double t = glm::dot(e2, qv) * inv_det;
                if (t < 0.0 || t > static_cast<double>(best_t)) continue;
                RayHit hit;
                hit.triangle = order_[i];
                hit.distance = static_cast<float>(t);
                hit.point = origin + direction * hit.distance;
                hit.normal = glm::normalize(glm::vec3(glm::normalize(glm::dvec3(tri.scaled_normal()))));
                hit.front_face = glm::dot(direction, hit.normal) < 0.0f;
                best_t = std::min(best_t, visit(context, hit));
            }
        } else {
            const Node& l = nodes_[node.first];
            const Node& r = nodes_[node.first + 1];
            const float tl = ray_box(l.box, origin, inv, best_t);
            const float tr = ray_box(r.box, origin, inv, best_t);
            // Push the farther child first so the nearer one is popped first.
            if (tl <= tr) {
                if (tr != std::numeric_limits<float>::infinity()) stack[top++] = node.first + 1;
                if (tl != std::numeric_limits<float>::infinity()) stack[top++] = node.first;
            } else {
                if (tl != std::numeric_limits<float>::infinity()) stack[top++] = node.first;
                if (tr != std::numeric_limits<float>::infinity()) stack[top++] = node.first + 1;
            }
        }
    }
}

std::string MeshIndex::validate() const {
    if (triangles_.empty()) return nodes_.empty() ? std::string() : "an empty mesh has nodes";
    std::vector<int> seen(triangles_.size(), 0);
    std::vector<std::uint32_t> stack{0};
    while (!stack.empty()) {
        const std::uint32_t index = stack.back();
        stack.pop_back();
        const Node& node = nodes_[index];
        if (node.count > 0) {
            for (std::uint32_t i = node.first; i < node.first + node.count; ++i) {
                const Aabb tri = triangles_[order_[i]].aabb();
                if (!node.box.contains(tri))
                    return "leaf " + std::to_string(index) + " does not bound triangle " + std::to_string(order_[i]);
                if (i >= leaf_boxes_.size() || leaf_boxes_[i].min != tri.min || leaf_boxes_[i].max != tri.max)
                    return "the leaf box of triangle " + std::to_string(order_[i]) + " is not its AABB";
                ++seen[order_[i]];
            }
        } else {
            for (std::uint32_t c : {node.first, node.first + 1}) {
                if (c >= nodes_.size()) return "node " + std::to_string(index) + " has a child out of range";
                if (!node.box.contains(nodes_[c].box))
                    return "node " + std::to_string(index) + " does not bound child " + std::to_string(c);
                stack.push_back(c);
            }
        }
    }
    for (std::size_t i = 0; i < seen.size(); ++i)
        if (seen[i] != 1) return "triangle " + std::to_string(i) + " is referenced " + std::to_string(seen[i]) + " times";
    return {};
}

}  // namespace tumble
