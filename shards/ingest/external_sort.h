// External sort of edge records: sorted runs spilled to files, merged k ways.
// When there are more runs than the merge memory allows buffers for, groups
// of runs are merged into longer runs first.
#pragma once

#include <cstdint>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "compression/status.h"
#include "shards/util/file_util.h"

namespace sg {

struct SortEdge {
  uint32_t key;  // the vertex whose list holds the edge
  uint32_t neighbour;
  float weight;
};
static_assert(sizeof(SortEdge) == 12);

inline bool sort_edge_less(const SortEdge& a, const SortEdge& b) {
  if (a.key != b.key) return a.key < b.key;
  if (a.neighbour != b.neighbour) return a.neighbour < b.neighbour;
  return a.weight < b.weight;  // so deduplication keeps the smallest weight
}

// Sequential reader of one run file through a fixed buffer.
class RunReader {
 public:
  Status open(const std::string& path, size_t buffer_edges);
  // *has = false at the end of the run.
  Status next(SortEdge* edge, bool* has);

 private:
  File file_;
  std::vector<SortEdge> buffer_;
  size_t pos_ = 0, filled_ = 0;
  uint64_t file_offset_ = 0, file_bytes_ = 0;
};

// Merges sorted runs into one sorted stream.
class RunMerger {
 public:
  Status open(const std::vector<std::string>& runs, size_t buffer_bytes_per_run);
  Status next(SortEdge* edge, bool* has);

 private:
  struct Head {
    SortEdge edge;
    size_t run;
  };
  struct HeadGreater {
    bool operator()(const Head& a, const Head& b) const { return sort_edge_less(b.edge, a.edge); }
  };
  std::vector<std::unique_ptr<RunReader>> readers_;
  std::priority_queue<Head, std::vector<Head>, HeadGreater> heap_;
};

class RunSet {
 public:
  explicit RunSet(std::string prefix) : prefix_(std::move(prefix)) {}
  // Writes `edges` (already sorted) as a new run.
  Status add_run(const SortEdge* edges, size_t count);
  // Merges groups of runs until at most `max_fanin` remain.
  Status reduce(size_t max_fanin, size_t buffer_bytes_per_run);
  const std::vector<std::string>& runs() const { return runs_; }
  size_t runs_written() const { return runs_written_; }
  void remove_all();

 private:
  std::string prefix_;
  std::vector<std::string> runs_;
  size_t runs_written_ = 0;
};

}  // namespace sg
