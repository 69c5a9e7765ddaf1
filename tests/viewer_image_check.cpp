// Checks a tumble-viewer screenshot as a person would look at it: the size asked for, not blank (many distinct
// colours), and the boxes' colours where the boxes are. Box colours are saturated hues (cli::box_colour); the level,
// the background, the grid and the floor are greys, so "saturated" pixels (max - min channel >= 48 of 255) are box
// pixels.
//
//   viewer_image_check FILE.png --size WxH [--min-colours N]
//                      [--rect X0 Y0 X1 Y1 --min-saturated F --min-hues K]
//                      [--outside X0 Y0 X1 Y1 --max-saturated F]
//
// --rect: within it at least fraction F of the pixels are saturated, spread over at least K of 12 hue sectors
// (each holding at least 0.3 % of the rectangle). --outside: the part of this rectangle outside --rect has at most
// fraction F saturated. Exit 0 when every check passes, 1 when one fails (saying which), 2 for bad arguments.

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <stb_image.h>

namespace {

struct Rect {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    bool contains(int x, int y) const { return x >= x0 && x < x1 && y >= y0 && y < y1; }
};

int usage(const char* what) {
    std::fprintf(stderr, "viewer_image_check: %s\n", what);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) return usage("expected FILE.png and options");
    const std::string file = argv[1];
    int want_w = -1, want_h = -1, min_colours = 0, min_hues = 0;
    double min_saturated = -1.0, max_saturated = 2.0;
    Rect rect, outside;
    bool has_rect = false, has_outside = false;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        const auto need = [&](int n) {
            if (i + n >= argc) std::exit(usage((a + " needs " + std::to_string(n) + " values").c_str()));
        };
        if (a == "--size") {
            need(1);
            if (std::sscanf(argv[++i], "%dx%d", &want_w, &want_h) != 2) return usage("--size WxH");
        } else if (a == "--min-colours") {
            need(1);
            min_colours = std::atoi(argv[++i]);
        } else if (a == "--rect" || a == "--outside") {
            need(4);
            Rect& r = a == "--rect" ? rect : outside;
            r = {std::atoi(argv[i + 1]), std::atoi(argv[i + 2]), std::atoi(argv[i + 3]), std::atoi(argv[i + 4])};
            i += 4;
            (a == "--rect" ? has_rect : has_outside) = true;
        } else if (a == "--min-saturated") {
            need(1);
            min_saturated = std::atof(argv[++i]);
        } else if (a == "--max-saturated") {
            need(1);
            max_saturated = std::atof(argv[++i]);
        } else if (a == "--min-hues") {
            need(1);
            min_hues = std::atoi(argv[++i]);
        } else {
            return usage(("unknown option " + a).c_str());
        }
    }

    int w = 0, h = 0, channels = 0;
    unsigned char* pixels = stbi_load(file.c_str(), &w, &h, &channels, 3);
    if (!pixels) {
        std::fprintf(stderr, "FAIL: %s cannot be read as a picture (%s)\n", file.c_str(), stbi_failure_reason());
        return 1;
    }
    bool ok = true;
    const auto fail = [&](const std::string& what) {
        std::fprintf(stderr, "FAIL: %s: %s\n", file.c_str(), what.c_str());
        ok = false;
    };
    if (want_w >= 0 && (w != want_w || h != want_h))
        fail("the picture is " + std::to_string(w) + "x" + std::to_string(h) + ", expected " + std::to_string(want_w) +
             "x" + std::to_string(want_h));

    std::set<unsigned> colours;
    long in_rect = 0, saturated_in = 0, in_outside = 0, saturated_out = 0;
    std::array<long, 12> hues{};
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const unsigned char* p = pixels + (static_cast<long>(y) * w + x) * 3;
            colours.insert(static_cast<unsigned>(p[0]) << 16 | static_cast<unsigned>(p[1]) << 8 | p[2]);
            const int hi = std::max({p[0], p[1], p[2]}), lo = std::min({p[0], p[1], p[2]});
            const bool saturated = hi - lo >= 48;
            if (has_rect && rect.contains(x, y)) {
                ++in_rect;
                if (saturated) {
                    ++saturated_in;
                    // Hue sector (0..11) of the pixel.
                    const double d = hi - lo;
                    double hue = hi == p[0] ? (p[1] - p[2]) / d : hi == p[1] ? 2.0 + (p[2] - p[0]) / d : 4.0 + (p[0] - p[1]) / d;
                    if (hue < 0) hue += 6.0;
                    ++hues[static_cast<std::size_t>(std::min(11.0, hue * 2.0))];
                }
            } else if (has_outside && outside.contains(x, y)) {
                ++in_outside;
                saturated_out += saturated ? 1 : 0;
            }
        }
    stbi_image_free(pixels);

    std::printf("%s: %dx%d, %zu distinct colours", file.c_str(), w, h, colours.size());
    if (static_cast<int>(colours.size()) < min_colours)
        fail(std::to_string(colours.size()) + " distinct colours, expected at least " + std::to_string(min_colours));
    if (has_rect) {
        const double fraction = in_rect ? static_cast<double>(saturated_in) / static_cast<double>(in_rect) : 0.0;
        const int sectors = static_cast<int>(std::count_if(hues.begin(), hues.end(), [&](long n) { return n * 1000 >= 3 * in_rect; }));
        std::printf(", box colours on %.1f %% of the boxes' rectangle in %d hue sectors", 100.0 * fraction, sectors);
        if (in_rect == 0) fail("the boxes' rectangle is empty");
        if (fraction < min_saturated)
            fail("box colours cover " + std::to_string(100.0 * fraction) + " % of the boxes' rectangle, expected at least " +
                 std::to_string(100.0 * min_saturated) + " %");
        if (sectors < min_hues)
            fail("box colours fall in " + std::to_string(sectors) + " hue sectors, expected at least " + std::to_string(min_hues));
    }
    if (has_outside) {
        const double fraction = in_outside ? static_cast<double>(saturated_out) / static_cast<double>(in_outside) : 0.0;
        std::printf(", %.2f %% elsewhere in the view", 100.0 * fraction);
        if (fraction > max_saturated)
            fail("box colours cover " + std::to_string(100.0 * fraction) + " % of the view away from the boxes, expected at most " +
                 std::to_string(100.0 * max_saturated) + " %");
    }
    std::printf("\n");
    return ok ? 0 : 1;
}
