// An opened graph directory: manifest, chunk indexes and degrees in memory,
// device files open for reading. Reads chunks through the stripe layout
// (positional reads) and checks each one against its checksum.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/file_util.h"
#include "base/mapped_file.h"
#include "base/status.h"
#include "shards/format/chunk_format.h"
#include "shards/format/manifest.h"
#include "shards/format/striping.h"

namespace sg {

struct DeltaOverlay;

enum class SpaceKind { kOut = 0, kIn = 1 };

// A stored edge space: the out- or in-space, or one 2-D block of it (its
// lists restricted to neighbours in [neighbour_begin, neighbour_end)). Its
// chunk index tiles every vertex in vertex order either way.
struct EdgeSpace {
  SpaceManifest meta;
  SpaceKind kind = SpaceKind::kOut;
  uint32_t neighbour_begin = 0, neighbour_end = 0;
  std::vector<ChunkIndexEntry> index;
  std::vector<uint32_t> degrees;  // the kind's first block only: whole degrees
  // A run over updates (graph_overlay.h): at most the arcs each chunk's
  // lists gain from them; else empty.
  std::vector<uint32_t> chunk_adds;
  std::vector<File> device_files;
  std::vector<std::string> device_paths;

  // Payload bytes of chunks [first, end) (no alignment padding).
  uint64_t chunk_bytes(uint32_t first, uint32_t end) const {
    uint64_t bytes = 0;
    for (uint32_t c = first; c < end; ++c) bytes += index[c].bytes;
    return bytes;
  }
};

// What Graph::open loads besides the manifest and chunk indexes.
struct GraphOpenOptions {
  bool degrees = true;      // per-vertex degrees of each space (4 bytes a vertex each)
  bool by_original = true;  // dense ids sorted by original id, when the id map is not sorted
  // The id map (8 + 4 bytes a vertex on a reordered graph) now, or later by
  // load_id_map(): a run needs it only for --source and its output.
  bool id_map = true;
  // A directed graph's in-degrees (4 bytes a vertex) now, or later by
  // load_in_degrees(): only traversals over reversed edges use them.
  bool in_degrees = true;
  // Open an out-space-only graph (Manifest::out_only: an ordered ingest's
  // intermediate); refused otherwise.
  bool out_only = false;
  // Open a graph with updates not yet compacted (Manifest::deltas), for the
  // readers that merge them (GraphDeltas: update, compact, verify, info,
  // format "graph"); refused otherwise.
  bool deltas = false;
  // A run: hold the generation opened (a shared lock a compaction respects,
  // see remove_graph.h), and read files it opens later (the id map,
  // degrees) from the directory opened, even after a compaction swapped a
  // new one in at its path.
  bool hold = false;
  // An ingest's own work graph, written by this process moments before:
  // its degree files are not checked against their checksums (a pass over
  // each; R-MAT 24's order on one emulated HDD spent 0.67 s on them). Its
  // chunks are still checked as they are read.
  bool degree_files_trusted = false;
};

// Checks a file of `vertices` uint32 degrees against its checksum in one
// streamed pass (a degree file, or a copy of one).
Status check_degree_file(const std::string& path, uint64_t checksum, uint64_t vertices);
// The same, handing the degrees over in pieces: fn(first vertex, degrees, count).
Status scan_degree_array(const std::string& path, uint64_t checksum, uint64_t vertices,
                         const std::function<void(uint32_t, const uint32_t*, size_t)>& fn);

class Graph {
 public:
  // Opens `dir`; checks the manifest, index/degree checksums and that every
  // device file exists with the expected size.
  static Status open(const std::string& dir, Graph* graph, GraphOpenOptions options = {});

