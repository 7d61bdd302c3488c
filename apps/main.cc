// shardgraph command line (DESIGN §8). Exit codes: 0 ok, 1 runtime error,
// 2 usage error. Errors are one line on stderr.
#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <malloc.h>
#include <unistd.h>

#include "apps/cli_util.h"
#include "apps/generate.h"
#include "apps/graph_info.h"
#include "apps/ingest_ordered.h"
#include "apps/partition.h"
#include "apps/run_command.h"
#include "scheduler/calibrate.h"
#include "shards/format/graph.h"
#include "shards/format/manifest.h"
#include "shards/ingest/ingest.h"
#include "shards/format/restripe.h"
#include "shards/util/interrupt.h"
#include "shards/ingest/leftovers.h"
#include "shards/format/verify.h"
#include "shards/ingest/edge_reader.h"

#include <tbb/global_control.h>

#include <chrono>
#include <memory>

namespace {

constexpr int kExitRuntime = 1;
constexpr int kExitUsage = 2;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

constexpr const char* kShardgraphVersion = "0.4.0";  // ingest v2

// Option checks with messages a user reads in one go.
const CLI::Validator kAtLeastOne(
    [](std::string& text) {
      long long value = 0;
      return (CLI::detail::lexical_cast(text, value) && value >= 1) ? std::string() : "must be a whole number of at least 1";
    },
    "N>=1");
const CLI::Validator kNotNegative(
    [](std::string& text) {
      double value = 0;
      return (CLI::detail::lexical_cast(text, value) && value >= 0) ? std::string() : "must not be negative";
    },
    "X>=0");

int fail(const sg::Status& status) {
  std::fprintf(stderr, "shardgraph: error: %s\n", status.message().c_str());
  return status.code() == sg::Status::Code::kInvalidArgument ? kExitUsage : kExitRuntime;
}

uint64_t size_option(const std::string& name, const std::string& text) {
  uint64_t bytes = 0;
  if (!sg::parse_size(text, &bytes)) throw UsageError(name + ": '" + text + "' is not a size (e.g. 64M, 2G, 4096)");
  return bytes;
}

uint64_t count_option(const std::string& name, const std::string& text) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) throw UsageError(name + ": '" + text + "' is not a whole number");
  return value;
}

// --memory: a size, or "auto" (from the cgroup limit and available memory;
// the choice is printed on a terminal, so an error stays one line for
// scripts; --stats records the budget).
uint64_t memory_option(const std::string& text) {
  if (text != "auto") return size_option("--memory", text);
  const sg::MemoryLimits limits = sg::memory_limits();
  const uint64_t budget = sg::auto_memory_budget(limits);
  auto mib = [](uint64_t bytes) { return bytes == UINT64_MAX ? std::string("none") : std::to_string(bytes >> 20) + " MiB"; };
  if (::isatty(2) != 0) {
    std::fprintf(stderr, "shardgraph: --memory auto = %s (cgroup limit %s, available %s)\n", mib(budget).c_str(),
                 mib(limits.cgroup_limit_bytes).c_str(), mib(limits.available_bytes).c_str());
  }
  return budget;
}

struct GenerateArgs {
  std::string kind;
  sg::RmatOptions rmat;
  sg::GridOptions grid;
  bool no_shuffle = false;
  std::string output;
};

int run_generate(GenerateArgs& a, const CLI::Option* scale, const CLI::Option* rows) {
  sg::Status s;
  if (a.kind == "rmat") {
    if (scale->count() == 0) throw UsageError("generate rmat needs --scale");
    s = sg::generate_rmat(a.rmat, a.output);
  } else {
    if (rows->count() == 0) throw UsageError("generate grid needs --rows and --cols");
    a.grid.seed = a.rmat.seed;
    a.grid.weights = a.rmat.weights;
    a.grid.shuffle = !a.no_shuffle;
    s = sg::generate_grid(a.grid, a.output);
  }
  if (!s.ok()) {
    std::remove(a.output.c_str());  // never leave a truncated edge list behind
    return fail(s);
  }
  return 0;
}

struct IngestArgs {
  sg::IngestOptions options;
  std::string memory = "auto", chunk = "256K", stripe = "auto", blocks = "auto";
};

