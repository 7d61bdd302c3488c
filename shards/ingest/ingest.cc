#include "shards/ingest/ingest.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <memory>
#include <random>

#include "compression/checksum.h"
#include "shards/format/graph.h"
#include "shards/format/manifest.h"
#include "shards/format/striped_writer.h"
#include "shards/ingest/arc_record.h"
#include "shards/ingest/bucket_router.h"
#include "shards/ingest/edge_reader.h"
#include "shards/ingest/ingest_progress.h"
#include "shards/ingest/leftovers.h"
#include "shards/ingest/open_input.h"
#include "shards/ingest/permutation.h"
#include "shards/ingest/space_builder.h"
#include "shards/ingest/space_output.h"
#include "shards/ingest/vertex_histogram.h"
#include "shards/ingest/vertex_order.h"
#include "shards/util/interrupt.h"
#include "shards/util/parallel.h"

namespace sg {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMinMemoryBytes = 4 << 20;

std::string random_graph_id() {
  std::random_device device;
  const uint64_t value = (uint64_t{device()} << 32) ^ device();
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(value));
  return text;
}

template <typename T>
Status write_array_file(const std::string& path, const std::vector<T>& values, uint64_t* checksum) {
  *checksum = checksum64(values.data(), values.size() * sizeof(T));
  return write_file_atomic(path, values.data(), values.size() * sizeof(T));
}

// An input edge in dense ids (relabelled if asked).
struct Arc {
  uint32_t src, dst;
  float weight;
};

// More than this many vertices per edge (plus the slack) is a sparse id
// space that needs --remap: a road network has about 1, a web crawl 1/10.
constexpr uint64_t kSparseIdFactor = 16;
constexpr uint64_t kSparseIdSlack = uint64_t{1} << 20;

// Buckets of unequal ranges for a router (BucketRouter::open_ranges).
struct BucketRanges {
  int slot_bits = 0;
  uint32_t slot_count = 0;
  std::vector<uint32_t> first_slot;  // empty: route by equal ranges
};

class IngestJob {
 public:
  explicit IngestJob(const IngestOptions& options)
      : opt_(options), remap_(options.remap == IngestOptions::Remap::kAlways) {
    progress_.set_sink(options.progress);
    progress_.set_hook(options.on_phase);
  }
  ~IngestJob() { cleanup(); }

  Status run(IngestSummary* summary);
  // After a failed run with --remap auto: why the ids need remapping ("" if
  // they do not; the run failed for another reason).
  const std::string& remap_reason() const { return remap_reason_; }

 private:
  Status check_options();
  Status prepare_directories();
  Status open_reader();
  Status collect_ids();
  uint64_t count_vertices(uint64_t max_dense_id, bool saw_edge) const;
  Status translate(const RawEdge& raw, uint32_t* src, uint32_t* dst) const;
  Status translate_batch(const std::vector<RawEdge>& batch, std::vector<Arc>* arcs);
  // New ids of dense ones: sources[v - source_first], neighbours[v -
  // neighbour_first] (the whole permutation or its windows); none if null.
  struct IdLookup {
    const uint32_t* sources = nullptr;
    uint64_t source_first = 0;
    const uint32_t* neighbours = nullptr;
    uint64_t neighbour_first = 0;
  };
  Status translate_part(const std::vector<RawEdge>& batch, size_t begin, size_t end, const IdLookup& lookup,
                        std::vector<Arc>* arcs);
  Status translate_windowed(const std::vector<RawEdge>& batch, size_t begin, size_t end, std::vector<Arc>* arcs);
  template <typename Record>
  Status route_batch(const std::vector<Arc>& arcs, std::vector<BucketRouter<Record>>* routers,
                     std::vector<VertexHistogram>* histograms, std::vector<std::vector<Record>>* space_records);
  // Edges read at once: two batches in flight cost about 80 bytes an edge
  // (raw, translated and routed copies); 1/8 of the budget, at most 64 Ki.
  size_t read_batch_edges() const { return std::clamp<size_t>(opt_.memory_bytes / 8 / 80, 1024, 1 << 16); }
  // --route-buckets (tests): the bucket and sub-bucket count, a power of two.
  uint32_t bucket_override() const {
    return static_cast<uint32_t>(std::bit_floor(std::clamp<uint64_t>(opt_.route_buckets, 2, uint64_t{1} << 31)));
  }
  void router_shape(size_t record_bytes, size_t spaces, size_t sort_records, uint32_t* buckets,
                    size_t* buffer_records) const;
  size_t route_buffer_records(size_t record_bytes, size_t spaces, uint64_t buckets) const;
  // Each space's share of the route buffers.
  uint64_t route_buffer_bytes(size_t spaces) const;
  static constexpr uint64_t kMinSegmentBytes = 256 << 10;
  Status known_bucket_ranges(size_t space, size_t sort_records, BucketRanges* ranges) const;
  template <typename Record>
  Status open_routers(size_t sort_records, std::vector<BucketRouter<Record>>* routers) const;
  uint64_t estimated_records_per_space() const;
  uint64_t held_bytes() const;
  bool direct_io() const { return opt_.direct_io; }
  // Spaces sorted and encoded: one for an undirected or out-only graph.
  size_t built_spaces() const { return undirected_ || out_only_ ? 1 : 2; }
  Status write_in_degrees();
  bool first_pass_skips_in_space(const std::vector<RawEdge>& first_batch) const;
  size_t batch_records(size_t bytes_per_record, bool sort_phase = false) const;
  Status release_permutation();
  Status route_and_build();
  template <typename Record>
  Status route_and_build(std::vector<RawEdge>* batch);
  void choose_intervals(VertexHistogram* histogram);
  void name_space_files(size_t space, size_t block, SpaceManifest* meta, std::vector<std::string>* paths);
  template <typename Record>
  Status build_space_files(size_t space, BucketRouter<Record>* router,
                           const std::vector<std::vector<std::string>>& paths, size_t batch_records,
                           std::vector<SpaceManifest>* metas, SpaceBuildStats* stats);
  template <typename Record>
  Status write_spaces(std::vector<BucketRouter<Record>>* routers);
  Status write_relabelled_id_map(const std::string& path, uint64_t* checksum) const;
  Status write_metadata();
  Status commit();
  void cleanup();
  uint64_t input_id_limit() const;

  const IngestOptions& opt_;
  bool remap_ = false;                        // --remap, or an input whose vertex file names the vertices
  std::string remap_reason_;                  // --remap auto found sparse or wide ids (a rerun remaps)
  mutable std::atomic<uint64_t> wide_id_{0};  // an id past 32 bits seen with --remap auto (translate)
  std::string reader_notes_;                  // the reader's notes (columns ignored, ...)
  InputFormat format_ = InputFormat::kSnap;
  std::unique_ptr<EdgeReader> reader_;
  InputShape shape_;
  bool undirected_ = false;
  bool out_only_ = false;             // IngestOptions::out_space_only said so
  std::vector<uint32_t> in_degrees_;  // out-only: counted as the out-space is built

