// The soft step's position pass over a batch of bodies in SIMD lanes (solver_internal.hpp, PositionLanes): the same
// operations, in the same order, as the scalar code it replaces (tumble::detail::rotate_substep, GLM's quaternion
// products, mat3_cast and the world inverse inertia R diag(I^-1) R^T), one body per lane, so that every lane's
// result has the bits the scalar code gives. Highway compiles it for every x86 target (this file is included once per
// target by hwy/foreach_target.h) and picks one at run time; IEEE single-precision products, sums, quotients and
// square roots round the same in a vector lane as in a scalar register, and the build forbids contraction into FMAs
// (-ffp-contract=off; no MulAdd is used here).

#include "solver_internal.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/soft_positions.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace tumble::detail::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

struct Vec3 {
    V x, y, z;
};
struct Quat {
    V w, x, y, z;
};

// GLM's cross(a, b): (a.y b.z - b.y a.z, a.z b.x - b.z a.x, a.x b.y - b.x a.y).
HWY_INLINE Vec3 Cross(const Vec3& a, const Vec3& b) {
    return {hn::Sub(hn::Mul(a.y, b.z), hn::Mul(b.y, a.z)), hn::Sub(hn::Mul(a.z, b.x), hn::Mul(b.z, a.x)),
            hn::Sub(hn::Mul(a.x, b.y), hn::Mul(b.x, a.y))};
}
HWY_INLINE Vec3 Scale(const Vec3& a, V s) { return {hn::Mul(a.x, s), hn::Mul(a.y, s), hn::Mul(a.z, s)}; }
HWY_INLINE Vec3 Times(const Vec3& a, const Vec3& b) {
    return {hn::Mul(a.x, b.x), hn::Mul(a.y, b.y), hn::Mul(a.z, b.z)};
}
HWY_INLINE Vec3 Plus(const Vec3& a, const Vec3& b) { return {hn::Add(a.x, b.x), hn::Add(a.y, b.y), hn::Add(a.z, b.z)}; }

// GLM's q * v: u = (q.x, q.y, q.z); v + ((u x v) q.w + u x (u x v)) 2.
HWY_INLINE Vec3 Rotate(const Quat& q, const Vec3& v) {
    const D d;
    const Vec3 u{q.x, q.y, q.z};
    const Vec3 uv = Cross(u, v);
    const Vec3 uuv = Cross(u, uv);
    return Plus(v, Scale(Plus(Scale(uv, q.w), uuv), hn::Set(d, 2.0f)));
}
HWY_INLINE Quat Conjugate(const Quat& q) { return {q.w, hn::Neg(q.x), hn::Neg(q.y), hn::Neg(q.z)}; }

// GLM's p * q.
HWY_INLINE Quat Product(const Quat& p, const Quat& q) {
    using hn::Add;
    using hn::Mul;
    using hn::Sub;
    return {Sub(Sub(Sub(Mul(p.w, q.w), Mul(p.x, q.x)), Mul(p.y, q.y)), Mul(p.z, q.z)),
            Sub(Add(Add(Mul(p.w, q.x), Mul(p.x, q.w)), Mul(p.y, q.z)), Mul(p.z, q.y)),
            Sub(Add(Add(Mul(p.w, q.y), Mul(p.y, q.w)), Mul(p.z, q.x)), Mul(p.x, q.z)),
            Sub(Add(Add(Mul(p.w, q.z), Mul(p.z, q.w)), Mul(p.x, q.y)), Mul(p.y, q.x))};
}

// GLM's normalize(q): q / sqrt((w w + x x) + (y y + z z)), the identity where that length is not above 0.
HWY_INLINE Quat Normalize(const Quat& q) {
    const D d;
    const V dot = hn::Add(hn::Add(hn::Mul(q.w, q.w), hn::Mul(q.x, q.x)), hn::Add(hn::Mul(q.y, q.y), hn::Mul(q.z, q.z)));
    const V len = hn::Sqrt(dot);
    const auto degenerate = hn::Le(len, hn::Zero(d));
    const V over = hn::Div(hn::Set(d, 1.0f), len);
    return {hn::IfThenElse(degenerate, hn::Set(d, 1.0f), hn::Mul(q.w, over)),
            hn::IfThenZeroElse(degenerate, hn::Mul(q.x, over)), hn::IfThenZeroElse(degenerate, hn::Mul(q.y, over)),
            hn::IfThenZeroElse(degenerate, hn::Mul(q.z, over))};
}

