// Runs over a graph with updates not yet compacted: its delta runs are read,
// merged per kind into a DeltaOverlay (delta_overlay.h) held in memory, and
// the degrees and arc counts corrected, so the engine sees the lists a
// compaction would write.
#pragma once

#include "shards/format/delta_overlay.h"
#include "shards/format/graph.h"
#include "shards/format/graph_deltas.h"

namespace sg {

// Merges a kind's runs (oldest first): an update's removals apply before its
// adds, and remove every copy present before them.
Status build_delta_overlay(const std::vector<std::unique_ptr<DeltaRun>>& runs, bool weighted, bool dedup,
                           DeltaOverlay* overlay);

// Prepares `graph`, opened with GraphOpenOptions::deltas and its degrees
// loaded (degrees and in_degrees), for a run: installs each kind's overlay
// and corrects its degrees and arc counts. A degree the adds alone decide
// costs nothing; one that removals or deduplication decide is counted by
// decoding that vertex's chunks once. Updates that added vertices are
// refused (compact them first).
Status prepare_run_over_updates(Graph* graph);

}  // namespace sg