int run_ingest(IngestArgs& a) {
  a.options.memory_bytes = memory_option(a.memory);
  const uint64_t chunk = size_option("--chunk-bytes", a.chunk);
  if (chunk > (uint64_t{1} << 30)) throw UsageError("--chunk-bytes must be at most 1G");
  a.options.chunk_bytes = static_cast<uint32_t>(chunk);
  a.options.stripe_bytes = a.stripe == "auto" ? 0 : size_option("--stripe-bytes", a.stripe);
  if (a.blocks != "auto") {
    const uint64_t blocks = count_option("--blocks", a.blocks);
    if (blocks == 0 || blocks > 4096) throw UsageError("--blocks must be auto or 1 to 4096");
    a.options.blocks = static_cast<uint32_t>(blocks);
  }
  a.options.progress = ::isatty(2) != 0;
  sg::IngestSummary summary;
  sg::Status s = sg::ingest_ordered(a.options, &summary);
  if (!s.ok()) return fail(s);
  if (!summary.note.empty()) std::fprintf(stderr, "shardgraph: %s\n", summary.note.c_str());
  std::printf("ingested %s -> %s: %llu vertices, %llu edges, %u intervals, %llu bytes (%.3f bytes/edge), %llu sort batches, %.2f s (%s), peak RSS %llu KiB\n",
              a.options.input.c_str(), a.options.output.c_str(), static_cast<unsigned long long>(summary.num_vertices),
              static_cast<unsigned long long>(summary.num_edges), summary.intervals,
              static_cast<unsigned long long>(summary.stored_bytes),
              summary.num_edges ? static_cast<double>(summary.stored_bytes) / static_cast<double>(summary.num_edges) : 0.0,
              static_cast<unsigned long long>(summary.sorted_runs), summary.seconds, summary.phases.c_str(),
              static_cast<unsigned long long>(sg::peak_rss_bytes() / 1024));
  return 0;
}

int run_gc(const std::vector<std::string>& dirs) {
  sg::LeftoverReport report;
  for (const std::string& dir : dirs) {
    sg::Status s = sg::remove_leftovers(dir, &report);
    if (!s.ok()) return fail(s);
  }
  for (const std::string& path : report.removed) std::printf("removed %s\n", path.c_str());
  std::printf("gc: %llu leftovers removed, %llu bytes freed\n", static_cast<unsigned long long>(report.entries),
              static_cast<unsigned long long>(report.bytes));
  return 0;
}

int run_info(const std::string& dir, bool as_json) {
  std::error_code ec;
  if (!as_json && std::filesystem::exists(dir + "/partition.json", ec)) {
    std::string text;
    sg::Status s = sg::partition_info_text(dir, &text);
    if (!s.ok()) return fail(s);
    std::fputs(text.c_str(), stdout);
    return 0;
  }
  sg::Graph graph;
  sg::Status s = sg::Graph::open(dir, &graph);
  if (!s.ok()) return fail(s);
  std::fputs((as_json ? sg::graph_info_json(graph) : sg::graph_info_text(graph)).c_str(), stdout);
  return 0;
}

int run_verify(const std::string& dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir + "/partition.json", ec)) {
    uint64_t arcs = 0;
    sg::Status s = sg::verify_partition(dir, &arcs);
    if (!s.ok()) {
      std::fprintf(stderr, "shardgraph: verify failed: %s\n", s.message().c_str());
      return kExitRuntime;
    }
    std::printf("ok: partitioned graph, %llu arcs in its parts\n", static_cast<unsigned long long>(arcs));
    return 0;
  }
  sg::Graph graph;
  sg::Status s = sg::Graph::open(dir, &graph);
  if (!s.ok()) return fail(s);
  sg::VerifyReport report;
  s = sg::verify_graph(graph, &report);
  if (!s.ok()) {
    std::fprintf(stderr, "shardgraph: verify failed: %s\n", s.message().c_str());
    return kExitRuntime;
  }
  std::printf("ok: %llu chunks, %llu arcs, %llu bytes checked\n", static_cast<unsigned long long>(report.chunks),
              static_cast<unsigned long long>(report.arcs), static_cast<unsigned long long>(report.bytes));
  return 0;
}

struct PartitionArgs {
  sg::PartitionOptions options;
  std::string memory = "1G";
  std::vector<std::string> devices;  // PART:DIR
};

