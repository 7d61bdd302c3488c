// What one edge_map step will read, and why: the planner's output
// (scheduler/step_planner.h), carried out by the engine's step runner
// (core/step_runner.h) and recorded in the run's statistics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/cost_model.h"
#include "shards/format/graph.h"
#include "shards/io/chunk_stream.h"

namespace sg {

enum class Direction { kAuto, kPull, kPush };
enum class IoMode { kAuto, kFull, kSelective };
const char* io_mode_name(IoMode mode);
bool parse_io_mode(const std::string& name, IoMode* mode);

// What a step asks of the planner (the engine's EdgeMapOptions).
struct StepRequest {
  Direction direction = Direction::kAuto;
  bool reversed = false;  // over the transposed graph
  // Pull steps only: the destinations updated; chunks holding none are not read.
  uint32_t destinations_begin = 0;
  uint32_t destinations_end = UINT32_MAX;
  bool destination_range() const { return destinations_begin != 0 || destinations_end != UINT32_MAX; }
};

// The planner's choice for one interval of a push step.
struct IntervalDecision {
  uint32_t interval = 0;
  uint32_t block = 0;            // of a blocked space (2-D blocks), else 0
  double full_seconds = 0;       // predicted: stream the interval's whole shard
  double selective_seconds = 0;  // predicted: read only chunks holding active lists
  bool selective = false;        // the choice
};

// What a step will read of one block of a space (the whole space when it
// is 1-D), and why.
struct BlockPlan {
  size_t stored = 0;             // the block's stored space
  std::vector<ChunkSpan> spans;  // chunks to process, in order
  PlanCost predicted;
  std::vector<IntervalDecision> intervals;
  uint32_t intervals_skipped = 0;
  uint64_t useful_bytes = 0;      // estimated bytes of the active lists (push)
  uint64_t read_ahead_bytes = 0;  // chunks read past the active ones, for the cache
};

// What a step will read: a plan per block of the space, in neighbour order.
struct StepPlan {
  bool pull = false;
  SpaceKind kind = SpaceKind::kIn;
  std::vector<BlockPlan> blocks;
  PlanCost predicted;                           // the blocks' together, times the passes over each
  double pull_seconds = -1, push_seconds = -1;  // the alternatives costed (-1: not considered)
  // Over every block.
  std::vector<IntervalDecision> intervals;
  uint32_t intervals_skipped = 0;
  uint64_t useful_bytes = 0;
  uint64_t read_ahead_bytes = 0;
};

// The blocks' figures summed into the plan's (blocks are read one after
// another: their times add up).
void total_plan(StepPlan* plan);

}  // namespace sg