  std::string graph_id_;
  std::string temp_dir_;
  bool committed_ = false;
  std::vector<std::string> device_dirs_;    // canonical; "." = graph directory
  std::vector<std::string> created_files_;  // outside temp_dir_, removed on failure

  std::vector<uint64_t> id_map_;  // --remap: sorted distinct original ids
  // Relabelling: the new dense id of each dense id (IngestOptions::permutation).
  Permutation* permutation_ = nullptr;         // released after routing (release_permutation)
  std::vector<uint64_t> source_block_starts_;  // of the graph read's out-space blocks (windowed permutation)
  const Graph* source_graph_ = nullptr;        // format "graph": the graph read
  uint64_t max_dense_id_ = 0;
  bool saw_edge_ = false;
  LeftoverReport leftovers_;  // removed at the start
  std::string device_temp_path(size_t device, const std::string& file) const {
    return device_dirs_[device] + "/." + file + owner_marker() + ".tmp";
  }
  IngestProgress progress_;
  uint64_t num_vertices_ = 0;
  std::vector<uint32_t> interval_starts_;
  std::vector<uint32_t> block_starts_;  // of every space
  uint64_t stored_loops_ = 0;           // self-loop arcs written to the out-space
  uint64_t stripe_bytes_ = 0;
  Manifest manifest_;
};

Status IngestJob::check_options() {
  if (opt_.output.empty()) return Status::InvalidArgument("no output graph directory given (-o)");
  std::error_code ec;
  if (fs::exists(opt_.output, ec)) {
    return Status::InvalidArgument(opt_.output + ": already exists; remove it or choose another output");
  }
  if (opt_.memory_bytes < kMinMemoryBytes) return Status::OverBudget("--memory must be at least 4M");
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
  SG_RETURN_IF_ERROR(resolve_format(opt_.input, opt_.format, &format_));
  // Graphalytics ids are sparse 64-bit labels: always remapped.
  if (format_ == InputFormat::kGraphalytics) remap_ = true;
  return Status::OK();
}

Status IngestJob::prepare_directories() {
  const fs::path output = fs::absolute(opt_.output).lexically_normal();
  const fs::path parent = output.parent_path();
  std::error_code ec;
  if (!fs::is_directory(parent, ec))
    return Status::NotFound(parent.string() + ": output's parent directory does not exist");
  graph_id_ = random_graph_id();
  // Leftovers of killed ingests (their owner is gone) go first.
  LeftoverReport leftovers;
  SG_RETURN_IF_ERROR(remove_leftovers(parent.string(), &leftovers));
  for (const std::string& dir : opt_.devices) {
    if (fs::is_directory(dir, ec)) SG_RETURN_IF_ERROR(remove_leftovers(dir, &leftovers));
  }
  leftovers_ = leftovers;
  std::string temp_name = ".";
  temp_name.append(output.filename().string()).append(".ingest").append(owner_marker()).append(graph_id_);
  temp_dir_ = (parent / temp_name).string();
  if (!fs::create_directory(temp_dir_, ec)) return Status::IOError(temp_dir_ + ": cannot create: " + ec.message());
  if (opt_.devices.empty()) {
    device_dirs_ = {"."};
    return Status::OK();
  }
  for (const std::string& dir : opt_.devices) {
    if (!fs::is_directory(dir, ec)) return Status::NotFound(dir + ": device directory does not exist");
    const std::string canonical = fs::canonical(dir, ec).string();
    if (std::find(device_dirs_.begin(), device_dirs_.end(), canonical) != device_dirs_.end()) {
      return Status::InvalidArgument(dir + ": device directory given twice");
    }
    if (::access(canonical.c_str(), W_OK) != 0) return Status::IOError(dir + ": device directory is not writable");
    device_dirs_.push_back(canonical);
  }
  return Status::OK();
}

// With --remap auto a wide id passes the reader and sends the run back to remap.
uint64_t IngestJob::input_id_limit() const {
  return remap_ || opt_.remap == IngestOptions::Remap::kAuto ? UINT64_MAX : uint64_t{UINT32_MAX} - 1;
}

Status IngestJob::open_reader() { return open_edge_reader(opt_.input, format_, opt_.binary_weights, &reader_); }

// --remap: the dense id of an original id is its rank among the distinct ids,
// so the order of ids (and of results) is kept. Needs 8 bytes per distinct id.
Status IngestJob::collect_ids() {
  SG_RETURN_IF_ERROR(open_reader());
  // A vertex file defines the vertex set, isolated vertices included.
  Status listed = reader_->vertex_ids(&id_map_);
  reader_notes_ = reader_->notes();
  if (listed.ok())
    return id_map_.size() > UINT32_MAX ? Status::BadInput(opt_.input + ": more than 2^32-1 vertices") : Status::OK();
  if (listed.code() != Status::Code::kNotFound) return listed;
  std::vector<RawEdge> batch;
  std::vector<uint64_t> pending, merged;
  const size_t pending_limit = std::max<size_t>(opt_.memory_bytes / 8 / sizeof(uint64_t), 1 << 16);
  auto fold = [&] {
    std::sort(pending.begin(), pending.end());
    pending.erase(std::unique(pending.begin(), pending.end()), pending.end());
    merged.clear();
    std::set_union(id_map_.begin(), id_map_.end(), pending.begin(), pending.end(), std::back_inserter(merged));
    id_map_.swap(merged);
    pending.clear();
  };
  for (;;) {
    SG_RETURN_IF_ERROR(reader_->next_batch(&batch, read_batch_edges()));
    if (batch.empty()) break;
    if (interrupt_requested()) return Status::Interrupted("ingest stopped by a signal");
    for (const RawEdge& e : batch) {
      pending.push_back(e.src);
      pending.push_back(e.dst);
    }
    if (pending.size() >= pending_limit) fold();
  }
  fold();
  merged.shrink_to_fit();
  if (id_map_.size() > UINT32_MAX) return Status::BadInput(opt_.input + ": more than 2^32-1 distinct ids");
  return Status::OK();
}

