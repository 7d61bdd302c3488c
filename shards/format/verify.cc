#include "shards/format/verify.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "base/interrupt.h"
#include "shards/format/graph_deltas.h"

namespace sg {
namespace {

// Every list of one block (the whole space when it is 1-D), counted into
// `counted`: sorted, within the block's neighbour range.
Status verify_block(const Graph& graph, const EdgeSpace& space, std::vector<uint64_t>* counted, VerifyReport* report) {
  // The layout (chunks tile the vertices, intervals start chunks, offsets
  // aligned and in order) was checked by Graph::open; here every list is.
  std::vector<uint32_t> scratch;
  uint64_t arcs = 0;
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  size_t capacity = 0;
  std::unique_ptr<uint8_t, Free> buffer;
  uint32_t last_vertex = UINT32_MAX;
  uint32_t last_neighbour = 0;
  for (size_t c = 0; c < space.index.size(); ++c) {
    if (interrupt_requested()) return Status::Interrupted("verify stopped by a signal");
    const ChunkIndexEntry& e = space.index[c];
    if (e.bytes > capacity) {
      capacity = align_up(e.bytes, kAlignBytes);
      buffer.reset(static_cast<uint8_t*>(std::aligned_alloc(kAlignBytes, capacity)));
    }
    SG_RETURN_IF_ERROR(graph.read_chunk_of(space, c, buffer.get()));
    Status order;
    Status s = for_each_list(
        graph.manifest().list_codec(), buffer.get(), e, graph.num_vertices(), graph.weighted(), &scratch,
        [&](uint32_t v, const uint32_t* nbrs, uint32_t n, const float*) {
          if (n == 0) return;
          if (v == last_vertex && nbrs[0] < last_neighbour && order.ok()) {
            order = Status::Corruption("vertex " + std::to_string(v) + ": list not sorted across chunks");
          }
          if ((nbrs[0] < space.neighbour_begin || nbrs[n - 1] >= space.neighbour_end) && order.ok()) {
            order = Status::Corruption("vertex " + std::to_string(v) + ": a neighbour outside the block's range");
          }
          last_vertex = v;
          last_neighbour = nbrs[n - 1];
          (*counted)[v] += n;
        });
    if (s.ok()) s = order;
    if (!s.ok()) return Status::Corruption(graph.describe_chunk(space, c) + ": " + s.message());
    report->chunks += 1;
    report->arcs += e.edge_count;
    report->bytes += e.bytes;
    arcs += e.edge_count;
  }
  if (arcs != space.meta.arcs) {
    return Status::Corruption("space " + space.meta.name + ": holds " + std::to_string(arcs) + " arcs, manifest says " +
                              std::to_string(space.meta.arcs));
  }
  return Status::OK();
}

// A kind's blocks together against its stored degrees.
Status verify_space(const Graph& graph, SpaceKind kind, VerifyReport* report) {
  std::vector<uint64_t> counted(graph.num_vertices(), 0);
  for (size_t stored : graph.blocks(kind))
    SG_RETURN_IF_ERROR(verify_block(graph, graph.stored_space(stored), &counted, report));
  const EdgeSpace& space = graph.space(kind);
  for (uint32_t v = 0; v < graph.num_vertices(); ++v) {
    if (counted[v] != space.degrees[v]) {
      return Status::Corruption("space " + space.meta.kind + ": vertex " + std::to_string(v) + " has " +
                                std::to_string(counted[v]) + " neighbours but its stored degree is " +
                                std::to_string(space.degrees[v]));
    }
  }
  return Status::OK();
}

}  // namespace

Status verify_graph(const Graph& graph, VerifyReport* report) {
  *report = VerifyReport{};
  SG_RETURN_IF_ERROR(verify_space(graph, SpaceKind::kOut, report));
  if (graph.directed()) SG_RETURN_IF_ERROR(verify_space(graph, SpaceKind::kIn, report));
  if (graph.directed() && graph.arcs(SpaceKind::kOut) != graph.arcs(SpaceKind::kIn)) {
    return Status::Corruption("out-space and in-space hold different numbers of arcs");
  }
  if (graph.manifest().deltas.empty()) return Status::OK();
  GraphDeltas deltas;  // updates not yet compacted: every run whole, every block decoded
  SG_RETURN_IF_ERROR(deltas.open(graph));
  SG_RETURN_IF_ERROR(deltas.check_blocks(&report->delta_records));
  return Status::OK();
}

}  // namespace sg
