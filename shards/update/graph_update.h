// `shardgraph update`: adds and removes edges of a stored graph without
// ingesting it again. The edges are read in any ingest format, translated
// to dense ids (new vertices extend the ids), sorted into delta runs per
// edge space (shards/format/delta_run.h) and committed by replacing the
// manifest atomically (docs/formats.md, "Updates"): after it returns a
// power cut loses nothing, and a cut during it leaves the old graph.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "shards/format/graph.h"

namespace sg {

struct UpdateOptions {
  std::string graph;
  std::vector<std::string> add_files;
  std::vector<std::string> remove_files;
  std::string format;           // "" = from each file's name, as ingest
  bool binary_weights = false;  // bin32/bin64 adds carry a float32 weight
  uint64_t memory_bytes = uint64_t{256} << 20;
  // Records of a delta run file: one is written each time the sort buffer
  // fills (0 = what the budget allows; tests set it small).
  size_t run_records = 0;
};

struct UpdateSummary {
  uint64_t generation = 0;
  uint64_t adds = 0;     // arcs added (over the out-space)
  uint64_t removes = 0;  // arcs named for removal (over the out-space)
  uint64_t new_vertices = 0;
  uint64_t run_files = 0;        // of the delta it committed
  uint64_t merged_updates = 0;   // the updates that delta holds: 1, or more when it merged tiers
  uint64_t pending_updates = 0;  // updates not yet compacted, this one included
  uint64_t pending_tiers = 0;    // the deltas holding them
  // Their records over the out-space (adds and removals), and the base's
  // arcs there: the share that decides an automatic compaction.
  uint64_t pending_records = 0;
  uint64_t base_arcs = 0;
  double seconds = 0;
};

Status update_graph(const UpdateOptions& options, UpdateSummary* summary);

// Holds the graph directory's writer lock (flock on the directory) while
// alive: updates and compactions of one graph take turns.
class GraphWriterLock {
 public:
  GraphWriterLock() = default;
  GraphWriterLock(const GraphWriterLock&) = delete;
  GraphWriterLock& operator=(const GraphWriterLock&) = delete;
  ~GraphWriterLock();
  // Fails at once (no wait) when another writer holds it.
  Status acquire(const std::string& dir);

 private:
  int fd_ = -1;
};

// What every writer of a stored graph does first: takes its writer lock,
// then opens it with its updates (`options` with deltas set).
Status open_for_writing(const std::string& dir, GraphOpenOptions options, GraphWriterLock* lock, Graph* graph);

}  // namespace sg
