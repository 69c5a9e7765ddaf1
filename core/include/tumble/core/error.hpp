#pragma once
/// @file
/// Exceptions thrown by Tumble at its API boundary (module tumble::core; `<tumble/error.hpp>` forwards here).
///
/// Policy (docs/architecture.md, "Errors"): every function that takes user data (bodies, meshes, files, settings)
/// validates it before it changes anything. When the data is bad it throws one of these with a message that names
/// the argument, the element (body, triangle index, file and line) and what was expected; the object it was called
/// on is left exactly as it was. Functions named `validate` on values (shapes, meshes, octrees) return the problem as
/// a string instead of throwing. The narrowphase functions on plain shapes do not throw: they document what bad input
/// gives instead. Broken internal invariants are not reported through exceptions: TUMBLE_ASSERT
/// (`<tumble/core/assert.hpp>`) stops the program in the builds that check them.

#include <stdexcept>
#include <string>

namespace tumble {

/// Base of every exception Tumble throws. `what()` is a complete sentence meant for a log or a test failure.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A value passed to a Tumble function is outside its documented domain: NaN or infinity, a negative extent, a
/// rotation that is not orthonormal, a degenerate triangle, an index out of range, a stale id.
class InvalidArgument : public Error {
public:
    using Error::Error;
};

/// A file could not be opened, or its contents are malformed. The message names the path and, where known,
/// the line.
class FileError : public Error {
public:
    using Error::Error;
};

}  // namespace tumble
