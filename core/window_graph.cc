#include "core/window_graph.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cstring>
#include <functional>
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
  if (e.bytes == 0) {  // a run's vertex tail (Graph::extend_vertices): every list empty
    if (e.edge_count != 0) return Status::Corruption("edge count differs from index");
    uint32_t* starts = out->offsets.data() + (e.first_vertex - out->first_vertex);
    std::fill(starts + 1, starts + e.vertex_count, edge_base);  // the first is set by the caller
    return Status::OK();
  }
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

// The range of a window that ends before chunk `end`, but for first_lo
// when its first list began before it (found once that list is decoded).
Status window_add_range(const Graph& graph, const EdgeSpace& space, uint32_t end, WindowAddRange* range) {
  const auto& index = space.index;
  range->lo = space.neighbour_begin;
  range->hi = update_neighbour_end(graph, space);
  range->first_lo = range->lo;
  range->last_hi = range->hi;
  if (end < index.size() && index[end].first_vertex + 1 == index[end - 1].end_vertex()) {
    SG_RETURN_IF_ERROR(first_piece_neighbour(graph, space, end, &range->last_hi));
  }
  return Status::OK();
}

// Whether the list chunk `first` starts with began in an earlier chunk.
bool continues_from_before(const EdgeSpace& space, uint32_t first) {
  return first > 0 && space.index[first].first_vertex + 1 == space.index[first - 1].end_vertex();
}

// The first neighbour of a window's first list, which began in an earlier
// window (first_lo): from its decoded piece, or, an empty one, the devices.
Status continued_first_neighbour(const Graph& graph, const EdgeSpace& space, const WindowGraph& base,
                                 uint32_t* neighbour) {
  if (base.offsets[1] > base.offsets[0]) {
    *neighbour = base.neighbours[base.offsets[0]];
    return Status::OK();
  }
  return first_piece_neighbour(graph, space, base.first_chunk, neighbour);
}

// The neighbour range [lo, hi) of window vertex `v`'s adds.
void add_bounds(const WindowGraph& base, const WindowAddRange& range, uint32_t v, uint32_t* lo, uint32_t* hi) {
  const uint32_t last = base.first_vertex + base.vertex_count - 1;
  *lo = v == base.first_vertex ? range.first_lo : range.lo;
  *hi = v == last ? range.last_hi : range.hi;
}

// Merges window vertex `i`'s stored list with its records into `out` from
// arc `to`; returns the merged length.
uint32_t merge_vertex_list(const DeltaOverlay& o, const WindowGraph& base, const WindowAddRange& range, uint32_t i,
                           KeyRecords records, WindowGraph* out, uint32_t to) {
  uint32_t lo = 0, hi = 0;
  add_bounds(base, range, base.first_vertex + i, &lo, &hi);
  const uint32_t from = base.offsets[i], count = base.offsets[i + 1] - from;
  return merge_list(o, records, lo, hi, base.neighbours.data() + from,
                    o.weighted ? base.weights.data() + from : nullptr, count, out->neighbours.data() + to,
                    o.weighted ? out->weights.data() + to : nullptr);
}

// Copies the stored lists of window vertices [first, end) into `out` from
// arc `to`, as one range; returns their arcs.
uint32_t copy_stored_lists(const WindowGraph& base, uint32_t first, uint32_t end, bool weighted, WindowGraph* out,
                           uint32_t to) {
  const uint32_t from = base.offsets[first], count = base.offsets[end] - from;
  if (count == 0) return 0;  // a window of empty lists may have no arrays (memcpy takes no null)
  std::memcpy(out->neighbours.data() + to, base.neighbours.data() + from, sizeof(uint32_t) * count);
  if (weighted) std::memcpy(out->weights.data() + to, base.weights.data() + from, sizeof(float) * count);
  return count;
}

// Decodes the overlay records of window vertices [begin, end) (one block
// of vertices, its records apart from any other's): with `only`, those of
// the overlay blocks that hold an active vertex's records.
Status decode_vertex_block(const DeltaOverlay& o, const WindowGraph& base, const VertexSubset* only, uint32_t begin,
                           uint32_t end, std::vector<DeltaArc>* records) {
  records->clear();
  const uint32_t first_key = base.first_vertex + begin, end_key = base.first_vertex + end;
  if (only == nullptr || only->is_all()) return o.decode_keys(first_key, end_key, records);
  if (!only->any_in(first_key, end_key)) return Status::OK();
  return o.decode_keys(first_key, end_key, records, [&](uint32_t lo, uint32_t hi) { return only->any_in(lo, hi); });
}

