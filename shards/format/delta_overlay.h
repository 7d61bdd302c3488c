// What a kind's updates (its delta runs, oldest first) do to its lists,
// held in memory while a run reads a graph with updates: for each arc some
// update removes, one removal (every stored copy goes), and each add no
// later update removes. It keeps the runs as they are stored (parts: a
// graph's tiers, each already in that form, or an update's own runs), in
// small blocks, about 4 bytes an arc; updates that only add are merged into
// one part when loaded (graph_overlay.cc). A window decodes only the blocks
// of its vertex range from each part, merges them and resolves each arc's
// records across the parts, then merges them into its lists (merge_list),
// so a run sees the lists a compaction would write.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "shards/format/delta_run.h"
#include "shards/format/packed_run.h"
#include "shards/format/run_bytes.h"

namespace sg {

// Small blocks: a window decodes its vertex range's records and little more.
constexpr uint32_t kOverlayBlockBytes = 4 << 10;
// Keys a pass over a whole overlay decodes at a time: its memory stays
// small however large the updates.
constexpr uint32_t kOverlayKeysAPass = 1 << 16;

// One run of an overlay: as stored, or re-coded in memory (packed; the
// stored bytes then go).
struct OverlayPart {
  RunBytes run;
  DeltaRunReader reader;
  PackedRun packed;
  // Its records already say per arc what the overlay says (a tier, or a
  // built overlay): alone, it is read as it is.
  bool resolved = false;

  // Once packed: the stored bytes go.
  void drop_stored() {
    reader = DeltaRunReader();
    run = RunBytes();
  }
};

struct DeltaOverlay {
  bool weighted = false;
  bool dedup = false;                               // the graph drops duplicate arcs
  uint64_t adds = 0, removals = 0;                  // the resolved records'
  std::vector<std::unique_ptr<OverlayPart>> parts;  // oldest first
  uint64_t part_removals = 0;                       // the removal records its parts hold (from their indexes)

  // Opens `run` (checked, ids below `num_vertices`) as the newest part.
  Status add_part(RunBytes run, bool resolved, uint32_t num_vertices);
  // Re-codes every part not yet packed in memory (PackedRun), for a run's
  // many decodes; ids must be below 2^31.
  Status pack_parts();
  // Appends the resolved records of keys [first, end) to *records, in
  // order. With `wanted`, a block whose keys in range hold none it wants
  // (wanted(first key, end key) false) is skipped, not decoded: a sparse
  // step decodes only the blocks of its active vertices (the records of
  // other keys may then be partial).
  Status decode_keys(uint32_t first, uint32_t end, std::vector<DeltaArc>* records,
                     const std::function<bool(uint32_t, uint32_t)>& wanted = nullptr) const;
  uint64_t bytes() const;
  // No part removes an arc and duplicates are kept: each add record then
  // lengthens its key's list by one, whatever the other parts hold.
  bool adds_alone() const { return !dedup && part_removals == 0; }
};

// Appends to *resolved what the records of one arc [first, end) (in
// update order) say: a removal if any update removes it, then the adds no
// later update removes, by weight (one, the lightest, on a deduplicated
// graph).
void resolve_arc(const DeltaArc* first, const DeltaArc* end, bool dedup, std::vector<DeltaArc>* resolved);

// Hands `pass` the resolved records of the whole overlay (keys below
// `num_vertices`), in order, kOverlayKeysAPass keys at a time.
Status for_each_overlay_pass(const DeltaOverlay& overlay, uint32_t num_vertices,
                             const std::function<Status(const std::vector<DeltaArc>&)>& pass);

// Hands `block` each block's records of every part, oldest part first, as
// stored (not merged across parts, nor resolved): enough where the order
// of the parts does not matter (adds alone: each record is one arc).
Status for_each_part_block(const DeltaOverlay& overlay, const std::function<void(const std::vector<DeltaArc>&)>& block);

// Splits `whole` by neighbour into one overlay per range [starts[b],
// starts[b + 1]) (the last unbounded), for a graph stored in 2-D blocks:
// each block's merge then decodes only its own records.
Status split_overlay(const DeltaOverlay& whole, const std::vector<uint32_t>& starts, uint32_t num_vertices,
                     std::vector<std::unique_ptr<DeltaOverlay>>* parts);

// One key's records [begin, end) of an overlay, sorted.
struct KeyRecords {
  const DeltaArc* begin = nullptr;
  const DeltaArc* end = nullptr;
  bool has_removals() const;
  // Adds with neighbours in [lo, hi).
  uint32_t adds_in(uint32_t lo, uint32_t hi) const;
};

// Merges one list (or one piece of a list split over chunks), `base` sorted
// by neighbour (then weight) with `base_weights` beside it on a weighted
// graph, with a key's records: neighbours they remove are dropped, their
// adds in [lo, hi) are merged in, and on a deduplicated graph each neighbour
// is kept once, with its smallest weight (as ingest keeps it). `out` has
// room for count + those adds. Returns the list's length.
uint32_t merge_list(const DeltaOverlay& overlay, KeyRecords records, uint32_t lo, uint32_t hi, const uint32_t* base,
                    const float* base_weights, uint32_t count, uint32_t* out, float* out_weights);

}  // namespace sg
