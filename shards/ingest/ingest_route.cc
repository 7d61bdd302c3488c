// The route step of ingest: each batch's arcs made into each space's
// records and routed into that space's buckets (BucketRouter), and the
// routers planned from the budget.
#include <algorithm>
#include <span>
#include <type_traits>

#include "base/parallel.h"
#include "shards/ingest/ingest_job.h"

namespace sg {

// A space's records of `arcs` into `out` (keyed by source for the
// out-space, by destination for the in-space; an undirected arc also
// reversed); returns how many. A loop of its own: pushed back beside the
// histogram's counts, every store could alias the other's fields, which
// were reloaded each arc (R-MAT 22: this part's samples fell by about 30 %).
template <bool kBySource, typename Record>
size_t space_records_of(const DenseArc* arcs, size_t count, bool undirected, Record* out) {
  size_t n = 0;
  for (const DenseArc& a : std::span(arcs, count)) {
    out[n++] = kBySource ? Record::make(a.src, a.dst, a.weight) : Record::make(a.dst, a.src, a.weight);
    if (undirected && a.src != a.dst) out[n++] = Record::make(a.dst, a.src, a.weight);
  }
  return n;
}

// Each space's records of a batch, routed in parallel: one task a space
// and lane (BucketRouter::add_lane; a router's lanes split the batch into
// slices), each with a histogram of its own; counting degrees is one more
// task. A lane's slice that reached a key past its router's buckets left
// the rest to be routed once the tasks are done (add_many grows the
// buckets). `mirror`: an undirected graph's arcs go in both directions
// (arcs read back from its spill already do).
template <typename Record>
Status IngestJob::route_batch(const std::vector<DenseArc>& arcs, std::vector<BucketRouter<Record>>* routers,
                              std::vector<VertexHistogram>* histograms, std::vector<std::vector<Record>>* space_records,
                              bool mirror) {
  const size_t spaces = routers->size();
  const size_t lanes = (*routers)[0].lanes();
  const bool undirected = undirected_ && mirror;
  const size_t most = undirected ? 2 * arcs.size() : arcs.size();
  for (std::vector<Record>& records : *space_records) {
    if (records.size() < most) records.resize(most);  // grows once: batches keep their size
  }
  if (histograms->size() < spaces * lanes) histograms->resize(spaces * lanes);
  const size_t tasks = spaces * lanes;
  std::vector<Status> status(tasks);
  std::vector<size_t> counts(tasks), routed(tasks);
  const size_t step = (arcs.size() + lanes - 1) / lanes;
  auto first_arc = [&](size_t task) { return std::min(arcs.size(), task % lanes * step); };
  auto first_record = [&](size_t task) {
    return (*space_records)[task / lanes].data() + (undirected ? 2 * first_arc(task) : first_arc(task));
  };
  // Counting degrees, when it is a task, is the first: the largest, it
  // then runs beside the others rather than after one.
  const size_t first_route = degree_limit_ != 0 ? 1 : 0;
  parallel_for(size_t{0}, tasks + first_route, size_t{1}, [&](size_t t0, size_t t1) {
    for (size_t task = t0; task < t1; ++task) {
      if (task < first_route) {
        count_degrees(arcs);
        continue;
      }
      const size_t t = task - first_route;
      const size_t begin = first_arc(t), count = std::min(arcs.size(), begin + step) - begin;
      Record* records = first_record(t);
      counts[t] = t / lanes == 0 ? space_records_of<true>(arcs.data() + begin, count, undirected, records)
                                 : space_records_of<false>(arcs.data() + begin, count, undirected, records);
      (*histograms)[t].add_keys(records, counts[t]);
      status[t] = (*routers)[t / lanes].add_lane(t % lanes, records, counts[t], &routed[t]);
    }
  });
  for (size_t t = 0; t < tasks; ++t) {
    SG_RETURN_IF_ERROR(status[t]);
    if (routed[t] < counts[t])
      SG_RETURN_IF_ERROR((*routers)[t / lanes].add_many(first_record(t) + routed[t], counts[t] - routed[t]));
  }
  return Status::OK();
}

// Lanes a space's router gets, and each lane's buffer of a bucket. Only
// where routing is bound by the CPU: unweighted records (whose order
// within a key does not matter) spilled direct (a disk faster than the
// coder). As many lanes as leave one routing task a thread over the spaces
// (at most kMaxRouteLanes), sharing what one lane's buffers would take,
// each buffer at least kMinSegmentBytes. Measured on 2 cores (R-MAT 22,
// 256 MiB): two spaces of two lanes each took the whole ingest from
// 4.21-4.48 s to 4.55-4.84 s; on one emulated HDD (a coded spill, routed
// at the disk's pace) the first sort read one space's halved segments in
// 1.25-1.42 s instead of 1.04-1.08 s.
template <typename Record>
size_t route_lanes(const IngestBudget& plan, size_t spaces, uint64_t buffers_a_lane, SpillForm form,
                   size_t* buffer_records) {
  constexpr size_t kMaxRouteLanes = 4;
  const size_t one_lane = plan.route_buffer_records(sizeof(Record), spaces, buffers_a_lane);
  size_t lanes = std::is_same_v<Record, PlainArc> ? plan.route_lanes : 1;
  if (lanes == 0) {
    lanes = form == SpillForm::kDirect ? std::clamp<size_t>(parallel_threads() / spaces, 1, kMaxRouteLanes) : 1;
    while (lanes > 1 && one_lane / lanes * sizeof(Record) < IngestBudget::kMinSegmentBytes) --lanes;
  }
  *buffer_records = std::max<size_t>(one_lane / lanes, 16);
  return lanes;
}

// Buckets are planned for the sort batches the budget gives once a
// relabelling pass has freed its permutation (budget(true)).
template <typename Record>
Status IngestJob::open_routers(std::vector<BucketRouter<Record>>* routers) const {
  const char* names[] = {"out", "in"};
  const size_t spaces = routers->size();
  const size_t sort_records =
      std::max<size_t>(budget(true).batch_records(batch_bytes_per_record<Record>(spaces == 1)) / spaces, 2);
  const IngestBudget plan = budget();
  const uint32_t buckets = plan.route_bucket_count(estimated_records_per_space(), spaces, sort_records);
  // Coded segments are read back in whole blocks: a sort batch holds some.
  SpillForm form = sort_records >= 2 * BucketRouter<Record>::block_records() ? SpillForm::kCoded : SpillForm::kPacked;
  if (direct_io()) form = SpillForm::kDirect;
  for (size_t s = 0; s < spaces; ++s) {
    // Beside the graph, or in the spill directory under a name of its own
    // (two ingests may spill there; a file system without O_TMPFILE names
    // the file a moment, with an owner gc knows).
    const std::string path = opt_.spill_dir.empty()
                                 ? files_.temp_dir() + "/" + names[s] + ".spill"
                                 : opt_.spill_dir + "/." + names[s] + owner_marker() + files_.graph_id() + ".spill";
    BucketRanges ranges;
    // Routing again in the degree order (reroute_in_degree_order): the
    // degrees bound each space's arcs per new id (an undirected graph's
    // one space: they are its arcs).
    if (!order_slot_arcs_.empty() && opt_.route_buckets == 0)
      cut_bucket_ranges(order_slot_arcs_, order_slot_shift_, plan, spaces, sort_records, spaces > 1, &ranges);
    // A stored graph read back (the relabelling pass of an ordered ingest)
    // tells each space's arcs per vertex before routing (known_bucket_ranges).
    if (source_graph_ != nullptr && opt_.route_buckets == 0 && source_graph_->directed() != undirected_ &&
        source_graph_->manifest().deltas.empty()) {  // updates change the counts the degrees tell
      SG_RETURN_IF_ERROR(known_bucket_ranges(*source_graph_, permutation_, s == 0 ? SpaceKind::kOut : SpaceKind::kIn,
                                             plan, spaces, sort_records, &ranges));
    }
    const size_t extra = BucketRouter<Record>::extra_buffers(form);
    size_t buffer = 0;
    if (ranges.first_slot.empty()) {
      const size_t lanes = route_lanes<Record>(plan, spaces, buckets + extra, form, &buffer);
      SG_RETURN_IF_ERROR((*routers)[s].open(path, buckets, buffer, 0, 32, true, form, lanes));
    } else {
      const size_t lanes = route_lanes<Record>(plan, spaces, ranges.first_slot.size() + extra, form, &buffer);
      SG_RETURN_IF_ERROR(
          (*routers)[s].open_ranges(path, ranges.first_slot, ranges.slot_count, ranges.slot_bits, buffer, form, lanes));
    }
  }
  return Status::OK();
}

// Arcs each space will hold, from the input's size: exact for binary
// inputs and stored graphs, an overestimate for text (short lines), an
// underestimate for gzip (then more buckets overflow and are routed again).
uint64_t IngestJob::estimated_records_per_space() const {
  uint64_t arcs = 0;
  if (source_graph_ != nullptr) {
    arcs = source_graph_->manifest().num_edges;
    for (const DeltaManifest& d : source_graph_->manifest().deltas) arcs += d.adds;
  } else if (reader_->declared_arcs() > 0) {
    arcs = reader_->declared_arcs();
  } else {
    const uint64_t bytes = reader_->bytes_total();
    const bool gzip = opt_.input.ends_with(".gz") || opt_.input.ends_with(".zst");
    const uint64_t bytes_per_arc = format_ == InputFormat::kBin64 ? 16 : gzip ? 3 : 8;
    arcs = bytes / bytes_per_arc;
  }
  return undirected_ ? 2 * arcs : arcs;  // undirected: both directions of each edge in one space
}

// Also routed from ingest_reroute.cc.
template Status IngestJob::route_batch<PlainArc>(const std::vector<DenseArc>&, std::vector<BucketRouter<PlainArc>>*,
                                                 std::vector<VertexHistogram>*, std::vector<std::vector<PlainArc>>*,
                                                 bool);
template Status IngestJob::route_batch<WeightedArc>(const std::vector<DenseArc>&,
                                                    std::vector<BucketRouter<WeightedArc>>*,
                                                    std::vector<VertexHistogram>*,
                                                    std::vector<std::vector<WeightedArc>>*, bool);
template Status IngestJob::open_routers<PlainArc>(std::vector<BucketRouter<PlainArc>>*) const;
template Status IngestJob::open_routers<WeightedArc>(std::vector<BucketRouter<WeightedArc>>*) const;

}  // namespace sg
