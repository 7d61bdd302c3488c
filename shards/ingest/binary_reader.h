// The binary edge-list reader: bin32 / bin64, little-endian (src, dst)
// pairs, each followed by a float32 weight when declared weighted. Errors
// name the file and record.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "shards/ingest/edge_reader.h"

namespace sg {

// `weighted`: each record ends in a float32 weight.
Status open_binary_reader(const std::string& path, InputFormat format, bool weighted,
                          std::unique_ptr<EdgeReader>* reader);

// Records [share * R / shares, (share + 1) * R / shares) of a plain (not
// compressed) bin32/bin64 file of R records: one rank's share of a
// distributed ingest. Records are numbered from the file's start in errors.
Status open_binary_share(const std::string& path, InputFormat format, bool weighted, uint32_t share, uint32_t shares,
                         std::unique_ptr<EdgeReader>* reader);

}  // namespace sg
