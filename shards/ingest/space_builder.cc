#include "shards/ingest/space_builder.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <future>

#include "base/huge_pages.h"
#include "base/interrupt.h"
#include "base/parallel.h"
#include "compression/chunk_lists.h"
#include "compression/chunk_packing.h"
#include "shards/ingest/arc_record.h"
#include "shards/ingest/batch_lists.h"
#include "shards/ingest/list_sort.h"

namespace sg {
namespace {

// Buckets read and sorted together; an oversize one (larger than a batch)
// alone, routed again.
struct BucketGroup {
  uint32_t first = 0, last = 0;
  bool oversize = false;
};

constexpr uint64_t kEdgesPerPart = 1 << 16;  // below this a batch is not split
// Each part ends in a partial chunk, so a part should hold several chunks
// (a chunk codes about 2 bytes an edge unpacked) unless that would leave a
// thread idle: R-MAT 22 at 256M has 1.3 M edges a batch, and 8 parts of
// one chunk each stored 535 chunks a space where 390 would do.
constexpr uint64_t kChunksPerPart = 4;
// A run of vertices without edges at least this long is encoded on its own,
// this many at a time: an order puts the isolated vertices last, and one
// part holding millions of them would hold 5 bytes each outside the batch
// budget. (Shorter runs stay in the parts: a run cut off costs a partial chunk.)
constexpr uint32_t kEmptySliceVertices = 1 << 16;

// An arc dropped from a list (a self-loop or duplicate): no vertex has this
// id (at most 2^32 - 1 vertices, ids below).
constexpr uint32_t kDroppedNeighbour = UINT32_MAX;
void mark_dropped(uint32_t& neighbour) { neighbour = kDroppedNeighbour; }
void mark_dropped(WeightedNeighbour& neighbour) { neighbour.id = kDroppedNeighbour; }
const uint32_t* neighbour_id_address(const uint32_t* neighbours) { return neighbours; }
const uint32_t* neighbour_id_address(const WeightedNeighbour* neighbours) { return &neighbours->id; }

template <typename Record>
class SpaceBuilder {
  using Neighbour = typename Record::Neighbour;

 public:
  SpaceBuilder(const SpaceBuildOptions& options, const std::vector<SpaceOutput*>& outs) : opt_(options), outs_(outs) {
    assert(opt_.num_vertices > 0 && opt_.batch_records > 0);
    assert(!opt_.block_starts.empty() && opt_.block_starts[0] == 0 && outs_.size() == opt_.block_starts.size());
    last_value_ = (uint64_t{opt_.num_vertices} << 32) - 1;
    const size_t parts = std::max<size_t>(opt_.parts, 1);
    const bool weighted = !std::is_same_v<Neighbour, uint32_t>;
    encoders_.resize(outs_.size());
    for (size_t b = 0; b < encoders_.size(); ++b) {
      for (size_t p = 0; p < parts; ++p)
        encoders_[b].emplace_back(opt_.chunk_bytes, weighted, opt_.interval_starts, opt_.codec, b == 0, opt_.gap_choice,
                                  opt_.entropy_first);
    }
    part_stats_.resize(parts);
    part_carry_.resize(parts);
  }

  Status run(BucketRouter<Record>* router) {
    // No larger than the whole space: a small graph under a large budget
    // touches only what it needs.
    const size_t batch = static_cast<size_t>(std::clamp<uint64_t>(router->total_records(), 2, opt_.batch_records));
    assign_touched(&records_, batch);  // in huge pages: sorted by scattering
    if (opt_.read_ahead) assign_touched(&spare_, batch);
    SG_RETURN_IF_ERROR(process_router(*router, 0, last_value_));
    return encode_empty_until(opt_.num_vertices);
  }

  const SpaceBuildStats& stats() const { return stats_; }

 private:
  struct Carry {  // the last arc of a batch, before filtering
    bool valid = false;
    uint32_t vertex = 0, neighbour = 0;
  };

