// A distributed ingest's first pass (ingest_distributed.h): which part of
// the inputs each rank reads, and the arcs per block of vertices that each
// rank counts in its share and the ranks add up, from which the parts'
// ranges are cut (balanced_block_ranges).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apps/jobs/arc_exchange.h"
#include "base/status.h"
#include "core/communicator.h"
#include "shards/ingest/edge_reader.h"

namespace sg {

constexpr uint32_t kMaxBlocks = uint32_t{1} << 16;  // of the arc counts each rank sends

// Arcs per block of 2^shift vertices; blocks merge in pairs as ids grow.
struct BlockCounts {
  uint32_t shift = 0;
  std::vector<uint64_t> in, out;  // arcs into and out of each block

  void add(uint64_t src, uint64_t dst) {
    reach(std::max(src, dst));
    ++in[dst >> shift];
    ++out[src >> shift];
  }
  void reach(uint64_t vertex) {
    while ((vertex >> shift) >= kMaxBlocks) fold();
    const size_t blocks = static_cast<size_t>(vertex >> shift) + 1;
    if (blocks > in.size()) {
      in.resize(blocks);
      out.resize(blocks);
    }
  }
  void fold() {
    for (size_t b = 0; b < in.size(); ++b) {
      const uint64_t i = in[b], o = out[b];
      in[b] = out[b] = 0;
      in[b / 2] += i;
      out[b / 2] += o;
    }
    in.resize((in.size() + 1) / 2);
    out.resize(in.size());
    ++shift;
  }
};

struct GraphCounts {
  uint64_t vertices = 0, edges = 0;
  InputShape shape;
  bool undirected = false;
  BlockCounts blocks;  // every rank's, added
};

// Shares of the input (DistributedIngestOptions::inputs says the rule).
std::vector<InputShare> plan_shares(const std::vector<std::string>& inputs, InputFormat format, bool weights,
                                    uint32_t rank, uint32_t ranks);

// Reads this rank's shares once and adds every rank's counts: the same
// *counts on every rank, and the same status (agreed).
Status count_input(const std::vector<InputShare>& shares, bool undirected, bool drop_self_loops, Communicator* comm,
                   GraphCounts* counts);

}  // namespace sg
