#pragma once
// Where the tests' real input lives inside the repository, so that every test runs from a clean clone:
//   samples/data/  the three OpenArena levels as OBJ collision meshes (GPL-2+, see samples/data/README.md);
//   tests/data/objects/  the four scanned or modelled meshes from assimp's test models (BSD-3-clause, see
//                   tests/data/objects/README.md).

#include <filesystem>
#include <vector>

namespace testutil {

inline const std::filesystem::path kLevelDir = std::filesystem::path(TUMBLE_SOURCE_DIR) / "samples/data";
inline const std::filesystem::path kObjectDir = std::filesystem::path(TUMBLE_SOURCE_DIR) / "tests/data/objects";
inline const std::filesystem::path kBundledLevel = kLevelDir / "oa_dm1.obj";

/// The three real levels, smallest first: oa_dm1 (7,333 triangles), oa_rpg3dm2 (18,055), oasago2 (40,933).
inline std::vector<std::filesystem::path> real_levels() {
    return {kLevelDir / "oa_dm1.obj", kLevelDir / "oa_rpg3dm2.obj", kLevelDir / "oasago2.obj"};
}

}  // namespace testutil
