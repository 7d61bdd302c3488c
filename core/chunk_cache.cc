#include "core/chunk_cache.h"

#include <cstring>

namespace sg {

void ChunkCache::reset(const std::vector<size_t>& chunks_per_space) {
  table_.clear();
  for (size_t n : chunks_per_space) table_.emplace_back(n, nullptr);
  storage_.clear();
  bytes_ = 0;
  chunks_ = 0;
}

bool ChunkCache::admit(size_t space, uint32_t chunk, const uint8_t* data, uint32_t bytes, uint64_t room) {
  if (table_[space][chunk] != nullptr) return true;
  if (bytes > room) return false;
  auto copy = std::make_unique<uint8_t[]>(bytes);
  std::memcpy(copy.get(), data, bytes);
  table_[space][chunk] = copy.get();
  storage_.push_back(std::move(copy));
  bytes_ += bytes;
  ++chunks_;
  return true;
}

}  // namespace sg