  const Manifest& manifest() const { return manifest_; }
  const std::string& dir() const { return dir_; }
  // A file of the graph's directory: through the directory opened when the
  // generation is held, else by its path.
  std::string path_of(const std::string& name) const {
    if (!dir_handle_.is_open()) return dir_ + "/" + name;
    return "/proc/self/fd/" + std::to_string(dir_handle_.fd()) + "/" + name;
  }
  // The vertices a run sees: the stored ones, and those a run over updates
  // adds (extend_vertices).
  uint32_t num_vertices() const { return vertices_; }
  // The vertices the stored spaces, degree files and id map hold.
  uint32_t stored_vertices() const { return static_cast<uint32_t>(manifest_.num_vertices); }
  // For a run over updates that add vertices (graph_overlay.h): the graph
  // is seen with `vertices` vertices. Each stored space gains a tail chunk
  // over the new ones (no bytes on any device, every list empty: a run's
  // merge fills them from the updates), the last block's neighbour range
  // takes them, and `added_ids` are their original ids (empty without an
  // id map, where ids stay dense; an id map loaded already is loaded again
  // with them). Before any overlay or degree is read.
  Status extend_vertices(uint32_t vertices, std::vector<uint64_t> added_ids);
  bool directed() const { return manifest_.directed && !undirected_view_; }
  // A part of a partitioned undirected graph: stored directed (the arcs of
  // the edges into its range, both ways, so its in- and out-spaces differ),
  // seen by apps as the undirected graph it is a part of.
  void view_as_undirected() { undirected_view_ = true; }
  bool weighted() const { return manifest_.weighted; }
  StripeLayout layout() const { return layout_; }
  size_t device_count() const { return manifest_.devices.size(); }

  // The in-space of an undirected graph is its out-space. Of a blocked
  // space, the first block, which holds the degrees: its chunks are the
  // kind's only ones unless block_count(kind) > 1 (then see blocks()).
  const EdgeSpace& space(SpaceKind kind) const { return spaces_[blocks_[kind_slot(kind)].front()]; }
  // Stored indexes of the kind's blocks, in neighbour order (one for a 1-D space).
  const std::vector<size_t>& blocks(SpaceKind kind) const { return blocks_[kind_slot(kind)]; }
  size_t block_count(SpaceKind kind) const { return blocks(kind).size(); }
  // An out-only graph's in-degrees: a file of their own, no in-space.
  bool stored_in_degrees(SpaceKind kind) const { return kind == SpaceKind::kIn && manifest_.out_only(); }
  // 0 for the out-space (and an undirected graph's only space), 1 for the in-space.
  size_t kind_slot(SpaceKind kind) const { return manifest_.directed ? static_cast<size_t>(kind) : 0; }
  // The stored space holding the kind's degrees (its first block).
  size_t degree_space(SpaceKind kind) const { return blocks(kind).front(); }
  // Arcs of the kind's blocks together.
  uint64_t arcs(SpaceKind kind) const {
    uint64_t arcs = 0;
    for (size_t s : blocks(kind)) arcs += spaces_[s].meta.arcs;
    return arcs;
  }
  // The edge data the kind's blocks store (their logical bytes, all devices).
  uint64_t space_bytes(SpaceKind kind) const {
    uint64_t bytes = 0;
    for (size_t s : blocks(kind)) bytes += spaces_[s].meta.logical_bytes;
    return bytes;
  }
  size_t stored_space_count() const { return spaces_.size(); }
  const EdgeSpace& stored_space(size_t i) const { return spaces_[i]; }
  // The largest chunk payload of any stored space (an I/O window holds at
  // least one).
  uint32_t largest_chunk_bytes() const {
    uint32_t largest = 0;
    for (const EdgeSpace& space : spaces_) {
      for (const ChunkIndexEntry& e : space.index) largest = std::max(largest, e.bytes);
    }
    return largest;
  }
  // Payload bytes of every chunk of every stored space.
  uint64_t chunk_bytes() const {
    uint64_t bytes = 0;
    for (const EdgeSpace& space : spaces_) bytes += space.chunk_bytes(0, static_cast<uint32_t>(space.index.size()));
    return bytes;
  }

