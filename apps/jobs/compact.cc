#include "apps/jobs/compact.h"

#include <fcntl.h>
#include <stdio.h>

#include <chrono>
#include <filesystem>

#include "apps/jobs/compact_merge.h"
#include "base/file_util.h"
#include "scheduler/device_profile.h"
#include "shards/format/graph.h"
#include "shards/format/remove_graph.h"
#include "shards/ingest/ingest.h"
#include "shards/ingest/ingest_auto.h"
#include "shards/ingest/leftovers.h"
#include "shards/update/graph_update.h"

namespace sg {
namespace {

namespace fs = std::filesystem;

// The stored profile of `dir`, else `fallback`'s, else the ssd preset
// (*stored false).
DeviceProfile disk_profile(const std::string& dir, const std::string& fallback, bool* stored = nullptr) {
  DeviceProfile profile;
  bool preset = true;
  if (!load_device_profile(dir, "ssd", &profile, &preset).ok() || preset)
    (void)load_device_profile(fallback, "ssd", &profile, &preset);
  if (stored != nullptr) *stored = !preset;
  return profile;
}

DiskSpeed speed_of(const DeviceProfile& profile) {
  return DiskSpeed{profile.sequential_bytes_per_second, profile.latency_seconds()};
}

// The base is written as the graph was: its devices, stripe depth, chunk
// size, edge policy and order; the codec and direct I/O follow the devices'
// profiles, as ingest's would.
IngestOptions compaction_ingest(const Graph& graph, const CompactOptions& options, const std::string& output) {
  const Manifest& m = graph.manifest();
  IngestOptions o;
  o.input = options.graph;
  o.format = "graph";
  o.output = output;
  o.undirected = !m.directed;
  o.drop_self_loops = m.ingest.self_loops_dropped;
  o.dedup = m.ingest.duplicates_dropped;
  o.remap = IngestOptions::Remap::kNever;
  o.memory_bytes = options.memory_bytes;
  o.chunk_bytes = m.chunk_bytes;
  o.stripe_bytes = m.stripe_bytes;
  // The graph directory's own profile came with the graph (a copied graph
  // brings its old disk's): its parent's, where one is stored, is the
  // disk it is on now, and where the compaction spills.
  const std::string parent = fs::absolute(options.graph).lexically_normal().parent_path().string();
  bool stored = false;
  const DeviceProfile here = disk_profile(parent, options.graph, &stored);
  std::vector<DiskSpeed> speeds;
  for (const std::string& device : m.devices) {
    if (device != ".") o.devices.push_back(device);
    speeds.push_back(speed_of(device == "." ? here : disk_profile(device, device)));
  }
  o.gap_choice = auto_gap_choice(speeds);
  o.direct_io = auto_direct_io(speed_of(here), speeds);
  if (stored) o.graph_files.emplace_back(kProfileFileName, here.to_json());  // for its runs: the disk it is on now
  o.progress = options.progress;
  return o;
}

// Swaps the compacted graph in: one atomic exchange of the two directories,
// made durable by syncing their parent.
Status exchange_into_place(const std::string& compacted, const std::string& graph) {
  if (::renameat2(AT_FDCWD, compacted.c_str(), AT_FDCWD, graph.c_str(), RENAME_EXCHANGE) != 0) {
    return Status::IOError(graph + ": cannot exchange it with its compacted copy (" + errno_text(errno) +
                           "; the file system needs renameat2 RENAME_EXCHANGE)");
  }
  return fsync_directory(fs::absolute(graph).lexically_normal().parent_path().string());
}

}  // namespace

Status compact_graph(const CompactOptions& options, CompactSummary* summary) {
  const auto start = std::chrono::steady_clock::now();
  *summary = CompactSummary{};
  GraphWriterLock lock;
  Graph graph;
  SG_RETURN_IF_ERROR(open_for_writing(options.graph, GraphOpenOptions{false, false, false, false}, &lock, &graph));
  summary->updates = graph.manifest().pending_updates();
  const std::string target = fs::absolute(options.graph).lexically_normal().string();
  LeftoverReport swept;  // old generations earlier compactions kept for runs now over
  std::string kept_prefix(1, '.');
  kept_prefix.append(fs::path(target).filename().string()).append(".compact~sg~");
  SG_RETURN_IF_ERROR(remove_leftovers(fs::path(target).parent_path().string(), &swept, kept_prefix));
  if (summary->updates == 0) return Status::OK();
  const std::string compacted = hidden_sibling(target, "compact");
  IngestSummary ingest;
  const IngestOptions layout = compaction_ingest(graph, options, compacted);
  const std::string obstacle = direct_merge_obstacle(graph);
  summary->method = obstacle.empty() ? "merged into its chunks" : "re-ingested: " + obstacle;
  if (obstacle.empty()) {
    SG_RETURN_IF_ERROR(merge_updates_into_chunks(graph, layout, options.window_bytes, &ingest));
  } else {
    SG_RETURN_IF_ERROR(ingest_graph(layout, &ingest));
  }
  Status s = exchange_into_place(compacted, target);
  if (!s.ok()) {
    remove_graph(compacted, nullptr);
    return s;
  }
  // The old base, now under the hidden name, unless a run reads it: then
  // the next compaction or gc removes it once the run is over.
  summary->old_generation_kept = !remove_graph_unless_held(compacted, nullptr);
  summary->num_vertices = ingest.num_vertices;
  summary->num_edges = ingest.num_edges;
  summary->stored_bytes = ingest.stored_bytes;
  summary->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return Status::OK();
}

}  // namespace sg
