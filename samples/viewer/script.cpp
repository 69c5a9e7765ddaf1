#include "script.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>

#include <tumble/core/error.hpp>

namespace tumble::viewer {
namespace {

struct VerbInfo {
    std::string_view name;
    Verb verb;
    int numbers;  // numeric arguments
    bool text;    // one name argument
};

constexpr VerbInfo kVerbs[] = {
    {"throw", Verb::throw_box, 0, false},  {"pick", Verb::pick, 0, false},
    {"release", Verb::release, 0, false},  {"click", Verb::click, 0, false},
    {"delete", Verb::delete_selected, 0, false}, {"toggle", Verb::toggle, 0, true},
    {"orbit", Verb::orbit, 2, false},      {"pan", Verb::pan, 2, false},
    {"zoom", Verb::zoom, 1, false},        {"pause", Verb::pause, 0, false},
    {"play", Verb::play, 0, false},        {"step", Verb::step, 0, false},
    {"reset", Verb::reset, 0, false},      {"frame", Verb::frame, 0, false},
    {"slowmo", Verb::slowmo, 0, false},    {"rate", Verb::rate, 1, false},
    {"substeps", Verb::substeps, 1, false}, {"scene", Verb::scene, 0, true},
    {"screenshot", Verb::screenshot, 0, true}, {"save", Verb::save, 0, true},
    {"quit", Verb::quit, 0, false},
};

const std::vector<std::string> kDirections = {"forward", "back", "left", "right", "up", "down"};

bool parse_number(std::string_view token, double& value) {
    const char* end = token.data() + token.size();
    const auto [ptr, ec] = std::from_chars(token.data(), end, value);
    return ec == std::errc() && ptr == end && std::isfinite(value);
}

std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

}  // namespace

const std::vector<std::string>& toggle_names() {
    static const std::vector<std::string> names = {"panels",        "contacts",  "aabbs",  "octree",
                                                   "sleep_colours", "wireframe", "labels", "grid"};
    return names;
}

Script parse_script(std::string_view text, const std::filesystem::path& origin, const std::vector<std::string>& scene_names) {
    Script script;
    script.file = origin;
    std::istringstream in{std::string(text)};
    std::string raw;
    int line_number = 0;
    double previous_time = 0.0;
    while (std::getline(in, raw)) {
        ++line_number;
        const auto fail = [&](const std::string& what) {
            throw FileError(origin.string() + ":" + std::to_string(line_number) + ": " + what);
        };
        const std::size_t hash = raw.find('#');
        if (hash != std::string::npos) raw.resize(hash);
        std::istringstream fields(raw);
        const std::vector<std::string> tokens{std::istream_iterator<std::string>(fields), std::istream_iterator<std::string>()};
        if (tokens.empty()) continue;

        Action a;
        a.line = line_number;
        if (!parse_number(tokens[0], a.time) || a.time < 0.0)
            fail("expected a time in seconds >= 0 at the start of the line, got '" + tokens[0] + "'");
        if (a.time < previous_time)
            fail("time " + tokens[0] + " is earlier than the previous action's (" + std::to_string(previous_time) +
                 " s); times must not decrease");
        if (tokens.size() < 2) fail("expected an action after the time " + tokens[0]);
        const std::string& name = tokens[1];
        const std::vector<std::string> args(tokens.begin() + 2, tokens.end());

        if (name == "cursor") {
            if (args.size() == 1 && args[0] == "thrown") {
                a.verb = Verb::cursor_thrown;
            } else {
                double x = 0, y = 0;
                if (args.size() != 2 || !parse_number(args[0], x) || !parse_number(args[1], y))
                    fail("cursor: expected two pixel coordinates X Y or 'thrown'");
                a.verb = Verb::cursor;
                a.x = static_cast<float>(x);
                a.y = static_cast<float>(y);
            }
        } else if (name == "fly") {
            double seconds = 0;
            if (args.size() != 2 || !parse_number(args[1], seconds) || seconds < 0)
                fail("fly: expected a direction (" + join(kDirections) + ") and a number of seconds >= 0");
            if (std::find(kDirections.begin(), kDirections.end(), args[0]) == kDirections.end())
                fail("fly: unknown direction '" + args[0] + "'; expected one of " + join(kDirections));
            a.verb = Verb::fly;
            a.text = args[0];
            a.x = static_cast<float>(seconds);
        } else {
            const auto info = std::find_if(std::begin(kVerbs), std::end(kVerbs), [&](const VerbInfo& v) { return v.name == name; });
            if (info == std::end(kVerbs))
                fail("unknown action '" + name +
                     "'; expected cursor, throw, pick, release, click, delete, toggle, orbit, pan, zoom, fly, pause, "
                     "play, step, reset, frame, slowmo, rate, substeps, scene, screenshot, save or quit");
            a.verb = info->verb;
            const std::size_t expected = static_cast<std::size_t>(info->numbers) + (info->text ? 1u : 0u);
            if (args.size() != expected)
                fail(name + ": expected " + std::to_string(expected) + " argument" + (expected == 1 ? "" : "s") + ", got " +
                     std::to_string(args.size()));
            for (int k = 0; k < info->numbers; ++k) {
                double v = 0;
                if (!parse_number(args[static_cast<std::size_t>(k)], v))
                    fail(name + ": expected a number, got '" + args[static_cast<std::size_t>(k)] + "'");
                (k == 0 ? a.x : a.y) = static_cast<float>(v);
            }
            if (info->text) a.text = args.back();
            if (a.verb == Verb::toggle &&
                std::find(toggle_names().begin(), toggle_names().end(), a.text) == toggle_names().end())
                fail("toggle: unknown name '" + a.text + "'; expected one of " + join(toggle_names()));
            if (a.verb == Verb::scene && std::find(scene_names.begin(), scene_names.end(), a.text) == scene_names.end())
                fail("scene: no demo scene is named '" + a.text + "'; the demo scenes are " + join(scene_names));
            if (a.verb == Verb::rate && !(a.x >= 1.0f && a.x <= 1000.0f)) fail("rate: expected 1..1000 steps per second");
            if (a.verb == Verb::substeps && !(a.x >= 1.0f && a.x <= 64.0f && a.x == std::floor(a.x)))
                fail("substeps: expected a whole number 1..64");
        }
        previous_time = a.time;
        script.actions.push_back(std::move(a));
    }
    return script;
}

Script load_script(const std::filesystem::path& file, const std::vector<std::string>& scene_names) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw FileError(file.string() + ": cannot read the script file");
    std::ostringstream text;
    text << in.rdbuf();
    return parse_script(text.str(), file, scene_names);
}

}  // namespace tumble::viewer
