// What ingest is asked to do (IngestOptions) and what it reports
// (IngestSummary); the job is ingest.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "shards/format/manifest.h"
#include "shards/format/striping.h"
#include "shards/ingest/out_list_observer.h"

namespace sg {

class EdgeReader;
class Permutation;

struct IngestOptions {
  std::string input;
  // Opens the input instead of `input` naming a file (which is then only
  // recorded in the manifest): a distributed ingest's parts read what the
  // ranks send them (queued_edge_reader.h). Read once: no --remap.
  std::function<Status(std::unique_ptr<EdgeReader>*)> open_input;
  std::string output;
  std::string format;  // "" = from the file name
  bool binary_weights = false;
  bool undirected = false;
  bool drop_self_loops = false;
  bool dedup = false;
  // Dense ids for original ones (the map is stored; results keep the
  // original ids): always, never, or when the ids turn out sparse (more
  // than 16 vertex ids an edge, past a 2^20 slack) or wider than 32 bits.
  enum class Remap { kAuto, kAlways, kNever };
  Remap remap = Remap::kAuto;
  // The order's name, recorded in the manifest; ingest_graph applies only
  // `permutation` (apps/ingest_ordered.h computes it and calls ingest twice).
  std::string order = "none";  // none | bfds | bfs | degree
  // Relabelling (input format "graph"): new_id[old_id] of the stored graph
  // read, whole or windowed (permutation.h); its ingest record is kept.
  // Ingest releases it once the arcs are routed and the id map is written,
  // so the sort batches get its memory.
  Permutation* permutation = nullptr;
  uint64_t memory_bytes = uint64_t{1} << 30;
  uint32_t chunk_bytes = 256 * 1024;
  // The format version written: the current one; older ones for tests that
  // check such graphs are still read, and for A/B measurements.
  int format_version = kFormatVersion;
  // Which gap codings a chunk may take (format version 3,
  // compression/chunk_lists.h).
  GapChoice gap_choice = GapChoice::kFast;
  // For a disk faster than the spill's coder: the spill packed, not sorted
  // and coded (bucket_router.h), and it and the graph's device files
  // written with O_DIRECT, not through the page cache.
  bool direct_io = false;
  // A work graph (an ordered ingest's unordered first pass): its files'
  // writeback is started but never waited for; whoever keeps it as the
  // output syncs it first (sync_graph). The output's files are synced once,
  // at the commit.
  bool work_graph = false;
  // Files written into the graph directory as they are (name, contents):
  // the device profile its runs use (a probe of the output's directory).
  std::vector<std::pair<std::string, std::string>> graph_files;
  uint32_t intervals = 0;  // 0 = derive from the memory budget
  // 2-D blocks per space (docs/formats.md): each space's lists cut by
  // neighbour range into this many blocks; 1 = the 1-D layout; 0 = from
  // |V| and the budget (choose_block_count).
  uint32_t blocks = 0;
  std::vector<std::string> devices;
  // Where routing spills; "" = beside the output (a distributed ingest's
  // part spills to its machine's own disk, not the shared directory).
  std::string spill_dir;
  uint64_t stripe_bytes = 0;  // 0 = chosen from the space size and device count (see choose_stripe_bytes)
  // Records sorted at once; 0 = what the budget allows. Tests set it small
  // to force oversized buckets (sub-routing) on small inputs.
  size_t sort_buffer_edges = 0;
  // Buckets per router (rounded down to a power of two); 0 = from the budget.
  size_t route_buckets = 0;
  // Tests: lanes each router routes in at once (BucketRouter::add_lane;
  // unweighted records only), whatever the spill and buffers; 0 = chosen
  // (ingest_route.cc: a direct spill's routers, one lane a thread).
  size_t route_lanes = 0;
  // Tests: a bfds order takes its residual into memory whenever offered,
  // whatever the graph's size (apps/jobs/ingest_ordered.cc).
  bool order_residual_always = false;
  // Tests: a bfds order holds its ranks compact and writes its permutation
  // to a file even when 4 bytes a vertex fit.
  bool order_compact_always = false;
  // Tests: a bfds order steps from its root and level 1 with the engine,
  // not while the first pass sorts (out_list_observer).
  bool order_levels_by_engine = false;
  // An ordered ingest's first pass: asked once the input is routed and the
  // vertex count known; true = build only the out-space and the in-degrees
  // (an out-only graph, Manifest::out_only, which is all its traversal
  // order reads), dropping the routed in-space. Directed inputs only.
  std::function<bool(uint64_t num_vertices)> out_space_only;
  // An ordered ingest's out-only first pass: shown each out-list as it is
  // sorted (out_list_observer.h), when its in-degrees were counted while
  // routing (a directed input, no dedup or self-loop dropping).
  OutListObserver* out_list_observer = nullptr;
  // An ordered ingest's first pass, for the degree order: count each
  // vertex's total degree while routing the out-space (an undirected
  // graph's one space) and, when the counts fit (4 bytes a vertex, at most
  // half what the budget leaves), order by them and route the spill again
  // in the new ids, into every space: the ordered graph is written at once
  // (IngestSummary::ordered_in_route says so). Otherwise the pass goes on
  // as an ordinary first pass. Not for a stored graph read back, nor with
  // dedup or self-loop dropping (the order is by stored degrees).
  bool degree_order_in_route = false;
  // Keep only arcs whose destination (after any permutation) is in
  // [keep_destinations_begin, keep_destinations_end): one part of a
  // partitioned graph (apps/partition.h). Directed inputs only.
  uint32_t keep_destinations_begin = 0;
  uint32_t keep_destinations_end = UINT32_MAX;
  // Swap every arc's ends (after any permutation, before the range above):
  // the reverse part of a partitioned graph. Directed inputs only.
  bool transpose = false;
  // A symmetric input (a stored undirected graph) as a directed graph of
  // both arcs of every edge (a self-loop once): a part of a partitioned
  // undirected graph, whose in- and out-spaces differ.
  bool symmetrize = false;
  // A status line now and then ("ingest: route, 12.3 M edges, ..."; "" ends it); null: none.
  std::function<void(const std::string&)> progress;
  // Called as each phase begins ("route", "sort", "commit"; ordered ingest
  // adds "order"): tests interrupt ingest there.
  std::function<void(const std::string& phase)> on_phase;
};

struct IngestSummary {
  uint64_t num_vertices = 0;
  uint64_t num_edges = 0;
  uint64_t input_edges = 0;
  uint64_t stored_bytes = 0;       // all spaces, all devices
  uint64_t out_space_bytes = 0;    // of them, the out-space's
  uint64_t stored_self_loops = 0;  // self-loop arcs stored (an undirected graph's count once)
  uint64_t sorted_runs = 0;        // in-memory sort batches
  uint32_t intervals = 0;
  double seconds = 0;
  std::string ordering = "none";  // the graph's vertex order (Manifest::ordering)
  bool ordered_in_route = false;  // IngestOptions::degree_order_in_route was taken
  std::string phases;             // "route 1.2 s (peak 40 MiB), sort ..."
  std::string note;               // something the user should know (e.g. an order skipped), a line each
};

}  // namespace sg
