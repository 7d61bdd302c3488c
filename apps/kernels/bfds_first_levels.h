// The bfds order's first two levels (traversal_order.cc), taken while an
// ordered ingest's out-only first pass sorts its out-lists
// (out_list_observer.h), so that the traversal starts at level 2.
//
// Before the sort, from the in-degrees and the root's list read back from
// the routed arcs: the root (the vertex of highest in-degree, ties by id)
// gets rank 0, and its out-neighbours (level 1) ranks 1, 2, ... by
// decreasing in-degree, then id, as number_level gives them. As the sort
// encodes each level-1 vertex's list, every target not yet numbered takes
// kFound | the smallest rank among the level-1 vertices that reach it:
// level 2, as the engine's second step would find it. That step's
// frontier is spread over the whole graph and read nearly every chunk
// (R-MAT 24 in 176 MiB: 0.58 GB, 3.9 s of an HDD at 150 MB/s); the sort
// holds every list in memory once anyway.
//
// Memory: 4 bytes a vertex through the sort, in the room of the in-degrees
// (written to their file and freed first); they become the traversal's
// ranks.
#pragma once

#include <cstdint>
#include <vector>

#include "apps/kernels/kernels.h"
#include "shards/ingest/out_list_observer.h"

namespace sg {

class BfdsFirstLevels : public OutListObserver {
 public:
  Status begin_sort(std::vector<uint32_t>* in_degrees, const ListReader& read_list, uint64_t* held_bytes) override;
  void on_list(uint32_t source, const uint32_t* ids, uint32_t count, size_t stride) override;
  // The levels, when the sort was watched (else level1_vertices is 0).
  BfdsStart take_start();

 private:
  std::vector<uint32_t> ranks_;
  uint32_t level1_vertices_ = 0;
};

}  // namespace sg
