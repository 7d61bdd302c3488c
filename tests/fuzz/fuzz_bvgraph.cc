// Fuzz target: the BVGraph decoder (shards/ingest/bvgraph_decoder.h). The
// first byte sets the node count (1..256), the second the codes and window;
// the third splits the rest into an .offsets part and a .graph part. Every
// node is decoded in sequence, then (when the offsets parse) every 7th
// from its offset, its references by random access; a list holds ids below the node count or decoding stops with a
// Status. It never crashes, reads out of bounds or loops.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "shards/ingest/bvgraph_decoder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  sg::BvProperties props;
  props.nodes = 1 + uint64_t{data[0]};
  static const sg::BvCode kCodes[] = {sg::BvCode::kGamma, sg::BvCode::kDelta, sg::BvCode::kZeta, sg::BvCode::kNibble};
  props.outdegrees = kCodes[data[1] & 3];
  props.residuals = kCodes[(data[1] >> 2) & 3];
  props.blocks = kCodes[(data[1] >> 4) & 3];
  props.window = (data[1] & 0x40) != 0 ? 7 : 2;
  props.min_interval = (data[1] & 0x80) != 0 ? 0 : 4;
  const size_t offsets_bytes = std::min<size_t>(data[2], size - 3);
  const uint8_t* offsets = data + 3;
  const uint8_t* graph = offsets + offsets_bytes;
  const size_t graph_bytes = size - 3 - offsets_bytes;

  auto check = [&](const std::vector<uint64_t>& list) {
    for (uint64_t v : list) {
      if (v >= props.nodes) std::abort();
    }
  };
  sg::BvDecoder sequential(props, graph, graph_bytes, nullptr, "fuzz.graph");
  sequential.start(0, 0);
  for (uint64_t i = 0; i < props.nodes; ++i) {
    uint64_t node = 0;
    const std::vector<uint64_t>* list = nullptr;
    if (!sequential.next(&node, &list).ok()) break;
    check(*list);
  }
  sg::OffsetWindow offsets_window(offsets, offsets_bytes, props, graph_bytes * 8, "fuzz.offsets");
  if (!offsets_window.extend_to_bit(UINT64_MAX).ok()) return 0;
  sg::BvDecoder random(props, graph, graph_bytes, &offsets_window, "fuzz.graph");
  for (uint64_t first = 0; first < props.nodes; first += 7) {
    random.start(first, offsets_window.offset(first));
    uint64_t node = 0;
    const std::vector<uint64_t>* list = nullptr;
    if (random.next(&node, &list).ok()) check(*list);
  }
  return 0;
}
