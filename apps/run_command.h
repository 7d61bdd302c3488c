// `shardgraph run APP GRAPH`: opens the graph and the engine, runs one
// kernel, writes --output (one "id value" line per vertex, original ids,
// sorted by id) and --stats (JSON), and prints a short summary.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "compression/status.h"
#include "core/engine.h"

namespace sg {

struct RunOptions {
  std::string app;  // pagerank | spmv | bfs | wcc | sssp
  std::string graph;
  std::optional<uint64_t> source;  // original id
  int iterations = 0;              // 0 = the app's default
  double tolerance = 0;
  int threads = 0;  // 0 = all cores
  uint64_t memory_bytes = uint64_t{1} << 30;
  IoBackend backend = IoBackend::kAuto;
  IoMode io_mode = IoMode::kAuto;
  std::string device_class = "hdd";
  bool cache = true;
  bool decoded_cache = true;
  std::string output;
  // "graphalytics": unreachable BFS depth 9223372036854775807 and SSSP
  // distance "infinity", as the LDBC Graphalytics validator reads them.
  bool graphalytics_output = false;
  std::string stats;
  bool unit_weights = false;
  bool parents = false;
  bool progress = false;
  int top = 10;
  uint64_t window_bytes = 0;  // tests
  std::string scratch_dir;    // file-backed vertex arrays; "" = the graph directory if writable, else $TMPDIR
  bool writes_files = true;   // false on the ranks of a distributed run but rank 0
};

// Runs and returns the summary text (printed by the CLI) in *summary. A
// partitioned graph (shardgraph partition) runs as one rank of an MPI job;
// *report_error (optional) is false on the ranks that leave an error all
// ranks share to rank 0's report (their summary is empty too).
Status run_app(const RunOptions& options, std::string* summary, bool* report_error = nullptr);

}  // namespace sg
