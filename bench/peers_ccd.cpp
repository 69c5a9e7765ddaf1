// libccd (Debian libccd-dev) on the same inputs: GJK and MPR intersection tests with OBB and triangle support
// functions.

#include <vector>

#include <ccd/ccd.h>

#include "peers.hpp"

namespace {

struct CcdBox {
    double c[3];
    double axis[3][3];
    double h[3];
    explicit CcdBox(const tumble::Obb& o) {
        for (int k = 0; k < 3; ++k) {
            c[k] = o.center[k];
            h[k] = o.half_extents[k];
            for (int i = 0; i < 3; ++i) axis[i][k] = o.axes[i][k];
        }
    }
};
struct CcdTriangle {
    double v[3][3];
    explicit CcdTriangle(const tumble::Triangle& t) {
        for (int k = 0; k < 3; ++k) {
            v[0][k] = t.a[k];
            v[1][k] = t.b[k];
            v[2][k] = t.c[k];
        }
    }
};

void box_support(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out) {
    const CcdBox& b = *static_cast<const CcdBox*>(obj);
    double p[3] = {b.c[0], b.c[1], b.c[2]};
    for (int i = 0; i < 3; ++i) {
        const double d = b.axis[i][0] * dir->v[0] + b.axis[i][1] * dir->v[1] + b.axis[i][2] * dir->v[2];
        const double s = d >= 0 ? b.h[i] : -b.h[i];
        for (int k = 0; k < 3; ++k) p[k] += s * b.axis[i][k];
    }
    ccdVec3Set(out, p[0], p[1], p[2]);
}
void box_center(const void* obj, ccd_vec3_t* out) {
    const CcdBox& b = *static_cast<const CcdBox*>(obj);
    ccdVec3Set(out, b.c[0], b.c[1], b.c[2]);
}
void triangle_support(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out) {
    const CcdTriangle& t = *static_cast<const CcdTriangle*>(obj);
    int best = 0;
    double best_d = -1e300;
    for (int i = 0; i < 3; ++i) {
        const double d = t.v[i][0] * dir->v[0] + t.v[i][1] * dir->v[1] + t.v[i][2] * dir->v[2];
        if (d > best_d) best_d = d, best = i;
    }
    ccdVec3Set(out, t.v[best][0], t.v[best][1], t.v[best][2]);
}
void triangle_center(const void* obj, ccd_vec3_t* out) {
    const CcdTriangle& t = *static_cast<const CcdTriangle*>(obj);
    ccdVec3Set(out, (t.v[0][0] + t.v[1][0] + t.v[2][0]) / 3, (t.v[0][1] + t.v[1][1] + t.v[2][1]) / 3,
               (t.v[0][2] + t.v[1][2] + t.v[2][2]) / 3);
}

ccd_t settings(bool triangle) {
    ccd_t ccd;
    CCD_INIT(&ccd);
    ccd.support1 = box_support;
    ccd.center1 = box_center;
    ccd.support2 = triangle ? triangle_support : box_support;
    ccd.center2 = triangle ? triangle_center : box_center;
    ccd.max_iterations = 100;
    return ccd;
}

struct Boxes {
    std::vector<CcdBox> a, b;
    Boxes() {
        for (const bench::BoxPair& p : bench::box_pairs()) {
            a.emplace_back(p.a);
            b.emplace_back(p.b);
        }
    }
};
const Boxes& boxes() {
    static const Boxes b;
    return b;
}

void BM_BoxBox_libccd_GJK(benchmark::State& state) {
    const Boxes& in = boxes();
    const ccd_t ccd = settings(false);
    auto test = [&](std::size_t k) { return ccdGJKIntersect(&in.a[k], &in.b[k], &ccd) != 0; };
    bench::count_wrong(state, bench::box_pairs(), test);
    bench::per_pair(state, test);
}
BENCHMARK(BM_BoxBox_libccd_GJK);

void BM_BoxBox_libccd_MPR(benchmark::State& state) {
    const Boxes& in = boxes();
    const ccd_t ccd = settings(false);
    auto test = [&](std::size_t k) { return ccdMPRIntersect(&in.a[k], &in.b[k], &ccd) != 0; };
    bench::count_wrong(state, bench::box_pairs(), test);
    bench::per_pair(state, test);
}
BENCHMARK(BM_BoxBox_libccd_MPR);

void BM_BoxTri_libccd_MPR(benchmark::State& state) {
    static const std::vector<std::pair<CcdBox, CcdTriangle>> in = [] {
        std::vector<std::pair<CcdBox, CcdTriangle>> out;
        for (const bench::BoxTriangle& p : bench::box_triangles()) out.emplace_back(CcdBox(p.box), CcdTriangle(p.tri));
        return out;
    }();
    const ccd_t ccd = settings(true);
    auto test = [&](std::size_t k) { return ccdMPRIntersect(&in[k].first, &in[k].second, &ccd) != 0; };
    bench::count_wrong(state, bench::box_triangles(), test);
    bench::per_pair(state, test);
}
BENCHMARK(BM_BoxTri_libccd_MPR);

}  // namespace
