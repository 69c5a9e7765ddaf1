// tumble::core on its own: the thread pool runs every chunk exactly once with bounds that do not depend on the thread
// count, the old header paths name the same types as the new ones, the shape-independent checks reject NaN and
// infinity with messages naming the component, SlotId handles behave as the engine's ids, and TUMBLE_ASSERT aborts
// with file, line and expression in builds that check assertions.

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

// The old paths first: they must compile on their own and declare the names.
#include <tumble/error.hpp>
#include <tumble/parallel.hpp>

#include <tumble/core/assert.hpp>
#include <tumble/core/checks.hpp>
#include <tumble/core/error.hpp>
#include <tumble/core/parallel.hpp>
#include <tumble/core/parallel_sort.hpp>
#include <tumble/core/slot_id.hpp>
#include <tumble/core/thread_pool.hpp>
#include <tumble/engine/ids.hpp>

namespace {

using Chunk = std::pair<std::size_t, std::size_t>;

// ---------------------------------------------------------------------------------------------------------------
// Forwarding headers and ids

namespace old_paths {
// What <tumble/error.hpp> and <tumble/parallel.hpp> declared before core existed, spelled as outside code spells it.
using Error = tumble::Error;
using InvalidArgument = tumble::InvalidArgument;
using FileError = tumble::FileError;
using Parallel = tumble::Parallel;
using Serial = tumble::Serial;
using Body = tumble::FunctionRef<void(std::size_t, std::size_t)>;
}  // namespace old_paths

static_assert(std::is_same_v<old_paths::Error, tumble::Error>);
static_assert(std::is_same_v<old_paths::InvalidArgument, tumble::InvalidArgument>);
static_assert(std::is_same_v<old_paths::FileError, tumble::FileError>);
static_assert(std::is_same_v<old_paths::Parallel, tumble::Parallel>);
static_assert(std::is_same_v<old_paths::Serial, tumble::Serial>);
static_assert(std::is_same_v<old_paths::Body, tumble::FunctionRef<void(std::size_t, std::size_t)>>);
static_assert(std::is_same_v<decltype(tumble::serial()), tumble::Serial&>);
static_assert(std::is_base_of_v<tumble::Error, tumble::InvalidArgument>);
static_assert(std::is_base_of_v<tumble::Error, tumble::FileError>);
static_assert(std::is_base_of_v<std::runtime_error, tumble::Error>);
static_assert(std::is_base_of_v<tumble::Parallel, tumble::ThreadPool>);

static_assert(std::is_same_v<tumble::BodyId, tumble::SlotId<tumble::BodyIdTag>>);
static_assert(!std::is_same_v<tumble::BodyId, tumble::MeshId>);
static_assert(!std::is_convertible_v<tumble::BodyId, tumble::MeshId>);
static_assert(std::is_aggregate_v<tumble::BodyId> && std::is_trivially_copyable_v<tumble::BodyId>);
static_assert(sizeof(tumble::BodyId) == 8 && sizeof(tumble::MeshId) == 8);

TEST(CoreIds, NullEqualityAndOrder) {
    const tumble::BodyId null{};
    EXPECT_TRUE(null.is_null());
    const tumble::BodyId a{3, 1}, b{3, 2}, c{4, 1};
    EXPECT_FALSE(a.is_null());
    EXPECT_EQ(a, (tumble::BodyId{3, 1}));
    EXPECT_NE(a, b);
    EXPECT_LT(a, b);  // same slot: by generation
    EXPECT_LT(b, c);  // by slot first
    const tumble::MeshId m{7, 0};
    EXPECT_TRUE(m.is_null());  // generation 0 is null whatever the index
}

TEST(CoreErrors, OldAndNewPathsCatchTheSameExceptions) {
    try {
        throw tumble::InvalidArgument("bad");
    } catch (const old_paths::Error& e) {
        EXPECT_STREQ(e.what(), "bad");
    }
    EXPECT_THROW(throw old_paths::FileError("x"), tumble::Error);
}

// ---------------------------------------------------------------------------------------------------------------
// Thread pool

// The chunks `parallel` hands out for (count, grain), sorted, with a failure for any chunk run more than once.
std::vector<Chunk> chunks_of(tumble::Parallel& parallel, std::size_t count, std::size_t grain) {
    const std::size_t n = tumble::chunk_count(count, grain);
    std::vector<std::atomic<int>> runs(n);
    std::vector<Chunk> bounds(n);
    parallel.for_each_chunk(count, grain, [&](std::size_t begin, std::size_t end) {
        const std::size_t c = begin / grain;
        if (c < n) {
            runs[c].fetch_add(1, std::memory_order_relaxed);
            bounds[c] = {begin, end};  // written by the one thread that runs chunk c (checked below)
        } else {
            ADD_FAILURE() << "chunk beginning at " << begin << " is past the last of " << n;
        }
    });
    for (std::size_t c = 0; c < n; ++c)
        EXPECT_EQ(runs[c].load(), 1) << "chunk " << c << " of count " << count << ", grain " << grain << ", "
                                     << parallel.threads() << " threads";
    return bounds;
}

TEST(CoreThreadPool, EveryChunkRunsExactlyOnceWithBoundsIndependentOfThreads) {
    const std::size_t counts[] = {0, 1, 2, 7, 63, 64, 65, 1000, 4099};
    const std::size_t grains[] = {1, 3, 64, 256, 5000};
    for (int threads = 1; threads <= 4; ++threads) {
        tumble::ThreadPool pool(threads);
        ASSERT_EQ(pool.threads(), threads);
        for (std::size_t count : counts)
            for (std::size_t grain : grains) {
                const std::vector<Chunk> serial = chunks_of(tumble::serial(), count, grain);
                // The documented bounds: chunk c is [c * grain, min((c + 1) * grain, count)).
                ASSERT_EQ(serial.size(), tumble::chunk_count(count, grain));
                for (std::size_t c = 0; c < serial.size(); ++c)
                    ASSERT_EQ(serial[c], Chunk(c * grain, std::min((c + 1) * grain, count)));
                // The pool gives the same chunks, call after call.
                for (int repeat = 0; repeat < 3; ++repeat)
                    EXPECT_EQ(chunks_of(pool, count, grain), serial)
                        << threads << " threads, count " << count << ", grain " << grain;
            }
    }
}

TEST(CoreThreadPool, CoversEveryItemAndUsesNoMoreThreadsThanItHas) {
    for (int threads = 1; threads <= 4; ++threads) {
        tumble::ThreadPool pool(threads);
        for (int call = 0; call < 50; ++call) {
            constexpr std::size_t kItems = 10000;
            std::vector<int> hits(kItems, 0);
            std::mutex mutex;
            std::set<std::thread::id> seen;
            pool.for_each_chunk(kItems, 7, [&](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i) ++hits[i];  // chunks never share items
                std::lock_guard<std::mutex> lock(mutex);
                seen.insert(std::this_thread::get_id());
            });
            EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), static_cast<std::ptrdiff_t>(kItems));
            EXPECT_LE(seen.size(), static_cast<std::size_t>(threads));
        }
    }
}

