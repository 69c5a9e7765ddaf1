#pragma once
/// @file
/// Plain value types of the narrowphase: axis-aligned box, oriented box, triangle and contact.
///
/// Conventions used throughout Tumble:
/// - Units are SI: metres, seconds, kilograms, radians.
/// - World frame is right-handed; Tumble does not care which axis is up (gravity is a setting), the bundled
///   levels use +Y up.
/// - Every shape is templated on its scalar type. `float` is the default and the fast path (`Obb`, `Aabb`,
///   `Triangle`, `Contact`); `double` (`ObbD`, ...) is for large worlds and offline tools.

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

#include <glm/glm.hpp>

namespace tumble {

template <class T>
using Vec3T = glm::vec<3, T, glm::defaultp>;
template <class T>
using Mat3T = glm::mat<3, 3, T, glm::defaultp>;
template <class T>
using Mat4T = glm::mat<4, 4, T, glm::defaultp>;

/// Axis-aligned box, world frame, metres. `min <= max` componentwise for a valid box; an "empty" box with
/// min > max is allowed as the neutral element of `merged` (see `AabbT::empty()`).
template <class T>
struct AabbT {
    Vec3T<T> min{T(0)};
    Vec3T<T> max{T(0)};

    /// The box that contains nothing: min = +huge, max = -huge. Merging anything into it gives that thing.
    static AabbT empty() {
        const T huge = std::numeric_limits<T>::max();
        return {Vec3T<T>(huge), Vec3T<T>(-huge)};
    }
    Vec3T<T> center() const { return (min + max) * T(0.5); }
    /// Half the size along each world axis (metres).
    Vec3T<T> half_extents() const { return (max - min) * T(0.5); }
    /// True when the closed boxes share at least one point (touching counts).
    bool overlaps(const AabbT& o) const {
        return min.x <= o.max.x && o.min.x <= max.x && min.y <= o.max.y && o.min.y <= max.y &&
               min.z <= o.max.z && o.min.z <= max.z;
    }
    /// True when `o` lies entirely inside this box (boundaries included).
    bool contains(const AabbT& o) const {
        return min.x <= o.min.x && min.y <= o.min.y && min.z <= o.min.z && o.max.x <= max.x &&
               o.max.y <= max.y && o.max.z <= max.z;
    }
    bool contains(const Vec3T<T>& p) const {
        return min.x <= p.x && min.y <= p.y && min.z <= p.z && p.x <= max.x && p.y <= max.y && p.z <= max.z;
    }
    AabbT merged(const AabbT& o) const { return {glm::min(min, o.min), glm::max(max, o.max)}; }
    AabbT merged(const Vec3T<T>& p) const { return {glm::min(min, p), glm::max(max, p)}; }
    /// Grown by `margin` metres on every side (a negative margin shrinks it).
    AabbT expanded(T margin) const { return {min - Vec3T<T>(margin), max + Vec3T<T>(margin)}; }
};

/// Oriented bounding box (OBB), world frame.
///
/// - `center`: world position of the box centre (metres).
/// - `axes`: the box's local x, y, z unit axes as the *columns* of the matrix (`axes[0]` is local x in world
///   coordinates). They must be orthonormal; a right-handed frame is expected but a left-handed one describes the
///   same box and is handled.
/// - `half_extents`: half the box size along each local axis (metres, >= 0; zero gives a flat box, a segment or
///   a point, all supported by the narrowphase).
///
/// Construction helpers follow the usual OBB representations (Ericson, Real-Time Collision Detection, 2005,
/// section 4.4): from a model-space AABB with a scale and a rotation-translation matrix, from an AABB, corners,
/// point containment, and a transform that separates scale from rotation. The interface resembles Cocos2d-x's OBB
/// class (cocos/3d/CCOBB.cpp); the comments below say where Tumble's answers differ from it.
template <class T>
struct ObbT {
    Vec3T<T> center{T(0)};
    Mat3T<T> axes{T(1)};
    Vec3T<T> half_extents{T(0)};

    /// The OBB equal to an axis-aligned box: identity axes (Cocos2d-x's `OBB(const AABB&)`).
    /// A box with min > max on some axis gives a negative half extent: check with `validate`.
    static ObbT from_aabb(const AabbT<T>& box) { return {box.center(), Mat3T<T>(T(1)), box.half_extents()}; }

    /// The world OBB of an object whose model-space bounds are `local`, drawn with per-axis `scale` and then the
    /// rigid `rotation_translation` matrix (column-major, GLM convention, translation in column 3). The centre of
    /// an off-centre local box is carried through the scale and the rotation; taking the matrix translation as the
    /// centre, a common shortcut, puts the box at the object's origin instead. Negative scale mirrors the box,
    /// which is the same set, so the extents use |scale|.
    /// Throws `InvalidArgument` when the upper 3x3 block is not a rotation (scale or shear inside the matrix:
    /// pass scale separately), or when any input is not finite.
    static ObbT from_local_aabb(const AabbT<T>& local, const Vec3T<T>& scale, const Mat4T<T>& rotation_translation);

