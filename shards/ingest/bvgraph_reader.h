// Reads a WebGraph BVGraph (BASENAME.properties, .graph, optional .offsets)
// as an edge stream in node order, decoding blocks of nodes in parallel
// (bvgraph_decoder.h). Without .offsets the graph is decoded in one
// sequential pass, which is what building the offsets would cost anyway.
// Memory: one round of decoded arcs (8 bytes each, a bounded count) and the
// offsets of the round's nodes, whatever the graph's size.
#pragma once

#include <memory>
#include <string>

#include "shards/ingest/edge_reader.h"

namespace sg {

// `path`: BASENAME, or BASENAME with .graph, .properties or .offsets.
Status open_bvgraph_reader(const std::string& path, std::unique_ptr<EdgeReader>* reader);

// BASENAME for `path` if it names a BVGraph (one of its files, or a base
// name whose .properties and .graph exist), else "".
std::string bvgraph_basename(const std::string& path);

}  // namespace sg
