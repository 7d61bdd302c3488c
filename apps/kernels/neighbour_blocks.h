// Blocks of vertices whose neighbour lists are held in memory at once, for
// kernels that need a vertex's whole neighbourhood together (CDLP's label
// histogram, LCC's neighbour sets) rather than one edge at a time.
//
// A block is a vertex range whose in- plus out-degrees fit the memory the
// budget leaves; its lists come from pull steps restricted to the block's
// destinations (EdgeMapOptions::destinations_*), one over the in-space and,
// on a directed graph, one over the out-space, so one pass over all blocks
// reads each space once. Repeated arcs give one neighbour (lists are
// sorted, repeats adjacent), as in the Graphalytics definitions.
#pragma once

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "core/engine.h"

namespace sg {

// Blocks take half of the memory nothing holds, and at least this.
constexpr uint64_t kLeastBlockBytes = uint64_t{64} << 10;
// A block of gathered neighbourhoods holds half of what the budget leaves;
// the rest stays for the cache.
inline constexpr MemoryShare kNeighbourBlockShare{"neighbour_block", 2, true, kLeastBlockBytes};

struct VertexBlock {
  uint32_t begin = 0, end = 0;
  uint64_t slots = 0;  // in- plus out-degrees (one list's on an undirected graph)
};

// Memory a block of `slots` values of `value_bytes` and `vertices` vertices holds.
uint64_t gathered_block_bytes(uint64_t slots, uint64_t vertices, uint64_t value_bytes);

// Splits [0, n) into blocks whose values of `value_bytes` (and `extra_bytes`
// a slot the kernel adds) hold at most `room_bytes`; a vertex with more is a
// block of its own. Degrees are read a piece at a time.
Status plan_vertex_blocks(Engine* engine, uint64_t room_bytes, uint64_t value_bytes, uint64_t extra_bytes,
                          std::vector<VertexBlock>* blocks);

// Lists split over several chunks reach a pull step in several calls, and
// not always in order (cached chunks are processed first, evicted ones
// reread last), so a neighbour repeated across a split can be seen once per
// piece. SplitPieces knows which vertices' lists are split and records the
// first and last neighbour of each piece of theirs (a few per chunk); after
// the step, for_each_extra names the neighbours seen in several pieces.
template <typename T>
class SplitPieces {
 public:
  void init(const Graph& graph, SpaceKind kind);
  bool is_split(uint32_t v) const { return std::binary_search(split_.begin(), split_.end(), v); }
  // A call's piece of v's list: `first`/`last` its first and last neighbour.
  void record(uint32_t v, uint32_t first, T first_value, uint32_t last, T last_value) {
    std::lock_guard<std::mutex> lock(mutex_);
    records_.push_back(Record{v, first, first_value});
    if (last != first) records_.push_back(Record{v, last, last_value});
  }
  void clear() { records_.clear(); }
  // f(v, u, value of u, copies too many) for each u seen in several of v's pieces.
  template <typename F>
  void for_each_extra(F&& f) {
    std::sort(records_.begin(), records_.end(),
              [](const Record& a, const Record& b) { return a.v != b.v ? a.v < b.v : a.u < b.u; });
    for (size_t i = 0; i < records_.size();) {
      size_t j = i + 1;
      while (j < records_.size() && records_[j].v == records_[i].v && records_[j].u == records_[i].u) ++j;
      if (j - i > 1) f(records_[i].v, records_[i].u, records_[i].value, static_cast<uint32_t>(j - i - 1));
      i = j;
    }
  }

 private:
  struct Record {
    uint32_t v, u;
    T value;
  };
  std::vector<uint32_t> split_;  // sorted
  std::mutex mutex_;
  std::vector<Record> records_;
};

template <typename T>
class GatheredBlock {
 public:
  // Gathers value_of(u) for each neighbour u of every vertex of `block`:
  // in-neighbours, then out-neighbours on a directed graph.
  template <typename ValueOf>
  Status gather(Engine* engine, const VertexBlock& block, ValueOf value_of) {
    SG_RETURN_IF_ERROR(layout(engine, block));
    const bool directed = engine->graph().directed();
    for (int side = 0; side < (directed ? 2 : 1); ++side) {
      SplitPieces<T>& split = split_[side];
      if (!split_ready_[side]) split.init(engine->graph(), side == 0 ? SpaceKind::kIn : SpaceKind::kOut);
      split_ready_[side] = true;
      split.clear();
      Gather<ValueOf> gather{slots_.data(), base_[side].data(), count_[side].data(), block.begin, &split, value_of};
      EdgeMapOptions options;
      options.direction = Direction::kPull;
      options.reversed = side == 1;  // the out-space's lists are the out-neighbours
      options.destinations_begin = block.begin;
      options.destinations_end = block.end;
      VertexSubset unused;
      SG_RETURN_IF_ERROR(engine->edge_map(VertexSubset::all(engine->num_vertices()), gather, &unused, options));
      split.for_each_extra(
          [&](uint32_t v, uint32_t, T value, uint32_t copies) { drop(side, v - block.begin, value, copies); });
    }
    return Status::OK();
  }

