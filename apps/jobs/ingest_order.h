// The vertex order an ordered ingest (ingest_ordered.h) computes over its
// hidden unordered graph: a traversal order (bfds, bfs) by the engine, out
// of core, or else the degree order, written out of core; within the memory
// budget either way.
#pragma once

#include <cstdint>
#include <string>

#include "apps/kernels/kernels.h"
#include "shards/format/graph.h"
#include "shards/ingest/ingest.h"
#include "shards/ingest/permutation.h"
#include "shards/ingest/vertex_order.h"

namespace sg {

// A permutation file (the degree order's, or bfds's with compact ranks), in
// the unordered graph's directory.
inline constexpr const char* kOrderFile = "/order.new_id";

// What a traversal order read, for the ingest summary.
struct OrderStats {
  size_t steps = 0;  // the engine's
  uint64_t bytes_read = 0;
  uint64_t residual_bytes = 0;          // the lists the last steps took from memory
  uint64_t residual_offered_bytes = 0;  // lists offered that did not fit (0: none)
  uint64_t compact_rank_bytes = 0;      // bfds's ranks held compact (0: 4 bytes a vertex)
  bool first_levels_sorted = false;     // bfds's first two levels taken while sorting (BfdsFirstLevels)
};

// Opens the hidden unordered graph, out-only or whole, without loading
// degrees or the id map; its degree files were just written here.
Status open_unordered(const std::string& dir, Graph* graph);

// Whether the order of a graph of `vertices` vertices will fit the budget,
// judged before the graph exists: compute_order's own test (exact) comes
// after, and a graph built out-only for an order that then does not fit is
// completed (complete_into_place, ingest_ordered.cc).
bool order_fits(VertexOrder order, uint64_t vertices, uint64_t memory_bytes);

// Computes the order of the unordered graph at `dir` into `permutation`. A
// traversal order that does not fit the budget falls back to the degree
// order, which fits out of core; *applied says which order was computed.
// Leaves `permutation` empty and says in *needed_bytes what it would take
// when no order fits.
Status compute_order(const std::string& dir, VertexOrder order, const IngestOptions& options, Permutation* permutation,
                     VertexOrder* applied, uint64_t* needed_bytes, OrderStats* stats, BfdsStart start);

}  // namespace sg
