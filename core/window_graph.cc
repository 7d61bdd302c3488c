#include "core/window_graph.h"

#include <chrono>
#include <cstring>
#include <mutex>
#include <numeric>

#include "base/parallel.h"
#include "compression/checksum.h"
#include "compression/chunk_lists.h"
#include "compression/varint.h"

namespace sg {
namespace {

// Sizes a window's arrays for a new window. An array that must grow is
// freed first, not copied (its contents are rebuilt anyway): a vector's
// reallocation would hold its old and new storage at once, past the decode
// room. The engine reserves the largest shape up front, so a run never
// grows them.
template <typename T>
void size_array(DecodedVector<T>* array, size_t size) {
  if (size > array->capacity()) {
    DecodedVector<T>().swap(*array);
    array->reserve(size);
  }
  array->resize(size);
}

void size_window(WindowGraph* out, size_t offsets, size_t edges, bool weighted) {
  size_array(&out->offsets, offsets);
  size_array(&out->neighbours, edges);
  size_array(&out->weights, weighted ? edges : 0);
}

uint64_t elapsed_ns(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}

// Decodes a chunk's lists one vertex at a time, skipping the lists of
// vertices outside `only`.
Status decode_lists(ChunkListReader* lists, const ChunkIndexEntry& e, uint32_t edge_base, WindowGraph* out,
                    const VertexSubset* only) {
  uint32_t position = edge_base;
  const uint32_t edge_end = edge_base + e.edge_count;
  for (uint32_t i = 0; i < e.vertex_count; ++i) {
    const uint32_t v = e.first_vertex + i;
    if (i > 0) out->offsets[v - out->first_vertex] = position;  // i == 0: filled before the parallel pass
    uint32_t count = 0;
    SG_RETURN_IF_ERROR(lists->next(edge_end - position, &count));
    if (only != nullptr && !only->contains(v)) {
      SG_RETURN_IF_ERROR(lists->skip(count));
    } else {
      SG_RETURN_IF_ERROR(lists->decode(count, out->neighbours.data() + position));
    }
    position += count;
  }
  SG_RETURN_IF_ERROR(lists->finish());
  if (position != edge_end) return Status::Corruption("edge count differs from index");
  return Status::OK();
}

// Decodes one chunk into the window CSR. The offset of a chunk's first
// vertex is written before chunks are decoded in parallel, so a chunk can
// read the end of its last vertex (the next chunk's start) without waiting
// for that chunk.
Status decode_chunk_into(const Graph& graph, const ChunkIndexEntry& e, const uint8_t* payload, uint32_t edge_base,
                         WindowGraph* out, const VertexSubset* only) {
  if (checksum64(payload, e.bytes) != e.checksum) return Status::Corruption("checksum mismatch");
  const uint64_t weight_bytes = graph.weighted() ? uint64_t{4} * e.edge_count : 0;
  if (weight_bytes > e.bytes) return Status::Corruption("weight stream longer than chunk");
  ChunkListReader lists;
  SG_RETURN_IF_ERROR(lists.open(graph.manifest().list_codec(), payload + weight_bytes, payload + e.bytes,
                                e.first_vertex, e.vertex_count, graph.num_vertices()));
  if (lists.layout().gaps != GapCoding::kVarint) {  // every list at once: cheaper than skipping some
    SG_RETURN_IF_ERROR(lists.decode_all(e.edge_count, out->neighbours.data() + edge_base,
                                        out->offsets.data() + (e.first_vertex - out->first_vertex), edge_base));
  } else {
    SG_RETURN_IF_ERROR(decode_lists(&lists, e, edge_base, out, only));
  }
  if (weight_bytes > 0) std::memcpy(out->weights.data() + edge_base, payload, weight_bytes);
  return Status::OK();
}

// A list split over consecutive chunks of the window belongs to no single
// chunk: its pieces form one run, handed over after all chunks are decoded.
bool continues_list(const std::vector<ChunkIndexEntry>& index, uint32_t first, uint32_t c) {
  return c > first && index[c].first_vertex + 1 == index[c - 1].end_vertex();
}

// Calls back for the vertices chunk `c` owns alone.
void visit_chunk(const std::vector<ChunkIndexEntry>& index, const WindowGraph& w, uint32_t c, VertexRangeFn on_vertices,
                 void* context) {
  uint32_t begin = index[c].first_vertex - w.first_vertex;
  uint32_t stop = index[c].end_vertex() - w.first_vertex;
  if (continues_list(index, w.first_chunk, c)) ++begin;
  if (c + 1 < w.end_chunk && continues_list(index, w.first_chunk, c + 1)) --stop;
  if (begin < stop) on_vertices(context, w, begin, stop);
}

// Calls back once for each list split over chunks that has a piece in one
// of `chunks` (sorted), with its whole run.
void visit_split_lists(const std::vector<ChunkIndexEntry>& index, const WindowGraph& w,
                       std::span<const uint32_t> chunks, VertexRangeFn on_vertices, void* context, WindowTimes* times) {
  const auto t0 = std::chrono::steady_clock::now();
  uint32_t last_called = UINT32_MAX;
  auto call = [&](uint32_t vertex) {
    if (vertex == last_called) return;
    last_called = vertex;
    const uint32_t local = vertex - w.first_vertex;
    on_vertices(context, w, local, local + 1);
  };
  for (uint32_t c : chunks) {
    if (continues_list(index, w.first_chunk, c)) call(index[c].first_vertex);
    if (c + 1 < w.end_chunk && continues_list(index, w.first_chunk, c + 1)) call(index[c + 1].first_vertex);
  }
  if (times != nullptr) times->compute_ns += elapsed_ns(t0, std::chrono::steady_clock::now());
}

std::vector<uint32_t> all_chunks(const WindowGraph& w) {
  std::vector<uint32_t> chunks(w.end_chunk - w.first_chunk);
  std::iota(chunks.begin(), chunks.end(), w.first_chunk);
  return chunks;
}

}  // namespace

Status build_window_graph(const Graph& graph, const EdgeSpace& space, const ChunkWindow& window, WindowGraph* out,
                          VertexRangeFn on_vertices, void* context, WindowTimes* times, const VertexSubset* only) {
  const auto& index = space.index;
  const uint32_t first = window.first_chunk, end = window.end_chunk;
  out->first_chunk = first;
  out->end_chunk = end;
  out->first_vertex = index[first].first_vertex;
  out->vertex_count = index[end - 1].end_vertex() - out->first_vertex;
  std::vector<uint32_t> edge_base(end - first + 1, 0);
  for (uint32_t c = first; c < end; ++c) edge_base[c - first + 1] = edge_base[c - first] + index[c].edge_count;
  size_window(out, size_t{out->vertex_count} + 1, edge_base.back(), graph.weighted());
  out->offsets[out->vertex_count] = edge_base.back();

  std::mutex error_mutex;
  Status error;
  uint32_t error_chunk = 0;
  for (uint32_t c = first; c < end; ++c) {
    if (!continues_list(index, first, c))
      out->offsets[index[c].first_vertex - out->first_vertex] = edge_base[c - first];
  }
  parallel_for(first, end, uint32_t{1}, [&](uint32_t chunk_begin, uint32_t chunk_end) {
    for (uint32_t c = chunk_begin; c < chunk_end; ++c) {
      const auto t0 = std::chrono::steady_clock::now();
      Status s = decode_chunk_into(graph, index[c], window.payload(c, index[c]), edge_base[c - first], out, only);
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (error.ok() || c < error_chunk) {
          error = s;
          error_chunk = c;
        }
        continue;
      }
      const auto t1 = std::chrono::steady_clock::now();
      if (times != nullptr) times->decode_ns += elapsed_ns(t0, t1);
      if (on_vertices == nullptr) continue;
      visit_chunk(index, *out, c, on_vertices, context);
      if (times != nullptr) times->compute_ns += elapsed_ns(t1, std::chrono::steady_clock::now());
    }
  });
  if (!error.ok()) return Status::Corruption(graph.describe_chunk(space, error_chunk) + ": " + error.message());
  if (on_vertices != nullptr) visit_split_lists(index, *out, all_chunks(*out), on_vertices, context, times);
  return Status::OK();
}

