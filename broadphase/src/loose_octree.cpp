#include <tumble/broadphase/loose_octree.hpp>
#include <tumble/core/growth.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <tumble/core/assert.hpp>
#include <tumble/core/error.hpp>
#include <tumble/narrowphase/validate.hpp>

namespace tumble {
namespace {

constexpr int kCoordBits = 20;
constexpr std::uint64_t kCoordMask = (std::uint64_t(1) << kCoordBits) - 1;

std::uint64_t pack(int depth, std::uint32_t x, std::uint32_t y, std::uint32_t z) {
    return (std::uint64_t(depth) << 60) | (std::uint64_t(x) << 40) | (std::uint64_t(y) << 20) | std::uint64_t(z);
}
int key_depth(std::uint64_t key) { return static_cast<int>(key >> 60); }
std::uint32_t key_coord(std::uint64_t key, int axis) {
    return static_cast<std::uint32_t>((key >> (40 - 20 * axis)) & kCoordMask);
}

std::uint64_t mix(std::uint64_t k) {  // splitmix64 finaliser
    k ^= k >> 30;
    k *= 0xbf58476d1ce4e5b9ull;
    k ^= k >> 27;
    k *= 0x94d049bb133111ebull;
    k ^= k >> 31;
    return k;
}

float largest_side(const Aabb& box) {
    const glm::vec3 s = box.max - box.min;
    return std::max({s.x, s.y, s.z});
}

// Cell ranges are widened by this fraction of a cell so that float rounding in the depth and cell choice can never
// drop a pair: a wider range only costs a few extra AABB tests.
constexpr float kRangeSlack = 1e-3f;

constexpr double kNoHit = std::numeric_limits<double>::infinity();

// The cells from = ceil(lo) to = floor(hi) of a range of cell coordinates, limited to [0, last] (from > to when the
// range misses the grid). lo and hi are clamped to [-1, last + 1] while still floating point: a box far outside the
// root gives coordinates beyond what an int64 holds, and converting those is undefined behaviour (found by UBSan
// through World::sweep_box, a query box 1e31 cells away). A NaN counts as the whole range.
template <class T>
void cell_span(T lo, T hi, std::int64_t last, std::int64_t& from, std::int64_t& to) {
    const T below = T(-1), above = T(last) + T(1);
    lo = lo > below ? (lo < above ? lo : above) : below;
    hi = hi < above ? (hi > below ? hi : below) : above;
    from = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::ceil(lo)));
    to = std::min<std::int64_t>(last, static_cast<std::int64_t>(std::floor(hi)));
}

// Parameter at which the segment o + t d, t in [lo, hi], enters the closed box (lo when it starts inside), or
// kNoHit. `inv` holds 1 / d per axis; axes with d = 0 are decided by the origin alone.
double segment_enter(const glm::dvec3& bmin, const glm::dvec3& bmax, const glm::dvec3& o, const glm::dvec3& d,
                     const glm::dvec3& inv, double lo, double hi) {
    for (int k = 0; k < 3; ++k) {
        if (d[k] == 0.0) {
            if (o[k] < bmin[k] || o[k] > bmax[k]) return kNoHit;
            continue;
        }
        double t0 = (bmin[k] - o[k]) * inv[k], t1 = (bmax[k] - o[k]) * inv[k];
        if (t0 > t1) std::swap(t0, t1);
        lo = std::max(lo, t0);
        hi = std::min(hi, t1);
        if (lo > hi) return kNoHit;
    }
    return lo;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// CellTable

std::uint32_t LooseOctree::CellTable::find(std::uint64_t key) const {
    if (keys_.empty()) return kFreeSlot;
    const std::size_t mask = keys_.size() - 1;
    for (std::size_t i = mix(key) & mask;; i = (i + 1) & mask) {
        if (keys_[i] == key) return values_[i];
        if (keys_[i] == kEmpty) return kFreeSlot;
    }
}

void LooseOctree::CellTable::insert(std::uint64_t key, std::uint32_t value) {
    if ((size_ + 1) * 4 > keys_.size() * 3) grow();  // load factor at most 3/4
    const std::size_t mask = keys_.size() - 1;
    std::size_t i = mix(key) & mask;
    while (keys_[i] != kEmpty && keys_[i] != key) i = (i + 1) & mask;
    if (keys_[i] == kEmpty) ++size_;
    keys_[i] = key;
    values_[i] = value;
}

void LooseOctree::CellTable::erase(std::uint64_t key) {
    if (keys_.empty()) return;
    const std::size_t mask = keys_.size() - 1;
    std::size_t i = mix(key) & mask;
    while (keys_[i] != key) {
        if (keys_[i] == kEmpty) return;
        i = (i + 1) & mask;
    }
    // Backward-shift deletion: pull later entries of the probe run into the hole when their home slot allows it.
    std::size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (keys_[j] == kEmpty) break;
        const std::size_t home = mix(keys_[j]) & mask;
        const bool home_in_gap = (i <= j) ? (home > i && home <= j) : (home > i || home <= j);
        if (!home_in_gap) {
            keys_[i] = keys_[j];
            values_[i] = values_[j];
            i = j;
        }
    }
    keys_[i] = kEmpty;
    --size_;
}

