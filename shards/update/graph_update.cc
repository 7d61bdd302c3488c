#include "shards/update/graph_update.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <unordered_map>

#include "base/file_util.h"
#include "shards/format/graph_deltas.h"
#include "shards/ingest/open_input.h"
#include "shards/update/delta_tiers.h"

namespace sg {
namespace {

namespace fs = std::filesystem;
constexpr size_t kReadBatchEdges = 1 << 16;
constexpr uint64_t kMaxDenseId = uint64_t{UINT32_MAX} - 1;
// A merge of tiers holds their runs and the merged run: each at most this
// share of the budget (the reading buffers are freed first).
constexpr uint64_t kMergeBudgetShare = 6;

// A bit per hashed id (2^shift bits): turns away nearly every id not added
// before an exact look-up, or any further work.
class IdFilter {
 public:
  explicit IdFilter(int shift) : shift_(shift), words_((uint64_t{1} << shift) / 64, 0) {}
  void add(uint64_t id) {
    const uint64_t b = bit(id);
    words_[b / 64] |= uint64_t{1} << (b % 64);
  }
  bool may_hold(uint64_t id) const {
    const uint64_t b = bit(id);
    return (words_[b / 64] >> (b % 64) & 1) != 0;
  }

 private:
  uint64_t bit(uint64_t id) const { return (id * 0x9e3779b97f4a7c15ULL) >> (64 - shift_); }
  int shift_;
  std::vector<uint64_t> words_;
};

// Dense ids of the originals an update names: the graph's, those earlier
// updates added, and new ones for the vertices this one adds.
class UpdateIds {
 public:
  // `deltas` (the ids earlier updates added) must outlive the update.
  void start(const Graph& graph, const GraphDeltas& deltas) {
    graph_ = &graph;
    vertices_ = graph.manifest().vertices_after_deltas();
    mapped_ = !graph.manifest().id_map_file.empty();
    earlier_ids_ = &deltas.new_ids();
  }

  // *v for `original`; a new vertex when `create` (an add); *known false
  // when the graph has no such vertex and none is created.
  Status dense(uint64_t original, bool create, const std::string& file, uint32_t* v, bool* known) {
    *known = true;
    if (!mapped_) {
      const uint64_t base = graph_->manifest().id_base;
      if (original < base || original - base > kMaxDenseId) {
        return Status::BadInput(file + ": vertex id " + std::to_string(original) +
                                " is outside the graph's ids (its base is " + std::to_string(base) +
                                ", its ids 32-bit); re-ingest it with --remap to add such vertices");
      }
      *v = static_cast<uint32_t>(original - base);
      if (*v >= vertices_ && create) vertices_ = *v + uint64_t{1};
      *known = *v < vertices_;
      return Status::OK();
    }
    if (!graph_->id_map_pending()) {
      if (graph_->dense_id(original, v)) return Status::OK();
    } else if (const auto base = base_.find(original); base != base_.end()) {
      *v = base->second;
      return Status::OK();
    }
    const auto it = earlier_.find(original);
    if (it != earlier_.end()) {
      *v = it->second;
      return Status::OK();
    }
    if (!create) {
      *known = false;
      return Status::OK();
    }
    if (vertices_ > kMaxDenseId) return Status::BadInput(file + ": the graph has no room for more vertices");
    *v = static_cast<uint32_t>(vertices_++);
    earlier_[original] = *v;
    added_.push_back(original);
    return Status::OK();
  }

