#include "shards/format/graph.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <functional>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/file_util.h"
#include "compression/checksum.h"
#include "shards/format/remove_graph.h"

namespace sg {
namespace {

// Opens a raw array file of `value_bytes` values and checks its size:
// `expected_count` values (SIZE_MAX: any whole number of them).
Status open_array_file(const std::string& path, size_t value_bytes, size_t expected_count, File* file,
                       uint64_t* bytes) {
  SG_RETURN_IF_ERROR(File::open_read(path, file));
  SG_RETURN_IF_ERROR(file->size(bytes));
  if (*bytes % value_bytes != 0 || (expected_count != SIZE_MAX && *bytes / value_bytes != expected_count)) {
    return Status::Corruption(path + ": unexpected size " + std::to_string(*bytes));
  }
  return Status::OK();
}

// Reads the file straight into `out` (no second copy: an id map is 8 bytes
// a vertex, and it is loaded next to the run's results).
template <typename T>
Status load_array(const std::string& path, uint64_t expected_checksum, size_t expected_count, std::vector<T>* out) {
  File file;
  uint64_t bytes = 0;
  SG_RETURN_IF_ERROR(open_array_file(path, sizeof(T), expected_count, &file, &bytes));
  out->resize(bytes / sizeof(T));
  SG_RETURN_IF_ERROR(file.pread_all(out->data(), bytes, 0));
  if (checksum64(out->data(), bytes) != expected_checksum) {
    out->clear();
    return Status::Corruption(path + ": checksum mismatch");
  }
  return Status::OK();
}

// Refuses a graph with updates unless the caller merges them.
Status check_updates_wanted(const std::string& dir, const Manifest& m, const GraphOpenOptions& options) {
  if (m.deltas.empty() || options.deltas) return Status::OK();
  return Status::InvalidArgument(dir + ": has " + std::to_string(m.pending_updates()) +
                                 " update(s) not yet compacted; run `shardgraph compact " + dir +
                                 "` first (runs read compacted graphs)");
}

}  // namespace

Status Graph::open(const std::string& dir, Graph* graph, GraphOpenOptions options) {
  graph->dir_ = dir;
  graph->generation_lock_ = File();
  graph->dir_handle_ = File();
  if (options.hold) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return Status::NoInput(dir + ": not a graph (" + errno_text(errno) + ")");
    graph->dir_handle_ = File(fd, dir);
  }
  const std::string manifest_path = graph->path_of("manifest.json");
  std::string text;
  Status s = read_whole_file(manifest_path, &text);
  if (s.code() == Status::Code::kNotFound) {
    if (::access((dir + "/partition.json").c_str(), F_OK) == 0) {
      return Status::InvalidArgument(dir + ": a partitioned graph (its parts are " + dir +
                                     "/part-K, each a graph; runs over MPI are not built yet, see docs/scale-out.md)");
    }
    return Status::NoInput(dir + ": not a graph (no manifest.json; was the ingest completed?)");
  }
  SG_RETURN_IF_ERROR(s);
  SG_RETURN_IF_ERROR(Manifest::parse(text, manifest_path, &graph->manifest_));
  const Manifest& m = graph->manifest_;
  if (m.out_only() && !options.out_only) {
    return Status::InvalidArgument(
        dir + ": the intermediate of an ordered ingest (out-space only), not a graph to run; re-ingest");
  }
  SG_RETURN_IF_ERROR(check_updates_wanted(dir, m, options));
  if (options.hold) {
    SG_RETURN_IF_ERROR(graph->hold_generation());
    // An update may have committed between the read and the lock, and
    // removed files of tiers it merged: read the manifest again, now held
    // (updates keep the lock file).
    std::string held_text;
    SG_RETURN_IF_ERROR(read_whole_file(manifest_path, &held_text));
    if (held_text != text) {
      SG_RETURN_IF_ERROR(Manifest::parse(held_text, manifest_path, &graph->manifest_));
      SG_RETURN_IF_ERROR(check_updates_wanted(dir, m, options));
    }
  }
  graph->layout_ = StripeLayout(m.stripe_bytes, static_cast<uint32_t>(m.devices.size()));
  graph->vertices_ = static_cast<uint32_t>(m.num_vertices);
  graph->added_ids_.clear();
  graph->spaces_.clear();
  graph->spaces_.resize(m.spaces.size());
  for (std::vector<size_t>& blocks : graph->blocks_) blocks.clear();
  for (size_t i = 0; i < m.spaces.size(); ++i) graph->blocks_[m.spaces[i].kind == "in" ? 1 : 0].push_back(i);
  graph->in_degrees_pending_ = options.degrees && !options.in_degrees && m.directed && !m.out_only();
  for (size_t i = 0; i < m.spaces.size(); ++i) {
    const bool in_space = m.spaces[i].kind == "in";
    const bool degrees =
        options.degrees && !m.spaces[i].degree_file.empty() && !(in_space && graph->in_degrees_pending_);
    SG_RETURN_IF_ERROR(graph->load_space(m.spaces[i], degrees, &graph->spaces_[i]));
    EdgeSpace& space = graph->spaces_[i];
    space.kind = in_space ? SpaceKind::kIn : SpaceKind::kOut;
    space.neighbour_begin = static_cast<uint32_t>(m.spaces[i].neighbour_begin);
    space.neighbour_end = static_cast<uint32_t>(m.spaces[i].neighbour_end);
  }
  for (auto& overlay : graph->overlays_) overlay.reset();
  for (auto& load : graph->deferred_overlays_) load = nullptr;
  for (File& file : graph->corrected_degrees_) file = File();
  for (bool& checked : graph->degrees_checked_) checked = options.degree_files_trusted;
  graph->id_map_.clear();
  graph->id_map_mapping_.reset();
  graph->ids_ = nullptr;
  graph->by_original_.clear();
  graph->by_original_wanted_ = options.by_original;
  graph->id_map_pending_ = !m.id_map_file.empty();
  graph->ids_sorted_ = true;
  graph->id_map_checked_ = false;
  if (options.id_map) SG_RETURN_IF_ERROR(graph->load_id_map());
  return Status::OK();
}