// Calls fn(key, its records) for each key of `records` (sorted).
template <typename Fn>
void for_each_key(std::span<const DeltaArc> records, Fn&& fn) {
  const DeltaArc* r = records.data();
  const DeltaArc* records_end = r + records.size();
  while (r != records_end) {
    const DeltaArc* key_end = r;
    while (key_end != records_end && key_end->key == r->key) ++key_end;
    fn(r->key, KeyRecords{r, key_end});
    r = key_end;
  }
}

// Merges the lists of window vertices [begin, end) with their records
// into `merged`, whose vertex 0 is window vertex `out_first` (the whole
// window's merged copy, or a block's). With `counting`, writes each merged
// length into merged->offsets instead.
class VertexRangeMerge {
 public:
  using Records = std::span<const DeltaArc>;
  VertexRangeMerge(const DeltaOverlay& o, const WindowGraph& base, const VertexSubset* only,
                   const WindowAddRange& range, WindowGraph* merged, uint32_t out_first = 0)
      : o_(o), base_(base), only_(only), range_(range), merged_(merged), out_first_(out_first) {}

  void run(uint32_t begin, uint32_t end, Records records, bool counting) {
    const bool every_list = only_ == nullptr || only_->is_all();
    if (counting) {
      if (every_list && o_.adds_alone()) return count_adds(begin, end, records);
      return count_each(begin, end, records);
    }
    return every_list ? merge_keys(begin, end, records) : merge_active(begin, end, records);
  }

 private:
  void bounds(uint32_t v, uint32_t* lo, uint32_t* hi) const { add_bounds(base_, range_, v, lo, hi); }
  uint32_t& out(uint32_t i) { return merged_->offsets[i - out_first_]; }

  // Every list, adds alone: the stored lengths, then one more for each add
  // in its list's range.
  void count_adds(uint32_t begin, uint32_t end, Records records) {
    for (uint32_t i = begin; i < end; ++i) out(i) = base_.offsets[i + 1] - base_.offsets[i];
    for (const DeltaArc& a : records) {
      uint32_t lo = 0, hi = 0;
      bounds(a.key, &lo, &hi);
      out(a.key - base_.first_vertex) += a.neighbour >= lo && a.neighbour < hi;
    }
  }

  // The merged length of each list (0 outside `only`): the stored one,
  // then that of each key with records, over the members alone.
  void count_each(uint32_t begin, uint32_t end, Records records) {
    const uint32_t first_key = base_.first_vertex + begin, end_key = base_.first_vertex + end;
    if (only_ == nullptr || only_->is_all()) {
      for (uint32_t i = begin; i < end; ++i) out(i) = base_.offsets[i + 1] - base_.offsets[i];
    } else {
      std::fill(&out(begin), &out(begin) + (end - begin), 0u);
      only_->for_each_in(first_key, end_key, [&](uint32_t v) {
        const uint32_t i = v - base_.first_vertex;
        out(i) = base_.offsets[i + 1] - base_.offsets[i];
      });
    }
    for_each_key(records, [&](uint32_t v, KeyRecords key_records) {
      if (only_ != nullptr && !only_->contains(v)) return;  // its records may be partial (a sparse decode)
      const uint32_t i = v - base_.first_vertex;
      out(i) = merged_length(v, key_records, base_.offsets[i], out(i));
    });
  }

  // The members' lists alone, one by one (a sparse step).
  void merge_active(uint32_t begin, uint32_t end, Records records) {
    const DeltaArc* r = records.data();
    const DeltaArc* records_end = r + records.size();
    only_->for_each_in(base_.first_vertex + begin, base_.first_vertex + end, [&](uint32_t v) {
      while (r != records_end && r->key < v) ++r;
      const DeltaArc* first = r;
      while (r != records_end && r->key == v) ++r;
      const uint32_t i = v - base_.first_vertex;
      if (first == r) {
        copy_lists(i, i + 1);
      } else {
        merge_vertex_list(o_, base_, range_, i, KeyRecords{first, r}, merged_, out(i));
      }
    });
  }

