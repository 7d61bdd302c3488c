// The adjacency lists of a chunk's consecutive vertices, as one stream
// (docs/formats.md).
//
// Codec 1 (format version 1) codes each list on its own
// (adjacency_codec.h): varint(n), then the first neighbour against the
// vertex id, then gaps. Codec 2 (format version 2) saves what codec 1
// spends on graphs with many empty lists and on first neighbours far from
// their vertex:
//   u8 anchor mode, then per run of vertices one varint token t:
//     t even: t/2 >= 1 vertices with empty lists;
//     t odd:  a list of (t+1)/2 neighbours follows, coded as in codec 1
//             except that its first neighbour is coded against the anchor:
//             the vertex id (mode 0), or the first neighbour of the
//             previous non-empty list of the chunk (mode 1; the vertex id
//             for the chunk's first list).
// Mode 1 wins on graphs ordered so that hubs come first (bfds): most lists
// start at the same few low ids. The encoder sizes both modes and keeps the
// smaller one per chunk.
//
// Codec 3 (format version 3) lets each chunk also move its gaps out of the
// token stream into one StreamVByte stream (stream_vbyte.h), which decodes
// a group of four gaps with one byte shuffle instead of a branch a byte:
//   u8 layout: bit 0 the anchor mode, bits 1-2 the gap coding
//     (GapCoding: 0 varint, 1 StreamVByte 1-2-3-4 bytes, 2 StreamVByte
//     0-1-2-4 bytes of gap - 1, where a run of consecutive ids costs two
//     bits an id; only in chunks without repeated neighbours);
//   gap coding 0: the rest is exactly codec 2 after its mode byte;
//   otherwise: varint(gaps), varint(header bytes), the header (codec 2's
//     tokens and first neighbours, without gaps), the gaps' control bytes,
//     then their data bytes to the end of the payload.
//   gap coding 3 (entropy): the rest is one entropy stream
//     (entropy_stream.h) of codec 2's tokens (kind kEntropyTokenBase),
//     each list's first neighbour against its anchor, zigzagged
//     (kEntropyFirstBase), and its gaps (kEntropyGapBase), in list order.
// The encoder picks each chunk's layout from the sizes of all of them
// (ChunkListSizer::best_layout); `--codec entropy` (GapChoice::kEntropy)
// also tries the entropy layout and keeps it where it is smaller.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "compression/entropy_stream.h"
#include "compression/stream_vbyte.h"

