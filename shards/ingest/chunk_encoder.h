// Encodes sorted adjacency lists of consecutive vertices into chunks held in
// memory (the payload layout of shards/format/chunk_format.h). Ingest runs one
// encoder per part of a sort batch, in parallel; the parts' chunks are then
// written in order (SpaceOutput), which places each at a 4 KiB-aligned offset.
//
// Rules, the same wherever a part starts or ends:
//  - a chunk never spans an interval boundary;
//  - a chunk is closed once its payload reaches `chunk_bytes`, or before a
//    list that would push it past `chunk_bytes`;
//  - a list longer than a chunk is split into pieces, each coded on its own;
//    the rest of the list starts the next chunk with the same vertex;
//  - vertices without edges get an empty list (codec 2: a run of them
//    takes one token).
// The open chunk is held as plain lists and coded when it closes, so codecs
// 2 and 3 can pick its layout for the whole chunk (compression/chunk_lists.h).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "compression/chunk_lists.h"
#include "shards/format/chunk_format.h"

namespace sg {

// A neighbour with its weight, for weighted graphs.
struct WeightedNeighbour {
  uint32_t id;
  float weight;
  bool operator<(const WeightedNeighbour& o) const { return id != o.id ? id < o.id : weight < o.weight; }
};
inline uint32_t neighbour_id(uint32_t n) { return n; }
inline uint32_t neighbour_id(const WeightedNeighbour& n) { return n.id; }
inline float neighbour_weight(uint32_t) { return 1.0f; }
inline float neighbour_weight(const WeightedNeighbour& n) { return n.weight; }

// The most vertices a chunk spans, unless its aligned bytes are more.
constexpr uint64_t kMaxChunkVertices = uint64_t{1} << 16;

class ChunkEncoder {
 public:
  // `degrees` false: the part keeps no degrees (a 2-D block after the
  // first: the first block's encoder is given whole degrees, add_degree).
  // `entropy_first` (GapChoice::kEntropy, a graph that is read again and
  // dropped): a chunk keeps the entropy layout when it is smaller than the
  // best other layout unpacked, which is then neither written nor packed.
  ChunkEncoder(uint32_t chunk_bytes, bool weighted, const std::vector<uint32_t>* interval_starts,
               ListCodec codec = ListCodec::kV3, bool degrees = true, GapChoice gap_choice = GapChoice::kFast,
               bool entropy_first = false);

  // Starts a part that owns vertices [first_vertex, ...): the first list
  // may instead continue vertex first_vertex - 1, whose earlier pieces the
  // previous part ended with. Clears the previous part's output.
  void begin(uint32_t first_vertex);
  // Lists in increasing vertex order, each sorted by neighbour.
  template <typename Neighbour>
  void add_list(uint32_t vertex, const Neighbour* neighbours, uint32_t count);
  // Empty lists up to `end_vertex` (exclusive), then closes the open chunk.
  void finish(uint32_t end_vertex);

  // Output of the part: payloads back to back (no padding); each entry's
  // offset is its payload's position in bytes().
  const std::vector<uint8_t>& bytes() const { return bytes_; }
  const std::vector<ChunkIndexEntry>& chunks() const { return chunks_; }
  // The part's chunks by gap coding (GapCoding order; codecs 2 and 3).
  const std::array<uint64_t, kGapLayouts>& gap_coding_chunks() const { return gap_coding_chunks_; }
  // The part's chunks stored packed (compression/chunk_packing.h).
  uint64_t packed_chunks() const { return packed_chunks_; }
  // Degrees of [first_vertex, end_vertex), and the edges added to the
  // continued vertex first_vertex - 1.
  const std::vector<uint32_t>& degrees() const { return degrees_; }
  uint64_t continued_edges() const { return continued_edges_; }
  // Adds `edges` to the degree of `vertex` (the last one listed, or a later
  // one, whose empty list it then adds): the rest of a list cut into 2-D
  // blocks, whose first block writes whole degrees.
  void add_degree(uint32_t vertex, uint64_t edges);
  uint32_t first_vertex() const { return first_vertex_; }

 private:
  void start_vertex(uint32_t vertex);
  void add_empty_lists_until(uint32_t vertex);
  void open_chunk(uint32_t vertex);
  void close_chunk();
  ChunkLayout pack_smallest(const ChunkListParts& parts, ChunkLayout layout, size_t layout_at);
  bool entropy_if_smaller(const ChunkListParts& parts, ChunkLayout best, size_t layout_at);
  bool recode_if_smaller(const ChunkListParts& parts, ChunkLayout layout, bool pack, size_t layout_at, bool* packed);
  uint64_t payload_bytes() const { return lists_bytes_ + (weighted_ ? 4 * uint64_t{weights_.size()} : 0); }
  bool vertex_room() const;
  // Whether chunks take the fewest bytes (packed, and cut by stored size).
  bool packs() const {
    return codec_ == ListCodec::kV3 && (gap_choice_ == GapChoice::kSmallest || gap_choice_ == GapChoice::kEntropy);
  }
  void aim_cut_at_stored_size(uint64_t stored_bytes);
  // Adds the list (or a piece of one) of `vertex` to the open chunk, or to
  // a new one when it would push a chunk holding other lists past
  // chunk_bytes.
  template <typename Neighbour>
  void append_list(uint32_t vertex, const Neighbour* neighbours, uint32_t count);
  void count_edges(uint32_t vertex, uint32_t count);
  template <typename Neighbour>
  void add_long_list(uint32_t vertex, const Neighbour* neighbours, uint32_t count);

  uint32_t chunk_bytes_;
  uint32_t cut_bytes_;  // the unpacked size a chunk is cut at (aim_cut_at_stored_size)
  bool weighted_;
  bool keep_degrees_;
  ListCodec codec_;
  GapChoice gap_choice_;  // codec 3
  bool entropy_first_;
  const std::vector<uint32_t>* interval_starts_;
  size_t next_interval_ = 0;  // first interval start > the last vertex started

  uint32_t first_vertex_ = 0;
  uint32_t next_vertex_ = 0;  // first vertex without a list yet
  bool chunk_open_ = false;
  ChunkIndexEntry chunk_{};
  // The open chunk's lists in parts (compression/chunk_lists.h
  // ChunkListParts), its weights, and its coded size so far.
  std::vector<uint32_t> counts_;
  std::vector<uint32_t> firsts_;
  std::vector<uint32_t> gaps_;
  std::vector<float> weights_;
  ChunkListSizer sizer_;             // codecs 2 and 3
  uint64_t lists_bytes_ = 0;         // coded, without weights
  std::vector<uint32_t> list_ids_;   // one list's ids
  std::vector<uint32_t> list_gaps_;  // one list's gaps

  std::vector<uint8_t> bytes_;
  std::vector<uint8_t> pack_scratch_;  // one chunk's lists, while another layout is tried
  std::vector<ChunkIndexEntry> chunks_;
  std::array<uint64_t, kGapLayouts> gap_coding_chunks_{};
  uint64_t packed_chunks_ = 0;
  std::vector<uint32_t> degrees_;
  uint64_t continued_edges_ = 0;
};

}  // namespace sg
