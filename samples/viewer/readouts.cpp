#include "readouts.hpp"

#include <cmath>
#include <cstdio>

namespace tumble::viewer {
namespace {

template <class... Args>
std::string format(const char* pattern, Args... args) {
    char buffer[160];
    std::snprintf(buffer, sizeof buffer, pattern, args...);
    return buffer;
}

std::string vec(const glm::vec3& v) {
    return format("%.3f, %.3f, %.3f", static_cast<double>(v.x), static_cast<double>(v.y), static_cast<double>(v.z));
}

}  // namespace

std::vector<Readout> step_stats_readouts(const World& world) {
    const StepStats& s = world.stats();
    return {
        {"bodies", std::to_string(world.body_count())},
        {"awake", std::to_string(s.awake_bodies)},
        {"sleeping", std::to_string(s.sleeping_bodies)},
        {"contacts (step)", std::to_string(s.contacts)},
        {"contacts (kept)", std::to_string(world.contacts().size())},
        {"body pairs", std::to_string(s.body_pairs)},
        {"triangle pairs", std::to_string(s.triangle_pairs)},
        {"CCD sweeps", std::to_string(s.ccd_sweeps)},
        {"step ms", format("%.3f", s.step_ms)},
        {"  integrate", format("%.3f", s.integrate_ms)},
        {"  broadphase", format("%.3f", s.broadphase_ms)},
        {"  narrowphase", format("%.3f", s.narrowphase_ms)},
        {"  solve", format("%.3f", s.solve_ms)},
        {"  velocities", format("%.3f", s.velocities_ms)},
        {"  report", format("%.3f", s.report_ms)},
        {"  sleep", format("%.3f", s.sleep_ms)},
    };
}

std::string body_kind(const BodyState& b) {
    std::string kind = b.kinematic ? "kinematic" : b.is_static() ? "static" : b.sleeping ? "dynamic, sleeping" : "dynamic";
    return b.sensor ? "sensor, " + kind : kind;
}

std::vector<Readout> body_readouts(const World& world, BodyId id) {
    const BodyState b = world.body(id);
    std::size_t contacts = 0;
    for (const ContactRecord& c : world.contacts()) contacts += (c.a == id || c.b == id) ? 1u : 0u;
    const double angle = 2.0 * std::acos(std::min(1.0, std::abs(static_cast<double>(b.orientation.w)))) * 57.29577951308232;
    return {
        {"id", format("%u (generation %u)", id.index, id.generation)},
        {"kind", body_kind(b)},
        {"position m", vec(b.position)},
        {"velocity m/s", vec(b.velocity)},
        {"speed m/s", format("%.3f", static_cast<double>(glm::length(b.velocity)))},
        {"angular velocity rad/s", vec(b.angular_velocity)},
        {"orientation", format("%.2f %.2f %.2f %.2f", static_cast<double>(b.orientation.w),
                               static_cast<double>(b.orientation.x), static_cast<double>(b.orientation.y),
                               static_cast<double>(b.orientation.z))},
        {"rotation deg", format("%.1f", angle)},
        {"half extents m", vec(b.half_extents)},
        {"mass kg", format("%.3f", static_cast<double>(b.mass))},
        {"inertia kg m2", vec(b.inertia)},
        {"friction / restitution", format("%.2f / %.2f", static_cast<double>(b.friction), static_cast<double>(b.restitution))},
        {"fixed rotation", b.fixed_rotation ? "yes" : "no"},
        {"CCD", b.ccd ? "on" : "off"},
        {"layer / mask", format("0x%llx / ", static_cast<unsigned long long>(b.layer)) +
                             (b.mask == kAllLayers ? std::string("all") : format("0x%llx", static_cast<unsigned long long>(b.mask)))},
        {"contacts", std::to_string(contacts)},
    };
}

}  // namespace tumble::viewer
