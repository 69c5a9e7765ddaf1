// Bullet's whole step on the whole-step family (ODE's: peers_ode_world.cpp): btDiscreteDynamicsWorld (btDbvtBroadphase, sequential impulse
// solver, default settings), the level as a btBvhTriangleMeshShape, each box a btBoxShape of mass 1 kg.

#include <map>
#include <memory>

#include <benchmark/benchmark.h>
#include <btBulletDynamicsCommon.h>

#include "step_inputs.hpp"

namespace {

// Bullet's default dynamics world (btDbvtBroadphase, sequential impulse solver) with gravity -9.81 m/s^2 along y.
struct BulletWorld {
    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher{&config};
    btDbvtBroadphase broadphase;
    btSequentialImpulseConstraintSolver solver;
    btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &config};
    BulletWorld() { world.setGravity(btVector3(0, -9.81f, 0)); }
};

void BM_Step_Bullet_btDiscreteDynamicsWorld(benchmark::State& state) {
    const bench::DropInput& in = bench::drop_input(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
    BulletWorld bullet;
    btDiscreteDynamicsWorld& world = bullet.world;

    std::vector<int> indices(in.level.indices.begin(), in.level.indices.end());
    std::vector<btScalar> vertices;
    for (const glm::vec3& v : in.level.vertices) vertices.insert(vertices.end(), {v.x, v.y, v.z});
    btTriangleIndexVertexArray mesh(static_cast<int>(in.level.triangle_count()), indices.data(), 3 * sizeof(int),
                                    static_cast<int>(in.level.vertices.size()), vertices.data(), 3 * sizeof(btScalar));
    btBvhTriangleMeshShape level_shape(&mesh, true);
    btRigidBody level_body(0.0f, nullptr, &level_shape);
    world.addRigidBody(&level_body);

    std::vector<std::unique_ptr<btBoxShape>> shapes;
    std::vector<std::unique_ptr<btDefaultMotionState>> motions;
    std::vector<std::unique_ptr<btRigidBody>> bodies;
    for (const tumble::BodyDef& d : in.boxes) {
        shapes.push_back(std::make_unique<btBoxShape>(btVector3(d.half_extents.x, d.half_extents.y, d.half_extents.z)));
        btVector3 inertia;
        shapes.back()->calculateLocalInertia(1.0f, inertia);
        const btTransform start(btQuaternion(d.orientation.x, d.orientation.y, d.orientation.z, d.orientation.w),
                                btVector3(d.position.x, d.position.y, d.position.z));
        motions.push_back(std::make_unique<btDefaultMotionState>(start));
        bodies.push_back(std::make_unique<btRigidBody>(1.0f, motions.back().get(), shapes.back().get(), inertia));
        world.addRigidBody(bodies.back().get());
    }
    for (int s = 0; s < bench::kWarmupSteps; ++s) world.stepSimulation(1.0f / 60.0f, 0);
    for (auto _ : state) world.stepSimulation(1.0f / 60.0f, 0);
    int lost = 0;
    for (const auto& b : bodies) lost += b->getCenterOfMassPosition().y() < in.lowest;
    state.counters["lost"] = lost;
    state.counters["boxes"] = static_cast<double>(bodies.size());
    state.SetLabel(in.level_name);
    for (auto& b : bodies) world.removeRigidBody(b.get());
    world.removeRigidBody(&level_body);
}
BENCHMARK(BM_Step_Bullet_btDiscreteDynamicsWorld)->Args({1000, 0})->Args({10000, 0})->Args({100000, 0})->Args({10000, 1})
    ->Iterations(bench::kMeasuredSteps)->Unit(benchmark::kMillisecond);

// Bullet on BM_Pyramid_Tumble's pyramid: the same boxes (btBoxShape, 1 kg), the ground a static btBoxShape,
// default settings but deactivation off (Tumble's run has sleeping off). Counter as Tumble's.
void BM_Pyramid_Bullet_btDiscreteDynamicsWorld(benchmark::State& state) {
    const int base = static_cast<int>(state.range(0));
    BulletWorld bullet;
    btDiscreteDynamicsWorld& world = bullet.world;
    const tumble::BodyDef g = bench::pyramid_ground(base);
    btBoxShape ground_shape(btVector3(g.half_extents.x, g.half_extents.y, g.half_extents.z));
    btDefaultMotionState ground_motion(
        btTransform(btQuaternion::getIdentity(), btVector3(g.position.x, g.position.y, g.position.z)));
    btRigidBody ground(0.0f, &ground_motion, &ground_shape);
    world.addRigidBody(&ground);
    const std::vector<tumble::BodyDef> defs = bench::pyramid_boxes(base);
    btBoxShape shape(btVector3(defs[0].half_extents.x, defs[0].half_extents.y, defs[0].half_extents.z));
    btVector3 inertia;
    shape.calculateLocalInertia(1.0f, inertia);
    std::vector<std::unique_ptr<btDefaultMotionState>> motions;
    std::vector<std::unique_ptr<btRigidBody>> bodies;
    for (const tumble::BodyDef& d : defs) {
        motions.push_back(std::make_unique<btDefaultMotionState>(
            btTransform(btQuaternion::getIdentity(), btVector3(d.position.x, d.position.y, d.position.z))));
        bodies.push_back(std::make_unique<btRigidBody>(1.0f, motions.back().get(), &shape, inertia));
        bodies.back()->setActivationState(DISABLE_DEACTIVATION);
        world.addRigidBody(bodies.back().get());
    }
    for (auto _ : state) world.stepSimulation(1.0f / 60.0f, 0);
    float moved = 0.0f;
    for (std::size_t i = 0; i < bodies.size(); ++i) {
        const btVector3 p = bodies[i]->getCenterOfMassPosition();
        moved = std::max(moved, glm::length(glm::vec3(p.x(), p.y(), p.z()) - defs[i].position));
    }
    state.counters["boxes"] = static_cast<double>(bodies.size());
    state.counters["max_moved_m"] = moved;
    for (auto& b : bodies) world.removeRigidBody(b.get());
    world.removeRigidBody(&ground);
}
BENCHMARK(BM_Pyramid_Bullet_btDiscreteDynamicsWorld)
    ->Args({20})
    ->Args({100})
    ->Iterations(bench::kPyramidSteps)
    ->Unit(benchmark::kMillisecond);

}  // namespace