  // Reads chunk `chunk` of `kind` into `payload` (at least entry.bytes) and
  // checks its checksum. Errors name the space, chunk and device file(s).
  Status read_chunk(SpaceKind kind, size_t chunk, uint8_t* payload) const;
  Status read_chunk_of(const EdgeSpace& space, size_t chunk, uint8_t* payload) const;
  // Chunks [first, end) of `space` in one read of their logical byte range
  // (one request per stripe piece, not per chunk: a sequential reader on an
  // HDD is otherwise bound by its I/Os a second), each checksum checked.
  // Chunk c lands at payload + index[c].offset - index[first].offset;
  // `payload` holds chunk_span_bytes(space, first, end).
  Status read_chunk_range(const EdgeSpace& space, size_t first, size_t end, uint8_t* payload) const;
  // Drops chunks [first, end)'s pages from the page cache (a pass that
  // reads them once: File::drop_cached).
  void drop_cached_chunks(const EdgeSpace& space, size_t first, size_t end) const;
  static uint64_t chunk_span_bytes(const EdgeSpace& space, size_t first, size_t end) {
    return space.index[end - 1].offset + space.index[end - 1].bytes - space.index[first].offset;
  }
  // "chunk 12 of out (bytes 49152..53248 on /d0/sg-…-out.d0)"
  std::string describe_chunk(const EdgeSpace& space, size_t chunk) const;

