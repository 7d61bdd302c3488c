// `shardgraph partition`: one stored graph cut into N parts for a run over
// MPI (docs/scale-out.md). Part k owns the contiguous vertex range
// [begin_k, end_k) and is an ordinary graph directory (|V| vertices, global
// ids) holding every arc whose destination it owns, in both spaces; its
// reverse part (part-k.reverse) holds the transposed arcs whose source it
// owns, so reversed steps (WCC on a directed graph) update owned vertices
// too. An undirected graph's parts hold both arcs of every edge into their
// range and need no reverse part. Ranges are balanced by alpha * vertices +
// in-arcs, Gemini's chunk-based rule (Zhu et al., OSDI'16), with alpha = 1
// for out-of-core ranks (partition.cc). The output directory holds part-0 … part-(N-1)
// and their reverse parts, the whole graph's out-degrees (a part's own are
// partial; PageRank divides by the global ones) and partition.json, written
// last: until it exists the directory is a hidden work directory that a
// failed or killed run leaves to `gc`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "shards/format/graph.h"

namespace sg {

struct PartitionOptions {
  std::string graph;   // a stored, directed graph
  std::string output;  // must not exist
  uint32_t parts = 2;
  uint64_t memory_bytes = uint64_t{1} << 30;  // each part's ingest
  // Device directories of each part's edge data (and its reverse part's),
  // e.g. the disks of the machine that will run it; none: the part's directory.
  std::vector<std::vector<std::string>> part_devices;
};

struct PartRange {
  uint32_t begin = 0, end = 0;  // owned vertices
  uint64_t arcs = 0;            // arcs into them
  uint64_t out_arcs = 0;        // arcs out of them (the reverse part's)
};

struct PartitionSummary {
  std::vector<PartRange> parts;
  double seconds = 0;
};

// Cuts [0, n) into `parts` contiguous ranges of about equal
// alpha * vertices + in-degree sum (every range at least one vertex).
std::vector<PartRange> balanced_ranges(const std::vector<uint32_t>& in_degrees, uint32_t parts);

// The same over blocks of 2^block_shift vertices (block b's in-arcs):
// cuts fall on block boundaries. Ranges' arcs are left 0.
std::vector<PartRange> balanced_block_ranges(const std::vector<uint64_t>& block_in_arcs, uint32_t block_shift,
                                             uint64_t vertices, uint32_t parts);

Status partition_graph(const PartitionOptions& options, PartitionSummary* summary);

// partition.json of a partitioned graph, checked.
struct PartitionLayout {
  uint64_t num_vertices = 0, num_edges = 0;
  uint64_t out_degree_checksum = 0;
  std::vector<PartRange> ranges;
  std::vector<std::string> part_ids;  // each part's graph_id
  // Each part's reverse part (the transposed arcs out of its vertices, for
  // reversed steps); empty in a partition written before they existed.
  std::vector<std::string> reverse_ids;
  // Of an undirected graph: each part holds both arcs of the edges into its
  // range (no reverse parts: the graph is its own transpose), and ranks see
  // it as undirected (Graph::view_as_undirected).
  bool undirected = false;
  uint64_t num_arcs = 0;  // in all parts (an undirected edge is two arcs, a self-loop one)
};
bool is_partitioned(const std::string& dir);
Status read_partition_layout(const std::string& dir, PartitionLayout* layout);
// Writes DIR/partition.json (sealed, atomically); `source_id` names what
// was partitioned (a graph's id, or the inputs' digest).
Status write_partition_layout(const std::string& dir, const PartitionLayout& layout, const std::string& source_id);
// --device PART:DIR arguments as each part's device directories.
Status split_part_devices(const std::vector<std::string>& specs, uint32_t parts,
                          std::vector<std::vector<std::string>>* part_devices);
std::string part_dir(const std::string& dir, uint32_t part);
std::string reverse_part_dir(const std::string& dir, uint32_t part);
std::string partition_out_degree_path(const std::string& dir);
// Opens a part (or reverse part) `dir`, refusing a missing one and one the
// partition did not write (another graph id or vertex count).
Status open_part(const std::string& dir, const std::string& graph_id, uint64_t vertices,
                 const GraphOpenOptions& options, Graph* graph);

// Checks a partitioned graph: partition.json, every part present and
// verified (verify_graph), the ranges tiling [0, |V|), each part's arcs all
// into its range, and the arcs adding up to the graph's.
Status verify_partition(const std::string& dir, uint64_t* arcs);

// `info DIR` of a partitioned graph: its size and each part's range and
// arcs, from partition.json (checked).
Status partition_info_text(const std::string& dir, std::string* text);

}  // namespace sg
