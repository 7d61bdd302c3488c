// Sorting one adjacency list of neighbour ids during ingest. Lists arrive
// in input order; std::sort took a quarter of a page-cache ingest of R-MAT
// 22. Long lists are LSD radix sorted over the bits their id range needs,
// in passes of up to 11 bits (2048 counters stay in L1), through a scratch
// list of the same length. One read of the list counts every pass's
// digits: a count of its own each pass waited on its counters' store-to-
// load chains. Short ones (8 to kRankSortMaxList ids) are placed by rank
// where the CPU has AVX2 (sort_short_list: each id's rank is the
// count of smaller ids, and of equal ones before it, eight compares at a
// time, with no branch to mispredict: 3.6-6.2 ns an id where insertion
// sort took 6.7-16.9 and the radix sort 9-15 below 64 ids), else sorted by
// std::sort.
#pragma once

#include <cstdint>

namespace sg {

// Lists up to this long are sorted by rank (sort_short_list).
inline constexpr uint32_t kRankSortMaxList = 64;

// Sorts list[0, count) ascending, count <= kRankSortMaxList: by rank with
// AVX2 from 8 ids, else std::sort (list_sort.cc).
void sort_short_list(uint32_t* list, uint32_t count);

// Sorts list[0, count) ascending by LSD radix, count > kRankSortMaxList
// (list_sort.cc); `scratch` holds count ids (its contents are overwritten).
void radix_sort_list(uint32_t* list, uint32_t count, uint32_t* scratch);

// Sorts list[0, count) ascending; `scratch` holds count ids (its contents
// are overwritten).
inline void sort_neighbour_list(uint32_t* list, uint32_t count, uint32_t* scratch) {
  if (count <= kRankSortMaxList) {
    sort_short_list(list, count);
    return;
  }
  radix_sort_list(list, count, scratch);
}

}  // namespace sg
