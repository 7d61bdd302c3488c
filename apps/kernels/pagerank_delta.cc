// PageRank-delta (push), after Ligra's PageRankDelta (Shun & Blelloch 2013):
// only vertices whose pending change is large stay active. It converges to
//   PR(v) = (1 - d) / N + d * sum_{u -> v} PR(u) / outdeg(u)
// i.e. PageRank without redistributing the rank of vertices that have no
// out-edges (ranks sum to less than 1 when there are such vertices). Each
// vertex keeps its rank and a pending delta not yet pushed; a round pushes
// the pending delta of every vertex whose |pending| > epsilon * rank, and the
// engine picks push (few active vertices: selective reads) or pull (many).
#include <cmath>

#include "apps/harness/app_row.h"
#include "apps/kernels/kernels.h"
#include "core/atomics.h"

namespace sg {
namespace {

struct PushDelta {
  const double* share;  // d * pending(u) / outdeg(u), frozen for the round
  double* incoming;
  bool update(uint32_t u, uint32_t v, float) {
    incoming[v] += share[u];
    return true;
  }
  bool update_atomic(uint32_t u, uint32_t v, float) {
    atomic_add(&incoming[v], share[u]);
    return true;
  }
  bool cond(uint32_t) const { return true; }
};

}  // namespace

Status pagerank_delta(Engine* engine, const PageRankDeltaOptions& options, VertexArray<double>* ranks, int* rounds) {
  const uint32_t n = engine->num_vertices();
  SG_RETURN_IF_ERROR(engine->ensure_out_degrees());
  const VertexArray<uint32_t>& out_degree = engine->out_degree();
  VertexArray<double> pending, share, incoming;
  SG_RETURN_IF_ERROR(engine->allocate(ranks, "pagerank_delta.rank", VertexUse::kVertex));
  SG_RETURN_IF_ERROR(engine->allocate(&pending, "pagerank_delta.pending", VertexUse::kVertex));
  SG_RETURN_IF_ERROR(engine->allocate(&share, "pagerank_delta.share", VertexUse::kSource));
  SG_RETURN_IF_ERROR(engine->allocate(&incoming, "pagerank_delta.incoming", VertexUse::kDestination));
  const double base = (1.0 - options.damping) / n;
  SG_RETURN_IF_ERROR(engine->vertex_map(VertexSubset::all(n), [&](uint32_t v) {
    (*ranks)[v] = base;
    pending[v] = base;
  }));
  VertexSubset active = VertexSubset::all(n);
  *rounds = 0;
  for (int round = 0; round < options.max_rounds && !active.is_empty(); ++round) {
    engine->set_iteration(round);
    SG_RETURN_IF_ERROR(engine->vertex_map(active, [&](uint32_t u) {
      share[u] = out_degree[u] == 0 ? 0.0 : options.damping * pending[u] / out_degree[u];
      pending[u] = 0;
    }));
    PushDelta push{share.data(), incoming.data()};
    VertexSubset touched;
    SG_RETURN_IF_ERROR(engine->edge_map(active, push, &touched));
    SG_RETURN_IF_ERROR(engine->vertex_filter(
        touched,
        [&](uint32_t v) {
          (*ranks)[v] += incoming[v];
          pending[v] += incoming[v];
          incoming[v] = 0;
          return std::fabs(pending[v]) > options.epsilon * (*ranks)[v];
        },
        &active));
    // Shares of the vertices that pushed are spent.
    *rounds = round + 1;
  }
  return Status::OK();
}

// The app: its summary, figures and result columns (apps/harness).
namespace {

Status run_pagerank_delta(AppRun& r) {
  PageRankDeltaOptions p;
  if (r.options.iterations > 0) p.max_rounds = r.options.iterations;
  if (r.options.tolerance > 0) p.epsilon = r.options.tolerance;
  return run_ranks(
      r, [&](VertexArray<double>* values, int* rounds) { return pagerank_delta(&r.engine, p, values, rounds); },
      "rounds", "pagerank-delta: %d rounds\n");
}

}  // namespace

SG_APP_ROW(pagerank_delta) {
  return AppRow("pagerank-delta", "PageRank pushing only changes above epsilon (Ligra's PageRank-Delta)",
                kIterationsOption | kToleranceOption | kTopOption,
                "max rounds (default 100); --tolerance is epsilon (0.01)", "rank", kNoAppTrait, run_pagerank_delta);
}

}  // namespace sg
