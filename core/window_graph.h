// Locality-optimized subgraph construction (LOSC): the chunks of one window
// are checked and decoded, in parallel, straight into a CSR over the
// window's vertex range. A shard is sorted by its key vertex, so each chunk
// writes one contiguous slice (its position is the prefix sum of the index's
// edge counts) and no write is random; the pieces of a list split over
// consecutive chunks of the window land next to each other and form one run.
#pragma once

#include <cstdint>
#include <vector>

#include "compression/status.h"
#include "shards/chunk_stream.h"
#include "shards/graph.h"

namespace sg {

struct WindowGraph {
  uint32_t first_vertex = 0;
  uint32_t vertex_count = 0;
  std::vector<uint32_t> offsets;  // vertex_count + 1 entries, into neighbours
  std::vector<uint32_t> neighbours;
  std::vector<float> weights;  // empty when unweighted

  uint64_t edges() const { return neighbours.size(); }
};

// Fills `out` from the chunks of `window`; checks every chunk's checksum and
// bytes. Errors name the chunk and its device file(s).
Status build_window_graph(const Graph& graph, const EdgeSpace& space, const ChunkWindow& window, WindowGraph* out);

}  // namespace sg