void LooseOctree::CellTable::clear() {
    std::fill(keys_.begin(), keys_.end(), kEmpty);
    size_ = 0;
}

void LooseOctree::CellTable::grow() {
    std::vector<std::uint64_t> old_keys = std::move(keys_);
    std::vector<std::uint32_t> old_values = std::move(values_);
    const std::size_t capacity = std::max<std::size_t>(64, old_keys.size() * 2);
    keys_.assign(capacity, kEmpty);
    values_.assign(capacity, 0);
    size_ = 0;
    for (std::size_t i = 0; i < old_keys.size(); ++i)
        if (old_keys[i] != kEmpty) insert(old_keys[i], old_values[i]);
}

// ---------------------------------------------------------------------------------------------------------------
// LooseOctree::ProxyList

LooseOctree::ProxyList& LooseOctree::ProxyList::operator=(const ProxyList& other) {
    if (this == &other) return *this;
    if (other.size_ > kInline && other.size_ > capacity_) {
        heap_ = std::make_unique<ProxyId[]>(other.size_);
        capacity_ = other.size_;
    }
    size_ = other.size_;
    std::copy(other.begin(), other.end(), data());
    return *this;
}

LooseOctree::ProxyList& LooseOctree::ProxyList::operator=(ProxyList&& other) noexcept {
    if (this == &other) return *this;
    heap_ = std::move(other.heap_);
    size_ = other.size_;
    capacity_ = other.capacity_;
    std::copy(std::begin(other.inline_), std::end(other.inline_), std::begin(inline_));
    other.size_ = 0;
    other.capacity_ = 0;
    return *this;
}

void LooseOctree::ProxyList::push_back(ProxyId id) {
    if (capacity_ == 0 && size_ < kInline) {
        inline_[size_++] = id;
        return;
    }
    if (size_ == capacity_ || capacity_ == 0) {
        const std::uint32_t grown = std::max<std::uint32_t>(2 * kInline, 2 * capacity_);
        std::unique_ptr<ProxyId[]> bigger = std::make_unique<ProxyId[]>(grown);
        std::copy(begin(), end(), bigger.get());
        heap_ = std::move(bigger);
        capacity_ = grown;
    }
    heap_[size_++] = id;
}

// ---------------------------------------------------------------------------------------------------------------
// LooseOctree

LooseOctree::LooseOctree(const Aabb& bound, int max_depth, float depth_bias) {
    require_valid(bound, "LooseOctree: bound");
    if (max_depth < 0 || max_depth > kMaxDepthLimit)
        throw InvalidArgument("LooseOctree: max_depth is " + std::to_string(max_depth) + " (must be 0.." +
                              std::to_string(kMaxDepthLimit) + ")");
    if (!(depth_bias >= 0.0f && depth_bias <= 3.0f))
        throw InvalidArgument("LooseOctree: depth_bias is " + std::to_string(depth_bias) + " (must be 0..3)");
    depth_scale_ = std::exp2(depth_bias);
    const float side = largest_side(bound);
    if (!(side > 0.0f)) throw InvalidArgument("LooseOctree: bound has zero size");
    root_size_ = side;
    root_min_ = bound.center() - glm::vec3(0.5f * side);
    max_depth_ = max_depth;
}

std::uint64_t LooseOctree::key_for(const Aabb& box) const {
    const float size = largest_side(box);
    int depth = max_depth_;
    if (size > 0.0f) {
        depth = std::min(max_depth_, std::ilogb(root_size_ / (size * depth_scale_)));
        while (depth > 0 && size > cell_size(depth)) --depth;  // guard against the division rounding up
        depth = std::max(depth, 0);
    }
    const float s = cell_size(depth);
    const std::uint32_t last = (1u << depth) - 1u;
    const glm::vec3 c = (box.center() - root_min_) / s;
    std::uint32_t coord[3];
    for (int k = 0; k < 3; ++k) {
        const float f = std::floor(c[k]);
        coord[k] = f <= 0.0f ? 0u : std::min(last, static_cast<std::uint32_t>(f));
    }
    return pack(depth, coord[0], coord[1], coord[2]);
}

namespace {

bool fits(const glm::vec3& root_min, float root_size, const Aabb& box) {
    const glm::vec3 c = box.center();
    const glm::vec3 hi = root_min + glm::vec3(root_size);
    return largest_side(box) <= root_size && c.x >= root_min.x && c.y >= root_min.y && c.z >= root_min.z &&
           c.x < hi.x && c.y < hi.y && c.z < hi.z;
}

// Throws unless doubling the root as grow_to_fit does reaches a root that holds `box` while the root stays finite.
// Without this a box far out (|x| near FLT_MAX, or a side that overflows) made the root's size overflow to infinity,
// its far corner NaN, and grow_to_fit loop forever.
void require_reachable(glm::vec3 root_min, float root_size, const Aabb& box, const char* where) {
    const glm::vec3 c = box.center();
    while (!fits(root_min, root_size, box)) {
        for (int k = 0; k < 3; ++k)
            if (c[k] < root_min[k]) root_min[k] -= root_size;
        root_size *= 2.0f;
        const glm::vec3 hi = root_min + glm::vec3(root_size);
        if (!(std::isfinite(root_size) && std::isfinite(root_min.x) && std::isfinite(root_min.y) &&
              std::isfinite(root_min.z) && std::isfinite(hi.x) && std::isfinite(hi.y) && std::isfinite(hi.z)))
            throw InvalidArgument(std::string(where) + ": box [" + std::to_string(box.min.x) + ", " +
                                  std::to_string(box.min.y) + ", " + std::to_string(box.min.z) + "] - [" +
                                  std::to_string(box.max.x) + ", " + std::to_string(box.max.y) + ", " +
                                  std::to_string(box.max.z) +
                                  "] is too large or too far out for the octree (its root cube would overflow a float)");
    }
}

}  // namespace

