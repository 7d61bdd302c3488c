#include "apps/cli/commands.h"

#include <unistd.h>

#include <charconv>
#include <cstdio>

namespace sgcli {
namespace {

using shardgraph::Status;

// Option checks with messages a user reads in one go.
const CLI::Validator kAtLeastOne(
    [](std::string& text) {
      long long value = 0;
      return (CLI::detail::lexical_cast(text, value) && value >= 1) ? std::string()
                                                                    : "must be a whole number of at least 1";
    },
    "N>=1");

uint64_t count_option(const std::string& name, const std::string& text) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size())
    throw UsageError(name + ": '" + text + "' is not a whole number");
  return value;
}

// A terminal's progress line: `prefix` returns to the line's start.
std::function<void(const std::string&)> terminal_progress(const char* prefix, const char* at_end) {
  if (::isatty(2) == 0) return nullptr;
  return [prefix, at_end](const std::string& line) {
    if (line.empty())
      std::fputs(at_end, stderr);
    else
      std::fprintf(stderr, "%s%s", prefix, line.c_str());
    std::fflush(stderr);
  };
}

std::string app_list(const char* separator) {
  std::string names;
  for (const shardgraph::AppInfo& info : shardgraph::apps()) names += (names.empty() ? "" : separator) + info.name;
  return names;
}

// --iterations' help from the app table.
std::string iterations_help() {
  std::string help;
  for (const shardgraph::AppInfo& info : shardgraph::apps()) {
    if (!info.iterations.empty()) help += (help.empty() ? "" : " / ") + info.name + ": " + info.iterations;
  }
  return help;
}

}  // namespace

int fail(const Status& status) {
  std::fprintf(stderr, "shardgraph: error: %s\n", status.message().c_str());
  return status.is_usage() ? kExitUsage : kExitRuntime;
}

uint64_t size_option(const std::string& name, const std::string& text) {
  uint64_t bytes = 0;
  if (!shardgraph::parse_size(text, &bytes))
    throw UsageError(name + ": '" + text + "' is not a size (e.g. 64M, 2G, 4096)");
  return bytes;
}

// --memory auto's choice (from the cgroup limit and available memory),
// printed on a terminal only, so an error stays one line for scripts;
// --stats records the budget.
void memory_notice(const std::string& text) {
  if (text != "auto") return;
  const shardgraph::AutoMemory memory = shardgraph::auto_memory();
  auto mib = [](uint64_t bytes) {
    return bytes == UINT64_MAX ? std::string("none") : std::to_string(bytes >> 20) + " MiB";
  };
  if (::isatty(2) != 0) {
    std::fprintf(stderr, "shardgraph: --memory auto = %s (cgroup limit %s, available %s)\n",
                 mib(memory.budget_bytes).c_str(), mib(memory.cgroup_limit_bytes).c_str(),
                 mib(memory.available_bytes).c_str());
  }
}

// --memory: a size, or "auto" (memory_notice).
uint64_t memory_option(const std::string& text) {
  memory_notice(text);
  return text == "auto" ? shardgraph::auto_memory().budget_bytes : size_option("--memory", text);
}

CLI::App* add_generate(CLI::App& app, GenerateArgs& a) {
  auto* generate = app.add_subcommand("generate", "write a synthetic edge list");
  generate->add_option("kind", a.kind, "generator: rmat | grid")->required()->check(CLI::IsMember({"rmat", "grid"}));
  a.scale = generate->add_option("--scale", a.rmat.scale, "rmat: log2 of the vertex count");
  generate->add_option("--edge-factor", a.rmat.edge_factor, "rmat: edges per vertex")->capture_default_str();
  a.rows = generate->add_option("--rows", a.grid.rows, "grid: rows");
  generate->add_option("--cols", a.grid.cols, "grid: columns");
  generate->add_flag("--no-shuffle", a.no_shuffle, "grid: keep row-major ids");
  generate->add_option("--seed", a.rmat.seed, "random seed")->capture_default_str();
  generate->add_flag("--weights", a.rmat.weights, "add integer weights 1..255");
  generate->add_option("-o,--output", a.rmat.output, "edge list file (.gz = gzip text, .bin32/.bin64 = binary)")
      ->required();
  return generate;
}

