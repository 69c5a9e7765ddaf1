#pragma once
/// @file
/// Loose octree broadphase for moving boxes (Ulrich, "Loose Octrees", Game Programming Gems 1, section 4.11, 2000).
///
/// Every level d halves the cell size: s_d = W / 2^d for a root cube of side W. With looseness 2 a cell's loose
/// bound is the cell grown by s_d / 2 on every side, so any AABB whose largest side is at most s_d and whose centre
/// lies in the cell fits in that cell's loose bound. A proxy's depth is therefore read off its size in O(1)
/// (d = floor(log2(W / size) - depth_bias), clamped to 0..max depth) and its cell off its centre; no descent is
/// needed. `depth_bias` (default 0.5, any value in 0..3) stores proxies that many levels shallower than the deepest
/// that fits: with 0.5 a proxy's cell is 1.4-2.8 times its size (1-2 times with 0, 2-4 times with 1), so cells hold
/// several proxies each and a pair search visits fewer neighbour cells per proxy, at the cost of a few more AABB
/// tests (bench/broadphase_bench.cpp takes the bias as an argument; docs/benchmarks.md times the default).
///
/// Cells live in a flat open-addressing hash table keyed by (depth, x, y, z): only occupied cells exist, and each
/// keeps its proxies' ids in a contiguous array (no node per proxy, nothing pointing from cell to cell). A proxy's
/// AABB is stored once, in its proxy record, so that an update that stays in its cell writes one record and nothing
/// else. A loose cell's objects reach at most H_d (the largest half size stored at that depth, at most s_d / 2)
/// beyond the cell, so an object can overlap objects of the neighbouring cells, not only of its ancestors.
///
/// Pair search works on a snapshot taken at its start: the occupied cells sorted by key (depth, then x, y, z
/// lexicographically) with their proxies' ids and AABBs copied next to each other in that order. Each cell is
/// visited once and its proxies are tested against its own, against the neighbouring cells of the same depth that
/// come after it in key order (each pair of cells once) and against the cells of shallower occupied levels that its
/// proxies can reach. The neighbours of a row (fixed depth, x and y; a run of z) are contiguous in the snapshot and are
/// found by galloping search from where the previous cell's search for the same row ended, so the search walks the
/// snapshot nearly in order instead of probing the hash table at random: its cost per box stays flat as the octree
/// outgrows the caches (measured in docs/benchmarks.md). The root grows (doubling, all proxies re-inserted) when a
/// proxy falls outside.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <tumble/narrowphase/shapes.hpp>
#include <tumble/core/parallel.hpp>

namespace tumble {

/// Handle of a proxy in a `LooseOctree`. Stable until the proxy is removed; ids of removed proxies are reused.
using ProxyId = std::uint32_t;
inline constexpr ProxyId kNullProxy = 0xffffffffu;

/// An occupied cell, for debug drawing and statistics.
struct OctreeCell {
    int depth = 0;                ///< 0 = root
    Aabb bound;                   ///< the cell itself (side W / 2^depth), world frame
    Aabb loose_bound;             ///< the cell grown by half its side on every side: where its proxies may reach
    std::uint32_t proxies = 0;    ///< number of proxies stored in it
};

/// An overlapping pair of proxies, `a < b`.
struct ProxyPair {
    ProxyId a;
    ProxyId b;
    friend bool operator==(const ProxyPair&, const ProxyPair&) = default;
    friend auto operator<=>(const ProxyPair&, const ProxyPair&) = default;
};

/// Loose octree over world-frame AABBs (metres). Not thread-safe for writes; const member functions may run
/// concurrently with each other.
class LooseOctree {
public:
    /// Deepest level allowed (cell side W / 2^15). Key packing limits it to 15.
    static constexpr int kMaxDepthLimit = 15;

    /// `bound`: the initial root; it is made a cube around its centre (side = its largest extent) and grows by
    /// doubling when a proxy does not fit. `max_depth`: deepest level used, 0..kMaxDepthLimit. `depth_bias`: levels
    /// above the deepest that fits at which a proxy is stored, 0..3 (see the file comment).
    /// Throws `InvalidArgument` for a non-finite or empty bound, or max_depth or depth_bias out of range.
    explicit LooseOctree(const Aabb& bound = {{-64.0f, -64.0f, -64.0f}, {64.0f, 64.0f, 64.0f}}, int max_depth = 12,
                         float depth_bias = 0.5f);

