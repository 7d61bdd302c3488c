// ChunkListReader (chunk_lists.h): reads codecs 1, 2 and 3.
#include <algorithm>
#include <cassert>
#include <cstring>
#include <string>

#include "compression/adjacency_codec.h"
#include "compression/bits.h"
#include "compression/chunk_lists.h"
#include "compression/chunk_packing.h"
#include "compression/simd_x86.h"
#include "compression/varint.h"

namespace sg {
namespace {

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

#if defined(__x86_64__)
// Gaps into ids eight at a time, while a group's gaps are all of the gap
// kind and below 2^28 (each symbol at most 28): their sums then fit 32
// bits. Ids are the 32-bit running sum plus the group's; the 64-bit
// running sum the caller checks grows by the group's total, so an id that
// wrapped is refused with the list. Returns the gaps done.
__attribute__((target("avx2"))) uint32_t sum_gap_groups_avx2(const uint32_t* gaps, const uint8_t* symbols,
                                                             uint32_t count, uint64_t* running, uint32_t* out) {
  const __m128i largest_symbol = _mm_set1_epi8(28);
  uint64_t sum = *running;
  uint32_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m128i group_symbols = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(symbols + i));
    if (_mm_cvtsi128_si64(_mm_subs_epu8(group_symbols, largest_symbol)) != 0) break;
    const __m256i values = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(gaps + i));
    const __m256i prefix = prefix_sum_8x32(values);
    const __m256i ids = _mm256_add_epi32(prefix, _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(sum))));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), ids);
    sum += static_cast<uint32_t>(_mm256_extract_epi32(prefix, 7));
  }
  *running = sum;
  return i;
}

#endif

uint32_t sum_gap_groups(const uint32_t* gaps, const uint8_t* symbols, uint32_t count, uint64_t* running,
                        uint32_t* out) {
#if defined(__x86_64__)
  if (cpu_has_avx2()) return sum_gap_groups_avx2(gaps, symbols, count, running, out);
#endif
  (void)gaps, (void)symbols, (void)count, (void)running, (void)out;
  return 0;
}

}  // namespace

Status ChunkListReader::error(const char* what) const {
  return Status::Corruption("vertex " + std::to_string(vertex_) + ": " + what);
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
  if (codec_ == ListCodec::kV1) return Status::OK();
  if (p_ >= end_) return Status::Corruption("chunk has no layout byte");
  const uint8_t byte = *p_++;
  const bool packed = codec_ == ListCodec::kV3 && (byte & kPackedLayoutBit) != 0;
  const uint8_t layout = packed ? static_cast<uint8_t>(byte & ~kPackedLayoutBit) : byte;
  const uint8_t largest = codec_ == ListCodec::kV2 ? 1 : static_cast<uint8_t>(2 * kGapLayouts - 1);
  if (layout > largest) return Status::Corruption("unknown chunk layout " + std::to_string(byte));
  layout_.anchor = static_cast<AnchorMode>(layout & 1);
  layout_.gaps = static_cast<GapCoding>(layout >> 1);
  if (packed) SG_RETURN_IF_ERROR(unpack_chunk_lists(p_, end_, &p_, &end_));
  if (entropy()) {
    SG_RETURN_IF_ERROR(entropy_.open(p_, end_));
    p_ = end_;  // every value comes from the entropy stream
    return Status::OK();
  }
  return gap_stream() ? open_gap_stream() : Status::OK();
}

// Finds the header and the gap stream, and checks the stream's data bytes
// (from its control bytes) fill the payload exactly.
Status ChunkListReader::open_gap_stream() {
  uint64_t gaps = 0, header_bytes = 0;
  p_ = get_varint64(p_, end_, &gaps);
  if (p_ == nullptr || gaps > UINT32_MAX) return Status::Corruption("malformed gap count");
  p_ = get_varint64(p_, end_, &header_bytes);
  if (p_ == nullptr || header_bytes > static_cast<uint64_t>(end_ - p_))
    return Status::Corruption("list header runs past the chunk");
  const uint8_t* header_end = p_ + header_bytes;
  if (svb_control_bytes(gaps) > static_cast<uint64_t>(end_ - header_end))
    return Status::Corruption("gap control bytes run past the chunk");
  lengths_ = layout_.gaps == GapCoding::kStreamVByteRuns ? SvbLengths::k0124 : SvbLengths::k1234;
  gap_plus_ = layout_.gaps == GapCoding::kStreamVByteRuns ? 1 : 0;
  control_ = header_end;
  data_ = header_end + svb_control_bytes(gaps);
  data_end_ = end_;
  if (svb_data_bytes(lengths_, control_, gaps) != static_cast<uint64_t>(data_end_ - data_))
    return Status::Corruption("gap data bytes differ from what their control bytes say");
  end_ = header_end;
  stream_gaps_ = unread_gaps_ = gaps;
  return Status::OK();
}

