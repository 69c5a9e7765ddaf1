#pragma once
/// @file
/// Contact events: what began, persisted or ended touching in the last step (World::contact_events,
/// World::set_contact_callback). Conventions: docs/game.md.

#include <cstdint>

#include <tumble/engine/ids.hpp>
#include <tumble/narrowphase/shapes.hpp>

namespace tumble {

enum class ContactEventType : std::uint8_t {
    begin,    ///< the pair touches after this step and did not after the previous one
    persist,  ///< the pair touched after both steps
    end,      ///< the pair touched after the previous step and does not now (or one of them was destroyed)
};

/// One event for a pair of shapes. A pair is two bodies (`b` non-null, `mesh` null, `a` the one created first) or a body
/// and a static mesh (`b` null, `mesh` non-null): the contacts of a body with the triangles of one mesh count as
/// one pair, reported with its deepest triangle. Events come in one deterministic order: by `a`'s slot, then body
/// partners by slot before meshes by slot (generations break ties of reused slots).
///
/// Sleeping pairs produce no events: a pair that falls asleep touching neither persists nor ends while asleep, and
/// continues (persist or end) after it wakes. The pairs of a destroyed body or removed mesh end at the next step;
/// their ids are then no longer valid.
struct ContactEvent {
    ContactEventType type = ContactEventType::begin;
    BodyId a;
    BodyId b;
    MeshId mesh;
    std::uint32_t triangle = 0;  ///< the deepest triangle of a body-mesh pair
    /// The contact after this step (begin, persist) or after the previous one (end); normal from `a` towards `b` or
    /// the triangle, depth in metres. For sensors it is collide()'s answer: sensors are never pushed out.
    Contact contact;
    bool sensor = false;  ///< one of the bodies is a sensor: an overlap, not a contact the solver handled
};

}  // namespace tumble
