// The adjacency lists of a chunk's consecutive vertices, as one stream
// (format version 2, docs/formats.md).
//
// Codec 1 (format version 1) codes each list on its own
// (adjacency_codec.h): varint(n), then the first neighbour against the
// vertex id, then gaps. Codec 2 saves what codec 1 spends on graphs with
// many empty lists and on first neighbours far from their vertex:
//   u8 anchor mode, then per run of vertices one varint token t:
//     t even: t/2 >= 1 vertices with empty lists;
//     t odd:  a list of (t+1)/2 neighbours follows, coded as in codec 1
//             except that its first neighbour is coded against the anchor:
//             the vertex id (mode 0), or the first neighbour of the
//             previous non-empty list of the chunk (mode 1; the vertex id
//             for the chunk's first list).
// Mode 1 wins on graphs ordered so that hubs come first (bfds): most lists
// start at the same few low ids. The encoder sizes both modes and keeps the
// smaller one per chunk. On R-MAT 22 (bfds) codec 2 takes 0.17 bytes an
// edge less than codec 1 over both spaces.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "compression/status.h"

namespace sg {

enum class ListCodec : uint8_t { kV1 = 1, kV2 = 2 };

// Anchor modes of codec 2.
enum class AnchorMode : uint8_t { kVertex = 0, kPreviousFirst = 1 };

// Sizes a chunk's lists under both anchor modes as they are added, so an
// encoder can cut chunks by their coded size before coding them.
class ChunkListSizer {
 public:
  void reset(uint32_t first_vertex);
  void add_empty();
  // A list of `count` >= 1 neighbours starting at `first`, whose gaps code
  // in `gap_bytes`.
  void add_list(uint32_t first, uint32_t count, uint64_t gap_bytes);
  // Coded bytes with the better mode (codec 2).
  uint64_t bytes() const;
  AnchorMode best_mode() const {
    return previous_first_bytes_ < vertex_first_bytes_ ? AnchorMode::kPreviousFirst : AnchorMode::kVertex;
  }

 private:
  uint32_t next_vertex_ = 0;
  uint64_t common_bytes_ = 1;  // mode byte, tokens, gaps
  uint64_t vertex_first_bytes_ = 0;
  uint64_t previous_first_bytes_ = 0;
  uint32_t empty_run_ = 0;
  bool have_previous_ = false;
  uint32_t previous_first_ = 0;
};

// Codes the gaps of ids[0..count) (sorted) at `dst` (room for
// 10 * count bytes); returns the bytes written.
uint64_t encode_gaps(const uint32_t* ids, uint32_t count, uint8_t* dst);

// Appends a chunk's lists, from their parts, to `out`: per vertex from
// `first_vertex` its list length (`counts`), per non-empty list its first
// neighbour (`firsts`) and its coded gaps (`gap_bytes` long, back to back
// in `gaps`). Codec 1 ignores `mode`.
struct ChunkListParts {
  std::span<const uint32_t> counts;
  std::span<const uint32_t> firsts;
  std::span<const uint32_t> gap_bytes;
  const uint8_t* gaps = nullptr;
};
void write_chunk_lists(ListCodec codec, AnchorMode mode, uint32_t first_vertex, const ChunkListParts& parts,
                       std::vector<uint8_t>* out);

// Appends the codec-2 coding of the lists of vertices first_vertex,
// first_vertex + 1, ... to `out`: counts[i] neighbours each, taken in turn
// from `neighbours` (each list sorted ascending).
void encode_chunk_lists(uint32_t first_vertex, std::span<const uint32_t> counts, const uint32_t* neighbours,
                        AnchorMode mode, std::vector<uint8_t>* out);

// Reads the lists of vertices [first_vertex, first_vertex + vertex_count)
// in either codec, one vertex at a time: next() gives the vertex's list
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
  uint32_t vertex() const { return vertex_; }

 private:
  uint32_t anchor() const { return mode_ == AnchorMode::kPreviousFirst && have_previous_ ? previous_first_ : vertex_; }

  ListCodec codec_ = ListCodec::kV1;
  AnchorMode mode_ = AnchorMode::kVertex;
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  uint32_t num_vertices_ = 0;
  uint32_t vertex_ = 0;         // the vertex of the current list
  uint32_t vertices_left_ = 0;  // after the current one
  uint32_t empty_left_ = 0;     // of the current run of empty lists, after the current one
  bool started_ = false;
  bool have_previous_ = false;
  uint32_t previous_first_ = 0;
};

}  // namespace sg
