#include "compression/chunk_lists.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "compression/varint.h"

namespace sg {
namespace {

uint64_t zigzag_offset(uint32_t value, uint32_t anchor) {
  return zigzag_encode(static_cast<int64_t>(value) - static_cast<int64_t>(anchor));
}

// Every token is below 2^33 (counts and runs times two, offsets between
// 32-bit ids zigzagged): 5 bytes at most, half of a 64-bit varint's 10.
constexpr uint64_t kMaxTokenBytes = 5;

// Walks the lists' parts in stored order, calling sink.token(t) per token
// (codec 1: per vertex its length), sink.first(z) per list with its first
// neighbour zigzagged against its anchor, then sink.gaps(p, n) with its
// n gaps. The one place that decides runs and anchors when writing.
template <typename Sink>
void visit_lists(ListCodec codec, AnchorMode mode, uint32_t first_vertex, const ChunkListParts& parts, Sink& sink) {
  const uint32_t* gaps = parts.gaps;
  size_t list = 0;
  bool have_previous = false;
  uint32_t previous_first = 0;
  uint32_t empty_run = 0;
  for (size_t i = 0; i < parts.counts.size(); ++i) {
    const uint32_t count = parts.counts[i];
    const uint32_t vertex = first_vertex + static_cast<uint32_t>(i);
    if (codec == ListCodec::kV1) {
      sink.token(count);
      if (count == 0) continue;
    } else {
      if (count == 0) {
        ++empty_run;
        continue;
      }
      if (empty_run > 0) sink.token(uint64_t{empty_run} * 2);
      empty_run = 0;
      sink.token(uint64_t{count} * 2 - 1);
    }
    assert(list < parts.firsts.size());
    const uint32_t first = parts.firsts[list];
    const uint32_t anchor =
        codec != ListCodec::kV1 && mode == AnchorMode::kPreviousFirst && have_previous ? previous_first : vertex;
    sink.first(zigzag_offset(first, anchor));
    sink.gaps(gaps, count - 1);  // a one-neighbour list has no gaps (gaps may be null)
    gaps += count - 1;
    have_previous = true;
    previous_first = first;
    ++list;
  }
  if (empty_run > 0) sink.token(uint64_t{empty_run} * 2);
}

// Writes the tokens and first neighbours of the lists at `dst`, and each
// list's varint gaps after its first neighbour when `with_gaps`. Codec 1
// writes a length per vertex instead of tokens.
uint8_t* write_lists(ListCodec codec, AnchorMode mode, uint32_t first_vertex, const ChunkListParts& parts,
                     bool with_gaps, uint8_t* dst) {
  struct VarintSink {
    uint8_t* dst;
    bool with_gaps;
    void token(uint64_t t) { dst = put_varint64(dst, t); }
    void first(uint64_t z) { dst = put_varint64(dst, z); }
    void gaps(const uint32_t* p, uint32_t n) {
      if (!with_gaps) return;
      for (uint32_t i = 0; i < n; ++i) dst = put_varint64(dst, p[i]);
    }
  } sink{dst, with_gaps};
  visit_lists(codec, mode, first_vertex, parts, sink);
  return sink.dst;
}

// Writes the parts' `gaps` gaps (minus `minus` each) as one StreamVByte
// stream at `dst`, a bounded batch at a time so no chunk-sized scratch is
// needed; returns the end.
uint8_t* write_gap_stream(SvbLengths lengths, uint32_t minus, const ChunkListParts& parts, uint64_t gaps,
                          uint8_t* dst) {
  constexpr uint32_t kBatch = 1024;  // a multiple of 4: batches' control bytes join up
  uint32_t batch[kBatch];
  uint8_t coded[svb_max_bytes(kBatch)];
  uint8_t* control = dst;
  uint8_t* data = dst + svb_control_bytes(gaps);
  for (uint64_t done = 0; done < gaps;) {
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(kBatch, gaps - done));
    for (uint32_t i = 0; i < n; ++i) {
      assert(parts.gaps[done + i] >= minus);
      batch[i] = parts.gaps[done + i] - minus;
    }
    done += n;
    const size_t control_bytes = svb_control_bytes(n);
    const size_t coded_bytes = svb_encode(lengths, batch, n, coded);
    std::memcpy(control, coded, control_bytes);
    std::memcpy(data, coded + control_bytes, coded_bytes - control_bytes);
    control += control_bytes;
    data += coded_bytes - control_bytes;
  }
  assert(control == dst + svb_control_bytes(gaps));
  return data;
}

// A StreamVByte layout: gap count, header length, header, gap stream.
void write_gap_stream_lists(ChunkLayout layout, uint32_t first_vertex, const ChunkListParts& parts,
                            std::vector<uint8_t>* out) {
  const bool runs = layout.gaps == GapCoding::kStreamVByteRuns;
  uint64_t gaps = 0;
  for (uint32_t count : parts.counts) gaps += count > 0 ? count - 1 : 0;
  const uint64_t lists = parts.firsts.size();
  const uint64_t max_header = (3 * lists + 1) * kMaxTokenBytes;
  const size_t start = out->size();
  out->resize(start + 1 + 2 * kMaxTokenBytes + max_header + svb_max_bytes(gaps));
  uint8_t* dst = out->data() + start;
  *dst++ = layout.byte();
  dst = put_varint64(dst, gaps);
  // The header is written past room for its own length, then moved down.
  uint8_t* header = dst + kMaxTokenBytes;
  const uint64_t header_bytes =
      static_cast<uint64_t>(write_lists(ListCodec::kV3, layout.anchor, first_vertex, parts, false, header) - header);
  dst = put_varint64(dst, header_bytes);
  std::memmove(dst, header, header_bytes);
  dst += header_bytes;
  dst = write_gap_stream(runs ? SvbLengths::k0124 : SvbLengths::k1234, runs ? 1 : 0, parts, gaps, dst);
  out->resize(static_cast<size_t>(dst - out->data()));
}

// The entropy layout: every token, first neighbour and gap as one
// entropy stream. False if the coder failed (out of memory).
bool write_entropy_lists(ChunkLayout layout, uint32_t first_vertex, const ChunkListParts& parts,
                         std::vector<uint8_t>* out) {
  struct EntropySink {
    EntropyWriter& writer;
    void token(uint64_t t) { writer.put(kEntropyTokenBase, t); }
    void first(uint64_t z) { writer.put(kEntropyFirstBase, z); }
    void gaps(const uint32_t* p, uint32_t n) { writer.put_many(kEntropyGapBase, p, n); }
  };
  thread_local EntropyWriter writer;
  writer.clear();
  EntropySink sink{writer};
  visit_lists(ListCodec::kV3, layout.anchor, first_vertex, parts, sink);
  const size_t start = out->size();
  out->push_back(layout.byte());
  if (writer.finish(out)) return true;
  out->resize(start);
  return false;
}

}  // namespace

