#include "core/chunk_cache.h"

#include <cstring>

namespace sg {

void ChunkCache::reset(const std::vector<size_t>& chunks_per_space, uint64_t stored_bytes) {
  stored_bytes_ = stored_bytes;
  chunks_.clear();
  last_used_.clear();
  for (size_t n : chunks_per_space) {
    chunks_.emplace_back(n);
    last_used_.emplace_back(n, 0);
  }
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

bool ChunkCache::may_admit_decoded(size_t space, const WindowGraph& window, uint64_t room) const {
  for (uint32_t c = window.first_chunk; c < window.end_chunk; ++c) {
    if (decoded_of_chunk_[space][c] != nullptr) return false;  // overlaps a kept window
    if (chunks_[space][c] == nullptr) return false;            // keeps the invariant evict() relies on
  }
  return decoded_fits(window.memory_bytes(), room);
}

void ChunkCache::place_decoded(size_t space, std::unique_ptr<WindowGraph> window) {
  const uint32_t first = window->first_chunk, end = window->end_chunk;
  for (uint32_t c = first; c < end; ++c) decoded_of_chunk_[space][c] = window.get();
  decoded_bytes_ += window->memory_bytes();
  decoded_[space][first] = std::move(window);
}

bool ChunkCache::admit_decoded(size_t space, const WindowGraph& window, uint64_t room) {
  if (!may_admit_decoded(space, window, room)) return false;
  place_decoded(space, std::make_unique<WindowGraph>(window));
  return true;
}

bool ChunkCache::admit_decoded(size_t space, WindowGraph&& window, uint64_t room) {
  if (!may_admit_decoded(space, window, room)) return false;
  place_decoded(space, std::make_unique<WindowGraph>(std::move(window)));
  return true;
}

bool ChunkCache::admit(size_t space, uint32_t chunk, const uint8_t* data, uint32_t bytes, uint64_t room,
                       double priority, uint64_t step) {
  if (chunks_[space][chunk] != nullptr) {
    touch(space, chunk, step);
    return true;
  }
  if (bytes > room) {
    // Victims, lowest priority first: stale chunks, then fresh ones of
    // strictly lower priority.
    auto stale = [&](const Cached& c) { return last_used_[c.space][c.chunk] + kStaleSteps < step; };
    std::vector<std::set<Cached>::iterator> victims;
    uint64_t freed = 0;
    for (auto it = by_priority_.begin(); it != by_priority_.end() && room + freed < bytes; ++it) {
      if (stale(*it)) {
        victims.push_back(it);
        freed += it->bytes;
      }
    }
    for (auto it = by_priority_.begin(); it != by_priority_.end() && it->priority < priority && room + freed < bytes;
         ++it) {
      if (!stale(*it)) {
        victims.push_back(it);
        freed += it->bytes;
      }
    }
    if (room + freed < bytes) return false;
    for (auto it : victims) evict(it);
  }
  auto copy = std::make_unique<uint8_t[]>(bytes);
  std::memcpy(copy.get(), data, bytes);
  chunks_[space][chunk] = std::move(copy);
  by_priority_.insert(Cached{priority, UINT64_MAX - admissions_++, space, chunk, bytes});
  touch(space, chunk, step);
  bytes_ += bytes;
  return true;
}

void ChunkCache::drop_decoded_window(size_t space, uint32_t chunk) {
  const WindowGraph* window = decoded_of_chunk_[space][chunk];
  if (window == nullptr) return;
  const uint32_t first = window->first_chunk;
  for (uint32_t c = first; c < window->end_chunk; ++c) decoded_of_chunk_[space][c] = nullptr;
  decoded_bytes_ -= window->memory_bytes();
  decoded_[space][first].reset();
  ++evictions_;
}

void ChunkCache::evict(std::set<Cached>::iterator it) {
  drop_decoded_window(it->space, it->chunk);
  chunks_[it->space][it->chunk].reset();
  bytes_ -= it->bytes;
  ++evictions_;
  by_priority_.erase(it);
}

void ChunkCache::shrink_to(uint64_t target) {
  for (size_t space = 0; space < decoded_.size() && bytes() > target; ++space) {
    for (uint32_t first = 0; first < decoded_[space].size() && bytes() > target; ++first) {
      if (decoded_[space][first] != nullptr) drop_decoded_window(space, first);
    }
  }
  while (bytes() > target && !by_priority_.empty()) evict(by_priority_.begin());
}

}  // namespace sg
