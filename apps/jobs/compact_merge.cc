#include "apps/jobs/compact_merge.h"

#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include "base/file_util.h"
#include "base/interrupt.h"
#include "base/parallel.h"
#include "compression/checksum.h"
#include "core/window_graph.h"
#include "shards/format/graph_deltas.h"
#include "shards/format/graph_overlay.h"
#include "shards/ingest/chunk_encoder.h"
#include "shards/ingest/graph_files.h"
#include "shards/ingest/ingest_progress.h"
#include "shards/ingest/space_builder.h"
#include "shards/ingest/space_output.h"
#include "shards/io/chunk_stream.h"

namespace sg {
namespace {

// Windows of a 24th of the budget, within these bounds: large enough that
// an HDD reads at its bandwidth between the writes, small enough that the
// read-ahead buffers, the base and merged windows and the overlay stay
// within --memory.
constexpr uint64_t kMinWindowBytes = 1 << 20;
constexpr uint64_t kMaxWindowBytes = 16 << 20;
// Each encoded part ends in a partial chunk, so a part holds several
// chunks' edges (a chunk codes about 2 bytes an edge unpacked).
constexpr uint64_t kChunksPerPart = 4;
// The vertices the updates added are merged this many at a time.
constexpr uint32_t kNewVertexSlice = 1 << 16;

uint64_t window_bytes_for(uint64_t memory_bytes) {
  return std::clamp<uint64_t>(memory_bytes / 24, kMinWindowBytes, kMaxWindowBytes);
}

// One space: its windows merged and encoded in parts, in parallel, each
// part's chunks appended in order.
class SpaceMerge {
 public:
  // `degree_sums`, if given, gains each merged list's length (a block's
  // share of its vertex's degree) instead of the output's degree file.
  SpaceMerge(const Graph& graph, size_t stored_space, const DeltaOverlay& overlay, const IngestOptions& layout,
             std::vector<uint32_t>* degree_sums = nullptr)
      : graph_(graph), stored_(stored_space), overlay_(overlay), degree_sums_(degree_sums) {
    const Manifest& m = graph.manifest();
    const size_t parts = encoder_parts(1, m.chunk_bytes, layout.memory_bytes);
    for (size_t k = 0; k < parts; ++k) {
      encoders_.emplace_back(m.chunk_bytes, m.weighted, &m.interval_starts, ListCodec::kV3, true, layout.gap_choice);
    }
    part_loops_.resize(parts);
    part_weighted_.resize(parts);
    part_edges_ = std::max<uint64_t>(1 << 16, kChunksPerPart * m.chunk_bytes / 2);
  }

  // Streams the space through `io` into `out`, then the lists of the
  // vertices the updates added; *stored_loops counts its self-loop arcs.
  Status run(IoContext* io, SpaceOutput* out, IngestProgress* progress, uint64_t* stored_loops) {
    SG_RETURN_IF_ERROR(merge_stored(io, out, progress));
    if (next_vertex_ < graph_.num_vertices()) {  // no chunk (a graph without edges)
      encoders_[0].begin(next_vertex_);
      encoders_[0].finish(graph_.num_vertices());
      SG_RETURN_IF_ERROR(out->append(encoders_[0]));
      next_vertex_ = graph_.num_vertices();
    }
    const uint32_t vertices = static_cast<uint32_t>(graph_.manifest().vertices_after_deltas());
    for (uint32_t first = next_vertex_; first < vertices; first = next_vertex_) {
      const uint32_t end = static_cast<uint32_t>(std::min<uint64_t>(vertices, uint64_t{first} + kNewVertexSlice));
      SG_RETURN_IF_ERROR(new_vertex_window(first, end));
      SG_RETURN_IF_ERROR(encode_window(out));
    }
    for (uint64_t loops : part_loops_) *stored_loops += loops;
    return Status::OK();
  }

 private:
  Status merge_stored(IoContext* io, SpaceOutput* out, IngestProgress* progress) {
    const EdgeSpace& space = graph_.stored_space(stored_);
    const uint32_t chunks = static_cast<uint32_t>(space.index.size());
    ChunkStream stream(io, stored_, {ChunkSpan{0, chunks}});
    for (size_t w = 0; w <= stream.window_count(); ++w) {
      ChunkWindow window;
      bool has = false;
      SG_RETURN_IF_ERROR(stream.next(&window, &has));
      if (!has) break;
      if (interrupt_requested()) return Status::Interrupted("compaction stopped by a signal");
      SG_RETURN_IF_ERROR(build_window_graph(graph_, space, window, &base_));
      SG_RETURN_IF_ERROR(merge_window_updates(graph_, space, overlay_, base_, nullptr, &merged_));
      SG_RETURN_IF_ERROR(encode_window(out));
      progress->advance(merged_.edges(), window.end_chunk);
    }
    return Status::OK();
  }

