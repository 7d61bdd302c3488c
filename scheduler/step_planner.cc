#include "scheduler/step_planner.h"

#include <algorithm>

#include "base/enum_names.h"
#include "scheduler/range_plan.h"

namespace sg {
namespace {

// Bytes of chunks [begin, end) as read: 4 KiB-aligned at the end.
uint64_t read_bytes(const std::vector<ChunkIndexEntry>& index, uint32_t begin, uint32_t end) {
  return align_up(index[end - 1].offset + index[end - 1].bytes, kAlignBytes) - index[begin].offset;
}

// Prices a block's plan: what disk_spans reads as byte ranges on the
// devices, every chunk as decode work. `useful_bytes` (push) are the active
// lists' bytes; in a compressed chunk the others are skipped, scanned
// without decoding (about a quarter of the cost per byte); in a decoded
// window they cost nothing (the active bitmap is walked a word at a time).
void cost_block(const PlanView& view, BlockPlan* plan, uint64_t useful_bytes = UINT64_MAX) {
  const size_t stored = plan->stored;
  const auto& index = view.graph->stored_space(stored).index;
  uint64_t cpu_bytes = 0, decoded_bytes = 0;
  for (const ChunkSpan& span : plan->spans) {
    for (uint32_t c = span.begin; c < span.end; ++c)
      (view.decoded(stored, c) ? decoded_bytes : cpu_bytes) += index[c].bytes;
  }
  std::vector<ByteRange> ranges;
  for (const ChunkSpan& span : disk_spans(*view.graph, *view.cache, *view.cost_model, stored, plan->spans)) {
    ranges.push_back(ByteRange{index[span.begin].offset, read_bytes(index, span.begin, span.end)});
  }
  const double total = static_cast<double>(cpu_bytes + decoded_bytes);
  const double active = total > 0 ? std::min(1.0, static_cast<double>(useful_bytes) / total) : 1.0;
  const double compressed_work = static_cast<double>(cpu_bytes) * (active + (1 - active) / 4);
  const double decoded_work = static_cast<double>(decoded_bytes) * active;
  plan->predicted =
      view.cost_model->cost(ranges, static_cast<uint64_t>(compressed_work), static_cast<uint64_t>(decoded_work));
}

BlockPlan plan_pull_block(const PlanView& view, size_t stored, uint32_t begin, uint32_t end) {
  BlockPlan plan;
  plan.stored = stored;
  const auto& index = view.graph->stored_space(stored).index;
  for (ChunkSpan span : (*view.intervals)[stored]) {
    if (begin != 0 || end != UINT32_MAX) {
      // Chunks are in vertex order: keep those whose vertices meet [begin, end).
      auto first = std::partition_point(index.begin() + span.begin, index.begin() + span.end,
                                        [&](const ChunkIndexEntry& e) { return e.end_vertex() <= begin; });
      auto last = std::partition_point(first, index.begin() + span.end,
                                       [&](const ChunkIndexEntry& e) { return e.first_vertex < end; });
      span = ChunkSpan{static_cast<uint32_t>(first - index.begin()), static_cast<uint32_t>(last - index.begin())};
    }
    if (span.begin == span.end)
      ++plan.intervals_skipped;
    else
      plan.spans.push_back(span);
  }
  cost_block(view, &plan);
  return plan;
}

// Per interval, the chunks holding an active list (sorted), and the
// estimated bytes of those lists.
struct ActiveChunks {
  std::vector<uint32_t> chunks;
  uint64_t useful_bytes = 0;
};

// The estimates of active_chunks for one stored space.
class ListBytes {
 public:
  ListBytes(const PlanView& view, const EdgeSpace& space) : space_(space), degrees_(view.degrees(space.kind)) {
    kind_arcs_ = std::max<uint64_t>(1, view.graph->arcs(space.kind));
  }
  // Edges of v's list in chunk e: exact for a chunk of one list; else its
  // degree (its block's share of it, by the block's share of the arcs), or
  // without degrees the chunk's mean degree.
  uint64_t edges(const ChunkIndexEntry& e, uint32_t v) const {
    if (degrees_ == nullptr) return (e.edge_count + e.vertex_count - 1) / e.vertex_count;
    return degrees_[v] * std::max<uint64_t>(space_.meta.arcs, 1) / kind_arcs_;
  }
  // Bytes of `active_edges` of chunk e's edges.
  static uint64_t useful(const ChunkIndexEntry& e, uint64_t active_edges) {
    return e.edge_count == 0 ? 0 : e.bytes * std::min<uint64_t>(active_edges, e.edge_count) / e.edge_count;
  }

