// The text and binary edge-list readers (edge_reader.h lists the formats):
// SNAP/CSV, Matrix Market, DIMACS, Graphalytics .v/.e, bin32/bin64; gzip
// and zstd underneath. Errors name the file and line (text) or record.
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

// Records [share * R / shares, (share + 1) * R / shares) of a plain (not
// compressed) bin32/bin64 file of R records: one rank's share of a
// distributed ingest. Records are numbered from the file's start in errors.
Status open_binary_share(const std::string& path, InputFormat format, bool weighted, uint32_t share, uint32_t shares,
                         std::unique_ptr<EdgeReader>* reader);

}  // namespace sg
