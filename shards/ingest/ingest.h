// `shardgraph ingest`: edge list -> graph directory (DESIGN §4).
//
// Phases, each bounded by the memory budget:
//  1. (--remap only) read the input once to collect the distinct ids;
//  2. read the input, translate ids, count degrees, and fill a sort buffer
//     of half the budget; each full buffer is sorted (TBB) and spilled as a
//     run sorted by source (out-space) and one sorted by destination (in-space);
//  3. choose vertex intervals that balance edges;
//  4. k-way merge the runs of each space into chunks (SpaceWriter), striped
//     over the devices;
//  5. write indexes, degrees and id map, rename device files, write the
//     manifest last and rename the temporary directory into place.
// Any failure (bad line, full disk, signal) removes everything written.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compression/status.h"

namespace sg {

struct IngestOptions {
  std::string input;
  std::string output;
  std::string format;  // "" = from the file name
  bool binary_weights = false;
  bool undirected = false;
  bool drop_self_loops = false;
  bool dedup = false;
  bool remap = false;
  std::string order = "none";  // none | degree | bfs (shards/vertex_order.h)
  uint64_t memory_bytes = uint64_t{1} << 30;
  uint32_t chunk_bytes = 256 * 1024;
  uint32_t intervals = 0;  // 0 = derive from the memory budget
  std::vector<std::string> devices;
  uint64_t stripe_bytes = 0;  // 0 = chosen from the space size and device count (see choose_stripe_bytes)
  // Edges per sorted run; 0 = half the memory budget. Tests set it small to
  // exercise spilling and multi-pass merges on small inputs.
  size_t sort_buffer_edges = 0;
  size_t merge_fanin = 0;  // 0 = from the budget
};

struct IngestSummary {
  uint64_t num_vertices = 0;
  uint64_t num_edges = 0;
  uint64_t input_edges = 0;
  uint64_t stored_bytes = 0;  // all spaces, all devices
  uint64_t sorted_runs = 0;
  uint32_t intervals = 0;
  double seconds = 0;
};

Status ingest_graph(const IngestOptions& options, IngestSummary* summary);

// Default stripe depth: the largest power of two from 1 MiB to 8 MiB that
// still gives every device at least 32 stripes of a space of
// `space_bytes`, so devices get equal shares (within ~3%) while requests stay
// large; 8 MiB when the space is large, 1 MiB when it is small.
uint64_t choose_stripe_bytes(uint64_t space_bytes, size_t devices);

}  // namespace sg
