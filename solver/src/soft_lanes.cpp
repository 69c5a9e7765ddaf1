// The soft step's visit of several manifolds in SIMD lanes (solver_internal.hpp, SetUpLanes, NormalLanes and
// FrictionLanes): the set-up of the passes, the local passes over the normal constraints, their end (the bodies'
// velocities, torsional friction) and the point friction, with the same operations, in the same order, as the
// one-manifold code of soft_step.cpp (`set_up`, `locate`, `visit`, `finish_normal` and `point_friction` in
// `solve_pass`), one manifold per lane, so that every lane's result has the bits that code gives. Where it skips the
// rest of a point whose impulse did not change, stops a manifold's passes, or leaves a body that does not move alone,
// the lanes keep their values instead (the dot products are glm::dot's (x + y) + z; std::max(x, 0) is
// x < 0 ? 0 : x). Highway compiles it for
// every x86 target (this file is included once per target by hwy/foreach_target.h) and picks one at run time; IEEE
// single-precision products, sums and quotients round the same in a vector lane as in a scalar register, and the build
// forbids contraction into FMAs (-ffp-contract=off; no MulAdd is used here).

#include "solver_internal.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "src/soft_lanes.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target

#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace tumble::detail::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Each pass comes in two variants: kStillB false for any batch, and true for a batch whose every manifold's side B is
// still (static geometry, or a resting or fixed body: own_b 0, inverse mass and inertia 0, velocities +0, which no
// pass changes). The second leaves out what the first computes for side B and then throws away (the Selects on own_b),
// and takes side B's velocities as the +0 they are: a sum +0 + x gives what x + +0 does, so every lane gets the same
// bits either way for finite values.
using D = hn::CappedTag<float, kNormalLanes>;
using DI = hn::RebindToSigned<D>;
using V = hn::Vec<D>;
using M = hn::Mask<D>;
using Lanes = NormalLanes;

