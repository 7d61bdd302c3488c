#include "shards/format/graph_overlay.h"

#include <algorithm>
#include <cassert>

#include "base/parallel.h"
#include "compression/checksum.h"
#include "shards/format/chunk_format.h"

namespace sg {
namespace {

// Reads the runs of a kind merged into one stream, in (arc, run) order,
// with a heap over one decoded block per run: memory stays at a block a
// run however large the updates. Each run is sorted (an update's removal
// of an arc before its add), so an arc's records come in update order.
class RunMerger {
 public:
  explicit RunMerger(const std::vector<std::unique_ptr<DeltaRun>>& runs) : cursors_(runs.size()) {
    for (size_t r = 0; r < runs.size(); ++r) cursors_[r].reader = &runs[r]->reader;
  }

  Status start() {
    for (size_t r = 0; r < cursors_.size(); ++r) SG_RETURN_IF_ERROR(push_next(r));
    return Status::OK();
  }
  bool done() const { return heap_.empty(); }
  // The least record (its run's earliest on ties), and moves past it.
  Status pop(DeltaArc* record) {
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    const size_t r = heap_.back().second;
    heap_.pop_back();
    *record = cursors_[r].arcs[cursors_[r].at++];
    return push_next(r);
  }
  // The next record's arc (done() false): key << 32 | neighbour.
  uint64_t next_arc() const { return heap_.front().first; }

 private:
  struct Cursor {
    const DeltaRunReader* reader = nullptr;
    size_t block = 0, at = 0;
    std::vector<DeltaArc> arcs;
  };

  Status push_next(size_t r) {
    Cursor& c = cursors_[r];
    if (c.at == c.arcs.size()) {
      c.arcs.clear();
      c.at = 0;
      if (c.block == c.reader->blocks()) return Status::OK();
      SG_RETURN_IF_ERROR(c.reader->decode_block(c.block++, &c.arcs));
    }
    const DeltaArc& a = c.arcs[c.at];
    heap_.emplace_back(uint64_t{a.key} << 32 | a.neighbour, r);
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
    return Status::OK();
  }

  std::vector<Cursor> cursors_;
  std::vector<std::pair<uint64_t, size_t>> heap_;  // (arc, run): a min-heap
};

}  // namespace

Status build_delta_overlay(const std::vector<std::unique_ptr<DeltaRun>>& runs, bool weighted, bool dedup,
                           uint32_t num_vertices, DeltaOverlay* overlay) {
  overlay->weighted = weighted;
  overlay->dedup = dedup;
  overlay->adds = overlay->removals = 0;
  overlay->parts.clear();
  overlay->part_removals = 0;
  RunMerger merger(runs);
  SG_RETURN_IF_ERROR(merger.start());
  DeltaRunWriter writer(weighted, kOverlayBlockBytes);
  std::vector<DeltaArc> arc_records, resolved;  // one arc's, in update order; what they say
  while (!merger.done()) {
    arc_records.clear();
    const uint64_t arc = merger.next_arc();
    while (!merger.done() && merger.next_arc() == arc) {
      arc_records.emplace_back();
      SG_RETURN_IF_ERROR(merger.pop(&arc_records.back()));
    }
    resolved.clear();
    resolve_arc(arc_records.data(), arc_records.data() + arc_records.size(), dedup, &resolved);
    for (const DeltaArc& a : resolved) {
      SG_RETURN_IF_ERROR(writer.add(a));
      (a.removed ? overlay->removals : overlay->adds) += 1;
    }
  }
  std::string run;
  SG_RETURN_IF_ERROR(writer.finish(&run));
  return overlay->add_part(std::move(run), true, num_vertices);
}

Status open_delta_overlay(std::vector<std::unique_ptr<DeltaRun>> runs, bool weighted, bool dedup, uint32_t num_vertices,
                          DeltaOverlay* overlay) {
  overlay->weighted = weighted;
  overlay->dedup = dedup;
  overlay->parts.clear();
  overlay->part_removals = 0;
  for (auto& run : runs) {
    SG_RETURN_IF_ERROR(overlay->add_part(std::move(run->bytes), run->tier, num_vertices));
    run.reset();  // its bytes moved: the reader goes with it
  }
  return Status::OK();
}

namespace {

// Neighbour range [lo, hi) of a stored space (hi UINT32_MAX: unbounded).
void block_range(const EdgeSpace& space, uint32_t* lo, uint32_t* hi) {
  *lo = space.neighbour_begin;
  *hi = space.neighbour_end == 0 ? UINT32_MAX : space.neighbour_end;
}

// The lengths of the merged lists of the keys `uncertain` (sorted) in one
// stored space, counted by decoding their chunks: moves *degrees and
// *arcs_change by the difference from the stored lengths.
class UncertainCounter {
 public:
  UncertainCounter(const Graph& graph, const EdgeSpace& space, const DeltaOverlay& o,
                   const std::vector<uint32_t>& uncertain, std::vector<uint32_t>* degrees, int64_t* arcs_change)
      : graph_(graph), space_(space), o_(o), uncertain_(uncertain), degrees_(*degrees), arcs_change_(*arcs_change) {
    block_range(space, &lo_, &hi_);
  }

