#pragma once
/// @file
/// Umbrella header: everything a program embedding Tumble needs.
///
/// Modules (each also a CMake target, all together tumble::tumble):
/// - narrowphase: shapes (Aabb, Obb, Triangle, Contact), separating-axis tests (overlap, collide) and contact
///                manifolds (collide_manifold);
/// - broadphase:  LooseOctree for moving boxes, MeshIndex (BVH) for static triangles;
/// - solver:      PositionSolver, SolverSettings, mesh_contact;
/// - engine:      World, BodyDef, TriangleMesh, load_obj.

#include <tumble/error.hpp>
#include <tumble/narrowphase/shapes.hpp>
#include <tumble/narrowphase/sat.hpp>
#include <tumble/narrowphase/manifold.hpp>
#include <tumble/narrowphase/validate.hpp>
#include <tumble/broadphase/loose_octree.hpp>
#include <tumble/broadphase/mesh_index.hpp>
#include <tumble/solver/position_solver.hpp>
#include <tumble/engine/mesh.hpp>
#include <tumble/engine/world.hpp>
