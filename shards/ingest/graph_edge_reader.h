// Reads a stored graph's arcs back as an edge list (format "graph"): the
// out-space chunk by chunk in order, so arcs come sorted by source. An
// undirected graph gives each edge once (source <= destination). Ordered
// ingest reads its unordered first pass this way to relabel it.
#pragma once

#include <memory>
#include <string>

#include "shards/format/graph.h"
#include "shards/ingest/edge_reader.h"

namespace sg {

Status open_graph_edge_reader(const std::string& dir, std::unique_ptr<EdgeReader>* reader);

}  // namespace sg
