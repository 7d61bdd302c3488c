// The updates of a graph not yet compacted (Manifest::deltas): their run
// files mapped and checked (size and checksum), each opened as a
// DeltaRunReader, and the original ids of the vertices they add. Held in
// memory: a graph is compacted before its updates grow large.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shards/format/delta_run.h"
#include "shards/format/graph.h"
#include "shards/format/run_bytes.h"

namespace sg {

struct DeltaRun {
  uint64_t generation = 0;
  RunBytes bytes;
  DeltaRunReader reader;
  uint64_t removals = 0;  // its removal records (from the index): none, no cursor needed
  // A tier's run (delta_tiers.h): built as an overlay, so its records
  // already say per arc what its updates together do.
  bool tier = false;
};

// Opens a run held in `bytes` (checked, ids below `num_vertices`).
Status open_delta_run(RunBytes bytes, bool weighted, uint32_t num_vertices, const std::string& name,
                      std::unique_ptr<DeltaRun>* opened);
// Maps one run file of `graph`'s directory whole, checks it against the
// manifest's size, checksum and records, and opens it.
Status read_delta_run(const Graph& graph, const DeltaRunFile& file, uint32_t num_vertices,
                      std::unique_ptr<DeltaRun>* opened);

// Writes `run` (its `records`) as the file `name` of the graph directory
// `dir`, synced, and describes it for the manifest as a run of `kind`.
Status write_delta_run(const std::string& dir, const std::string& name, const std::string& kind, std::string_view run,
                       uint64_t records, DeltaRunFile* file);
// Writes the original ids of the vertices a delta of `generation` adds
// ("delta-<generation>.ids", synced) and names it in *delta; none if empty.
Status write_new_ids(const std::string& dir, uint64_t generation, const std::vector<uint64_t>& ids,
                     DeltaManifest* delta);

class GraphDeltas {
 public:
  // Reads every run of `graph` (opened with GraphOpenOptions::deltas), or
  // with `runs` false only the new vertices' ids (what an update needs), or
  // with `kind` only that kind's runs (no ids).
  Status open(const Graph& graph, bool runs = true, const SpaceKind* kind = nullptr);
  bool empty() const { return runs_[0].empty() && runs_[1].empty(); }
  // The runs of a kind, oldest first.
  const std::vector<std::unique_ptr<DeltaRun>>& runs(SpaceKind kind) const { return runs_[static_cast<size_t>(kind)]; }
  // Hands the runs of a kind over (they are then no longer here).
  std::vector<std::unique_ptr<DeltaRun>> take_runs(SpaceKind kind) {
    return std::move(runs_[static_cast<size_t>(kind)]);
  }
  // Original ids of the vertices the updates added, in dense id order
  // (from the base's vertex count); empty without an id map.
  const std::vector<uint64_t>& new_ids() const { return new_ids_; }
  uint64_t bytes() const;
  // Decodes every block of every run (verify); *records counts them.
  Status check_blocks(uint64_t* records) const;

 private:
  std::vector<std::unique_ptr<DeltaRun>> runs_[2];
  std::vector<uint64_t> new_ids_;
};

// Reads one run forward, for merging sorted lists with it: asked about
// arcs in the run's order (key, then neighbour), it says whether the run
// removes each, decoding one block at a time.
class DeltaCursor {
 public:
  explicit DeltaCursor(const DeltaRun* run) : run_(run) {}
  // Whether the run removes key -> neighbour; calls come in non-decreasing
  // (key, neighbour) order.
  Status removes(uint32_t key, uint32_t neighbour, bool* removed);

 private:
  const DeltaRun* run_;
  size_t next_block_ = 0;
  std::vector<DeltaArc> arcs_;
  size_t at_ = 0;
};

}  // namespace sg
