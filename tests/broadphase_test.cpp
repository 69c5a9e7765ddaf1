// Loose octree and mesh BVH against brute force on random scenes, plus their invariants and error handling.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include <tumble/broadphase/loose_octree.hpp>
#include <tumble/broadphase/mesh_index.hpp>
#include <tumble/engine/mesh.hpp>
#include <tumble/core/error.hpp>

#include "support/test_util.hpp"

namespace {

using tumble::Aabb;
using tumble::LooseOctree;
using tumble::ProxyId;
using tumble::ProxyPair;

Aabb random_box(testutil::Random& rng, float spread) {
    // Sizes over three orders of magnitude so that proxies land on many levels.
    const float size = static_cast<float>(std::pow(10.0, rng.uniform(-2, 1)));
    const glm::vec3 c = rng.vec(-spread, spread);
    const glm::vec3 h = rng.vec(0.1, 0.5) * size;
    return {c - h, c + h};
}

std::vector<ProxyPair> brute_force_pairs(const LooseOctree& tree, const std::vector<ProxyId>& live) {
    std::vector<ProxyPair> out;
    for (std::size_t i = 0; i < live.size(); ++i)
        for (std::size_t j = i + 1; j < live.size(); ++j)
            if (tree.aabb(live[i]).overlaps(tree.aabb(live[j])))
                out.push_back({std::min(live[i], live[j]), std::max(live[i], live[j])});
    std::sort(out.begin(), out.end());
    return out;
}

class LooseOctreeBias : public ::testing::TestWithParam<float> {};

TEST_P(LooseOctreeBias, PairsEqualBruteForceThroughInsertUpdateRemove) {
    testutil::Random rng(42);
    LooseOctree tree(Aabb{{-10, -10, -10}, {10, 10, 10}}, 8, GetParam());
    std::vector<ProxyId> live;
    for (int i = 0; i < 400; ++i) live.push_back(tree.insert(random_box(rng, 6.0f), 1000 + i));
    // Outside the initial root: forces it to grow.
    live.push_back(tree.insert({{30, 30, 30}, {31, 31, 31}}, 1));
    live.push_back(tree.insert({{-41, 0, 0}, {-40, 1, 1}}, 2));
    std::size_t total_pairs = 0;
    for (int round = 0; round < 30; ++round) {
        // Small moves, large moves and teleports.
        for (ProxyId id : live) {
            const double kind = rng.uniform();
            Aabb b = tree.aabb(id);
            if (kind < 0.5) {
                const glm::vec3 d = rng.vec(-0.05, 0.05);
                b = {b.min + d, b.max + d};
            } else if (kind < 0.6) {
                b = random_box(rng, 8.0f);
            }
            tree.update(id, b);
        }
        // Remove some, add some (ids get reused).
        for (int k = 0; k < 20 && !live.empty(); ++k) {
            const std::size_t at = static_cast<std::size_t>(rng.index(static_cast<int>(live.size())));
            tree.remove(live[at]);
            live.erase(live.begin() + static_cast<long>(at));
        }
        for (int k = 0; k < 20; ++k) live.push_back(tree.insert(random_box(rng, 6.0f), 5000 + k));

        ASSERT_EQ(tree.validate(), "") << "round " << round;
        ASSERT_EQ(tree.size(), live.size());
        std::vector<ProxyPair> got;
        tree.find_pairs(got);
        for (const ProxyPair& p : got) ASSERT_LT(p.a, p.b);
        std::vector<ProxyPair> sorted = got;
        std::sort(sorted.begin(), sorted.end());
        ASSERT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "a pair was reported twice";
        const std::vector<ProxyPair> want = brute_force_pairs(tree, live);
        ASSERT_EQ(sorted, want) << "round " << round;
        total_pairs += want.size();

        // AABB queries.
        for (int q = 0; q < 20; ++q) {
            const Aabb box = random_box(rng, 8.0f);
            std::vector<ProxyId> hits;
            tree.query(box, hits);
            std::sort(hits.begin(), hits.end());
            std::vector<ProxyId> expect;
            for (ProxyId id : live)
                if (tree.aabb(id).overlaps(box)) expect.push_back(id);
            std::sort(expect.begin(), expect.end());
            ASSERT_EQ(hits, expect);
        }
    }
    EXPECT_GT(total_pairs, 1000u) << "the scenes should have plenty of overlaps";
    EXPECT_GT(tree.bound().max.x - tree.bound().min.x, 70.0f) << "the root should have grown";
}
INSTANTIATE_TEST_SUITE_P(DepthBias, LooseOctreeBias, ::testing::Values(0.0f, 0.5f, 1.0f, 2.0f));

// Runs chunks on two std::threads, the second taking them from the end: any dependence of find_pairs' output on the
// order or the thread that runs a chunk shows up as a different list.
class TwoThreadsReversed final : public tumble::Parallel {
public:
    void for_each_chunk(std::size_t count, std::size_t grain,
                        tumble::FunctionRef<void(std::size_t, std::size_t)> body) override {
        const std::size_t chunks = tumble::chunk_count(count, grain);
        auto run = [&](std::size_t c) { body(c * grain, std::min(count, (c + 1) * grain)); };
        std::thread second([&] {
            for (std::size_t c = chunks; c-- > chunks / 2;) run(c);
        });
        for (std::size_t c = 0; c < chunks / 2; ++c) run(c);
        second.join();
    }
    int threads() const override { return 2; }
};

TEST(LooseOctree, ManyCellsOnSeveralLevelsGiveTheBruteForcePairsOnAnyThreads) {
    // 6,000 boxes: most about a metre (one dense level, every cell's neighbours occupied: the row searches of the
    // pair search walk long runs of cells), a tenth ten times larger or smaller (cross-level pairs).
    testutil::Random rng(7);
    LooseOctree tree(Aabb{{0, 0, 0}, {40, 40, 40}}, 10, 0.5f);
    std::vector<ProxyId> live;
    for (int i = 0; i < 6000; ++i) {
        const double kind = rng.uniform();
        const float size = kind < 0.05 ? 10.0f : kind < 0.1 ? 0.1f : 1.0f;
        const glm::vec3 c = rng.vec(0.0, 40.0);
        const glm::vec3 h = rng.vec(0.3, 0.6) * size;
        live.push_back(tree.insert({c - h, c + h}, static_cast<std::uint64_t>(i)));
    }
    TwoThreadsReversed threads;
    for (int round = 0; round < 3; ++round) {
        for (ProxyId id : live) {
            const glm::vec3 d = rng.vec(-0.3, 0.3);
            tree.update(id, {tree.aabb(id).min + d, tree.aabb(id).max + d});
        }
        ASSERT_EQ(tree.validate(), "");
        std::vector<ProxyPair> serial, parallel;
        tree.find_pairs(serial);
        tree.find_pairs(parallel, threads);
        EXPECT_EQ(parallel, serial) << "round " << round << ": the list must not depend on threads or chunk order";
        std::sort(serial.begin(), serial.end());
        ASSERT_EQ(std::adjacent_find(serial.begin(), serial.end()), serial.end()) << "a pair was reported twice";
        const std::vector<ProxyPair> want = brute_force_pairs(tree, live);
        ASSERT_EQ(serial, want) << "round " << round;
        EXPECT_GT(want.size(), 20000u) << "the scene should be dense";
    }
}

// The batch update against updating one by one on a twin tree: the same boxes, depths, cells and pair list (in the
// tree's own order, which shows the order of the proxies in each cell), with chunks run from both ends on two threads;
// then bad batches leave the tree as it was.
TEST(LooseOctree, BatchUpdateEqualsUpdatesOneByOneAndBadBatchesChangeNothing) {
    testutil::Random rng(21);
    LooseOctree one(Aabb{{-20, -20, -20}, {20, 20, 20}}, 10, 0.5f), batch = one;
    std::vector<ProxyId> live;
    for (int i = 0; i < 3000; ++i) {
        const Aabb box = random_box(rng, 18.0f);
        live.push_back(one.insert(box, static_cast<std::uint64_t>(i)));
        ASSERT_EQ(batch.insert(box, static_cast<std::uint64_t>(i)), live.back());
    }
    auto same = [&](const std::string& where) {
        ASSERT_EQ(one.validate(), "") << where;
        ASSERT_EQ(batch.validate(), "") << where;
        ASSERT_EQ(batch.bound().min, one.bound().min) << where;
        ASSERT_EQ(batch.bound().max, one.bound().max) << where;
        for (ProxyId id : live) {
            ASSERT_EQ(batch.aabb(id).min, one.aabb(id).min) << where;
            ASSERT_EQ(batch.aabb(id).max, one.aabb(id).max) << where;
            ASSERT_EQ(batch.depth_of(id), one.depth_of(id)) << where;
        }
        std::vector<tumble::OctreeCell> a, b;
        one.cells(a);
        batch.cells(b);
        ASSERT_EQ(a.size(), b.size()) << where;
        for (std::size_t i = 0; i < a.size(); ++i) {
            ASSERT_EQ(a[i].depth, b[i].depth) << where;
            ASSERT_EQ(a[i].bound.min, b[i].bound.min) << where;
            ASSERT_EQ(a[i].proxies, b[i].proxies) << where;
        }
        std::vector<ProxyPair> pa, pb;
        one.find_pairs(pa);
        batch.find_pairs(pb);
        ASSERT_EQ(pa, pb) << where;
        std::sort(pb.begin(), pb.end());
        ASSERT_EQ(pb, brute_force_pairs(batch, live)) << where;
    };
    TwoThreadsReversed threads;
    std::size_t moved_cell = 0;
    for (int round = 0; round < 6; ++round) {
        // About two thirds of the proxies, in a shuffled order: most nudged, some moved far or resized (another
        // level); in round 3 one box lies outside the root, which must grow.
        std::vector<ProxyId> ids;
        std::vector<Aabb> boxes;
        for (ProxyId id : live) {
            if (rng.uniform() < 0.33) continue;
            const double kind = rng.uniform();
            const glm::vec3 d = rng.vec(-0.05, 0.05);
            const Aabb& now = one.aabb(id);
            const glm::vec3 grown = 0.15f * (now.max - now.min);  // 1.3 times as large: mostly the same level
            const Aabb box = kind < 0.6   ? Aabb{now.min + d, now.max + d}
                             : kind < 0.8 ? Aabb{now.min - grown, now.max + grown}
                                          : random_box(rng, 18.0f);
            ids.push_back(id);
            boxes.push_back(box);
        }
        for (std::size_t i = ids.size(); i > 1; --i) {
            const std::size_t j = static_cast<std::size_t>(rng.index(static_cast<int>(i)));
            std::swap(ids[i - 1], ids[j]);
            std::swap(boxes[i - 1], boxes[j]);
        }
        if (round == 3) boxes[boxes.size() / 2] = {{30, 30, 30}, {31, 31, 31}};
        for (std::size_t i = 0; i < ids.size(); ++i) {
            const int depth = one.depth_of(ids[i]);
            one.update(ids[i], boxes[i]);
            moved_cell += one.depth_of(ids[i]) != depth ? 1 : 0;
        }
        batch.update(ids, boxes, round % 2 == 0 ? static_cast<tumble::Parallel&>(threads) : tumble::serial());
        same("round " + std::to_string(round));
    }
    EXPECT_GT(one.bound().max.x, 30.0f) << "the root grew";
    EXPECT_GT(moved_cell, 1000u) << "proxies must change level, not only stay in their cells";

    // Bad batches: a NaN, an unknown id, a box beyond any float root, spans of different lengths.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<ProxyId> ids(live.begin(), live.begin() + 100);
    std::vector<Aabb> boxes;
    for (ProxyId id : ids)
        boxes.push_back({batch.aabb(id).min + glm::vec3(0.5f), batch.aabb(id).max + glm::vec3(0.5f)});
    auto refused = [&](std::vector<ProxyId> bad_ids, std::vector<Aabb> bad_boxes, const char* what) {
        EXPECT_THROW(batch.update(bad_ids, bad_boxes, threads), tumble::InvalidArgument) << what;
        same(what);
    };
    {
        auto b = boxes;
        b[70].min.y = nan;
        refused(ids, b, "a NaN");
    }
    {
        auto i = ids;
        i[99] = 1'000'000;
        refused(i, boxes, "an unknown id");
    }
    {
        auto b = boxes;
        b[10] = {{3e38f, 0, 0}, {3.4e38f, 1, 1}};
        refused(ids, b, "a box too far out");
    }
    refused(ids, std::vector<Aabb>(boxes.begin(), boxes.end() - 1), "lengths differ");
    {
        auto i = ids;
        i[80] = i[20];
        refused(i, boxes, "an id listed twice");
        batch.update(ids, boxes, threads);  // the marks of the refused batch are gone: the same ids pass now
        for (std::size_t k = 0; k < ids.size(); ++k) one.update(ids[k], boxes[k]);
        same("after the refused batches");
    }
}

TEST(LooseOctree, CrowdedCellsKeepTheirProxiesThroughRemovalAndCopies) {
    // A cell keeps up to two proxy ids in place and moves to the heap beyond; removal swaps the last id into the
    // hole, as a vector's would. Twelve equal boxes share one cell (grown past the inline two, then emptied from the
    // middle out, refilled), and copies and moves of the tree carry the lists: every step is checked against brute
    // force and the tree's own invariants.
    LooseOctree tree(Aabb{{0, 0, 0}, {16, 16, 16}}, 6, 0.0f);
    const Aabb box{{3.1f, 3.1f, 3.1f}, {3.4f, 3.4f, 3.4f}};
    std::vector<ProxyId> live;
    auto check = [&](const LooseOctree& t, const char* when) {
        ASSERT_EQ(t.validate(), "") << when;
        std::vector<ProxyPair> pairs;
        t.find_pairs(pairs);
        std::sort(pairs.begin(), pairs.end());
        EXPECT_EQ(pairs, brute_force_pairs(t, live)) << when;
        std::vector<tumble::OctreeCell> cells;
        t.cells(cells);
        std::uint32_t listed = 0;
        for (const tumble::OctreeCell& c : cells) listed += c.proxies;
        EXPECT_EQ(listed, live.size()) << when;
    };
    for (int i = 0; i < 12; ++i) {
        live.push_back(tree.insert(box, static_cast<std::uint64_t>(i)));
        check(tree, "inserting");
    }
    std::vector<tumble::OctreeCell> cells;
    tree.cells(cells);
    ASSERT_EQ(cells.size(), 1u) << "the twelve equal boxes must share one cell";
    const LooseOctree copy = tree;
    for (int i = 0; i < 9; ++i) {  // from the middle out: every removal moves the last id
        const std::size_t at = live.size() / 2;
        tree.remove(live[at]);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(at));
        check(tree, "removing");
    }
    for (int i = 0; i < 5; ++i) {
        live.push_back(tree.insert(box, static_cast<std::uint64_t>(100 + i)));
        check(tree, "refilling");
    }
    LooseOctree moved = std::move(tree);
    check(moved, "after a move");
    std::vector<ProxyId> copied_live;
    for (ProxyId id = 0; id < 12; ++id) copied_live.push_back(id);
    std::swap(live, copied_live);
    check(copy, "the copy taken at twelve");
    std::swap(live, copied_live);
    LooseOctree assigned(Aabb{{0, 0, 0}, {1, 1, 1}});
    assigned = moved;
    check(assigned, "a copy assigned over another tree");
}

