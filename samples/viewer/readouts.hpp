#pragma once
/// @file
/// The numbers the viewer's panels show, as label/value rows built from the world alone (no graphics), so the
/// panels stay thin and the tests can read the same rows.

#include <string>
#include <vector>

#include <tumble/tumble.hpp>

namespace tumble::viewer {

/// One line of a panel: a label and its formatted value.
struct Readout {
    std::string label;
    std::string value;
};

/// The stats panel's rows from the engine: live bodies, and what World::stats() (StepStats) reports for the last
/// step (awake and sleeping bodies, contacts, candidate pairs, CCD sweeps), plus the contacts kept for sleeping
/// bodies. The viewer measures the wall time of World::step itself; per-stage times join these rows when
/// StepStats reports them.
std::vector<Readout> step_stats_readouts(const World& world);

/// The selected-body panel's rows: id, kind and state, position, velocity and speed, orientation (quaternion w, x,
/// y, z) and the angle of its rotation in degrees, half extents, mass, CCD, layer and mask ("all" for every
/// layer), and the number of contacts it has. Throws InvalidArgument for an invalid id.
std::vector<Readout> body_readouts(const World& world, BodyId id);

/// "dynamic", "dynamic, sleeping", "static", "kinematic" or "sensor" (with its kind).
std::string body_kind(const BodyState& state);

}  // namespace tumble::viewer
