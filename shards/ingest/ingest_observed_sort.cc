// An out-only first pass shown to its order while it sorts
// (IngestOptions::out_list_observer): the in-degrees, counted while
// routing, are written before the sort (they are complete), and the
// observer may take their room for what it holds through the sort.
#include "shards/ingest/ingest_job.h"

namespace sg {

template <typename Record>
Status IngestJob::begin_observed_sort(const BucketRouter<Record>& router) {
  OutListObserver* observer = opt_.out_list_observer;
  if (observer == nullptr || !out_only_ || undirected_ || !in_degrees_in_route_ || in_degrees_.empty()) {
    return Status::OK();
  }
  SG_RETURN_IF_ERROR(write_in_degrees());
  const auto read_list = [&](uint32_t vertex, const std::function<void(uint32_t)>& visit) {
    return read_out_list(router, vertex, visit);
  };
  SG_RETURN_IF_ERROR(observer->begin_sort(&in_degrees_, read_list, &observer_bytes_));
  std::vector<uint32_t>().swap(in_degrees_);  // written; what the observer left of them goes
  return Status::OK();
}

// The buckets whose ranges meet the vertex's arcs (one, unless its list
// is cut between two), read a piece at a time: that much of the spill is
// read twice.
template <typename Record>
Status IngestJob::read_out_list(const BucketRouter<Record>& router, uint32_t vertex,
                                const std::function<void(uint32_t)>& visit) const {
  constexpr uint64_t kPieceRecords = uint64_t{1} << 18;
  const uint64_t first = pack_arc(vertex, 0), last = pack_arc(vertex, UINT32_MAX);
  std::vector<Record> piece;
  for (uint32_t b = 0; b < router.bucket_count(); ++b) {
    if (router.last_value(b) < first || router.first_value(b) > last || router.records(b) == 0) continue;
    piece.resize(static_cast<size_t>(std::min(router.records(b), kPieceRecords)));
    SG_RETURN_IF_ERROR(router.read_bucket_in_pieces(b, piece.data(), piece.size(), [&](uint64_t count) {
      for (uint64_t i = 0; i < count; ++i) {
        if (arc_key(piece[i].arc) == vertex) visit(arc_neighbour(piece[i].arc));
      }
      return Status::OK();
    }));
  }
  return Status::OK();
}

template Status IngestJob::begin_observed_sort<PlainArc>(const BucketRouter<PlainArc>&);
template Status IngestJob::begin_observed_sort<WeightedArc>(const BucketRouter<WeightedArc>&);

}  // namespace sg
