// ODE's whole step on the whole-step family (Debian libode-dev, double precision): a dHashSpace, the level as a
// dGeomTriMesh, each box a dBox of mass 1 kg; dSpaceCollide + dCollide with up to 4 contacts per pair into a contact
// joint group, dWorldQuickStep (ODE's iterative solver, 20 iterations) at 1/60 s. Contact parameters as in ODE's
// own demos: Coulomb friction mu = 0.6 (the pairs' friction in Tumble's drop scene), soft ERP 0.2 and CFM 1e-5.

#include <memory>
#include <vector>

#include <benchmark/benchmark.h>
#include <ode/ode.h>

#include "step_inputs.hpp"

namespace {

struct OdeStep {
    dWorldID world;
    dJointGroupID contacts;
    static void near(void* data, dGeomID a, dGeomID b) {
        OdeStep& self = *static_cast<OdeStep*>(data);
        const dBodyID ba = dGeomGetBody(a), bb = dGeomGetBody(b);
        if (!ba && !bb) return;
        dContact c[4];
        const int n = dCollide(a, b, 4, &c[0].geom, sizeof(dContact));
        for (int i = 0; i < n; ++i) {
            c[i].surface.mode = dContactSoftERP | dContactSoftCFM | dContactApprox1;
            c[i].surface.mu = 0.6;
            c[i].surface.soft_erp = 0.2;
            c[i].surface.soft_cfm = 1e-5;
            const dJointID j = dJointCreateContact(self.world, self.contacts, &c[i]);
            dJointAttach(j, ba, bb);
        }
    }
};

void BM_Step_ODE_dWorldQuickStep(benchmark::State& state) {
    const bench::DropInput& in = bench::drop_input(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    dInitODE2(0);
    OdeStep ode;
    ode.world = dWorldCreate();
    dWorldSetGravity(ode.world, 0, -9.81, 0);
    dWorldSetQuickStepNumIterations(ode.world, 20);
    ode.contacts = dJointGroupCreate(0);
    const dSpaceID space = dHashSpaceCreate(nullptr);

    std::vector<dReal> vertices;
    for (const glm::vec3& v : in.level.vertices) vertices.insert(vertices.end(), {v.x, v.y, v.z});
    std::vector<dTriIndex> indices(in.level.indices.begin(), in.level.indices.end());
    const dTriMeshDataID data = dGeomTriMeshDataCreate();
    dGeomTriMeshDataBuildDouble(data, vertices.data(), 3 * sizeof(dReal), static_cast<int>(in.level.vertices.size()),
                                indices.data(), static_cast<int>(indices.size()), 3 * sizeof(dTriIndex));
    dCreateTriMesh(space, data, nullptr, nullptr, nullptr);

    std::vector<dBodyID> bodies;
    for (const tumble::BodyDef& d : in.boxes) {
        const dBodyID b = dBodyCreate(ode.world);
        dMass m;
        dMassSetBoxTotal(&m, 1.0, 2 * d.half_extents.x, 2 * d.half_extents.y, 2 * d.half_extents.z);
        dBodySetMass(b, &m);
        dBodySetPosition(b, d.position.x, d.position.y, d.position.z);
        const dQuaternion q = {d.orientation.w, d.orientation.x, d.orientation.y, d.orientation.z};
        dBodySetQuaternion(b, q);
        const dGeomID g = dCreateBox(space, 2 * d.half_extents.x, 2 * d.half_extents.y, 2 * d.half_extents.z);
        dGeomSetBody(g, b);
        bodies.push_back(b);
    }
    auto step = [&] {
        dSpaceCollide(space, &ode, &OdeStep::near);
        dWorldQuickStep(ode.world, 1.0 / 60.0);
        dJointGroupEmpty(ode.contacts);
    };
    for (int s = 0; s < bench::kWarmupSteps; ++s) step();
    for (auto _ : state) step();
    int lost = 0;
    for (dBodyID b : bodies) lost += dBodyGetPosition(b)[1] < in.lowest;
    state.counters["lost"] = lost;
    state.counters["boxes"] = static_cast<double>(bodies.size());
    state.SetLabel(in.level_name);
    dSpaceDestroy(space);
    dGeomTriMeshDataDestroy(data);
    dJointGroupDestroy(ode.contacts);
    dWorldDestroy(ode.world);
}
BENCHMARK(BM_Step_ODE_dWorldQuickStep)->Args({1000, 0})->Args({10000, 0})->Args({10000, 1})
    ->Iterations(bench::kMeasuredSteps)->Unit(benchmark::kMillisecond);

}  // namespace
