#include "shards/ingest/vertex_order.h"

#include <algorithm>
#include <numeric>

#include "shards/util/enum_names.h"

namespace sg {

const char* vertex_order_name(VertexOrder order) {
  switch (order) {
    case VertexOrder::kNone: return "none";
    case VertexOrder::kBfds: return "bfds";
    case VertexOrder::kBfs: return "bfs";
    case VertexOrder::kDegree: return "degree";
  }
  return "?";
}

bool parse_vertex_order(const std::string& name, VertexOrder* order) {
  return parse_enum_name(name, {VertexOrder::kNone, VertexOrder::kBfds, VertexOrder::kBfs, VertexOrder::kDegree},
                         vertex_order_name, order);
}

std::vector<uint32_t> degree_order(const std::vector<uint32_t>& degree) {
  std::vector<uint32_t> by_rank(degree.size());
  std::iota(by_rank.begin(), by_rank.end(), 0);
  std::stable_sort(by_rank.begin(), by_rank.end(), [&](uint32_t a, uint32_t b) { return degree[a] > degree[b]; });
  std::vector<uint32_t> new_id(degree.size());
  for (uint32_t rank = 0; rank < by_rank.size(); ++rank) new_id[by_rank[rank]] = rank;
  return new_id;
}

}  // namespace sg
