// What a kind's updates (its delta runs, oldest first) do to its lists, merged
// once and held in memory while a run reads a graph with updates: for each
// vertex they touch, the neighbours some update removes (every base copy
// goes) and the adds no later update removes. A scan merges these into each
// list as its chunk is decoded (merge_list), so a run sees the lists a
// compaction would write.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace sg {

struct DeltaOverlay {
  bool weighted = false;
  bool dedup = false;                  // the graph drops duplicate arcs
  std::vector<uint32_t> keys;          // the vertices the updates touch, sorted
  std::vector<uint32_t> add_begin;     // keys.size() + 1 entries, into adds
  std::vector<uint32_t> adds;          // per key sorted (by neighbour, then weight)
  std::vector<float> add_weights;      // beside adds, on a weighted graph
  std::vector<uint32_t> remove_begin;  // keys.size() + 1 entries, into removes
  std::vector<uint32_t> removes;       // per key sorted, distinct

  // The index of the first key at or after `vertex` (keys.size() if none).
  size_t key_at_or_after(uint32_t vertex) const {
    return static_cast<size_t>(std::lower_bound(keys.begin(), keys.end(), vertex) - keys.begin());
  }
  // Key k's adds with neighbours in [lo, hi): [*first, *end) of adds.
  void adds_in(size_t k, uint32_t lo, uint32_t hi, uint32_t* first, uint32_t* end) const {
    const auto b = adds.begin() + add_begin[k], e = adds.begin() + add_begin[k + 1];
    *first = static_cast<uint32_t>(std::lower_bound(b, e, lo) - adds.begin());
    *end = hi == UINT32_MAX ? add_begin[k + 1] : static_cast<uint32_t>(std::lower_bound(b, e, hi) - adds.begin());
    *end = std::max(*end, *first);
  }
  bool has_removes(size_t k) const { return remove_begin[k + 1] > remove_begin[k]; }
  uint64_t bytes() const {
    return sizeof(uint32_t) * (keys.size() + add_begin.size() + adds.size() + remove_begin.size() + removes.size()) +
           sizeof(float) * add_weights.size();
  }
};

// Merges one list (or one piece of a list split over chunks) of key k's
// vertex, `base` sorted by neighbour (then weight) with `base_weights`
// beside it (when weighted), with the adds [add_first, add_end) of
// key k: neighbours the updates remove are dropped, and on a deduplicated
// graph each neighbour is kept once, with its smallest weight (as ingest
// keeps it). `out` has room for count + the adds. Returns the list's length.
uint32_t merge_list(const DeltaOverlay& overlay, size_t k, uint32_t add_first, uint32_t add_end, const uint32_t* base,
                    const float* base_weights, uint32_t count, uint32_t* out, float* out_weights);

}  // namespace sg