// The lanes base .. base + Lanes(d) - 1 of `s`, to the end of their passes.
template <bool kStillB>
HWY_INLINE void PassesAt(Lanes& s, std::size_t base, int passes, float tolerance) {
    const D d;
    const DI di;
    const V zero = hn::Zero(d), one = hn::Set(d, 1.0f), limit = hn::Set(d, tolerance);
    const V count = hn::ConvertTo(d, hn::LoadU(di, s.count + base));
    auto load = [&](const float* row) { return hn::LoadU(d, row + base); };
    V impulse[4], approach[4], met[4];
    M has[4];  // the lane has point p
    for (int p = 0; p < 4; ++p) {
        impulse[p] = load(s.impulse[p]);
        approach[p] = load(s.approach[p]);
        met[p] = load(s.met[p]);
        has[p] = hn::Lt(hn::Set(d, static_cast<float>(p)), count);
    }
    const V inv_masses = load(s.inv_masses);
    M active = hn::Gt(count, zero);
    V pushed = zero, dwa[3] = {zero, zero, zero}, dwb[3] = {zero, zero, zero};
    // A still side B's I^-1 (r x n) is +0 (set_up_in_lanes), so dwb stays +0 (+0 + change +0 is +0), and its term of
    // the normal velocity is the same in every pass: worked out once.
    auto b_term = [&](int p) {
        return hn::Add(hn::Add(hn::Mul(dwb[0], load(s.ub[p][0])), hn::Mul(dwb[1], load(s.ub[p][1]))),
                       hn::Mul(dwb[2], load(s.ub[p][2])));
    };
    V still_db[4];
    if constexpr (kStillB)
        for (int p = 0; p < 4; ++p) still_db[p] = b_term(p);
    // Points that no lane has change nothing (`on` is false in every lane): the passes stop at the largest count.
    int points = 0;
    while (points < 4 && !hn::AllFalse(d, has[points])) ++points;
    for (int pass = 0; pass < passes && !hn::AllFalse(d, active); ++pass) {
        V largest = zero;
        for (int p = 0; p < points; ++p) {
            const M on = hn::And(active, has[p]);
            V db;
            if constexpr (kStillB)
                db = still_db[p];
            else
                db = b_term(p);
            const V da = hn::Add(hn::Add(hn::Mul(dwa[0], load(s.ua[p][0])), hn::Mul(dwa[1], load(s.ua[p][1]))),
                                 hn::Mul(dwa[2], load(s.ua[p][2])));
            const V vn = hn::Sub(hn::Add(hn::Add(load(s.vn0[p]), hn::Mul(inv_masses, pushed)), db), da);
            const V old = impulse[p];
            const V sum = hn::Add(old, hn::Sub(hn::Mul(load(s.gain[p]), hn::Add(vn, load(s.bias[p]))),
                                               hn::Mul(load(s.impulse_scale[p]), old)));
            const V total = hn::IfThenElse(hn::Lt(sum, zero), zero, sum);
            const V change = hn::Sub(total, old);
            impulse[p] = hn::IfThenElse(on, total, old);
            const M moved = hn::And(on, hn::Ne(change, zero));
            const M first = hn::And(hn::And(moved, hn::Eq(met[p], zero)), hn::Gt(total, zero));
            approach[p] = hn::IfThenElse(first, vn, approach[p]);
            met[p] = hn::IfThenElse(first, one, met[p]);
            pushed = hn::IfThenElse(moved, hn::Add(pushed, change), pushed);
            for (int c = 0; c < 3; ++c) {
                dwa[c] = hn::IfThenElse(moved, hn::Sub(dwa[c], hn::Mul(change, load(s.ia[p][c]))), dwa[c]);
                if constexpr (!kStillB)
                    dwb[c] = hn::IfThenElse(moved, hn::Add(dwb[c], hn::Mul(change, load(s.ib[p][c]))), dwb[c]);
            }
            const V ratio = hn::Div(hn::Abs(change), load(s.normal_mass[p]));
            largest = hn::IfThenElse(hn::And(moved, hn::Lt(largest, ratio)), ratio, largest);
        }
        active = hn::AndNot(hn::Le(largest, limit), active);
    }
    for (int p = 0; p < 4; ++p) {
        hn::StoreU(impulse[p], d, s.impulse[p] + base);
        hn::StoreU(approach[p], d, s.approach[p] + base);
        hn::StoreU(met[p], d, s.met[p] + base);
    }
    hn::StoreU(pushed, d, s.pushed + base);
    for (int c = 0; c < 3; ++c) {
        hn::StoreU(dwa[c], d, s.dwa[c] + base);
        hn::StoreU(dwb[c], d, s.dwb[c] + base);
    }
}

struct Vec3 {
    V x, y, z;
};
// GLM's cross(a, b): (a.y b.z - b.y a.z, a.z b.x - b.z a.x, a.x b.y - b.x a.y).
HWY_INLINE Vec3 Cross(const Vec3& a, const Vec3& b) {
    return {hn::Sub(hn::Mul(a.y, b.z), hn::Mul(b.y, a.z)), hn::Sub(hn::Mul(a.z, b.x), hn::Mul(b.z, a.x)),
            hn::Sub(hn::Mul(a.x, b.y), hn::Mul(b.x, a.y))};
}
// GLM's dot(a, b): (a.x b.x + a.y b.y) + a.z b.z.
HWY_INLINE V Dot(const Vec3& a, const Vec3& b) {
    return hn::Add(hn::Add(hn::Mul(a.x, b.x), hn::Mul(a.y, b.y)), hn::Mul(a.z, b.z));
}
// GLM's m * v for a mat3 m held column by column (entry 3 c + i is column c, row i): row i is
// (m[0][i] v.x + m[1][i] v.y) + m[2][i] v.z.
HWY_INLINE Vec3 Times(const V (&m)[9], const Vec3& v) {
    auto row = [&](int i) {
        return hn::Add(hn::Add(hn::Mul(m[i], v.x), hn::Mul(m[3 + i], v.y)), hn::Mul(m[6 + i], v.z));
    };
    return {row(0), row(1), row(2)};
}
HWY_INLINE Vec3 Select(M m, const Vec3& yes, const Vec3& no) {
    return {hn::IfThenElse(m, yes.x, no.x), hn::IfThenElse(m, yes.y, no.y), hn::IfThenElse(m, yes.z, no.z)};
}