uint64_t entropy_lists_thread_bytes(uint64_t lists_bytes) {
  // htscodecs' order-1 rANS: 256 x 256 encoder symbols of 16 bytes and
  // 4-byte frequencies. A value's bucket byte and raw bits take about its
  // bytes in the lists, and the frame less than the buckets.
  constexpr uint64_t kTableBytes = 256 * 256 * (16 + 4);
  return 2 * lists_bytes + kTableBytes;
}

// The sizes are compares without branches, so the loop vectorizes.
GapSizes encode_gaps(const uint32_t* ids, uint32_t count, uint32_t* gaps) {
  uint64_t varint_bytes = 0, stream_bytes = 0, runs_bytes = 0;
  uint32_t zeros = 0;
  for (uint32_t i = 1; i < count; ++i) {
    const uint32_t gap = ids[i] - ids[i - 1];
    gaps[i - 1] = gap;
    varint_bytes += static_cast<uint32_t>(varint32_length(gap));
    stream_bytes += svb_value_bytes(SvbLengths::k1234, gap);
    // StreamVByteRuns codes gap - 1; it cannot code a zero gap (repeats).
    runs_bytes += (gap != 0) * svb_value_bytes(SvbLengths::k0124, gap - 1);
    zeros += gap == 0;
  }
  GapSizes sizes;
  sizes.gaps = count > 0 ? count - 1 : 0;
  sizes.bytes[0] = varint_bytes;
  sizes.bytes[1] = stream_bytes;
  sizes.bytes[2] = runs_bytes;
  sizes.repeats = zeros > 0;
  return sizes;
}

void ChunkListSizer::reset(uint32_t first_vertex, GapChoice choice) {
  *this = ChunkListSizer{};
  choice_ = choice;
  next_vertex_ = first_vertex;
}

void ChunkListSizer::add_empty() {
  ++empty_run_;
  ++next_vertex_;
}

void ChunkListSizer::add_list(uint32_t first, uint32_t count, const GapSizes& gaps) {
  assert(count > 0 && gaps.gaps + 1 == count);
  if (empty_run_ > 0) token_bytes_ += varint_length(uint64_t{empty_run_} * 2);
  empty_run_ = 0;
  token_bytes_ += varint_length(uint64_t{count} * 2 - 1);
  first_bytes_[0] += varint_length(zigzag_offset(first, next_vertex_));
  first_bytes_[1] += varint_length(zigzag_offset(first, have_previous_ ? previous_first_ : next_vertex_));
  gaps_ += gaps.gaps;
  for (int c = 0; c < kGapCodings; ++c) gap_bytes_[c] += gaps.bytes[c];
  repeats_ |= gaps.repeats;
  have_previous_ = true;
  previous_first_ = first;
  ++next_vertex_;
}

