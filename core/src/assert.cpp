// The failure path of TUMBLE_ASSERT (assert.hpp), out of line so that a check costs one branch where it stands.

#include <tumble/core/assert.hpp>

#include <cstdio>
#include <cstdlib>

namespace tumble::detail {

void assert_failed(const char* expression, const char* file, int line) noexcept {
    std::fprintf(stderr, "%s:%d: TUMBLE_ASSERT(%s) failed\n", file, line, expression);
    std::fflush(stderr);
    std::abort();
}

}  // namespace tumble::detail
