// Batch box-box tests (batch.hpp) against the scalar overlap and collide, pair by pair and bit for bit, on every seeded
// family of the reference tests and on bad input, for every SIMD target Highway compiled in and this CPU runs; and
// the filter's share of decided pairs, so that a filter that silently leaves everything to the scalar test fails.

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <tumble/core/error.hpp>
#include <tumble/narrowphase/batch.hpp>
#include <tumble/narrowphase/sat.hpp>

#include "support/families.hpp"
#include "support/test_util.hpp"

namespace {

using tumble::BatchStats;
using tumble::Contact;
using tumble::Obb;
using tumble::ObbBatch;
using testutil::Random;
using Pairs = std::vector<std::pair<Obb, Obb>>;

template <class Family>
Pairs make_family(int count = Family::count) {
    Random rng(Family::seed);
    Pairs out;
    out.reserve(static_cast<std::size_t>(count));
    for (int k = 0; k < count; ++k) out.push_back(Family::template make<float>(rng));
    return out;
}

// Bad and extreme input: a random general pair with one value replaced (NaN, infinities, huge, denormal, zero,
// negative extents, stretched axes), or both boxes moved far beyond float's comfortable range.
Pairs make_bad(int count) {
    Random rng(99);
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    const float values[] = {nan, inf, -inf, 1e30f, -1e30f, 3e38f, -3e38f, 1e-40f, 0.0f, -0.5f, 1e20f, 2.0f};
    Pairs out;
    for (int k = 0; k < count; ++k) {
        auto [a, b] = fam::RandomGeneral::make<float>(rng);
        Obb& o = rng.uniform() < 0.5 ? a : b;
        const float v = values[rng.index(static_cast<int>(std::size(values)))];
        const int field = rng.index(16);
        if (field < 3) {
            o.center[field] = v;
        } else if (field < 12) {
            o.axes[(field - 3) / 3][(field - 3) % 3] = v;
        } else if (field < 15) {
            o.half_extents[field - 12] = v;
        } else {
            const glm::vec3 far(static_cast<float>(testutil::log_uniform(rng, 6, 37)));
            a.center += far;
            b.center += far;
        }
        if (rng.uniform() < 0.1) o.axes[rng.index(3)] *= static_cast<float>(rng.uniform(0.5, 1.5));  // not unit
        out.emplace_back(a, b);
    }
    return out;
}

bool same_bits(float x, float y) { return std::memcmp(&x, &y, sizeof(float)) == 0; }

bool same_contact(const std::optional<Contact>& x, const std::optional<Contact>& y) {
    if (x.has_value() != y.has_value()) return false;
    if (!x) return true;
    return x->axis == y->axis && x->negative == y->negative && same_bits(x->depth, y->depth) &&
           same_bits(x->normal.x, y->normal.x) && same_bits(x->normal.y, y->normal.y) &&
           same_bits(x->normal.z, y->normal.z);
}

std::string describe(const std::optional<Contact>& c) {
    if (!c) return "none";
    char buf[200];
    std::snprintf(buf, sizeof buf, "axis %d%s depth %.9g normal (%.9g, %.9g, %.9g)", c->axis, c->negative ? " neg" : "",
                  static_cast<double>(c->depth), static_cast<double>(c->normal.x), static_cast<double>(c->normal.y),
                  static_cast<double>(c->normal.z));
    return buf;
}

// The scalar answers of a list of pairs, computed once.
struct Expected {
    std::vector<std::uint8_t> overlap;
    std::vector<std::optional<Contact>> contact;
};
Expected scalar_answers(const Pairs& pairs) {
    Expected e;
    for (const auto& [a, b] : pairs) {
        e.overlap.push_back(tumble::overlap(a, b) ? 1 : 0);
        e.contact.push_back(tumble::collide(a, b));
    }
    return e;
}

struct Outcome {
    BatchStats overlap, indexed, collide;
};

// Runs the three batch forms on `pairs` and checks every answer against `expected`.
Outcome check_batch(const char* name, const Pairs& pairs, const Expected& expected) {
    ObbBatch a, b, all;
    std::vector<std::uint32_t> first, second;
    for (const auto& [x, y] : pairs) {
        a.push_back(x);
        b.push_back(y);
        first.push_back(static_cast<std::uint32_t>(all.size()));
        all.push_back(x);
        second.push_back(static_cast<std::uint32_t>(all.size()));
        all.push_back(y);
    }
    Outcome out;
    std::vector<std::uint8_t> result(pairs.size(), 7);
    std::vector<std::uint8_t> indexed(pairs.size(), 7);
    std::vector<std::optional<Contact>> contact(pairs.size());
    tumble::overlap(a, b, result, &out.overlap);
    tumble::overlap(all, first, second, indexed, &out.indexed);
    tumble::collide(a, b, contact, &out.collide);
    int failures = 0;
    for (std::size_t i = 0; i < pairs.size() && failures < 5; ++i) {
        const bool ok = result[i] == expected.overlap[i] && indexed[i] == expected.overlap[i] &&
                        same_contact(contact[i], expected.contact[i]);
        if (!ok) {
            ++failures;
            ADD_FAILURE() << name << " pair " << i << " on " << tumble::batch_target_name() << ": overlap batch "
                          << int(result[i]) << " indexed " << int(indexed[i]) << " scalar " << int(expected.overlap[i])
                          << "; collide batch " << describe(contact[i]) << " scalar " << describe(expected.contact[i])
                          << "\n  A = " << testutil::describe(pairs[i].first)
                          << "\n  B = " << testutil::describe(pairs[i].second);
        }
    }
    for (const BatchStats* s : {&out.overlap, &out.indexed, &out.collide}) {
        EXPECT_EQ(s->pairs, pairs.size());
        EXPECT_EQ(s->simd_separated + s->simd_overlapping + s->scalar, pairs.size());
    }
    return out;
}

struct Case {
    const char* name;
    Pairs pairs;
    double min_decided;   // the overlap filter's share of decided pairs must reach this
    double min_collided;  // and collide's share (separated, or a certified contact)
};

std::vector<Case> all_cases() {
    std::vector<Case> cases;
    cases.push_back({fam::RandomGeneral::name, make_family<fam::RandomGeneral>(), 0.97, 0.97});
    cases.push_back({fam::ParallelEdges::name, make_family<fam::ParallelEdges>(), 0.3, 0.0});
    cases.push_back({fam::ParallelEdgesOneUlpApart::name, make_family<fam::ParallelEdgesOneUlpApart>(), 0.3, 0.0});
    cases.push_back({fam::AxisAligned::name, make_family<fam::AxisAligned>(), 0.3, 0.0});
    cases.push_back({fam::NestedConcentric::name, make_family<fam::NestedConcentric>(), 0.0, 0.0});
    cases.push_back({fam::ZeroExtents::name, make_family<fam::ZeroExtents>(), 0.7, 0.0});
    cases.push_back({fam::FarFromOrigin::name, make_family<fam::FarFromOrigin>(), 0.9, 0.0});
    cases.push_back({fam::NearParallel::name, make_family<fam::NearParallel>(10000), 0.3, 0.0});
    cases.push_back({fam::TouchFaceFace::name, make_family<fam::TouchFaceFace>(), 0.0, 0.0});
    cases.push_back({fam::TouchFaceEdge::name, make_family<fam::TouchFaceEdge>(), 0.0, 0.0});
    cases.push_back({fam::TouchEdgeEdge::name, make_family<fam::TouchEdgeEdge>(), 0.0, 0.0});
    cases.push_back({fam::TouchVertexFace::name, make_family<fam::TouchVertexFace>(), 0.0, 0.0});
    cases.push_back({fam::ExtremeAspect::name, make_family<fam::ExtremeAspect>(), 0.7, 0.0});
    cases.push_back({fam::Scales::name, make_family<fam::Scales>(), 0.9, 0.0});
    cases.push_back({"bad and extreme values", make_bad(5000), 0.0, 0.0});
    return cases;
}

const std::vector<Case>& cases() {
    static const std::vector<Case> c = all_cases();
    return c;
}
const std::vector<Expected>& expected() {
    static const std::vector<Expected> e = [] {
        std::vector<Expected> out;
        for (const Case& c : cases()) out.push_back(scalar_answers(c.pairs));
        return out;
    }();
    return e;
}

// Every target this binary can run: Highway's compiled targets that the CPU supports.
class EachTarget : public ::testing::Test {
protected:
    void TearDown() override { hwy::SetSupportedTargetsForTest(0); }
};

TEST_F(EachTarget, SameAnswersAsScalarOnEveryFamily) {
    const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
    ASSERT_FALSE(targets.empty());
    for (std::int64_t target : targets) {
        hwy::SetSupportedTargetsForTest(target);
        ASSERT_STREQ(tumble::batch_target_name(), hwy::TargetName(target));
        for (std::size_t k = 0; k < cases().size(); ++k) {
            const Case& c = cases()[k];
            const Outcome o = check_batch(c.name, c.pairs, expected()[k]);
            const double n = static_cast<double>(c.pairs.size());
            const double decided = static_cast<double>(o.overlap.simd_separated + o.overlap.simd_overlapping) / n;
            const double collided =
                static_cast<double>(o.collide.simd_separated + o.collide.simd_overlapping) / n;
            std::printf("[ batch    ] %-6s %-38s %6zu pairs: decided in SIMD: overlap %5.1f%% (%5.1f%% separated, "
                        "%5.1f%% overlapping), collide %5.1f%% (contact certified for %5.1f%%)\n",
                        hwy::TargetName(target), c.name, c.pairs.size(), 100.0 * decided,
                        100.0 * static_cast<double>(o.overlap.simd_separated) / n,
                        100.0 * static_cast<double>(o.overlap.simd_overlapping) / n, 100.0 * collided,
                        100.0 * static_cast<double>(o.collide.simd_overlapping) / n);
            EXPECT_GE(decided, c.min_decided) << c.name << " on " << hwy::TargetName(target);
            EXPECT_GE(collided, c.min_collided) << c.name << " on " << hwy::TargetName(target);
            EXPECT_EQ(o.indexed.simd_separated, o.overlap.simd_separated) << c.name;
            EXPECT_EQ(o.indexed.simd_overlapping, o.overlap.simd_overlapping) << c.name;
            EXPECT_EQ(o.collide.simd_separated, o.overlap.simd_separated) << c.name;
        }
    }
}

TEST_F(EachTarget, EverySizeAroundTheVectorWidths) {
    // Sizes 0, 1, each lane width +-1, odd sizes: the tail of every call, and the indexed form's blocks of 16.
    const Pairs pool = make_family<fam::RandomGeneral>(200);
    const Expected want = scalar_answers(pool);
    for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
        hwy::SetSupportedTargetsForTest(target);
        for (std::size_t n : {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 129, 199}) {
            const Pairs pairs(pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(n));
            Expected e;
            e.overlap.assign(want.overlap.begin(), want.overlap.begin() + static_cast<std::ptrdiff_t>(n));
            e.contact.assign(want.contact.begin(), want.contact.begin() + static_cast<std::ptrdiff_t>(n));
            const std::string name = "size " + std::to_string(n);
            check_batch(name.c_str(), pairs, e);
        }
    }
}

