#include "core/vertex_subset.h"

#include <algorithm>
#include <atomic>
#include <cassert>

#include <tbb/task_arena.h>

#include "base/parallel.h"
#include "compression/bits.h"

namespace sg {

VertexSubset VertexSubset::dense_builder(uint32_t n) {
  VertexSubset s;
  s.n_ = n;
  s.dense_ = true;
  s.bits_.assign((size_t{n} + 63) / 64, 0);
  return s;
}

VertexSubset VertexSubset::empty(uint32_t n) {
  VertexSubset s;
  s.n_ = n;
  s.dense_ = false;
  return s;
}

VertexSubset VertexSubset::all(uint32_t n) {
  VertexSubset s = dense_builder(n);
  std::fill(s.bits_.begin(), s.bits_.end(), ~uint64_t{0});
  if (n % 64 != 0) s.bits_.back() = (uint64_t{1} << (n % 64)) - 1;
  s.count_ = n;
  return s;
}

VertexSubset VertexSubset::single(uint32_t n, uint32_t v) { return from_list(n, {v}); }

VertexSubset VertexSubset::from_list(uint32_t n, std::vector<uint32_t> ids) {
  VertexSubset s;
  s.n_ = n;
  s.dense_ = false;
  s.count_ = ids.size();
  s.ids_ = std::move(ids);
  return s;
}

void VertexSubset::to_dense() {
  if (dense_) return;
  bits_.assign((size_t{n_} + 63) / 64, 0);
  for (uint32_t v : ids_) set(v);
  ids_.clear();
  ids_.shrink_to_fit();
  dense_ = true;
}

void VertexSubset::to_sparse() {
  if (!dense_) return;
  ids_.clear();
  ids_.reserve(count_);
  for_each([&](uint32_t v) { ids_.push_back(v); });
  bits_.clear();
  bits_.shrink_to_fit();
  dense_ = false;
}

void VertexSubset::recount() {
  std::atomic<uint64_t> total{0};
  parallel_for(size_t{0}, bits_.size(), size_t{4096}, [&](size_t begin, size_t end) {
    uint64_t sum = 0;
    for (size_t w = begin; w < end; ++w) sum += count_bits(bits_[w]);
    total.fetch_add(sum, std::memory_order_relaxed);
  });
  count_ = total.load();
}

void VertexSubset::set_members(std::vector<uint32_t> ids, uint64_t sparse_below) {
  assert(dense_);
  count_ = ids.size();
  if (count_ >= sparse_below) return;
  ids_ = std::move(ids);
  bits_.clear();
  bits_.shrink_to_fit();
  dense_ = false;
}

MemberCollector::MemberCollector(bool enabled, uint64_t limit)
    : enabled_(enabled),
      limit_per_thread_(std::max<uint64_t>(1024, limit / std::max(1, tbb::this_task_arena::max_concurrency()))) {}

std::vector<uint32_t> MemberCollector::take_sorted() {
  std::vector<uint32_t> all;
  for (std::vector<uint32_t>& list : lists_) {
    all.insert(all.end(), list.begin(), list.end());
    std::vector<uint32_t>().swap(list);
  }
  std::sort(all.begin(), all.end());
  return all;
}

void VertexSubset::add_all(const VertexSubset& other) {
  to_dense();
  if (other.dense_) {
    for (size_t w = 0; w < bits_.size(); ++w) bits_[w] |= other.bits_[w];
  } else {
    for (uint32_t v : other.ids_) set(v);
  }
  recount();
}

}  // namespace sg
