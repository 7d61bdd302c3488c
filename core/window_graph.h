// Locality-optimized subgraph construction (LOSC): the chunks of one window
// are checked and decoded, in parallel, straight into a CSR over the
// window's vertex range. A shard is sorted by its key vertex, so each chunk
// writes one contiguous slice (its position is the prefix sum of the index's
// edge counts) and no write is random; the pieces of a list split over
// consecutive chunks of the window land next to each other and form one run.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "base/status.h"
#include "core/vertex_subset.h"
#include "shards/format/delta_overlay.h"
#include "shards/format/graph.h"
#include "shards/io/chunk_stream.h"

namespace sg {

// Leaves values uninitialized on resize: a window's arrays are written
// whole by the decode, and zeroing them first cost a memset per window.
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <typename U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
template <typename T>
using DecodedVector = std::vector<T, UninitializedAllocator<T>>;

struct WindowGraph {
  uint32_t first_chunk = 0, end_chunk = 0;  // the chunks it was decoded from
  uint32_t first_vertex = 0;
  uint32_t vertex_count = 0;
  DecodedVector<uint32_t> offsets;  // vertex_count + 1 entries, into neighbours
  DecodedVector<uint32_t> neighbours;
  DecodedVector<float> weights;  // empty when unweighted

  uint64_t edges() const { return neighbours.size(); }
  uint64_t memory_bytes() const {
    return sizeof(uint32_t) * (offsets.size() + neighbours.size()) + sizeof(float) * weights.size();
  }
};

// Called with a range [begin, end) of window-local vertex indices whose runs
// are complete. Chunks call it right after decoding (the data is still in
// cache); the vertices of lists split over several chunks of the window are
// handed over after all chunks are decoded, one at a time, so every vertex
// is passed exactly once per window.
using VertexRangeFn = void (*)(void* context, const WindowGraph& window, uint32_t begin, uint32_t end);

// CPU time spent decoding and in the callback, summed over threads.
struct WindowTimes {
  std::atomic<uint64_t> decode_ns{0};
  std::atomic<uint64_t> compute_ns{0};
};

// Fills `out` from the chunks of `window`; checks every chunk's checksum and
// bytes. Errors name the chunk and its device file(s).
// With `only`, the lists of vertices outside it are skipped, not decoded:
// their slots in `neighbours` hold garbage and the callback must not read
// them (push mode reads only active sources).
Status build_window_graph(const Graph& graph, const EdgeSpace& space, const ChunkWindow& window, WindowGraph* out,
                          VertexRangeFn on_vertices = nullptr, void* context = nullptr, WindowTimes* times = nullptr,
                          const VertexSubset* only = nullptr);

// Hands the vertices of `chunks` (sorted, all within the window) of an
// already decoded window (all lists decoded, e.g. from the decoded cache) to
// the callback as build_window_graph would, without decoding or checking
// anything. A list split over chunks is handed over whole, once, if any of
// its pieces is in `chunks`.
void visit_window_graph(const EdgeSpace& space, const WindowGraph& window, std::span<const uint32_t> chunks,
                        VertexRangeFn on_vertices, void* context, WindowTimes* times);

// The end of the neighbours whose adds merge into `space`'s lists: its
// block's end, or none for the last block (or a 1-D space), which also
// takes the neighbours the updates added past the stored vertices.
inline uint32_t update_neighbour_end(const Graph& graph, const EdgeSpace& space) {
  return space.neighbour_end == 0 || space.neighbour_end >= graph.num_vertices() ? UINT32_MAX : space.neighbour_end;
}

// Merges the updates of a run over a graph with updates (graph.overlay)
// into `base`, a window build_window_graph decoded from `space`, as
// `merged`: the same vertices and chunks, each list as a compaction would
// store it. A list split over chunks gets the adds in its pieces' neighbour
// range, so pieces stay sorted one after another (the first piece takes
// those below, the last those above). With `only`, vertices outside it get
// empty lists. The overlay's records are decoded for each of its two
// passes (lengths, then the merge), a block of vertices at a time: held
// for the whole window, they would take a sixth of its room and more.
Status merge_window_updates(const Graph& graph, const EdgeSpace& space, const DeltaOverlay& overlay,
                            const WindowGraph& base, const VertexSubset* only, WindowGraph* merged);

// Where decode_merged_window hands the merged lists.
struct MergedVisit {
  VertexRangeFn on_vertices = nullptr;
  void* context = nullptr;
  uint32_t piece_arcs = kMergedPieceArcs;                 // stored arcs merged at a time (per thread)
  std::atomic<uint64_t>* merged_arcs = nullptr;           // adds the arcs handed over
  static constexpr uint32_t kMergedPieceArcs = 1u << 16;  // 256 KiB of neighbours: stays in a core's cache
};

// A run over a graph with updates, without a merged copy of the window:
// decodes `window` of `space` into `base` as build_window_graph does, and
// right after each chunk's decode, while its lists are in cache, merges
// them with the overlay's records a few at a time into a small window of
// the thread's and hands them to the callback from there. The callback
// sees each list as merge_window_updates would store it, as one call, or
// (a list of over piece_arcs stored arcs) as pieces in order from one
// thread, as it sees a list split over windows. With `only`, only its
// members' lists are decoded and handed over. Each thread keeps about
// piece_arcs plus their adds of room between calls.
Status decode_merged_window(const Graph& graph, const EdgeSpace& space, const DeltaOverlay& overlay,
                            const ChunkWindow& window, const VertexSubset* only, const MergedVisit& visit,
                            WindowGraph* base, WindowTimes* times);
// Room a thread's piece takes: a block's vertices, piece_arcs stored arcs
// and as many adds (the decode room a run over updates adds per thread).
uint64_t merged_piece_bytes(const Graph& graph);

// Bytes the decoded form of chunks [first, end) takes (WindowGraph::memory_bytes).
uint64_t decoded_window_bytes(const Graph& graph, const EdgeSpace& space, uint32_t first, uint32_t end);
// The most vertices and the most edges any window of `window_bytes` holds,
// over every space (each maximum on its own: a window's arrays each keep
// their largest size), and the bytes arrays of that shape take: the decode
// room a run needs.
struct WindowShape {
  uint64_t vertices = 0;
  uint64_t edges = 0;
};
WindowShape largest_window_shape(const Graph& graph, uint64_t window_bytes);
uint64_t window_shape_bytes(const Graph& graph, WindowShape shape);
uint64_t largest_decoded_window_bytes(const Graph& graph, uint64_t window_bytes);
// Reserves a window's arrays for `shape` up front (no growth, no copy later).
void reserve_window(WindowGraph* window, WindowShape shape, bool weighted);

}  // namespace sg