// Loads and stores of the lanes base .. base + Lanes(d) - 1 of a lane structure's rows.
struct At {
    std::size_t base;
    HWY_INLINE V Load(const float* row) const { return hn::LoadU(D(), row + base); }
    HWY_INLINE Vec3 Load3(const float (*rows)[kNormalLanes]) const {
        return {Load(rows[0]), Load(rows[1]), Load(rows[2])};
    }
    HWY_INLINE void Store3(const Vec3& v, float (*rows)[kNormalLanes]) const {
        hn::StoreU(v.x, D(), rows[0] + base);
        hn::StoreU(v.y, D(), rows[1] + base);
        hn::StoreU(v.z, D(), rows[2] + base);
    }
    // A matrix held column by column in nine rows (entry 3 c + i: column c, row i).
    HWY_INLINE void Load9(const float (*rows)[kNormalLanes], V (&m)[9]) const {
        for (int e = 0; e < 9; ++e) m[e] = Load(rows[e]);
    }
    // A lane structure's point counts as floats.
    HWY_INLINE V Count(const std::int32_t* counts) const { return hn::ConvertTo(D(), hn::LoadU(DI(), counts + base)); }
};

// The lanes base .. base + Lanes(d) - 1 of `s`: the point friction of soft_step.cpp's `point_friction`, each
// operation as GLM does it there (vectors component by component, velocity_at(s, r) = s.v + cross(s.w, r), apply(s, r,
// p): s.v += inv_mass p, s.w += I^-1 cross(r, p)), points in order.
template <bool kStillB>
HWY_INLINE void FrictionAt(FrictionLanes& s, std::size_t base, bool use_bias) {
    const D d;
    const V zero = hn::Zero(d);
    const At at{base};
    auto load = [&](const float* row) { return at.Load(row); };
    auto load3 = [&](const float(*rows)[kNormalLanes]) { return at.Load3(rows); };
    auto store3 = [&](const Vec3& v, float(*rows)[kNormalLanes]) { at.Store3(v, rows); };
    const V count = at.Count(s.count);
    const V friction = load(s.friction), bias_rate = hn::Neg(load(s.bias_rate));
    const V inv_mass_a = load(s.inv_mass_a), inv_mass_b = load(s.inv_mass_b);
    const M own_a = hn::Ne(load(s.own_a), zero), own_b = hn::Ne(load(s.own_b), zero);
    const Vec3 t1 = load3(s.t1), t2 = load3(s.t2), dx = load3(s.dx);
    Vec3 va = load3(s.va), wa = load3(s.wa), vb = load3(s.vb), wb = load3(s.wb);
    V inertia_a[9], inertia_b[9], dra[9], drb[9];
    at.Load9(s.inv_inertia_a, inertia_a);
    at.Load9(s.dra, dra);
    if constexpr (!kStillB) {
        at.Load9(s.inv_inertia_b, inertia_b);
        at.Load9(s.drb, drb);
    }
    for (int p = 0; p < 4; ++p) {
        const M has = hn::Lt(hn::Set(d, static_cast<float>(p)), count);
        if (hn::AllFalse(d, has)) break;
        const Vec3 ra = load3(s.ra[p]), rb = load3(s.rb[p]);
        const V normal_impulse = load(s.normal_impulse[p]);
        const Vec3 ca = Cross(wa, ra);
        const Vec3 vel_a{hn::Add(va.x, ca.x), hn::Add(va.y, ca.y), hn::Add(va.z, ca.z)};
        Vec3 vel_b{zero, zero, zero};  // a still side B: +0 + (+-0) is +0
        if constexpr (!kStillB) {
            const Vec3 cb = Cross(wb, rb);
            vel_b = Vec3{hn::Add(vb.x, cb.x), hn::Add(vb.y, cb.y), hn::Add(vb.z, cb.z)};
        }
        const Vec3 dv{hn::Sub(vel_b.x, vel_a.x), hn::Sub(vel_b.y, vel_a.y), hn::Sub(vel_b.z, vel_a.z)};
        V target1 = zero, target2 = zero;
        if (use_bias) {
            const M pulls = hn::Gt(normal_impulse, zero);
            const Vec3 fa = load3(s.fa[p]), fb = load3(s.fb[p]);
            Vec3 tb = fb;
            if constexpr (!kStillB) tb = Select(own_b, Times(drb, fb), fb);
            const Vec3 ta = Select(own_a, Times(dra, fa), fa);
            const Vec3 slip{hn::Add(dx.x, hn::Sub(tb.x, ta.x)), hn::Add(dx.y, hn::Sub(tb.y, ta.y)),
                            hn::Add(dx.z, hn::Sub(tb.z, ta.z))};
            target1 = hn::IfThenElse(pulls, hn::Mul(bias_rate, Dot(slip, t1)), zero);
            target2 = hn::IfThenElse(pulls, hn::Mul(bias_rate, Dot(slip, t2)), zero);
        }
        const V old1 = load(s.tangent_impulse[p][0]), old2 = load(s.tangent_impulse[p][1]);
        V total1 = hn::Add(old1, hn::Mul(load(s.tangent_mass[p][0]), hn::Sub(target1, Dot(dv, t1))));
        V total2 = hn::Add(old2, hn::Mul(load(s.tangent_mass[p][1]), hn::Sub(target2, Dot(dv, t2))));
        const V limit = hn::Mul(friction, normal_impulse);
        const V length2 = hn::Add(hn::Mul(total1, total1), hn::Mul(total2, total2));
        const M clamp = hn::Gt(length2, hn::Mul(limit, limit));
        const V factor = hn::Div(limit, hn::Sqrt(length2));
        total1 = hn::IfThenElse(clamp, hn::Mul(total1, factor), total1);
        total2 = hn::IfThenElse(clamp, hn::Mul(total2, factor), total2);
        hn::StoreU(hn::IfThenElse(has, total1, old1), d, s.tangent_impulse[p][0] + base);
        hn::StoreU(hn::IfThenElse(has, total2, old2), d, s.tangent_impulse[p][1] + base);
        const V change1 = hn::Sub(total1, old1), change2 = hn::Sub(total2, old2);
        const Vec3 impulse{hn::Add(hn::Mul(change1, t1.x), hn::Mul(change2, t2.x)),
                           hn::Add(hn::Mul(change1, t1.y), hn::Mul(change2, t2.y)),
                           hn::Add(hn::Mul(change1, t1.z), hn::Mul(change2, t2.z))};
        const Vec3 minus{hn::Neg(impulse.x), hn::Neg(impulse.y), hn::Neg(impulse.z)};
        const M push_a = hn::And(has, own_a);
        const Vec3 turn_a = Times(inertia_a, Cross(ra, minus));
        va = Select(push_a,
                    Vec3{hn::Add(va.x, hn::Mul(inv_mass_a, minus.x)), hn::Add(va.y, hn::Mul(inv_mass_a, minus.y)),
                         hn::Add(va.z, hn::Mul(inv_mass_a, minus.z))},
                    va);
        wa = Select(push_a, Vec3{hn::Add(wa.x, turn_a.x), hn::Add(wa.y, turn_a.y), hn::Add(wa.z, turn_a.z)}, wa);
        if constexpr (!kStillB) {
            const M push_b = hn::And(has, own_b);
            const Vec3 turn_b = Times(inertia_b, Cross(rb, impulse));
            vb = Select(
                push_b,
                Vec3{hn::Add(vb.x, hn::Mul(inv_mass_b, impulse.x)), hn::Add(vb.y, hn::Mul(inv_mass_b, impulse.y)),
                     hn::Add(vb.z, hn::Mul(inv_mass_b, impulse.z))},
                vb);
            wb = Select(push_b, Vec3{hn::Add(wb.x, turn_b.x), hn::Add(wb.y, turn_b.y), hn::Add(wb.z, turn_b.z)}, wb);
        }
    }
    store3(va, s.va);
    store3(wa, s.wa);
    if constexpr (!kStillB) {
        store3(vb, s.vb);
        store3(wb, s.wb);
    }
}

