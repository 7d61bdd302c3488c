// Breadth-first search (frontier-based, Ligra's BFS functor) giving each
// vertex its depth from the source (-1 when unreachable) and, as parent,
// the smallest-id in-neighbour one level closer — the same parent in push
// and pull, so results never depend on thread timing. Parents are optional
// (they double the vertex state). The engine picks push
// on small frontiers and pull on large ones (direction optimization,
// Beamer et al. SC'12, through Ligra's |frontier edges| > |E|/20 rule).
#include "apps/kernels/kernels.h"
#include "core/atomics.h"

namespace sg {
namespace {

struct BfsVisit {
  int32_t* depth;
  uint32_t* parent;  // null: depths only
  int32_t next_depth;
  bool update(uint32_t u, uint32_t v, float) {
    if (depth[v] == kUnreached) {
      depth[v] = next_depth;
      if (parent != nullptr) parent[v] = u;
      return true;
    }
    if (parent != nullptr && u < parent[v]) parent[v] = u;
    return false;
  }
  bool update_atomic(uint32_t u, uint32_t v, float) {
    int32_t expected = kUnreached;
    const bool first = std::atomic_ref<int32_t>(depth[v]).compare_exchange_strong(expected, next_depth);
    if (parent != nullptr && (first || expected == next_depth)) write_min(&parent[v], u);
    return first;
  }
  // Vertices reached in this round still take smaller parents.
  bool cond(uint32_t v) const {
    const int32_t d = load_relaxed(&depth[v]);
    return d == kUnreached || d == next_depth;
  }
};

}  // namespace

Status bfs(Engine* engine, uint32_t source, VertexArray<int32_t>* depth, VertexArray<uint32_t>* parent) {
  const uint32_t n = engine->num_vertices();
  SG_RETURN_IF_ERROR(engine->allocate(depth, "bfs.depth", VertexUse::kDestination));
  if (parent != nullptr) SG_RETURN_IF_ERROR(engine->allocate(parent, "bfs.parent", VertexUse::kDestination));
  SG_RETURN_IF_ERROR(engine->vertex_map(VertexSubset::all(n), [&](uint32_t v) {
    (*depth)[v] = v == source ? 0 : kUnreached;
    if (parent != nullptr) (*parent)[v] = v == source ? source : kNoParent;
  }));
  VertexSubset frontier = VertexSubset::single(n, source);
  for (int32_t round = 0; !frontier.is_empty() && round < static_cast<int32_t>(n); ++round) {
    engine->set_iteration(round);
    BfsVisit visit{depth->data(), parent != nullptr ? parent->data() : nullptr, round + 1};
    VertexSubset next;
    SG_RETURN_IF_ERROR(engine->edge_map(frontier, visit, &next));
    frontier = std::move(next);
  }
  return Status::OK();
}

}  // namespace sg