Status IngestJob::translate(const RawEdge& raw, uint32_t* src, uint32_t* dst) const {
  if (remap_) {
    const auto src_at = std::lower_bound(id_map_.begin(), id_map_.end(), raw.src);
    const auto dst_at = std::lower_bound(id_map_.begin(), id_map_.end(), raw.dst);
    // Only a vertex file can miss an id: the edges' own ids build the map otherwise.
    if (src_at == id_map_.end() || *src_at != raw.src || dst_at == id_map_.end() || *dst_at != raw.dst) {
      const uint64_t missing = (src_at == id_map_.end() || *src_at != raw.src) ? raw.src : raw.dst;
      return Status::BadInput(opt_.input + ": edge " + std::to_string(raw.src) + " -> " + std::to_string(raw.dst) +
                              " names vertex " + std::to_string(missing) + ", which the vertex file does not list");
    }
    *src = static_cast<uint32_t>(src_at - id_map_.begin());
    *dst = static_cast<uint32_t>(dst_at - id_map_.begin());
    return Status::OK();
  }
  const uint64_t base = shape_.id_base;
  const uint64_t limit = uint64_t{UINT32_MAX} - 1;
  if (raw.src < base || raw.dst < base) return Status::BadInput(opt_.input + ": vertex id below the format's base");
  if (raw.src - base > limit || raw.dst - base > limit) {
    const uint64_t id = std::max(raw.src, raw.dst);
    if (opt_.remap == IngestOptions::Remap::kAuto) wide_id_.store(id, std::memory_order_relaxed);
    return Status::BadInput(opt_.input + ": vertex id " + std::to_string(id) +
                            " does not fit 32-bit dense ids; ingest with --remap");
  }
  *src = static_cast<uint32_t>(raw.src - base);
  *dst = static_cast<uint32_t>(raw.dst - base);
  return Status::OK();
}

uint64_t IngestJob::count_vertices(uint64_t max_dense_id, bool saw_edge) const {
  uint64_t n = remap_ ? id_map_.size() : (saw_edge ? max_dense_id + 1 : 0);
  // Declared vertices (mtx rows, SNAP "# Nodes:") add isolated vertices;
  // remapped ids only exist for ids that occur.
  if (!remap_) n = std::max<uint64_t>(n, shape_.declared_vertices);
  return n;
}

// Dense (and relabelled) ids of batch[begin, end), in two halves in
// parallel: the permutation lookups miss the caches.
Status IngestJob::translate_part(const std::vector<RawEdge>& batch, size_t begin, size_t end, const IdLookup& lookup,
                                 std::vector<Arc>* arcs) {
  constexpr size_t kParts = 2;
  std::array<Status, kParts> status;
  std::array<uint64_t, kParts> max_id{};
  const size_t step = (end - begin + kParts - 1) / kParts;
  // A relabelling pass reads a stored graph: arcs come by source, so the
  // source's new id is one lookup a list and the neighbours' are random;
  // they are prefetched this many arcs ahead.
  constexpr size_t kPrefetchArcs = 16;
  // Without remapping an id is checked by one compare (an id below the
  // base wraps past the limit); translate() only words the error.
  const uint64_t base = shape_.id_base;
  const uint64_t limit = uint64_t{UINT32_MAX} - 1;
  const uint32_t* neighbours = lookup.neighbours;
  const uint64_t last_slot = permutation_ == nullptr ? 0 : permutation_->size() - 1;
  parallel_for(size_t{0}, kParts, size_t{1}, [&](size_t p0, size_t p1) {
    for (size_t p = p0; p < p1; ++p) {
      const size_t part_end = std::min(end, begin + (p + 1) * step);
      uint64_t largest = 0;
      Arc* out = arcs->data();
      for (size_t i = begin + p * step; i < part_end; ++i) {
        if (neighbours != nullptr && !remap_ && i + kPrefetchArcs < part_end) {
          const uint64_t ahead = std::min<uint64_t>(batch[i + kPrefetchArcs].dst - base, last_slot);
          if (ahead >= lookup.neighbour_first) __builtin_prefetch(neighbours + (ahead - lookup.neighbour_first));
        }
        const RawEdge& raw = batch[i];
        uint32_t src = 0, dst = 0;
        if (!remap_ && raw.src - base <= limit && raw.dst - base <= limit) [[likely]] {
          src = static_cast<uint32_t>(raw.src - base);
          dst = static_cast<uint32_t>(raw.dst - base);
        } else {
          status[p] = translate(raw, &src, &dst);
          if (!status[p].ok()) break;
        }
        if (neighbours != nullptr) {
          src = lookup.sources[src - lookup.source_first];
          dst = neighbours[dst - lookup.neighbour_first];
        }
        largest = std::max<uint64_t>(largest, std::max(src, dst));
        if (opt_.transpose) std::swap(src, dst);
        out[i] = Arc{src, dst, shape_.weighted ? raw.weight : 1.0f};
      }
      max_id[p] = largest;
    }
  });
  for (size_t p = 0; p < kParts; ++p) {
    SG_RETURN_IF_ERROR(status[p]);  // the first bad line in input order
    max_dense_id_ = std::max(max_dense_id_, max_id[p]);
  }
  return Status::OK();
}

// batch[begin, end) through the permutation's windows: the whole range when
// they cover its ids, else each half (a range of one arc always fits).
Status IngestJob::translate_windowed(const std::vector<RawEdge>& batch, size_t begin, size_t end,
                                     std::vector<Arc>* arcs) {
  if (begin == end) return Status::OK();
  const uint64_t base = shape_.id_base;
  uint64_t src_lo = UINT64_MAX, src_hi = 0, dst_lo = UINT64_MAX, dst_hi = 0;
  for (size_t i = begin; i < end; ++i) {
    src_lo = std::min(src_lo, batch[i].src - base);
    src_hi = std::max(src_hi, batch[i].src - base);
    dst_lo = std::min(dst_lo, batch[i].dst - base);
    dst_hi = std::max(dst_hi, batch[i].dst - base);
  }
  if (std::max(src_hi, dst_hi) >= permutation_->size()) {
    return Status::Corruption(opt_.input + ": vertex id " + std::to_string(std::max(src_hi, dst_hi)) +
                              " past the permutation's " + std::to_string(permutation_->size()) + " vertices");
  }
  // The neighbours' window starts at the stored graph's block holding them.
  const auto block = std::upper_bound(source_block_starts_.begin(), source_block_starts_.end(), dst_lo);
  const uint64_t block_start = block == source_block_starts_.begin() ? 0 : *(block - 1);
  bool covered = false;
  SG_RETURN_IF_ERROR(permutation_->cover(src_lo, src_hi, dst_lo, dst_hi, block_start, &covered));
  if (covered) {
    const Permutation::Window& sources = permutation_->sources();
    const Permutation::Window& neighbours = permutation_->neighbours();
    const IdLookup lookup{sources.ids.data(), sources.first, neighbours.ids.data(), neighbours.first};
    return translate_part(batch, begin, end, lookup, arcs);
  }
  assert(end - begin > 1);
  const size_t middle = begin + (end - begin) / 2;
  SG_RETURN_IF_ERROR(translate_windowed(batch, begin, middle, arcs));
  return translate_windowed(batch, middle, end, arcs);
}

