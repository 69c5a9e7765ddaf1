// Shape-independent checks (checks.hpp): number formatting and finiteness messages shared by every module's
// validation.

#include <tumble/core/checks.hpp>

#include <sstream>

#include <tumble/core/error.hpp>

namespace tumble {

std::string format_number(double value) {
    std::ostringstream s;
    s.precision(9);
    s << value;
    return s.str();
}

std::string component_name(int k) {
    static const char* const kNames[4] = {"x", "y", "z", "w"};
    if (k >= 0 && k < 4) return kNames[k];
    std::string name = "[";  // appended step by step: GCC 12 warns (-Wrestrict) about "[" + std::string + "]"
    name += std::to_string(k);
    name += ']';
    return name;
}

std::string check_finite(double value, std::string_view name) {
    if (std::isfinite(value)) return {};
    return std::string(name) + " is " + format_number(value) + " (must be finite)";
}

void require_ok(std::string_view problem, std::string_view what) {
    if (!problem.empty()) throw InvalidArgument(std::string(what) + ": " + std::string(problem));
}

}  // namespace tumble
