// The planner's read-only view of a step: the graph's chunk indexes and
// their per-interval summary, the frontier, what the chunk cache holds, the
// device profiles (in the cost model) and the step's share of the budget.
// Planning is a function from this view to a plan (step_planner.h), so
// plans can be checked without any I/O.
#pragma once

#include <cstdint>
#include <vector>

#include "base/bitmap.h"
#include "scheduler/cost_model.h"
#include "scheduler/step_plan.h"
#include "shards/format/graph.h"
#include "shards/io/chunk_stream.h"

namespace sg {

// A step's frontier: its members as a bitmap over every vertex and, when
// the frontier was given as a list (a small one), that list too, which the
// planner then looks up member by member.
struct FrontierView {
  uint32_t universe = 0;
  uint64_t size = 0;
  const uint64_t* bits = nullptr;               // (universe + 63) / 64 words
  const std::vector<uint32_t>* list = nullptr;  // null: given as a bitmap

  bool is_all() const { return size == universe; }
  bool listed() const { return list != nullptr; }
  bool any_in(uint32_t begin, uint32_t end) const { return bitmap_any_in(bits, begin, end); }
  // f(v) for every member, from the list when there is one.
  template <typename F>
  void for_each(F&& f) const {
    if (listed()) {
      for (uint32_t v : *list) f(v);
    } else {
      bitmap_for_each_in(bits, 0, universe, f);
    }
  }
};

// What the chunk cache holds (core/chunk_cache.h): cached chunks cost no
// I/O, decoded ones no decode either.
class ChunkHolder {
 public:
  virtual ~ChunkHolder() = default;
  virtual bool holds(size_t stored, uint32_t chunk) const = 0;
  virtual bool holds_decoded(size_t stored, uint32_t chunk) const = 0;
};

// With both sides of a step's vertex values loaded by range: which loop is
// outer (range_plan.h); tests force each.
enum class RangeLoop { kAuto, kPassesOuter, kGroupsOuter };

// The chunks of each interval of each stored space: an interval starts at
// the chunk whose first vertex is the interval start (chunks never span
// interval boundaries). [stored space][interval]
using IntervalChunks = std::vector<std::vector<ChunkSpan>>;
IntervalChunks interval_chunks(const Graph& graph);

struct PlanView {
  const Graph* graph = nullptr;
  const IntervalChunks* intervals = nullptr;
  const CostModel* cost_model = nullptr;
  const ChunkHolder* cache = nullptr;
  FrontierView frontier;
  // Degrees whole in memory, per kind slot (null: estimated from the chunk index).
  const uint32_t* degrees_by_slot[2] = {nullptr, nullptr};
  // The step's share of the budget.
  IoMode io_mode = IoMode::kAuto;
  bool cache_enabled = true;
  uint64_t cache_limit = 0;  // what the cache may hold
  uint64_t cache_room = 0;   // what it may still take (read-ahead fills it)
  // Vertex arrays loaded by range (core/vertex_residency.h): bytes a vertex
  // of the ranged arrays read at sources and at destinations, and the room
  // for loaded ranges.
  bool any_ranged = false;
  uint64_t ranged_source_bytes = 0, ranged_destination_bytes = 0;
  uint64_t range_room = 0;
  RangeLoop range_loop = RangeLoop::kAuto;

  const uint32_t* degrees(SpaceKind kind) const { return degrees_by_slot[graph->kind_slot(kind)]; }
  bool cached(size_t stored, uint32_t chunk) const { return cache != nullptr && cache->holds(stored, chunk); }
  bool decoded(size_t stored, uint32_t chunk) const { return cache != nullptr && cache->holds_decoded(stored, chunk); }
};

}  // namespace sg