bool LooseOctree::fits_root(const Aabb& box) const { return fits(root_min_, root_size_, box); }

void LooseOctree::grow_to_fit(const Aabb& box) {
    while (!fits_root(box)) {
        const glm::vec3 c = box.center();
        for (int k = 0; k < 3; ++k)
            if (c[k] < root_min_[k]) root_min_[k] -= root_size_;
        root_size_ *= 2.0f;
    }
    // Re-insert every live proxy under the new root.
    table_.clear();
    for (Cell& cell : cells_) {
        cell.proxies.clear();
    }
    std::fill(std::begin(level_half_), std::end(level_half_), 0.0f);
    free_cells_.clear();
    for (std::uint32_t i = static_cast<std::uint32_t>(cells_.size()); i-- > 0;) free_cells_.push_back(i);
    std::fill(std::begin(level_count_), std::end(level_count_), 0u);
    for (std::vector<std::uint32_t>& level : level_cells_) level.clear();
    for (ProxyId id = 0; id < proxies_.size(); ++id) {
        if (proxies_[id].cell == kFreeSlot) continue;
        proxies_[id].key = key_for(proxies_[id].box);
        link(id);
    }
}

void LooseOctree::link(ProxyId id) {
    TUMBLE_ASSERT(id < proxies_.size());
    Proxy& p = proxies_[id];
    std::uint32_t index = table_.find(p.key);
    if (index == kFreeSlot) {
        if (!free_cells_.empty()) {
            index = free_cells_.back();
            free_cells_.pop_back();
        } else {
            index = static_cast<std::uint32_t>(cells_.size());
            reserve_for(cells_, cells_.size() + 1);
            cells_.emplace_back();
        }
        cells_[index].key = p.key;
        table_.insert(p.key, index);
        std::vector<std::uint32_t>& level = level_cells_[key_depth(p.key)];
        cells_[index].level_slot = static_cast<std::uint32_t>(level.size());
        level.push_back(index);
    }
    Cell& cell = cells_[index];
    p.cell = index;
    p.slot = static_cast<std::uint32_t>(cell.proxies.size());
    cell.proxies.push_back(id);
    const int depth = key_depth(p.key);
    ++level_count_[depth];
    level_half_[depth] = std::max(level_half_[depth], 0.5f * largest_side(p.box));
}

void LooseOctree::unlink(ProxyId id) {
    TUMBLE_ASSERT(id < proxies_.size() && proxies_[id].cell < cells_.size());
    Proxy& p = proxies_[id];
    Cell& cell = cells_[p.cell];
    TUMBLE_ASSERT(p.slot < cell.proxies.size() && cell.proxies[p.slot] == id);
    const ProxyId moved = cell.proxies.back();
    cell.proxies[p.slot] = moved;
    proxies_[moved].slot = p.slot;
    cell.proxies.pop_back();
    --level_count_[key_depth(p.key)];
    if (cell.proxies.empty()) {
        table_.erase(cell.key);
        std::vector<std::uint32_t>& level = level_cells_[key_depth(cell.key)];
        const std::uint32_t last = level.back();
        level[cell.level_slot] = last;
        cells_[last].level_slot = cell.level_slot;
        level.pop_back();
        free_cells_.push_back(p.cell);
    }
}

ProxyId LooseOctree::insert(const Aabb& box, std::uint64_t user_data) {
    require_valid(box, "LooseOctree::insert: box");
    if (!fits_root(box)) {
        require_reachable(root_min_, root_size_, box, "LooseOctree::insert");
        grow_to_fit(box);
    }
    ProxyId id;
    if (!free_proxies_.empty()) {
        id = free_proxies_.back();
        free_proxies_.pop_back();
    } else {
        id = static_cast<ProxyId>(proxies_.size());
        reserve_for(proxies_, proxies_.size() + 1);
        proxies_.emplace_back();
    }
    Proxy& p = proxies_[id];
    p.box = box;
    p.user_data = user_data;
    p.key = key_for(box);
    link(id);
    ++live_;
    return id;
}

void LooseOctree::update(ProxyId id, const Aabb& box) {
    if (!contains(id)) throw InvalidArgument("LooseOctree::update: proxy " + std::to_string(id) + " does not exist");
    require_valid(box, "LooseOctree::update: box");
    if (!fits_root(box)) require_reachable(root_min_, root_size_, box, "LooseOctree::update");
    Proxy& p = proxies_[id];
    p.box = box;
    if (!fits_root(box)) {
        grow_to_fit(box);  // re-inserts everything, this proxy with its new box included
        return;
    }
    const std::uint64_t key = key_for(box);
    if (key == p.key) {
        float& half = level_half_[key_depth(key)];
        half = std::max(half, 0.5f * largest_side(box));
        return;
    }
    unlink(id);
    p.key = key;
    link(id);
}