    /// Adds a proxy with world AABB `box` and an opaque `user_data`. Throws `InvalidArgument` (octree unchanged) when
    /// the box is not finite, has min > max, or is so large or so far out (coordinates near FLT_MAX = 3.4e38 m) that
    /// the root cube, grown by doubling to hold it, would overflow a float.
    ProxyId insert(const Aabb& box, std::uint64_t user_data);
    /// Moves a proxy to a new AABB. O(1) when it stays in its cell. Throws `InvalidArgument` for a bad box (as for
    /// insert) or an unknown id (octree unchanged).
    void update(ProxyId id, const Aabb& box);
    /// Moves proxies `ids[i]` to `boxes[i]` (world-frame AABBs, metres; the two spans of equal length), with the
    /// same result as calling update(ids[i], boxes[i]) for i = 0, 1, ... in turn. The checks and the cells' keys are
    /// worked out on `parallel`, and the proxies that change cell (few, in a steady scene) are moved on this thread
    /// in i order; when a box lies outside the root, the whole batch runs one by one. Throws `InvalidArgument` for
    /// spans of different lengths, or for the first in i order of an unknown id, a bad box (as for insert) or an id
    /// listed twice, with the octree unchanged. Not const: keeps the keys of the largest batch seen (8 bytes per
    /// proxy of the batch) and a mark per proxy slot (1 byte).
    void update(std::span<const ProxyId> ids, std::span<const Aabb> boxes, Parallel& parallel);
    /// Removes a proxy; its id may be reused. Throws `InvalidArgument` for an unknown id.
    void remove(ProxyId id);

    bool contains(ProxyId id) const { return id < proxies_.size() && proxies_[id].cell != kFreeSlot; }
    const Aabb& aabb(ProxyId id) const { return proxies_[id].box; }
    std::uint64_t user_data(ProxyId id) const { return proxies_[id].user_data; }
    /// Number of live proxies.
    std::size_t size() const { return live_; }
    /// The current root cube.
    Aabb bound() const { return {root_min_, root_min_ + glm::vec3(root_size_)}; }
    /// Depth at which the proxy is stored (0 = root).
    int depth_of(ProxyId id) const { return static_cast<int>(proxies_[id].key >> 60); }
    /// Number of occupied cells.
    std::size_t cell_count() const { return table_.size(); }

    /// Appends every pair of live proxies whose AABBs overlap (touching counts), each pair once with a < b, to
    /// `out` (which is not cleared). The order is unspecified: sort if you need one. Builds its snapshot (about
    /// 40 bytes per proxy) in memory of its own on every call; the overload below keeps it.
    void find_pairs(std::vector<ProxyPair>& out) const;
    /// The same pairs, found on `parallel` (cells in chunks, appended in chunk order: the same list for any number
    /// of threads). Not const: it keeps the snapshot and per-chunk scratch so that a long-lived octree does not
    /// allocate once warm.
    void find_pairs(std::vector<ProxyPair>& out, Parallel& parallel);

    /// Appends the ids of the live proxies whose AABBs overlap `box` to `out` (not cleared), in unspecified order.
    void query(const Aabb& box, std::vector<ProxyId>& out) const;

    /// Ray query: calls `visit(ProxyId id, float t_enter) -> float` for every live proxy whose AABB the segment
    /// `origin + t * direction`, t in [0, max_t], touches, with the parameter t at which the segment enters that AABB
    /// (0 when the origin is inside). `direction` need not be unit (t is in units of |direction|). `visit` returns
    /// the new max_t: returning its second argument's bound unchanged keeps walking, a smaller value stops the walk
    /// beyond it (a closest-hit query returns the distance of its best hit so far). Each proxy is visited at most
    /// once, in no specified order (roughly increasing t within each level).
    ///
    /// Walk: for every level that holds proxies, the segment is cut into pieces no longer than one cell along any
    /// axis; each piece probes the cells whose loose bounds its AABB reaches and that the previous piece did not
    /// probe, after a slab test of the ray against the cell's loose bound (Ulrich 2000 for the loose bounds; Amanatides
    /// and Woo, "A Fast Voxel Traversal Algorithm", 1987, for marching a grid in ray order). A level whose occupied
    /// cells are fewer than the probes the segment would need is scanned cell by cell instead. Non-finite input, a
    /// zero direction or a negative max_t visits nothing.
    template <class F>
    void raycast(const glm::vec3& origin, const glm::vec3& direction, float max_t, F&& visit) const {
        using Visit = std::remove_reference_t<F>;
        walk_ray(origin, direction, max_t, const_cast<void*>(static_cast<const void*>(&visit)),
                 [](void* context, ProxyId id, float t) -> float { return (*static_cast<Visit*>(context))(id, t); });
    }

    /// Appends every occupied cell to `out` (not cleared), in storage order.
    void cells(std::vector<OctreeCell>& out) const;

    /// Checks the invariants: every proxy is in the cell its size and centre select, its AABB lies in that cell's
    /// loose bound, cell arrays and proxy back-references agree, level counts and the hash table are consistent.
    /// Returns an empty string when all hold, else a description of the first violation.
    std::string validate() const;

private:
    static constexpr std::uint32_t kFreeSlot = 0xffffffffu;

