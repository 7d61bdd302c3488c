#include "shards/ingest/ingest_plan.h"

#include <algorithm>
#include <bit>

#include "shards/format/graph.h"
#include "shards/ingest/permutation.h"
#include "shards/ingest/vertex_histogram.h"

namespace sg {

size_t IngestBudget::read_batch_edges() const { return std::clamp<size_t>(memory_bytes / 8 / 80, 1024, 1 << 16); }

uint32_t IngestBudget::bucket_override() const {
  return static_cast<uint32_t>(std::bit_floor(std::clamp<uint64_t>(route_buckets, 2, uint64_t{1} << 31)));
}

// Bucket count of each space's router. The sort phase
// reads each bucket's segments back, one request a segment, so segments
// must be large: on an HDD at 300 IOPS, 32 KiB segments read at 10 MB/s,
// 1 MiB ones at full speed. So as few buckets as let one bucket fit a sort
// batch (from the input's size), with buffers sharing three quarters of
// what the id maps leave (routing holds little else: read batches of at
// most 64 Ki edges); a bucket that still overflows is routed again
// (space_builder.cc).
// At most 256 buckets, so the buffers being filled stay few enough for the
// caches and TLB (routing is memory-bound). And fewer when that leaves a
// bucket's buffer below kMinSegmentBytes: below it a segment costs more in
// request time than the second pass over oversized buckets does (their
// sub-routing, space_builder.cc, with the whole sort memory for buffers).
// The relabelling pass of an ordered ingest routes while it holds the
// permutation (4 bytes a vertex): R-MAT 25 in 176 MiB left ~77 KiB a
// segment, and its sort phase read the spill at 18 MB/s from an HDD.
uint32_t IngestBudget::route_bucket_count(uint64_t records_per_space, size_t spaces, size_t sort_records) const {
  // A bucket a batch on average; skewed ids overflow some, which are routed
  // again with large segments (cheaper than small segments for all).
  const uint64_t wanted = records_per_space / std::max<size_t>(sort_records, 1) + 1;
  uint64_t count = std::bit_ceil(std::clamp<uint64_t>(wanted, 16, 256));
  if (route_buckets != 0) {
    count = bucket_override();
  } else {
    count = std::min<uint64_t>(count,
                               std::max<uint64_t>(16, std::bit_floor(route_buffer_bytes(spaces) / kMinSegmentBytes)));
  }
  return static_cast<uint32_t>(count);
}

uint64_t IngestBudget::route_buffer_bytes(size_t spaces) const {
  const uint64_t free_bytes = memory_bytes > held_bytes ? memory_bytes - held_bytes : 0;
  return std::max<uint64_t>(free_bytes / 4 * 3 / spaces, 64 * 1024);
}

size_t IngestBudget::route_buffer_records(size_t record_bytes, size_t spaces, uint64_t buckets) const {
  constexpr uint64_t kMaxBufferBytes = 4 << 20;
  return std::max<size_t>(std::min(kMaxBufferBytes, route_buffer_bytes(spaces) / buckets) / record_bytes, 16);
}

// Records sorted at once: what the budget leaves after the id maps, the
// write buffers and the histograms.
size_t IngestBudget::batch_records(size_t bytes_per_record) const {
  if (sort_buffer_edges != 0) return std::max<size_t>(sort_buffer_edges, 2);
  const uint64_t free_bytes = memory_bytes > held_bytes + (1 << 20) ? memory_bytes - held_bytes : 1 << 20;
  return std::max<size_t>(free_bytes / bytes_per_record, 1024);
}

// A stored graph read back (the relabelling pass of an ordered ingest)
// tells each space's arcs per vertex before routing, from its degree
// files: buckets are then cut by those counts, each within a sort batch,
// in slots of 2^k vertices (at most 64 Ki slots). A locality order puts
// the hubs first; with equal ranges the first buckets held many batches
// each and were routed again in small segments (R-MAT 22 on an HDD: 119 s
// of sorting instead of 8). Leaves `ranges` empty for other inputs.
Status known_bucket_ranges(const Graph& source, const Permutation* permutation, SpaceKind kind,
                           const IngestBudget& budget, size_t spaces, size_t sort_records, BucketRanges* ranges) {
  *ranges = BucketRanges{};
  const uint64_t n = source.num_vertices();
  const int shift = SlotArcs::shift_for(n);
  const uint32_t slot_count = SlotArcs::slot_count(n);
  // Counted by the order that made the permutation (write_degree_order).
  if (permutation != nullptr) {
    const SlotArcs& known = permutation->slot_arcs();
    const std::vector<uint64_t>& arcs = kind == SpaceKind::kOut ? known.out : known.in;
    if (known.shift == shift && arcs.size() == slot_count) {
      cut_bucket_ranges(arcs, shift, budget, spaces, sort_records, false, ranges);
      return Status::OK();
    }
  }
  std::vector<uint64_t> counts(slot_count, 0);
  std::vector<uint32_t> new_ids;  // of the degrees' piece
  Status read = Status::OK();
  SG_RETURN_IF_ERROR(source.scan_degree_file(kind, [&](uint32_t first, const uint32_t* degrees, size_t count) {
    if (!read.ok()) return;
    if (permutation != nullptr) {
      new_ids.resize(count);
      read = permutation->read(first, count, new_ids.data());
      if (!read.ok()) return;
    }
    for (size_t i = 0; i < count; ++i) {
      const uint32_t v = first + static_cast<uint32_t>(i);
      counts[(permutation != nullptr ? new_ids[i] : v) >> shift] += degrees[i];
    }
  }));
  SG_RETURN_IF_ERROR(read);
  cut_bucket_ranges(counts, shift, budget, spaces, sort_records, false, ranges);
  return Status::OK();
}

void cut_bucket_ranges(const std::vector<uint64_t>& slot_arcs, int slot_shift, const IngestBudget& budget,
                       size_t spaces, size_t sort_records, bool bound_only, BucketRanges* ranges) {
  uint64_t total = 0;
  for (uint64_t arcs : slot_arcs) total += arcs;
  const uint32_t slot_count = static_cast<uint32_t>(slot_arcs.size());
  // At most about 512 buckets, like equal ranges' 256 (greedy cuts fill
  // buckets between half and all of the target), and few enough that a
  // bucket's buffer stays at kMinSegmentBytes (route_bucket_count).
  const uint64_t max_buckets =
      std::max<uint64_t>(16, budget.route_buffer_bytes(spaces) / IngestBudget::kMinSegmentBytes);
  // Counts that only bound each space's arcs (both spaces' together) are
  // cut at a sort batch: a coarser cut would leave a bucket whose arcs are
  // mostly one space's past its batch, routed again (R-MAT 24's degree
  // order: the sort phase 9.0 -> 10.9 s from the page cache).
  // Past twice the bucket count of exact counts, segments would shrink
  // under kMinSegmentBytes: then some buckets may be routed again.
  const uint64_t target = bound_only ? std::max<uint64_t>({sort_records, total / (2 * max_buckets), 1})
                                     : std::max<uint64_t>({sort_records, total / 256, total / max_buckets, 1});
  ranges->slot_bits = 32 + slot_shift;
  ranges->slot_count = slot_count;
  ranges->first_slot = {0};
  uint64_t held = 0;
  for (uint32_t slot = 0; slot < slot_count; ++slot) {
    if (held > 0 && held + slot_arcs[slot] > target) {
      ranges->first_slot.push_back(slot);
      held = 0;
    }
    held += slot_arcs[slot];
  }
}

// Intervals split the vertices so each holds about the same number of arcs
// (in + out, plus one per vertex), at the histogram's block granularity.
// Default count: each interval's share of the compressed spaces (estimated
// at 4 bytes per arc) is about 1/8 of the budget.
std::vector<uint32_t> choose_intervals(VertexHistogram* histogram, uint64_t num_vertices, uint64_t intervals,
                                       uint64_t memory_bytes) {
  const uint64_t n = num_vertices;
  histogram->cover(static_cast<uint32_t>(n - 1));
  const VertexHistogram& arcs = *histogram;
  const int shift = arcs.shift();
  const uint64_t blocks = ((n - 1) >> shift) + 1;
  auto block_weight = [&](uint64_t b) {
    const uint64_t first = b << shift;
    return arcs.count(static_cast<uint32_t>(b)) + (std::min(n, first + (uint64_t{1} << shift)) - first);
  };
  uint64_t total_weight = 0;
  for (uint64_t b = 0; b < blocks; ++b) total_weight += block_weight(b);
  if (intervals == 0) {
    const uint64_t estimated_bytes = 4 * (total_weight - n);
    intervals = std::max<uint64_t>(1, (estimated_bytes + memory_bytes / 8 - 1) / (memory_bytes / 8));
  }
  intervals = std::clamp<uint64_t>(intervals, 1, n);
  // Ideal boundaries by prefix weight, then nudged so every interval holds
  // at least one vertex (a heavy block can pass several targets at once).
  std::vector<uint64_t> ideal;
  uint64_t seen = 0;
  for (uint64_t b = 0; b < blocks && ideal.size() + 1 < intervals; ++b) {
    seen += block_weight(b);
    while (ideal.size() + 1 < intervals && seen >= total_weight * (ideal.size() + 1) / intervals) {
      ideal.push_back(std::min(n, (b + 1) << shift));
    }
  }
  ideal.resize(intervals - 1, n);
  std::vector<uint32_t> starts = {0};
  for (uint64_t k = 1; k < intervals; ++k) {
    const uint64_t start = std::clamp<uint64_t>(ideal[k - 1], uint64_t{starts.back()} + 1, n - (intervals - k));
    starts.push_back(static_cast<uint32_t>(start));
  }
  return starts;
}

uint32_t choose_block_count(uint64_t num_vertices, uint64_t memory_bytes) {
  const uint64_t state_bytes = 4 * num_vertices;
  if (state_bytes <= memory_bytes / 2) return 1;
  const uint64_t block_bytes = std::max<uint64_t>(memory_bytes / 4, 1);
  return static_cast<uint32_t>(std::clamp<uint64_t>((state_bytes + block_bytes - 1) / block_bytes, 2, 256));
}

std::vector<uint32_t> block_starts(uint64_t num_vertices, uint32_t blocks) {
  constexpr uint64_t kSlab = 1024;
  const uint64_t count = std::clamp<uint64_t>(blocks, 1, num_vertices);
  uint64_t width = (num_vertices + count - 1) / count;
  if (width >= kSlab) width = (width + kSlab - 1) / kSlab * kSlab;
  std::vector<uint32_t> starts;
  for (uint64_t start = 0; start < num_vertices; start += width) starts.push_back(static_cast<uint32_t>(start));
  return starts;
}

}  // namespace sg
