// A run of one app on a graph: opens the graph and the engine (or, for a
// partitioned graph, this MPI rank's part), runs the app's row of the app
// table, then writes --output (one "id value" line per vertex, original
// ids, sorted by id) or collects typed columns, writes --stats (JSON) and
// returns the summary. The library API (apps/api) is the way in.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "apps/harness/app_result.h"
#include "base/status.h"
#include "core/engine.h"

namespace sg {

struct RunOptions {
  std::string app;
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
  bool keep_stats = true;   // RunOutput::stats_json (always, with `stats`)
  bool collect = false;     // typed columns into RunOutput
  std::string columns_dir;  // typed columns as .npy files there (npy_columns.h); RunOutput names them
  bool quiet = false;       // notices only in RunOutput::notices
  bool unit_weights = false;
  bool parents = false;
  int top = 10;
  uint64_t window_bytes = 0;  // tests
  std::string scratch_dir;    // file-backed vertex arrays; "" = the graph directory if writable, else $TMPDIR
  // The options as the caller gave them (name, text), recorded in the stats.
  std::vector<std::pair<std::string, std::string>> options;
  std::function<void(const std::string&)> progress;  // a status line after each step; "" when the run ends
};

struct RunOutput {
  std::string summary;
  std::string facts_json = "{}";
  std::string stats_json;
  std::string notices;
  std::vector<uint64_t> ids;  // with collect
  std::vector<CollectedColumn> columns;
  // False on the ranks of a distributed run that leave an error all ranks
  // share to rank 0's report (their summary is empty too).
  bool report_error = true;
};

Status run_app(const RunOptions& options, RunOutput* output);

}  // namespace sg