Status ChunkListReader::next(uint32_t max_count, uint32_t* count) {
  if (vertices_left_ == 0) return Status::Corruption("more lists read than the chunk has vertices");
  if (started_) ++vertex_;
  started_ = true;
  --vertices_left_;
  if (codec_ == ListCodec::kV1) {
    p_ = get_varint32(p_, end_, count);
    if (p_ == nullptr) return error("malformed list length");
  } else if (empty_left_ > 0) {
    --empty_left_;
    *count = 0;
  } else {
    uint64_t token = 0;
    SG_RETURN_IF_ERROR(read_token(&token));
    SG_RETURN_IF_ERROR(take_token(token, count));
  }
  if (*count > max_count) return error("more edges than the index says");
  // Each neighbour takes at least one byte, or a first neighbour and
  // gaps, or one value of the entropy stream.
  if (entropy()      ? *count > entropy_.values_left()
      : gap_stream() ? *count > 0 && (*count - 1 > unread_gaps_ || p_ >= end_)
                     : *count > static_cast<uint64_t>(end_ - p_))
    return error("list longer than its bytes");
  return Status::OK();
}

// What a token of codecs 2 and 3 says of the current vertex: a run of
// empty lists (the rest of the run left in empty_left_, within the chunk's
// vertices after this one) or its list's length.
Status ChunkListReader::take_token(uint64_t token, uint32_t* count) {
  if (token % 2 == 0) {
    const uint64_t run = token / 2;
    if (run == 0 || run - 1 > vertices_left_) return error("empty run past the chunk");
    empty_left_ = static_cast<uint32_t>(run - 1);
    *count = 0;
    return Status::OK();
  }
  if (token / 2 >= UINT32_MAX) return error("list length out of range");
  *count = static_cast<uint32_t>(token / 2 + 1);
  return Status::OK();
}

Status ChunkListReader::read_token(uint64_t* token) {
  if (entropy()) return entropy_.get(kEntropyTokenBase, token).ok() ? Status::OK() : error("malformed list token");
  p_ = get_varint64(p_, end_, token);
  if (p_ == nullptr) return error("malformed list token");
  return Status::OK();
}

Status ChunkListReader::decode(uint32_t count, uint32_t* out) {
  if (count == 0) return Status::OK();
  if (entropy()) return decode_from_entropy(count, out);
  if (gap_stream()) return decode_from_stream(count, out);
  Status s = decode_neighbours(&p_, end_, anchor(), num_vertices_, count, out);
  if (!s.ok()) return Status::Corruption("vertex " + std::to_string(vertex_) + ": " + s.message());
  have_previous_ = true;
  previous_first_ = out[0];
  return Status::OK();
}

Status ChunkListReader::skip(uint32_t count) {
  if (count == 0) return Status::OK();
  if (entropy()) {  // a value's raw bits follow from its bucket: no skipping without decoding
    uint64_t gap = 0;
    uint32_t first = 0;
    SG_RETURN_IF_ERROR(read_first(&first));
    for (uint32_t i = 1; i < count; ++i) {
      if (!entropy_.get(kEntropyGapBase, &gap).ok()) return error("malformed gap");
    }
    return Status::OK();
  }
  if (gap_stream()) {
    uint32_t first = 0;
    SG_RETURN_IF_ERROR(read_first(&first));
    return skip_in_stream(count - 1);
  }
  if (layout_.anchor == AnchorMode::kPreviousFirst) {  // the next list's anchor is this list's first neighbour
    uint32_t first = 0;
    Status s = decode_neighbours(&p_, end_, anchor(), num_vertices_, 1, &first);
    if (!s.ok()) return Status::Corruption("vertex " + std::to_string(vertex_) + ": " + s.message());
    have_previous_ = true;
    previous_first_ = first;
    --count;
  }
  p_ = skip_varints(p_, end_, count);
  if (p_ == nullptr) return error("list runs past the chunk");
  return Status::OK();
}

// The first neighbour, from the header (gap-stream layouts) or the
// entropy stream.
Status ChunkListReader::read_first(uint32_t* first) {
  uint64_t raw = 0;
  if (entropy()) {
    if (!entropy_.get(kEntropyFirstBase, &raw).ok()) return error("malformed first neighbour");
  } else {
    p_ = get_varint64(p_, end_, &raw);
    if (p_ == nullptr) return error("malformed first neighbour");
  }
  return first_from(raw, first);
}