  Status process_router(const BucketRouter<Record>& router, int depth, uint64_t limit);
  std::vector<BucketGroup> plan_groups(const BucketRouter<Record>& router, uint64_t limit) const;
  Status read_group(const BucketRouter<Record>& router, const BucketGroup& group, Record* out, size_t* count) const;
  Status process_oversize(const BucketRouter<Record>& router, uint32_t bucket, int depth, uint64_t limit);
  template <typename Sink>
  Status read_in_pieces(const BucketRouter<Record>& router, uint32_t bucket, Sink&& sink);
  Status process_records(size_t count, uint64_t first_value, uint64_t last_value);
  Status encode_parts(bool sort_lists, uint32_t end_vertex);
  Status encode_round(size_t first, size_t end, uint32_t end_vertex, bool sort_lists);
  Status encode_empty_until(uint32_t end_vertex);
  // Appends part `part` of every block.
  Status append_part(size_t part);
  void encode_part(size_t part, size_t list_begin, size_t list_end, uint32_t vertex_begin, uint32_t vertex_end,
                   bool sort_lists);
  void count_neighbours(size_t begin, size_t end);

  const SpaceBuildOptions& opt_;
  std::vector<SpaceOutput*> outs_;  // one per block
  uint64_t last_value_ = 0;         // the largest packed arc of a valid vertex
  uint32_t next_vertex_ = 0;        // first vertex whose list no batch has begun
  Carry carry_;
  std::vector<Record> records_;
  std::vector<Record> spare_;  // the next batch, read ahead (SpaceBuildOptions::read_ahead)
  // A batch's arrays besides its records: reserved at their largest before
  // a batch is sorted, released while a bucket is routed again (its
  // sub-buckets' buffers take their room: R-MAT 22's relabelling pass at
  // --memory 64M re-routed 115 buckets and peaked at 1.2x the budget).
  BatchLists<Record> lists_;
  std::vector<std::vector<ChunkEncoder>> encoders_;  // [block][part]
  std::vector<SpaceBuildStats> part_stats_;
  std::vector<Carry> part_carry_;
  SpaceBuildStats stats_;
};

// Buckets up to `limit` (the last value of the range being built: a
// sub-router's power-of-two range may run past its parent bucket's): runs
// of buckets that fit a batch together, and buckets larger than a batch
// alone. With read-ahead, the next group is read into the spare batch
// while this one is sorted and encoded.
template <typename Record>
Status SpaceBuilder<Record>::process_router(const BucketRouter<Record>& router, int depth, uint64_t limit) {
  const std::vector<BucketGroup> groups = plan_groups(router, limit);
  std::future<Status> reading;  // of groups[g + 1] into spare_, when started
  size_t read_count = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (interrupt_requested()) return Status::Interrupted("ingest stopped by a signal");
    const BucketGroup& group = groups[g];
    if (group.oversize) {
      SG_RETURN_IF_ERROR(process_oversize(router, group.first, depth, limit));
      continue;
    }
    size_t count = 0;
    if (reading.valid()) {
      SG_RETURN_IF_ERROR(reading.get());
      records_.swap(spare_);
      count = read_count;
    } else {
      SG_RETURN_IF_ERROR(read_group(router, group, records_.data(), &count));
    }
    if (!spare_.empty() && g + 1 < groups.size() && !groups[g + 1].oversize) {
      reading = std::async(std::launch::async, [this, &router, next = groups[g + 1], &read_count] {
        return read_group(router, next, spare_.data(), &read_count);
      });
    } else if (g + 1 < groups.size()) {  // no spare batch: the page cache reads ahead
      for (uint32_t b = groups[g + 1].first; b <= groups[g + 1].last; ++b) router.prefetch_bucket(b);
    }
    // A failed batch still waits for the read in flight (the future's
    // destructor blocks) before spare_ can go.
    SG_RETURN_IF_ERROR(
        process_records(count, router.first_value(group.first), std::min(router.last_value(group.last), limit)));
  }
  return Status::OK();
}

template <typename Record>
std::vector<BucketGroup> SpaceBuilder<Record>::plan_groups(const BucketRouter<Record>& router, uint64_t limit) const {
  const uint64_t cap = records_.size();
  std::vector<BucketGroup> groups;
  uint64_t records = 0;
  bool open = false;
  for (uint32_t b = 0; b < router.bucket_count() && router.first_value(b) <= limit; ++b) {
    const uint64_t r = router.records(b);
    if (open && (r > cap || records + r > cap)) open = false;
    if (r > cap) {
      groups.push_back(BucketGroup{b, b, true});
      continue;
    }
    if (!open) {
      open = true;
      records = 0;
      groups.push_back(BucketGroup{b, b, false});
    }
    groups.back().last = b;
    records += r;
  }
  return groups;
}

template <typename Record>
Status SpaceBuilder<Record>::read_group(const BucketRouter<Record>& router, const BucketGroup& group, Record* out,
                                        size_t* count) const {
  size_t at = 0;
  for (uint32_t b = group.first; b <= group.last; ++b) {
    SG_RETURN_IF_ERROR(router.read_bucket(b, out + at));
    at += router.records(b);
    router.discard(b);
  }
  *count = at;
  return Status::OK();
}

// Calls sink(count) with the bucket's records loaded into records_, at most a
// batch at a time.
template <typename Record>
template <typename Sink>
Status SpaceBuilder<Record>::read_in_pieces(const BucketRouter<Record>& router, uint32_t bucket, Sink&& sink) {
  SG_RETURN_IF_ERROR(router.read_bucket_in_pieces(bucket, records_.data(), records_.size(),
                                                  [&](uint64_t count) { return sink(static_cast<size_t>(count)); }));
  router.discard(bucket);
  return Status::OK();
}

// Routes a bucket larger than a sort batch again, into about twice as many
// sub-buckets as batches it holds (fewer sub-buckets: larger segments to
// read back, which a disk that does 300 I/Os a second needs). The
// sub-buckets' buffers take 1.5 times the batch's records (12 of the 28
// bytes a batch record is budgeted): while routing, the lists and the
// encoders' output are idle.
template <typename Record>
Status SpaceBuilder<Record>::process_oversize(const BucketRouter<Record>& router, uint32_t bucket, int depth,
                                              uint64_t limit) {
  const uint64_t value = router.first_value(bucket);
  const uint64_t last = std::min(router.last_value(bucket), limit);
  if (value == last) {  // every record is the same arc: sorted already
    return read_in_pieces(router, bucket, [&](size_t count) { return process_records(count, value, value); });
  }
  const int bits = std::bit_width(last - value);  // [value, last] fits in 2^bits values
  const uint64_t batches = router.records(bucket) / records_.size() + 1;
  const int wanted_bits = std::bit_width(2 * batches - 1);  // 2^wanted_bits >= 2 * batches
  const int sub_bits = std::min({bits, std::countr_zero(opt_.sub_buckets), wanted_bits});
  const uint32_t sub_count = uint32_t{1} << sub_bits;
  const size_t buffer_records = std::max<size_t>(64, records_.size() * 3 / 2 / sub_count);
  lists_.release();
  BucketRouter<Record> sub;
  SG_RETURN_IF_ERROR(sub.open(opt_.spill_prefix + "." + std::to_string(depth), sub_count, buffer_records, value,
                              bits - sub_bits, false));
  Status s = read_in_pieces(router, bucket, [&](size_t count) {
    for (size_t i = 0; i < count; ++i) SG_RETURN_IF_ERROR(sub.add(records_[i]));
    return Status::OK();
  });
  if (s.ok()) s = sub.finish();
  if (s.ok()) s = process_router(sub, depth + 1, last);
  sub.remove();
  return s;
}

template <typename Record>
Status SpaceBuilder<Record>::process_records(size_t count, uint64_t first_value, uint64_t last_value) {
  assert(count < UINT32_MAX && first_value <= last_value && last_value <= last_value_);
  ++stats_.batches;
  const uint32_t first_vertex = arc_key(first_value);
  const uint32_t last_vertex = arc_key(last_value);
  lists_.reserve(records_.size());
  const bool sort_lists = lists_.build(records_.data(), count, first_vertex, last_vertex);
  return encode_parts(sort_lists, last_vertex + 1);
}

// Empty lists of [next_vertex_, end_vertex), a slice at a time.
template <typename Record>
Status SpaceBuilder<Record>::encode_empty_until(uint32_t end_vertex) {
  while (next_vertex_ < end_vertex) {
    const uint32_t end =
        static_cast<uint32_t>(std::min<uint64_t>(end_vertex, uint64_t{next_vertex_} + kEmptySliceVertices));
    for (std::vector<ChunkEncoder>& block : encoders_) {
      block[0].begin(next_vertex_);
      block[0].finish(end);
    }
    SG_RETURN_IF_ERROR(append_part(0));
    next_vertex_ = end;
  }
  return Status::OK();
}

template <typename Record>
Status SpaceBuilder<Record>::append_part(size_t part) {
  for (size_t b = 0; b < encoders_.size(); ++b) SG_RETURN_IF_ERROR(outs_[b]->append(encoders_[b][part]));
  return Status::OK();
}

// Encodes the batch's lists in rounds of at most half a batch of vertices
// (empty lists cost a byte and a degree each, outside the per-record
// budget), each round in parallel parts.
template <typename Record>
Status SpaceBuilder<Record>::encode_parts(bool sort_lists, uint32_t end_vertex) {
  const size_t lists = lists_.vertex.size();
  // Long runs of empty lists after the last list go with the next batch or
  // the tail (encode_empty_until).
  if (lists > 0 && end_vertex >= uint64_t{std::max(lists_.vertex.back() + 1, next_vertex_)} + kEmptySliceVertices) {
    end_vertex = std::max(lists_.vertex.back() + 1, next_vertex_);
  }
  if (lists == 0) return encode_empty_until(end_vertex);
  const uint64_t round_vertices = std::max<uint64_t>(records_.size() / 2, kEmptySliceVertices);
  size_t first = 0;
  do {
    // A long run of empty lists before the round's first list, on its own.
    if (first < lists && lists_.vertex[first] >= next_vertex_ + uint64_t{kEmptySliceVertices}) {
      SG_RETURN_IF_ERROR(encode_empty_until(lists_.vertex[first]));
    }
    size_t end = first + 1;
    while (end < lists && lists_.vertex[end] < next_vertex_ + round_vertices) ++end;
    end = std::min(end, lists);
    uint32_t round_end = end_vertex;
    if (end < lists) {  // up to the next list, or past the last one when a long empty run follows
      const uint32_t after_last = std::max(lists_.vertex[end - 1] + 1, next_vertex_);
      round_end = lists_.vertex[end] >= uint64_t{after_last} + kEmptySliceVertices ? after_last : lists_.vertex[end];
    }
    SG_RETURN_IF_ERROR(encode_round(first, end, round_end, sort_lists));
    first = end;
  } while (first < lists);
  return Status::OK();
}

// Lists [first, end) and the empty lists up to end_vertex, in parallel parts.
template <typename Record>
Status SpaceBuilder<Record>::encode_round(size_t first, size_t end, uint32_t end_vertex, bool sort_lists) {
  const uint64_t edges = lists_.begin[end] - lists_.begin[first];
  const uint64_t most = std::clamp<uint64_t>(edges / kEdgesPerPart, 1, encoders_[0].size());
  const uint64_t least = std::clamp<uint64_t>(parallel_threads(), 1, most);
  const uint64_t part_edges = std::max<uint64_t>(kEdgesPerPart, kChunksPerPart * opt_.chunk_bytes / 2);
  const size_t parts = static_cast<size_t>(std::clamp<uint64_t>(edges / part_edges, least, most));
  // Parts split the lists at about equal edge counts; a continued list
  // (vertex next_vertex_ - 1) stays in part 0.
  std::vector<size_t> split(parts + 1, end);
  std::vector<uint32_t> vertex_begin(parts + 1, end_vertex);
  split[0] = first;
  vertex_begin[0] = next_vertex_;
  size_t at = (first < end && lists_.vertex[first] < next_vertex_) ? first + 1 : first;
  for (size_t k = 1; k < parts; ++k) {
    const uint64_t target = lists_.begin[first] + edges * k / parts;
    while (at < end && lists_.begin[at] < target) ++at;
    split[k] = std::max(at, split[k - 1]);
    if (split[k] < end) vertex_begin[k] = std::max(lists_.vertex[split[k]], next_vertex_);
  }
  parallel_for(size_t{0}, parts, size_t{1}, [&](size_t k0, size_t k1) {
    for (size_t k = k0; k < k1; ++k)
      encode_part(k, split[k], split[k + 1], vertex_begin[k], vertex_begin[k + 1], sort_lists);
  });
  if (opt_.neighbour_counts != nullptr) count_neighbours(lists_.begin[first], lists_.begin[end]);
  for (size_t k = 0; k < parts; ++k) {
    SG_RETURN_IF_ERROR(append_part(k));
    const SpaceBuildStats& s = part_stats_[k];
    stats_.self_loops += s.self_loops;
    stats_.self_loop_vertices += s.self_loop_vertices;
    stats_.duplicates += s.duplicates;
    stats_.stored_loops += s.stored_loops;
    if (part_carry_[k].valid) carry_ = part_carry_[k];
  }
  next_vertex_ = std::max(next_vertex_, end_vertex);
  return Status::OK();
}

// Adds the kept neighbours of lists_.neighbours[begin, end) to
// opt_.neighbour_counts: each thread takes a range of ids and reads every
// entry, so that no increment is atomic (an atomic one per arc, at random
// addresses, took over half of the first pass's encoding).
template <typename Record>
void SpaceBuilder<Record>::count_neighbours(size_t begin, size_t end) {
  constexpr size_t kRanges = 2;
  uint32_t* counts = opt_.neighbour_counts;
  const Neighbour* neighbours = lists_.neighbours.data();
  parallel_for(size_t{0}, kRanges, size_t{1}, [&](size_t r0, size_t r1) {
    for (size_t r = r0; r < r1; ++r) {
      const uint32_t low = static_cast<uint32_t>(uint64_t{opt_.num_vertices} * r / kRanges);
      const uint32_t high = static_cast<uint32_t>(uint64_t{opt_.num_vertices} * (r + 1) / kRanges);
      for (size_t k = begin; k < end; ++k) {
        const uint32_t id = neighbour_id(neighbours[k]);  // kDroppedNeighbour is past every range
        if (id - low < high - low) ++counts[id];
      }
    }
  });
}

template <typename Record>
void SpaceBuilder<Record>::encode_part(size_t part, size_t list_begin, size_t list_end, uint32_t vertex_begin,
                                       uint32_t vertex_end, bool sort_lists) {
  // Counts and options in locals: kept in the part's stats and read from
  // opt_ every arc, they were stored and reloaded each time (half of this
  // loop's samples, R-MAT 24).
  SpaceBuildStats stats;
  const bool count_input = opt_.count_input, undirected = opt_.undirected;
  const bool drop_self_loops = opt_.drop_self_loops, dedup = opt_.dedup;
  part_carry_[part] = Carry{};
  for (std::vector<ChunkEncoder>& block : encoders_) block[part].begin(vertex_begin);
  const std::vector<uint32_t>& block_starts = opt_.block_starts;
  for (size_t i = list_begin; i < list_end; ++i) {
    const uint32_t v = lists_.vertex[i];
    Neighbour* list = lists_.neighbours.data() + lists_.begin[i];
    const uint32_t count = lists_.begin[i + 1] - lists_.begin[i];
    // Lists of inputs sorted by source (arc dumps, CSR-like files, a stored
    // graph read back) come out of the stable scatter sorted already.
    if (sort_lists && !std::is_sorted(list, list + count)) {
      if constexpr (std::is_same_v<Neighbour, uint32_t>) {
        // The batch's records were scattered into the lists and are not
        // read again: each list's slots there (twice its bytes) are its
        // scratch, apart from every other list's.
        sort_neighbour_list(list, count, reinterpret_cast<uint32_t*>(records_.data()) + lists_.begin[i]);
      } else {
        std::sort(list, list + count);
      }
    }
    // The arc before this list's first one, for duplicates: only a list
    // continued from the previous batch has one.
    bool has_previous = i == 0 && carry_.valid && carry_.vertex == v;
    uint32_t previous = carry_.neighbour;
    uint32_t kept = 0;
    for (uint32_t j = 0; j < count; ++j) {
      const uint32_t id = neighbour_id(list[j]);
      const bool duplicate = has_previous && id == previous;
      const bool loop = id == v;
      has_previous = true;
      previous = id;
      if (count_input && (!undirected || v <= id)) {
        stats.self_loops += loop;
        stats.self_loop_vertices += loop && !duplicate;
        stats.duplicates += duplicate;
      }
      if ((drop_self_loops && loop) || (dedup && duplicate)) continue;
      stats.stored_loops += loop && count_input;
      list[kept++] = list[j];
    }
    if (count > 0) part_carry_[part] = Carry{true, v, previous};
    // Dropped arcs are marked for count_neighbours.
    if (opt_.neighbour_counts != nullptr) {
      for (uint32_t j = kept; j < count; ++j) mark_dropped(list[j]);
    }
    if (opt_.list_observer != nullptr && kept > 0) {
      static_assert(sizeof(Neighbour) % sizeof(uint32_t) == 0);
      opt_.list_observer->on_list(v, neighbour_id_address(list), kept, sizeof(Neighbour) / sizeof(uint32_t));
    }
    if (block_starts.size() == 1) {
      encoders_[0][part].add_list(v, list, kept);
      continue;
    }
    // The list is sorted: one piece a block, cut at the blocks' starts.
    // The first block's encoder keeps the whole degree.
    uint32_t piece = 0;
    for (size_t b = 0; b < block_starts.size() && piece < kept; ++b) {
      uint32_t end = piece;
      const uint64_t limit = b + 1 < block_starts.size() ? block_starts[b + 1] : UINT64_MAX;
      while (end < kept && neighbour_id(list[end]) < limit) ++end;
      if (end > piece) encoders_[b][part].add_list(v, list + piece, end - piece);
      if (b == 0 && kept > end) encoders_[0][part].add_degree(v, kept - end);
      piece = end;
    }
  }
  for (std::vector<ChunkEncoder>& block : encoders_) block[part].finish(vertex_end);
  part_stats_[part] = stats;
}

}  // namespace

