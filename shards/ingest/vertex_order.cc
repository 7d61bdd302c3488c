#include "shards/ingest/vertex_order.h"

#include <algorithm>
#include <numeric>

#include "shards/util/enum_names.h"

namespace sg {

const char* vertex_order_name(VertexOrder order) {
  switch (order) {
    case VertexOrder::kNone: return "none";
    case VertexOrder::kDegree: return "degree";
    case VertexOrder::kBfs: return "bfs";
  }
  return "?";
}

bool parse_vertex_order(const std::string& name, VertexOrder* order) {
  return parse_enum_name(name, {VertexOrder::kNone, VertexOrder::kDegree, VertexOrder::kBfs}, vertex_order_name, order);
}

std::vector<uint32_t> degree_order(const std::vector<uint32_t>& degree) {
  std::vector<uint32_t> by_rank(degree.size());
  std::iota(by_rank.begin(), by_rank.end(), 0);
  std::stable_sort(by_rank.begin(), by_rank.end(), [&](uint32_t a, uint32_t b) { return degree[a] > degree[b]; });
  std::vector<uint32_t> new_id(degree.size());
  for (uint32_t rank = 0; rank < by_rank.size(); ++rank) new_id[by_rank[rank]] = rank;
  return new_id;
}

std::vector<uint32_t> bfs_order(const std::vector<uint64_t>& offsets, const std::vector<uint32_t>& neighbours) {
  const uint32_t n = static_cast<uint32_t>(offsets.size() - 1);
  constexpr uint32_t kUnvisited = UINT32_MAX;
  std::vector<uint32_t> new_id(n, kUnvisited);
  std::vector<uint32_t> queue;
  queue.reserve(n);
  uint32_t next = 0;
  auto visit_from = [&](uint32_t root) {
    new_id[root] = next++;
    size_t head = queue.size();
    queue.push_back(root);
    while (head < queue.size()) {
      const uint32_t u = queue[head++];
      for (uint64_t e = offsets[u]; e < offsets[u + 1]; ++e) {
        const uint32_t v = neighbours[e];
        if (new_id[v] != kUnvisited) continue;
        new_id[v] = next++;
        queue.push_back(v);
      }
    }
  };
  uint32_t hub = 0;
  for (uint32_t v = 1; v < n; ++v) {
    if (offsets[v + 1] - offsets[v] > offsets[hub + 1] - offsets[hub]) hub = v;
  }
  if (n > 0) visit_from(hub);
  for (uint32_t v = 0; v < n; ++v) {
    if (new_id[v] == kUnvisited) visit_from(v);
  }
  return new_id;
}

}  // namespace sg
