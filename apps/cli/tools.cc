// The CLI's smaller subcommands: info, verify, scan, calibrate, restripe,
// gc, update, compact.
#include <cstdio>

#include "apps/cli/commands.h"

namespace sgcli {
namespace {

using shardgraph::Status;

int run_info(const ToolArgs& a) {
  std::string text;
  const Status s = shardgraph::graph_info(a.info_dir, a.info_json, &text);
  if (!s.ok()) return fail(s);
  std::fputs(text.c_str(), stdout);
  return 0;
}

int run_verify(const ToolArgs& a) {
  shardgraph::VerifyReport report;
  const Status s = shardgraph::verify(a.verify_dir, &report);
  if (!report.opened) return fail(s);
  if (!s.ok()) {
    std::fprintf(stderr, "shardgraph: verify failed: %s\n", s.message().c_str());
    return kExitRuntime;
  }
  if (report.partitioned) {
    std::printf("ok: partitioned graph, %llu arcs in its parts\n", static_cast<unsigned long long>(report.arcs));
  } else {
    std::printf("ok: %llu chunks, %llu arcs, %llu bytes checked\n", static_cast<unsigned long long>(report.chunks),
                static_cast<unsigned long long>(report.arcs), static_cast<unsigned long long>(report.bytes));
  }
  return 0;
}

int run_scan(const ToolArgs& a) {
  std::string json;
  const Status s = shardgraph::scan_input(a.scan_input, a.scan_format, a.scan_threads, &json);
  if (!s.ok()) return fail(s);
  std::printf("%s\n", json.c_str());
  return 0;
}

int run_calibrate(const ToolArgs& a) {
  const uint64_t bytes = size_option("--bytes", a.calibrate_bytes);
  if (bytes < (16 << 20)) throw UsageError("--bytes must be at least 16M");
  for (const std::string& dir : a.calibrate_dirs) {
    shardgraph::DeviceMeasurement m;
    const Status s = shardgraph::calibrate(dir, bytes, &m);
    if (!s.ok()) return fail(s);
    std::printf("%s: sequential %.1f MB/s; random reads (queue depth %d):\n", dir.c_str(),
                m.sequential_bytes_per_second / 1e6, m.queue_depth);
    std::printf("  %10s %12s %12s %10s\n", "bytes", "ms/request", "requests/s", "MB/s");
    for (const auto& r : m.random_reads) {
      std::printf("  %10llu %12.3f %12.1f %10.1f\n", static_cast<unsigned long long>(r.bytes), r.seconds * 1e3,
                  1.0 / r.seconds, static_cast<double>(r.bytes) / r.seconds / 1e6);
    }
    std::printf("  profile written to %s\n", m.profile_path.c_str());
  }
  return 0;
}

int run_restripe(const ToolArgs& a) {
  const bool auto_stripe = a.restripe_stripe == "auto";
  const uint64_t stripe =
      auto_stripe || a.restripe_stripe.empty() ? 0 : size_option("--stripe-bytes", a.restripe_stripe);
  const Status s = shardgraph::restripe(a.restripe_dir, a.restripe_devices, stripe, auto_stripe);
  if (!s.ok()) return fail(s);
  std::printf("restriped %s onto %zu device(s)\n", a.restripe_dir.c_str(),
              std::max<size_t>(a.restripe_devices.size(), 1));
  return 0;
}

int run_gc(const ToolArgs& a) {
  std::vector<std::string> removed;
  uint64_t bytes = 0;
  const Status s = shardgraph::collect_garbage(a.gc_dirs, &removed, &bytes);
  if (!s.ok()) return fail(s);
  for (const std::string& path : removed) std::printf("removed %s\n", path.c_str());
  std::printf("gc: %llu leftovers removed, %llu bytes freed\n", static_cast<unsigned long long>(removed.size()),
              static_cast<unsigned long long>(bytes));
  return 0;
}

int run_update(ToolArgs& a) {
  if (a.update.add_files.empty() && a.update.remove_files.empty())
    throw UsageError("update needs --add FILE or --remove FILE");
  a.update.memory_bytes = memory_option(a.update_memory);
  if (a.update_no_compact) a.update.compact_share = 0;
  if (a.update.compact_share < 0) throw UsageError("--compact-at must be a share from 0");
  shardgraph::UpdateReport report;
  const Status s = shardgraph::update(a.update, &report);
  if (!s.ok()) return fail(s);
  std::printf(
      "updated %s: %llu arcs added, %llu named for removal, %llu new vertices; generation %llu, "
      "%llu update(s) not yet compacted in %llu tier(s), %.2f s\n",
      a.update.graph.c_str(), static_cast<unsigned long long>(report.adds),
      static_cast<unsigned long long>(report.removes), static_cast<unsigned long long>(report.new_vertices),
      static_cast<unsigned long long>(report.generation), static_cast<unsigned long long>(report.pending_updates),
      static_cast<unsigned long long>(report.pending_tiers), report.seconds);
  if (report.compacted) std::printf("compacted the updates into the graph, %.2f s\n", report.compact_seconds);
  return 0;
}

int run_compact(const ToolArgs& a) {
  shardgraph::Callbacks callbacks;
  callbacks.progress = terminal_progress("\r\x1b[K", "\r\x1b[K");
  shardgraph::CompactReport report;
  const Status s =
      shardgraph::compact(a.compact_dir, memory_option(a.compact_memory), &report, callbacks, a.compact_window_bytes);
  if (!s.ok()) return fail(s);
  if (report.updates == 0) {
    std::printf("%s has no updates to compact\n", a.compact_dir.c_str());
    return 0;
  }
  std::printf("compacted %llu update(s) into %s (%s): %llu vertices, %llu edges, %llu bytes, %.2f s\n",
              static_cast<unsigned long long>(report.updates), a.compact_dir.c_str(), report.method.c_str(),
              static_cast<unsigned long long>(report.vertices), static_cast<unsigned long long>(report.edges),
              static_cast<unsigned long long>(report.stored_bytes), report.seconds);
  if (report.old_generation_kept) {
    std::printf("a run reads the old generation: it stays hidden beside the graph until the next compaction or gc\n");
  }
  return 0;
}

}  // namespace

void add_update_tools(CLI::App& app, ToolArgs& a) {
  a.update_command = app.add_subcommand("update", "add and remove edges of a stored graph (committed atomically)");
  a.update_command->add_option("graph", a.update.graph, "graph directory")->required();
  a.update_command->add_option("--add", a.update.add_files, "edges to add (repeatable; any ingest format)");
  a.update_command->add_option("--remove", a.update.remove_files,
                               "edges to remove, every copy (repeatable; applied before the adds)");
  a.update_command->add_option("--format", a.update.format, "the files' format, as for ingest (default: by name)");
  a.update_command->add_flag("--weights", a.update.weights, "bin32/bin64 adds carry a float32 weight");
  a.update_command->add_option("--memory", a.update_memory, "sort buffer budget")->capture_default_str();
  a.update_command
      ->add_option("--compact-at", a.update.compact_share,
                   "compact once the pending updates hold this share of the arcs")
      ->capture_default_str();
  a.update_command->add_flag("--no-compact", a.update_no_compact, "never compact automatically");
  a.compact = app.add_subcommand("compact", "merge a graph's updates into its edge data");
  a.compact->add_option("graph", a.compact_dir, "graph directory")->required();
  a.compact->add_option("--memory", a.compact_memory, "memory budget, as for ingest")->capture_default_str();
  a.compact->add_option("--window-bytes", a.compact_window_bytes, "read windows of a merge (tests)")->group("");
}

void add_tools(CLI::App& app, ToolArgs& a) {
  a.info = app.add_subcommand("info", "describe a graph");
  a.info->add_option("graph", a.info_dir, "graph directory")->required();
  a.info->add_flag("--json", a.info_json, "print JSON");
  a.scan = app.add_subcommand("scan", "read an input edge list (any format) and report how fast it parses, as JSON");
  a.scan->add_option("input", a.scan_input, "input, as for ingest")->required();
  a.scan->add_option("--format", a.scan_format, "as for ingest");
  a.scan->add_option("--threads", a.scan_threads, "decoding threads (default: all cores)")->check(CLI::Range(1, 1024));
  a.verify = app.add_subcommand("verify", "re-read and check every chunk of a graph");
  a.verify->add_option("graph", a.verify_dir, "graph directory")->required();
  a.calibrate = app.add_subcommand("calibrate", "measure devices and store their profiles for the cost model");
  a.calibrate->add_option("dirs", a.calibrate_dirs, "device directories")->required()->check(CLI::ExistingDirectory);
  a.calibrate->add_option("--bytes", a.calibrate_bytes, "scratch file size per device")->capture_default_str();
  a.restripe = app.add_subcommand("restripe", "rewrite a graph's edge data onto new devices / stripe depth");
  a.restripe->add_option("graph", a.restripe_dir, "graph directory")->required();
  a.restripe->add_option("--device", a.restripe_devices,
                         "new device directory (repeatable; none = the graph directory)");
  a.restripe->add_option("--stripe-bytes", a.restripe_stripe, "new stripe depth, or auto (default: keep)");
  a.gc = app.add_subcommand("gc", "remove what killed ingests left behind (their process is gone)");
  a.gc->add_option("dirs", a.gc_dirs, "directories to clean: a graph's parent directory, device directories")
      ->required()
      ->check(CLI::ExistingDirectory);
}

bool run_tool(ToolArgs& a, int* exit_code) {
  if (*a.info)
    *exit_code = run_info(a);
  else if (*a.verify)
    *exit_code = run_verify(a);
  else if (*a.scan)
    *exit_code = run_scan(a);
  else if (*a.calibrate)
    *exit_code = run_calibrate(a);
  else if (*a.restripe)
    *exit_code = run_restripe(a);
  else if (*a.gc)
    *exit_code = run_gc(a);
  else if (*a.update_command)
    *exit_code = run_update(a);
  else if (*a.compact)
    *exit_code = run_compact(a);
  else
    return false;
  return true;
}

}  // namespace sgcli