  // Frees the gathered values.
  void clear() {
    std::vector<T>().swap(slots_);
    for (int side = 0; side < 2; ++side) {
      std::vector<uint64_t>().swap(base_[side]);
      std::vector<uint32_t>().swap(count_[side]);
    }
    std::vector<uint64_t>().swap(arcs_);
  }

  uint32_t begin() const { return begin_; }
  uint32_t size() const { return static_cast<uint32_t>(count_[0].size()); }
  // The i-th vertex's arcs: in- plus out-degree (repeats included).
  uint64_t arcs(uint32_t i) const { return arcs_[i]; }
  // The values gathered for the block's i-th vertex, both directions side
  // by side (a repeated neighbour is once per direction). Not thread-safe
  // for the same i; distinct i may be taken in parallel.
  std::span<T> values(uint32_t i) {
    const uint32_t in = count_[0][i];
    const uint32_t out = count_[1].empty() ? 0 : count_[1][i];
    T* first = slots_.data() + base_[0][i];
    if (out > 0 && base_[1][i] != base_[0][i] + in) {
      std::copy(slots_.data() + base_[1][i], slots_.data() + base_[1][i] + out, first + in);
      base_[1][i] = base_[0][i] + in;
    }
    return std::span<T>(first, in + out);
  }

 private:
  // Pull steps only (one writer per destination; the destination range
  // forces pull). Each call's piece of a list is sorted, so a repeated arc
  // is adjacent within it; across pieces SplitPieces finds it.
  template <typename ValueOf>
  struct Gather {
    static constexpr bool kIgnoresWeights = true;
    T* slots;
    const uint64_t* base;
    uint32_t* count;
    uint32_t first_vertex;
    SplitPieces<T>* split;
    ValueOf value_of;
    // The engine hands these full-frontier pulls whole lists (update_list);
    // a lone arc is taken as it comes.
    bool update(uint32_t u, uint32_t v, float) {
      const uint32_t i = v - first_vertex;
      slots[base[i] + count[i]++] = value_of(u);
      return false;
    }
    bool update_atomic(uint32_t u, uint32_t v, float w) { return update(u, v, w); }
    bool update_list(uint32_t v, const uint32_t* sources, uint32_t n) {
      const uint32_t i = v - first_vertex;
      T* out = slots + base[i];
      uint32_t c = count[i];
      for (uint32_t k = 0; k < n; ++k) {
        if (k == 0 || sources[k] != sources[k - 1]) out[c++] = value_of(sources[k]);
      }
      count[i] = c;
      if (n > 0 && split->is_split(v))
        split->record(v, sources[0], value_of(sources[0]), sources[n - 1], value_of(sources[n - 1]));
      return false;
    }
    bool cond(uint32_t) const { return true; }
  };

  Status layout(Engine* engine, const VertexBlock& block);
  // Removes `copies` values equal to `value` from the i-th vertex's `side`.
  void drop(int side, uint32_t i, T value, uint32_t copies);

  uint32_t begin_ = 0;
  std::vector<T> slots_;
  std::vector<uint64_t> base_[2];   // per vertex and direction: its first slot
  std::vector<uint32_t> count_[2];  // values gathered
  std::vector<uint64_t> arcs_;      // per vertex: its slots
  SplitPieces<T> split_[2];
  bool split_ready_[2] = {false, false};
};

extern template class SplitPieces<uint32_t>;
extern template class SplitPieces<uint64_t>;
extern template class GatheredBlock<uint32_t>;
extern template class GatheredBlock<uint64_t>;

}  // namespace sg
