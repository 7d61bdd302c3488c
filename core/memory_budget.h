// A run's memory budget (--memory) and every share of it, by name. The
// engine holds its metadata, I/O buffers and decode room here, and apps
// hold what they gather; vertex arrays held whole are counted by the
// residency (vertex_residency.h); what is left holds loaded vertex ranges
// and cached chunks. Apps and the CLI ask for their shares here: nothing
// else divides --memory.
#pragma once

#include <cstdint>

#include "core/vertex_residency.h"

namespace sg {

// Fixed shares, as fractions of the total unless said otherwise.
enum class MemoryShare : uint8_t {
  kIoBuffers,        // read windows in flight: 1/16 (at least 1 MiB), which streams an HDD or SSD at full speed
  kArrayIoBuffers,   // the most read windows of a striped graph may take to span two stripes each: 1/8
  kWholeDegrees,     // degrees read whole at open for the planner when they fit 1/16
  kReverseEngine,    // a rank's second engine, over its reverse part: 1/4
  kComponentCounts,  // WCC's largest-component count after the run: at least 1/4
  kCommunityCount,   // CDLP counts distinct labels in memory when they fit 1/2
  kNeighbourBlock,   // a block of gathered neighbourhoods (CDLP, LCC): 1/2 of what is unheld
  kResultPages,      // pages of results and the id map mapped while results are written: 1/16
};

// What the engine holds besides vertex arrays.
enum class MemoryHolder : uint8_t {
  kMetadata,    // chunk indexes, frontiers, degrees and id maps the graph holds
  kIoBuffers,   // read windows
  kDecodeRoom,  // the largest window decoded
  kApp,         // what an app holds (hold_app_memory)
  kCount,
};

class MemoryBudget {
 public:
  explicit MemoryBudget(uint64_t total_bytes = uint64_t{1} << 30) : total_(total_bytes) {}
  uint64_t total() const { return total_; }
  uint64_t share(MemoryShare share) const;
  // When vertex arrays do not all fit whole, the room kept for loading
  // ranges of the rest out of `room`: a sixteenth (at least 8 MiB, at most
  // a quarter). Range loads cost the same bytes whatever their size, so
  // whole arrays are worth more.
  static uint64_t range_reserve(uint64_t room);

  // Vertex arrays held whole count from `residency` on.
  void count_arrays(const VertexResidency* residency) { residency_ = residency; }
  void hold(MemoryHolder holder, uint64_t bytes);
  void release(MemoryHolder holder, uint64_t bytes);
  uint64_t held(MemoryHolder holder) const { return held_[static_cast<size_t>(holder)]; }

  // Held bytes and arrays held whole.
  uint64_t used() const;
  // Budget bytes nothing holds yet (loaded ranges and the cache may use them).
  uint64_t unheld() const { return used() < total_ ? total_ - used() : 0; }
  bool fits(uint64_t bytes) const { return used() + bytes <= total_; }
  // Memory for loaded vertex ranges (0 when no array is ranged): what is
  // unheld, but at least a slab of every ranged array.
  uint64_t range_room() const;
  // What the chunk cache may hold: what neither holders nor ranges take.
  uint64_t cache_limit() const;

  // The most used() plus `extra` was (arrays an app freed no longer count).
  void note_peak(uint64_t extra = 0);
  uint64_t peak() const;

 private:
  uint64_t total_;
  uint64_t held_[static_cast<size_t>(MemoryHolder::kCount)] = {};
  const VertexResidency* residency_ = nullptr;
  uint64_t peak_ = 0;
};

}  // namespace sg
