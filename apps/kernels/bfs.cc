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

// Reached vertices are also marked in a bitmap (an eighth of a byte a
// vertex, so it stays in cache): most arcs of a large step lead to vertices
// already reached, and the bit spares a cache miss on depth for each.
struct BfsVisit {
  int32_t* depth;
  uint32_t* parent;  // null: depths only
  uint64_t* reached;
  int32_t next_depth;
  void mark(uint32_t v) {
    std::atomic_ref<uint64_t>(reached[v >> 6]).fetch_or(uint64_t{1} << (v & 63), std::memory_order_relaxed);
  }
  bool update(uint32_t u, uint32_t v, float) {
    if (depth[v] == kUnreached) {
      depth[v] = next_depth;
      if (parent != nullptr) parent[v] = u;
      mark(v);  // atomically: a word holds other threads' vertices
      return true;
    }
    if (parent != nullptr && u < parent[v]) parent[v] = u;
    return false;
  }
  bool update_atomic(uint32_t u, uint32_t v, float) {
    int32_t expected = kUnreached;
    const bool first = std::atomic_ref<int32_t>(depth[v]).compare_exchange_strong(expected, next_depth);
    if (first) mark(v);
    if (parent != nullptr && (first || expected == next_depth)) write_min(&parent[v], u);
    return first;
  }
  // Vertices reached in this round still take smaller parents.
  bool cond(uint32_t v) const {
    const uint64_t word = std::atomic_ref<uint64_t>(reached[v >> 6]).load(std::memory_order_relaxed);
    if (((word >> (v & 63)) & 1) == 0) return true;
    return parent != nullptr && load_relaxed(&depth[v]) == next_depth;
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
  std::vector<uint64_t> reached((uint64_t{n} + 63) / 64);
  const uint64_t reached_bytes = reached.size() * sizeof(uint64_t);
  engine->hold_app_memory(reached_bytes);
  reached[source >> 6] |= uint64_t{1} << (source & 63);
  VertexSubset frontier = VertexSubset::single(n, source);
  Status status = Status::OK();
  for (int32_t round = 0; status.ok() && !frontier.is_empty() && round < static_cast<int32_t>(n); ++round) {
    engine->set_iteration(round);
    BfsVisit visit{depth->data(), parent != nullptr ? parent->data() : nullptr, reached.data(), round + 1};
    VertexSubset next;
    status = engine->edge_map(frontier, visit, &next);
    frontier = std::move(next);
  }
  engine->release_app_memory(reached_bytes);
  return status;
}

}  // namespace sg
