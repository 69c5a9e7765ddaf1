#include "scene_tools.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "drop_scene.hpp"

namespace tumble::cli {
namespace {

// JSON with single-precision numbers (read with strtof), as the scene loader uses.
using Json = nlohmann::basic_json<std::map, std::vector, std::string, bool, std::int64_t, std::uint64_t, float>;

std::string vec_text(std::initializer_list<float> values, const char* open = "[", const char* close = "]",
                     const char* separator = ", ") {
    std::string s = open;
    bool first = true;
    for (float v : values) {
        if (!first) s += separator;
        s += shortest(v);
        first = false;
    }
    return s + close;
}
std::string vec_text(const glm::vec3& v, const char* open = "[", const char* close = "]", const char* separator = ", ") {
    return vec_text({v.x, v.y, v.z}, open, close, separator);
}
std::string quat_text(const glm::quat& q, const char* open = "[", const char* close = "]", const char* separator = ", ") {
    return vec_text({q.w, q.x, q.y, q.z}, open, close, separator);
}

std::string json_string(const std::string& s) { return Json(s).dump(); }

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

// Writes `text` to `path`; `what` names the kind of file in the FileError thrown when that fails.
void write_text_file(const std::filesystem::path& path, const std::string& text, const char* what) {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw FileError(path.string() + ": cannot create the " + what);
    out << text;
    out.flush();
    if (!out) throw FileError(path.string() + ": writing the " + what + " failed");
}

std::string general(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3g", v);
    return buffer;
}

}  // namespace

std::string shortest(float v) {
    // "-0" is an integer to a JSON reader, and nlohmann-json reads it as +0: a negative zero is written "-0.0", a
    // float, so that goldens and scenes keep its sign bit (and their hashes). Found by fuzz_golden's round trip.
    if (v == 0.0f && std::signbit(v)) return "-0.0";
    char buffer[32];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
    if (ec != std::errc()) return "nan";
    return std::string(buffer, end);
}

void write_scene(const std::filesystem::path& path, const Scene& scene) {
    static const Scene defaults = parse_scene(R"({"version": 2})", "defaults.json");
    static const BodyDef default_body;
    static const MeshMaterial default_material;
    const WorldSettings& w = scene.settings;
    const WorldSettings& d = defaults.settings;
    std::vector<std::string> world;
    if (w.gravity != d.gravity) world.push_back("\"gravity\": " + vec_text(w.gravity));
    if (scene.dt != defaults.dt) world.push_back("\"dt\": " + shortest(scene.dt));
    if (w.solver.substeps != d.solver.substeps) world.push_back("\"substeps\": " + std::to_string(w.solver.substeps));
    if (w.solver.iterations != d.solver.iterations)
        world.push_back("\"iterations\": " + std::to_string(w.solver.iterations));
    if (w.solver.restitution_threshold != d.solver.restitution_threshold)
        world.push_back("\"restitution_threshold\": " + shortest(w.solver.restitution_threshold));
    if (w.solver.slop != d.solver.slop) world.push_back("\"slop\": " + shortest(w.solver.slop));
    if (w.solver.method != d.solver.method)
        world.push_back(std::string("\"solver\": ") +
                        (w.solver.method == SolverMethod::soft_step ? "\"soft_step\"" : "\"xpbd\""));
    if (w.solver.contact_hertz != d.solver.contact_hertz)
        world.push_back("\"contact_hertz\": " + shortest(w.solver.contact_hertz));
    if (w.broadphase_margin != d.broadphase_margin) world.push_back("\"broadphase_margin\": " + shortest(w.broadphase_margin));
    if (w.manifold_reuse_distance != d.manifold_reuse_distance)
        world.push_back("\"manifold_reuse_distance\": " + shortest(w.manifold_reuse_distance));

    std::ostringstream o;
    o << "{\n\"version\": " << kSceneFormatVersion << ",\n";
    if (!scene.description.empty()) o << "\"description\": " << json_string(scene.description) << ",\n";
    if (!world.empty()) {
        o << "\"world\": {";
        for (std::size_t i = 0; i < world.size(); ++i) o << (i ? ", " : "") << world[i];
        o << "},\n";
    }
    o << "\"run\": {\"steps\": " << scene.steps;
    if (scene.checkpoints != std::vector<int>{scene.steps}) {
        o << ", \"checkpoints\": [";
        for (std::size_t i = 0; i < scene.checkpoints.size(); ++i) o << (i ? ", " : "") << scene.checkpoints[i];
        o << "]";
    }
    o << "},\n";
    if (!scene.meshes.empty()) {
        const std::filesystem::path folder = std::filesystem::absolute(path).parent_path();
        o << "\"meshes\": [";
        for (std::size_t i = 0; i < scene.meshes.size(); ++i) {
            const SceneMesh& m = scene.meshes[i];
            const std::string obj =
                m.path.empty() ? m.obj : std::filesystem::relative(std::filesystem::absolute(m.path), folder).generic_string();
            o << (i ? ",\n" : "") << "{";
            if (!m.name.empty()) o << "\"name\": " << json_string(m.name) << ", ";
            o << "\"obj\": " << json_string(obj);
            if (m.translation != glm::vec3(0.0f) || m.orientation != glm::quat(1.0f, 0.0f, 0.0f, 0.0f) || m.scale != 1.0f)
                o << ", \"transform\": {\"translation\": " << vec_text(m.translation) << ", \"orientation\": {\"quaternion\": "
                  << quat_text(m.orientation) << "}, \"scale\": " << shortest(m.scale) << "}";
            if (m.drop_degenerate) o << ", \"drop_degenerate\": true";
            if (m.material.friction != default_material.friction || m.material.restitution != default_material.restitution)
                o << ", \"material\": {\"friction\": " << shortest(m.material.friction)
                  << ", \"restitution\": " << shortest(m.material.restitution) << "}";
            o << "}";
        }
        o << "],\n";
    }
    o << "\"boxes\": [\n";
    for (std::size_t i = 0; i < scene.boxes.size(); ++i) {
        const SceneBox& b = scene.boxes[i];
        o << "{";
        if (!b.name.empty()) o << "\"name\": " << json_string(b.name) << ", ";
        o << "\"position\": " << vec_text(b.def.position) << ", \"half_extents\": " << vec_text(b.def.half_extents)
          << ", \"orientation\": {\"quaternion\": " << quat_text(b.def.orientation) << "}";
        if (b.def.mass == 0.0f) {
            o << ", \"static\": true";
        } else {
            if (b.def.velocity != glm::vec3(0.0f)) o << ", \"velocity\": " << vec_text(b.def.velocity);
            if (b.def.angular_velocity != glm::vec3(0.0f) && !b.def.fixed_rotation)
                o << ", \"angular_velocity\": " << vec_text(b.def.angular_velocity);
            if (b.def.mass != 1.0f) o << ", \"mass\": " << shortest(b.def.mass);
            if (b.def.fixed_rotation) o << ", \"fixed_rotation\": true";
        }
        if (b.def.friction != default_body.friction) o << ", \"friction\": " << shortest(b.def.friction);
        if (b.def.restitution != default_body.restitution) o << ", \"restitution\": " << shortest(b.def.restitution);
        o << "}" << (i + 1 < scene.boxes.size() ? ",\n" : "\n");
    }
    o << "]\n}\n";
    write_text_file(path, o.str(), "scene file");
}

std::uint64_t state_hash(const Snapshot& snapshot) {
    samples::FloatHash h;
    for (const BoxState& b : snapshot.boxes) h.feed_body(b.position, b.orientation, b.velocity, b.angular_velocity);
    return h.value();
}

SceneRun::SceneRun(const Scene& scene) : scene_(&scene), world_(scene.settings) {
    instance_ = add_scene(world_, scene);
}

void SceneRun::step() {
    world_.step(scene_->dt);
    ++step_;
}

void SceneRun::run_to(int target) {
    while (step_ < target) step();
}

Snapshot SceneRun::snapshot() const {
    Snapshot s;
    s.step = step_;
    s.boxes.reserve(instance_.bodies.size());
    for (BodyId id : instance_.bodies) {
        const BodyState b = world_.body(id);
        s.boxes.push_back({b.position, b.orientation, b.velocity, b.angular_velocity});
    }
    return s;
}

double body_energy(const Scene& scene, const Snapshot& snapshot, std::size_t index) {
    const double m = scene.boxes[index].def.mass;
    if (m == 0.0) return 0.0;
    const BoxState& b = snapshot.boxes[index];
    const glm::dvec3 g(scene.settings.gravity), v(b.velocity), x(b.position);
    // Rotational energy in the body frame, where the inertia is diagonal.
    const glm::dvec3 w = glm::conjugate(glm::dquat(b.orientation)) * glm::dvec3(b.angular_velocity);
    const glm::dvec3 inertia(box_inertia(static_cast<float>(m), scene.boxes[index].def.half_extents));
    return 0.5 * m * glm::dot(v, v) + 0.5 * glm::dot(w, inertia * w) - m * glm::dot(g, x);
}

double mechanical_energy(const Scene& scene, const Snapshot& snapshot) {
    double e = 0.0;
    for (std::size_t i = 0; i < snapshot.boxes.size(); ++i) e += body_energy(scene, snapshot, i);
    return e;
}

Recorder::Recorder(const std::filesystem::path& path, const Scene& scene) : path_(path), scene_(&scene) {
    const std::string ext = path.extension().string();
    if (ext == ".csv") {
        csv_ = true;
    } else if (ext == ".jsonl") {
        csv_ = false;
    } else {
        throw InvalidArgument("record file " + path.string() + ": the extension '" + ext +
                              "' is not known (use .csv for CSV or .jsonl for JSON Lines)");
    }
    out_.open(path, std::ios::binary);
    if (!out_) throw FileError(path.string() + ": cannot create the record file");
    if (csv_) out_ << "step,id,name,px,py,pz,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n";
}

void Recorder::write(const Snapshot& s) {
    for (std::size_t i = 0; i < s.boxes.size(); ++i) {
        const BoxState& b = s.boxes[i];
        const std::string& name = scene_->boxes[i].name;
        if (csv_) {
            out_ << s.step << ',' << i << ',' << csv_field(name) << ',' << vec_text(b.position, "", "", ",") << ','
                 << quat_text(b.orientation, "", "", ",") << ',' << vec_text(b.velocity, "", "", ",") << ','
                 << vec_text(b.angular_velocity, "", "", ",") << '\n';
        } else {
            out_ << "{\"step\":" << s.step << ",\"id\":" << i
                 << ",\"name\":" << (name.empty() ? std::string("null") : json_string(name))
                 << ",\"position\":" << vec_text(b.position) << ",\"orientation\":" << quat_text(b.orientation)
                 << ",\"velocity\":" << vec_text(b.velocity) << ",\"angular_velocity\":" << vec_text(b.angular_velocity)
                 << "}\n";
        }
        ++rows_;
    }
}

void Recorder::close() {
    out_.flush();
    if (!out_) throw FileError(path_.string() + ": writing the record file failed");
    out_.close();
}

Golden bless(const Scene& scene, const std::function<void(int, int)>& progress) {
    Golden g;
    g.scene = scene.file.filename().string();
    g.dt = scene.dt;
    for (std::size_t i = 0; i < scene.boxes.size(); ++i) g.labels.push_back(scene.box_label(i));
    SceneRun run(scene);
    const int total = scene.checkpoints.back();
    for (int checkpoint : scene.checkpoints) {
        while (run.step_count() < checkpoint) {
            run.step();
            if (progress) progress(run.step_count(), total);
        }
        g.checkpoints.push_back(run.snapshot());
        g.hashes.push_back(state_hash(g.checkpoints.back()));
    }
    return g;
}

void write_golden(const std::filesystem::path& path, const Golden& g) {
    for (const Snapshot& s : g.checkpoints)
        for (const BoxState& b : s.boxes) {
            const float values[] = {b.position.x,         b.position.y,         b.position.z,        b.orientation.w,
                                    b.orientation.x,      b.orientation.y,      b.orientation.z,     b.velocity.x,
                                    b.velocity.y,         b.velocity.z,         b.angular_velocity.x, b.angular_velocity.y,
                                    b.angular_velocity.z};
            for (float v : values)
                if (!std::isfinite(v))
                    throw Error("write_golden: the state at step " + std::to_string(s.step) +
                                " has a non-finite value; the scene blew up and cannot be blessed");
        }
    std::ostringstream o;
    o << "{\n\"format\": \"tumble-golden\",\n\"version\": 2,\n\"scene\": " << json_string(g.scene)
      << ",\n\"dt\": " << shortest(g.dt) << ",\n\"boxes\": [";
    for (std::size_t i = 0; i < g.labels.size(); ++i) o << (i ? ", " : "") << json_string(g.labels[i]);
    o << "],\n\"hash\": \"" << (g.hashes.empty() ? std::string() : hex(g.hashes.back())) << "\",\n\"checkpoints\": [\n";
    for (std::size_t c = 0; c < g.checkpoints.size(); ++c) {
        const Snapshot& s = g.checkpoints[c];
        o << "{\"step\": " << s.step << ", \"hash\": \"" << hex(g.hashes[c]) << "\", \"states\": [\n";
        for (std::size_t i = 0; i < s.boxes.size(); ++i) {
            const BoxState& b = s.boxes[i];
            o << "{\"id\": " << i << ", \"position\": " << vec_text(b.position)
              << ", \"orientation\": " << quat_text(b.orientation) << ", \"velocity\": " << vec_text(b.velocity)
              << ", \"angular_velocity\": " << vec_text(b.angular_velocity) << "}"
              << (i + 1 < s.boxes.size() ? ",\n" : "\n");
        }
        o << "]}" << (c + 1 < g.checkpoints.size() ? ",\n" : "\n");
    }
    o << "]\n}\n";
    write_text_file(path, o.str(), "golden file");
}

Golden read_golden(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw FileError(path.string() + ": cannot open the golden file (missing or unreadable)");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw FileError(path.string() + ": error while reading the golden file");
    return parse_golden(text.str(), path);
}

Golden parse_golden(std::string_view text, const std::filesystem::path& path) {
    Json root;
    try {
        root = Json::parse(text);
    } catch (const Json::exception& e) {
        throw FileError(path.string() + ": not a golden file: malformed JSON (" + e.what() + ")");
    }
    auto fail = [&](const std::string& where, const std::string& what) -> void {
        throw FileError(path.string() + ": " + where + ": " + what);
    };
    if (!root.is_object()) fail("the golden", "expected a JSON object");
    if (!root.contains("format") || root["format"] != "tumble-golden")
        fail("format", "expected \"tumble-golden\" (is this a golden file written by tumble bless?)");
    for (auto it = root.begin(); it != root.end(); ++it) {
        static const char* known[] = {"format", "version", "scene", "dt", "boxes", "hash", "checkpoints"};
        if (std::none_of(std::begin(known), std::end(known), [&](const char* k) { return it.key() == k; }))
            fail(it.key(), "unknown key '" + it.key() + "'");
    }
    if (!root.contains("version") || !root["version"].is_number_integer() ||
        (root["version"].get<int>() != 1 && root["version"].get<int>() != 2))
        fail("version", "expected version 1 or 2");
    const bool turning = root["version"].get<int>() == 2;  // version 1 states have no angular velocity
    Golden g;
    if (root.contains("scene")) {
        if (!root["scene"].is_string()) fail("scene", "expected a string");
        g.scene = root["scene"].get<std::string>();
    }
    if (root.contains("dt")) {
        if (!root["dt"].is_number()) fail("dt", "expected a number");
        g.dt = root["dt"].get<float>();
    }
    if (!root.contains("boxes") || !root["boxes"].is_array()) fail("boxes", "expected an array of box labels");
    for (std::size_t i = 0; i < root["boxes"].size(); ++i) {
        const Json& l = root["boxes"][i];
        if (!l.is_string()) fail("boxes[" + std::to_string(i) + "]", "expected a string");
        g.labels.push_back(l.get<std::string>());
    }
    auto parse_hash = [&](const Json& h, const std::string& where) {
        std::uint64_t value = 0;
        const std::string s = h.is_string() ? h.get<std::string>() : std::string();
        const auto [ptr, ec] = s.size() == 18 && s.rfind("0x", 0) == 0
                                   ? std::from_chars(s.data() + 2, s.data() + s.size(), value, 16)
                                   : std::from_chars_result{nullptr, std::errc::invalid_argument};
        if (ec != std::errc() || ptr != s.data() + s.size())
            fail(where, "expected a hash \"0x\" followed by 16 hex digits, got " + h.dump());
        return value;
    };
    if (!root.contains("checkpoints") || !root["checkpoints"].is_array() || root["checkpoints"].empty())
        fail("checkpoints", "expected a non-empty array");
    const Json& cps = root["checkpoints"];
    for (std::size_t c = 0; c < cps.size(); ++c) {
        const std::string cp = "checkpoints[" + std::to_string(c) + "]";
        const Json& j = cps[c];
        if (!j.is_object() || !j.contains("step") || !j.contains("hash") || !j.contains("states"))
            fail(cp, "expected an object with \"step\", \"hash\" and \"states\"");
        Snapshot s;
        if (!j["step"].is_number_integer() || j["step"].get<std::int64_t>() < 0 ||
            j["step"].get<std::int64_t>() > 100000000)
            fail(cp + ".step", "expected an integer >= 0");
        s.step = j["step"].get<int>();
        if (!g.checkpoints.empty() && s.step <= g.checkpoints.back().step)
            fail(cp + ".step", "checkpoints must be in increasing step order");
        g.hashes.push_back(parse_hash(j["hash"], cp + ".hash"));
        const Json& states = j["states"];
        if (!states.is_array() || states.size() != g.labels.size())
            fail(cp + ".states", "expected an array of " + std::to_string(g.labels.size()) + " states (one per box)");
        for (std::size_t i = 0; i < states.size(); ++i) {
            const std::string sp = cp + ".states[" + std::to_string(i) + "]";
            const Json& st = states[i];
            if (!st.is_object() || !st.contains("id") || st["id"] != i)
                fail(sp, "expected an object with \"id\": " + std::to_string(i));
            auto numbers = [&](const char* key, std::size_t n) {
                std::vector<float> out;
                if (!st.contains(key) || !st[key].is_array() || st[key].size() != n)
                    fail(sp + "." + key, "expected an array of " + std::to_string(n) + " numbers");
                for (const Json& v : st[key]) {
                    if (!v.is_number() || !std::isfinite(v.get<float>()))
                        fail(sp + "." + key, "expected finite numbers, got " + v.dump());
                    out.push_back(v.get<float>());
                }
                return out;
            };
            const std::vector<float> p = numbers("position", 3), q = numbers("orientation", 4), v = numbers("velocity", 3);
            const std::vector<float> w = turning ? numbers("angular_velocity", 3) : std::vector<float>(3, 0.0f);
            s.boxes.push_back({{p[0], p[1], p[2]}, glm::quat(q[0], q[1], q[2], q[3]), {v[0], v[1], v[2]}, {w[0], w[1], w[2]}});
        }
        g.checkpoints.push_back(std::move(s));
    }
    if (root.contains("hash") && parse_hash(root["hash"], "hash") != g.hashes.back())
        fail("hash", "differs from the hash of the last checkpoint");
    // A version-1 golden's hashes were taken without angular velocity, by the hash of that time: they are taken
    // again from its states (read with zero angular velocity), so that the golden agrees with itself.
    if (!turning)
        for (std::size_t c = 0; c < g.checkpoints.size(); ++c) g.hashes[c] = state_hash(g.checkpoints[c]);
    return g;
}

StateDistance distance(const BoxState& a, const BoxState& b) {
    StateDistance d;
    d.position = glm::length(glm::dvec3(a.position) - glm::dvec3(b.position));
    d.velocity = glm::length(glm::dvec3(a.velocity) - glm::dvec3(b.velocity));
    d.angular_velocity = glm::length(glm::dvec3(a.angular_velocity) - glm::dvec3(b.angular_velocity));
    // The rotation from a to b is r = conj(qa) qb; its angle is 2 atan2(|r.xyz|, |r.w|) (q and -q are the same).
    const glm::dquat qa(a.orientation), qb(b.orientation);
    const glm::dquat r = glm::conjugate(qa) * qb;
    d.orientation = 2.0 * std::atan2(glm::length(glm::dvec3(r.x, r.y, r.z)), std::abs(r.w));
    return d;
}

Tolerance Tolerance::from(double t, float dt) {
    return {t, t, t / static_cast<double>(dt), t / static_cast<double>(dt)};
}

CheckResult check(const Scene& scene, const Golden& golden, const Tolerance& tol,
                  const std::function<void(int, int)>& progress) {
    CheckResult r;
    if (golden.labels.size() != scene.boxes.size()) {
        r.problem = "the scene has " + std::to_string(scene.boxes.size()) + " boxes but the golden result has " +
                    std::to_string(golden.labels.size());
        return r;
    }
    for (std::size_t i = 0; i < scene.boxes.size(); ++i)
        if (golden.labels[i] != scene.box_label(i)) {
            r.problem = "box " + std::to_string(i) + " is called \"" + scene.box_label(i) +
                        "\" in the scene but \"" + golden.labels[i] + "\" in the golden result";
            return r;
        }
    SceneRun run(scene);
    const int total = golden.checkpoints.back().step;
    bool found = false;
    r.bit_identical = true;
    for (std::size_t c = 0; c < golden.checkpoints.size(); ++c) {
        const Snapshot& expected = golden.checkpoints[c];
        while (run.step_count() < expected.step) {
            run.step();
            if (progress) progress(run.step_count(), total);
        }
        Snapshot actual = run.snapshot();
        if (state_hash(actual) != golden.hashes[c] || state_hash(actual) != state_hash(expected)) r.bit_identical = false;
        for (std::size_t i = 0; i < actual.boxes.size(); ++i) {
            const StateDistance d = distance(expected.boxes[i], actual.boxes[i]);
            r.largest.position = std::max(r.largest.position, d.position);
            r.largest.orientation = std::max(r.largest.orientation, d.orientation);
            r.largest.velocity = std::max(r.largest.velocity, d.velocity);
            r.largest.angular_velocity = std::max(r.largest.angular_velocity, d.angular_velocity);
            ++r.states_compared;
            // Written so that NaN counts as a difference.
            const bool within = d.position <= tol.position && d.orientation <= tol.orientation &&
                                d.velocity <= tol.velocity && d.angular_velocity <= tol.angular_velocity;
            if (within) continue;
            ++r.states_different;
            if (!found) {
                found = true;
                r.step = expected.step;
                r.box = i;
                r.expected = expected.boxes[i];
                r.actual = actual.boxes[i];
                r.off = d;
            }
        }
        r.actual_checkpoints.push_back(std::move(actual));
    }
    r.passed = !found;
    return r;
}

bool passes(const CheckResult& r, bool require_bits) { return r.passed && (r.bit_identical || !require_bits); }

std::string format_report(const Scene& scene, const Golden& golden, const Tolerance& tol, const CheckResult& r,
                          bool require_bits) {
    std::ostringstream o;
    const std::string tolerance = general(tol.position) + " m, " + general(tol.orientation) + " rad, " +
                                  general(tol.velocity) + " m/s, " + general(tol.angular_velocity) + " rad/s";
    std::string steps;
    for (std::size_t c = 0; c < golden.checkpoints.size(); ++c)
        steps += (c ? ", " : "") + std::to_string(golden.checkpoints[c].step);
    if (!r.problem.empty()) {
        o << "FAILED: " << scene.file.string() << " does not match its golden result: " << r.problem << "\n";
        return o.str();
    }
    const std::string largest = general(r.largest.position) + " m, " + general(r.largest.orientation) + " rad, " +
                                general(r.largest.velocity) + " m/s, " + general(r.largest.angular_velocity) + " rad/s";
    if (r.passed && !passes(r, require_bits)) {
        o << "FAILED: " << scene.file.string() << ": " << r.states_compared << " states (steps " << steps << ") within "
          << tolerance << " but not bit-identical, which --bit-identical requires: largest differences " << largest
          << ". Bless the golden again if the change is intended, and say why in the commit.\n";
        return o.str();
    }
    if (r.passed) {
        o << "PASSED: " << scene.file.string() << ": " << r.states_compared << " states (steps " << steps << ") within "
          << tolerance << "; ";
        if (r.bit_identical)
            o << "bit-identical (state hash " << hex(golden.hashes.back()) << ")\n";
        else
            o << "not bit-identical: largest differences " << largest << "\n";
        return o.str();
    }
    auto row = [&](const char* what, const std::string& expected, const std::string& actual, double off, double limit,
                   const char* unit) {
        char line[64];
        std::snprintf(line, sizeof line, "%.6g %s", off, unit);
        o << "  " << what << "\n"
          << "    expected " << expected << "\n"
          << "    actual   " << actual << "\n"
          << "    off by   " << line << (off <= limit ? "" : "   (beyond the tolerance of " + general(limit) + " " + unit + ")")
          << "\n";
    };
    o << "FAILED: " << scene.file.string() << " differs from its golden result (tolerance " << tolerance << ")\n";
    o << "first difference: step " << r.step << ", box \"" << scene.box_label(r.box) << "\" (id " << r.box << ")\n";
    row("position (m)", vec_text(r.expected.position, "(", ")"), vec_text(r.actual.position, "(", ")"), r.off.position,
        tol.position, "m");
    row("orientation (w, x, y, z)", quat_text(r.expected.orientation, "(", ")"), quat_text(r.actual.orientation, "(", ")"),
        r.off.orientation, tol.orientation, "rad");
    row("velocity (m/s)", vec_text(r.expected.velocity, "(", ")"), vec_text(r.actual.velocity, "(", ")"), r.off.velocity,
        tol.velocity, "m/s");
    row("angular velocity (rad/s)", vec_text(r.expected.angular_velocity, "(", ")"),
        vec_text(r.actual.angular_velocity, "(", ")"), r.off.angular_velocity, tol.angular_velocity, "rad/s");
    o << "states beyond the tolerance: " << r.states_different << " of " << r.states_compared << " (steps " << steps
      << ", " << scene.boxes.size() << " boxes)\n";
    o << "largest differences: " << general(r.largest.position) << " m, " << general(r.largest.orientation) << " rad, "
      << general(r.largest.velocity) << " m/s, " << general(r.largest.angular_velocity) << " rad/s\n";
    for (std::size_t c = 0; c < golden.checkpoints.size() && c < r.actual_checkpoints.size(); ++c) {
        if (golden.checkpoints[c].step != r.step) continue;
        o << "state hash at step " << r.step << ": golden " << hex(golden.hashes[c]) << ", actual "
          << hex(state_hash(r.actual_checkpoints[c])) << "\n";
        if (state_hash(golden.checkpoints[c]) != golden.hashes[c])
            o << "note: the golden's hash at step " << r.step
              << " does not match its own recorded states: the file was changed after tumble bless wrote it\n";
    }
    return o.str();
}

}  // namespace tumble::cli