// turned(q, theta) of solver_internal.hpp: normalize(q + 0.5 (quat(0, theta) q)).
HWY_INLINE Quat Turned(const Quat& q, const Vec3& theta) {
    const D d;
    const V half = hn::Set(d, 0.5f);
    const Quat p = Product(Quat{hn::Zero(d), theta.x, theta.y, theta.z}, q);
    return Normalize(Quat{hn::Add(q.w, hn::Mul(p.w, half)), hn::Add(q.x, hn::Mul(p.x, half)),
                          hn::Add(q.y, hn::Mul(p.y, half)), hn::Add(q.z, hn::Mul(p.z, half))});
}

// rotate(q, k * unrotate(q, v)) of solver_internal.hpp.
HWY_INLINE Vec3 BodyFrameTimes(const Quat& q, const Vec3& k, const Vec3& v) {
    return Rotate(q, Times(k, Rotate(Conjugate(q), v)));
}

// GLM's mat3_cast(q), columns c[0..2].
HWY_INLINE void Mat3Cast(const Quat& q, Vec3 c[3]) {
    using hn::Add;
    using hn::Mul;
    using hn::Sub;
    const D d;
    const V one = hn::Set(d, 1.0f), two = hn::Set(d, 2.0f);
    const V qxx = Mul(q.x, q.x), qyy = Mul(q.y, q.y), qzz = Mul(q.z, q.z);
    const V qxz = Mul(q.x, q.z), qxy = Mul(q.x, q.y), qyz = Mul(q.y, q.z);
    const V qwx = Mul(q.w, q.x), qwy = Mul(q.w, q.y), qwz = Mul(q.w, q.z);
    c[0] = {Sub(one, Mul(two, Add(qyy, qzz))), Mul(two, Add(qxy, qwz)), Mul(two, Sub(qxz, qwy))};
    c[1] = {Mul(two, Sub(qxy, qwz)), Sub(one, Mul(two, Add(qxx, qzz))), Mul(two, Add(qyz, qwx))};
    c[2] = {Mul(two, Add(qxz, qwy)), Mul(two, Sub(qyz, qwx)), Sub(one, Mul(two, Add(qxx, qyy)))};
}

HWY_INLINE Vec3 Load3(const float (*a)[PositionLanes::kMax], std::size_t lane) {
    const D d;
    return {hn::Load(d, a[0] + lane), hn::Load(d, a[1] + lane), hn::Load(d, a[2] + lane)};
}
HWY_INLINE void Store3(const Vec3& v, float (*a)[PositionLanes::kMax], std::size_t lane) {
    const D d;
    hn::Store(v.x, d, a[0] + lane);
    hn::Store(v.y, d, a[1] + lane);
    hn::Store(v.z, d, a[2] + lane);
}

