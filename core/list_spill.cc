#include "core/list_spill.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "base/interrupt.h"
#include "compression/checksum.h"

namespace sg {
namespace {

constexpr uint64_t kAlignBytes = 4096;
constexpr uint64_t kReadPieceBytes = uint64_t{8} << 20;  // an interrupt is seen between pieces

uint64_t round_down(uint64_t x) { return x / kAlignBytes * kAlignBytes; }
uint64_t round_up(uint64_t x) { return (x + kAlignBytes - 1) / kAlignBytes * kAlignBytes; }

}  // namespace

Status ListSpill::create(const std::string& scratch_path, uint32_t first_vertex) {
  direct_ = true;
  SG_RETURN_IF_ERROR(File::create_unnamed(scratch_path, &file_, &direct_));
  pending_.allocate(kWriteBytes);
  segments_.clear();
  open_ = Segment{};
  encoded_.clear();
  pending_bytes_ = 0;
  written_end_ = logical_bytes_ = bytes_read_ = bytes_written_ = 0;
  next_vertex_ = first_vertex;
  finished_ = false;
  return Status::OK();
}

Status ListSpill::append_segment(const Segment& segment, const uint8_t* bytes) {
  assert(file_.is_open() && !finished_);
  if (!encoded_.empty()) SG_RETURN_IF_ERROR(close_segment());
  if (checksum64(bytes, segment.bytes) != segment.checksum)
    return Status::Corruption("spilled lists received: segment checksum mismatch");
  if (segment.begin < next_vertex_ || segment.end < segment.begin)
    return Status::Corruption("spilled lists received out of vertex order");
  Segment copy = segment;
  copy.offset = logical_bytes_;
  segments_.push_back(copy);
  logical_bytes_ += copy.bytes;
  next_vertex_ = segment.end;
  return write_out(bytes, segment.bytes);
}

Status ListSpill::append(uint32_t first, uint32_t count, const uint64_t* start, const uint64_t* values) {
  assert(file_.is_open() && !finished_ && first == next_vertex_);
  for (uint32_t i = 0; i < count; ++i) {
    if (encoded_.empty()) open_ = Segment{first + i, first + i, logical_bytes_, 0, 0, UINT64_MAX, 0, 0};
    const uint64_t* list = values + start[i];
    const uint64_t size = start[i + 1] - start[i];
    const size_t at = encoded_.size();
    encoded_.resize(at + kMaxVarint64Bytes * (size + 1));
    uint8_t* p = put_varint64(encoded_.data() + at, size);
    uint64_t previous = 0;
    for (uint64_t k = 0; k < size; ++k) {
      assert(list[k] >= previous);
      p = put_varint64(p, list[k] - previous);
      previous = list[k];
    }
    encoded_.resize(static_cast<size_t>(p - encoded_.data()));
    if (size > 0) {
      open_.lowest = std::min(open_.lowest, list[0]);
      open_.highest = std::max(open_.highest, list[size - 1]);
    }
    open_.values += size;
    open_.end = first + i + 1;
    if (encoded_.size() >= kSegmentBytes) SG_RETURN_IF_ERROR(close_segment());
  }
  next_vertex_ = first + count;
  return Status::OK();
}

Status ListSpill::close_segment() {
  open_.bytes = encoded_.size();
  open_.checksum = checksum64(encoded_.data(), encoded_.size());
  segments_.push_back(open_);
  logical_bytes_ += open_.bytes;
  SG_RETURN_IF_ERROR(write_out(encoded_.data(), encoded_.size()));
  encoded_.clear();
  return Status::OK();
}

// Copies bytes into the pending buffer, writing it out whenever it fills.
Status ListSpill::write_out(const uint8_t* data, size_t bytes) {
  while (bytes > 0) {
    const size_t piece = std::min(bytes, pending_.size() - pending_bytes_);
    std::memcpy(pending_.data() + pending_bytes_, data, piece);
    pending_bytes_ += piece;
    data += piece;
    bytes -= piece;
    if (pending_bytes_ == pending_.size()) {
      if (interrupt_requested()) return Status::Interrupted("run stopped by a signal");
      SG_RETURN_IF_ERROR(file_.pwrite_all(pending_.data(), pending_bytes_, written_end_));
      bytes_written_ += pending_bytes_;
      written_end_ += pending_bytes_;
      pending_bytes_ = 0;
    }
  }
  return Status::OK();
}

Status ListSpill::finish() {
  assert(!finished_);
  if (!encoded_.empty()) SG_RETURN_IF_ERROR(close_segment());
  if (pending_bytes_ > 0) {  // the tail, zero-padded to whole blocks for O_DIRECT
    const size_t padded = static_cast<size_t>(round_up(pending_bytes_));
    std::memset(pending_.data() + pending_bytes_, 0, padded - pending_bytes_);
    SG_RETURN_IF_ERROR(file_.pwrite_all(pending_.data(), padded, written_end_));
    bytes_written_ += padded;
    written_end_ += padded;
    pending_bytes_ = 0;
  }
  finished_ = true;
  pending_ = AlignedBuffer();  // no appends after: give the memory back
  encoded_ = std::vector<uint8_t>();
  return Status::OK();
}

Status ListSpill::read(size_t first, size_t last, AlignedBuffer* buffer, const uint8_t** at) {
  assert(finished_ && first < last && last <= segments_.size());
  const uint64_t begin = segments_[first].offset;
  const uint64_t end = segments_[last - 1].offset + segments_[last - 1].bytes;
  const uint64_t lo = round_down(begin), hi = round_up(end);  // within the padded file
  if (buffer->size() < hi - lo) buffer->allocate(static_cast<size_t>(hi - lo));
  for (uint64_t offset = lo; offset < hi; offset += kReadPieceBytes) {
    if (interrupt_requested()) return Status::Interrupted("run stopped by a signal");
    const uint64_t piece = std::min(kReadPieceBytes, hi - offset);
    SG_RETURN_IF_ERROR(file_.pread_all(buffer->data() + (offset - lo), static_cast<size_t>(piece), offset));
    bytes_read_ += piece;
  }
  *at = buffer->data() + (begin - lo);
  for (size_t s = first; s < last; ++s) {
    const Segment& segment = segments_[s];
    if (checksum64(*at + (segment.offset - begin), segment.bytes) != segment.checksum) {
      return Status::Corruption(file_.path() + ": spilled lists: segment checksum mismatch");
    }
  }
  return Status::OK();
}

}  // namespace sg
