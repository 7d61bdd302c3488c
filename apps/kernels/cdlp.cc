// Community detection by label propagation, as defined by LDBC Graphalytics
// (specification v1.0, §2.3.3, after Raghavan, Albert & Kumara 2007, made
// synchronous and deterministic): every vertex starts with its own
// (original) id as label; in each of a fixed number of iterations every
// vertex takes the label most frequent among its neighbours' labels of the
// previous iteration, the smallest on a tie, and keeps its label when it has
// no neighbours. On a directed graph in- and out-neighbours are counted, so
// a neighbour both ways counts twice; repeated arcs count once.
//
// Out of core: the histogram needs a vertex's whole neighbourhood at once,
// so each iteration gathers the neighbours' labels for a block of vertices
// at a time (apps/neighbour_blocks.h) and takes each vertex's mode by
// sorting them; a pass over all blocks reads each space once. Where dense
// ids grow with original ids, the dense ids are the labels (4 bytes, not 8).
#include <algorithm>

#include "apps/harness/app_row.h"
#include "apps/kernels/kernels.h"
#include "apps/kernels/neighbour_blocks.h"
#include "base/parallel.h"

namespace sg {
namespace {

// The most frequent value, the smallest among equals; sorts `values`.
template <typename Label>
Label smallest_mode(std::span<Label> values) {
  std::sort(values.begin(), values.end());
  Label best = values[0];
  size_t best_count = 0;
  for (size_t i = 0; i < values.size();) {
    size_t j = i + 1;
    while (j < values.size() && values[j] == values[i]) ++j;
    if (j - i > best_count) {  // ascending: the first of equal counts is the smallest
      best_count = j - i;
      best = values[i];
    }
    i = j;
  }
  return best;
}

// The iterations, over labels that order as the original ids they stand
// for: next[v] starts as label_of(v).
template <typename Label, typename LabelOf>
Status propagate(Engine* engine, int iterations, LabelOf label_of, VertexArray<Label>* labels) {
  const uint32_t n = engine->num_vertices();
  // The labels are touched only by vertex maps and a block's range at a
  // time: loaded by range when they do not fit.
  SG_RETURN_IF_ERROR(engine->allocate(labels, "cdlp.labels", VertexUse::kVertex));
  VertexArray<Label> previous;  // read as u: loaded by range when it does not fit
  SG_RETURN_IF_ERROR(engine->allocate(&previous, "cdlp.previous", VertexUse::kSource));
  VertexArray<Label>& next = *labels;
  SG_RETURN_IF_ERROR(engine->vertex_map(
      VertexSubset::all(n),
      [&](uint32_t v) {
        next[v] = label_of(v);
        previous[v] = next[v];
      },
      VertexAccess().overwrites(previous, next)));
  const uint64_t room = engine->budget().share(kNeighbourBlockShare);
  std::vector<VertexBlock> blocks;
  SG_RETURN_IF_ERROR(plan_vertex_blocks(engine, room, sizeof(Label), 0, &blocks));
  GatheredBlock<Label> block;
  for (int iteration = 0; iteration < iterations; ++iteration) {
    engine->set_iteration(iteration);
    for (const VertexBlock& b : blocks) {
      const uint64_t held = gathered_block_bytes(b.slots, b.end - b.begin, sizeof(Label));
      engine->hold_app_memory(held);
      Status status = block.gather(engine, b, [&](uint32_t u) { return previous[u]; });
      if (status.ok()) {
        status = engine->with_vertices(VertexAccess().writes(next), b.begin, b.end, [&] {
          parallel_for(uint32_t{0}, block.size(), uint32_t{256}, [&](uint32_t lo, uint32_t hi) {
            for (uint32_t i = lo; i < hi; ++i) {
              const std::span<Label> values = block.values(i);
              if (!values.empty()) next[b.begin + i] = smallest_mode(values);
            }
          });
          return Status::OK();
        });
      }
      engine->release_app_memory(held);
      SG_RETURN_IF_ERROR(status);
    }
    if (iteration + 1 < iterations) {
      SG_RETURN_IF_ERROR(engine->vertex_map(
          VertexSubset::all(n), [&](uint32_t v) { previous[v] = next[v]; },
          VertexAccess().reads(next).overwrites(previous)));
    }
  }
  return Status::OK();
}

// Runs fn() with the id map loaded, or mapped when loaded it would take
// more than a quarter of the memory left: it is read once, a vertex range
// at a time, and the memory goes to the labels and the blocks.
template <typename F>
Status with_id_map(Engine* engine, F fn) {
  const Graph& graph = engine->graph();
  const bool load = graph.id_map_load_bytes() <= engine->unheld_memory() / 4;
  SG_RETURN_IF_ERROR(load ? graph.load_id_map() : graph.map_id_map());
  const uint64_t held = graph.id_map_bytes();  // 0 when mapped
  engine->hold_app_memory(held);
  const Status status = fn();
  engine->release_app_memory(held);
  return status;
}

}  // namespace

Status cdlp(Engine* engine, int iterations, VertexArray<uint64_t>* labels) {
  const Graph& graph = engine->graph();
  SG_RETURN_IF_ERROR(graph.check_id_map());
  if (!graph.ids_in_order()) {
    // Labels are original ids throughout.
    return with_id_map(engine, [&] {
      return propagate<uint64_t>(
          engine, iterations, [&](uint32_t v) { return graph.original_id(v); }, labels);
    });
  }
  // Dense ids order as the original ids: they are the labels, at half the
  // bytes of the state and of the gathered blocks, and become original ids
  // at the end (the id map is needed only then).
  VertexArray<uint32_t> dense;
  SG_RETURN_IF_ERROR(propagate<uint32_t>(
      engine, iterations, [](uint32_t v) { return v; }, &dense));
  SG_RETURN_IF_ERROR(engine->allocate(labels, "cdlp.original", VertexUse::kVertex));
  return with_id_map(engine, [&] {
    return engine->vertex_map(
        VertexSubset::all(engine->num_vertices()), [&](uint32_t v) { (*labels)[v] = graph.original_id(dense[v]); },
        VertexAccess().reads(dense).overwrites(*labels));
  });
}

// The app: its summary, figures and result columns (apps/harness).
namespace {

// Communities are counted in memory when their labels fit half of --memory.
constexpr MemoryShare kCommunityCountShare{"cdlp.community_count", 2};

Status run_cdlp(AppRun& r) {
  auto* labels = r.out.array<uint64_t>();
  const int iterations = r.options.iterations > 0 ? r.options.iterations : 10;
  SG_RETURN_IF_ERROR(cdlp(&r.engine, iterations, labels));
  SG_RETURN_IF_ERROR(r.finish(labels));
  std::string communities = "not counted: more than half of --memory";
  const uint32_t n = r.graph.num_vertices();
  if (uint64_t{n} * sizeof(uint64_t) <= r.engine.budget().share(kCommunityCountShare)) {
    std::vector<uint64_t> sorted(n);
    for (uint32_t v = 0; v < n; ++v) {
      sorted[v] = (*labels)[v];
      r.out.pages.visited(v + 1);  // file-backed labels: few pages stay mapped
    }
    std::sort(sorted.begin(), sorted.end());
    communities = std::to_string(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
  }
  r.out.summary = summary_line("cdlp: %d iterations, %s communities\n", iterations, communities.c_str());
  r.out.facts = {{"iterations", iterations}};
  r.out.add_column("label", labels);
  r.out.text = [labels](uint32_t v, char* buf, size_t bytes) {
    std::snprintf(buf, bytes, "%llu", static_cast<unsigned long long>((*labels)[v]));
  };
  return Status::OK();
}

}  // namespace

SG_APP_ROW(cdlp) {
  return AppRow("cdlp", "community detection by label propagation (LDBC Graphalytics)", kIterationsOption,
                "iterations (default 10)", "label", kReversedSteps, run_cdlp);
}

}  // namespace sg