  // Finds the dense ids of the originals `lookups` ids to come name (an
  // id-mapped graph), for dense(): the base's, a few in one streamed pass
  // over the map's file, many by loading the map (then each is one
  // look-up); and those earlier updates added. visit(fn) calls fn(id) for
  // each of them.
  template <typename Visit>
  Status resolve(uint64_t lookups, Visit&& visit) {
    base_.clear();
    if (!mapped_ || lookups == 0) return Status::OK();
    find_earlier(lookups, visit);
    if (!graph_->id_map_pending()) return Status::OK();
    if (lookups * kStreamedLookupShare > graph_->num_vertices()) return graph_->load_id_map();
    std::vector<uint64_t> originals;
    visit([&](uint64_t id) { originals.push_back(id); });
    std::sort(originals.begin(), originals.end());
    originals.erase(std::unique(originals.begin(), originals.end()), originals.end());
    IdFilter filter(kFilterShift);  // 8 KiB, in cache: turns away nearly every id of the map
    for (const uint64_t original : originals) {
      base_.emplace(original, UINT32_MAX);
      filter.add(original);
    }
    SG_RETURN_IF_ERROR(graph_->scan_id_map([&](uint32_t first, const uint64_t* ids, size_t count) {
      for (size_t i = 0; i < count; ++i) {
        if (!filter.may_hold(ids[i])) continue;
        const auto it = base_.find(ids[i]);
        if (it != base_.end()) it->second = static_cast<uint32_t>(first + i);
      }
    }));
    std::erase_if(base_, [](const auto& entry) { return entry.second == UINT32_MAX; });
    return Status::OK();
  }

  uint64_t vertices() const { return vertices_; }
  const std::vector<uint64_t>& added() const { return added_; }

 private:
  // Puts into earlier_ the ids earlier updates added that the coming
  // look-ups may name: one pass over them through a filter of those ids
  // (16 bits an id), instead of a map of every id added since the last
  // compaction built by every update. An id the filter lets through by
  // chance is still an earlier vertex, so it does no harm.
  template <typename Visit>
  void find_earlier(uint64_t lookups, Visit& visit) {
    const std::vector<uint64_t>& earlier = *earlier_ids_;
    if (earlier.empty()) return;
    int shift = 16;
    while (shift < kEarlierFilterMaxShift && (uint64_t{1} << shift) < 16 * lookups) ++shift;
    IdFilter filter(shift);
    visit([&](uint64_t id) { filter.add(id); });
    const uint64_t first = graph_->num_vertices();
    for (size_t i = 0; i < earlier.size(); ++i) {
      if (filter.may_hold(earlier[i])) earlier_.emplace(earlier[i], static_cast<uint32_t>(first + i));
    }
  }

  static constexpr uint64_t kStreamedLookupShare = 64;  // ids a vertex below which the map is streamed
  static constexpr int kFilterShift = 16;
  static constexpr int kEarlierFilterMaxShift = 26;  // 8 MiB
  std::unordered_map<uint64_t, uint32_t> base_;
  const Graph* graph_ = nullptr;
  bool mapped_ = false;
  uint64_t vertices_ = 0;
  const std::vector<uint64_t>* earlier_ids_ = nullptr;  // in dense id order from the base's vertex count
  std::unordered_map<uint64_t, uint32_t> earlier_;      // those found, and those this update adds
  std::vector<uint64_t> added_;
};

// Buffers one kind's records and writes a sorted run file each time the
// buffer fills.
class RunBuffer {
 public:
  RunBuffer(std::string kind, size_t capacity) : kind_(std::move(kind)), capacity_(std::max<size_t>(capacity, 1)) {}

  Status add(const DeltaArc& arc, const std::string& dir, uint64_t generation, bool weighted,
             std::vector<DeltaRunFile>* files) {
    if (records_.capacity() < capacity_) records_.reserve(capacity_);  // once, not by doubling
    records_.push_back(arc);
    return records_.size() >= capacity_ ? flush(dir, generation, weighted, files) : Status::OK();
  }

  Status flush(const std::string& dir, uint64_t generation, bool weighted, std::vector<DeltaRunFile>* files) {
    std::string run;
    uint64_t records = 0;
    SG_RETURN_IF_ERROR(encode(weighted, &run, &records));
    return records == 0 ? Status::OK() : write(dir, generation, run, records, files);
  }

