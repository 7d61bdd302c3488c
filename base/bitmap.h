// Bit operations over a bitmap of vertices (64 to a word), shared by the
// engine's frontier (core/vertex_subset.h) and the planner's view of it
// (scheduler/frontier_view.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace sg {

// Word w of the bitmap with the bits outside [begin, end) cleared.
inline uint64_t bitmap_word_in(const uint64_t* bits, size_t w, uint32_t begin, uint32_t end) {
  uint64_t word = bits[w];
  if (w == begin >> 6) word &= ~uint64_t{0} << (begin & 63);
  if (w == (size_t{end} - 1) >> 6 && (end & 63) != 0) word &= (uint64_t{1} << (end & 63)) - 1;
  return word;
}

inline bool bitmap_contains(const uint64_t* bits, uint32_t v) { return (bits[v >> 6] >> (v & 63)) & 1; }

// Whether any bit in [begin, end) is set.
inline bool bitmap_any_in(const uint64_t* bits, uint32_t begin, uint32_t end) {
  if (begin >= end) return false;
  for (size_t w = begin >> 6; w <= (size_t{end} - 1) >> 6; ++w) {
    if (bitmap_word_in(bits, w, begin, end) != 0) return true;
  }
  return false;
}

// Calls f(v) for each set bit v in [begin, end), a word at a time.
template <typename F>
void bitmap_for_each_in(const uint64_t* bits, uint32_t begin, uint32_t end, F&& f) {
  if (begin >= end) return;
  for (size_t w = begin >> 6; w <= (size_t{end} - 1) >> 6; ++w) {
    uint64_t word = bitmap_word_in(bits, w, begin, end);
    while (word != 0) {
      f(static_cast<uint32_t>(w * 64 + static_cast<unsigned>(__builtin_ctzll(word))));
      word &= word - 1;
    }
  }
}

}  // namespace sg