HWY_INLINE Vec3 Add3(const Vec3& a, const Vec3& b) { return {hn::Add(a.x, b.x), hn::Add(a.y, b.y), hn::Add(a.z, b.z)}; }
HWY_INLINE Vec3 Sub3(const Vec3& a, const Vec3& b) { return {hn::Sub(a.x, b.x), hn::Sub(a.y, b.y), hn::Sub(a.z, b.z)}; }
HWY_INLINE Vec3 Scale3(const V& k, const Vec3& a) { return {hn::Mul(k, a.x), hn::Mul(k, a.y), hn::Mul(k, a.z)}; }

// The lanes base .. base + Lanes(d) - 1: soft_step.cpp's `set_up` and `locate`, each operation as GLM does it there
// (a.v + cross(a.w, r) for a side's velocity at r; a mat3 times a vec3 as Times; s * v component by component;
// std::max(x, y) as x < y ? y : x).
template <bool kStillB>
HWY_INLINE void SetUpAt(SetUpLanes& u, NormalLanes& nl, FrictionLanes& f, std::size_t base, bool locate, bool fresh,
                        bool use_bias, float inv_h, float max_push) {
    const D d;
    const V zero = hn::Zero(d), half = hn::Set(d, 0.5f);
    const At at{base};
    auto load = [&](const float* row) { return at.Load(row); };
    auto load3 = [&](const float(*rows)[kNormalLanes]) { return at.Load3(rows); };
    auto store3 = [&](const Vec3& v, float(*rows)[kNormalLanes]) { at.Store3(v, rows); };
    const V count = at.Count(u.count);
    const M own_a = hn::Ne(load(f.own_a), zero), own_b = hn::Ne(load(f.own_b), zero);
    const Vec3 n = load3(u.normal);
    const Vec3 va = load3(f.va), wa = load3(f.wa), vb = load3(f.vb), wb = load3(f.wb);
    V inertia_a[9], inertia_b[9], dra[9], drb[9];
    at.Load9(f.inv_inertia_a, inertia_a);
    at.Load9(f.dra, dra);
    if constexpr (!kStillB) {
        at.Load9(f.inv_inertia_b, inertia_b);
        at.Load9(f.drb, drb);
    }
    hn::StoreU(hn::Add(load(f.inv_mass_a), load(f.inv_mass_b)), d, nl.inv_masses + base);
    Vec3 dx;
    if (locate) {
        dx = Add3(load3(u.offset), Sub3(load3(u.dpb), load3(u.dpa)));
        store3(dx, f.dx);
    } else {
        dx = load3(f.dx);
    }
    const V bias_rate = load(f.bias_rate), mass_scale = load(u.mass_scale), impulse_scale = load(u.impulse_scale);
    const V inv_step = hn::Set(d, inv_h), most = hn::Set(d, -max_push);
    for (int p = 0; p < 4; ++p) {
        const M has = hn::Lt(hn::Set(d, static_cast<float>(p)), count);
        // A point that no lane has is read by no pass (each stops at the largest count), so it is not set up.
        if (hn::AllFalse(d, has)) break;
        Vec3 ra, rb;
        V sep;
        if (locate) {
            const Vec3 arm_a = load3(u.arm_a[p]), arm_b = load3(u.arm_b[p]);
            const Vec3 pra = Select(own_a, Times(dra, arm_a), arm_a);
            Vec3 prb = arm_b;
            if constexpr (!kStillB) prb = Select(own_b, Times(drb, arm_b), arm_b);
            sep = hn::Add(Dot(Sub3(Add3(dx, prb), pra), n), load(u.separation[p]));
            ra = Scale3(half, Add3(Add3(pra, prb), dx));
            rb = Sub3(ra, dx);
            const Vec3 none{zero, zero, zero};
            ra = Select(has, ra, none);
            rb = Select(has, rb, none);
            sep = hn::IfThenElse(has, sep, zero);
            store3(ra, f.ra[p]);
            store3(rb, f.rb[p]);
            hn::StoreU(sep, d, u.s[p] + base);
        } else {
            ra = load3(f.ra[p]);
            rb = load3(f.rb[p]);
            sep = load(u.s[p]);
        }
        const Vec3 ua = Cross(ra, n), ub = Cross(rb, n);
        const Vec3 none{zero, zero, zero};
        store3(Select(has, ua, none), nl.ua[p]);
        store3(Select(has, ub, none), nl.ub[p]);
        if (fresh) {
            store3(Select(hn::And(has, own_a), Times(inertia_a, ua), none), nl.ia[p]);
            if constexpr (kStillB)
                store3(none, nl.ib[p]);
            else
                store3(Select(hn::And(has, own_b), Times(inertia_b, ub), none), nl.ib[p]);
        }
        Vec3 vel_b = none;  // a still side B: +0 + (+-0) is +0
        if constexpr (!kStillB) vel_b = Add3(vb, Cross(wb, rb));
        const V vn0 = Dot(Sub3(vel_b, Add3(va, Cross(wa, ra))), n);
        const V mass = load(nl.normal_mass[p]);
        const M apart = hn::Gt(sep, zero);
        V bias = hn::IfThenElse(apart, hn::Mul(sep, inv_step), zero);
        V gain = hn::Neg(mass), scale = zero;
        if (use_bias) {
            const M soft = hn::Not(apart);
            const V push = hn::Mul(bias_rate, sep);
            bias = hn::IfThenElse(soft, hn::IfThenElse(hn::Lt(push, most), most, push), bias);
            gain = hn::IfThenElse(soft, hn::Mul(gain, mass_scale), gain);
            scale = hn::IfThenElse(soft, impulse_scale, zero);
        }
        hn::StoreU(hn::IfThenElse(has, vn0, zero), d, nl.vn0[p] + base);
        hn::StoreU(hn::IfThenElse(has, bias, zero), d, nl.bias[p] + base);
        hn::StoreU(hn::IfThenElse(has, gain, zero), d, nl.gain[p] + base);
        hn::StoreU(hn::IfThenElse(has, scale, zero), d, nl.impulse_scale[p] + base);
    }
}

