// ODE (Debian libode-dev) on the same inputs: dCollide on two box geoms (dBoxBox), and on a box geom and a
// one-triangle dGeomTriMesh (ODE's box-trimesh collider, up to 4 contacts: its counterpart of collide_manifold).

#include <array>
#include <memory>
#include <vector>

#include <ode/ode.h>

#include "peers.hpp"

namespace {

// dCollide with room for 4 contacts (what both families ask of ODE): true when it found any.
bool touches(dGeomID a, dGeomID b) {
    dContactGeom contacts[4];
    return dCollide(a, b, 4, contacts, sizeof(dContactGeom)) > 0;
}

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
    bool collide(std::size_t k) const { return touches(a[k], b[k]); }
};

void BM_BoxBox_ODE_dCollide(benchmark::State& state) {
    static const OdeBoxes boxes;
    bench::count_wrong(state, bench::box_pairs(), [&](std::size_t k) { return boxes.collide(k); });
    bench::per_pair(state, [&](std::size_t k) { return boxes.collide(k); });
}
BENCHMARK(BM_BoxBox_ODE_dCollide);

// One trimesh geom of one triangle per pair (ODE collides a box with a mesh through the mesh's triangles; a mesh
// of one triangle leaves only the box-triangle work).
struct OdeBoxTriangles {
    std::vector<dGeomID> box, mesh;
    std::vector<dTriMeshDataID> data;
    std::vector<std::array<float, 9>> vertices;
    std::vector<std::array<dTriIndex, 3>> indices;
    OdeBoxTriangles() {
        dInitODE2(0);
        const auto& in = bench::box_triangles();
        vertices.resize(in.size());
        indices.assign(in.size(), {0, 1, 2});
        for (std::size_t k = 0; k < in.size(); ++k) {
            box.push_back(OdeBoxes::make(in[k].box));
            const glm::vec3 corners[3] = {in[k].tri.a, in[k].tri.b, in[k].tri.c};
            for (std::size_t v = 0; v < 3; ++v)
                for (std::size_t c = 0; c < 3; ++c) vertices[k][3 * v + c] = corners[v][static_cast<int>(c)];
            data.push_back(dGeomTriMeshDataCreate());
            dGeomTriMeshDataBuildSingle(data.back(), vertices[k].data(), 3 * sizeof(float), 3, indices[k].data(), 3,
                                        3 * sizeof(dTriIndex));
            mesh.push_back(dCreateTriMesh(nullptr, data.back(), nullptr, nullptr, nullptr));
        }
    }
    bool collide(std::size_t k) const { return touches(box[k], mesh[k]); }
};

void BM_BoxTri_ODE_dCollideBoxTrimesh(benchmark::State& state) {
    static const OdeBoxTriangles pairs;
    bench::count_wrong(state, bench::box_triangles(), [&](std::size_t k) { return pairs.collide(k); });
    bench::per_pair(state, [&](std::size_t k) { return pairs.collide(k); });
}
BENCHMARK(BM_BoxTri_ODE_dCollideBoxTrimesh);

}  // namespace
