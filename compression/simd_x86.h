// x86 SIMD helpers shared by the decoders that choose AVX2 at run time.
// Builds target baseline x86-64 (what Debian ships), so callers compile
// their AVX2 loops with a target attribute and test cpu_has_avx2() first.
#pragma once

#if defined(__x86_64__)
#include <immintrin.h>

namespace sg {

inline bool cpu_has_avx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

// The inclusive prefix sum of eight 32-bit lanes: lane i holds the sum of
// lanes 0..i.
__attribute__((target("avx2"))) inline __m256i prefix_sum_8x32(__m256i x) {
  x = _mm256_add_epi32(x, _mm256_slli_si256(x, 4));  // within each 128-bit half
  x = _mm256_add_epi32(x, _mm256_slli_si256(x, 8));
  // The low half's total, added to every lane of the high half.
  return _mm256_add_epi32(x, _mm256_shuffle_epi32(_mm256_permute2x128_si256(x, x, 0x08), 0xff));
}

}  // namespace sg
#endif
