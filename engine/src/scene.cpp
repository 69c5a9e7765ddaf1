#include <tumble/engine/scene.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include <tumble/core/error.hpp>
#include <tumble/narrowphase/validate.hpp>

namespace tumble {
namespace {

// JSON with single-precision numbers: the lexer reads them with strtof, so every number is rounded to float once
// (the engine's precision) and a number too large for a float is reported as an overflow by the parser.
using Json = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t, std::uint64_t, float>;

struct Pos {
    int line = 1;
    int column = 1;
};

std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }
std::string index_path(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }
std::string in_quotes(const std::string& s) {
    std::string out(1, '\'');
    out += s;
    out += '\'';
    return out;
}

// Records where every value and key of a JSON text starts (line and column), by its path in the form
// `boxes[3].half_extents[1]`, and finds duplicate keys and numbers outside the float range. nlohmann-json keeps
// neither positions nor duplicates, so this small scanner walks the text again. It only runs on text the parser
// has accepted up to the point where it stops (it stops at the first overflowing number), and is bounds-checked.
class PositionScanner {
public:
    explicit PositionScanner(std::string_view text) : t_(text) {
        if (t_.substr(0, 3) == "\xEF\xBB\xBF") i_ = line_start_ = 3;  // UTF-8 byte order mark
    }

    struct Finding {
        std::string path;
        Pos pos;
        std::string detail;  // the duplicate key, or the overflowing literal
    };

    // Returns false when the walk stopped early at an overflowing number (see `overflow`).
    bool run() {
        try {
            value("", 0);
        } catch (const Stop&) {
            return false;
        }
        return true;
    }

    std::unordered_map<std::string, Pos> values;
    std::unordered_map<std::string, Pos> keys;
    std::optional<Finding> duplicate;
    std::optional<Finding> overflow;
    std::optional<Finding> too_deep;

private:
    struct Stop {};
    static constexpr int kMaxDepth = 64;

    char peek() const { return i_ < t_.size() ? t_[i_] : '\0'; }
    void advance() {
        if (i_ >= t_.size()) return;
        if (t_[i_] == '\n') {
            ++line_;
            line_start_ = i_ + 1;
        }
        ++i_;
    }
    void ws() {
        while (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r') advance();
    }
    Pos here() const { return {line_, static_cast<int>(i_ - line_start_) + 1}; }

    std::string string_token() {
        const std::size_t start = i_;
        advance();  // opening quote
        while (i_ < t_.size() && peek() != '"') {
            if (peek() == '\\') advance();
            advance();
        }
        advance();  // closing quote
        try {
            return Json::parse(t_.substr(start, i_ - start)).get<std::string>();
        } catch (const std::exception&) {
            return std::string(t_.substr(start, i_ - start));
        }
    }

    void value(const std::string& path, int depth) {
        ws();
        const Pos at = here();
        values.emplace(path, at);
        if (depth > kMaxDepth) {
            too_deep = Finding{path, at, {}};
            throw Stop{};
        }
        const char c = peek();
        if (c == '{') {
            advance();
            ws();
            if (peek() == '}') return advance();
            std::set<std::string> seen;
            while (i_ < t_.size()) {
                ws();
                const Pos key_at = here();
                const std::string key = string_token();
                const std::string child = join(path, key);
                if (!seen.insert(key).second && !duplicate) duplicate = Finding{child, key_at, key};
                keys.emplace(child, key_at);
                ws();
                advance();  // ':'
                value(child, depth + 1);
                ws();
                const char next = peek();
                advance();
                if (next != ',') return;
            }
        } else if (c == '[') {
            advance();
            ws();
            if (peek() == ']') return advance();
            for (std::size_t k = 0; i_ < t_.size(); ++k) {
                value(index_path(path, k), depth + 1);
                ws();
                const char next = peek();
                advance();
                if (next != ',') return;
            }
        } else if (c == '"') {
            string_token();
        } else {
            const std::size_t start = i_;
            while (i_ < t_.size() && std::string_view(",]} \t\r\n").find(peek()) == std::string_view::npos) advance();
            const std::string literal(t_.substr(start, i_ - start));
            if (!literal.empty() && (literal[0] == '-' || (literal[0] >= '0' && literal[0] <= '9'))) {
                const float v = std::strtof(literal.c_str(), nullptr);
                if (!std::isfinite(v)) {
                    overflow = Finding{path, at, literal};
                    throw Stop{};
                }
            }
        }
    }

    std::string_view t_;
    std::size_t i_ = 0;
    int line_ = 1;
    std::size_t line_start_ = 0;
};

Pos position_of_offset(std::string_view text, std::size_t offset) {
    Pos p;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i)
        if (text[i] == '\n') {
            ++p.line;
            line_start = i + 1;
        }
    p.column = static_cast<int>(std::min(offset, text.size()) - line_start) + 1;
    return p;
}

std::string describe(const Json& v) {
    switch (v.type()) {
        case Json::value_t::null: return "null";
        case Json::value_t::boolean: return v.get<bool>() ? "true" : "false";
        case Json::value_t::string: return "the string " + v.dump();
        case Json::value_t::array: return "an array of " + std::to_string(v.size());
        case Json::value_t::object: return "an object";
        default: return v.dump();
    }
}

// Checks a parsed scene and builds the Scene; every failure names the file, the position and the JSON path.
class SceneReader {
public:
    SceneReader(std::string_view text, const std::filesystem::path& origin) : text_(text), origin_(origin) {}