TEST(LooseOctree, DepthComesFromTheProxySize) {
    LooseOctree tree(Aabb{{0, 0, 0}, {64, 64, 64}}, 10, 0);
    // Largest side s fits level d when s <= 64 / 2^d.
    EXPECT_EQ(tree.depth_of(tree.insert({{1, 1, 1}, {2, 2, 2}}, 0)), 6);        // s = 1
    EXPECT_EQ(tree.depth_of(tree.insert({{1, 1, 1}, {2.5f, 2, 2}}, 0)), 5);     // s = 1.5
    EXPECT_EQ(tree.depth_of(tree.insert({{0, 0, 0}, {64, 1, 1}}, 0)), 0);       // s = 64
    EXPECT_EQ(tree.depth_of(tree.insert({{5, 5, 5}, {5, 5, 5}}, 0)), 10);       // a point: deepest level
    EXPECT_EQ(tree.validate(), "");
    // With depth_bias 1 every proxy sits one level shallower (never above the root).
    LooseOctree biased(Aabb{{0, 0, 0}, {64, 64, 64}}, 10, 1);
    EXPECT_EQ(biased.depth_of(biased.insert({{1, 1, 1}, {2, 2, 2}}, 0)), 5);
    EXPECT_EQ(biased.depth_of(biased.insert({{0, 0, 0}, {64, 1, 1}}, 0)), 0);
    EXPECT_EQ(biased.depth_of(biased.insert({{5, 5, 5}, {5, 5, 5}}, 0)), 10);
    EXPECT_EQ(biased.validate(), "");
    EXPECT_THROW(LooseOctree(Aabb{{0, 0, 0}, {1, 1, 1}}, 10, 4), tumble::InvalidArgument);
}