namespace {

// The first neighbour of the list continued at chunk c (a piece after the
// first), or of the next non-empty piece; UINT32_MAX if no later piece
// has one. Read from the devices: only lists split over windows ask.
Status first_piece_neighbour(const Graph& graph, const EdgeSpace& space, uint32_t c, uint32_t* neighbour) {
  const auto& index = space.index;
  const uint32_t vertex = index[c].first_vertex;
  *neighbour = UINT32_MAX;
  std::vector<uint8_t> payload;
  std::vector<uint32_t> scratch;
  for (; c < index.size() && index[c].first_vertex == vertex && *neighbour == UINT32_MAX; ++c) {
    payload.resize(index[c].bytes);
    SG_RETURN_IF_ERROR(graph.read_chunk_of(space, c, payload.data()));
    bool first = true;
    SG_RETURN_IF_ERROR(for_each_list(graph.manifest().list_codec(), payload.data(), index[c], graph.num_vertices(),
                                     graph.weighted(), &scratch,
                                     [&](uint32_t, const uint32_t* list, uint32_t count, const float*) {
                                       if (first && count > 0) *neighbour = list[0];
                                       first = false;
                                     }));
  }
  return Status::OK();
}

// The neighbour range a window's lists take adds from: the space's block,
// narrowed for the window's first vertex when its list began before the
// window, and for its last when it goes on after it.
struct WindowAddRange {
  uint32_t lo = 0, hi = UINT32_MAX;             // every list's
  uint32_t first_lo = 0, last_hi = UINT32_MAX;  // the first and last vertex's
};

Status window_add_range(const Graph& graph, const EdgeSpace& space, const WindowGraph& base, WindowAddRange* range) {
  const auto& index = space.index;
  range->lo = space.neighbour_begin;
  range->hi = space.neighbour_end == 0 ? UINT32_MAX : space.neighbour_end;
  range->first_lo = range->lo;
  range->last_hi = range->hi;
  const uint32_t first = base.first_chunk, end = base.end_chunk;
  if (first > 0 && index[first].first_vertex + 1 == index[first - 1].end_vertex()) {
    if (base.offsets[1] > base.offsets[0]) {
      range->first_lo = base.neighbours[base.offsets[0]];
    } else {
      SG_RETURN_IF_ERROR(first_piece_neighbour(graph, space, first, &range->first_lo));
    }
  }
  if (end < index.size() && index[end].first_vertex + 1 == index[end - 1].end_vertex()) {
    SG_RETURN_IF_ERROR(first_piece_neighbour(graph, space, end, &range->last_hi));
  }
  return Status::OK();
}

// A window's update records, grouped by key, with each key's share of adds
// (those in its neighbour range).
struct WindowRecords {
  std::vector<DeltaArc> records;
  std::vector<uint32_t> keys;
  std::vector<uint32_t> begin;  // keys.size() + 1 entries, into records
  std::vector<uint32_t> lo, hi, adds;