  // Vertices [first, end), which the updates added, as a merged window:
  // no stored list, their adds alone.
  Status new_vertex_window(uint32_t first, uint32_t end) {
    WindowGraph& w = merged_;
    records_.clear();
    SG_RETURN_IF_ERROR(overlay_.decode_keys(first, end, &records_));
    w.first_vertex = first;
    w.vertex_count = end - first;
    w.offsets.resize(size_t{w.vertex_count} + 1);
    w.neighbours.resize(records_.size());
    w.weights.resize(overlay_.weighted ? records_.size() : 0);
    const EdgeSpace& space = graph_.stored_space(stored_);  // its block's neighbours only
    const uint32_t lo = space.neighbour_begin, hi = update_neighbour_end(graph_, space);
    const DeltaArc* r = records_.data();
    const DeltaArc* records_end = r + records_.size();
    uint32_t length = 0;
    for (uint32_t i = 0; i < w.vertex_count; ++i) {
      const DeltaArc* key_begin = r;
      while (r != records_end && r->key == first + i) ++r;
      w.offsets[i] = length;
      length += merge_list(overlay_, KeyRecords{key_begin, r}, lo, hi, nullptr, nullptr, 0,
                           w.neighbours.data() + length, overlay_.weighted ? w.weights.data() + length : nullptr);
    }
    w.offsets[w.vertex_count] = length;
    w.neighbours.resize(length);
    w.weights.resize(overlay_.weighted ? length : 0);
    return Status::OK();
  }

  // The merged window in parts of about equal edges, cut between vertices;
  // a first list that goes on from the previous window stays in part 0.
  Status encode_window(SpaceOutput* out) {
    const WindowGraph& w = merged_;
    const bool continues = w.first_vertex < next_vertex_;
    assert(!continues || w.first_vertex + 1 == next_vertex_);
    const uint64_t edges = w.edges();
    const size_t parts = static_cast<size_t>(std::clamp<uint64_t>(edges / part_edges_, 1, encoders_.size()));
    std::vector<uint32_t> split(parts + 1, w.vertex_count);
    split[0] = 0;
    for (size_t k = 1; k < parts; ++k) {
      const uint64_t target = edges * k / parts;
      const auto at = std::lower_bound(w.offsets.begin() + split[k - 1], w.offsets.begin() + w.vertex_count, target);
      split[k] = std::max<uint32_t>(static_cast<uint32_t>(at - w.offsets.begin()), continues ? 1 : 0);
      split[k] = std::max(split[k], split[k - 1]);
    }
    parallel_for(size_t{0}, parts, size_t{1}, [&](size_t k0, size_t k1) {
      for (size_t k = k0; k < k1; ++k) encode_part(k, split[k], split[k + 1], continues && k == 0);
    });
    for (size_t k = 0; k < parts; ++k) SG_RETURN_IF_ERROR(out->append(encoders_[k]));
    if (degree_sums_ != nullptr) {
      for (uint32_t i = 0; i < w.vertex_count; ++i)
        (*degree_sums_)[w.first_vertex + i] += w.offsets[i + 1] - w.offsets[i];
    }
    next_vertex_ = w.first_vertex + w.vertex_count;
    return Status::OK();
  }

  // Window vertices [begin, end) into encoder k; `continued`: the first
  // one's earlier pieces ended the previous window.
  void encode_part(size_t k, uint32_t begin, uint32_t end, bool continued) {
    const WindowGraph& w = merged_;
    ChunkEncoder& encoder = encoders_[k];
    encoder.begin(w.first_vertex + begin + (continued ? 1 : 0));
    for (uint32_t i = begin; i < end; ++i) {
      const uint32_t v = w.first_vertex + i;
      const uint32_t from = w.offsets[i], count = w.offsets[i + 1] - from;
      const uint32_t* list = w.neighbours.data() + from;
      const auto loops = std::equal_range(list, list + count, v);
      part_loops_[k] += static_cast<uint64_t>(loops.second - loops.first);
      if (w.weights.empty()) {
        encoder.add_list(v, list, count);
        continue;
      }
      std::vector<WeightedNeighbour>& pairs = part_weighted_[k];
      pairs.resize(count);
      for (uint32_t j = 0; j < count; ++j) pairs[j] = WeightedNeighbour{list[j], w.weights[from + j]};
      encoder.add_list(v, pairs.data(), count);
    }
    encoder.finish(w.first_vertex + end);
  }