 private:
  const EdgeSpace& space_;
  const uint32_t* degrees_;
  uint64_t kind_arcs_ = 1;
};

// A small frontier given as a list: each member looked up (O(k log chunks)).
std::vector<ActiveChunks> active_chunks_listed(const PlanView& view, size_t stored) {
  const EdgeSpace& space = view.graph->stored_space(stored);
  const auto& index = space.index;
  const auto& starts = view.graph->manifest().interval_starts;
  const ListBytes list_bytes(view, space);
  auto interval_of = [&](uint32_t vertex) {
    return static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), vertex) - starts.begin()) - 1;
  };
  std::vector<ActiveChunks> chunks(starts.size());
  std::vector<uint32_t> selected;
  for (uint32_t v : *view.frontier.list) {
    size_t c =
        static_cast<size_t>(std::upper_bound(index.begin(), index.end(), v,
                                             [](uint32_t x, const ChunkIndexEntry& e) { return x < e.first_vertex; }) -
                            index.begin());
    while (c > 0 && index[c - 1].first_vertex <= v && v < index[c - 1].end_vertex()) {
      selected.push_back(static_cast<uint32_t>(--c));
      const ChunkIndexEntry& e = index[c];
      chunks[interval_of(v)].useful_bytes +=
          ListBytes::useful(e, e.vertex_count == 1 ? e.edge_count : list_bytes.edges(e, v));
    }
  }
  std::sort(selected.begin(), selected.end());
  selected.erase(std::unique(selected.begin(), selected.end()), selected.end());
  for (uint32_t c : selected) chunks[interval_of(index[c].first_vertex)].chunks.push_back(c);
  return chunks;
}

std::vector<ActiveChunks> active_chunks(const PlanView& view, size_t stored) {
  if (view.frontier.listed()) return active_chunks_listed(view, stored);
  const EdgeSpace& space = view.graph->stored_space(stored);
  const auto& index = space.index;
  const auto& starts = view.graph->manifest().interval_starts;
  const ListBytes list_bytes(view, space);
  const FrontierView& active = view.frontier;
  std::vector<ActiveChunks> chunks(starts.size());
  for (size_t i = 0; i < starts.size(); ++i) {
    const ChunkSpan span = (*view.intervals)[stored][i];
    const uint32_t end_vertex = i + 1 < starts.size() ? starts[i + 1] : view.graph->num_vertices();
    if (span.begin == span.end || !active.any_in(starts[i], end_vertex)) continue;
    for (uint32_t c = span.begin; c < span.end; ++c) {
      const ChunkIndexEntry& e = index[c];
      if (!active.any_in(e.first_vertex, e.end_vertex())) continue;
      // Members only, a word at a time: a chunk can span 64 Ki vertices,
      // and a traversal along a path has one member a step.
      uint64_t active_edges = 0;
      bitmap_for_each_in(active.bits, e.first_vertex, e.end_vertex(),
                         [&](uint32_t v) { active_edges += list_bytes.edges(e, v); });
      chunks[i].useful_bytes += ListBytes::useful(e, active_edges);
      chunks[i].chunks.push_back(c);
    }
  }
  return chunks;
}

// Merges selected chunks into spans. Adjacent chunks share a request; with
// `fill_gaps` (--io auto) a gap of uncached chunks the cost model says is
// cheaper to read than to skip is read through. A cached chunk is never read
// through: it would split the request anyway.
std::vector<ChunkSpan> merge_chunks(const PlanView& view, size_t stored, const std::vector<uint32_t>& chunks,
                                    bool fill_gaps) {
  const auto& index = view.graph->stored_space(stored).index;
  std::vector<ChunkSpan> spans;
  auto bridgeable = [&](uint32_t from, uint32_t to) {
    if (from == to) return true;
    if (!fill_gaps) return false;
    for (uint32_t c = from; c < to; ++c) {
      if (view.cached(stored, c)) return false;
    }
    const ChunkSpan& last = spans.back();
    auto end_of = [&](uint32_t c) { return align_up(index[c].offset + index[c].bytes, kAlignBytes); };
    return view.cost_model->read_through(end_of(last.end - 1) - index[last.begin].offset,
                                         index[to].offset - end_of(from - 1), end_of(to) - index[to].offset);
  };
  for (uint32_t c : chunks) {
    if (!spans.empty() && bridgeable(spans.back().end, c)) {
      spans.back().end = c + 1;
      continue;
    }
    spans.push_back(ChunkSpan{c, c + 1});
  }
  return spans;
}

