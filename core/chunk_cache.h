// Memory the budget leaves after vertex arrays and I/O buffers holds chunks,
// compressed as read. Chunks are admitted as they are first read
// while room lasts, so a graph that fits is read from disk once; the planner
// treats cached chunks as free I/O.
//
// When the graph does not fit, the cache keeps the chunks that pay most. A
// traversal re-reads a chunk once for each step in which one of its vertices
// is active, so a chunk of many short lists is re-read most and a chunk
// holding part of one hub's list about once (IOE-order: bins of small-degree
// vertices first); a full scan reads every byte once per step, so for it any
// choice pays the same, but a cached run split into pieces would split its
// reads (the engine reads short cached gaps through). Hence a chunk's
// priority is its lists per byte in factor-2 bins, and within a bin the
// first chunks read stay. A full cache admits a chunk by evicting, lowest
// priority first, chunks no step has used lately (e.g. the in-space after a
// BFS turned from pull to push), then chunks of a strictly lower bin; bins
// are static, so the contents settle and do not churn.
//
// Memory left after room is set aside for every chunk compressed holds
// decoded windows (the CSR build_window_graph makes): a window served from
// there costs neither a checksum nor a decode, only the updates. Decoded
// windows are kept only when complete (no skipped lists); a request for any
// of a decoded window's chunks is served from it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <set>
#include <tuple>
#include <vector>

#include "core/window_graph.h"
#include "scheduler/plan_view.h"
#include "shards/format/chunk_format.h"

namespace sg {

class ChunkCache final : public ChunkHolder {
 public:
  // What the planner sees (scheduler/plan_view.h).
  bool holds(size_t space, uint32_t chunk) const override { return find(space, chunk) != nullptr; }
  bool holds_decoded(size_t space, uint32_t chunk) const override { return is_decoded(space, chunk); }

  // `stored_bytes`: all chunks of all spaces, compressed.
  void reset(const std::vector<size_t>& chunks_per_space, uint64_t stored_bytes);
  const uint8_t* find(size_t space, uint32_t chunk) const { return chunks_[space][chunk].get(); }
  // Copies the chunk in if `room` bytes allow, or if evicting chunks of
  // lower priority frees enough; true if it is cached now. Evicting
  // invalidates the evicted chunks' find() pointers.
  // `step` numbers the engine's steps; a chunk unused for kStaleSteps steps
  // is stale.
  bool admit(size_t space, uint32_t chunk, const uint8_t* data, uint32_t bytes, uint64_t room, double priority,
             uint64_t step);
  void touch(size_t space, uint32_t chunk, uint64_t step) { last_used_[space][chunk] = step; }
  static constexpr uint64_t kStaleSteps = 1;
  // The cache's own tables, per chunk of the graph (part of a run's budget).
  static constexpr uint64_t kTableBytesPerChunk = sizeof(std::unique_ptr<uint8_t[]>) + sizeof(uint64_t) +
                                                  sizeof(std::unique_ptr<WindowGraph>) + sizeof(const WindowGraph*);
  // A chunk's priority: lists per byte in factor-2 bins.
  static double priority(const ChunkIndexEntry& e) {
    const double lists_per_kib = 1024.0 * e.vertex_count / std::max<uint32_t>(e.bytes, 1);
    return std::floor(std::log2(1.0 + lists_per_kib));
  }
  uint64_t bytes() const { return bytes_ + decoded_bytes_; }
  uint64_t chunk_count() const { return by_priority_.size(); }
  uint64_t evictions() const { return evictions_; }

  // The decoded window holding `chunk`, or null.
  const WindowGraph* decoded_containing(size_t space, uint32_t chunk) const { return decoded_of_chunk_[space][chunk]; }
  bool is_decoded(size_t space, uint32_t chunk) const { return decoded_of_chunk_[space][chunk] != nullptr; }
  // Whether a decoded window of `bytes` would be admitted with `room` left.
  bool decoded_fits(uint64_t bytes, uint64_t room) const;
  // Keeps a copy of `window` if its chunks are all cached compressed and
  // `room` bytes allow it and every chunk not yet cached compressed; true if
  // it is kept now.
  bool admit_decoded(size_t space, const WindowGraph& window, uint64_t room);
  // The same, taking `window` over (left as it was if not kept).
  bool admit_decoded(size_t space, WindowGraph&& window, uint64_t room);
  uint64_t decoded_bytes() const { return decoded_bytes_; }
  // Evicts until bytes() <= `bytes`: decoded windows first, then chunks,
  // lowest priority first (vertex arrays allocated later take precedence).
  void shrink_to(uint64_t bytes);

 private:
  // Eviction order: lowest priority first, and within a bin the most
  // recently admitted first (the first chunks read stay).
  struct Cached {
    double priority;
    uint64_t recency;  // UINT64_MAX - admission number
    size_t space;
    uint32_t chunk;
    uint32_t bytes;
    auto operator<=>(const Cached&) const = default;
  };
  // Drops the compressed copy of a chunk, and the decoded window holding it
  // (a decoded window's chunks are always cached compressed too).
  void evict(std::set<Cached>::iterator it);
  void drop_decoded_window(size_t space, uint32_t chunk);
  bool may_admit_decoded(size_t space, const WindowGraph& window, uint64_t room) const;
  void place_decoded(size_t space, std::unique_ptr<WindowGraph> window);
  std::vector<std::vector<std::unique_ptr<uint8_t[]>>> chunks_;  // [space][chunk]
  std::set<Cached> by_priority_;                                 // lowest first
  std::vector<std::vector<uint64_t>> last_used_;                 // [space][chunk]: step
  uint64_t bytes_ = 0;
  uint64_t evictions_ = 0;
  uint64_t admissions_ = 0;
  std::vector<std::vector<std::unique_ptr<WindowGraph>>> decoded_;  // [space][its first chunk]: storage
  std::vector<std::vector<const WindowGraph*>> decoded_of_chunk_;   // [space][chunk]
  uint64_t decoded_bytes_ = 0;
  uint64_t stored_bytes_ = 0;
};

}  // namespace sg
