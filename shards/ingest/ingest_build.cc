#include <algorithm>
#include <future>

#include "base/interrupt.h"
#include "base/parallel.h"
#include "shards/format/striped_writer.h"
#include "shards/ingest/ingest_job.h"
#include "shards/ingest/leftovers.h"
#include "shards/ingest/space_output.h"

namespace sg {

// What ingest holds besides its batches and buffers: id maps, the
// permutation of a relabelling pass, 4 MiB of read and write buffers, the
// routers' read stages (BucketRouter::read_bucket), and
// the spaces' encoders and outputs (space_build_fixed_bytes: at 16 MiB,
// R-MAT 20's sort held 1.36x the budget before they were counted), and
// each thread's chunk coders (space_build_thread_bytes).
uint64_t IngestJob::held_bytes() const {
  constexpr uint64_t kFixedBytes = 4 << 20;
  const size_t spaces = built_spaces();
  const size_t blocks = std::max<size_t>(block_starts_.size(), 1);
  const size_t parts = encoder_parts(blocks, opt_.chunk_bytes, opt_.memory_bytes / spaces);
  const uint64_t read_stages = spaces * BucketRouter<WeightedArc>::read_stage_bytes(SIZE_MAX / 16);
  return ids_.id_map().size() * sizeof(uint64_t) + kFixedBytes + read_stages +
         (permutation_ != nullptr ? permutation_->held_bytes() : 0) +
         (source_graph_ != nullptr ? source_graph_->id_map_bytes() : 0) +
         (degree_limit_ != 0 ? route_degrees_.capacity() * sizeof(uint32_t) : 0) +
         spaces * space_build_fixed_bytes(opt_.chunk_bytes, blocks, parts) + in_degrees_.size() * sizeof(uint32_t) +
         observer_bytes_ +
         parallel_threads() *
             space_build_thread_bytes(opt_.chunk_bytes, list_codec_of(opt_.format_version), opt_.gap_choice);
}

IngestBudget IngestJob::budget(bool sort_phase) const {
  const uint64_t permutation = sort_phase && permutation_ != nullptr ? permutation_->held_bytes() : 0;
  return IngestBudget{opt_.memory_bytes, held_bytes() - permutation, opt_.route_buckets, opt_.sort_buffer_edges,
                      opt_.route_lanes};
}

// One read of the input routes every arc into its space's buckets (both
// spaces in parallel) and counts arcs per vertex block; then each space is
// sorted batch by batch and encoded.
Status IngestJob::route_and_build() {
  SG_RETURN_IF_ERROR(open_reader());
  reader_->set_max_id(ids_.input_id_limit());
  reader_->set_memory_budget(opt_.memory_bytes);
  // The unordered graph is removed after this pass (or read once more when
  // `auto` keeps the input's order).
  if (permutation_ != nullptr) reader_->drop_pages_as_read();
  std::vector<RawEdge> batch;
  SG_RETURN_IF_ERROR(reader_->next_batch(&batch, budget().read_batch_edges()));
  shape_ = reader_->shape();
  undirected_ = opt_.undirected || (shape_.symmetric && !opt_.symmetrize);
  source_graph_ = reader_->stored_graph();
  SG_RETURN_IF_ERROR(ids_.start(shape_, permutation_, source_graph_));
  return shape_.weighted ? route_and_build<WeightedArc>(&batch) : route_and_build<PlainArc>(&batch);
}

// An ordered ingest's first pass needs no in-space when the order will fit
// (IngestOptions::out_space_only), which depends on the vertex count. That
// count only grows as the input is read, so the first batch's ids decide:
// past the order's reach, both spaces are built; otherwise the in-space is
// skipped, and a graph whose later ids outgrow the order is completed from
// its out-space (apps/jobs/ingest_ordered.cc).
bool IngestJob::first_pass_skips_in_space(const std::vector<RawEdge>& first_batch) const {
  if (undirected_ || !opt_.out_space_only) return false;
  return opt_.out_space_only(first_batch_vertices(first_batch));
}

// The vertices the first batch shows (all of them when remapped or
// declared). An id below the base wraps to a huge count (translate
// refuses it).
uint64_t IngestJob::first_batch_vertices(const std::vector<RawEdge>& first_batch) const {
  uint64_t vertices = ids_.remapped() ? ids_.id_map().size() : shape_.declared_vertices;
  if (!ids_.remapped()) {
    for (const RawEdge& raw : first_batch)
      vertices = std::max({vertices, raw.src - shape_.id_base + 1, raw.dst - shape_.id_base + 1});
  }
  return vertices;
}

// Reads the input in batches (the next batch is read while this one is
// translated and routed) into the routers.
template <typename Record>
Status IngestJob::route_input(std::vector<RawEdge>* batch, std::vector<BucketRouter<Record>>* routers,
                              std::vector<VertexHistogram>* histograms) {
  std::vector<DenseArc> arcs;
  std::vector<std::vector<Record>> space_records(routers->size());
  std::vector<RawEdge> next_batch;
  const size_t batch_edges = budget().read_batch_edges();
  while (!batch->empty()) {
    if (interrupt_requested()) return Status::Interrupted("ingest stopped by a signal");
    std::future<Status> reading =
        std::async(std::launch::async, [&] { return reader_->next_batch(&next_batch, batch_edges); });
    Status routed = ids_.translate_batch(*batch, &arcs);
    if (routed.ok()) routed = route_batch(arcs, routers, histograms, &space_records);
    const Status read = reading.get();
    SG_RETURN_IF_ERROR(routed);
    SG_RETURN_IF_ERROR(read);
    manifest_.ingest.input_edges += batch->size();
    progress_.advance(batch->size(), reader_->bytes_read());
    batch->swap(next_batch);
  }
  std::vector<RawEdge>().swap(*batch);  // the read batches' room goes to the sort batches
  return Status::OK();
}

// Everything after routing is sized by the id space (a degree and an empty
// list per vertex on disk, vertex arrays at run time): a sparse one is
// refused before anything is allocated from it.
Status IngestJob::check_vertex_count(uint64_t edges_read) {
  if (num_vertices_ == 0) return Status::BadInput(opt_.input + ": the input holds no edges");
  if (num_vertices_ > UINT32_MAX) return Status::BadInput(opt_.input + ": more than 2^32-1 vertices");
  // A part of a partitioned graph has the whole graph's ids and a share of its arcs.
  const bool part = opt_.keep_destinations_end != UINT32_MAX;
  if (ids_.remapped() || permutation_ != nullptr || part ||
      num_vertices_ <= kSparseIdFactor * edges_read + kSparseIdSlack) {
    return Status::OK();
  }
  const std::string reach = "vertex ids reach " + std::to_string(num_vertices_ - 1 + shape_.id_base) + " for " +
                            std::to_string(edges_read) + " edges";
  if (opt_.remap == IngestOptions::Remap::kAuto) {
    remap_reason_ = reach + " (a sparse id space)";
    return Status::BadInput(opt_.input + ": " + remap_reason_ + "; remapping");
  }
  return Status::BadInput(opt_.input + ": " + reach +
                          ": the id space is sparse; ingest without --no-remap (dense ids, results keep the original "
                          "ids)");
}

template <typename Record>
Status IngestJob::route_and_build(std::vector<RawEdge>* batch) {
  // The route's time includes its setup: the routers' buffers, first
  // touched here, took 0.1-0.4 s of an R-MAT 22 pass now and then.
  progress_.begin_phase("route", reader_->bytes_total());
  out_only_ = first_pass_skips_in_space(*batch);
  start_degree_count(*batch);
  const size_t spaces = built_spaces();
  std::vector<BucketRouter<Record>> routers(spaces);
  std::vector<VertexHistogram> histograms(spaces);
  SG_RETURN_IF_ERROR(open_routers(&routers));
  SG_RETURN_IF_ERROR(route_input(batch, &routers, &histograms));
  num_vertices_ = permutation_ == nullptr ? ids_.count_vertices() : permutation_->size();
  SG_RETURN_IF_ERROR(check_vertex_count(manifest_.ingest.input_edges));
  if (degree_limit_ != 0 && !in_degrees_in_route_) SG_RETURN_IF_ERROR(reroute_in_degree_order(&routers, &histograms));
  // The spaces' last flushes wait on the disk: at once.
  std::vector<Status> finished(routers.size());
  parallel_for(size_t{0}, routers.size(), size_t{1}, [&](size_t s0, size_t s1) {
    for (size_t s = s0; s < s1; ++s) finished[s] = routers[s].finish();
  });
  for (const Status& status : finished) SG_RETURN_IF_ERROR(status);
  const uint64_t arcs_routed = routers[0].total_records();
  for (size_t h = 1; h < histograms.size(); ++h) histograms[0].merge(histograms[h]);
  interval_starts_ = choose_intervals(&histograms[0], num_vertices_, opt_.intervals, opt_.memory_bytes);
  block_starts_ = block_starts(num_vertices_,
                               opt_.blocks != 0 ? opt_.blocks : choose_block_count(num_vertices_, opt_.memory_bytes));
  SG_RETURN_IF_ERROR(release_permutation());
  // About 3 bytes per arc compressed (see the README's figures).
  stripe_bytes_ =
      opt_.stripe_bytes != 0 ? opt_.stripe_bytes : choose_stripe_bytes(3 * arcs_routed, files_.device_dirs().size());
  if (!out_only_ && !undirected_ && !ordered_in_route() && opt_.out_space_only && opt_.out_space_only(num_vertices_)) {
    out_only_ = true;
    routers[1].remove();
    routers.pop_back();
  }
  if (out_only_) take_in_degrees();
  SG_RETURN_IF_ERROR(begin_observed_sort(routers[0]));
  SG_RETURN_IF_ERROR(write_spaces(&routers));
  SG_RETURN_IF_ERROR(write_in_degrees());
  std::vector<uint32_t>().swap(in_degrees_);
  return Status::OK();
}

// An out-only graph's in-degrees, counted while routing or while its
// out-space was built (once: an observed sort writes them first).
Status IngestJob::write_in_degrees() {
  if (!out_only_ || !manifest_.in_degree_file.empty()) return Status::OK();
  manifest_.in_degree_file = "in.degrees";
  return write_array_file(files_.temp_dir() + "/" + manifest_.in_degree_file, in_degrees_, file_sync(),
                          &manifest_.in_degree_checksum);
}

// Sorts and encodes one space; spaces are built concurrently, so this
// touches only its arguments (and, building an out-only graph's one space,
// the in-degree counts).
template <typename Record>
Status IngestJob::build_space_files(size_t space, BucketRouter<Record>* router,
                                    const std::vector<std::vector<std::string>>& paths, size_t batch_records,
                                    std::vector<SpaceManifest>* metas, SpaceBuildStats* stats) {
  const size_t blocks = metas->size();
  std::vector<SpaceOutput> outs(blocks);
  std::vector<SpaceOutput*> out_pointers;
  for (size_t b = 0; b < blocks; ++b) {
    const std::string& degree_file = (*metas)[b].degree_file;
    SG_RETURN_IF_ERROR(outs[b].open(paths[b], StripeLayout(stripe_bytes_, static_cast<uint32_t>(paths[b].size())),
                                    degree_file.empty() ? "" : files_.temp_dir() + "/" + degree_file, direct_io(),
                                    file_sync()));
    out_pointers.push_back(&outs[b]);
  }
  SpaceBuildOptions build;
  build.num_vertices = static_cast<uint32_t>(num_vertices_);
  build.interval_starts = &interval_starts_;
  build.chunk_bytes = opt_.chunk_bytes;
  build.codec = list_codec_of(opt_.format_version);
  build.gap_choice = opt_.gap_choice;
  build.entropy_first = out_only_;  // an out-only graph is never the output as it is
  build.undirected = undirected_;
  build.count_input = space == 0;  // each input edge is in the out-space once
  build.drop_self_loops = opt_.drop_self_loops;
  build.dedup = opt_.dedup;
  build.batch_records = batch_records;
  build.parts = encoder_parts(block_starts_.size(), opt_.chunk_bytes, opt_.memory_bytes / built_spaces());
  if (out_only_ && !in_degrees_in_route_) build.neighbour_counts = in_degrees_.data();
  if (observer_bytes_ > 0) build.list_observer = opt_.out_list_observer;
  build.read_ahead = built_spaces() == 1;
  if (opt_.route_buckets != 0) build.sub_buckets = budget().bucket_override();
  build.block_starts = block_starts_;
  build.spill_prefix = files_.temp_dir() + "/" + (*metas)[0].kind + ".spill";
  SG_RETURN_IF_ERROR(build_space(router, build, out_pointers, stats));
  for (size_t b = 0; b < blocks; ++b) {
    SpaceManifest* meta = &(*metas)[b];
    SG_RETURN_IF_ERROR(outs[b].finish_into(static_cast<uint32_t>(num_vertices_), build.codec,
                                           files_.temp_dir() + "/" + meta->index_file, meta));
  }
  return Status::OK();
}

// Both spaces at once, each with half the sort memory: their serial steps
// (reading buckets back, the counting scatter) then overlap.
template <typename Record>
Status IngestJob::write_spaces(std::vector<BucketRouter<Record>>* routers) {
  const size_t spaces = routers->size();
  std::vector<std::vector<SpaceManifest>> metas(spaces, std::vector<SpaceManifest>(block_starts_.size()));
  std::vector<std::vector<std::vector<std::string>>> paths(spaces,
                                                           std::vector<std::vector<std::string>>(block_starts_.size()));
  std::vector<SpaceBuildStats> stats(spaces);
  std::vector<Status> status(spaces);
  uint64_t records = 0;
  for (size_t s = 0; s < spaces; ++s) {
    for (size_t b = 0; b < block_starts_.size(); ++b)
      files_.name_space_files(s, b, block_starts_, num_vertices_, &metas[s][b], &paths[s][b]);
    records += (*routers)[s].total_records();
  }
  const size_t batch =
      std::max<size_t>(budget().batch_records(batch_bytes_per_record<Record>(spaces == 1)) / spaces, 2);
  uint64_t spilled_bytes = 0;
  for (const BucketRouter<Record>& router : *routers) spilled_bytes += router.spilled_bytes();
  char spilled[48];
  std::snprintf(spilled, sizeof(spilled), "spilled %.2f GB", static_cast<double>(spilled_bytes) / 1e9);
  progress_.add_detail(spilled);
  progress_.begin_phase("sort", records);
  parallel_for(size_t{0}, spaces, size_t{1}, [&](size_t s0, size_t s1) {
    for (size_t s = s0; s < s1; ++s)
      status[s] = build_space_files(s, &(*routers)[s], paths[s], batch, &metas[s], &stats[s]);
  });
  for (size_t s = 0; s < spaces; ++s) {
    SG_RETURN_IF_ERROR(status[s]);
    (*routers)[s].remove();
    manifest_.ingest.sorted_runs += stats[s].batches;
    manifest_.spaces.insert(manifest_.spaces.end(), metas[s].begin(), metas[s].end());
  }
  manifest_.ingest.self_loops = stats[0].self_loops;
  manifest_.ingest.self_loop_vertices = stats[0].self_loop_vertices;
  manifest_.ingest.duplicate_edges = stats[0].duplicates;
  stored_loops_ = stats[0].stored_loops;
  return Status::OK();
}

// A relabelling pass writes its id map as soon as every arc is routed and
// frees the permutation: the sort batches were planned without it
// (batch_records), which makes them ~1.6x larger on R-MAT 24 in 176 MiB,
// and the buckets as many fewer (larger spill segments for an HDD).
Status IngestJob::release_permutation() {
  if (permutation_ == nullptr) return Status::OK();
  manifest_.id_map_file = "id_map.u64";
  permutation_->release_windows();  // the id map gets their room
  SG_RETURN_IF_ERROR(
      write_relabelled_id_map(files_.temp_dir() + "/" + manifest_.id_map_file, &manifest_.id_map_checksum));
  permutation_->release();
  return Status::OK();
}

uint64_t IngestJob::original_id(uint32_t dense) const {
  if (source_graph_ != nullptr) return source_graph_->original_id(dense);
  return ids_.remapped() ? ids_.id_map()[dense] : dense + shape_.id_base;
}

// The id map of a relabelled graph (a stored graph read back, or the
// degree order of a routed input) gives each new id its original id. The
// permutation is inverted a range of new ids at a time, each a pass over
// it, holding 4 bytes a new id (its old id) in what the budget leaves, but
// an eighth of the ids at least (8 passes at most: held_bytes() counts the
// sort phase's buffers, not yet allocated, so a tight budget leaves nothing
// by that count): R-MAT 26 in 176 MiB reads its 268 MB permutation file
// twice, where 8-byte original ids in a fixed share of the budget read it
// six times.
Status IngestJob::write_relabelled_id_map(const std::string& path, uint64_t* checksum) const {
  constexpr size_t kPieceIds = size_t{1} << 20, kOutputIds = size_t{1} << 17;
  const uint64_t n = num_vertices_;
  const uint64_t buffer_bytes = kPieceIds * sizeof(uint32_t) + kOutputIds * sizeof(uint64_t);
  const uint64_t taken_bytes = held_bytes() + buffer_bytes;
  const uint64_t room_bytes = opt_.memory_bytes > taken_bytes ? opt_.memory_bytes - taken_bytes : 0;
  const uint64_t range = std::min(std::max({room_bytes / sizeof(uint32_t), (n + 7) / 8, uint64_t{1} << 10}), n);
  std::vector<uint32_t> old_ids(static_cast<size_t>(range));
  std::vector<uint32_t> piece(static_cast<size_t>(std::min<uint64_t>(n, kPieceIds)));  // of the permutation
  std::vector<uint64_t> original(static_cast<size_t>(std::min<uint64_t>(range, kOutputIds)));
  File file;
  SG_RETURN_IF_ERROR(File::create(path, &file));  // in the temporary directory
  Checksum64Stream sum;
  for (uint64_t first = 0; first < n; first += range) {
    const uint64_t count = std::min(n, first + range) - first;
    for (uint64_t piece_first = 0; piece_first < n; piece_first += piece.size()) {
      const size_t read = static_cast<size_t>(std::min<uint64_t>(piece.size(), n - piece_first));
      SG_RETURN_IF_ERROR(permutation_->read(piece_first, read, piece.data()));
      for (size_t i = 0; i < read; ++i) {
        const uint64_t slot = uint64_t{piece[i]} - first;  // wraps past `count` below the range
        if (slot < count) old_ids[slot] = static_cast<uint32_t>(piece_first + i);
      }
    }
    for (uint64_t done = 0; done < count; done += original.size()) {
      const size_t ids = static_cast<size_t>(std::min<uint64_t>(original.size(), count - done));
      for (size_t i = 0; i < ids; ++i) original[i] = original_id(old_ids[done + i]);
      const size_t bytes = ids * sizeof(uint64_t);
      SG_RETURN_IF_ERROR(file.pwrite_all(original.data(), bytes, (first + done) * sizeof(uint64_t)));
      sum.update(original.data(), bytes);
    }
  }
  *checksum = sum.digest();
  SG_RETURN_IF_ERROR(file.finish_writes(file_sync()));  // the sort phase hides the wait
  return file.close();
}

}  // namespace sg