// The lanes base .. base + Lanes(d) - 1: soft_step.cpp's `finish_normal` (std::clamp(v, lo, hi) as libstdc++'s
// std::min(std::max(v, lo), hi)).
template <bool kStillB>
HWY_INLINE void FinishAt(SetUpLanes& u, NormalLanes& nl, FrictionLanes& f, std::size_t base, float torsion_radius) {
    const D d;
    const V zero = hn::Zero(d);
    const At at{base};
    auto load = [&](const float* row) { return at.Load(row); };
    auto load3 = [&](const float(*rows)[kNormalLanes]) { return at.Load3(rows); };
    auto store3 = [&](const Vec3& v, float(*rows)[kNormalLanes]) { at.Store3(v, rows); };
    const V count = at.Count(u.count);
    const M own_a = hn::Ne(load(f.own_a), zero), own_b = hn::Ne(load(f.own_b), zero);
    const Vec3 n = load3(u.normal);
    const V pushed = load(nl.pushed);
    Vec3 va = load3(f.va), wa = load3(f.wa), vb = load3(f.vb), wb = load3(f.wb);
    va = Select(own_a, Sub3(va, Scale3(hn::Mul(load(f.inv_mass_a), pushed), n)), va);
    wa = Select(own_a, Add3(wa, load3(nl.dwa)), wa);
    if constexpr (!kStillB) {
        vb = Select(own_b, Add3(vb, Scale3(hn::Mul(load(f.inv_mass_b), pushed), n)), vb);
        wb = Select(own_b, Add3(wb, load3(nl.dwb)), wb);
    }
    for (int p = 0; p < 4; ++p) hn::StoreU(load(nl.impulse[p]), d, f.normal_impulse[p] + base);
    const V friction = load(f.friction);
    M twists = hn::And(hn::Eq(count, hn::Set(d, 1.0f)), hn::Gt(friction, zero));
    if (!hn::AllFalse(d, twists)) {
        V inertia_a[9], inertia_b[9];
        at.Load9(f.inv_inertia_a, inertia_a);
        const V limit = hn::Mul(hn::Mul(friction, hn::Set(d, torsion_radius)), load(nl.impulse[0]));
        const Vec3 none{zero, zero, zero};
        const Vec3 ja = Select(own_a, Times(inertia_a, n), none);
        Vec3 jb = none;
        if constexpr (!kStillB) {
            at.Load9(f.inv_inertia_b, inertia_b);
            jb = Select(own_b, Times(inertia_b, n), none);
        }
        const V k = hn::Add(Dot(n, ja), Dot(n, jb));
        twists = hn::And(twists, hn::Gt(k, zero));
        const V old = load(u.twist);
        const V wanted = hn::Sub(old, hn::Div(Dot(Sub3(wb, wa), n), k));
        const V low = hn::Neg(limit);
        const V above = hn::IfThenElse(hn::Lt(wanted, low), low, wanted);
        const V total = hn::IfThenElse(hn::Lt(limit, above), limit, above);
        hn::StoreU(hn::IfThenElse(twists, total, old), d, u.twist + base);
        const V change = hn::Sub(total, old);
        wa = Select(hn::And(twists, own_a), Sub3(wa, Scale3(change, ja)), wa);
        if constexpr (!kStillB) wb = Select(hn::And(twists, own_b), Add3(wb, Scale3(change, jb)), wb);
    }
    store3(va, f.va);
    store3(wa, f.wa);
    if constexpr (!kStillB) {
        store3(vb, f.vb);
        store3(wb, f.wb);
    }
}

