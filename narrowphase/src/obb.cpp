// OBB construction and transformation (Ericson, Real-Time Collision Detection, 2005, section 4.4; see shapes.hpp
// for the contract and where it differs from common implementations).

#include <tumble/narrowphase/shapes.hpp>

#include <cmath>
#include <string>

#include <tumble/core/error.hpp>
#include <tumble/narrowphase/validate.hpp>

namespace tumble {
namespace {

template <class T>
bool finite(const Mat4T<T>& m) {
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r)
            if (!std::isfinite(m[c][r])) return false;
    return true;
}

// The last row of an affine matrix is (0, 0, 0, 1).
template <class T>
bool affine(const Mat4T<T>& m) {
    return m[0][3] == T(0) && m[1][3] == T(0) && m[2][3] == T(0) && m[3][3] == T(1);
}

// Gram-Schmidt on the columns, keeping column 0's direction; then a right-handed frame.
template <class T>
Mat3T<T> orthonormalized(const Mat3T<T>& m) {
    glm::dvec3 x = glm::normalize(glm::dvec3(m[0]));
    glm::dvec3 y = glm::dvec3(m[1]) - x * glm::dot(x, glm::dvec3(m[1]));
    y = glm::normalize(y);
    glm::dvec3 z = glm::cross(x, y);
    return Mat3T<T>(Vec3T<T>(x), Vec3T<T>(y), Vec3T<T>(z));
}

}  // namespace

template <class T>
ObbT<T> ObbT<T>::from_local_aabb(const AabbT<T>& local, const Vec3T<T>& scale, const Mat4T<T>& rotation_translation) {
    const char* what = "Obb::from_local_aabb";
    require_valid(local, std::string(what) + ": local");
    for (int k = 0; k < 3; ++k)
        if (!std::isfinite(scale[k])) throw InvalidArgument(std::string(what) + ": scale is not finite");
    if (!finite(rotation_translation))
        throw InvalidArgument(std::string(what) + ": rotation_translation has a non-finite element");
    if (!affine(rotation_translation))
        throw InvalidArgument(std::string(what) + ": rotation_translation's last row is not (0, 0, 0, 1)");
    const Mat3T<T> r(rotation_translation);
    const std::string problem = validate_rotation(r);
    if (!problem.empty())
        throw InvalidArgument(std::string(what) + ": rotation_translation is not a rigid motion: " + problem +
                              "; pass the scale in the scale argument");
    ObbT out;
    out.axes = orthonormalized(r);
    const Vec3T<T> offset = local.center() * scale;  // the local box's centre, scaled, still in model axes
    out.center = Vec3T<T>(rotation_translation[3]) + out.axes * offset;
    out.half_extents = local.half_extents() * glm::abs(scale);
    return out;
}

template <class T>
ObbT<T> ObbT<T>::transformed(const Mat4T<T>& m) const {
    const char* what = "Obb::transformed";
    if (!finite(m)) throw InvalidArgument(std::string(what) + ": the matrix has a non-finite element");
    if (!affine(m)) throw InvalidArgument(std::string(what) + ": the matrix's last row is not (0, 0, 0, 1)");
    const Mat3T<T> m3(m);
    Mat3T<T> mapped;
    ObbT out;
    for (int i = 0; i < 3; ++i) {
        const glm::dvec3 u = glm::dmat3(m3) * glm::dvec3(axes[i]);
        const double len = std::sqrt(glm::dot(u, u));
        if (!(len > 1e-12))
            throw InvalidArgument(std::string(what) + ": the matrix is singular (it collapses box axis " +
                                  std::to_string(i) + ")");
        mapped[i] = Vec3T<T>(u / len);
        out.half_extents[i] = static_cast<T>(static_cast<double>(half_extents[i]) * len);
    }
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
            if (std::abs(glm::dot(glm::dvec3(mapped[i]), glm::dvec3(mapped[j]))) > kOrthonormalTolerance)
                throw InvalidArgument(std::string(what) +
                                      ": the matrix shears the box (non-uniform scale along directions that are not "
                                      "the box's axes), so the image is not a box");
    out.axes = orthonormalized(mapped);
    // A mirroring matrix maps the frame to a left-handed one; the box is symmetric, so the right-handed frame
    // from orthonormalized() describes the same set.
    out.center = Vec3T<T>(m * glm::vec<4, T, glm::defaultp>(center, T(1)));
    return out;
}

template struct ObbT<float>;
template struct ObbT<double>;

}  // namespace tumble
