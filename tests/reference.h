// Plain in-memory reference implementations of the apps, for comparison.
#pragma once

#include <cstdint>
#include <vector>

#include "test_util.h"

namespace sgtest {

struct RefGraph {
  uint32_t n = 0;
  std::vector<std::vector<std::pair<uint32_t, float>>> out, in;  // sorted by neighbour
};

// `arcs` in dense ids; undirected adds the reverse of every non-loop arc.
RefGraph make_ref_graph(uint32_t n, const std::vector<Arc>& arcs, bool undirected);

std::vector<double> ref_pagerank(const RefGraph& g, int iterations, double damping = 0.85);
// PR(v) = (1-d)/N + d * sum PR(u)/outdeg(u), iterated to convergence.
std::vector<double> ref_pagerank_no_dangling(const RefGraph& g, double damping = 0.85);
std::vector<double> ref_spmv(const RefGraph& g, int iterations);
void ref_bfs(const RefGraph& g, uint32_t source, std::vector<int32_t>* depth, std::vector<uint32_t>* parent);
std::vector<uint32_t> ref_wcc(const RefGraph& g);
std::vector<float> ref_sssp(const RefGraph& g, uint32_t source, bool unit_weights);
// Coreness by sequential peeling (smallest remaining degree first); degrees
// count in- and out-arcs on a directed graph, self-loops excluded.
std::vector<uint32_t> ref_kcore(const RefGraph& g, bool directed);
// Brandes' dependencies of one source along out-arcs (parallel arcs count).
std::vector<double> ref_betweenness(const RefGraph& g, uint32_t source);
// Graphalytics CDLP with labels = dense ids: distinct in- plus distinct
// out-neighbours on a directed graph, distinct neighbours on an undirected one.
std::vector<uint64_t> ref_cdlp(const RefGraph& g, bool directed, int iterations);
// Graphalytics LCC: N(v) = distinct neighbours either way but v; arcs among them.
std::vector<double> ref_lcc(const RefGraph& g);
// new_id[v] of the bfds (out-edges, ties by decreasing in-degree) or bfs
// (both directions, ties by id) traversal order (apps/traversal_order.cc).
std::vector<uint32_t> ref_traversal_order(const RefGraph& g, bool directed, bool both_ways);

}  // namespace sgtest
