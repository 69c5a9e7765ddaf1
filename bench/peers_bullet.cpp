// Bullet (Debian libbullet-dev) on the same inputs: btBoxBoxDetector for box-box (ODE's dBoxBox inside), and
// btGjkPairDetector with the EPA penetration solver for box-triangle.

#include <memory>

#include <btBulletCollisionCommon.h>
#include <BulletCollision/CollisionDispatch/btBoxBoxDetector.h>
#include <BulletCollision/CollisionShapes/btTriangleShape.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>

#include "peers.hpp"

namespace {

struct Counter : btDiscreteCollisionDetectorInterface::Result {
    int contacts = 0;
    btScalar deepest = BT_LARGE_FLOAT;  // smallest reported distance (negative: penetration)
    void setShapeIdentifiersA(int, int) override {}
    void setShapeIdentifiersB(int, int) override {}
    void addContactPoint(const btVector3&, const btVector3&, btScalar depth) override {
        ++contacts;
        deepest = std::min(deepest, depth);
    }
};

btTransform transform(const tumble::Obb& o) {
    const glm::mat3& a = o.axes;  // columns are the axes; btMatrix3x3 takes rows
    const btMatrix3x3 basis(a[0].x, a[1].x, a[2].x, a[0].y, a[1].y, a[2].y, a[0].z, a[1].z, a[2].z);
    return btTransform(basis, btVector3(o.center.x, o.center.y, o.center.z));
}

struct BulletBoxes {
    std::vector<std::unique_ptr<btBoxShape>> a, b;
    std::vector<btDiscreteCollisionDetectorInterface::ClosestPointInput> input;
    BulletBoxes() {
        for (const bench::BoxPair& p : bench::box_pairs()) {
            a.push_back(std::make_unique<btBoxShape>(btVector3(p.a.half_extents.x, p.a.half_extents.y, p.a.half_extents.z)));
            b.push_back(std::make_unique<btBoxShape>(btVector3(p.b.half_extents.x, p.b.half_extents.y, p.b.half_extents.z)));
            btDiscreteCollisionDetectorInterface::ClosestPointInput in;
            in.m_transformA = transform(p.a);
            in.m_transformB = transform(p.b);
            input.push_back(in);
        }
    }
    bool collide(std::size_t k) const {
        btBoxBoxDetector detector(a[k].get(), b[k].get());
        Counter out;
        detector.getClosestPoints(input[k], out, nullptr);
        return out.contacts > 0;
    }
};

void BM_BoxBox_Bullet_btBoxBoxDetector(benchmark::State& state) {
    static const BulletBoxes boxes;
    bench::count_wrong(state, bench::box_pairs(), [&](std::size_t k) { return boxes.collide(k); });
    bench::per_pair(state, [&](std::size_t k) { return boxes.collide(k); });
}
BENCHMARK(BM_BoxBox_Bullet_btBoxBoxDetector);

struct BulletTriangles {
    std::vector<std::unique_ptr<btBoxShape>> box;
    std::vector<std::unique_ptr<btTriangleShape>> tri;
    std::vector<btDiscreteCollisionDetectorInterface::ClosestPointInput> input;
    BulletTriangles() {
        for (const bench::BoxTriangle& p : bench::box_triangles()) {
            box.push_back(std::make_unique<btBoxShape>(btVector3(p.box.half_extents.x, p.box.half_extents.y, p.box.half_extents.z)));
            box.back()->setMargin(0);
            tri.push_back(std::make_unique<btTriangleShape>(btVector3(p.tri.a.x, p.tri.a.y, p.tri.a.z),
                                                            btVector3(p.tri.b.x, p.tri.b.y, p.tri.b.z),
                                                            btVector3(p.tri.c.x, p.tri.c.y, p.tri.c.z)));
            tri.back()->setMargin(0);
            btDiscreteCollisionDetectorInterface::ClosestPointInput in;
            in.m_transformA = transform(p.box);
            in.m_transformB.setIdentity();
            input.push_back(in);
        }
    }
    // GJK+EPA: overlap when the reported distance is <= 0.
    bool collide(std::size_t k) const {
        btVoronoiSimplexSolver simplex;
        btGjkEpaPenetrationDepthSolver epa;
        btGjkPairDetector gjk(box[k].get(), tri[k].get(), &simplex, &epa);
        Counter out;
        gjk.getClosestPoints(input[k], out, nullptr);
        return out.contacts > 0 && out.deepest <= 0;
    }
};

void BM_BoxTri_Bullet_GJK_EPA(benchmark::State& state) {
    static const BulletTriangles tris;
    bench::count_wrong(state, bench::box_triangles(), [&](std::size_t k) { return tris.collide(k); });
    bench::per_pair(state, [&](std::size_t k) { return tris.collide(k); });
}
BENCHMARK(BM_BoxTri_Bullet_GJK_EPA);

}  // namespace