TEST(LooseOctree, BadInputLeavesTheTreeUnchanged) {
    LooseOctree tree;
    const ProxyId a = tree.insert({{0, 0, 0}, {1, 1, 1}}, 7);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW(tree.insert({{0, nan, 0}, {1, 1, 1}}, 1), tumble::InvalidArgument);
    EXPECT_THROW(tree.insert({{0, 2, 0}, {1, 1, 1}}, 1), tumble::InvalidArgument);  // min > max
    EXPECT_THROW(tree.update(a, {{0, 0, 0}, {1, std::numeric_limits<float>::infinity(), 1}}), tumble::InvalidArgument);
    EXPECT_THROW(tree.update(a + 1, {{0, 0, 0}, {1, 1, 1}}), tumble::InvalidArgument);
    EXPECT_EQ(tree.size(), 1u);
    EXPECT_EQ(tree.aabb(a).max, glm::vec3(1, 1, 1));
    EXPECT_EQ(tree.user_data(a), 7u);
    tree.remove(a);
    EXPECT_THROW(tree.remove(a), tumble::InvalidArgument);
    EXPECT_EQ(tree.size(), 0u);
    EXPECT_EQ(tree.validate(), "");
    EXPECT_THROW(LooseOctree(Aabb{{0, 0, 0}, {1, 1, 1}}, 99), tumble::InvalidArgument);
}