    /// The 8 corners, world frame, in binary order of the local signs: corner k has local coordinates
    /// ((k & 1) ? +hx : -hx, (k & 2) ? +hy : -hy, (k & 4) ? +hz : -hz). Corner 0 is (-,-,-), corner 7 (+,+,+).
    std::array<Vec3T<T>, 8> corners() const {
        std::array<Vec3T<T>, 8> out{};
        for (int k = 0; k < 8; ++k) {
            Vec3T<T> p = center;
            for (int i = 0; i < 3; ++i) {
                const T s = (k >> i) & 1 ? half_extents[i] : -half_extents[i];
                p += axes[i] * s;
            }
            out[static_cast<std::size_t>(k)] = p;
        }
        return out;
    }

    /// True when world point `p` lies in the closed box (on the surface counts), as Cocos2d-x's `containPoint`.
    bool contains(const Vec3T<T>& p) const {
        const Vec3T<T> d = p - center;
        for (int i = 0; i < 3; ++i) {
            const T x = glm::dot(d, axes[i]);
            if (!(std::abs(x) <= half_extents[i])) return false;  // NaN: not contained
        }
        return true;
    }

    /// The tightest world AABB around the box: half size along world axis k is sum_i |axes[i][k]| * h_i.
    AabbT<T> aabb() const {
        Vec3T<T> r{T(0)};
        for (int i = 0; i < 3; ++i) r += glm::abs(axes[i]) * half_extents[i];
        return {center - r, center + r};
    }

    /// The box moved by the affine matrix `m` (column-major; the upper 3x3 block M may hold rotation and scale).
    /// Each local axis u_i maps to M u_i: the new axis is M u_i / |M u_i| and the new half extent h_i |M u_i|,
    /// which separates scale from rotation also when the box is rotated relative to the scale frame (Cocos2d-x's
    /// `OBB::transform` multiplies each extent by the matrix's scale along the same-numbered axis, which is wrong
    /// for such a box).
    /// The result is a box only when the mapped axes stay orthogonal (uniform scale, or non-uniform scale along
    /// the box's own axes); otherwise the image is a sheared parallelepiped and `InvalidArgument` is thrown, as
    /// it is for a singular or non-finite matrix or a projective last row.
    ObbT transformed(const Mat4T<T>& m) const;

    /// Volume in cubic metres.
    T volume() const { return T(8) * half_extents.x * half_extents.y * half_extents.z; }
};

/// Triangle, world frame, metres. Counter-clockwise seen from the front: the front normal is
/// (b - a) x (c - a), normalised. Degenerate triangles (collinear or coincident vertices) are accepted by the
/// narrowphase, which skips the axes they cannot define; the engine rejects them when a mesh is added.
template <class T>
struct TriangleT {
    Vec3T<T> a{T(0)};
    Vec3T<T> b{T(0)};
    Vec3T<T> c{T(0)};

    /// Unnormalised front normal (b - a) x (c - a); its length is twice the area.
    Vec3T<T> scaled_normal() const { return glm::cross(b - a, c - a); }
    Vec3T<T> centroid() const { return (a + b + c) / T(3); }
    AabbT<T> aabb() const { return {glm::min(glm::min(a, b), c), glm::max(glm::max(a, b), c)}; }
};

/// Result of a narrowphase test that found an overlap.
///
/// - `axis`: index of the separating-axis candidate with the smallest penetration (the numbering is fixed and
///   documented at `collide`).
/// - `negative`: true when the contact normal is the opposite of the axis as numbered (-L rather than +L).
/// - `depth`: penetration depth in metres along the unit normal: the distance the second shape must move along
///   `normal` (or the first along -`normal`) to separate them. Always >= 0; 0 for touching shapes.
/// - `normal`: unit contact normal, world frame, pointing from the first shape (A, or the box) towards the
///   second (B, or the triangle).
template <class T>
struct ContactT {
    int axis = -1;
    bool negative = false;
    T depth = T(0);
    Vec3T<T> normal{T(0)};
};

using Aabb = AabbT<float>;
using Obb = ObbT<float>;
using Triangle = TriangleT<float>;
using Contact = ContactT<float>;

extern template struct ObbT<float>;
extern template struct ObbT<double>;

using AabbD = AabbT<double>;
using ObbD = ObbT<double>;
using TriangleD = TriangleT<double>;
using ContactD = ContactT<double>;

}  // namespace tumble
