// `shardgraph verify`: re-reads every chunk of every space and checks its
// checksum, that it decodes exactly, that lists are sorted (also across the
// pieces of a split list) and that the stored degrees and edge counts match
// the lists. That chunks tile the vertices and respect interval boundaries
// is checked by Graph::open, for every reader.
#pragma once

#include <cstdint>

#include "shards/format/graph.h"

namespace sg {

struct VerifyReport {
  uint64_t chunks = 0;
  uint64_t arcs = 0;
  uint64_t bytes = 0;
  uint64_t delta_records = 0;  // of updates not yet compacted
};

Status verify_graph(const Graph& graph, VerifyReport* report);

}  // namespace sg
