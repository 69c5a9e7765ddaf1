// libFuzzer target: the narrowphase (overlap, collide, collide_manifold, sweep; box-box and box-triangle; float and
// double; the batch SIMD overlap and collide on a Highway target chosen by the input) on shapes decoded from raw
// float bit patterns or from a grid of small values mixed with NaN, infinities, denormals and huge values.
//
// Input: a flags byte, a Highway target byte, then the shapes: box A, then box B or a triangle, then a displacement.
// A box is a centre, axes (a unit quaternion's matrix, or nine floats as they come) and half extents; a triangle is
// three vertices, or a degenerate one (two equal vertices, or three on a line).
//
// Properties (the contracts of sat.hpp, manifold.hpp, sweep.hpp, batch.hpp, validate.hpp):
// - nothing crashes, throws or trips a sanitizer, whatever the input;
// - a NaN or infinity anywhere gives "separated" / no contact / no manifold / no hit;
// - the batch overlap and collide equal the scalar ones bit for bit, for every input, on every target;
// - when `validate` accepts every shape (and the displacement is finite): overlap == collide has a value ==
//   collide_manifold has a value; the manifold carries collide's contact bit for bit; the contact has a valid axis,
//   a finite depth >= 0 no larger than the shapes can overlap, a unit normal; manifold points are finite, 1 to 4,
//   each with 0 <= depth <= the manifold's depth, point_a = point_b + depth * normal, each point on its own box
//   and, for a face contact, the incident point within the reference face's side planes; the float and double tests
//   agree on overlap; overlap is symmetric beyond round-off; a sweep hit has toi in [0, 1] and a unit normal, reports
//   an initial overlap exactly when overlap() does, moves into what it hits, and a sweep that reports nothing ends
//   where the shapes do not overlap beyond round-off.
// Geometric checks allow a margin of 2e-3 of the largest magnitude in the input: validate accepts axes that are
// orthonormal only within 1e-3, and the narrowphase computes with the axes as given.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <hwy/targets.h>

#include <tumble/narrowphase/batch.hpp>
#include <tumble/narrowphase/manifold.hpp>
#include <tumble/narrowphase/sat.hpp>
#include <tumble/narrowphase/sweep.hpp>
#include <tumble/narrowphase/validate.hpp>

#include "fuzz_support.hpp"

namespace {

using namespace tumble;
using fuzz::ByteReader;

enum Flags : std::uint8_t {
    kTriangle = 1,       // B is a triangle (else a box)
    kRawFloats = 2,      // every float is a raw bit pattern (else mixed: grid, special, raw)
    kRawAxesA = 4,       // A's axes are nine floats (else a quaternion's matrix)
    kRawAxesB = 8,
    kDegenerateTri = 16, // the triangle is degenerate (two equal vertices, or collinear)
    kDouble = 32,        // also run the double tests on the same values
};

struct Decoder {
    ByteReader& in;
    bool raw;
    float range;

