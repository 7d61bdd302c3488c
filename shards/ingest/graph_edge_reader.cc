#include "shards/ingest/graph_edge_reader.h"

#include <algorithm>
#include <cstdlib>
#include <future>

#include "shards/format/graph_deltas.h"

namespace sg {
namespace {

class GraphEdgeReader : public EdgeReader {
 public:
  Status open(const std::string& dir) {
    GraphOpenOptions options{false, false};
    options.out_only = true;  // its out-space is whole: all this reads
    options.deltas = true;    // merged into the lists as they are read
    SG_RETURN_IF_ERROR(Graph::open(dir, &graph_, options));
    SG_RETURN_IF_ERROR(deltas_.open(graph_));
    shape_.format = InputFormat::kGraph;
    shape_.weighted = graph_.weighted();
    shape_.symmetric = !graph_.directed();
    shape_.declared_vertices = graph_.manifest().vertices_after_deltas();
    for (size_t b : graph_.blocks(SpaceKind::kOut)) {
      for (const ChunkIndexEntry& entry : graph_.stored_space(b).index)
        most_chunk_edges_ = std::max<uint64_t>(most_chunk_edges_, entry.edge_count);
    }
    return Status::OK();
  }
  const InputShape& shape() const override { return shape_; }
  const Graph* stored_graph() const override { return &graph_; }
  const std::vector<uint64_t>& added_vertex_ids() const override { return deltas_.new_ids(); }
  uint64_t bytes_read() const override { return bytes_read_; }
  uint64_t bytes_total() const override { return graph_.space_bytes(SpaceKind::kOut); }

  // The out-space's blocks one after the other: arcs come by source within
  // a block (ingest's route step needs no order); then the updates' adds.
  Status next_batch(std::vector<RawEdge>* batch, size_t max_edges) override {
    batch->clear();
    ++batches_;
    maybe_start_ahead();
    while (batch->size() < max_edges) {
      if (at_ == current_.end) {
        bool more = false;
        SG_RETURN_IF_ERROR(next_chunk(&more));
        if (!more) break;
        continue;
      }
      const size_t take = std::min(max_edges - batch->size(), current_.end - at_);
      const size_t at = batch->size();
      batch->resize(at + take);  // written by index: a push_back each arc cost more than the decoding
      RawEdge* out = batch->data() + at;
      const PendingArc* in = current_.arcs.data() + at_;
      for (size_t i = 0; i < take; ++i) out[i] = RawEdge{in[i].src, in[i].dst, in[i].weight};
      at_ += take;
    }
    return Status::OK();
  }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  struct PendingArc {  // a chunk's arcs, decoded (half a RawEdge)
    uint32_t src, dst;
    float weight;
  };
  struct Decoded {                 // a chunk's arcs, or a block of the updates' adds
    std::vector<PendingArc> arcs;  // grows, never shrinks: no refill
    size_t end = 0;                // arcs[0, end) are the chunk's
    uint64_t bytes = 0;            // the chunk's stored bytes
  };

  // The next chunk's arcs into current_: the one decoded ahead, else
  // decoded now. The decoding had taken a relabelling route's reading
  // thread longer than the route took each batch, while a core sat idle
  // (R-MAT 22 from the page cache: 0.24 s of its 0.97 s waiting on it).
  Status next_chunk(bool* more) {
    if (ahead_.valid()) {
      SG_RETURN_IF_ERROR(ahead_.get());
      std::swap(current_, ahead_decoded_);
      *more = ahead_more_;
    } else {
      SG_RETURN_IF_ERROR(decode_next(&current_, more));
    }
    at_ = 0;
    if (!*more) {  // done: the buffers go back before the sort
      done_ = true;
      current_ = Decoded{};
      ahead_decoded_ = Decoded{};
      buffer_.reset();
      capacity_ = 0;
      window_space_ = nullptr;
      return Status::OK();
    }
    bytes_read_ += current_.bytes;
    maybe_start_ahead();
    return Status::OK();
  }

