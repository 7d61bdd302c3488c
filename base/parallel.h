// The parallel loops shardgraph uses: TBB normally. Under ThreadSanitizer
// (SHARDGRAPH_TSAN) a plain std::thread fork-join is used instead, because
// Debian's TBB is not instrumented and TSan would report its internal
// hand-offs as races; with std::thread, TSan checks shardgraph's own code
// across real threads.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <thread>
#include <vector>

#ifndef SHARDGRAPH_TSAN
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#endif

namespace sg {

// Threads the loops below use.
inline size_t parallel_threads() {
#ifndef SHARDGRAPH_TSAN
  return tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism);
#else
  return 3;
#endif
}

// Calls body(begin, end) on disjoint sub-ranges covering [begin, end).
template <typename Index, typename Body>
void parallel_for(Index begin, Index end, Index grain, Body&& body) {
  if (begin >= end) return;
#ifndef SHARDGRAPH_TSAN
  tbb::parallel_for(tbb::blocked_range<Index>(begin, end, std::max<Index>(grain, 1)),
                    [&](const tbb::blocked_range<Index>& r) { body(r.begin(), r.end()); });
#else
  constexpr Index kParts = 3;
  const Index step = std::max<Index>((end - begin + kParts - 1) / kParts, std::max<Index>(grain, 1));
  std::vector<std::thread> threads;
  for (Index lo = begin + step; lo < end; lo += step) {
    const Index hi = static_cast<Index>(std::min<Index>(end, lo + step));
    threads.emplace_back([&body, lo, hi] { body(lo, hi); });
  }
  body(begin, std::min<Index>(end, begin + step));
  for (std::thread& t : threads) t.join();
#endif
}

// Sum of f(i) over [begin, end), in parallel; T needs += and a zero value
// T{}. Fixed blocks added in order: the result does not depend on how
// threads were scheduled.
template <typename T = double, typename Index, typename F>
T parallel_sum(Index begin, Index end, F&& f) {
  constexpr size_t kBlocks = 64;
  std::array<T, kBlocks> partial{};
  if (begin >= end) return T{};
  const Index step = static_cast<Index>((end - begin + kBlocks - 1) / kBlocks);
  parallel_for(size_t{0}, kBlocks, size_t{1}, [&](size_t blocks_begin, size_t blocks_end) {
    for (size_t b = blocks_begin; b < blocks_end; ++b) {
      const Index lo = static_cast<Index>(std::min<size_t>(end, size_t{begin} + b * step));
      const Index hi = static_cast<Index>(std::min<size_t>(end, size_t{lo} + step));
      T total{};
      for (Index i = lo; i < hi; ++i) total += f(i);
      partial[b] = total;
    }
  });
  T total{};
  for (const T& p : partial) total += p;
  return total;
}

template <typename Iterator, typename Less>
void parallel_sort(Iterator begin, Iterator end, Less less) {
#ifndef SHARDGRAPH_TSAN
  tbb::parallel_sort(begin, end, less);
#else
  std::sort(begin, end, less);
#endif
}

}  // namespace sg
