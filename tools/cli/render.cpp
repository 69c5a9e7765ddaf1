#include "render.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

#include <stb_image_write.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wsign-conversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

namespace tumble::cli {
namespace {

constexpr int kSuper = 2;  // supersampling factor per axis
using look::kBackground;
using look::kLevel;
using look::kLevelEdge;

struct Basis {
    glm::dvec3 right, up, forward;  // forward: the viewing direction (from the eye into the scene)
};

Basis basis(View v) {
    switch (v) {
        case View::top: return {{1, 0, 0}, {0, 0, -1}, {0, -1, 0}};
        case View::front: return {{1, 0, 0}, {0, 1, 0}, {0, 0, -1}};
        case View::side: return {{0, 0, -1}, {0, 1, 0}, {-1, 0, 0}};
        case View::iso:
        default: {
            const glm::dvec3 f = glm::normalize(glm::dvec3(-1, -1, -1));
            const glm::dvec3 up = glm::normalize(glm::dvec3(0, 1, 0) - f * glm::dot(glm::dvec3(0, 1, 0), f));
            return {glm::cross(f, up), up, f};
        }
    }
}

// Orthographic camera in supersampled pixels: x to the right, y down, depth growing away from the eye.
struct Camera {
    Basis b;
    double cx = 0, cy = 0, scale = 1;
    int w = 0, h = 0;
    glm::dvec3 project(const glm::dvec3& p) const {
        return {w * 0.5 + (glm::dot(p, b.right) - cx) * scale, h * 0.5 - (glm::dot(p, b.up) - cy) * scale,
                glm::dot(p, b.forward)};
    }
};

Camera make_camera(View view, const Aabb& frame, int w, int h) {
    Camera cam;
    cam.b = basis(view);
    cam.w = w;
    cam.h = h;
    double lo_x = std::numeric_limits<double>::max(), hi_x = -lo_x, lo_y = lo_x, hi_y = -lo_x;
    for (int k = 0; k < 8; ++k) {
        const glm::dvec3 p((k & 1) ? frame.max.x : frame.min.x, (k & 2) ? frame.max.y : frame.min.y,
                           (k & 4) ? frame.max.z : frame.min.z);
        lo_x = std::min(lo_x, glm::dot(p, cam.b.right));
        hi_x = std::max(hi_x, glm::dot(p, cam.b.right));
        lo_y = std::min(lo_y, glm::dot(p, cam.b.up));
        hi_y = std::max(hi_y, glm::dot(p, cam.b.up));
    }
    cam.cx = 0.5 * (lo_x + hi_x);
    cam.cy = 0.5 * (lo_y + hi_y);
    const double margin = 0.06;
    const double ex = std::max(hi_x - lo_x, 1e-3), ey = std::max(hi_y - lo_y, 1e-3);
    cam.scale = std::min(w * (1 - 2 * margin) / ex, h * (1 - 2 * margin) / ey);
    return cam;
}

struct Canvas {
    int w, h;
    std::vector<glm::vec3> colour;
    std::vector<double> depth;
    Canvas(int width, int height)
        : w(width), h(height), colour(static_cast<std::size_t>(width) * height, kBackground),
          depth(static_cast<std::size_t>(width) * height, std::numeric_limits<double>::infinity()) {}

    void triangle(const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c, const glm::vec3& rgb) {
        const double area = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
        if (!(std::abs(area) > 1e-12)) return;
        const int x0 = std::max(0, static_cast<int>(std::floor(std::min({a.x, b.x, c.x}))));
        const int x1 = std::min(w - 1, static_cast<int>(std::ceil(std::max({a.x, b.x, c.x}))));
        const int y0 = std::max(0, static_cast<int>(std::floor(std::min({a.y, b.y, c.y}))));
        const int y1 = std::min(h - 1, static_cast<int>(std::ceil(std::max({a.y, b.y, c.y}))));
        for (int y = y0; y <= y1; ++y) {
            for (int x = x0; x <= x1; ++x) {
                const double px = x + 0.5, py = y + 0.5;
                const double w0 = ((b.x - px) * (c.y - py) - (b.y - py) * (c.x - px)) / area;
                const double w1 = ((c.x - px) * (a.y - py) - (c.y - py) * (a.x - px)) / area;
                const double w2 = 1.0 - w0 - w1;
                if (w0 < 0 || w1 < 0 || w2 < 0) continue;
                const double z = w0 * a.z + w1 * b.z + w2 * c.z;
                const std::size_t i = static_cast<std::size_t>(y) * w + x;
                if (z < depth[i]) {
                    depth[i] = z;
                    colour[i] = rgb;
                }
            }
        }
    }