// --io auto with the cache on: a selective request is latency-bound, so
// reading on past its last chunk costs little up to latency x bandwidth more
// bytes (at most one more request's time). Those chunks go to the cache, and
// a traversal, which in a locality order (ingest --order bfs) moves forward
// through the ids, finds its next steps' lists there. Stops at a cached
// chunk, the interval's end, or when the cache has no room for it. Returns
// the bytes added and takes them from *room.
uint64_t read_ahead(const PlanView& view, size_t stored, ChunkSpan interval, std::vector<ChunkSpan>* spans,
                    uint64_t* room) {
  const auto& index = view.graph->stored_space(stored).index;
  auto stored_bytes = [&](uint32_t c) { return align_up(index[c].bytes, kAlignBytes); };
  for (const ChunkSpan& span : *spans) {
    for (uint32_t c = span.begin; c < span.end; ++c) {
      if (!view.cached(stored, c)) *room -= std::min(*room, stored_bytes(c));
    }
  }
  uint64_t total = 0;
  for (size_t i = 0; i < spans->size(); ++i) {
    ChunkSpan& span = (*spans)[i];
    const uint32_t limit =
        i + 1 < spans->size() ? (*spans)[i + 1].begin : interval.end;  // the next span is read anyway
    uint64_t extra = 0;
    while (span.end < limit && !view.cached(stored, span.end)) {
      const uint64_t bytes = stored_bytes(span.end);
      if (extra + bytes > view.cost_model->gap_fill_bytes() || bytes > *room) break;
      extra += bytes;
      *room -= bytes;
      ++span.end;
    }
    total += extra;
  }
  // Extended spans may now reach the next ones.
  std::vector<ChunkSpan> merged;
  for (const ChunkSpan& span : *spans) {
    if (!merged.empty() && span.begin <= merged.back().end)
      merged.back().end = std::max(merged.back().end, span.end);
    else
      merged.push_back(span);
  }
  *spans = std::move(merged);
  return total;
}

// One interval of a push block, full or selective by the cost model (or
// by `mode`); its spans are appended to the block's plan.
IntervalDecision plan_push_interval(const PlanView& view, size_t stored, uint32_t interval,
                                    const ActiveChunks& selected, IoMode mode, uint64_t* room, BlockPlan* plan) {
  const ChunkSpan full = (*view.intervals)[stored][interval];
  std::vector<ChunkSpan> selective = merge_chunks(view, stored, selected.chunks, mode == IoMode::kAuto);
  IntervalDecision decision;
  decision.interval = interval;
  BlockPlan one;
  one.stored = stored;
  one.spans = {full};
  cost_block(view, &one, selected.useful_bytes);
  decision.full_seconds = one.predicted.seconds;
  one.spans = selective;
  cost_block(view, &one, selected.useful_bytes);
  decision.selective_seconds = one.predicted.seconds;
  // A tie goes to selective: fewer bytes, the same time.
  decision.selective = mode == IoMode::kSelective || decision.selective_seconds <= decision.full_seconds;
  if (decision.selective) {
    if (*room > 0) plan->read_ahead_bytes += read_ahead(view, stored, full, &selective, room);
    plan->spans.insert(plan->spans.end(), selective.begin(), selective.end());
  } else {
    plan->spans.push_back(full);
  }
  return decision;
}