// parallel_sort against std::sort: sorted by the key, a permutation of the input, and the same array (ties'
// payloads included, in the documented order of runs and merges) for 1 to 4 threads; with distinct keys it is
// std::sort's array.
TEST(CoreParallelSort, SortsLikeStdSortAndOrdersTiesAsDocumentedForAnyThreadCount) {
    struct Item {
        std::uint32_t key;
        std::uint32_t payload;
        bool operator==(const Item&) const = default;
    };
    const auto by_key = [](const Item& x, const Item& y) { return x.key < y.key; };
    const std::size_t run = tumble::kSortRun;
    const std::size_t sizes[] = {0, 1, 5, run, run + 1, 2 * run, 3 * run + 17, 8 * run, 10 * run + 5, 100003};
    std::uint64_t state = 12345;
    auto next = [&] {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<std::uint32_t>(state >> 33);
    };
    for (const std::size_t n : sizes)
        for (const std::uint32_t distinct : {0u, 50u}) {  // 0: every key distinct; 50: keys repeat
            std::vector<Item> input(n);
            for (std::size_t i = 0; i < n; ++i)
                input[i] = {distinct == 0 ? static_cast<std::uint32_t>(i) * 2654435761u : next() % distinct,
                            static_cast<std::uint32_t>(i)};
            if (distinct == 0) std::reverse(input.begin(), input.end());
            std::vector<Item> expected = input;
            std::sort(expected.begin(), expected.end(), by_key);
            // The documented order of ties: runs of kSortRun sorted by std::sort, then merged pairwise by std::merge.
            std::vector<Item> merged = input, into(n);
            for (std::size_t b = 0; b < n; b += run)
                std::sort(merged.begin() + static_cast<std::ptrdiff_t>(b),
                          merged.begin() + static_cast<std::ptrdiff_t>(std::min(b + run, n)), by_key);
            for (std::size_t width = run; n > run && width < n; width *= 2) {
                for (std::size_t lo = 0; lo < n; lo += 2 * width) {
                    const auto at = [&](std::size_t i) { return merged.begin() + static_cast<std::ptrdiff_t>(i); };
                    std::merge(at(lo), at(std::min(lo + width, n)), at(std::min(lo + width, n)),
                               at(std::min(lo + 2 * width, n)), into.begin() + static_cast<std::ptrdiff_t>(lo), by_key);
                }
                merged.swap(into);
            }
            for (int threads = 1; threads <= 4; ++threads) {
                tumble::ThreadPool pool(threads);
                std::vector<Item> v = input, buffer;
                tumble::parallel_sort(v, buffer, by_key, pool);
                ASSERT_EQ(v.size(), n);
                ASSERT_TRUE(std::is_sorted(v.begin(), v.end(), by_key)) << n << " items, " << threads << " threads";
                std::vector<std::uint32_t> payloads;
                for (const Item& x : v) payloads.push_back(x.payload);
                std::sort(payloads.begin(), payloads.end());
                for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(payloads[i], i) << "not a permutation";
                if (distinct == 0) {
                    EXPECT_EQ(v, expected) << n << " items, " << threads << " threads";
                }
                EXPECT_EQ(v, merged) << n << " items, " << threads << " threads: ties not in the documented order";
            }
        }
}

