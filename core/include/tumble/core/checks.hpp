#pragma once
/// @file
/// Checks of user values that do not depend on shapes (module tumble::core): finiteness of numbers and of fixed-size
/// vectors, with messages that name the bad component. The shape checks built on them (`validate(Obb)` and the rest)
/// are in `<tumble/narrowphase/validate.hpp>`.
///
/// Convention (docs/architecture.md, "Errors"): a `check_*` function returns an empty string when the value is
/// usable and otherwise one phrase naming the problem and the value, meant to follow "<where>: " in an exception's
/// message; `require_ok` turns such a problem into `InvalidArgument`. None of these throws for a bad value on its
/// own, and none changes anything.

#include <cmath>
#include <concepts>
#include <string>
#include <string_view>

namespace tumble {

/// A fixed-size vector of floating-point components: any glm vector or quaternion (vec3, dvec3, vec4, quat), or any
/// type with a static `length()` giving its component count and `operator[]` giving component k.
template <class Vec>
concept FixedVector = requires(const Vec& v) {
    { Vec::length() } -> std::convertible_to<int>;
    { v[0] } -> std::convertible_to<double>;
};

/// True when `value` is neither NaN nor infinite.
template <std::floating_point T>
bool is_finite(T value) {
    return std::isfinite(value);
}

/// True when every component of `v` is finite (neither NaN nor infinite).
template <FixedVector Vec>
bool all_finite(const Vec& v) {
    for (int k = 0; k < static_cast<int>(Vec::length()); ++k)
        if (!std::isfinite(v[k])) return false;
    return true;
}

/// `value` as Tumble's messages print numbers: at most 9 significant digits (enough to tell any two floats apart),
/// "nan", "inf" or "-inf" for the special values. Example: 0.1f prints as "0.100000001".
std::string format_number(double value);

/// The name of component `k` of a vector in messages: "x", "y", "z", "w" for k = 0..3, "[k]" otherwise.
std::string component_name(int k);

/// Empty when `value` is finite; otherwise "<name> is <value> (must be finite)".
std::string check_finite(double value, std::string_view name);

/// Empty when every component of `v` is finite; otherwise "<name>.<component> is <value> (must be finite)" for the
/// first component that is not, e.g. "center.y is nan (must be finite)".
template <FixedVector Vec>
std::string check_finite(const Vec& v, std::string_view name) {
    for (int k = 0; k < static_cast<int>(Vec::length()); ++k)
        if (!std::isfinite(v[k]))
            return std::string(name) + "." + component_name(k) + " is " + format_number(static_cast<double>(v[k])) +
                   " (must be finite)";
    return {};
}

/// Does nothing when `problem` is empty; otherwise throws `InvalidArgument` with the message "<what>: <problem>"
/// (`what` names the call and the argument, e.g. "World::overlap_box: box").
void require_ok(std::string_view problem, std::string_view what);

}  // namespace tumble
