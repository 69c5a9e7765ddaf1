// The character controller: World::move_and_slide for a kinematic box.
//
// Collide and slide (Fauerby, "Improved Collision detection and Response", 2003: the sliding vector, the motion
// left minus its component along the normal of the face hit, and stopping short of the contact; Quake III Arena's
// PM_SlideMove and PM_StepSlideMove, id Software's GPL source release of 2005, for the clip planes, creases and the
// step-up attempt). One call:
//   0. depenetrate: if the box starts inside something (a body moved into it), push it out along the deepest
//      contact normal, a few times;
//   1. slide: sweep the remaining motion (exact swept SAT through World::sweep_box), move to the first contact
//      minus the skin, remove the component of what is left that goes into the surface, and repeat up to
//      max_iterations times. On walkable ground the vertical part of what is left is dropped (the ground carries
//      the character) and the horizontal part follows the slope at full horizontal speed. A wall steeper than
//      max_slope is clipped with its horizontal normal when the plain projection would lift the character (no
//      climbing steep slopes by sliding); a second surface met while sliding along a first one leaves only the
//      motion along their crease; motion turned against the desired direction stops (no jitter in corners);
//   2. step: when the slide was blocked by a wall while standing on the ground, try again lifted by step_height,
//      slide horizontally, and come back down; keep that path if it lands on walkable ground and got further;
//   3. snap: when the character stood on the ground, is not moving up and has lost the ground, pull it down onto
//      walkable ground within ground_snap (plus the drop of a max_slope slope over the distance moved);
//   4. ground: probe straight down by 2 skin + 1 cm for walkable ground and report it.
// Every path is made of sweeps from free positions, so the character never ends inside what its filter sees.

#include <algorithm>
#include <cmath>

#include <tumble/core/checks.hpp>
#include <tumble/core/error.hpp>
#include <tumble/narrowphase/sat.hpp>
#include <tumble/narrowphase/contact_policy.hpp>

#include "world_impl.hpp"

namespace tumble {

void validate(const CharacterSettings& s) {
    const auto bad = [](const std::string& what) { throw InvalidArgument("CharacterSettings: " + what); };
    if (!all_finite(s.up) ||
        !(std::abs(glm::length(s.up) - 1.0f) <= 1e-3f))
        bad("up must be a finite unit vector");
    if (!(s.max_slope >= 0.0f && s.max_slope < 1.5707963f))
        bad("max_slope is " + std::to_string(s.max_slope) + " (must be in [0, pi/2) radians)");
    if (!(std::isfinite(s.step_height) && s.step_height >= 0.0f))
        bad("step_height is " + std::to_string(s.step_height) + " (must be finite and >= 0 metres)");
    if (!(std::isfinite(s.skin) && s.skin > 0.0f))
        bad("skin is " + std::to_string(s.skin) + " (must be finite and > 0 metres)");
    if (s.max_iterations < 1) bad("max_iterations is " + std::to_string(s.max_iterations) + " (must be >= 1)");
    if (!(std::isfinite(s.ground_snap) && s.ground_snap >= 0.0f))
        bad("ground_snap is " + std::to_string(s.ground_snap) + " (must be finite and >= 0 metres)");
}

namespace {

constexpr float kTiny = 1e-6f;           // metres: motion shorter than this is done
constexpr float kGroundProbe = 0.01f;    // metres below the skin that still count as standing
constexpr float kMinApproach = 0.1f;     // cosine floor when converting the skin to a distance along the motion

struct Slide {
    glm::vec3 position{0.0f};
    bool hit_wall = false;
    bool hit_ceiling = false;
    int iterations = 0;
};

struct Ground {
    bool found = false;
    glm::vec3 normal{0.0f};
    BodyId body;
    MeshId mesh;
    std::uint32_t triangle = 0;
    float distance = 0.0f;  // metres down to it
};

class Mover {
public:
    Mover(const World::Impl& world, const World::Impl::Body& body, BodyId id, const CharacterSettings& settings)
        : world_(world), body_(body), settings_(settings), up_(glm::normalize(settings.up)),
          cos_max_(std::cos(settings.max_slope)) {
        filter_ = settings.filter;
        filter_.ignore = id;
        filter_.sensors = false;
        filter_.wake = false;
    }

    Obb box_at(const glm::vec3& p) const { return body_.obb_at(p); }
    bool walkable(const glm::vec3& surface) const { return glm::dot(surface, up_) >= cos_max_; }

