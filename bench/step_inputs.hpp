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

/// Steps measured: 60 to 300 at 1/60 s.
inline constexpr int kWarmupSteps = 60;
inline constexpr int kMeasuredSteps = 240;

}  // namespace bench