TEST_F(EachTarget, TinyPairsGiveTheScalarContact) {
    // Found by fuzz_narrowphase: boxes of about 5e-22 m. The collide kernel certified an edge contact where the scalar
    // collide() reports a face of half that depth: its float intervals assume relative round-off, which products of
    // such small values lose to underflow. Scaled up by 2^40 the same pair was right. Tiny pairs now go to the scalar
    // test.
    const Obb a{{8.82768707e-39f, 4.23942989e-22f, 5.16524007e-22f},
                glm::mat3(glm::vec3(0.00222343206f, 0.999995112f, 0.00221851468f),
                          glm::vec3(0.00221851468f, -0.00222349167f, 0.999995112f),
                          glm::vec3(0.999995112f, -0.00221851468f, -0.00222349167f)),
                {5.16524007e-22f, 5.16524007e-22f, 5.16524007e-22f}};
    const Obb b{{5.16524007e-22f, 5.16524007e-22f, 4.60275726e-22f},
                glm::mat3(glm::vec3(-0.112480283f, 0.00955099612f, 0.993608057f),
                          glm::vec3(-0.00955099612f, 0.999897242f, -0.0106926607f),
                          glm::vec3(-0.993608057f, -0.0106926607f, -0.112377524f)),
                {1.10340349e-37f, 8.82768707e-39f, 4.23942989e-22f}};
    const std::optional<tumble::Contact> want = tumble::collide(a, b);
    ASSERT_TRUE(want);
    for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
        hwy::SetSupportedTargetsForTest(target);
        const ObbBatch ba(std::span<const Obb>(&a, 1)), bb(std::span<const Obb>(&b, 1));
        std::optional<tumble::Contact> got;
        tumble::collide(ba, bb, std::span<std::optional<tumble::Contact>>(&got, 1));
        ASSERT_TRUE(got) << hwy::TargetName(target);
        EXPECT_EQ(got->axis, want->axis) << hwy::TargetName(target);
        EXPECT_EQ(got->negative, want->negative) << hwy::TargetName(target);
        EXPECT_EQ(std::memcmp(&got->depth, &want->depth, sizeof(float)), 0) << hwy::TargetName(target);
        EXPECT_EQ(std::memcmp(&got->normal, &want->normal, sizeof(glm::vec3)), 0) << hwy::TargetName(target);
    }
}