  // Every list: those without records copied a stretch at a time between
  // the keys that have some, which are merged.
  void merge_keys(uint32_t begin, uint32_t end, Records records) {
    uint32_t unchanged = begin;
    for_each_key(records, [&](uint32_t v, KeyRecords key_records) {
      const uint32_t i = v - base_.first_vertex;
      copy_lists(unchanged, i);
      merge_vertex_list(o_, base_, range_, i, key_records, merged_, out(i));
      unchanged = i + 1;
    });
    copy_lists(unchanged, end);
  }

  // Adds alone: the stored length plus the adds; else merged to count.
  uint32_t merged_length(uint32_t v, KeyRecords records, uint32_t from, uint32_t count) {
    uint32_t lo = 0, hi = 0;
    bounds(v, &lo, &hi);
    const uint32_t adds = records.adds_in(lo, hi);
    if (!o_.dedup && !records.has_removals()) return count + adds;
    scratch_.resize(size_t{count} + adds);
    scratch_weights_.resize(o_.weighted ? scratch_.size() : 0);
    return merge_list(o_, records, lo, hi, base_.neighbours.data() + from,
                      o_.weighted ? base_.weights.data() + from : nullptr, count, scratch_.data(),
                      scratch_weights_.data());
  }

  // The lists of vertices [first, end), none with records.
  void copy_lists(uint32_t first, uint32_t end) {
    if (first < end) copy_stored_lists(base_, first, end, o_.weighted, merged_, out(first));
  }

  const DeltaOverlay& o_;
  const WindowGraph& base_;
  const VertexSubset* only_;
  const WindowAddRange& range_;
  WindowGraph* merged_;
  const uint32_t out_first_;
  std::vector<uint32_t> scratch_;
  std::vector<float> scratch_weights_;
};

constexpr uint32_t kBlockVertices = 4096;

// Runs `pass` over the window's vertices in parallel blocks; the first error wins.
Status for_vertex_blocks(uint32_t vertices, const std::function<Status(uint32_t, uint32_t)>& pass) {
  const uint32_t blocks = (vertices + kBlockVertices - 1) / kBlockVertices;
  std::vector<Status> status(blocks);
  parallel_for(uint32_t{0}, blocks, uint32_t{1}, [&](uint32_t first, uint32_t end) {
    for (uint32_t b = first; b < end; ++b)
      status[b] = pass(b * kBlockVertices, std::min(vertices, (b + 1) * kBlockVertices));
  });
  for (const Status& s : status) SG_RETURN_IF_ERROR(s);
  return Status::OK();
}

// Turns merged->offsets[0, count) from lengths into positions and sizes
// the arrays for them.
Status place_merged_lists(uint32_t count, bool weighted, WindowGraph* merged) {
  uint64_t position = 0;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t length = merged->offsets[i];
    merged->offsets[i] = static_cast<uint32_t>(position);
    position += length;
  }
  if (position > UINT32_MAX) return Status::InvalidArgument("a window with updates holds over 2^32 arcs");
  merged->offsets[count] = static_cast<uint32_t>(position);
  size_array(&merged->neighbours, position);
  size_array(&merged->weights, weighted ? position : 0);
  return Status::OK();
}

// Hands the lists of a vertex block (its records decoded) to the callback
// with their updates merged, a run of lists at a time, each run merged into
// the thread's small window `piece`: runs of at most `piece_arcs` stored
// arcs, and a longer list in pieces of that many (at a change of
// neighbour), each with the adds of its neighbour range, one after another
// from one thread, as a list split over windows is handed over.
class MergedBlockVisit {
 public:
  static constexpr uint32_t kDirectArcs = 1024;  // worth a call of its own rather than a copy

  MergedBlockVisit(const DeltaOverlay& o, const WindowGraph& base, const VertexSubset* only,
                   const WindowAddRange& range, const MergedVisit& visit, WindowGraph* piece)
      : o_(o), base_(base), only_(only), range_(range), visit_(visit), piece_(piece) {}

  Status run(uint32_t begin, uint32_t end, std::span<const DeltaArc> records) {
    const DeltaArc* r = records.data();
    const DeltaArc* records_end = r + records.size();
    const uint32_t* offsets = base_.offsets.data();
    for (uint32_t first = begin; first < end;) {  // each turn takes one list or more
      const uint64_t limit = uint64_t{offsets[first]} + visit_.piece_arcs;
      uint32_t stop =
          static_cast<uint32_t>(std::upper_bound(offsets + first + 1, offsets + end + 1, limit) - offsets) - 1;
      const bool long_list = stop == first;
      if (long_list) stop = first + 1;
      const DeltaArc* run_begin = r;
      while (r != records_end && r->key < base_.first_vertex + stop) ++r;
      const bool skip =
          only_ != nullptr && !only_->is_all() && !only_->any_in(base_.first_vertex + first, base_.first_vertex + stop);
      if (!skip && long_list) SG_RETURN_IF_ERROR(visit_long_list(first, KeyRecords{run_begin, r}));
      if (!skip && !long_list) SG_RETURN_IF_ERROR(visit_lists(first, stop, {run_begin, r}));
      first = stop;
    }
    return Status::OK();
  }