BlockPlan plan_push_block(const PlanView& view, size_t stored, IoMode mode, uint64_t* room) {
  BlockPlan plan;
  plan.stored = stored;
  const std::vector<size_t>& blocks = view.graph->blocks(view.graph->stored_space(stored).kind);
  const auto block = static_cast<uint32_t>(std::find(blocks.begin(), blocks.end(), stored) - blocks.begin());
  const std::vector<ActiveChunks> selected = active_chunks(view, stored);
  for (size_t i = 0; i < selected.size(); ++i) {
    plan.useful_bytes += selected[i].useful_bytes;
    if (selected[i].chunks.empty()) {
      ++plan.intervals_skipped;
      continue;
    }
    if (mode == IoMode::kFull) {
      plan.spans.push_back((*view.intervals)[stored][i]);
      continue;
    }
    IntervalDecision decision =
        plan_push_interval(view, stored, static_cast<uint32_t>(i), selected[i], mode, room, &plan);
    decision.block = block;
    plan.intervals.push_back(decision);
  }
  cost_block(view, &plan, plan.useful_bytes);
  return plan;
}

// Ligra's rule (--io full): pull when the frontier's out-edges exceed |E|/20.
bool ligra_pulls(const PlanView& view, SpaceKind push_kind) {
  const FrontierView& frontier = view.frontier;
  if (frontier.is_all()) return true;
  const uint32_t* degrees = view.degrees(push_kind);
  const uint64_t arcs = view.graph->arcs(SpaceKind::kOut);
  uint64_t frontier_edges = frontier.size;
  if (degrees != nullptr)
    frontier.for_each([&](uint32_t v) { frontier_edges += degrees[v]; });
  else
    frontier_edges += frontier.size * (arcs / std::max(1u, view.graph->num_vertices()));
  return frontier_edges > arcs / 20;
}

// Ski rental (Karlin et al. 1988): the cheaper direction of one step can be
// the dearer one for every later step, when the other is dear only for
// chunks it has not read yet. A BFS along a path pulls its one vertex a step
// through the cached in-space, 200,000 steps, rather than read the out-space
// once. Each step the other direction would have cost less with its chunks
// cached adds the difference to its regret; once the regret reaches what
// reading them costs, the other direction is taken (and its chunks cached).
// That costs at most twice the best choice made knowing the future.
bool rent_instead_of(const PlanView& view, const StepPlan& other, double chosen_seconds, DirectionRegret* regrets) {
  double& regret = regrets->seconds[other.pull ? 1 : 0];
  const double other_cached = other.predicted.cpu_seconds;
  const double other_reading = other.predicted.seconds - other_cached;
  if (!view.cache_enabled || other_reading <= 0 || other.predicted.bytes > view.cache_limit ||
      other_cached >= chosen_seconds) {
    regret = 0;
    return false;
  }
  regret += chosen_seconds - other_cached;
  if (regret < other_reading) return false;
  regret = 0;
  return true;
}

}  // namespace

const char* io_mode_name(IoMode mode) {
  switch (mode) {
    case IoMode::kAuto: return "auto";
    case IoMode::kFull: return "full";
    case IoMode::kSelective: return "selective";
  }
  return "?";
}

bool parse_io_mode(const std::string& name, IoMode* mode) {
  return parse_enum_name(name, {IoMode::kAuto, IoMode::kFull, IoMode::kSelective}, io_mode_name, mode);
}

IntervalChunks interval_chunks(const Graph& graph) {
  const std::vector<uint32_t>& starts = graph.manifest().interval_starts;
  IntervalChunks all;
  for (size_t s = 0; s < graph.stored_space_count(); ++s) {
    const EdgeSpace& space = graph.stored_space(s);
    std::vector<ChunkSpan> spans;
    uint32_t c = 0;
    const auto chunks = static_cast<uint32_t>(space.index.size());
    for (size_t i = 0; i < starts.size(); ++i) {
      const uint32_t end_vertex = i + 1 < starts.size() ? starts[i + 1] : UINT32_MAX;
      const uint32_t begin = c;
      while (c < chunks && space.index[c].first_vertex < end_vertex) ++c;
      spans.push_back(ChunkSpan{begin, c});
    }
    all.push_back(std::move(spans));
  }
  return all;
}

void total_plan(StepPlan* plan) {
  plan->predicted = PlanCost{};
  plan->intervals.clear();
  plan->intervals_skipped = 0;
  plan->useful_bytes = 0;
  plan->read_ahead_bytes = 0;
  for (const BlockPlan& block : plan->blocks) {
    plan->predicted.io_seconds += block.predicted.io_seconds;
    plan->predicted.cpu_seconds += block.predicted.cpu_seconds;
    plan->predicted.seconds += block.predicted.seconds;
    plan->predicted.bytes += block.predicted.bytes;
    plan->predicted.requests += block.predicted.requests;
    plan->intervals.insert(plan->intervals.end(), block.intervals.begin(), block.intervals.end());
    plan->intervals_skipped += block.intervals_skipped;
    plan->useful_bytes += block.useful_bytes;
    plan->read_ahead_bytes += block.read_ahead_bytes;
  }
}

