// Collision layers and masks, sensors, and contact events (begin, persist, end; list and callback; order).

#include <algorithm>
#include <map>

#include <gtest/gtest.h>

#include <tumble/tumble.hpp>

#include "support/game_scenes.hpp"
#include "support/test_util.hpp"

namespace {

using namespace gamescene;
using tumble::BodyId;
using tumble::ContactEvent;
using tumble::ContactEventType;
using tumble::World;

tumble::WorldSettings no_sleep() {
    tumble::WorldSettings s;
    s.sleep.enabled = false;
    return s;
}

TEST(Layers, ABoxFallsThroughWhatItsMaskExcludesAndPairsAreDroppedBeforeTheNarrowphase) {
    World w;
    const BodyId floor = w.create_body(box({0, -0.5f, 0}, {5, 0.5f, 5}, 0.0f));  // layer 1
    tumble::BodyDef ghost = box({-2, 1, 0});
    ghost.layer = 2;
    ghost.mask = 2;  // collides with layer 2 only: not the floor
    const BodyId g = w.create_body(ghost);
    tumble::BodyDef picky = box({2, 1, 0});
    picky.layer = 4;  // the floor's mask (all) accepts it, but its own mask must accept the floor's layer too
    picky.mask = ~std::uint64_t(1);
    const BodyId p = w.create_body(picky);
    const BodyId normal = w.create_body(box({0, 1, 3}));
    std::size_t pairs = 0;
    for (int n = 0; n < 120; ++n) {
        w.step(kDt);
        pairs = std::max(pairs, w.stats().body_pairs);
    }
    EXPECT_LT(w.body(g).position.y, -5.0f) << "fell through";
    EXPECT_LT(w.body(p).position.y, -5.0f) << "fell through";
    EXPECT_NEAR(w.body(normal).position.y, 0.5f, 0.01f) << "rests on the floor";
    EXPECT_EQ(pairs, 1u) << "only the normal box's pair with the floor reaches the narrowphase";
    (void)floor;

    // Meshes have layers too.
    World v;
    v.add_mesh(floor_mesh(), 8);
    tumble::BodyDef skip = box({0, 1, 0});
    skip.mask = ~std::uint64_t(8);
    const BodyId s = v.create_body(skip);
    const BodyId rests = v.create_body(box({3, 1, 0}));
    std::size_t triangle_pairs = 0;
    for (int n = 0; n < 120; ++n) {
        v.step(kDt);
        triangle_pairs = std::max(triangle_pairs, v.stats().triangle_pairs);
    }
    EXPECT_LT(v.body(s).position.y, -5.0f);
    EXPECT_NEAR(v.body(rests).position.y, 0.5f, 0.01f);
    EXPECT_LE(triangle_pairs, 2u) << "only the resting box queries the floor's triangles";
}

TEST(Layers, SetFilterWakesASleepingBodyAndTakesEffect) {
    World w;
    w.create_body(box({0, -0.5f, 0}, {5, 0.5f, 5}, 0.0f));
    const BodyId b = w.create_body(box({0, 0.5f, 0}));
    for (int n = 0; n < 90; ++n) w.step(kDt);
    ASSERT_TRUE(w.body(b).sleeping);
    w.set_filter(b, 2, 2);
    EXPECT_FALSE(w.body(b).sleeping);
    EXPECT_EQ(w.body(b).layer, 2u);
    for (int n = 0; n < 60; ++n) w.step(kDt);
    EXPECT_LT(w.body(b).position.y, -1.0f);
    EXPECT_THROW(w.set_filter(BodyId{99, 1}, 1, 1), tumble::InvalidArgument);
}

TEST(Sensors, ATriggerReportsABoxPassingThroughAndNeverPushesIt) {
    // The same falling box with and without a static sensor volume across its path: identical motion, bit for bit;
    // the sensor's events say when it entered, stayed and left.
    World with(no_sleep()), without(no_sleep());
    for (World* w : {&with, &without}) w->create_body(box({0, -10.5f, 0}, {5, 0.5f, 5}, 0.0f));
    tumble::BodyDef trigger = box({0, -3, 0}, {2, 1, 2}, 0.0f);
    trigger.sensor = true;
    const BodyId sensor = with.create_body(trigger);
    const BodyId in = with.create_body(box({0.5f, 2, 0}, glm::vec3(0.3f)));
    without.create_body(box({0.5f, 2, 0}, glm::vec3(0.3f)));
    std::vector<ContactEventType> seen;
    int first = -1, last = -1;
    for (int n = 0; n < 150; ++n) {
        with.step(kDt);
        without.step(kDt);
        const tumble::BodyState a = with.body(in), b = without.body(BodyId{1, 1});
        ASSERT_EQ(a.position, b.position) << "step " << n << ": the sensor changed the box's motion";
        for (const ContactEvent& e : with.contact_events()) {
            if (!e.sensor) continue;
            EXPECT_TRUE((e.a == sensor && e.b == in) || (e.a == in && e.b == sensor));
            EXPECT_GE(e.contact.depth, 0.0f);
            if (seen.empty() || seen.back() != e.type) seen.push_back(e.type);
            if (e.type == ContactEventType::begin) first = n;
            if (e.type == ContactEventType::end) last = n;
        }
    }
    EXPECT_EQ(seen, (std::vector<ContactEventType>{ContactEventType::begin, ContactEventType::persist, ContactEventType::end}));
    // The integrator (v += g h, then x += v h, in 8 substeps of h = dt / 8) has fallen g h^2 N (N + 1) / 2 after
    // N = 8 k substeps, g dt^2 k (k + 1/8) / 2 after k steps. The box's bottom (y - 0.3) touches the sensor's top
    // (y = -2) after 3.7 m: k (k + 1/8) >= 2715.6, k = 53 (step index 52); its top (y + 0.3) leaves the sensor's
    // bottom (y = -4) after more than 6.3 m: k (k + 1/8) > 4623.9, k = 68 (index 67).
    ASSERT_EQ(tumble::WorldSettings{}.solver.substeps, 8);
    EXPECT_EQ(first, 52);
    EXPECT_EQ(last, 67);
    EXPECT_TRUE(with.contacts().empty() || std::none_of(with.contacts().begin(), with.contacts().end(),
                                                         [&](const tumble::ContactRecord& c) { return c.a == sensor || c.b == sensor; }))
        << "sensor overlaps are not contacts";
}

TEST(Sensors, AMovingSensorPassesThroughBoxesWithoutMovingThem) {
    World w(no_sleep());
    w.create_body(box({0, -0.5f, 0}, {10, 0.5f, 10}, 0.0f));
    std::vector<BodyId> boxes;
    for (int i = 0; i < 5; ++i) boxes.push_back(w.create_body(box({-4.0f + 2.0f * static_cast<float>(i), 0.5f, 0})));
    for (int n = 0; n < 30; ++n) w.step(kDt);
    std::vector<glm::vec3> before;
    for (BodyId b : boxes) before.push_back(w.body(b).position);
    tumble::BodyDef sweeper = box({-8, 0.5f, 0}, {0.5f, 0.5f, 0.5f}, 0.0f);
    sweeper.kinematic = true;
    sweeper.sensor = true;
    sweeper.velocity = {4, 0, 0};
    const BodyId s = w.create_body(sweeper);
    int begins = 0, ends = 0;
    for (int n = 0; n < 240; ++n) {
        w.step(kDt);
        for (const ContactEvent& e : w.contact_events()) {
            if (!e.sensor) continue;
            EXPECT_TRUE(e.a == s || e.b == s);
            begins += e.type == ContactEventType::begin;
            ends += e.type == ContactEventType::end;
        }
    }
    EXPECT_EQ(begins, 5);
    EXPECT_EQ(ends, 5);
    for (std::size_t i = 0; i < boxes.size(); ++i)
        EXPECT_LT(glm::length(w.body(boxes[i]).position - before[i]), 1e-4f) << "box " << i << " was pushed";
    EXPECT_NEAR(w.body(s).position.x, -8.0f + 4.0f * 4.0f, 1e-3f) << "the kinematic sensor followed its velocity";
}

TEST(Events, BeginPersistEndForABoxLandingAndLiftedListAndCallbackAgree) {
    World w;
    const BodyId floor = w.create_body(box({0, -0.5f, 0}, {5, 0.5f, 5}, 0.0f));
    const BodyId b = w.create_body(box({0, 1.5f, 0}));
    std::vector<ContactEvent> heard;
    w.set_contact_callback([&](const ContactEvent& e) { heard.push_back(e); });
    std::vector<std::pair<int, ContactEventType>> timeline;
    std::size_t listed = 0;
    for (int n = 0; n < 120; ++n) {
        w.step(kDt);
        for (const ContactEvent& e : w.contact_events()) {
            EXPECT_EQ(e.a, floor);  // the lower slot comes first
            EXPECT_EQ(e.b, b);
            EXPECT_TRUE(e.mesh.is_null());
            EXPECT_FALSE(e.sensor);
            if (timeline.empty() || timeline.back().second != e.type) timeline.push_back({n, e.type});
            ++listed;
        }
    }
    ASSERT_EQ(timeline.size(), 2u);
    EXPECT_EQ(timeline[0].second, ContactEventType::begin);
    EXPECT_NEAR(timeline[0].first, 26, 1);  // falls 1 m: sqrt(2 / 9.81) = 0.45 s
    EXPECT_EQ(timeline[1].second, ContactEventType::persist);
    ASSERT_TRUE(w.body(b).sleeping) << "it has been resting for over 0.5 s";
    w.step(kDt);
    EXPECT_TRUE(w.contact_events().empty()) << "sleeping pairs send no events";
    EXPECT_EQ(w.contacts().size(), 1u) << "but their contact is still there";
    EXPECT_EQ(heard.size(), listed);

    // Lifted by the user: it wakes, and the pair ends at the next step.
    w.set_position(b, {0, 3, 0});
    w.step(kDt);
    ASSERT_EQ(w.contact_events().size(), 1u);
    EXPECT_EQ(w.contact_events()[0].type, ContactEventType::end);
    EXPECT_EQ(heard.back().type, ContactEventType::end);
    w.set_contact_callback({});
    for (int n = 0; n < 60; ++n) w.step(kDt);
    EXPECT_EQ(heard.back().type, ContactEventType::end) << "a removed callback hears nothing";
}

TEST(Events, AWokenPairPersistsAndADestroyedBodyEnds) {
    World w;
    w.create_body(box({0, -0.5f, 0}, {5, 0.5f, 5}, 0.0f));
    const BodyId b = w.create_body(box({0, 0.5f, 0}));
    for (int n = 0; n < 90; ++n) w.step(kDt);
    ASSERT_TRUE(w.body(b).sleeping);
    w.wake(b);
    w.step(kDt);
    ASSERT_EQ(w.contact_events().size(), 1u);
    EXPECT_EQ(w.contact_events()[0].type, ContactEventType::persist) << "it touched before it slept";
    w.destroy_body(b);
    w.step(kDt);
    ASSERT_EQ(w.contact_events().size(), 1u);
    EXPECT_EQ(w.contact_events()[0].type, ContactEventType::end);
    EXPECT_EQ(w.contact_events()[0].b, b);
    EXPECT_FALSE(w.is_valid(w.contact_events()[0].b));
    w.step(kDt);
    EXPECT_TRUE(w.contact_events().empty());
}

TEST(Events, ABodyOnSeveralTrianglesOfOneMeshIsOnePair) {
    World w;
    const tumble::MeshId m = w.add_mesh(floor_mesh(0.0f, 5.0f));  // two triangles meeting along the diagonal
    const BodyId b = w.create_body(box({0, 0.5f, 0}));
    w.step(kDt);
    EXPECT_EQ(w.contacts().size(), 2u) << "a contact per triangle";
    ASSERT_EQ(w.contact_events().size(), 1u) << "one event for the body-mesh pair";
    const ContactEvent& e = w.contact_events()[0];
    EXPECT_EQ(e.a, b);
    EXPECT_EQ(e.mesh, m);
    EXPECT_TRUE(e.b.is_null());
    float deepest = 0;
    for (const tumble::ContactRecord& c : w.contacts()) deepest = std::max(deepest, c.contact.depth);
    EXPECT_EQ(e.contact.depth, deepest);
}

TEST(Events, OrderIsSortedByPairAndRepeatable) {
    auto run = [] {
        World w;
        w.add_mesh(floor_mesh());
        testutil::Random rng(3);
        for (int i = 0; i < 150; ++i) {
            tumble::BodyDef d = box(rng.vec(-3, 3) + glm::vec3(0, 4, 0), rng.vec(0.1, 0.4));
            d.orientation = rng.rotation();
            d.sensor = i % 25 == 0;
            w.create_body(d);
        }
        std::vector<ContactEvent> all;
        std::size_t kinds[3] = {0, 0, 0};
        for (int n = 0; n < 180; ++n) {
            w.step(kDt);
            const auto events = w.contact_events();
            for (std::size_t i = 1; i < events.size(); ++i) {
                const ContactEvent& x = events[i - 1];
                const ContactEvent& y = events[i];
                const bool ordered = x.a != y.a ? x.a < y.a
                                     : x.mesh.is_null() != y.mesh.is_null() ? x.mesh.is_null()
                                     : x.mesh.is_null() ? x.b < y.b
                                                        : x.mesh < y.mesh;
                EXPECT_TRUE(ordered) << "step " << n << " event " << i;
            }
            for (const ContactEvent& e : events) ++kinds[static_cast<int>(e.type)];
            all.insert(all.end(), events.begin(), events.end());
        }
        EXPECT_GT(kinds[0], 100u);
        EXPECT_GT(kinds[1], 1000u);
        EXPECT_GT(kinds[2], 10u);
        return all;
    };
    const auto a = run(), b = run();
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].type, b[i].type);
        EXPECT_EQ(a[i].a, b[i].a);
        EXPECT_EQ(a[i].b, b[i].b);
        EXPECT_EQ(a[i].contact.depth, b[i].contact.depth);
    }
}

