// The contact manifold of the narrowphase benchmark's pairs (bench/inputs.hpp: the 4,096 box-box or box-triangle
// pairs of BM_BoxBox_* and BM_BoxTri_*), by the kind of pair, for instruction counts that do not depend on how many
// calls a benchmark makes: the pairs of one kind, each once per pass, for a whole number of passes.
//
// Usage: tumble_pair_probe FAMILY KIND PASSES
//   FAMILY: box-box or box-triangle;
//   KIND:   all, or what collide_manifold makes of the pair: separated, face (a face axis: box-box with four points),
//           face-few (box-box, a face axis with fewer points), triangle-face (box-triangle, the triangle's normal),
//           edge (an edge axis);
//   PASSES: passes over the pairs of that kind (>= 1).
// Prints the number of pairs of the kind and the sum of the manifolds' point counts (so that the calls are not
// optimised away). The kinds are found before the passes with collide_manifold(a, b, 0), which is documented to give
// exactly collide_manifold(a, b) and is another function, so callgrind can count the passes' calls alone:
//   valgrind --tool=callgrind --toggle-collect='*collide_manifold<float>(*TriangleT<float> const&)' PROBE ARGS
// for `tumble_pair_probe box-triangle edge 4`
// (box-box: '*collide_manifold<float>(*ObbT<float> const&, *ObbT<float> const&)'), and the total divided by pairs x
// passes is the benchmark's count a call for those pairs (docs/benchmarks.md, "Narrowphase: the manifold built in
// place").

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include <tumble/narrowphase/manifold.hpp>

#include "inputs.hpp"

namespace {

// The kind of a pair by its manifold; `box_box` tells a box-box face axis (0-5) from a box-triangle one (0-2, the
// box's faces; 3, the triangle's).
std::string kind_of(const std::optional<tumble::Manifold>& m, bool box_box) {
    if (!m) return "separated";
    if (box_box) return m->axis >= 6 ? "edge" : m->count == 4 ? "face" : "face-few";
    return m->axis >= 4 ? "edge" : m->axis == 3 ? "triangle-face" : "face";
}

template <class Pairs, class Collide>
[[gnu::noinline]] unsigned tumble_pair_probe_passes(const Pairs& pairs, const std::vector<std::size_t>& chosen,
                                                    int passes, const Collide& collide) {
    unsigned points = 0;
    for (int pass = 0; pass < passes; ++pass)
        for (std::size_t k : chosen) {
            const std::optional<tumble::Manifold> m = collide(pairs[k]);
            points += m ? static_cast<unsigned>(m->count) : 0u;
        }
    return points;
}

template <class Pairs, class Classify, class Collide>
int run(const Pairs& pairs, bool box_box, const std::string& kind, int passes, const Classify& classify,
        const Collide& collide) {
    std::vector<std::size_t> chosen;
    for (std::size_t k = 0; k < pairs.size(); ++k)
        if (kind == "all" || kind_of(classify(pairs[k]), box_box) == kind) chosen.push_back(k);
    const unsigned points = tumble_pair_probe_passes(pairs, chosen, passes, collide);
    std::printf("{\"pairs\":%zu,\"passes\":%d,\"points\":%u}\n", chosen.size(), passes, points);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string family = argc == 4 ? argv[1] : "", kind = argc == 4 ? argv[2] : "";
    const int passes = argc == 4 ? std::atoi(argv[3]) : 0;
    const bool known_kind = kind == "all" || kind == "separated" || kind == "face" || kind == "edge" ||
                            (family == "box-box" && kind == "face-few") ||
                            (family == "box-triangle" && kind == "triangle-face");
    if ((family != "box-box" && family != "box-triangle") || !known_kind || passes < 1) {
        std::fprintf(stderr,
                     "usage: %s box-box|box-triangle all|separated|face|face-few|triangle-face|edge PASSES (>= 1)\n",
                     argv[0]);
        return 2;
    }
    if (family == "box-box")
        return run(
            bench::box_pairs(), true, kind, passes,
            [](const bench::BoxPair& p) { return tumble::collide_manifold(p.a, p.b, 0.0f); },
            [](const bench::BoxPair& p) { return tumble::collide_manifold(p.a, p.b); });
    return run(
        bench::box_triangles(), false, kind, passes,
        [](const bench::BoxTriangle& p) { return tumble::collide_manifold(p.box, p.tri, 0.0f); },
        [](const bench::BoxTriangle& p) { return tumble::collide_manifold(p.box, p.tri); });
}
