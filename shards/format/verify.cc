#include "shards/format/verify.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "shards/util/interrupt.h"

namespace sg {
namespace {

Status verify_space(const Graph& graph, const EdgeSpace& space, VerifyReport* report) {
  // The layout (chunks tile the vertices, intervals start chunks, offsets
  // aligned and in order) was checked by Graph::open; here every list is.
  std::vector<uint64_t> counted(graph.num_vertices(), 0);
  std::vector<uint32_t> scratch;
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
    Status s = for_each_list(graph.manifest().list_codec(), buffer.get(), e, graph.num_vertices(), graph.weighted(), &scratch,
                             [&](uint32_t v, const uint32_t* nbrs, uint32_t n, const float*) {
                               if (n == 0) return;
                               if (v == last_vertex && nbrs[0] < last_neighbour && order.ok()) {
                                 order = Status::Corruption("vertex " + std::to_string(v) + ": list not sorted across chunks");
                               }
                               last_vertex = v;
                               last_neighbour = nbrs[n - 1];
                               counted[v] += n;
                             });
    if (s.ok()) s = order;
    if (!s.ok()) return Status::Corruption(graph.describe_chunk(space, c) + ": " + s.message());
    report->chunks += 1;
    report->arcs += e.edge_count;
    report->bytes += e.bytes;
  }
  uint64_t total = 0;
  for (uint32_t v = 0; v < graph.num_vertices(); ++v) {
    if (counted[v] != space.degrees[v]) {
      return Status::Corruption("space " + space.meta.name + ": vertex " + std::to_string(v) + " has " +
                                std::to_string(counted[v]) + " neighbours but its stored degree is " +
                                std::to_string(space.degrees[v]));
    }
    total += counted[v];
  }
  if (total != space.meta.arcs) {
    return Status::Corruption("space " + space.meta.name + ": holds " + std::to_string(total) + " arcs, manifest says " +
                              std::to_string(space.meta.arcs));
  }
  return Status::OK();
}

}  // namespace

Status verify_graph(const Graph& graph, VerifyReport* report) {
  *report = VerifyReport{};
  for (size_t s = 0; s < graph.stored_space_count(); ++s) SG_RETURN_IF_ERROR(verify_space(graph, graph.stored_space(s), report));
  if (graph.directed() && graph.stored_space(0).meta.arcs != graph.stored_space(1).meta.arcs) {
    return Status::Corruption("out-space and in-space hold different numbers of arcs");
  }
  return Status::OK();
}

}  // namespace sg