// A shared lock on the generation's lock file (remove_graph.h): a
// compaction or gc removes an old base, and an update the files of tiers
// it merged, only once it can lock it exclusively. It waits for one that
// holds it (only while removing): files the manifest names are then read
// again (Graph::open).
Status Graph::hold_generation() {
  const std::string path = path_of(generation_lock_name(manifest_));
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::NoInput(dir_ + ": cannot open its lock file (" + errno_text(errno) + ")");
  generation_lock_ = File(fd, path);
  int rc = 0;
  do {
    rc = ::flock(fd, LOCK_SH);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) return Status::IOError(dir_ + ": cannot lock its generation (" + errno_text(errno) + ")");
  return Status::OK();
}

Status Graph::load_in_degrees() const {
  if (!in_degrees_pending_) return Status::OK();
  EdgeSpace& space = spaces_[degree_space(SpaceKind::kIn)];
  SG_RETURN_IF_ERROR(
      load_array(path_of(space.meta.degree_file), space.meta.degree_checksum, manifest_.num_vertices, &space.degrees));
  in_degrees_pending_ = false;
  return Status::OK();
}

// One streamed pass over an array file that checks its size and checksum:
// fn(first value, values, count) per piece, if given.
template <typename T>
Status scan_array_file(const std::string& path, uint64_t expected_checksum, size_t expected_count,
                       const std::function<void(uint32_t, const T*, size_t)>& fn) {
  File file;
  uint64_t bytes = 0;
  SG_RETURN_IF_ERROR(open_array_file(path, sizeof(T), expected_count, &file, &bytes));
  Checksum64Stream sum;
  std::vector<T> buffer((size_t{1} << 20) / sizeof(T));
  for (uint64_t offset = 0; offset < bytes;) {
    const size_t piece = static_cast<size_t>(std::min<uint64_t>(buffer.size() * sizeof(T), bytes - offset));
    SG_RETURN_IF_ERROR(file.pread_all(buffer.data(), piece, offset));
    sum.update(buffer.data(), piece);
    if (fn) fn(static_cast<uint32_t>(offset / sizeof(T)), buffer.data(), piece / sizeof(T));
    offset += piece;
  }
  if (sum.digest() != expected_checksum) return Status::Corruption(path + ": checksum mismatch");
  return Status::OK();
}

