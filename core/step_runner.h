// Carries out a step's plan (scheduler/step_planner.h): for each group of
// the interval side and each pass over neighbours (scheduler/range_plan.h),
// with their vertex ranges loaded, every block's chunks come from the chunk
// cache (compressed, or already decoded) or are streamed from the devices;
// each chunk is decoded and its vertices handed to the step's body in the
// same task (window_graph.h). What it read and how long it took goes to the
// run log, and the measured decode rate back to the cost model.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/chunk_cache.h"
#include "core/memory_budget.h"
#include "core/run_log.h"
#include "core/vertex_residency.h"
#include "core/vertex_subset.h"
#include "core/window_graph.h"
#include "scheduler/cost_model.h"
#include "scheduler/range_plan.h"
#include "scheduler/step_plan.h"
#include "shards/io/chunk_stream.h"

namespace sg {

// Called with [begin, end) (see EdgeMapOptions::finish_range).
using RangeFinish = std::function<Status(uint32_t begin, uint32_t end)>;

// The engine's parts a step uses.
struct StepParts {
  const Graph* graph = nullptr;
  IoContext* io = nullptr;
  ChunkCache* cache = nullptr;
  CostModel* cost_model = nullptr;
  VertexResidency* residency = nullptr;
  MemoryBudget* budget = nullptr;
  RunLog* log = nullptr;
  IoMode io_mode = IoMode::kAuto;  // recorded with each step
  bool cache_enabled = true;       // keep chunks read in the cache
  bool decoded_cache = true;       // and, room permitting, decoded windows
};

// What a step is: its plan, how it moves ranged values, its frontier (dense)
// and the body each decoded range of vertices goes to.
struct StepWork {
  const StepPlan* plan = nullptr;
  const RangePlan* ranges = nullptr;
  const VertexSubset* active = nullptr;
  bool reversed = false;
  VertexRangeFn body = nullptr;
  void* context = nullptr;
  const RangeFinish* finish = nullptr;  // pull steps: each range of destinations as it completes
};

class StepRunner {
 public:
  // Reserves the decode room of the largest window (`shape`).
  void open(const StepParts& parts, WindowShape shape);
  Status run(const StepWork& work);
  // Steps load the ranges of `residency`'s arrays from now on.
  void use_residency(VertexResidency* residency) { parts_.residency = residency; }
  // This pass's neighbours: edges whose neighbour is outside are not visited
  // (0 and UINT32_MAX: the pass holds the whole block).
  uint32_t neighbour_begin() const { return neighbour_begin_; }
  uint32_t neighbour_end() const { return neighbour_end_; }
  uint64_t decode_room_bytes() const { return decode_room_bytes_; }
  // The run is over: the decode room goes.
  void release() {
    window_ = WindowGraph();
    kept_ = WindowGraph();
  }

 private:
  struct BlockScan;  // one block's chunks of a step, being processed
  Status scan_part(const StepWork& work, const ChunkGroup& group, const NeighbourPass& pass);
  Status for_each_group(const StepWork& work, bool finishing, const std::function<Status(const ChunkGroup&)>& fn);
  Status finish_gap(const StepWork& work, uint64_t begin, uint64_t end);
  Status scan(const StepWork& work, const BlockPlan& block);
  Status scan_interleaved(const StepWork& work, const std::vector<ChunkSpan>& to_read,
                          const std::vector<uint32_t>& cached, BlockScan* scan);
  void finish_scan(const StepWork& work, const BlockPlan& block, BlockScan* scan);
  Status scan_cached(const StepWork& work, std::span<const uint32_t> chunks, BlockScan* scan);
  Status stream_windows(const StepWork& work, ChunkStream* stream, size_t count, BlockScan* scan);
  // Decodes `window` into window_ (and merges a graph's updates into it)
  // and runs the body over it; *keep: every list was decoded, so the
  // window may be kept decoded (admit_decoded).
  Status decode_window(const StepWork& work, const ChunkWindow& window, BlockScan* scan, bool* keep);
  uint64_t cache_room() const;  // budget bytes the cache may still take
  void trace_memory() const;    // SHARDGRAPH_MEMORY_TRACE

  // A graph with updates: the window merged whole (to keep decoded), or
  // merged and visited as it is decoded; either runs the body over it.
  Status merge_kept_window(const StepWork& work, const ChunkWindow& window, const VertexSubset* only, BlockScan* scan);
  Status decode_and_merge(const StepWork& work, const ChunkWindow& window, const VertexSubset* only, BlockScan* scan);
  void admit_decoded(size_t stored);

  StepParts parts_;
  WindowGraph window_;
  WindowGraph kept_;  // a graph with updates: the merged copy of a window to keep decoded
  uint32_t piece_arcs_ = MergedVisit::kMergedPieceArcs;
  uint64_t decode_room_bytes_ = 0;
  uint32_t neighbour_begin_ = 0, neighbour_end_ = UINT32_MAX;
};

}  // namespace sg
