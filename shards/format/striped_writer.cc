#include "shards/format/striped_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace sg {

Status StripedWriter::open(const std::vector<std::string>& device_paths, StripeLayout layout, size_t buffer_bytes,
                           bool direct) {
  layout_ = layout;
  files_.clear();
  files_.resize(device_paths.size());
  for (size_t d = 0; d < device_paths.size(); ++d) {
    SG_RETURN_IF_ERROR(File::create(device_paths[d], &files_[d]));
    // Without O_DIRECT (tmpfs) the same aligned writes go through the page cache.
    if (direct) (void)set_direct(files_[d].fd());
  }
  // Whole blocks, so that every flush but the last writes aligned pieces.
  buffer_.allocate(align_up(std::max<size_t>(buffer_bytes, kAlignBytes), kAlignBytes));
  buffered_ = 0;
  buffer_logical_start_ = 0;
  logical_offset_ = 0;
  return Status::OK();
}

Status StripedWriter::append(const void* data, size_t bytes) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  while (bytes > 0) {
    const size_t take = std::min(bytes, buffer_.size() - buffered_);
    std::memcpy(buffer_.data() + buffered_, p, take);
    buffered_ += take;
    p += take;
    bytes -= take;
    logical_offset_ += take;
    if (buffered_ == buffer_.size()) SG_RETURN_IF_ERROR(flush());
  }
  return Status::OK();
}

Status StripedWriter::pad_to(uint64_t alignment) {
  static const uint8_t kZeros[kAlignBytes] = {};
  uint64_t gap = align_up(logical_offset_, alignment) - logical_offset_;
  while (gap > 0) {
    const size_t take = static_cast<size_t>(std::min<uint64_t>(gap, sizeof(kZeros)));
    SG_RETURN_IF_ERROR(append(kZeros, take));
    gap -= take;
  }
  return Status::OK();
}

// Pieces end at stripe and buffer boundaries, both whole blocks, except at
// the stream's end: there a piece is written to the end of its block (the
// buffer's zeros or earlier bytes; finish() cuts each file to its size).
Status StripedWriter::flush() {
  Status status;
  layout_.split(buffer_logical_start_, buffered_, [&](const StripePiece& piece) {
    if (!status.ok()) return;
    const size_t at = static_cast<size_t>(piece.logical_offset - buffer_logical_start_);
    const size_t bytes = std::min<size_t>(static_cast<size_t>(align_up(piece.bytes, kAlignBytes)), buffer_.size() - at);
    status = files_[piece.device].pwrite_all(buffer_.data() + at, bytes, piece.device_offset);
  });
  buffer_logical_start_ += buffered_;
  buffered_ = 0;
  return status;
}

Status StripedWriter::finish(FileSync sync) {
  SG_RETURN_IF_ERROR(flush());
  for (uint32_t d = 0; d < files_.size(); ++d) {
    // Devices that got no stripe still get an (empty) file, so a graph's
    // device set is always complete.
    if (::ftruncate(files_[d].fd(), static_cast<off_t>(device_bytes(d))) != 0) {
      return Status::IOError(files_[d].path() + ": truncate: " + errno_text(errno));
    }
    SG_RETURN_IF_ERROR(files_[d].finish_writes(sync));
    SG_RETURN_IF_ERROR(files_[d].close());
  }
  return Status::OK();
}

}  // namespace sg