// Dense (and relabelled) ids of a batch; a windowed permutation
// translates it in parts that its windows cover.
Status IngestJob::translate_batch(const std::vector<RawEdge>& batch, std::vector<Arc>* arcs) {
  arcs->resize(batch.size());
  if (permutation_ == nullptr || !permutation_->windowed()) {
    IdLookup lookup;
    if (permutation_ != nullptr) lookup = IdLookup{permutation_->data(), 0, permutation_->data(), 0};
    SG_RETURN_IF_ERROR(translate_part(batch, 0, batch.size(), lookup, arcs));
  } else {
    SG_RETURN_IF_ERROR(translate_windowed(batch, 0, batch.size(), arcs));
  }
  if (opt_.symmetrize && shape_.symmetric) {
    const size_t edges = arcs->size();
    for (size_t i = 0; i < edges; ++i) {
      const Arc a = (*arcs)[i];
      if (a.src != a.dst) arcs->push_back(Arc{a.dst, a.src, a.weight});
    }
  }
  if (opt_.keep_destinations_begin != 0 || opt_.keep_destinations_end != UINT32_MAX) {
    std::erase_if(*arcs, [&](const Arc& a) {
      return a.dst < opt_.keep_destinations_begin || a.dst >= opt_.keep_destinations_end;
    });
  }
  saw_edge_ = saw_edge_ || !batch.empty();
  return Status::OK();
}

// A space's records of `arcs` into `out` (keyed by source for the
// out-space, by destination for the in-space; an undirected arc also
// reversed); returns how many. A loop of its own: pushed back beside the
// histogram's counts, every store could alias the other's fields, which
// were reloaded each arc (R-MAT 22: this part's samples fell by about 30 %).
template <bool kBySource, typename Record>
size_t space_records_of(const std::vector<Arc>& arcs, bool undirected, Record* out) {
  size_t n = 0;
  for (const Arc& a : arcs) {
    out[n++] = kBySource ? Record::make(a.src, a.dst, a.weight) : Record::make(a.dst, a.src, a.weight);
    if (undirected && a.src != a.dst) out[n++] = Record::make(a.dst, a.src, a.weight);
  }
  return n;
}

// Each space's records of a batch, routed in parallel (one space a thread).
template <typename Record>
Status IngestJob::route_batch(const std::vector<Arc>& arcs, std::vector<BucketRouter<Record>>* routers,
                              std::vector<VertexHistogram>* histograms,
                              std::vector<std::vector<Record>>* space_records) {
  const size_t spaces = routers->size();
  std::vector<Status> status(spaces);
  parallel_for(size_t{0}, spaces, size_t{1}, [&](size_t s0, size_t s1) {
    for (size_t s = s0; s < s1; ++s) {
      std::vector<Record>& records = (*space_records)[s];
      const size_t most = undirected_ ? 2 * arcs.size() : arcs.size();
      if (records.size() < most) records.resize(most);  // grows once: batches keep their size
      const size_t count = s == 0 ? space_records_of<true>(arcs, undirected_, records.data())
                                  : space_records_of<false>(arcs, undirected_, records.data());
      (*histograms)[s].add_keys(records.data(), count);
      status[s] = (*routers)[s].add_many(records.data(), count);
    }
  });
  for (const Status& st : status) SG_RETURN_IF_ERROR(st);
  return Status::OK();
}

// Bucket count and buffer size of each space's router. The sort phase
// reads each bucket's segments back, one request a segment, so segments
// must be large: on an HDD at 300 IOPS, 32 KiB segments read at 10 MB/s,
// 1 MiB ones at full speed. So as few buckets as let one bucket fit a sort
// batch (from the input's size), with buffers sharing three quarters of
// what the id maps leave (routing holds little else: read batches of at
// most 64 Ki edges); a bucket that still overflows is routed again
// (space_builder.cc).
// At most 256 buckets, so the buffers being filled stay few enough for the
// caches and TLB (routing is memory-bound). And fewer when that leaves a
// bucket's buffer below kMinSegmentBytes: below it a segment costs more in
// request time than the second pass over oversized buckets does (their
// sub-routing, space_builder.cc, with the whole sort memory for buffers).
// The relabelling pass of an ordered ingest routes while it holds the
// permutation (4 bytes a vertex): R-MAT 25 in 176 MiB left ~77 KiB a
// segment, and its sort phase read the spill at 18 MB/s from an HDD.
void IngestJob::router_shape(size_t record_bytes, size_t spaces, size_t sort_records, uint32_t* buckets,
                             size_t* buffer_records) const {
  // A bucket a batch on average; skewed ids overflow some, which are routed
  // again with large segments (cheaper than small segments for all).
  const uint64_t wanted = estimated_records_per_space() / std::max<size_t>(sort_records, 1) + 1;
  uint64_t count = std::bit_ceil(std::clamp<uint64_t>(wanted, 16, 256));
  if (opt_.route_buckets != 0) {
    count = bucket_override();
  } else {
    count = std::min<uint64_t>(count,
                               std::max<uint64_t>(16, std::bit_floor(route_buffer_bytes(spaces) / kMinSegmentBytes)));
  }
  *buckets = static_cast<uint32_t>(count);
  *buffer_records = route_buffer_records(record_bytes, spaces, count + BucketRouter<PlainArc>::kCodedExtraBuffers);
}

uint64_t IngestJob::route_buffer_bytes(size_t spaces) const {
  const uint64_t free_bytes = opt_.memory_bytes > held_bytes() ? opt_.memory_bytes - held_bytes() : 0;
  return std::max<uint64_t>(free_bytes / 4 * 3 / spaces, 64 * 1024);
}

size_t IngestJob::route_buffer_records(size_t record_bytes, size_t spaces, uint64_t buckets) const {
  constexpr uint64_t kMaxBufferBytes = 4 << 20;
  return std::max<size_t>(std::min(kMaxBufferBytes, route_buffer_bytes(spaces) / buckets) / record_bytes, 16);
}

// A stored graph read back (the relabelling pass of an ordered ingest)
// tells each space's arcs per vertex before routing, from its degree
// files: buckets are then cut by those counts, each within a sort batch,
// in slots of 2^k vertices (at most 64 Ki slots). A locality order puts
// the hubs first; with equal ranges the first buckets held many batches
// each and were routed again in small segments (R-MAT 22 on an HDD: 119 s
// of sorting instead of 8). Leaves `ranges` empty for other inputs.
Status IngestJob::known_bucket_ranges(size_t space, size_t sort_records, BucketRanges* ranges) const {
  *ranges = BucketRanges{};
  if (source_graph_ == nullptr || opt_.route_buckets != 0 || source_graph_->directed() == undirected_) {
    return Status::OK();
  }
  const uint64_t n = source_graph_->num_vertices();
  const int shift = std::max(0, static_cast<int>(std::bit_width(n - 1)) - 16);
  const uint32_t slot_count = static_cast<uint32_t>(((n - 1) >> shift) + 1);
  std::vector<uint64_t> counts(slot_count, 0);
  uint64_t total = 0;
  std::vector<uint32_t> new_ids;  // of the degrees' piece
  Status read = Status::OK();
  SG_RETURN_IF_ERROR(source_graph_->scan_degree_file(
      space == 0 ? SpaceKind::kOut : SpaceKind::kIn, [&](uint32_t first, const uint32_t* degrees, size_t count) {
        if (!read.ok()) return;
        if (permutation_ != nullptr) {
          new_ids.resize(count);
          read = permutation_->read(first, count, new_ids.data());
          if (!read.ok()) return;
        }
        for (size_t i = 0; i < count; ++i) {
          const uint32_t v = first + static_cast<uint32_t>(i);
          counts[(permutation_ != nullptr ? new_ids[i] : v) >> shift] += degrees[i];
          total += degrees[i];
        }
      }));
  SG_RETURN_IF_ERROR(read);
  // At most about 512 buckets, like equal ranges' 256 (greedy cuts fill
  // buckets between half and all of the target), and few enough that a
  // bucket's buffer stays at kMinSegmentBytes (router_shape).
  const size_t spaces = undirected_ ? 1 : 2;
  const uint64_t max_buckets = std::max<uint64_t>(16, route_buffer_bytes(spaces) / kMinSegmentBytes);
  const uint64_t target = std::max<uint64_t>({sort_records, total / 256, total / max_buckets, 1});
  ranges->slot_bits = 32 + shift;
  ranges->slot_count = slot_count;
  ranges->first_slot = {0};
  uint64_t held = 0;
  for (uint32_t slot = 0; slot < slot_count; ++slot) {
    if (held > 0 && held + counts[slot] > target) {
      ranges->first_slot.push_back(slot);
      held = 0;
    }
    held += counts[slot];
  }
  return Status::OK();
}

