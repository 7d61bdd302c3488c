#include "apps/jobs/ingest_order.h"

#include <algorithm>
#include <functional>
#include <memory>

#include "base/interrupt.h"
#include "shards/ingest/graph_edge_reader.h"

namespace sg {
namespace {

// A traversal order holds only its ranks, which become the permutation
// (apps/kernels/traversal_order.cc), and a little room for a level.
constexpr uint64_t kTraversalBytesPerVertex = 4;
constexpr uint64_t kMinimumWorkBytes = 1 << 20;

// How a permutation file of `graph` is read by the relabelling pass: whole
// when it fits half the budget, else through windows (permutation.h): the
// neighbours' one block of the graph's out-space wide, the sources' at
// most 1 Mi ids (two halves: the upper is read ahead).
class PermutationWindows {
 public:
  explicit PermutationWindows(const Graph& graph) : n_(graph.num_vertices()) {
    for (size_t s : graph.blocks(SpaceKind::kOut)) {
      const EdgeSpace& block = graph.stored_space(s);
      block_vertices_ = std::max<uint64_t>(block_vertices_, block.neighbour_end - block.neighbour_begin);
    }
    source_window_ = std::min<uint64_t>(block_vertices_, uint64_t{1} << 20);
  }
  uint64_t needed_bytes() const {
    const uint64_t whole_bytes = n_ * sizeof(uint32_t);
    const uint64_t window_bytes = (block_vertices_ + source_window_) * sizeof(uint32_t);
    return 2 * std::min(whole_bytes, window_bytes) + kMinimumWorkBytes;
  }
  Status open(const std::string& path, uint64_t memory_bytes, Permutation* permutation) const {
    return Permutation::open(path, n_, memory_bytes / 2, source_window_, block_vertices_, permutation);
  }

