// The edge-list readers by format (edge_reader.h lists the formats): the
// text ones here (SNAP/CSV, Matrix Market, DIMACS, Graphalytics .v/.e; gzip
// and zstd underneath; errors name the file and line), and bin32/bin64
// through binary_reader.h.
#pragma once

#include <memory>
#include <string>

#include "shards/ingest/edge_reader.h"

namespace sg {

// The format of a text or binary input by its name (a Graphalytics base
// name or its .v/.e, .mtx, .bin32, .bin64, .gr), else from its first lines
// (a Matrix Market banner, a DIMACS 'p sp' line), else snap.
InputFormat text_format_of(const std::string& path);

// `binary_weighted` only applies to bin32/bin64.
Status open_text_reader(const std::string& path, InputFormat format, bool binary_weighted,
                        std::unique_ptr<EdgeReader>* reader);

}  // namespace sg
