// What an ordered ingest's out-only first pass may show its order while it
// sorts: every stored out-list goes through memory once there, so an order
// that would otherwise read the unordered graph for a step can take that
// step's arcs as the sort encodes them (apps/kernels/bfds_first_levels.h:
// the bfds order's second level, whose frontier is spread over nearly
// every chunk).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "base/status.h"

namespace sg {

class OutListObserver {
 public:
  // Reads one vertex's out-arcs from the routed arcs and passes each
  // target to `visit`, in any order (a hub's list may be longer than
  // memory: the visitor keeps what it needs).
  using ListReader = std::function<Status(uint32_t vertex, const std::function<void(uint32_t target)>& visit)>;

  virtual ~OutListObserver() = default;

  // Once every arc is routed, before the sort, with the graph's in-degrees
  // (exact: counted while routing, and already written to their file). The
  // observer may take the vector (its room becomes the observer's own).
  // Sets *held_bytes to what it holds through the sort (0: it does not
  // watch, and on_list is never called).
  virtual Status begin_sort(std::vector<uint32_t>* in_degrees, const ListReader& read_list, uint64_t* held_bytes) = 0;

  // Each stored out-list, or a piece of one (a list cut between two sort
  // batches), as the sort encodes it: `count` targets of `source`, the
  // i-th at ids[i * stride]. Called from several threads at once.
  virtual void on_list(uint32_t source, const uint32_t* ids, uint32_t count, size_t stride) = 0;
};

}  // namespace sg
