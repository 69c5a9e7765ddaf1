// The end-to-end run of tumble-drop (README.md): 1,000 boxes into the bundled real level.

#include <filesystem>

#include <gtest/gtest.h>

#include "drop_scene.hpp"

namespace {

const std::filesystem::path kLevel = std::filesystem::path(TUMBLE_SOURCE_DIR) / "samples/data/oa_dm1.obj";

TEST(DropSample, DefaultRunOnTheBundledLevelKeepsEveryBoxAndSettles) {
    const tumble::samples::DropOptions defaults;
    ASSERT_EQ(defaults.boxes, 1000);
    const auto r = tumble::samples::run_drop(kLevel, defaults, 600, 1.0f / 60.0f);
    std::printf("[ drop     ] boxes %d steps %d fell_through %d max_penetration %.5f resting %d hash %s\n", r.boxes,
                r.steps, r.fell_through, static_cast<double>(r.max_penetration), r.resting,
                tumble::samples::hex(r.state_hash).c_str());
    EXPECT_EQ(r.triangles, 7333u);
    EXPECT_EQ(r.fell_through, 0);
    EXPECT_LT(r.max_penetration, 0.01f);
    EXPECT_GE(r.resting, 950);
}

TEST(DropSample, SameSeedSameHashOtherSeedOtherHash) {
    tumble::samples::DropOptions o;
    o.boxes = 200;
    const auto a = tumble::samples::run_drop(kLevel, o, 120, 1.0f / 60.0f);
    const auto b = tumble::samples::run_drop(kLevel, o, 120, 1.0f / 60.0f);
    EXPECT_EQ(a.state_hash, b.state_hash);
    o.seed = 2;
    const auto c = tumble::samples::run_drop(kLevel, o, 120, 1.0f / 60.0f);
    EXPECT_NE(a.state_hash, c.state_hash);
}

TEST(DropSample, TwoThreadsGiveTheHashOfOne) {
    tumble::samples::DropOptions o;
    o.boxes = 200;
    const auto one = tumble::samples::run_drop(kLevel, o, 120, 1.0f / 60.0f);
    o.threads = 2;
    const auto two = tumble::samples::run_drop(kLevel, o, 120, 1.0f / 60.0f);
    EXPECT_EQ(one.state_hash, two.state_hash);
    EXPECT_EQ(one.max_penetration, two.max_penetration);
}

TEST(DropSample, SpawnedBoxesTouchNothingAndSitInsideTheLevel) {
    const tumble::ObjFile file = tumble::load_obj(kLevel);
    tumble::samples::DropOptions o;
    o.boxes = 300;
    const std::vector<tumble::BodyDef> boxes = tumble::samples::spawn_boxes(file.mesh, o);
    ASSERT_EQ(boxes.size(), 300u);
    std::vector<tumble::Obb> obbs;
    for (const tumble::BodyDef& d : boxes) {
        for (int k = 0; k < 3; ++k) {
            EXPECT_GE(d.half_extents[k], 0.1f);
            EXPECT_LE(d.half_extents[k], 0.5f);
        }
        obbs.push_back({d.position, glm::mat3_cast(d.orientation), d.half_extents});
    }
    for (std::size_t i = 0; i < obbs.size(); ++i) {
        for (std::size_t j = i + 1; j < obbs.size(); ++j) ASSERT_FALSE(tumble::overlap(obbs[i], obbs[j])) << i << " " << j;
        for (std::size_t t = 0; t < file.mesh.triangle_count(); t += 1)
            ASSERT_FALSE(tumble::overlap(obbs[i], file.mesh.triangle(t))) << i << " touches triangle " << t;
    }
}

}  // namespace