    // A depth-tested line `thickness` pixels wide; `bias` lets edges win against the faces they lie on.
    void line(const glm::dvec3& a, const glm::dvec3& b, const glm::vec3& rgb, double bias, int thickness,
              bool on_top = false) {
        const double len = std::max(std::abs(b.x - a.x), std::abs(b.y - a.y));
        const int n = static_cast<int>(std::ceil(len)) + 1;
        if (n > 100000) return;  // off-screen nonsense
        for (int k = 0; k <= n; ++k) {
            const double t = static_cast<double>(k) / n;
            const glm::dvec3 p = a + (b - a) * t;
            for (int dy = 0; dy < thickness; ++dy)
                for (int dx = 0; dx < thickness; ++dx) {
                    const int x = static_cast<int>(std::floor(p.x)) + dx - thickness / 2;
                    const int y = static_cast<int>(std::floor(p.y)) + dy - thickness / 2;
                    if (x < 0 || y < 0 || x >= w || y >= h) continue;
                    const std::size_t i = static_cast<std::size_t>(y) * w + x;
                    if (on_top || p.z <= depth[i] + bias) colour[i] = rgb;
                }
        }
    }

    void disc(const glm::dvec3& c, double radius, const glm::vec3& rgb) {
        for (int y = static_cast<int>(c.y - radius); y <= static_cast<int>(c.y + radius) + 1; ++y)
            for (int x = static_cast<int>(c.x - radius); x <= static_cast<int>(c.x + radius) + 1; ++x) {
                if (x < 0 || y < 0 || x >= w || y >= h) continue;
                const double dx = x + 0.5 - c.x, dy = y + 0.5 - c.y;
                if (dx * dx + dy * dy <= radius * radius) colour[static_cast<std::size_t>(y) * w + x] = rgb;
            }
    }
};

glm::vec3 shade(const glm::vec3& base, const glm::dvec3& normal) {
    return base * static_cast<float>(look::shade_factor(normal));
}

// Rounds to the nearest byte: the clamped value is >= 0, where adding 0.5 and truncating is rounding half up.
std::uint8_t to_byte(float v) {
    // NOLINTNEXTLINE(bugprone-incorrect-roundings)
    return static_cast<std::uint8_t>(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f);
}

void draw_text(Picture& pic, int x, int y, const std::string& text, int scale) {
    if (text.empty()) return;
    std::vector<char> buffer(text.size() * 300 + 1000);
    std::vector<char> chars(text.begin(), text.end());
    chars.push_back('\0');
    const int quads = stb_easy_font_print(0, 0, chars.data(), nullptr, buffer.data(), static_cast<int>(buffer.size()));
    const int tw = stb_easy_font_width(chars.data()) * scale, th = stb_easy_font_height(chars.data()) * scale;
    // A light panel behind the text keeps it readable over the scene.
    for (int py = std::max(0, y - 3); py < std::min(pic.height, y + th + 3); ++py)
        for (int px = std::max(0, x - 4); px < std::min(pic.width, x + tw + 4); ++px) {
            std::uint8_t* p = pic.at(px, py);
            for (int k = 0; k < 3; ++k) p[k] = static_cast<std::uint8_t>((p[k] + 3 * 250) / 4);
        }
    for (int q = 0; q < quads; ++q) {
        const float* v0 = reinterpret_cast<const float*>(buffer.data() + static_cast<std::ptrdiff_t>(q) * 64);
        const float* v2 = reinterpret_cast<const float*>(buffer.data() + static_cast<std::ptrdiff_t>(q) * 64 + 32);
        const int qx0 = x + static_cast<int>(v0[0] * static_cast<float>(scale)), qy0 = y + static_cast<int>(v0[1] * static_cast<float>(scale));
        const int qx1 = x + static_cast<int>(v2[0] * static_cast<float>(scale)), qy1 = y + static_cast<int>(v2[1] * static_cast<float>(scale));
        for (int py = std::max(0, qy0); py < std::min(pic.height, qy1); ++py)
            for (int px = std::max(0, qx0); px < std::min(pic.width, qx1); ++px) {
                std::uint8_t* p = pic.at(px, py);
                p[0] = p[1] = p[2] = 20;
            }
    }
}

}  // namespace

glm::dvec3 look::light_direction() { return glm::normalize(glm::dvec3(0.35, 1.0, 0.55)); }

double look::shade_factor(const glm::dvec3& normal) {
    static const glm::dvec3 light = light_direction();
    return kAmbient + (1.0 - kAmbient) * std::max(0.0, glm::dot(normal, light));
}

std::vector<FeatureEdge> feature_edges(const TriangleMesh& m, double crease_degrees) {
    std::vector<glm::dvec3> normals(m.triangle_count(), glm::dvec3(0.0));
    for (std::size_t t = 0; t < m.triangle_count(); ++t) {
        const glm::dvec3 n = glm::dvec3(m.triangle(t).scaled_normal());
        const double len = glm::length(n);
        if (len > 0) normals[t] = n / len;
    }
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::uint32_t>> edges;
    for (std::uint32_t t = 0; t < m.triangle_count(); ++t)
        for (int k = 0; k < 3; ++k) {
            std::uint32_t a = m.indices[3 * t + k], b = m.indices[3 * t + (k + 1) % 3];
            if (a > b) std::swap(a, b);
            edges[{a, b}].push_back(t);
        }
    const double crease = std::cos(crease_degrees * 3.14159265358979 / 180.0);
    std::vector<FeatureEdge> out;
    for (auto& [edge, tris] : edges) {
        const bool feature = tris.size() != 2 || glm::dot(normals[tris[0]], normals[tris[1]]) < crease;
        if (feature) out.push_back({edge.first, edge.second, std::move(tris)});
    }
    return out;
}

TriangleMesh weld(const std::vector<Triangle>& triangles) {
    TriangleMesh m;
    std::map<std::tuple<float, float, float>, std::uint32_t> index;
    m.indices.reserve(triangles.size() * 3);
    for (const Triangle& t : triangles)
        for (const glm::vec3& p : {t.a, t.b, t.c}) {
            const auto [at, added] = index.try_emplace({p.x, p.y, p.z}, static_cast<std::uint32_t>(m.vertices.size()));
            if (added) m.vertices.push_back(p);
            m.indices.push_back(at->second);
        }
    return m;
}

void DrawingRecorder::line(const glm::vec3& from, const glm::vec3& to, const glm::vec3& color) {
    if (pending_.size() == 3) {  // the oldest pending line closes no triangle
        take(pending_.front());
        pending_.erase(pending_.begin());
    }
    pending_.push_back({from, to, color});
    if (pending_.size() == 3) {
        const Drawing::Line &ab = pending_[0], &bc = pending_[1], &ca = pending_[2];
        const bool mesh = ab.colour == DebugColors::fixed && bc.colour == DebugColors::fixed &&
                          ca.colour == DebugColors::fixed;
        if (mesh && ab.to == bc.from && bc.to == ca.from && ca.to == ab.from) {
            drawing_.triangles.push_back(Triangle{ab.from, bc.from, ca.from});
            pending_.clear();
        }
    }
}

void DrawingRecorder::body(BodyId id, const Obb& box, const glm::vec3& color) {
    flush();
    drawing_.boxes.push_back({box, colour ? colour(id, color) : color, !highlight.is_null() && id == highlight});
}

void DrawingRecorder::point(const glm::vec3& position, float, const glm::vec3&) {
    flush();
    // The direction comes with the contact normal line that follows; until then, straight up.
    drawing_.contacts.push_back({position, glm::vec3(0.0f, 1.0f, 0.0f)});
    marker_open_ = true;
}

void DrawingRecorder::text(const glm::vec3&, std::string_view, const glm::vec3&) { flush(); }

Drawing DrawingRecorder::finish() {
    flush();
    marker_open_ = false;
    return std::exchange(drawing_, Drawing{});
}

void DrawingRecorder::flush() {
    for (const Drawing::Line& l : pending_) take(l);
    pending_.clear();
}

void DrawingRecorder::take(const Drawing::Line& l) {
    if (marker_open_ && l.colour == DebugColors::contact && l.from == drawing_.contacts.back().point && l.to != l.from) {
        drawing_.contacts.back().normal = glm::normalize(l.to - l.from);
        marker_open_ = false;
        return;
    }
    drawing_.lines.push_back(l);
}

Drawing draw_world(const World& world, const DrawWorldOptions& options) {
    DrawingRecorder recorder;
    recorder.colour = options.colour;
    recorder.highlight = options.highlight;
    DebugDrawOptions shown;
    shown.bodies = true;
    shown.meshes = true;
    shown.contacts = options.contacts;
    shown.sleep_labels = shown.proxies = shown.octree_cells = shown.depth_labels = false;
    world.debug_draw(recorder, shown);
    return recorder.finish();
}

bool parse_picture_size(std::string_view text, int& w, int& h) {
    const std::size_t x = text.find('x');
    if (x == std::string_view::npos) return false;
    const auto number = [](std::string_view digits, int& value) {
        if (digits.empty() || digits.size() > 5) return false;
        value = 0;
        for (const char c : digits) {
            if (c < '0' || c > '9') return false;
            value = value * 10 + (c - '0');
        }
        return value >= 16 && value <= 8192;
    };
    return number(text.substr(0, x), w) && number(text.substr(x + 1), h);
}

std::optional<View> parse_view(std::string_view name) {
    if (name == "top") return View::top;
    if (name == "side") return View::side;
    if (name == "front") return View::front;
    if (name == "iso") return View::iso;
    return std::nullopt;
}

const char* view_name(View view) {
    switch (view) {
        case View::top: return "top";
        case View::side: return "side";
        case View::front: return "front";
        case View::iso: return "iso";
    }
    return "?";
}

glm::vec3 box_colour(std::size_t index, bool is_static) {
    if (is_static) return {0.56f, 0.62f, 0.72f};
    const double hue = std::fmod(static_cast<double>(index) * 0.6180339887498949 + 0.05, 1.0) * 6.0;
    const double s = 0.6, v = 0.92;
    const int sector = static_cast<int>(hue);
    const double f = hue - sector, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    glm::dvec3 rgb;
    switch (sector % 6) {
        case 0: rgb = {v, t, p}; break;
        case 1: rgb = {q, v, p}; break;
        case 2: rgb = {p, v, t}; break;
        case 3: rgb = {p, q, v}; break;
        case 4: rgb = {t, p, v}; break;
        default: rgb = {v, p, q}; break;
    }
    return glm::vec3(rgb);
}

Aabb bounds(const Drawing& d) {
    Aabb box = Aabb::empty();
    for (const Triangle& t : d.triangles) box = box.merged(t.aabb());
    for (const Drawing::Box& b : d.boxes) box = box.merged(b.box.aabb());
    if (box.min.x > box.max.x) box = Aabb{glm::vec3(-1.0f), glm::vec3(1.0f)};  // nothing to draw
    return box;
}

Picture render(const Drawing& d, View view, const Aabb& frame, int width, int height) {
    if (width < 16 || height < 16 || width > 8192 || height > 8192)
        throw InvalidArgument("render: picture size " + std::to_string(width) + "x" + std::to_string(height) +
                              " is outside 16..8192 pixels per side");
    const int w = width * kSuper, h = height * kSuper;
    const Camera cam = make_camera(view, frame, w, h);
    Canvas canvas(w, h);
    const double extent = glm::length(glm::dvec3(frame.max) - glm::dvec3(frame.min));
    const double bias = 2e-3 * extent + 1e-4;

    // Static meshes: front faces, flat shaded, then their feature edges (open, non-manifold or creased > 25 deg).
    if (!d.triangles.empty()) {
        const TriangleMesh m = weld(d.triangles);
        std::vector<char> visible(m.triangle_count(), 0);
        for (std::size_t t = 0; t < m.triangle_count(); ++t) {
            const Triangle& tri = d.triangles[t];
            const glm::dvec3 n = glm::dvec3(tri.scaled_normal());
            const double len = glm::length(n);
            if (!(len > 0)) continue;
            if (glm::dot(n / len, cam.b.forward) >= 0) continue;  // seen from behind: culled
            visible[t] = 1;
            canvas.triangle(cam.project(glm::dvec3(tri.a)), cam.project(glm::dvec3(tri.b)), cam.project(glm::dvec3(tri.c)),
                            shade(kLevel, n / len));
        }
        for (const FeatureEdge& e : feature_edges(m)) {
            if (std::none_of(e.triangles.begin(), e.triangles.end(), [&](std::uint32_t t) { return visible[t] != 0; }))
                continue;
            canvas.line(cam.project(glm::dvec3(m.vertices[e.v0])), cam.project(glm::dvec3(m.vertices[e.v1])),
                        kLevelEdge, bias, kSuper);
        }
    }

    // Boxes: the three faces turned to the eye, then the edges.
    for (const Drawing::Box& b : d.boxes) {
        const std::array<glm::vec3, 8> c = b.box.corners();
        std::array<glm::dvec3, 8> s;
        for (int k = 0; k < 8; ++k) s[k] = cam.project(glm::dvec3(c[k]));
        for (int axis = 0; axis < 3; ++axis) {
            for (int side = 0; side < 2; ++side) {
                const glm::dvec3 n = glm::dvec3(b.box.axes[axis]) * (side ? 1.0 : -1.0);
                if (glm::dot(n, cam.b.forward) >= 0) continue;
                const int j = (axis + 1) % 3, l = (axis + 2) % 3;
                auto corner = [&](int bj, int bl) { return s[(side << axis) | (bj << j) | (bl << l)]; };
                const glm::vec3 rgb = shade(b.colour, n);
                canvas.triangle(corner(0, 0), corner(1, 0), corner(1, 1), rgb);
                canvas.triangle(corner(0, 0), corner(1, 1), corner(0, 1), rgb);
            }
        }
        for (int k = 0; k < 8; ++k)
            for (int axis = 0; axis < 3; ++axis)
                if (!(k & (1 << axis)))
                    canvas.line(s[k], s[k | (1 << axis)], b.highlight ? glm::vec3(0.85f, 0.05f, 0.05f) : b.colour * look::kEdgeDarkening,
                                bias, b.highlight ? 3 * kSuper : kSuper, b.highlight);
    }

    // Other lines, depth tested as edges are.
    for (const Drawing::Line& l : d.lines)
        canvas.line(cam.project(glm::dvec3(l.from)), cam.project(glm::dvec3(l.to)), l.colour, bias, kSuper);

    // Contacts: red dots with a short line along the normal, drawn over everything.
    const double normal_length = 14.0 * kSuper / cam.scale;  // 14 pixels for a normal facing the picture plane
    for (const Drawing::Marker& m : d.contacts) {
        const glm::dvec3 p = cam.project(glm::dvec3(m.point));
        const glm::dvec3 q = cam.project(glm::dvec3(m.point) + glm::dvec3(m.normal) * normal_length);
        canvas.line(p, q, {0.85f, 0.1f, 0.1f}, 0, kSuper, true);
        canvas.disc(p, 2.0 * kSuper, {0.85f, 0.1f, 0.1f});
    }

    // Down-sample 2x2.
    Picture pic;
    pic.width = width;
    pic.height = height;
    pic.rgb.resize(static_cast<std::size_t>(width) * height * 3);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            glm::vec3 sum(0.0f);
            for (int sy = 0; sy < kSuper; ++sy)
                for (int sx = 0; sx < kSuper; ++sx)
                    sum += canvas.colour[static_cast<std::size_t>(y * kSuper + sy) * w + (x * kSuper + sx)];
            sum /= static_cast<float>(kSuper * kSuper);
            std::uint8_t* p = pic.at(x, y);
            for (int k = 0; k < 3; ++k) p[k] = to_byte(sum[k]);
        }
    draw_text(pic, 10, 10, d.caption, 2);
    return pic;
}

Picture side_by_side(const Picture& left, const Picture& right) {
    if (left.height != right.height) throw InvalidArgument("side_by_side: the pictures differ in height");
    const int bar = 4;
    Picture out;
    out.width = left.width + bar + right.width;
    out.height = left.height;
    out.rgb.assign(static_cast<std::size_t>(out.width) * out.height * 3, 140);
    for (int y = 0; y < out.height; ++y) {
        std::copy_n(left.at(0, y), left.width * 3, out.at(0, y));
        std::copy_n(right.at(0, y), right.width * 3, out.at(left.width + bar, y));
    }
    return out;
}

void write_png(const std::filesystem::path& path, const Picture& pic) {
    if (!stbi_write_png(path.string().c_str(), pic.width, pic.height, 3, pic.rgb.data(), pic.width * 3))
        throw FileError(path.string() + ": cannot write the PNG file");
}

}  // namespace tumble::cli