// Workers spin for ThreadPool::kSpin after a call and then sleep: calls that come after they fell asleep, and calls
// that come while they spin, both run every chunk once, and a pool destroyed while its workers spin or sleep joins.
TEST(CoreThreadPool, CallsReachWorkersThatSpinAndWorkersThatSleep) {
    for (int threads = 2; threads <= 4; ++threads) {
        tumble::ThreadPool pool(threads);
        for (int call = 0; call < 40; ++call) {
            if (call % 2 == 0) std::this_thread::sleep_for(4 * tumble::ThreadPool::kSpin);
            std::vector<std::atomic<int>> hits(997);
            pool.for_each_chunk(hits.size(), 3, [&](std::size_t begin, std::size_t end) {
                for (std::size_t i = begin; i < end; ++i) hits[i].fetch_add(1, std::memory_order_relaxed);
            });
            for (std::size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i].load(), 1) << "call " << call;
        }
    }
}

TEST(CoreThreadPool, ZeroOrNegativeThreadsMeansTheCallerAlone) {
    tumble::ThreadPool pool(0);
    EXPECT_EQ(pool.threads(), 1);
    const std::thread::id caller = std::this_thread::get_id();
    pool.for_each_chunk(100, 10, [&](std::size_t, std::size_t) { EXPECT_EQ(std::this_thread::get_id(), caller); });
    tumble::ThreadPool negative(-3);
    EXPECT_EQ(negative.threads(), 1);
}

