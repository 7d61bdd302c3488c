// Writes one edge space as a sequential logical stream, striped over the
// space's device files. Data is staged in a bounded buffer and written with
// pwrite at each piece's device offset, so every device file is written
// front to back. With `direct` the files are written with O_DIRECT (the
// buffer is aligned; the last piece is padded to a block and the file cut
// back to its size): no page-cache copy, which a fast disk makes the larger
// cost.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/aligned_buffer.h"
#include "base/file_util.h"
#include "base/status.h"
#include "shards/format/striping.h"

namespace sg {

class StripedWriter {
 public:
  // Creates (truncates) one file per device at `device_paths`.
  Status open(const std::vector<std::string>& device_paths, StripeLayout layout, size_t buffer_bytes,
              bool direct = false);
  // Appends bytes at the current logical offset.
  Status append(const void* data, size_t bytes);
  // Appends zero bytes up to the next multiple of `alignment`.
  Status pad_to(uint64_t alignment);
  uint64_t logical_offset() const { return logical_offset_; }
  // Flushes, syncs (as `sync` says) and closes the files; sizes each to
  // its share.
  Status finish(FileSync sync = FileSync::kNow);
  uint64_t device_bytes(uint32_t device) const { return layout_.device_bytes(logical_offset_, device); }
  uint32_t device_count() const { return layout_.device_count(); }

 private:
  Status flush();
  StripeLayout layout_;
  std::vector<File> files_;
  AlignedBuffer buffer_;
  size_t buffered_ = 0;
  uint64_t buffer_logical_start_ = 0;
  uint64_t logical_offset_ = 0;
};

}  // namespace sg
