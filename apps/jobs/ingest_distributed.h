// `mpirun -np N shardgraph ingest INPUT... -o DIR --parts N`: a
// partitioned graph (partition.h) built by N ranks at once, none of which
// reads or holds the whole input (docs/scale-out.md, "Distributed
// ingest"). Each rank
//  1. reads its share of the inputs (input shares below) and counts arcs
//     per block of vertices; the ranks add the counts and cut the same
//     balanced ranges as `partition` would, on block boundaries;
//  2. reads its share again and routes every arc to the ranks that own its
//     ends, in bounded rounds (arc_exchange.h), while its part's ingest
//     and its reverse part's ingest take what it receives (two threads,
//     each an ordinary ingest with a share of the budget);
//  3. sends its range of the whole graph's out-degrees to rank 0, which
//     writes out.degrees and partition.json and renames the directory into
//     place, as `partition` does.
// Ids are kept as given (no --remap, no --order): a remapped or ordered
// graph is ingested in one process and partitioned.
#pragma once

#include <string>
#include <vector>

#include "apps/jobs/partition.h"
#include "base/status.h"
#include "core/communicator.h"
#include "shards/ingest/ingest_options.h"

namespace sg {

struct DistributedIngestOptions {
  // What every part's ingest takes (memory, chunk size, codec, dedup, ...);
  // `output` is the partitioned directory, on a file system every rank
  // sees (it holds metadata; edge data goes to the parts' devices).
  IngestOptions part;
  // Input shares: with at least as many files as ranks, file i is read by
  // rank i mod N; with fewer, each plain bin32/bin64 file is split by
  // records among all ranks, and any other file is read by rank i mod N.
  std::vector<std::string> inputs;
  std::vector<std::vector<std::string>> part_devices;  // [part]: device directories
};

struct DistributedIngestSummary {
  std::vector<PartRange> ranges;
  uint64_t num_vertices = 0, num_edges = 0;
  uint64_t stored_bytes = 0;  // all parts and reverse parts
  double seconds = 0;
  std::string phases;  // this rank's: "count 1.2 s, route and build 9.8 s, ..."
  // A line a rank: its phases, the arcs it read and sent, its peak RSS.
  std::vector<std::string> rank_lines;
};

// Every rank calls it with the same options; every rank returns the same
// status (agreed).
Status ingest_distributed(const DistributedIngestOptions& options, Communicator* comm,
                          DistributedIngestSummary* summary);

}  // namespace sg
