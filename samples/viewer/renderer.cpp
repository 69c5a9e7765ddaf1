#include "renderer.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <stdexcept>

#include <glm/gtc/type_ptr.hpp>

#include "gl.hpp"

namespace tumble::viewer {
namespace {

struct LitVertex {
    glm::vec3 position, normal, colour;
};
struct LineVertex {
    glm::vec3 position, colour;
};
// A level feature edge's end: the normals of the (up to) two triangles that share the edge decide in the vertex
// shader whether any of them faces the eye; a zero normal0 means "always drawn" (non-manifold edges).
struct EdgeVertex {
    glm::vec3 position, normal0, normal1;
};

constexpr glm::vec3 kSelected{1.0f, 0.55f, 0.0f};
constexpr glm::vec3 kGrab{1.0f, 0.85f, 0.1f};
// A dark background, unlike `tumble render`'s white page: the engine draws contacts in white (DebugColors).
constexpr glm::vec3 kBackground{0.19f, 0.21f, 0.24f};
constexpr glm::vec3 kGridMinor{0.25f, 0.27f, 0.30f};
constexpr glm::vec3 kGridMajor{0.34f, 0.36f, 0.40f};
constexpr float kHiddenLineAlpha = 0.3f;

const char* const kLitVertex = R"(#version 330 core
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec3 a_colour;
uniform mat4 u_mvp;
uniform vec3 u_light;
uniform float u_ambient;
out vec3 v_colour;
void main() {
    v_colour = a_colour * (u_ambient + (1.0 - u_ambient) * max(dot(a_normal, u_light), 0.0));
    gl_Position = u_mvp * vec4(a_position, 1.0);
})";

const char* const kColourFragment = R"(#version 330 core
in vec3 v_colour;
out vec4 o_colour;
void main() { o_colour = vec4(v_colour, 1.0); })";

const char* const kLineVertex = R"(#version 330 core
layout(location = 0) in vec3 a_position;
layout(location = 2) in vec3 a_colour;
uniform mat4 u_mvp;
out vec3 v_colour;
void main() {
    v_colour = a_colour;
    gl_Position = u_mvp * vec4(a_position, 1.0);
})";

const char* const kEdgeVertex = R"(#version 330 core
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal0;
layout(location = 3) in vec3 a_normal1;
uniform mat4 u_mvp;
uniform vec3 u_eye;
uniform vec3 u_colour;
out vec3 v_colour;
void main() {
    vec3 to_eye = u_eye - a_position;
    bool shown = dot(a_normal0, a_normal0) == 0.0 || dot(a_normal0, to_eye) > 0.0 || dot(a_normal1, to_eye) > 0.0;
    v_colour = u_colour;
    // Both ends of an edge lie in the planes of its triangles, so they agree; a hidden edge goes beyond the far plane.
    gl_Position = shown ? u_mvp * vec4(a_position, 1.0) : vec4(0.0, 0.0, 2.0, 1.0);
})";

// Throws with the driver's log unless `object` (a shader or a program) reports success for `status`.
void require(GLuint object, GLenum status, void (*get)(GLuint, GLenum, GLint*),
             void (*get_log)(GLuint, GLsizei, GLsizei*, GLchar*), void (*destroy)(GLuint), const char* what) {
    GLint ok = 0;
    get(object, status, &ok);
    if (ok) return;
    char log[2048] = {};
    get_log(object, sizeof log, nullptr, log);
    destroy(object);
    throw std::runtime_error(std::string("tumble-viewer: ") + what + ": " + log);
}

GLuint compile(GLenum type, const char* source) {
    const GLuint shader = glCreateShader(type);
    glShaderSource(shader, 1, &source, nullptr);
    glCompileShader(shader);
    require(shader, GL_COMPILE_STATUS, glGetShaderiv, glGetShaderInfoLog, glDeleteShader, "a shader does not compile");
    return shader;
}

GLuint program(const char* vertex, const char* fragment) {
    const GLuint v = compile(GL_VERTEX_SHADER, vertex), f = compile(GL_FRAGMENT_SHADER, fragment);
    const GLuint p = glCreateProgram();
    glAttachShader(p, v);
    glAttachShader(p, f);
    glLinkProgram(p);
    glDeleteShader(v);
    glDeleteShader(f);
    require(p, GL_LINK_STATUS, glGetProgramiv, glGetProgramInfoLog, glDeleteProgram, "a shader program does not link");
    return p;
}

// A vertex array with one buffer of vertices of type V, attributes at the given locations and offsets.
struct Buffer {
    GLuint vao = 0, vbo = 0;
    GLsizei count = 0;  // vertices uploaded