std::vector<ChunkSpan> disk_spans(const Graph& graph, const ChunkHolder& cache, const CostModel& cost_model,
                                  size_t stored, const std::vector<ChunkSpan>& spans) {
  const auto& index = graph.stored_space(stored).index;
  auto cached = [&](uint32_t c) { return cache.holds(stored, c); };
  std::vector<ChunkSpan> out;
  for (const ChunkSpan& span : spans) {
    bool open = false;  // out.back() may still grow within this span
    uint32_t c = span.begin;
    while (c < span.end) {
      uint32_t gap_end = c;
      while (gap_end < span.end && cached(gap_end)) ++gap_end;
      if (gap_end == span.end) break;  // only cached chunks left
      uint32_t run_end = gap_end;
      while (run_end < span.end && !cached(run_end)) ++run_end;
      // Never through a decoded window: it serves its chunks without a decode.
      bool decoded_gap = false;
      for (uint32_t g = c; g < gap_end && !decoded_gap; ++g) decoded_gap = cache.holds_decoded(stored, g);
      const bool bridge =
          open &&
          (gap_end == c || (!decoded_gap && cost_model.read_through(read_bytes(index, out.back().begin, out.back().end),
                                                                    read_bytes(index, c, gap_end),
                                                                    read_bytes(index, gap_end, run_end))));
      if (bridge)
        out.back().end = run_end;
      else
        out.push_back(ChunkSpan{gap_end, run_end});
      open = true;
      c = run_end;
    }
  }
  return out;
}

StepPlan plan_pull(const PlanView& view, SpaceKind kind, uint32_t begin, uint32_t end) {
  StepPlan plan;
  plan.pull = true;
  plan.kind = kind;
  for (size_t stored : view.graph->blocks(kind)) plan.blocks.push_back(plan_pull_block(view, stored, begin, end));
  total_plan(&plan);
  return plan;
}

StepPlan plan_push(const PlanView& view, SpaceKind kind, IoMode mode) {
  StepPlan plan;
  plan.pull = false;
  plan.kind = kind;
  uint64_t room =
      view.cache_enabled && mode == IoMode::kAuto ? view.cache_room : 0;  // for read-ahead, shared by the blocks
  for (size_t stored : view.graph->blocks(kind)) plan.blocks.push_back(plan_push_block(view, stored, mode, &room));
  total_plan(&plan);
  return plan;
}

StepPlan plan_step(const PlanView& view, const StepRequest& request, DirectionRegret* regret) {
  const SpaceKind pull_kind = request.reversed ? SpaceKind::kOut : SpaceKind::kIn;
  const SpaceKind push_kind = request.reversed ? SpaceKind::kIn : SpaceKind::kOut;
  const IoMode mode = view.io_mode;
  if (request.direction == Direction::kPull || request.destination_range()) {
    return plan_pull(view, pull_kind, request.destinations_begin, request.destinations_end);
  }
  if (request.direction == Direction::kPush || mode == IoMode::kSelective) return plan_push(view, push_kind, mode);
  if (mode == IoMode::kFull)
    return ligra_pulls(view, push_kind) ? plan_pull(view, pull_kind) : plan_push(view, push_kind, mode);
  StepPlan pull = plan_pull(view, pull_kind);
  StepPlan push = plan_push(view, push_kind, IoMode::kAuto);
  // With vertex arrays loaded by range, each pass over the other side's
  // ranges reads the blocks holding its neighbours again.
  cost_passes(view, &pull);
  cost_passes(view, &push);
  const bool push_cheaper = push.predicted.seconds < pull.predicted.seconds;
  StepPlan* best = push_cheaper ? &push : &pull;
  if (rent_instead_of(view, push_cheaper ? pull : push, best->predicted.seconds, regret))
    best = push_cheaper ? &pull : &push;
  best->pull_seconds = pull.predicted.seconds;
  best->push_seconds = push.predicted.seconds;
  return std::move(*best);
}

}  // namespace sg
