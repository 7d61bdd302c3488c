// Vertex orderings applied at ingest (DESIGN §4), so that vertices touched
// together lie in the same chunks:
//   degree  by total degree, highest first (IOE-Order's degree binning
//           puts the lists that traversals reach first together);
//   bfs     breadth-first over the undirected graph from the highest-degree
//           vertex, neighbours in id order, then from the smallest unvisited
//           vertex of each other component (Cuthill-McKee-like): a BFS level
//           becomes a run of consecutive ids, so selective reads of a frontier
//           touch few chunks. It needs the adjacency in memory during ingest.
// Each returns new_id[old_id].
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sg {

enum class VertexOrder { kNone, kDegree, kBfs };
const char* vertex_order_name(VertexOrder order);
bool parse_vertex_order(const std::string& name, VertexOrder* order);

std::vector<uint32_t> degree_order(const std::vector<uint32_t>& degree);
// `offsets` (n + 1) and `neighbours`: the undirected adjacency (CSR).
std::vector<uint32_t> bfs_order(const std::vector<uint64_t>& offsets, const std::vector<uint32_t>& neighbours);

}  // namespace sg
