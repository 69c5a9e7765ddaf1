#pragma once
/// @file
/// Forwarding header kept so that existing code compiles: `Error`, `InvalidArgument` and `FileError` now live in
/// `<tumble/core/error.hpp>` (module tumble::core), still in namespace tumble. New code includes that header.

#include <tumble/core/error.hpp>
