#include "apps/kernels/bfds_first_levels.h"

#include <algorithm>
#include <bit>

#include "base/huge_pages.h"
#include "core/atomics.h"

namespace sg {

Status BfdsFirstLevels::begin_sort(std::vector<uint32_t>* in_degrees, const ListReader& read_list,
                                   uint64_t* held_bytes) {
  *held_bytes = 0;
  const std::vector<uint32_t>& degree = *in_degrees;
  const uint64_t n = degree.size();
  if (n == 0 || n >= kFound) return Status::OK();  // the traversal refuses 2^31 vertices itself
  // max_element gives the first of the largest: ties go to the smallest id.
  const uint32_t root = static_cast<uint32_t>(std::max_element(degree.begin(), degree.end()) - degree.begin());
  if (degree[root] == 0) return Status::OK();
  // The root's distinct targets, in a bitmap: its list may repeat targets
  // beyond the room of n ids (level 1 holds at most n, as the in-degrees'
  // room, which the route's buffers have left, allows).
  std::vector<uint64_t> targets((n + 63) / 64, 0);
  bool past_end = false;
  SG_RETURN_IF_ERROR(read_list(root, [&](uint32_t v) {
    if (v >= n) {
      past_end = true;
      return;
    }
    targets[v / 64] |= uint64_t{1} << (v % 64);
  }));
  if (past_end) return Status::Corruption("bfds first levels: a routed arc's target is past the vertex count");
  targets[root / 64] &= ~(uint64_t{1} << (root % 64));  // a loop finds nothing
  std::vector<uint32_t> level1;
  for (size_t w = 0; w < targets.size(); ++w) {
    for (uint64_t word = targets[w]; word != 0; word &= word - 1)
      level1.push_back(static_cast<uint32_t>(w * 64 + static_cast<unsigned>(std::countr_zero(word))));
  }
  std::vector<uint64_t>().swap(targets);
  if (level1.empty()) return Status::OK();  // a root without out-arcs leads nowhere: the traversal takes it
  std::sort(level1.begin(), level1.end(),
            [&](uint32_t a, uint32_t b) { return degree[a] != degree[b] ? degree[a] > degree[b] : a < b; });
  // Freed, then allocated again at exactly n: the count's vector has room
  // to spare, which the ranks, once the permutation, would be counted by
  // (Permutation::held_bytes: R-MAT 24's relabelling sort took 1.3 s more).
  std::vector<uint32_t>().swap(*in_degrees);
  assign_touched(&ranks_, n, kUnranked);  // in huge pages: looked up at random
  ranks_[root] = 0;
  for (size_t i = 0; i < level1.size(); ++i) ranks_[level1[i]] = static_cast<uint32_t>(i + 1);
  level1_vertices_ = static_cast<uint32_t>(level1.size());
  *held_bytes = n * sizeof(uint32_t);
  return Status::OK();
}

// Discover's step (traversal_order.cc) from a level-1 source: each target
// not yet numbered keeps the smallest kFound | rank offered. Slots are read
// and written atomically: parts of a batch are encoded on several threads.
void BfdsFirstLevels::on_list(uint32_t source, const uint32_t* ids, uint32_t count, size_t stride) {
  const uint32_t rank = load_relaxed(&ranks_[source]);
  if (rank - 1 >= level1_vertices_) return;  // not level 1 (the root's 0 wraps)
  const uint32_t found = kFound | rank;
  constexpr uint32_t kAhead = 16;  // the targets' slots are scattered
  for (uint32_t i = 0; i < count; ++i) {
    if (i + kAhead < count) __builtin_prefetch(ranks_.data() + ids[(i + kAhead) * stride]);
    write_min(&ranks_[ids[i * stride]], found);
  }
}

BfdsStart BfdsFirstLevels::take_start() {
  BfdsStart start{std::move(ranks_), level1_vertices_};
  ranks_ = {};
  level1_vertices_ = 0;
  return start;
}

}  // namespace sg