 private:
  void hand_over(uint32_t vertices) {
    visit_.merged_arcs->fetch_add(piece_->offsets[vertices], std::memory_order_relaxed);
    visit_.on_vertices(visit_.context, *piece_, 0, vertices);
  }

  // Lists [first, stop) (at most piece_arcs stored arcs) in one pass: one
  // with records merged into the piece, one without copied there a stretch
  // at a time, or, a stretch of kDirectArcs or more, handed over from the
  // base window where it is.
  Status visit_lists(uint32_t first, uint32_t stop, std::span<const DeltaArc> records) {
    const size_t room = size_t{base_.offsets[stop] - base_.offsets[first]} + records.size();
    size_array(&piece_->offsets, size_t{stop - first} + 1);
    size_array(&piece_->neighbours, room);
    size_array(&piece_->weights, o_.weighted ? room : 0);
    piece_first_ = first;
    written_ = 0;
    if (only_ == nullptr || only_->is_all()) {
      uint32_t unchanged = first;
      for_each_key(records, [&](uint32_t v, KeyRecords key_records) {
        const uint32_t i = v - base_.first_vertex;
        copy_unchanged(unchanged, i);
        merge_one(i, key_records);
        unchanged = i + 1;
      });
      copy_unchanged(unchanged, stop);
    } else {
      merge_members(first, stop, records);
    }
    flush(stop);
    return Status::OK();
  }

  // The members' lists alone (a sparse step); the others are left empty.
  void merge_members(uint32_t first, uint32_t stop, std::span<const DeltaArc> records) {
    const DeltaArc* r = records.data();
    const DeltaArc* records_end = r + records.size();
    uint32_t next = first;  // the first list not yet placed
    only_->for_each_in(base_.first_vertex + first, base_.first_vertex + stop, [&](uint32_t v) {
      const uint32_t i = v - base_.first_vertex;
      for (; next < i; ++next) piece_->offsets[next - piece_first_] = written_;
      while (r != records_end && r->key < v) ++r;
      const DeltaArc* key_first = r;
      while (r != records_end && r->key == v) ++r;
      if (key_first == r) {
        copy_unchanged(i, i + 1);
      } else {
        merge_one(i, KeyRecords{key_first, r});
      }
      next = i + 1;
    });
    for (; next < stop; ++next) piece_->offsets[next - piece_first_] = written_;
  }

  void merge_one(uint32_t i, KeyRecords records) {
    piece_->offsets[i - piece_first_] = written_;
    written_ += merge_vertex_list(o_, base_, range_, i, records, piece_, written_);
  }

  // Lists [from, to), none with records.
  void copy_unchanged(uint32_t from, uint32_t to) {
    if (from >= to) return;
    const uint32_t* offsets = base_.offsets.data();
    const uint32_t count = offsets[to] - offsets[from];
    if (count >= kDirectArcs) {
      flush(from);
      visit_.merged_arcs->fetch_add(count, std::memory_order_relaxed);
      visit_.on_vertices(visit_.context, base_, from, to);
      piece_first_ = to;
      return;
    }
    for (uint32_t k = from; k < to; ++k) piece_->offsets[k - piece_first_] = written_ + (offsets[k] - offsets[from]);
    written_ += copy_stored_lists(base_, from, to, o_.weighted, piece_, written_);
  }

  // Hands over the piece's lists, [piece_first_, upto), and starts it again at upto.
  void flush(uint32_t upto) {
    if (upto > piece_first_) {
      piece_->first_vertex = base_.first_vertex + piece_first_;
      piece_->vertex_count = upto - piece_first_;
      piece_->offsets[upto - piece_first_] = written_;
      hand_over(upto - piece_first_);
    }
    piece_first_ = upto;
    written_ = 0;
  }

