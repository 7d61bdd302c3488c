// Local clustering coefficient, as defined by LDBC Graphalytics
// (specification v1.0, §2.3.4, after Watts & Strogatz 1998):
//   LCC(v) = |{(u, w) in E : u, w in N(v)}| / (|N(v)| (|N(v)| - 1))
// and 0 when |N(v)| <= 1, where N(v) holds v's neighbours in either
// direction, v itself excluded, and the numerator counts arcs (an
// undirected edge is both of its arcs); repeated arcs count once.
//
// By triangles: with m(a, b) = the arcs between a and b (1 or 2), every
// triangle {x, y, z} adds m(y, z) to x's numerator, m(x, z) to y's and
// m(x, y) to z's. Triangles are listed once each by degree orientation
// (Chiba & Nishizeki 1985; Schank & Wagner 2005; GAPBS tc.cc): rank
// vertices by (arcs, id), keep N+(v) = the higher-ranked neighbours, and
// for each x and y in N+(x) intersect N+(x) with N+(y); N+ lists stay short
// on hubs, so the work is about |E|^1.5 at worst.
//
// Out of core: N+ lists are built a block of vertices at a time
// (apps/neighbour_blocks.h: one pass over both spaces in all) in half the
// memory left. When they are one block, triangles are counted in memory;
// otherwise each block's lists are spilled, compressed, to a scratch file
// (core/list_spill.h), then loaded a group at a time (half the memory left,
// 4 bytes an entry below 2^31 vertices) while every spilled N+(x) streams
// past the group: with S the spill's size (about one varint per undirected
// edge) and G = ceil(8 |E| / memory) groups, the I/O is one read of each
// space plus S written plus (G + 1) S read, so it grows as |E|^2 / budget. Numerators are one 8-byte array over
// the vertices (any vertex can be a triangle's third corner).
//
// Distributed, each rank streams its own N+(x) past groups of every rank's
// lists, in the same groups on every rank, and touches only its owned
// numerators: x is its own; y, in the group's range, is summed in an array
// over that range, added to its owners after the group; z, an entry (y, z)
// of the group, is counted beside that entry, and after the group the
// counts go to z's owner as sorted (z, count) pairs. So a rank holds its
// owned range and one group, and sends what the groups hold, not what the
// triangles are.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <future>
#include <type_traits>

#include "apps/harness/app_row.h"
#include "apps/kernels/kernels.h"
#include "apps/kernels/neighbour_blocks.h"
#include "base/interrupt.h"
#include "base/parallel.h"
#include "core/exchange_rounds.h"
#include "core/list_spill.h"

namespace sg {
namespace {

// An oriented entry: (u << 1) | (m(v, u) - 1); ascending entries are ascending u.
uint32_t entry_vertex(uint64_t e) { return static_cast<uint32_t>(e >> 1); }
uint64_t entry_arcs(uint64_t e) { return (e & 1) + 1; }

// A group's entry (y, z) with the arcs of the triangles (x, y, z) counted
// for z (distributed); after the group, entry holds z and count what z gets.
template <typename E>
struct Counted {
  E entry;
  mutable uint32_t count = 0;                            // counted while the group is read only
  Counted(uint64_t e = 0) : entry(static_cast<E>(e)) {}  // NOLINT: lists decode into groups of them
};
template <typename E>
uint32_t entry_vertex(const Counted<E>& e) {
  return entry_vertex(uint64_t{e.entry});
}
template <typename E>
uint64_t entry_arcs(const Counted<E>& e) {
  return entry_arcs(uint64_t{e.entry});
}
template <typename E>
bool by_vertex(const Counted<E>& p, const Counted<E>& q) {  // once entries hold z
  return p.entry < q.entry;
}
template <typename Entry>
inline constexpr bool kCounted = !std::is_integral_v<Entry>;

// N+(v) for a block's vertices. Entries are 8 bytes as built; a group
// loaded from the spill takes 4 when every vertex id fits in 31 bits.
template <typename Entry>
struct OrientedLists {
  VertexBlock block;
  std::vector<uint64_t> start;  // per vertex, and the end
  std::vector<Entry> entries;

