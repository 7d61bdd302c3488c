// Single-source shortest paths by frontier-based Bellman-Ford (as in Ligra's
// BellmanFord): vertices whose distance dropped relax their out-edges in the
// next round. Distances are read from the Old copy and written (write-min)
// to the Latest one, so each round is deterministic. Negative weights are
// allowed; a negative cycle reachable from the source is an error.
#include <limits>

#include "apps/harness/app_row.h"
#include "apps/kernels/kernels.h"
#include "core/atomics.h"
#include "core/replicated_array.h"

namespace sg {
namespace {

struct Relax {
  const float* old_distance;
  float* distance;
  bool unit_weights;
  bool update(uint32_t u, uint32_t v, float w) {
    const float candidate = old_distance[u] + (unit_weights ? 1.0f : w);
    if (candidate < distance[v]) {
      distance[v] = candidate;
      return true;
    }
    return false;
  }
  bool update_atomic(uint32_t u, uint32_t v, float w) {
    return write_min(&distance[v], old_distance[u] + (unit_weights ? 1.0f : w));
  }
  bool cond(uint32_t) const { return true; }
};

}  // namespace

Status sssp(Engine* engine, uint32_t source, bool unit_weights, VertexArray<float>* distance) {
  const uint32_t n = engine->num_vertices();
  if (!engine->graph().weighted() && !unit_weights) {
    return Status::InvalidArgument("sssp needs a weighted graph; use --unit-weights to give every edge weight 1");
  }
  ReplicatedArray<float> dist;
  SG_RETURN_IF_ERROR(dist.allocate(engine, "sssp.distance"));
  SG_RETURN_IF_ERROR(dist.fill(engine, std::numeric_limits<float>::infinity()));
  SG_RETURN_IF_ERROR(engine->vertex_map(VertexSubset::single(n, source),
                                        [&](uint32_t v) { dist.old_values()[v] = dist.latest()[v] = 0; }));
  VertexSubset frontier = VertexSubset::single(n, source);
  int round = 0;
  for (; !frontier.is_empty() && round <= static_cast<int>(n); ++round) {
    engine->set_iteration(round);
    Relax relax{dist.old_values(), dist.latest(), unit_weights};
    VertexSubset changed;
    SG_RETURN_IF_ERROR(engine->edge_map(frontier, relax, &changed));
    SG_RETURN_IF_ERROR(dist.commit(engine, changed));
    frontier = std::move(changed);
  }
  if (!frontier.is_empty()) return Status::InvalidArgument("sssp: a negative cycle is reachable from the source");
  *distance = dist.take_latest();
  return Status::OK();
}

// The app: its summary, figures and result columns (apps/harness).
namespace {

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
      summary_line("sssp from %llu: %llu vertices reached, farthest %.9g\n", static_cast<unsigned long long>(source_id),
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

}  // namespace

SG_APP_ROW(sssp) {
  return AppRow("sssp", "single-source shortest paths (delta-stepping over weights, or unit weights)",
                kSourceOption | kUnitWeightsOption, "", "distance", kNeedsWeights, run_sssp);
}

}  // namespace sg