template <typename Record>
Status IngestJob::open_routers(size_t sort_records, std::vector<BucketRouter<Record>>* routers) const {
  const char* names[] = {"out", "in"};
  const size_t spaces = routers->size();
  uint32_t buckets = 0;
  size_t buffer_records = 0;
  router_shape(sizeof(Record), spaces, sort_records, &buckets, &buffer_records);
  // Coded segments are read back in whole blocks: a sort batch holds some.
  SpillForm form = sort_records >= 2 * BucketRouter<Record>::block_records() ? SpillForm::kCoded : SpillForm::kPacked;
  if (direct_io()) form = SpillForm::kDirect;
  for (size_t s = 0; s < spaces; ++s) {
    const std::string path = temp_dir_ + "/" + names[s] + ".spill";
    BucketRanges ranges;
    SG_RETURN_IF_ERROR(known_bucket_ranges(s, sort_records, &ranges));
    if (ranges.first_slot.empty()) {
      SG_RETURN_IF_ERROR((*routers)[s].open(path, buckets, buffer_records, 0, 32, true, form));
    } else {
      const size_t buffer = route_buffer_records(sizeof(Record), spaces,
                                                 ranges.first_slot.size() + BucketRouter<Record>::kCodedExtraBuffers);
      SG_RETURN_IF_ERROR(
          (*routers)[s].open_ranges(path, ranges.first_slot, ranges.slot_count, ranges.slot_bits, buffer, form));
    }
  }
  return Status::OK();
}

// Arcs each space will hold, from the input's size: exact for binary
// inputs and stored graphs, an overestimate for text (short lines), an
// underestimate for gzip (then more buckets overflow and are routed again).
uint64_t IngestJob::estimated_records_per_space() const {
  uint64_t arcs = 0;
  if (source_graph_ != nullptr) {
    arcs = source_graph_->manifest().num_edges;
  } else if (reader_->declared_arcs() > 0) {
    arcs = reader_->declared_arcs();
  } else {
    const uint64_t bytes = reader_->bytes_total();
    const bool gzip = opt_.input.ends_with(".gz") || opt_.input.ends_with(".zst");
    const uint64_t bytes_per_arc = format_ == InputFormat::kBin64 ? 16 : gzip ? 3 : 8;
    arcs = bytes / bytes_per_arc;
  }
  return undirected_ ? 2 * arcs : arcs;  // undirected: both directions of each edge in one space
}

// What ingest holds besides its batches and buffers: id maps, the
// permutation of a relabelling pass, 4 MiB of read and write buffers, and
// the spaces' encoders and outputs (space_build_fixed_bytes: at 16 MiB,
// R-MAT 20's sort held 1.36x the budget before they were counted).
uint64_t IngestJob::held_bytes() const {
  constexpr uint64_t kFixedBytes = 4 << 20;
  const size_t spaces = built_spaces();
  const size_t blocks = std::max<size_t>(block_starts_.size(), 1);
  const size_t parts = encoder_parts(blocks, opt_.chunk_bytes, opt_.memory_bytes / spaces);
  const uint64_t read_stages = direct_io() ? spaces * BucketRouter<WeightedArc>::read_stage_bytes(SIZE_MAX / 16) : 0;
  return id_map_.size() * sizeof(uint64_t) + kFixedBytes + read_stages +
         (permutation_ != nullptr ? permutation_->held_bytes() : 0) +
         (source_graph_ != nullptr ? source_graph_->id_map_bytes() : 0) +
         spaces * space_build_fixed_bytes(opt_.chunk_bytes, blocks, parts) + in_degrees_.size() * sizeof(uint32_t);
}

// Records sorted at once: what the budget leaves after the id maps, the
// write buffers and the histograms.
// `sort_phase`: without the permutation, which is released before sorting.
size_t IngestJob::batch_records(size_t bytes_per_record, bool sort_phase) const {
  if (opt_.sort_buffer_edges != 0) return std::max<size_t>(opt_.sort_buffer_edges, 2);
  const uint64_t held = held_bytes() - (sort_phase && permutation_ != nullptr ? permutation_->held_bytes() : 0);
  const uint64_t free_bytes = opt_.memory_bytes > held + (1 << 20) ? opt_.memory_bytes - held : 1 << 20;
  return std::max<size_t>(free_bytes / bytes_per_record, 1024);
}

// One read of the input routes every arc into its space's buckets (both
// spaces in parallel) and counts arcs per vertex block; then each space is
// sorted batch by batch and encoded.
Status IngestJob::route_and_build() {
  SG_RETURN_IF_ERROR(open_reader());
  reader_->set_max_id(input_id_limit());
  reader_->set_memory_budget(opt_.memory_bytes);
  std::vector<RawEdge> batch;
  SG_RETURN_IF_ERROR(reader_->next_batch(&batch, read_batch_edges()));
  shape_ = reader_->shape();
  undirected_ = opt_.undirected || (shape_.symmetric && !opt_.symmetrize);
  source_graph_ = reader_->stored_graph();
  if (permutation_ != nullptr && (source_graph_ == nullptr || permutation_->size() != source_graph_->num_vertices())) {
    return Status::InvalidArgument(opt_.input + ": a permutation applies to a stored graph of as many vertices");
  }
  if (permutation_ != nullptr) {
    for (size_t s : source_graph_->blocks(SpaceKind::kOut))
      source_block_starts_.push_back(source_graph_->stored_space(s).neighbour_begin);
  }
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
  uint64_t vertices = remap_ ? id_map_.size() : shape_.declared_vertices;
  if (!remap_) {
    // An id below the base wraps to a huge count: both spaces (translate refuses it).
    for (const RawEdge& raw : first_batch)
      vertices = std::max({vertices, raw.src - shape_.id_base + 1, raw.dst - shape_.id_base + 1});
  }
  return opt_.out_space_only(vertices);
}