  const Graph& graph_;
  const size_t stored_;
  const DeltaOverlay& overlay_;
  std::vector<uint32_t>* degree_sums_;
  std::vector<ChunkEncoder> encoders_;
  std::vector<uint64_t> part_loops_;
  std::vector<std::vector<WeightedNeighbour>> part_weighted_;
  uint64_t part_edges_ = 0;
  WindowGraph base_, merged_;
  std::vector<DeltaArc> records_;  // of the added vertices' slice
  uint32_t next_vertex_ = 0;       // the vertices encoded so far end here
};

// The kind's updates merged into one overlay (graph_overlay.h).
Status build_kind_overlay(const Graph& graph, SpaceKind kind, DeltaOverlay* overlay) {
  GraphDeltas deltas;
  SG_RETURN_IF_ERROR(deltas.open(graph, true, &kind));
  const Manifest& m = graph.manifest();
  return build_delta_overlay(deltas.runs(kind), m.weighted, m.ingest.duplicates_dropped,
                             static_cast<uint32_t>(m.vertices_after_deltas()), overlay);
}

// The graph's id map followed by the ids of the vertices its updates added,
// streamed to `to`, synced, and its checksum.
Status write_extended_id_map(const Graph& graph, const std::string& to, uint64_t* checksum) {
  GraphDeltas deltas;
  SG_RETURN_IF_ERROR(deltas.open(graph, false));
  const std::vector<uint64_t>& added = deltas.new_ids();
  if (graph.num_vertices() + added.size() != graph.manifest().vertices_after_deltas()) {
    return Status::Corruption(graph.dir() + ": the updates' ids do not cover the vertices they add");
  }
  File in, out;
  SG_RETURN_IF_ERROR(File::open_read(graph.path_of(graph.manifest().id_map_file), &in));
  SG_RETURN_IF_ERROR(File::create(to, &out));
  Checksum64Stream sum;
  std::vector<uint8_t> piece(1 << 20);
  const uint64_t stored_bytes = uint64_t{graph.num_vertices()} * sizeof(uint64_t);
  for (uint64_t at = 0; at < stored_bytes; at += piece.size()) {  // bounded by the map's size
    const size_t bytes = static_cast<size_t>(std::min<uint64_t>(piece.size(), stored_bytes - at));
    SG_RETURN_IF_ERROR(in.pread_all(piece.data(), bytes, at));
    SG_RETURN_IF_ERROR(out.pwrite_all(piece.data(), bytes, at));
    sum.update(piece.data(), bytes);
  }
  SG_RETURN_IF_ERROR(out.pwrite_all(added.data(), added.size() * sizeof(uint64_t), stored_bytes));
  sum.update(added.data(), added.size() * sizeof(uint64_t));
  *checksum = sum.digest();
  SG_RETURN_IF_ERROR(out.sync());
  return out.close();
}

// The id map, when no vertex was added: a second link to the same file
// (files are never changed in place), or a copy across file systems; else
// extended by the added ids.
Status write_id_map(const Graph& graph, const std::string& to, uint64_t* checksum) {
  const Manifest& m = graph.manifest();
  if (m.vertices_after_deltas() != m.num_vertices) return write_extended_id_map(graph, to, checksum);
  *checksum = m.id_map_checksum;
  const std::string from = graph.path_of(m.id_map_file);
  if (::link(from.c_str(), to.c_str()) == 0) return Status::OK();
  if (errno != EXDEV && errno != EPERM && errno != EMLINK) {
    return Status::IOError(to + ": cannot link the id map (" + errno_text(errno) + ")");
  }
  return copy_file_synced(from, to);
}

// The whole degrees of a kind stored in blocks: the sum of each block's
// degree file (`parts`, removed after), streamed into `path`; its checksum.
Status sum_degree_parts(const std::vector<std::string>& parts, const std::string& path, uint32_t vertices,
                        uint64_t* checksum) {
  std::vector<File> in(parts.size());
  for (size_t b = 0; b < parts.size(); ++b) SG_RETURN_IF_ERROR(File::open_read(parts[b], &in[b]));
  File out;
  SG_RETURN_IF_ERROR(File::create(path, &out));
  Checksum64Stream sum;
  constexpr uint32_t kPieceVertices = 1 << 18;
  std::vector<uint32_t> total(kPieceVertices), piece(kPieceVertices);
  for (uint32_t first = 0; first < vertices; first += std::min(kPieceVertices, vertices - first)) {
    const uint32_t count = std::min(kPieceVertices, vertices - first);
    const uint64_t at = uint64_t{first} * sizeof(uint32_t);
    std::fill(total.begin(), total.begin() + count, 0u);
    for (const File& file : in) {
      SG_RETURN_IF_ERROR(file.pread_all(piece.data(), count * sizeof(uint32_t), at));
      for (uint32_t i = 0; i < count; ++i) total[i] += piece[i];
    }
    SG_RETURN_IF_ERROR(out.pwrite_all(total.data(), count * sizeof(uint32_t), at));
    sum.update(total.data(), count * sizeof(uint32_t));
  }
  *checksum = sum.digest();
  SG_RETURN_IF_ERROR(out.sync());
  for (const std::string& part : parts) std::remove(part.c_str());
  return out.close();
}

// One kind: its overlay, then each block's windows, into the new base's
// files. Each block writes its own degrees; blocks' are summed after.
Status merge_kind(const Graph& graph, SpaceKind kind, const IngestOptions& layout, GraphFiles* files, IoContext* io,
                  IngestProgress* progress, std::vector<SpaceManifest>* metas, uint64_t* stored_loops) {
  const size_t kind_index = kind == SpaceKind::kOut ? 0 : 1;
  const std::string name = kind_index == 0 ? "out" : "in";
  progress->begin_phase("read " + name + "-updates", 0);
  const std::vector<size_t>& blocks = graph.blocks(kind);
  std::vector<uint32_t> block_starts;
  for (size_t stored : blocks) block_starts.push_back(graph.stored_space(stored).neighbour_begin);
  const Manifest& m = graph.manifest();
  const uint32_t vertices = static_cast<uint32_t>(m.vertices_after_deltas());
  // One overlay a block: each block's windows decode only its records.
  std::vector<std::unique_ptr<DeltaOverlay>> overlays(1);
  overlays[0] = std::make_unique<DeltaOverlay>();
  SG_RETURN_IF_ERROR(build_kind_overlay(graph, kind, overlays[0].get()));
  if (blocks.size() > 1) {
    std::vector<std::unique_ptr<DeltaOverlay>> parts;
    SG_RETURN_IF_ERROR(split_overlay(*overlays[0], block_starts, vertices, &parts));
    overlays = std::move(parts);
  }
  metas->assign(blocks.size(), SpaceManifest{});
  // A blocked kind's degrees are the sums of its blocks' list lengths:
  // summed in memory when they fit a small share of the budget, else
  // each block writes a part that is summed after.
  std::vector<uint32_t> degree_sums;
  const bool sum_in_memory = blocks.size() > 1 && uint64_t{vertices} * sizeof(uint32_t) <= layout.memory_bytes / 8;
  if (sum_in_memory) degree_sums.assign(vertices, 0);
  std::vector<std::string> degree_parts;
  for (size_t b = 0; b < blocks.size(); ++b) {
    progress->begin_phase("merge " + name + "-space" + (blocks.size() > 1 ? " block " + std::to_string(b) : ""),
                          graph.stored_space(blocks[b]).index.size());
    SpaceManifest* meta = &(*metas)[b];
    std::vector<std::string> paths;
    files->name_space_files(kind_index, b, block_starts, vertices, meta, &paths);
    const std::string temp = files->temp_dir() + "/";
    degree_parts.push_back(blocks.size() == 1 ? temp + meta->degree_file : temp + meta->name + ".degrees.part");
    SpaceOutput out;
    SG_RETURN_IF_ERROR(out.open(paths, StripeLayout(m.stripe_bytes, static_cast<uint32_t>(paths.size())),
                                sum_in_memory ? std::string() : degree_parts.back(), layout.direct_io));
    SpaceMerge merge(graph, blocks[b], *overlays[b], layout, sum_in_memory ? &degree_sums : nullptr);
    SG_RETURN_IF_ERROR(merge.run(io, &out, progress, stored_loops));
    overlays[b].reset();  // merged: its memory goes
    SG_RETURN_IF_ERROR(out.finish_into(vertices, ListCodec::kV3, temp + meta->index_file, meta));
  }
  if (blocks.size() == 1) return Status::OK();
  SpaceManifest& first = (*metas)[0];
  if (sum_in_memory) {
    const size_t bytes = degree_sums.size() * sizeof(uint32_t);
    first.degree_checksum = checksum64(degree_sums.data(), bytes);
    return write_whole_file(files->temp_dir() + "/" + first.degree_file, degree_sums.data(), bytes);
  }
  return sum_degree_parts(degree_parts, files->temp_dir() + "/" + first.degree_file, vertices, &first.degree_checksum);
}

// The new base's manifest: the graph's, with the spaces written and no updates.
Manifest merged_manifest(const Graph& graph, const GraphFiles& files, std::vector<SpaceManifest> spaces,
                         uint64_t stored_loops, uint64_t memory_bytes) {
  Manifest m = graph.manifest();
  m.format_version = kFormatVersion;
  m.codec = kCodecName;
  m.graph_id = files.graph_id();
  m.devices = files.device_dirs();
  m.spaces = std::move(spaces);
  m.generation = 0;
  m.num_vertices = m.vertices_after_deltas();
  m.deltas.clear();
  m.ingest.memory_bytes = memory_bytes;
  m.num_edges = m.edges_from_spaces(stored_loops);
  return m;
}

}  // namespace

std::string direct_merge_obstacle(const Graph& graph) {
  const Manifest& m = graph.manifest();
  if (m.out_only()) return "it stores only an out-space";
  if (m.list_codec() != ListCodec::kV3) return "its chunks use an older codec";
  return "";
}

Status merge_updates_into_chunks(const Graph& graph, const IngestOptions& layout, uint64_t window_bytes,
                                 IngestSummary* summary) {
  const auto start = std::chrono::steady_clock::now();
  assert(direct_merge_obstacle(graph).empty());
  IngestProgress progress;
  progress.set_sink(layout.progress);
  GraphFiles files;
  SG_RETURN_IF_ERROR(files.prepare(layout.output, layout.devices));
  IoContext io;
  IoOptions io_options;
  const uint64_t windows = 2 * graph.device_count() + 2;  // as a run's (IoContext::open)
  io_options.buffer_bytes = windows * (window_bytes != 0 ? window_bytes : window_bytes_for(layout.memory_bytes));
  SG_RETURN_IF_ERROR(io.open(graph, io_options));
  const size_t kinds = graph.manifest().directed ? 2 : 1;
  std::vector<SpaceManifest> spaces;
  uint64_t stored_loops = 0;
  for (size_t k = 0; k < kinds; ++k) {
    uint64_t loops = 0;
    std::vector<SpaceManifest> blocks;
    const SpaceKind kind = k == 0 ? SpaceKind::kOut : SpaceKind::kIn;
    SG_RETURN_IF_ERROR(merge_kind(graph, kind, layout, &files, &io, &progress, &blocks, &loops));
    if (k == 0) stored_loops = loops;
    spaces.insert(spaces.end(), blocks.begin(), blocks.end());
  }
  progress.begin_phase("commit", 0);
  Manifest m = merged_manifest(graph, files, std::move(spaces), stored_loops, layout.memory_bytes);
  if (!m.id_map_file.empty()) {
    SG_RETURN_IF_ERROR(write_id_map(graph, files.temp_dir() + "/" + m.id_map_file, &m.id_map_checksum));
  }
  SG_RETURN_IF_ERROR(files.commit(m, layout.graph_files, layout.output));
  progress.end();
  *summary = IngestSummary{};
  summary->num_vertices = m.num_vertices;
  summary->num_edges = m.num_edges;
  summary->stored_self_loops = stored_loops;
  summary->input_edges = m.ingest.input_edges;
  summary->intervals = static_cast<uint32_t>(m.interval_starts.size());
  for (const SpaceManifest& s : m.spaces) {
    summary->stored_bytes += s.logical_bytes;
    summary->out_space_bytes += s.kind == "out" ? s.logical_bytes : 0;
  }
  summary->phases = progress.summary();
  summary->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return Status::OK();
}

}  // namespace sg
