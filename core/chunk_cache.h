// Memory the budget leaves after vertex arrays and I/O buffers holds chunks,
// compressed as read and pinned for the run (DESIGN §7). Chunks are admitted
// as they are first read while room lasts, so a graph that fits is read from
// disk once; the planner treats cached chunks as free I/O.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace sg {

class ChunkCache {
 public:
  void reset(const std::vector<size_t>& chunks_per_space);
  const uint8_t* find(size_t space, uint32_t chunk) const { return table_[space][chunk]; }
  // Copies the chunk in if `room` bytes allow; true if it is cached now.
  bool admit(size_t space, uint32_t chunk, const uint8_t* data, uint32_t bytes, uint64_t room);
  uint64_t bytes() const { return bytes_; }
  uint64_t chunks() const { return chunks_; }

 private:
  std::vector<std::vector<const uint8_t*>> table_;
  std::vector<std::unique_ptr<uint8_t[]>> storage_;
  uint64_t bytes_ = 0;
  uint64_t chunks_ = 0;
};

}  // namespace sg
