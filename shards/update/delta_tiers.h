// Tiers of updates, as an LSM tree keeps its runs: an update merges itself
// with the newest updates not yet compacted while each is at most twice
// the size of those newer than it together, so tier sizes grow
// geometrically from the newest: after 50 equal updates 3 tiers remain,
// over the first 1,000 never more than 7, and each record is rewritten
// about log(n) times (7 on average over 1,000).
// A run then reads a few run files, not one an update, and merges a few of
// them, not n.
//
// A merged tier means what the overlay means (shards/format/delta_overlay.h):
// per arc, one removal if any of its updates removes it, then the adds no
// later one removes. Applying tiers in order equals applying their updates
// in order, so tiers compose, and readers take a tier as one update.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "shards/format/graph.h"
#include "shards/format/graph_deltas.h"

namespace sg {

// Bytes of a committed delta's run files.
uint64_t delta_bytes(const DeltaManifest& delta);

// The first of `deltas` (the graph's, oldest first) a new update of
// `new_bytes` merges with: deltas.size() when none. A tier joins while it
// is at most twice the newer ones taken and all fit in `limit_bytes`.
size_t tier_merge_start(const std::vector<DeltaManifest>& deltas, uint64_t new_bytes, uint64_t limit_bytes);

// What the new update brings to a merge: its runs of each kind (in memory
// or read back from files it wrote when its buffer overflowed), the ids of
// the vertices it adds, and the graph's vertex count after it.
struct NewUpdate {
  uint64_t generation = 0;
  uint64_t num_vertices = 0;
  std::vector<std::unique_ptr<DeltaRun>> runs[2];  // by SpaceKind, oldest first
  std::vector<uint64_t> added_ids;
};

// Merges `graph`'s deltas [first, end) with `update` into one tier, writes
// its run files (synced) and its new ids file into the graph directory, and
// describes it in *merged. `earlier` holds the ids the graph's updates
// added. The caller commits it (the manifest's deltas [first, end) give way
// to *merged) and then removes the files of the deltas it replaced.
Status merge_tier(const Graph& graph, const GraphDeltas& earlier, size_t first, NewUpdate* update,
                  DeltaManifest* merged);

// Files of `graph`'s deltas [first, end): what a committed merge replaced.
std::vector<std::string> delta_files(const Manifest& manifest, size_t first);

// Removes `files` from the graph directory unless a run holds the graph's
// generation (its shared lock, remove_graph.h): they then stay, listed by
// no delta, for the next update or compaction. Returns whether removed.
bool remove_unless_held(const Graph& graph, const std::vector<std::string>& files);

}  // namespace sg