template <typename Record>
Status IngestJob::route_and_build(std::vector<RawEdge>* batch) {
  out_only_ = first_pass_skips_in_space(*batch);
  const size_t spaces = built_spaces();
  std::vector<BucketRouter<Record>> routers(spaces);
  std::vector<VertexHistogram> histograms(spaces);
  SG_RETURN_IF_ERROR(open_routers(
      std::max<size_t>(batch_records(batch_bytes_per_record<Record>(spaces == 1), true) / spaces, 2), &routers));
  std::vector<Arc> arcs;
  std::vector<std::vector<Record>> space_records(spaces);
  progress_.begin_phase("route", reader_->bytes_total());
  // The next batch is read while this one is translated and routed.
  std::vector<RawEdge> next_batch;
  while (!batch->empty()) {
    if (interrupt_requested()) return Status::Interrupted("ingest stopped by a signal");
    std::future<Status> reading =
        std::async(std::launch::async, [&] { return reader_->next_batch(&next_batch, read_batch_edges()); });
    Status routed = translate_batch(*batch, &arcs);
    if (routed.ok()) routed = route_batch(arcs, &routers, &histograms, &space_records);
    const Status read = reading.get();
    SG_RETURN_IF_ERROR(routed);
    SG_RETURN_IF_ERROR(read);
    manifest_.ingest.input_edges += batch->size();
    progress_.advance(batch->size(), reader_->bytes_read());
    batch->swap(next_batch);
  }
  // The read and route batches' room goes to the sort batches.
  std::vector<RawEdge>().swap(*batch);
  std::vector<RawEdge>().swap(next_batch);
  std::vector<Arc>().swap(arcs);
  std::vector<std::vector<Record>>().swap(space_records);
  num_vertices_ = permutation_ == nullptr ? count_vertices(max_dense_id_, saw_edge_) : permutation_->size();
  if (num_vertices_ == 0) return Status::BadInput(opt_.input + ": the input holds no edges");
  if (num_vertices_ > UINT32_MAX) return Status::BadInput(opt_.input + ": more than 2^32-1 vertices");
  // Everything after this is sized by the id space (a degree and an empty
  // list per vertex on disk, vertex arrays at run time): a sparse one is
  // refused before anything is allocated from it.
  const uint64_t edges_read = manifest_.ingest.input_edges;
  if (!remap_ && permutation_ == nullptr && num_vertices_ > kSparseIdFactor * edges_read + kSparseIdSlack) {
    if (opt_.remap == IngestOptions::Remap::kAuto) {
      remap_reason_ = "vertex ids reach " + std::to_string(num_vertices_ - 1 + shape_.id_base) + " for " +
                      std::to_string(edges_read) + " edges (a sparse id space)";
      return Status::BadInput(opt_.input + ": " + remap_reason_ + "; remapping");
    }
    return Status::BadInput(
        opt_.input + ": vertex ids reach " + std::to_string(num_vertices_ - 1 + shape_.id_base) + " for " +
        std::to_string(edges_read) +
        " edges: the id space is sparse; ingest without --no-remap (dense ids, results keep the original ids)");
  }
  uint64_t arcs_routed = 0;
  for (size_t s = 0; s < spaces; ++s) {
    SG_RETURN_IF_ERROR(routers[s].finish());
    if (s == 0) arcs_routed = routers[s].total_records();
    if (s > 0) histograms[0].merge(histograms[s]);
  }
  choose_intervals(&histograms[0]);
  block_starts_ = block_starts(num_vertices_,
                               opt_.blocks != 0 ? opt_.blocks : choose_block_count(num_vertices_, opt_.memory_bytes));
  SG_RETURN_IF_ERROR(release_permutation());
  // About 3 bytes per arc compressed (see the README's figures).
  stripe_bytes_ =
      opt_.stripe_bytes != 0 ? opt_.stripe_bytes : choose_stripe_bytes(3 * arcs_routed, device_dirs_.size());
  if (!out_only_ && !undirected_ && opt_.out_space_only && opt_.out_space_only(num_vertices_)) {
    out_only_ = true;
    routers[1].remove();
    routers.pop_back();
  }
  if (out_only_) in_degrees_.assign(num_vertices_, 0);
  SG_RETURN_IF_ERROR(write_spaces(&routers));
  return write_in_degrees();
}

// An out-only graph's in-degrees, counted while its out-space was built.
Status IngestJob::write_in_degrees() {
  if (!out_only_) return Status::OK();
  manifest_.in_degree_file = "in.degrees";
  SG_RETURN_IF_ERROR(
      write_array_file(temp_dir_ + "/" + manifest_.in_degree_file, in_degrees_, &manifest_.in_degree_checksum));
  std::vector<uint32_t>().swap(in_degrees_);
  return Status::OK();
}

// Intervals split the vertices so each holds about the same number of arcs
// (in + out, plus one per vertex), at the histogram's block granularity.
// Default count: each interval's share of the compressed spaces (estimated
// at 4 bytes per arc) is about 1/8 of the budget.
void IngestJob::choose_intervals(VertexHistogram* histogram) {
  const uint64_t n = num_vertices_;
  histogram->cover(static_cast<uint32_t>(n - 1));
  const VertexHistogram& arcs = *histogram;
  const int shift = arcs.shift();
  const uint64_t blocks = ((n - 1) >> shift) + 1;
  auto block_weight = [&](uint64_t b) {
    const uint64_t first = b << shift;
    return arcs.count(static_cast<uint32_t>(b)) + (std::min(n, first + (uint64_t{1} << shift)) - first);
  };
  uint64_t total_weight = 0;
  for (uint64_t b = 0; b < blocks; ++b) total_weight += block_weight(b);
  uint64_t intervals = opt_.intervals;
  if (intervals == 0) {
    const uint64_t estimated_bytes = 4 * (total_weight - n);
    intervals = std::max<uint64_t>(1, (estimated_bytes + opt_.memory_bytes / 8 - 1) / (opt_.memory_bytes / 8));
  }
  intervals = std::clamp<uint64_t>(intervals, 1, n);
  // Ideal boundaries by prefix weight, then nudged so every interval holds
  // at least one vertex (a heavy block can pass several targets at once).
  std::vector<uint64_t> ideal;
  uint64_t seen = 0;
  for (uint64_t b = 0; b < blocks && ideal.size() + 1 < intervals; ++b) {
    seen += block_weight(b);
    while (ideal.size() + 1 < intervals && seen >= total_weight * (ideal.size() + 1) / intervals) {
      ideal.push_back(std::min(n, (b + 1) << shift));
    }
  }
  ideal.resize(intervals - 1, n);
  interval_starts_ = {0};
  for (uint64_t k = 1; k < intervals; ++k) {
    const uint64_t start =
        std::clamp<uint64_t>(ideal[k - 1], uint64_t{interval_starts_.back()} + 1, n - (intervals - k));
    interval_starts_.push_back(static_cast<uint32_t>(start));
  }
}

