#include "scheduler/range_plan.h"

#include <algorithm>

#include "shards/format/chunk_format.h"

namespace sg {
namespace {

constexpr uint64_t kSlabValues = kRangeSlabValues;

// The plan's chunks cut into groups by the vertices they hold: a group takes
// the chunks of every block whose first vertex falls in one range of
// vertices whose values fit `room` at `bytes_per_vertex` (all of them when
// nothing is ranged). A chunk running past its range makes its group load
// a little more.
std::vector<ChunkGroup> chunk_groups(const PlanView& view, const StepPlan& plan, uint64_t bytes_per_vertex,
                                     uint64_t room) {
  const uint64_t width =
      bytes_per_vertex == 0 ? UINT64_MAX : std::max<uint64_t>(1, room / (bytes_per_vertex * kSlabValues)) * kSlabValues;
  std::vector<ChunkGroup> groups;
  std::vector<uint64_t> cells;  // groups[k] holds vertex range cells[k]
  const size_t blocks = plan.blocks.size();
  for (size_t b = 0; b < blocks; ++b) {
    const EdgeSpace& space = view.graph->stored_space(plan.blocks[b].stored);
    const auto& index = space.index;
    size_t k = 0;  // chunks come in vertex order within a block
    for (const ChunkSpan& span : plan.blocks[b].spans) {
      for (uint32_t c = span.begin; c < span.end; ++c) {
        const uint64_t first = index[c].first_vertex, end = index[c].end_vertex();
        const uint64_t cell = first / width;
        while (k < cells.size() && cells[k] < cell) ++k;
        if (k == cells.size() || cells[k] != cell) {
          cells.insert(cells.begin() + static_cast<long>(k), cell);
          groups.insert(
              groups.begin() + static_cast<long>(k),
              ChunkGroup{std::vector<std::vector<ChunkSpan>>(blocks), first, end, std::vector<uint64_t>(blocks, 0)});
        }
        ChunkGroup& g = groups[k];
        std::vector<ChunkSpan>& spans = g.spans[b];
        if (!spans.empty() && spans.back().end == c)
          ++spans.back().end;
        else
          spans.push_back(ChunkSpan{c, c + 1});
        g.edges[b] += index[c].edge_count + (space.chunk_adds.empty() ? 0 : space.chunk_adds[c]);  // with updates' adds
        g.begin_vertex = std::min(g.begin_vertex, first);
        g.end_vertex = std::max(g.end_vertex, end);
      }
    }
  }
  if (bytes_per_vertex == 0 && !groups.empty()) {  // one group, over every vertex
    groups[0].begin_vertex = 0;
    groups[0].end_vertex = view.graph->num_vertices();
  }
  return groups;
}

// Passes of `pass_vertices` neighbours at most, cut at the kind's block
// starts: consecutive blocks that fit share a pass, a block that does not
// is read once per pass over a part of it.
std::vector<NeighbourPass> neighbour_passes(const PlanView& view, SpaceKind kind, uint64_t pass_vertices) {
  pass_vertices = std::max<uint64_t>(pass_vertices, 1);
  std::vector<NeighbourPass> passes;
  for (size_t s : view.graph->blocks(kind)) {
    const EdgeSpace& block = view.graph->stored_space(s);
    const uint64_t begin = block.neighbour_begin, end = block.neighbour_end;
    if (!passes.empty() && passes.back().end == begin && end - passes.back().begin <= pass_vertices) {
      passes.back().end = end;  // shares the pass of the blocks before it
      continue;
    }
    // Pieces of whole slabs (ranged arrays load slabs).
    const uint64_t piece = end - begin <= pass_vertices
                               ? end - begin
                               : std::max<uint64_t>(kSlabValues, pass_vertices / kSlabValues * kSlabValues);
    for (uint64_t lo = begin; lo < end; lo += piece) passes.push_back(NeighbourPass{lo, std::min(end, lo + piece)});
  }
  return passes;
}

// Whole slabs of values at `per_vertex` bytes that `bytes` holds (at least one).
uint64_t slabs_of(uint64_t bytes, uint64_t per_vertex) {
  return std::max<uint64_t>(1, bytes / (per_vertex * kSlabValues)) * kSlabValues;
}

// One way to move the step's values, priced as the vertex bytes it moves
// plus the edge bytes it reads (blocks split over passes are read once per
// pass).
RangePlan make_range_plan(const PlanView& view, const StepPlan& plan, bool groups_outer, uint64_t inner_room,
                          uint64_t pass_vertices) {
  const uint64_t inner_bytes = plan.pull ? view.ranged_destination_bytes : view.ranged_source_bytes;
  const uint64_t outer_bytes = plan.pull ? view.ranged_source_bytes : view.ranged_destination_bytes;
  const uint64_t n = view.graph->num_vertices();
  RangePlan r;
  r.groups_outer = groups_outer;
  r.passes = neighbour_passes(view, plan.kind, outer_bytes == 0 ? n : pass_vertices);
  r.groups = chunk_groups(view, plan, inner_bytes, inner_room);
  // Bytes moved: the interval side once a pass (or once), written back
  // in a pull; the other side once (or once a group), written back in a
  // push. Passes without edges for a group (or for every group) are
  // skipped (pass_has_edges).
  const double inner_side = static_cast<double>(inner_bytes * n) * (plan.pull ? 2 : 1);
  const double outer_per_vertex = static_cast<double>(outer_bytes) * (plan.pull ? 1 : 2);
  if (groups_outer) {
    r.vertex_bytes = inner_side;
    for (const ChunkGroup& g : r.groups) {
      for (const NeighbourPass& pass : r.passes)
        if (pass_has_edges(*view.graph, plan, g, pass)) r.vertex_bytes += outer_per_vertex * (pass.end - pass.begin);
    }
  } else {
    for (size_t p = 0; p < r.passes.size(); ++p) {
      const NeighbourPass& pass = r.passes[p];
      const bool used = p + 1 == r.passes.size() || std::any_of(r.groups.begin(), r.groups.end(), [&](const auto& g) {
                          return pass_has_edges(*view.graph, plan, g, pass);
                        });
      if (used) r.vertex_bytes += inner_side + outer_per_vertex * (pass.end - pass.begin);
    }
  }
  for (const BlockPlan& block : plan.blocks) {
    const EdgeSpace& space = view.graph->stored_space(block.stored);
    r.edge_bytes += static_cast<double>(block.predicted.bytes) * static_cast<double>(passes_over(r.passes, space));
  }
  return r;
}

}  // namespace

// With only one side ranged there is one way: the interval side in groups
// of the whole range room (one pass), or the other side in passes of it
// (one group). With both, two: passes over the neighbours outside, each
// loading every group of the interval side again (3/4 of the room to the
// passes), or groups outside, each streaming every pass again (half the
// room to the passes, or the widest block). The cheaper is taken.
RangePlan plan_ranges(const PlanView& view, const StepPlan& plan) {
  const uint64_t inner_bytes = plan.pull ? view.ranged_destination_bytes : view.ranged_source_bytes;
  const uint64_t outer_bytes = plan.pull ? view.ranged_source_bytes : view.ranged_destination_bytes;
  const uint64_t n = view.graph->num_vertices();
  const uint64_t room = view.range_room;
  if (inner_bytes == 0 || outer_bytes == 0) {
    return make_range_plan(view, plan, false, room, outer_bytes == 0 ? n : slabs_of(room, outer_bytes));
  }
  // Groups outside stream the other side in passes of half the room, or of
  // the widest block when that fits three quarters of it (no block is then
  // read twice, and the groups get the rest).
  uint64_t widest_block = 0;
  for (size_t s : view.graph->blocks(plan.kind)) {
    const EdgeSpace& block = view.graph->stored_space(s);
    widest_block = std::max<uint64_t>(widest_block, block.neighbour_end - block.neighbour_begin);
  }
  widest_block = (widest_block + kSlabValues - 1) / kSlabValues * kSlabValues;
  std::vector<uint64_t> group_passes = {slabs_of(room / 2, outer_bytes)};
  if (widest_block * outer_bytes <= room / 4 * 3) group_passes.push_back(widest_block);
  std::vector<RangePlan> options;
  if (view.range_loop != RangeLoop::kGroupsOuter) {
    options.push_back(make_range_plan(view, plan, false, room / 4, slabs_of(room - room / 4, outer_bytes)));
  }
  if (view.range_loop != RangeLoop::kPassesOuter) {
    for (const uint64_t pass_vertices : group_passes) {
      options.push_back(
          make_range_plan(view, plan, true, room - std::min(room, pass_vertices * outer_bytes), pass_vertices));
    }
  }
  size_t best = 0;
  for (size_t i = 1; i < options.size(); ++i) {
    if (options[i].vertex_bytes + options[i].edge_bytes < options[best].vertex_bytes + options[best].edge_bytes)
      best = i;
  }
  return std::move(options[best]);
}

bool pass_has_edges(const Graph& graph, const StepPlan& plan, const ChunkGroup& g, const NeighbourPass& pass) {
  for (size_t b = 0; b < plan.blocks.size(); ++b) {
    const EdgeSpace& block = graph.stored_space(plan.blocks[b].stored);
    if (g.edges[b] > 0 && block.neighbour_end > pass.begin && block.neighbour_begin < pass.end) return true;
  }
  return false;
}

uint32_t passes_over(const std::vector<NeighbourPass>& passes, const EdgeSpace& block) {
  uint32_t reads = 0;
  for (const NeighbourPass& pass : passes)
    reads += pass.begin < block.neighbour_end && pass.end > block.neighbour_begin;
  return reads;
}

// Each block's predicted cost times the passes that read it, plus the
// vertex values the step moves (at the first device's sequential rate:
// scratch files live beside the graph).
void cost_passes(const PlanView& view, StepPlan* plan) {
  if (!view.any_ranged) return;
  const RangePlan ranges = plan_ranges(view, *plan);
  for (BlockPlan& block : plan->blocks) {
    const double reads = passes_over(ranges.passes, view.graph->stored_space(block.stored));
    block.predicted.seconds *= reads;
    block.predicted.io_seconds *= reads;
    block.predicted.cpu_seconds *= reads;
    block.predicted.bytes = static_cast<uint64_t>(static_cast<double>(block.predicted.bytes) * reads);
    block.predicted.requests = static_cast<uint64_t>(static_cast<double>(block.predicted.requests) * reads);
  }
  total_plan(plan);
  const double vertex_seconds = ranges.vertex_bytes / view.cost_model->profiles().front().sequential_bytes_per_second;
  plan->predicted.io_seconds += vertex_seconds;
  plan->predicted.seconds += vertex_seconds;
}

}  // namespace sg