uint64_t ChunkListSizer::header_bytes(AnchorMode mode) const {
  const uint64_t pending = empty_run_ > 0 ? varint_length(uint64_t{empty_run_} * 2) : 0;
  return token_bytes_ + pending + first_bytes_[static_cast<int>(mode)];
}

uint64_t ChunkListSizer::bytes(ChunkLayout layout) const {
  const uint64_t header = header_bytes(layout.anchor);
  const int coding = static_cast<int>(layout.gaps);
  if (layout.gaps == GapCoding::kVarint) return 1 + header + gap_bytes_[0];
  return 1 + varint_length(gaps_) + varint_length(header) + header + svb_control_bytes(gaps_) + gap_bytes_[coding];
}

AnchorMode ChunkListSizer::best_anchor() const {
  return first_bytes_[1] < first_bytes_[0] ? AnchorMode::kPreviousFirst : AnchorMode::kVertex;
}

ChunkLayout ChunkListSizer::best_stream_layout() const {
  ChunkLayout stream{best_anchor()};
  if (gaps_ == 0) return stream;
  stream.gaps = GapCoding::kStreamVByte;
  ChunkLayout runs = stream;
  runs.gaps = GapCoding::kStreamVByteRuns;
  return !repeats_ && bytes(runs) < bytes(stream) ? runs : stream;
}

ChunkLayout ChunkListSizer::best_layout() const {
  const ChunkLayout varint{best_anchor()};
  if (choice_ == GapChoice::kVarintOnly || gaps_ == 0) return varint;
  const ChunkLayout stream = best_stream_layout();
  const uint64_t varint_bytes = bytes(varint), stream_bytes = bytes(stream);
  if (choice_ == GapChoice::kSmallest || choice_ == GapChoice::kEntropy) {
    return stream_bytes < varint_bytes ? stream : varint;
  }
  return static_cast<double>(varint_bytes) < (1.0 - kFastSlack) * static_cast<double>(stream_bytes) ? varint : stream;
}

void write_chunk_lists(ListCodec codec, ChunkLayout layout, uint32_t first_vertex, const ChunkListParts& parts,
                       std::vector<uint8_t>* out) {
  if (codec == ListCodec::kV3 && layout.gaps == GapCoding::kEntropy) {
    if (write_entropy_lists(layout, first_vertex, parts, out)) return;
    layout.gaps = GapCoding::kVarint;  // the coder could not allocate: a layout that needs no memory
  }
  if (codec == ListCodec::kV3 && layout.gaps != GapCoding::kVarint) {
    write_gap_stream_lists(layout, first_vertex, parts, out);
    return;
  }
  uint64_t gap_total = 0;
  for (uint32_t count : parts.counts) gap_total += count > 0 ? count - 1 : 0;
  const size_t start = out->size();
  // At most: per list its count and first neighbour; per vertex a count
  // (codec 1) or per run of empty lists one token (a run before each list
  // and one at the end). Sized by lists, not vertices: a chunk of empty
  // lists spans 64 Ki vertices in a few bytes, and the encoder's output
  // buffer keeps its largest size.
  const uint64_t lists = parts.firsts.size();
  const uint64_t counts = codec == ListCodec::kV1 ? parts.counts.size() : 2 * lists + 1;
  out->resize(start + 1 + counts * kMaxTokenBytes + lists * kMaxTokenBytes + gap_total * kMaxVarint32Bytes);
  uint8_t* dst = out->data() + start;
  if (codec != ListCodec::kV1) *dst++ = ChunkLayout{layout.anchor, GapCoding::kVarint}.byte();
  dst = write_lists(codec, layout.anchor, first_vertex, parts, true, dst);
  out->resize(static_cast<size_t>(dst - out->data()));
}

void encode_chunk_lists(ListCodec codec, ChunkLayout layout, uint32_t first_vertex, std::span<const uint32_t> counts,
                        const uint32_t* neighbours, std::vector<uint8_t>* out) {
  std::vector<uint32_t> firsts, gaps;
  for (uint32_t count : counts) {
    if (count == 0) continue;
    firsts.push_back(neighbours[0]);
    const size_t at = gaps.size();
    gaps.resize(at + count - 1);
    encode_gaps(neighbours, count, gaps.data() + at);
    neighbours += count;
  }
  write_chunk_lists(codec, layout, first_vertex, ChunkListParts{counts, firsts, gaps.data()}, out);
}

}  // namespace sg
