// Making a graph written without syncs durable: an ordered ingest's work
// graph (IngestOptions::work_graph) when it becomes the output.
#pragma once

#include <string>

#include "base/status.h"

namespace sg {

// Syncs every file of the graph in `dir` (its directory's and the device
// files its manifest lists outside it), then those directories.
Status sync_graph(const std::string& dir);

}  // namespace sg
