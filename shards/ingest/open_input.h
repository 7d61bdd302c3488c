// Opening an ingest input of any format: the format named, or found from
// the path, and the reader for it (text_readers.h, bvgraph_reader.h,
// graph_edge_reader.h).
#pragma once

#include <memory>
#include <string>

#include "shards/ingest/edge_reader.h"

namespace sg {

// `name` empty => detect from the path: a directory holding manifest.json is
// a stored graph ("graph"), a BVGraph's base name or one of its files is
// "webgraph", a Graphalytics base name or its .v/.e file "graphalytics", else
// by file name (.mtx, .bin32, .bin64, .gr), else from the first lines (a
// Matrix Market banner, a DIMACS 'p sp' line), else snap.
Status resolve_format(const std::string& path, const std::string& name, InputFormat* format);

// `binary_weighted` only applies to bin32/bin64.
Status open_edge_reader(const std::string& path, InputFormat format, bool binary_weighted,
                        std::unique_ptr<EdgeReader>* reader);

}  // namespace sg
