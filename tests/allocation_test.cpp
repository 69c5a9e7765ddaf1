// World::step allocates nothing once warmed up, with one thread or several; and what a body costs in memory.
//
// This binary replaces the global operator new/delete to count allocations and live bytes (malloc_usable_size), so
// it must stay a binary of its own.

#include <malloc.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <new>

#include <tuple>

#include <gtest/gtest.h>

#include <tumble/tumble.hpp>

#include "drop_scene.hpp"

namespace {
std::atomic<long> g_allocations{0};
std::atomic<long> g_live_bytes{0};
}  // namespace

void* operator new(std::size_t size) {
    void* p = std::malloc(size ? size : 1);
    if (!p) throw std::bad_alloc();
    g_allocations.fetch_add(1, std::memory_order_relaxed);
    g_live_bytes.fetch_add(static_cast<long>(malloc_usable_size(p)), std::memory_order_relaxed);
    return p;
}
void operator delete(void* p) noexcept {
    if (!p) return;
    g_live_bytes.fetch_sub(static_cast<long>(malloc_usable_size(p)), std::memory_order_relaxed);
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }
// The nothrow and array forms must go through the same pair, or a library's new(nothrow) (std::stable_sort's temporary
// buffer) would be freed by our delete: an alloc-dealloc mismatch under AddressSanitizer, and uncounted bytes.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    try {
        return operator new(size);
    } catch (...) {
        return nullptr;
    }
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
    return operator new(size, std::nothrow);
}
void operator delete(void* p, const std::nothrow_t&) noexcept { operator delete(p); }
void operator delete[](void* p) noexcept { operator delete(p); }
void operator delete[](void* p, std::size_t) noexcept { operator delete(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { operator delete(p); }

namespace {

const std::filesystem::path kLevel = std::filesystem::path(TUMBLE_SOURCE_DIR) / "samples/data/oa_dm1.obj";

// 300 boxes dropped into the bundled level with `settings`: the heap allocations of 120 steps after a warm-up of 240
// (the boxes fall, land and pile up; scratch buffers grow to what the scene needs), with the contacts and sleeping
// bodies after them.
struct BusySteps {
    long allocations = 0;
    std::size_t contacts = 0, sleeping = 0;
};
BusySteps allocations_after_warm_up(const tumble::WorldSettings& settings) {
    const tumble::ObjFile file = tumble::load_obj(kLevel);
    tumble::World world(settings);
    world.add_mesh(file.mesh);
    tumble::samples::DropOptions options;
    options.boxes = 300;
    for (const tumble::BodyDef& d : tumble::samples::spawn_boxes(file.mesh, options)) world.create_body(d);
    for (int s = 0; s < 240; ++s) world.step(1.0f / 60.0f);
    const long before = g_allocations.load();
    for (int s = 0; s < 120; ++s) world.step(1.0f / 60.0f);
    return {g_allocations.load() - before, world.contacts().size(), world.stats().sleeping_bodies};
}

// Threads, and the solver's method (the soft step keeps warm starts and, for a large island, colours).
class StepAllocations : public ::testing::TestWithParam<std::tuple<int, tumble::SolverMethod>> {};

TEST_P(StepAllocations, NoHeapAllocationAfterWarmUp) {
    tumble::WorldSettings settings;
    const int threads = std::get<0>(GetParam());
    settings.threads = threads;
    settings.solver.method = std::get<1>(GetParam());
    settings.sleep.enabled = false;  // every body stays in the step: the busiest steady state
    const BusySteps run = allocations_after_warm_up(settings);
    std::printf("[ alloc    ] %d thread(s), %s: %ld heap allocations in 120 steps after warm-up (%zu contacts)\n",
                threads, settings.solver.method == tumble::SolverMethod::soft_step ? "soft step" : "XPBD",
                run.allocations, run.contacts);
    EXPECT_EQ(run.allocations, 0);
    EXPECT_GT(run.contacts, 100u) << "the scene must be busy for this to mean anything";
}

INSTANTIATE_TEST_SUITE_P(Threads, StepAllocations,
                         ::testing::Combine(::testing::Values(1, 2),
                                            ::testing::Values(tumble::SolverMethod::xpbd,
                                                              tumble::SolverMethod::soft_step)),
                         [](const ::testing::TestParamInfo<std::tuple<int, tumble::SolverMethod>>& p) {
                             return "threads_" + std::to_string(std::get<0>(p.param)) +
                                    (std::get<1>(p.param) == tumble::SolverMethod::soft_step ? "_soft_step" : "_xpbd");
                         });

// With sleeping on (the default), the sleep stage groups the awake bodies into islands every step. A sleep time that no
// island reaches keeps every body in the step, so each step runs that grouping over the whole busy pile.
TEST(StepAllocations, NoHeapAllocationAfterWarmUpWithTheSleepTestRunning) {
    for (const int threads : {1, 2}) {
        tumble::WorldSettings settings;
        settings.threads = threads;
        settings.sleep.enabled = true;
        settings.sleep.time = 1e9f;  // seconds: no island is quiet that long
        const BusySteps run = allocations_after_warm_up(settings);
        std::printf("[ alloc    ] %d thread(s), sleep test running: %ld heap allocations in 120 steps after warm-up\n",
                    threads, run.allocations);
        EXPECT_EQ(run.allocations, 0) << threads << " thread(s)";
        EXPECT_EQ(run.sleeping, 0u) << "no body may fall asleep, or the steps do less";
        EXPECT_GT(run.contacts, 100u) << "the scene must be busy for this to mean anything";
    }
}

class Memory : public ::testing::TestWithParam<tumble::SolverMethod> {};

TEST_P(Memory, BytesPerBody) {
    // Live heap bytes of a world with 1,000 and with 11,000 stepped boxes on a floor: the difference is what
    // 10,000 bodies cost (body state, proxies, octree cells, per-step scratch, carried contacts).
    const tumble::SolverMethod method = GetParam();
    auto live_bytes_with = [&](int boxes) {
        const long start = g_live_bytes.load();
        long used = 0;
        {
            tumble::WorldSettings settings;
            settings.solver.method = method;
            tumble::World world(settings);
            world.add_mesh({{{-500, 0, -500}, {500, 0, -500}, {500, 0, 500}, {-500, 0, 500}}, {0, 2, 1, 0, 3, 2}});
            for (int i = 0; i < boxes; ++i) {
                tumble::BodyDef d;
                d.position = {static_cast<float>(i % 100) * 1.5f - 75.0f, 0.3f, static_cast<float>(i / 100) * 1.5f - 250.0f};
                d.half_extents = glm::vec3(0.3f);
                world.create_body(d);
            }
            for (int s = 0; s < 5; ++s) world.step(1.0f / 60.0f);
            used = g_live_bytes.load() - start;
        }
        return used;
    };
    const long small = live_bytes_with(1000), large = live_bytes_with(11000);
    const double per_body = static_cast<double>(large - small) / 10000.0;
    std::printf("[ memory   ] %s: %.0f bytes per body (live heap, stepped world, 1,000 vs 11,000 boxes)\n",
                method == tumble::SolverMethod::soft_step ? "soft step" : "XPBD", per_body);
    EXPECT_GT(per_body, 0.0);
    // The budget of the scale issue: 1.5 kB per body. A box resting on a two-triangle floor has one manifold (296
    // bytes with the anchors of 4 points), the friction anchors carried to the next step (140), its body (192 bytes)
    // and solver body (96), its octree proxy and cell, and its contact, event and event pair; buffers grow by 1.5x
    // (tumble/core/growth.hpp). XPBD also keeps the manifold's reference face (ContactSides, 68 bytes): measured
    // 1,487 bytes. The soft step keeps each point's warm start instead (64 bytes a manifold, turned in place from the
    // carried ones into the step's and back) and where each manifold's come from (8): measured 1,483 bytes, its
    // small islands run in groups. The solvers' island scratch is held per thread, so both worlds hold the same and
    // the difference is per-body cost only (docs/benchmarks.md, "Memory").
    EXPECT_LT(per_body, 1500.0);
}

INSTANTIATE_TEST_SUITE_P(Methods, Memory,
                         ::testing::Values(tumble::SolverMethod::xpbd, tumble::SolverMethod::soft_step),
                         [](const ::testing::TestParamInfo<tumble::SolverMethod>& p) {
                             return p.param == tumble::SolverMethod::soft_step ? "soft_step" : "xpbd";
                         });

}  // namespace
