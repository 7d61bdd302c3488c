// Step planning (the benefit-aware scheduler): for one edge_map step,
// which space to read (pull over the in-space, push over the out-space),
// and per interval of a push, a full scan or selective chunk reads, each
// priced by the cost model on the graph's devices, with what the cache
// holds counted as free I/O. Plans are functions of a read-only view
// (plan_view.h); the engine carries them out (core/step_runner.h).
#pragma once

#include <cstdint>
#include <vector>

#include "scheduler/plan_view.h"
#include "scheduler/step_plan.h"

namespace sg {

// What the direction not taken would have saved so far (see
// rent_instead_of in step_planner.cc); kept by the engine across steps.
struct DirectionRegret {
  double seconds[2] = {0, 0};  // [0]: push regretted, [1]: pull regretted
};

// The step's plan: forced by the request or --io, else the cheaper of pull
// and push (ski rental may take the dearer one, see step_planner.cc).
StepPlan plan_step(const PlanView& view, const StepRequest& request, DirectionRegret* regret);

// Every chunk of `kind`, or those holding a destination in [begin, end).
StepPlan plan_pull(const PlanView& view, SpaceKind kind, uint32_t begin = 0, uint32_t end = UINT32_MAX);
// The chunks holding the frontier's lists in `kind`: per interval the whole
// shard or only those chunks, as `mode` says or the cost model chooses.
StepPlan plan_push(const PlanView& view, SpaceKind kind, IoMode mode);

// The chunks of `spans` to read from the devices: the uncached ones, merged
// when adjacent, plus runs of cached chunks between two of them within a
// span when reading them through is cheaper than another request.
std::vector<ChunkSpan> disk_spans(const Graph& graph, const ChunkHolder& cache, const CostModel& cost_model,
                                  size_t stored, const std::vector<ChunkSpan>& spans);

}  // namespace sg