// The first neighbour from its coded offset against the anchor.
Status ChunkListReader::first_from(uint64_t raw, uint32_t* first) {
  if (raw > (uint64_t{1} << 33)) return error("first neighbour offset out of range");
  const int64_t id = static_cast<int64_t>(anchor()) + zigzag_decode(raw);
  if (id < 0 || id >= static_cast<int64_t>(num_vertices_)) return error("neighbour id out of range");
  *first = static_cast<uint32_t>(id);
  have_previous_ = true;
  previous_first_ = *first;
  return Status::OK();
}

// Decodes the next block of gaps; next() has checked there are more.
void ChunkListReader::refill() {
  assert(decoded_gaps_ < stream_gaps_ && decoded_gaps_ % 4 == 0);
  const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(kBlockGaps, stream_gaps_ - decoded_gaps_));
  data_ = svb_decode(lengths_, control_ + decoded_gaps_ / 4, data_, data_end_, n, block_);
  decoded_gaps_ += n;
  block_at_ = 0;
  block_size_ = n;
}

Status ChunkListReader::decode_from_stream(uint32_t count, uint32_t* out) {
  assert(count - 1 <= unread_gaps_);
  SG_RETURN_IF_ERROR(read_first(out));
  unread_gaps_ -= count - 1;
  // Gaps are unsigned, so ids only grow: one range check at the end covers
  // the whole list (the sum is kept in 64 bits so it cannot wrap).
  uint64_t value = out[0];
  for (uint32_t i = 1; i < count;) {
    if (block_at_ == block_size_) refill();
    const uint32_t n = std::min(count - i, block_size_ - block_at_);
    const uint32_t* gaps = block_ + block_at_;
    for (uint32_t j = 0; j < n; ++j) {
      value += uint64_t{gaps[j]} + gap_plus_;
      out[i + j] = static_cast<uint32_t>(value);
    }
    i += n;
    block_at_ += n;
  }
  if (value >= num_vertices_) return error("neighbour id out of range");
  return Status::OK();
}

// Skips gaps: what is left of the block, whole blocks by their control
// bytes alone, then part of the next block.
Status ChunkListReader::skip_in_stream(uint32_t gaps) {
  assert(gaps <= unread_gaps_);
  unread_gaps_ -= gaps;
  const uint32_t from_block = std::min(gaps, block_size_ - block_at_);
  block_at_ += from_block;
  gaps -= from_block;
  while (gaps >= kBlockGaps) {
    data_ += svb_data_bytes(lengths_, control_ + decoded_gaps_ / 4, kBlockGaps);
    decoded_gaps_ += kBlockGaps;
    gaps -= kBlockGaps;
  }
  if (gaps > 0) {
    refill();
    block_at_ = gaps;
  }
  return Status::OK();
}

// Gaps are below 2^32 each (their buckets are checked), so a list's
// 64-bit sum cannot wrap before the one range check at its end.
Status ChunkListReader::decode_from_entropy(uint32_t count, uint32_t* out) {
  SG_RETURN_IF_ERROR(read_first(out));
  uint64_t value = out[0];
  if (!entropy_.sum(kEntropyGapBase, count - 1, &value, out + 1)) return error("malformed gap");
  if (value >= num_vertices_) return error("neighbour id out of range");
  return Status::OK();
}

// A list of a StreamVByte layout from the gaps decode_all() decoded at
// once. List k's ids are written at or before its gaps' slots, and each
// gap is read before its slot is written.
Status ChunkListReader::decode_from_decoded_gaps(const uint32_t* gaps, uint32_t count, uint32_t* out) {
  SG_RETURN_IF_ERROR(read_first(out));
  const uint32_t* list_gaps = gaps + (stream_gaps_ - unread_gaps_);
  unread_gaps_ -= count - 1;
  uint64_t value = out[0];
  for (uint32_t j = 1; j < count; ++j) {
    value += uint64_t{list_gaps[j - 1]} + gap_plus_;
    out[j] = static_cast<uint32_t>(value);
  }
  if (value >= num_vertices_) return error("neighbour id out of range");
  return Status::OK();
}

Status ChunkListReader::decode_all(uint32_t edges, uint32_t* neighbours, uint32_t* starts, uint32_t start_base) {
  assert((gap_stream() || entropy()) && !started_);
  if (entropy()) return decode_all_entropy(edges, neighbours, starts, start_base);
  // The gaps in one run, into the end of `neighbours`.
  if (stream_gaps_ > edges) return Status::Corruption("more gaps than the chunk has edges");
  uint32_t* gaps = neighbours + (edges - static_cast<uint32_t>(stream_gaps_));
  data_ = svb_decode(lengths_, control_, data_, data_end_, static_cast<uint32_t>(stream_gaps_), gaps);
  decoded_gaps_ = stream_gaps_;
  uint32_t position = 0;
  for (uint32_t i = 0; vertices_left_ > 0; ++i) {
    uint32_t count = 0;
    SG_RETURN_IF_ERROR(next(edges - position, &count));
    if (i > 0) starts[i] = start_base + position;
    if (count == 0) continue;
    SG_RETURN_IF_ERROR(decode_from_decoded_gaps(gaps, count, neighbours + position));
    position += count;
  }
  if (position != edges) return Status::Corruption("edge count differs from index");
  return finish();
}