    float value() { return raw ? in.raw_float() : in.mixed_float(range); }
    glm::vec3 vec3() {
        const float x = value(), y = value(), z = value();
        return {x, y, z};
    }
    Obb box(bool raw_axes) {
        Obb b;
        b.center = vec3();
        if (raw_axes) {
            for (int i = 0; i < 3; ++i) b.axes[i] = vec3();
        } else {
            b.axes = glm::mat3_cast(in.quaternion());
        }
        b.half_extents = vec3();
        return b;
    }
    Triangle triangle(bool degenerate) {
        Triangle t{vec3(), vec3(), vec3()};
        if (degenerate) {
            if (in.flag()) t.c = t.a;
            else t.c = t.a + (t.b - t.a) * in.small_float(4.0f);
        }
        return t;
    }
};

template <class T>
bool finite_vec(const Vec3T<T>& v) {
    return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}
template <class T>
bool all_finite(const ObbT<T>& b) {
    return finite_vec(b.center) && finite_vec(b.axes[0]) && finite_vec(b.axes[1]) && finite_vec(b.axes[2]) &&
           finite_vec(b.half_extents);
}
template <class T>
bool all_finite(const TriangleT<T>& t) {
    return finite_vec(t.a) && finite_vec(t.b) && finite_vec(t.c);
}

template <class T>
double magnitude(const Vec3T<T>& v) {
    return std::max({std::abs(double(v.x)), std::abs(double(v.y)), std::abs(double(v.z))});
}
template <class T>
double magnitude(const ObbT<T>& b) {
    return std::max({magnitude(b.center), magnitude(b.half_extents) * 3.0});
}
template <class T>
double magnitude(const TriangleT<T>& t) {
    return std::max({magnitude(t.a), magnitude(t.b), magnitude(t.c)});
}
template <class T>
double reach(const ObbT<T>& b) {  // an upper bound of the box's extent along any unit direction
    return 1.01 * (std::abs(double(b.half_extents.x)) + std::abs(double(b.half_extents.y)) +
                   std::abs(double(b.half_extents.z)));
}
template <class T>
double reach(const TriangleT<T>& t) {
    return glm::length(Vec3T<double>(t.b - t.a)) + glm::length(Vec3T<double>(t.c - t.a));
}

template <class T>
ObbT<T> moved(ObbT<T> b, const Vec3T<T>& d) {
    b.center += d;
    return b;
}

/// Distance by which `p` lies outside `b` (0 inside), measured with the box's axes as given; with `skip` in 0-2,
/// outside the slab of the other two axes only (the side planes of the faces normal to axis `skip`).
template <class T>
double outside(const ObbT<T>& b, const Vec3T<T>& p, int skip = -1) {
    double worst = 0.0;
    const Vec3T<double> d = Vec3T<double>(p) - Vec3T<double>(b.center);
    for (int i = 0; i < 3; ++i)
        if (i != skip)
            worst = std::max(worst, std::abs(glm::dot(d, Vec3T<double>(b.axes[i]))) - double(b.half_extents[i]));
    return worst;
}

std::string text(double v) { return std::to_string(v); }

// Departure of a box's axes from orthonormality, max |A_k . A_l - delta_kl| (sat.hpp's axis_error).
template <class T>
double axis_error(const ObbT<T>& b) {
    double e = 0.0;
    for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l)
            e = std::max(e, std::abs(glm::dot(Vec3T<double>(b.axes[k]), Vec3T<double>(b.axes[l])) - (k == l ? 1.0 : 0.0)));
    return e;
}
template <class T>
double axis_error(const TriangleT<T>&) { return 0.0; }
template <class T>
double largest_half(const ObbT<T>& b) {
    return std::max({double(b.half_extents.x), double(b.half_extents.y), double(b.half_extents.z)});
}
template <class T>
double largest_half(const TriangleT<T>& t) {
    return 0.5 * std::max({glm::length(Vec3T<double>(t.b - t.a)), glm::length(Vec3T<double>(t.c - t.b)),
                           glm::length(Vec3T<double>(t.a - t.c))});
}
/// How much collide()'s reported depth may exceed the least penetration because face axes are preferred
/// (kFaceBias* in sat.hpp): with non-orthonormal axes and long boxes this is metres, not round-off.
template <class T, class Shape>
double face_bias(const ObbT<T>& a, const Shape& b, double depth) {
    const double size = std::max(largest_half(a), largest_half(b));
    return kFaceBiasRelative * depth +
           (kFaceBiasAbsolute + kFaceBiasAxisError * std::max(axis_error(a), axis_error(b))) * size;
}

// A float result can overflow to infinity only when the exact value exceeds the largest float: shapes within a
// factor of 16 of FLT_MAX. Magnitude checks on the results are skipped for those.
template <class T>
bool may_overflow(double scale) {
    return std::is_same_v<T, float> && scale > double(std::numeric_limits<float>::max()) / 16.0;
}

template <class T, class Other>
void check_contact(const ContactT<T>& c, int axis_count, double depth_bound, double margin, bool overflow) {
    TUMBLE_FUZZ_CHECK(c.axis >= 0 && c.axis < axis_count, "axis " + std::to_string(c.axis));
    TUMBLE_FUZZ_CHECK((overflow || std::isfinite(c.depth)) && c.depth >= T(0), "depth " + text(double(c.depth)));
    TUMBLE_FUZZ_CHECK(overflow || double(c.depth) <= depth_bound + margin,
                      "depth " + text(double(c.depth)) + " beyond what the shapes can overlap, " + text(depth_bound));
    TUMBLE_FUZZ_CHECK(finite_vec(c.normal) && std::abs(glm::length(Vec3T<double>(c.normal)) - 1.0) <= 1e-5,
                      "normal not unit: length " + text(glm::length(Vec3T<double>(c.normal))));
}

