// Betweenness centrality contributions of one source (Brandes, "A faster
// algorithm for betweenness centrality", J. Math. Sociol. 2001; the
// frontier form of Ligra's BC): a forward BFS counts the shortest paths
// sigma(v) from the source level by level, keeping each level's frontier;
// then, from the deepest level up, every vertex v hands each in-neighbour u
// one level closer sigma(u) / sigma(v) * (1 + delta(v)) of dependency,
// summed as sigma(u) times the sum of (1 + delta(v)) / sigma(v).
// The result is delta(v), the source's contribution to v's betweenness
// (0 for the source and for unreachable vertices). Parallel arcs count as
// distinct paths; self-loops never lie on a shortest path.
#include "apps/harness/app_row.h"
#include "apps/kernels/kernels.h"
#include "core/atomics.h"

namespace sg {
namespace {

// sigma[v] gathers the paths of v's parents, read at sources from
// `paths`, which holds sigma of the levels already complete: a step reads
// what earlier vertex maps wrote, so a rank needs only its mirrors of it.
struct CountPaths {
  int32_t* depth;
  const double* paths;
  double* sigma;
  int32_t next_depth;
  bool update(uint32_t u, uint32_t v, float) {
    const bool first = depth[v] == kUnreached;  // v joins the next level
    if (first)
      depth[v] = next_depth;
    else if (depth[v] != next_depth)
      return false;
    sigma[v] += paths[u];
    return first;
  }
  bool update_atomic(uint32_t u, uint32_t v, float) {
    int32_t expected = kUnreached;
    const bool first = std::atomic_ref<int32_t>(depth[v]).compare_exchange_strong(expected, next_depth);
    if (first || expected == next_depth) atomic_add(&sigma[v], paths[u]);
    return first;
  }
  bool cond(uint32_t v) const {
    const int32_t d = load_relaxed(&depth[v]);
    return d == kUnreached || d == next_depth;
  }
};

// Along in-edges: v (one level deeper) pays its in-neighbour u. With
// w(v) = (1 + delta(v)) / sigma(v), delta(u) = sigma(u) * sum of w over u's
// children, so a step only adds w(v), read at the source, into u's sum, a
// destination array the engine loads by range when it does not fit. Parents
// are known by their level's frontier, so depth is not kept for this phase.
struct Accumulate {
  const VertexSubset* parents;  // dense
  const double* weight;         // w(v) for the paying level
  double* sum;                  // sum of w over u's children
  bool update(uint32_t v, uint32_t u, float) {
    sum[u] += weight[v];
    return false;
  }
  bool update_atomic(uint32_t v, uint32_t u, float) {
    atomic_add(&sum[u], weight[v]);
    return false;
  }
  bool cond(uint32_t u) const { return parents->contains(u); }
};

// Once a level has been paid by all its children: its dependencies, and in
// sigma's place the weight it pays with.
Status settle_level(Engine* engine, const VertexSubset& level, VertexArray<double>* sigma, VertexArray<double>* delta) {
  return engine->vertex_map(
      level,
      [&](uint32_t u) {
        const double paths = (*sigma)[u], children = (*delta)[u];
        (*delta)[u] = paths * children;
        (*sigma)[u] = 1 / paths + children;
      },
      VertexAccess().writes(*sigma, *delta));
}

// The backward phase, from the deepest level up. Level 1 would pay only the
// source, whose dependency is not counted.
Status accumulate_dependencies(Engine* engine, const std::vector<VertexSubset>& levels, VertexArray<double>* sigma,
                               VertexArray<double>* delta) {
  SG_RETURN_IF_ERROR(engine->allocate(delta, "betweenness.delta", VertexUse::kDestination));
  const uint64_t parents_bytes = (uint64_t{engine->num_vertices()} + 63) / 64 * sizeof(uint64_t);
  engine->hold_app_memory(parents_bytes);
  Status status = Status::OK();
  for (size_t level = levels.size(); status.ok() && level-- > 1;) {
    engine->set_iteration(static_cast<int>(levels.size() + (levels.size() - level)));
    status = settle_level(engine, levels[level], sigma, delta);
    if (!status.ok() || level < 2) break;
    VertexSubset parents = levels[level - 1];
    parents.to_dense();
    Accumulate pay{&parents, sigma->data(), delta->data()};
    VertexSubset unused;
    status = engine->edge_map(levels[level], pay, &unused, {Direction::kAuto, true});
  }
  engine->release_app_memory(parents_bytes);
  return status;
}

// The forward phase: the levels' frontiers, and paths[v] = sigma(v) for
// every vertex reached. Depth and the sums are destination arrays (a rank
// holds its owned range); paths, read at sources, its mirrors too.
Status count_paths(Engine* engine, uint32_t source, VertexArray<double>* paths, std::vector<VertexSubset>* levels,
                   uint64_t* levels_bytes) {
  const uint32_t n = engine->num_vertices();
  VertexArray<int32_t> depth;
  VertexArray<double> sigma;
  SG_RETURN_IF_ERROR(engine->allocate(&depth, "betweenness.depth", VertexUse::kDestination));
  SG_RETURN_IF_ERROR(engine->allocate(&sigma, "betweenness.sigma", VertexUse::kDestination));
  SG_RETURN_IF_ERROR(engine->vertex_map(
      VertexSubset::all(n),
      [&](uint32_t v) {
        depth[v] = v == source ? 0 : kUnreached;
        sigma[v] = 0;
        (*paths)[v] = v == source ? 1 : 0;
      },
      VertexAccess().overwrites(depth, sigma, *paths)));
  // The levels' frontiers: together at most |V| vertices, held in the
  // budget as they are kept (the cache gives way).
  VertexSubset frontier = VertexSubset::single(n, source);
  for (int32_t level = 0; !frontier.is_empty() && level < static_cast<int32_t>(n); ++level) {
    engine->set_iteration(level);
    CountPaths count{depth.data(), paths->data(), sigma.data(), level + 1};
    VertexSubset next;
    SG_RETURN_IF_ERROR(engine->edge_map(frontier, count, &next));
    SG_RETURN_IF_ERROR(engine->vertex_map(
        next, [&](uint32_t v) { (*paths)[v] = sigma[v]; }, VertexAccess().reads(sigma).writes(*paths)));
    const uint64_t bytes = frontier.bits().capacity() * sizeof(uint64_t) +
                           (frontier.is_dense() ? 0 : frontier.list().capacity() * sizeof(uint32_t));
    engine->hold_app_memory(bytes);
    *levels_bytes += bytes;
    levels->push_back(std::move(frontier));
    frontier = std::move(next);
  }
  return Status::OK();
}

}  // namespace

Status betweenness(Engine* engine, uint32_t source, VertexArray<double>* delta) {
  VertexArray<double> paths;
  SG_RETURN_IF_ERROR(engine->allocate(&paths, "betweenness.paths", VertexUse::kSource));
  std::vector<VertexSubset> levels;
  uint64_t levels_bytes = 0;
  // Depth's and the sums' memory goes to the backward phase, which reads
  // neither.
  Status status = count_paths(engine, source, &paths, &levels, &levels_bytes);
  if (status.ok()) status = accumulate_dependencies(engine, levels, &paths, delta);
  engine->release_app_memory(levels_bytes);
  return status;
}

// The app: its summary, figures and result columns (apps/harness).
namespace {

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

}  // namespace

SG_APP_ROW(betweenness) {
  return AppRow("betweenness", "one source's betweenness dependencies (Brandes)", kSourceOption | kTopOption, "",
                "dependency", kReversedSteps, run_betweenness);
}

}  // namespace sg
