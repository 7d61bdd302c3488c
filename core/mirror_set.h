// A rank's mirrors (Gemini, OSDI'16): the vertices it does not own whose
// values its part's arcs read, and which of the vertices it owns each
// other rank mirrors. A step then sends an owned active source only to
// the ranks that read it, and each rank receives only its mirrors'
// values. One set per part a rank steps over (its part, its reverse part).
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "base/status.h"
#include "core/communicator.h"
#include "core/vertex_subset.h"
#include "shards/format/graph.h"

namespace sg {

// Word w of a bitmap of vertices (v >> 6), its bits outside [begin, end) clear.
inline uint64_t bits_in(uint64_t bits, size_t w, uint32_t begin, uint32_t end) {
  if (w == begin >> 6) bits &= ~uint64_t{0} << (begin & 63);
  if (w == (end - 1) >> 6 && (end & 63) != 0) bits &= (uint64_t{1} << (end & 63)) - 1;
  return bits;
}

// Calls fn(v) for each v in [begin, end) whose bit is set in word(w), the
// bitmap word w of the vertices, in increasing order.
template <typename Word, typename Fn>
void for_each_bit_in(uint32_t begin, uint32_t end, Word&& word, Fn&& fn) {
  if (begin >= end) return;
  for (size_t w = begin >> 6; w <= (end - 1) >> 6; ++w) {
    for (uint64_t bits = bits_in(word(w), w, begin, end); bits != 0; bits &= bits - 1)
      fn(static_cast<uint32_t>(w * 64 + static_cast<size_t>(std::countr_zero(bits))));
  }
}

// The bits set in [begin, end) of word(w).
template <typename Word>
uint64_t count_bits_in(uint32_t begin, uint32_t end, Word&& word) {
  uint64_t count = 0;
  if (begin >= end) return 0;
  for (size_t w = begin >> 6; w <= (end - 1) >> 6; ++w) count += std::popcount(bits_in(word(w), w, begin, end));
  return count;
}

class MirrorSet {
 public:
  // The sources of `part`'s arcs (its out-degrees) outside the owned range
  // [bounds[rank], bounds[rank + 1]).
  Status scan(const Graph& part, const std::vector<uint32_t>& bounds, int rank);
  // Tells each owner which of its vertices this rank mirrors, and learns
  // which of its own each other rank mirrors (collective, after scan).
  Status exchange(Communicator* comm);

  // Vertices mirrored, and the bytes the sets hold.
  uint64_t count() const { return count_; }
  uint64_t bytes() const;

 private:
  // A dense subset's word (every bit set when all are active).
  static uint64_t word_of(const VertexSubset& active, size_t w) {
    return active.is_all() ? ~uint64_t{0} : active.bits()[w];
  }
  // Word w of the active vertices `peer` mirrors / of the active mirrors.
  auto needed_word(size_t peer, const VertexSubset& active) const {
    return [&needed = needed_by_[peer], &active, first = size_t{owned_begin_} >> 6](size_t w) {
      return needed[w - first] & word_of(active, w);
    };
  }
  auto mirror_word(const VertexSubset& active) const {
    return [this, &active](size_t w) { return mirrors_[w] & word_of(active, w); };
  }

 public:
  // The active owned vertices in [begin, end) that `peer` mirrors, in
  // increasing order.
  template <typename Fn>
  void for_each_needed_by(size_t peer, const VertexSubset& active, uint32_t begin, uint32_t end, Fn&& fn) const {
    for_each_bit_in(begin, end, needed_word(peer, active), fn);
  }
  // The active mirrors in [begin, end) (within one owner's range), in
  // increasing order: the order their owner sends them in.
  template <typename Fn>
  void for_each_mirror_in(const VertexSubset& active, uint32_t begin, uint32_t end, Fn&& fn) const {
    for_each_bit_in(begin, end, mirror_word(active), fn);
  }
  uint64_t count_needed_by(size_t peer, const VertexSubset& active, uint32_t begin, uint32_t end) const {
    return count_bits_in(begin, end, needed_word(peer, active));
  }
  uint64_t count_mirrors_in(const VertexSubset& active, uint32_t begin, uint32_t end) const {
    return count_bits_in(begin, end, mirror_word(active));
  }

 private:
  std::vector<uint32_t> bounds_;
  uint32_t owned_begin_ = 0, owned_end_ = 0;
  std::vector<uint64_t> mirrors_;                 // over every vertex; owned bits clear
  std::vector<std::vector<uint64_t>> needed_by_;  // per rank: words over the owned range's span
  uint64_t count_ = 0;
};

}  // namespace sg
