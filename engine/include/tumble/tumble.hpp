#pragma once
/// @file
/// Umbrella header: everything a program embedding Tumble needs.
///
/// Modules (each also a CMake target, all together tumble::tumble):
/// - core:        Error, InvalidArgument, FileError; checks of user values (check_finite, require_ok); Parallel,
///                ThreadPool, parallel_sort; SlotId (the scheme of BodyId and MeshId); TUMBLE_ASSERT (assert.hpp, not
///                included here);
/// - narrowphase: shapes (Aabb, Obb, Triangle, Contact), separating-axis tests (overlap, collide), contact
///                manifolds (collide_manifold), swept tests (sweep), active edges (compute_active_edges, the
///                feature tests) and the contact policies (mesh_contact, box_contact);
/// - fit:         fit_obb (header tumble/narrowphase/fit.hpp; the only part that links Eigen and Qhull);
/// - broadphase:  LooseOctree for moving boxes, MeshIndex (BVH) for static triangles;
/// - solver:      PositionSolver, SolverSettings, box_inertia;
/// - engine:      World, BodyDef, TriangleMesh, load_obj; scene files (load_scene, add_scene).

// In module order (clang-format would sort them by name).
// clang-format off
#include <tumble/core/error.hpp>
#include <tumble/core/checks.hpp>
#include <tumble/core/parallel.hpp>
#include <tumble/core/parallel_sort.hpp>
#include <tumble/core/thread_pool.hpp>
#include <tumble/core/slot_id.hpp>
#include <tumble/narrowphase/shapes.hpp>
#include <tumble/narrowphase/sat.hpp>
#include <tumble/narrowphase/sweep.hpp>
#include <tumble/narrowphase/manifold.hpp>
#include <tumble/narrowphase/validate.hpp>
#include <tumble/narrowphase/fit.hpp>
#include <tumble/narrowphase/active_edges.hpp>
#include <tumble/narrowphase/contact_policy.hpp>
#include <tumble/narrowphase/mesh_adjacency.hpp>
#include <tumble/broadphase/loose_octree.hpp>
#include <tumble/broadphase/mesh_index.hpp>
#include <tumble/solver/position_solver.hpp>
#include <tumble/engine/mesh.hpp>
#include <tumble/engine/world.hpp>
#include <tumble/engine/scene.hpp>
// clang-format on
