// `shardgraph compact`: merges a graph's updates (Manifest::deltas) into a
// new base, in a hidden sibling directory. Each space's chunks are merged
// with the updates window by window and encoded again, the graph read once
// and written once (compact_merge.h); a graph of an older codec is ingested
// again instead (format "graph", which merges the delta runs into the
// stored lists as it reads them; ids kept, new vertices after the old
// ones). The new base is then
// exchanged with the graph directory in one atomic rename
// (renameat2 RENAME_EXCHANGE); the old base is removed after. A power cut
// leaves the old graph or the compacted one, and a hidden leftover that
// `gc` removes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "base/status.h"

namespace sg {

struct CompactOptions {
  std::string graph;
  uint64_t memory_bytes = uint64_t{256} << 20;
  uint64_t window_bytes = 0;                         // a direct merge's read windows (tests); 0 = from the budget
  std::function<void(const std::string&)> progress;  // ingest's status lines; null: none
};

struct CompactSummary {
  uint64_t updates = 0;  // merged (0: there were none, nothing was written)
  uint64_t num_vertices = 0;
  uint64_t num_edges = 0;
  uint64_t stored_bytes = 0;
  double seconds = 0;
  bool old_generation_kept = false;  // a run held it (remove_graph_unless_held)
  std::string method;                // "merged into its chunks", or "re-ingested: " and why
};

Status compact_graph(const CompactOptions& options, CompactSummary* summary);

}  // namespace sg
