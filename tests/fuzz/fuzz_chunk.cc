// Fuzz target: chunk payload decoding with the checksum out of the way
// (shards/format/chunk_format.h for_each_list, over the adjacency codec).
// Input: a 17-byte header (first vertex, vertex count, edge count, |V|,
// flags: bit 0 weighted, bit 1 codec 1, else bit 2 codec 3, else codec 2) and the payload. A payload either decodes
// into lists whose neighbours are all below |V| and whose lengths add up to the edge count, or is refused with a
// Status; it never reads past its end.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "compression/chunk_lists.h"
#include "shards/format/chunk_format.h"

namespace {

uint32_t take32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// What scans do with a StreamVByte or entropy chunk (decode_all): it
// either refuses the payload or gives lists whose ids are below |V|, each
// sorted, whose starts step through the edges; and it accepts what the
// list-by-list reader accepted (`lists`: those lists back to back), with
// the same ids.
void decode_whole_chunk(sg::ListCodec codec, const uint8_t* payload, const sg::ChunkIndexEntry& entry,
                        uint32_t num_vertices, bool weighted, const std::vector<uint32_t>* lists) {
  const uint64_t weight_bytes = weighted ? uint64_t{4} * entry.edge_count : 0;
  if (codec != sg::ListCodec::kV3 || weight_bytes > entry.bytes ||
      uint64_t{entry.first_vertex} + entry.vertex_count > num_vertices) {
    return;
  }
  sg::ChunkListReader reader;
  if (!reader
           .open(codec, payload + weight_bytes, payload + entry.bytes, entry.first_vertex, entry.vertex_count,
                 num_vertices)
           .ok() ||
      reader.layout().gaps == sg::GapCoding::kVarint) {
    return;
  }
  std::vector<uint32_t> neighbours(entry.edge_count);
  std::vector<uint32_t> starts(entry.vertex_count + 1, 0);
  const sg::Status s = reader.decode_all(static_cast<uint32_t>(entry.edge_count), neighbours.data(), starts.data(), 0);
  if (!s.ok()) {
    if (lists != nullptr) std::abort();  // the list-by-list reader took it
    return;
  }
  starts[entry.vertex_count] = static_cast<uint32_t>(entry.edge_count);
  for (uint32_t v = 0; v < entry.vertex_count; ++v) {
    if (starts[v] > starts[v + 1]) std::abort();
    for (uint32_t i = starts[v]; i < starts[v + 1]; ++i) {
      if (neighbours[i] >= num_vertices) std::abort();
      if (i > starts[v] && neighbours[i] < neighbours[i - 1]) std::abort();
    }
  }
  if (lists != nullptr && *lists != neighbours) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  constexpr size_t kHeader = 17;
  if (size < kHeader) return 0;
  sg::ChunkIndexEntry entry{};
  entry.first_vertex = take32(data) % (1u << 20);
  entry.vertex_count = take32(data + 4) % 4096;  // bounds the work per input, not the decoder
  entry.edge_count = take32(data + 8) % (1u << 20);
  const uint32_t num_vertices = take32(data + 12) % (1u << 21);
  const bool weighted = (data[16] & 1) != 0;
  const sg::ListCodec codec = (data[16] & 2) != 0   ? sg::ListCodec::kV1
                              : (data[16] & 4) != 0 ? sg::ListCodec::kV3
                                                    : sg::ListCodec::kV2;
  entry.bytes = static_cast<uint32_t>(size - kHeader);
  // The engine reads payloads from aligned buffers (weights are floats).
  std::vector<uint32_t> aligned((entry.bytes + 3) / 4 + 1);
  std::memcpy(aligned.data(), data + kHeader, entry.bytes);
  const uint8_t* payload = reinterpret_cast<const uint8_t*>(aligned.data());
  std::vector<uint32_t> scratch;
  std::vector<uint32_t> ids;  // every list's, in turn
  uint64_t edges = 0;
  const sg::Status s =
      sg::for_each_list(codec, payload, entry, num_vertices, weighted, &scratch,
                        [&](uint32_t vertex, const uint32_t* neighbours, uint32_t count, const float*) {
                          if (vertex >= num_vertices) std::abort();
                          for (uint32_t i = 0; i < count; ++i) {
                            if (neighbours[i] >= num_vertices) std::abort();
                            if (i > 0 && neighbours[i] < neighbours[i - 1]) std::abort();  // lists are sorted
                          }
                          ids.insert(ids.end(), neighbours, neighbours + count);
                          edges += count;
                        });
  if (s.ok() && edges != entry.edge_count) std::abort();
  decode_whole_chunk(codec, payload, entry, num_vertices, weighted, s.ok() ? &ids : nullptr);
  return 0;
}
