#include "shards/ingest/external_sort.h"

#include <unistd.h>

#include <algorithm>

#include "shards/util/interrupt.h"

namespace sg {

Status RunReader::open(const std::string& path, size_t buffer_edges) {
  SG_RETURN_IF_ERROR(File::open_read(path, &file_));
  SG_RETURN_IF_ERROR(file_.size(&file_bytes_));
  // Never more than the run holds: a short run must not claim a large buffer.
  const size_t run_edges = static_cast<size_t>(file_bytes_ / sizeof(SortEdge));
  buffer_.resize(std::max<size_t>(std::min(buffer_edges, run_edges), 1));
  return Status::OK();
}

Status RunReader::next(SortEdge* edge, bool* has) {
  if (pos_ == filled_) {
    const uint64_t left = file_bytes_ - file_offset_;
    const size_t take = static_cast<size_t>(std::min<uint64_t>(left / sizeof(SortEdge), buffer_.size()));
    if (take == 0) {
      *has = false;
      return Status::OK();
    }
    SG_RETURN_IF_ERROR(file_.pread_all(buffer_.data(), take * sizeof(SortEdge), file_offset_));
    file_offset_ += take * sizeof(SortEdge);
    pos_ = 0;
    filled_ = take;
  }
  *edge = buffer_[pos_++];
  *has = true;
  return Status::OK();
}

Status RunMerger::open(const std::vector<std::string>& runs, size_t buffer_bytes_per_run) {
  readers_.clear();
  heap_ = {};
  for (size_t r = 0; r < runs.size(); ++r) {
    auto reader = std::make_unique<RunReader>();
    SG_RETURN_IF_ERROR(reader->open(runs[r], buffer_bytes_per_run / sizeof(SortEdge)));
    SortEdge edge;
    bool has = false;
    SG_RETURN_IF_ERROR(reader->next(&edge, &has));
    if (has) heap_.push(Head{edge, r});
    readers_.push_back(std::move(reader));
  }
  return Status::OK();
}

Status RunMerger::next(SortEdge* edge, bool* has) {
  if (heap_.empty()) {
    *has = false;
    return Status::OK();
  }
  const Head head = heap_.top();
  heap_.pop();
  *edge = head.edge;
  *has = true;
  SortEdge following;
  bool more = false;
  SG_RETURN_IF_ERROR(readers_[head.run]->next(&following, &more));
  if (more) heap_.push(Head{following, head.run});
  return Status::OK();
}

Status RunSet::add_run(const SortEdge* edges, size_t count) {
  const std::string path = prefix_ + "." + std::to_string(runs_written_++) + ".run";
  runs_.push_back(path);  // listed first so remove_all() finds a partial file
  File file;
  SG_RETURN_IF_ERROR(File::create(path, &file));
  SG_RETURN_IF_ERROR(file.pwrite_all(edges, count * sizeof(SortEdge), 0));
  return file.close();
}

Status RunSet::reduce(size_t max_fanin, size_t buffer_bytes_per_run) {
  max_fanin = std::max<size_t>(max_fanin, 2);
  constexpr size_t kWriteBatch = 1 << 16;
  std::vector<SortEdge> batch;
  batch.reserve(kWriteBatch);
  while (runs_.size() > max_fanin) {
    std::vector<std::string> group(runs_.begin(), runs_.begin() + static_cast<long>(max_fanin));
    RunMerger merger;
    SG_RETURN_IF_ERROR(merger.open(group, buffer_bytes_per_run));
    const std::string path = prefix_ + "." + std::to_string(runs_written_++) + ".run";
    runs_.push_back(path);
    File out;
    SG_RETURN_IF_ERROR(File::create(path, &out));
    uint64_t offset = 0;
    for (;;) {
      SortEdge edge;
      bool has = false;
      SG_RETURN_IF_ERROR(merger.next(&edge, &has));
      if (has) batch.push_back(edge);
      if (batch.size() == kWriteBatch || (!has && !batch.empty())) {
        if (interrupt_requested()) return Status::Interrupted("ingest stopped by a signal");
        SG_RETURN_IF_ERROR(out.pwrite_all(batch.data(), batch.size() * sizeof(SortEdge), offset));
        offset += batch.size() * sizeof(SortEdge);
        batch.clear();
      }
      if (!has) break;
    }
    SG_RETURN_IF_ERROR(out.close());
    for (const std::string& done : group) ::unlink(done.c_str());
    runs_.erase(runs_.begin(), runs_.begin() + static_cast<long>(max_fanin));
  }
  return Status::OK();
}

void RunSet::remove_all() {
  for (const std::string& path : runs_) ::unlink(path.c_str());
  runs_.clear();
}

}  // namespace sg