    template <class V>
    void create(std::initializer_list<std::pair<GLuint, std::size_t>> attributes) {
        glGenVertexArrays(1, &vao);
        glGenBuffers(1, &vbo);
        glBindVertexArray(vao);
        glBindBuffer(GL_ARRAY_BUFFER, vbo);
        for (const auto& [location, offset] : attributes) {
            glEnableVertexAttribArray(location);
            glVertexAttribPointer(location, 3, GL_FLOAT, GL_FALSE, sizeof(V), reinterpret_cast<const void*>(offset));
        }
        glBindVertexArray(0);
    }
    template <class V>
    void upload(const std::vector<V>& vertices, GLenum usage) {
        glBindBuffer(GL_ARRAY_BUFFER, vbo);
        glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(vertices.size() * sizeof(V)), vertices.data(), usage);
        count = static_cast<GLsizei>(vertices.size());
    }
    void draw(GLenum mode) const {
        if (count == 0) return;
        glBindVertexArray(vao);
        glDrawArrays(mode, 0, count);
    }
    void destroy() {
        glDeleteBuffers(1, &vbo);
        glDeleteVertexArrays(1, &vao);
    }
};

// The 12 edges of a box as pairs of corner indices (corner k has bit i set on the + side of axis i).
constexpr std::array<std::array<int, 2>, 12> kBoxEdges = {{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3},
                                                           {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}}};

void add_box_faces(std::vector<LitVertex>& out, const Obb& box, const glm::vec3& colour) {
    const std::array<glm::vec3, 8> c = box.corners();
    for (int axis = 0; axis < 3; ++axis) {
        const int j = (axis + 1) % 3, l = (axis + 2) % 3;
        for (int side = 0; side < 2; ++side) {
            const glm::vec3 n = box.axes[axis] * (side ? 1.0f : -1.0f);
            const auto corner = [&](int bj, int bl) { return c[static_cast<std::size_t>((side << axis) | (bj << j) | (bl << l))]; };
            // (0,0) (1,0) (1,1) (0,1) turns counter-clockwise seen from the + side of the axis (axis j x axis l = axis).
            std::array<glm::vec3, 4> q = {corner(0, 0), corner(1, 0), corner(1, 1), corner(0, 1)};
            if (!side) std::swap(q[1], q[3]);
            for (int k : {0, 1, 2, 0, 2, 3}) out.push_back({q[static_cast<std::size_t>(k)], n, colour});
        }
    }
}

void add_box_edges(std::vector<LineVertex>& out, const Obb& box, const glm::vec3& colour) {
    const std::array<glm::vec3, 8> c = box.corners();
    for (const auto& e : kBoxEdges) {
        out.push_back({c[static_cast<std::size_t>(e[0])], colour});
        out.push_back({c[static_cast<std::size_t>(e[1])], colour});
    }
}

// Collects one frame from World::debug_draw.
class FrameBuilder final : public DebugDraw {
public:
    FrameBuilder(const World& world, const FrameOptions& options, std::vector<LitVertex>& faces,
                 std::vector<LineVertex>& edges, std::vector<LineVertex>& lines, std::vector<LineVertex>& overlay,
                 std::vector<Label>& labels)
        : world_(world), options_(options), faces_(faces), edges_(edges), lines_(lines), overlay_(overlay), labels_(labels) {}

    std::size_t bodies = 0;

    void line(const glm::vec3& from, const glm::vec3& to, const glm::vec3& color) override {
        lines_.push_back({from, color});
        lines_.push_back({to, color});
    }

    void body(BodyId id, const Obb& box, const glm::vec3& color) override {
        const BodyState state = world_.body(id);
        if (state.sensor) {  // a trigger volume: its outline only
            DebugDraw::box(box, color);
        } else {
            glm::vec3 fill = color;
            if (state.is_static()) fill = cli::box_colour(id.index, true);
            else if (!state.kinematic && !options_.sleep_colours) fill = cli::box_colour(id.index, false);
            add_box_faces(faces_, box, fill);
            add_box_edges(edges_, box, fill * cli::look::kEdgeDarkening);
            ++bodies;
        }
        if (id == options_.selected) add_box_edges(overlay_, box, kSelected);
    }

    void text(const glm::vec3& position, std::string_view text, const glm::vec3& color) override {
        labels_.push_back({position, std::string(text), color});
    }

private:
    const World& world_;
    const FrameOptions& options_;
    std::vector<LitVertex>& faces_;
    std::vector<LineVertex>& edges_;  // the filled bodies' edges
    std::vector<LineVertex>& lines_;  // everything else the engine draws
    std::vector<LineVertex>& overlay_;
    std::vector<Label>& labels_;
};

}  // namespace

