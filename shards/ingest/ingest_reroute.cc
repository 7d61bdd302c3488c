// The degree order in one route (IngestOptions::degree_order_in_route).
// An ordered ingest otherwise writes the graph twice: unordered, then
// relabelled from a read of that graph. The degree order needs only each
// vertex's total degree, which routing the input can count: the counts
// become the new ids in place (degrees_to_degree_order), and the routed
// out-space (an undirected graph's one space), still in its spill, is read
// back bucket by bucket and routed again in the new ids into every space,
// which are then sorted and encoded once: no first sort phase, and no
// unordered graph written and read back.
#include <algorithm>
#include <cassert>

#include "base/huge_pages.h"
#include "base/interrupt.h"
#include "base/parallel.h"
#include "shards/ingest/ingest_job.h"
#include "shards/ingest/spill_fields.h"
#include "shards/ingest/vertex_order.h"

namespace sg {

// Counts fit when 4 bytes a vertex take at most half what the budget
// leaves (they become the permutation). Room for twice the vertices the
// first batch shows is reserved (held_bytes), so that the route buffers
// leave it free; ids that outgrow it stop the count. A count is 32 bits:
// a vertex would need 2^32 arc ends to wrap it (then its rank is wrong,
// the graph still right).
//
// An out-only first pass of another order counts its in-degrees the same
// way (in_degrees_in_route_), beside routing, which waits on the input
// (on one HDD it used under half a core): its sort phase then has none
// to count (13 % of that phase's samples at R-MAT 22 on one HDD; at R-MAT
// 24 from the page cache the phase took 10.2-10.9 s with them, 4.5 without).
void IngestJob::start_degree_count(const std::vector<RawEdge>& first_batch) {
  degree_limit_ = 0;
  const bool degree_order = opt_.degree_order_in_route && (out_only_ || undirected_);
  in_degrees_in_route_ = !opt_.degree_order_in_route && out_only_ && !undirected_;
  if (!(degree_order || in_degrees_in_route_) || source_graph_ != nullptr || permutation_ != nullptr || opt_.dedup ||
      opt_.drop_self_loops) {
    in_degrees_in_route_ = false;
    return;
  }
  const uint64_t held = held_bytes();  // a remapped input's id map among it
  const uint64_t most = (opt_.memory_bytes > held ? opt_.memory_bytes - held : 0) / 2 / sizeof(uint32_t);
  const uint64_t shown = first_batch_vertices(first_batch);
  const bool exact = ids_.remapped() || shape_.declared_vertices >= shown;
  // In-degrees get less room past the first batch's ids: an input whose
  // ids keep growing is counted while sorting, as before, rather than take
  // more of the route buffers' room for every input.
  const uint64_t slack = in_degrees_in_route_ ? shown / 8 + (1 << 16) : shown + (1 << 16);
  const uint64_t limit = std::min(most, exact ? shown : shown + slack);
  if (shown > limit) {
    in_degrees_in_route_ = false;
    return;
  }
  reserve_huge_pages(&route_degrees_, static_cast<size_t>(limit));  // counted at random
  degree_limit_ = limit;
}

// Runs beside routing: touches only the counts. The translation's
// largest id so far bounds the batch's ids (a pass of its own over the
// batch to find them took about 8 % of the count's samples).
void IngestJob::count_degrees(const std::vector<DenseArc>& arcs) {
  const uint64_t largest = ids_.max_dense_id();
  if (!arcs.empty() && largest >= route_degrees_.size()) {
    if (largest >= degree_limit_) {  // past the room: an ordinary first pass
      stop_degree_count();
      return;
    }
    route_degrees_.resize(size_t{largest} + 1, 0);  // within the reserved capacity
  }
  uint32_t* degrees = route_degrees_.data();
  // Out + in; an undirected graph's degree is its one space's arcs (a
  // self-loop's once).
  const bool undirected = undirected_;
  if (in_degrees_in_route_) {
    for (const DenseArc& a : arcs) ++degrees[a.dst];
    return;
  }
  for (const DenseArc& a : arcs) {
    ++degrees[a.src];
    if (!undirected || a.src != a.dst) ++degrees[a.dst];
  }
}

void IngestJob::stop_degree_count() {
  degree_limit_ = 0;
  in_degrees_in_route_ = false;
  std::vector<uint32_t>().swap(route_degrees_);
}

// An out-only graph's in-degrees: those counted in the route when they
// were (in_degrees_in_route_ stays true), else zeros for the sort phase to
// count.
void IngestJob::take_in_degrees() {
  if (in_degrees_in_route_ && degree_limit_ != 0 && num_vertices_ <= degree_limit_) {
    route_degrees_.resize(num_vertices_, 0);  // within the reserved room
    in_degrees_ = std::move(route_degrees_);
    route_degrees_ = std::vector<uint32_t>();
    degree_limit_ = 0;
    return;
  }
  stop_degree_count();
  assign_touched(&in_degrees_, num_vertices_);
}

// Once the out-space (an undirected graph's one space) is routed and the
// vertex count checked: the counts become the order, and its spill is
// routed again in the new ids into every space, which replace `routers`.
template <typename Record>
Status IngestJob::reroute_in_degree_order(std::vector<BucketRouter<Record>>* routers,
                                          std::vector<VertexHistogram>* histograms) {
  assert((out_only_ || undirected_) && routers->size() == 1);
  if (num_vertices_ > degree_limit_) {  // declared vertices past the room
    stop_degree_count();
    return Status::OK();
  }
  BucketRouter<Record>& unordered = (*routers)[0];
  SG_RETURN_IF_ERROR(unordered.finish());  // its buffers' room goes to the new routers
  order_by_counted_degrees();
  const size_t spaces = built_spaces();  // both, or an undirected graph's one
  std::vector<BucketRouter<Record>> ordered(spaces);
  std::vector<VertexHistogram> ordered_histograms(spaces);
  SG_RETURN_IF_ERROR(open_routers(&ordered));
  std::vector<uint64_t>().swap(order_slot_arcs_);  // the buckets are cut
  SG_RETURN_IF_ERROR(reroute_spill(unordered, &ordered, &ordered_histograms));
  unordered.remove();
  routers->swap(ordered);
  histograms->swap(ordered_histograms);
  return Status::OK();
}

// The counts become the order's new ids, held as the permutation.
void IngestJob::order_by_counted_degrees() {
  route_degrees_.resize(num_vertices_, 0);
  order_slot_shift_ = SlotArcs::shift_for(num_vertices_);
  degrees_to_degree_order(&route_degrees_, order_slot_shift_, &order_slot_arcs_);
  route_order_ = Permutation(std::move(route_degrees_));
  route_degrees_ = std::vector<uint32_t>();
  permutation_ = &route_order_;
  degree_limit_ = 0;
  out_only_ = false;
}

// Reads the spill a piece at a time and routes each piece in the new ids.
// (Routing a piece on a thread of its own while the next was read and
// decoded did not pay: R-MAT 22's reroute from the page cache took 1.38 /
// 1.52 / 1.67 s against 1.47 / 1.46 / 1.76, at 1.2-1.4 cores either way.)
template <typename Record>
Status IngestJob::reroute_spill(const BucketRouter<Record>& unordered, std::vector<BucketRouter<Record>>* ordered,
                                std::vector<VertexHistogram>* histograms) {
  const uint32_t* new_id = route_order_.data();
  // Pieces of a read batch (the route phase's room for its batches).
  std::vector<Record> piece(std::max<size_t>(budget().read_batch_edges(), BucketRouter<Record>::block_records()));
  std::vector<DenseArc> arcs;
  std::vector<std::vector<Record>> space_records(ordered->size());
  progress_.begin_phase("reroute", unordered.total_records());
  uint64_t rerouted = 0;
  auto route_piece = [&](uint64_t count) {
    arcs.resize(static_cast<size_t>(count));
    parallel_for(size_t{0}, arcs.size(), size_t{4096}, [&](size_t i0, size_t i1) {
      for (size_t i = i0; i < i1; ++i) {
        const uint64_t arc = piece[i].arc;
        arcs[i] = DenseArc{new_id[arc_key(arc)], new_id[arc_neighbour(arc)], spill_fields::weight_of(piece[i])};
      }
    });
    rerouted += count;
    progress_.advance(0, rerouted);
    return route_batch(arcs, ordered, histograms, &space_records, false);
  };
  for (uint32_t b = 0; b < unordered.bucket_count(); ++b) {
    if (interrupt_requested()) return Status::Interrupted("ingest stopped by a signal");
    if (b + 1 < unordered.bucket_count()) unordered.prefetch_bucket(b + 1);
    SG_RETURN_IF_ERROR(unordered.read_bucket_in_pieces(b, piece.data(), piece.size(), route_piece));
    unordered.discard(b);
  }
  return Status::OK();
}

template Status IngestJob::reroute_in_degree_order<PlainArc>(std::vector<BucketRouter<PlainArc>>*,
                                                             std::vector<VertexHistogram>*);
template Status IngestJob::reroute_in_degree_order<WeightedArc>(std::vector<BucketRouter<WeightedArc>>*,
                                                                std::vector<VertexHistogram>*);
template Status IngestJob::reroute_spill<PlainArc>(const BucketRouter<PlainArc>&, std::vector<BucketRouter<PlainArc>>*,
                                                   std::vector<VertexHistogram>*);
template Status IngestJob::reroute_spill<WeightedArc>(const BucketRouter<WeightedArc>&,
                                                      std::vector<BucketRouter<WeightedArc>>*,
                                                      std::vector<VertexHistogram>*);

}  // namespace sg
