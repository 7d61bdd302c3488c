#include "apps/kernels/level_runs.h"

#include <bit>
#include <cassert>

namespace sg {

LevelRuns::LevelRuns(uint32_t first_parent, uint32_t last_parent, uint64_t room_keys)
    : first_parent_(first_parent), room_keys_(std::max<uint64_t>(room_keys, 1)) {
  assert(first_parent <= last_parent);
  const uint64_t span = uint64_t{last_parent} - first_parent + 1;
  shift_ = std::max(0, static_cast<int>(std::bit_width(span - 1)) - kRangeBits);
  range_keys_.assign(static_cast<size_t>(((span - 1) >> shift_) + 1), 0);
}

// Ranges join a run while it holds at most room_keys_; the runs' buffers
// then share the room (a key each at least).
Status LevelRuns::open(const std::string& near_path) {
  run_of_range_.resize(range_keys_.size());
  run_first_key_ = {0};
  uint64_t in_run = 0;
  for (size_t range = 0; range < range_keys_.size(); ++range) {
    const uint64_t keys = range_keys_[range];
    if (in_run > 0 && in_run + keys > room_keys_) {
      run_first_key_.push_back(run_first_key_.back() + in_run);
      in_run = 0;
    }
    run_of_range_[range] = static_cast<uint32_t>(run_first_key_.size() - 1);
    in_run += keys;
  }
  run_first_key_.push_back(run_first_key_.back() + in_run);
  std::vector<uint64_t>().swap(range_keys_);
  run_written_.assign(runs(), 0);
  buffer_keys_ = std::max<size_t>(static_cast<size_t>(room_keys_ / runs()), 1);
  buffers_.resize(runs());
  for (std::vector<LevelKey>& buffer : buffers_) buffer.reserve(buffer_keys_);
  bool direct = false;  // written and read back through the page cache
  return File::create_unnamed(near_path, &file_, &direct);
}

Status LevelRuns::add(const LevelKey& key) {
  const size_t run = run_of_range_[range_of(key.parent_rank)];
  buffers_[run].push_back(key);
  return buffers_[run].size() == buffer_keys_ ? flush(run) : Status::OK();
}

Status LevelRuns::flush(size_t run) {
  std::vector<LevelKey>& buffer = buffers_[run];
  if (run_written_[run] + buffer.size() > run_keys(run)) {
    return Status::Corruption("traversal order: a level's run got more keys than were counted");
  }
  const uint64_t at = run_first_key_[run] + run_written_[run];
  SG_RETURN_IF_ERROR(file_.pwrite_all(buffer.data(), buffer.size() * sizeof(LevelKey), at * sizeof(LevelKey)));
  run_written_[run] += buffer.size();
  buffer.clear();
  return Status::OK();
}

Status LevelRuns::finish_adding() {
  for (size_t run = 0; run < runs(); ++run) {
    SG_RETURN_IF_ERROR(flush(run));
    if (run_written_[run] != run_keys(run)) {
      return Status::Corruption("traversal order: a level's run got fewer keys than were counted");
    }
  }
  std::vector<std::vector<LevelKey>>().swap(buffers_);  // the room goes to reading the runs back
  return Status::OK();
}

}  // namespace sg
