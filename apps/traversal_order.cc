// Locality orders computed by traversing the stored graph with the engine,
// so they need O(|V|) memory, not the graph (DESIGN §10). Each returns
// new_id[old_id]:
//   bfds  IOE-Order's breadth-first degree-second (Li et al., "Optimizing
//         Graph Processing on Out-of-Core Systems...", FAST'22 IOE-Order):
//         BFS over out-edges from the vertex of highest in-degree; the
//         vertices one level discovers are numbered by their discoverer's
//         number (the earliest in the queue), then by decreasing in-degree,
//         then by id. That is a sequential BFS that visits each vertex's
//         out-neighbours in decreasing in-degree order, done a level at a
//         time (edge_map) so that it runs out of core.
//   bfs   the same over edges in both directions from the vertex of highest
//         total degree, ties by id (Cuthill-McKee-like).
// When a traversal ends, the next roots are the unvisited vertices of highest
// degree, taken 1, 2, 4, ... at a time, so a graph with a million small
// components needs about 20 restarts, not a million.
#include <algorithm>
#include <numeric>

#include "apps/kernels.h"

namespace sg {
namespace {

constexpr uint32_t kUnranked = UINT32_MAX;

// Each vertex first reached in a level keeps the smallest rank among the
// vertices that reach it.
struct Discover {
  const uint32_t* rank;
  uint32_t* parent_rank;
  bool update(uint32_t u, uint32_t v, float) {
    const bool first = parent_rank[v] == kUnranked;
    parent_rank[v] = std::min(parent_rank[v], rank[u]);
    return first;
  }
  bool update_atomic(uint32_t u, uint32_t v, float) {  // true for the write that replaced kUnranked
    std::atomic_ref<uint32_t> target(parent_rank[v]);
    const uint32_t value = rank[u];
    uint32_t current = target.load(std::memory_order_relaxed);
    while (value < current) {
      if (target.compare_exchange_weak(current, value, std::memory_order_relaxed)) return current == kUnranked;
    }
    return false;
  }
  bool cond(uint32_t v) const { return rank[v] == kUnranked; }
};

}  // namespace

Status traversal_order(Engine* engine, TraversalOrder kind, std::vector<uint32_t>* new_id) {
  const uint32_t n = engine->num_vertices();
  const bool both_ways = kind == TraversalOrder::kBfs;
  SG_RETURN_IF_ERROR(engine->ensure_in_degrees());
  SG_RETURN_IF_ERROR(engine->ensure_out_degrees());
  // Whole in memory (kAny arrays are; an order is skipped when its vertex
  // state exceeds the budget).
  const VertexArray<uint32_t>& in_degree = engine->in_degree();
  const VertexArray<uint32_t>& out_degree = engine->out_degree();
  auto degree = [&](uint32_t v) -> uint64_t {
    return both_ways ? uint64_t{in_degree[v]} + (engine->graph().directed() ? out_degree[v] : 0) : in_degree[v];
  };
  VertexArray<uint32_t> rank, parent_rank, roots_by_degree;
  SG_RETURN_IF_ERROR(engine->allocate(&rank, "order.rank"));
  SG_RETURN_IF_ERROR(engine->allocate(&parent_rank, "order.parent_rank"));
  SG_RETURN_IF_ERROR(engine->allocate(&roots_by_degree, "order.roots"));
  SG_RETURN_IF_ERROR(engine->vertex_map(VertexSubset::all(n), [&](uint32_t v) {
    rank[v] = kUnranked;
    parent_rank[v] = kUnranked;
    roots_by_degree[v] = v;
  }));
  std::stable_sort(roots_by_degree.data(), roots_by_degree.data() + n,
                   [&](uint32_t a, uint32_t b) { return degree(a) > degree(b); });
  // Numbers a level's discoveries: by discoverer, then degree, then id.
  auto number = [&](std::vector<uint32_t>* found, uint32_t* next_rank) {
    std::sort(found->begin(), found->end(), [&](uint32_t a, uint32_t b) {
      if (parent_rank[a] != parent_rank[b]) return parent_rank[a] < parent_rank[b];
      const uint64_t da = both_ways ? 0 : degree(a), db = both_ways ? 0 : degree(b);
      return da != db ? da > db : a < b;
    });
    for (uint32_t v : *found) rank[v] = (*next_rank)++;
  };
  uint32_t next_rank = 0;
  size_t cursor = 0, batch = 1;
  int step = 0;
  while (next_rank < n) {
    std::vector<uint32_t> roots;
    while (roots.size() < batch && cursor < n) {
      const uint32_t v = roots_by_degree[cursor++];
      if (rank[v] == kUnranked) {
        rank[v] = next_rank++;
        roots.push_back(v);
      }
    }
    batch *= 2;
    VertexSubset frontier = VertexSubset::from_list(n, std::move(roots));
    while (!frontier.is_empty()) {
      engine->set_iteration(step++);
      Discover discover{rank.data(), parent_rank.data()};
      VertexSubset next;
      SG_RETURN_IF_ERROR(engine->edge_map(frontier, discover, &next));
      if (both_ways && engine->graph().directed()) {
        VertexSubset backward;
        SG_RETURN_IF_ERROR(engine->edge_map(frontier, discover, &backward, EdgeMapOptions{Direction::kAuto, true}));
        next.add_all(backward);
      }
      next.to_sparse();
      std::vector<uint32_t> found = next.list();
      number(&found, &next_rank);
      frontier = std::move(next);
    }
  }
  engine->end_iterations();
  new_id->assign(rank.data(), rank.data() + n);
  return Status::OK();
}

}  // namespace sg