  // Decodes the next chunk on a thread of its own: from the second batch
  // on (the job's setup, which reads this graph's degree files, is done by
  // then), unless one is in flight or all is read, and only where a second
  // chunk's arcs are small beside the budget. Only one decode runs at a
  // time: it alone touches the block and chunk position, the window, the
  // scratch and the removals.
  void maybe_start_ahead() {
    if (batches_ < 2 || ahead_.valid() || done_) return;
    if (most_chunk_edges_ * sizeof(PendingArc) > memory_bytes_ / kAheadShare) return;
    ahead_ = std::async(std::launch::async, [this] { return decode_next(&ahead_decoded_, &ahead_more_); });
  }

  // The next chunk of the out-space's blocks, then of the updates' adds;
  // *more is false once all are read.
  Status decode_next(Decoded* out, bool* more) {
    const std::vector<size_t>& blocks = graph_.blocks(SpaceKind::kOut);
    while (next_block_ < blocks.size() && next_chunk_ == graph_.stored_space(blocks[next_block_]).index.size()) {
      ++next_block_;
      next_chunk_ = 0;
    }
    if (next_block_ < blocks.size()) {
      if (next_chunk_ == 0) start_removals();
      *more = true;
      return load_chunk(graph_.stored_space(blocks[next_block_]), next_chunk_++, out);
    }
    out->bytes = 0;
    return load_added(more, out);
  }

  // A relabelling route's pages would only crowd out its spill's, still
  // being written (R-MAT 24 on one emulated HDD in 256 MiB: that route
  // took 8.79-9.09 s against 9.27-9.93 s in four rounds).
  void drop_pages_as_read() override { drop_pages_ = true; }

  void set_memory_budget(uint64_t bytes) override {
    memory_bytes_ = bytes;
    window_bytes_ = std::clamp<uint64_t>(bytes / 16, uint64_t{256} << 10, uint64_t{4} << 20);
  }

  // Chunks come from a window of consecutive chunks read at once (up to
  // window_bytes_, at least one chunk).
  Status load_chunk(const EdgeSpace& space, size_t chunk, Decoded* out) {
    const ChunkIndexEntry& entry = space.index[chunk];
    if (&space != window_space_ || chunk < window_first_ || chunk >= window_end_) {
      size_t end = chunk + 1;
      while (end < space.index.size() && Graph::chunk_span_bytes(space, chunk, end + 1) <= window_bytes_) ++end;
      const uint64_t span = Graph::chunk_span_bytes(space, chunk, end);
      if (span + 8 > capacity_) {  // 8: a decoder may load a word at the end
        capacity_ = align_up(span + 8, kAlignBytes);
        buffer_.reset(static_cast<uint8_t*>(std::aligned_alloc(kAlignBytes, capacity_)));
        if (!buffer_) return Status::IOError("out of memory reading " + graph_.dir());
      }
      SG_RETURN_IF_ERROR(graph_.read_chunk_range(space, chunk, end, buffer_.get()));
      if (drop_pages_) graph_.drop_cached_chunks(space, chunk, end);
      window_space_ = &space;
      window_first_ = chunk;
      window_end_ = end;
    }
    const uint8_t* payload = buffer_.get() + (entry.offset - space.index[window_first_].offset);
    out->bytes = entry.bytes;
    Status removal = Status::OK();
    Status s = decode_chunk(payload, entry, out, &removal);
    if (!s.ok()) return Status::Corruption(graph_.describe_chunk(space, chunk) + ": " + s.message());
    return removal;
  }

  // A chunk's arcs into `decoded`, written by index (for_each_list never
  // passes more than the entry's edge count): pushed back one at a time,
  // beside a removal check each, they took most of a relabelling route's
  // reading. Directed lists without removals are copied whole.
  Status decode_chunk(const uint8_t* payload, const ChunkIndexEntry& entry, Decoded* decoded, Status* removal) {
    if (decoded->arcs.size() < entry.edge_count) decoded->arcs.resize(entry.edge_count);
    PendingArc* out = decoded->arcs.data();
    size_t n = 0;
    const bool undirected = !graph_.directed();
    const bool filter = undirected || !removals_.empty();
    Status s = for_each_list(graph_.manifest().list_codec(), payload, entry, graph_.num_vertices(), graph_.weighted(),
                             &scratch_, [&](uint32_t v, const uint32_t* nbrs, uint32_t count, const float* weights) {
                               if (!filter) {
                                 for (uint32_t i = 0; i < count; ++i)
                                   out[n + i] = PendingArc{v, nbrs[i], weights != nullptr ? weights[i] : 1.0f};
                                 n += count;
                                 return;
                               }
                               for (uint32_t i = 0; i < count && removal->ok(); ++i) {
                                 if (undirected && nbrs[i] < v) continue;
                                 bool removed = false;
                                 *removal = removed_later(&removals_, v, nbrs[i], &removed);
                                 if (removed) continue;
                                 out[n++] = PendingArc{v, nbrs[i], weights != nullptr ? weights[i] : 1.0f};
                               }
                             });
    decoded->end = n;
    return s;
  }