void LooseOctree::update(std::span<const ProxyId> ids, std::span<const Aabb> boxes, Parallel& parallel) {
    if (ids.size() != boxes.size())
        throw InvalidArgument("LooseOctree::update: " + std::to_string(ids.size()) + " proxies but " +
                              std::to_string(boxes.size()) + " boxes");
    // Marks in place of a key: packed keys leave bits 45-59 zero, so neither is a key.
    constexpr std::uint64_t kBad = ~std::uint64_t{0};          // unknown id or bad box
    constexpr std::uint64_t kOutside = ~std::uint64_t{0} - 1;  // outside the root: the root must grow
    constexpr std::uint64_t kStays = ~std::uint64_t{0} - 2;    // stays in its cell
    constexpr std::size_t kGrain = 256;
    const std::size_t n = ids.size();
    reserve_for(batch_keys_, n);
    batch_keys_.resize(n);
    parallel.for_each_chunk(n, kGrain, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
            batch_keys_[i] = !contains(ids[i]) || !tumble::validate(boxes[i]).empty() ? kBad
                             : !fits_root(boxes[i])                                   ? kOutside
                                                                                      : key_for(boxes[i]);
    });
    // The first problem in batch order: an unknown id, a bad box, or an id listed twice (marked in batch_seen_,
    // whose marks are cleared again whatever happens).
    if (batch_seen_.size() < proxies_.size()) batch_seen_.resize(proxies_.size(), 0);
    auto clear_marks = [&](std::size_t upto) {
        for (std::size_t i = 0; i < upto; ++i)
            if (ids[i] < batch_seen_.size()) batch_seen_[ids[i]] = 0;
    };
    bool outside = false;
    for (std::size_t i = 0; i < n; ++i) {
        const bool twice = batch_keys_[i] != kBad && batch_seen_[ids[i]] != 0;
        if (batch_keys_[i] == kBad || twice) {
            clear_marks(i);
            if (!contains(ids[i]))
                throw InvalidArgument("LooseOctree::update: proxy " + std::to_string(ids[i]) + " does not exist");
            if (twice)
                throw InvalidArgument("LooseOctree::update: proxy " + std::to_string(ids[i]) +
                                      " is listed twice in the batch");
            require_valid(boxes[i], "LooseOctree::update: box");
        }
        batch_seen_[ids[i]] = 1;
        outside = outside || batch_keys_[i] == kOutside;
    }
    clear_marks(n);
    if (outside) {
        // Growing the root changes every later key: one by one, as update does, once every box is known to fit a
        // root that stays finite.
        for (std::size_t i = 0; i < n; ++i)
            if (batch_keys_[i] == kOutside) require_reachable(root_min_, root_size_, boxes[i], "LooseOctree::update");
        for (std::size_t i = 0; i < n; ++i) update(ids[i], boxes[i]);
        return;
    }
    // The boxes, and for the proxies that stay in their cell, each chunk's largest half size per level; the
    // levels' maxima do not depend on the order they are taken in. The rest change cell here, in i order.
    constexpr std::size_t kLevels = kMaxDepthLimit + 1;
    reserve_for(batch_half_, chunk_count(n, kGrain) * kLevels);
    batch_half_.assign(chunk_count(n, kGrain) * kLevels, 0.0f);
    parallel.for_each_chunk(n, kGrain, [&](std::size_t begin, std::size_t end) {
        float* half = batch_half_.data() + begin / kGrain * kLevels;
        for (std::size_t i = begin; i < end; ++i) {
            Proxy& p = proxies_[ids[i]];
            p.box = boxes[i];
            if (batch_keys_[i] != p.key) continue;
            const int depth = key_depth(p.key);
            half[depth] = std::max(half[depth], 0.5f * largest_side(boxes[i]));
            batch_keys_[i] = kStays;
        }
    });
    for (std::size_t k = 0; k < batch_half_.size(); ++k)
        level_half_[k % kLevels] = std::max(level_half_[k % kLevels], batch_half_[k]);
    for (std::size_t i = 0; i < n; ++i) {
        if (batch_keys_[i] == kStays) continue;
        unlink(ids[i]);
        proxies_[ids[i]].key = batch_keys_[i];
        link(ids[i]);
    }
}

void LooseOctree::remove(ProxyId id) {
    if (!contains(id)) throw InvalidArgument("LooseOctree::remove: proxy " + std::to_string(id) + " does not exist");
    unlink(id);
    proxies_[id].cell = kFreeSlot;
    free_proxies_.push_back(id);
    --live_;
}