template <class T, class Shape>
void check_manifold(const ManifoldT<T>& m, const ContactT<T>& c, const ObbT<T>& a, const Shape& b, double margin) {
    const ContactT<T> mc = m.contact();
    TUMBLE_FUZZ_CHECK(mc.axis == c.axis && mc.negative == c.negative && mc.depth == c.depth && mc.normal == c.normal,
                      "the manifold's contact differs from collide's");
    TUMBLE_FUZZ_CHECK(m.count >= 1 && m.count <= kMaxManifoldPoints, "manifold count " + std::to_string(m.count));
    for (int k = 0; k < m.count; ++k) {
        const ManifoldPointT<T>& p = m.points[static_cast<std::size_t>(k)];
        TUMBLE_FUZZ_CHECK(finite_vec(p.point_a) && finite_vec(p.point_b) && std::isfinite(p.depth),
                          "a manifold point is not finite");
        TUMBLE_FUZZ_CHECK(p.depth >= T(0) && double(p.depth) <= double(m.depth) + margin,
                          "point depth " + text(double(p.depth)) + " outside [0, " + text(double(m.depth)) + "]");
        const Vec3T<double> gap = Vec3T<double>(p.point_a) - Vec3T<double>(p.point_b) -
                                  double(p.depth) * Vec3T<double>(m.normal);
        TUMBLE_FUZZ_CHECK(magnitude(gap) <= margin, "point_a != point_b + depth * normal, off by " + text(magnitude(gap)));
        TUMBLE_FUZZ_CHECK(outside(a, p.point_a) <= margin, "point_a off A by " + text(outside(a, p.point_a)));
        // A face contact's incident point lies within the side planes of the reference face (of the axis's shape).
        if (m.axis < 3)
            TUMBLE_FUZZ_CHECK(outside(a, p.point_b, m.axis) <= margin,
                              "point_b outside A's face by " + text(outside(a, p.point_b, m.axis)));
        if constexpr (std::is_same_v<Shape, ObbT<T>>) {
            TUMBLE_FUZZ_CHECK(outside(b, p.point_b) <= margin, "point_b off B by " + text(outside(b, p.point_b)));
            if (m.axis >= 3 && m.axis < 6)
                TUMBLE_FUZZ_CHECK(outside(b, p.point_a, m.axis - 3) <= margin,
                                  "point_a outside B's face by " + text(outside(b, p.point_a, m.axis - 3)));
        }
    }
}

