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

#include "shards/format/chunk_format.h"

namespace {

uint32_t take32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
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
  uint64_t edges = 0;
  const sg::Status s =
      sg::for_each_list(codec, payload, entry, num_vertices, weighted, &scratch,
                        [&](uint32_t vertex, const uint32_t* neighbours, uint32_t count, const float*) {
                          if (vertex >= num_vertices) std::abort();
                          for (uint32_t i = 0; i < count; ++i) {
                            if (neighbours[i] >= num_vertices) std::abort();
                            if (i > 0 && neighbours[i] < neighbours[i - 1]) std::abort();  // lists are sorted
                          }
                          edges += count;
                        });
  if (s.ok() && edges != entry.edge_count) std::abort();
  return 0;
}
