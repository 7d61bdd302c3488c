#include "shards/ingest/id_translation.h"

#include <algorithm>
#include <array>
#include <iterator>

#include "base/interrupt.h"
#include "base/parallel.h"
#include "shards/format/graph.h"
#include "shards/ingest/permutation.h"

namespace sg {

uint64_t IdTranslation::input_id_limit() const {
  return remap_ || opt_.remap == IngestOptions::Remap::kAuto ? UINT64_MAX : uint64_t{UINT32_MAX} - 1;
}

// --remap: the dense id of an original id is its rank among the distinct ids,
// so the order of ids (and of results) is kept. Needs 8 bytes per distinct id.
Status IdTranslation::collect_ids(EdgeReader* reader, size_t batch_edges) {
  // A vertex file defines the vertex set, isolated vertices included.
  Status listed = reader->vertex_ids(&id_map_);
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
    SG_RETURN_IF_ERROR(reader->next_batch(&batch, batch_edges));
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

Status IdTranslation::start(const InputShape& shape, Permutation* permutation, const Graph* source) {
  shape_ = shape;
  permutation_ = permutation;
  if (permutation_ == nullptr) return Status::OK();
  if (source == nullptr || permutation_->size() != source->num_vertices()) {
    return Status::InvalidArgument(opt_.input + ": a permutation applies to a stored graph of as many vertices");
  }
  for (size_t s : source->blocks(SpaceKind::kOut))
    source_block_starts_.push_back(source->stored_space(s).neighbour_begin);
  return Status::OK();
}

Status IdTranslation::translate(const RawEdge& raw, uint32_t* src, uint32_t* dst) const {
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

uint64_t IdTranslation::count_vertices() const {
  uint64_t n = remap_ ? id_map_.size() : (saw_edge_ ? max_dense_id_ + 1 : 0);
  // Declared vertices (mtx rows, SNAP "# Nodes:") add isolated vertices;
  // remapped ids only exist for ids that occur.
  if (!remap_) n = std::max<uint64_t>(n, shape_.declared_vertices);
  return n;
}

namespace {

// New ids of dense ones, through a relabelling pass's permutation (whole,
// or windows that cover the arcs): sources[v - source_first],
// neighbours[v - neighbour_first].
struct NewIds {
  const uint32_t* sources;
  uint64_t source_first;
  const uint32_t* neighbours;
  uint64_t neighbour_first;
  uint64_t last_slot;  // the permutation's last
};

// Ids without remapping: each less the base, checked by one compare (an
// id below the base wraps past the limit), then through the permutation
// if kRelabel. Returns how many arcs were written: all, or up to the
// first bad one. A loop of its own with its fields in registers: in
// translate_part's general loop every field was reloaded each arc (R-MAT
// 22's ingest from the page cache: 11 % of its samples, 1 % here).
template <bool kWeighted, bool kTranspose, bool kRelabel>
size_t dense_arcs(const RawEdge* raw, size_t count, uint64_t base, const NewIds& ids, DenseArc* __restrict out,
                  uint64_t* largest) {
  constexpr uint64_t kLimit = uint64_t{UINT32_MAX} - 1;
  // A relabelling pass reads a stored graph: arcs come by source, so the
  // source's new id is one lookup a list and the neighbours' are random;
  // they are prefetched this many arcs ahead (16 -> 64: the relabelling
  // route of R-MAT 24 from the page cache 5.45-6.27 -> 4.74-5.36 s; 128 was
  // no better).
  constexpr size_t kPrefetchArcs = 64;
  uint32_t most = 0;
  for (size_t i = 0; i < count; ++i) {
    uint64_t src = raw[i].src - base, dst = raw[i].dst - base;
    // Relabelled, an id must also have a new one (a whole permutation is
    // not bounds-checked otherwise).
    if (src > kLimit || dst > kLimit || (kRelabel && (src > ids.last_slot || dst > ids.last_slot))) [[unlikely]] {
      *largest = std::max<uint64_t>(*largest, most);
      return i;
    }
    if constexpr (kRelabel) {
      if (i + kPrefetchArcs < count) {
        const uint64_t ahead = std::min<uint64_t>(raw[i + kPrefetchArcs].dst - base, ids.last_slot);
        if (ahead >= ids.neighbour_first) __builtin_prefetch(ids.neighbours + (ahead - ids.neighbour_first));
      }
      src = ids.sources[src - ids.source_first];
      dst = ids.neighbours[dst - ids.neighbour_first];
    }
    most = std::max({most, static_cast<uint32_t>(src), static_cast<uint32_t>(dst)});
    const float weight = kWeighted ? raw[i].weight : 1.0f;
    out[i] = kTranspose ? DenseArc{static_cast<uint32_t>(dst), static_cast<uint32_t>(src), weight}
                        : DenseArc{static_cast<uint32_t>(src), static_cast<uint32_t>(dst), weight};
  }
  *largest = std::max<uint64_t>(*largest, most);
  return count;
}

using DenseArcsFn = size_t (*)(const RawEdge*, size_t, uint64_t, const NewIds&, DenseArc*, uint64_t*);
template <bool kWeighted, bool kTranspose>
constexpr std::array<DenseArcsFn, 2> kDenseArcsByRelabel = {dense_arcs<kWeighted, kTranspose, false>,
                                                            dense_arcs<kWeighted, kTranspose, true>};
// [weighted][transpose][relabel]
constexpr std::array<std::array<std::array<DenseArcsFn, 2>, 2>, 2> kDenseArcs = {
    {{kDenseArcsByRelabel<false, false>, kDenseArcsByRelabel<false, true>},
     {kDenseArcsByRelabel<true, false>, kDenseArcsByRelabel<true, true>}}};

}  // namespace

// Dense (and relabelled) ids of batch[begin, end), in two halves in
// parallel: the permutation lookups miss the caches.
Status IdTranslation::translate_part(const std::vector<RawEdge>& batch, size_t begin, size_t end,
                                     const IdLookup& lookup, std::vector<DenseArc>* arcs) {
  constexpr size_t kParts = 2;
  std::array<Status, kParts> status;
  std::array<uint64_t, kParts> max_id{};
  const size_t step = (end - begin + kParts - 1) / kParts;
  const bool relabel = lookup.neighbours != nullptr;
  const NewIds ids{lookup.sources, lookup.source_first, lookup.neighbours, lookup.neighbour_first,
                   permutation_ == nullptr ? 0 : permutation_->size() - 1};
  const DenseArcsFn dense = kDenseArcs[shape_.weighted][opt_.transpose][relabel];
  parallel_for(size_t{0}, kParts, size_t{1}, [&](size_t p0, size_t p1) {
    for (size_t p = p0; p < p1; ++p) {
      const size_t part_end = std::min(end, begin + (p + 1) * step);
      uint64_t largest = 0;
      DenseArc* out = arcs->data();
      size_t i = begin + p * step;
      if (!remap_ && i < part_end) i += dense(batch.data() + i, part_end - i, shape_.id_base, ids, out + i, &largest);
      // Remapped ids, and a bad id (translate() words the error).
      for (; i < part_end; ++i) {
        uint32_t src = 0, dst = 0;
        status[p] = translate(batch[i], &src, &dst);
        if (status[p].ok() && relabel && std::max(src, dst) > ids.last_slot) status[p] = past_permutation(src, dst);
        if (!status[p].ok()) break;
        if (relabel) {
          src = ids.sources[src - ids.source_first];
          dst = ids.neighbours[dst - ids.neighbour_first];
        }
        largest = std::max<uint64_t>(largest, std::max(src, dst));
        if (opt_.transpose) std::swap(src, dst);
        out[i] = DenseArc{src, dst, shape_.weighted ? batch[i].weight : 1.0f};
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

Status IdTranslation::past_permutation(uint64_t src, uint64_t dst) const {
  return Status::Corruption(opt_.input + ": vertex id " + std::to_string(std::max(src, dst)) +
                            " past the permutation's " + std::to_string(permutation_->size()) + " vertices");
}

// batch[begin, end) through the permutation's windows: the whole range when
// they cover its ids, else each half (a range of one arc always fits).
Status IdTranslation::translate_windowed(const std::vector<RawEdge>& batch, size_t begin, size_t end,
                                         std::vector<DenseArc>* arcs) {
  if (begin == end) return Status::OK();
  const uint64_t base = shape_.id_base;
  uint64_t src_lo = UINT64_MAX, src_hi = 0, dst_lo = UINT64_MAX, dst_hi = 0;
  for (size_t i = begin; i < end; ++i) {
    src_lo = std::min(src_lo, batch[i].src - base);
    src_hi = std::max(src_hi, batch[i].src - base);
    dst_lo = std::min(dst_lo, batch[i].dst - base);
    dst_hi = std::max(dst_hi, batch[i].dst - base);
  }
  if (std::max(src_hi, dst_hi) >= permutation_->size()) return past_permutation(src_hi, dst_hi);
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
Status IdTranslation::translate_batch(const std::vector<RawEdge>& batch, std::vector<DenseArc>* arcs) {
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
      const DenseArc a = (*arcs)[i];
      if (a.src != a.dst) arcs->push_back(DenseArc{a.dst, a.src, a.weight});
    }
  }
  if (opt_.keep_destinations_begin != 0 || opt_.keep_destinations_end != UINT32_MAX) {
    std::erase_if(*arcs, [&](const DenseArc& a) {
      return a.dst < opt_.keep_destinations_begin || a.dst >= opt_.keep_destinations_end;
    });
  }
  saw_edge_ = saw_edge_ || !batch.empty();
  return Status::OK();
}

}  // namespace sg