  uint64_t original_id(uint32_t vertex) const {
    assert(!id_map_pending_ && vertex < vertices_);
    return ids_ == nullptr ? vertex + manifest_.id_base : ids_[vertex];
  }
  // Loads an id map deferred by GraphOpenOptions::id_map (no-op otherwise).
  Status load_id_map() const;
  bool id_map_pending() const { return id_map_pending_; }
  // One streamed pass over the id map's file, checked against its
  // checksum: fn(first dense id, original ids, count) per piece. The pieces
  // are trustworthy only if it returns OK.
  Status scan_id_map(const std::function<void(uint32_t, const uint64_t*, size_t)>& fn) const;
  // Instead of loading a deferred id map, checks it (one streamed pass) and
  // maps its file read only (loads it when updates added vertices: their ids
  // are not in the file), for a reader that needs every id but has no
  // room for the map: original_id() then reads the mapping (pages come in
  // as read, and the kernel may drop them again), and there is no order by
  // original id (by_original_available() is false unless the ids are in
  // order).
  Status map_id_map() const;
  // Drops the pages of a mapped id map read so far (a pass over the map
  // keeps little of it mapped; see map_id_map).
  void drop_id_map_pages() const {
    if (id_map_mapping_) id_map_mapping_->release_all();
  }
  bool id_map_mapped() const { return id_map_mapping_ != nullptr; }
  // Resident bytes load_id_map() would take: the map, plus the order by
  // original id when the ids are not in order (after check_id_map()).
  uint64_t id_map_load_bytes() const;
  // Whether for_each_by_original_id() can run.
  bool by_original_available() const { return ids_sorted_ || !by_original_.empty(); }
  // Checks a deferred id map's size and checksum in one streamed pass
  // without keeping it (a run's summary needs a handful of ids, not the
  // 8 bytes a vertex the map takes): then ids_in_order() works on it.
  Status check_id_map() const;
  // Original id of `vertex`: from the loaded map, the dense ids, or one
  // read in the map's file (checked or not: a summary's few ids do not pay
  // for a pass over the whole map; `verify` checks it).
  Status lookup_original_id(uint32_t vertex, uint64_t* id) const;
  // Loads in-degrees deferred by GraphOpenOptions::in_degrees (no-op otherwise).
  Status load_in_degrees() const;
  bool in_degrees_loaded() const { return !in_degrees_pending_; }
  // The degree file of a stored space, and a streamed pass over it that
  // checks its size and checksum (for readers that do not load it whole):
  // fn(first vertex, degrees, count) per piece, if given. The pieces are
  // trustworthy only if it returns OK.
  std::string degree_path(SpaceKind kind) const {
    assert(!deferred_degrees_[kind_slot(kind)] && "scan_degree_file first");
    if (corrected_degrees_[kind_slot(kind)].is_open()) return corrected_degree_path(kind);
    return path_of(stored_in_degrees(kind) ? manifest_.in_degree_file : space(kind).meta.degree_file);
  }
  uint64_t degree_checksum(SpaceKind kind) const {
    if (corrected_degrees_[kind_slot(kind)].is_open()) return corrected_checksum_[kind_slot(kind)];
    return stored_in_degrees(kind) ? manifest_.in_degree_checksum : space(kind).meta.degree_checksum;
  }
  Status scan_degree_file(SpaceKind kind,
                          const std::function<void(uint32_t, const uint32_t*, size_t)>& fn = nullptr) const;
  // Calls f(dense id) in order of original ids.
  template <typename F>
  void for_each_by_original_id(F&& f) const {
    assert(!id_map_pending_ && by_original_available());
    if (by_original_.empty()) {
      for (uint32_t v = 0; v < vertices_; ++v) f(v);
    } else {
      for (uint32_t v : by_original_) f(v);
    }
  }
  // Whether original ids grow with dense ids (no id map, or a sorted one).
  bool ids_in_order() const {
    assert(!id_map_pending_ || id_map_checked_);
    return ids_sorted_;
  }
  // Dense id of an original id; false if no vertex has it (or the id map
  // cannot be read). With the id map deferred it reads the map's file.
  bool dense_id(uint64_t original, uint32_t* vertex) const;
  // A run over a graph with updates (graph_overlay.h): each kind's merged
  // updates, applied to its lists as chunks are decoded; null otherwise.
  // A kind whose overlay is deferred (defer_overlay) has none until loaded.
  const DeltaOverlay* overlay(SpaceKind kind) const { return overlays_[kind_slot(kind)].get(); }
  bool has_overlay() const {
    return overlays_[0] != nullptr || overlays_[1] != nullptr || deferred_overlays_[0] || deferred_overlays_[1];
  }
  // Defers reading a kind's updates to its first use: a step over its lists
  // (load_overlay) or a scan of its degrees. `load` then runs once; a run
  // that never touches one kind never reads its runs. `bytes`: what the
  // overlay will hold, for the run's budget until then.
  void defer_overlay(SpaceKind kind, std::function<Status()> load, uint64_t bytes) {
    deferred_overlays_[kind_slot(kind)] = std::move(load);
    deferred_overlay_bytes_[kind_slot(kind)] = bytes;
  }
  Status load_overlay(SpaceKind kind) const;
  uint64_t deferred_overlay_bytes(SpaceKind kind) const {
    return deferred_overlays_[kind_slot(kind)] ? deferred_overlay_bytes_[kind_slot(kind)] : 0;
  }
  // For prepare_run_over_updates: a kind's overlay, and a stored space to
  // correct (its degrees and arc count after the updates).
  void set_overlay(SpaceKind kind, std::shared_ptr<const DeltaOverlay> overlay) {
    overlays_[kind_slot(kind)] = std::move(overlay);
  }
  // Lets a kind's overlay go once its degrees are corrected (a run that
  // reads none of its lists): its lists then lack the updates, and a step
  // over them is refused.
  void drop_overlay(SpaceKind kind) {
    overlays_[kind_slot(kind)].reset();
    overlay_dropped_[kind_slot(kind)] = true;
  }
  bool overlay_dropped(SpaceKind kind) const { return overlay_dropped_[kind_slot(kind)]; }
  EdgeSpace& stored_space_to_correct(size_t i) { return spaces_[i]; }
  // The kind's degrees after the updates, in an unnamed file the graph holds
  // open: degree_path() names it from then on (the engine reads it as it
  // would the stored file: whole, or by range).
  void set_corrected_degrees(SpaceKind kind, File file, uint64_t checksum) {
    corrected_degrees_[kind_slot(kind)] = std::move(file);
    corrected_checksum_[kind_slot(kind)] = checksum;
    degrees_checked_[kind_slot(kind)] = false;
  }
  // Whether degree_path() names such a file: written through the page
  // cache, to be read from there.
  bool degrees_corrected_in_scratch(SpaceKind kind) const { return corrected_degrees_[kind_slot(kind)].is_open(); }
  std::string corrected_degree_path(SpaceKind kind) const {
    return "/proc/self/fd/" + std::to_string(corrected_degrees_[kind_slot(kind)].fd());
  }
  // Defers the correction of a kind's degrees to the first read of them,
  // since most runs never read one kind's degrees. `correct(into)` computes
  // them: into *into when given (take_corrected_degrees), else into the
  // unnamed file degree_path() then names (scan_degree_file, which every
  // reader of degree_path() calls first, and which runs it once).
  using DegreeCorrection = std::function<Status(std::vector<uint32_t>* into)>;
  void defer_degree_correction(SpaceKind kind, DegreeCorrection correct) {
    deferred_degrees_[kind_slot(kind)] = std::move(correct);
  }
  // The kind's degrees after the updates, computed into *degrees for a
  // reader that holds them whole (no file written and read back); *taken
  // is false, and nothing computed, when the kind's correction is not
  // deferred (its degree file is then exact). A later scan_degree_file
  // still computes and writes the file.
  Status take_corrected_degrees(SpaceKind kind, std::vector<uint32_t>* degrees, bool* taken) const;
  // Bytes of id maps held in memory (part of a run's budget).
  uint64_t id_map_bytes() const { return id_map_.size() * sizeof(uint64_t) + by_original_.size() * sizeof(uint32_t); }

