// Weakly connected components by label propagation (Shiloach-Vishkin style
// min-label spreading, as in Ligra's Components): every vertex starts with
// its own id and takes the smallest label among its neighbours until nothing
// changes. Edges count in both directions, so on a directed graph each round
// maps over the graph and over its transpose. Labels are read from the Old
// copy and written to the Latest one (interval replication), so every round
// is deterministic. The label of a component is its smallest vertex id.
// This is the out-of-core path, for vertex state beyond the budget; when a
// parent array fits, wcc_union_find.cc needs one scan instead.
#include "apps/kernels/kernels.h"
#include "core/atomics.h"
#include "core/replicated_array.h"

namespace sg {
namespace {

struct MinLabel {
  const uint32_t* old_label;
  uint32_t* label;
  bool update(uint32_t u, uint32_t v, float) {
    if (old_label[u] < label[v]) {
      label[v] = old_label[u];
      return true;
    }
    return false;
  }
  bool update_atomic(uint32_t u, uint32_t v, float) { return write_min(&label[v], old_label[u]); }
  bool cond(uint32_t) const { return true; }
};

}  // namespace

Status wcc(Engine* engine, VertexArray<uint32_t>* labels) {
  const uint32_t n = engine->num_vertices();
  // One pass of union-find when its parent array fits whole
  // (wcc_union_find.cc), and every arc is on this machine.
  if (!engine->distributed() && engine->fits_whole(uint64_t{n} * sizeof(uint32_t)))
    return wcc_union_find(engine, labels);
  ReplicatedArray<uint32_t> label;
  SG_RETURN_IF_ERROR(label.allocate(engine, "wcc.label"));
  SG_RETURN_IF_ERROR(
      engine->vertex_map(VertexSubset::all(n), [&](uint32_t v) { label.old_values()[v] = label.latest()[v] = v; }));
  VertexSubset frontier = VertexSubset::all(n);
  for (int round = 0; !frontier.is_empty() && round <= static_cast<int>(n); ++round) {
    engine->set_iteration(round);
    MinLabel spread{label.old_values(), label.latest()};
    VertexSubset changed;
    SG_RETURN_IF_ERROR(engine->edge_map(frontier, spread, &changed));
    if (engine->graph().directed()) {
      VertexSubset changed_backward;
      SG_RETURN_IF_ERROR(engine->edge_map(frontier, spread, &changed_backward, {Direction::kAuto, true}));
      changed.add_all(changed_backward);
    }
    SG_RETURN_IF_ERROR(label.commit(engine, changed));
    frontier = std::move(changed);
  }
  *labels = label.take_latest();
  return Status::OK();
}

}  // namespace sg