  // Sorts and encodes the buffered records as a run, and empties the
  // buffer; *records 0 when it held none.
  Status encode(bool weighted, std::string* run, uint64_t* records) {
    *records = records_.size();
    if (records_.empty()) return Status::OK();
    std::stable_sort(records_.begin(), records_.end(), delta_before);
    DeltaRunWriter writer(weighted, kDefaultDeltaBlockBytes);
    for (const DeltaArc& arc : records_) SG_RETURN_IF_ERROR(writer.add(arc));
    records_.clear();
    return writer.finish(run);
  }

  void release() { std::vector<DeltaArc>().swap(records_); }
  bool empty() const { return records_.empty(); }

  // Writes an encoded run as the next run file of the update.
  Status write(const std::string& dir, uint64_t generation, const std::string& run, uint64_t records,
               std::vector<DeltaRunFile>* files) const {
    const std::string name = "delta-" + std::to_string(generation) + "-" + std::to_string(files->size()) + "." + kind_;
    DeltaRunFile file;
    SG_RETURN_IF_ERROR(write_delta_run(dir, name, kind_, run, records, &file));
    files->push_back(file);
    return Status::OK();
  }

 private:
  std::string kind_;
  size_t capacity_;
  std::vector<DeltaArc> records_;
};

// The update being built: its records per kind, and what it counts.
struct UpdateBuild {
  const Graph* graph = nullptr;
  uint64_t generation = 0;
  UpdateIds ids;
  RunBuffer out{"out", 0}, in{"in", 0};
  DeltaManifest delta;  // the update's own, when it merges with no tier
  uint64_t merge_limit_bytes = 0;
  NewUpdate merging;        // what it brings to a merge with the newest tiers
  size_t first = 0;         // the first delta the committed one replaces
  DeltaManifest committed;  // its own delta, or the tier it merged into

  struct PendingEdge {
    RawEdge raw;
    bool removed;
  };
  std::vector<PendingEdge> pending;
  size_t pending_limit = 1 << 20;

  // Frees what reading took before the merge takes its memory.
  void release_buffers() {
    out.release();
    in.release();
    std::vector<PendingEdge>().swap(pending);
  }

  // The pending edges in dense ids, into the runs.
  Status drain(const std::string& path) {
    SG_RETURN_IF_ERROR(ids.resolve(2 * pending.size(), [&](auto&& fn) {
      for (const PendingEdge& e : pending) {
        fn(e.raw.src);
        fn(e.raw.dst);
      }
    }));
    for (const PendingEdge& e : pending) {
      uint32_t src = 0, dst = 0;
      bool src_known = false, dst_known = false;
      SG_RETURN_IF_ERROR(ids.dense(e.raw.src, !e.removed, path, &src, &src_known));
      SG_RETURN_IF_ERROR(ids.dense(e.raw.dst, !e.removed, path, &dst, &dst_known));
      if (!src_known || !dst_known) continue;  // nothing to remove
      SG_RETURN_IF_ERROR(add_arc(src, dst, graph->weighted() ? e.raw.weight : 1.0f, e.removed));
    }
    pending.clear();
    return Status::OK();
  }

