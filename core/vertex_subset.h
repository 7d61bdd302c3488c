// VertexSubset: the frontier (Ligra). Sparse (a list of ids) or dense (a
// bitmap), converted on demand; the engine writes next frontiers as dense
// bitmaps with atomic bit sets and turns small ones into lists.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include <tbb/enumerable_thread_specific.h>

#include "base/bitmap.h"

namespace sg {

class VertexSubset {
 public:
  VertexSubset() = default;
  static VertexSubset empty(uint32_t n);
  static VertexSubset all(uint32_t n);
  static VertexSubset single(uint32_t n, uint32_t v);
  static VertexSubset from_list(uint32_t n, std::vector<uint32_t> ids);  // ids distinct

  uint32_t universe() const { return n_; }
  uint64_t size() const { return count_; }
  bool is_empty() const { return count_ == 0; }
  bool is_all() const { return count_ == n_; }
  bool is_dense() const { return dense_; }

  // Requires a dense subset.
  bool contains(uint32_t v) const { return bitmap_contains(bits_.data(), v); }
  void to_dense();
  void to_sparse();
  const std::vector<uint32_t>& list() const { return ids_; }  // requires sparse
  const std::vector<uint64_t>& bits() const { return bits_; }

  // Building a dense subset in parallel.
  static VertexSubset dense_builder(uint32_t n);
  bool set_atomic(uint32_t v) {  // true if the bit was clear
    std::atomic_ref<uint64_t> word(bits_[v >> 6]);
    const uint64_t mask = uint64_t{1} << (v & 63);
    return (word.fetch_or(mask, std::memory_order_relaxed) & mask) == 0;
  }
  void set(uint32_t v) { bits_[v >> 6] |= uint64_t{1} << (v & 63); }
  void recount();  // after set/set_atomic
  // After set/set_atomic, when the members set are known (sorted, each
  // once): no scan of the bitmap; fewer than `sparse_below` become a list.
  void set_members(std::vector<uint32_t> ids, uint64_t sparse_below);

  // Adds every vertex of `other`; the result is dense.
  void add_all(const VertexSubset& other);
  // ORs `words` into the bitmap from word `first` (dense; recount() after).
  void or_words(size_t first, const std::vector<uint64_t>& words) {
    for (size_t i = 0; i < words.size(); ++i) bits_[first + i] |= words[i];
  }

  // Whether any vertex in [begin, end) is in the subset (dense).
  bool any_in(uint32_t begin, uint32_t end) const { return bitmap_any_in(bits_.data(), begin, end); }
  // Calls f(v) for each member v in [begin, end), a word at a time (dense).
  template <typename F>
  void for_each_in(uint32_t begin, uint32_t end, F&& f) const {
    bitmap_for_each_in(bits_.data(), begin, end, f);
  }

  template <typename F>
  void for_each(F&& f) const {
    if (!dense_) {
      for (uint32_t v : ids_) f(v);
      return;
    }
    for (size_t w = 0; w < bits_.size(); ++w) {
      uint64_t word = bits_[w];
      while (word != 0) {
        f(static_cast<uint32_t>(w * 64 + static_cast<unsigned>(__builtin_ctzll(word))));
        word &= word - 1;
      }
    }
  }

 private:
  uint32_t n_ = 0;
  uint64_t count_ = 0;
  bool dense_ = true;
  std::vector<uint64_t> bits_;
  std::vector<uint32_t> ids_;
};

// The members a step adds to a dense builder, listed per thread while they
// are few: a small next frontier then costs O(members), not two scans of a
// bitmap of |V| bits (a BFS along a path takes |V| steps of one vertex).
class MemberCollector {
 public:
  // At most about `limit` members are listed; past it, overflowed().
  MemberCollector(bool enabled, uint64_t limit);
  void add(uint32_t v) {
    if (!enabled_ || overflowed_.load(std::memory_order_relaxed)) return;
    std::vector<uint32_t>& list = lists_.local();
    if (list.size() >= limit_per_thread_) {
      overflowed_.store(true, std::memory_order_relaxed);
      return;
    }
    list.push_back(v);
  }
  bool complete() const { return enabled_ && !overflowed_.load(); }
  std::vector<uint32_t> take_sorted();

 private:
  bool enabled_;
  uint64_t limit_per_thread_;
  std::atomic<bool> overflowed_{false};
  tbb::enumerable_thread_specific<std::vector<uint32_t>> lists_;
};

}  // namespace sg