TEST(LooseOctree, BoxesTooFarOutForAFloatRootAreRefusedInsteadOfGrowingForever) {
    // Found by fuzz_world (World::create_body at x = 3e38): doubling the root to reach the box overflowed its size to
    // infinity and its far corner to NaN, so the growth loop never ended. Such boxes are now refused, tree unchanged.
    LooseOctree tree;
    const ProxyId a = tree.insert({{0, 0, 0}, {1, 1, 1}}, 7);
    const Aabb bound = tree.bound();
    const float big = 3e38f, most = std::numeric_limits<float>::max();
    for (const Aabb& far : {Aabb{{big, 0, 0}, {big, 1, 1}}, Aabb{{-most, 0, 0}, {-most, 1, 1}},
                            Aabb{{-big, -1, -1}, {big, 1, 1}}, Aabb{{0, 0, 0}, {most, most, most}}}) {
        EXPECT_THROW(tree.insert(far, 1), tumble::InvalidArgument);
        EXPECT_THROW(tree.update(a, far), tumble::InvalidArgument);
    }
    EXPECT_EQ(tree.size(), 1u);
    EXPECT_EQ(tree.aabb(a).max, glm::vec3(1, 1, 1));
    EXPECT_EQ(tree.bound().min, bound.min);
    EXPECT_EQ(tree.bound().max, bound.max);
    EXPECT_EQ(tree.validate(), "");
    // Far but reachable boxes still make the root grow.
    const ProxyId b = tree.insert({{1e30f, 0, 0}, {1e30f, 1, 1}}, 8);
    tree.update(a, {{-1e37f, 0, 0}, {-1e37f, 2, 2}});
    EXPECT_EQ(tree.size(), 2u);
    EXPECT_TRUE(tree.bound().contains(tree.aabb(b).center()));
    EXPECT_EQ(tree.validate(), "");
}

