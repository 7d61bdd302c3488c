#include "shards/format/verify.h"

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "shards/util/interrupt.h"

namespace sg {
namespace {

Status check_layout(const Graph& graph, const EdgeSpace& space) {
  const auto& index = space.index;
  const auto& starts = graph.manifest().interval_starts;
  uint64_t next_offset = 0;
  uint32_t expected_first = 0;
  size_t intervals_started = 0;
  for (size_t c = 0; c < index.size(); ++c) {
    const ChunkIndexEntry& e = index[c];
    auto fail = [&](const std::string& why) { return Status::Corruption(graph.describe_chunk(space, c) + ": " + why); };
    if (e.offset % kAlignBytes != 0 || e.offset < next_offset) return fail("offset not aligned or overlapping");
    if (e.vertex_count == 0) return fail("holds no vertex");
    // A chunk starts at the vertex after the previous one, or continues the
    // previous chunk's last (split) vertex.
    const bool continues = c > 0 && e.first_vertex + 1 == expected_first;
    if (e.first_vertex != expected_first && !continues) return fail("does not start where the previous chunk ended");
    if (!continues && std::binary_search(starts.begin(), starts.end(), e.first_vertex)) ++intervals_started;
    for (uint32_t v = e.first_vertex + 1; v < e.end_vertex(); ++v) {
      if (std::binary_search(starts.begin(), starts.end(), v)) return fail("spans an interval boundary");
    }
    next_offset = e.offset + e.bytes;
    expected_first = e.end_vertex();
  }
  if (intervals_started != starts.size()) {
    return Status::Corruption("space " + space.meta.name + ": an interval does not start a chunk");
  }
  if (expected_first != graph.num_vertices()) {
    return Status::Corruption("space " + space.meta.name + ": chunks cover " + std::to_string(expected_first) + " of " +
                              std::to_string(graph.num_vertices()) + " vertices");
  }
  if (next_offset > space.meta.logical_bytes) return Status::Corruption("space " + space.meta.name + ": chunks beyond its size");
  return Status::OK();
}

Status verify_space(const Graph& graph, const EdgeSpace& space, VerifyReport* report) {
  SG_RETURN_IF_ERROR(check_layout(graph, space));
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
    Status s = for_each_list(buffer.get(), e, graph.num_vertices(), graph.weighted(), &scratch,
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
