// Arc counts per block of consecutive vertex ids: what ingest needs to choose
// intervals that balance edges, without a per-vertex array. 2^12 blocks whose
// width doubles (pairs merge) as larger ids arrive.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "shards/ingest/arc_record.h"

namespace sg {

class VertexHistogram {
 public:
  static constexpr uint32_t kBlocks = 1 << 12;  // 32 KiB: stays in L1 while routing

  // Counts every record's key, the histogram's fields in registers (each
  // count's store could otherwise alias them): widened for the largest key
  // first.
  template <typename Record>
  void add_keys(const Record* records, size_t count) {
    if (count == 0) return;
    uint32_t largest = 0;
    for (size_t i = 0; i < count; ++i) largest = std::max(largest, arc_key(records[i].arc));
    cover(largest);
    uint64_t* counts = counts_.data();
    const int shift = shift_;
    for (size_t i = 0; i < count; ++i) ++counts[arc_key(records[i].arc) >> shift];
  }
  // Widens the blocks until `vertex` has one (vertices declared beyond the
  // largest id seen, e.g. by a "# Nodes:" header).
  void cover(uint32_t vertex) {
    if ((vertex >> shift_) >= kBlocks) grow_to(vertex);
  }
  // Adds `other`'s counts (both end at the wider block width).
  void merge(VertexHistogram other) {
    widen(std::max(shift_, other.shift_));
    other.widen(shift_);
    for (uint32_t b = 0; b < kBlocks; ++b) counts_[b] += other.counts_[b];
  }
  int shift() const { return shift_; }
  uint64_t count(uint32_t block) const { return counts_[block]; }

 private:
  void grow_to(uint32_t vertex) {
    int shift = shift_;
    while ((vertex >> shift) >= kBlocks) ++shift;
    widen(shift);
  }
  void widen(int shift) {
    for (; shift_ < shift; ++shift_) {
      for (uint32_t b = 0; b < kBlocks / 2; ++b) counts_[b] = counts_[2 * b] + counts_[2 * b + 1];
      std::fill(counts_.begin() + kBlocks / 2, counts_.end(), 0);
    }
  }

  int shift_ = 0;
  std::vector<uint64_t> counts_ = std::vector<uint64_t>(kBlocks, 0);
};

}  // namespace sg