  Status run() {
    size_t u = 0;
    for (size_t c = 0; c < space_.index.size() && u < uncertain_.size(); ++c) {
      const ChunkIndexEntry& e = space_.index[c];
      while (u < uncertain_.size() && uncertain_[u] < e.first_vertex) ++u;
      if (u == uncertain_.size() || uncertain_[u] >= e.end_vertex()) continue;
      SG_RETURN_IF_ERROR(count_chunk(c, u));
    }
    finish_key();
    return Status::OK();
  }

 private:
  Status count_chunk(size_t c, size_t u) {
    const ChunkIndexEntry& e = space_.index[c];
    chunk_records_.clear();
    SG_RETURN_IF_ERROR(o_.decode_keys(e.first_vertex, e.end_vertex(), &chunk_records_));
    payload_.resize(e.bytes);
    SG_RETURN_IF_ERROR(graph_.read_chunk_of(space_, c, payload_.data()));
    const Status s =
        for_each_list(graph_.manifest().list_codec(), payload_.data(), e, graph_.num_vertices(), graph_.weighted(),
                      &scratch_, [&](uint32_t v, const uint32_t* list, uint32_t count, const float* weights) {
                        while (u < uncertain_.size() && uncertain_[u] < v) ++u;
                        if (u < uncertain_.size() && uncertain_[u] == v) gather(v, list, count, weights);
                      });
    if (!s.ok()) return Status::Corruption(graph_.describe_chunk(space_, c) + ": " + s.message());
    return Status::OK();
  }

  // Pieces of a list split over chunks come one after another.
  void gather(uint32_t v, const uint32_t* list, uint32_t count, const float* weights) {
    if (v != key_) {
      finish_key();
      key_ = v;
      auto [first, end] = std::equal_range(chunk_records_.begin(), chunk_records_.end(), DeltaArc{v, 0, 1.0f, false},
                                           [](const DeltaArc& a, const DeltaArc& b) { return a.key < b.key; });
      key_records_.assign(first, end);
    }
    list_.insert(list_.end(), list, list + count);
    if (weights != nullptr) weights_.insert(weights_.end(), weights, weights + count);
  }

  void finish_key() {
    if (key_ == UINT32_MAX) return;
    const KeyRecords records{key_records_.data(), key_records_.data() + key_records_.size()};
    merged_.resize(list_.size() + records.adds_in(lo_, hi_));
    merged_weights_.resize(graph_.weighted() ? merged_.size() : 0);
    const uint32_t length = merge_list(o_, records, lo_, hi_, list_.data(), weights_.data(),
                                       static_cast<uint32_t>(list_.size()), merged_.data(), merged_weights_.data());
    const int64_t change = int64_t{length} - static_cast<int64_t>(list_.size());
    degrees_[key_] = static_cast<uint32_t>(degrees_[key_] + change);
    arcs_change_ += change;
    list_.clear();
    weights_.clear();
    key_ = UINT32_MAX;
  }

