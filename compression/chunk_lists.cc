#include "compression/chunk_lists.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "compression/adjacency_codec.h"
#include "compression/bits.h"
#include "compression/varint.h"

namespace sg {
namespace {

uint64_t zigzag_offset(uint32_t value, uint32_t anchor) {
  return zigzag_encode(static_cast<int64_t>(value) - static_cast<int64_t>(anchor));
}

// Skips `count` varints: each ends at a byte with a clear high bit. Eight
// bytes at a time while the whole word is known to belong to the list.
const uint8_t* skip_varints(const uint8_t* p, const uint8_t* end, uint32_t count) {
  while (count >= 8 && end - p >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    const uint32_t ends = count_varint_ends(word);
    if (ends > count) break;
    count -= ends;
    p += 8;
  }
  while (count > 0) {
    if (p >= end) return nullptr;
    count -= *p++ < 0x80;
  }
  return p;
}

}  // namespace

void ChunkListSizer::reset(uint32_t first_vertex) {
  *this = ChunkListSizer{};
  next_vertex_ = first_vertex;
}

void ChunkListSizer::add_empty() {
  ++empty_run_;
  ++next_vertex_;
}

void ChunkListSizer::add_list(uint32_t first, uint32_t count, uint64_t gap_bytes) {
  assert(count > 0);
  if (empty_run_ > 0) common_bytes_ += varint_length(uint64_t{empty_run_} * 2);
  empty_run_ = 0;
  common_bytes_ += varint_length(uint64_t{count} * 2 - 1) + gap_bytes;
  vertex_first_bytes_ += varint_length(zigzag_offset(first, next_vertex_));
  previous_first_bytes_ += varint_length(zigzag_offset(first, have_previous_ ? previous_first_ : next_vertex_));
  have_previous_ = true;
  previous_first_ = first;
  ++next_vertex_;
}

uint64_t ChunkListSizer::bytes() const {
  const uint64_t pending = empty_run_ > 0 ? varint_length(uint64_t{empty_run_} * 2) : 0;
  return common_bytes_ + pending + std::min(vertex_first_bytes_, previous_first_bytes_);
}

uint64_t encode_gaps(const uint32_t* ids, uint32_t count, uint8_t* dst) {
  uint8_t* p = dst;
  for (uint32_t i = 1; i < count; ++i) p = put_varint64(p, ids[i] - ids[i - 1]);
  return static_cast<uint64_t>(p - dst);
}

void write_chunk_lists(ListCodec codec, AnchorMode mode, uint32_t first_vertex, const ChunkListParts& parts,
                       std::vector<uint8_t>* out) {
  uint64_t gap_total = 0;
  for (uint32_t bytes : parts.gap_bytes) gap_total += bytes;
  const size_t start = out->size();
  // At most: per list its count and first neighbour; per vertex a count
  // (codec 1) or per run of empty lists one token (codec 2, a run before
  // each list and one at the end). Sized by lists, not vertices: a chunk
  // of empty lists spans 64 Ki vertices in a few bytes, and the encoder's
  // output buffer keeps its largest size.
  // Every token is below 2^33 (counts and runs times two, offsets between
  // 32-bit ids zigzagged): 5 bytes at most, half of a 64-bit varint's 10;
  // a chunk of single-neighbour lists sized at 10 made each encoder's
  // buffer hold up to 8x its output.
  constexpr uint64_t kMaxTokenBytes = 5;
  const uint64_t lists = parts.firsts.size();
  const uint64_t counts = codec == ListCodec::kV1 ? parts.counts.size() : 2 * lists + 1;
  out->resize(start + 1 + counts * kMaxTokenBytes + lists * kMaxTokenBytes + gap_total);
  uint8_t* dst = out->data() + start;
  if (codec == ListCodec::kV2) *dst++ = static_cast<uint8_t>(mode);
  const uint8_t* gaps = parts.gaps;
  size_t list = 0;
  bool have_previous = false;
  uint32_t previous_first = 0;
  uint32_t empty_run = 0;
  for (size_t i = 0; i < parts.counts.size(); ++i) {
    const uint32_t count = parts.counts[i];
    const uint32_t vertex = first_vertex + static_cast<uint32_t>(i);
    if (codec == ListCodec::kV1) {
      dst = put_varint64(dst, count);
      if (count == 0) continue;
    } else {
      if (count == 0) {
        ++empty_run;
        continue;
      }
      if (empty_run > 0) dst = put_varint64(dst, uint64_t{empty_run} * 2);
      empty_run = 0;
      dst = put_varint64(dst, uint64_t{count} * 2 - 1);
    }
    assert(list < parts.firsts.size());
    const uint32_t first = parts.firsts[list];
    const uint32_t anchor =
        codec == ListCodec::kV2 && mode == AnchorMode::kPreviousFirst && have_previous ? previous_first : vertex;
    dst = put_varint64(dst, zigzag_offset(first, anchor));
    if (parts.gap_bytes[list] > 0)
      std::memcpy(dst, gaps, parts.gap_bytes[list]);  // a one-neighbour list has no gaps (gaps may be null)
    dst += parts.gap_bytes[list];
    gaps += parts.gap_bytes[list];
    have_previous = true;
    previous_first = first;
    ++list;
  }
  if (empty_run > 0) dst = put_varint64(dst, uint64_t{empty_run} * 2);
  out->resize(static_cast<size_t>(dst - out->data()));
}

void encode_chunk_lists(uint32_t first_vertex, std::span<const uint32_t> counts, const uint32_t* neighbours,
                        AnchorMode mode, std::vector<uint8_t>* out) {
  std::vector<uint32_t> firsts, gap_bytes;
  std::vector<uint8_t> gaps;
  for (uint32_t count : counts) {
    if (count == 0) continue;
    firsts.push_back(neighbours[0]);
    const size_t at = gaps.size();
    gaps.resize(at + uint64_t{count} * kMaxVarint32Bytes);
    gap_bytes.push_back(static_cast<uint32_t>(encode_gaps(neighbours, count, gaps.data() + at)));
    gaps.resize(at + gap_bytes.back());
    neighbours += count;
  }
  write_chunk_lists(ListCodec::kV2, mode, first_vertex, ChunkListParts{counts, firsts, gap_bytes, gaps.data()}, out);
}

Status ChunkListReader::open(ListCodec codec, const uint8_t* p, const uint8_t* end, uint32_t first_vertex,
                             uint32_t vertex_count, uint32_t num_vertices) {
  *this = ChunkListReader{};
  codec_ = codec;
  p_ = p;
  end_ = end;
  num_vertices_ = num_vertices;
  vertex_ = first_vertex;
  vertices_left_ = vertex_count;
  if (codec_ == ListCodec::kV2) {
    if (p_ >= end_) return Status::Corruption("chunk has no anchor mode");
    if (*p_ > static_cast<uint8_t>(AnchorMode::kPreviousFirst)) return Status::Corruption("unknown anchor mode");
    mode_ = static_cast<AnchorMode>(*p_++);
  }
  return Status::OK();
}

Status ChunkListReader::next(uint32_t max_count, uint32_t* count) {
  if (vertices_left_ == 0) return Status::Corruption("more lists read than the chunk has vertices");
  if (started_) ++vertex_;
  started_ = true;
  --vertices_left_;
  if (codec_ == ListCodec::kV1) {
    p_ = get_varint32(p_, end_, count);
    if (p_ == nullptr) return Status::Corruption("vertex " + std::to_string(vertex_) + ": malformed list length");
  } else if (empty_left_ > 0) {
    --empty_left_;
    *count = 0;
  } else {
    uint64_t token = 0;
    p_ = get_varint64(p_, end_, &token);
    if (p_ == nullptr) return Status::Corruption("vertex " + std::to_string(vertex_) + ": malformed list token");
    if (token % 2 == 0) {
      const uint64_t run = token / 2;
      if (run == 0 || run - 1 > vertices_left_)
        return Status::Corruption("vertex " + std::to_string(vertex_) + ": empty run past the chunk");
      empty_left_ = static_cast<uint32_t>(run - 1);
      *count = 0;
    } else {
      if (token / 2 >= UINT32_MAX)
        return Status::Corruption("vertex " + std::to_string(vertex_) + ": list length out of range");
      *count = static_cast<uint32_t>(token / 2 + 1);
    }
  }
  if (*count > max_count)
    return Status::Corruption("vertex " + std::to_string(vertex_) + ": more edges than the index says");
  // Each neighbour takes at least one byte.
  if (*count > static_cast<uint64_t>(end_ - p_))
    return Status::Corruption("vertex " + std::to_string(vertex_) + ": list longer than its bytes");
  return Status::OK();
}

Status ChunkListReader::decode(uint32_t count, uint32_t* out) {
  if (count == 0) return Status::OK();
  Status s = decode_neighbours(&p_, end_, anchor(), num_vertices_, count, out);
  if (!s.ok()) return Status::Corruption("vertex " + std::to_string(vertex_) + ": " + s.message());
  have_previous_ = true;
  previous_first_ = out[0];
  return Status::OK();
}

Status ChunkListReader::skip(uint32_t count) {
  if (count == 0) return Status::OK();
  if (mode_ == AnchorMode::kPreviousFirst) {  // the next list's anchor is this list's first neighbour
    uint32_t first = 0;
    Status s = decode_neighbours(&p_, end_, anchor(), num_vertices_, 1, &first);
    if (!s.ok()) return Status::Corruption("vertex " + std::to_string(vertex_) + ": " + s.message());
    have_previous_ = true;
    previous_first_ = first;
    --count;
  }
  p_ = skip_varints(p_, end_, count);
  if (p_ == nullptr) return Status::Corruption("vertex " + std::to_string(vertex_) + ": list runs past the chunk");
  return Status::OK();
}

Status ChunkListReader::finish() const {
  if (vertices_left_ != 0) return Status::Corruption("fewer lists read than the chunk has vertices");
  if (empty_left_ != 0) return Status::Corruption("empty run past the chunk");
  if (p_ != end_) return Status::Corruption("trailing bytes after the last list");
  return Status::OK();
}

}  // namespace sg