int run_partition(PartitionArgs& a) {
  a.options.memory_bytes = memory_option(a.memory);
  for (const std::string& device : a.devices) {
    const size_t colon = device.find(':');
    const std::string number = colon == std::string::npos ? std::string() : device.substr(0, colon);
    const bool digits = !number.empty() && number.size() < 6 && number.find_first_not_of("0123456789") == std::string::npos;
    const uint64_t part = digits ? std::stoull(number) : UINT64_MAX;
    if (!digits || colon + 1 == device.size() || part >= a.options.parts) {
      throw UsageError("--device '" + device + "': expected PART:DIR with PART below --parts");
    }
    a.options.part_devices.resize(a.options.parts);
    a.options.part_devices[part].push_back(device.substr(colon + 1));
  }
  sg::PartitionSummary summary;
  sg::Status s = sg::partition_graph(a.options, &summary);
  if (!s.ok()) return fail(s);
  std::printf("partitioned %s -> %s: %zu parts in %.2f s\n", a.options.graph.c_str(), a.options.output.c_str(), summary.parts.size(),
              summary.seconds);
  for (size_t k = 0; k < summary.parts.size(); ++k) {
    std::printf("part-%zu: vertices [%u, %u), %llu arcs\n", k, summary.parts[k].begin, summary.parts[k].end,
                static_cast<unsigned long long>(summary.parts[k].arcs));
  }
  return 0;
}

struct RunArgs {
  sg::RunOptions options;
  std::string memory = "auto", backend = "auto", io = "auto", output_format = "plain";
  bool no_cache = false, no_decoded_cache = false;
  uint64_t source = 0;
};

int run_run(RunArgs& a, const CLI::Option* source_option) {
  a.options.memory_bytes = memory_option(a.memory);
  if (!sg::parse_backend(a.backend, &a.options.backend)) throw UsageError("--io-backend must be auto, uring or psync");
  if (!sg::parse_io_mode(a.io, &a.options.io_mode)) throw UsageError("--io must be auto, full or selective");
  a.options.graphalytics_output = a.output_format == "graphalytics";
  a.options.cache = !a.no_cache;
  a.options.decoded_cache = !a.no_decoded_cache;
  if (source_option->count() > 0) a.options.source = a.source;
  a.options.progress = ::isatty(2) != 0;
  std::string summary;
  bool report_error = true;
  sg::Status s = sg::run_app(a.options, &summary, &report_error);
  if (!s.ok()) {
    if (a.options.progress) std::fputc('\n', stderr);
    if (!report_error) return s.code() == sg::Status::Code::kInvalidArgument ? kExitUsage : kExitRuntime;
    return fail(s);
  }
  std::fputs(summary.c_str(), stdout);
  return 0;
}

// Reads an input through its edge reader and discards the arcs: how fast
// the input parses or decodes, apart from ingest. One JSON line.
int run_scan(const std::string& input, const std::string& format_name_arg, int threads) {
  std::unique_ptr<tbb::global_control> limit;
  if (threads > 0) limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(threads));
  sg::InputFormat format;
  sg::Status s = sg::resolve_format(input, format_name_arg, &format);
  std::unique_ptr<sg::EdgeReader> reader;
  if (s.ok()) s = sg::open_edge_reader(input, format, false, &reader);
  if (!s.ok()) return fail(s);
  const auto start = std::chrono::steady_clock::now();
  std::vector<sg::RawEdge> batch;
  uint64_t arcs = 0, checksum = 0;
  for (;;) {
    s = reader->next_batch(&batch, 1 << 16);
    if (!s.ok()) return fail(s);
    if (batch.empty()) break;
    arcs += batch.size();
    for (const sg::RawEdge& e : batch) checksum += e.src * 31 + e.dst;  // keeps the reads
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("{\"input\":\"%s\",\"format\":\"%s\",\"threads\":%d,\"arcs\":%llu,\"seconds\":%.4f,\"arcs_per_second\":%.0f,\"id_sum\":%llu}\n",
              input.c_str(), sg::format_name(format), threads, static_cast<unsigned long long>(arcs), seconds,
              static_cast<double>(arcs) / std::max(seconds, 1e-9), static_cast<unsigned long long>(checksum));
  return 0;
}