  const Graph& graph_;
  const EdgeSpace& space_;
  const DeltaOverlay& o_;
  const std::vector<uint32_t>& uncertain_;
  std::vector<uint32_t>& degrees_;
  int64_t& arcs_change_;
  uint32_t lo_ = 0, hi_ = UINT32_MAX;
  uint32_t key_ = UINT32_MAX;
  std::vector<uint8_t> payload_;
  std::vector<uint32_t> scratch_, list_, merged_;
  std::vector<float> weights_, merged_weights_;
  std::vector<DeltaArc> chunk_records_, key_records_;
};

// Adds `count` to the bound of every chunk of `space` holding `key`'s list
// (*next: the first chunk not before the key's; keys come in order).
void bound_chunk_adds(const EdgeSpace& space, uint32_t key, uint32_t count, size_t* next,
                      std::vector<uint32_t>* chunk_adds) {
  const auto& index = space.index;
  while (*next < index.size() && index[*next].end_vertex() <= key) ++*next;
  for (size_t c = *next; c < index.size() && index[c].first_vertex <= key; ++c) (*chunk_adds)[c] += count;
}

// Corrects a kind's degrees and each block's arc count for its overlay, and
// bounds the adds each chunk gains (EdgeSpace::chunk_adds): each key's
// records come to add() as the overlay is built, then finish() counts the
// lists adds alone do not decide.
class OverlayCorrection {
 public:
  OverlayCorrection(Graph* graph, SpaceKind kind)
      : graph_(graph),
        blocks_(graph->blocks(kind)),
        arcs_change_(blocks_.size(), 0),
        next_(blocks_.size(), 0),
        degrees_(graph->stored_space_to_correct(graph->degree_space(kind)).degrees) {
    for (size_t b : blocks_) {
      EdgeSpace& space = graph->stored_space_to_correct(b);
      space.chunk_adds.assign(space.index.size(), 0);
    }
  }

  Status add(KeyRecords records, bool dedup) {
    const uint32_t key = records.begin->key;
    const bool certain = !dedup && !records.has_removals();  // else an add may meet a stored copy, a removal several
    if (!certain) uncertain_.push_back(key);
    for (size_t b = 0; b < blocks_.size(); ++b) {
      EdgeSpace& space = graph_->stored_space_to_correct(blocks_[b]);
      uint32_t lo = 0, hi = 0;
      block_range(space, &lo, &hi);
      const uint32_t adds = records.adds_in(lo, hi);
      if (adds > 0) bound_chunk_adds(space, key, adds, &next_[b], &space.chunk_adds);
      if (!certain) continue;
      degrees_[key] += adds;
      arcs_change_[b] += adds;
    }
    return Status::OK();
  }

  // What adds alone do to a slice of keys (its records in order), when no
  // part holds a removal and the graph keeps duplicates: each record
  // lengthens its key's list by one, whatever the other parts hold. Counted
  // apart for each slice, so slices count in parallel; slices hold distinct
  // keys, so they add to the degrees (when held) directly.
  struct ArcCounts {
    std::vector<std::vector<uint32_t>> chunk_adds;  // per block, per chunk
    std::vector<int64_t> arcs_change;               // per block
    std::vector<size_t> next;                       // per block: the first chunk not before the last key's
  };
  ArcCounts new_counts() const {
    ArcCounts counts;
    for (size_t b : blocks_) counts.chunk_adds.emplace_back(graph_->stored_space(b).index.size(), 0);
    counts.arcs_change.assign(blocks_.size(), 0);
    counts.next.assign(blocks_.size(), 0);
    return counts;
  }
  void count_arcs(const std::vector<DeltaArc>& records, ArcCounts* counts) {
    for (size_t b = 0; b < blocks_.size(); ++b) {
      const EdgeSpace& space = graph_->stored_space(blocks_[b]);
      uint32_t lo = 0, hi = 0;
      block_range(space, &lo, &hi);
      for (const DeltaArc& a : records) {
        if (a.neighbour < lo || a.neighbour >= hi) continue;
        bound_chunk_adds(space, a.key, 1, &counts->next[b], &counts->chunk_adds[b]);
        if (!degrees_.empty()) degrees_[a.key] += 1;  // else deferred (correct_degrees_for_adds)
        counts->arcs_change[b] += 1;
      }
    }
  }
  void add_counts(const ArcCounts& counts) {
    for (size_t b = 0; b < blocks_.size(); ++b) {
      EdgeSpace& space = graph_->stored_space_to_correct(blocks_[b]);
      for (size_t c = 0; c < space.chunk_adds.size(); ++c) space.chunk_adds[c] += counts.chunk_adds[b][c];
      arcs_change_[b] += counts.arcs_change[b];
    }
  }