  std::span<const Entry> list(uint32_t v) const {
    const uint32_t i = v - block.begin;
    return {entries.data() + start[i], entries.data() + start[i + 1]};
  }
};
using OrientedBlock = OrientedLists<uint64_t>;

uint64_t rank_key(uint64_t arcs, uint32_t v) { return std::min<uint64_t>(arcs, UINT32_MAX) << 32 | v; }

// Calls call(s, l) for the entries of `shorter` and `longer` naming the
// same vertex (references into the lists).
template <typename S, typename L, typename F>
void intersect(std::span<const S> shorter, std::span<const L> longer, F&& call) {
  if (shorter.empty()) return;
  if (longer.size() / shorter.size() > 8) {  // skewed: search each short-list entry in the long list
    auto at = longer.begin();
    for (const S& x : shorter) {
      at = std::lower_bound(at, longer.end(), entry_vertex(x),
                            [](const L& e, uint32_t key) { return entry_vertex(e) < key; });
      if (at == longer.end()) return;
      if (entry_vertex(*at) == entry_vertex(x)) call(x, *at);
    }
    return;
  }
  // A merge that steps by comparison results, not branches on them: which
  // side steps is random, and a mispredicted branch cost most of the time.
  size_t i = 0, j = 0;
  while (i < shorter.size() && j < longer.size()) {
    const uint32_t x = entry_vertex(shorter[i]), y = entry_vertex(longer[j]);
    if (x == y) call(shorter[i], longer[j]);
    i += x <= y;
    j += y <= x;
  }
}

// Calls f(x, y) for the entries x of a and y of b naming the same vertex.
template <typename A, typename B, typename F>
void for_each_common(std::span<const A> a, std::span<const B> b, F&& f) {
  if (a.size() <= b.size()) {
    intersect(a, b, [&](const A& x, const B& y) { f(x, y); });
  } else {
    intersect(b, a, [&](const B& y, const A& x) { f(x, y); });
  }
}

// Gathers the block's neighbourhoods ranked by (arcs, id) and keeps N+;
// degree[i] = |N(v)|.
Status build_oriented(Engine* engine, const VertexBlock& block, const VertexArray<uint32_t>& arcs_of,
                      GatheredBlock<uint64_t>* gathered, OrientedBlock* out, std::vector<uint32_t>* degree) {
  SG_RETURN_IF_ERROR(gathered->gather(engine, block, [&](uint32_t u) { return rank_key(arcs_of[u], u); }));
  const uint32_t size = block.end - block.begin;
  const bool directed = engine->graph().directed();
  std::vector<uint64_t> kept(size + 1, 0);
  if (degree != nullptr) degree->assign(size, 0);
  parallel_for(uint32_t{0}, size, uint32_t{256}, [&](uint32_t lo, uint32_t hi) {
    for (uint32_t i = lo; i < hi; ++i) {
      const std::span<uint64_t> keys = gathered->values(i);
      std::sort(keys.begin(), keys.end());
      const uint32_t v = block.begin + i;
      const uint64_t own = rank_key(gathered->arcs(i), v);
      uint32_t distinct = 0, higher = 0;
      for (size_t k = 0; k < keys.size();) {
        size_t run = k + 1;  // a neighbour both ways is in both directions' lists
        while (run < keys.size() && keys[run] == keys[k]) ++run;
        const bool both_ways = !directed || run - k > 1;  // an undirected edge is both arcs
        const uint32_t u = static_cast<uint32_t>(keys[k]);
        if (u != v) {
          ++distinct;
          if (keys[k] > own) keys[higher++] = uint64_t{u} << 1 | (both_ways ? 1 : 0);
        }
        k = run;
      }
      std::sort(keys.begin(), keys.begin() + higher);
      kept[i + 1] = higher;
      if (degree != nullptr) (*degree)[i] = distinct;
    }
  });
  out->block = block;
  out->start.assign(size + 1, 0);
  for (uint32_t i = 0; i < size; ++i) out->start[i + 1] = out->start[i] + kept[i + 1];
  out->entries.resize(out->start[size]);
  parallel_for(uint32_t{0}, size, uint32_t{256}, [&](uint32_t lo, uint32_t hi) {
    for (uint32_t i = lo; i < hi; ++i) {
      const std::span<uint64_t> keys = gathered->values(i);
      std::copy(keys.begin(), keys.begin() + static_cast<ptrdiff_t>(out->start[i + 1] - out->start[i]),
                out->entries.begin() + static_cast<ptrdiff_t>(out->start[i]));
    }
  });
  gathered->clear();
  return Status::OK();
}

void add_atomic(uint64_t* to, uint64_t amount) {
  std::atomic_ref<uint64_t>(*to).fetch_add(amount, std::memory_order_relaxed);
}

// Where a triangle's arcs go. One process: every corner's numerator.
struct Numerators {
  uint64_t* numerator;
  void to_x(uint32_t x, uint64_t amount) const { add_atomic(&numerator[x], amount); }
  void to_y(uint32_t y, uint64_t amount) const { add_atomic(&numerator[y], amount); }
  template <typename Entry>
  void to_z(const Entry& yz, uint64_t amount) const {
    add_atomic(&numerator[entry_vertex(yz)], amount);
  }
  void after_batch() const {}
};

// Distributed: x is the rank's own; y is summed over the group's range
// (y_sums[y - first]); z is counted beside its entry (y, z). A file-backed
// numerator's pages are unmapped after each batch of x's lists (they stay
// in the page cache): a batch touches a few of them.
struct GroupCorners {
  uint64_t* numerator;
  const RawVertexArray* numerator_pages;
  uint64_t* y_sums;
  uint32_t first;
  void after_batch() const { numerator_pages->drop_pages(); }
  void to_x(uint32_t x, uint64_t amount) const { add_atomic(&numerator[x], amount); }
  void to_y(uint32_t y, uint64_t amount) const { add_atomic(&y_sums[y - first], amount); }
  template <typename E>
  void to_z(const Counted<E>& yz, uint64_t amount) const {
    std::atomic_ref<uint32_t>(yz.count).fetch_add(static_cast<uint32_t>(amount), std::memory_order_relaxed);
  }
};

// Triangles x < y < z (by rank) with y in `b`, given N+(x).
template <typename Entry, typename Corners>
void count_list(uint32_t x, std::span<const uint64_t> of_x, const OrientedLists<Entry>& b, const Corners& corners) {
  auto first = std::lower_bound(of_x.begin(), of_x.end(), uint64_t{b.block.begin} << 1);
  uint64_t at_x = 0;
  for (auto it = first; it != of_x.end() && entry_vertex(*it) < b.block.end; ++it) {
    const uint32_t y = entry_vertex(*it);
    const uint64_t xy = entry_arcs(*it);
    uint64_t at_y = 0;
    for_each_common(of_x, b.list(y), [&](uint64_t xz, const Entry& yz) {
      at_x += entry_arcs(yz);
      at_y += entry_arcs(xz);
      corners.to_z(yz, xy);
    });
    if (at_y > 0) corners.to_y(y, at_y);
  }
  if (at_x > 0) corners.to_x(x, at_x);
}

// Every triangle, when all N+ lists are one block.
void count_in_memory(const OrientedBlock& a, uint64_t* numerator) {
  parallel_for(a.block.begin, a.block.end, uint32_t{64}, [&](uint32_t lo, uint32_t hi) {
    for (uint32_t x = lo; x < hi; ++x) count_list(x, a.list(x), a, Numerators{numerator});
  });
}

// Segments [first, end) of `spill` whose encoded bytes are at most `bytes`
// (one at least).
size_t batch_end(const ListSpill& spill, size_t first, uint64_t bytes) {
  const auto& segments = spill.segments();
  size_t end = first + 1;
  while (end < segments.size() && segments[end].offset + segments[end].bytes - segments[first].offset <= bytes) ++end;
  return end;
}

// Decodes segments [first, last) into one block of N+ lists, reading
// `stream_bytes` at a time.
template <typename Entry>
Status load_group(ListSpill* spill, size_t first, size_t last, uint64_t stream_bytes, AlignedBuffer* buffer,
                  OrientedLists<Entry>* b) {
  const auto& segments = spill->segments();
  uint64_t total = 0;
  for (size_t s = first; s < last; ++s) total += segments[s].values;
  *b = OrientedLists<Entry>{};  // exact sizes: growing by doubling would hold up to three times the group
  b->block = VertexBlock{segments[first].begin, segments[last - 1].end, 0};
  b->start.reserve(b->block.end - b->block.begin + 1);
  b->start.push_back(0);
  b->entries.reserve(total);
  std::vector<uint64_t> list;
  for (size_t s = first; s < last;) {
    const size_t end = std::min(last, batch_end(*spill, s, stream_bytes));
    const uint8_t* at = nullptr;
    SG_RETURN_IF_ERROR(spill->read(s, end, buffer, &at));
    for (size_t k = s; k < end; ++k) {
      if (interrupt_requested()) return Status::Interrupted("run stopped by a signal");
      SG_RETURN_IF_ERROR(ListSpill::decode(segments[k], at + (segments[k].offset - segments[s].offset), &list,
                                           [&](uint32_t, std::span<const uint64_t> values) {
                                             b->entries.insert(b->entries.end(), values.begin(), values.end());
                                             b->start.push_back(b->entries.size());
                                           }));
    }
    s = end;
  }
  return Status::OK();
}

// Streams every spilled N+(x) past block `b`, a batch of segments at a
// time; the next batch is read while this one is counted.
template <typename Entry, typename Corners>
Status count_against(ListSpill* spill, const OrientedLists<Entry>& b, uint64_t stream_bytes, AlignedBuffer buffers[2],
                     const Corners& corners) {
  const auto& segments = spill->segments();
  const uint64_t lowest = uint64_t{b.block.begin} << 1, beyond = uint64_t{b.block.end} << 1;
  struct Batch {
    size_t first = 0, end = 0;
    const uint8_t* at = nullptr;
  };
  auto read = [&](size_t first, int which, Batch* batch) {
    batch->first = first;
    batch->end = batch_end(*spill, first, stream_bytes);
    return spill->read(first, batch->end, &buffers[which], &batch->at);
  };
  Batch current;
  SG_RETURN_IF_ERROR(read(0, 0, &current));
  for (int which = 0;; which ^= 1) {
    Batch next;
    std::future<Status> reading;
    if (current.end < segments.size()) reading = std::async(std::launch::async, read, current.end, which ^ 1, &next);
    std::atomic<bool> corrupt{false};
    std::atomic<bool> stopped{false};
    parallel_for(current.first, current.end, size_t{1}, [&](size_t lo, size_t hi) {
      std::vector<uint64_t> list;
      for (size_t k = lo; k < hi; ++k) {
        if (interrupt_requested()) stopped = true;  // a segment is a small share of a second
        if (stopped) return;
        const ListSpill::Segment& segment = segments[k];
        if (segment.values == 0 || segment.highest < lowest || segment.lowest >= beyond) continue;
        const uint8_t* bytes = current.at + (segment.offset - segments[current.first].offset);
        if (!ListSpill::decode(segment, bytes, &list, [&](uint32_t x, std::span<const uint64_t> of_x) {
               count_list(x, of_x, b, corners);
             }).ok()) {
          corrupt = true;
        }
      }
    });
    Status status = reading.valid() ? reading.get() : Status::OK();
    if (stopped) return Status::Interrupted("run stopped by a signal");
    if (corrupt) return Status::Corruption("lcc: spilled N+ lists do not decode");
    SG_RETURN_IF_ERROR(status);
    corners.after_batch();
    if (current.end >= segments.size()) return Status::OK();
    current = next;
  }
}

// Builds N+ for every block and writes |N(v)| to `degree_of`. One block
// stays in `a`; several go to `spill`, built one after another.
Status build_all(Engine* engine, const std::vector<VertexBlock>& blocks, const VertexArray<uint32_t>& arcs_of,
                 VertexArray<double>* degree_of, OrientedBlock* a, ListSpill* spill) {
  // A rank spills its lists always: every rank needs them (share_spills).
  const bool spilled = blocks.size() > 1 || engine->distributed();
  if (spilled) SG_RETURN_IF_ERROR(spill->create(engine->scratch_path("lcc.lists"), engine->owned_begin()));
  const uint64_t spill_buffers = spilled ? ListSpill::kWriteBytes + 2 * ListSpill::kSegmentBytes : 0;
  GatheredBlock<uint64_t> gathered;
  std::vector<uint32_t> degree;
  for (size_t i = 0; i < blocks.size(); ++i) {
    engine->set_iteration(static_cast<int>(i));
    const uint64_t held =
        spill_buffers + gathered_block_bytes(blocks[i].slots, blocks[i].end - blocks[i].begin, 8) + blocks[i].slots * 8;
    engine->hold_app_memory(held);
    Status status = build_oriented(engine, blocks[i], arcs_of, &gathered, a, &degree);
    if (status.ok()) {
      status = engine->with_vertices(VertexAccess().writes(*degree_of), blocks[i].begin, blocks[i].end, [&] {
        for (uint32_t k = 0; k < degree.size(); ++k) (*degree_of)[blocks[i].begin + k] = degree[k];
        return Status::OK();
      });
    }
    if (status.ok() && spilled)
      status = spill->append(a->block.begin, a->block.end - a->block.begin, a->start.data(), a->entries.data());
    if (spilled) *a = OrientedBlock{};  // not held while the next block is gathered
    engine->release_app_memory(held);
    SG_RETURN_IF_ERROR(status);
  }
  if (!spilled) return Status::OK();
  *a = OrientedBlock{};
  const Status status = spill->finish();
  engine->count_scratch_io(0, spill->bytes_written());
  return status;
}

// Distributed, after a group: the y sums to their owners, and the z counts
// as (z, count) entries sorted by z to z's owners, in rounds that each
// send and receive at most an exchange round. Each rank adds what it owns.
template <typename E>
Status send_corners(Engine* engine, OrientedLists<Counted<E>>* b, std::vector<uint64_t>* y_sums,
                    VertexArray<uint64_t>* numerators);

// Groups of spilled N+ lists that fit half of what is left are loaded one
// at a time, and all lists streamed past each: I/O is the spill's size
// times the groups, about |E|^2 / budget.
// Distributed, the groups come from every rank's lists and a rank streams
// only its own past them (`streamed`), so each triangle is counted once;
// Entry is then Counted, and a group also holds its y sums.
template <typename Entry>
Status count_spilled(Engine* engine, ListSpill* spill, ListSpill* streamed, int first_iteration,
                     VertexArray<uint64_t>* numerators) {
  uint64_t* const numerator = numerators->data();
  const auto& segments = spill->segments();
  const uint64_t unheld = engine->unheld_memory();
  const uint64_t stream_bytes = std::clamp<uint64_t>(unheld / 16, ListSpill::kSegmentBytes, uint64_t{16} << 20);
  uint64_t room = engine->budget().share(kNeighbourBlockShare);
  if constexpr (kCounted<Entry>) {
    // Every rank must cut the same groups: each ends in collectives.
    std::vector<uint64_t> rooms;
    SG_RETURN_IF_ERROR(engine->communicator()->gather_values(room, &rooms));
    room = *std::min_element(rooms.begin(), rooms.end());
  }
  const uint64_t vertex_bytes = sizeof(uint64_t) * (kCounted<Entry> ? 2 : 1);  // a list's start, and its y sum
  auto decoded_bytes = [&](size_t s) {
    return segments[s].values * sizeof(Entry) + (segments[s].end - segments[s].begin) * vertex_bytes;
  };
  AlignedBuffer buffers[2];
  OrientedLists<Entry> b;
  std::vector<uint64_t> y_sums;
  int group = 0;
  for (size_t first = 0; first < segments.size(); ++group) {
    size_t last = first;
    uint64_t bytes = 0;
    while (last < segments.size() && (last == first || bytes + decoded_bytes(last) <= room))
      bytes += decoded_bytes(last++);
    engine->set_iteration(first_iteration + group);
    const uint64_t held = bytes + 3 * stream_bytes;  // the group, two stream buffers and the lists decoded from them
    engine->hold_app_memory(held);
    Status status = load_group(spill, first, last, stream_bytes, &buffers[0], &b);
    if constexpr (kCounted<Entry>) {
      y_sums.assign(b.block.end - b.block.begin, 0);
      if (status.ok())
        status = count_against(streamed, b, stream_bytes, buffers,
                               GroupCorners{numerator, &numerators->raw(), y_sums.data(), b.block.begin});
      if (status.ok()) status = send_corners(engine, &b, &y_sums, numerators);
    } else {
      if (status.ok()) status = count_against(streamed, b, stream_bytes, buffers, Numerators{numerator});
    }
    engine->release_app_memory(held);
    SG_RETURN_IF_ERROR(status);
    first = last;
  }
  engine->count_scratch_io(spill->bytes_read() + (streamed != spill ? streamed->bytes_read() : 0), 0);
  return Status::OK();
}

// The group's counted entries, compacted to those with a count, each
// holding z, sorted by z; equal z merged while the count fits.
template <typename E>
void z_counts_by_vertex(std::vector<Counted<E>>* entries) {
  size_t kept = 0;
  for (Counted<E>& e : *entries) {
    if (e.count == 0) continue;
    (*entries)[kept].entry = static_cast<E>(entry_vertex(e));
    (*entries)[kept++].count = e.count;
  }
  entries->resize(kept);
  parallel_sort(entries->begin(), entries->end(), by_vertex<E>);
  kept = 0;
  for (const Counted<E>& e : *entries) {
    if (kept > 0) {
      Counted<E>& last = (*entries)[kept - 1];
      if (last.entry == e.entry && uint64_t{last.count} + e.count <= UINT32_MAX) {
        last.count += e.count;
        continue;
      }
    }
    (*entries)[kept++] = e;
  }
  entries->resize(kept);
}

// Adds to the owned numerators in runs of increasing vertices; a
// file-backed one's pages are unmapped as each 1 MiB window is left (they
// stay in the page cache), so a run over the owned range keeps one window
// mapped, not the range.
class WindowedAdds {
 public:
  explicit WindowedAdds(VertexArray<uint64_t>* numerators) : numerators_(numerators) {}
  WindowedAdds(const WindowedAdds&) = delete;
  WindowedAdds& operator=(const WindowedAdds&) = delete;
  ~WindowedAdds() { drop(); }
  void add(uint32_t v, uint64_t amount) {
    const uint64_t window = uint64_t{v} * sizeof(uint64_t) / kWindowBytes;
    if (window != window_) {
      drop();
      window_ = window;
    }
    numerators_->data()[v] += amount;
  }