struct Renderer::Gpu {
    GLuint lit = 0, line = 0, edge = 0;
    Buffer level_faces, level_edges, grid, faces, edges, lines, overlay;
    std::vector<LitVertex> face_vertices;
    std::vector<LineVertex> edge_vertices, line_vertices, overlay_vertices;
};

Renderer::Renderer() : gpu_(std::make_unique<Gpu>()) {
    Gpu& g = *gpu_;
    g.lit = program(kLitVertex, kColourFragment);
    g.line = program(kLineVertex, kColourFragment);
    g.edge = program(kEdgeVertex, kColourFragment);
    const std::initializer_list<std::pair<GLuint, std::size_t>> lit = {
        {0, offsetof(LitVertex, position)}, {1, offsetof(LitVertex, normal)}, {2, offsetof(LitVertex, colour)}};
    const std::initializer_list<std::pair<GLuint, std::size_t>> line = {{0, offsetof(LineVertex, position)},
                                                                        {2, offsetof(LineVertex, colour)}};
    g.level_faces.create<LitVertex>(lit);
    g.faces.create<LitVertex>(lit);
    g.level_edges.create<EdgeVertex>(
        {{0, offsetof(EdgeVertex, position)}, {1, offsetof(EdgeVertex, normal0)}, {3, offsetof(EdgeVertex, normal1)}});
    g.grid.create<LineVertex>(line);
    g.edges.create<LineVertex>(line);
    g.lines.create<LineVertex>(line);
    g.overlay.create<LineVertex>(line);
}

Renderer::~Renderer() {
    Gpu& g = *gpu_;
    for (Buffer* b : {&g.level_faces, &g.level_edges, &g.grid, &g.faces, &g.edges, &g.lines, &g.overlay}) b->destroy();
    glDeleteProgram(g.lit);
    glDeleteProgram(g.line);
    glDeleteProgram(g.edge);
}

void Renderer::set_level(const std::vector<const TriangleMesh*>& meshes, const Aabb& bounds) {
    Gpu& g = *gpu_;
    std::vector<LitVertex> faces;
    std::vector<EdgeVertex> edges;
    for (const TriangleMesh* m : meshes) {
        std::vector<glm::vec3> normals(m->triangle_count(), glm::vec3(0.0f));
        for (std::size_t t = 0; t < m->triangle_count(); ++t) {
            const Triangle tri = m->triangle(t);
            const glm::vec3 n = tri.scaled_normal();
            const float length = glm::length(n);
            if (!(length > 0.0f)) continue;
            normals[t] = n / length;
            for (const glm::vec3& p : {tri.a, tri.b, tri.c}) faces.push_back({p, normals[t], cli::look::kLevel});
        }
        for (const cli::FeatureEdge& e : cli::feature_edges(*m)) {
            glm::vec3 n0(0.0f), n1(0.0f);
            if (e.triangles.size() <= 2) {
                n0 = normals[e.triangles.front()];
                n1 = normals[e.triangles.back()];
            }
            edges.push_back({m->vertices[e.v0], n0, n1});
            edges.push_back({m->vertices[e.v1], n0, n1});
        }
    }
    g.level_faces.upload(faces, GL_STATIC_DRAW);
    g.level_edges.upload(edges, GL_STATIC_DRAW);

    // Grid: square, centred under the scene, 30 % wider than it, spaced 1, 2 or 5 times a power of ten so that at
    // most 50 lines lie on each side of the centre; every tenth line is brighter.
    std::vector<LineVertex> grid;
    const glm::vec3 centre = 0.5f * (bounds.min + bounds.max);
    const float half = 0.65f * std::max({bounds.max.x - bounds.min.x, bounds.max.z - bounds.min.z, 2.0f});
    const float decade = std::pow(10.0f, std::floor(std::log10(half / 50.0f)));
    float spacing = 10.0f * decade;
    for (const float m : {1.0f, 2.0f, 5.0f})
        if (half / (m * decade) <= 50.0f) {
            spacing = m * decade;
            break;
        }
    const int n = static_cast<int>(std::ceil(half / spacing));
    const float x0 = std::round(centre.x / spacing) * spacing, z0 = std::round(centre.z / spacing) * spacing;
    const float y = bounds.min.y;
    for (int i = -n; i <= n; ++i) {
        const glm::vec3 colour = (i % 10 == 0) ? kGridMajor : kGridMinor;
        const float o = static_cast<float>(i) * spacing, e = static_cast<float>(n) * spacing;
        grid.push_back({{x0 + o, y, z0 - e}, colour});
        grid.push_back({{x0 + o, y, z0 + e}, colour});
        grid.push_back({{x0 - e, y, z0 + o}, colour});
        grid.push_back({{x0 + e, y, z0 + o}, colour});
    }
    g.grid.upload(grid, GL_STATIC_DRAW);
}