// The lanes base .. base + Lanes(d) - 1: soft_step.cpp's warm start (impulse = n P_n + t1 P_1 + t2 P_2; a point whose
// impulse is the zero vector is skipped; apply(s, r, p): s.v += inv_mass p, s.w += I^-1 cross(r, p); a twist that is
// not zero turns each own side by -+ twist I^-1 n).
template <bool kStillB>
HWY_INLINE void WarmStartAt(SetUpLanes& u, NormalLanes& nl, FrictionLanes& f, std::size_t base) {
    const D d;
    const V zero = hn::Zero(d);
    const At at{base};
    auto load = [&](const float* row) { return at.Load(row); };
    auto load3 = [&](const float(*rows)[kNormalLanes]) { return at.Load3(rows); };
    auto store3 = [&](const Vec3& v, float(*rows)[kNormalLanes]) { at.Store3(v, rows); };
    const V count = at.Count(u.count);
    const M own_a = hn::Ne(load(f.own_a), zero), own_b = hn::Ne(load(f.own_b), zero);
    const V inv_mass_a = load(f.inv_mass_a), inv_mass_b = load(f.inv_mass_b);
    const Vec3 n = load3(u.normal), t1 = load3(f.t1), t2 = load3(f.t2);
    Vec3 va = load3(f.va), wa = load3(f.wa), vb = load3(f.vb), wb = load3(f.wb);
    V inertia_a[9], inertia_b[9];
    at.Load9(f.inv_inertia_a, inertia_a);
    if constexpr (!kStillB) at.Load9(f.inv_inertia_b, inertia_b);
    for (int p = 0; p < 4; ++p) {
        const M has = hn::Lt(hn::Set(d, static_cast<float>(p)), count);
        if (hn::AllFalse(d, has)) break;
        const Vec3 impulse = Add3(Add3(Scale3(load(nl.impulse[p]), n), Scale3(load(f.tangent_impulse[p][0]), t1)),
                                  Scale3(load(f.tangent_impulse[p][1]), t2));
        const M none = hn::And(hn::And(hn::Eq(impulse.x, zero), hn::Eq(impulse.y, zero)), hn::Eq(impulse.z, zero));
        const M acts = hn::AndNot(none, has);
        const Vec3 minus{hn::Neg(impulse.x), hn::Neg(impulse.y), hn::Neg(impulse.z)};
        const M push_a = hn::And(acts, own_a);
        va = Select(push_a, Add3(va, Scale3(inv_mass_a, minus)), va);
        wa = Select(push_a, Add3(wa, Times(inertia_a, Cross(load3(f.ra[p]), minus))), wa);
        if constexpr (!kStillB) {
            const M push_b = hn::And(acts, own_b);
            vb = Select(push_b, Add3(vb, Scale3(inv_mass_b, impulse)), vb);
            wb = Select(push_b, Add3(wb, Times(inertia_b, Cross(load3(f.rb[p]), impulse))), wb);
        }
    }
    const V twist = load(u.twist);
    const M twists = hn::Ne(twist, zero);
    if (!hn::AllFalse(d, twists)) {
        wa = Select(hn::And(twists, own_a), Sub3(wa, Scale3(twist, Times(inertia_a, n))), wa);
        if constexpr (!kStillB) wb = Select(hn::And(twists, own_b), Add3(wb, Scale3(twist, Times(inertia_b, n))), wb);
    }
    store3(va, f.va);
    store3(wa, f.wa);
    if constexpr (!kStillB) {
        store3(vb, f.vb);
        store3(wb, f.wb);
    }
}