// A block's device files (temporary names) and metadata file names. A 1-D
// space is named for its kind; blocks add ".b<k>", and only the first
// holds the degrees.
void IngestJob::name_space_files(size_t space, size_t block, SpaceManifest* meta, std::vector<std::string>* paths) {
  const std::string kind = space == 0 ? "out" : "in";
  const std::string name = block_starts_.size() == 1 ? kind : kind + ".b" + std::to_string(block);
  meta->name = name;
  meta->kind = kind;
  meta->neighbour_begin = block_starts_[block];
  meta->neighbour_end = block + 1 < block_starts_.size() ? block_starts_[block + 1] : num_vertices_;
  for (size_t d = 0; d < device_dirs_.size(); ++d) {
    const std::string file = device_dirs_[d] == "." ? name + ".d" + std::to_string(d)
                                                    : "sg-" + graph_id_ + "-" + name + ".d" + std::to_string(d);
    meta->device_files.push_back(file);
    paths->push_back(device_dirs_[d] == "." ? temp_dir_ + "/" + file : device_temp_path(d, file));
    if (device_dirs_[d] != ".") created_files_.push_back(paths->back());
  }
  meta->index_file = name + ".index";
  meta->degree_file = block == 0 ? kind + ".degrees" : "";
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
                                    degree_file.empty() ? "" : temp_dir_ + "/" + degree_file, direct_io()));
    out_pointers.push_back(&outs[b]);
  }
  SpaceBuildOptions build;
  build.num_vertices = static_cast<uint32_t>(num_vertices_);
  build.interval_starts = &interval_starts_;
  build.chunk_bytes = opt_.chunk_bytes;
  build.codec = list_codec_of(opt_.format_version);
  build.gap_choice = opt_.gap_choice;
  build.undirected = undirected_;
  build.count_input = space == 0;  // each input edge is in the out-space once
  build.drop_self_loops = opt_.drop_self_loops;
  build.dedup = opt_.dedup;
  build.batch_records = batch_records;
  build.parts = encoder_parts(block_starts_.size(), opt_.chunk_bytes, opt_.memory_bytes / built_spaces());
  if (out_only_) build.neighbour_counts = in_degrees_.data();
  build.read_ahead = built_spaces() == 1;
  if (opt_.route_buckets != 0) build.sub_buckets = bucket_override();
  build.block_starts = block_starts_;
  build.spill_prefix = temp_dir_ + "/" + (*metas)[0].kind + ".spill";
  SG_RETURN_IF_ERROR(build_space(router, build, out_pointers, stats));
  for (size_t b = 0; b < blocks; ++b) {
    SpaceOutput& out = outs[b];
    SpaceManifest* meta = &(*metas)[b];
    SG_RETURN_IF_ERROR(out.finish(static_cast<uint32_t>(num_vertices_)));
    meta->logical_bytes = out.logical_bytes();
    meta->chunks = out.index().size();
    meta->arcs = out.arcs();
    if (build.codec == ListCodec::kV3) {
      meta->gap_coding_chunks.assign(out.gap_coding_chunks().begin(), out.gap_coding_chunks().end());
      meta->packed_chunks = out.packed_chunks();
    }
    for (uint32_t d = 0; d < device_dirs_.size(); ++d) meta->device_bytes.push_back(out.device_bytes(d));
    meta->degree_checksum = out.degree_checksum();
    SG_RETURN_IF_ERROR(write_array_file(temp_dir_ + "/" + meta->index_file, out.index(), &meta->index_checksum));
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
    for (size_t b = 0; b < block_starts_.size(); ++b) name_space_files(s, b, &metas[s][b], &paths[s][b]);
    records += (*routers)[s].total_records();
  }
  const size_t batch = std::max<size_t>(batch_records(batch_bytes_per_record<Record>(spaces == 1)) / spaces, 2);
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
  SG_RETURN_IF_ERROR(write_relabelled_id_map(temp_dir_ + "/" + manifest_.id_map_file, &manifest_.id_map_checksum));
  permutation_->release();
  return Status::OK();
}

// The id map of a relabelled graph (always read from a stored graph: see
// route_and_build) gives each new id its original id. Built a range of new
// ids at a time (a pass over the permutation each), so it needs an eighth
// of the budget, not 8 bytes a vertex; a windowed permutation (its windows
// not yet freed) leaves half the budget, and each pass reads its file.
Status IngestJob::write_relabelled_id_map(const std::string& path, uint64_t* checksum) const {
  const uint64_t n = num_vertices_;
  const uint64_t share = permutation_->windowed() ? 2 : 8;
  const uint64_t range = std::clamp<uint64_t>(opt_.memory_bytes / share / sizeof(uint64_t), 1 << 12, n);
  std::vector<uint64_t> original(static_cast<size_t>(range));
  std::vector<uint32_t> piece(static_cast<size_t>(std::min<uint64_t>(n, 1 << 18)));  // of the permutation
  File file;
  SG_RETURN_IF_ERROR(File::create(path + ".tmp", &file));
  Checksum64Stream sum;
  for (uint64_t first = 0; first < n; first += range) {
    const uint64_t end = std::min(n, first + range);
    for (uint64_t piece_first = 0; piece_first < n; piece_first += piece.size()) {
      const size_t count = static_cast<size_t>(std::min<uint64_t>(piece.size(), n - piece_first));
      SG_RETURN_IF_ERROR(permutation_->read(piece_first, count, piece.data()));
      for (size_t i = 0; i < count; ++i) {
        const uint64_t now = piece[i];
        if (now < first || now >= end) continue;
        original[now - first] = source_graph_->original_id(static_cast<uint32_t>(piece_first + i));
      }
    }
    const size_t bytes = static_cast<size_t>(end - first) * sizeof(uint64_t);
    SG_RETURN_IF_ERROR(file.pwrite_all(original.data(), bytes, first * sizeof(uint64_t)));
    sum.update(original.data(), bytes);
  }
  *checksum = sum.digest();
  SG_RETURN_IF_ERROR(file.sync());
  SG_RETURN_IF_ERROR(file.close());
  if (::rename((path + ".tmp").c_str(), path.c_str()) != 0)
    return Status::IOError(path + ": rename: " + errno_text(errno));
  return Status::OK();
}