TEST(LooseOctree, QueriesFarOutsideTheRootFindNothingAndStayDefined) {
    // Found by fuzz_world under UBSan: a World::sweep_box query box about 1e31 cells from the root made the cell range
    // a float beyond int64, and its conversion is undefined behaviour (on x86 it happened to give an empty or a full
    // range). The range is now clamped before the conversion; these queries must find nothing, and the fuzz build
    // (Clang's -fsanitize=undefined includes float-cast-overflow) reports any conversion left.
    LooseOctree tree;
    tree.insert({{0, 0, 0}, {1, 1, 1}}, 7);
    tree.insert({{3, 3, 3}, {3.5f, 3.5f, 3.5f}}, 8);
    for (float far : {1e31f, -1e31f, 3e38f, -3e38f}) {
        for (int axis = 0; axis < 3; ++axis) {
            Aabb box{{0, 0, 0}, {1, 1, 1}};
            box.min[axis] = box.max[axis] = far;
            if (far < 0) box.max[axis] = 0.5f * far;  // a huge box ending far away
            std::vector<ProxyId> found;
            tree.query(box, found);
            EXPECT_TRUE(found.empty()) << far << " on axis " << axis;
        }
        int visited = 0;
        tree.raycast({far, 0.5f, 0.5f}, {1, 0, 0}, 10.0f, [&](ProxyId, float t) { return ++visited, t; });
        EXPECT_EQ(visited, 0) << far;
    }
    std::vector<ProxyPair> pairs;
    tree.find_pairs(pairs);
    EXPECT_TRUE(pairs.empty());
}

