#pragma once
/// @file
/// Oriented bounding boxes fitted to point clouds (`fit_obb`).
///
/// Every method chooses an orientation (three orthonormal axes); the box is then the tightest one with those axes:
/// each half extent is half the spread of the points' projections on its axis, and the centre is the middle of
/// those spreads. What differs between methods is only how the axes are chosen:
///
/// - `FitMethod::covariance`: the eigenvectors of the covariance matrix of the points (Gottschalk, Lin and Manocha
///   1996, below; Ericson, Real-Time Collision Detection, 2005, section 4.4.3; also Cocos2d-x's
///   `OBB(const Vec3* verts, int num)`), computed with Eigen's `SelfAdjointEigenSolver` instead of hand-written
///   Jacobi rotations. Every input point counts once, so the axes follow where the points are dense,
///   not the shape's outline: duplicated or clustered vertices pull the box off (the test
///   FitObb.CovarianceMethodsRecoverABoxAndOnlyTheHullIgnoresInteriorPoints shows it).
/// - `FitMethod::hull_covariance`: the eigenvectors of the covariance of the convex hull's *surface*, each hull
///   triangle weighted by its area (Gottschalk, Lin and Manocha, "OBBTree: A Hierarchical Structure for Rapid
///   Interference Detection", SIGGRAPH 1996, section 4.1). Interior points and the density of the sampling no
///   longer matter. The hull comes from Qhull (Barber, Dobkin and Huhdanpaa, "The Quickhull Algorithm for Convex
///   Hulls", ACM TOMS 1996; the reentrant library `libqhull_r`).
/// - `FitMethod::dito`: the Ditetrahedron OBB algorithm, DiTO-14 (Larsson and Kallberg, "Fast Computation of
///   Tight-Fitting Oriented Bounding Boxes", Game Engine Gems 2, 2011): extremal points along 7 fixed directions
///   (the 3 coordinate axes and the 4 cube diagonals), a large triangle through them and the two tetrahedra it
///   spans with the farthest extremal points above and below it; the edges and normals of those 7 triangles give
///   21 candidate orientations, which are scored together with the axis-aligned box by the surface area of the box
///   around the 14 extremal points; the best orientation is used for all points. Linear time, no hull. As
///   published; it is not always tighter than the covariance methods (3DSMaxExport.STL in the table).
/// - `FitMethod::dito_refined` (the default): DiTO-14, then a local descent that is exact along each step: holding
///   one box axis, the best rotation about it is the minimum-area rectangle around the points projected on the
///   plane of the other two, which has a side along an edge of their 2D convex hull (Freeman and Shapira,
///   "Determining the minimum-area encasing rectangle for an arbitrary closed curve", CACM 1975) and is found with
///   rotating calipers (Toussaint, "Solving geometric problems with the rotating calipers", MELECON 1983). The three
///   axes are tried in turn, and a rotation is kept only when it lowers the volume, until a round of three gains
///   less than 1e-4 of the volume (at most 16 rounds). O(n log n) per step for the 2D hulls (a few milliseconds for
///   10,000 points). Never looser than `dito`; a local optimum, not the global one (within 3% of the search
///   minimum on the real meshes).
///
/// Measured volumes on real meshes, relative to an exhaustive search: `docs/narrowphase.md`, "OBB fitting".
///
/// The axes of the result are orthonormal and right-handed, the first axis along the direction the method ranks
/// first (largest eigenvalue for the covariance methods). Degenerate clouds give a valid flat box with every method:
/// all points identical give a point box (the point as centre, identity axes, zero half extents); collinear points a
/// segment (first axis along the line); coplanar points a rectangle (one axis along the plane normal; with
/// `dito_refined` the rectangle of least area). A cloud counts as flat or linear when its thickness is below 1e-6
/// of its largest spread; `hull_covariance` then uses the area-weighted covariance of the cloud's 2D hull polygon
/// in its best-fit plane instead of Qhull, and also falls back to that when Qhull fails.
///
/// Containment: `box.contains(p)` (ObbT::contains, evaluated in the scalar type T) is true for every input point
/// p. The half extents are measured with exactly that computation and then padded by 4 epsilon of T times the
/// largest distance of a point from the centre, so that containment also holds when the same test is evaluated in
/// another order or with fused multiply-adds (user code built with -ffp-contract=fast). An extent is left unpadded
/// only when every product in every projection on that axis is exactly zero (e.g. points exactly on a coordinate
/// plane, with an axis along a coordinate axis): such extents stay exactly zero.

#include <span>
#include <string_view>

#include <glm/glm.hpp>

#include <tumble/narrowphase/shapes.hpp>

namespace tumble {

/// How `fit_obb` chooses the box axes (see the file comment for sources and behaviour).
enum class FitMethod {
    covariance,       ///< eigenvectors of the covariance of the points (Gottschalk 1996; Ericson 2005, 4.4.3)
    hull_covariance,  ///< eigenvectors of the area-weighted covariance of the convex hull's surface (Gottschalk 1996)
    dito,             ///< DiTO-14 (Larsson and Kallberg 2011) as published: linear time
    dito_refined,     ///< DiTO-14 followed by exact minimum-area-rectangle rotations about the box axes: the tightest
};

/// The method's name as written in the enum ("covariance", "hull_covariance", "dito", "dito_refined"), for logs and
/// tables; "unknown" for a value that is not an enumerator.
std::string_view to_string(FitMethod method);

/// Fits an oriented bounding box to a point cloud.
///
/// - `points`: world-frame positions in metres (any frame works: the box comes out in the frame of the points).
///   Duplicates are allowed. Not modified.
/// - `method`: how the axes are chosen.
/// Returns a box in the same frame: `axes` orthonormal right-handed columns, `half_extents` >= 0 in metres,
/// containing every point (see the containment note above). Computation is in double for both overloads.
///
/// Throws `InvalidArgument` when `points` is empty, when a coordinate is NaN or infinite (the message names the
/// first such point by index and value), or when `method` is not one of the enumerators. Qhull failing on a
/// nearly flat cloud is not an error: `hull_covariance` then uses the 2D hull of the points in their best-fit
/// plane.
Obb fit_obb(std::span<const glm::vec3> points, FitMethod method = FitMethod::dito_refined);

/// Double-precision overload: same methods and contract, for large worlds and offline tools.
ObbD fit_obb(std::span<const glm::dvec3> points, FitMethod method = FitMethod::dito_refined);

}  // namespace tumble
