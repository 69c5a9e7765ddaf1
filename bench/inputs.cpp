#include "inputs.hpp"

#include <cmath>

#include <glm/gtc/quaternion.hpp>

namespace bench {

glm::mat3 Rng::rotation() {
    const double u1 = uniform(), u2 = uniform(), u3 = uniform(), tau = 6.283185307179586;
    const double a = std::sqrt(1 - u1), b = std::sqrt(u1);
    return glm::mat3_cast(glm::normalize(glm::quat(static_cast<float>(b * std::cos(tau * u3)),
                                                   static_cast<float>(a * std::sin(tau * u2)),
                                                   static_cast<float>(a * std::cos(tau * u2)),
                                                   static_cast<float>(b * std::sin(tau * u3)))));
}

const std::vector<BoxPair>& box_pairs() {
    static const std::vector<BoxPair> pairs = [] {
        Rng rng(20261122);
        std::vector<BoxPair> out(kInputCount);
        for (BoxPair& p : out) {
            p.a = {rng.vec(-1.1f, 1.1f), rng.rotation(), rng.vec(0.2f, 1.0f)};
            p.b = {rng.vec(-1.1f, 1.1f), rng.rotation(), rng.vec(0.2f, 1.0f)};
        }
        return out;
    }();
    return pairs;
}

const std::vector<BoxTriangle>& box_triangles() {
    static const std::vector<BoxTriangle> pairs = [] {
        Rng rng(20261123);
        std::vector<BoxTriangle> out(kInputCount);
        for (BoxTriangle& p : out) {
            p.box = {glm::vec3(0.0f), rng.rotation(), rng.vec(0.2f, 1.0f)};
            const glm::vec3 c = rng.vec(-1.2f, 1.2f);
            p.tri = {c + rng.vec(-1.0f, 1.0f), c + rng.vec(-1.0f, 1.0f), c + rng.vec(-1.0f, 1.0f)};
        }
        return out;
    }();
    return pairs;
}

}  // namespace bench
