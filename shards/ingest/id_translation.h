// Input ids to the dense ids a graph stores: an id less its format's base,
// or (--remap) its rank among the input's distinct ids, then (a relabelling
// pass of an ordered ingest) through the order's permutation, whole or
// through windows (permutation.h); a batch at a time, in two halves in
// parallel. Also what a part of a partitioned graph asks of its arcs
// (IngestOptions: transpose, symmetrize, a range of destinations).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "shards/ingest/edge_reader.h"
#include "shards/ingest/ingest_options.h"

namespace sg {

class Graph;
class Permutation;

// An input edge in dense ids (relabelled if asked).
struct DenseArc {
  uint32_t src, dst;
  float weight;
};

class IdTranslation {
 public:
  explicit IdTranslation(const IngestOptions& options)
      : opt_(options), remap_(options.remap == IngestOptions::Remap::kAlways) {}

  // Remapping from the start (a Graphalytics input's ids are sparse labels).
  void set_remap() { remap_ = true; }
  bool remapped() const { return remap_; }
  // --remap: the dense id of an original id is its rank among the distinct
  // ids (8 bytes each), so the order of ids (and of results) is kept. A
  // vertex file (Graphalytics .v) lists them; else one read of the input
  // collects them.
  Status collect_ids(EdgeReader* reader, size_t batch_edges);
  const std::vector<uint64_t>& id_map() const { return id_map_; }
  // The largest id a reader passes: any with --remap auto (a wide one sends
  // the ingest back to remap), else one that fits 32 bits.
  uint64_t input_id_limit() const;
  // Once the first batch is read: the input's shape; a relabelling pass's
  // permutation (new_id[old]) and the stored graph it reads.
  Status start(const InputShape& shape, Permutation* permutation, const Graph* source);
  // Dense (and relabelled) ids of a batch, and the part's filters.
  Status translate_batch(const std::vector<RawEdge>& batch, std::vector<DenseArc>* arcs);
  // Vertices: the remapped ids, or the largest id seen plus one, at least
  // the declared count (mtx rows, SNAP "# Nodes:").
  uint64_t count_vertices() const;
  // The largest dense id of every batch so far (0 before any edge).
  uint64_t max_dense_id() const { return max_dense_id_; }
  // With --remap auto: an id past 32 bits that a batch met (0: none).
  uint64_t wide_id() const { return wide_id_.load(); }

 private:
  Status translate(const RawEdge& raw, uint32_t* src, uint32_t* dst) const;
  Status past_permutation(uint64_t src, uint64_t dst) const;  // the error that names the larger id
  // New ids of dense ones: sources[v - source_first], neighbours[v -
  // neighbour_first] (the whole permutation or its windows); none if null.
  struct IdLookup {
    const uint32_t* sources = nullptr;
    uint64_t source_first = 0;
    const uint32_t* neighbours = nullptr;
    uint64_t neighbour_first = 0;
  };
  Status translate_part(const std::vector<RawEdge>& batch, size_t begin, size_t end, const IdLookup& lookup,
                        std::vector<DenseArc>* arcs);
  Status translate_windowed(const std::vector<RawEdge>& batch, size_t begin, size_t end, std::vector<DenseArc>* arcs);

  const IngestOptions& opt_;
  bool remap_ = false;
  std::vector<uint64_t> id_map_;  // --remap: sorted distinct original ids
  InputShape shape_;
  Permutation* permutation_ = nullptr;
  std::vector<uint64_t> source_block_starts_;  // of the graph read's out-space blocks (windowed permutation)
  mutable std::atomic<uint64_t> wide_id_{0};
  uint64_t max_dense_id_ = 0;
  bool saw_edge_ = false;
};

}  // namespace sg