Status check_degree_file(const std::string& path, uint64_t checksum, uint64_t vertices) {
  return scan_array_file<uint32_t>(path, checksum, static_cast<size_t>(vertices), nullptr);
}

Status scan_degree_array(const std::string& path, uint64_t checksum, uint64_t vertices,
                         const std::function<void(uint32_t, const uint32_t*, size_t)>& fn) {
  return scan_array_file<uint32_t>(path, checksum, static_cast<size_t>(vertices), fn);
}

Status Graph::load_overlay(SpaceKind kind) const {
  std::function<Status()> load = std::move(deferred_overlays_[kind_slot(kind)]);
  deferred_overlays_[kind_slot(kind)] = nullptr;
  return load ? load() : Status::OK();
}

Status Graph::scan_degree_file(SpaceKind kind, const std::function<void(uint32_t, const uint32_t*, size_t)>& fn) const {
  SG_RETURN_IF_ERROR(load_overlay(kind));  // it corrects the degrees, or defers that to here
  if (DegreeCorrection correct = std::move(deferred_degrees_[kind_slot(kind)])) {
    deferred_degrees_[kind_slot(kind)] = nullptr;  // it scans the stored file itself
    SG_RETURN_IF_ERROR(correct(nullptr));
  }
  // Several readers of one graph each ask for the check (the order's
  // degree walks, then its engine): once is enough.
  if (!fn && degrees_checked_[kind_slot(kind)]) return Status::OK();
  // Degrees after updates cover the vertices they add; the stored file not.
  const uint64_t vertices = degrees_corrected_in_scratch(kind) ? vertices_ : manifest_.num_vertices;
  SG_RETURN_IF_ERROR(scan_array_file<uint32_t>(degree_path(kind), degree_checksum(kind), vertices, fn));
  degrees_checked_[kind_slot(kind)] = true;
  return Status::OK();
}

Status Graph::take_corrected_degrees(SpaceKind kind, std::vector<uint32_t>* degrees, bool* taken) const {
  SG_RETURN_IF_ERROR(load_overlay(kind));  // it corrects the degrees, or defers that
  DegreeCorrection correct = std::move(deferred_degrees_[kind_slot(kind)]);
  deferred_degrees_[kind_slot(kind)] = nullptr;  // it scans the stored file itself
  *taken = static_cast<bool>(correct);
  if (!*taken) return Status::OK();
  const Status status = correct(degrees);
  deferred_degrees_[kind_slot(kind)] = std::move(correct);  // the file, if a reader asks for it
  return status;
}

Status Graph::check_id_map() const {
  if (!id_map_pending_ || id_map_checked_) return Status::OK();
  bool sorted = true;
  uint64_t last = 0;
  SG_RETURN_IF_ERROR(scan_id_map([&](uint32_t first, const uint64_t* ids, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      sorted = sorted && (first + i == 0 || ids[i] >= last);
      last = ids[i];
    }
  }));
  for (const uint64_t id : added_ids_) {
    sorted = sorted && id >= last;
    last = id;
  }
  ids_sorted_ = sorted;
  id_map_checked_ = true;
  return Status::OK();
}

Status Graph::lookup_original_id(uint32_t vertex, uint64_t* id) const {
  assert(vertex < vertices_);
  if (!id_map_pending_) {
    *id = original_id(vertex);
    return Status::OK();
  }
  if (vertex >= manifest_.num_vertices) {
    *id = added_ids_[vertex - manifest_.num_vertices];
    return Status::OK();
  }
  File file;
  SG_RETURN_IF_ERROR(File::open_read(path_of(manifest_.id_map_file), &file));
  return file.pread_all(id, sizeof(*id), uint64_t{vertex} * sizeof(*id));
}