// The event list against an oracle built from contacts(): one entry per pair (a body-mesh pair keeps its deepest
// contact, the lowest triangle on ties), begin / persist / end from this step's pairs against the last step's, in
// pair order. Bodies are destroyed and created mid-run, so that new bodies take freed slots and slot order stops
// being creation order (the report then cannot rely on its touches coming in pair order).
TEST(Events, AgreeWithTheContactListWhenSlotsAreReused) {
    using tumble::ContactRecord;
    auto pair_less = [](const ContactRecord& x, const ContactRecord& y) {
        if (x.a != y.a) return x.a < y.a;
        if (x.mesh.is_null() != y.mesh.is_null()) return x.mesh.is_null();
        return x.mesh.is_null() ? x.b < y.b : x.mesh < y.mesh;
    };
    using Pairs = std::map<ContactRecord, ContactRecord, decltype(pair_less)>;
    auto pairs_of = [&](const World& w) {
        Pairs out(pair_less);
        for (const ContactRecord& c : w.contacts()) {
            auto [it, fresh] = out.emplace(c, c);
            const ContactRecord& kept = it->second;
            if (!fresh && (c.contact.depth > kept.contact.depth ||
                           (c.contact.depth == kept.contact.depth && c.triangle < kept.triangle)))
                it->second = c;
        }
        return out;
    };
    World w(no_sleep());
    w.add_mesh(floor_mesh());
    testutil::Random rng(11);
    std::vector<BodyId> bodies;
    auto drop = [&](int count, float height) {
        for (int i = 0; i < count; ++i) {
            tumble::BodyDef d = box(rng.vec(-2, 2) + glm::vec3(0, height, 0), rng.vec(0.15, 0.4));
            d.orientation = rng.rotation();
            bodies.push_back(w.create_body(d));
        }
    };
    drop(120, 3.0f);
    Pairs before(pair_less);
    std::size_t checked = 0, ends = 0, reused = 0;
    for (int n = 0; n < 200; ++n) {
        if (n == 60 || n == 120) {
            // Every third body goes; as many new ones fall in, into the freed slots.
            for (std::size_t i = 0; i < bodies.size(); i += 3) w.destroy_body(bodies[i]);
            std::vector<BodyId> kept;
            for (std::size_t i = 0; i < bodies.size(); ++i)
                if (i % 3 != 0) kept.push_back(bodies[i]);
            bodies = kept;
            const std::size_t first_new = bodies.size();
            drop(40, 5.0f);
            for (std::size_t i = first_new; i < bodies.size(); ++i)
                for (std::size_t j = 0; j < first_new; ++j) reused += bodies[i] < bodies[j] ? 1 : 0;
        }
        w.step(kDt);
        const Pairs now = pairs_of(w);
        std::vector<std::pair<ContactEventType, ContactRecord>> expected;
        auto i = before.begin();
        auto j = now.begin();
        while (i != before.end() || j != now.end()) {
            if (j == now.end() || (i != before.end() && pair_less(i->first, j->first))) {
                expected.push_back({ContactEventType::end, (i++)->second});
            } else if (i == before.end() || pair_less(j->first, i->first)) {
                expected.push_back({ContactEventType::begin, (j++)->second});
            } else {
                expected.push_back({ContactEventType::persist, (j++)->second});
                ++i;
            }
        }
        std::vector<ContactEvent> events;
        for (const ContactEvent& e : w.contact_events())
            if (!e.sensor) events.push_back(e);
        ASSERT_EQ(events.size(), expected.size()) << "step " << n;
        for (std::size_t k = 0; k < events.size(); ++k) {
            const ContactEvent& e = events[k];
            const ContactRecord& r = expected[k].second;
            ASSERT_EQ(e.type, expected[k].first) << "step " << n << " event " << k;
            EXPECT_EQ(e.a, r.a);
            EXPECT_EQ(e.b, r.b);
            EXPECT_EQ(e.mesh, r.mesh);
            EXPECT_EQ(e.triangle, r.triangle);
            EXPECT_EQ(e.contact.depth, r.contact.depth);
            EXPECT_EQ(e.contact.normal, r.contact.normal);
            ends += e.type == ContactEventType::end ? 1 : 0;
        }
        checked += events.size();
        before = now;
    }
    EXPECT_GT(checked, 10000u);
    EXPECT_GT(ends, 50u);
    EXPECT_GT(reused, 1000u) << "new bodies must sit in slots below older bodies";
}

}  // namespace
