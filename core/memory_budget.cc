#include "core/memory_budget.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace sg {

uint64_t MemoryBudget::share(const MemoryShare& share) const {
  assert(share.parts > 0 && share.name != nullptr);
  const uint64_t bytes = std::max((share.of_unheld ? unheld() : total_) / share.parts, share.least_bytes);
  size_t at = 0;
  while (at < given_count_ && std::strcmp(given_[at].first, share.name) != 0) ++at;
  if (at < kMostShares) {
    given_[at] = {share.name, bytes};
    given_count_ = std::max(given_count_, at + 1);
  }
  return bytes;
}

std::vector<std::pair<std::string, uint64_t>> MemoryBudget::shares_given() const {
  return {given_.begin(), given_.begin() + static_cast<std::ptrdiff_t>(given_count_)};
}

uint64_t MemoryBudget::range_reserve(uint64_t room) {
  return std::min(room / 4, std::max<uint64_t>(room / 16, uint64_t{8} << 20));
}

void MemoryBudget::hold(MemoryHolder holder, uint64_t bytes) {
  held_[static_cast<size_t>(holder)] += bytes;
  note_peak();
}

void MemoryBudget::release(MemoryHolder holder, uint64_t bytes) {
  uint64_t& held = held_[static_cast<size_t>(holder)];
  held -= std::min(held, bytes);
}

uint64_t MemoryBudget::used() const {
  uint64_t bytes = residency_ != nullptr ? residency_->resident_bytes() : 0;
  for (uint64_t held : held_) bytes += held;
  return bytes;
}

uint64_t MemoryBudget::range_room() const {
  if (ranges_in_ != nullptr) return ranges_in_->range_room();
  if (residency_ == nullptr || !residency_->any_ranged()) return 0;
  const uint64_t least = residency_->ranged_bytes_per_vertex(VertexUse::kAny) * RawVertexArray::kSlabValues;
  return std::max(least, unheld());
}

uint64_t MemoryBudget::cache_limit() const {
  const uint64_t used_bytes = used() + (ranges_in_ != nullptr ? 0 : range_room());
  return used_bytes < total_ ? total_ - used_bytes : 0;
}

void MemoryBudget::note_peak(uint64_t extra) { peak_ = std::max(peak_, used() + extra); }

uint64_t MemoryBudget::peak() const { return std::max(peak_, used()); }

}  // namespace sg
