// tumble-events: collision layers, a sensor (trigger volume) and contact events (docs/game.md, "Filtering,
// sensors, events").
//
// A floor, a trigger volume hanging in the air, and three boxes dropped through the trigger: a crate (layer 1),
// a ghost on layer 2 that only collides with layer 2 (so it falls through the floor), and a heavy crate. A
// callback prints every begin and end event as it happens; persist events are counted. After the crates settle
// they fall asleep, and their pairs go quiet (no events while asleep). The ghost is not seen by the trigger either:
// the trigger is on layer 1, which the ghost's mask leaves out.
//
//   tumble-events

#include <cstdio>
#include <map>
#include <string>

#include <tumble/tumble.hpp>

int main() {
    tumble::World world;
    std::map<std::uint32_t, std::string> names;
    auto add = [&](const char* name, tumble::BodyDef def) {
        const tumble::BodyId id = world.create_body(def);
        names[id.index] = name;
        return id;
    };

    tumble::BodyDef floor;
    floor.position = {0, -0.5f, 0};
    floor.half_extents = {10, 0.5f, 10};
    floor.mass = 0.0f;
    add("floor", floor);

    tumble::BodyDef trigger;
    trigger.position = {0, 2, 0};
    trigger.half_extents = {3, 0.5f, 3};
    trigger.mass = 0.0f;
    trigger.sensor = true;  // reports overlaps, never pushes
    add("trigger", trigger);

    tumble::BodyDef crate;
    crate.position = {-1, 5, 0};
    crate.half_extents = glm::vec3(0.4f);
    add("crate", crate);

    tumble::BodyDef ghost = crate;
    ghost.position = {1, 5, 0};
    ghost.layer = 2;  // on layer 2 ...
    ghost.mask = 2;   // ... colliding with layer 2 only: the floor (layer 1) does not stop it
    add("ghost", ghost);

    tumble::BodyDef heavy = crate;
    heavy.position = {0, 7, 1};
    heavy.mass = 20.0f;
    add("heavy crate", heavy);

    int step = 0;
    int persists = 0;
    world.set_contact_callback([&](const tumble::ContactEvent& e) {
        if (e.type == tumble::ContactEventType::persist) {
            ++persists;
            return;
        }
        std::printf("step %3d  %-5s  %s + %s  (%s, depth %.4f m)\n", step,
                    e.type == tumble::ContactEventType::begin ? "begin" : "end", names[e.a.index].c_str(),
                    e.b.is_null() ? "mesh" : names[e.b.index].c_str(), e.sensor ? "sensor overlap" : "contact",
                    static_cast<double>(e.contact.depth));
    });

    for (step = 1; step <= 180; ++step) {
        world.step(1.0f / 60.0f);
        if (step % 60 == 0)
            std::printf("step %3d  %zu events this step, %d persist events so far, %zu bodies asleep, ghost at y = %.2f\n",
                        step, world.contact_events().size(), persists, world.stats().sleeping_bodies,
                        static_cast<double>(world.body(tumble::BodyId{3, 1}).position.y));
    }
    std::printf("contacts after the last step (sleeping ones included): %zu\n", world.contacts().size());
    return 0;
}
