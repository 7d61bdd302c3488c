// A chunk: the adjacency lists of a run of consecutive vertices of one edge
// space (docs/formats.md). Payload layout:
//   [float32 weight x edge_count]   (weighted graphs only; first, so aligned)
//   the lists of vertices [first_vertex, first_vertex + vertex_count), as
//   in compression/chunk_lists.h (codec N in format version N)
// A vertex whose list exceeds the chunk size is split: its list continues as
// the first vertex of the next chunk(s), each piece coded on its own.
// Chunks start at 4 KiB-aligned logical offsets; the gap is zero padding.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "compression/adjacency_codec.h"
#include "compression/chunk_lists.h"

namespace sg {

// One entry of a space's chunk index; stored as-is (little-endian, 32 bytes).
struct ChunkIndexEntry {
  uint32_t first_vertex;
  uint32_t vertex_count;
  uint64_t offset;  // logical byte offset in the space, 4 KiB aligned
  uint32_t bytes;   // payload bytes, without padding
  uint32_t edge_count;
  uint64_t checksum;  // XXH3-64 of the payload

  uint32_t end_vertex() const { return first_vertex + vertex_count; }
};
static_assert(sizeof(ChunkIndexEntry) == 32, "chunk index entries are stored raw");

// Decodes every list in a chunk payload and calls
// f(vertex, const uint32_t* neighbours, uint32_t count, const float* weights)
// (weights is nullptr for unweighted graphs). Returns Corruption if the
// payload does not match its index entry exactly.
template <typename F>
Status for_each_list(ListCodec codec, const uint8_t* payload, const ChunkIndexEntry& entry, uint32_t num_vertices,
                     bool weighted, std::vector<uint32_t>* scratch, F&& f) {
  const uint64_t weight_bytes = weighted ? uint64_t{4} * entry.edge_count : 0;
  if (weight_bytes > entry.bytes) return Status::Corruption("weight stream longer than chunk");
  if (uint64_t{entry.first_vertex} + entry.vertex_count > num_vertices) {
    return Status::Corruption("chunk vertex range beyond |V|");
  }
  if (entry.bytes == 0) {  // a run's vertex tail (Graph::extend_vertices): no bytes, every list empty
    if (entry.edge_count != 0) return Status::Corruption("edge count differs from index");
    for (uint32_t i = 0; i < entry.vertex_count; ++i) {
      f(entry.first_vertex + i, static_cast<const uint32_t*>(nullptr), uint32_t{0}, static_cast<const float*>(nullptr));
    }
    return Status::OK();
  }
  const float* weights = weighted ? reinterpret_cast<const float*>(payload) : nullptr;
  ChunkListReader lists;
  SG_RETURN_IF_ERROR(lists.open(codec, payload + weight_bytes, payload + entry.bytes, entry.first_vertex,
                                entry.vertex_count, num_vertices));
  uint64_t edges_seen = 0;
  for (uint32_t i = 0; i < entry.vertex_count; ++i) {
    uint32_t count = 0;
    SG_RETURN_IF_ERROR(lists.next(static_cast<uint32_t>(entry.edge_count - edges_seen), &count));
    scratch->resize(count);
    SG_RETURN_IF_ERROR(lists.decode(count, scratch->data()));
    f(lists.vertex(), scratch->data(), count, weighted ? weights + edges_seen : static_cast<const float*>(nullptr));
    edges_seen += count;
  }
  SG_RETURN_IF_ERROR(lists.finish());
  if (edges_seen != entry.edge_count) return Status::Corruption("edge count differs from index");
  return Status::OK();
}

}  // namespace sg