  size_t key_at_or_after(uint32_t v) const {
    return static_cast<size_t>(std::lower_bound(keys.begin(), keys.end(), v) - keys.begin());
  }
  KeyRecords of(size_t k) const { return {records.data() + begin[k], records.data() + begin[k + 1]}; }
};

Status window_records(const DeltaOverlay& overlay, const WindowGraph& base, const WindowAddRange& range,
                      WindowRecords* w) {
  const uint32_t last = base.first_vertex + base.vertex_count - 1;
  SG_RETURN_IF_ERROR(overlay.decode_keys(base.first_vertex, last + 1, &w->records));
  for (uint32_t i = 0; i < w->records.size(); ++i) {
    const uint32_t key = w->records[i].key;
    if (!w->keys.empty() && w->keys.back() == key) continue;
    w->keys.push_back(key);
    w->begin.push_back(i);
    w->lo.push_back(key == base.first_vertex ? range.first_lo : range.lo);
    w->hi.push_back(key == last ? range.last_hi : range.hi);
  }
  w->begin.push_back(static_cast<uint32_t>(w->records.size()));
  for (size_t k = 0; k < w->keys.size(); ++k) w->adds.push_back(w->of(k).adds_in(w->lo[k], w->hi[k]));
  return Status::OK();
}

// Copies or merges the lists of window vertices [begin, end) into place;
// *shrunk when a list came out shorter than its slot.
void merge_vertex_range(const DeltaOverlay& o, const WindowGraph& base, const VertexSubset* only,
                        const WindowRecords& w, uint32_t begin, uint32_t end, WindowGraph* merged,
                        std::vector<uint32_t>* lengths, std::atomic<bool>* shrunk) {
  const bool weighted = o.weighted;  // (a window of empty lists has no weights to tell)
  size_t k = w.key_at_or_after(base.first_vertex + begin);
  for (uint32_t i = begin; i < end; ++i) {
    const uint32_t v = base.first_vertex + i;
    if (only != nullptr && !only->contains(v)) continue;
    const uint32_t from = base.offsets[i], count = base.offsets[i + 1] - from, to = merged->offsets[i];
    while (k < w.keys.size() && w.keys[k] < v) ++k;
    if (k < w.keys.size() && w.keys[k] == v) {
      const uint32_t length = merge_list(
          o, w.of(k), w.lo[k], w.hi[k], base.neighbours.data() + from, weighted ? base.weights.data() + from : nullptr,
          count, merged->neighbours.data() + to, weighted ? merged->weights.data() + to : nullptr);
      (*lengths)[k] = length;
      if (length < merged->offsets[i + 1] - to) *shrunk = true;
      continue;
    }
    std::memcpy(merged->neighbours.data() + to, base.neighbours.data() + from, sizeof(uint32_t) * count);
    if (weighted) std::memcpy(merged->weights.data() + to, base.weights.data() + from, sizeof(float) * count);
  }
}

// Closes the gaps lists shorter than their slots left (one pass, in order).
void close_gaps(bool weighted, const WindowRecords& w, const std::vector<uint32_t>& lengths, WindowGraph* merged) {
  uint32_t position = 0;
  size_t k = 0;
  for (uint32_t i = 0; i < merged->vertex_count; ++i) {
    const uint32_t v = merged->first_vertex + i, from = merged->offsets[i];
    uint32_t count = merged->offsets[i + 1] - from;
    while (k < w.keys.size() && w.keys[k] < v) ++k;
    if (k < w.keys.size() && w.keys[k] == v) count = lengths[k];
    std::memmove(merged->neighbours.data() + position, merged->neighbours.data() + from, sizeof(uint32_t) * count);
    if (weighted) std::memmove(merged->weights.data() + position, merged->weights.data() + from, sizeof(float) * count);
    merged->offsets[i] = position;
    position += count;
  }
  merged->offsets[merged->vertex_count] = position;
  size_array(&merged->neighbours, position);
  size_array(&merged->weights, weighted ? position : 0);
}

// Offsets of the merged window: each list's stored length plus its adds
// (removals and duplicates may leave it shorter: close_gaps).
Status size_merged(const WindowGraph& base, const VertexSubset* only, const WindowRecords& w, bool weighted,
                   WindowGraph* merged) {
  merged->first_chunk = base.first_chunk;
  merged->end_chunk = base.end_chunk;
  merged->first_vertex = base.first_vertex;
  merged->vertex_count = base.vertex_count;
  size_array(&merged->offsets, size_t{base.vertex_count} + 1);
  uint64_t position = 0;
  size_t k = 0;
  for (uint32_t i = 0; i < base.vertex_count; ++i) {
    const uint32_t v = base.first_vertex + i;
    merged->offsets[i] = static_cast<uint32_t>(position);
    if (only != nullptr && !only->contains(v)) continue;
    position += base.offsets[i + 1] - base.offsets[i];
    while (k < w.keys.size() && w.keys[k] < v) ++k;
    if (k < w.keys.size() && w.keys[k] == v) position += w.adds[k];
  }
  if (position > UINT32_MAX) return Status::InvalidArgument("a window with updates holds over 2^32 arcs");
  merged->offsets[base.vertex_count] = static_cast<uint32_t>(position);
  size_array(&merged->neighbours, position);
  size_array(&merged->weights, weighted ? position : 0);
  return Status::OK();
}

}  // namespace

