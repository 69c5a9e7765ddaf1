// Convex hull triangles from the reentrant Qhull library (libqhull_r): Barber, Dobkin and Huhdanpaa, "The Quickhull
// Algorithm for Convex Hulls", ACM Transactions on Mathematical Software 22(4), 1996.

#include "convex_hull.hpp"

#include <cstdio>
#include <cstdlib>
#include <limits>

extern "C" {
#include <libqhull_r/qhull_ra.h>
}

namespace tumble::detail {
namespace {

// Qhull reports errors on a FILE*; collect them in memory so that the library prints nothing.
class MessageBuffer {
public:
    MessageBuffer() : file_(open_memstream(&data_, &size_)) {}
    ~MessageBuffer() {
        if (file_) std::fclose(file_);
        std::free(data_);
    }
    MessageBuffer(const MessageBuffer&) = delete;
    MessageBuffer& operator=(const MessageBuffer&) = delete;
    FILE* file() const { return file_; }
    std::string text() {
        if (!file_) return "(no message)";
        std::fflush(file_);
        std::string s(data_ ? data_ : "", size_);
        const std::size_t end = s.find('\n');  // the first line names the error (QH6154 ...)
        return end == std::string::npos ? s : s.substr(0, end);
    }

private:
    char* data_ = nullptr;
    std::size_t size_ = 0;
    FILE* file_ = nullptr;
};

}  // namespace

bool convex_hull_triangles(std::span<const glm::dvec3> points, std::vector<HullTriangle>& out, std::string& error) {
    out.clear();
    if (points.size() < 4) {
        error = "fewer than 4 points";
        return false;
    }
    if (points.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
        error = "too many points for Qhull";
        return false;
    }
    std::vector<coordT> coords;
    coords.reserve(points.size() * 3);
    for (const glm::dvec3& p : points) coords.insert(coords.end(), {p.x, p.y, p.z});

    MessageBuffer messages;
    FILE* err = messages.file() ? messages.file() : stderr;
    qhT qh_storage;
    qhT* qh = &qh_storage;
    qh_zero(qh, err);
    char options[] = "qhull Qt";  // triangulated output: every facet is a triangle
    const int code = qh_new_qhull(qh, 3, static_cast<int>(points.size()), coords.data(), False, options, nullptr, err);
    if (code == 0) {
        facetT* facet;
        FORALLfacets {
            HullTriangle tri{};
            int k = 0;
            vertexT* vertex;
            vertexT** vertexp;
            FOREACHvertex_(facet->vertices) {
                if (k < 3) tri[static_cast<std::size_t>(k)] = {vertex->point[0], vertex->point[1], vertex->point[2]};
                ++k;
            }
            if (k == 3) out.push_back(tri);
        }
    } else {
        error = messages.text();
    }
    qh_freeqhull(qh, !qh_ALL);
    int current_long = 0, total_long = 0;
    qh_memfreeshort(qh, &current_long, &total_long);
    if (code != 0 || out.empty()) {
        if (code == 0) error = "Qhull returned no triangles";
        out.clear();
        return false;
    }
    return true;
}

}  // namespace tumble::detail