    Scene read() {
        Json root;
        try {
            root = Json::parse(text_);
        } catch (const Json::parse_error& e) {
            const Pos p = position_of_offset(text_, e.byte > 0 ? e.byte - 1 : 0);
            throw FileError(where(p) + "malformed JSON: " + strip_prefix(e.what()));
        } catch (const Json::out_of_range&) {
            // A number the parser could not hold in a float: find which, and where.
            PositionScanner scanner(text_);
            scanner.run();
            if (scanner.overflow)
                throw FileError(where(scanner.overflow->pos) + scanner.overflow->path + ": the number " +
                                scanner.overflow->detail +
                                " is outside the single-precision range (expected a finite number, |x| < 3.4e38)");
            throw FileError(where(Pos{}) + "a number is outside the single-precision range");
        }
        PositionScanner scanner(text_);
        scanner.run();
        if (scanner.too_deep) throw FileError(where(scanner.too_deep->pos) + "the JSON is nested more than 64 levels deep");
        if (scanner.duplicate)
            throw FileError(where(scanner.duplicate->pos) + scanner.duplicate->path + ": the key " +
                            in_quotes(scanner.duplicate->detail) + " appears twice in the same object");
        positions_ = std::move(scanner.values);
        key_positions_ = std::move(scanner.keys);

        Scene scene;
        scene.file = origin_;
        read_root(root, scene);
        return scene;
    }

private:
    static std::string strip_prefix(const std::string& what) {
        // "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..." -> "syntax error ..."
        const std::size_t colon = what.find(": ");
        return colon == std::string::npos ? what : what.substr(colon + 2);
    }
    std::string where(Pos p) const {
        return origin_.string() + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) + ": ";
    }
    Pos pos(const std::string& path) const {
        const auto it = positions_.find(path);
        return it == positions_.end() ? Pos{} : it->second;
    }
    [[noreturn]] void fail(const std::string& path, const std::string& what) const {
        throw FileError(where(pos(path)) + (path.empty() ? std::string("the scene") : path) + ": " + what);
    }
    [[noreturn]] void fail_type(const std::string& path, const std::string& expected, const Json& got) const {
        fail(path, "expected " + expected + ", got " + describe(got));
    }