void IntegratePositions(PositionLanes* batch, std::size_t count, float step) {
    const D d;
    const V h = hn::Set(d, step);
    const V zero = hn::Zero(d);
    for (std::size_t lane = 0; lane < count; lane += hn::Lanes(d)) {
        // x += h v, the motion since the step began likewise (both with the same h v).
        const Vec3 v = Load3(batch->v, lane);
        const Vec3 hv = Scale(v, h);
        Store3(Plus(Load3(batch->position, lane), hv), batch->position, lane);
        Store3(Plus(Load3(batch->dp, lane), hv), batch->dp, lane);

        // rotate_substep(q, w, inv, torque 0, h) of solver_internal.hpp.
        const Quat q{hn::Load(d, batch->q[0] + lane), hn::Load(d, batch->q[1] + lane), hn::Load(d, batch->q[2] + lane),
                     hn::Load(d, batch->q[3] + lane)};
        const Vec3 inv = Load3(batch->inv, lane);
        const V one = hn::Set(d, 1.0f);
        const Vec3 inertia{hn::IfThenElseZero(hn::Gt(inv.x, zero), hn::Div(one, inv.x)),
                           hn::IfThenElseZero(hn::Gt(inv.y, zero), hn::Div(one, inv.y)),
                           hn::IfThenElseZero(hn::Gt(inv.z, zero), hn::Div(one, inv.z))};
        const Vec3 w = Load3(batch->w, lane);
        const Vec3 l0 = BodyFrameTimes(q, inertia, w);
        const V h_torque = hn::Mul(h, zero);  // h times the zero torque, added as the scalar code adds it
        const Vec3 l = Plus(l0, Vec3{h_torque, h_torque, h_torque});
        const Vec3 w0 = BodyFrameTimes(q, inv, l);
        const auto still = hn::And(hn::And(hn::Eq(w0.x, zero), hn::Eq(w0.y, zero)), hn::Eq(w0.z, zero));
        const Quat half = Turned(q, Scale(w0, hn::Mul(hn::Set(d, 0.5f), h)));
        const Quat turned = Turned(q, Scale(BodyFrameTimes(half, inv, l), h));
        const Vec3 w1 = BodyFrameTimes(turned, inv, l);
        const Quat q1{hn::IfThenElse(still, q.w, turned.w), hn::IfThenElse(still, q.x, turned.x),
                      hn::IfThenElse(still, q.y, turned.y), hn::IfThenElse(still, q.z, turned.z)};
        const Vec3 w_out{hn::IfThenElse(still, w0.x, w1.x), hn::IfThenElse(still, w0.y, w1.y),
                         hn::IfThenElse(still, w0.z, w1.z)};
        hn::Store(q1.w, d, batch->q[0] + lane);
        hn::Store(q1.x, d, batch->q[1] + lane);
        hn::Store(q1.y, d, batch->q[2] + lane);
        hn::Store(q1.z, d, batch->q[3] + lane);
        Store3(w_out, batch->w, lane);

        // The turn since the step began, mat3_cast(q start^*), and the world inverse inertia R diag(d) R^T with
        // d = min(inv, kMaxInverseMoment) (GLM's min: the second where it is below the first), as rd * transpose(r).
        const Quat start{hn::Load(d, batch->start[0] + lane), hn::Load(d, batch->start[1] + lane),
                         hn::Load(d, batch->start[2] + lane), hn::Load(d, batch->start[3] + lane)};
        Vec3 dr[3];
        Mat3Cast(Product(q1, Conjugate(start)), dr);
        Vec3 r[3];
        Mat3Cast(q1, r);
        const V cap = hn::Set(d, kMaxInverseMoment);
        const V dx = hn::IfThenElse(hn::Lt(cap, inv.x), cap, inv.x);
        const V dy = hn::IfThenElse(hn::Lt(cap, inv.y), cap, inv.y);
        const V dz = hn::IfThenElse(hn::Lt(cap, inv.z), cap, inv.z);
        const Vec3 rd[3] = {Scale(r[0], dx), Scale(r[1], dy), Scale(r[2], dz)};
        // Column c, row j: rd[0][j] r[0][c] + rd[1][j] r[1][c] + rd[2][j] r[2][c] (GLM's mat3 product, left to right).
        auto row = [](const Vec3& m, std::size_t j) { return j == 0 ? m.x : (j == 1 ? m.y : m.z); };
        for (std::size_t c = 0; c < 3; ++c) {
            Store3(dr[c], batch->dr + 3 * c, lane);
            V out[3];
            for (std::size_t j = 0; j < 3; ++j)
                out[j] = hn::Add(hn::Add(hn::Mul(row(rd[0], j), row(r[0], c)), hn::Mul(row(rd[1], j), row(r[1], c))),
                                 hn::Mul(row(rd[2], j), row(r[2], c)));
            Store3(Vec3{out[0], out[1], out[2]}, batch->inv_inertia + 3 * c, lane);
        }
    }
}

std::size_t Lanes() { return hn::Lanes(D()); }

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace tumble::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tumble::detail {
HWY_EXPORT(IntegratePositions);
HWY_EXPORT(Lanes);

void integrate_positions(PositionLanes& batch, std::size_t count, float h) {
    HWY_DYNAMIC_DISPATCH(IntegratePositions)(&batch, count, h);
}

std::size_t position_lanes() { return HWY_DYNAMIC_DISPATCH(Lanes)(); }
}  // namespace tumble::detail
#endif  // HWY_ONCE