// Each pass runs a batch's kNormalLanes lanes a vector at a time: once on AVX-512, twice on AVX2, four times on SSE4.
// The loops are unrolled so that each group's offset is a constant in its copy of the pass: left as loops, the
// batches of 16 cost AVX2 2.1 % more instructions over the base-100 pyramid than batches of 8 (callgrind, steps 3-6:
// 2,627 against 2,574 million); unrolled, 2,559 million (docs/benchmarks.md, "Sixteen lanes").
void WarmStart(SetUpLanes* u, NormalLanes* nl, FrictionLanes* f, bool still_b) {
    const std::size_t n = hn::Lanes(D());
#pragma GCC unroll 4
    for (std::size_t base = 0; base < kNormalLanes; base += n)
        still_b ? WarmStartAt<true>(*u, *nl, *f, base) : WarmStartAt<false>(*u, *nl, *f, base);
}

void SetUp(SetUpLanes* u, NormalLanes* nl, FrictionLanes* f, bool locate, bool fresh, bool use_bias, float inv_h,
           float max_push, bool still_b) {
    const std::size_t n = hn::Lanes(D());
#pragma GCC unroll 4
    for (std::size_t base = 0; base < kNormalLanes; base += n)
        still_b ? SetUpAt<true>(*u, *nl, *f, base, locate, fresh, use_bias, inv_h, max_push)
                : SetUpAt<false>(*u, *nl, *f, base, locate, fresh, use_bias, inv_h, max_push);
}