namespace sg {

enum class ListCodec : uint8_t { kV1 = 1, kV2 = 2, kV3 = 3 };

// Anchor modes of codecs 2 and 3.
enum class AnchorMode : uint8_t { kVertex = 0, kPreviousFirst = 1 };

// How codec 3 codes a chunk's gaps.
enum class GapCoding : uint8_t { kVarint = 0, kStreamVByte = 1, kStreamVByteRuns = 2, kEntropy = 3 };
// The gap codings the sizer sizes as lists are added (not the entropy
// one, whose size is known only once coded), and all of them.
constexpr int kGapCodings = 3;
constexpr int kGapLayouts = 4;
// The entropy layout's kinds of value.
inline constexpr uint8_t kEntropyGapBase = 0;
inline constexpr uint8_t kEntropyTokenBase = 64;
inline constexpr uint8_t kEntropyFirstBase = 128;

struct ChunkLayout {
  AnchorMode anchor = AnchorMode::kVertex;
  GapCoding gaps = GapCoding::kVarint;
  uint8_t byte() const { return static_cast<uint8_t>(static_cast<uint8_t>(anchor) | static_cast<uint8_t>(gaps) << 1); }
};

// What a list's gaps take in each gap coding.
struct GapSizes {
  uint32_t gaps = 0;
  uint64_t bytes[kGapCodings] = {0, 0, 0};  // varint; StreamVByte data bytes (no control bytes)
  bool repeats = false;                     // a gap of zero: StreamVByteRuns cannot code it
};
// Writes the count - 1 gaps of ids[0..count) (sorted) at `gaps` and sizes
// them in every coding. They are kept whole (4 bytes each) until the chunk
// is written: a coding that would be decoded again to be recoded cost
// more than the bytes.
GapSizes encode_gaps(const uint32_t* ids, uint32_t count, uint32_t* gaps);

// Which gap codings the encoder may pick for a chunk.
enum class GapChoice : uint8_t {
  kVarintOnly,  // codec 2
  kSmallest,    // the layout of fewest bytes
  kFast,        // StreamVByte unless varint saves more than kFastSlack of the chunk
  kEntropy,     // as kSmallest, or the entropy layout where smaller still (the encoder tries it)
};
// The share of a chunk's bytes kFast gives up to decode faster.
constexpr double kFastSlack = 0.10;

// Sizes a chunk's lists in every layout as they are added, so an encoder
// can cut chunks by their coded size before coding them.
class ChunkListSizer {
 public:
  void reset(uint32_t first_vertex, GapChoice choice = GapChoice::kVarintOnly);
  void add_empty();
  // A list of `count` >= 1 neighbours starting at `first`.
  void add_list(uint32_t first, uint32_t count, const GapSizes& gaps);
  // Coded bytes in the layout best_layout() picks.
  uint64_t bytes() const { return bytes(best_layout()); }
  uint64_t bytes(ChunkLayout layout) const;
  ChunkLayout best_layout() const;
  // The smaller of the StreamVByte layouts (the varint one when the chunk
  // has no gaps).
  ChunkLayout best_stream_layout() const;

 private:
  uint64_t header_bytes(AnchorMode mode) const;
  AnchorMode best_anchor() const;  // the one whose first neighbours take fewer bytes

  GapChoice choice_ = GapChoice::kVarintOnly;
  uint32_t next_vertex_ = 0;
  uint64_t token_bytes_ = 0;          // tokens, the pending run of empty lists not included
  uint64_t first_bytes_[2] = {0, 0};  // by anchor mode
  uint64_t gaps_ = 0;
  uint64_t gap_bytes_[kGapCodings] = {0, 0, 0};
  bool repeats_ = false;
  uint32_t empty_run_ = 0;
  bool have_previous_ = false;
  uint32_t previous_first_ = 0;
};

// Appends a chunk's lists, from their parts, to `out`: per vertex from
// `first_vertex` its list length (`counts`), per non-empty list its first
// neighbour (`firsts`) and its count - 1 gaps (back to back in `gaps`).
// Codec 1 ignores `layout`, codec 2 its gap coding.
struct ChunkListParts {
  std::span<const uint32_t> counts;
  std::span<const uint32_t> firsts;
  const uint32_t* gaps = nullptr;
};
void write_chunk_lists(ListCodec codec, ChunkLayout layout, uint32_t first_vertex, const ChunkListParts& parts,
                       std::vector<uint8_t>* out);
// What the entropy layout's coder keeps in each thread that writes it, for
// lists of `lists_bytes`: its buckets, raw bits and rANS frame, and the
// order-1 rANS tables.
uint64_t entropy_lists_thread_bytes(uint64_t lists_bytes);

// Appends the coding of the lists of vertices first_vertex,
// first_vertex + 1, ... to `out`: counts[i] neighbours each, taken in turn
// from `neighbours` (each list sorted ascending). Codec 2 or 3.
void encode_chunk_lists(ListCodec codec, ChunkLayout layout, uint32_t first_vertex, std::span<const uint32_t> counts,
                        const uint32_t* neighbours, std::vector<uint8_t>* out);

// Reads the lists of vertices [first_vertex, first_vertex + vertex_count)
// in any codec, one vertex at a time: next() gives the vertex's list
// length, then decode() or skip() consumes the list. Every read is checked
// against the hard end pointer; finish() checks nothing is left over.
class ChunkListReader {
 public:
  Status open(ListCodec codec, const uint8_t* p, const uint8_t* end, uint32_t first_vertex, uint32_t vertex_count,
              uint32_t num_vertices);
  // The next vertex's list length (at most `max_count`).
  Status next(uint32_t max_count, uint32_t* count);
  // The list whose length next() gave, into out[0..count).
  Status decode(uint32_t count, uint32_t* out);
  Status skip(uint32_t count);
  Status finish() const;
  // A StreamVByte or entropy layout, instead of next() and decode() per vertex:
  // decodes every list into neighbours[0..edges) (`edges` from the chunk's
  // index entry) and sets starts[i] = start_base + the first edge of list i
  // for i in [1, vertex_count). The gaps are decoded in one run into the
  // end of `neighbours` and turned into ids in place.
  Status decode_all(uint32_t edges, uint32_t* neighbours, uint32_t* starts, uint32_t start_base);
  uint32_t vertex() const { return vertex_; }
  ChunkLayout layout() const { return layout_; }

