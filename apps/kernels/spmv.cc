// Sparse matrix-vector product over the graph's adjacency matrix A
// (A[u][v] = weight of u -> v, 1 when unweighted; multi-edges add up):
//   y = (A^T)^k x,  x = all ones,  k = --iterations (default 1)
// so y[v] = sum over in-edges u -> v of w(u, v) * x[u]. Pull over the
// in-space: each y[v] is written by one thread, in a fixed order.
#include "apps/harness/app_row.h"
#include "apps/kernels/kernels.h"
#include "core/atomics.h"

namespace sg {
namespace {

struct MultiplyGather {
  const double* x;
  double* y;
  bool update(uint32_t u, uint32_t v, float w) {
    y[v] += static_cast<double>(w) * x[u];
    return false;
  }
  bool update_atomic(uint32_t u, uint32_t v, float w) {
    atomic_add(&y[v], static_cast<double>(w) * x[u]);
    return false;
  }
  bool cond(uint32_t) const { return true; }
};

}  // namespace

Status spmv(Engine* engine, const SpmvOptions& options, VertexArray<double>* y) {
  const uint32_t n = engine->num_vertices();
  VertexArray<double> x;
  SG_RETURN_IF_ERROR(engine->allocate(&x, "spmv.x", VertexUse::kSource));
  SG_RETURN_IF_ERROR(engine->allocate(y, "spmv.y", VertexUse::kDestination));
  const VertexSubset all = VertexSubset::all(n);
  SG_RETURN_IF_ERROR(engine->vertex_map(all, [&](uint32_t v) { (*y)[v] = 1.0; }));
  for (int k = 0; k < options.iterations; ++k) {
    engine->set_iteration(k);
    SG_RETURN_IF_ERROR(engine->vertex_map(
        all, [&](uint32_t v) { x[v] = (*y)[v]; }, VertexAccess().reads(*y).overwrites(x)));
    SG_RETURN_IF_ERROR(engine->clear(y));
    MultiplyGather multiply{x.data(), y->data()};
    VertexSubset unused;
    SG_RETURN_IF_ERROR(engine->edge_map(all, multiply, &unused, {Direction::kPull, false}));
  }
  return Status::OK();
}

// The app: its summary, figures and result columns (apps/harness).
namespace {

Status run_spmv(AppRun& r) {
  SpmvOptions s;
  if (r.options.iterations > 0) s.iterations = r.options.iterations;
  auto* values = r.out.array<double>();
  SG_RETURN_IF_ERROR(spmv(&r.engine, s, values));
  r.out.facts = {{"iterations", s.iterations}};
  SG_RETURN_IF_ERROR(r.finish(values));
  return describe_values(r, values, "value", "%.9g", summary_line("spmv: %d products\n", s.iterations));
}

}  // namespace

SG_APP_ROW(spmv) {
  return AppRow("spmv", "y = (A^T)^k x, x all ones", kIterationsOption | kTopOption, "products (default 1)", "value",
                kPullsOnly, run_spmv);
}

}  // namespace sg
