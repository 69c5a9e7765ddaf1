#include <tumble/narrowphase/validate.hpp>

#include <algorithm>
#include <cmath>
#include <type_traits>

#include <tumble/core/checks.hpp>

namespace tumble {

template <class T>
std::string validate_rotation(const Mat3T<T>& m) {
    for (int i = 0; i < 3; ++i) {
        std::string p = check_finite(m[i], "column " + std::to_string(i));
        if (!p.empty()) return p;
    }
    for (int i = 0; i < 3; ++i) {
        const double len = std::sqrt(glm::dot(glm::dvec3(m[i]), glm::dvec3(m[i])));
        if (std::abs(len - 1.0) > kOrthonormalTolerance)
            return "axis " + component_name(i) + " has length " + format_number(len) +
                   " (a rotation needs unit axes; is there a scale in the matrix?)";
        for (int j = i + 1; j < 3; ++j) {
            const double d = glm::dot(glm::dvec3(m[i]), glm::dvec3(m[j]));
            if (std::abs(d) > kOrthonormalTolerance)
                return "axes " + component_name(i) + " and " + component_name(j) + " have dot product " +
                       format_number(d) + " (a rotation needs orthogonal axes; is there a shear in the matrix?)";
        }
    }
    return {};
}

template <class T>
std::string validate(const ObbT<T>& box) {
    std::string p = check_finite(box.center, "center");
    if (p.empty()) p = check_finite(box.half_extents, "half_extents");
    if (!p.empty()) return p;
    for (int k = 0; k < 3; ++k)
        if (box.half_extents[k] < T(0))
            return "half_extents." + component_name(k) + " is " +
                   format_number(static_cast<double>(box.half_extents[k])) + " (must be >= 0)";
    p = validate_rotation(box.axes);
    if (!p.empty()) return "axes: " + p;
    return {};
}

template <class T>
std::string validate(const AabbT<T>& box) {
    std::string p = check_finite(box.min, "min");
    if (p.empty()) p = check_finite(box.max, "max");
    if (!p.empty()) return p;
    for (int k = 0; k < 3; ++k)
        if (box.min[k] > box.max[k])
            return "min." + component_name(k) + " (" + format_number(static_cast<double>(box.min[k])) +
                   ") is above max." + component_name(k) + " (" + format_number(static_cast<double>(box.max[k])) + ")";
    return {};
}

template <class T>
std::string validate(const TriangleT<T>& tri) {
    std::string p = check_finite(tri.a, "a");
    if (p.empty()) p = check_finite(tri.b, "b");
    if (p.empty()) p = check_finite(tri.c, "c");
    if (!p.empty()) return p;
    // |n| <= kDegenerateTriangleEpsilon * (longest edge)^2: see validate.hpp.
    const glm::dvec3 a(tri.a), b(tri.b), c(tri.c);
    const double e2 = std::max({glm::dot(b - a, b - a), glm::dot(c - b, c - b), glm::dot(a - c, a - c)});
    const glm::dvec3 n = glm::cross(b - a, c - a);
    if (!(glm::dot(n, n) > kDegenerateTriangleEpsilon * kDegenerateTriangleEpsilon * e2 * e2))
        return "the triangle is degenerate (collinear or coincident vertices, area " +
               format_number(0.5 * std::sqrt(glm::dot(n, n))) + " m^2)";
    return {};
}

template <class Shape>
void require_valid(const Shape& shape, std::string_view what) {
    if constexpr (std::is_same_v<Shape, AabbT<float>> || std::is_same_v<Shape, AabbT<double>>) {
        // The common case without building strings: proxy updates run this once per body and step.
        bool ok = true;
        for (int k = 0; k < 3; ++k)
            ok = ok && std::isfinite(shape.min[k]) && std::isfinite(shape.max[k]) && shape.min[k] <= shape.max[k];
        if (ok) return;
    }
    require_ok(validate(shape), what);
}

template std::string validate_rotation<float>(const Mat3T<float>&);
template std::string validate_rotation<double>(const Mat3T<double>&);
template std::string validate<float>(const ObbT<float>&);
template std::string validate<double>(const ObbT<double>&);
template std::string validate<float>(const AabbT<float>&);
template std::string validate<double>(const AabbT<double>&);
template std::string validate<float>(const TriangleT<float>&);
template std::string validate<double>(const TriangleT<double>&);
template void require_valid<ObbT<float>>(const ObbT<float>&, std::string_view);
template void require_valid<ObbT<double>>(const ObbT<double>&, std::string_view);
template void require_valid<AabbT<float>>(const AabbT<float>&, std::string_view);
template void require_valid<AabbT<double>>(const AabbT<double>&, std::string_view);
template void require_valid<TriangleT<float>>(const TriangleT<float>&, std::string_view);
template void require_valid<TriangleT<double>>(const TriangleT<double>&, std::string_view);

}  // namespace tumble
