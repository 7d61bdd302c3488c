// A sort batch's records as adjacency lists: the non-empty lists' vertices in
// key order and their neighbours in one array. Keys dense enough (a key per
// two records of the batch, or of the records, at most) take a counting
// scatter by key, stable, which leaves each list in input order; sparse keys
// sort the records instead, which leaves each list sorted. (An ordered
// ingest's last batch of each space holds the low-degree tail: R-MAT 22's
// two, 3.5 M records over 3.2 M keys each, took 0.38 CPU-s to sort.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sg {

template <typename Record>
class BatchLists {
 public:
  using Neighbour = typename Record::Neighbour;

  // Reserves the arrays for a batch of `batch_records` at their largest (grown
  // on demand, libstdc++ doubles them past it).
  void reserve(size_t batch_records);
  // Frees them (while a bucket is routed again, its sub-buckets take the room).
  void release();

  // The lists of records[0, count) (at most the reserved batch), whose keys
  // lie in [first_vertex, last_vertex]; `records` may be reordered. Returns
  // whether the lists still need sorting (the counting scatter's).
  bool build(Record* records, size_t count, uint32_t first_vertex, uint32_t last_vertex);

  std::vector<uint32_t> vertex;  // of each non-empty list, ascending
  std::vector<uint32_t> begin;   // into neighbours, one more than lists
  std::vector<Neighbour> neighbours;

 private:
  void by_count(const Record* records, size_t count, uint32_t first_vertex, uint32_t span);
  void by_sort(Record* records, size_t count);
  bool counts_fit(uint64_t span) const;

  size_t batch_records_ = 0;
};

}  // namespace sg
