// A rank's mirrors (Gemini, OSDI'16): the vertices it does not own whose
// values its part's arcs read, and which of the vertices it owns each
// other rank mirrors. A step then sends an owned active source only to
// the ranks that read it, and each rank receives only its mirrors'
// values. One set per part a rank steps over (its part, its reverse part).
#pragma once

#include <cstdint>
#include <vector>

#include "base/bitmap.h"
#include "base/status.h"
#include "core/communicator.h"
#include "core/vertex_subset.h"
#include "shards/format/graph.h"

namespace sg {

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
  // Word w of the active vertices `peer` mirrors / of the active mirrors
  // (`active` is dense).
  auto needed_word(size_t peer, const VertexSubset& active) const {
    return [&needed = needed_by_[peer], &active, first = size_t{owned_begin_} >> 6](size_t w) {
      return needed[w - first] & active.bits()[w];
    };
  }
  auto mirror_word(const VertexSubset& active) const {
    return [this, &active](size_t w) { return mirrors_[w] & active.bits()[w]; };
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
