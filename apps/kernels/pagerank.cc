// PageRank by pull over the in-space (Page, Brin et al. 1999; formulation
// as in GAPBS pr.cc, plus uniform redistribution of dangling mass):
//   PR'(v) = (1 - d) / N + d * ( sum_{u -> v} PR(u) / outdeg(u) + D / N )
// where D = sum of PR(u) over vertices with outdeg(u) = 0, PR starts at 1/N,
// d = 0.85. Without dangling vertices this is exactly GAPBS's update.
// Multi-edges count once per copy; self-loops count.
#include <algorithm>
#include <cmath>
#include <vector>

#include "apps/harness/app_row.h"
#include "apps/kernels/kernels.h"
#include "base/parallel.h"
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
  // The engine's pull over every source hands over whole lists: summed in
  // four registers, not a store to sum[v] per edge.
  bool update_list(uint32_t v, const uint32_t* sources, uint32_t count) {
    double s[4] = {0, 0, 0, 0};
    uint32_t i = 0;
    for (; i + 4 <= count; i += 4) {
      for (int k = 0; k < 4; ++k) s[k] += contribution[sources[i + k]];
    }
    for (; i < count; ++i) s[0] += contribution[sources[i]];
    sum[v] += (s[0] + s[1]) + (s[2] + s[3]);
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

// Fixed iterations with two contribution arrays, both whole or both
// ranged: each range of destinations is finished as soon as the gather into
// it is complete (EdgeMapOptions::finish_range), into the next iteration's
// contributions (the arrays swap roles each iteration: the step reads one
// as its sources while the other is written by range). Ranks are then
// never read back after a step, and out-degrees are read a piece at a time
// instead of held: a step moves its edges, the sources it reads and the
// next contributions once; the ranks are written only in the last.
class RangeFinisher {
 public:
  explicit RangeFinisher(Engine* engine) : engine_(engine), degrees_(kPieceVertices) {}

  // Contributions of ranks `rank_of(v)` into `contribution`, loaded a
  // piece at a time when ranged; returns the rank held by vertices without
  // out-edges.
  template <typename RankOf>
  Status set(uint32_t begin, uint32_t end, VertexArray<float>* contribution, RankOf&& rank_of, double* dangling) {
    *dangling = 0;
    const VertexAccess access = VertexAccess().overwrites(*contribution);
    float* values = contribution->data();
    for (uint32_t lo = begin; lo < end;) {
      // Pieces end on multiples of their size: whole slabs of a ranged array.
      const uint32_t hi =
          static_cast<uint32_t>(std::min<uint64_t>(end, (uint64_t{lo} / kPieceVertices + 1) * kPieceVertices));
      SG_RETURN_IF_ERROR(engine_->read_degrees(SpaceKind::kOut, lo, hi, degrees_.data()));
      SG_RETURN_IF_ERROR(engine_->with_vertices(access, lo, hi, [&] {
        *dangling += parallel_sum<double>(lo, hi, [&](uint32_t v) {
          const double rank = rank_of(v);
          const uint32_t degree = degrees_[v - lo];
          values[v] = degree == 0 ? 0.0f : static_cast<float>(rank / degree);
          return degree == 0 ? rank : 0.0;
        });
        return Status::OK();
      }));
      lo = hi;
    }
    return Status::OK();
  }

 private:
  static constexpr uint32_t kPieceVertices = 1 << 16;
  Engine* engine_;
  std::vector<uint32_t> degrees_;
};

Status pagerank_finishing_ranges(Engine* engine, const PageRankOptions& options, VertexArray<float>* contribution,
                                 VertexArray<float>* next_contribution, VertexArray<double>* ranks,
                                 int* iterations_run) {
  const uint32_t n = engine->num_vertices();
  RangeFinisher finisher(engine);
  VertexArray<float>* current = contribution;
  VertexArray<float>* next = next_contribution;
  // The step loads only its sources by range: the next contributions are
  // written beside it.
  auto assign_roles = [&] {
    SG_RETURN_IF_ERROR(engine->set_use(current, VertexUse::kSource));
    return engine->set_use(next, VertexUse::kVertex);
  };
  SG_RETURN_IF_ERROR(assign_roles());
  double dangling = 0;
  SG_RETURN_IF_ERROR(finisher.set(
      0, n, current, [&](uint32_t) { return 1.0 / n; }, &dangling));
  const VertexSubset all = VertexSubset::all(n);
  *iterations_run = 0;
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    engine->set_iteration(iteration);
    SG_RETURN_IF_ERROR(engine->clear(ranks));
    const double base = (1.0 - options.damping) / n + options.damping * dangling / n;
    double next_dangling = 0;
    PageRankGather gather{current->data(), ranks->data()};
    EdgeMapOptions step{Direction::kPull, false};
    step.finish_range = [&](uint32_t begin, uint32_t end) {
      double range_dangling = 0;
      double* rank = ranks->data();
      auto finish = [&](uint32_t v) { return rank[v] = base + options.damping * rank[v]; };
      SG_RETURN_IF_ERROR(finisher.set(begin, end, next, finish, &range_dangling));
      next_dangling += range_dangling;
      // Only the last iteration's ranks are the result: the others live on
      // in the contributions, so a ranged array need not write them back.
      if (iteration + 1 < options.iterations) ranks->forget_changes(begin, end);
      return Status::OK();
    };
    VertexSubset unused;
    SG_RETURN_IF_ERROR(engine->edge_map(all, gather, &unused, step));
    std::swap(current, next);
    SG_RETURN_IF_ERROR(assign_roles());
    dangling = next_dangling;
    *iterations_run = iteration + 1;
  }
  return Status::OK();
}

