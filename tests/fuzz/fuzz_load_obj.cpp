// libFuzzer target: tumble::load_obj on arbitrary bytes written to a file.
//
// Properties checked on every input, with and without drop_degenerate:
// - load_obj either returns or throws tumble::FileError; no other exception, crash or sanitizer report;
// - a returned mesh has an index count that is a multiple of 3, every index names a vertex, every vertex and spawn
//   point is finite, and TriangleMesh::validate reports nothing but degenerate triangles;
// - with drop_degenerate the triangles are exactly those of the plain load that pass validate(Triangle), in order,
//   and both loads agree on the vertices and spawn points; the plain load fails exactly when the dropping one does;
// - the vertices are the numbers written on the file's 'v' lines, in order, as std::from_chars reads them (lines end
//   at "\n", "\r\n" or "\r"; fields are separated by spaces and tabs).

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <tumble/tumble.hpp>

#include "fuzz_support.hpp"

namespace {

using tumble::fuzz::finite;

std::optional<tumble::ObjFile> load(const std::filesystem::path& path, bool drop, std::string& error) {
    try {
        return tumble::load_obj(path, drop);
    } catch (const tumble::FileError& e) {
        error = e.what();
        TUMBLE_FUZZ_CHECK(error.rfind(path.string() + ":", 0) == 0, "the message does not start with the path: " + error);
        return std::nullopt;
    }
}

// The x, y, z of every 'v' line, read independently of load_obj.
std::vector<glm::vec3> written_vertices(std::string_view text) {
    std::vector<glm::vec3> out;
    std::size_t i = 0;
    while (i < text.size()) {
        std::size_t end = i;
        while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
        const std::string_view line = text.substr(i, end - i);
        i = end + (end + 1 < text.size() && text[end] == '\r' && text[end + 1] == '\n' ? 2 : 1);
        std::vector<std::string_view> f;
        for (std::size_t k = 0; k < line.size();) {
            while (k < line.size() && (line[k] == ' ' || line[k] == '\t')) ++k;
            const std::size_t start = k;
            while (k < line.size() && line[k] != ' ' && line[k] != '\t') ++k;
            if (k > start) f.push_back(line.substr(start, k - start));
        }
        if (f.size() < 4 || f[0] != "v") continue;
        glm::vec3 v(0.0f);
        for (int c = 0; c < 3; ++c) std::from_chars(f[1 + c].data(), f[1 + c].data() + f[1 + c].size(), v[c]);
        out.push_back(v);
    }
    return out;
}

void check_mesh(const tumble::ObjFile& file) {
    const tumble::TriangleMesh& m = file.mesh;
    TUMBLE_FUZZ_CHECK(m.indices.size() % 3 == 0, std::to_string(m.indices.size()) + " indices");
    for (std::uint32_t i : m.indices)
        TUMBLE_FUZZ_CHECK(i < m.vertices.size(), "index " + std::to_string(i) + " of " + std::to_string(m.vertices.size()));
    for (const glm::vec3& v : m.vertices) TUMBLE_FUZZ_CHECK(finite(v), "a vertex is not finite");
    for (const tumble::SpawnPoint& s : file.spawns) TUMBLE_FUZZ_CHECK(finite(s.position), "a spawn point is not finite");
    const std::string problem = m.validate();
    TUMBLE_FUZZ_CHECK(problem.empty() || problem.find("degenerate") != std::string::npos,
                      "validate reports more than degenerate triangles: " + problem);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const tumble::fuzz::ScratchFile scratch(".obj");
    const std::filesystem::path& path = scratch.write(std::string_view(reinterpret_cast<const char*>(data), size));

    std::string plain_error, drop_error;
    const std::optional<tumble::ObjFile> plain = load(path, false, plain_error);
    const std::optional<tumble::ObjFile> dropped = load(path, true, drop_error);
    TUMBLE_FUZZ_CHECK(plain.has_value() == dropped.has_value(),
                      "one load failed and the other did not: '" + plain_error + "' / '" + drop_error + "'");
    if (!plain) {
        TUMBLE_FUZZ_CHECK(plain_error == drop_error, "different errors: '" + plain_error + "' / '" + drop_error + "'");
        return 0;
    }
    check_mesh(*plain);
    TUMBLE_FUZZ_CHECK(plain->mesh.vertices == written_vertices(std::string_view(reinterpret_cast<const char*>(data), size)),
                      "the vertices differ from the numbers on the 'v' lines");
    check_mesh(*dropped);
    TUMBLE_FUZZ_CHECK(dropped->mesh.validate().empty(), "drop_degenerate left a bad triangle: " + dropped->mesh.validate());
    TUMBLE_FUZZ_CHECK(plain->mesh.vertices == dropped->mesh.vertices, "the two loads read different vertices");
    TUMBLE_FUZZ_CHECK(plain->spawns.size() == dropped->spawns.size(), "the two loads read different spawn points");
    std::vector<std::uint32_t> kept;
    for (std::size_t t = 0; t < plain->mesh.triangle_count(); ++t)
        if (tumble::validate(plain->mesh.triangle(t)).empty())
            kept.insert(kept.end(), plain->mesh.indices.begin() + static_cast<std::ptrdiff_t>(3 * t),
                        plain->mesh.indices.begin() + static_cast<std::ptrdiff_t>(3 * t + 3));
    TUMBLE_FUZZ_CHECK(kept == dropped->mesh.indices, "drop_degenerate kept other triangles than the valid ones");
    return 0;
}