  Status visit_long_list(uint32_t i, KeyRecords records) {
    const uint32_t v = base_.first_vertex + i;
    if (only_ != nullptr && !only_->contains(v)) return Status::OK();
    uint32_t lo = 0, hi = 0;
    add_bounds(base_, range_, v, &lo, &hi);
    const uint32_t* neighbours = base_.neighbours.data();
    const uint32_t list_end = base_.offsets[i + 1];
    piece_->first_vertex = v;
    piece_->vertex_count = 1;
    size_array(&piece_->offsets, 2);
    piece_->offsets[0] = 0;
    for (uint32_t at = base_.offsets[i]; at < list_end;) {  // each turn takes piece_arcs stored arcs or more
      uint32_t next = static_cast<uint32_t>(std::min<uint64_t>(list_end, uint64_t{at} + visit_.piece_arcs));
      while (next < list_end && neighbours[next] == neighbours[next - 1]) ++next;  // a neighbour stays in one piece
      const uint32_t piece_hi = next < list_end ? neighbours[next] : hi;
      const uint32_t count = next - at;
      size_array(&piece_->neighbours, size_t{count} + records.adds_in(lo, piece_hi));
      size_array(&piece_->weights, o_.weighted ? piece_->neighbours.size() : 0);
      piece_->offsets[1] =
          merge_list(o_, records, lo, piece_hi, neighbours + at, o_.weighted ? base_.weights.data() + at : nullptr,
                     count, piece_->neighbours.data(), o_.weighted ? piece_->weights.data() : nullptr);
      hand_over(1);
      at = next;
      lo = piece_hi;
    }
    return Status::OK();
  }

  const DeltaOverlay& o_;
  const WindowGraph& base_;
  const VertexSubset* only_;
  const WindowAddRange& range_;
  const MergedVisit& visit_;
  WindowGraph* piece_;
  uint32_t piece_first_ = 0;  // the window vertex of the piece's first list
  uint32_t written_ = 0;      // arcs in the piece
};

}  // namespace

// Three passes: merged lengths (in parallel), their prefix sums, then the
// merge into place (in parallel); each parallel pass decodes a block of
// vertices' records, merges them and lets them go.
Status merge_window_updates(const Graph& graph, const EdgeSpace& space, const DeltaOverlay& overlay,
                            const WindowGraph& base, const VertexSubset* only, WindowGraph* merged) {
  WindowAddRange range;
  SG_RETURN_IF_ERROR(window_add_range(graph, space, base.end_chunk, &range));
  if (continues_from_before(space, base.first_chunk)) {
    SG_RETURN_IF_ERROR(continued_first_neighbour(graph, space, base, &range.first_lo));
  }
  merged->first_chunk = base.first_chunk;
  merged->end_chunk = base.end_chunk;
  merged->first_vertex = base.first_vertex;
  merged->vertex_count = base.vertex_count;
  size_array(&merged->offsets, size_t{base.vertex_count} + 1);
  for (bool counting : {true, false}) {
    auto pass = [&](uint32_t begin, uint32_t end) {
      thread_local std::vector<DeltaArc> records;  // reused: a block's records, then let go
      SG_RETURN_IF_ERROR(decode_vertex_block(overlay, base, only, begin, end, &records));
      VertexRangeMerge merge(overlay, base, only, range, merged);
      merge.run(begin, end, records, counting);
      return Status::OK();
    };
    SG_RETURN_IF_ERROR(for_vertex_blocks(base.vertex_count, pass));
    if (counting) SG_RETURN_IF_ERROR(place_merged_lists(base.vertex_count, graph.weighted(), merged));
  }
  return Status::OK();
}

namespace {

// What build_window_graph hands each decoded chunk's lists to, in a run
// over a graph with updates (decode_merged_window).
struct MergedChunks {
  const Graph& graph;
  const EdgeSpace& space;
  const DeltaOverlay& overlay;
  const VertexSubset* only;
  const MergedVisit& visit;
  WindowAddRange range;          // first_lo is found when the window's first list is visited
  bool first_continues = false;  // the window's first list began in an earlier window
  std::mutex error_mutex;
  Status error;  // the first a callback met