// The general form: ranks set by a vertex_map after each gather.
Status pagerank_by_maps(Engine* engine, const PageRankOptions& options, VertexArray<float>* contribution_array,
                        VertexArray<double>* ranks, bool ranks_allocated, int* iterations_run) {
  const uint32_t n = engine->num_vertices();
  SG_RETURN_IF_ERROR(engine->ensure_out_degrees());
  const VertexArray<uint32_t>& out_degree = engine->out_degree();
  VertexArray<float>& contribution = *contribution_array;
  // Ranks are needed for the change between iterations (with a tolerance)
  // and at the end; without a tolerance each iteration's ranks replace its
  // sums in place, so one array of 8 bytes a vertex serves both (the memory
  // goes to the chunk cache instead).
  const bool track_change = options.tolerance > 0;
  VertexArray<double> sum_storage;
  VertexArray<double>* sum = track_change ? &sum_storage : ranks;
  if (track_change) SG_RETURN_IF_ERROR(engine->allocate(sum, "pagerank.sum", VertexUse::kDestination));
  if (!ranks_allocated) {
    SG_RETURN_IF_ERROR(
        engine->allocate(ranks, "pagerank.rank", track_change ? VertexUse::kVertex : VertexUse::kDestination));
  }
  // Sets v's rank and its contribution for the next gather; `measure`: sum
  // the change from its previous rank.
  auto set_rank = [&](uint32_t v, double rank, bool measure) {
    const RankSums sums{measure ? std::fabs(rank - (*ranks)[v]) : 0.0, out_degree[v] == 0 ? rank : 0.0};
    (*ranks)[v] = rank;
    contribution[v] = out_degree[v] == 0 ? 0.0f : static_cast<float>(rank / out_degree[v]);
    return sums;
  };
  RankSums sums;
  SG_RETURN_IF_ERROR(
      engine->vertex_reduce<RankSums>([&](uint32_t v) { return set_rank(v, 1.0 / n, false); }, &sums,
                                      VertexAccess().reads(out_degree).overwrites(contribution, *ranks)));
  double dangling = sums.dangling;
  const VertexSubset all = VertexSubset::all(n);
  *iterations_run = 0;
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    engine->set_iteration(iteration);
    SG_RETURN_IF_ERROR(engine->clear(sum));
    PageRankGather gather{contribution.data(), sum->data()};
    VertexSubset unused;
    SG_RETURN_IF_ERROR(engine->edge_map(all, gather, &unused, {Direction::kPull, false}));
    const double base = (1.0 - options.damping) / n + options.damping * dangling / n;
    VertexAccess access = VertexAccess().reads(out_degree).writes(*ranks).overwrites(contribution);
    if (track_change) access.reads(*sum);
    SG_RETURN_IF_ERROR(engine->vertex_reduce<RankSums>(
        [&](uint32_t v) { return set_rank(v, base + options.damping * (*sum)[v], track_change); }, &sums, access));
    dangling = sums.dangling;
    *iterations_run = iteration + 1;
    if (track_change && sums.change < options.tolerance) break;
  }
  return Status::OK();
}

}  // namespace

Status pagerank(Engine* engine, const PageRankOptions& options, VertexArray<double>* ranks, int* iterations_run) {
  VertexArray<float> contribution;
  SG_RETURN_IF_ERROR(engine->allocate(&contribution, "pagerank.contribution", VertexUse::kSource));
  // Distributed, the dangling mass is a reduction over every rank: maps.
  if (options.tolerance > 0 || engine->distributed())
    return pagerank_by_maps(engine, options, &contribution, ranks, false, iterations_run);
  VertexArray<float> next_contribution;
  SG_RETURN_IF_ERROR(engine->allocate(&next_contribution, "pagerank.next_contribution", VertexUse::kSource));
  SG_RETURN_IF_ERROR(engine->allocate(ranks, "pagerank.rank", VertexUse::kDestination));
  SG_RETURN_IF_ERROR(engine->clear(ranks));  // places the arrays
  if (contribution.ranged() == next_contribution.ranged()) {
    return pagerank_finishing_ranges(engine, options, &contribution, &next_contribution, ranks, iterations_run);
  }
  // One whole, one ranged: the ranged one would cost more than the general
  // form's maps. Its room goes to the degrees or the ranges.
  next_contribution = VertexArray<float>();
  return pagerank_by_maps(engine, options, &contribution, ranks, true, iterations_run);
}

// The app: its summary, figures and result columns (apps/harness).
namespace {

Status run_pagerank(AppRun& r) {
  PageRankOptions p;
  if (r.options.iterations > 0) p.iterations = r.options.iterations;
  p.tolerance = r.options.tolerance;
  return run_ranks(
      r, [&](VertexArray<double>* values, int* run) { return pagerank(&r.engine, p, values, run); }, "iterations",
      "pagerank: %d iterations\n");
}

}  // namespace

SG_APP_ROW(pagerank) {
  return AppRow("pagerank", "PageRank, damping 0.85", kIterationsOption | kToleranceOption | kTopOption,
                "iterations (default 20)", "rank", kPullsOnly, run_pagerank);
}

}  // namespace sg
