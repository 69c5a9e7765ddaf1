// The docs against the code: the defaults that docs/scenes.md and docs/architecture.md state, read from the
// Markdown tables in the source tree, must be the defaults of the structs and of parse_scene; and the header table
// of docs/architecture.md must list every public header. A doc edit or a code change that makes them disagree fails
// here, naming the table, the key and both values.

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <tumble/tumble.hpp>

namespace {

namespace fs = std::filesystem;

const fs::path kSource = TUMBLE_SOURCE_DIR;

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) ADD_FAILURE() << "cannot read " << p;
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// The cells of a Markdown table row "| a | b |" (a "\|" inside a cell is not a separator).
std::vector<std::string> cells(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    for (std::size_t i = 1; i < line.size(); ++i) {
        if (line[i] == '|' && line[i - 1] != '\\') {
            out.push_back(trim(cur));
            cur.clear();
        } else {
            cur += line[i];
        }
    }
    return out;
}

std::string unquote(const std::string& s) {
    std::string out;
    for (char c : s)
        if (c != '`') out += c;
    return trim(out);
}

// The first table after the line `heading` (before the next heading), as key -> the cell of column `column`; the
// key is the first column without backticks. A `heading` that starts with "|" names the table's own header row
// instead. Records a failure and returns what it has when the table or the column is missing.
std::map<std::string, std::string> table(const std::string& doc, const std::string& heading,
                                         const std::string& column) {
    std::map<std::string, std::string> out;
    std::istringstream in(doc);
    std::string line;
    bool in_section = false;
    int value_column = -1;
    bool seen_table = false;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!in_section) {
            in_section = heading.starts_with("|") ? line.starts_with(heading) : line == heading;
            if (!in_section || !heading.starts_with("|")) continue;
        } else if (line.starts_with("#")) {
            break;
        }
        if (!line.starts_with("|")) {
            if (seen_table) break;
            continue;
        }
        const std::vector<std::string> row = cells(line);
        if (!seen_table) {
            seen_table = true;
            const auto it = std::find(row.begin(), row.end(), column);
            if (it == row.end()) {
                ADD_FAILURE() << "the table under \"" << heading << "\" has no column \"" << column << "\"";
                return out;
            }
            value_column = static_cast<int>(it - row.begin());
            continue;
        }
        if (row.empty() || row[0].starts_with("---")) continue;
        if (static_cast<int>(row.size()) <= value_column) {
            ADD_FAILURE() << "short row under \"" << heading << "\": " << line;
            continue;
        }
        out[unquote(row[0])] = row[static_cast<std::size_t>(value_column)];
    }
    if (!in_section) ADD_FAILURE() << "no heading \"" << heading << "\"";
    return out;
}

// The text of the first `code` span in a cell, or the whole cell when it has none.
std::string code_of(const std::string& cell) {
    const auto a = cell.find('`');
    if (a == std::string::npos) return trim(cell);
    const auto b = cell.find('`', a + 1);
    return trim(cell.substr(a + 1, b - a - 1));
}

// A number as written in the docs: a decimal or a fraction "p/q". Records a failure for anything else.
double number(const std::string& text, const std::string& what) {
    const std::string t = trim(text);
    const auto slash = t.find('/');
    if (slash != std::string::npos) return number(t.substr(0, slash), what) / number(t.substr(slash + 1), what);
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size()) ADD_FAILURE() << what << ": \"" << text << "\" is not a number";
    return v;
}

// The numbers of a vector "[x, y, z]" or "(x, y, z)".
glm::vec3 vec3(const std::string& text, const std::string& what) {
    std::string t = trim(text);
    if (t.size() < 2 || !((t.front() == '[' && t.back() == ']') || (t.front() == '(' && t.back() == ')'))) {
        ADD_FAILURE() << what << ": \"" << text << "\" is not a vector";
        return glm::vec3(NAN);
    }
    t = t.substr(1, t.size() - 2);
    glm::vec3 v(0.0f);
    std::istringstream in(t);
    std::string part;
    int i = 0;
    while (std::getline(in, part, ',')) {
        if (i < 3) v[i] = static_cast<float>(number(part, what));
        ++i;
    }
    if (i != 3) ADD_FAILURE() << what << ": \"" << text << "\" does not have 3 components";
    return v;
}