Status Graph::load_id_map() const {
  if (!id_map_pending_) return Status::OK();
  const Manifest& m = manifest_;
  SG_RETURN_IF_ERROR(load_array(path_of(m.id_map_file), m.id_map_checksum, m.num_vertices, &id_map_));
  id_map_.insert(id_map_.end(), added_ids_.begin(), added_ids_.end());
  id_map_pending_ = false;
  id_map_checked_ = true;
  ids_ = id_map_.data();
  ids_sorted_ = std::is_sorted(id_map_.begin(), id_map_.end());
  if (by_original_wanted_ && !ids_sorted_ && !order_permuted_ids()) {
    const std::vector<uint64_t>& ids = id_map_;
    by_original_.resize(ids.size());
    for (uint32_t v = 0; v < ids.size(); ++v) by_original_[v] = v;
    std::sort(by_original_.begin(), by_original_.end(), [&](uint32_t a, uint32_t b) { return ids[a] < ids[b]; });
  }
  return Status::OK();
}

// A reordered graph of dense ids maps a permutation of 0..n-1: its order by
// original id is the inverse permutation, in one pass instead of a sort.
bool Graph::order_permuted_ids() const {
  const uint64_t n = id_map_.size();
  by_original_.assign(n, UINT32_MAX);
  for (uint32_t v = 0; v < n; ++v) {
    const uint64_t id = id_map_[v];
    if (id >= n || by_original_[id] != UINT32_MAX) {
      by_original_.clear();
      return false;
    }
    by_original_[id] = v;
  }
  return true;
}

Status Graph::map_id_map() const {
  if (!id_map_pending_) return Status::OK();
  if (!added_ids_.empty()) return load_id_map();  // the file lacks the ids updates added
  SG_RETURN_IF_ERROR(check_id_map());
  auto mapping = std::make_unique<MappedFile>();
  const std::string path = path_of(manifest_.id_map_file);
  SG_RETURN_IF_ERROR(mapping->open(path));
  // check_id_map read the file a moment ago; a size unlike it now means
  // someone is rewriting the graph under the run.
  if (mapping->size() != manifest_.num_vertices * sizeof(uint64_t)) return Status::Corruption(path + ": size changed");
  ids_ = reinterpret_cast<const uint64_t*>(mapping->data());
  id_map_mapping_ = std::move(mapping);
  id_map_pending_ = false;
  return Status::OK();
}

uint64_t Graph::id_map_load_bytes() const {
  if (manifest_.id_map_file.empty()) return 0;
  assert(!id_map_pending_ || id_map_checked_);
  const uint64_t per_vertex = sizeof(uint64_t) + (ids_sorted_ || !by_original_wanted_ ? 0 : sizeof(uint32_t));
  return uint64_t{vertices_} * per_vertex;
}

Status Graph::load_space(const SpaceManifest& meta, bool degrees, EdgeSpace* space) {
  space->meta = meta;
  SG_RETURN_IF_ERROR(load_array(path_of(meta.index_file), meta.index_checksum, meta.chunks, &space->index));
  if (degrees) {
    SG_RETURN_IF_ERROR(
        load_array(path_of(meta.degree_file), meta.degree_checksum, manifest_.num_vertices, &space->degrees));
  }
  space->device_files.resize(manifest_.devices.size());
  for (size_t d = 0; d < manifest_.devices.size(); ++d) {
    const std::string& device = manifest_.devices[d];
    const std::string path = (device == "." ? dir_ : device) + "/" + meta.device_files[d];
    space->device_paths.push_back(path);
    Status s = File::open_read(path, &space->device_files[d]);
    if (s.code() == Status::Code::kNotFound) {
      return Status::NotFound(path + ": device file of space " + meta.name + " is missing (device " + device + ")");
    }
    SG_RETURN_IF_ERROR(s);
    uint64_t bytes = 0;
    SG_RETURN_IF_ERROR(space->device_files[d].size(&bytes));
    if (bytes != meta.device_bytes[d]) {
      return Status::Corruption(path + ": size " + std::to_string(bytes) + " but the manifest says " +
                                std::to_string(meta.device_bytes[d]));
    }
  }
  return check_index(*space);
}

