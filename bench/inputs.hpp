#pragma once
// Pre-generated inputs shared by every contender of a benchmark family (fixed seeds, generated before timing).

#include <cstdint>
#include <vector>

#include <tumble/narrowphase/shapes.hpp>

namespace bench {

struct BoxPair {
    tumble::Obb a, b;
};
struct BoxTriangle {
    tumble::Obb box;
    tumble::Triangle tri;
};

/// Random OBB pairs (random orientation, half extents 0.2-1 m), about half of them overlapping.
const std::vector<BoxPair>& box_pairs();
/// Random box-triangle pairs (triangles of 0.5-2 m near the box), about half of them overlapping.
const std::vector<BoxTriangle>& box_triangles();
/// Number of inputs in each list (a power of two, so `k & (count - 1)` cycles through them).
inline constexpr std::size_t kInputCount = 4096;

/// Splitmix64-based uniform numbers, the same on every platform.
class Rng {
public:
    explicit Rng(std::uint64_t seed) : s_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    float uniform(float lo, float hi) { return lo + (hi - lo) * static_cast<float>(uniform()); }
    glm::vec3 vec(float lo, float hi) { return {uniform(lo, hi), uniform(lo, hi), uniform(lo, hi)}; }
    glm::mat3 rotation();

private:
    std::uint64_t s_;
};

}  // namespace bench
