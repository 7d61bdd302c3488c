// Breadth-first search (frontier-based, Ligra's BFS functor) giving each
// vertex its depth from the source (-1 when unreachable) and, as parent,
// the smallest-id in-neighbour one level closer — the same parent in push
// and pull, so results never depend on thread timing. Parents are optional
// (they double the vertex state). The engine picks push
// on small frontiers and pull on large ones (direction optimization,
// Beamer et al. SC'12, through Ligra's |frontier edges| > |E|/20 rule).
#include "apps/harness/app_row.h"
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

// The app: its summary, figures and result columns (apps/harness).
namespace {

// BFS's --output line: "depth" or "depth parent" (the parent's original id, -1 for none).
void bfs_text(const Graph& graph, bool graphalytics, const VertexArray<int32_t>& depth,
              const VertexArray<uint32_t>* parent, uint32_t v, char* buf, size_t size) {
  const bool parents = parent != nullptr;
  if (parents && (*parent)[v] != kNoParent) {
    std::snprintf(buf, size, "%d %llu", depth[v], static_cast<unsigned long long>(graph.original_id((*parent)[v])));
  } else if (graphalytics && depth[v] < 0) {
    std::snprintf(buf, size, parents ? "9223372036854775807 -1" : "9223372036854775807");
  } else {
    std::snprintf(buf, size, parents ? "%d -1" : "%d", depth[v]);
  }
}

Status run_bfs(AppRun& r) {
  uint32_t source = 0;
  SG_RETURN_IF_ERROR(r.source(&source));
  auto* depth = r.out.array<int32_t>();
  VertexArray<uint32_t>* parent = r.options.parents ? r.out.array<uint32_t>() : nullptr;
  SG_RETURN_IF_ERROR(bfs(&r.engine, source, depth, parent));
  SG_RETURN_IF_ERROR(parent != nullptr ? r.finish(depth, parent) : r.finish(depth));
  uint64_t source_id = 0;  // the id map is checked once the kernel is done
  SG_RETURN_IF_ERROR(r.graph.lookup_original_id(source, &source_id));
  uint64_t reached = 0;
  int32_t max_depth = 0;
  for (uint32_t v = 0; v < r.graph.num_vertices(); ++v) {
    reached += (*depth)[v] != kUnreached;
    max_depth = std::max(max_depth, (*depth)[v]);
    r.out.pages.visited(v + 1);
  }
  r.out.summary =
      summary_line("bfs from %llu: %llu vertices reached, max depth %d\n", static_cast<unsigned long long>(source_id),
                   static_cast<unsigned long long>(reached), max_depth);
  r.out.facts = {{"source", source_id}, {"reached", reached}, {"max_depth", max_depth}};
  r.out.add_column("depth", depth);
  if (parent != nullptr) {
    const Graph* graph = &r.graph;
    r.out.add_column({"parent", ResultType::kInt64, [graph, parent](uint32_t v, void* out) {
                        *static_cast<int64_t*>(out) =
                            (*parent)[v] == kNoParent ? -1 : static_cast<int64_t>(graph->original_id((*parent)[v]));
                      }});
  }
  const bool graphalytics = r.options.graphalytics_output;
  r.out.text = [graph = &r.graph, graphalytics, depth, parent](uint32_t v, char* buf, size_t size) {
    bfs_text(*graph, graphalytics, *depth, parent, v, buf, size);
  };
  return Status::OK();
}

}  // namespace

SG_APP_ROW(bfs) {
  return AppRow("bfs", "breadth-first search: depth (and parent) of every vertex", kSourceOption | kParentsOption, "",
                "depth,parent", kNoAppTrait, run_bfs);
}

}  // namespace sg
