#pragma once
/// @file
/// Forwarding header, kept because public include paths are a contract: `compute_active_edges` and
/// `ActiveEdgeStats` (edge adjacency of a static triangle mesh and its active-edge flags) are mesh preprocessing for
/// the narrowphase's contact policies and live in tumble/narrowphase/mesh_adjacency.hpp (library
/// tumble::narrowphase, which tumble::broadphase links). New code should include that header.

#include <tumble/narrowphase/mesh_adjacency.hpp>
