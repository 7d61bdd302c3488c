#include "shards/update/delta_tiers.h"

#include <unistd.h>

#include <cassert>
#include <filesystem>

#include "base/file_util.h"
#include "shards/format/graph_overlay.h"
#include "shards/format/remove_graph.h"

namespace sg {
namespace {

// A tier joins the merge while it is at most this many times the newer
// ones taken: some slack, as sizes vary (a merged tier's removals cancel
// adds, and updates differ), keeps equal updates merging.
constexpr uint64_t kTierGrowth = 2;

const char* kind_name(size_t kind) { return kind == 0 ? "out" : "in"; }

// The merged runs of one kind: the deltas' files, then the new update's.
Status gather_runs(const Graph& graph, size_t first, size_t kind, NewUpdate* update,
                   std::vector<std::unique_ptr<DeltaRun>>* runs) {
  const Manifest& m = graph.manifest();
  const auto vertices = static_cast<uint32_t>(update->num_vertices);
  for (size_t d = first; d < m.deltas.size(); ++d) {
    for (const DeltaRunFile& file : m.deltas[d].runs) {
      if (file.kind != kind_name(kind)) continue;
      runs->emplace_back();
      SG_RETURN_IF_ERROR(read_delta_run(graph, file, vertices, &runs->back()));
    }
  }
  for (auto& run : update->runs[kind]) runs->push_back(std::move(run));
  update->runs[kind].clear();
  return Status::OK();
}

// Merges one kind into a run file of the tier; none when it has no records.
Status merge_kind(const Graph& graph, size_t first, size_t kind, NewUpdate* update, DeltaManifest* merged) {
  std::vector<std::unique_ptr<DeltaRun>> runs;
  SG_RETURN_IF_ERROR(gather_runs(graph, first, kind, update, &runs));
  const Manifest& m = graph.manifest();
  // Small blocks, as an overlay's: a run over the graph may read the tier
  // as its overlay, and a selective read decodes little beyond its range.
  DeltaOverlay overlay;
  SG_RETURN_IF_ERROR(build_delta_overlay(runs, m.weighted, m.ingest.duplicates_dropped,
                                         static_cast<uint32_t>(update->num_vertices), &overlay));
  runs.clear();
  if (kind == 0) {
    merged->adds = overlay.adds;
    merged->removes = overlay.removals;
  }
  if (overlay.adds + overlay.removals == 0) return Status::OK();
  const std::string name = "delta-" + std::to_string(update->generation) + "-tier." + kind_name(kind);
  DeltaRunFile file;
  SG_RETURN_IF_ERROR(write_delta_run(graph.dir(), name, kind_name(kind), overlay.parts[0]->run.view(),
                                     overlay.adds + overlay.removals, &file));
  merged->runs.push_back(file);
  return Status::OK();
}

// The original ids of the vertices the tier adds: those of the deltas it
// merges (a suffix of what the graph's updates added), then the update's.
Status write_tier_ids(const Graph& graph, const GraphDeltas& earlier, size_t first, const NewUpdate& update,
                      DeltaManifest* merged) {
  const Manifest& m = graph.manifest();
  std::vector<uint64_t> ids;
  if (!m.id_map_file.empty()) {
    const uint64_t before = first == 0 ? m.num_vertices : m.deltas[first - 1].num_vertices;
    const std::vector<uint64_t>& added = earlier.new_ids();
    assert(added.size() == m.vertices_after_deltas() - m.num_vertices);
    ids.assign(added.begin() + static_cast<long>(before - m.num_vertices), added.end());
    ids.insert(ids.end(), update.added_ids.begin(), update.added_ids.end());
  }
  return write_new_ids(graph.dir(), update.generation, ids, merged);
}

}  // namespace

uint64_t delta_bytes(const DeltaManifest& delta) {
  uint64_t bytes = 0;
  for (const DeltaRunFile& file : delta.runs) bytes += file.bytes;
  return bytes;
}

size_t tier_merge_start(const std::vector<DeltaManifest>& deltas, uint64_t new_bytes, uint64_t limit_bytes) {
  size_t first = deltas.size();
  uint64_t taken = new_bytes;
  while (first > 0) {
    const uint64_t bytes = delta_bytes(deltas[first - 1]);
    if (bytes > kTierGrowth * taken || taken + bytes > limit_bytes) break;
    taken += bytes;
    --first;
  }
  return first;
}

Status merge_tier(const Graph& graph, const GraphDeltas& earlier, size_t first, NewUpdate* update,
                  DeltaManifest* merged) {
  const Manifest& m = graph.manifest();
  assert(first < m.deltas.size());
  *merged = DeltaManifest{};
  merged->generation = update->generation;
  merged->num_vertices = update->num_vertices;
  for (size_t d = first; d < m.deltas.size(); ++d) merged->updates += m.deltas[d].updates;
  for (size_t kind = 0; kind < (m.directed ? 2u : 1u); ++kind) {
    SG_RETURN_IF_ERROR(merge_kind(graph, first, kind, update, merged));
  }
  return write_tier_ids(graph, earlier, first, *update, merged);
}

std::vector<std::string> delta_files(const Manifest& manifest, size_t first) {
  std::vector<std::string> files;
  for (size_t d = first; d < manifest.deltas.size(); ++d) {
    for (const DeltaRunFile& file : manifest.deltas[d].runs) files.push_back(file.file);
    if (!manifest.deltas[d].new_ids_file.empty()) files.push_back(manifest.deltas[d].new_ids_file);
  }
  return files;
}

bool remove_unless_held(const Graph& graph, const std::vector<std::string>& files) {
  int fd = -1;  // held while removing: no run starts meanwhile
  const bool unheld = try_exclusive_lock(graph.dir() + "/" + generation_lock_name(graph.manifest()), &fd) && fd >= 0;
  if (unheld) {
    std::error_code ec;
    for (const std::string& file : files) std::filesystem::remove(graph.dir() + "/" + file, ec);
  }
  if (fd >= 0) ::close(fd);
  return unheld;
}

}  // namespace sg
