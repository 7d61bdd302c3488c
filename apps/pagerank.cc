// PageRank by pull over the in-space (Page, Brin et al. 1999; formulation
// as in GAPBS pr.cc, plus uniform redistribution of dangling mass):
//   PR'(v) = (1 - d) / N + d * ( sum_{u -> v} PR(u) / outdeg(u) + D / N )
// where D = sum of PR(u) over vertices with outdeg(u) = 0, PR starts at 1/N,
// d = 0.85. Without dangling vertices this is exactly GAPBS's update.
// Multi-edges count once per copy; self-loops count.
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

// What one pass over the new ranks sums up.
struct RankSums {
  double change = 0;    // L1 distance to the previous ranks
  double dangling = 0;  // rank held by vertices without out-edges
  RankSums& operator+=(const RankSums& o) {
    change += o.change;
    dangling += o.dangling;
    return *this;
  }
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
  // Sets v's rank and, in the same pass, its contribution for the next
  // gather; sum[] is left zeroed for it.
  auto set_rank = [&](uint32_t v, double rank) {
    const RankSums sums{std::fabs(rank - (*ranks)[v]), out_degree[v] == 0 ? rank : 0.0};
    (*ranks)[v] = rank;
    contribution[v] = out_degree[v] == 0 ? 0.0f : static_cast<float>(rank / out_degree[v]);
    sum[v] = 0;
    return sums;
  };
  double dangling = parallel_sum<RankSums>(uint32_t{0}, n, [&](uint32_t v) { return set_rank(v, 1.0 / n); }).dangling;
  const VertexSubset all = VertexSubset::all(n);
  *iterations_run = 0;
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    engine->set_iteration(iteration);
    PageRankGather gather{contribution.data(), sum.data()};
    VertexSubset unused;
    SG_RETURN_IF_ERROR(engine->edge_map(all, gather, &unused, {Direction::kPull, false}));
    const double base = (1.0 - options.damping) / n + options.damping * dangling / n;
    const RankSums sums =
        parallel_sum<RankSums>(uint32_t{0}, n, [&](uint32_t v) { return set_rank(v, base + options.damping * sum[v]); });
    dangling = sums.dangling;
    *iterations_run = iteration + 1;
    if (sums.change < options.tolerance) break;
  }
  return Status::OK();
}

}  // namespace sg
