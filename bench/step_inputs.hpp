#pragma once
// Whole-step family inputs: N boxes dropped into a real level, box sizes scaled down with N so the pile fits.

#include <filesystem>
#include <map>
#include <memory>
#include <vector>

#include <tumble/tumble.hpp>

#include "drop_scene.hpp"

namespace bench {

struct DropInput {
    std::string level_name;
    tumble::TriangleMesh level;
    std::vector<tumble::BodyDef> boxes;
    float lowest = 0.0f;  // lowest vertex: a box whose centre ends below it fell through
};

/// Levels of the whole-step family: 0 = medium (oa_rpg3dm2), 1 = large (oasago2), both bundled in samples/data.
inline const char* const kStepLevels[] = {"oa_rpg3dm2.obj", "oasago2.obj"};

/// Boxes dropped into level `level` (an index into kStepLevels). Half extents 0.1-0.5 m at 1,000 boxes, scaled by
/// (1000 / N)^(1/3) for more boxes so that the pile fits.
inline const DropInput& drop_input(int boxes, int level_index = 0) {
    static std::map<std::pair<int, int>, std::unique_ptr<DropInput>> cache;
    std::unique_ptr<DropInput>& slot = cache[{boxes, level_index}];
    if (!slot) {
        slot = std::make_unique<DropInput>();
        const std::filesystem::path level =
            std::filesystem::path(TUMBLE_SOURCE_DIR) / "samples/data" / kStepLevels[level_index];
        slot->level_name = level.filename().string();
        slot->level = tumble::load_obj(level).mesh;
        slot->lowest = slot->level.vertices[0].y;
        for (const glm::vec3& v : slot->level.vertices) slot->lowest = std::min(slot->lowest, v.y);
        tumble::samples::DropOptions options;
        options.boxes = boxes;
        const float scale = std::cbrt(1000.0f / static_cast<float>(std::max(boxes, 1000)));
        options.min_half_extent *= scale;
        options.max_half_extent *= scale;
        slot->boxes = tumble::samples::spawn_boxes(slot->level, options);
    }
    return *slot;
}

/// Box2D v3's large pyramid (its benchmark "large_pyramid", Catto 2024) in 3D: `base` cubes of half extent
/// `half` (m, 1 kg) in the bottom row, one fewer in each row above, each row centred on the gaps of the one below,
/// touching (no gaps), in the x-y plane at z = 0; base 100 gives 5,050 boxes. The ground, `pyramid_ground`, is a
/// static box whose top face is the plane y = 0. Positions are world, y up.
inline std::vector<tumble::BodyDef> pyramid_boxes(int base, float half = 0.5f) {
    std::vector<tumble::BodyDef> boxes;
    for (int row = 0; row < base; ++row)
        for (int i = 0; i < base - row; ++i) {
            tumble::BodyDef d;
            d.position = glm::vec3((2.0f * static_cast<float>(i) - static_cast<float>(base - 1 - row)) * half,
                                   half + 2.0f * half * static_cast<float>(row), 0.0f);
            d.half_extents = glm::vec3(half);
            d.mass = 1.0f;
            boxes.push_back(d);
        }
    return boxes;
}

/// The ground of `pyramid_boxes`: a static box 1 m thick with its top at y = 0, wider than the pyramid.
inline tumble::BodyDef pyramid_ground(int base, float half = 0.5f) {
    tumble::BodyDef d;
    d.position = glm::vec3(0.0f, -0.5f, 0.0f);
    d.half_extents = glm::vec3(2.0f * half * static_cast<float>(base), 0.5f, 20.0f * half);
    d.mass = 0.0f;
    return d;
}

/// Steps of the pyramid family: 10 s at 1/60 s, all timed (the pyramid must stand for all of them).
inline constexpr int kPyramidSteps = 600;

/// Steps measured: 60 to 300 at 1/60 s.
inline constexpr int kWarmupSteps = 60;
inline constexpr int kMeasuredSteps = 240;

}  // namespace bench
