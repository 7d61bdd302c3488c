#include "apps/run/app_table.h"

#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "apps/kernels/kernels.h"

namespace sg {

Status AppRun::source(uint32_t* vertex) const {
  if (options.source.has_value()) {
    if (!graph.dense_id(*options.source, vertex)) {
      return Status::InvalidArgument("--source " + std::to_string(*options.source) + " is not a vertex of " +
                                     graph.dir());
    }
  } else {
    return engine.max_out_degree_vertex(vertex);  // reaches something
  }
  return Status::OK();
}

// Cached chunks go. The summary looks up its few ids in the id map's file
// (deferred at open, so the run had its memory), unchecked: a pass that
// checks the whole map read 33.5 MB on R-MAT 22, a quarter of a WCC run's
// bytes. Results need every id: the map is checked and loaded (with the
// order by original id) when it fits the memory the kernel left, else
// mapped, and the output lists vertices in stored order.
Status AppRun::finish_run() {
  engine.end_iterations();
  engine.release_cache();
  malloc_trim(0);  // cached chunks came from the heap: give their pages back
  if (!options.needs_ids) return Status::OK();
  SG_RETURN_IF_ERROR(graph.check_id_map());
  return graph.id_map_load_bytes() <= engine.unheld_memory() ? graph.load_id_map() : graph.map_id_map();
}

namespace {

std::string format(const char* pattern, auto... values) {
  char line[256];
  std::snprintf(line, sizeof(line), pattern, values...);
  return line;
}

// Finished values printed with `pattern` ("%.9g"), the summary's top
// list under `headline`.
Status describe_values(AppRun& r, VertexArray<double>* values, const char* column, const char* pattern,
                       const std::string& headline, bool top = true) {
  r.out.add_column(column, values);
  r.out.text = [values, pattern](uint32_t v, char* buf, size_t size) {
    std::snprintf(buf, size, pattern, (*values)[v]);
  };
  std::string list;
  if (top) SG_RETURN_IF_ERROR(top_values_text(r.graph, *values, r.out.pages, r.options.top, &list));
  r.out.summary = headline + list;
  return Status::OK();
}

// PageRank and PageRank-delta: ranks, with the steps they took.
template <typename Kernel>
Status run_ranks(AppRun& r, Kernel&& kernel, const char* steps_name, const char* headline) {
  int steps = 0;
  auto* values = r.out.array<double>();
  SG_RETURN_IF_ERROR(kernel(values, &steps));
  r.out.facts = {{steps_name, steps}};
  SG_RETURN_IF_ERROR(r.finish(values));
  return describe_values(r, values, "rank", "%.9g", format(headline, steps));
}

Status run_pagerank(AppRun& r) {
  PageRankOptions p;
  if (r.options.iterations > 0) p.iterations = r.options.iterations;
  p.tolerance = r.options.tolerance;
  return run_ranks(
      r, [&](VertexArray<double>* values, int* run) { return pagerank(&r.engine, p, values, run); }, "iterations",
      "pagerank: %d iterations\n");
}

Status run_pagerank_delta(AppRun& r) {
  PageRankDeltaOptions p;
  if (r.options.iterations > 0) p.max_rounds = r.options.iterations;
  if (r.options.tolerance > 0) p.epsilon = r.options.tolerance;
  return run_ranks(
      r, [&](VertexArray<double>* values, int* rounds) { return pagerank_delta(&r.engine, p, values, rounds); },
      "rounds", "pagerank-delta: %d rounds\n");
}

Status run_spmv(AppRun& r) {
  SpmvOptions s;
  if (r.options.iterations > 0) s.iterations = r.options.iterations;
  auto* values = r.out.array<double>();
  SG_RETURN_IF_ERROR(spmv(&r.engine, s, values));
  r.out.facts = {{"iterations", s.iterations}};
  SG_RETURN_IF_ERROR(r.finish(values));
  return describe_values(r, values, "value", "%.9g", format("spmv: %d products\n", s.iterations));
}

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
      format("bfs from %llu: %llu vertices reached, max depth %d\n", static_cast<unsigned long long>(source_id),
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

// The size of the largest component from labels (a label is a vertex id),
// counting labels one id range at a time so the counts take at most
// `max_bytes`.
uint32_t largest_component(const VertexArray<uint32_t>& labels, const ResultPages& pages, uint64_t max_bytes) {
  const uint32_t n = static_cast<uint32_t>(labels.size());
  const uint32_t range =
      static_cast<uint32_t>(std::clamp<uint64_t>(max_bytes / sizeof(uint32_t), 1 << 16, std::max(n, 1u)));
  uint32_t largest = 0;
  std::vector<uint32_t> count;
  for (uint64_t first = 0; first < n; first += range) {
    count.assign(std::min<uint64_t>(range, n - first), 0);
    for (uint32_t v = 0; v < n; ++v) {
      if (labels[v] >= first && labels[v] - first < count.size()) ++count[labels[v] - first];
      pages.visited(v + 1);
    }
    largest = std::max(largest, *std::max_element(count.begin(), count.end()));
  }
  return largest;
}

// A component's label is its smallest original id. A label is the smallest
// dense id, so its original id when the ids keep their order; otherwise a
// label's smallest original id, per label (file-backed when the budget has
// no room for it).
Status wcc_components(AppRun& r, const VertexArray<uint32_t>* labels) {
  const Graph* graph = &r.graph;
  VertexArray<uint64_t>* smallest = nullptr;
  if (r.options.needs_ids && !graph->ids_in_order()) {
    smallest = r.out.array<uint64_t>();
    SG_RETURN_IF_ERROR(r.engine.allocate(smallest, "wcc.smallest"));
    r.out.pages.add(smallest->raw());
    for (uint32_t v = 0; v < graph->num_vertices(); ++v) {
      (*smallest)[v] = UINT64_MAX;
      r.out.pages.visited(v + 1);
    }
    for (uint32_t v = 0; v < graph->num_vertices(); ++v) {
      (*smallest)[(*labels)[v]] = std::min((*smallest)[(*labels)[v]], graph->original_id(v));
      r.out.pages.visited(v + 1);
    }
  }
  auto component = [graph, labels, smallest](uint32_t v) {
    return smallest == nullptr ? graph->original_id((*labels)[v]) : (*smallest)[(*labels)[v]];
  };
  r.out.add_column({"component", ResultType::kUint64,
                    [component](uint32_t v, void* out) { *static_cast<uint64_t*>(out) = component(v); }});
  r.out.text = [component](uint32_t v, char* buf, size_t n) {
    std::snprintf(buf, n, "%llu", static_cast<unsigned long long>(component(v)));
  };
  return Status::OK();
}

Status run_wcc(AppRun& r) {
  auto* labels = r.out.array<uint32_t>();
  SG_RETURN_IF_ERROR(wcc(&r.engine, labels));
  SG_RETURN_IF_ERROR(r.finish(labels));

  uint64_t components = 0;
  for (uint32_t v = 0; v < r.graph.num_vertices(); ++v) {
    components += (*labels)[v] == v;
    r.out.pages.visited(v + 1);
  }
  // The counts get what the labels leave of the budget when the labels are
  // in memory (R-MAT 25 in 176 MiB peaked at 1.28x with half of it), and
  // at least their share of it: labels over a file are paged, and each pass
  // of the count reads them all (R-MAT 26's 268 MB in 64 Ki-label passes
  // would have read 274 GB).
  const MemoryBudget& budget = r.engine.budget();
  const uint64_t label_bytes = labels->raw().resident() ? uint64_t{r.graph.num_vertices()} * sizeof(uint32_t) : 0;
  const uint64_t count_bytes = std::max(budget.share(MemoryShare::kComponentCounts),
                                        budget.total() > label_bytes ? budget.total() - label_bytes : 0);
  const uint32_t largest = largest_component(*labels, r.out.pages, count_bytes);
  r.out.summary =
      format("wcc: %llu components, largest %u vertices\n", static_cast<unsigned long long>(components), largest);
  r.out.facts = {{"components", components}, {"largest", largest}};
  return wcc_components(r, labels);
}

Status run_betweenness(AppRun& r) {
  uint32_t source = 0;
  SG_RETURN_IF_ERROR(r.source(&source));
  auto* dependency = r.out.array<double>();
  SG_RETURN_IF_ERROR(betweenness(&r.engine, source, dependency));
  SG_RETURN_IF_ERROR(r.finish(dependency));
  uint64_t source_id = 0;
  SG_RETURN_IF_ERROR(r.graph.lookup_original_id(source, &source_id));
  r.out.facts = {{"source", source_id}};
  return describe_values(r, dependency, "dependency", "%.17g",
                         "betweenness from " + std::to_string(source_id) + ", largest dependencies:\n");
}

Status run_cdlp(AppRun& r) {
  auto* labels = r.out.array<uint64_t>();
  const int iterations = r.options.iterations > 0 ? r.options.iterations : 10;
  SG_RETURN_IF_ERROR(cdlp(&r.engine, iterations, labels));
  SG_RETURN_IF_ERROR(r.finish(labels));
  std::string communities = "not counted: more than half of --memory";
  const uint32_t n = r.graph.num_vertices();
  if (uint64_t{n} * sizeof(uint64_t) <= r.engine.budget().share(MemoryShare::kCommunityCount)) {
    std::vector<uint64_t> sorted(n);
    for (uint32_t v = 0; v < n; ++v) {
      sorted[v] = (*labels)[v];
      r.out.pages.visited(v + 1);  // file-backed labels: few pages stay mapped
    }
    std::sort(sorted.begin(), sorted.end());
    communities = std::to_string(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
  }
  r.out.summary = format("cdlp: %d iterations, %s communities\n", iterations, communities.c_str());
  r.out.facts = {{"iterations", iterations}};
  r.out.add_column("label", labels);
  r.out.text = [labels](uint32_t v, char* buf, size_t bytes) {
    std::snprintf(buf, bytes, "%llu", static_cast<unsigned long long>((*labels)[v]));
  };
  return Status::OK();
}

Status run_lcc(AppRun& r) {
  auto* coefficient = r.out.array<double>();
  uint64_t arcs = 0;
  SG_RETURN_IF_ERROR(lcc(&r.engine, coefficient, &arcs));
  SG_RETURN_IF_ERROR(r.finish(coefficient));
  double total = 0;
  for (uint32_t v = 0; v < r.graph.num_vertices(); ++v) {
    total += (*coefficient)[v];
    r.out.pages.visited(v + 1);
  }
  const uint32_t n = r.graph.num_vertices();
  r.out.facts = {{"arcs_among_neighbours", arcs}};
  return describe_values(r, coefficient, "coefficient", "%.17g",
                         format("lcc: average %.6f, %llu arcs among neighbours\n", n == 0 ? 0.0 : total / n,
                                static_cast<unsigned long long>(arcs)));
}

Status run_triangles(AppRun& r) {
  auto* coefficient = r.out.array<double>();
  uint64_t arcs = 0;
  SG_RETURN_IF_ERROR(lcc(&r.engine, coefficient, &arcs));
  SG_RETURN_IF_ERROR(r.finish(coefficient));
  r.out.facts = {{"triangles", arcs / 6}};
  return describe_values(r, coefficient, "coefficient", "%.17g",
                         format("triangles: %llu\n", static_cast<unsigned long long>(arcs / 6)), false);
}

Status run_kcore(AppRun& r) {
  auto* core = r.out.array<uint32_t>();
  SG_RETURN_IF_ERROR(kcore(&r.engine, core));
  SG_RETURN_IF_ERROR(r.finish(core));
  uint32_t degeneracy = 0;
  uint64_t in_top = 0;
  for (uint32_t v = 0; v < r.graph.num_vertices(); ++v) {
    degeneracy = std::max(degeneracy, (*core)[v]);
    r.out.pages.visited(v + 1);
  }
  for (uint32_t v = 0; v < r.graph.num_vertices(); ++v) {
    in_top += (*core)[v] == degeneracy;
    r.out.pages.visited(v + 1);
  }
  r.out.summary =
      format("kcore: largest core %u (%llu vertices)\n", degeneracy, static_cast<unsigned long long>(in_top));
  r.out.facts = {{"largest_core", degeneracy}, {"vertices", in_top}};
  r.out.add_column("coreness", core);
  r.out.text = [core](uint32_t v, char* buf, size_t n) { std::snprintf(buf, n, "%u", (*core)[v]); };
  return Status::OK();
}

Status run_sssp(AppRun& r) {
  uint32_t source = 0;
  SG_RETURN_IF_ERROR(r.source(&source));
  auto* distance = r.out.array<float>();
  SG_RETURN_IF_ERROR(sssp(&r.engine, source, r.options.unit_weights, distance));
  SG_RETURN_IF_ERROR(r.finish(distance));
  uint64_t source_id = 0;
  SG_RETURN_IF_ERROR(r.graph.lookup_original_id(source, &source_id));
  uint64_t reached = 0;
  float farthest = 0;
  for (uint32_t v = 0; v < r.graph.num_vertices(); ++v) {
    r.out.pages.visited(v + 1);
    if (std::isinf((*distance)[v])) continue;
    ++reached;
    farthest = std::max(farthest, (*distance)[v]);
  }
  r.out.summary =
      format("sssp from %llu: %llu vertices reached, farthest %.9g\n", static_cast<unsigned long long>(source_id),
             static_cast<unsigned long long>(reached), farthest);
  r.out.facts = {{"source", source_id}, {"reached", reached}};
  r.out.add_column("distance", distance);
  const bool graphalytics = r.options.graphalytics_output;
  r.out.text = [distance, graphalytics](uint32_t v, char* buf, size_t n) {
    if (std::isinf((*distance)[v]))
      std::snprintf(buf, n, graphalytics ? "infinity" : "inf");
    else
      std::snprintf(buf, n, "%.9g", (*distance)[v]);
  };
  return Status::OK();
}

constexpr uint32_t kNone = 0;

}  // namespace

const std::vector<AppRow>& app_rows() {
  static const std::vector<AppRow> rows = {
      {"pagerank", "PageRank, damping 0.85", kIterationsOption | kToleranceOption | kTopOption,
       "iterations (default 20)", "rank", false, false, false, run_pagerank},
      {"pagerank-delta", "PageRank pushing only changes above epsilon (Ligra's PageRank-Delta)",
       kIterationsOption | kToleranceOption | kTopOption, "max rounds (default 100); --tolerance is epsilon (0.01)",
       "rank", false, false, false, run_pagerank_delta},
      {"spmv", "y = (A^T)^k x, x all ones", kIterationsOption | kTopOption, "products (default 1)", "value", false,
       false, false, run_spmv},
      {"bfs", "breadth-first search: depth (and parent) of every vertex", kSourceOption | kParentsOption, "",
       "depth,parent", false, false, false, run_bfs},
      {"wcc", "weakly connected components: each vertex's smallest original id in its component", kNone, "",
       "component", false, false, true, run_wcc},
      {"sssp", "single-source shortest paths (delta-stepping over weights, or unit weights)",
       kSourceOption | kUnitWeightsOption, "", "distance", false, true, false, run_sssp},
      {"kcore", "coreness of every vertex (k-core decomposition)", kNone, "", "coreness", false, false, true,
       run_kcore},
      {"betweenness", "one source's betweenness dependencies (Brandes)", kSourceOption | kTopOption, "", "dependency",
       false, false, true, run_betweenness},
      {"cdlp", "community detection by label propagation (LDBC Graphalytics)", kIterationsOption,
       "iterations (default 10)", "label", false, false, true, run_cdlp},
      {"lcc", "local clustering coefficient (LDBC Graphalytics)", kTopOption, "", "coefficient", false, false, true,
       run_lcc},
      {"triangles", "triangle count (undirected graphs), with each vertex's clustering coefficient", kNone, "",
       "coefficient", true, false, true, run_triangles},
  };
  return rows;
}

Status check_app_needs(const AppRow& row, const Graph& graph, bool unit_weights) {
  if (row.needs_undirected && graph.directed()) {
    return Status::InvalidArgument(std::string(row.name) + ": the graph is directed; ingest it with --undirected");
  }
  if (row.needs_weights && !graph.weighted() && !unit_weights) {
    return Status::InvalidArgument(std::string(row.name) +
                                   " needs a weighted graph; use --unit-weights to give every edge weight 1");
  }
  return Status::OK();
}

const AppRow* find_app_row(const std::string& name) {
  for (const AppRow& row : app_rows()) {
    if (name == row.name) return &row;
  }
  return nullptr;
}

std::string app_names(const std::string& separator) {
  std::string names;
  for (const AppRow& row : app_rows()) names += (names.empty() ? "" : separator) + row.name;
  return names;
}

}  // namespace sg
