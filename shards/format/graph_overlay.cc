#include "shards/format/graph_overlay.h"

#include <algorithm>

#include "base/parallel.h"
#include "shards/format/chunk_format.h"

namespace sg {
namespace {

// A run's record, with where it sorts among the records of its arc: by run,
// an update's removal before its add.
struct OverlayRecord {
  uint32_t key = 0, neighbour = 0;
  float weight = 1.0f;
  uint32_t order = 0;  // run << 1 | (add ? 1 : 0)
  bool removal() const { return (order & 1) == 0; }
};

bool record_before(const OverlayRecord& a, const OverlayRecord& b) {
  if (a.key != b.key) return a.key < b.key;
  if (a.neighbour != b.neighbour) return a.neighbour < b.neighbour;
  return a.order < b.order;
}

Status decode_runs(const std::vector<std::unique_ptr<DeltaRun>>& runs, std::vector<OverlayRecord>* records) {
  uint64_t total = 0;
  for (const auto& run : runs) total += run->reader.records();
  records->reserve(total);
  std::vector<DeltaArc> arcs;
  for (size_t r = 0; r < runs.size(); ++r) {
    const DeltaRunReader& reader = runs[r]->reader;
    for (size_t b = 0; b < reader.blocks(); ++b) {
      arcs.clear();
      SG_RETURN_IF_ERROR(reader.decode_block(b, &arcs));
      const auto order = static_cast<uint32_t>(r << 1);
      for (const DeltaArc& a : arcs) records->push_back({a.key, a.neighbour, a.weight, order | (a.removed ? 0u : 1u)});
    }
  }
  return Status::OK();
}

// Appends the overlay entries of one arc's records [first, end) (sorted): a
// removal if any update removes it, and the adds no later update removes.
void resolve_arc(const OverlayRecord* first, const OverlayRecord* end, DeltaOverlay* o, std::vector<float>* kept) {
  kept->clear();
  bool removed_later = false, removed = false;
  for (const OverlayRecord* r = end; r != first;) {
    --r;
    if (r->removal()) {
      removed_later = removed = true;
    } else if (!removed_later) {
      kept->push_back(r->weight);
    }
  }
  if (removed) o->removes.push_back(first->neighbour);
  std::sort(kept->begin(), kept->end());
  if (o->dedup && kept->size() > 1) kept->erase(kept->begin() + 1, kept->end());  // ingest keeps the smallest weight
  for (float w : *kept) {
    o->adds.push_back(first->neighbour);
    if (o->weighted) o->add_weights.push_back(w);
  }
}

}  // namespace

Status build_delta_overlay(const std::vector<std::unique_ptr<DeltaRun>>& runs, bool weighted, bool dedup,
                           DeltaOverlay* overlay) {
  *overlay = DeltaOverlay();
  overlay->weighted = weighted;
  overlay->dedup = dedup;
  std::vector<OverlayRecord> records;
  SG_RETURN_IF_ERROR(decode_runs(runs, &records));
  parallel_sort(records.begin(), records.end(), record_before);
  DeltaOverlay& o = *overlay;
  std::vector<float> kept;
  size_t i = 0;
  while (i < records.size()) {
    const uint32_t key = records[i].key;
    o.keys.push_back(key);
    o.add_begin.push_back(static_cast<uint32_t>(o.adds.size()));
    o.remove_begin.push_back(static_cast<uint32_t>(o.removes.size()));
    while (i < records.size() && records[i].key == key) {
      size_t j = i + 1;
      while (j < records.size() && records[j].key == key && records[j].neighbour == records[i].neighbour) ++j;
      resolve_arc(records.data() + i, records.data() + j, &o, &kept);
      i = j;
    }
    if (o.adds.size() == o.add_begin.back() && o.removes.size() == o.remove_begin.back()) {
      o.keys.pop_back();  // every add removed later, nothing removed from the base
      o.add_begin.pop_back();
      o.remove_begin.pop_back();
    }
  }
  o.add_begin.push_back(static_cast<uint32_t>(o.adds.size()));
  o.remove_begin.push_back(static_cast<uint32_t>(o.removes.size()));
  return Status::OK();
}

namespace {

// Neighbour range [lo, hi) of a stored space (hi UINT32_MAX: unbounded).
void block_range(const EdgeSpace& space, uint32_t* lo, uint32_t* hi) {
  *lo = space.neighbour_begin;
  *hi = space.neighbour_end == 0 ? UINT32_MAX : space.neighbour_end;
}

// Counts, for the keys `uncertain` (overlay indexes, sorted) the lengths of
// their merged lists in one stored space by decoding their chunks, and
// moves *degrees and *arcs_change by the difference from the stored length.
class UncertainCounter {
 public:
  UncertainCounter(const Graph& graph, const EdgeSpace& space, const DeltaOverlay& o,
                   const std::vector<size_t>& uncertain, std::vector<uint32_t>* degrees, int64_t* arcs_change)
      : graph_(graph), space_(space), o_(o), uncertain_(uncertain), degrees_(*degrees), arcs_change_(*arcs_change) {
    block_range(space, &lo_, &hi_);
  }