// The chunk index agrees with the manifest: chunks in order within the
// space at aligned offsets, covering vertices 0..|V|-1, each interval starting a chunk, and
// as many arcs as the manifest says. Cheap (one pass over the index), so
// every reader runs it.
Status Graph::check_index(const EdgeSpace& space) const {
  const auto& starts = manifest_.interval_starts;
  const std::string where = dir_ + "/" + space.meta.index_file + ": ";
  uint64_t arcs = 0, end_offset = 0;
  uint32_t next_vertex = 0;
  size_t interval = 0;
  for (const ChunkIndexEntry& e : space.index) {
    const bool continues = e.first_vertex + 1 == next_vertex;
    if ((e.first_vertex != next_vertex && !continues) || e.vertex_count == 0 || e.bytes == 0 || e.offset < end_offset ||
        e.offset % kAlignBytes != 0 || uint64_t{e.first_vertex} + e.vertex_count > manifest_.num_vertices) {
      return Status::Corruption(where + "chunks do not tile the vertices; the index does not match the manifest");
    }
    if (interval < starts.size() && starts[interval] < e.first_vertex + (continues ? 1u : 0u)) {
      return Status::Corruption(where + "interval " + std::to_string(interval) +
                                " does not start a chunk; the index does not match the manifest");
    }
    if (interval < starts.size() && starts[interval] == e.first_vertex && !continues) ++interval;
    if (interval < starts.size() && starts[interval] < e.end_vertex()) {
      return Status::Corruption(where + "a chunk spans interval " + std::to_string(interval) +
                                "'s start; the index does not match the manifest");
    }
    arcs += e.edge_count;
    end_offset = e.offset + e.bytes;
    next_vertex = e.end_vertex();
  }
  if (next_vertex != manifest_.num_vertices || interval != starts.size() || arcs != space.meta.arcs ||
      end_offset > space.meta.logical_bytes) {
    return Status::Corruption(where + "chunks cover " + std::to_string(next_vertex) + " vertices and " +
                              std::to_string(arcs) + " arcs; the manifest says " +
                              std::to_string(manifest_.num_vertices) + " and " + std::to_string(space.meta.arcs) +
                              " (index and manifest do not match)");
  }
  return Status::OK();
}

Status Graph::extend_vertices(uint32_t vertices, std::vector<uint64_t> added_ids) {
  const uint32_t stored = stored_vertices();
  assert(vertices > stored && vertices_ == stored && overlays_[0] == nullptr && overlays_[1] == nullptr);
  assert(added_ids.empty() || added_ids.size() == vertices - stored);
  static const uint8_t kNoBytes = 0;
  for (EdgeSpace& space : spaces_) {
    const ChunkIndexEntry& last = space.index.back();
    // At the aligned end of the space: a window that ends with it reads no
    // byte more, and one of it alone reads none.
    const uint64_t offset = align_up(last.offset + last.bytes, kAlignBytes);
    space.index.push_back(ChunkIndexEntry{stored, vertices - stored, offset, 0, 0, checksum64(&kNoBytes, 0)});
    if (space.neighbour_end == stored) space.neighbour_end = vertices;  // the last block: new ids are its neighbours
  }
  vertices_ = vertices;
  added_ids_ = std::move(added_ids);
  if (manifest_.id_map_file.empty() || id_map_pending_) return Status::OK();
  // Loaded (or mapped) before: loaded again, with the added ids.
  id_map_.clear();
  id_map_mapping_.reset();
  by_original_.clear();
  ids_ = nullptr;
  id_map_pending_ = true;
  id_map_checked_ = false;
  return load_id_map();
}

std::string Graph::describe_chunk(const EdgeSpace& space, size_t chunk) const {
  const ChunkIndexEntry& e = space.index[chunk];
  std::string where;
  layout_.split(e.offset, std::max<uint64_t>(e.bytes, 1), [&](const StripePiece& piece) {
    if (!where.empty()) where += ", ";
    where += space.device_paths[piece.device] + " @" + std::to_string(piece.device_offset);
  });
  return "chunk " + std::to_string(chunk) + " of " + space.meta.name + " (" + where + ")";
}

Status Graph::read_chunk_of(const EdgeSpace& space, size_t chunk, uint8_t* payload) const {
  return read_chunk_range(space, chunk, chunk + 1, payload);
}