  Status finish(const DeltaOverlay& overlay) {
    for (size_t b = 0; b < blocks_.size() && !uncertain_.empty(); ++b) {
      UncertainCounter counter(*graph_, graph_->stored_space(blocks_[b]), overlay, uncertain_, &degrees_,
                               &arcs_change_[b]);
      SG_RETURN_IF_ERROR(counter.run());
    }
    for (size_t b = 0; b < blocks_.size(); ++b) {
      EdgeSpace& space = graph_->stored_space_to_correct(blocks_[b]);
      space.meta.arcs = static_cast<uint64_t>(static_cast<int64_t>(space.meta.arcs) + arcs_change_[b]);
    }
    return Status::OK();
  }

 private:
  Graph* graph_;
  const std::vector<size_t>& blocks_;
  std::vector<int64_t> arcs_change_;
  std::vector<size_t> next_;
  std::vector<uint32_t>& degrees_;
  std::vector<uint32_t> uncertain_;
};

// Loads the kind's stored degrees whole, checked, to be corrected.
Status load_degrees(Graph* graph, SpaceKind kind) {
  std::vector<uint32_t>& degrees = graph->stored_space_to_correct(graph->degree_space(kind)).degrees;
  degrees.resize(graph->num_vertices());
  return graph->scan_degree_file(kind, [&](uint32_t first, const uint32_t* piece, size_t count) {
    std::copy(piece, piece + count, degrees.begin() + first);
  });
}

// Moves the kind's corrected degrees out of memory into an unnamed file in
// the default scratch directory (beside the graph when it is writable),
// which the engine then reads as it would the stored degree file.
Status write_corrected_degrees(Graph* graph, SpaceKind kind) {
  std::vector<uint32_t>& degrees = graph->stored_space_to_correct(graph->degree_space(kind)).degrees;
  File file;
  bool direct = false;
  SG_RETURN_IF_ERROR(
      File::create_unnamed(default_scratch_dir(graph->dir()) + "/.degrees-after-updates", &file, &direct));
  SG_RETURN_IF_ERROR(file.pwrite_all(degrees.data(), degrees.size() * sizeof(uint32_t), 0));
  const uint64_t checksum = checksum64(degrees.data(), degrees.size() * sizeof(uint32_t));
  std::vector<uint32_t>().swap(degrees);
  graph->set_corrected_degrees(kind, std::move(file), checksum);
  return Status::OK();
}

// Records a packed block of a merged overlay holds: about 4 KiB, as a
// stored run's (kOverlayBlockBytes).
constexpr size_t kMergedBlockRecords = 1024;

// Adds alone: every part's records (each one arc, resolved as they are,
// ordered by arc, then weight) counted a slice of keys at a time in
// parallel; slices hold distinct keys, so they add to the degrees (when
// held) directly. With `pack`, the parts are merged into one part packed
// in memory (each slice packed apart, then joined in order): a window then
// decodes one part, with no merge across parts.
Status correct_adds_alone(OverlayCorrection* correction, uint32_t num_vertices, bool pack, DeltaOverlay* overlay) {
  uint64_t total = 0;
  for (const auto& part : overlay->parts) total += part->reader.records();
  // A slice's records (16 bytes each) stay about 1 MiB.
  const size_t slices = std::max<size_t>(4 * parallel_threads(), total / (64 << 10));
  std::vector<OverlayCorrection::ArcCounts> counts(slices, correction->new_counts());
  std::vector<PackedRun> packed(slices);
  std::vector<Status> status(slices);
  std::vector<uint64_t> records(slices, 0);
  parallel_for(size_t{0}, slices, size_t{1}, [&](size_t first, size_t end) {
    thread_local std::vector<DeltaArc> arcs;  // per thread, kept: fresh pages each slice would cost more
    for (size_t s = first; s < end; ++s) {
      arcs.clear();
      const auto key = [&](size_t i) { return static_cast<uint32_t>(uint64_t{num_vertices} * i / slices); };
      status[s] = overlay->decode_keys(key(s), key(s + 1), &arcs);
      if (!status[s].ok()) continue;
      correction->count_arcs(arcs, &counts[s]);
      records[s] = arcs.size();
      if (!pack) continue;
      packed[s].start(overlay->weighted, arcs.size());
      for (size_t at = 0; at < arcs.size(); at += kMergedBlockRecords) {
        const std::span<const DeltaArc> block(arcs.data() + at, std::min(kMergedBlockRecords, arcs.size() - at));
        packed[s].add_block(block.front().key, block.back().key, block);
      }
      packed[s].finish();
    }
  });
  for (size_t s = 0; s < slices; ++s) {
    SG_RETURN_IF_ERROR(status[s]);
    correction->add_counts(counts[s]);
    overlay->adds += records[s];
  }
  if (pack) {
    auto merged = std::make_unique<OverlayPart>();
    merged->resolved = true;
    overlay->parts.clear();  // before the join: the stored runs and both packed forms never meet
    merged->packed.join(std::move(packed));
    overlay->parts.push_back(std::move(merged));
  }
  return Status::OK();
}

// Corrects the kind's degrees and arc counts for `overlay`, and counts its
// resolved records, in one pass over them; then, if `kept` (the run reads
// its lists), packs its parts in memory (adds alone: merged into one, in
// the same pass).
Status correct_for_overlay(Graph* graph, SpaceKind kind, bool kept, DeltaOverlay* overlay) {
  OverlayCorrection correction(graph, kind);
  overlay->adds = overlay->removals = 0;
  // Packed as read, for the windows' decodes, where ids allow (PackedRun).
  const bool pack = kept && graph->num_vertices() <= (1u << 31);
  if (overlay->adds_alone()) {
    SG_RETURN_IF_ERROR(correct_adds_alone(&correction, graph->num_vertices(), pack, overlay));
    return correction.finish(*overlay);
  }
  auto pass = [&](const std::vector<DeltaArc>& records) {
    const DeltaArc* r = records.data();
    const DeltaArc* end = r + records.size();
    while (r != end) {
      const DeltaArc* key_end = r;
      for (; key_end != end && key_end->key == r->key; ++key_end) {
        (key_end->removed ? overlay->removals : overlay->adds) += 1;
      }
      SG_RETURN_IF_ERROR(correction.add(KeyRecords{r, key_end}, overlay->dedup));
      r = key_end;
    }
    return Status::OK();
  };
  SG_RETURN_IF_ERROR(for_each_overlay_pass(*overlay, graph->num_vertices(), pass));
  SG_RETURN_IF_ERROR(correction.finish(*overlay));
  return pack ? overlay->pack_parts() : Status::OK();
}

// The degrees of `kind` after adds alone, into *into when given, else into
// the unnamed file (write_corrected_degrees): its stored degrees plus one
// for each add of `overlay` at its key, or with `at_neighbours` at its
// neighbour (`overlay` then the other kind's: the same arcs, reversed).
// Part by part: the parts need no merge for a sum.
Status correct_degrees_for_adds(Graph* graph, SpaceKind kind, const DeltaOverlay& overlay, bool at_neighbours,
                                std::vector<uint32_t>* into) {
  assert(overlay.adds_alone());
  SG_RETURN_IF_ERROR(load_degrees(graph, kind));
  std::vector<uint32_t>& degrees = graph->stored_space_to_correct(graph->degree_space(kind)).degrees;
  SG_RETURN_IF_ERROR(for_each_part_block(overlay, [&](const std::vector<DeltaArc>& records) {
    for (const DeltaArc& a : records) degrees[at_neighbours ? a.neighbour : a.key] += 1;
  }));
  if (into == nullptr) return write_corrected_degrees(graph, kind);
  *into = std::move(degrees);
  std::vector<uint32_t>().swap(degrees);  // the stored space holds none (the engine counts those)
  return Status::OK();
}

// Reads the kind's runs, holds them as its overlay and corrects its
// degrees: at once, or (adds alone, the overlay kept) when first read,
// since most runs read one kind's degrees only.
Status prepare_kind(Graph* graph, SpaceKind kind, bool kept) {
  const Manifest& m = graph->manifest();
  GraphDeltas deltas;
  SG_RETURN_IF_ERROR(deltas.open(*graph, true, &kind));
  auto overlay = std::make_shared<DeltaOverlay>();
  SG_RETURN_IF_ERROR(open_delta_overlay(deltas.take_runs(kind), m.weighted, m.ingest.duplicates_dropped,
                                        graph->num_vertices(), overlay.get()));
  const bool deferred = kept && overlay->adds_alone();
  if (!deferred) SG_RETURN_IF_ERROR(load_degrees(graph, kind));
  SG_RETURN_IF_ERROR(correct_for_overlay(graph, kind, kept, overlay.get()));
  if (deferred) {
    graph->defer_degree_correction(
        kind, [graph, kind, held = std::shared_ptr<const DeltaOverlay>(overlay)](std::vector<uint32_t>* into) {
          return correct_degrees_for_adds(graph, kind, *held, false, into);
        });
  } else {
    SG_RETURN_IF_ERROR(write_corrected_degrees(graph, kind));
  }
  graph->set_overlay(kind, std::move(overlay));
  return Status::OK();
}

// A run that reads no out-lists needs the out-space's degrees and arc
// counts alone: with adds alone they count from the in-space's overlay
// (the same arcs, keyed by their heads), and the out-space's tiers are
// never read. The arcs are counted now, the degrees deferred as a kept
// kind's are. *counted is false, and nothing done, when the in-space's
// updates are not adds alone.
Status count_out_from_in(Graph* graph, bool* counted) {
  SG_RETURN_IF_ERROR(graph->load_overlay(SpaceKind::kIn));
  const DeltaOverlay* in = graph->overlay(SpaceKind::kIn);
  *counted = in != nullptr && in->adds_alone();
  if (!*counted) return Status::OK();
  const std::vector<size_t>& blocks = graph->blocks(SpaceKind::kOut);
  std::vector<uint64_t> block_adds(blocks.size(), 0);  // an out block holds the arcs whose heads are in its range
  if (blocks.size() == 1) {
    block_adds[0] = in->adds;
  } else {
    SG_RETURN_IF_ERROR(for_each_part_block(*in, [&](const std::vector<DeltaArc>& records) {
      for (size_t b = 0; b < blocks.size(); ++b) {
        uint32_t lo = 0, hi = 0;
        block_range(graph->stored_space(blocks[b]), &lo, &hi);
        for (const DeltaArc& a : records) block_adds[b] += a.key >= lo && a.key < hi;
      }
    }));
  }
  for (size_t b = 0; b < blocks.size(); ++b) graph->stored_space_to_correct(blocks[b]).meta.arcs += block_adds[b];
  graph->defer_degree_correction(SpaceKind::kOut, [graph](std::vector<uint32_t>* into) {
    const DeltaOverlay* held = graph->overlay(SpaceKind::kIn);  // kept for the run
    assert(held != nullptr);
    return correct_degrees_for_adds(graph, SpaceKind::kOut, *held, true, into);
  });
  return Status::OK();
}

}  // namespace

Status prepare_run_over_updates(Graph* graph, bool out_lists) {
  const Manifest& m = graph->manifest();
  if (m.deltas.empty()) return Status::OK();
  if (m.vertices_after_deltas() > UINT32_MAX) return Status::Corruption(graph->dir() + ": updates past 2^32 vertices");
  if (m.vertices_after_deltas() != m.num_vertices) {  // the vertices they add, with their ids (no runs read)
    GraphDeltas added;
    SG_RETURN_IF_ERROR(added.open(*graph, false));
    SG_RETURN_IF_ERROR(graph->extend_vertices(static_cast<uint32_t>(m.vertices_after_deltas()), added.new_ids()));
  }
  // Each kind's runs are read when the run first uses the kind: a run that
  // pushes alone never reads the in-space's. The graph must stay put.
  const size_t kinds = m.directed ? 2 : 1;  // an undirected graph: one space, both directions in its runs
  for (size_t k = 0; k < kinds; ++k) {
    const SpaceKind kind = k == 0 ? SpaceKind::kOut : SpaceKind::kIn;
    const bool kept = k == 1 || out_lists || !m.directed;
    const uint64_t bytes = m.pending_run_bytes(k == 0 ? "out" : "in");
    graph->defer_overlay(
        kind,
        [graph, kind, kept] {
          bool counted = false;
          if (!kept) SG_RETURN_IF_ERROR(count_out_from_in(graph, &counted));
          if (!counted) SG_RETURN_IF_ERROR(prepare_kind(graph, kind, kept));
          if (!kept) graph->drop_overlay(kind);
          return Status::OK();
        },
        kept ? bytes : 0);  // an overlay not kept goes before the run's cache fills
  }
  return Status::OK();
}

}  // namespace sg
