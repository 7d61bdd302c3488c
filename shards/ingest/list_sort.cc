#include "shards/ingest/list_sort.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstring>
#include <utility>

#include "compression/simd_x86.h"

namespace sg {
namespace {

#if defined(__x86_64__)
// Each id's rank: the ids below it, and the equal ones before it, counted
// eight at a time against the whole list held in registers (padded with
// UINT32_MAX, which no id is: ids are below 2^32 - 1). Unsigned order by
// signed compares of the ids with their top bit flipped.
__attribute__((target("avx2"))) void rank_sort_avx2(uint32_t* list, uint32_t count) {
  constexpr uint32_t kBlocks = (kRankSortMaxList + 7) / 8;
  alignas(32) uint32_t padded[kBlocks * 8];
  const uint32_t blocks = (count + 7) / 8;
  for (uint32_t i = 0; i < blocks * 8; ++i) padded[i] = (i < count ? list[i] : UINT32_MAX) ^ 0x80000000u;
  __m256i values[kBlocks];
  for (uint32_t b = 0; b < blocks; ++b) values[b] = _mm256_load_si256(reinterpret_cast<const __m256i*>(padded + 8 * b));
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  uint32_t sorted[kBlocks * 8];
  for (uint32_t i = 0; i < count; ++i) {
    const __m256i id = _mm256_set1_epi32(static_cast<int>(padded[i]));
    __m256i below = _mm256_setzero_si256();  // per lane: -(ids below, or equal and before i)
    for (uint32_t b = 0; b < blocks; ++b) {
      below = _mm256_add_epi32(below, _mm256_cmpgt_epi32(id, values[b]));
      // Equal ids in lanes before i: whole blocks before i's, and i's own below its lane.
      const __m256i before =
          _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(i) - static_cast<int>(8 * b)), lanes);
      below = _mm256_add_epi32(below, _mm256_and_si256(before, _mm256_cmpeq_epi32(id, values[b])));
    }
    const __m128i half = _mm_add_epi32(_mm256_castsi256_si128(below), _mm256_extracti128_si256(below, 1));
    const __m128i pairs = _mm_add_epi32(half, _mm_shuffle_epi32(half, 0x4e));
    const int rank = -_mm_cvtsi128_si32(_mm_add_epi32(pairs, _mm_shuffle_epi32(pairs, 0xb1)));
    sorted[rank] = list[i];
  }
  std::memcpy(list, sorted, size_t{count} * sizeof(uint32_t));
}

// The smallest and largest id, eight lanes at a time (std::minmax_element
// compared one id at a time: a fifth of the radix sort's samples).
__attribute__((target("avx2"))) std::pair<uint32_t, uint32_t> id_range_avx2(const uint32_t* list, uint32_t count) {
  __m256i low = _mm256_set1_epi32(-1), high = _mm256_setzero_si256();
  uint32_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256i ids = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(list + i));
    low = _mm256_min_epu32(low, ids);
    high = _mm256_max_epu32(high, ids);
  }
  alignas(32) uint32_t lows[8], highs[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lows), low);
  _mm256_store_si256(reinterpret_cast<__m256i*>(highs), high);
  uint32_t least = *std::min_element(lows, lows + 8), most = *std::max_element(highs, highs + 8);
  for (; i < count; ++i) least = std::min(least, list[i]), most = std::max(most, list[i]);
  return {least, most};
}
#endif

std::pair<uint32_t, uint32_t> id_range(const uint32_t* list, uint32_t count) {
#if defined(__x86_64__)
  if (count >= 8 && cpu_has_avx2()) return id_range_avx2(list, count);
#endif
  const auto [low, high] = std::minmax_element(list, list + count);
  return {*low, *high};
}

constexpr int kMaxDigitBits = 11;
// A list sorted by radix has over kRankSortMaxList ids, so digits of at
// least 7 bits: 32-bit ids take at most 5 passes.
constexpr int kMaxPasses = 5;
using DigitCounts = std::array<std::array<uint32_t, size_t{1} << kMaxDigitBits>, kMaxPasses>;

// Every pass's digit counts in one read of the list: the passes'
// counters are independent, so their increments overlap.
template <int kPasses>
void count_digits(const uint32_t* list, uint32_t count, uint32_t base, int digit_bits, uint32_t mask,
                  DigitCounts* counts) {
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t offset = list[i] - base;
    for (int p = 0; p < kPasses; ++p) ++(*counts)[p][(offset >> (p * digit_bits)) & mask];
  }
}

void count_all_digits(const uint32_t* list, uint32_t count, uint32_t base, int passes, int digit_bits,
                      DigitCounts* counts) {
  const uint32_t mask = (uint32_t{1} << digit_bits) - 1;
  for (int p = 0; p < passes; ++p) std::fill_n((*counts)[p].begin(), mask + 1, 0);
  switch (passes) {
    case 1: return count_digits<1>(list, count, base, digit_bits, mask, counts);
    case 2: return count_digits<2>(list, count, base, digit_bits, mask, counts);
    case 3: return count_digits<3>(list, count, base, digit_bits, mask, counts);
    case 4: return count_digits<4>(list, count, base, digit_bits, mask, counts);
    default: return count_digits<kMaxPasses>(list, count, base, digit_bits, mask, counts);
  }
}

}  // namespace

void radix_sort_list(uint32_t* list, uint32_t count, uint32_t* scratch) {
  assert(count > kRankSortMaxList);
  const auto [base, high] = id_range(list, count);
  const int bits = std::bit_width(high - base);
  if (bits == 0) return;  // every id equal
  const int max_digit_bits = std::clamp(static_cast<int>(std::bit_width(count)), 6, kMaxDigitBits);
  const int passes = (bits + max_digit_bits - 1) / max_digit_bits;
  const int digit_bits = (bits + passes - 1) / passes;
  assert(passes <= kMaxPasses);
  const uint32_t mask = (uint32_t{1} << digit_bits) - 1;
  DigitCounts counts;
  count_all_digits(list, count, base, passes, digit_bits, &counts);
  uint32_t* from = list;
  uint32_t* to = scratch;
  for (int p = 0; p < passes; ++p) {
    uint32_t* next = counts[p].data();
    uint32_t at = 0;
    for (uint32_t d = 0; d <= mask; ++d) at += std::exchange(next[d], at);
    const int shift = p * digit_bits;
    for (uint32_t i = 0; i < count; ++i) to[next[((from[i] - base) >> shift) & mask]++] = from[i];
    std::swap(from, to);
  }
  if (from != list) std::memcpy(list, from, size_t{count} * sizeof(uint32_t));
}

void sort_short_list(uint32_t* list, uint32_t count) {
#if defined(__x86_64__)
  if (count >= 8 && cpu_has_avx2()) {
    rank_sort_avx2(list, count);
    return;
  }
#endif
  std::sort(list, list + count);
}

}  // namespace sg