void Finish(SetUpLanes* u, NormalLanes* nl, FrictionLanes* f, float torsion_radius, bool still_b) {
    const std::size_t n = hn::Lanes(D());
#pragma GCC unroll 4
    for (std::size_t base = 0; base < kNormalLanes; base += n)
        still_b ? FinishAt<true>(*u, *nl, *f, base, torsion_radius)
                : FinishAt<false>(*u, *nl, *f, base, torsion_radius);
}

void Friction(FrictionLanes* s, bool use_bias, bool still_b) {
    const std::size_t n = hn::Lanes(D());
#pragma GCC unroll 4
    for (std::size_t base = 0; base < kNormalLanes; base += n)
        still_b ? FrictionAt<true>(*s, base, use_bias) : FrictionAt<false>(*s, base, use_bias);
}

void NormalPasses(Lanes* s, int passes, float tolerance, bool still_b) {
    const std::size_t n = hn::Lanes(D());
#pragma GCC unroll 4
    for (std::size_t base = 0; base < kNormalLanes; base += n)
        still_b ? PassesAt<true>(*s, base, passes, tolerance) : PassesAt<false>(*s, base, passes, tolerance);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace tumble::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tumble::detail {
HWY_EXPORT(NormalPasses);
HWY_EXPORT(Friction);
HWY_EXPORT(SetUp);
HWY_EXPORT(Finish);
HWY_EXPORT(WarmStart);

void warm_start_in_lanes(SetUpLanes& u, NormalLanes& normal, FrictionLanes& rubbing, bool still_b) {
    HWY_DYNAMIC_DISPATCH(WarmStart)(&u, &normal, &rubbing, still_b);
}

void set_up_in_lanes(SetUpLanes& u, NormalLanes& normal, FrictionLanes& rubbing, bool locate, bool fresh, bool use_bias,
                     float inv_h, float max_push, bool still_b) {
    HWY_DYNAMIC_DISPATCH(SetUp)(&u, &normal, &rubbing, locate, fresh, use_bias, inv_h, max_push, still_b);
}

void finish_in_lanes(SetUpLanes& u, NormalLanes& normal, FrictionLanes& rubbing, float torsion_radius, bool still_b) {
    HWY_DYNAMIC_DISPATCH(Finish)(&u, &normal, &rubbing, torsion_radius, still_b);
}

void friction_in_lanes(FrictionLanes& s, bool use_bias, bool still_b) {
    HWY_DYNAMIC_DISPATCH(Friction)(&s, use_bias, still_b);
}

void normal_passes_in_lanes(NormalLanes& s, int passes, float tolerance, bool still_b) {
    HWY_DYNAMIC_DISPATCH(NormalPasses)(&s, passes, tolerance, still_b);
}
}  // namespace tumble::detail
#endif  // HWY_ONCE