template <class F>
void LooseOctree::for_each_cell_in_range(int depth, const Aabb& box, F&& f) const {
    // Cell j's objects lie in [j s - H, (j + 1) s + H] on each axis (H = the level's largest half size), so they can
    // meet [lo, hi] only when (lo - H) / s - 1 <= j <= (hi + H) / s.
    const float s = cell_size(depth);
    const float reach = level_half_[depth];
    const std::int64_t last = (std::int64_t(1) << depth) - 1;
    std::int64_t from[3], to[3];
    for (int k = 0; k < 3; ++k) {
        const float lo = (box.min[k] - reach - root_min_[k]) / s - 1.0f - kRangeSlack;
        const float hi = (box.max[k] + reach - root_min_[k]) / s + kRangeSlack;
        cell_span(lo, hi, last, from[k], to[k]);
        if (from[k] > to[k]) return;
    }
    // Probe the hash table cell by cell, or, when the range holds more cells than the level has occupied ones
    // (a large box against deep levels), walk the level's occupied cells instead.
    const std::int64_t range = (to[0] - from[0] + 1) * (to[1] - from[1] + 1) * (to[2] - from[2] + 1);
    const std::vector<std::uint32_t>& occupied = level_cells_[depth];
    if (range > static_cast<std::int64_t>(occupied.size())) {
        for (std::uint32_t index : occupied) {
            const std::uint64_t key = cells_[index].key;
            bool inside = true;
            for (int k = 0; k < 3 && inside; ++k) {
                const std::int64_t c = key_coord(key, k);
                inside = c >= from[k] && c <= to[k];
            }
            if (inside) f(cells_[index]);
        }
        return;
    }
    auto probe = [&](std::int64_t x, std::int64_t y, std::int64_t z) {
        const std::uint32_t index = table_.find(
            pack(depth, static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), static_cast<std::uint32_t>(z)));
        if (index != kFreeSlot) f(cells_[index]);
    };
    for (std::int64_t x = from[0]; x <= to[0]; ++x)
        for (std::int64_t y = from[1]; y <= to[1]; ++y)
            for (std::int64_t z = from[2]; z <= to[2]; ++z) probe(x, y, z);
}

namespace {

// Hint slots per level: rows (x, y) within kHintSide of the first row of a range keep their own hint.
constexpr std::size_t kHintSide = 8;
constexpr std::size_t kHintSlots = kHintSide * kHintSide;

// First index in [lo, hi) whose key is >= target (keys sorted), searched outward from `hint` by doubling steps:
// O(log distance), so a hint near the answer costs a few reads of memory that is already cached.
std::size_t seek(const std::uint64_t* keys, std::size_t lo, std::size_t hi, std::size_t hint, std::uint64_t target) {
    std::size_t i = std::clamp(hint, lo, hi);
    if (i < hi && keys[i] < target) {  // forward: keys[i] < target
        std::size_t step = 1, below = i;
        while (below + step < hi && keys[below + step] < target) {
            below += step;
            step *= 2;
        }
        const std::size_t end = std::min(hi, below + step + 1);
        return static_cast<std::size_t>(std::lower_bound(keys + below + 1, keys + end, target) - keys);
    }
    // backward: i == hi or keys[i] >= target
    if (i == lo || keys[i - 1] < target) return i;
    std::size_t at_or_above = i - 1, step = 1;  // keys[at_or_above] >= target
    while (at_or_above > lo) {
        const std::size_t probe = at_or_above >= lo + step ? at_or_above - step : lo;
        if (keys[probe] < target) {
            return static_cast<std::size_t>(std::lower_bound(keys + probe + 1, keys + at_or_above, target) - keys);
        }
        at_or_above = probe;
        step *= 2;
    }
    return lo;
}

}  // namespace

