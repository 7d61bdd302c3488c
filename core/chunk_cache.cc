#include "core/chunk_cache.h"

#include <cstring>

namespace sg {

void ChunkCache::reset(const std::vector<size_t>& chunks_per_space, uint64_t stored_bytes) {
  stored_bytes_ = stored_bytes;
  chunks_.clear();
  for (size_t n : chunks_per_space) chunks_.emplace_back(n);
  by_priority_.clear();
  bytes_ = 0;
  evictions_ = 0;
  decoded_.clear();
  decoded_of_chunk_.clear();
  for (size_t n : chunks_per_space) {
    decoded_.emplace_back(n);
    decoded_of_chunk_.emplace_back(n, nullptr);
  }
  decoded_bytes_ = 0;
}

bool ChunkCache::decoded_fits(uint64_t bytes, uint64_t room) const {
  const uint64_t uncached = stored_bytes_ > bytes_ ? stored_bytes_ - bytes_ : 0;
  return bytes + uncached <= room;
}

bool ChunkCache::admit_decoded(size_t space, const WindowGraph& window, uint64_t room) {
  std::unique_ptr<WindowGraph>& slot = decoded_[space][window.first_chunk];
  for (uint32_t c = window.first_chunk; c < window.end_chunk; ++c) {
    if (decoded_of_chunk_[space][c] != nullptr) return false;  // overlaps a kept window
  }
  if (!decoded_fits(window.memory_bytes(), room)) return false;
  slot = std::make_unique<WindowGraph>(window);
  for (uint32_t c = window.first_chunk; c < window.end_chunk; ++c) decoded_of_chunk_[space][c] = slot.get();
  decoded_bytes_ += window.memory_bytes();
  return true;
}

bool ChunkCache::admit(size_t space, uint32_t chunk, const uint8_t* data, uint32_t bytes, uint64_t room,
                       double priority) {
  if (chunks_[space][chunk] != nullptr) return true;
  if (bytes > room) {
    // Evict from the lowest priority up, only if that frees enough.
    uint64_t freed = 0;
    auto end = by_priority_.begin();
    while (room + freed < bytes && end != by_priority_.end() && end->priority < priority) freed += (end++)->bytes;
    if (room + freed < bytes) return false;
    for (auto it = by_priority_.begin(); it != end; ++it) {
      chunks_[it->space][it->chunk].reset();
      bytes_ -= it->bytes;
      ++evictions_;
    }
    by_priority_.erase(by_priority_.begin(), end);
  }
  auto copy = std::make_unique<uint8_t[]>(bytes);
  std::memcpy(copy.get(), data, bytes);
  chunks_[space][chunk] = std::move(copy);
  by_priority_.insert(Cached{priority, space, chunk, bytes});
  bytes_ += bytes;
  return true;
}

}  // namespace sg