    std::optional<BoxSweepHit> sweep(const glm::vec3& p, const glm::vec3& d) const {
        return world_.sweep_box(box_at(p), d, filter_, "World::move_and_slide");
    }

    // Moves along d from p until the first contact, stopping `skin` short of it (measured along the contact
    // normal, the motion floor-clamped at kMinApproach). Returns the free distance travelled and the hit.
    std::pair<float, std::optional<BoxSweepHit>> advance(const glm::vec3& p, const glm::vec3& d) const {
        const float length = glm::length(d);
        std::optional<BoxSweepHit> hit = sweep(p, d);
        if (!hit) return {length, hit};
        const glm::vec3 dir = d / length;
        const float approach = std::max(glm::dot(dir, hit->normal), kMinApproach);
        const float travel = std::max(0.0f, hit->toi * length - settings_.skin / approach);
        return {travel, hit};
    }

    // Collide and slide (step 1).
    Slide slide(glm::vec3 p, const glm::vec3& motion) const {
        Slide out;
        glm::vec3 remaining = motion;
        glm::vec3 planes[8];
        int plane_count = 0;
        for (int iteration = 0; iteration < settings_.max_iterations; ++iteration) {
            const float length = glm::length(remaining);
            if (!(length > kTiny)) break;
            ++out.iterations;
            const auto [travel, hit] = advance(p, remaining);
            const glm::vec3 dir = remaining / length;
            p += dir * travel;
            if (!hit) {
                remaining = glm::vec3(0.0f);
                break;
            }
            remaining -= dir * travel;
            const glm::vec3 surface = -hit->normal;  // facing the character
            const float rise = glm::dot(surface, up_);
            if (rise <= -cos_max_) out.hit_ceiling = true;
            else if (!walkable(surface)) out.hit_wall = true;
            glm::vec3 next = remaining - surface * std::min(0.0f, glm::dot(remaining, surface));
            if (walkable(surface)) {
                // Ground: it carries the character, so what pressed into it (gravity) is dropped and the horizontal
                // motion follows the ground's slope at full horizontal speed, up or down.
                const glm::vec3 flat = remaining - up_ * glm::dot(remaining, up_);
                next = flat - up_ * (glm::dot(flat, surface) / rise);
            } else if (glm::dot(next, up_) > std::max(glm::dot(remaining, up_), 0.0f) + kTiny) {
                // A steep slope would lift the character: clip with its horizontal normal instead (a wall).
                glm::vec3 flat = surface - up_ * rise;
                if (glm::dot(flat, flat) > 1e-12f) {
                    flat = glm::normalize(flat);
                    next = remaining - flat * std::min(0.0f, glm::dot(remaining, flat));
                    next -= up_ * std::max(0.0f, glm::dot(next, up_) - std::max(glm::dot(remaining, up_), 0.0f));
                }
            }
            // Creases: sliding into a surface met before leaves only the motion along both.
            for (int j = 0; j < plane_count; ++j) {
                if (glm::dot(next, planes[j]) >= -kTiny) continue;
                glm::vec3 crease = glm::cross(planes[j], surface);
                const float c2 = glm::dot(crease, crease);
                next = c2 > 1e-12f ? crease * (glm::dot(next, crease) / c2) : glm::vec3(0.0f);
                break;
            }
            if (plane_count < 8) planes[plane_count++] = surface;
            if (glm::dot(next, motion) <= 0.0f) break;  // turned back: stop rather than jitter in a corner
            remaining = next;
        }
        out.position = p;
        return out;
    }

    // Walkable ground within `distance` below p.
    Ground ground_below(const glm::vec3& p, float distance) const {
        Ground g;
        const std::optional<BoxSweepHit> hit = sweep(p, -up_ * distance);
        if (!hit || !walkable(-hit->normal)) return g;
        g.found = true;
        g.normal = -hit->normal;
        g.body = hit->body;
        g.mesh = hit->mesh;
        g.triangle = hit->triangle;
        g.distance = hit->toi * distance;
        return g;
    }

