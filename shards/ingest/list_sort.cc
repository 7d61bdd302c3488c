#include "shards/ingest/list_sort.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace sg {
namespace {

#if defined(__x86_64__)
bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

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
#endif

}  // namespace

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
