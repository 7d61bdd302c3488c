// The options of `run`, one row each: name, kind, default, help, and the
// request's field it sets. The CLI's flags and help, Python's keyword
// arguments and --stats' "options" all come from these rows, so an option
// added here reaches every front end with no other edit (besides its field
// in RunRequest and, where the engine reads it, in sg::RunOptions).
#include <limits>

#include "apps/api/option_rows.h"

namespace shardgraph {
namespace {

using namespace options;
using Run = RunRequest;

Row<Run> source_row() {
  OptionInfo info{
      "source", "count",
      "",       "source vertex (original id) for bfs/sssp/betweenness (default: the vertex with most out-edges)",
      {},       false};
  return {info,
          [](Run& r, const std::string& t) {
            uint64_t id = 0;
            const Status s = parse_whole<uint64_t>("source", t, 0, std::numeric_limits<uint64_t>::max(), &id);
            if (s.ok()) r.source = id;
            return s;
          },
          [](const Run& r) { return r.source ? std::to_string(*r.source) : std::string(); }};
}

const std::vector<Row<Run>>& run_table() {
  static const std::vector<Row<Run>> table = {
      source_row(),
      whole("iterations", &Run::iterations, 1, 1 << 30, Auto::kNone, "",
            "pagerank, pagerank-delta, spmv, cdlp: iterations (default: the app's)"),
      number("tolerance", &Run::tolerance, "",
             "pagerank: stop when the L1 change is below this; pagerank-delta: epsilon (default 0.01)"),
      whole("threads", &Run::threads, 1, 1024, Auto::kNone, "", "compute threads, 1 to 1024 (default: all cores)"),
      size("memory", &Run::memory_bytes, 0, std::numeric_limits<uint64_t>::max(), Auto::kBudget, "auto",
           "memory budget (e.g. 256M) or auto: 3/4 of the cgroup limit or available memory, less 16 MiB"),
      choice("io-backend", &Run::io_backend, {"auto", "uring", "psync"}, "how reads are issued"),
      choice("io", &Run::io, {"auto", "full", "selective"},
             "how a step reads: auto (by the cost model), full (scans) or selective (the chunks it needs)"),
      choice("device-class", &Run::device_class, {"hdd", "ssd", "nvme"}, "preset for uncalibrated devices"),
      flag("cache", &Run::cache, "keep chunks in spare memory"),
      flag("decoded-cache", &Run::decoded_cache, "keep decoded windows in spare memory, not compressed chunks only"),
      text("scratch-dir", &Run::scratch_dir,
           "directory for vertex arrays beyond --memory (default: the graph directory if writable, else $TMPDIR)"),
      text("output", &Run::output, "write one 'id value' line per vertex"),
      choice("format", &Run::output_format, {"plain", "graphalytics"},
             "--output's conventions: plain (unreachable -1 / inf) or graphalytics (9223372036854775807 / infinity)"),
      text("stats", &Run::stats, "write per-step statistics as JSON"),
      flag("unit-weights", &Run::unit_weights, "sssp: weight 1 for every edge"),
      flag("parents", &Run::parents, "bfs: also write each vertex's parent"),
      whole("top", &Run::top, 0, 1 << 30, Auto::kNone, "10",
            "pagerank/spmv/betweenness/lcc: print this many top vertices"),
      hidden(size("window-bytes", &Run::window_bytes, 0, uint64_t{1} << 40, Auto::kNone, "0",
                  "tests: the I/O window (0: from the budget)")),
  };
  return table;
}

}  // namespace

const std::vector<options::Row<RunRequest>>& options::run_rows() { return run_table(); }

}  // namespace shardgraph
