// The shardgraph library: what the command line does, as functions that
// return errors as values (shardgraph::Status). The CLI (apps/cli) is one
// front end over it and the Python package another. Installed as
// <shardgraph/shardgraph.h> (with <shardgraph/status.h>, and nothing else),
// with the CMake package `shardgraph` (target shardgraph::shardgraph).
//
//   shardgraph::IngestRequest in;  in.input = "edges.txt.gz";  in.output = "g";
//   shardgraph::IngestReport ingested;
//   Status s = shardgraph::ingest(in, &ingested);
//   shardgraph::RunRequest run;  run.app = "pagerank";  run.graph = "g";  run.collect = true;
//   shardgraph::RunResult result;
//   s = shardgraph::run(run, &result);  // result.ids[i] has result.columns[0] value i
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "shardgraph/status.h"

namespace shardgraph {

// "shardgraph 0.6.0 (writes format version 3, codec ...; reads versions 1 to 3)".
std::string version_line();

// ---- Sizes and budgets

// "64M", "2G", "512K", "4096", "1.5G" (binary units; optional "B"/"iB").
bool parse_size(const std::string& text, uint64_t* bytes);
// The budget `--memory auto` gives: 3/4 of the cgroup limit or of the
// available memory, less 16 MiB (UINT64_MAX: no such limit).
struct AutoMemory {
  uint64_t budget_bytes = 0;
  uint64_t cgroup_limit_bytes = UINT64_MAX;
  uint64_t available_bytes = UINT64_MAX;
};
AutoMemory auto_memory();
// Peak resident set of this process so far (VmHWM), in bytes.
uint64_t peak_rss_bytes();

// ---- Progress and stopping

// Long work (ingest, runs) reports a one-line status now and then, and can
// be stopped: `stop` is polled often, from any thread, and must be cheap
// and thread-safe (e.g. read an atomic flag). A stopped call returns
// Status::Interrupted and leaves nothing half-written; SIGINT/SIGTERM stop
// it the same way once install_interrupt_handlers() ran.
struct Callbacks {
  std::function<void(const std::string& line)> progress;  // "" ends the line
  std::function<bool()> stop;
};
void install_interrupt_handlers();

// ---- Generators

struct RmatRequest {
  uint32_t scale = 16;  // 2^scale vertices
  uint32_t edge_factor = 16;
  uint64_t seed = 1;
  bool weights = false;  // integer weights 1..255
  std::string output;    // .gz = gzip text, .bin32 / .bin64 = binary, else text
};
Status generate_rmat(const RmatRequest& request);

struct GridRequest {
  uint32_t rows = 1000, cols = 1000;
  uint64_t seed = 1;
  bool weights = false;
  bool shuffle = true;  // shuffle the ids (no free locality)
  std::string output;
};
Status generate_grid(const GridRequest& request);

// ---- Graphs

struct IngestRequest {
  std::string input;     // an edge list, a BVGraph basename, a Graphalytics .v/.e pair ...
  std::string output;    // the graph directory to create (must not exist)
  std::string format;    // snap|mtx|bin32|bin64|graph|webgraph|dimacs|graphalytics; "": from the name
  bool weights = false;  // binary records carry a float32 weight
  bool undirected = false;
  bool drop_self_loops = false;
  bool dedup = false;
  std::string remap = "auto";  // dense ids for original ones: auto (when sparse or wider than 32 bits) | always | never
  std::string order = "auto";  // auto | bfds | bfs | degree | none
  uint64_t memory_bytes = uint64_t{1} << 30;
  // Target chunk size; 0 = auto: from the devices' profiles (stored by
  // calibrate, or a short probe on first use), their bandwidth times their
  // latency within 256 KiB..1 MiB.
  uint32_t chunk_bytes = 0;
  // How chunks code their gaps: auto (entropy when the devices' profiles
  // add up to one disk's bandwidth, else fast) | fast
  // (StreamVByte unless varints are more than 10% smaller) | small (the
  // fewest bytes of the byte codes) | entropy (fewer still) | varint | v2
  // (format version 2, for shardgraph builds before version 3).
  std::string codec = "auto";
  uint32_t intervals = 0;            // 0: from the budget
  uint32_t blocks = 0;               // 2-D blocks a space; 0: from |V| and the budget
  std::vector<std::string> devices;  // device directories for edge data
  uint64_t stripe_bytes = 0;         // 0: chosen from the space size
  int threads = 0;                   // compute threads, 1 to 1024; 0: all cores
  // A partitioned graph built by this many MPI ranks at once (mpirun -np
  // N; docs/scale-out.md): each reads its share of `input` and
  // `more_inputs`, and `devices` are PART:DIR. 0: one graph, one process.
  uint32_t parts = 0;
  std::vector<std::string> more_inputs;
};
struct PartInfo {
  uint32_t begin = 0, end = 0;  // owned vertices
  uint64_t arcs = 0;
};
struct IngestReport {
  uint64_t vertices = 0, edges = 0;
  uint32_t intervals = 0;
  uint64_t stored_bytes = 0;
  uint64_t sort_batches = 0;
  double seconds = 0;
  std::string phases;                   // "route 1.2 s (peak 40 MiB), sort ..."
  std::string note;                     // something the user should know (e.g. an order skipped)
  int rank = 0;                         // of a distributed ingest: only rank 0 reports
  std::vector<PartInfo> parts;          // of a distributed ingest
  std::vector<std::string> rank_lines;  // of a distributed ingest: each rank's phases, bytes sent, peak RSS
};
Status ingest(const IngestRequest& request, IngestReport* report, const Callbacks& callbacks = {});

// What `shardgraph info` prints, as text or as JSON (also for a partitioned graph, as text).
Status graph_info(const std::string& graph, bool json, std::string* text);
// The manifest's counts, from opening the graph without its degrees or id
// map: a quick check that `graph` is one.
struct GraphSummary {
  uint64_t vertices = 0, edges = 0;  // vertices after any updates; edges of the base
  bool directed = true, weighted = false;
  uint64_t pending_updates = 0;  // updates not yet compacted (runs need them compacted)
};
Status graph_summary(const std::string& graph, GraphSummary* summary);
struct VerifyReport {
  bool opened = false;  // the graph opened: an error after this is a failed check
  bool partitioned = false;
  uint64_t chunks = 0, arcs = 0, bytes = 0;
};
// Re-reads and checks every chunk (every part of a partitioned graph).
Status verify(const std::string& graph, VerifyReport* report);

struct PartitionRequest {
  std::string graph, output;
  uint32_t parts = 2;
  uint64_t memory_bytes = uint64_t{1} << 30;
  std::vector<std::vector<std::string>> part_devices;  // [part]: device directories
};
Status partition(const PartitionRequest& request, std::vector<PartInfo>* parts, double* seconds);
// `--device PART:DIR` arguments (of partition, and of a distributed
// ingest) as each part's device directories.
Status split_part_devices(const std::vector<std::string>& specs, uint32_t parts,
                          std::vector<std::vector<std::string>>* part_devices);

Status restripe(const std::string& graph, const std::vector<std::string>& devices, uint64_t stripe_bytes,
                bool auto_stripe);

// Adds and removes edges of a stored graph (`shardgraph update`): the
// files are edge lists in any ingest format; removals apply first, and
// remove every copy of an arc. Committed atomically and durably.
struct UpdateRequest {
  std::string graph;
  std::vector<std::string> add_files, remove_files;
  std::string format;    // "" = from each file's name
  bool weights = false;  // bin32/bin64 adds carry a float32 weight
  uint64_t memory_bytes = uint64_t{256} << 20;
  // Compact once the updates not yet compacted hold this share of the
  // graph's arcs (their adds and removals over its out-space); 0: never.
  double compact_share = 0.1;
};
struct UpdateReport {
  uint64_t generation = 0, adds = 0, removes = 0, new_vertices = 0, pending_updates = 0;
  // The deltas holding the pending updates: an update merges the newest
  // ones when they are no larger than it together (tiers, docs/formats.md).
  uint64_t pending_tiers = 0;
  double seconds = 0;
  bool compacted = false;
  double compact_seconds = 0;
};
Status update(const UpdateRequest& request, UpdateReport* report);
// Merges a graph's updates into its edge data (`shardgraph compact`);
// *updates is 0 when it had none (nothing is written).
struct CompactReport {
  uint64_t updates = 0, vertices = 0, edges = 0, stored_bytes = 0;
  double seconds = 0;
  // A run was reading the old generation: it stays, hidden beside the
  // graph, until the next compaction or gc after that run.
  bool old_generation_kept = false;
  // "merged into its chunks" (each space read once and written once), or
  // "re-ingested: " and why (a graph of an older format version).
  std::string method;
};
// `window_bytes`: the windows a merge reads (tests: tiny windows split
// lists); 0 = from the budget.
Status compact(const std::string& graph, uint64_t memory_bytes, CompactReport* report, const Callbacks& callbacks = {},
               uint64_t window_bytes = 0);
// Removes what killed ingests left in `dirs`; returns the paths removed.
Status collect_garbage(const std::vector<std::string>& dirs, std::vector<std::string>* removed, uint64_t* bytes_freed);

// Measures a device directory for the cost model (written beside it).
struct DeviceMeasurement {
  double sequential_bytes_per_second = 0;
  int queue_depth = 0;
  struct Read {
    uint64_t bytes = 0;
    double seconds = 0;
  };
  std::vector<Read> random_reads;
  std::string profile_path;
};
Status calibrate(const std::string& dir, uint64_t file_bytes, DeviceMeasurement* measurement);

// Reads an input through its edge reader, discarding the arcs: how fast it
// parses. One JSON object.
Status scan_input(const std::string& input, const std::string& format, int threads, std::string* json);

// ---- Runs

struct AppInfo {
  std::string name;
  std::string description;
  std::vector<std::string> options;  // the run options it reads besides the common ones
  std::string iterations;            // what --iterations means for it ("" if nothing)
  std::vector<std::string> columns;  // its per-vertex result columns
  bool needs_undirected = false;
  bool reversed_steps = false;  // steps over the transposed graph
  bool needs_weights = false;   // refused on an unweighted graph unless unit weights are asked for
};
// Every app, in name order (as the CLI lists them).
const std::vector<AppInfo>& apps();
const AppInfo* find_app(const std::string& name);

// The fields up to `window_bytes` are the table's options (set them
// directly or through set_option); those after it are the caller's
// plumbing, not options a user gives.
struct RunRequest {
  std::string app;
  std::string graph;               // a graph directory, or a partitioned one (run under mpirun)
  std::optional<uint64_t> source;  // original id; default: the vertex with most out-edges
  int iterations = 0;              // 0: the app's default
  double tolerance = 0;
  int threads = 0;  // 0: all cores
  uint64_t memory_bytes = uint64_t{1} << 30;
  std::string io = "auto";           // auto | full | selective
  std::string io_backend = "auto";   // auto | uring | psync
  std::string device_class = "hdd";  // preset for uncalibrated devices: hdd | ssd | nvme
  bool cache = true;
  bool decoded_cache = true;
  bool unit_weights = false;            // sssp
  bool parents = false;                 // bfs: a parent column too
  int top = 10;                         // vertices the summary lists, where it lists any
  std::string scratch_dir;              // file-backed vertex arrays; "": the graph directory if writable, else $TMPDIR
  std::string output;                   // "id value..." lines, sorted by original id
  std::string output_format = "plain";  // plain | graphalytics (unreachable as 9223372036854775807 / infinity)
  std::string stats;                    // per-step statistics as JSON
  uint64_t window_bytes = 0;            // tests: a small I/O window
  // Plumbing.
  // RunResult::stats_json filled (what `stats` writes, without the file).
  // A run of many steps spends more on it than on the steps themselves (a
  // BFS along a path of 200,000 vertices: 2.8 s of steps, 17 s of JSON),
  // so the CLI asks for it only with --stats.
  bool keep_stats = true;
  bool collect = false;     // typed columns into RunResult
  std::string columns_dir;  // typed columns as NumPy files there: ids.npy and COLUMN.npy (the directory must exist)
  bool quiet = false;       // notices only in RunResult::notices, not on stderr
};

// ---- Options: one table per command
// Each option of `ingest` and of `run` is one row of its command's table
// (apps/api/*_option_table.cc): the CLI's flags and help, Python's keyword
// arguments and set_option() all come from it, and a string is parsed in
// one place, set_option.
struct OptionInfo {
  std::string name;  // the CLI's --name; Python's keyword is the name with '_' for '-'
  // flag (true | false; the CLI's --name, or --no-name when the default is
  // true) | switch (auto | always | never; the CLI's --name and --no-name)
  // | count | number | size (64M, 2G, 4096) | text (one of `choices` when
  // there are any) | list (repeatable: each text adds one value).
  std::string kind;
  std::string default_text;  // as --help shows it; "" when there is none
  std::string help;
  std::vector<std::string> choices;
  bool hidden = false;  // for tests: not in --help
};
const std::vector<OptionInfo>& run_option_table();
const std::vector<OptionInfo>& ingest_option_table();
// Sets the option `name` of *request from text as the CLI takes it;
// InvalidArgument naming the option ("--io must be auto, full or
// selective, not 'x'") or an unknown name.
Status set_option(RunRequest* request, const std::string& name, const std::string& value);
// Each option's value in *request as text set_option takes, in the
// table's order ("" for an unset source); --stats records them.
std::vector<std::pair<std::string, std::string>> option_values(const RunRequest& request);
Status set_option(IngestRequest* request, const std::string& name, const std::string& value);
std::vector<std::pair<std::string, std::string>> option_values(const IngestRequest& request);

enum class ValueType : uint8_t { kInt32, kUint32, kInt64, kUint64, kFloat32, kFloat64 };
const char* value_type_name(ValueType type);  // "int32", ..., as NumPy names them

struct ResultColumn {
  std::string name;  // "rank", "depth", "parent", ...
  ValueType type = ValueType::kFloat64;
  std::vector<uint8_t> bytes;  // one value a vertex, in the order of RunResult::ids
  template <typename T>
  const T* values() const {
    return reinterpret_cast<const T*>(bytes.data());
  }
};

struct RunResult {
  std::string summary;     // the lines the CLI prints
  std::string facts_json;  // the app's own figures ({"iterations": 10}, ...)
  std::string stats_json;  // what --stats writes
  std::string notices;     // what the run noted (a preset profile used, arrays over the budget, ...), a line each
  // With collect: every vertex's original id, in increasing order, and the
  // columns (with columns_dir: their names and types, the values in the files).
  std::vector<uint64_t> ids;
  std::vector<ResultColumn> columns;
  bool report_error = true;  // false on MPI ranks that leave an agreed error to rank 0
};
Status run(const RunRequest& request, RunResult* result, const Callbacks& callbacks = {});

}  // namespace shardgraph
