// Sorted per-vertex lists of 64-bit values that a kernel builds once and
// reads back in many passes (LCC's oriented neighbour lists), kept in a
// scratch file instead of being rebuilt from the graph for every pass.
//
// A list is its length and the gaps between its values, as varints. Lists
// are packed into segments of about kSegmentBytes, each knowing its vertex
// range, its byte range, how many values it holds, its smallest and
// largest value and an XXH3 checksum; passes read runs of whole segments in
// large sequential reads (O_DIRECT where the file system has it) and
// decode segments in parallel. Writes go out in large aligned pieces.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/aligned_buffer.h"
#include "base/file_util.h"
#include "base/status.h"
#include "compression/varint.h"

namespace sg {

class ListSpill {
 public:
  static constexpr uint64_t kSegmentBytes = uint64_t{256} << 10;
  static constexpr uint64_t kWriteBytes = uint64_t{1} << 20;  // a write an HDD takes at full speed

  struct Segment {
    uint32_t begin = 0, end = 0;  // vertices
    uint64_t offset = 0, bytes = 0;
    uint64_t values = 0;
    uint64_t lowest = UINT64_MAX, highest = 0;  // over all its values
    uint64_t checksum = 0;
  };

  // An unnamed file near `scratch_path`, gone with the process; the first
  // list appended is vertex `first_vertex`'s.
  Status create(const std::string& scratch_path, uint32_t first_vertex = 0);
  // Appends the lists of vertices [first, first + count), which follow the
  // vertices appended before: the i-th is values[start[i], start[i + 1]),
  // ascending.
  Status append(uint32_t first, uint32_t count, const uint64_t* start, const uint64_t* values);
  // Appends a segment another spill wrote (its `bytes`, checked against its
  // checksum), as it is: another rank's lists (distributed LCC).
  Status append_segment(const Segment& segment, const uint8_t* bytes);
  // Writes what is buffered; no appends after.
  Status finish();

  const std::vector<Segment>& segments() const { return segments_; }
  uint64_t bytes() const { return logical_bytes_; }
  uint64_t bytes_read() const { return bytes_read_; }
  uint64_t bytes_written() const { return bytes_written_; }

  // Reads segments [first, last) into `buffer` (grown if needed), checks
  // their checksums, and sets *at to the first one's bytes; the others
  // follow back to back.
  Status read(size_t first, size_t last, AlignedBuffer* buffer, const uint8_t** at);

  // Calls f(v, list) for each vertex of a segment `read` returned, in
  // order; `list` is the caller's storage for the decoded values.
  template <typename F>
  static Status decode(const Segment& segment, const uint8_t* bytes, std::vector<uint64_t>* list, F&& f) {
    const uint8_t* p = bytes;
    const uint8_t* const end = bytes + segment.bytes;
    uint64_t values = 0;
    for (uint32_t v = segment.begin; v < segment.end; ++v) {
      uint64_t count = 0;
      p = get_varint64(p, end, &count);
      if (p == nullptr || count > static_cast<uint64_t>(end - p)) return Status::Corruption("spilled list: bad length");
      list->resize(count);
      uint64_t value = 0;
      for (uint64_t k = 0; k < count; ++k) {
        uint64_t gap = 0;
        p = get_varint64(p, end, &gap);
        if (p == nullptr) return Status::Corruption("spilled list: bad value");
        value += gap;
        (*list)[k] = value;
      }
      values += count;
      f(v, std::span<const uint64_t>(list->data(), count));
    }
    if (p != end || values != segment.values) return Status::Corruption("spilled list: segment size mismatch");
    return Status::OK();
  }

 private:
  Status close_segment();
  Status write_out(const uint8_t* data, size_t bytes);

  File file_;
  bool direct_ = true;
  std::vector<Segment> segments_;
  Segment open_;                  // the segment being filled
  std::vector<uint8_t> encoded_;  // its bytes
  AlignedBuffer pending_;         // bytes not yet written, from file offset written_end_
  size_t pending_bytes_ = 0;
  uint64_t written_end_ = 0;
  uint64_t logical_bytes_ = 0;
  uint64_t bytes_read_ = 0, bytes_written_ = 0;
  uint32_t next_vertex_ = 0;
  bool finished_ = false;
};

}  // namespace sg
