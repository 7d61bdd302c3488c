// `shardgraph ingest` with a vertex order, inside the memory budget: the
// input is ingested unordered into a hidden graph next to the output; the order is computed over that graph by the
// engine (O(|V|) memory, out of core); then that graph is read back, relabelled and ingested again as the output. The
// hidden graph is removed in every case.
#pragma once

#include "shards/ingest/ingest.h"

namespace sg {

Status ingest_ordered(const IngestOptions& options, IngestSummary* summary);

}  // namespace sg
