// The ingest job (ingest.h) as a class, shared by the files that define
// it: ingest.cc (options, the run, metadata and commit) and ingest_build.cc
// (routing the input into buckets, then sorting and encoding the spaces).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/file_util.h"
#include "base/status.h"
#include "compression/checksum.h"
#include "shards/format/graph.h"
#include "shards/format/manifest.h"
#include "shards/ingest/arc_record.h"
#include "shards/ingest/bucket_router.h"
#include "shards/ingest/edge_reader.h"
#include "shards/ingest/graph_files.h"
#include "shards/ingest/id_translation.h"
#include "shards/ingest/ingest_options.h"
#include "shards/ingest/ingest_plan.h"
#include "shards/ingest/ingest_progress.h"
#include "shards/ingest/open_input.h"
#include "shards/ingest/permutation.h"
#include "shards/ingest/space_builder.h"
#include "shards/ingest/vertex_histogram.h"

namespace sg {

constexpr uint64_t kMinIngestMemoryBytes = 4 << 20;

// More than this many vertices per edge (plus the slack) is a sparse id
// space that needs --remap: a road network has about 1, a web crawl 1/10.
constexpr uint64_t kSparseIdFactor = 16;
constexpr uint64_t kSparseIdSlack = uint64_t{1} << 20;

class IngestJob {
 public:
  explicit IngestJob(const IngestOptions& options) : opt_(options), ids_(options) {
    progress_.set_sink(options.progress);
    progress_.set_hook(options.on_phase);
  }

  Status run(IngestSummary* summary);
  // After a failed run with --remap auto: why the ids need remapping ("" if
  // they do not; the run failed for another reason).
  const std::string& remap_reason() const { return remap_reason_; }

 private:
  Status check_options();
  Status open_reader();
  template <typename Record>
  Status route_batch(const std::vector<DenseArc>& arcs, std::vector<BucketRouter<Record>>* routers,
                     std::vector<VertexHistogram>* histograms, std::vector<std::vector<Record>>* space_records,
                     bool mirror = true);
  // The budget less what ingest holds; `sort_phase`: without the
  // permutation, which is released before sorting.
  IngestBudget budget(bool sort_phase = false) const;
  template <typename Record>
  Status open_routers(std::vector<BucketRouter<Record>>* routers) const;
  uint64_t estimated_records_per_space() const;
  uint64_t held_bytes() const;
  bool direct_io() const { return opt_.direct_io; }
  // A work graph's files are never synced; the output's are at the commit.
  FileSync file_sync() const { return opt_.work_graph ? FileSync::kNever : FileSync::kAtCommit; }
  // Spaces sorted and encoded: one for an undirected or out-only graph.
  size_t built_spaces() const { return undirected_ || out_only_ ? 1 : 2; }
  Status write_in_degrees();
  bool first_pass_skips_in_space(const std::vector<RawEdge>& first_batch) const;
  uint64_t first_batch_vertices(const std::vector<RawEdge>& first_batch) const;
  Status check_vertex_count(uint64_t edges_read);
  Status release_permutation();
  Status route_and_build();
  template <typename Record>
  Status route_and_build(std::vector<RawEdge>* batch);
  template <typename Record>
  Status route_input(std::vector<RawEdge>* batch, std::vector<BucketRouter<Record>>* routers,
                     std::vector<VertexHistogram>* histograms);
  template <typename Record>
  Status build_space_files(size_t space, BucketRouter<Record>* router,
                           const std::vector<std::vector<std::string>>& paths, size_t batch_records,
                           std::vector<SpaceManifest>* metas, SpaceBuildStats* stats);
  template <typename Record>
  Status write_spaces(std::vector<BucketRouter<Record>>* routers);
  Status write_relabelled_id_map(const std::string& path, uint64_t* checksum) const;
  // The original id of a dense id before any permutation.
  uint64_t original_id(uint32_t dense) const;
  // IngestOptions::degree_order_in_route (ingest_reroute.cc): whether to
  // count degrees, from the first batch's ids; counting a batch's arcs; and
  // once the out-space is routed, ordering and routing it again.
  void start_degree_count(const std::vector<RawEdge>& first_batch);
  bool ordered_in_route() const { return permutation_ == &route_order_; }
  void count_degrees(const std::vector<DenseArc>& arcs);
  void stop_degree_count();
  void take_in_degrees();
  template <typename Record>
  Status reroute_in_degree_order(std::vector<BucketRouter<Record>>* routers, std::vector<VertexHistogram>* histograms);
  void order_by_counted_degrees();
  template <typename Record>
  Status reroute_spill(const BucketRouter<Record>& unordered, std::vector<BucketRouter<Record>>* ordered,
                       std::vector<VertexHistogram>* histograms);
  // IngestOptions::out_list_observer (ingest_observed_sort.cc).
  template <typename Record>
  Status begin_observed_sort(const BucketRouter<Record>& router);
  template <typename Record>
  Status read_out_list(const BucketRouter<Record>& router, uint32_t vertex,
                       const std::function<void(uint32_t)>& visit) const;
  Status write_metadata();
  Status write_extended_id_map(const std::string& path, uint64_t* checksum) const;
  void copy_ingest_record(const Manifest& source);
  void fill_summary(IngestSummary* summary) const;

  const IngestOptions& opt_;
  IdTranslation ids_;
  GraphFiles files_;
  std::string remap_reason_;  // --remap auto found sparse or wide ids (a rerun remaps)
  std::string reader_notes_;  // the reader's notes (columns ignored, ...)
  InputFormat format_ = InputFormat::kSnap;
  std::unique_ptr<EdgeReader> reader_;
  InputShape shape_;
  bool undirected_ = false;
  bool out_only_ = false;             // IngestOptions::out_space_only said so
  std::vector<uint32_t> in_degrees_;  // out-only: counted as the out-space is built
  uint64_t observer_bytes_ = 0;       // held by IngestOptions::out_list_observer through the sort (0: none)
  // Relabelling: the new dense id of each dense id (IngestOptions::permutation).
  Permutation* permutation_ = nullptr;   // released after routing (release_permutation)
  const Graph* source_graph_ = nullptr;  // format "graph": the graph read
  // IngestOptions::degree_order_in_route: each vertex's total degree, for at
  // most degree_limit_ vertices (0: not counting; the vector's capacity is
  // reserved up front and counted in held_bytes); then the order's new ids
  // (route_order_, which permutation_ points to) and the arcs each slot of
  // 2^order_slot_shift_ new ids holds in both spaces together.
  std::vector<uint32_t> route_degrees_;
  uint64_t degree_limit_ = 0;
  // The count is of in-degrees (an out-only first pass of another order),
  // which become in_degrees_; false once it stops.
  bool in_degrees_in_route_ = false;
  Permutation route_order_;
  std::vector<uint64_t> order_slot_arcs_;
  int order_slot_shift_ = 0;
  IngestProgress progress_;
  uint64_t num_vertices_ = 0;
  std::vector<uint32_t> interval_starts_;
  std::vector<uint32_t> block_starts_;  // of every space
  uint64_t stored_loops_ = 0;           // self-loop arcs written to the out-space
  uint64_t stripe_bytes_ = 0;
  Manifest manifest_;
};

// An array to `path` (in the temporary directory: no reader sees it before
// the commit), left as `sync` says, and its checksum.
template <typename T>
Status write_array_file(const std::string& path, const std::vector<T>& values, FileSync sync, uint64_t* checksum) {
  *checksum = checksum64(values.data(), values.size() * sizeof(T));
  return write_whole_file(path, values.data(), values.size() * sizeof(T), sync);
}

}  // namespace sg
