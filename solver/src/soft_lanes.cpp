// The soft step's local passes over the normal constraints of several manifolds in SIMD lanes (solver_internal.hpp,
// NormalLanes): the same operations, in the same order, as the one-manifold loop of soft_step.cpp (`visit` in
// `solve_pass`), one manifold per lane, so that every lane's result has the bits that loop gives. Where that loop skips
// the rest of a point whose impulse did not change, and stops a manifold's passes, the lanes keep their values instead
// (the dot products are glm::dot's (x + y) + z; std::max(x, 0) is x < 0 ? 0 : x). Highway compiles it for
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

using D = hn::CappedTag<float, kNormalLanes>;
using DI = hn::RebindToSigned<D>;
using V = hn::Vec<D>;
using M = hn::Mask<D>;
using Lanes = NormalLanes;

// The lanes base .. base + Lanes(d) - 1 of `s`, to the end of their passes.
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
    for (int pass = 0; pass < passes && !hn::AllFalse(d, active); ++pass) {
        V largest = zero;
        for (int p = 0; p < 4; ++p) {
            const M on = hn::And(active, has[p]);
            const V db = hn::Add(hn::Add(hn::Mul(dwb[0], load(s.ub[p][0])), hn::Mul(dwb[1], load(s.ub[p][1]))),
                                 hn::Mul(dwb[2], load(s.ub[p][2])));
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

void NormalPasses(Lanes* s, int passes, float tolerance) {
    const std::size_t n = hn::Lanes(D());
    for (std::size_t base = 0; base < kNormalLanes; base += n) PassesAt(*s, base, passes, tolerance);
}

// NOLINTNEXTLINE(google-readability-namespace-comments)
}  // namespace tumble::detail::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tumble::detail {
HWY_EXPORT(NormalPasses);

void normal_passes_in_lanes(NormalLanes& s, int passes, float tolerance) {
    HWY_DYNAMIC_DISPATCH(NormalPasses)(&s, passes, tolerance);
}
}  // namespace tumble::detail
#endif  // HWY_ONCE
