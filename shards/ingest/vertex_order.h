// Vertex orderings applied at ingest, so that vertices
// touched together lie in the same chunks:
//   bfds    IOE-Order's breadth-first degree-second over out-edges;
//   bfs     breadth-first over edges in both directions (Cuthill-McKee-like);
//   degree  by total degree, highest first (IOE-Order's degree binning puts
//           the lists that traversals reach first together).
// The traversal orders are computed over the stored graph by the engine
// (apps/traversal_order.cc); ingest only applies a permutation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace sg {

struct SlotArcs;

class Graph;

enum class VertexOrder { kNone, kBfds, kBfs, kDegree };
const char* vertex_order_name(VertexOrder order);
bool parse_vertex_order(const std::string& name, VertexOrder* order);

// The degree order of a stored graph, as a file of new_id[old_id]: by
// total degree (out + in; out only when undirected) descending, ties by
// id, in a few MiB whatever the vertex count (a counting sort in
// two streamed passes over the degree files). With `slot_arcs`, also each
// space's arcs per range of new ids (SlotArcs; ranges as
// known_bucket_ranges cuts them).
Status write_degree_order(const Graph& graph, const std::string& path, SlotArcs* slot_arcs = nullptr);

// The same order from total degrees held in memory (counted while the
// input was routed): each degree becomes its vertex's new id, in place.
// Adds each new id's degree to slot_degrees[new_id >> slot_shift] (the
// arcs a range of new ids holds, to cut buckets by).
void degrees_to_degree_order(std::vector<uint32_t>* degrees, int slot_shift, std::vector<uint64_t>* slot_degrees);

}  // namespace sg
