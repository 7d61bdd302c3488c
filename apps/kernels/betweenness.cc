// Betweenness centrality contributions of one source (Brandes, "A faster
// algorithm for betweenness centrality", J. Math. Sociol. 2001; the
// frontier form of Ligra's BC): a forward BFS counts the shortest paths
// sigma(v) from the source level by level, keeping each level's frontier;
// then, from the deepest level up, every vertex v hands each in-neighbour u
// one level closer sigma(u) / sigma(v) * (1 + delta(v)) of dependency.
// The result is delta(v), the source's contribution to v's betweenness
// (0 for the source and for unreachable vertices). Parallel arcs count as
// distinct paths; self-loops never lie on a shortest path.
#include "apps/kernels/kernels.h"
#include "core/atomics.h"

namespace sg {
namespace {

struct CountPaths {
  int32_t* depth;
  double* sigma;
  int32_t next_depth;
  bool update(uint32_t u, uint32_t v, float) {
    const bool first = depth[v] == kUnreached;  // v joins the next level
    if (first)
      depth[v] = next_depth;
    else if (depth[v] != next_depth)
      return false;
    sigma[v] += sigma[u];
    return first;
  }
  bool update_atomic(uint32_t u, uint32_t v, float) {
    int32_t expected = kUnreached;
    const bool first = std::atomic_ref<int32_t>(depth[v]).compare_exchange_strong(expected, next_depth);
    if (first || expected == next_depth) atomic_add(&sigma[v], sigma[u]);
    return first;
  }
  bool cond(uint32_t v) const {
    const int32_t d = load_relaxed(&depth[v]);
    return d == kUnreached || d == next_depth;
  }
};

// Along in-edges: v (one level deeper) pays its in-neighbour u.
struct Accumulate {
  const int32_t* depth;
  const double* sigma;
  double* delta;
  int32_t parent_depth;
  bool update(uint32_t v, uint32_t u, float) {
    delta[u] += sigma[u] / sigma[v] * (1 + delta[v]);
    return false;
  }
  bool update_atomic(uint32_t v, uint32_t u, float) {
    atomic_add(&delta[u], sigma[u] / sigma[v] * (1 + delta[v]));
    return false;
  }
  bool cond(uint32_t u) const { return depth[u] == parent_depth; }
};

}  // namespace

Status betweenness(Engine* engine, uint32_t source, VertexArray<double>* delta) {
  const uint32_t n = engine->num_vertices();
  VertexArray<int32_t> depth;
  VertexArray<double> sigma;
  SG_RETURN_IF_ERROR(engine->allocate(&depth, "betweenness.depth", VertexUse::kAny));
  SG_RETURN_IF_ERROR(engine->allocate(&sigma, "betweenness.sigma", VertexUse::kAny));
  SG_RETURN_IF_ERROR(engine->allocate(delta, "betweenness.delta", VertexUse::kAny));
  // delta starts at zero as every new array does: writing it here would
  // touch all its pages at once, past the budget when it is file-backed.
  SG_RETURN_IF_ERROR(engine->vertex_map(VertexSubset::all(n), [&](uint32_t v) {
    depth[v] = v == source ? 0 : kUnreached;
    sigma[v] = v == source ? 1 : 0;
  }));
  // The levels' frontiers: together at most |V| vertices, held in the
  // budget as they are kept (the cache gives way).
  std::vector<VertexSubset> levels;
  uint64_t levels_bytes = 0;
  VertexSubset frontier = VertexSubset::single(n, source);
  for (int32_t level = 0; !frontier.is_empty() && level < static_cast<int32_t>(n); ++level) {
    engine->set_iteration(level);
    CountPaths count{depth.data(), sigma.data(), level + 1};
    VertexSubset next;
    const Status status = engine->edge_map(frontier, count, &next);
    if (!status.ok()) {
      engine->release_app_memory(levels_bytes);
      return status;
    }
    const uint64_t bytes = frontier.bits().capacity() * sizeof(uint64_t) +
                           (frontier.is_dense() ? 0 : frontier.list().capacity() * sizeof(uint32_t));
    engine->hold_app_memory(bytes);
    levels_bytes += bytes;
    levels.push_back(std::move(frontier));
    frontier = std::move(next);
  }
  // Level 1 would pay only the source, whose dependency is not counted.
  for (size_t level = levels.size(); level-- > 2;) {
    engine->set_iteration(static_cast<int>(levels.size() + (levels.size() - level)));
    Accumulate pay{depth.data(), sigma.data(), delta->data(), static_cast<int32_t>(level) - 1};
    VertexSubset unused;
    const Status status = engine->edge_map(levels[level], pay, &unused, {Direction::kAuto, true});
    delta->raw().drop_pages();  // file-backed: only a step's pages stay mapped
    if (!status.ok()) {
      engine->release_app_memory(levels_bytes);
      return status;
    }
  }
  engine->release_app_memory(levels_bytes);
  return Status::OK();
}

}  // namespace sg
