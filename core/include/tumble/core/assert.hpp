#pragma once
/// @file
/// `TUMBLE_ASSERT(condition)`: checks of Tumble's internal invariants (module tumble::core), in the manner of Box2D's
/// B2_ASSERT and Jolt's JPH_ASSERT.
///
/// An assertion states something that holds whatever the user passes: an index the code itself computed is in
/// range, an octree proxy belongs to the body that names it, a mass the engine derived is finite. Bad user input is
/// never asserted; it is reported at the API boundary (`InvalidArgument`, `FileError`; docs/architecture.md,
/// "Errors"). When a checked condition is false the program prints "<file>:<line>: TUMBLE_ASSERT(<condition>)
/// failed" to stderr and aborts (std::abort), so a debugger or the sanitizers stop where the invariant broke.
///
/// Assertions are checked when `TUMBLE_ENABLE_ASSERTS` is 1. Tumble's CMake build defines it for every target: 1 in
/// Debug configurations, with TUMBLE_SANITIZE, with TUMBLE_BUILD_FUZZERS and with the option TUMBLE_ASSERTS, else 0.
/// Code built outside it that does not define the macro gets 1 unless NDEBUG is defined, as with `assert`.
/// When assertions are off the condition is not evaluated (it stays compiled in an unevaluated operand, so a typo
/// still fails to compile and variables used only there are not "unused"); a condition must therefore never have a
/// side effect the program relies on.

#ifndef TUMBLE_ENABLE_ASSERTS
#ifdef NDEBUG
#define TUMBLE_ENABLE_ASSERTS 0
#else
#define TUMBLE_ENABLE_ASSERTS 1
#endif
#endif

namespace tumble {

/// True when TUMBLE_ASSERT checks its condition in the code that includes this header (for tests, and for loops
/// that only feed assertions: `if constexpr (kAssertsEnabled) { ... }`).
inline constexpr bool kAssertsEnabled = TUMBLE_ENABLE_ASSERTS != 0;

namespace detail {
/// Prints "<file>:<line>: TUMBLE_ASSERT(<expression>) failed" to stderr and calls std::abort. Called by
/// TUMBLE_ASSERT only.
[[noreturn]] void assert_failed(const char* expression, const char* file, int line) noexcept;
}  // namespace detail

}  // namespace tumble

#if TUMBLE_ENABLE_ASSERTS
/// Aborts with the file, the line and the condition's text when the condition is false (see the file comment).
#define TUMBLE_ASSERT(...)                                      \
    (static_cast<bool>(__VA_ARGS__) ? static_cast<void>(0)      \
                                    : ::tumble::detail::assert_failed(#__VA_ARGS__, __FILE__, __LINE__))
#else
/// Checks nothing: the condition is an unevaluated operand (see the file comment).
#define TUMBLE_ASSERT(...) static_cast<void>(sizeof(static_cast<bool>(__VA_ARGS__)))
#endif