Status merge_window_updates(const Graph& graph, const EdgeSpace& space, const DeltaOverlay& overlay,
                            const WindowGraph& base, const VertexSubset* only, WindowGraph* merged) {
  WindowAddRange range;
  SG_RETURN_IF_ERROR(window_add_range(graph, space, base, &range));
  WindowRecords w;
  SG_RETURN_IF_ERROR(window_records(overlay, base, range, &w));
  SG_RETURN_IF_ERROR(size_merged(base, only, w, overlay.weighted, merged));
  std::vector<uint32_t> lengths(w.keys.size(), 0);
  std::atomic<bool> shrunk{false};
  parallel_for(uint32_t{0}, base.vertex_count, uint32_t{4096}, [&](uint32_t begin, uint32_t end) {
    merge_vertex_range(overlay, base, only, w, begin, end, merged, &lengths, &shrunk);
  });
  if (shrunk) close_gaps(overlay.weighted, w, lengths, merged);
  return Status::OK();
}

uint64_t decoded_window_bytes(const Graph& graph, const EdgeSpace& space, uint32_t first, uint32_t end) {
  const auto& index = space.index;
  uint64_t edges = 0;
  for (uint32_t c = first; c < end; ++c) edges += index[c].edge_count;
  return window_shape_bytes(graph, WindowShape{index[end - 1].end_vertex() - index[first].first_vertex, edges});
}