bool boolean(const std::string& text, const std::string& what) {
    const std::string t = trim(text);
    if (t != "true" && t != "false") ADD_FAILURE() << what << ": \"" << text << "\" is not true or false";
    return t == "true";
}

// The number after "NAME": (JSON) or NAME (prose) in `text`.
double number_after(const std::string& text, const std::string& name, const std::string& what) {
    auto at = text.find("\"" + name + "\":");
    std::size_t skip = name.size() + 3;
    if (at == std::string::npos) {
        at = text.find(name + " ");
        skip = name.size() + 1;
    }
    if (at == std::string::npos) {
        ADD_FAILURE() << what << ": no " << name << " in \"" << text << "\"";
        return NAN;
    }
    const std::string rest = trim(text.substr(at + skip));
    const auto end = rest.find_first_of(",}");
    return number(rest.substr(0, end), what);
}

// The defaults a scene file gives: one unnamed box and one mesh with nothing but their required keys. The OBJ goes
// to a scratch folder named after the test (CTest runs tests in parallel).
struct ParsedDefaults {
    tumble::Scene scene;
    ParsedDefaults() {
        const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
        const fs::path dir = fs::path(::testing::TempDir()) / ("tumble_docs_" + test);
        fs::create_directories(dir);
        std::ofstream(dir / "floor.obj", std::ios::binary) << "v -1 0 -1\nv 1 0 -1\nv 1 0 1\nf 1 3 2\n";
        scene = tumble::parse_scene(R"({"version": 2,
            "boxes": [{"position": [0, 1, 0], "half_extents": [0.5, 0.5, 0.5]}],
            "meshes": [{"obj": "floor.obj"}]})",
                                    dir / "defaults.json");
        fs::remove_all(dir);
    }
};

const std::string kScenes = "docs/scenes.md";

TEST(DocsDefaults, EmptyVersion2SceneHasTheStructDefaults) {
    // The code's two sources of defaults agree before the docs are compared with either.
    const tumble::Scene s = tumble::parse_scene(R"({"version": 2})", "empty.json");
    const tumble::WorldSettings w{};
    EXPECT_EQ(s.settings.gravity, w.gravity);
    EXPECT_EQ(s.settings.broadphase_margin, w.broadphase_margin);
    EXPECT_EQ(s.settings.solver.substeps, w.solver.substeps);
    EXPECT_EQ(s.settings.solver.iterations, w.solver.iterations);
    EXPECT_EQ(s.settings.solver.restitution_threshold, w.solver.restitution_threshold);
    EXPECT_EQ(s.settings.solver.slop, w.solver.slop);
    EXPECT_EQ(s.dt, tumble::Scene{}.dt);
    EXPECT_EQ(s.steps, tumble::Scene{}.steps);
}