int run_generate(GenerateArgs& a) {
  if (a.kind == "rmat") {
    if (a.scale->count() == 0) throw UsageError("generate rmat needs --scale");
    const Status s = shardgraph::generate_rmat(a.rmat);
    return s.ok() ? 0 : fail(s);
  }
  if (a.rows->count() == 0) throw UsageError("generate grid needs --rows and --cols");
  a.grid.seed = a.rmat.seed;
  a.grid.weights = a.rmat.weights;
  a.grid.shuffle = !a.no_shuffle;
  a.grid.output = a.rmat.output;
  const Status s = shardgraph::generate_grid(a.grid);
  return s.ok() ? 0 : fail(s);
}

CLI::App* add_ingest(CLI::App& app, IngestArgs& a) {
  shardgraph::IngestRequest& r = a.request;
  auto* ingest = app.add_subcommand("ingest", "build a graph directory from an edge list");
  ingest->add_option("input", r.input, "edge list (SNAP text, .mtx, .bin32, .bin64; .gz ok)")->required();
  ingest->add_option("-o,--output", r.output, "graph directory to create")->required();
  ingest
      ->add_option("--format", r.format,
                   "snap|mtx|bin32|bin64|graph|webgraph|dimacs|graphalytics (default: from the name)")
      ->check(CLI::IsMember({"snap", "mtx", "bin32", "bin64", "graph", "webgraph", "dimacs", "graphalytics"}));
  ingest->add_flag("--weights", r.weights, "binary input records carry a float32 weight");
  ingest->add_flag("--undirected", r.undirected, "treat every edge as undirected");
  ingest->add_flag("--drop-self-loops", r.drop_self_loops, "remove edges v->v");
  ingest->add_flag("--dedup", r.dedup, "remove duplicate edges (keeps the smallest weight)");
  ingest->add_flag("--remap", a.remap,
                   "map original ids to dense ones always (map stored; results keep the original ids); by default "
                   "only when the ids are sparse or wider than 32 bits");
  ingest->add_flag("--no-remap", a.no_remap, "never map ids: a sparse or wide id space is refused")
      ->excludes("--remap");
  ingest
      ->add_option("--order", r.order,
                   "vertex ordering: auto (bfds unless the input order compresses better) | bfds | bfs | degree | "
                   "none; skipped with a note "
                   "when its working memory (bfds, bfs: 4 bytes a vertex and the engine's least; degree: 14) exceeds "
                   "--memory (see docs/usage.md)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "none", "bfds", "bfs", "degree"}));
  ingest
      ->add_option("--memory", a.memory,
                   "memory budget (e.g. 64M, 2G) or auto: 3/4 of the cgroup limit or available memory, less 16 MiB")
      ->capture_default_str();
  ingest
      ->add_option("--chunk-bytes", a.chunk,
                   "target chunk size, or auto: the devices' bandwidth times their latency, 256K..1M (a device "
                   "never calibrated is probed once: docs/usage.md)")
      ->capture_default_str();
  ingest
      ->add_option(
          "--codec", r.codec,
          "gap coding of each chunk: auto (entropy on one slow disk, else fast) | fast (StreamVByte "
          "unless varints are 10% smaller) | small (fewest bytes) | entropy (fewer still where lists' bits are "
          "entropy coded) | varint | v2 (format "
          "version 2, for older shardgraph builds)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "fast", "small", "entropy", "varint", "v2"}));
  ingest->add_option("--intervals", r.intervals, "vertex intervals (default: from the budget)")->check(kAtLeastOne);
  ingest
      ->add_option("--blocks", a.blocks,
                   "2-D blocks a space (each holds the lists' neighbours in one vertex range; 1 = 1-D); auto: 1 while "
                   "4 bytes a vertex fit "
                   "half of --memory, else ranges of 4 bytes a vertex in a quarter of it")
      ->capture_default_str();
  ingest->add_option("--device", r.devices, "device directory for edge data (repeatable)");
  ingest->add_option("--threads", r.threads, "compute threads, 1 to 1024 (default: all cores)")
      ->check(CLI::Range(1, 1024));
  ingest
      ->add_option("--stripe-bytes", a.stripe,
                   "stripe depth across devices (multiple of 4K; auto: 1M..8M, >= 32 stripes per device)")
      ->capture_default_str();
  return ingest;
}

int run_ingest(IngestArgs& a) {
  shardgraph::IngestRequest& r = a.request;
  r.memory_bytes = memory_option(a.memory);
  r.remap = a.remap ? "always" : a.no_remap ? "never" : "auto";
  const uint64_t chunk = a.chunk == "auto" ? 0 : size_option("--chunk-bytes", a.chunk);
  if (a.chunk != "auto" && (chunk < 64 || chunk > (uint64_t{1} << 30))) {
    throw UsageError("--chunk-bytes must be auto or 64 to 1G");
  }
  r.chunk_bytes = static_cast<uint32_t>(chunk);  // 0: auto
  r.stripe_bytes = a.stripe == "auto" ? 0 : size_option("--stripe-bytes", a.stripe);
  if (a.blocks != "auto") {
    const uint64_t blocks = count_option("--blocks", a.blocks);
    if (blocks == 0 || blocks > 4096) throw UsageError("--blocks must be auto or 1 to 4096");
    r.blocks = static_cast<uint32_t>(blocks);
  }
  shardgraph::Callbacks callbacks;
  callbacks.progress = terminal_progress("\r\x1b[K", "\r\x1b[K");
  shardgraph::IngestReport report;
  const Status s = shardgraph::ingest(r, &report, callbacks);
  if (!s.ok()) return fail(s);
  if (!report.note.empty()) std::fprintf(stderr, "shardgraph: %s\n", report.note.c_str());
  std::printf(
      "ingested %s -> %s: %llu vertices, %llu edges, %u intervals, %llu bytes (%.3f bytes/edge), %llu sort batches, "
      "%.2f s (%s), peak RSS %llu "
      "KiB\n",
      r.input.c_str(), r.output.c_str(), static_cast<unsigned long long>(report.vertices),
      static_cast<unsigned long long>(report.edges), report.intervals,
      static_cast<unsigned long long>(report.stored_bytes),
      report.edges ? static_cast<double>(report.stored_bytes) / static_cast<double>(report.edges) : 0.0,
      static_cast<unsigned long long>(report.sort_batches), report.seconds, report.phases.c_str(),
      static_cast<unsigned long long>(shardgraph::peak_rss_bytes() / 1024));
  return 0;
}

// Help for a table option: its text, its choices and its default.
std::string table_help(const shardgraph::OptionInfo& info) {
  std::string help = info.help;
  if (!info.choices.empty()) {
    help += " (";
    for (size_t i = 0; i < info.choices.size(); ++i) help += (i == 0 ? "" : " | ") + info.choices[i];
    help += ")";
  }
  if (info.kind != "flag" && !info.default_text.empty()) help += " [" + info.default_text + "]";
  return help;
}

CLI::App* add_run(CLI::App& app, RunArgs& a) {
  shardgraph::RunRequest& r = a.request;
  auto* run = app.add_subcommand("run", "run an algorithm on a graph");
  std::vector<std::string> names;
  for (const shardgraph::AppInfo& info : shardgraph::apps()) names.push_back(info.name);
  run->add_option("app", r.app, app_list(" | "))->required()->check(CLI::IsMember(names));
  run->add_option("graph", r.graph, "graph directory")->required();
  for (const shardgraph::OptionInfo& info : shardgraph::run_option_table()) {
    CLI::Option* option = nullptr;
    if (info.kind == "flag") {
      // A flag that is on by default is turned off by --no-NAME.
      const bool on = info.default_text == "true";
      option = run->add_flag((on ? "--no-" : "--") + info.name, a.flags[info.name],
                             on ? "turn off (on by default): " + info.help : info.help);
    } else {
      option = run->add_option("--" + info.name, a.texts[info.name], table_help(info));
      option->type_name(info.kind == "count"    ? "N"
                        : info.kind == "number" ? "X"
                        : info.kind == "size"   ? "SIZE"
                                                : "TEXT");
      if (info.name == "iterations") option->description(iterations_help());
    }
    if (info.hidden) option->group("");
    a.given[info.name] = option;
  }
  return run;
}

int run_run(RunArgs& a) {
  shardgraph::RunRequest& r = a.request;
  if (a.given.at("memory")->count() == 0) a.texts["memory"] = "auto";  // the CLI's budget is auto by default
  memory_notice(a.texts["memory"]);
  for (const shardgraph::OptionInfo& info : shardgraph::run_option_table()) {
    if (info.name != "memory" && a.given.at(info.name)->count() == 0) continue;
    const std::string text =
        info.kind == "flag" ? (info.default_text == "true" ? "false" : "true") : a.texts[info.name];
    const Status s = shardgraph::set_option(&r, info.name, text);
    if (!s.ok()) return fail(s);
  }
  r.keep_stats = false;  // --stats writes them; nothing else here reads them
  shardgraph::Callbacks callbacks;
  callbacks.progress = terminal_progress("\r", "\n");
  shardgraph::RunResult result;
  const Status s = shardgraph::run(r, &result, callbacks);
  if (!s.ok()) {
    if (callbacks.progress) std::fputc('\n', stderr);
    if (!result.report_error) return s.is_usage() ? kExitUsage : kExitRuntime;
    return fail(s);
  }
  std::fputs(result.summary.c_str(), stdout);
  return 0;
}

CLI::App* add_partition(CLI::App& app, PartitionArgs& a) {
  shardgraph::PartitionRequest& r = a.request;
  auto* partition = app.add_subcommand(
      "partition", "cut a directed graph into parts by destination range, for a run over MPI (docs/scale-out.md)");
  partition->add_option("graph", r.graph, "graph directory")->required();
  partition->add_option("--parts", r.parts, "number of parts")->required()->check(CLI::Range(1, 1 << 16));
  partition->add_option("-o,--output", r.output, "output directory (must not exist)")->required();
  partition->add_option("--memory", a.memory, "memory budget of each part's ingest")->capture_default_str();
  partition->add_option("--device", a.devices,
                        "PART:DIR: a device directory for part PART's edge data (repeatable, also per part; default: "
                        "the part's directory)");
  return partition;
}

int run_partition(PartitionArgs& a) {
  shardgraph::PartitionRequest& r = a.request;
  r.memory_bytes = memory_option(a.memory);
  for (const std::string& device : a.devices) {
    const size_t colon = device.find(':');
    const std::string number = colon == std::string::npos ? std::string() : device.substr(0, colon);
    const bool digits =
        !number.empty() && number.size() < 6 && number.find_first_not_of("0123456789") == std::string::npos;
    const uint64_t part = digits ? std::stoull(number) : UINT64_MAX;
    if (!digits || colon + 1 == device.size() || part >= r.parts) {
      throw UsageError("--device '" + device + "': expected PART:DIR with PART below --parts");
    }
    r.part_devices.resize(r.parts);
    r.part_devices[part].push_back(device.substr(colon + 1));
  }
  std::vector<shardgraph::PartInfo> parts;
  double seconds = 0;
  const Status s = shardgraph::partition(r, &parts, &seconds);
  if (!s.ok()) return fail(s);
  std::printf("partitioned %s -> %s: %zu parts in %.2f s\n", r.graph.c_str(), r.output.c_str(), parts.size(), seconds);
  for (size_t k = 0; k < parts.size(); ++k) {
    std::printf("part-%zu: vertices [%u, %u), %llu arcs\n", k, parts[k].begin, parts[k].end,
                static_cast<unsigned long long>(parts[k].arcs));
  }
  return 0;
}

}  // namespace sgcli
