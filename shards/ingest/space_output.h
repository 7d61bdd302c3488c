// Writes one edge space from encoded parts, in order: each chunk at the next
// 4 KiB-aligned logical offset of the striped device files, its index entry,
// and the degree file streamed (with its checksum) as parts arrive.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/file_util.h"
#include "compression/checksum.h"
#include "shards/format/chunk_format.h"
#include "shards/format/manifest.h"
#include "shards/format/striped_writer.h"
#include "shards/ingest/chunk_encoder.h"

namespace sg {

class SpaceOutput {
 public:
  // An empty `degree_path` writes no degree file (a block after a blocked
  // space's first).
  // `direct`: the device files written with O_DIRECT (striped_writer.h).
  // `sync`: how finish() leaves the files (base/file_util.h).
  Status open(const std::vector<std::string>& device_paths, StripeLayout layout, const std::string& degree_path,
              bool direct = false, FileSync sync = FileSync::kNow);
  Status append(const ChunkEncoder& part);
  // Checks that every vertex got its degree; flushes everything and syncs
  // it as open() was told.
  Status finish(uint32_t num_vertices);
  // finish(), then the space's figures into `meta` (named already:
  // GraphFiles::name_space_files) and its index to `index_path`.
  Status finish_into(uint32_t num_vertices, ListCodec codec, const std::string& index_path, SpaceManifest* meta);

  const std::vector<ChunkIndexEntry>& index() const { return index_; }
  uint64_t degree_checksum() const { return degree_checksum_; }
  uint64_t logical_bytes() const { return out_.logical_offset(); }
  uint64_t device_bytes(uint32_t device) const { return out_.device_bytes(device); }
  uint64_t arcs() const { return arcs_; }
  const std::array<uint64_t, kGapLayouts>& gap_coding_chunks() const { return gap_coding_chunks_; }
  uint64_t packed_chunks() const { return packed_chunks_; }

 private:
  Status put_degree(uint32_t degree);
  Status flush_degrees();

  StripedWriter out_;
  FileSync sync_ = FileSync::kNow;
  bool degrees_ = true;
  std::vector<ChunkIndexEntry> index_;
  File degree_file_;
  std::vector<uint32_t> degree_buffer_;
  std::array<uint64_t, kGapLayouts> gap_coding_chunks_{};
  uint64_t packed_chunks_ = 0;
  uint64_t degree_file_bytes_ = 0;
  Checksum64Stream degree_sum_;
  uint64_t degree_checksum_ = 0;
  // The last vertex's degree is held back: the next part may continue its list.
  bool held_ = false;
  uint64_t held_degree_ = 0;
  uint64_t degrees_written_ = 0;
  uint64_t arcs_ = 0;
};

}  // namespace sg