void LooseOctree::snapshot_cell_pairs(const PairSearch& search, std::size_t i, std::size_t* hints,
                                      std::vector<ProxyPair>& out) const {
    const std::uint64_t* keys = search.keys.data();
    const Aabb* boxes = search.boxes.data();
    const ProxyId* ids = search.ids.data();
    const std::size_t begin = search.first[i], end = search.first[i + 1];
    auto emit = [&](ProxyId a, ProxyId b) { out.push_back(a < b ? ProxyPair{a, b} : ProxyPair{b, a}); };

    for (std::size_t a = begin; a < end; ++a)
        for (std::size_t b = a + 1; b < end; ++b)
            if (boxes[a].overlaps(boxes[b])) emit(ids[a], ids[b]);

    const Aabb& reach = search.reach[i];
    const std::uint64_t key = keys[i];
    const int depth = key_depth(key);
    const std::int64_t cx = key_coord(key, 0), cy = key_coord(key, 1), cz = key_coord(key, 2);
    // Tests the cell's objects against those of cells [j, ...) of `level` while their key is <= last.
    auto cross_row = [&](int level, std::size_t j, std::uint64_t last) {
        const std::size_t level_end = search.level_begin[level + 1];
        for (; j < level_end && keys[j] <= last; ++j) {
            const Aabb& other_reach = search.reach[j];
            if (!reach.overlaps(other_reach)) continue;
            for (std::size_t b = search.first[j]; b < search.first[j + 1]; ++b) {
                if (!reach.overlaps(boxes[b])) continue;
                for (std::size_t a = begin; a < end; ++a)
                    if (boxes[a].overlaps(boxes[b])) emit(ids[a], ids[b]);
            }
        }
    };
    for (int level = 0; level <= depth; ++level) {
        const std::size_t level_lo = search.level_begin[level], level_hi = search.level_begin[level + 1];
        if (level_lo == level_hi) continue;
        // Cell j's objects lie in [j s - H, (j + 1) s + H] on each axis (H = the level's largest half size), so they
        // can meet [lo, hi] only when (lo - H) / s - 1 <= j <= (hi + H) / s.
        const float s = cell_size(level);
        const float half = level_half_[level];
        const std::int64_t top = (std::int64_t(1) << level) - 1;
        std::int64_t from[3], to[3];
        bool empty = false;
        for (int k = 0; k < 3; ++k) {
            const float lo = (reach.min[k] - half - root_min_[k]) / s - 1.0f - kRangeSlack;
            const float hi = (reach.max[k] + half - root_min_[k]) / s + kRangeSlack;
            cell_span(lo, hi, top, from[k], to[k]);
            empty = empty || from[k] > to[k];
        }
        if (empty) continue;
        std::size_t* level_hints = hints + static_cast<std::size_t>(level) * kHintSlots;
        const bool same = level == depth;  // same depth: only the cells after this one in key order
        for (std::int64_t x = same ? std::max(from[0], cx) : from[0]; x <= to[0]; ++x) {
            for (std::int64_t y = (same && x == cx) ? std::max(from[1], cy) : from[1]; y <= to[1]; ++y) {
                const std::int64_t z0 = (same && x == cx && y == cy) ? std::max(from[2], cz + 1) : from[2];
                if (z0 > to[2]) continue;
                const auto ux = static_cast<std::uint32_t>(x), uy = static_cast<std::uint32_t>(y);
                const std::uint64_t target = pack(level, ux, uy, static_cast<std::uint32_t>(z0));
                const std::size_t dx = static_cast<std::size_t>(x - from[0]), dy = static_cast<std::size_t>(y - from[1]);
                std::size_t* hint = dx < kHintSide && dy < kHintSide ? &level_hints[dx * kHintSide + dy] : nullptr;
                const std::size_t j = seek(keys, same ? i + 1 : level_lo, level_hi, hint ? *hint : i, target);
                if (hint) *hint = j;
                cross_row(level, j, pack(level, ux, uy, static_cast<std::uint32_t>(to[2])));
            }
        }
    }
}

void LooseOctree::search_pairs(PairSearch& search, Parallel& parallel, std::vector<ProxyPair>& out) const {
    // Snapshot: occupied cells in key order (depth first, so levels are contiguous), objects copied in that order.
    search.order.clear();
    for (std::uint32_t index = 0; index < cells_.size(); ++index)
        if (!cells_[index].proxies.empty()) search.order.emplace_back(cells_[index].key, index);
    std::sort(search.order.begin(), search.order.end());
    const std::size_t n = search.order.size();
    search.keys.resize(n);
    search.first.resize(n + 1);
    search.reach.resize(n);
    std::uint32_t objects = 0;
    int level = 0;
    for (std::size_t i = 0; i < n; ++i) {
        search.keys[i] = search.order[i].first;
        search.first[i] = objects;
        objects += static_cast<std::uint32_t>(cells_[search.order[i].second].proxies.size());
        for (const int d = key_depth(search.keys[i]); level <= d; ++level) search.level_begin[level] = i;
    }
    search.first[n] = objects;
    for (; level <= kMaxDepthLimit + 1; ++level) search.level_begin[level] = n;
    search.ids.resize(objects);
    search.boxes.resize(objects);

    constexpr std::size_t kGrain = 256;  // cells per chunk
    parallel.for_each_chunk(n, kGrain, [&](std::size_t chunk_begin, std::size_t chunk_end) {
        for (std::size_t i = chunk_begin; i < chunk_end; ++i) {
            std::uint32_t o = search.first[i];
            Aabb reach;
            for (const ProxyId id : cells_[search.order[i].second].proxies) {
                TUMBLE_ASSERT(contains(id) && proxies_[id].cell == search.order[i].second);
                const Aabb& box = proxies_[id].box;
                search.ids[o] = id;
                search.boxes[o] = box;
                reach = o == search.first[i] ? box : reach.merged(box);
                ++o;
            }
            search.reach[i] = reach;
        }
    });

    const std::size_t chunks = chunk_count(n, kGrain);
    if (search.chunk_pairs.size() < chunks) search.chunk_pairs.resize(chunks);
    parallel.for_each_chunk(n, kGrain, [&](std::size_t chunk_begin, std::size_t chunk_end) {
        std::vector<ProxyPair>& mine = search.chunk_pairs[chunk_begin / kGrain];
        mine.clear();
        std::size_t hints[(kMaxDepthLimit + 1) * kHintSlots];
        std::fill(std::begin(hints), std::end(hints), chunk_begin);
        for (std::size_t i = chunk_begin; i < chunk_end; ++i) snapshot_cell_pairs(search, i, hints, mine);
    });
    for (std::size_t c = 0; c < chunks; ++c)
        out.insert(out.end(), search.chunk_pairs[c].begin(), search.chunk_pairs[c].end());
}