 private:
  // Fills the order by original id when the id map is a permutation of
  // 0..n-1 (false, and nothing filled, otherwise).
  bool order_permuted_ids() const;
  Status load_space(const SpaceManifest& meta, bool degrees, EdgeSpace* space);
  Status check_index(const EdgeSpace& space) const;
  Status hold_generation();

  std::string dir_;
  Manifest manifest_;
  uint32_t vertices_ = 0;            // num_vertices()
  std::vector<uint64_t> added_ids_;  // extend_vertices: original ids of the vertices past the stored ones
  StripeLayout layout_;
  mutable std::vector<EdgeSpace> spaces_;  // mutable: deferred in-degrees load into it
  std::vector<size_t> blocks_[2];          // per kind slot: stored indexes
  mutable bool in_degrees_pending_ = false;
  mutable std::vector<uint64_t> id_map_;
  mutable std::unique_ptr<MappedFile> id_map_mapping_;  // by map_id_map()
  mutable const uint64_t* ids_ = nullptr;               // id_map_ or the mapping; none: dense ids + id_base
  mutable std::vector<uint32_t> by_original_;           // dense ids sorted by original id, when id_map_ is not sorted
  mutable bool id_map_pending_ = false;                 // deferred by GraphOpenOptions::id_map
  mutable bool ids_sorted_ = true;
  mutable bool id_map_checked_ = false;  // size and checksum checked (loaded or by check_id_map)
  bool undirected_view_ = false;
  std::shared_ptr<const DeltaOverlay> overlays_[2];       // per kind slot
  bool overlay_dropped_[2] = {false, false};              // per kind slot
  mutable std::function<Status()> deferred_overlays_[2];  // per kind slot, until first used
  uint64_t deferred_overlay_bytes_[2] = {0, 0};
  mutable DegreeCorrection deferred_degrees_[2];  // per kind slot, until first scanned
  // The degree file was checked whole (or is trusted): a pass that only
  // checks it again is skipped.
  mutable bool degrees_checked_[2] = {false, false};
  File corrected_degrees_[2];  // per kind slot, when set
  File dir_handle_;            // GraphOpenOptions::hold
  File generation_lock_;       // its shared lock
  uint64_t corrected_checksum_[2] = {0, 0};
  bool by_original_wanted_ = true;
};

}  // namespace sg