  Status add_arc(uint32_t src, uint32_t dst, float weight, bool removed) {
    const std::string& dir = graph->dir();
    const bool weighted = graph->weighted();
    SG_RETURN_IF_ERROR(out.add({src, dst, weight, removed}, dir, generation, weighted, &delta.runs));
    (removed ? delta.removes : delta.adds) += 1;
    if (graph->directed()) return in.add({dst, src, weight, removed}, dir, generation, weighted, &delta.runs);
    if (src == dst) return Status::OK();  // an undirected self-loop is stored once
    (removed ? delta.removes : delta.adds) += 1;
    return out.add({dst, src, weight, removed}, dir, generation, weighted, &delta.runs);
  }
};

Status read_update_file(const std::string& path, bool removals, const UpdateOptions& options, UpdateBuild* build) {
  InputFormat format;
  SG_RETURN_IF_ERROR(resolve_format(path, options.format, &format));
  if (format == InputFormat::kGraph)
    return Status::InvalidArgument(path + ": a stored graph is not an update's input; give its edges as a file");
  std::unique_ptr<EdgeReader> reader;
  SG_RETURN_IF_ERROR(open_edge_reader(path, format, options.binary_weights && !removals, &reader));
  const Graph& graph = *build->graph;
  const bool drop_loops = graph.manifest().ingest.self_loops_dropped;
  std::vector<RawEdge> batch;
  for (;;) {
    SG_RETURN_IF_ERROR(reader->next_batch(&batch, kReadBatchEdges));
    if (batch.empty()) return build->drain(path);
    if (!removals && graph.weighted() && !reader->shape().weighted)
      return Status::BadInput(path + ": the graph is weighted, so each added edge needs a weight");
    for (const RawEdge& raw : batch) {
      if (raw.src == raw.dst && drop_loops && !removals) continue;
      build->pending.push_back({raw, removals});
    }
    if (build->pending.size() >= build->pending_limit) SG_RETURN_IF_ERROR(build->drain(path));
  }
}

// The generation in a delta file's name ("delta-<generation>-..." or
// "delta-<generation>.ids"); 0 for another name.
uint64_t generation_of_file(const std::string& name) {
  if (!name.starts_with("delta-")) return 0;
  uint64_t generation = 0;
  for (size_t i = 6; i < name.size() && name[i] >= '0' && name[i] <= '9' && generation < UINT64_MAX / 10; ++i)
    generation = generation * 10 + static_cast<uint64_t>(name[i] - '0');
  return generation;
}

// Delta files the manifest lists not: those of a later generation never
// committed (a crash before the manifest), removed; those of tiers an
// update merged, removed unless a run holds the graph (it may read them).
void remove_unlisted(const Graph& graph) {
  const Manifest& m = graph.manifest();
  std::vector<std::string> listed = delta_files(m, 0), merged_away;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(graph.dir(), ec)) {
    const std::string name = entry.path().filename().string();
    const uint64_t generation = generation_of_file(name);
    if (generation == 0 || std::find(listed.begin(), listed.end(), name) != listed.end()) continue;
    if (generation > m.generation) {
      fs::remove(entry.path(), ec);
    } else {
      merged_away.push_back(name);
    }
  }
  if (!merged_away.empty()) remove_unless_held(graph, merged_away);
}

// The update's own delta (not merged): its new ids written.
Status finish_own_delta(const Graph& graph, UpdateBuild* build) {
  DeltaManifest& delta = build->delta;
  delta.generation = build->generation;
  delta.num_vertices = build->ids.vertices();
  return write_new_ids(graph.dir(), build->generation, build->ids.added(), &delta);
}

// Commits `delta` in place of the graph's deltas from `first` on.
Status commit_delta(const Graph& graph, uint64_t generation, size_t first, const DeltaManifest& delta) {
  SG_RETURN_IF_ERROR(fsync_directory(graph.dir()));
  Manifest manifest = graph.manifest();
  manifest.format_version = kDeltaFormatVersion;
  manifest.generation = generation;
  manifest.deltas.resize(first);
  manifest.deltas.push_back(delta);
  const std::string json = manifest.to_json();
  return write_file_atomic(graph.dir() + "/manifest.json", json.data(), json.size());
}

// Ends the update's runs: the last buffered records are encoded; unless
// the update merges with the newest tiers (delta_tiers.h) they are written
// as files like those that overflowed. *first is the first delta the
// update replaces (the graph's count when it merges with none).
Status finish_runs(const Graph& graph, UpdateBuild* build, size_t* first) {
  std::string last[2];
  uint64_t records[2] = {0, 0};
  SG_RETURN_IF_ERROR(build->out.encode(graph.weighted(), &last[0], &records[0]));
  SG_RETURN_IF_ERROR(build->in.encode(graph.weighted(), &last[1], &records[1]));
  build->release_buffers();
  const std::vector<DeltaManifest>& deltas = graph.manifest().deltas;
  const uint64_t new_bytes = delta_bytes(build->delta) + last[0].size() + last[1].size();
  *first = tier_merge_start(deltas, new_bytes, build->merge_limit_bytes);
  if (*first == deltas.size()) {
    for (size_t k = 0; k < 2; ++k) {
      if (records[k] == 0) continue;
      RunBuffer& buffer = k == 0 ? build->out : build->in;
      SG_RETURN_IF_ERROR(buffer.write(graph.dir(), build->generation, last[k], records[k], &build->delta.runs));
    }
    return Status::OK();
  }
  NewUpdate& fresh = build->merging;
  fresh.generation = build->generation;
  fresh.num_vertices = build->ids.vertices();
  fresh.added_ids = build->ids.added();
  const auto vertices = static_cast<uint32_t>(fresh.num_vertices);
  for (const DeltaRunFile& file : build->delta.runs) {  // those that overflowed, oldest first
    std::vector<std::unique_ptr<DeltaRun>>& runs = fresh.runs[file.kind == "in" ? 1 : 0];
    runs.emplace_back();
    SG_RETURN_IF_ERROR(read_delta_run(graph, file, vertices, &runs.back()));
  }
  for (size_t k = 0; k < 2; ++k) {
    if (records[k] == 0) continue;
    fresh.runs[k].emplace_back();
    SG_RETURN_IF_ERROR(open_delta_run(std::move(last[k]), graph.weighted(), vertices, "update", &fresh.runs[k].back()));
  }
  return Status::OK();
}

// Edges an update holds at once: each is a pending edge and a record in
// each kind's run buffer, within the budget less the id map (loaded when
// many ids are looked up: 8 bytes a vertex and 4 for its inverse) and a
// few MiB for the process.
size_t update_capacity(const Graph& graph, uint64_t memory_bytes) {
  constexpr uint64_t kFixedBytes = uint64_t{16} << 20;
  const uint64_t per_edge = sizeof(UpdateBuild::PendingEdge) + 2 * sizeof(DeltaArc);
  const uint64_t id_map = graph.manifest().id_map_file.empty() ? 0 : uint64_t{12} * graph.num_vertices();
  const uint64_t room = memory_bytes > id_map + kFixedBytes ? memory_bytes - id_map - kFixedBytes : 0;
  return static_cast<size_t>(std::max<uint64_t>(room / per_edge, 1024));
}

}  // namespace