// Entry of the segment o + t d, t in [0, max_t], into the closed box by clipping the segment against each slab in long
// double (the reference for the octree's ray walk); nullopt when it misses.
std::optional<long double> brute_segment_enter(const Aabb& b, glm::vec3 o, glm::vec3 d, long double max_t) {
    long double lo = 0, hi = max_t;
    for (int k = 0; k < 3; ++k) {
        const long double ok = o[k], dk = d[k], mn = b.min[k], mx = b.max[k];
        if (dk == 0) {
            if (ok < mn || ok > mx) return std::nullopt;
            continue;
        }
        long double t0 = (mn - ok) / dk, t1 = (mx - ok) / dk;
        if (t0 > t1) std::swap(t0, t1);
        lo = std::max(lo, t0);
        hi = std::min(hi, t1);
    }
    if (lo > hi) return std::nullopt;
    return lo;
}

TEST(LooseOctree, RaycastVisitsEveryProxyTheSegmentTouchesOnceAndNothingElse) {
    testutil::Random rng(7);
    LooseOctree tree(Aabb{{-16, -16, -16}, {16, 16, 16}}, 10);
    std::vector<ProxyId> live;
    for (int i = 0; i < 3000; ++i) live.push_back(tree.insert(random_box(rng, 14.0f), static_cast<std::uint64_t>(i)));
    long visited_total = 0, marched = 0, rays = 0, boundary = 0;
    for (int r = 0; r < 3000; ++r) {
        glm::vec3 o = rng.vec(-20, 20), d = rng.unit();
        const double kind = rng.uniform();
        if (kind < 0.2) d[rng.index(3)] = 0.0f;                                  // zero components
        if (kind < 0.1) d = glm::vec3(0), d[rng.index(3)] = rng.uniform() < 0.5 ? 1.0f : -1.0f;  // along an axis
        if (glm::dot(d, d) == 0.0f) d = {1, 0, 0};
        const float max_t = rng.uniform() < 0.5 ? rng.uniformf(0.1, 3.0) : rng.uniformf(3.0, 60.0);
        d *= rng.uniformf(0.5, 2.0);  // not unit: t is in units of |d|
        std::vector<ProxyId> got;
        tree.raycast(o, d, max_t, [&](ProxyId id, float t) {
            got.push_back(id);
            const auto want = brute_segment_enter(tree.aabb(id), o, d, max_t);
            EXPECT_TRUE(want.has_value()) << "visited a proxy the segment misses";
            if (want) {
                EXPECT_NEAR(t, static_cast<double>(*want), 1e-4 * (1.0 + static_cast<double>(*want)));
            }
            return max_t;
        });
        std::sort(got.begin(), got.end());
        EXPECT_TRUE(std::adjacent_find(got.begin(), got.end()) == got.end()) << "a proxy was visited twice";
        std::vector<ProxyId> want;
        for (ProxyId id : live) {
            if (!brute_segment_enter(tree.aabb(id), o, d, max_t)) continue;
            want.push_back(id);
        }
        std::sort(want.begin(), want.end());
        if (got != want) {
            // Only touching contacts decided differently by float and long double rounding may differ.
            std::vector<ProxyId> diff;
            std::set_symmetric_difference(got.begin(), got.end(), want.begin(), want.end(), std::back_inserter(diff));
            for (ProxyId id : diff) {
                const Aabb b = tree.aabb(id).expanded(1e-4f);
                const Aabb s = tree.aabb(id).expanded(-1e-4f);
                const bool grazing = brute_segment_enter(b, o, d, max_t) && !brute_segment_enter(s, o, d, max_t);
                EXPECT_TRUE(grazing) << "ray " << r << ": proxy " << id << " differs from brute force";
                ++boundary;
            }
        }
        visited_total += static_cast<long>(want.size());
        marched += max_t > 3.0f;
        ++rays;
    }
    std::printf("[ octree   ] %ld rays visited the %ld proxies brute force finds (%ld grazing differences)\n", rays,
                visited_total, boundary);
    EXPECT_GT(visited_total, 3000);
    EXPECT_LE(boundary, 3);

    // Pruning: a closest-hit walk that lowers max_t finds the same nearest entry as brute force.
    for (int r = 0; r < 500; ++r) {
        const glm::vec3 o = rng.vec(-20, 20), d = rng.unit();
        float best = 100.0f;
        tree.raycast(o, d, 100.0f, [&](ProxyId, float t) { return best = std::min(best, t); });
        long double want = 100.0L;
        for (ProxyId id : live)
            if (const auto t = brute_segment_enter(tree.aabb(id), o, d, 100.0L)) want = std::min(want, *t);
        EXPECT_NEAR(best, static_cast<double>(want), 1e-4);
    }
    // Bad input visits nothing.
    int calls = 0;
    auto count = [&](ProxyId, float t) { return ++calls, t; };
    tree.raycast({0, 0, 0}, {0, 0, 0}, 10.0f, count);
    tree.raycast({0, std::numeric_limits<float>::quiet_NaN(), 0}, {1, 0, 0}, 10.0f, count);
    tree.raycast({0, 0, 0}, {1, 0, 0}, -1.0f, count);
    EXPECT_EQ(calls, 0);
}