Status IngestJob::write_metadata() {
  Manifest& m = manifest_;
  m.graph_id = graph_id_;
  m.num_vertices = num_vertices_;
  m.directed = !undirected_;
  m.weighted = shape_.weighted;
  uint64_t arcs = 0;  // of the out-space's blocks
  for (const SpaceManifest& space : m.spaces) arcs += space.kind == "out" ? space.arcs : 0;
  m.num_edges = undirected_ ? (arcs + stored_loops_) / 2 : arcs;
  m.id_base = remap_ || permutation_ != nullptr ? 0 : shape_.id_base;
  m.ordering = permutation_ != nullptr ? opt_.order : "none";
  if (permutation_ != nullptr) {
    assert(m.id_map_file == "id_map.u64");  // written by release_permutation
  } else if (source_graph_ != nullptr) {
    // A stored graph read as it is (completing an out-only graph): its ids stay.
    const Manifest& source = source_graph_->manifest();
    m.id_base = source.id_base;
    m.ordering = source.ordering;
    if (!source.id_map_file.empty()) {
      m.id_map_file = "id_map.u64";
      m.id_map_checksum = source.id_map_checksum;
      SG_RETURN_IF_ERROR(
          copy_file_synced(source_graph_->dir() + "/" + source.id_map_file, temp_dir_ + "/" + m.id_map_file));
    }
  } else if (remap_) {
    m.id_map_file = "id_map.u64";
    SG_RETURN_IF_ERROR(write_array_file(temp_dir_ + "/" + m.id_map_file, id_map_, &m.id_map_checksum));
  }
  m.chunk_bytes = opt_.chunk_bytes;
  m.format_version = opt_.format_version;
  m.codec = codec_name(opt_.format_version);
  m.stripe_bytes = stripe_bytes_;
  m.interval_starts = interval_starts_;
  m.devices = device_dirs_;
  m.ingest.source = opt_.input;
  m.ingest.input_format = format_name(format_);
  m.ingest.self_loops_dropped = opt_.drop_self_loops;
  m.ingest.duplicates_dropped = opt_.dedup;
  m.ingest.memory_bytes = opt_.memory_bytes;
  if (source_graph_ != nullptr) {
    // Relabelling a graph: what its ingest saw in the input still holds.
    const IngestRecord& first = source_graph_->manifest().ingest;
    m.ingest.source = first.source;
    m.ingest.input_format = first.input_format;
    m.ingest.input_edges = first.input_edges;
    m.ingest.self_loops = first.self_loops;
    m.ingest.self_loop_vertices = first.self_loop_vertices;
    m.ingest.duplicate_edges = first.duplicate_edges;
    m.ingest.self_loops_dropped = first.self_loops_dropped;
    m.ingest.duplicates_dropped = first.duplicates_dropped;
    m.ingest.sorted_runs += first.sorted_runs;
  }
  return Status::OK();
}

Status IngestJob::commit() {
  // Device files first (under their final names), then the manifest, then
  // the directory rename that makes the graph visible.
  for (const SpaceManifest& space : manifest_.spaces) {
    for (size_t d = 0; d < device_dirs_.size(); ++d) {
      if (device_dirs_[d] == ".") continue;
      const std::string temp = device_temp_path(d, space.device_files[d]);
      const std::string final_path = device_dirs_[d] + "/" + space.device_files[d];
      if (::rename(temp.c_str(), final_path.c_str()) != 0) {
        return Status::IOError(final_path + ": rename: " + errno_text(errno));
      }
      created_files_.push_back(final_path);
    }
  }
  for (const std::string& dir : device_dirs_) {
    if (dir != ".") SG_RETURN_IF_ERROR(fsync_directory(dir));
  }
  for (const auto& [name, contents] : opt_.graph_files) {
    SG_RETURN_IF_ERROR(write_file_atomic(temp_dir_ + "/" + name, contents.data(), contents.size()));
  }
  const std::string json = manifest_.to_json();
  SG_RETURN_IF_ERROR(write_file_atomic(temp_dir_ + "/manifest.json", json.data(), json.size()));
  SG_RETURN_IF_ERROR(fsync_directory(temp_dir_));
  const fs::path output = fs::absolute(opt_.output).lexically_normal();
  if (::rename(temp_dir_.c_str(), output.c_str()) != 0) {
    return Status::IOError(output.string() + ": rename into place: " + errno_text(errno));
  }
  committed_ = true;
  return fsync_directory(output.parent_path().string());
}

void IngestJob::cleanup() {
  if (committed_) return;
  for (const std::string& path : created_files_) ::unlink(path.c_str());
  std::error_code ec;
  if (!temp_dir_.empty()) fs::remove_all(temp_dir_, ec);
}

Status IngestJob::run(IngestSummary* summary) {
  const auto start = std::chrono::steady_clock::now();
  SG_RETURN_IF_ERROR(check_options());
  SG_RETURN_IF_ERROR(prepare_directories());
  if (remap_) {
    progress_.begin_phase("remap ids", 0);
    SG_RETURN_IF_ERROR(collect_ids());
  }
  const Status routed = route_and_build();
  if (!routed.ok() && wide_id_.load() != 0 && remap_reason_.empty()) {
    remap_reason_ = "vertex id " + std::to_string(wide_id_.load()) + " does not fit 32-bit dense ids";
  }
  SG_RETURN_IF_ERROR(routed);
  progress_.begin_phase("commit", 0);
  if (interrupt_requested()) return Status::Interrupted("ingest stopped by a signal");
  SG_RETURN_IF_ERROR(write_metadata());
  SG_RETURN_IF_ERROR(commit());
  progress_.end();
  summary->phases = progress_.summary();
  summary->note.clear();
  if (leftovers_.entries > 0) {
    summary->note = "removed " + std::to_string(leftovers_.entries) + " leftovers of killed ingests (" +
                    std::to_string(leftovers_.bytes >> 20) + " MiB freed)";
  }
  if (!reader_notes_.empty()) summary->note += (summary->note.empty() ? "" : "\n") + reader_notes_;
  summary->num_vertices = manifest_.num_vertices;
  summary->num_edges = manifest_.num_edges;
  summary->input_edges = manifest_.ingest.input_edges;
  summary->sorted_runs = manifest_.ingest.sorted_runs;
  summary->intervals = static_cast<uint32_t>(interval_starts_.size());
  summary->stored_bytes = 0;
  for (const SpaceManifest& s : manifest_.spaces) {
    summary->stored_bytes += s.logical_bytes;
    summary->out_space_bytes += s.kind == "out" ? s.logical_bytes : 0;
  }
  summary->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return Status::OK();
}

}  // namespace

uint32_t choose_block_count(uint64_t num_vertices, uint64_t memory_bytes) {
  const uint64_t state_bytes = 4 * num_vertices;
  if (state_bytes <= memory_bytes / 2) return 1;
  const uint64_t block_bytes = std::max<uint64_t>(memory_bytes / 4, 1);
  return static_cast<uint32_t>(std::clamp<uint64_t>((state_bytes + block_bytes - 1) / block_bytes, 2, 256));
}

std::vector<uint32_t> block_starts(uint64_t num_vertices, uint32_t blocks) {
  constexpr uint64_t kSlab = 1024;
  const uint64_t count = std::clamp<uint64_t>(blocks, 1, num_vertices);
  uint64_t width = (num_vertices + count - 1) / count;
  if (width >= kSlab) width = (width + kSlab - 1) / kSlab * kSlab;
  std::vector<uint32_t> starts;
  for (uint64_t start = 0; start < num_vertices; start += width) starts.push_back(static_cast<uint32_t>(start));
  return starts;
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