    // Pushes the box out of what it overlaps (step 0). Returns true when it moved.
    bool depenetrate(glm::vec3& p) const {
        bool moved = false;
        for (int iteration = 0; iteration < 4; ++iteration) {
            const Obb box = box_at(p);
            const OverlapResult overlaps = world_.overlap_box(box, filter_);
            std::optional<Contact> deepest;
            auto consider = [&](const std::optional<Contact>& c) {
                if (c && (!deepest || c->depth > deepest->depth)) deepest = c;
            };
            for (BodyId id : overlaps.bodies) consider(collide(box, world_.state.bodies[id.index].obb()));
            for (const MeshTriangle& t : overlaps.triangles) {
                const Triangle& tri = world_.state.meshes[t.mesh.index].index.triangle(t.triangle);
                consider(filter_.back_faces ? collide(box, tri) : mesh_contact(box, tri, box.center));
            }
            if (!deepest) break;
            p -= deepest->normal * (deepest->depth + settings_.skin);
            moved = true;
        }
        return moved;
    }

    const glm::vec3& up() const { return up_; }

private:
    const World::Impl& world_;
    const World::Impl::Body& body_;
    const CharacterSettings& settings_;
    QueryFilter filter_;
    glm::vec3 up_;
    float cos_max_;
};

glm::vec3 horizontal(const glm::vec3& v, const glm::vec3& up) { return v - up * glm::dot(v, up); }

}  // namespace

CharacterMove World::move_and_slide(BodyId character, const glm::vec3& desired_displacement,
                                    const CharacterSettings& settings) {
    Impl& w = *impl_;
    const Impl::Body& body = w.live_body(character, "World::move_and_slide");
    if (!body.kinematic)
        throw InvalidArgument("World::move_and_slide: body {" + std::to_string(character.index) + ", " +
                              std::to_string(character.generation) + "} is not kinematic (BodyDef::kinematic)");
    if (!all_finite(desired_displacement))
        throw InvalidArgument("World::move_and_slide: desired_displacement is not finite");
    validate(settings);

    const Mover mover(w, body, character, settings);
    const glm::vec3 up = mover.up();
    const float probe = 2.0f * settings.skin + kGroundProbe;
    CharacterMove result;
    const glm::vec3 start = body.position;
    glm::vec3 p = start;

    // 0. Out of anything that moved into the character.
    result.depenetrated = mover.depenetrate(p);
    const bool was_on_ground = mover.ground_below(p, probe).found;

    // 1. Slide.
    Slide path = mover.slide(p, desired_displacement);

    // 2. Step up, when a wall blocked the way while on the ground.
    const glm::vec3 flat = horizontal(desired_displacement, up);
    if (path.hit_wall && was_on_ground && settings.step_height > 0.0f && glm::length(flat) > kTiny) {
        const auto [lift, ceiling] = mover.advance(p, up * settings.step_height);
        (void)ceiling;
        const Slide raised = mover.slide(p + up * lift, flat);
        const float drop = lift + probe;
        const auto [fall, landing] = mover.advance(raised.position, -up * drop);
        if (landing && mover.walkable(-landing->normal)) {
            const glm::vec3 landed = raised.position - up * fall;
            const float got_stepping = glm::length(horizontal(landed - p, up));
            const float got_sliding = glm::length(horizontal(path.position - p, up));
            if (got_stepping > got_sliding + 1e-4f) {
                path = raised;
                path.position = landed;
                result.stepped_up = glm::dot(landed - p, up) > settings.skin;
            }
        }
    }
    p = path.position;
    result.hit_wall = path.hit_wall;
    result.hit_ceiling = path.hit_ceiling;
    result.iterations = path.iterations;

    // 3. Follow the ground down slopes and steps.
    Ground ground = mover.ground_below(p, probe);
    if (!ground.found && was_on_ground && glm::dot(desired_displacement, up) <= kTiny) {
        const float reach = settings.ground_snap + glm::length(horizontal(p - start, up)) * std::tan(settings.max_slope);
        const auto [fall, landing] = mover.advance(p, -up * reach);
        if (landing && mover.walkable(-landing->normal)) {
            p -= up * fall;
            ground = mover.ground_below(p, probe);
        }
    }

    // 4. Report, and commit the move (waking sleeping bodies next to the old and new boxes).
    result.position = p;
    result.displacement = p - start;
    result.on_ground = ground.found;
    if (ground.found) {
        result.ground_normal = ground.normal;
        result.ground_body = ground.body;
        result.ground_mesh = ground.mesh;
        result.ground_triangle = ground.triangle;
    }
    if (p != start) {
        Impl::Body moved = body;
        moved.position = p;
        w.user_changed(character.index, moved);
    }
    return result;
}

}  // namespace tumble
