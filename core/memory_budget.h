// A run's memory budget (--memory) and every share of it, by name. The
// engine holds its metadata, I/O buffers and decode room here, and apps
// hold what they gather; vertex arrays held whole are counted by the
// residency (vertex_residency.h); what is left holds loaded vertex ranges
// and cached chunks. Whatever takes a share of --memory asks for it here,
// by a named MemoryShare of its own.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/vertex_residency.h"

namespace sg {

// A named share of the budget, asked for by what holds it: the engine
// names its own below, each app names its own in its kernel file. The
// share is 1/parts of the total (or of what is unheld), at least
// least_bytes.
struct MemoryShare {
  const char* name;
  uint32_t parts;
  bool of_unheld = false;
  uint64_t least_bytes = 0;
};

// The engine's shares.
// Read windows in flight: streams an HDD or SSD at full speed.
inline constexpr MemoryShare kIoBufferShare{"io_buffers", 16, false, uint64_t{1} << 20};
// The most read windows of a striped graph may take to span two stripes each.
inline constexpr MemoryShare kArrayIoBufferShare{"array_io_buffers", 8};
// Degrees read whole at open for the planner, when they fit.
inline constexpr MemoryShare kWholeDegreeShare{"whole_degrees", 16};

// What the engine holds besides vertex arrays.
enum class MemoryHolder : uint8_t {
  kMetadata,    // chunk indexes, frontiers, degrees and id maps the graph holds
  kIoBuffers,   // read windows
  kDecodeRoom,  // the largest window decoded
  kApp,         // what an app holds (hold_app_memory)
  kRuntime,     // a rank's MPI runtime (Engine::hold_runtime_memory)
  kCount,
};

class MemoryBudget {
 public:
  explicit MemoryBudget(uint64_t total_bytes = uint64_t{1} << 30) : total_(total_bytes) {}
  uint64_t total() const { return total_; }
  // The bytes of `share` now; the last figure of each name is kept for
  // --stats (shares are asked for by the run's own thread).
  uint64_t share(const MemoryShare& share) const;
  // Each share asked for, by name, with its last figure.
  std::vector<std::pair<std::string, uint64_t>> shares_given() const;
  // When vertex arrays do not all fit whole, the room kept for loading
  // ranges of the rest out of `room`: a sixteenth (at least 8 MiB, at most
  // a quarter). Range loads cost the same bytes whatever their size, so
  // whole arrays are worth more.
  static uint64_t range_reserve(uint64_t room);

  // Vertex arrays held whole count from `residency` on.
  void count_arrays(const VertexResidency* residency) { residency_ = residency; }
  // The ranges this budget's steps load are of another budget's arrays,
  // in its room (a rank's reverse engine, over its forward engine's arrays).
  void load_ranges_in(const MemoryBudget* other) { ranges_in_ = other; }
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
  const MemoryBudget* ranges_in_ = nullptr;
  uint64_t peak_ = 0;
  static constexpr size_t kMostShares = 32;
  mutable std::array<std::pair<const char*, uint64_t>, kMostShares> given_ = {};
  mutable size_t given_count_ = 0;
};

}  // namespace sg
