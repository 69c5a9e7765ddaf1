#pragma once
/// @file
/// Forwarding header kept so that existing code compiles: `Parallel`, `Serial`, `serial()`, `FunctionRef` and
/// `chunk_count` now live in `<tumble/core/parallel.hpp>` (module tumble::core), still in namespace tumble. New code
/// includes that header.

#include <tumble/core/parallel.hpp>