TEST(LooseOctree, CellsListEveryOccupiedCellWithItsLooseBound) {
    testutil::Random rng(8);
    LooseOctree tree(Aabb{{-16, -16, -16}, {16, 16, 16}}, 8);
    std::vector<ProxyId> live;
    for (int i = 0; i < 500; ++i) live.push_back(tree.insert(random_box(rng, 14.0f), 0));
    std::vector<tumble::OctreeCell> cells;
    tree.cells(cells);
    EXPECT_EQ(cells.size(), tree.cell_count());
    std::uint32_t total = 0;
    for (const tumble::OctreeCell& c : cells) {
        total += c.proxies;
        const float side = c.bound.max.x - c.bound.min.x;
        EXPECT_FLOAT_EQ(side, (tree.bound().max.x - tree.bound().min.x) / static_cast<float>(1 << c.depth));
        EXPECT_FLOAT_EQ(c.loose_bound.max.y - c.loose_bound.min.y, 2.0f * side);
    }
    EXPECT_EQ(total, live.size());
    // Every proxy lies in the loose bound of a cell of its depth.
    for (ProxyId id : live) {
        const bool found = std::any_of(cells.begin(), cells.end(), [&](const tumble::OctreeCell& c) {
            return c.depth == tree.depth_of(id) && c.loose_bound.expanded(1e-3f).contains(tree.aabb(id));
        });
        EXPECT_TRUE(found);
    }
}

// --- MeshIndex ----------------------------------------------------------------------------------------------------

std::vector<tumble::Triangle> random_triangles(testutil::Random& rng, int n) {
    std::vector<tumble::Triangle> out;
    for (int i = 0; i < n; ++i) {
        const glm::vec3 c = rng.vec(-20, 20);
        const float s = static_cast<float>(std::pow(10.0, rng.uniform(-1.5, 0.8)));
        out.push_back({c + rng.vec(-s, s), c + rng.vec(-s, s), c + rng.vec(-s, s)});
    }
    return out;
}

// Closest hit by brute force (double precision Moller-Trumbore over every triangle).
std::optional<std::pair<std::uint32_t, double>> brute_raycast(const std::vector<tumble::Triangle>& tris, glm::vec3 o,
                                                                 glm::vec3 d, double max_t) {
    std::optional<std::pair<std::uint32_t, double>> best;
    for (std::uint32_t i = 0; i < tris.size(); ++i) {
        const glm::dvec3 a(tris[i].a), e1 = glm::dvec3(tris[i].b) - a, e2 = glm::dvec3(tris[i].c) - a;
        const glm::dvec3 p = glm::cross(glm::dvec3(d), e2);
        const double det = glm::dot(e1, p);
        if (det == 0) continue;
        const glm::dvec3 tv = glm::dvec3(o) - a;
        const double u = glm::dot(tv, p) / det;
        const glm::dvec3 q = glm::cross(tv, e1);
        const double v = glm::dot(glm::dvec3(d), q) / det;
        const double t = glm::dot(e2, q) / det;
        if (u < 0 || v < 0 || u + v > 1 || t < 0 || t > max_t) continue;
        if (!best || t < best->second) best = {{i, t}};
    }
    return best;
}