void LooseOctree::find_pairs(std::vector<ProxyPair>& out) const {
    PairSearch search;
    search_pairs(search, serial(), out);
}

void LooseOctree::find_pairs(std::vector<ProxyPair>& out, Parallel& parallel) {
    search_pairs(search_, parallel, out);
}

void LooseOctree::query(const Aabb& box, std::vector<ProxyId>& out) const {
    for (int level = 0; level <= max_depth_; ++level) {
        if (level_count_[level] == 0) continue;
        for_each_cell_in_range(level, box, [&](const Cell& cell) {
            for (const ProxyId id : cell.proxies) {
                TUMBLE_ASSERT(contains(id));
                if (proxies_[id].box.overlaps(box)) out.push_back(id);
            }
        });
    }
}

void LooseOctree::walk_ray(const glm::vec3& origin, const glm::vec3& direction, float max_t, void* context,
                           float (*visit)(void*, ProxyId, float)) const {
    for (int k = 0; k < 3; ++k)
        if (!std::isfinite(origin[k]) || !std::isfinite(direction[k])) return;
    if (!(max_t >= 0.0f) || (direction.x == 0.0f && direction.y == 0.0f && direction.z == 0.0f)) return;
    const glm::dvec3 o(origin), d(direction);
    const glm::dvec3 inv(d.x != 0.0 ? 1.0 / d.x : 0.0, d.y != 0.0 ? 1.0 / d.y : 0.0, d.z != 0.0 ? 1.0 / d.z : 0.0);
    const double longest = std::max({std::abs(d.x), std::abs(d.y), std::abs(d.z)});
    double limit = max_t;
    const glm::dvec3 root_min(root_min_);

    // Visits the proxies of one cell that the segment [0, limit] touches.
    auto visit_cell = [&](const Cell& cell) {
        for (ProxyId id : cell.proxies) {
            const Aabb& box = proxies_[id].box;
            const double t = segment_enter(glm::dvec3(box.min), glm::dvec3(box.max), o, d, inv, 0.0, limit);
            if (t == kNoHit) continue;
            limit = std::min(limit, static_cast<double>(visit(context, id, static_cast<float>(t))));
        }
    };
    // True when the segment [0, limit] touches the loose bound of the cell at integer coordinates c of level `depth`.
    auto ray_meets_cell = [&](double s, const std::int64_t (&c)[3]) {
        glm::dvec3 lo, hi;
        for (int k = 0; k < 3; ++k) {
            lo[k] = root_min[k] + (static_cast<double>(c[k]) - 0.5 - kRangeSlack) * s;
            hi[k] = root_min[k] + (static_cast<double>(c[k]) + 1.5 + kRangeSlack) * s;
        }
        return segment_enter(lo, hi, o, d, inv, 0.0, limit) != kNoHit;
    };

    for (int depth = 0; depth <= max_depth_; ++depth) {
        if (level_count_[depth] == 0) continue;
        const double s = cell_size(depth);
        const std::int64_t last = (std::int64_t(1) << depth) - 1;
        // Every loose bound of this level lies in the root grown by half a cell: clip the segment to it.
        const glm::dvec3 reach_lo = root_min - glm::dvec3((0.5 + kRangeSlack) * s);
        const glm::dvec3 reach_hi = root_min + glm::dvec3(static_cast<double>(root_size_) + (0.5 + kRangeSlack) * s);
        const double t0 = segment_enter(reach_lo, reach_hi, o, d, inv, 0.0, limit);
        if (t0 == kNoHit) continue;
        double t1 = limit;
        for (int k = 0; k < 3; ++k)  // where the segment leaves that region
            if (d[k] != 0.0) t1 = std::min(t1, std::max((reach_lo[k] - o[k]) * inv[k], (reach_hi[k] - o[k]) * inv[k]));

        const double step = s / longest;  // a piece of the segment spans at most one cell on every axis
        const double pieces = std::ceil((t1 - t0) / step) + 1.0;
        const std::vector<std::uint32_t>& occupied = level_cells_[depth];
        if (pieces * 27.0 > static_cast<double>(occupied.size())) {
            // Fewer occupied cells than probes: test each occupied cell's loose bound against the ray.
            for (std::uint32_t index : occupied) {
                const std::uint64_t key = cells_[index].key;
                const std::int64_t c[3] = {key_coord(key, 0), key_coord(key, 1), key_coord(key, 2)};
                if (ray_meets_cell(s, c)) visit_cell(cells_[index]);
            }
            continue;
        }
        // March the segment piece by piece. Ranges of consecutive pieces are monotone on every axis, so a cell probed
        // before and in range again was in the previous piece's range: skipping that range probes every cell once.
        std::int64_t prev_from[3] = {1, 1, 1}, prev_to[3] = {0, 0, 0};  // empty
        for (double i = 0.0;; i += 1.0) {
            const double ta = t0 + i * step;
            if (ta > std::min(t1, limit)) break;
            const double tb = std::min(ta + step, t1);
            std::int64_t from[3], to[3];
            bool empty = false;
            for (int k = 0; k < 3; ++k) {
                const double pa = o[k] + ta * d[k], pb = o[k] + tb * d[k];
                // Loose cell j reaches [lo, hi] when j >= lo/s - 1.5 and j <= hi/s + 0.5 (for_each_cell_in_range).
                const double lo = (std::min(pa, pb) - root_min[k]) / s - 1.5 - kRangeSlack;
                const double hi = (std::max(pa, pb) - root_min[k]) / s + 0.5 + kRangeSlack;
                cell_span(lo, hi, last, from[k], to[k]);
                empty = empty || from[k] > to[k];
            }
            if (empty) continue;
            std::int64_t c[3];
            for (c[0] = from[0]; c[0] <= to[0]; ++c[0])
                for (c[1] = from[1]; c[1] <= to[1]; ++c[1])
                    for (c[2] = from[2]; c[2] <= to[2]; ++c[2]) {
                        bool seen = true;
                        for (int k = 0; k < 3; ++k) seen = seen && c[k] >= prev_from[k] && c[k] <= prev_to[k];
                        if (seen || !ray_meets_cell(s, c)) continue;
                        const std::uint32_t index =
                            table_.find(pack(depth, static_cast<std::uint32_t>(c[0]), static_cast<std::uint32_t>(c[1]),
                                             static_cast<std::uint32_t>(c[2])));
                        if (index != kFreeSlot) visit_cell(cells_[index]);
                    }
            for (int k = 0; k < 3; ++k) {
                prev_from[k] = from[k];
                prev_to[k] = to[k];
            }
        }
    }
}