GraphWriterLock::~GraphWriterLock() {
  if (fd_ >= 0) ::close(fd_);
}

Status GraphWriterLock::acquire(const std::string& dir) {
  fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) return Status::NoInput(dir + ": cannot open the graph directory: " + errno_text(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0)
    return Status::InvalidArgument(dir + ": another update or compaction of this graph is running");
  // A compaction may have swapped the directory out before the lock came.
  struct stat locked {
  }, named{};
  if (::fstat(fd_, &locked) != 0 || ::stat(dir.c_str(), &named) != 0 || locked.st_ino != named.st_ino)
    return Status::InvalidArgument(dir + ": the graph was replaced while being locked; try again");
  return Status::OK();
}

namespace {

// Reads the files into runs and commits them; on an error, removes the runs
// written, unless a sync failed after the manifest's rename (then the
// manifest on disk may name them). *committed is false for an update that
// changes nothing.
Status write_update(const UpdateOptions& options, const Graph& graph, const GraphDeltas& earlier, UpdateBuild* build,
                    bool* committed) {
  *committed = false;
  remove_unlisted(graph);
  Status s = Status::OK();
  for (const std::string& path : options.remove_files) {
    if (s.ok()) s = read_update_file(path, true, options, build);
  }
  for (const std::string& path : options.add_files) {
    if (s.ok()) s = read_update_file(path, false, options, build);
  }
  const bool empty = build->delta.runs.empty() && build->out.empty() && build->in.empty() &&
                     build->ids.vertices() == graph.manifest().vertices_after_deltas();
  if (s.ok() && empty) return s;
  size_t first = 0;
  if (s.ok()) s = finish_runs(graph, build, &first);
  std::vector<std::string> own_files;  // its runs that overflowed the buffer
  for (const DeltaRunFile& file : build->delta.runs) own_files.push_back(file.file);
  const bool merges = first < graph.manifest().deltas.size();
  if (s.ok())
    s = merges ? merge_tier(graph, earlier, first, &build->merging, &build->committed) : finish_own_delta(graph, build);
  if (s.ok() && !merges) build->committed = build->delta;
  build->first = first;
  if (s.ok()) s = commit_delta(graph, build->generation, first, build->committed);
  if (s.ok()) {
    *committed = true;
    if (merges) {
      // Files only this update listed (never committed) go; the tiers it
      // merged go unless a run reads them.
      std::error_code ec;
      for (const std::string& file : own_files) fs::remove(graph.dir() + "/" + file, ec);
      remove_unless_held(graph, delta_files(graph.manifest(), first));
    }
    return s;
  }
  Manifest on_disk;
  std::string text;
  const bool renamed = read_whole_file(graph.dir() + "/manifest.json", &text).ok() &&
                       Manifest::parse(text, graph.dir(), &on_disk).ok() && on_disk.generation == build->generation;
  if (!renamed) remove_unlisted(graph);
  return s;
}

void summarize(const Graph& graph, const UpdateBuild& build, bool committed, UpdateSummary* summary) {
  const Manifest& m = graph.manifest();
  summary->generation = committed ? build.generation : m.generation;
  summary->pending_updates = m.pending_updates() + (committed ? 1 : 0);
  summary->base_arcs = graph.arcs(SpaceKind::kOut);
  const size_t kept = committed ? build.first : m.deltas.size();
  for (size_t d = 0; d < kept; ++d) summary->pending_records += m.deltas[d].adds + m.deltas[d].removes;
  if (committed) summary->pending_records += build.committed.adds + build.committed.removes;
  summary->pending_tiers = kept + (committed ? 1 : 0);
  summary->adds = build.delta.adds;
  summary->removes = build.delta.removes;
  summary->new_vertices = build.ids.vertices() - m.vertices_after_deltas();
  summary->run_files = committed ? build.committed.runs.size() : 0;
  summary->merged_updates = committed ? build.committed.updates : 0;
}

}  // namespace