  void fail(const Status& s) {
    std::lock_guard<std::mutex> lock(error_mutex);
    if (error.ok()) error = s;
  }
};

// Merges window vertices [begin, end) (their lists decoded) a block of
// vertices at a time, so a block's records stay few.
Status merge_decoded_range(MergedChunks* m, const WindowGraph& base, uint32_t begin, uint32_t end) {
  // Reused by the thread's calls. The callback must not run parallel
  // loops: a chunk this thread took up meanwhile would overwrite them.
  thread_local std::vector<DeltaArc> records;
  thread_local WindowGraph piece;
  WindowAddRange range = m->range;
  if (begin == 0 && m->first_continues) {
    SG_RETURN_IF_ERROR(continued_first_neighbour(m->graph, m->space, base, &range.first_lo));
  }
  for (uint32_t block = begin; block < end; block += kBlockVertices) {
    const uint32_t block_end = std::min(end, block + kBlockVertices);
    SG_RETURN_IF_ERROR(decode_vertex_block(m->overlay, base, m->only, block, block_end, &records));
    SG_RETURN_IF_ERROR(
        MergedBlockVisit(m->overlay, base, m->only, range, m->visit, &piece).run(block, block_end, records));
  }
  return Status::OK();
}

void merge_decoded_lists(void* context, const WindowGraph& base, uint32_t begin, uint32_t end) {
  auto* m = static_cast<MergedChunks*>(context);
  const Status s = merge_decoded_range(m, base, begin, end);
  if (!s.ok()) m->fail(s);
}

}  // namespace

Status decode_merged_window(const Graph& graph, const EdgeSpace& space, const DeltaOverlay& overlay,
                            const ChunkWindow& window, const VertexSubset* only, const MergedVisit& visit,
                            WindowGraph* base, WindowTimes* times) {
  assert(visit.piece_arcs > 0 && visit.merged_arcs != nullptr);
  MergedChunks m{graph, space, overlay, only, visit, {}, false, {}, {}};
  SG_RETURN_IF_ERROR(window_add_range(graph, space, window.end_chunk, &m.range));
  m.first_continues = continues_from_before(space, window.first_chunk);
  if (only == nullptr || only->is_all()) {
    SG_RETURN_IF_ERROR(build_window_graph(graph, space, window, base, merge_decoded_lists, &m, times, only));
    return m.error;
  }
  // A sparse step merges few lists: after the decode, over fixed blocks of
  // vertices, which share the work between threads more evenly than chunks.
  SG_RETURN_IF_ERROR(build_window_graph(graph, space, window, base, nullptr, nullptr, times, only));
  return for_vertex_blocks(base->vertex_count, [&](uint32_t begin, uint32_t end) {
    const auto t0 = std::chrono::steady_clock::now();
    const Status s = merge_decoded_range(&m, *base, begin, end);
    if (times != nullptr) times->compute_ns += elapsed_ns(t0, std::chrono::steady_clock::now());  // summed over threads
    return s;
  });
}

uint64_t merged_piece_bytes(const Graph& graph) {
  return window_shape_bytes(graph, WindowShape{kBlockVertices, uint64_t{2} * MergedVisit::kMergedPieceArcs});
}

uint64_t decoded_window_bytes(const Graph& graph, const EdgeSpace& space, uint32_t first, uint32_t end) {
  const auto& index = space.index;
  uint64_t edges = 0;
  for (uint32_t c = first; c < end; ++c) edges += index[c].edge_count;
  return window_shape_bytes(graph, WindowShape{index[end - 1].end_vertex() - index[first].first_vertex, edges});
}

WindowShape largest_window_shape(const Graph& graph, uint64_t window_bytes) {
  constexpr uint64_t kAlign = 4096;
  WindowShape largest;
  for (size_t s = 0; s < graph.stored_space_count(); ++s) {
    const auto& index = graph.stored_space(s).index;
    auto extent_of = [&](uint32_t c) { return (index[c].bytes + kAlign - 1) / kAlign * kAlign; };
    // Two pointers: [first, end) is the longest run from `first` whose
    // aligned extents, vertices and edges fit a window (the limits only relax as
    // `first` moves on).
    uint64_t extent = 0, edges = 0;
    uint32_t end = 0;
    for (uint32_t first = 0; first < index.size(); ++first) {
      if (end <= first) {
        end = first;
        extent = 0;
        edges = 0;
      }
      while (end < index.size() && (end == first || (extent + extent_of(end) <= window_bytes &&
                                                     window_holds(index[first], index[end], edges, window_bytes)))) {
        extent += extent_of(end);
        edges += index[end].edge_count;
        ++end;
      }
      largest.vertices = std::max<uint64_t>(largest.vertices, index[end - 1].end_vertex() - index[first].first_vertex);
      largest.edges = std::max(largest.edges, edges);
      extent -= extent_of(first);
      edges -= index[first].edge_count;
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
