// PageRank by pull over the in-space (Page, Brin et al. 1999; formulation
// as in GAPBS pr.cc, plus uniform redistribution of dangling mass):
//   PR'(v) = (1 - d) / N + d * ( sum_{u -> v} PR(u) / outdeg(u) + D / N )
// where D = sum of PR(u) over vertices with outdeg(u) = 0, PR starts at 1/N,
// d = 0.85. Without dangling vertices this is exactly GAPBS's update.
// Multi-edges count once per copy; self-loops count.
#include <tbb/parallel_reduce.h>

#include <cmath>

#include "apps/kernels.h"
#include "core/atomics.h"

namespace sg {
namespace {

// Contributions are float: the gather's random reads touch half the memory
// (sums stay in double; the rounding is ~1e-7 relative per term).
struct PageRankGather {
  const float* contribution;
  double* sum;
  bool update(uint32_t u, uint32_t v, float) {
    sum[v] += contribution[u];
    return false;
  }
  bool update_atomic(uint32_t u, uint32_t v, float) {
    atomic_add(&sum[v], static_cast<double>(contribution[u]));
    return false;
  }
  bool cond(uint32_t) const { return true; }
};

}  // namespace

Status pagerank(Engine* engine, const PageRankOptions& options, VertexArray<double>* ranks, int* iterations_run) {
  const uint32_t n = engine->num_vertices();
  const std::vector<uint32_t>& out_degree = engine->out_degree();
  VertexArray<float> contribution;
  VertexArray<double> sum;
  SG_RETURN_IF_ERROR(engine->allocate(ranks, "pagerank.rank"));
  SG_RETURN_IF_ERROR(engine->allocate(&contribution, "pagerank.contribution"));
  SG_RETURN_IF_ERROR(engine->allocate(&sum, "pagerank.sum"));
  const VertexSubset all = VertexSubset::all(n);
  engine->vertex_map(all, [&](uint32_t v) { (*ranks)[v] = 1.0 / n; });
  *iterations_run = 0;
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    engine->set_iteration(iteration);
    engine->vertex_map(all, [&](uint32_t v) {
      contribution[v] = out_degree[v] == 0 ? 0.0f : static_cast<float>((*ranks)[v] / out_degree[v]);
      sum[v] = 0;
    });
    double dangling = 0;
    for (uint32_t v = 0; v < n; ++v) dangling += out_degree[v] == 0 ? (*ranks)[v] : 0.0;
    PageRankGather gather{contribution.data(), sum.data()};
    VertexSubset unused;
    SG_RETURN_IF_ERROR(engine->edge_map(all, gather, &unused, {Direction::kPull, false}));
    const double base = (1.0 - options.damping) / n + options.damping * dangling / n;
    double change = 0;
    for (uint32_t v = 0; v < n; ++v) {
      const double next = base + options.damping * sum[v];
      change += std::fabs(next - (*ranks)[v]);
      (*ranks)[v] = next;
    }
    *iterations_run = iteration + 1;
    if (change < options.tolerance) break;
  }
  return Status::OK();
}

}  // namespace sg