size_t encoder_parts(size_t blocks, uint32_t chunk_bytes, uint64_t memory_bytes) {
  const size_t threads = std::max<size_t>(1, parallel_threads());
  blocks = std::max<size_t>(blocks, 1);
  const size_t wanted = std::max(threads, 4 * threads / blocks);
  const uint64_t affordable = memory_bytes / 8 / (blocks * kEncoderChunks * uint64_t{chunk_bytes});
  return static_cast<size_t>(std::clamp<uint64_t>(affordable, 1, wanted));
}

uint64_t space_build_fixed_bytes(uint32_t chunk_bytes, size_t blocks, size_t parts) {
  constexpr uint64_t kOutputBufferBytes = (1 << 20) + (1 << 18);  // SpaceOutput: writes, degrees
  // The first block's output is in ingest's fixed 4 MiB (held_bytes).
  return parts * blocks * kEncoderChunks * uint64_t{chunk_bytes} +
         (std::max<size_t>(blocks, 1) - 1) * kOutputBufferBytes;
}

uint64_t space_build_thread_bytes(uint32_t chunk_bytes, ListCodec codec, GapChoice gap_choice) {
  // A chunk is cut where it stores about chunk_bytes (ChunkEncoder); the
  // coders' buffers hold about that much.
  const uint64_t lists_bytes = chunk_bytes;
  if (codec != ListCodec::kV3) return 0;
  if (gap_choice == GapChoice::kEntropy)
    return pack_thread_bytes(lists_bytes) + entropy_lists_thread_bytes(lists_bytes);
  return gap_choice == GapChoice::kSmallest ? pack_thread_bytes(lists_bytes) : 0;
}

template <typename Record>
Status build_space(BucketRouter<Record>* router, const SpaceBuildOptions& options,
                   const std::vector<SpaceOutput*>& outs, SpaceBuildStats* stats) {
  SpaceBuilder<Record> builder(options, outs);
  SG_RETURN_IF_ERROR(builder.run(router));
  *stats = builder.stats();
  return Status::OK();
}

template Status build_space<PlainArc>(BucketRouter<PlainArc>*, const SpaceBuildOptions&,
                                      const std::vector<SpaceOutput*>&, SpaceBuildStats*);
template Status build_space<WeightedArc>(BucketRouter<WeightedArc>*, const SpaceBuildOptions&,
                                         const std::vector<SpaceOutput*>&, SpaceBuildStats*);

}  // namespace sg