// ---------------------------------------------------------------------------------------------------------------
// Checks

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(CoreChecks, FiniteScalarsAndVectors) {
    EXPECT_TRUE(tumble::is_finite(0.0f));
    EXPECT_TRUE(tumble::is_finite(-1e30));
    EXPECT_FALSE(tumble::is_finite(kNan));
    EXPECT_FALSE(tumble::is_finite(-kInf));
    EXPECT_FALSE(tumble::is_finite(std::numeric_limits<double>::infinity()));

    EXPECT_TRUE(tumble::all_finite(glm::vec3(1.0f, -2.0f, 3.0f)));
    EXPECT_FALSE(tumble::all_finite(glm::vec3(1.0f, kNan, 3.0f)));
    EXPECT_FALSE(tumble::all_finite(glm::dvec3(1.0, 2.0, -std::numeric_limits<double>::infinity())));
    EXPECT_TRUE(tumble::all_finite(glm::quat(1.0f, 0.0f, 0.0f, 0.0f)));
    EXPECT_FALSE(tumble::all_finite(glm::quat(kInf, 0.0f, 0.0f, 0.0f)));
    EXPECT_FALSE(tumble::all_finite(glm::vec4(0.0f, 0.0f, 0.0f, kNan)));
}

TEST(CoreChecks, MessagesNameTheComponentAndTheValue) {
    EXPECT_EQ(tumble::check_finite(glm::vec3(1.0f, 2.0f, 3.0f), "center"), "");
    EXPECT_EQ(tumble::check_finite(glm::vec3(1.0f, kNan, 3.0f), "center"), "center.y is nan (must be finite)");
    EXPECT_EQ(tumble::check_finite(glm::vec3(kInf, kNan, 3.0f), "v"), "v.x is inf (must be finite)");  // the first
    EXPECT_EQ(tumble::check_finite(glm::dvec3(0.0, 0.0, -std::numeric_limits<double>::infinity()), "p"),
              "p.z is -inf (must be finite)");
    EXPECT_EQ(tumble::check_finite(glm::vec4(0.0f, 0.0f, 0.0f, kInf), "plane"), "plane.w is inf (must be finite)");
    EXPECT_EQ(tumble::check_finite(2.5, "dt"), "");
    EXPECT_EQ(tumble::check_finite(static_cast<double>(kNan), "dt"), "dt is nan (must be finite)");
    EXPECT_EQ(tumble::check_finite(-std::numeric_limits<double>::infinity(), "mass"), "mass is -inf (must be finite)");

    EXPECT_EQ(tumble::format_number(0.1f), "0.100000001");  // 9 digits tell floats apart
    EXPECT_EQ(tumble::format_number(-2.0), "-2");
    EXPECT_EQ(tumble::format_number(1e-20), "1e-20");
    EXPECT_EQ(tumble::component_name(0), "x");
    EXPECT_EQ(tumble::component_name(3), "w");
    EXPECT_EQ(tumble::component_name(5), "[5]");
}

TEST(CoreChecks, RequireOkThrowsInvalidArgumentWithWhatAndProblem) {
    EXPECT_NO_THROW(tumble::require_ok("", "World::step"));
    try {
        tumble::require_ok(tumble::check_finite(glm::vec3(kNan, 0.0f, 0.0f), "position"), "World::set_position");
        ADD_FAILURE() << "require_ok did not throw";
    } catch (const tumble::InvalidArgument& e) {
        EXPECT_STREQ(e.what(), "World::set_position: position.x is nan (must be finite)");
    }
}

// ---------------------------------------------------------------------------------------------------------------
// TUMBLE_ASSERT

TEST(CoreAssert, TrueConditionsPassAndTheConditionIsEvaluatedOnlyWhenEnabled) {
    int evaluated = 0;
    // A side effect here only to observe evaluation; real assertions never have one.
    TUMBLE_ASSERT(++evaluated == 1);
    EXPECT_EQ(evaluated, tumble::kAssertsEnabled ? 1 : 0);
    TUMBLE_ASSERT(std::is_same_v<int, int>);  // a comma inside the condition
}

TEST(CoreAssertDeathTest, FalseConditionPrintsFileLineAndExpressionAndAborts) {
    if (!tumble::kAssertsEnabled)
        GTEST_SKIP() << "TUMBLE_ASSERT is off in this build (TUMBLE_ENABLE_ASSERTS=0: a release build without "
                        "TUMBLE_ASSERTS); it is checked in Debug, with TUMBLE_SANITIZE and in the fuzz build";
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const int one = 1;
    EXPECT_DEATH(TUMBLE_ASSERT(one == 2), "core_test\\.cpp:[0-9]+: TUMBLE_ASSERT\\(one == 2\\) failed");
}

}  // namespace
