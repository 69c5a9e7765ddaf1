#pragma once
// Broadphase family inputs: N axis-aligned boxes (edges 0.8-1.2 m) at random in a cube sized so that each overlaps
// about 3.5 others, and the same small random moves (at most 5 cm per axis per step) for every contender.

#include <vector>

#include <benchmark/benchmark.h>

#include <tumble/narrowphase/shapes.hpp>

#include "inputs.hpp"

namespace bench {

struct MovingBoxes {
    std::vector<tumble::Aabb> boxes;  // positions at the start
    float side = 0;                   // the cube [0, side]^3 the boxes stay in
    // Moves box i at step s: deterministic, cheap, the same for every contender.
    glm::vec3 move(std::size_t i, std::size_t step) const {
        Rng r(i * 0x9e3779b97f4a7c15ull + step);
        return r.vec(-0.05f, 0.05f);
    }
    // Applies the moves of one step, reflecting at the cube's walls.
    void advance(std::vector<tumble::Aabb>& now, std::size_t step) const {
        for (std::size_t i = 0; i < now.size(); ++i) {
            glm::vec3 d = move(i, step);
            for (int k = 0; k < 3; ++k)
                if (now[i].min[k] + d[k] < 0.0f || now[i].max[k] + d[k] > side) d[k] = -d[k];
            now[i].min += d;
            now[i].max += d;
        }
    }
};

inline MovingBoxes make_moving_boxes(std::size_t n) {
    MovingBoxes m;
    const double density = 3.5 / 8.0;  // expected neighbours = 8 a^3 density for boxes of edge a = 1
    m.side = static_cast<float>(std::cbrt(static_cast<double>(n) / density));
    Rng rng(n);
    m.boxes.resize(n);
    for (tumble::Aabb& b : m.boxes) {
        const glm::vec3 h = rng.vec(0.4f, 0.6f);
        const glm::vec3 c = glm::vec3(rng.uniform(0.7f, m.side - 0.7f), rng.uniform(0.7f, m.side - 0.7f),
                                      rng.uniform(0.7f, m.side - 0.7f));
        b = {c - h, c + h};
    }
    return m;
}

/// Box counts and a fixed number of steps for each, the same for every contender, so that all of them end in the
/// same state and their pair counts can be compared.
inline constexpr std::pair<int, int> kBroadphaseSizes[] = {{1000, 400}, {10000, 60}, {100000, 12}, {1000000, 3}};

/// Registers `fn` once per size in kBroadphaseSizes (up to `max_boxes`), with that size's step count; `extra`
/// is appended to the arguments.
template <class F>
int register_broadphase(const char* name, F fn, int max_boxes = 1000000, std::vector<long> extra = {}) {
    for (const auto& [boxes, steps] : kBroadphaseSizes) {
        if (boxes > max_boxes) continue;
        std::vector<long> args{boxes};
        args.insert(args.end(), extra.begin(), extra.end());
        benchmark::RegisterBenchmark(name, fn)->Args(args)->Iterations(steps)->Unit(benchmark::kMillisecond);
    }
    return 0;
}

inline std::size_t exact_pairs_brute_force(const std::vector<tumble::Aabb>& boxes) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < boxes.size(); ++i)
        for (std::size_t j = i + 1; j < boxes.size(); ++j) n += boxes[i].overlaps(boxes[j]);
    return n;
}

}  // namespace bench