WindowShape largest_window_shape(const Graph& graph, uint64_t window_bytes, bool with_adds) {
  constexpr uint64_t kAlign = 4096;
  WindowShape largest;
  for (size_t s = 0; s < graph.stored_space_count(); ++s) {
    const auto& index = graph.stored_space(s).index;
    const auto& chunk_adds = graph.stored_space(s).chunk_adds;
    auto extent_of = [&](uint32_t c) { return (index[c].bytes + kAlign - 1) / kAlign * kAlign; };
    auto adds_of = [&](uint32_t c) { return with_adds && !chunk_adds.empty() ? chunk_adds[c] : 0u; };
    // Two pointers: [first, end) is the longest run from `first` whose
    // aligned extents, vertices and edges fit a window (the limits only relax as
    // `first` moves on).
    uint64_t extent = 0, edges = 0, adds = 0;
    uint32_t end = 0;
    for (uint32_t first = 0; first < index.size(); ++first) {
      if (end <= first) {
        end = first;
        extent = 0;
        edges = 0;
        adds = 0;
      }
      while (end < index.size() && (end == first || (extent + extent_of(end) <= window_bytes &&
                                                     window_holds(index[first], index[end], edges, window_bytes)))) {
        extent += extent_of(end);
        edges += index[end].edge_count;
        adds += adds_of(end);
        ++end;
      }
      largest.vertices = std::max<uint64_t>(largest.vertices, index[end - 1].end_vertex() - index[first].first_vertex);
      largest.edges = std::max(largest.edges, edges + adds);
      extent -= extent_of(first);
      edges -= index[first].edge_count;
      adds -= adds_of(first);
    }
  }
  return largest;
}

uint64_t window_shape_bytes(const Graph& graph, WindowShape shape) {
  return sizeof(uint32_t) * (shape.vertices + 1 + shape.edges) + (graph.weighted() ? sizeof(float) * shape.edges : 0);
}

uint64_t largest_decoded_window_bytes(const Graph& graph, uint64_t window_bytes) {
  return window_shape_bytes(graph, largest_window_shape(graph, window_bytes));
}

void reserve_window(WindowGraph* window, WindowShape shape, bool weighted) {
  size_window(window, shape.vertices + 1, shape.edges, weighted);
}

void visit_window_graph(const EdgeSpace& space, const WindowGraph& window, std::span<const uint32_t> chunks,
                        VertexRangeFn on_vertices, void* context, WindowTimes* times) {
  const auto& index = space.index;
  parallel_for(size_t{0}, chunks.size(), size_t{1}, [&](size_t begin, size_t end) {
    const auto t0 = std::chrono::steady_clock::now();
    for (size_t i = begin; i < end; ++i) visit_chunk(index, window, chunks[i], on_vertices, context);
    if (times != nullptr) times->compute_ns += elapsed_ns(t0, std::chrono::steady_clock::now());
  });
  visit_split_lists(index, window, chunks, on_vertices, context, times);
}

}  // namespace sg