TEST(Batch, ChecksSizesAndIndices) {
    ObbBatch a, b;
    for (int i = 0; i < 3; ++i) a.push_back(Obb{});
    for (int i = 0; i < 2; ++i) b.push_back(Obb{});
    std::vector<std::uint8_t> r(3);
    std::vector<std::optional<Contact>> c(3);
    try {
        tumble::overlap(a, b, r);
        FAIL() << "no exception";
    } catch (const tumble::InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("3, 2 and 3"), std::string::npos) << e.what();
    }
    EXPECT_THROW(tumble::collide(a, b, c), tumble::InvalidArgument);
    b.push_back(Obb{});
    EXPECT_NO_THROW(tumble::overlap(a, b, r));
    EXPECT_THROW(tumble::overlap(a, b, std::span<std::uint8_t>(r).first(2)), tumble::InvalidArgument);
    const std::vector<std::uint32_t> first{0, 1, 2}, second{2, 1, 3};
    try {
        tumble::overlap(a, first, second, r);
        FAIL() << "no exception";
    } catch (const tumble::InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("pair 2 (2, 3)"), std::string::npos) << e.what();
    }
    EXPECT_THROW(tumble::overlap(a, first, std::span<const std::uint32_t>(second).first(2), r), tumble::InvalidArgument);
    EXPECT_THROW(a.get(3), tumble::InvalidArgument);
    EXPECT_THROW(a.set(3, Obb{}), tumble::InvalidArgument);
}

