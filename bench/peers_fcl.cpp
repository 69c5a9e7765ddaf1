// FCL (Debian libfcl-dev) on the same inputs: fcl::collide on two boxes, boolean and with contacts, and on a box
// and a triangle (a one-triangle BVHModel: FCL has no box-TriangleP function).

#include <memory>
#include <vector>

#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/collision_object.h>
#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/math/bv/OBBRSS.h>

#include "peers.hpp"

namespace {

using S = double;

fcl::Transform3<S> transform(const tumble::Obb& o) {
    fcl::Transform3<S> t = fcl::Transform3<S>::Identity();
    fcl::Matrix3<S> r;
    for (int col = 0; col < 3; ++col)
        for (int row = 0; row < 3; ++row) r(row, col) = o.axes[col][row];
    t.linear() = r;
    t.translation() = fcl::Vector3<S>(o.center.x, o.center.y, o.center.z);
    return t;
}

std::shared_ptr<fcl::Box<S>> box_shape(const tumble::Obb& o) {
    return std::make_shared<fcl::Box<S>>(2.0 * o.half_extents.x, 2.0 * o.half_extents.y, 2.0 * o.half_extents.z);
}

struct FclObjects {
    std::vector<std::unique_ptr<fcl::CollisionObject<S>>> a, b;
    FclObjects() {
        for (const bench::BoxPair& p : bench::box_pairs()) {
            a.push_back(std::make_unique<fcl::CollisionObject<S>>(box_shape(p.a), transform(p.a)));
            b.push_back(std::make_unique<fcl::CollisionObject<S>>(box_shape(p.b), transform(p.b)));
        }
    }
    bool collide(std::size_t k, bool contacts) const {
        fcl::CollisionRequest<S> request;
        if (contacts) {
            request.enable_contact = true;
            request.num_max_contacts = 4;
        }
        fcl::CollisionResult<S> result;
        fcl::collide(a[k].get(), b[k].get(), request, result);
        return result.isCollision();
    }
};

const FclObjects& fcl_boxes() {
    static const FclObjects objects;
    return objects;
}

void BM_BoxBox_FCL_collide_bool(benchmark::State& state) {
    const FclObjects& o = fcl_boxes();
    bench::count_wrong(state, bench::box_pairs(), [&](std::size_t k) { return o.collide(k, false); });
    bench::per_pair(state, [&](std::size_t k) { return o.collide(k, false); });
}
BENCHMARK(BM_BoxBox_FCL_collide_bool);

void BM_BoxBox_FCL_collide_contacts(benchmark::State& state) {
    const FclObjects& o = fcl_boxes();
    bench::count_wrong(state, bench::box_pairs(), [&](std::size_t k) { return o.collide(k, true); });
    bench::per_pair(state, [&](std::size_t k) { return o.collide(k, true); });
}
BENCHMARK(BM_BoxBox_FCL_collide_contacts);

struct FclTriangles {
    std::vector<std::unique_ptr<fcl::CollisionObject<S>>> box, tri;
    FclTriangles() {
        for (const bench::BoxTriangle& p : bench::box_triangles()) {
            box.push_back(std::make_unique<fcl::CollisionObject<S>>(box_shape(p.box), transform(p.box)));
            // FCL has no box-TriangleP collision function; a one-triangle BVH model is its box-triangle path.
            auto t = std::make_shared<fcl::BVHModel<fcl::OBBRSS<S>>>();
            t->beginModel();
            t->addTriangle(fcl::Vector3<S>(p.tri.a.x, p.tri.a.y, p.tri.a.z), fcl::Vector3<S>(p.tri.b.x, p.tri.b.y, p.tri.b.z),
                           fcl::Vector3<S>(p.tri.c.x, p.tri.c.y, p.tri.c.z));
            t->endModel();
            tri.push_back(std::make_unique<fcl::CollisionObject<S>>(t, fcl::Transform3<S>::Identity()));
        }
    }
    bool collide(std::size_t k) const {
        fcl::CollisionRequest<S> request;
        fcl::CollisionResult<S> result;
        fcl::collide(box[k].get(), tri[k].get(), request, result);
        return result.isCollision();
    }
};

void BM_BoxTri_FCL_collide_bool(benchmark::State& state) {
    static const FclTriangles o;
    bench::count_wrong(state, bench::box_triangles(), [&](std::size_t k) { return o.collide(k); });
    bench::per_pair(state, [&](std::size_t k) { return o.collide(k); });
}
BENCHMARK(BM_BoxTri_FCL_collide_bool);

}  // namespace