void Renderer::draw(const World& world, const OrbitCamera& camera, const Viewport& viewport, const FrameOptions& options) {
    Gpu& g = *gpu_;
    g.face_vertices.clear();
    g.edge_vertices.clear();
    g.line_vertices.clear();
    g.overlay_vertices.clear();
    labels_.clear();
    FrameBuilder builder(world, options, g.face_vertices, g.edge_vertices, g.line_vertices, g.overlay_vertices, labels_);
    world.debug_draw(builder, options.engine);
    if (options.grab) {
        g.overlay_vertices.push_back({options.grab_from, kGrab});
        g.overlay_vertices.push_back({options.grab_to, kGrab});
        for (int axis = 0; axis < 3; ++axis) {  // a cross at the target
            glm::vec3 d(0.0f);
            d[axis] = 0.1f;
            g.overlay_vertices.push_back({options.grab_to - d, kGrab});
            g.overlay_vertices.push_back({options.grab_to + d, kGrab});
        }
    }
    g.faces.upload(g.face_vertices, GL_STREAM_DRAW);
    g.edges.upload(g.edge_vertices, GL_STREAM_DRAW);
    g.lines.upload(g.line_vertices, GL_STREAM_DRAW);
    g.overlay.upload(g.overlay_vertices, GL_STREAM_DRAW);
    counts_ = {builder.bodies, static_cast<std::size_t>(g.level_faces.count + g.faces.count) / 3};

    glViewport(0, 0, viewport.width, viewport.height);
    glClearColor(kBackground.r, kBackground.g, kBackground.b, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glDisable(GL_BLEND);
    const glm::mat4 mvp = camera.projection(viewport) * camera.view();

    // Faces, pushed back a little so that the edges and lines drawn on them win the depth test.
    glEnable(GL_CULL_FACE);
    glCullFace(GL_BACK);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(1.0f, 1.0f);
    glUseProgram(g.lit);
    glUniformMatrix4fv(glGetUniformLocation(g.lit, "u_mvp"), 1, GL_FALSE, glm::value_ptr(mvp));
    const glm::vec3 light(cli::look::light_direction());
    glUniform3fv(glGetUniformLocation(g.lit, "u_light"), 1, glm::value_ptr(light));
    glUniform1f(glGetUniformLocation(g.lit, "u_ambient"), cli::look::kAmbient);
    g.level_faces.draw(GL_TRIANGLES);
    g.faces.draw(GL_TRIANGLES);
    glDisable(GL_POLYGON_OFFSET_FILL);
    glDisable(GL_CULL_FACE);

    glUseProgram(g.edge);
    glUniformMatrix4fv(glGetUniformLocation(g.edge, "u_mvp"), 1, GL_FALSE, glm::value_ptr(mvp));
    const glm::vec3 eye = camera.eye();
    glUniform3fv(glGetUniformLocation(g.edge, "u_eye"), 1, glm::value_ptr(eye));
    glUniform3fv(glGetUniformLocation(g.edge, "u_colour"), 1, glm::value_ptr(cli::look::kLevelEdge));
    g.level_edges.draw(GL_LINES);

    glUseProgram(g.line);
    glUniformMatrix4fv(glGetUniformLocation(g.line, "u_mvp"), 1, GL_FALSE, glm::value_ptr(mvp));
    if (options.grid) g.grid.draw(GL_LINES);
    g.edges.draw(GL_LINES);
    g.lines.draw(GL_LINES);
    // The engine's lines again where shapes hide them, faint: contacts under boxes and cells inside walls show
    // through without hiding what is in front.
    glDepthFunc(GL_GREATER);
    glEnable(GL_BLEND);
    glBlendColor(0.0f, 0.0f, 0.0f, kHiddenLineAlpha);
    glBlendFunc(GL_CONSTANT_ALPHA, GL_ONE_MINUS_CONSTANT_ALPHA);
    g.lines.draw(GL_LINES);
    glDisable(GL_BLEND);
    glDepthFunc(GL_LEQUAL);
    glDisable(GL_DEPTH_TEST);
    g.overlay.draw(GL_LINES);
    glBindVertexArray(0);
    glUseProgram(0);
}

cli::Picture Renderer::read_pixels(int width, int height) {
    cli::Picture picture;
    picture.width = width;
    picture.height = height;
    picture.rgb.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3);
    std::vector<std::uint8_t> rows(picture.rgb.size());
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, rows.data());
    const std::size_t stride = static_cast<std::size_t>(width) * 3;
    for (int y = 0; y < height; ++y)  // OpenGL's rows start at the bottom
        std::copy_n(rows.data() + static_cast<std::size_t>(height - 1 - y) * stride, stride, picture.at(0, y));
    return picture;
}

}  // namespace tumble::viewer
