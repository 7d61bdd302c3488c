#include "apps/run/run_app.h"

#include <tbb/global_control.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>

#include "apps/jobs/partition.h"
#include "apps/run/app_table.h"
#include "apps/run/npy_columns.h"
#include "base/process_memory.h"
#include "base/seconds_since.h"
#include "shards/format/graph_overlay.h"

namespace sg {
namespace {

// A rank's second engine, over its reverse part.
constexpr MemoryShare kReverseEngineShare{"reverse_engine", 4};

// Per device over the whole run: bytes, requests, busy time, achieved MB/s.
nlohmann::json device_json(const Engine& engine) {
  nlohmann::json devices = nlohmann::json::array();
  for (size_t d = 0; d < engine.device_count(); ++d) {
    const DeviceCounters& c = engine.device_counters(d);
    const double busy = static_cast<double>(c.busy_ns.load()) * 1e-9;
    devices.push_back({{"device", engine.graph().manifest().devices[d]},
                       {"bytes", c.bytes.load()},
                       {"requests", c.requests.load()},
                       {"busy_seconds", busy},
                       {"mb_per_s", busy > 0 ? static_cast<double>(c.bytes.load()) / busy / 1e6 : 0.0}});
  }
  return devices;
}

nlohmann::json totals_json(const Engine& engine, double seconds) {
  const RunTotals totals = engine.run_totals();
  return {{"seconds", seconds},
          {"bytes_read", totals.bytes_read},
          {"requests", totals.requests},
          {"io_wait_seconds", totals.io_wait_seconds}};
}

// --stats goes out a piece at a time: a run's thousands of steps held as
// one JSON document, then as its text, took several times the file's size
// (a rank of k-core on R-MAT 24 in 64 MiB was killed writing 30 MB).
using StatsSink = std::function<bool(std::string_view)>;

// What --stats writes before the steps: the run's settings, totals and devices.
nlohmann::json stats_head(const RunOptions& o, const Engine& engine, double seconds, const nlohmann::json& facts) {
  nlohmann::json j{{"app", o.app},
                   {"graph", o.graph},
                   {"vertices", engine.num_vertices()},
                   {"edges", engine.graph().manifest().num_edges},
                   {"io_backend", backend_name(engine.backend())},
                   {"io_mode", io_mode_name(o.io_mode)},
                   {"cache_bytes", engine.cache_bytes()},
                   {"decoded_cache_bytes", engine.decoded_cache_bytes()},
                   {"cache_evictions", engine.cache_evictions()},
                   {"threads", o.threads},
                   {"memory_bytes", o.memory_bytes},
                   {"memory_planned_bytes", engine.peak_memory_used()},
                   {"vertex_bytes_loaded", engine.vertex_bytes_loaded()},
                   {"vertex_bytes_written", engine.vertex_bytes_written()},
                   {"vertex_state_bytes", engine.vertex_state_peak_bytes()},
                   {"vertex_ranges_peak_bytes", engine.vertex_ranges_peak_bytes()},
                   {"vertex_state_needed_bytes", engine.vertex_state_needed_bytes()},
                   {"scratch_bytes_read", engine.scratch_bytes_read()},
                   {"scratch_bytes_written", engine.scratch_bytes_written()},
                   {"peak_rss_bytes", peak_rss_bytes()}};
  j.update(totals_json(engine, seconds));
  nlohmann::json shares = nlohmann::json::object();
  for (const auto& [name, bytes] : engine.budget().shares_given()) shares[name] = bytes;
  j["memory_shares"] = shares;
  nlohmann::json options = nlohmann::json::object();
  for (const auto& [name, value] : o.options) options[name] = value;
  j["options"] = options;
  j["notices"] = engine.notices();
  j["devices"] = device_json(engine);
  j["result"] = facts;
  j["iteration_seconds"] = engine.iteration_seconds();
  j["steps_folded"] = engine.folded_steps();  // into the totals: a long run keeps its first and last steps
  return j;
}

// The head's members, then "steps" and (distributed) "ranks", each element
// made and handed to `put` alone; false when `put` failed.
bool put_stats(const nlohmann::json& head, const std::vector<StepStats>& steps, const std::vector<std::string>& ranks,
               const StatsSink& put) {
  std::string text = head.dump(1);
  text.resize(text.size() - 2);  // the closing "\n}"
  bool ok = put(text) && put(",\n \"steps\": [");
  for (size_t i = 0; ok && i < steps.size(); ++i)
    ok = put(i == 0 ? "\n  " : ",\n  ") && put(step_json(steps[i]).dump());
  ok = ok && put("\n ]");
  if (!ranks.empty()) {
    ok = ok && put(",\n \"ranks\": [");
    for (size_t i = 0; ok && i < ranks.size(); ++i) ok = put(i == 0 ? "\n  " : ",\n  ") && put(ranks[i]);
    ok = ok && put("\n ]");
  }
  return ok && put("\n}\n");
}

Status write_stats(const std::string& path, const nlohmann::json& head, const std::vector<StepStats>& steps,
                   const std::vector<std::string>& ranks) {
  std::unique_ptr<FILE, int (*)(FILE*)> out(std::fopen(path.c_str(), "w"), &std::fclose);
  const bool ok = out && put_stats(head, steps, ranks, [&](std::string_view piece) {
                    return std::fwrite(piece.data(), 1, piece.size(), out.get()) == piece.size();
                  });
  if (!ok || std::fclose(out.release()) != 0) return Status::IOError(path + ": cannot write stats");
  return Status::OK();
}

// The summary's last line.
std::string run_line(const Engine& engine, double seconds) {
  const RunTotals totals = engine.run_totals();
  char line[256];
  std::snprintf(
      line, sizeof(line), "%.3f s, %llu bytes read in %llu requests (%s), I/O wait %.3f s, peak RSS %llu KiB\n",
      seconds, static_cast<unsigned long long>(totals.bytes_read), static_cast<unsigned long long>(totals.requests),
      backend_name(engine.backend()), totals.io_wait_seconds, static_cast<unsigned long long>(peak_rss_bytes() / 1024));
  return line;
}

// One summary line per rank, from its text without its steps.
std::string rank_lines(const std::vector<std::string>& ranks) {
  std::string text;
  char line[256];
  const auto skip_steps = [](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    return !(depth == 1 && event == nlohmann::json::parse_event_t::key && parsed == "steps");
  };
  for (const std::string& rank : ranks) {
    const nlohmann::json r = nlohmann::json::parse(rank, skip_steps);
    std::snprintf(line, sizeof(line), "rank %d: %.3f s, %llu bytes read, %llu sent, %llu received, exchange %.3f s\n",
                  r["rank"].get<int>(), r["seconds"].get<double>(),
                  static_cast<unsigned long long>(r["bytes_read"].get<uint64_t>()),
                  static_cast<unsigned long long>(r["bytes_sent"].get<uint64_t>()),
                  static_cast<unsigned long long>(r["bytes_received"].get<uint64_t>()),
                  r["exchange_seconds"].get<double>());
    text += line;
  }
  return text;
}

// Of the vertices a rank does not own, the share its part reads.
double mirror_fraction(const Engine& engine) {
  const uint64_t others = engine.num_vertices() - (engine.owned_end() - engine.owned_begin());
  return others == 0 ? 0.0 : static_cast<double>(engine.mirrors().count()) / static_cast<double>(others);
}

// What a rank did, for --stats and the summary (docs/scale-out.md), as
// JSON text.
std::string rank_text(const Engine& engine, double seconds) {
  const RunTotals totals = engine.run_totals();
  const ExchangeCounters& c = engine.communicator()->counters();
  std::string steps;
  for (const StepStats& step : engine.steps()) {
    steps += steps.empty() ? "[" : ",";
    steps += nlohmann::json{{"iteration", step.iteration},
                            {"bytes_read", step.bytes_read()},
                            {"bytes_sent", step.bytes_sent},
                            {"bytes_received", step.bytes_received},
                            {"exchange_seconds", step.exchange_seconds},
                            {"active_vertices", step.active_vertices},
                            {"active_owned", step.active_owned},
                            {"next_owned", step.next_owned},
                            {"sources_current", step.sources_current},
                            {"predicted_bytes_received", step.predicted_bytes_received},
                            {"network_seconds", step.network_seconds}}
                 .dump();
  }
  steps += steps.empty() ? "[]" : "]";
  std::string text = nlohmann::json{
      {"rank", engine.communicator()->rank()},
      {"vertices_owned", engine.owned_end() - engine.owned_begin()},
      {"mirrors", engine.mirrors().count()},
      {"mirror_fraction", mirror_fraction(engine)},
      {"mirror_set_bytes", engine.mirrors().bytes()},
      {"vertex_state_bytes", engine.vertex_state_peak_bytes()},
      {"vertex_ranges_peak_bytes", engine.vertex_ranges_peak_bytes()},
      {"vertex_state_needed_bytes", engine.vertex_state_needed_bytes()},
      {"vertex_bytes_loaded", engine.vertex_bytes_loaded()},
      {"vertex_bytes_written", engine.vertex_bytes_written()},
      {"arcs", engine.graph().manifest().num_edges},
      {"seconds", seconds},
      {"bytes_read", totals.bytes_read},
      {"io_wait_seconds", totals.io_wait_seconds},
      {"bytes_sent", c.bytes_sent},
      {"bytes_received", c.bytes_received},
      {"collectives", c.collectives},
      {"exchange_seconds", c.wait_seconds},
      {"network",
       {{"latency_seconds", engine.network().latency_seconds},
        {"bytes_per_second", engine.network().bytes_per_second}}},
      {"peak_rss_bytes",
       peak_rss_bytes()}}.dump();
  text.pop_back();  // the closing brace: the steps go in as text
  return text + ",\"steps\":" + steps + "}";
}

// Every rank's rank_text, in rank order, at rank 0, which reports them;
// the others get none (a collective: a rank's steps can be megabytes).
Status gather_ranks(const Engine& engine, double seconds, std::vector<std::string>* ranks) {
  Communicator* comm = engine.communicator();
  const std::string mine = rank_text(engine, seconds);
  const bool root = comm->rank() == 0;
  std::vector<uint64_t> send_counts(static_cast<size_t>(comm->size()), 0);
  send_counts[0] = root ? 0 : mine.size();
  std::vector<uint8_t> all;
  std::vector<uint64_t> counts;
  SG_RETURN_IF_ERROR(
      comm->all_to_all({reinterpret_cast<const uint8_t*>(mine.data()), send_counts[0]}, send_counts, &all, &counts));
  ranks->clear();
  if (!root) return Status::OK();
  ranks->push_back(mine);
  uint64_t at = counts[0];
  for (size_t r = 1; r < counts.size(); at += counts[r], ++r)
    ranks->emplace_back(reinterpret_cast<const char*>(all.data() + at), counts[r]);
  return Status::OK();
}

// Memory for sorting results out of core: half of what the results' pages
// leave of the unheld budget.
uint64_t sort_bytes(const Engine& engine) {
  const MemoryBudget& budget = engine.budget();
  const uint64_t pages = budget.share(kResultPageShare);
  return budget.unheld() > pages ? (budget.unheld() - pages) / 2 : 0;
}

// The row's run on an opened engine, then the results, the summary and --stats.
Status run_opened(const RunOptions& o, const AppRow& row, Engine* engine, std::chrono::steady_clock::time_point start,
                  bool writes_files, RunOutput* out) {
  SG_RETURN_IF_ERROR(check_app_needs(row, engine->graph(), o.unit_weights));
  AppOptions options;
  options.source = o.source;
  options.iterations = o.iterations;
  options.tolerance = o.tolerance;
  options.unit_weights = o.unit_weights;
  options.needs_ids = writes_files && (!o.output.empty() || o.collect || !o.columns_dir.empty());
  // Only results show parents; every rank computes them (finishing them is collective).
  options.parents = o.parents && (!o.output.empty() || o.collect || !o.columns_dir.empty());
  options.graphalytics_output = o.graphalytics_output;
  options.top = o.top;
  AppOutcome outcome(&engine->graph());
  // Passes over the results page through them and the id map in their share
  // of the budget; the out-of-core sort of lines takes half of what is left.
  const MemoryBudget& budget = engine->budget();
  outcome.pages.limit(budget.share(kResultPageShare));
  AppRun run(engine, options, &outcome);
  try {
    SG_RETURN_IF_ERROR(row.run(run));
    if (writes_files && !o.output.empty()) {
      SG_RETURN_IF_ERROR(write_text_output(o.output, engine->graph(), outcome, sort_bytes(*engine),
                                           engine->scratch_path("output-runs")));
    }
    if (writes_files && o.collect) collect_columns(engine->graph(), outcome, &out->ids, &out->columns);
    if (writes_files && !o.columns_dir.empty()) {
      SG_RETURN_IF_ERROR(write_npy_columns(o.columns_dir, engine->graph(), outcome, sort_bytes(*engine),
                                           engine->scratch_path("column-runs")));
      for (const ResultColumn& c : outcome.columns) out->columns.push_back({c.name, c.type, {}});
    }
  } catch (const ResultsStopped&) {
    return Status::Interrupted("run stopped by a signal");
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (o.progress) o.progress("");
  out->summary = outcome.summary + run_line(*engine, seconds);
  out->facts_json = outcome.facts.dump();
  out->notices = engine->notices();
  std::vector<std::string> ranks;
  if (engine->distributed()) {
    SG_RETURN_IF_ERROR(gather_ranks(*engine, seconds, &ranks));
    out->summary += rank_lines(ranks);
  }
  if (!writes_files || (o.stats.empty() && !o.keep_stats)) return Status::OK();
  const nlohmann::json head = stats_head(o, *engine, seconds, outcome.facts);
  if (o.keep_stats) {
    put_stats(head, engine->steps(), ranks, [&](std::string_view piece) {
      out->stats_json += piece;
      return true;
    });
  }
  return o.stats.empty() ? Status::OK() : write_stats(o.stats, head, engine->steps(), ranks);
}

EngineOptions engine_options(const RunOptions& o) {
  EngineOptions e;
  e.memory_bytes = o.memory_bytes;
  e.backend = o.backend;
  e.io_mode = o.io_mode;
  e.device_class = o.device_class;
  e.cache = o.cache;
  e.decoded_cache = o.decoded_cache;
  e.progress = o.progress;
  e.quiet = o.quiet;
  e.scratch_dir = o.scratch_dir;
  e.label = o.app;
  e.window_bytes = o.window_bytes;
  return e;
}

GraphOpenOptions run_open_options() {
  GraphOpenOptions open_options;
  open_options.id_map = false;   // loaded after the kernel (finish_app)
  open_options.degrees = false;  // the engine reads them, whole or by range (vertex_residency.h)
  return open_options;
}

// Rank k of a distributed run: opens part k of the partitioned graph (and
// its reverse part), and says how the engine is to be one rank.
Status open_rank(const RunOptions& o, Communicator* comm, Graph* graph, Engine* engine, Graph* reverse_graph,
                 Engine* reverse_engine, bool* has_reverse, Distribution* distribution) {
  PartitionLayout layout;
  SG_RETURN_IF_ERROR(read_partition_layout(o.graph, &layout));
  const auto parts = static_cast<int>(layout.ranges.size());
  if (comm->size() != parts) {
    return Status::InvalidArgument(o.graph + " has " + std::to_string(parts) + " parts: run it with mpirun -np " +
                                   std::to_string(parts) + " (this run has " + std::to_string(comm->size()) +
                                   (mpi_available() ? " ranks)" : " rank: this build has no MPI)"));
  }
  const auto k = static_cast<uint32_t>(comm->rank());
  SG_RETURN_IF_ERROR(
      open_part(part_dir(o.graph, k), layout.part_ids[k], layout.num_vertices, run_open_options(), graph));
  if (layout.undirected) graph->view_as_undirected();
  // The engine and the reverse engine share the budget: the reverse one
  // holds only its indexes, I/O windows and cache (a quarter, or its least).
  EngineOptions e = engine_options(o);
  *has_reverse = !layout.reverse_ids.empty() && graph->directed() && find_app_row(o.app)->reversed_steps();
  if (*has_reverse) {
    SG_RETURN_IF_ERROR(open_part(reverse_part_dir(o.graph, k), layout.reverse_ids[k], layout.num_vertices,
                                 run_open_options(), reverse_graph));
    EngineOptions r = e;
    const uint64_t reverse_least = Engine::minimum_memory_bytes(*reverse_graph);
    const uint64_t least = Engine::minimum_memory_bytes(*graph) + reverse_least;
    if (e.memory_bytes < least) {
      const std::string mib = std::to_string((least + (1 << 20) - 1) >> 20);
      return Status::InvalidArgument(
          "--memory is below the " + mib + " MiB a rank of " + o.app +
          " needs (its part's and its reverse part's chunk indexes, frontiers and I/O windows); use --memory " + mib +
          "M or more");
    }
    r.memory_bytes = std::max(MemoryBudget(e.memory_bytes).share(kReverseEngineShare), reverse_least);
    r.progress = nullptr;
    r.label = o.app + ".reverse";
    e.memory_bytes -= r.memory_bytes;
    SG_RETURN_IF_ERROR(reverse_engine->open(*reverse_graph, r));
  }
  SG_RETURN_IF_ERROR(engine->open(*graph, e));
  distribution->communicator = comm;
  for (const PartRange& range : layout.ranges) distribution->bounds.push_back(range.begin);
  distribution->bounds.push_back(static_cast<uint32_t>(layout.num_vertices));
  distribution->out_degree_path = partition_out_degree_path(o.graph);
  distribution->out_degree_checksum = layout.out_degree_checksum;
  return Status::OK();
}

// What the MPI runtime adds to this process once its transport has carried
// a collective like a step's (its libraries' pages, its shared-memory and
// socket buffers): the rank's budget then leaves it out.
Status runtime_memory_bytes(Communicator* comm, uint64_t rss_before, uint64_t* bytes) {
  constexpr size_t kWarmUpBytes = size_t{1} << 20;
  const ExchangeCounters before = comm->counters();
  {
    const std::vector<uint8_t> mine(kWarmUpBytes, 0);
    std::vector<uint8_t> all;
    std::vector<uint64_t> counts;
    SG_RETURN_IF_ERROR(comm->all_gather(mine, &all, &counts));
  }  // the buffers go before the measure
  comm->restore_counters(before);
  const uint64_t now = current_rss_bytes();
  *bytes = now > rss_before ? now - rss_before : 0;
  return Status::OK();
}

// A distributed run's rank (docs/scale-out.md). Errors every rank agreed on
// are reported by rank 0; one rank's own error ends the whole job (the
// others may be waiting for it in a collective).
Status run_rank(const RunOptions& o, const AppRow& row, std::chrono::steady_clock::time_point start, RunOutput* out) {
  struct Finalize {
    ~Finalize() { mpi_finalize(); }
  } finalize;  // after the communicator is gone
  std::string error;
  const uint64_t rss_before = current_rss_bytes();
  std::unique_ptr<Communicator> comm = mpi_available() ? mpi_communicator(&error) : local_communicator();
  if (comm == nullptr) return Status::InvalidArgument(error);
  uint64_t runtime_bytes = 0;
  if (Status warm = runtime_memory_bytes(comm.get(), rss_before, &runtime_bytes); !warm.ok()) return warm;
  Graph graph, reverse_graph;
  Engine engine, reverse_engine;
  bool has_reverse = false;
  Distribution distribution;
  Status s = comm->agree(
      open_rank(o, comm.get(), &graph, &engine, &reverse_graph, &reverse_engine, &has_reverse, &distribution));
  if (s.ok()) engine.hold_runtime_memory(runtime_bytes);
  if (s.ok()) s = engine.distribute(distribution, has_reverse ? &reverse_engine : nullptr);
  if (s.ok()) s = comm->agree(engine.measure_network());  // every rank opened: the link is measured together
  if (s.ok()) s = run_opened(o, row, &engine, start, comm->rank() == 0, out);
  if (!s.ok() && !comm->agreed_failure()) {
    std::fprintf(stderr, "shardgraph: error: rank %d: %s (ending the job)\n", comm->rank(), s.message().c_str());
    comm->abort(1);
  }
  if (comm->rank() != 0) out->summary.clear();
  out->report_error = comm->rank() == 0;
  return s;
}

// "merged 50 updates not yet compacted: 3355443 arcs added, 0 named for
// removal; 30.1 MiB of runs, each kind's read on its first use" (arcs of
// the out-space: an undirected edge counts twice)
std::string updates_note(const Graph& graph) {
  const Manifest& m = graph.manifest();
  char text[256];
  std::snprintf(text, sizeof(text),
                "merged %llu updates not yet compacted: %llu arcs added, %llu named for removal; %.1f MiB of runs, "
                "each kind's read on its first use",
                static_cast<unsigned long long>(m.pending_updates()), static_cast<unsigned long long>(m.pending_adds()),
                static_cast<unsigned long long>(m.pending_removes()),
                static_cast<double>(m.pending_run_bytes()) / (1 << 20));
  return text;
}

}  // namespace

Status run_app(const RunOptions& o, RunOutput* out) {
  *out = RunOutput();
  const AppRow* row = find_app_row(o.app);
  if (row == nullptr) return Status::InvalidArgument("unknown app '" + o.app + "' (" + app_names(", ") + ")");
  std::unique_ptr<tbb::global_control> threads;
  if (o.threads > 0) {
    threads = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                    static_cast<size_t>(o.threads));
  }
  const auto start = std::chrono::steady_clock::now();
  if (is_partitioned(o.graph)) return run_rank(o, *row, start, out);
  Graph graph;
  GraphOpenOptions open_options = run_open_options();
  open_options.deltas = true;
  open_options.hold = true;  // a compaction meanwhile leaves this generation to the run
  SG_RETURN_IF_ERROR(Graph::open(o.graph, &graph, open_options));
  // No-op without updates; an app that only pulls holds no out-space overlay.
  SG_RETURN_IF_ERROR(prepare_run_over_updates(&graph, !row->pulls_only()));
  Engine engine;
  SG_RETURN_IF_ERROR(engine.open(graph, engine_options(o)));
  if (graph.has_overlay()) engine.note(updates_note(graph));
  return run_opened(o, *row, &engine, start, true, out);
}

}  // namespace sg