    struct Proxy {
        Aabb box;
        std::uint64_t user_data = 0;
        std::uint64_t key = 0;          // packed (depth, x, y, z) of its cell
        std::uint32_t cell = kFreeSlot; // index into cells_, or kFreeSlot when the id is free
        std::uint32_t slot = 0;         // index in the cell's proxy array
    };
    // The ids of a cell's proxies: up to two in place, more on the heap. Most occupied cells hold one or two proxies,
    // and a std::vector would allocate a heap block for each (24 bytes at least). Order and slots behave as a vector's.
    class ProxyList {
    public:
        ProxyList() = default;
        ProxyList(const ProxyList& other) { *this = other; }
        ProxyList(ProxyList&& other) noexcept { *this = std::move(other); }
        ProxyList& operator=(const ProxyList& other);
        ProxyList& operator=(ProxyList&& other) noexcept;
        ~ProxyList() = default;
        std::size_t size() const { return size_; }
        bool empty() const { return size_ == 0; }
        void clear() { size_ = 0; }
        void push_back(ProxyId id);
        void pop_back() { --size_; }
        ProxyId& operator[](std::size_t i) { return data()[i]; }
        const ProxyId& operator[](std::size_t i) const { return data()[i]; }
        ProxyId& back() { return data()[size_ - 1]; }
        const ProxyId* begin() const { return data(); }
        const ProxyId* end() const { return data() + size_; }

    private:
        static constexpr std::uint32_t kInline = 2;
        ProxyId* data() { return capacity_ == 0 ? inline_ : heap_.get(); }
        const ProxyId* data() const { return capacity_ == 0 ? inline_ : heap_.get(); }
        std::unique_ptr<ProxyId[]> heap_;  // capacity_ ids when capacity_ > 0
        std::uint32_t size_ = 0;
        std::uint32_t capacity_ = 0;  // 0: the ids are in inline_
        ProxyId inline_[kInline] = {};
    };
    struct Cell {
        std::uint64_t key = 0;
        ProxyList proxies;             // ids of the proxies in this cell
        std::uint32_t level_slot = 0;  // index in level_cells_[depth]
    };

    // Open-addressing hash table (linear probing, backward-shift deletion) from cell key to cell index.
    class CellTable {
    public:
        std::uint32_t find(std::uint64_t key) const;
        void insert(std::uint64_t key, std::uint32_t value);
        void erase(std::uint64_t key);
        void clear();
        std::size_t size() const { return size_; }

    private:
        static constexpr std::uint64_t kEmpty = ~std::uint64_t(0);
        void grow();
        std::vector<std::uint64_t> keys_;
        std::vector<std::uint32_t> values_;
        std::size_t size_ = 0;
    };

    std::uint64_t key_for(const Aabb& box) const;
    bool fits_root(const Aabb& box) const;
    void grow_to_fit(const Aabb& box);
    void link(ProxyId id);    // puts the proxy in the cell of its key
    void unlink(ProxyId id);  // takes it out of its cell
    float cell_size(int depth) const { return root_size_ / static_cast<float>(1u << depth); }
    // Pair search snapshot: occupied cells sorted by key, their objects copied in that order (see the file comment).
    struct PairSearch {
        std::vector<std::pair<std::uint64_t, std::uint32_t>> order;  // (key, cell index), sorted
        std::vector<std::uint64_t> keys;   // sorted cell keys
        std::vector<std::uint32_t> first;  // cell i's objects are [first[i], first[i + 1]) of ids and boxes
        std::vector<Aabb> reach;           // union of each cell's AABBs
        std::vector<ProxyId> ids;
        std::vector<Aabb> boxes;
        std::size_t level_begin[kMaxDepthLimit + 2] = {};  // level d's cells are [level_begin[d], level_begin[d + 1])
        std::vector<std::vector<ProxyPair>> chunk_pairs;  // pairs found per chunk of cells
    };
    void search_pairs(PairSearch& search, Parallel& parallel, std::vector<ProxyPair>& out) const;
    // Appends the pairs found from snapshot cell `i`; `hints` (kHintSlots per level) remembers where row searches ended.
    void snapshot_cell_pairs(const PairSearch& search, std::size_t i, std::size_t* hints,
                             std::vector<ProxyPair>& out) const;
    // Calls f(cell) for every occupied cell at `depth` whose objects can overlap `box`.
    template <class F>
    void for_each_cell_in_range(int depth, const Aabb& box, F&& f) const;
    void walk_ray(const glm::vec3& origin, const glm::vec3& direction, float max_t, void* context,
                  float (*visit)(void*, ProxyId, float)) const;

    glm::vec3 root_min_{0.0f};
    float root_size_ = 1.0f;
    int max_depth_ = 12;
    float depth_scale_ = 1.0f;  // 2^depth_bias
    std::vector<Proxy> proxies_;
    std::vector<ProxyId> free_proxies_;
    std::vector<Cell> cells_;
    std::vector<std::uint32_t> free_cells_;
    CellTable table_;
    std::uint32_t level_count_[kMaxDepthLimit + 1] = {};             // proxies per level
    std::vector<std::uint32_t> level_cells_[kMaxDepthLimit + 1];     // occupied cells per level
    float level_half_[kMaxDepthLimit + 1] = {};                      // largest half size stored per level
    PairSearch search_;  // find_pairs(out, parallel) scratch, kept so that a long-lived octree does not allocate
    std::vector<std::uint64_t> batch_keys_;  // update(ids, boxes, parallel): each proxy's new key, or a mark
    std::vector<float> batch_half_;          // ... and each chunk's largest half size per level
    std::vector<std::uint8_t> batch_seen_;   // ... and, per proxy slot, whether the batch lists it (0 between calls)
    std::size_t live_ = 0;
};

}  // namespace tumble