TEST(DocsDefaults, ScenesWorldTable) {
    const auto t = table(read_text(kSource / kScenes), "### `world`", "default");
    const tumble::WorldSettings code{};
    const tumble::SolverSettings solver{};
    const tumble::Scene parsed = tumble::parse_scene(R"({"version": 2})", "empty.json");
    for (const char* key : {"gravity", "dt", "substeps", "iterations", "restitution_threshold", "slop",
                            "broadphase_margin", "solver", "contact_hertz", "manifold_reuse_distance"})
        ASSERT_TRUE(t.count(key)) << kScenes << ", world table: no row for " << key;
    const auto what = [](const std::string& key) { return kScenes + ", world." + key; };

    const glm::vec3 gravity = vec3(code_of(t.at("gravity")), what("gravity"));
    EXPECT_EQ(gravity, code.gravity) << what("gravity");
    EXPECT_EQ(gravity, parsed.settings.gravity) << what("gravity");
    // "`1/60` (0.016666668)": the fraction and the float it rounds to.
    const std::string dt_cell = t.at("dt");
    EXPECT_EQ(static_cast<float>(number(code_of(dt_cell), what("dt"))), parsed.dt) << what("dt") << ": " << dt_cell;
    const auto open = dt_cell.find('(');
    if (open != std::string::npos) {
        EXPECT_EQ(static_cast<float>(number(dt_cell.substr(open + 1, dt_cell.find(')') - open - 1), what("dt"))),
                  parsed.dt)
            << what("dt") << ": " << dt_cell;
    }
    EXPECT_EQ(number(code_of(t.at("substeps")), what("substeps")), solver.substeps) << what("substeps");
    EXPECT_EQ(number(code_of(t.at("iterations")), what("iterations")), solver.iterations) << what("iterations");
    EXPECT_EQ(static_cast<float>(number(code_of(t.at("restitution_threshold")), what("restitution_threshold"))),
              solver.restitution_threshold)
        << what("restitution_threshold");
    EXPECT_EQ(static_cast<float>(number(code_of(t.at("slop")), what("slop"))), solver.slop) << what("slop");
    EXPECT_EQ(code_of(t.at("solver")), "\"xpbd\"") << what("solver");
    EXPECT_EQ(solver.method, tumble::SolverMethod::xpbd) << what("solver");
    EXPECT_EQ(parsed.settings.solver.method, solver.method) << what("solver");
    EXPECT_EQ(static_cast<float>(number(code_of(t.at("contact_hertz")), what("contact_hertz"))), solver.contact_hertz)
        << what("contact_hertz");
    EXPECT_EQ(parsed.settings.solver.contact_hertz, solver.contact_hertz) << what("contact_hertz");
    EXPECT_EQ(static_cast<float>(number(code_of(t.at("broadphase_margin")), what("broadphase_margin"))),
              code.broadphase_margin)
        << what("broadphase_margin");
    EXPECT_EQ(static_cast<float>(number(code_of(t.at("manifold_reuse_distance")), what("manifold_reuse_distance"))),
              code.manifold_reuse_distance)
        << what("manifold_reuse_distance");
    EXPECT_EQ(parsed.settings.manifold_reuse_distance, code.manifold_reuse_distance) << what("manifold_reuse_distance");
    // Version 1's passes per step become substeps; its default is the substeps' default.
    if (t.count("solver_iterations")) {
        EXPECT_EQ(number(code_of(t.at("solver_iterations")), what("solver_iterations")), solver.substeps)
            << what("solver_iterations");
    }
    if (t.count("friction")) {
        EXPECT_EQ(static_cast<float>(number(code_of(t.at("friction")), what("friction"))), tumble::BodyDef{}.friction)
            << what("friction");
    }
}

TEST(DocsDefaults, ScenesRunTable) {
    const auto t = table(read_text(kSource / kScenes), "### `run`", "default");
    ASSERT_TRUE(t.count("steps")) << kScenes << ", run table: no row for steps";
    const tumble::Scene parsed = tumble::parse_scene(R"({"version": 2})", "empty.json");
    EXPECT_EQ(number(code_of(t.at("steps")), kScenes + ", run.steps"), parsed.steps) << kScenes << ", run.steps";
}

TEST(DocsDefaults, ScenesBoxTable) {
    const auto t = table(read_text(kSource / kScenes), "### `boxes[i]`", "default");
    const tumble::BodyDef code{};
    const ParsedDefaults parsed;
    ASSERT_EQ(parsed.scene.boxes.size(), 1u);
    const tumble::BodyDef& box = parsed.scene.boxes[0].def;
    for (const char* key : {"mass", "friction", "restitution", "velocity", "angular_velocity", "static",
                            "fixed_rotation"})
        ASSERT_TRUE(t.count(key)) << kScenes << ", boxes table: no row for " << key;
    const auto what = [](const std::string& key) { return kScenes + ", boxes[i]." + key; };

    for (const auto& [key, value, read] : {std::tuple{"mass", code.mass, box.mass},
                                           std::tuple{"friction", code.friction, box.friction},
                                           std::tuple{"restitution", code.restitution, box.restitution}}) {
        const float doc = static_cast<float>(number(code_of(t.at(key)), what(key)));
        EXPECT_EQ(doc, value) << what(key) << " against BodyDef{}";
        EXPECT_EQ(doc, read) << what(key) << " against parse_scene";
    }
    EXPECT_EQ(vec3(code_of(t.at("velocity")), what("velocity")), code.velocity) << what("velocity");
    EXPECT_EQ(vec3(code_of(t.at("velocity")), what("velocity")), box.velocity) << what("velocity");
    EXPECT_EQ(vec3(code_of(t.at("angular_velocity")), what("angular_velocity")), code.angular_velocity)
        << what("angular_velocity");
    EXPECT_EQ(vec3(code_of(t.at("angular_velocity")), what("angular_velocity")), box.angular_velocity)
        << what("angular_velocity");
    EXPECT_EQ(boolean(code_of(t.at("static")), what("static")), box.mass == 0.0f) << what("static");
    EXPECT_EQ(boolean(code_of(t.at("fixed_rotation")), what("fixed_rotation")), code.fixed_rotation)
        << what("fixed_rotation");
    EXPECT_EQ(boolean(code_of(t.at("fixed_rotation")), what("fixed_rotation")), box.fixed_rotation)
        << what("fixed_rotation");
}

