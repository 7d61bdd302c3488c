// Varint-delta adjacency-list codec (docs/formats.md).
//
// A list of `n` neighbours of vertex `v`, sorted ascending (duplicates
// allowed), is stored as
//   varint(n), varint(zigzag(nbr[0] - v)), varint(nbr[1] - nbr[0]), ...
// The first neighbour is coded against the vertex id because graphs ordered
// for locality keep neighbours near their vertex; later ones as gaps.
// Decoding checks every byte against a hard end pointer and rejects lists that
// are truncated, overlong, unsorted (impossible by construction: gaps are
// unsigned) or that name a vertex >= `num_vertices`.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"

namespace sg {

// Worst-case encoded size of one list of `count` neighbours.
inline size_t max_encoded_list_bytes(size_t count) { return 5 + count * 10; }

// Appends the encoding of `neighbours` (sorted ascending) to `out`.
void encode_list(uint32_t vertex, std::span<const uint32_t> neighbours, std::vector<uint8_t>* out);

// Incremental encoder for lists too long to hold in memory at once: the
// caller emits the count separately and feeds neighbours one by one.
class NeighbourEncoder {
 public:
  explicit NeighbourEncoder(uint32_t vertex) : previous_(vertex), first_(true) {}
  // Writes one neighbour at `dst` (room for 10 bytes needed); returns the end.
  uint8_t* put(uint8_t* dst, uint32_t neighbour);
  static int encoded_bytes(uint32_t vertex_or_previous, uint32_t neighbour, bool first);

 private:
  uint32_t previous_;
  bool first_;
};

// Decodes one list starting at *p. On success stores the neighbours in
// `out` (resized), advances *p past the list and returns OK. `max_count`
// bounds the count read from the bytes, so corrupt input cannot make the
// decoder allocate without limit.
Status decode_list(const uint8_t** p, const uint8_t* end, uint32_t vertex, uint32_t num_vertices, uint32_t max_count,
                   std::vector<uint32_t>* out);

// Decodes `count` neighbours (the count already read) into `out[0..count)`.
Status decode_neighbours(const uint8_t** p, const uint8_t* end, uint32_t vertex, uint32_t num_vertices, uint32_t count,
                         uint32_t* out);

}  // namespace sg
