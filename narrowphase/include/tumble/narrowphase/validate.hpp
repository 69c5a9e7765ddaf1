#pragma once
/// @file
/// Checks of shapes against the domain the narrowphase and the engine expect. The engine calls these at its API
/// boundary; user code can call them on its own shapes. They follow the convention of `<tumble/core/checks.hpp>`
/// (which holds the shape-independent checks they are built on): `validate` returns the problem as a sentence,
/// empty when there is none, and `require_valid` throws it.

#include <string>
#include <string_view>

#include <tumble/narrowphase/shapes.hpp>

namespace tumble {

/// Tolerance on the axes of an OBB or a rotation: each axis must have unit length within this and each pair a
/// dot product within this (dimensionless). Loose on purpose: it catches a scale or shear left in a matrix, not
/// float round-off, which the narrowphase handles exactly.
inline constexpr double kOrthonormalTolerance = 1e-3;

/// A triangle is refused as degenerate when |(b - a) x (c - a)| <= kDegenerateTriangleEpsilon * (longest edge)^2
/// (roughly: its smallest angle is below 1e-8 rad, or two vertices coincide). The narrowphase itself handles far
/// thinner slivers exactly and skips the normal of collinear triangles, but a mesh triangle that thin is a
/// modelling error whose front side means nothing, so the engine refuses it when a mesh is added.
inline constexpr double kDegenerateTriangleEpsilon = 1e-8;

/// Empty when `box` is usable; otherwise one sentence naming the first problem found: a non-finite value,
/// a negative half extent, axes that are not orthonormal within `kOrthonormalTolerance`.
template <class T>
std::string validate(const ObbT<T>& box);

/// Empty when `box` is finite and min <= max on every axis; otherwise the first problem.
template <class T>
std::string validate(const AabbT<T>& box);

/// Empty when the vertices are finite and the triangle is not degenerate (see kDegenerateTriangleEpsilon);
/// otherwise the first problem.
template <class T>
std::string validate(const TriangleT<T>& tri);

/// Empty when the 3x3 matrix is finite and orthonormal within `kOrthonormalTolerance` (either handedness).
template <class T>
std::string validate_rotation(const Mat3T<T>& m);

/// Throws `InvalidArgument` with the message "<what>: <problem>" when `validate(shape)` reports a problem.
template <class Shape>
void require_valid(const Shape& shape, std::string_view what);

}  // namespace tumble