TEST(DocsDefaults, ScenesMeshTable) {
    const auto t = table(read_text(kSource / kScenes), "### `meshes[i]`", "default");
    ASSERT_TRUE(t.count("material")) << kScenes << ", meshes table: no row for material";
    ASSERT_TRUE(t.count("drop_degenerate")) << kScenes << ", meshes table: no row for drop_degenerate";
    const tumble::MeshMaterial code{};
    const ParsedDefaults parsed;
    ASSERT_EQ(parsed.scene.meshes.size(), 1u);
    const std::string cell = code_of(t.at("material"));  // {"friction": 0.6, "restitution": 0}
    const std::string what = kScenes + ", meshes[i].material";
    const float friction = static_cast<float>(number_after(cell, "friction", what));
    const float restitution = static_cast<float>(number_after(cell, "restitution", what));
    EXPECT_EQ(friction, code.friction) << what << " against MeshMaterial{}";
    EXPECT_EQ(restitution, code.restitution) << what << " against MeshMaterial{}";
    EXPECT_EQ(friction, parsed.scene.meshes[0].material.friction) << what << " against parse_scene";
    EXPECT_EQ(restitution, parsed.scene.meshes[0].material.restitution) << what << " against parse_scene";
    EXPECT_EQ(boolean(code_of(t.at("drop_degenerate")), kScenes + ", meshes[i].drop_degenerate"),
              parsed.scene.meshes[0].drop_degenerate);
}

TEST(DocsDefaults, ScenesVersion1Table) {
    // "`iterations`, `restitution_threshold` and `slop` keep their defaults (16, 1 m/s, 0 m)"
    const auto t = table(read_text(kSource / kScenes), "### Version 1, the older format", "becomes");
    const std::string key = "world.solver_iterations (Gauss-Seidel passes per step of the old solver)";
    ASSERT_TRUE(t.count(key)) << kScenes << ", version 1 table: no row for world.solver_iterations";
    const std::string cell = t.at(key);
    const auto open = cell.find("defaults (");
    ASSERT_NE(open, std::string::npos) << cell;
    std::istringstream in(cell.substr(open + 10, cell.find(')', open) - open - 10));
    std::string iterations, threshold, slop;
    std::getline(in, iterations, ',');
    std::getline(in, threshold, ',');
    std::getline(in, slop, ',');
    const std::string what = kScenes + ", version 1 defaults";
    const tumble::SolverSettings code{};
    EXPECT_EQ(number(iterations, what), code.iterations) << what;
    EXPECT_EQ(static_cast<float>(number(trim(threshold).substr(0, trim(threshold).find(' ')), what)),
              code.restitution_threshold)
        << what;
    EXPECT_EQ(static_cast<float>(number(trim(slop).substr(0, trim(slop).find(' ')), what)), code.slop) << what;
    const tumble::Scene v1 = tumble::parse_scene(R"({"version": 1, "world": {"solver_iterations": 3}})", "v1.json");
    EXPECT_EQ(v1.settings.solver.iterations, code.iterations);
    EXPECT_EQ(v1.settings.solver.restitution_threshold, code.restitution_threshold);
    EXPECT_EQ(v1.settings.solver.slop, code.slop);
}