  // Updates: every run's removals apply to the base lists (a new block
  // restarts their cursors: its keys start over).
  void start_removals() {
    removals_.clear();
    for (const auto& run : deltas_.runs(SpaceKind::kOut)) {
      if (run->removals > 0) removals_.emplace_back(run.get());
    }
  }

  static Status removed_later(std::vector<DeltaCursor>* cursors, uint32_t key, uint32_t neighbour, bool* removed) {
    *removed = false;
    for (DeltaCursor& cursor : *cursors) {
      SG_RETURN_IF_ERROR(cursor.removes(key, neighbour, removed));
      if (*removed) break;
    }
    return Status::OK();
  }

  // The next block of adds of the updates, each kept unless a later update
  // removes it; *more is false once every run is read.
  Status load_added(bool* more, Decoded* out) {
    const auto& runs = deltas_.runs(SpaceKind::kOut);
    while (added_run_ < runs.size() && added_block_ == runs[added_run_]->reader.blocks()) {
      ++added_run_;
      added_block_ = 0;
    }
    *more = added_run_ < runs.size();
    if (!*more) return Status::OK();
    const DeltaRun& run = *runs[added_run_];
    if (added_block_ == 0) {
      removals_.clear();
      for (const auto& later : runs) {
        if (later->generation > run.generation && later->removals > 0) removals_.emplace_back(later.get());
      }
    }
    std::vector<DeltaArc> arcs;
    SG_RETURN_IF_ERROR(run.reader.decode_block(added_block_++, &arcs));
    out->arcs.clear();
    for (const DeltaArc& a : arcs) {
      if (a.removed || (!graph_.directed() && a.neighbour < a.key)) continue;
      bool removed = false;
      SG_RETURN_IF_ERROR(removed_later(&removals_, a.key, a.neighbour, &removed));
      if (!removed) out->arcs.push_back(PendingArc{a.key, a.neighbour, a.weight});
    }
    out->end = out->arcs.size();
    return Status::OK();
  }

  Graph graph_;
  GraphDeltas deltas_;
  std::vector<DeltaCursor> removals_;
  size_t added_run_ = 0, added_block_ = 0;
  InputShape shape_;
  size_t next_block_ = 0, next_chunk_ = 0;
  std::unique_ptr<uint8_t, Free> buffer_;
  size_t capacity_ = 0;
  const EdgeSpace* window_space_ = nullptr;  // chunks [window_first_, window_end_) of it are in buffer_
  size_t window_first_ = 0, window_end_ = 0;
  uint64_t window_bytes_ = uint64_t{256} << 10;
  bool drop_pages_ = false;
  std::vector<uint32_t> scratch_;
  uint64_t memory_bytes_ = 0;
  Decoded current_;  // current_.arcs[at_, current_.end) are yet to go
  size_t at_ = 0;
  uint64_t bytes_read_ = 0;
  size_t batches_ = 0;
  bool done_ = false;
  // The lookahead: at most one chunk's arcs beside current_'s, a 32nd of
  // the budget (at 256 MiB and 512 KiB chunks about 2 MiB).
  static constexpr uint64_t kAheadShare = 32;
  uint64_t most_chunk_edges_ = 0;  // of the out-space's chunks
  Decoded ahead_decoded_;
  bool ahead_more_ = false;
  // Declared last, so destroyed first: it waits for the decode in flight.
  std::future<Status> ahead_;
};

}  // namespace

Status open_graph_edge_reader(const std::string& dir, std::unique_ptr<EdgeReader>* reader) {
  auto graph_reader = std::make_unique<GraphEdgeReader>();
  SG_RETURN_IF_ERROR(graph_reader->open(dir));
  *reader = std::move(graph_reader);
  return Status::OK();
}

}  // namespace sg