    // Rejects keys outside `allowed`, naming the first unknown key in file order.
    void check_keys(const Json& obj, const std::string& path, std::initializer_list<const char*> allowed) const {
        std::optional<std::pair<Pos, std::string>> first;
        for (auto it = obj.begin(); it != obj.end(); ++it) {
            const bool known = std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return it.key() == a; });
            if (known) continue;
            const auto kp = key_positions_.find(join(path, it.key()));
            const Pos p = kp == key_positions_.end() ? Pos{} : kp->second;
            if (!first || p.line < first->first.line || (p.line == first->first.line && p.column < first->first.column))
                first = {p, it.key()};
        }
        if (!first) return;
        std::string list;
        for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        throw FileError(where(first->first) + join(path, first->second) + ": unknown key " + in_quotes(first->second) +
                        " (expected one of: " + list + ")");
    }

    const Json& object(const Json& v, const std::string& path) const {
        if (!v.is_object()) fail_type(path, "an object", v);
        return v;
    }
    const Json& array(const Json& v, const std::string& path) const {
        if (!v.is_array()) fail_type(path, "an array", v);
        return v;
    }
    float number(const Json& v, const std::string& path) const {
        if (!v.is_number()) fail_type(path, "a number", v);
        const float x = v.get<float>();
        if (!std::isfinite(x)) fail(path, "expected a finite number, got " + v.dump());
        return x;
    }
    float number_at_least(const Json& v, const std::string& path, float lo, bool strict, const char* unit) const {
        const float x = number(v, path);
        if (strict ? !(x > lo) : !(x >= lo))
            fail(path, std::string("expected a number ") + (strict ? "> " : ">= ") + Json(lo).dump() + " (" + unit +
                           "), got " + v.dump());
        return x;
    }
    int integer(const Json& v, const std::string& path, std::int64_t lo, std::int64_t hi) const {
        if (!v.is_number_integer()) fail_type(path, "an integer", v);
        const bool in_range = v.is_number_unsigned()
                                  ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(hi) &&
                                        static_cast<std::int64_t>(v.get<std::uint64_t>()) >= lo
                                  : v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi;
        if (!in_range)
            fail(path, "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                           v.dump());
        return static_cast<int>(v.get<std::int64_t>());
    }
    bool boolean(const Json& v, const std::string& path) const {
        if (!v.is_boolean()) fail_type(path, "true or false", v);
        return v.get<bool>();
    }
    std::string string(const Json& v, const std::string& path) const {
        if (!v.is_string()) fail_type(path, "a string", v);
        return v.get<std::string>();
    }
    glm::vec3 vec3(const Json& v, const std::string& path, const char* unit) const {
        if (!v.is_array() || v.size() != 3) fail_type(path, std::string("an array of 3 numbers (") + unit + ")", v);
        glm::vec3 out;
        for (int k = 0; k < 3; ++k) out[k] = number(v[static_cast<std::size_t>(k)], index_path(path, k));
        return out;
    }

    glm::quat orientation(const Json& v, const std::string& path) const {
        object(v, path);
        check_keys(v, path, {"quaternion", "euler_degrees", "order"});
        const bool q = v.contains("quaternion"), e = v.contains("euler_degrees");
        if (q == e)
            fail(path, q ? "give either \"quaternion\" or \"euler_degrees\", not both"
                         : "expected \"quaternion\": [w, x, y, z] or \"euler_degrees\": [x, y, z] with \"order\"");
        if (q) {
            if (v.contains("order")) fail(join(path, "order"), "\"order\" belongs to \"euler_degrees\", not to a quaternion");
            const std::string qp = join(path, "quaternion");
            const Json& a = v["quaternion"];
            if (!a.is_array() || a.size() != 4) fail_type(qp, "an array of 4 numbers [w, x, y, z]", a);
            double c[4];
            for (std::size_t k = 0; k < 4; ++k) c[k] = number(a[k], index_path(qp, k));
            const double len = std::sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2] + c[3] * c[3]);
            if (!(std::abs(len - 1.0) <= 1e-3))
                fail(qp, "expected a unit quaternion (length within 1e-3 of 1), got length " + Json(len).dump());
            // Kept as written: World::create_body normalises it exactly as it would for a program that passed
            // the same numbers, so a scene file reproduces that program's world bit for bit.
            return glm::quat(static_cast<float>(c[0]), static_cast<float>(c[1]), static_cast<float>(c[2]),
                             static_cast<float>(c[3]));
        }
        const std::string ep = join(path, "euler_degrees");
        const glm::vec3 angles = vec3(v["euler_degrees"], ep, "degrees");
        if (!v.contains("order"))
            fail(path, "\"euler_degrees\" needs \"order\": the axes in the order the rotations apply, e.g. \"XYZ\"");
        const std::string op = join(path, "order");
        const std::string order = string(v["order"], op);
        try {
            return euler_degrees_to_quat(glm::dvec3(angles), order);
        } catch (const InvalidArgument&) {
            fail(op, "expected one of \"XYZ\", \"XZY\", \"YXZ\", \"YZX\", \"ZXY\", \"ZYX\", got " + v["order"].dump());
        }
    }

    void read_root(const Json& root, Scene& scene) {
        object(root, "");
        check_keys(root, "", {"version", "description", "world", "run", "boxes", "meshes"});
        if (!root.contains("version"))
            fail("", "the key \"version\" is missing (this build reads version " +
                         std::to_string(kSceneFormatVersion) + ")");
        scene.version = integer(root["version"], "version", 1, 1000000);
        if (scene.version < 1 || scene.version > kSceneFormatVersion)
            fail("version", "version " + std::to_string(scene.version) + " is not supported (this build reads versions 1 to " +
                                std::to_string(kSceneFormatVersion) + ")");
        if (root.contains("description")) scene.description = string(root["description"], "description");
        if (root.contains("world")) read_world(root["world"], scene);
        read_run(root.contains("run") ? &root["run"] : nullptr, scene);
        if (root.contains("boxes")) read_boxes(root["boxes"], scene);
        if (root.contains("meshes")) read_meshes(root["meshes"], scene);
        if (scene.version == 1) {
            // Version 1 had one static friction coefficient for the whole world: every box and mesh gets it.
            for (SceneBox& b : scene.boxes) b.def.friction = v1_friction_;
            for (SceneMesh& m : scene.meshes) m.material.friction = v1_friction_;
        }
    }

    void read_world(const Json& w, Scene& scene) {
        const std::string path = "world";
        object(w, path);
        if (scene.version == 1)
            check_keys(w, path, {"gravity", "dt", "solver_iterations", "friction", "broadphase_margin"});
        else
            check_keys(w, path,
                       {"gravity", "dt", "substeps", "iterations", "restitution_threshold", "slop", "broadphase_margin",
                        "solver", "contact_hertz", "manifold_reuse_distance"});
        WorldSettings& s = scene.settings;
        if (w.contains("gravity")) s.gravity = vec3(w["gravity"], join(path, "gravity"), "m/s^2");
        if (w.contains("dt")) {
            scene.dt = number_at_least(w["dt"], join(path, "dt"), 0.0f, true, "seconds");
            if (scene.dt < kMinStep)
                fail(join(path, "dt"), "expected a number >= 1e-6 (seconds, kMinStep), got " + w["dt"].dump());
        }
        if (w.contains("broadphase_margin"))
            s.broadphase_margin = number_at_least(w["broadphase_margin"], join(path, "broadphase_margin"), 0.0f, false,
                                                  "metres");
        if (scene.version == 1) {
            // Version 1's position passes per step become substeps, one pass each.
            if (w.contains("solver_iterations"))
                s.solver.substeps = integer(w["solver_iterations"], join(path, "solver_iterations"), 1, 256);
            if (w.contains("friction")) {
                const std::string fp = join(path, "friction");
                const Json& f = w["friction"];
                if (f.is_number()) {
                    v1_friction_ = number_at_least(f, fp, 0.0f, false, "coefficient");
                } else if (f.is_object()) {
                    check_keys(f, fp, {"static", "dynamic"});
                    if (f.contains("static"))
                        v1_friction_ = number_at_least(f["static"], join(fp, "static"), 0.0f, false, "coefficient");
                    if (f.contains("dynamic"))  // checked, then left: a body has one coefficient now
                        number_at_least(f["dynamic"], join(fp, "dynamic"), 0.0f, false, "coefficient");
                } else {
                    fail_type(fp, "a number (both coefficients) or an object {\"static\": mu_s, \"dynamic\": mu_d}", f);
                }
            }
            return;
        }
        if (w.contains("substeps")) s.solver.substeps = integer(w["substeps"], join(path, "substeps"), 1, 256);
        if (w.contains("iterations")) s.solver.iterations = integer(w["iterations"], join(path, "iterations"), 1, 64);
        if (w.contains("restitution_threshold"))
            s.solver.restitution_threshold =
                number_at_least(w["restitution_threshold"], join(path, "restitution_threshold"), 0.0f, false, "m/s");
        if (w.contains("slop")) s.solver.slop = number_at_least(w["slop"], join(path, "slop"), 0.0f, false, "metres");
        if (w.contains("solver")) {
            const Json& m = w["solver"];
            const std::string mp = join(path, "solver");
            if (m == "xpbd")
                s.solver.method = SolverMethod::xpbd;
            else if (m == "soft_step")
                s.solver.method = SolverMethod::soft_step;
            else
                fail_type(mp, "\"xpbd\" or \"soft_step\" (SolverMethod)", m);
        }
        if (w.contains("contact_hertz")) {
            s.solver.contact_hertz =
                number_at_least(w["contact_hertz"], join(path, "contact_hertz"), 0.0f, true, "hertz");
        }
        if (w.contains("manifold_reuse_distance"))
            s.manifold_reuse_distance = number_at_least(w["manifold_reuse_distance"],
                                                        join(path, "manifold_reuse_distance"), 0.0f, false, "metres");
    }

    // A friction coefficient (>= 0) and a restitution (0..1) at `path`.
    float friction_at(const Json& v, const std::string& path) const {
        return number_at_least(v, path, 0.0f, false, "Coulomb coefficient");
    }
    float restitution_at(const Json& v, const std::string& path) const {
        const float e = number_at_least(v, path, 0.0f, false, "coefficient of restitution");
        if (e > 1.0f) fail(path, "expected a coefficient of restitution in [0, 1], got " + v.dump());
        return e;
    }

    void read_run(const Json* r, Scene& scene) const {
        const std::string path = "run";
        bool explicit_checkpoints = false;
        if (r) {
            object(*r, path);
            check_keys(*r, path, {"steps", "checkpoints"});
            if (r->contains("steps")) scene.steps = integer((*r)["steps"], join(path, "steps"), 0, 100000000);
            if (r->contains("checkpoints")) {
                const std::string cp = join(path, "checkpoints");
                const Json& c = array((*r)["checkpoints"], cp);
                scene.checkpoints.clear();
                for (std::size_t k = 0; k < c.size(); ++k) {
                    const int step = integer(c[k], index_path(cp, k), 0, 100000000);
                    if (step > scene.steps)
                        fail(index_path(cp, k), "checkpoint " + std::to_string(step) + " is after the last step (" +
                                                    std::to_string(scene.steps) + ")");
                    if (!scene.checkpoints.empty() && step <= scene.checkpoints.back())
                        fail(index_path(cp, k), "checkpoints must be strictly increasing, got " + std::to_string(step) +
                                                    " after " + std::to_string(scene.checkpoints.back()));
                    scene.checkpoints.push_back(step);
                }
                explicit_checkpoints = true;
            }
        }
        if (!explicit_checkpoints) scene.checkpoints.clear();
        if (scene.checkpoints.empty() || scene.checkpoints.back() != scene.steps) scene.checkpoints.push_back(scene.steps);
    }

    void read_boxes(const Json& boxes, Scene& scene) const {
        array(boxes, "boxes");
        std::unordered_map<std::string, std::size_t> names;
        scene.boxes.reserve(boxes.size());
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            const std::string path = index_path("boxes", i);
            const Json& b = object(boxes[i], path);
            if (scene.version == 1)
                check_keys(b, path, {"name", "position", "orientation", "half_extents", "velocity", "mass", "static"});
            else
                check_keys(b, path, {"name", "position", "orientation", "half_extents", "velocity", "angular_velocity",
                                     "mass", "static", "friction", "restitution", "fixed_rotation"});
            SceneBox box;
            if (b.contains("name")) {
                const std::string np = join(path, "name");
                box.name = string(b["name"], np);
                if (box.name.empty()) fail(np, "a name must not be empty (leave the key out for an unnamed box)");
                if (box.name[0] == '#') fail(np, "a name must not start with '#' (outputs call unnamed boxes #INDEX)");
                const auto [it, fresh] = names.emplace(box.name, i);
                if (!fresh) fail(np, "the name " + in_quotes(box.name) + " is already used by boxes[" + std::to_string(it->second) + "]");
            }
            if (!b.contains("position")) fail(path, "the key \"position\" is missing (the box centre, metres)");
            if (!b.contains("half_extents")) fail(path, "the key \"half_extents\" is missing (metres, >= 0)");
            box.def.position = vec3(b["position"], join(path, "position"), "metres");
            const std::string hp = join(path, "half_extents");
            box.def.half_extents = vec3(b["half_extents"], hp, "metres");
            for (int k = 0; k < 3; ++k)
                if (box.def.half_extents[k] < 0.0f)
                    fail(index_path(hp, k), "expected a half extent >= 0 (metres), got " + Json(box.def.half_extents[k]).dump());
            if (b.contains("orientation")) box.def.orientation = orientation(b["orientation"], join(path, "orientation"));
            const bool is_static = b.contains("static") && boolean(b["static"], join(path, "static"));
            if (is_static && b.contains("mass"))
                fail(join(path, "mass"), "a static box has no mass: give \"mass\" or \"static\": true, not both");
            if (is_static && b.contains("velocity"))
                fail(join(path, "velocity"), "a static box never moves: it cannot have a velocity");
            if (is_static && b.contains("angular_velocity"))
                fail(join(path, "angular_velocity"), "a static box never moves: it cannot have an angular velocity");
            box.def.mass = is_static ? 0.0f : 1.0f;
            if (b.contains("mass")) {
                box.def.mass = number_at_least(b["mass"], join(path, "mass"), 0.0f, true, "kilograms");
                if (box.def.mass < kMinDynamicMass)
                    fail(join(path, "mass"),
                         "expected a number >= 1e-6 (kilograms, kMinDynamicMass), got " + b["mass"].dump());
            }
            if (b.contains("velocity")) box.def.velocity = vec3(b["velocity"], join(path, "velocity"), "m/s");
            if (b.contains("angular_velocity"))
                box.def.angular_velocity = vec3(b["angular_velocity"], join(path, "angular_velocity"), "rad/s");
            if (b.contains("friction")) box.def.friction = friction_at(b["friction"], join(path, "friction"));
            if (b.contains("restitution"))
                box.def.restitution = restitution_at(b["restitution"], join(path, "restitution"));
            if (b.contains("fixed_rotation"))
                box.def.fixed_rotation = boolean(b["fixed_rotation"], join(path, "fixed_rotation"));
            scene.boxes.push_back(std::move(box));
        }
    }

    void read_meshes(const Json& meshes, Scene& scene) const {
        array(meshes, "meshes");
        for (std::size_t i = 0; i < meshes.size(); ++i) {
            const std::string path = index_path("meshes", i);
            const Json& m = object(meshes[i], path);
            if (scene.version == 1)
                check_keys(m, path, {"name", "obj", "transform", "drop_degenerate"});
            else
                check_keys(m, path, {"name", "obj", "transform", "drop_degenerate", "material"});
            SceneMesh mesh;
            if (m.contains("name")) mesh.name = string(m["name"], join(path, "name"));
            if (m.contains("material")) {
                const std::string mp = join(path, "material");
                const Json& mat = object(m["material"], mp);
                check_keys(mat, mp, {"friction", "restitution"});
                if (mat.contains("friction")) mesh.material.friction = friction_at(mat["friction"], join(mp, "friction"));
                if (mat.contains("restitution"))
                    mesh.material.restitution = restitution_at(mat["restitution"], join(mp, "restitution"));
            }
            if (!m.contains("obj")) fail(path, "the key \"obj\" is missing (an OBJ file, relative to the scene file)");
            const std::string op = join(path, "obj");
            mesh.obj = string(m["obj"], op);
            if (mesh.obj.empty()) fail(op, "expected the path of an OBJ file, got an empty string");
            if (m.contains("drop_degenerate")) mesh.drop_degenerate = boolean(m["drop_degenerate"], join(path, "drop_degenerate"));
            if (m.contains("transform")) {
                const std::string tp = join(path, "transform");
                const Json& t = object(m["transform"], tp);
                check_keys(t, tp, {"translation", "orientation", "scale"});
                if (t.contains("translation")) mesh.translation = vec3(t["translation"], join(tp, "translation"), "metres");
                if (t.contains("orientation")) mesh.orientation = orientation(t["orientation"], join(tp, "orientation"));
                if (t.contains("scale"))
                    mesh.scale = number_at_least(t["scale"], join(tp, "scale"), 0.0f, true, "uniform scale factor");
            }

            const std::filesystem::path written = std::filesystem::path(mesh.obj);
            mesh.path = written.is_absolute() ? written : origin_.parent_path() / written;
            std::error_code ec;
            if (!std::filesystem::is_regular_file(mesh.path, ec))
                fail(op, "the mesh file " + in_quotes(mesh.path.string()) + " does not exist or is not a file");
            ObjFile file;
            try {
                file = load_obj(mesh.path);
            } catch (const Error& e) {
                fail(op, std::string("cannot load the mesh: ") + e.what());
            }
            mesh.mesh = transformed(file.mesh, mesh);
            const std::string problem = mesh.mesh.validate();
            if (!problem.empty())
                fail(path, "mesh " + in_quotes(mesh.path.string()) + " (after its transform): " + problem +
                               (mesh.drop_degenerate ? "" : "; set \"drop_degenerate\": true to leave such triangles out"));
            scene.meshes.push_back(std::move(mesh));
        }
    }

    // x_world = translation + R (scale x), in double, rounded once; the identity transform copies the mesh exactly.
    static TriangleMesh transformed(const TriangleMesh& in, const SceneMesh& m) {
        TriangleMesh out;
        const bool identity = m.translation == glm::vec3(0.0f) && m.scale == 1.0f &&
                              m.orientation == glm::quat(1.0f, 0.0f, 0.0f, 0.0f);
        if (identity) {
            out.vertices = in.vertices;
        } else {
            const glm::dmat3 r = glm::mat3_cast(glm::normalize(glm::dquat(m.orientation)));
            out.vertices.reserve(in.vertices.size());
            for (const glm::vec3& v : in.vertices)
                out.vertices.push_back(glm::vec3(glm::dvec3(m.translation) + r * (static_cast<double>(m.scale) * glm::dvec3(v))));
        }
        if (!m.drop_degenerate) {
            out.indices = in.indices;
            return out;
        }
        for (std::size_t t = 0; t < in.triangle_count(); ++t) {
            const std::uint32_t* tri = &in.indices[3 * t];
            if (tri[0] >= out.vertices.size() || tri[1] >= out.vertices.size() || tri[2] >= out.vertices.size()) {
                out.indices.insert(out.indices.end(), tri, tri + 3);  // validate() names it
                continue;
            }
            const Triangle candidate{out.vertices[tri[0]], out.vertices[tri[1]], out.vertices[tri[2]]};
            if (validate(candidate).empty()) out.indices.insert(out.indices.end(), tri, tri + 3);
        }
        return out;
    }

    std::string_view text_;
    std::filesystem::path origin_;
    float v1_friction_ = BodyDef{}.friction;  // version 1: the world's static friction, given to every box and mesh
    std::unordered_map<std::string, Pos> positions_;
    std::unordered_map<std::string, Pos> key_positions_;
};

}  // namespace

