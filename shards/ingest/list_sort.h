// Sorting one adjacency list of neighbour ids during ingest. Lists arrive
// in input order; std::sort took a quarter of a page-cache ingest of R-MAT
// 22. Long lists are LSD radix sorted over the bits their id range needs,
// in passes of up to 11 bits (2048 counters stay in L1), through a scratch
// list of the same length. Short ones (8 to kRankSortMaxList ids) are placed
// by rank where the CPU has AVX2 (sort_short_list: each id's rank is the
// count of smaller ids, and of equal ones before it, eight compares at a
// time, with no branch to mispredict: 3.6-6.2 ns an id where insertion
// sort took 6.7-16.9 and the radix sort 9-15 below 64 ids), else sorted by
// std::sort.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <utility>

namespace sg {

// Lists shorter than this are not worth a counting pass.
inline constexpr uint32_t kRadixSortMinList = 32;
// Lists up to this long are sorted by rank (sort_short_list).
inline constexpr uint32_t kRankSortMaxList = 64;

// Sorts list[0, count) ascending, count <= kRankSortMaxList: by rank with
// AVX2 from 8 ids, else std::sort (list_sort.cc).
void sort_short_list(uint32_t* list, uint32_t count);

// Sorts list[0, count) ascending; `scratch` holds count ids (its contents
// are overwritten).
inline void sort_neighbour_list(uint32_t* list, uint32_t count, uint32_t* scratch) {
  if (count <= kRankSortMaxList) {
    sort_short_list(list, count);
    return;
  }
  const auto [low, high] = std::minmax_element(list, list + count);
  const uint32_t base = *low;
  const int bits = std::bit_width(*high - base);
  if (bits == 0) return;  // every id equal
  constexpr int kMaxDigitBits = 11;
  const int max_digit_bits = std::clamp(static_cast<int>(std::bit_width(count)), 6, kMaxDigitBits);
  const int passes = (bits + max_digit_bits - 1) / max_digit_bits;
  const int digit_bits = (bits + passes - 1) / passes;
  const uint32_t mask = (uint32_t{1} << digit_bits) - 1;
  std::array<uint32_t, size_t{1} << kMaxDigitBits> counts;
  uint32_t* from = list;
  uint32_t* to = scratch;
  for (int shift = 0; shift < bits; shift += digit_bits) {
    std::fill(counts.begin(), counts.begin() + mask + 1, 0);
    for (uint32_t i = 0; i < count; ++i) ++counts[((from[i] - base) >> shift) & mask];
    uint32_t at = 0;
    for (uint32_t d = 0; d <= mask; ++d) at += std::exchange(counts[d], at);
    for (uint32_t i = 0; i < count; ++i) to[counts[((from[i] - base) >> shift) & mask]++] = from[i];
    std::swap(from, to);
  }
  if (from != list) std::memcpy(list, from, size_t{count} * sizeof(uint32_t));
}

}  // namespace sg
