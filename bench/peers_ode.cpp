// ODE (Debian libode-dev) on the same inputs: dCollide on two box geoms (dBoxBox).

#include <memory>
#include <vector>

#include <ode/ode.h>

#include "peers.hpp"

namespace {

struct OdeBoxes {
    std::vector<dGeomID> a, b;
    OdeBoxes() {
        dInitODE2(0);
        for (const bench::BoxPair& p : bench::box_pairs()) {
            a.push_back(make(p.a));
            b.push_back(make(p.b));
        }
    }
    static dGeomID make(const tumble::Obb& o) {
        const dGeomID g = dCreateBox(nullptr, 2 * o.half_extents.x, 2 * o.half_extents.y, 2 * o.half_extents.z);
        dGeomSetPosition(g, o.center.x, o.center.y, o.center.z);
        dMatrix3 r;  // row-major 3x4: r[4*row + col]
        for (int row = 0; row < 3; ++row) {
            for (int col = 0; col < 3; ++col) r[4 * row + col] = o.axes[col][row];
            r[4 * row + 3] = 0;
        }
        dGeomSetRotation(g, r);
        return g;
    }
    bool collide(std::size_t k) const {
        dContactGeom contacts[4];
        return dCollide(a[k], b[k], 4, contacts, sizeof(dContactGeom)) > 0;
    }
};

void BM_BoxBox_ODE_dCollide(benchmark::State& state) {
    static const OdeBoxes boxes;
    bench::count_wrong(state, bench::box_pairs(), [&](std::size_t k) { return boxes.collide(k); });
    bench::per_pair(state, [&](std::size_t k) { return boxes.collide(k); });
}
BENCHMARK(BM_BoxBox_ODE_dCollide);

}  // namespace