std::string Scene::box_label(std::size_t i) const {
    if (i < boxes.size() && !boxes[i].name.empty()) return boxes[i].name;
    std::string label(1, '#');  // appended, not "#" + ...: GCC 12 reports a false -Wrestrict for that
    label += std::to_string(i);
    return label;
}

glm::quat euler_degrees_to_quat(const glm::dvec3& angles, std::string_view order) {
    if (order.size() != 3 || std::string_view("XYZ").find(order[0]) == std::string_view::npos ||
        std::string_view("XYZ").find(order[1]) == std::string_view::npos ||
        std::string_view("XYZ").find(order[2]) == std::string_view::npos || order[0] == order[1] ||
        order[0] == order[2] || order[1] == order[2])
        throw InvalidArgument("euler_degrees_to_quat: order '" + std::string(order) +
                              "' is not a permutation of XYZ");
    if (!(std::isfinite(angles.x) && std::isfinite(angles.y) && std::isfinite(angles.z)))
        throw InvalidArgument("euler_degrees_to_quat: an angle is not finite");
    constexpr double kPi = 3.14159265358979323846;
    glm::dquat q(1.0, 0.0, 0.0, 0.0);
    for (int k = 0; k < 3; ++k) {
        glm::dvec3 axis(0.0);
        axis[order[k] - 'X'] = 1.0;
        const double half = angles[k] * kPi / 360.0;
        const glm::dquat step(std::cos(half), axis * std::sin(half));
        q = step * q;  // extrinsic: each later rotation applies after (to the left of) the earlier ones
    }
    q = glm::normalize(q);
    return glm::quat(static_cast<float>(q.w), static_cast<float>(q.x), static_cast<float>(q.y), static_cast<float>(q.z));
}

Scene parse_scene(std::string_view json_text, const std::filesystem::path& origin) {
    return SceneReader(json_text, origin).read();
}

Scene load_scene(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw FileError(file.string() + ": cannot open the scene file (missing or unreadable)");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw FileError(file.string() + ": error while reading the scene file");
    return parse_scene(text.str(), file);
}

SceneInstance add_scene(World& world, const Scene& scene) {
    SceneInstance out;
    try {
        for (const SceneMesh& m : scene.meshes) out.meshes.push_back(world.add_mesh(m.mesh, m.material));
        for (const SceneBox& b : scene.boxes) out.bodies.push_back(world.create_body(b.def));
    } catch (...) {
        for (BodyId id : out.bodies) world.destroy_body(id);
        for (MeshId id : out.meshes) world.remove_mesh(id);
        throw;
    }
    return out;
}

}  // namespace tumble