TEST(MeshIndex, QueriesAndRaysEqualBruteForce) {
    testutil::Random rng(9);
    const std::vector<tumble::Triangle> tris = random_triangles(rng, 3000);
    const tumble::MeshIndex index(tris);
    ASSERT_EQ(index.validate(), "");
    ASSERT_EQ(index.size(), tris.size());
    for (int q = 0; q < 300; ++q) {
        const glm::vec3 c = rng.vec(-22, 22), h = rng.vec(0.01, 3);
        const Aabb box{c - h, c + h};
        std::vector<std::uint32_t> got;
        index.query(box, got);
        std::sort(got.begin(), got.end());
        std::vector<std::uint32_t> want;
        for (std::uint32_t i = 0; i < tris.size(); ++i)
            if (tris[i].aabb().overlaps(box)) want.push_back(i);
        ASSERT_EQ(got, want);
    }
    // Boxes that only touch a triangle's AABB, at a corner or along a face: boundaries count as overlap (closed
    // boxes, as Aabb::overlaps), and a box a float step beyond does not touch.
    int touching = 0;
    for (std::uint32_t t = 0; t < tris.size(); t += 97) {
        const Aabb tri = tris[t].aabb();
        const float inf = std::numeric_limits<float>::infinity();
        for (const Aabb& box : {Aabb{tri.max, tri.max + 1.0f}, Aabb{tri.min - 1.0f, tri.min},
                                Aabb{{tri.min.x - 2.0f, tri.min.y, tri.min.z}, {tri.min.x, tri.max.y, tri.max.z}}}) {
            std::vector<std::uint32_t> got;
            index.query(box, got);
            EXPECT_NE(std::find(got.begin(), got.end(), t), got.end()) << "triangle " << t;
            touching += 1;
            Aabb beyond = box;
            beyond.min.x = std::nextafter(box.min.x, inf);
            if (box.min.x == tri.max.x) {
                got.clear();
                index.query(beyond, got);
                EXPECT_EQ(std::find(got.begin(), got.end(), t), got.end()) << "triangle " << t;
            }
        }
    }
    EXPECT_GT(touching, 60);
    int hits = 0;
    for (int q = 0; q < 500; ++q) {
        const glm::vec3 o = rng.vec(-25, 25), d = rng.unit();
        const float max_t = rng.uniformf(1, 60);
        const auto got = index.raycast(o, d, max_t);
        const auto want = brute_raycast(tris, o, d, max_t);
        ASSERT_EQ(got.has_value(), want.has_value()) << q;
        if (!got) continue;
        ++hits;
        EXPECT_NEAR(got->distance, want->second, 1e-4 * (1 + want->second)) << q;
        EXPECT_NEAR(glm::length(got->point - (o + d * static_cast<float>(want->second))), 0.0f, 1e-3f);
        EXPECT_NEAR(glm::length(got->normal), 1.0f, 1e-5f);
        EXPECT_EQ(got->front_face, glm::dot(d, tris[got->triangle].scaled_normal()) < 0);
    }
    EXPECT_GT(hits, 50);
    EXPECT_FALSE(index.raycast({0, 0, 0}, {0, 0, 0}, 10));
    EXPECT_FALSE(index.raycast({0, 0, std::numeric_limits<float>::quiet_NaN()}, {0, 0, 1}, 10));
}

TEST(MeshIndex, RaysDownFromRealSpawnPointsHitFloors) {
    // Each level lists player spawn points 0.61-1.83 m above an upward-facing floor (samples/data/README.md).
    const std::vector<std::filesystem::path> files = testutil::real_levels();
    int checked = 0;
    for (const auto& path : files) {
        const tumble::ObjFile file = tumble::load_obj(path);
        std::vector<tumble::Triangle> tris;
        for (std::size_t t = 0; t < file.mesh.triangle_count(); ++t) tris.push_back(file.mesh.triangle(t));
        const tumble::MeshIndex index(tris);
        ASSERT_EQ(index.validate(), "") << path;
        ASSERT_FALSE(file.spawns.empty()) << path;
        for (const tumble::SpawnPoint& s : file.spawns) {
            const auto hit = index.raycast(s.position, {0, -1, 0}, 10.0f);
            ASSERT_TRUE(hit) << path << " " << s.class_name;
            EXPECT_TRUE(hit->front_face);
            EXPECT_GT(hit->normal.y, 0.99f);
            EXPECT_GE(hit->distance, 0.6f);
            EXPECT_LE(hit->distance, 1.84f);
            ++checked;
        }
    }
    EXPECT_EQ(checked, 8 + 4 + 40);  // the spawn points of the three levels
}

}  // namespace
