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

/// The medium level (../shared/data/levels/oa_rpg3dm2.obj), or the bundled small one when ../shared is absent.
/// Half extents 0.1-0.5 m at 1,000 boxes, scaled by (1000 / N)^(1/3) for more boxes.
inline const DropInput& drop_input(int boxes) {
    static std::map<int, std::unique_ptr<DropInput>> cache;
    std::unique_ptr<DropInput>& slot = cache[boxes];
    if (!slot) {
        slot = std::make_unique<DropInput>();
        const std::filesystem::path medium = std::filesystem::path(TUMBLE_SHARED_DIR) / "data/levels/oa_rpg3dm2.obj";
        const std::filesystem::path level =
            std::filesystem::exists(medium) ? medium : std::filesystem::path(TUMBLE_SOURCE_DIR) / "samples/data/oa_dm1.obj";
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
