// Compaction by direct merge: each edge space's chunks are read in order, a
// window at a time, decoded, merged with the kind's updates (the overlay a
// run over updates merges: merge_window_updates) and encoded straight into
// the new base's chunks. No arc is routed or sorted: the graph is read once
// and written once, where a re-ingest routes, sorts and spills it.
//
// It keeps the graph's layout (intervals, 2-D blocks, devices, stripes,
// chunk size, id map, order); each block is merged on its own, and the
// blocks' degrees summed into the kind's. Vertices the updates added come
// after the stored ones, in the last interval, with their adds alone as
// lists; the id map gains their ids. A graph it cannot merge this way
// (direct_merge_obstacle) is re-ingested instead (compact.h).
#pragma once

#include <string>

#include "base/status.h"
#include "shards/format/graph.h"
#include "shards/ingest/ingest.h"

namespace sg {

// Why `graph`'s updates cannot be merged into its chunks directly: it
// stores only an out-space, or its chunks use an older codec. "" if they can.
std::string direct_merge_obstacle(const Graph& graph);

// Writes `graph` (opened with its updates) with its updates merged to
// `layout.output`, with `layout`'s devices, codec choice, direct I/O,
// budget, graph files and progress (the options a re-ingest would take).
// `window_bytes`: the read windows (0: from the budget).
Status merge_updates_into_chunks(const Graph& graph, const IngestOptions& layout, uint64_t window_bytes,
                                 IngestSummary* summary);

}  // namespace sg
