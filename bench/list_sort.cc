// Sorting adjacency lists alone (shards/ingest/list_sort.h), without the
// noise of a whole ingest: the out-lists of an R-MAT graph of 2^BITS
// vertices and 16 arcs a vertex, unordered as its first pass sorts them.
// A vertex's out-degree and each neighbour come from the R-MAT draw (each
// id bit is 1 with probability 1/4: a = 0.5625, b = c = 0.1875). Every list
// is sorted by sort_neighbour_list and checked; the figures are ns an id,
// over every list and over the lists longer than kRankSortMaxList (the
// radix sort's), the best of REPS. One JSON line on stdout.
//   list_sort [REPS] [BITS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "shards/ingest/list_sort.h"

namespace sg {
namespace {

struct Random {
  uint64_t state = 88172645463325252ull;
  uint64_t next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
  // An id below 2^bits whose bits are each 1 with probability 1/4.
  uint32_t rmat_id(uint32_t mask) { return static_cast<uint32_t>(next() & next()) & mask; }
};

std::vector<uint32_t> rmat_out_degrees(int bits, Random* random) {
  const uint32_t mask = (uint32_t{1} << bits) - 1;
  std::vector<uint32_t> degrees(size_t{1} << bits, 0);
  for (uint64_t arc = 0; arc < (uint64_t{16} << bits); ++arc) ++degrees[random->rmat_id(mask)];
  return degrees;
}

// Seconds to sort every list of `lists` (lengths in `degrees`), checked.
double sort_all(const std::vector<uint32_t>& degrees, bool long_only, std::vector<uint32_t>* lists) {
  std::vector<uint32_t> scratch(*std::max_element(degrees.begin(), degrees.end()));
  const auto start = std::chrono::steady_clock::now();
  uint64_t at = 0;
  for (uint32_t count : degrees) {
    if (!long_only || count > kRankSortMaxList) sort_neighbour_list(lists->data() + at, count, scratch.data());
    at += count;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  at = 0;
  for (uint32_t count : degrees) {
    const bool sorted = !long_only || count > kRankSortMaxList;
    if (sorted && !std::is_sorted(lists->data() + at, lists->data() + at + count)) {
      std::fprintf(stderr, "list_sort: a list of %u ids is out of order\n", count);
      std::exit(1);
    }
    at += count;
  }
  return seconds;
}

}  // namespace
}  // namespace sg

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 3;
  const int bits = argc > 2 ? std::atoi(argv[2]) : 22;
  if (reps < 1 || bits < 8 || bits > 26) {
    std::fprintf(stderr, "usage: list_sort [REPS >= 1] [BITS in 8..26]\n");
    return 2;
  }
  sg::Random random;
  const std::vector<uint32_t> degrees = sg::rmat_out_degrees(bits, &random);
  uint64_t ids = 0, long_ids = 0;
  for (uint32_t count : degrees) ids += count, long_ids += count > sg::kRankSortMaxList ? count : 0;
  const uint32_t mask = (uint32_t{1} << bits) - 1;
  std::vector<uint32_t> lists(ids);
  double best_all = 1e30, best_long = 1e30;
  for (int rep = 0; rep < reps; ++rep) {
    for (uint32_t& id : lists) id = random.rmat_id(mask);
    best_long = std::min(best_long, sg::sort_all(degrees, true, &lists));
    for (uint32_t& id : lists) id = random.rmat_id(mask);
    best_all = std::min(best_all, sg::sort_all(degrees, false, &lists));
  }
  std::printf(
      "{\"bench\":\"list_sort\",\"bits\":%d,\"ids\":%llu,\"long_ids\":%llu,\"ns_per_id\":%.3f,"
      "\"long_ns_per_id\":%.3f}\n",
      bits, static_cast<unsigned long long>(ids), static_cast<unsigned long long>(long_ids),
      best_all * 1e9 / static_cast<double>(ids), best_long * 1e9 / static_cast<double>(long_ids));
  return 0;
}