void LooseOctree::cells(std::vector<OctreeCell>& out) const {
    for (const Cell& cell : cells_) {
        if (cell.proxies.empty()) continue;
        OctreeCell c;
        c.depth = key_depth(cell.key);
        const float s = cell_size(c.depth);
        for (int k = 0; k < 3; ++k) c.bound.min[k] = root_min_[k] + static_cast<float>(key_coord(cell.key, k)) * s;
        c.bound.max = c.bound.min + glm::vec3(s);
        c.loose_bound = c.bound.expanded(0.5f * s);
        c.proxies = static_cast<std::uint32_t>(cell.proxies.size());
        out.push_back(c);
    }
}

std::string LooseOctree::validate() const {
    std::uint32_t counts[kMaxDepthLimit + 1] = {};
    std::size_t live = 0;
    for (ProxyId id = 0; id < proxies_.size(); ++id) {
        const Proxy& p = proxies_[id];
        if (p.cell == kFreeSlot) continue;
        ++live;
        const std::string who = "proxy " + std::to_string(id);
        if (p.key != key_for(p.box)) return who + " is not in the cell its size and centre select";
        if (p.cell >= cells_.size()) return who + " points to a cell that does not exist";
        const Cell& cell = cells_[p.cell];
        if (cell.key != p.key) return who + " points to a cell with another key";
        if (p.slot >= cell.proxies.size() || cell.proxies[p.slot] != id)
            return who + " is not at its slot in its cell";
        const int depth = key_depth(p.key);
        const float s = cell_size(depth);
        const float reach = level_half_[depth];
        if (reach > 0.5f * s * (1.0f + 1e-4f)) return "level " + std::to_string(depth) + " holds a proxy too large for it";
        if (0.5f * largest_side(p.box) > reach) return who + " is larger than its level's recorded half size";
        for (int k = 0; k < 3; ++k) {
            const float lo = root_min_[k] + static_cast<float>(key_coord(p.key, k)) * s - reach;
            const float hi = lo + s + 2.0f * reach;
            const float tol = 1e-4f * s;
            if (p.box.min[k] < lo - tol || p.box.max[k] > hi + tol)
                return who + " sticks out of its cell's loose bound";
        }
        ++counts[depth];
    }
    if (live != live_) return "live proxy count is wrong";
    std::size_t occupied = 0;
    for (std::uint32_t index = 0; index < cells_.size(); ++index) {
        const Cell& cell = cells_[index];
        if (cell.proxies.empty()) continue;
        ++occupied;
        if (table_.find(cell.key) != index) return "cell " + std::to_string(index) + " is missing from the hash table";
        for (std::size_t slot = 0; slot < cell.proxies.size(); ++slot) {
            const ProxyId id = cell.proxies[slot];
            if (!contains(id) || proxies_[id].cell != index || proxies_[id].slot != slot)
                return "cell " + std::to_string(index) + " lists a proxy that does not point back to it";
        }
    }
    if (occupied != table_.size()) return "the hash table holds cells that are empty";
    std::size_t listed = 0;
    for (int d = 0; d <= kMaxDepthLimit; ++d) {
        for (std::size_t slot = 0; slot < level_cells_[d].size(); ++slot) {
            const Cell& cell = cells_[level_cells_[d][slot]];
            if (cell.proxies.empty() || key_depth(cell.key) != d || cell.level_slot != slot)
                return "the occupied-cell list of level " + std::to_string(d) + " is wrong";
        }
        listed += level_cells_[d].size();
    }
    if (listed != occupied) return "the occupied-cell lists miss cells";
    for (int d = 0; d <= kMaxDepthLimit; ++d)
        if (counts[d] != level_count_[d]) return "the proxy count of level " + std::to_string(d) + " is wrong";
    return {};
}

}  // namespace tumble
