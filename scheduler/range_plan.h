// How a step moves vertex values loaded by range (core/vertex_residency.h):
// the interval side of the step (destinations of a pull, sources of a
// push) in groups of chunks whose vertices' values fit the range room, the
// other side in passes over ranges of neighbours (each pass reads the
// blocks holding them and takes only the edges whose neighbour it holds),
// and which loop is outer.
#pragma once

#include <cstdint>
#include <vector>

#include "scheduler/plan_view.h"
#include "scheduler/step_plan.h"

namespace sg {

// Ranged arrays are loaded in whole slabs of this many values (the engine
// checks that core/vertex_array.h agrees).
constexpr uint64_t kRangeSlabValues = 1024;

// A pass over the neighbours [begin, end).
struct NeighbourPass {
  uint64_t begin = 0, end = 0;
};

// The plan's chunks whose first vertex falls in one range of vertices.
struct ChunkGroup {
  std::vector<std::vector<ChunkSpan>> spans;  // per block of the plan
  uint64_t begin_vertex = 0, end_vertex = 0;  // the vertices of its chunks
  std::vector<uint64_t> edges;                // per block of the plan: its chunks' edges
};

struct RangePlan {
  bool groups_outer = false;  // groups outside, each streaming every pass (else passes outside)
  std::vector<NeighbourPass> passes;
  std::vector<ChunkGroup> groups;
  double vertex_bytes = 0;  // loaded and written back
  double edge_bytes = 0;    // read from the devices, passes included
};

// The cheaper way to move the step's ranged values (one group and one pass
// when nothing is ranged).
RangePlan plan_ranges(const PlanView& view, const StepPlan& plan);

// Adds to each block's predicted cost its reads by several passes, and the
// vertex values the step moves (nothing when no array is ranged).
void cost_passes(const PlanView& view, StepPlan* plan);

// Whether group `g` has edges in a block of the plan that meets `pass`: a
// pass that meets none is neither loaded nor scanned for the group. An
// ordered graph puts its vertices without edges last, so whole blocks and
// groups hold none (R-MAT 26 by degree: 34 M of 67 M vertices, 3 of 6
// blocks).
bool pass_has_edges(const Graph& graph, const StepPlan& plan, const ChunkGroup& g, const NeighbourPass& pass);

// How many of `passes` read `block` (those meeting its neighbour range).
uint32_t passes_over(const std::vector<NeighbourPass>& passes, const EdgeSpace& block);

}  // namespace sg