TEST(Batch, StoresBoxesAsGiven) {
    Random rng(5);
    ObbBatch batch;
    std::vector<Obb> boxes;
    for (int i = 0; i < 37; ++i) {
        boxes.push_back(fam::RandomGeneral::make<float>(rng).first);
        batch.push_back(boxes.back());
    }
    auto same = [](const Obb& x, const Obb& y) {
        return std::memcmp(&x.center, &y.center, sizeof x.center) == 0 &&
               std::memcmp(&x.axes, &y.axes, sizeof x.axes) == 0 &&
               std::memcmp(&x.half_extents, &y.half_extents, sizeof x.half_extents) == 0;
    };
    ASSERT_EQ(batch.size(), 37u);
    EXPECT_EQ(batch.capacity() % ObbBatch::kLanes, 0u);
    for (int f = 0; f < ObbBatch::kFieldCount; ++f)
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(batch.data(static_cast<ObbBatch::Field>(f))) % 64, 0u);
    for (std::size_t i = 0; i < boxes.size(); ++i) EXPECT_TRUE(same(batch.get(i), boxes[i])) << i;
    batch.set(3, boxes[0]);
    EXPECT_TRUE(same(batch.get(3), boxes[0]));
    const ObbBatch copy = batch;
    EXPECT_TRUE(same(copy.get(36), boxes[36]));
    const ObbBatch from_span(boxes);
    EXPECT_TRUE(same(from_span.get(3), boxes[3]));
    const std::size_t capacity = batch.capacity();
    batch.clear();
    EXPECT_TRUE(batch.empty());
    EXPECT_EQ(batch.capacity(), capacity);
    batch.resize(5);
    EXPECT_TRUE(same(batch.get(4), Obb{}));
    ObbBatch moved = std::move(batch);
    EXPECT_EQ(moved.size(), 5u);
    EXPECT_EQ(batch.size(), 0u);  // NOLINT(bugprone-use-after-move): documented moved-from state
}

}  // namespace
