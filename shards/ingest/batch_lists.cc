#include "shards/ingest/batch_lists.h"

#include <algorithm>
#include <cassert>
#include <functional>

#include "base/huge_pages.h"
#include "base/parallel.h"
#include "shards/ingest/arc_record.h"

namespace sg {

template <typename Record>
void BatchLists<Record>::reserve(size_t batch_records) {
  batch_records_ = batch_records;
  if (neighbours.capacity() >= batch_records) return;
  reserve_huge_pages(&neighbours, batch_records);
  reserve_huge_pages(&vertex, batch_records + 1);
  begin.reserve(batch_records + 1);
}

template <typename Record>
void BatchLists<Record>::release() {
  std::vector<Neighbour>().swap(neighbours);
  std::vector<uint32_t>().swap(vertex);
  std::vector<uint32_t>().swap(begin);
}

template <typename Record>
bool BatchLists<Record>::build(Record* records, size_t count, uint32_t first_vertex, uint32_t last_vertex) {
  assert(count <= batch_records_ && count < UINT32_MAX && first_vertex <= last_vertex);
  vertex.clear();
  begin.clear();
  const uint64_t span = uint64_t{last_vertex} - first_vertex + 1;
  bool sort_lists = false;
  if (count > 0 && counts_fit(span) && (span <= batch_records_ / 2 + 1 || span <= 2 * uint64_t{count})) {
    by_count(records, count, first_vertex, static_cast<uint32_t>(span));
    sort_lists = true;
  } else if (count > 0) {
    by_sort(records, count);
  }
  begin.push_back(static_cast<uint32_t>(count));
  return sort_lists;
}

namespace {

// ++counts[key + 1] for each record's key less `first_vertex`.
template <typename Record>
void count_keys(const Record* records, size_t count, uint32_t first_vertex, uint32_t* counts) {
  constexpr size_t kCountAhead = 32;
  for (size_t i = 0; i < count; ++i) {
    if (i + kCountAhead < count)
      __builtin_prefetch(counts + arc_key(records[i + kCountAhead].arc) - first_vertex + 1, 1);
    ++counts[arc_key(records[i].arc) - first_vertex + 1];
  }
}

// Each record's neighbour to out[next[key]++].
template <typename Record>
void scatter_keys(const Record* records, size_t count, uint32_t first_vertex, uint32_t* next,
                  typename Record::Neighbour* out) {
  constexpr size_t kCountAhead = 32, kSlotAhead = 12;
  for (size_t i = 0; i < count; ++i) {
    if (i + kCountAhead < count) __builtin_prefetch(next + arc_key(records[i + kCountAhead].arc) - first_vertex, 1);
    if (i + kSlotAhead < count) __builtin_prefetch(out + next[arc_key(records[i + kSlotAhead].arc) - first_vertex], 1);
    const Record& r = records[i];
    out[next[arc_key(r.arc) - first_vertex]++] = r.neighbour();
  }
}

}  // namespace

// The counting scatter's two arrays of span + 1 counts live in `vertex` and
// `begin`, which hold a batch's lists, a key each, once it is done.
template <typename Record>
bool BatchLists<Record>::counts_fit(uint64_t span) const {
  return span + 1 <= vertex.capacity() && span + 1 <= begin.capacity();
}

// Counting scatter by key: lists in key order, each in input order (the
// scatter is stable). The keys' counts and the lists' next slots are
// prefetched ahead: in random key order (an edge list's sources, an
// in-space's destinations) each is a cache miss, and waiting for them one
// at a time took four times as long (2.7 M records on the polyglot host).
// Two halves of the records count and scatter in parallel, the second
// half's counts in `begin` (reserved for a batch, filled only after, each
// entry after it is read): within a key the first half's records go first,
// so the scatter stays stable and needs no memory besides. The first
// half's counts are in `vertex`, dead once the scatter is done.
template <typename Record>
void BatchLists<Record>::by_count(const Record* records, size_t count, uint32_t first_vertex, uint32_t span) {
  constexpr size_t kParallelRecords = size_t{1} << 16;
  const size_t halves = count >= kParallelRecords ? 2 : 1;
  const size_t middle = halves == 2 ? count / 2 : count;
  vertex.assign(size_t{span} + 1, 0);  // within their capacity (counts_fit)
  begin.assign(size_t{span} + 1, 0);
  uint32_t* const counts[2] = {vertex.data(), begin.data()};
  const size_t bounds[3] = {0, middle, count};
  parallel_for(size_t{0}, halves, size_t{1}, [&](size_t h0, size_t h1) {
    for (size_t h = h0; h < h1; ++h)
      count_keys(records + bounds[h], bounds[h + 1] - bounds[h], first_vertex, counts[h]);
  });
  // Each half's first slot of each key; counts[h][k + 1] held key k's
  // count in half h (none in the second when there is one half).
  uint32_t at = 0;
  for (uint32_t k = 0; k < span; ++k) {
    const uint32_t first_half = counts[0][k + 1], second_half = counts[1][k + 1];
    counts[0][k] = at;
    counts[1][k] = at + first_half;
    at += first_half + second_half;
  }
  neighbours.resize(count);
  parallel_for(size_t{0}, halves, size_t{1}, [&](size_t h0, size_t h1) {
    for (size_t h = h0; h < h1; ++h)
      scatter_keys(records + bounds[h], bounds[h + 1] - bounds[h], first_vertex, counts[h], neighbours.data());
  });
  // The second half's next slots are now each list's end (its first slots,
  // with one half); begin[lists] is written only after begin[k] (k >=
  // lists) is read.
  const uint32_t* ends = counts[1];
  vertex.clear();
  size_t lists = 0;
  uint32_t list_begin = 0;
  for (uint32_t k = 0; k < span; ++k) {
    const uint32_t end = ends[k];
    if (end > list_begin) {
      vertex.push_back(first_vertex + k);
      begin[lists++] = list_begin;
    }
    list_begin = end;
  }
  begin.resize(lists);
}

// Sparse ids: sort the records themselves; lists come out sorted.
template <typename Record>
void BatchLists<Record>::by_sort(Record* records, size_t count) {
  parallel_sort(records, records + count, std::less<Record>());
  neighbours.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const uint32_t key = arc_key(records[i].arc);
    if (i == 0 || key != vertex.back()) {
      vertex.push_back(key);
      begin.push_back(static_cast<uint32_t>(i));
    }
    neighbours[i] = records[i].neighbour();
  }
}

template class BatchLists<PlainArc>;
template class BatchLists<WeightedArc>;

}  // namespace sg
