// A run's vertex degrees: engine arrays over the graph's degree files, held
// whole when the budget allows (the planner then prices push steps with
// exact degrees), else loaded by range like any vertex array, or read from
// the file a range at a time without holding them.
#pragma once

#include <cstdint>
#include <vector>

#include "base/file_util.h"
#include "core/memory_budget.h"
#include "core/vertex_array.h"
#include "core/vertex_residency.h"
#include "shards/format/graph.h"

namespace sg {

class VertexDegrees {
 public:
  void open(const Graph* graph, VertexResidency* residency, MemoryBudget* budget);
  // Sets up the degrees the graph holds, and out-degrees cheap to read
  // whole (a small share of the budget: the planner prices push steps
  // with them); the rest when an app asks (setup).
  Status setup_at_open();
  Status setup(SpaceKind kind);
  bool ready(SpaceKind kind) const { return ready_[slot(kind)]; }
  // Requires setup(kind).
  const VertexArray<uint32_t>& of(SpaceKind kind) const { return degrees_[slot(kind)]; }
  // Whether degrees take a small enough share of the budget to be held whole.
  bool cheap() const;
  // Degrees of vertices [begin, end) of `kind` into `out`: copied when the
  // degree array is whole, else read from the degree file (its checksum
  // checked at the first read), without holding the degrees.
  Status read(SpaceKind kind, uint32_t begin, uint32_t end, uint32_t* out);
  // The degrees of `kind` when whole in memory (for planning), else null.
  const uint32_t* whole(SpaceKind kind) const;
  // The vertex with the most out-edges (the smallest such id), streamed
  // from the degree file unless the degrees are whole: asking must not
  // place them (they would take the app's room).
  Status max_out_degree_vertex(uint32_t* vertex) const;
  // The run is over: the degrees go.
  void release();

 private:
  size_t slot(SpaceKind kind) const { return graph_->kind_slot(kind); }
  const Graph* graph_ = nullptr;
  VertexResidency* residency_ = nullptr;
  MemoryBudget* budget_ = nullptr;
  VertexArray<uint32_t> degrees_[2];    // per kind slot
  std::vector<uint32_t> corrected_[2];  // per kind slot: degrees after updates, held whole
  uint64_t corrected_held_bytes_ = 0;   // of them, held in the budget
  bool ready_[2] = {false, false};
  File files_[2];  // per kind slot, opened by read()
};

// The vertex with the most out-edges among `count` degrees from `first`
// (the smallest id on ties), folded into *best / *most.
void fold_max_degree(uint32_t first, const uint32_t* degrees, size_t count, uint32_t* best, uint32_t* most);

}  // namespace sg