Status open_for_writing(const std::string& dir, GraphOpenOptions options, GraphWriterLock* lock, Graph* graph) {
  SG_RETURN_IF_ERROR(lock->acquire(dir));
  options.deltas = true;
  return Graph::open(dir, graph, options);
}

Status update_graph(const UpdateOptions& options, UpdateSummary* summary) {
  const auto start = std::chrono::steady_clock::now();
  *summary = UpdateSummary{};
  GraphWriterLock lock;
  Graph graph;  // the id map is loaded when many ids are looked up (UpdateIds)
  SG_RETURN_IF_ERROR(open_for_writing(options.graph, GraphOpenOptions{false, true, false, false}, &lock, &graph));
  if (graph.manifest().format_version < kFormatVersion) {
    return Status::InvalidArgument(options.graph + ": format version " +
                                   std::to_string(graph.manifest().format_version) +
                                   " takes no updates; re-ingest it (`shardgraph ingest OLD -o NEW`) first");
  }
  GraphDeltas deltas;
  SG_RETURN_IF_ERROR(deltas.open(graph, false));  // the ids earlier updates added
  UpdateBuild build;
  build.graph = &graph;
  build.generation = graph.manifest().generation + 1;
  build.ids.start(graph, deltas);
  const size_t capacity = options.run_records != 0 ? options.run_records : update_capacity(graph, options.memory_bytes);
  build.pending_limit = capacity;
  build.pending.reserve(capacity + kReadBatchEdges);
  build.out = RunBuffer("out", capacity);
  build.in = RunBuffer("in", capacity);
  bool committed = false;
  build.merge_limit_bytes = options.memory_bytes / kMergeBudgetShare;
  SG_RETURN_IF_ERROR(write_update(options, graph, deltas, &build, &committed));
  summarize(graph, build, committed, summary);
  summary->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return Status::OK();
}

}  // namespace sg
