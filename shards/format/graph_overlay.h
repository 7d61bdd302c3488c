// Runs over a graph with updates not yet compacted: its delta runs are read
// and held per kind as a DeltaOverlay (delta_overlay.h), and the degrees
// and arc counts corrected, so the engine sees the lists a compaction would
// write.
#pragma once

#include <functional>

#include "shards/format/delta_overlay.h"
#include "shards/format/graph.h"
#include "shards/format/graph_deltas.h"

namespace sg {

// Merges a kind's runs (oldest first) into one resolved run: an update's
// removals apply before its adds, and remove every copy present before
// them. What a tier and a compaction write.
Status build_delta_overlay(const std::vector<std::unique_ptr<DeltaRun>>& runs, bool weighted, bool dedup,
                           uint32_t num_vertices, DeltaOverlay* overlay);
// Holds a kind's runs (oldest first) as they are, one part each: a window
// resolves them as it decodes (DeltaOverlay::decode_keys).
Status open_delta_overlay(std::vector<std::unique_ptr<DeltaRun>> runs, bool weighted, bool dedup, uint32_t num_vertices,
                          DeltaOverlay* overlay);

// Prepares `graph`, opened with GraphOpenOptions::deltas, for a run: each
// kind, when the run first uses it (Graph::load_overlay), reads its runs,
// installs its overlay and corrects its degrees and arc counts, in one pass
// over its records. `graph` must not move meanwhile. A
// degree the adds alone decide costs nothing more; one that removals or
// deduplication decide is counted by decoding that vertex's chunks once. Updates that added vertices
// extend the graph first (Graph::extend_vertices): their lists come from the
// updates alone, their ids from the updates' id files. With `out_lists` false (an app that reads
// only the in-space's lists), a directed graph's out-space overlay goes
// once its degrees are corrected: its memory is the run's.
Status prepare_run_over_updates(Graph* graph, bool out_lists = true);

}  // namespace sg