/// The scalar tests on valid shapes (both boxes, or box and triangle, pass validate; d finite).
template <class T, class Shape>
void check_valid(const ObbT<T>& a, const Shape& b, const Vec3T<T>& d) {
    constexpr bool box_pair = std::is_same_v<Shape, ObbT<T>>;
    const int axis_count = box_pair ? 15 : 13;
    const double scale = std::max({magnitude(a), magnitude(b), magnitude(d), 1e-30});
    const double margin = 2e-3 * scale;
    const double depth_bound = 2.0 * (reach(a) + reach(b));

    const bool o = overlap(a, b);
    const std::optional<ContactT<T>> c = collide(a, b);
    const std::optional<ManifoldT<T>> m = collide_manifold(a, b);
    TUMBLE_FUZZ_CHECK(o == c.has_value(), "overlap " + std::to_string(o) + " but collide " + std::to_string(c.has_value()));
    TUMBLE_FUZZ_CHECK(m.has_value() == c.has_value(), "collide_manifold disagrees with collide");
    if (c) {
        check_contact<T, Shape>(*c, axis_count, depth_bound, margin, may_overflow<T>(scale));
        // The manifold's clipping treats the shapes as boxes. A box whose axes are orthonormal only to e (float axes:
        // 1e-7, validate allows 1e-3) is a parallelepiped that leaves its box by e times its size; when that exceeds
        // the other shape's size (3.7e19 m against 1e7 m), clipping finds nothing and the fallback corner lies far
        // out (a limitation found by this target and left, docs/reliability.md): point checks skip such pairs.
        const double leak = std::max(axis_error(a) * largest_half(a), axis_error(b) * largest_half(b));
        const bool boxlike = leak <= 1e-3 * std::min(largest_half(a), largest_half(b));
        if (!may_overflow<T>(scale) && boxlike) check_manifold(*m, *c, a, b, margin);
        else if (!may_overflow<T>(scale)) TUMBLE_FUZZ_CHECK(m->contact().axis == c->axis, "manifold differs from collide");
    }
    if constexpr (box_pair) {
        const std::optional<ContactT<T>> r = collide(b, a);
        if (c && double(c->depth) - face_bias(a, b, double(c->depth)) > margin)
            TUMBLE_FUZZ_CHECK(r.has_value(), "A overlaps B by " + text(double(c->depth)) + " but B does not overlap A");
        if (r && double(r->depth) - face_bias(a, b, double(r->depth)) > margin)
            TUMBLE_FUZZ_CHECK(c.has_value(), "B overlaps A by " + text(double(r->depth)) + " but A does not overlap B");
    }

    // Sweeps: a zero displacement is overlap(); a hit is in [0, 1], initial exactly when overlapping, moves into
    // what it hits; no hit means the end position does not overlap beyond round-off.
    // The sweep decides the initial overlap with arithmetic of its own: it may disagree with overlap() only for
    // shapes that touch to within double round-off of the largest magnitude (1e-9 of it) and the face bias.
    const std::optional<SweepHitT<T>> still = sweep(a, Vec3T<T>(T(0)), b);
    // (collide()'s depth is the least penetration plus at most the face bias.)
    const double tight = 1e-9 * scale;
    const bool touching = (c && double(c->depth) <= tight + face_bias(a, b, double(c->depth))) ||
                          (still && double(still->depth) <= tight + face_bias(a, b, double(still->depth)));
    TUMBLE_FUZZ_CHECK(still.has_value() == o || touching, "a sweep by zero disagrees with overlap");
    const std::optional<SweepHitT<T>> h = sweep(a, d, b);
    if (o && !touching) TUMBLE_FUZZ_CHECK(h && h->initially_overlapping, "overlapping shapes but no initial hit");
    if (h) {
        TUMBLE_FUZZ_CHECK(h->toi >= T(0) && h->toi <= T(1), "toi " + text(double(h->toi)));
        TUMBLE_FUZZ_CHECK(h->axis >= 0 && h->axis < axis_count, "sweep axis " + std::to_string(h->axis));
        TUMBLE_FUZZ_CHECK(finite_vec(h->normal) && std::abs(glm::length(Vec3T<double>(h->normal)) - 1.0) <= 1e-5,
                          "sweep normal not unit");
        TUMBLE_FUZZ_CHECK((may_overflow<T>(scale) || std::isfinite(h->depth)) && h->depth >= T(0),
                          "sweep depth " + text(double(h->depth)));
        if (h->initially_overlapping) {
            TUMBLE_FUZZ_CHECK(o || double(h->depth) <= tight + face_bias(a, b, double(h->depth)),
                              "an initial hit for shapes that do not overlap");
            TUMBLE_FUZZ_CHECK(h->toi == T(0), "an initial hit at toi " + text(double(h->toi)));
        } else {
            TUMBLE_FUZZ_CHECK(h->depth == T(0), "a later hit with a depth");
            // dot(displacement, normal) > 0 for the normal in double; the returned normal is rounded to T, which
            // for a grazing approach can tip the product below zero by that rounding.
            TUMBLE_FUZZ_CHECK(glm::dot(Vec3T<double>(d), Vec3T<double>(h->normal)) >=
                                  -4.0 * double(std::numeric_limits<T>::epsilon()) * glm::length(Vec3T<double>(d)),
                              "the hit normal points against the motion");
        }
    } else {
        const std::optional<ContactT<T>> end = collide(moved(a, d), b);
        TUMBLE_FUZZ_CHECK(!end || double(end->depth) <= margin + face_bias(a, b, double(end->depth)),
                          "no hit, but the end position overlaps by " + text(double(end->depth)));
    }
}

/// Any input: no crash; non-finite input is separated; valid input passes check_valid.
template <class T, class Shape>
void check_pair(const ObbT<T>& a, const Shape& b, const Vec3T<T>& d) {
    const bool shapes_finite = all_finite(a) && all_finite(b);
    if (!shapes_finite) {
        TUMBLE_FUZZ_CHECK(!overlap(a, b), "non-finite input overlaps");
        TUMBLE_FUZZ_CHECK(!collide(a, b), "non-finite input collides");
        TUMBLE_FUZZ_CHECK(!collide_manifold(a, b), "non-finite input has a manifold");
    }
    if (!shapes_finite || !finite_vec(d)) {
        TUMBLE_FUZZ_CHECK(!sweep(a, d, b), "non-finite input is hit by a sweep");
        if (!shapes_finite) return;
        (void)overlap(a, b);
        (void)collide_manifold(a, b);
        return;
    }
    if (validate(a).empty() && validate(b).empty()) {
        check_valid(a, b, d);
        return;
    }
    // Invalid but finite: an unspecified answer, but an answer.
    (void)overlap(a, b);
    (void)collide(a, b);
    (void)collide_manifold(a, b);
    (void)sweep(a, d, b);
}