Status Graph::read_chunk_range(const EdgeSpace& space, size_t first, size_t end, uint8_t* payload) const {
  assert(first < end && end <= space.index.size());
  const uint64_t begin = space.index[first].offset;
  const uint64_t bytes = chunk_span_bytes(space, first, end);
  if (begin + bytes > space.meta.logical_bytes) {
    return Status::Corruption(describe_chunk(space, end - 1) + ": extends past the end of the space");
  }
  Status status;
  layout_.split(begin, bytes, [&](const StripePiece& piece) {  // none for a vertex tail alone (no bytes)
    if (!status.ok()) return;
    status = space.device_files[piece.device].pread_all(payload + (piece.logical_offset - begin), piece.bytes,
                                                        piece.device_offset);
  });
  if (!status.ok()) return Status::IOError(describe_chunk(space, first) + ": " + status.message());
  for (size_t c = first; c < end; ++c) {
    const ChunkIndexEntry& e = space.index[c];
    if (e.offset < begin || checksum64(payload + (e.offset - begin), e.bytes) != e.checksum) {
      return Status::Corruption(describe_chunk(space, c) + ": checksum mismatch");
    }
  }
  return Status::OK();
}

void Graph::drop_cached_chunks(const EdgeSpace& space, size_t first, size_t end) const {
  assert(first < end && end <= space.index.size());
  const uint64_t begin = space.index[first].offset;
  layout_.split(begin, chunk_span_bytes(space, first, end), [&](const StripePiece& piece) {
    space.device_files[piece.device].drop_cached(piece.device_offset, piece.bytes);
  });
}

Status Graph::read_chunk(SpaceKind kind, size_t chunk, uint8_t* payload) const {
  return read_chunk_of(space(kind), chunk, payload);
}

Status Graph::scan_id_map(const std::function<void(uint32_t, const uint64_t*, size_t)>& fn) const {
  return scan_array_file<uint64_t>(path_of(manifest_.id_map_file), manifest_.id_map_checksum, manifest_.num_vertices,
                                   fn);
}

bool Graph::dense_id(uint64_t original, uint32_t* vertex) const {
  if (id_map_pending_) {
    // One pass over the map's file (ids are distinct), a block at a time;
    // the checksum was checked when the map was written and is checked
    // again when it is loaded for the output.
    File file;
    if (!File::open_read(path_of(manifest_.id_map_file), &file).ok()) return false;
    std::vector<uint64_t> block(1 << 16);
    for (uint64_t first = 0; first < manifest_.num_vertices; first += block.size()) {
      const uint64_t count = std::min<uint64_t>(block.size(), manifest_.num_vertices - first);
      if (!file.pread_all(block.data(), count * sizeof(uint64_t), first * sizeof(uint64_t)).ok()) return false;
      for (uint64_t i = 0; i < count; ++i) {
        if (block[i] == original) {
          *vertex = static_cast<uint32_t>(first + i);
          return true;
        }
      }
    }
    const auto added = std::find(added_ids_.begin(), added_ids_.end(), original);
    if (added == added_ids_.end()) return false;
    *vertex = static_cast<uint32_t>(manifest_.num_vertices + (added - added_ids_.begin()));
    return true;
  }
  if (ids_ == nullptr) {
    if (original < manifest_.id_base || original - manifest_.id_base >= vertices_) return false;
    *vertex = static_cast<uint32_t>(original - manifest_.id_base);
    return true;
  }
  const uint64_t* begin = ids_;
  const uint64_t* end = ids_ + vertices_;
  // A permutation of 0..n-1 (a reordered dense graph): by_original_ is its
  // inverse, so the dense id is one look-up.
  if (!by_original_.empty() && original < by_original_.size() && ids_[by_original_[original]] == original) {
    *vertex = by_original_[original];
    return true;
  }
  if (!by_original_.empty()) {
    auto it = std::lower_bound(by_original_.begin(), by_original_.end(), original,
                               [&](uint32_t v, uint64_t id) { return ids_[v] < id; });
    if (it == by_original_.end() || ids_[*it] != original) return false;
    *vertex = *it;
    return true;
  }
  // A mapped map out of order has no index: one pass over it.
  const uint64_t* it = ids_sorted_ ? std::lower_bound(begin, end, original) : std::find(begin, end, original);
  if (it == end || *it != original) return false;
  *vertex = static_cast<uint32_t>(it - begin);
  return true;
}

}  // namespace sg
