#include <tumble/engine/mesh.hpp>

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string_view>

#include <tiny_obj_loader.h>

#include <tumble/core/error.hpp>
#include <tumble/narrowphase/validate.hpp>

namespace tumble {

std::string TriangleMesh::validate() const {
    if (indices.size() % 3 != 0)
        return "the index count " + std::to_string(indices.size()) + " is not a multiple of 3";
    for (std::size_t v = 0; v < vertices.size(); ++v) {
        const glm::vec3& p = vertices[v];
        if (!(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z)))
            return "vertex " + std::to_string(v) + " is not finite";
    }
    for (std::size_t t = 0; t < triangle_count(); ++t) {
        for (int k = 0; k < 3; ++k)
            if (indices[3 * t + k] >= vertices.size())
                return "triangle " + std::to_string(t) + " uses vertex " + std::to_string(indices[3 * t + k]) +
                       " but the mesh has " + std::to_string(vertices.size()) + " vertices";
        const std::string problem = tumble::validate(triangle(t));
        if (!problem.empty()) return "triangle " + std::to_string(t) + ": " + problem;
    }
    return {};
}

namespace {

std::vector<std::string_view> fields(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
        if (i > start) out.push_back(line.substr(start, i - start));
    }
    return out;
}

// Builds 'text' without the operator+(const char*, string&&) chain that trips GCC 12's -Wrestrict false positive.
std::string quote(std::string_view text) {
    std::string s(1, '\'');
    s.append(text);
    s.push_back('\'');
    return s;
}

bool parse_float(std::string_view s, float& out) {
    const char* end = s.data() + s.size();
    auto [ptr, ec] = std::from_chars(s.data(), end, out);
    return ec == std::errc() && ptr == end && std::isfinite(out);
}

bool parse_int(std::string_view s, long& out) {
    const char* end = s.data() + s.size();
    auto [ptr, ec] = std::from_chars(s.data(), end, out);
    return ec == std::errc() && ptr == end;
}

// The text with every line ending ("\r\n", a lone "\r" or "\n") made "\n". tinyobjloader ends lines at all three;
// the check below splits at "\n" only, so without this a line such as "#\rf 1 2 9" was one comment to the check and
// a face with an unchecked index to tinyobjloader.
std::string normalise_line_ends(std::string text) {
    std::size_t out = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\r') {
            text[out++] = '\n';
            if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
        } else {
            text[out++] = text[i];
        }
    }
    text.resize(out);
    return text;
}

// tinyobjloader accepts malformed numbers silently (as 0), so the file is first checked line by line here to give
// errors with their line numbers; then tinyobjloader reads it. Returns the number of vertices.
long check_obj_lines(const std::filesystem::path& path, std::istream& in, std::vector<SpawnPoint>& spawns) {
    std::string line;
    long vertices = 0;
    long number = 0;
    auto fail = [&](const std::string& why) {
        throw FileError(path.string() + ":" + std::to_string(number) + ": " + why);
    };
    while (std::getline(in, line)) {
        ++number;
        const std::vector<std::string_view> f = fields(line);
        if (f.empty()) continue;
        if (f[0] == "v") {
            if (f.size() != 4 && f.size() != 5 && f.size() != 7)
                fail("a 'v' line needs x y z (optionally w, or r g b), found " + std::to_string(f.size() - 1) +
                     " values");
            for (std::size_t k = 1; k < f.size(); ++k) {
                float value;
                if (!parse_float(f[k], value)) fail(quote(f[k]) + " is not a finite number");
            }
            ++vertices;
        } else if (f[0] == "f") {
            if (f.size() < 4) fail("an 'f' line needs at least 3 vertices");
            for (std::size_t k = 1; k < f.size(); ++k) {
                const std::string_view ref = f[k].substr(0, f[k].find('/'));
                long index;
                if (!parse_int(ref, index)) fail(quote(f[k]) + " is not a vertex index");
                const long resolved = index < 0 ? vertices + index + 1 : index;
                if (index == 0 || resolved < 1 || resolved > vertices)
                    fail("vertex index " + std::to_string(index) + " is out of range (" + std::to_string(vertices) +
                         " vertices defined so far)");
            }
        } else if (f[0] == "#" && f.size() >= 2 && f[1] == "spawn") {
            SpawnPoint s;
            if (f.size() != 6) fail("a '# spawn' line needs CLASS x y z");
            s.class_name = std::string(f[2]);
            for (int k = 0; k < 3; ++k)
                if (!parse_float(f[3 + k], s.position[k])) fail(quote(f[3 + k]) + " is not a finite number");
            spawns.push_back(s);
        }
    }
    return vertices;
}

}  // namespace

