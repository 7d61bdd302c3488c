#include "shards/ingest/ingest.h"

#include <chrono>
#include <filesystem>

#include "base/interrupt.h"
#include "shards/ingest/ingest_job.h"
#include "shards/ingest/vertex_order.h"

namespace sg {
namespace {
namespace fs = std::filesystem;
}  // namespace

Status IngestJob::check_options() {
  if (opt_.output.empty()) return Status::InvalidArgument("no output graph directory given (-o)");
  std::error_code ec;
  if (fs::exists(opt_.output, ec)) {
    return Status::InvalidArgument(opt_.output + ": already exists; remove it or choose another output");
  }
  if (opt_.memory_bytes < kMinIngestMemoryBytes) return Status::OverBudget("--memory must be at least 4M");
  if (opt_.keep_destinations_begin >= opt_.keep_destinations_end)
    return Status::InvalidArgument("an empty range of destinations to keep");
  if ((opt_.keep_destinations_begin != 0 || opt_.keep_destinations_end != UINT32_MAX || opt_.transpose ||
       opt_.symmetrize) &&
      opt_.undirected) {
    return Status::InvalidArgument(
        "keeping a range of destinations, transposing or symmetrizing needs a directed output (no --undirected)");
  }
  if (opt_.chunk_bytes < 64) return Status::InvalidArgument("--chunk-bytes must be at least 64");
  if (opt_.stripe_bytes != 0 && (opt_.stripe_bytes < 4096 || opt_.stripe_bytes % 4096 != 0)) {
    return Status::InvalidArgument("--stripe-bytes must be a positive multiple of 4096");
  }
  VertexOrder order = VertexOrder::kNone;
  if (!parse_vertex_order(opt_.order, &order))
    return Status::InvalidArgument("--order must be none, bfds, bfs or degree");
  if (order != VertexOrder::kNone && opt_.permutation == nullptr) {
    return Status::InvalidArgument("--order " + opt_.order + " needs the order's permutation (see ingest_ordered)");
  }
  permutation_ = opt_.permutation;
  if (opt_.open_input) {
    if (opt_.remap == IngestOptions::Remap::kAlways) return Status::InvalidArgument("an opened input is not remapped");
    return Status::OK();
  }
  SG_RETURN_IF_ERROR(resolve_format(opt_.input, opt_.format, &format_));
  // Graphalytics ids are sparse 64-bit labels: always remapped.
  if (format_ == InputFormat::kGraphalytics) ids_.set_remap();
  return Status::OK();
}

Status IngestJob::open_reader() {
  if (!opt_.open_input) return open_edge_reader(opt_.input, format_, opt_.binary_weights, &reader_);
  SG_RETURN_IF_ERROR(opt_.open_input(&reader_));
  format_ = reader_->shape().format;
  return Status::OK();
}

// A stored graph's id map followed by the ids its updates added (a
// compaction keeps every dense id).
Status IngestJob::write_extended_id_map(const std::string& path, uint64_t* checksum) const {
  std::vector<uint64_t> ids;
  ids.reserve(num_vertices_);
  for (uint32_t v = 0; v < source_graph_->num_vertices(); ++v) ids.push_back(source_graph_->original_id(v));
  const std::vector<uint64_t>& added = reader_->added_vertex_ids();
  ids.insert(ids.end(), added.begin(), added.end());
  if (ids.size() != num_vertices_) return Status::Corruption(path + ": the updates' ids do not cover the vertices");
  return write_array_file(path, ids, file_sync(), checksum);
}

Status IngestJob::write_metadata() {
  Manifest& m = manifest_;
  m.graph_id = files_.graph_id();
  m.num_vertices = num_vertices_;
  m.directed = !undirected_;
  m.weighted = shape_.weighted;
  m.num_edges = m.edges_from_spaces(stored_loops_);
  m.id_base = ids_.remapped() || permutation_ != nullptr ? 0 : shape_.id_base;
  m.ordering = ordered_in_route() ? "degree" : permutation_ != nullptr ? opt_.order : "none";
  if (permutation_ != nullptr) {
    assert(m.id_map_file == "id_map.u64");  // written by release_permutation
  } else if (source_graph_ != nullptr) {
    // A stored graph read as it is (completing an out-only graph): its ids stay.
    const Manifest& source = source_graph_->manifest();
    m.id_base = source.id_base;
    m.ordering = source.ordering;
    if (!source.id_map_file.empty() && !reader_->added_vertex_ids().empty()) {
      m.id_map_file = "id_map.u64";
      SG_RETURN_IF_ERROR(write_extended_id_map(files_.temp_dir() + "/" + m.id_map_file, &m.id_map_checksum));
    } else if (!source.id_map_file.empty()) {
      m.id_map_file = "id_map.u64";
      m.id_map_checksum = source.id_map_checksum;
      SG_RETURN_IF_ERROR(
          copy_file_synced(source_graph_->dir() + "/" + source.id_map_file, files_.temp_dir() + "/" + m.id_map_file));
    }
  } else if (ids_.remapped()) {
    m.id_map_file = "id_map.u64";
    SG_RETURN_IF_ERROR(
        write_array_file(files_.temp_dir() + "/" + m.id_map_file, ids_.id_map(), file_sync(), &m.id_map_checksum));
  }
  m.chunk_bytes = opt_.chunk_bytes;
  m.format_version = opt_.format_version;
  m.codec = codec_name(opt_.format_version);
  m.stripe_bytes = stripe_bytes_;
  m.interval_starts = interval_starts_;
  m.devices = files_.device_dirs();
  m.ingest.source = opt_.input;
  m.ingest.input_format = format_name(format_);
  m.ingest.self_loops_dropped = opt_.drop_self_loops;
  m.ingest.duplicates_dropped = opt_.dedup;
  m.ingest.memory_bytes = opt_.memory_bytes;
  if (source_graph_ != nullptr) copy_ingest_record(source_graph_->manifest());
  return Status::OK();
}

// Relabelling a graph: what its ingest saw in the input still holds.
void IngestJob::copy_ingest_record(const Manifest& source) {
  const IngestRecord& first = source.ingest;
  IngestRecord& m = manifest_.ingest;
  m.source = first.source;
  m.input_format = first.input_format;
  m.input_edges = first.input_edges;
  m.self_loops = first.self_loops;
  m.self_loop_vertices = first.self_loop_vertices;
  m.duplicate_edges = first.duplicate_edges;
  m.self_loops_dropped = first.self_loops_dropped;
  m.duplicates_dropped = first.duplicates_dropped;
  m.sorted_runs += first.sorted_runs;
}

void IngestJob::fill_summary(IngestSummary* summary) const {
  summary->phases = progress_.summary();
  summary->note.clear();
  const LeftoverReport& leftovers = files_.leftovers();
  if (leftovers.entries > 0) {
    summary->note = "removed " + std::to_string(leftovers.entries) + " leftovers of killed ingests (" +
                    std::to_string(leftovers.bytes >> 20) + " MiB freed)";
  }
  if (!reader_notes_.empty()) summary->note += (summary->note.empty() ? "" : "\n") + reader_notes_;
  summary->ordering = manifest_.ordering;
  summary->ordered_in_route = ordered_in_route();
  summary->num_vertices = manifest_.num_vertices;
  summary->num_edges = manifest_.num_edges;
  summary->stored_self_loops = stored_loops_;
  summary->input_edges = manifest_.ingest.input_edges;
  summary->sorted_runs = manifest_.ingest.sorted_runs;
  summary->intervals = static_cast<uint32_t>(interval_starts_.size());
  summary->stored_bytes = 0;
  for (const SpaceManifest& s : manifest_.spaces) {
    summary->stored_bytes += s.logical_bytes;
    summary->out_space_bytes += s.kind == "out" ? s.logical_bytes : 0;
  }
}

Status IngestJob::run(IngestSummary* summary) {
  const auto start = std::chrono::steady_clock::now();
  SG_RETURN_IF_ERROR(check_options());
  SG_RETURN_IF_ERROR(files_.prepare(opt_.output, opt_.devices));
  files_.set_file_sync(file_sync());
  if (ids_.remapped()) {
    progress_.begin_phase("remap ids", 0);
    SG_RETURN_IF_ERROR(open_reader());
    SG_RETURN_IF_ERROR(ids_.collect_ids(reader_.get(), budget().read_batch_edges()));
    reader_notes_ = reader_->notes();
  }
  const Status routed = route_and_build();
  if (!routed.ok() && ids_.wide_id() != 0 && remap_reason_.empty()) {
    remap_reason_ = "vertex id " + std::to_string(ids_.wide_id()) + " does not fit 32-bit dense ids";
  }
  SG_RETURN_IF_ERROR(routed);
  progress_.begin_phase("commit", 0);
  if (interrupt_requested()) return Status::Interrupted("ingest stopped by a signal");
  SG_RETURN_IF_ERROR(write_metadata());
  SG_RETURN_IF_ERROR(files_.commit(manifest_, opt_.graph_files, opt_.output));
  progress_.end();
  fill_summary(summary);
  summary->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return Status::OK();
}

// --remap auto: a run that finds sparse or wide ids fails (and removes
// what it wrote) and the ingest runs again with remapping, which reads the
// input once more to collect its ids.
Status ingest_graph(const IngestOptions& options, IngestSummary* summary) {
  std::string reason;
  {
    IngestJob job(options);
    const Status status = job.run(summary);
    if (status.ok() || options.remap != IngestOptions::Remap::kAuto) return status;
    reason = job.remap_reason();
    if (reason.empty()) return status;
  }
  IngestOptions remapped = options;
  remapped.remap = IngestOptions::Remap::kAlways;
  IngestJob job(remapped);
  SG_RETURN_IF_ERROR(job.run(summary));
  summary->note = "ids remapped to dense ones: " + reason +
                  "; results keep the original ids (--no-remap refuses instead)" +
                  (summary->note.empty() ? "" : "\n" + summary->note);
  return Status::OK();
}

}  // namespace sg
