// A level of a traversal order (traversal_order.cc) too large to number in
// its room, spread over a scratch file by discoverer rank, as a
// distribution sort spreads keys over buckets: each run holds the keys of a
// range of discoverer ranks, so the runs in turn hold the level in
// numbering order, and each run (but one discoverer's keys past the room)
// is numbered in one pass over its part of the file. Numbered in passes
// over the level instead, each pass read every in-degree again: R-MAT 26
// in 176 MiB numbered a level of 21.5 M vertices in 29 passes over its
// 268 MB in-degree file, 52 s on one emulated HDD, and the order took 140 s.
//
// Memory: a count for each of at most 2^16 ranges of discoverer ranks, and
// the runs' write buffers, which share the level's room.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <string>
#include <vector>

#include "base/file_util.h"
#include "base/status.h"

namespace sg {

// A level's vertex in numbering order: discoverer, then decreasing degree, then id.
struct LevelKey {
  uint32_t parent_rank, degree_complement, id;
  auto operator<=>(const LevelKey&) const = default;
};
static_assert(sizeof(LevelKey) == 12, "written to the scratch file as they are");

class LevelRuns {
 public:
  // Discoverer ranks in [first_parent, last_parent]; each run at most
  // `room_keys` keys but for one range whose keys alone exceed it.
  LevelRuns(uint32_t first_parent, uint32_t last_parent, uint64_t room_keys);

  // Counted first, each key's discoverer once...
  void count(uint32_t parent_rank) { ++range_keys_[range_of(parent_rank)]; }
  // ... then the runs planned and the file opened near `near_path`...
  Status open(const std::string& near_path);
  // ... then every key added, its discoverer counted before...
  Status add(const LevelKey& key);
  Status finish_adding();

  size_t runs() const { return run_first_key_.size() - 1; }
  uint64_t run_keys(size_t run) const { return run_first_key_[run + 1] - run_first_key_[run]; }
  // ... and each run read back in pieces: visit(key) for each of its keys.
  template <typename Visit>
  Status for_each_in_run(size_t run, Visit&& visit);

 private:
  static constexpr int kRangeBits = 16;
  static constexpr size_t kPieceKeys = size_t{1} << 14;  // read back a piece at a time
  size_t range_of(uint32_t parent_rank) const {
    assert(parent_rank >= first_parent_);
    const size_t range = (parent_rank - first_parent_) >> shift_;
    assert(range < range_keys_.size() || range < run_of_range_.size());
    return range;
  }
  Status flush(size_t run);

  uint32_t first_parent_;
  int shift_;
  uint64_t room_keys_;
  std::vector<uint64_t> range_keys_;
  std::vector<uint32_t> run_of_range_;
  std::vector<uint64_t> run_first_key_;  // runs() + 1 entries: each run's first key in the file
  std::vector<uint64_t> run_written_;    // keys of each run in the file
  std::vector<std::vector<LevelKey>> buffers_;
  size_t buffer_keys_ = 1;
  File file_;
  std::vector<LevelKey> piece_;
};

template <typename Visit>
Status LevelRuns::for_each_in_run(size_t run, Visit&& visit) {
  piece_.resize(kPieceKeys);
  const uint64_t end = run_first_key_[run + 1];
  for (uint64_t at = run_first_key_[run]; at < end; at += kPieceKeys) {
    const size_t keys = static_cast<size_t>(std::min<uint64_t>(kPieceKeys, end - at));
    SG_RETURN_IF_ERROR(file_.pread_all(piece_.data(), keys * sizeof(LevelKey), at * sizeof(LevelKey)));
    for (size_t i = 0; i < keys; ++i) visit(piece_[i]);
  }
  return Status::OK();
}

}  // namespace sg