// The entropy layout's decode_all: its values a block at a time, every
// kind in one loop (take_narrow), the lists read from the block. The
// checks are next()'s, decode()'s and finish()'s.
Status ChunkListReader::decode_all_entropy(uint32_t edges, uint32_t* neighbours, uint32_t* starts,
                                           uint32_t start_base) {
  const uint32_t first_vertex = vertex_;
  const uint32_t vertex_count = vertices_left_;
  block_at_ = block_size_ = 0;
  uint32_t position = 0;
  for (uint32_t i = 0; i < vertex_count; ++i) {
    vertex_ = first_vertex + i;
    vertices_left_ = vertex_count - 1 - i;
    if (i > 0) starts[i] = start_base + position;
    if (empty_left_ > 0) {
      --empty_left_;
      continue;
    }
    uint64_t token = 0;
    if (!entropy_value(kEntropyTokenBase, &token)) return error("malformed list token");
    uint32_t count = 0;
    SG_RETURN_IF_ERROR(take_token(token, &count));
    if (count == 0) continue;
    if (count > edges - position) return error("more edges than the index says");
    SG_RETURN_IF_ERROR(decode_entropy_list(count, neighbours + position));
    position += count;
  }
  started_ = true;
  if (block_at_ != block_size_) return Status::Corruption("entropy stream: values left after the last list");
  if (position != edges) return Status::Corruption("edge count differs from index");
  return finish();
}

// One list of decode_all_entropy: its first neighbour, then its gaps.
Status ChunkListReader::decode_entropy_list(uint32_t count, uint32_t* out) {
  uint64_t raw = 0;
  if (!entropy_value(kEntropyFirstBase, &raw)) return error("malformed first neighbour");
  SG_RETURN_IF_ERROR(first_from(raw, out));
  uint64_t value = out[0];
  if (!sum_entropy_gaps(count - 1, &value, out + 1)) return error("malformed gap");
  if (value >= num_vertices_) return error("neighbour id out of range");
  return Status::OK();
}

// The next value, of the kind at `base`: from the block, or on its own
// when it is wider than a block holds (a bucket over 32).
bool ChunkListReader::entropy_value(uint8_t base, uint64_t* value) {
  if (block_at_ == block_size_ && !refill_entropy()) return false;
  if (block_at_ == block_size_) return entropy_.get(base, value).ok();
  if ((block_symbols_[block_at_] & ~(kEntropyKindSpan - 1)) != base) return false;
  *value = block_[block_at_++];
  return true;
}

// Adds `gaps` gaps in turn to *sum, storing each sum. Gaps are below 2^32
// (a wider one is malformed), so the 64-bit sum cannot wrap.
bool ChunkListReader::sum_entropy_gaps(uint32_t gaps, uint64_t* sum, uint32_t* out) {
  static_assert(kEntropyGapBase == 0, "a gap's symbol is its bucket");
  uint64_t running = *sum;
  while (gaps > 0) {
    if (block_at_ == block_size_ && (!refill_entropy() || block_size_ == 0)) return false;
    const uint32_t n = std::min(gaps, block_size_ - block_at_);
    const uint32_t* values = block_ + block_at_;
    const uint8_t* symbols = block_symbols_ + block_at_;
    uint32_t kinds = 0;
    for (uint32_t j = sum_gap_groups(values, symbols, n, &running, out); j < n; ++j) {
      kinds |= symbols[j];
      running += values[j];
      out[j] = static_cast<uint32_t>(running);
    }
    if ((kinds & ~uint32_t{kEntropyKindSpan - 1}) != 0) return false;
    out += n;
    gaps -= n;
    block_at_ += n;
  }
  *sum = running;
  return true;
}

bool ChunkListReader::refill_entropy() {
  block_symbols_ = entropy_.next_symbol();
  block_at_ = 0;
  return entropy_.take_narrow(kBlockGaps, block_, &block_size_);
}

Status ChunkListReader::finish() const {
  if (vertices_left_ != 0) return Status::Corruption("fewer lists read than the chunk has vertices");
  if (empty_left_ != 0) return Status::Corruption("empty run past the chunk");
  if (p_ != end_) return Status::Corruption("trailing bytes after the last list");
  if (unread_gaps_ != 0) return Status::Corruption("gaps left after the last list");
  return entropy() ? entropy_.finish() : Status::OK();
}

}  // namespace sg