 private:
  uint32_t anchor() const {
    return layout_.anchor == AnchorMode::kPreviousFirst && have_previous_ ? previous_first_ : vertex_;
  }
  bool gap_stream() const {
    return layout_.gaps == GapCoding::kStreamVByte || layout_.gaps == GapCoding::kStreamVByteRuns;
  }
  bool entropy() const { return layout_.gaps == GapCoding::kEntropy; }
  Status open_gap_stream();
  Status read_token(uint64_t* token);
  Status take_token(uint64_t token, uint32_t* count);
  Status read_first(uint32_t* first);
  Status first_from(uint64_t raw, uint32_t* first);
  Status decode_from_entropy(uint32_t count, uint32_t* out);
  Status decode_all_entropy(uint32_t edges, uint32_t* neighbours, uint32_t* starts, uint32_t start_base);
  Status decode_entropy_list(uint32_t count, uint32_t* out);
  bool entropy_value(uint8_t base, uint64_t* value);
  bool sum_entropy_gaps(uint32_t gaps, uint64_t* sum, uint32_t* out);
  bool refill_entropy();
  Status decode_from_decoded_gaps(const uint32_t* gaps, uint32_t count, uint32_t* out);
  Status decode_from_stream(uint32_t count, uint32_t* out);
  Status skip_in_stream(uint32_t gaps);
  void refill();
  Status error(const char* what) const;

  ListCodec codec_ = ListCodec::kV1;
  ChunkLayout layout_;
  const uint8_t* p_ = nullptr;    // tokens (and, with varint gaps, the lists)
  const uint8_t* end_ = nullptr;  // of the tokens
  uint32_t num_vertices_ = 0;
  uint32_t vertex_ = 0;         // the vertex of the current list
  uint32_t vertices_left_ = 0;  // after the current one
  uint32_t empty_left_ = 0;     // of the current run of empty lists, after the current one
  bool started_ = false;
  bool have_previous_ = false;
  uint32_t previous_first_ = 0;

  // The gap stream (codec 3, StreamVByte layouts), decoded a block at a
  // time; decode_all() of the entropy layout takes its values a block at a
  // time too (every kind, each value's symbol at block_symbols_).
  static constexpr uint32_t kBlockGaps = 256;
  SvbLengths lengths_ = SvbLengths::k1234;
  uint32_t gap_plus_ = 0;  // 1 where gaps are coded minus one
  const uint8_t* control_ = nullptr;
  const uint8_t* data_ = nullptr;
  const uint8_t* data_end_ = nullptr;
  uint64_t stream_gaps_ = 0;   // in the stream
  uint64_t decoded_gaps_ = 0;  // decoded into blocks or skipped
  uint64_t unread_gaps_ = 0;   // not yet consumed by lists
  uint32_t block_at_ = 0;
  uint32_t block_size_ = 0;
  uint32_t block_[kBlockGaps];
  const uint8_t* block_symbols_ = nullptr;

  EntropyReader entropy_;  // the entropy layout's values
};

}  // namespace sg