 private:
  static constexpr uint64_t kWindowBytes = uint64_t{1} << 20;
  void drop() {
    if (window_ != UINT64_MAX)
      numerators_->raw().drop_pages_within(window_ * kWindowBytes, (window_ + 1) * kWindowBytes);
  }
  VertexArray<uint64_t>* numerators_;
  uint64_t window_ = UINT64_MAX;
};

// Adds the (z, count) entries in `bytes` (any alignment) to the owned
// numerators; a z this rank does not own is a malformed message.
template <typename E>
Status add_z_counts(const Engine& engine, const uint8_t* bytes, size_t size, WindowedAdds* adds) {
  if (size % sizeof(Counted<E>) != 0) return Status::Corruption("lcc: a rank sent a partial count");
  for (size_t at = 0; at < size; at += sizeof(Counted<E>)) {
    Counted<E> c;
    std::memcpy(static_cast<void*>(&c), bytes + at, sizeof(c));
    if (c.entry < engine.owned_begin() || c.entry >= engine.owned_end())
      return Status::Corruption("lcc: a rank sent the count of a vertex this rank does not own");
    adds->add(static_cast<uint32_t>(c.entry), c.count);
  }
  return Status::OK();
}

template <typename E>
Status send_corners(Engine* engine, OrientedLists<Counted<E>>* b, std::vector<uint64_t>* y_sums,
                    VertexArray<uint64_t>* numerators) {
  const uint32_t first = b->block.begin, end = b->block.end;
  SG_RETURN_IF_ERROR(engine->add_to_owners(y_sums->data(), first, end));
  WindowedAdds adds(numerators);
  for (uint32_t v = std::max(first, engine->owned_begin()); v < std::min(end, engine->owned_end()); ++v)
    adds.add(v, (*y_sums)[v - first]);
  std::vector<Counted<E>>& counts = b->entries;
  z_counts_by_vertex(&counts);
  b->start = {};  // the lists are done with
  // Each rank's slice of the sorted counts, and the rounds that send them.
  Communicator* comm = engine->communicator();
  const std::vector<uint32_t>& bounds = engine->owner_bounds();
  const size_t ranks = bounds.size() - 1, me = static_cast<size_t>(comm->rank());
  std::vector<size_t> slice(ranks + 1, counts.size());
  for (size_t r = 0; r < ranks; ++r) {
    slice[r] = static_cast<size_t>(std::lower_bound(counts.begin(), counts.end(), Counted<E>(bounds[r]), by_vertex<E>) -
                                   counts.begin());
  }
  const uint64_t per_rank = std::max<uint64_t>(
      1, exchange_round_bytes(engine->budget().total()) / std::max<size_t>(ranks - 1, 1) / sizeof(Counted<E>));
  uint64_t rounds = 0;
  for (size_t r = 0; r < ranks; ++r) {
    if (r != me) rounds = std::max<uint64_t>(rounds, (slice[r + 1] - slice[r] + per_rank - 1) / per_rank);
  }
  std::vector<uint64_t> all_rounds;
  SG_RETURN_IF_ERROR(comm->gather_values(rounds, &all_rounds));
  rounds = *std::max_element(all_rounds.begin(), all_rounds.end());
  const auto* counted = reinterpret_cast<const uint8_t*>(counts.data());
  SG_RETURN_IF_ERROR(add_z_counts<E>(*engine, counted + slice[me] * sizeof(Counted<E>),
                                     (slice[me + 1] - slice[me]) * sizeof(Counted<E>), &adds));
  std::vector<uint8_t> send, received;
  std::vector<uint64_t> send_counts(ranks), received_counts;
  for (uint64_t round = 0; round < rounds; ++round) {
    send.clear();
    for (size_t r = 0; r < ranks; ++r) {
      const size_t lo = std::min<size_t>(slice[r] + round * per_rank, slice[r + 1]);
      const size_t hi = std::min<size_t>(lo + per_rank, slice[r + 1]);
      send_counts[r] = r == me ? 0 : (hi - lo) * sizeof(Counted<E>);
      const uint8_t* bytes = counted + lo * sizeof(Counted<E>);
      send.insert(send.end(), bytes, bytes + send_counts[r]);
    }
    SG_RETURN_IF_ERROR(comm->all_to_all(send, send_counts, &received, &received_counts));
    SG_RETURN_IF_ERROR(add_z_counts<E>(*engine, received.data(), received.size(), &adds));
  }
  return Status::OK();
}

// Distributed: every rank's spilled lists, in rank order (ranks own
// consecutive vertex ranges), into `all` on every rank: segments as they
// are, in batches from one rank at a time. A batch is in memory three
// times (read, sent, received): an eighth of what is left, at most 64 MiB.
Status share_spills_in_batches(Engine* engine, uint64_t share_bytes, ListSpill* own, ListSpill* all);

Status share_spills(Engine* engine, ListSpill* own, ListSpill* all) {
  constexpr uint64_t kMostShareBytes = uint64_t{64} << 20;
  const uint64_t share_bytes =
      std::clamp<uint64_t>(engine->unheld_memory() / 8, ListSpill::kSegmentBytes, kMostShareBytes);
  engine->hold_app_memory(3 * share_bytes);
  const Status status = share_spills_in_batches(engine, share_bytes, own, all);
  engine->release_app_memory(3 * share_bytes);
  return status;
}

Status share_spills_in_batches(Engine* engine, uint64_t share_bytes, ListSpill* own, ListSpill* all) {
  Communicator* comm = engine->communicator();
  SG_RETURN_IF_ERROR(all->create(engine->scratch_path("lcc.all-lists")));
  std::vector<uint64_t> segment_counts;
  SG_RETURN_IF_ERROR(comm->gather_values(uint64_t{own->segments().size()}, &segment_counts));
  AlignedBuffer buffer;
  std::vector<uint8_t> mine, received;
  std::vector<uint64_t> counts;
  for (size_t r = 0; r < segment_counts.size(); ++r) {
    for (size_t first = 0; first < segment_counts[r];) {
      // The sender's batch: its segments' records, then their bytes.
      size_t last = first;
      mine.clear();
      if (static_cast<int>(r) == comm->rank()) {
        last = batch_end(*own, first, share_bytes);
        const uint8_t* at = nullptr;
        SG_RETURN_IF_ERROR(own->read(first, last, &buffer, &at));
        const auto& segments = own->segments();
        const uint64_t bytes = segments[last - 1].offset + segments[last - 1].bytes - segments[first].offset;
        const uint64_t records = last - first;
        mine.resize(sizeof(records) + records * sizeof(ListSpill::Segment) + bytes);
        std::memcpy(mine.data(), &records, sizeof(records));
        std::memcpy(mine.data() + sizeof(records), segments.data() + first, records * sizeof(ListSpill::Segment));
        std::memcpy(mine.data() + sizeof(records) + records * sizeof(ListSpill::Segment), at, bytes);
      }
      SG_RETURN_IF_ERROR(comm->all_gather(mine, &received, &counts));
      uint64_t at = 0;
      for (size_t k = 0; k < r; ++k) at += counts[k];
      uint64_t records = 0;
      if (counts[r] < sizeof(records))
        return Status::Corruption("rank " + std::to_string(r) + " sent no spilled lists");
      std::memcpy(&records, received.data() + at, sizeof(records));
      if (records == 0 || counts[r] < sizeof(records) + records * sizeof(ListSpill::Segment)) {
        return Status::Corruption("rank " + std::to_string(r) + " sent a malformed batch of lists");
      }
      std::vector<ListSpill::Segment> segments(records);
      std::memcpy(segments.data(), received.data() + at + sizeof(records), records * sizeof(ListSpill::Segment));
      const uint8_t* bytes = received.data() + at + sizeof(records) + records * sizeof(ListSpill::Segment);
      const uint64_t base = segments.front().offset;
      for (const ListSpill::Segment& segment : segments) {
        if (segment.offset < base || segment.offset - base + segment.bytes >
                                         counts[r] - sizeof(records) - records * sizeof(ListSpill::Segment)) {
          return Status::Corruption("rank " + std::to_string(r) + " sent a segment past its batch");
        }
        SG_RETURN_IF_ERROR(all->append_segment(segment, bytes + (segment.offset - base)));
      }
      first += records;
    }
  }
  return all->finish();
}

// N+ lists of every block (`a` holds the one block, else `spill` all),
// and |N(v)| in `degree_of`.
Status build_lists(Engine* engine, VertexArray<double>* degree_of, std::vector<VertexBlock>* blocks, OrientedBlock* a,
                   ListSpill* spill) {
  const uint32_t n = engine->num_vertices();
  const bool directed = engine->graph().directed();
  VertexArray<uint32_t> arcs_of;  // the rank of a neighbour: read as u
  SG_RETURN_IF_ERROR(engine->allocate(&arcs_of, "lcc.arcs", VertexUse::kSource));
  SG_RETURN_IF_ERROR(engine->ensure_in_degrees());
  if (directed) SG_RETURN_IF_ERROR(engine->ensure_out_degrees());
  SG_RETURN_IF_ERROR(engine->vertex_map(VertexSubset::all(n), [&](uint32_t v) {
    arcs_of[v] = engine->in_degree()[v] + (directed ? engine->out_degree()[v] : 0);
  }));
  engine->release_out_degrees();  // their memory goes to the blocks
  // Blocks of gathered lists in half of what is left; a slot holds a
  // gathered key (8), then an entry (8).
  const uint64_t spill_buffers = ListSpill::kWriteBytes + 2 * ListSpill::kSegmentBytes;
  const uint64_t unheld = engine->unheld_memory();
  const uint64_t room = std::max<uint64_t>(kLeastBlockBytes, (unheld > spill_buffers ? unheld - spill_buffers : 0) / 2);
  SG_RETURN_IF_ERROR(plan_vertex_blocks(engine, room, sizeof(uint64_t), sizeof(uint64_t), blocks));
  return build_all(engine, *blocks, arcs_of, degree_of, a, spill);
}

// Every triangle's arcs added to its corners' numerators.
Status count_triangles(Engine* engine, size_t block_count, const OrientedBlock& a, ListSpill* spill,
                       VertexArray<uint64_t>* numerator) {
  if (!engine->distributed() && block_count == 1) {
    const uint64_t held = (a.start.size() + a.entries.size()) * sizeof(uint64_t);
    engine->hold_app_memory(held);
    count_in_memory(a, numerator->data());
    engine->release_app_memory(held);
    return Status::OK();
  }
  // Distributed: groups of every rank's lists, this rank's streamed past.
  ListSpill all_lists;
  ListSpill* groups = spill;
  if (engine->distributed()) {
    SG_RETURN_IF_ERROR(share_spills(engine, spill, &all_lists));
    groups = &all_lists;
  }
  // An entry is (vertex << 1) | bit: 4 bytes hold it below 2^31 vertices.
  const int first_iteration = static_cast<int>(block_count);
  const bool narrow = engine->num_vertices() <= (uint32_t{1} << 31);
  if (engine->distributed()) {  // its numerators are touched a range at a time
    return narrow ? count_spilled<Counted<uint32_t>>(engine, groups, spill, first_iteration, numerator)
                  : count_spilled<Counted<uint64_t>>(engine, groups, spill, first_iteration, numerator);
  }
  numerator->raw().advise_random(true);  // beyond the budget: a fault reads its page alone
  const Status status = narrow ? count_spilled<uint32_t>(engine, groups, spill, first_iteration, numerator)
                               : count_spilled<uint64_t>(engine, groups, spill, first_iteration, numerator);
  numerator->raw().advise_random(false);
  return status;
}

}  // namespace

Status lcc(Engine* engine, VertexArray<double>* coefficient, uint64_t* arcs_among_neighbours) {
  const uint32_t n = engine->num_vertices();
  // Numerators first: triangles touch them at random, so they take the
  // memory. Distributed, they come after the lists: steps share the
  // mirrors of every array a step might read at sources, which this one
  // (any vertex's, at any time) would be. The coefficients hold the
  // degrees until the end, touched a block's range at a time.
  VertexArray<uint64_t> numerator;
  if (!engine->distributed()) SG_RETURN_IF_ERROR(engine->allocate(&numerator, "lcc.numerator"));
  SG_RETURN_IF_ERROR(engine->allocate(coefficient, "lcc.coefficient", VertexUse::kVertex));
  std::vector<VertexBlock> blocks;
  OrientedBlock a;
  ListSpill spill;
  SG_RETURN_IF_ERROR(build_lists(engine, coefficient, &blocks, &a, &spill));
  if (engine->distributed()) SG_RETURN_IF_ERROR(engine->allocate(&numerator, "lcc.numerator"));
  SG_RETURN_IF_ERROR(count_triangles(engine, blocks.size(), a, &spill, &numerator));
  SG_RETURN_IF_ERROR(engine->vertex_map(
      VertexSubset::all(n),
      [&](uint32_t v) {
        const double d = (*coefficient)[v];
        (*coefficient)[v] = d < 2 ? 0.0 : static_cast<double>(numerator[v]) / (d * (d - 1));
      },
      VertexAccess().writes(*coefficient).reads(numerator)));
  return engine->vertex_reduce([&](uint32_t v) { return numerator[v]; }, arcs_among_neighbours,
                               VertexAccess().reads(numerator));
}

// The app: its summary, figures and result columns (apps/harness).
namespace {

Status run_lcc(AppRun& r) {
  auto* coefficient = r.out.array<double>();
  uint64_t arcs = 0;
  SG_RETURN_IF_ERROR(lcc(&r.engine, coefficient, &arcs));
  SG_RETURN_IF_ERROR(r.finish(coefficient));
  double total = 0;
  for (uint32_t v = 0; v < r.graph.num_vertices(); ++v) {
    total += (*coefficient)[v];
    r.out.pages.visited(v + 1);
  }
  const uint32_t n = r.graph.num_vertices();
  r.out.facts = {{"arcs_among_neighbours", arcs}};
  return describe_values(r, coefficient, "coefficient", "%.17g",
                         summary_line("lcc: average %.6f, %llu arcs among neighbours\n", n == 0 ? 0.0 : total / n,
                                      static_cast<unsigned long long>(arcs)));
}

Status run_triangles(AppRun& r) {
  auto* coefficient = r.out.array<double>();
  uint64_t arcs = 0;
  SG_RETURN_IF_ERROR(lcc(&r.engine, coefficient, &arcs));
  SG_RETURN_IF_ERROR(r.finish(coefficient));
  r.out.facts = {{"triangles", arcs / 6}};
  return describe_values(r, coefficient, "coefficient", "%.17g",
                         summary_line("triangles: %llu\n", static_cast<unsigned long long>(arcs / 6)), false);
}

}  // namespace

SG_APP_ROW(lcc) {
  return AppRow("lcc", "local clustering coefficient (LDBC Graphalytics)", kTopOption, "", "coefficient",
                kReversedSteps, run_lcc);
}

SG_APP_ROW(triangles) {
  return AppRow("triangles", "triangle count (undirected graphs), with each vertex's clustering coefficient",
                kNoAppOption, "", "coefficient", kNeedsUndirected | kReversedSteps, run_triangles);
}

}  // namespace sg