ObbD widen(const Obb& b) { return {Vec3T<double>(b.center), Mat3T<double>(b.axes), Vec3T<double>(b.half_extents)}; }
TriangleD widen(const Triangle& t) { return {Vec3T<double>(t.a), Vec3T<double>(t.b), Vec3T<double>(t.c)}; }

/// check_pair on the float shapes and, with `with_double`, on the same values in double; and the float and double
/// overlap agree on valid shapes (both are evaluated in double).
template <class Shape>
void check_float_and_double(const Obb& a, const Shape& b, const glm::vec3& d, bool with_double) {
    check_pair(a, b, d);
    if (with_double) check_pair(widen(a), widen(b), Vec3T<double>(d));
    if (all_finite(a) && all_finite(b) && validate(a).empty() && validate(b).empty())
        TUMBLE_FUZZ_CHECK(overlap(a, b) == overlap(widen(a), widen(b)), "float and double overlap disagree");
}

void check_batch(const Obb& a, const Obb& b) {
    const ObbBatch ba(std::span<const Obb>(&a, 1)), bb(std::span<const Obb>(&b, 1));
    std::uint8_t result = 2;
    overlap(ba, bb, std::span<std::uint8_t>(&result, 1));
    TUMBLE_FUZZ_CHECK(result == (overlap(a, b) ? 1 : 0), std::string("batch overlap differs on ") + batch_target_name());
    std::optional<Contact> contact;
    collide(ba, bb, std::span<std::optional<Contact>>(&contact, 1));
    const std::optional<Contact> scalar = collide(a, b);
    TUMBLE_FUZZ_CHECK(contact.has_value() == scalar.has_value(),
                      std::string("batch collide differs on ") + batch_target_name());
    if (contact) {
        TUMBLE_FUZZ_CHECK(contact->axis == scalar->axis && contact->negative == scalar->negative &&
                              std::memcmp(&contact->depth, &scalar->depth, sizeof(float)) == 0 &&
                              std::memcmp(&contact->normal, &scalar->normal, sizeof(glm::vec3)) == 0,
                          std::string("batch contact differs on ") + batch_target_name());
    }
}

// With TUMBLE_FUZZ_VERBOSE set, the decoded shapes are printed (to read a saved crash input).
void print(const char* name, const Obb& b) {
    std::fprintf(stderr, "%s: center (%.9g, %.9g, %.9g) half (%.9g, %.9g, %.9g) axes", name, b.center.x, b.center.y,
                 b.center.z, b.half_extents.x, b.half_extents.y, b.half_extents.z);
    for (int i = 0; i < 3; ++i) std::fprintf(stderr, " (%.9g, %.9g, %.9g)", b.axes[i].x, b.axes[i].y, b.axes[i].z);
    std::fprintf(stderr, "\n");
}
void print(const char* name, const Triangle& t) {
    std::fprintf(stderr, "%s: (%.9g, %.9g, %.9g) (%.9g, %.9g, %.9g) (%.9g, %.9g, %.9g)\n", name, t.a.x, t.a.y, t.a.z, t.b.x,
                 t.b.y, t.b.z, t.c.x, t.c.y, t.c.z);
}
void print(const char* name, const glm::vec3& v) { std::fprintf(stderr, "%s: (%.9g, %.9g, %.9g)\n", name, v.x, v.y, v.z); }
const bool kVerbose = std::getenv("TUMBLE_FUZZ_VERBOSE") != nullptr;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
    ByteReader in(data, size);
    const std::uint8_t flags = in.u8();
    const std::uint8_t target = in.u8();
    // Grid ranges from 2^-8 to 2^23 metres: millimetre shapes to shapes whose float spacing is a metre.
    const float range = std::ldexp(1.0f, static_cast<int>(in.u8() % 32) - 8);
    Decoder dec{in, (flags & kRawFloats) != 0, range};

    const Obb a = dec.box((flags & kRawAxesA) != 0);
    if (flags & kTriangle) {
        const Triangle t = dec.triangle((flags & kDegenerateTri) != 0);
        const glm::vec3 d = dec.vec3();
        if (kVerbose) print("box", a), print("triangle", t), print("displacement", d);
        check_float_and_double(a, t, d, (flags & kDouble) != 0);
        return 0;
    }
    const Obb b = dec.box((flags & kRawAxesB) != 0);
    const glm::vec3 d = dec.vec3();
    if (kVerbose) print("a", a), print("b", b), print("displacement", d);
    check_float_and_double(a, b, d, (flags & kDouble) != 0);

    hwy::SetSupportedTargetsForTest(targets[target % targets.size()]);
    check_batch(a, b);
    hwy::SetSupportedTargetsForTest(0);
    return 0;
}
