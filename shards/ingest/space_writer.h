// Builds one edge space (the concatenation of its shards) from a stream of
// edges sorted by (key vertex, neighbour): encodes lists into chunks of about
// `chunk_bytes`, starts a new chunk at every interval boundary, splits lists
// longer than a chunk, checksums each chunk and writes it 4 KiB-aligned
// through a StripedWriter. Memory: two chunk-sized buffers.
#pragma once

#include <cstdint>
#include <vector>

#include "shards/format/chunk_format.h"
#include "shards/format/striped_writer.h"

namespace sg {

class SpaceWriter {
 public:
  SpaceWriter(StripedWriter* out, uint32_t num_vertices, std::vector<uint32_t> interval_starts,
              uint32_t chunk_bytes, bool weighted);

  // Edges must arrive sorted by (vertex, neighbour).
  Status add_edge(uint32_t vertex, uint32_t neighbour, float weight);
  // Writes the lists of the remaining (empty) vertices and the last chunk.
  Status finish();

  const std::vector<ChunkIndexEntry>& index() const { return index_; }
  std::vector<uint32_t>& degrees() { return degrees_; }
  uint64_t edges() const { return edges_; }

 private:
  Status begin_vertex(uint32_t vertex);
  Status emit_empty_vertices_until(uint32_t vertex);
  Status flush_piece(bool list_continues);
  Status close_chunk();
  uint64_t chunk_payload_bytes() const;

  StripedWriter* out_;
  uint32_t num_vertices_;
  std::vector<uint32_t> interval_starts_;  // sorted; a chunk never spans two
  size_t next_interval_ = 0;               // index of the next boundary > current vertex
  uint32_t chunk_bytes_;
  bool weighted_;

  // The list being built (one piece of at most about chunk_bytes).
  bool list_open_ = false;
  uint32_t list_vertex_ = 0;
  uint32_t list_count_ = 0;
  std::vector<uint8_t> list_bytes_;
  std::vector<float> list_weights_;
  NeighbourEncoder encoder_{0};

  // The chunk being built.
  bool chunk_open_ = false;
  ChunkIndexEntry chunk_{};
  std::vector<uint8_t> chunk_lists_;
  std::vector<float> chunk_weights_;
  std::vector<uint8_t> payload_;  // the chunk as written: reused, not allocated per chunk
  uint32_t next_vertex_ = 0;  // first vertex not yet written to any chunk

  std::vector<ChunkIndexEntry> index_;
  std::vector<uint32_t> degrees_;
  uint64_t edges_ = 0;
};

}  // namespace sg
