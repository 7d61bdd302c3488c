// Bit operations over a bitmap of vertices (64 to a word), shared by the
// engine's frontier (core/vertex_subset.h) and the planner's view of it
// (scheduler/frontier_view.h).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

namespace sg {

// `word`, the bitmap's word w, with the bits outside [begin, end) cleared.
inline uint64_t bits_in_range(uint64_t word, size_t w, uint32_t begin, uint32_t end) {
  if (w == begin >> 6) word &= ~uint64_t{0} << (begin & 63);
  if (w == (size_t{end} - 1) >> 6 && (end & 63) != 0) word &= (uint64_t{1} << (end & 63)) - 1;
  return word;
}

// Word w of the bitmap with the bits outside [begin, end) cleared.
inline uint64_t bitmap_word_in(const uint64_t* bits, size_t w, uint32_t begin, uint32_t end) {
  return bits_in_range(bits[w], w, begin, end);
}

// Calls f(v) for each v in [begin, end) whose bit is set in word_of(w), the
// bitmap's word w (say, the AND of two bitmaps' words), in increasing order.
template <typename Word, typename F>
void for_each_bit_in(uint32_t begin, uint32_t end, Word&& word_of, F&& f) {
  if (begin >= end) return;
  for (size_t w = begin >> 6; w <= (size_t{end} - 1) >> 6; ++w) {
    for (uint64_t word = bits_in_range(word_of(w), w, begin, end); word != 0; word &= word - 1)
      f(static_cast<uint32_t>(w * 64 + static_cast<unsigned>(std::countr_zero(word))));
  }
}

// The bits set in [begin, end) of word_of(w), as for_each_bit_in.
template <typename Word>
uint64_t count_bits_in(uint32_t begin, uint32_t end, Word&& word_of) {
  if (begin >= end) return 0;
  uint64_t count = 0;
  for (size_t w = begin >> 6; w <= (size_t{end} - 1) >> 6; ++w)
    count += static_cast<uint64_t>(std::popcount(bits_in_range(word_of(w), w, begin, end)));
  return count;
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
  for_each_bit_in(
      begin, end, [bits](size_t w) { return bits[w]; }, f);
}

// The set bits in [begin, end).
inline uint64_t bitmap_count_in(const uint64_t* bits, uint32_t begin, uint32_t end) {
  return count_bits_in(begin, end, [bits](size_t w) { return bits[w]; });
}

}  // namespace sg