int run_calibrate(const std::vector<std::string>& dirs, const std::string& size) {
  sg::CalibrateOptions options;
  options.file_bytes = size_option("--bytes", size);
  if (options.file_bytes < (16 << 20)) throw UsageError("--bytes must be at least 16M");
  for (const std::string& dir : dirs) {
    sg::DeviceProfile profile;
    sg::Status s = sg::calibrate_device(dir, options, &profile);
    if (!s.ok()) return fail(s);
    std::printf("%s: sequential %.1f MB/s; random reads (queue depth %d):\n", dir.c_str(),
                profile.sequential_bytes_per_second / 1e6, options.queue_depth);
    std::printf("  %10s %12s %12s %10s\n", "bytes", "ms/request", "requests/s", "MB/s");
    for (const sg::RequestCost& r : profile.random_reads) {
      std::printf("  %10llu %12.3f %12.1f %10.1f\n", static_cast<unsigned long long>(r.bytes), r.seconds * 1e3, 1.0 / r.seconds,
                  static_cast<double>(r.bytes) / r.seconds / 1e6);
    }
    std::printf("  profile written to %s/%s\n", dir.c_str(), sg::kProfileFileName);
  }
  return 0;
}

int run_restripe(const std::string& dir, sg::RestripeOptions& options, const std::string& stripe) {
  if (stripe == "auto") options.auto_stripe = true;
  else if (!stripe.empty()) options.stripe_bytes = size_option("--stripe-bytes", stripe);
  sg::Status s = sg::restripe_graph(dir, options);
  if (!s.ok()) return fail(s);
  std::printf("restriped %s onto %zu device(s)\n", dir.c_str(), std::max<size_t>(options.devices.size(), 1));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // RSS should track what is in use (the budget): two malloc arenas, not
  // one per thread, and blocks of 64 KiB or more always mmapped, so a freed
  // cached chunk (256 KiB), window or frontier goes back to the system at
  // once (glibc would otherwise raise its threshold after the first large
  // free and keep freed blocks as holes in the heap).
  mallopt(M_ARENA_MAX, 2);
  mallopt(M_MMAP_THRESHOLD, 64 << 10);
  CLI::App app{"shardgraph: out-of-core graph processing from one disk or an array of disks"};
  app.set_version_flag("--version", std::string("shardgraph ") + kShardgraphVersion + " (writes format version " +
                                        std::to_string(sg::kFormatVersion) + ", codec " + sg::kCodecName + "; reads versions " +
                                        std::to_string(sg::kOldestFormatVersion) + " to " + std::to_string(sg::kFormatVersion) + ")");
  app.require_subcommand(1);

  GenerateArgs gen;
  auto* generate = app.add_subcommand("generate", "write a synthetic edge list");
  generate->add_option("kind", gen.kind, "generator: rmat | grid")->required()->check(CLI::IsMember({"rmat", "grid"}));
  const CLI::Option* scale_option = generate->add_option("--scale", gen.rmat.scale, "rmat: log2 of the vertex count");
  generate->add_option("--edge-factor", gen.rmat.edge_factor, "rmat: edges per vertex")->capture_default_str();
  const CLI::Option* rows_option = generate->add_option("--rows", gen.grid.rows, "grid: rows");
  generate->add_option("--cols", gen.grid.cols, "grid: columns");
  generate->add_flag("--no-shuffle", gen.no_shuffle, "grid: keep row-major ids");
  generate->add_option("--seed", gen.rmat.seed, "random seed")->capture_default_str();
  generate->add_flag("--weights", gen.rmat.weights, "add integer weights 1..255");
  generate->add_option("-o,--output", gen.output, "edge list file (.gz = gzip text, .bin32/.bin64 = binary)")->required();

  IngestArgs ing;
  ing.options.order = "auto";  // the default layout (README: orders)
  auto* ingest = app.add_subcommand("ingest", "build a graph directory from an edge list");
  ingest->add_option("input", ing.options.input, "edge list (SNAP text, .mtx, .bin32, .bin64; .gz ok)")->required();
  ingest->add_option("-o,--output", ing.options.output, "graph directory to create")->required();
  ingest->add_option("--format", ing.options.format, "snap|mtx|bin32|bin64|graph|webgraph|dimacs|graphalytics (default: from the name)")
      ->check(CLI::IsMember({"snap", "mtx", "bin32", "bin64", "graph", "webgraph", "dimacs", "graphalytics"}));
  ingest->add_flag("--weights", ing.options.binary_weights, "binary input records carry a float32 weight");
  ingest->add_flag("--undirected", ing.options.undirected, "treat every edge as undirected");
  ingest->add_flag("--drop-self-loops", ing.options.drop_self_loops, "remove edges v->v");
  ingest->add_flag("--dedup", ing.options.dedup, "remove duplicate edges (keeps the smallest weight)");
  ingest->add_flag("--remap", ing.options.remap, "map sparse or 64-bit ids to dense ids (map stored)");
  ingest->add_option("--order", ing.options.order, "vertex ordering: auto (bfds unless the input order compresses better) | bfds | bfs | degree | none; skipped with a note when 25 bytes a vertex exceed --memory (see README)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "none", "bfds", "bfs", "degree"}));
  ingest->add_option("--memory", ing.memory, "memory budget (e.g. 64M, 2G) or auto: 3/4 of the cgroup limit or available memory, less 16 MiB")->capture_default_str();
  ingest->add_option("--chunk-bytes", ing.chunk, "target chunk size")->capture_default_str();
  ingest->add_option("--intervals", ing.options.intervals, "vertex intervals (default: from the budget)")
      ->check(kAtLeastOne);
  ingest->add_option("--blocks", ing.blocks, "2-D blocks a space (each holds the lists' neighbours in one vertex range; 1 = 1-D); auto: 1 while 4 bytes a vertex fit half of --memory, else ranges of 4 bytes a vertex in a quarter of it")->capture_default_str();
  ingest->add_option("--device", ing.options.devices, "device directory for edge data (repeatable)");
  ingest->add_option("--stripe-bytes", ing.stripe, "stripe depth across devices (multiple of 4K; auto: 1M..8M, >= 32 stripes per device)")->capture_default_str();

  std::string info_dir;
  bool info_json = false;
  auto* info = app.add_subcommand("info", "describe a graph");
  info->add_option("graph", info_dir, "graph directory")->required();
  info->add_flag("--json", info_json, "print JSON");

  std::string scan_input, scan_format;
  int scan_threads = 0;
  auto* scan = app.add_subcommand("scan", "read an input edge list (any format) and report how fast it parses, as JSON");
  scan->add_option("input", scan_input, "input, as for ingest")->required();
  scan->add_option("--format", scan_format, "as for ingest");
  scan->add_option("--threads", scan_threads, "decoding threads (default: all cores)")->check(CLI::Range(1, 1024));

  std::string verify_dir;
  auto* verify = app.add_subcommand("verify", "re-read and check every chunk of a graph");
  verify->add_option("graph", verify_dir, "graph directory")->required();

  PartitionArgs partition_args;
  auto* partition = app.add_subcommand("partition", "cut a directed graph into parts by destination range, for a run over MPI (docs/scale-out.md)");
  partition->add_option("graph", partition_args.options.graph, "graph directory")->required();
  partition->add_option("--parts", partition_args.options.parts, "number of parts")->required()->check(CLI::Range(1, 1 << 16));
  partition->add_option("-o,--output", partition_args.options.output, "output directory (must not exist)")->required();
  partition->add_option("--memory", partition_args.memory, "memory budget of each part's ingest")->capture_default_str();
  partition->add_option("--device", partition_args.devices,
                        "PART:DIR: a device directory for part PART's edge data (repeatable, also per part; default: the part's directory)");

  RunArgs run_args;
  auto* run = app.add_subcommand("run", "run an algorithm on a graph");
  run->add_option("app", run_args.options.app,
                  "pagerank | pagerank-delta | spmv | bfs | wcc | sssp | kcore | betweenness | cdlp | lcc | triangles")
      ->required()
      ->check(CLI::IsMember({"pagerank", "pagerank-delta", "spmv", "bfs", "wcc", "sssp", "kcore", "betweenness", "cdlp", "lcc",
                             "triangles"}));
  run->add_option("graph", run_args.options.graph, "graph directory")->required();
  const CLI::Option* source_option =
      run->add_option("--source", run_args.source, "source vertex (original id) for bfs/sssp")->check(kNotNegative);
  run->add_option("--iterations", run_args.options.iterations,
                  "pagerank iterations (default 20) / pagerank-delta max rounds (100) / spmv products (1) / cdlp iterations (10)")
      ->check(kAtLeastOne);
  run->add_option("--tolerance", run_args.options.tolerance,
                  "pagerank: stop when the L1 change is below this; pagerank-delta: epsilon (default 0.01)")
      ->check(kNotNegative);
  run->add_option("--threads", run_args.options.threads, "compute threads, 1 to 1024 (default: all cores)")
      ->check(CLI::Range(1, 1024));
  run->add_option("--memory", run_args.memory, "memory budget (e.g. 256M) or auto: 3/4 of the cgroup limit or available memory, less 16 MiB")->capture_default_str();
  run->add_option("--io-backend", run_args.backend, "auto | uring | psync")->capture_default_str();
  run->add_option("--io", run_args.io, "auto (cost model) | full (scans) | selective (chunk reads)")->capture_default_str();
  run->add_option("--device-class", run_args.options.device_class, "preset for uncalibrated devices: hdd | ssd | nvme")
      ->capture_default_str()
      ->check(CLI::IsMember({"hdd", "ssd", "nvme"}));
  run->add_flag("--no-cache", run_args.no_cache, "do not keep chunks in spare memory");
  run->add_option("--scratch-dir", run_args.options.scratch_dir,
                  "directory for vertex arrays beyond --memory (default: the graph directory if writable, else $TMPDIR)");
  run->add_flag("--no-decoded-cache", run_args.no_decoded_cache,
                "keep spare memory for compressed chunks only (no decoded windows)");
  run->add_option("--output", run_args.options.output, "write one 'id value' line per vertex");
  run->add_option("--format", run_args.output_format, "--output's conventions: plain (unreachable -1 / inf) or graphalytics (9223372036854775807 / infinity)")
      ->check(CLI::IsMember({"plain", "graphalytics"}))
      ->capture_default_str();
  run->add_option("--stats", run_args.options.stats, "write per-step statistics as JSON");
  run->add_flag("--unit-weights", run_args.options.unit_weights, "sssp: weight 1 for every edge");
  run->add_flag("--parents", run_args.options.parents, "bfs: also write each vertex's parent");
  run->add_option("--top", run_args.options.top, "pagerank/spmv: print this many top vertices")
      ->capture_default_str()
      ->check(kNotNegative);

  std::vector<std::string> calibrate_dirs;
  std::string calibrate_bytes = "256M";
  auto* calibrate = app.add_subcommand("calibrate", "measure devices and store their profiles for the cost model");
  calibrate->add_option("dirs", calibrate_dirs, "device directories")->required()->check(CLI::ExistingDirectory);
  calibrate->add_option("--bytes", calibrate_bytes, "scratch file size per device")->capture_default_str();

  std::string restripe_dir, restripe_stripe;
  sg::RestripeOptions restripe_options;
  auto* restripe = app.add_subcommand("restripe", "rewrite a graph's edge data onto new devices / stripe depth");
  restripe->add_option("graph", restripe_dir, "graph directory")->required();
  restripe->add_option("--device", restripe_options.devices, "new device directory (repeatable; none = the graph directory)");
  restripe->add_option("--stripe-bytes", restripe_stripe, "new stripe depth, or auto (default: keep)");

  std::vector<std::string> gc_dirs;
  auto* gc = app.add_subcommand("gc", "remove what killed ingests left behind (their process is gone)");
  gc->add_option("dirs", gc_dirs, "directories to clean: a graph's parent directory, device directories")
      ->required()
      ->check(CLI::ExistingDirectory);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    const int rc = app.exit(e);
    if (std::getenv("SHARDGRAPH_REPORT_RSS") != nullptr) std::printf("peak RSS %llu KiB\n", static_cast<unsigned long long>(sg::peak_rss_bytes() / 1024));
    return rc;
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "shardgraph: usage error: %s (see --help)\n", e.what());
    return kExitUsage;
  }
  sg::install_interrupt_handlers();
  try {
    if (*generate) return run_generate(gen, scale_option, rows_option);
    if (*ingest) return run_ingest(ing);
    if (*info) return run_info(info_dir, info_json);
    if (*verify) return run_verify(verify_dir);
    if (*partition) return run_partition(partition_args);
    if (*scan) return run_scan(scan_input, scan_format, scan_threads);
    if (*run) return run_run(run_args, source_option);
    if (*calibrate) return run_calibrate(calibrate_dirs, calibrate_bytes);
    if (*restripe) return run_restripe(restripe_dir, restripe_options, restripe_stripe);
    if (*gc) return run_gc(gc_dirs);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "shardgraph: usage error: %s\n", e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "shardgraph: error: %s\n", e.what());
    return kExitRuntime;
  }
  return kExitUsage;
}