  Status run() {
    std::vector<uint8_t> payload;
    std::vector<uint32_t> scratch;
    size_t u = 0;
    for (size_t c = 0; c < space_.index.size() && u < uncertain_.size(); ++c) {
      const ChunkIndexEntry& e = space_.index[c];
      while (u < uncertain_.size() && o_.keys[uncertain_[u]] < e.first_vertex) ++u;
      if (u == uncertain_.size() || o_.keys[uncertain_[u]] >= e.end_vertex()) continue;
      payload.resize(e.bytes);
      SG_RETURN_IF_ERROR(graph_.read_chunk_of(space_, c, payload.data()));
      size_t at = u;
      Status s =
          for_each_list(graph_.manifest().list_codec(), payload.data(), e, graph_.num_vertices(), graph_.weighted(),
                        &scratch, [&](uint32_t v, const uint32_t* list, uint32_t count, const float* weights) {
                          while (at < uncertain_.size() && o_.keys[uncertain_[at]] < v) ++at;
                          if (at < uncertain_.size() && o_.keys[uncertain_[at]] == v)
                            gather(uncertain_[at], list, count, weights);
                        });
      if (!s.ok()) return Status::Corruption(graph_.describe_chunk(space_, c) + ": " + s.message());
    }
    finish_key();
    return Status::OK();
  }

 private:
  // Pieces of a list split over chunks come one after another.
  void gather(size_t k, const uint32_t* list, uint32_t count, const float* weights) {
    if (k != key_) finish_key();
    key_ = k;
    list_.insert(list_.end(), list, list + count);
    if (weights != nullptr) weights_.insert(weights_.end(), weights, weights + count);
  }

  void finish_key() {
    if (key_ == SIZE_MAX) return;
    uint32_t first = 0, end = 0;
    o_.adds_in(key_, lo_, hi_, &first, &end);
    merged_.resize(list_.size() + (end - first));
    merged_weights_.resize(graph_.weighted() ? merged_.size() : 0);
    const uint32_t length =
        merge_list(o_, key_, first, end, list_.data(), graph_.weighted() ? weights_.data() : nullptr,
                   static_cast<uint32_t>(list_.size()), merged_.data(), merged_weights_.data());
    const int64_t change = int64_t{length} - static_cast<int64_t>(list_.size());
    degrees_[o_.keys[key_]] = static_cast<uint32_t>(degrees_[o_.keys[key_]] + change);
    arcs_change_ += change;
    list_.clear();
    weights_.clear();
    key_ = SIZE_MAX;
  }

  const Graph& graph_;
  const EdgeSpace& space_;
  const DeltaOverlay& o_;
  const std::vector<size_t>& uncertain_;
  std::vector<uint32_t>& degrees_;
  int64_t& arcs_change_;
  uint32_t lo_ = 0, hi_ = UINT32_MAX;
  size_t key_ = SIZE_MAX;
  std::vector<uint32_t> list_, merged_;
  std::vector<float> weights_, merged_weights_;
};

// Corrects the kind's degrees and each block's arc count for the overlay.
Status correct_degrees(Graph* graph, SpaceKind kind, const DeltaOverlay& o) {
  const std::vector<size_t>& blocks = graph->blocks(kind);
  std::vector<uint32_t>& degrees = graph->stored_space_to_correct(graph->degree_space(kind)).degrees;
  if (degrees.size() != graph->num_vertices())
    return Status::InvalidArgument("a run over updates needs its degrees loaded");
  std::vector<size_t> uncertain;
  std::vector<int64_t> arcs_change(blocks.size(), 0);
  for (size_t k = 0; k < o.keys.size(); ++k) {
    if (o.dedup || o.has_removes(k)) {
      uncertain.push_back(k);  // an add may meet a stored copy, a removal may take several
      continue;
    }
    for (size_t b = 0; b < blocks.size(); ++b) {
      uint32_t lo = 0, hi = 0, first = 0, end = 0;
      block_range(graph->stored_space(blocks[b]), &lo, &hi);
      o.adds_in(k, lo, hi, &first, &end);
      degrees[o.keys[k]] += end - first;
      arcs_change[b] += end - first;
    }
  }
  for (size_t b = 0; b < blocks.size() && !uncertain.empty(); ++b) {
    UncertainCounter counter(*graph, graph->stored_space(blocks[b]), o, uncertain, &degrees, &arcs_change[b]);
    SG_RETURN_IF_ERROR(counter.run());
  }
  for (size_t b = 0; b < blocks.size(); ++b) {
    EdgeSpace& space = graph->stored_space_to_correct(blocks[b]);
    space.meta.arcs = static_cast<uint64_t>(static_cast<int64_t>(space.meta.arcs) + arcs_change[b]);
  }
  return Status::OK();
}

}  // namespace

Status prepare_run_over_updates(Graph* graph) {
  const Manifest& m = graph->manifest();
  if (m.deltas.empty()) return Status::OK();
  if (m.vertices_after_deltas() != m.num_vertices) {
    return Status::InvalidArgument(
        graph->dir() + ": its updates add vertices (" + std::to_string(m.vertices_after_deltas() - m.num_vertices) +
        "); runs read such a graph once compacted: run `shardgraph compact " + graph->dir() + "` first");
  }
  GraphDeltas deltas;
  SG_RETURN_IF_ERROR(deltas.open(*graph));
  const bool dedup = m.ingest.duplicates_dropped;
  for (SpaceKind kind : {SpaceKind::kOut, SpaceKind::kIn}) {
    if (kind == SpaceKind::kIn && !m.directed) break;  // one space, both directions in its runs
    auto overlay = std::make_shared<DeltaOverlay>();
    SG_RETURN_IF_ERROR(build_delta_overlay(deltas.runs(kind), m.weighted, dedup, overlay.get()));
    SG_RETURN_IF_ERROR(correct_degrees(graph, kind, *overlay));
    graph->set_overlay(kind, std::move(overlay));
  }
  return Status::OK();
}

}  // namespace sg
