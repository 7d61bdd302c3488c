// Weakly connected components by label propagation (Shiloach-Vishkin style
// min-label spreading, as in Ligra's Components): every vertex starts with
// its own id and takes the smallest label among its neighbours until nothing
// changes. Edges count in both directions, so on a directed graph each round
// maps over the graph and over its transpose. Labels are read from the Old
// copy and written to the Latest one (interval replication), so every round
// is deterministic. The label of a component is its smallest vertex id.
// This is the out-of-core path, for vertex state beyond the budget; when a
// parent array fits, wcc_union_find.cc needs one scan instead.
#include "apps/harness/app_row.h"
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

// The app: its summary, figures and result columns (apps/harness).
namespace {

// Counting the largest component takes at least a quarter of --memory.
constexpr MemoryShare kComponentCountShare{"wcc.component_counts", 4};

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
  // The counts get what the budget leaves unheld (labels held whole, the
  // engine's metadata and a rank's runtime stay held: R-MAT 25 in 176 MiB
  // peaked at 1.28x when they took half of it), and at least their share:
  // labels over a file are paged, and each pass of the count reads them all
  // (R-MAT 26's 268 MB in 64 Ki-label passes would have read 274 GB).
  const MemoryBudget& budget = r.engine.budget();
  const uint64_t count_bytes = std::max(budget.share(kComponentCountShare), budget.unheld());
  const uint32_t largest = largest_component(*labels, r.out.pages, count_bytes);
  r.out.summary =
      summary_line("wcc: %llu components, largest %u vertices\n", static_cast<unsigned long long>(components), largest);
  r.out.facts = {{"components", components}, {"largest", largest}};
  return wcc_components(r, labels);
}

}  // namespace

SG_APP_ROW(wcc) {
  return AppRow("wcc", "weakly connected components: each vertex's smallest original id in its component", kNoAppOption,
                "", "component", kReversedSteps, run_wcc);
}

}  // namespace sg
