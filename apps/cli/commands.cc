#include "apps/cli/commands.h"

#include <unistd.h>

#include <cstdio>

namespace sgcli {
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

namespace {

using shardgraph::Status;

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

// Help for a table option: its text, its choices and its default.
std::string table_help(const shardgraph::OptionInfo& info) {
  std::string help = info.name == "iterations" ? iterations_help() : info.help;
  if (!info.choices.empty()) {
    help += " (";
    for (size_t i = 0; i < info.choices.size(); ++i) help += (i == 0 ? "" : " | ") + info.choices[i];
    help += ")";
  }
  if (!info.default_text.empty()) help += " [" + info.default_text + "]";
  return help;
}

const char* type_name(const std::string& kind) {
  return kind == "count" ? "N" : kind == "number" ? "X" : kind == "size" ? "SIZE" : "TEXT";
}

}  // namespace

// A flag that is on by default is turned off by --no-NAME; a switch has
// both (--NAME always, --no-NAME never).
void add_table_options(CLI::App* command, const std::vector<shardgraph::OptionInfo>& table, TableArgs& a) {
  for (const shardgraph::OptionInfo& info : table) {
    std::vector<const CLI::Option*>& options = a.given[info.name];
    CLI::Option* option = nullptr;
    if (info.kind == "flag") {
      const bool on = info.default_text == "true";
      option = command->add_flag((on ? "--no-" : "--") + info.name, a.flags[info.name],
                                 on ? "turn off (on by default): " + info.help : info.help);
    } else if (info.kind == "switch") {
      option = command->add_flag("--" + info.name, a.flags[info.name], info.help);
      options.push_back(option);
      option = command->add_flag("--no-" + info.name, a.negated[info.name], "see --" + info.name)->excludes(option);
    } else if (info.kind == "list") {
      option = command->add_option("--" + info.name, a.lists[info.name], info.help);
    } else {
      option = command->add_option("--" + info.name, a.texts[info.name], table_help(info));
      option->type_name(type_name(info.kind));
    }
    if (info.hidden) option->group("");
    options.push_back(option);
  }
}

// The texts the command line gave an option, as set_option takes them.
std::vector<std::string> table_texts(const shardgraph::OptionInfo& info, TableArgs& a) {
  if (info.kind == "flag") {
    return a.flags[info.name] ? std::vector<std::string>{info.default_text == "true" ? "false" : "true"}
                              : std::vector<std::string>{};
  }
  if (info.kind == "switch") {
    if (a.flags[info.name]) return {"always"};
    return a.negated[info.name] ? std::vector<std::string>{"never"} : std::vector<std::string>{};
  }
  if (info.kind == "list") return a.lists[info.name];
  if (a.given.at(info.name).front()->count() > 0) return {a.texts[info.name]};
  if (info.name == "memory") return {"auto"};  // the CLI's budget is auto by default
  return {};
}

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
  ingest
      ->add_option("input", a.inputs,
                   "edge list (SNAP text, .mtx, .bin32, .bin64; .gz ok); several only with --parts (each rank "
                   "reads its share)")
      ->required();
  ingest->add_option("-o,--output", r.output, "graph directory to create")->required();
  add_table_options(ingest, shardgraph::ingest_option_table(), a.table);
  return ingest;
}

int print_partitioned_ingest(const shardgraph::IngestRequest& r, const shardgraph::IngestReport& report) {
  std::printf(
      "ingested %s%s -> %s: %zu parts, %llu vertices, %llu edges, %llu bytes (%.3f bytes an edge, parts and reverse "
      "parts), %.2f s (%s), "
      "rank 0's peak RSS %llu KiB\n",
      r.input.c_str(), r.more_inputs.empty() ? "" : " ...", r.output.c_str(), report.parts.size(),
      static_cast<unsigned long long>(report.vertices), static_cast<unsigned long long>(report.edges),
      static_cast<unsigned long long>(report.stored_bytes),
      report.edges ? static_cast<double>(report.stored_bytes) / static_cast<double>(report.edges) : 0.0, report.seconds,
      report.phases.c_str(), static_cast<unsigned long long>(shardgraph::peak_rss_bytes() / 1024));
  for (size_t k = 0; k < report.parts.size(); ++k) {
    std::printf("part-%zu: vertices [%u, %u), %llu arcs\n", k, report.parts[k].begin, report.parts[k].end,
                static_cast<unsigned long long>(report.parts[k].arcs));
  }
  for (const std::string& line : report.rank_lines) std::printf("%s\n", line.c_str());
  return 0;
}

int run_ingest(IngestArgs& a) {
  shardgraph::IngestRequest& r = a.request;
  const Status parsed = apply_table_options(shardgraph::ingest_option_table(), a.table, &r);
  if (!parsed.ok()) return fail(parsed);
  r.input = a.inputs.front();
  r.more_inputs.assign(a.inputs.begin() + 1, a.inputs.end());
  shardgraph::Callbacks callbacks;
  callbacks.progress = terminal_progress("\r\x1b[K", "\r\x1b[K");
  shardgraph::IngestReport report;
  const Status s = shardgraph::ingest(r, &report, callbacks);
  if (report.rank != 0) return s.ok() ? 0 : kExitRuntime;  // rank 0 reports for every rank
  if (!s.ok()) return fail(s);
  if (!report.note.empty()) std::fprintf(stderr, "shardgraph: %s\n", report.note.c_str());
  if (r.parts > 0) return print_partitioned_ingest(r, report);
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

CLI::App* add_run(CLI::App& app, RunArgs& a) {
  shardgraph::RunRequest& r = a.request;
  auto* run = app.add_subcommand("run", "run an algorithm on a graph");
  add_table_options(run, shardgraph::run_option_table(), a.table);
  std::vector<std::string> names;
  for (const shardgraph::AppInfo& info : shardgraph::apps()) names.push_back(info.name);
  run->add_option("app", r.app, app_list(" | "))->required()->check(CLI::IsMember(names));
  run->add_option("graph", r.graph, "graph directory")->required();
  return run;
}

int run_run(RunArgs& a) {
  shardgraph::RunRequest& r = a.request;
  r.keep_stats = false;  // --stats writes them; nothing else here reads them
  if (const Status parsed = apply_table_options(shardgraph::run_option_table(), a.table, &r); !parsed.ok()) {
    return fail(parsed);
  }
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
  if (const Status split = shardgraph::split_part_devices(a.devices, r.parts, &r.part_devices); !split.ok()) {
    throw UsageError(split.message());
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