TEST(DocsDefaults, ArchitectureSettingsTable) {
    const std::string doc = "docs/architecture.md";
    const auto t = table(read_text(kSource / doc), "## Settings and their defaults", "default");
    const tumble::WorldSettings w{};
    const tumble::BodyDef body{};
    const tumble::MeshMaterial mesh{};
    // Every row must be one of these, and every one of these must have a row.
    const std::map<std::string, float> numbers = {
        {"WorldSettings::broadphase_margin", w.broadphase_margin},
        {"WorldSettings::manifold_reuse_distance", w.manifold_reuse_distance},
        {"WorldSettings::sleep.linear_velocity", w.sleep.linear_velocity},
        {"WorldSettings::sleep.time", w.sleep.time},
        {"WorldSettings::threads", static_cast<float>(w.threads)},
        {"SolverSettings::substeps", static_cast<float>(w.solver.substeps)},
        {"SolverSettings::iterations", static_cast<float>(w.solver.iterations)},
        {"SolverSettings::restitution_threshold", w.solver.restitution_threshold},
        {"SolverSettings::slop", w.solver.slop},
        {"SolverSettings::contact_hertz", w.solver.contact_hertz},
        {"BodyDef::friction", body.friction},
        {"BodyDef::restitution", body.restitution},
    };
    const std::map<std::string, bool> booleans = {
        {"WorldSettings::sleep.enabled", w.sleep.enabled},
        {"WorldSettings::active_edges_only", w.active_edges_only},
    };
    std::set<std::string> seen;
    for (const auto& [key, cell] : t) {
        const std::string what = doc + ", settings table, " + key;
        seen.insert(key);
        if (numbers.count(key)) {
            EXPECT_EQ(static_cast<float>(number(cell, what)), numbers.at(key)) << what;
        } else if (booleans.count(key)) {
            EXPECT_EQ(boolean(cell, what), booleans.at(key)) << what;
        } else if (key == "WorldSettings::gravity") {
            EXPECT_EQ(vec3(cell, what), w.gravity) << what;
        } else if (key == "SolverSettings::method") {
            EXPECT_EQ(code_of(cell), "xpbd") << what;
            EXPECT_EQ(w.solver.method, tumble::SolverMethod::xpbd) << what;
        } else if (key == "MeshMaterial") {  // "friction 0.6, restitution 0"
            EXPECT_EQ(static_cast<float>(number_after(cell, "friction", what)), mesh.friction) << what;
            EXPECT_EQ(static_cast<float>(number_after(cell, "restitution", what)), mesh.restitution) << what;
        } else {
            ADD_FAILURE() << what << ": a setting this test does not know; add it here with the code's default";
        }
    }
    for (const auto& [key, value] : numbers) EXPECT_TRUE(seen.count(key)) << doc << ": no row for " << key;
    for (const auto& [key, value] : booleans) EXPECT_TRUE(seen.count(key)) << doc << ": no row for " << key;
    EXPECT_TRUE(seen.count("WorldSettings::gravity")) << doc << ": no row for WorldSettings::gravity";
    EXPECT_TRUE(seen.count("SolverSettings::method")) << doc << ": no row for SolverSettings::method";
    EXPECT_TRUE(seen.count("MeshMaterial")) << doc << ": no row for MeshMaterial";
}

TEST(DocsDefaults, ArchitectureListsEveryPublicHeader) {
    const std::string doc = "docs/architecture.md";
    const auto t = table(read_text(kSource / doc), "| header | module |", "module");
    // Every <module>/include/**/*.hpp of the source tree, as the include path a program writes, with its module.
    std::map<std::string, std::string> headers;
    for (const fs::directory_entry& module : fs::directory_iterator(kSource)) {
        const fs::path include = module.path() / "include";
        if (!module.is_directory() || !fs::is_directory(include)) continue;
        for (const fs::directory_entry& f : fs::recursive_directory_iterator(include))
            if (f.is_regular_file() && f.path().extension() == ".hpp")
                headers[fs::relative(f.path(), include).generic_string()] = module.path().filename().string();
    }
    ASSERT_GT(headers.size(), 10u) << "found no public headers under " << kSource;
    for (const auto& [header, module] : headers) {
        if (!t.count(header)) {
            ADD_FAILURE() << doc << ": the header table does not list " << header << " (" << module << ")";
            continue;
        }
        EXPECT_EQ(t.at(header), module) << doc << ": module of " << header;
    }
    for (const auto& [header, module] : t)
        EXPECT_TRUE(headers.count(header)) << doc << ": the header table lists " << header << ", which does not exist";
}

}  // namespace