ObjFile load_obj(const std::filesystem::path& path, bool drop_degenerate) {
    std::ifstream file(path, std::ios::binary);
    if (!file) throw FileError(path.string() + ": cannot open the file (missing or unreadable)");
    std::ostringstream raw;
    raw << file.rdbuf();
    if (file.bad()) throw FileError(path.string() + ": error while reading the file");
    // The check and tinyobjloader read the same text, split into the same lines.
    const std::string text = normalise_line_ends(std::move(raw).str());
    ObjFile out;
    std::istringstream lines(text);
    const long checked_vertices = check_obj_lines(path, lines, out.spawns);

    tinyobj::ObjReaderConfig config;
    config.triangulate = true;
    config.vertex_color = false;
    tinyobj::ObjReader reader;
    // From memory, with no material text: materials are not used, and a `mtllib` line must not make the loader open
    // other files (a `mtllib` naming /dev/zero would never end).
    if (!reader.ParseFromString(text, std::string(), config))
        throw FileError(path.string() + ": " + reader.Error());

    const tinyobj::attrib_t& attrib = reader.GetAttrib();
    const std::size_t vertex_count = attrib.vertices.size() / 3;
    // Both readers must agree on the vertices for the indices checked above to mean the same; if they ever do not,
    // refuse the file rather than index out of range.
    if (vertex_count != static_cast<std::size_t>(checked_vertices))
        throw FileError(path.string() + ": tinyobjloader read " + std::to_string(vertex_count) + " vertices where " +
                        std::to_string(checked_vertices) + " 'v' lines were checked");
    out.mesh.vertices.resize(vertex_count);
    for (std::size_t v = 0; v < vertex_count; ++v)
        out.mesh.vertices[v] = {attrib.vertices[3 * v], attrib.vertices[3 * v + 1], attrib.vertices[3 * v + 2]};
    for (const tinyobj::shape_t& shape : reader.GetShapes()) {
        const std::vector<tinyobj::index_t>& idx = shape.mesh.indices;
        for (std::size_t t = 0; t + 2 < idx.size(); t += 3) {
            for (std::size_t k = t; k < t + 3; ++k)
                if (idx[k].vertex_index < 0 || static_cast<std::size_t>(idx[k].vertex_index) >= vertex_count)
                    throw FileError(path.string() + ": a face uses vertex index " + std::to_string(idx[k].vertex_index) +
                                    " (0-based) of " + std::to_string(vertex_count) + " vertices");
            const std::uint32_t tri[3] = {static_cast<std::uint32_t>(idx[t].vertex_index),
                                          static_cast<std::uint32_t>(idx[t + 1].vertex_index),
                                          static_cast<std::uint32_t>(idx[t + 2].vertex_index)};
            if (drop_degenerate) {
                const Triangle candidate{out.mesh.vertices[tri[0]], out.mesh.vertices[tri[1]], out.mesh.vertices[tri[2]]};
                if (!validate(candidate).empty()) continue;
            }
            out.mesh.indices.insert(out.mesh.indices.end(), tri, tri + 3);
        }
    }
    return out;
}

}  // namespace tumble
