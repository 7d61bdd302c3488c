// How ingest divides its budget (docs/architecture.md, Ingest: Memory):
// the read batches, each space's router (its bucket count and buffers),
// the sort batches, and, from what routing counted, the vertex intervals
// and 2-D blocks of the graph it writes. Ingest runs without an engine,
// so it plans its own memory here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/status.h"
#include "shards/format/graph.h"

namespace sg {

class Permutation;
class VertexHistogram;

// Buckets of unequal ranges for a router (BucketRouter::open_ranges).
struct BucketRanges {
  int slot_bits = 0;
  uint32_t slot_count = 0;
  std::vector<uint32_t> first_slot;  // empty: route by equal ranges
};

// The budget, less what ingest holds besides its batches and buffers
// (id maps, a permutation, write buffers, encoders).
struct IngestBudget {
  uint64_t memory_bytes = 0;
  uint64_t held_bytes = 0;
  uint64_t route_buckets = 0;    // --route-buckets (tests); 0 = from the budget
  size_t sort_buffer_edges = 0;  // records sorted at once (tests); 0 = from the budget
  size_t route_lanes = 0;        // lanes a router routes in (tests); 0 = chosen (ingest_route.cc)

  // Below this a spill segment costs an HDD more in request time than a
  // second pass over oversized buckets does.
  static constexpr uint64_t kMinSegmentBytes = 256 << 10;

  // Edges read at once: two batches in flight cost about 80 bytes an edge
  // (raw, translated and routed copies); 1/8 of the budget, at most 64 Ki.
  size_t read_batch_edges() const;
  // route_buckets as a power of two: the bucket and sub-bucket count.
  uint32_t bucket_override() const;
  // Each space's share of the route buffers.
  uint64_t route_buffer_bytes(size_t spaces) const;
  size_t route_buffer_records(size_t record_bytes, size_t spaces, uint64_t buckets) const;
  uint32_t route_bucket_count(uint64_t records_per_space, size_t spaces, size_t sort_records) const;
  // Records sorted at once, at `bytes_per_record`.
  size_t batch_records(size_t bytes_per_record) const;
};

// A stored graph's arcs per vertex of one space, read from its degree
// files (through `permutation` when relabelling), cut into buckets that
// each fit a sort batch.
Status known_bucket_ranges(const Graph& source, const Permutation* permutation, SpaceKind kind,
                           const IngestBudget& budget, size_t spaces, size_t sort_records, BucketRanges* ranges);
// Buckets cut from the arcs each slot of 2^slot_shift vertices will hold
// (at most 64 Ki slots), each within a sort batch; `bound_only`: the counts
// only bound each space's arcs.
void cut_bucket_ranges(const std::vector<uint64_t>& slot_arcs, int slot_shift, const IngestBudget& budget,
                       size_t spaces, size_t sort_records, bool bound_only, BucketRanges* ranges);

// Interval starts that balance arcs and vertices (`intervals` of them, or
// from the budget when 0).
std::vector<uint32_t> choose_intervals(VertexHistogram* histogram, uint64_t num_vertices, uint64_t intervals,
                                       uint64_t memory_bytes);

// Default block count: one block (the 1-D layout) while 4 bytes a vertex
// fit half of `memory_bytes` (a run's source or destination state then
// fits whole), else as many blocks as make one block's range at 4 bytes a
// vertex fit a quarter of it: a run whose values on both sides are loaded
// by range then streams whole blocks past a large group (R-MAT 26 in
// 176 MiB: 7 blocks).
uint32_t choose_block_count(uint64_t num_vertices, uint64_t memory_bytes);
// Block starts: equal ranges of whole 1024-vertex slabs (the unit a run
// loads vertex values in) when a block holds one, so at most `blocks` of
// them (tiny graphs in tests get tiny blocks).
std::vector<uint32_t> block_starts(uint64_t num_vertices, uint32_t blocks);

}  // namespace sg