 private:
  uint64_t n_ = 0, block_vertices_ = 0, source_window_ = 0;
};

// The degree order of the unordered graph at `dir` (write_degree_order),
// read as PermutationWindows says. Leaves `permutation` empty and says
// in *needed_bytes what it would take when even the windows do not fit.
Status degree_permutation(const Graph& graph, uint64_t memory_bytes, Permutation* permutation, uint64_t* needed_bytes) {
  PermutationWindows windows(graph);
  *needed_bytes = windows.needed_bytes();
  if (*needed_bytes > memory_bytes) return Status::OK();
  const std::string path = graph.dir() + kOrderFile;
  SlotArcs slot_arcs;  // the relabelling pass cuts its buckets by them
  SG_RETURN_IF_ERROR(write_degree_order(graph, path, &slot_arcs));
  SG_RETURN_IF_ERROR(windows.open(path, memory_bytes, permutation));
  permutation->set_slot_arcs(std::move(slot_arcs));
  return Status::OK();
}

// The residual's vertices (live, with out-arcs) and where each one's list
// starts, from the out-degree file.
Status residual_offsets(const Graph& graph, const std::function<bool(uint32_t)>& live, uint64_t vertices, uint64_t arcs,
                        ResidualLists* lists) {
  lists->vertices.reserve(vertices);
  lists->begin.reserve(vertices + 1);
  lists->begin = {0};
  SG_RETURN_IF_ERROR(
      graph.scan_degree_file(SpaceKind::kOut, [&](uint32_t first, const uint32_t* degrees, size_t count) {
        for (size_t i = 0; i < count; ++i) {
          const uint32_t v = first + static_cast<uint32_t>(i);
          if (degrees[i] == 0 || !live(v)) continue;
          lists->vertices.push_back(v);
          lists->begin.push_back(lists->begin.back() + degrees[i]);
        }
      }));
  if (lists->vertices.size() != vertices || lists->begin.back() != arcs) {
    return Status::Corruption(graph.dir() + ": the order's residual does not match the graph's out-degrees");
  }
  return Status::OK();
}

// Reads the residual's lists into the places residual_offsets made. The
// reader gives a 2-D block after another, sources ascending within each,
// so a vertex's list arrives in pieces: `filled` counts each list's arcs.
Status fill_residual(const Graph& graph, EdgeReader* reader, const std::function<bool(uint32_t)>& live,
                     const ResidualStep* step, ResidualLists* lists) {
  std::vector<uint32_t> filled(lists->vertices.size(), 0);
  lists->neighbours.assign(lists->begin.back(), 0);
  const auto& ids = lists->vertices;
  std::vector<RawEdge> batch;
  size_t at = 0;  // the last source's index
  // Arcs come a list at a time: live() is asked once a list, not once an
  // arc (a live vertex stays live while the lists are read).
  uint64_t last_source = UINT64_MAX;
  bool last_live = false;
  for (;;) {
    SG_RETURN_IF_ERROR(reader->next_batch(&batch, 1 << 16));
    if (batch.empty()) break;
    if (interrupt_requested()) return Status::Interrupted("ingest stopped by a signal");
    if (step != nullptr) step->visit(batch.data(), batch.size());
    for (const RawEdge& e : batch) {
      const uint32_t u = static_cast<uint32_t>(e.src);
      if (e.src != last_source) {
        last_source = e.src;
        last_live = live(u);
      }
      if (!last_live) continue;
      if (at >= ids.size() || ids[at] != u)
        at = static_cast<size_t>(std::lower_bound(ids.begin(), ids.end(), u) - ids.begin());
      if (at == ids.size() || ids[at] != u || lists->begin[at] + filled[at] == lists->begin[at + 1]) {
        return Status::Corruption(graph.dir() + ": the order's residual lists do not match the graph's out-degrees");
      }
      lists->neighbours[lists->begin[at] + filled[at]++] = static_cast<uint32_t>(e.dst);
    }
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    if (lists->begin[i] + filled[i] != lists->begin[i + 1]) {
      return Status::Corruption(graph.dir() + ": the order's residual lists do not match the graph's out-degrees");
    }
  }
  return Status::OK();
}

// Whether a bfds traversal may take a residual (below) at all: a directed
// graph more than twice what the engine holds (each later step would read
// most of it again: R-MAT 24 in 176 MiB); not R-MAT 22 in 256M, whose graph
// the engine mostly caches. `force` (tests): whatever the sizes. Asked
// once, so that a traversal that can never take one is offered none (each
// offer counts the live vertices' arcs, a pass over the out-degrees).
bool residual_may_pay(const Graph& graph, uint64_t engine_bytes, bool force) {
  if (!graph.directed()) return false;
  return force || graph.space_bytes(SpaceKind::kOut) > 2 * engine_bytes;
}

// The residual of a bfds traversal (traversal_order.cc): the out-lists of
// the vertices it can still step from, read from the graph in one pass
// once the engine (and its cache) is gone. Taken when the lists fit the
// engine's memory less the reader's room (offered only when
// residual_may_pay).
Status take_residual(const Graph& graph, std::unique_ptr<Engine>* engine, uint64_t engine_bytes,
                     const std::function<bool(uint32_t)>& live, uint64_t vertices, uint64_t arcs,
                     const ResidualStep* step, ResidualLists* lists, bool* taken, OrderStats* stats) {
  const uint64_t lists_bytes = vertices * (sizeof(uint32_t) + sizeof(uint64_t)) + arcs * sizeof(uint32_t);
  const uint64_t filled_bytes = vertices * sizeof(uint32_t);  // fill_residual's, while the lists are read
  // A step's two bitmaps (its frontier, and what it finds), held beside.
  const uint64_t step_bytes = step != nullptr ? uint64_t{graph.num_vertices()} / 4 : 0;
  const uint64_t held_bytes = lists_bytes + filled_bytes + step_bytes;
  // The reader's room: its read window, a chunk's arcs and a batch take
  // under 16 MiB. Half the engine's memory before: R-MAT 24 in 176 MiB
  // then refused the residual with a dense step (53 of 90 MB) and read the
  // graph once more for it after the step.
  const uint64_t reader_bytes = std::min(engine_bytes / 2, uint64_t{16} << 20);
  if (held_bytes + reader_bytes > engine_bytes) {
    stats->residual_offered_bytes = lists_bytes;
    return Status::OK();
  }
  stats->steps = (*engine)->step_count();
  stats->bytes_read = (*engine)->run_totals().bytes_read;
  engine->reset();
  SG_RETURN_IF_ERROR(residual_offsets(graph, live, vertices, arcs, lists));
  std::unique_ptr<EdgeReader> reader;
  SG_RETURN_IF_ERROR(open_graph_edge_reader(graph.dir(), &reader));
  reader->set_memory_budget(engine_bytes - held_bytes);
  SG_RETURN_IF_ERROR(fill_residual(graph, reader.get(), live, step, lists));
  stats->bytes_read += reader->bytes_read();
  stats->residual_bytes = lists_bytes;
  *taken = true;
  return Status::OK();
}

// How a traversal order's ranks are held: 4 bytes a vertex, or for bfds,
// when that does not fit and `compact_allowed` (or `compact_always`, for
// tests), compact (kernels.h: bfds_order_to_file), whose permutation goes
// to a file the relabelling pass reads through windows.
struct RankPlan {
  bool compact = false;
  uint64_t rank_bytes = 0;
  uint64_t needed_bytes = 0;    // the order's whole need
  uint64_t engine_minimum = 0;  // Engine::minimum_memory_bytes
  RankSlots members;            // compact: the members, found once
};

Status plan_ranks(const Graph& graph, VertexOrder order, uint64_t memory_bytes, bool compact_allowed,
                  bool compact_always, RankPlan* plan, BfdsStart* start) {
  plan->engine_minimum = Engine::minimum_memory_bytes(graph);
  // With the sixteenth kept aside (traversal_permutation).
  const auto needed = [&](uint64_t bytes) { return (bytes + plan->engine_minimum + 4 * kMinimumWorkBytes) / 15 * 16; };
  plan->rank_bytes = graph.num_vertices() * kTraversalBytesPerVertex;
  plan->needed_bytes = needed(plan->rank_bytes);
  if (order != VertexOrder::kBfds || !compact_allowed || (plan->needed_bytes <= memory_bytes && !compact_always)) {
    return Status::OK();
  }
  if (PermutationWindows(graph).needed_bytes() > memory_bytes) return Status::OK();
  *start = BfdsStart();  // whole ranks: their room goes to the compact form's search
  RankSlots members;
  SG_RETURN_IF_ERROR(bfds_compact_ranks(graph, &members));
  if (needed(members.compact_bytes()) > memory_bytes && !compact_always) return Status::OK();
  plan->compact = true;
  plan->rank_bytes = members.compact_bytes();
  plan->needed_bytes = needed(plan->rank_bytes);
  plan->members = std::move(members);
  return Status::OK();
}

// A traversal order (bfds, bfs) of `graph` into `permutation`, or nothing
// when it does not fit `options.memory_bytes` (*needed_bytes says what it
// takes). A bfds order with whole ranks goes on from `start` when it holds
// the first two levels (only bfds fills it; plan_ranks drops it before
// seeking compact ranks).
Status traversal_permutation(const Graph& graph, VertexOrder order, const IngestOptions& ingest,
                             Permutation* permutation, uint64_t* needed_bytes, OrderStats* stats, BfdsStart* start) {
  const uint64_t memory_bytes = ingest.memory_bytes;
  // Only an explicit --order bfds gets compact ranks: on R-MAT 26 in 256 MiB
  // (one emulated HDD, 2026-12-06) the whole ingest took 268-354 s against
  // 189 s ordered by degree, at the same bytes an edge, and a BFS took the
  // same time on either graph.
  const bool compact_allowed = ingest.order == "bfds" || ingest.order_compact_always;
  RankPlan plan;
  SG_RETURN_IF_ERROR(
      plan_ranks(graph, order, memory_bytes, compact_allowed, ingest.order_compact_always, &plan, start));
  *needed_bytes = plan.needed_bytes;
  if (plan.needed_bytes > memory_bytes) return Status::OK();
  stats->first_levels_sorted = start->level1_vertices > 0;
  const bool compact = plan.compact;
  const uint64_t ranks = plan.rank_bytes;
  const uint64_t engine_minimum = plan.engine_minimum;
  // What the ranks leave goes mostly to the engine, whose cache spares
  // re-reads of chunks between levels; an eighth to the level being
  // numbered, which then takes a few more passes (cheap: a walk of the
  // level). R-MAT 24 on one emulated HDD at 256M: the order read 3.76 ->
  // 3.49 GB and took 28.6 -> 24.4 s with an eighth instead of a half.
  const uint64_t work =
      std::clamp<uint64_t>((memory_bytes - ranks - engine_minimum) / 8, kMinimumWorkBytes, uint64_t{256} << 20);
  auto engine = std::make_unique<Engine>();
  EngineOptions options;
  // Less 2 MiB: the level's keys and the root list are vectors whose
  // capacity runs ahead of their use by a little; and less a sixteenth for
  // what the process holds besides (code, thread stacks, allocator slack:
  // with the engine given nearly all of the rest, R-MAT 22 at 64M peaked
  // at 1.12x without it).
  options.memory_bytes = memory_bytes - ranks - work - kMinimumWorkBytes * 2 - memory_bytes / 16;
  options.label = "order";
  options.quiet = true;  // the hidden graph is not the user's: no notes about it
  // The first pass wrote the graph through the page cache unless with
  // O_DIRECT: the order's reads find what is still cached there (R-MAT 22
  // on one emulated HDD: the order 1.51-1.54 -> 0.94-0.97 s, 0.2 GB less
  // read; R-MAT 24, whose graph does not fit the cgroup, is unchanged).
  options.direct_reads = ingest.direct_io;
  SG_RETURN_IF_ERROR(engine->open(graph, options));
  const TraversalOrder kind = order == VertexOrder::kBfds ? TraversalOrder::kBfds : TraversalOrder::kBfs;
  ResidualSource residual;
  if (residual_may_pay(graph, options.memory_bytes, ingest.order_residual_always)) {
    residual = [&](const std::function<bool(uint32_t)>& live, uint64_t vertices, uint64_t arcs,
                   const ResidualStep* step, ResidualLists* lists, bool* taken) {
      return take_residual(graph, &engine, options.memory_bytes, live, vertices, arcs, step, lists, taken, stats);
    };
  }
  SlotArcs slot_arcs;  // compact: the relabelling pass cuts its buckets by them
  if (compact) {
    stats->compact_rank_bytes = ranks;
    SG_RETURN_IF_ERROR(bfds_order_to_file(engine.get(), work, graph.dir() + kOrderFile, residual,
                                          std::move(plan.members), &slot_arcs));
  } else {
    std::vector<uint32_t> new_id;
    SG_RETURN_IF_ERROR(traversal_order(engine.get(), kind, work, &new_id, residual, std::move(*start)));
    *permutation = Permutation(std::move(new_id));
  }
  if (engine != nullptr) {
    stats->steps = engine->step_count();
    stats->bytes_read = engine->run_totals().bytes_read;
  }
  engine.reset();  // its memory goes to the permutation's windows
  if (!compact) return Status::OK();
  SG_RETURN_IF_ERROR(PermutationWindows(graph).open(graph.dir() + kOrderFile, memory_bytes, permutation));
  permutation->set_slot_arcs(std::move(slot_arcs));
  return Status::OK();
}

}  // namespace

Status open_unordered(const std::string& dir, Graph* graph) {
  GraphOpenOptions open_options{false, false, false, false};
  open_options.out_only = true;
  open_options.degree_files_trusted = true;
  return Graph::open(dir, graph, open_options);
}

bool order_fits(VertexOrder order, uint64_t vertices, uint64_t memory_bytes) {
  // The degree order: its permutation whole, and the in-degrees an out-only
  // first pass counts.
  if (order == VertexOrder::kDegree) return 2 * vertices * sizeof(uint32_t) + kMinimumWorkBytes <= memory_bytes;
  // The ranks, the engine's frontiers, and room for its windows and index.
  return vertices * kTraversalBytesPerVertex + 3 * (vertices / 8) + 16 * kMinimumWorkBytes <= memory_bytes / 16 * 15;
}

Status compute_order(const std::string& dir, VertexOrder order, const IngestOptions& options, Permutation* permutation,
                     VertexOrder* applied, uint64_t* needed_bytes, OrderStats* stats, BfdsStart start) {
  Graph graph;
  SG_RETURN_IF_ERROR(open_unordered(dir, &graph));
  *applied = order;
  if (order != VertexOrder::kDegree) {
    SG_RETURN_IF_ERROR(traversal_permutation(graph, order, options, permutation, needed_bytes, stats, &start));
    if (permutation->size() != 0) return Status::OK();
  }
  start = BfdsStart();  // the degree order's room
  *applied = VertexOrder::kDegree;
  return degree_permutation(graph, options.memory_bytes, permutation, needed_bytes);
}

}  // namespace sg
