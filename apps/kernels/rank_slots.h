// The rank slots of a traversal order (traversal_order.cc): one per
// vertex, or compact, one per member only.
#pragma once

#include <cassert>
#include <cstdint>
#include <utility>
#include <vector>

#include "base/huge_pages.h"
#include "base/status.h"
#include "compression/bits.h"

namespace sg {

// A rank not yet given.
constexpr uint32_t kUnranked = UINT32_MAX;
// A vertex found in the level being stepped to holds kFound | its
// discoverer's rank until the level is numbered.
constexpr uint32_t kFound = uint32_t{1} << 31;

// Each vertex's rank slot: slot v of n (whole), or (compact) a slot only
// for each member, a vertex of nonzero degree in the order's sense, found
// through a bitmap and the count of members before each 64-bit word. Every
// vertex an arc reaches is a member; the others share one slot that reads
// as numbered, so a traversal neither finds nor roots them.
class RankSlots {
 public:
  void init_whole(uint32_t n) {
    compact_ = false;
    members_found_ = false;
    members_ = n;
    assign_touched(&ranks_, n, kUnranked);  // in huge pages: looked up at random; becomes the permutation
  }
  // The whole form, its ranks given (some numbered or found already).
  void adopt_whole(std::vector<uint32_t> ranks) {
    compact_ = false;
    members_found_ = false;
    members_ = static_cast<uint32_t>(ranks.size());
    ranks_ = std::move(ranks);
  }
  // The compact form's members and where each one's slot is, without the
  // slots yet (init_compact): found once to judge whether the form fits,
  // then handed on, so the degrees are read once.
  template <typename DegreeOf>
  Status find_members(uint32_t n, DegreeOf degree_of) {
    compact_ = true;
    bits_.assign((uint64_t{n} + 63) / 64, 0);
    counts_.assign(bits_.size(), 0);
    uint32_t members = 0;
    for (uint32_t v = 0; v < n; ++v) {
      if (v % 64 == 0) counts_[v / 64] = members;
      uint64_t degree = 0;
      SG_RETURN_IF_ERROR(degree_of(v, &degree));
      if (degree == 0) continue;
      bits_[v / 64] |= uint64_t{1} << (v % 64);
      ++members;
    }
    members_ = members;
    members_found_ = true;
    return Status::OK();
  }
  bool members_found() const { return members_found_; }
  // The compact form: its members found (find_members), then a slot each.
  template <typename DegreeOf>
  Status init_compact(uint32_t n, DegreeOf degree_of) {
    if (!members_found_) SG_RETURN_IF_ERROR(find_members(n, degree_of));
    assert(bits_.size() == (uint64_t{n} + 63) / 64);
    ranks_.assign(uint64_t{members_} + 1, kUnranked);
    ranks_[members_] = 0;  // the non-members' slot: numbered, never written
    return Status::OK();
  }
  // Bytes the compact form takes, its members found.
  uint64_t compact_bytes() const {
    return bits_.size() * (sizeof(uint64_t) + sizeof(uint32_t)) + (uint64_t{members_} + 1) * sizeof(uint32_t);
  }

  uint32_t members() const { return members_; }
  bool member(uint32_t v) const { return !compact_ || (bits_[v / 64] >> (v % 64) & 1) != 0; }
  uint32_t slot(uint32_t v) const {
    if (!compact_) return v;
    const uint64_t word = bits_[v / 64];
    const uint64_t below = word & ((uint64_t{1} << (v % 64)) - 1);
    return (word >> (v % 64) & 1) != 0 ? counts_[v / 64] + count_bits(below) : members_;
  }
  uint32_t& operator[](uint32_t v) { return ranks_[slot(v)]; }
  // Asks for v's slot ahead of its use: a traversal reads the slots of
  // arcs' targets, scattered over more than the caches hold.
  void prefetch(uint32_t v) const { __builtin_prefetch(ranks_.data() + slot(v)); }
  // Asks for what finding v's slot reads (compact: its bitmap word and
  // count), further ahead than prefetch, which needs them.
  void prefetch_slot(uint32_t v) const {
    if (!compact_) return;
    __builtin_prefetch(bits_.data() + v / 64);
    __builtin_prefetch(counts_.data() + v / 64);
  }
  std::vector<uint32_t> take_whole() { return std::move(ranks_); }

 private:
  bool compact_ = false;
  bool members_found_ = false;
  uint32_t members_ = 0;
  std::vector<uint64_t> bits_;
  std::vector<uint32_t> counts_;
  std::vector<uint32_t> ranks_;
};

}  // namespace sg
