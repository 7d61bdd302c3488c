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
// Out of core: N+ lists are built for a block of vertices at a time
// (apps/neighbour_blocks.h) in half the memory left; for each block A, every
// block B its lists point into is built too (A itself reused), so with K
// blocks the gathers read both spaces K times (K = 1 when they fit): I/O
// grows as |E|^2 / budget. Numerators are one 8-byte array over the
// vertices (any vertex can be a triangle's third corner).
#include <algorithm>
#include <atomic>

#include "apps/kernels.h"
#include "apps/neighbour_blocks.h"
#include "shards/util/parallel.h"

namespace sg {
namespace {

// An oriented entry: (u << 1) | (m(v, u) - 1); ascending entries are ascending u.
uint32_t entry_vertex(uint64_t e) { return static_cast<uint32_t>(e >> 1); }
uint64_t entry_arcs(uint64_t e) { return (e & 1) + 1; }

// N+(v) for a block's vertices.
struct OrientedBlock {
  VertexBlock block;
  std::vector<uint64_t> start;  // per vertex, and the end
  std::vector<uint64_t> entries;

  std::span<const uint64_t> list(uint32_t v) const {
    const uint32_t i = v - block.begin;
    return {entries.data() + start[i], entries.data() + start[i + 1]};
  }
};

uint64_t rank_key(uint64_t arcs, uint32_t v) { return std::min<uint64_t>(arcs, UINT32_MAX) << 32 | v; }

// Calls f(a, b) for the entries of a and b naming the same vertex.
template <typename F>
void for_each_common(std::span<const uint64_t> a, std::span<const uint64_t> b, F&& f) {
  const bool swapped = a.size() > b.size();
  if (swapped) std::swap(a, b);
  auto call = [&](uint64_t x, uint64_t y) { swapped ? f(y, x) : f(x, y); };
  if (a.empty()) return;
  auto before = [](uint64_t e, uint64_t key) { return entry_vertex(e) < entry_vertex(key); };
  if (b.size() / a.size() > 8) {  // skewed: search each short-list entry in the long list
    auto at = b.begin();
    for (uint64_t x : a) {
      at = std::lower_bound(at, b.end(), x, before);
      if (at == b.end()) return;
      if (entry_vertex(*at) == entry_vertex(x)) call(x, *at);
    }
    return;
  }
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const uint32_t x = entry_vertex(a[i]), y = entry_vertex(b[j]);
    if (x < y) ++i;
    else if (y < x) ++j;
    else call(a[i++], b[j++]);
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
      std::copy(keys.begin(), keys.begin() + static_cast<ptrdiff_t>(out->start[i + 1] - out->start[i]), out->entries.begin() + static_cast<ptrdiff_t>(out->start[i]));
    }
  });
  gathered->clear();
  return Status::OK();
}

// Triangles x < y < z (by rank) with x in `a` and y in `b`.
void count_triangles(const OrientedBlock& a, const OrientedBlock& b, uint64_t* numerator) {
  auto add = [&](uint32_t v, uint64_t amount) { std::atomic_ref<uint64_t>(numerator[v]).fetch_add(amount, std::memory_order_relaxed); };
  parallel_for(a.block.begin, a.block.end, uint32_t{64}, [&](uint32_t lo, uint32_t hi) {
    for (uint32_t x = lo; x < hi; ++x) {
      const std::span<const uint64_t> of_x = a.list(x);
      auto first = std::lower_bound(of_x.begin(), of_x.end(), uint64_t{b.block.begin} << 1);
      uint64_t at_x = 0;
      for (auto it = first; it != of_x.end() && entry_vertex(*it) < b.block.end; ++it) {
        const uint32_t y = entry_vertex(*it);
        const uint64_t xy = entry_arcs(*it);
        uint64_t at_y = 0;
        for_each_common(of_x, b.list(y), [&](uint64_t xz, uint64_t yz) {
          at_x += entry_arcs(yz);
          at_y += entry_arcs(xz);
          add(entry_vertex(xz), xy);
        });
        if (at_y > 0) add(y, at_y);
      }
      if (at_x > 0) add(x, at_x);
    }
  });
}

}  // namespace

Status lcc(Engine* engine, VertexArray<double>* coefficient, uint64_t* arcs_among_neighbours) {
  const uint32_t n = engine->num_vertices();
  const bool directed = engine->graph().directed();
  SG_RETURN_IF_ERROR(engine->allocate(coefficient, "lcc.coefficient"));
  VertexArray<uint64_t> numerator;
  SG_RETURN_IF_ERROR(engine->allocate(&numerator, "lcc.numerator"));
  VertexArray<uint32_t> arcs_of;  // the rank of a neighbour: read as u
  SG_RETURN_IF_ERROR(engine->allocate(&arcs_of, "lcc.arcs", VertexUse::kSource));
  SG_RETURN_IF_ERROR(engine->ensure_in_degrees());
  if (directed) SG_RETURN_IF_ERROR(engine->ensure_out_degrees());
  SG_RETURN_IF_ERROR(engine->vertex_map(VertexSubset::all(n), [&](uint32_t v) {
    arcs_of[v] = engine->in_degree()[v] + (directed ? engine->out_degree()[v] : 0);
  }));

  // Two blocks at a time, each in a quarter of what is left. A slot holds a
  // gathered key (8), then an entry (8).
  const uint64_t room = std::max<uint64_t>(kLeastBlockBytes, engine->unheld_memory() / 4);
  std::vector<VertexBlock> blocks;
  SG_RETURN_IF_ERROR(plan_vertex_blocks(engine, room, sizeof(uint64_t), sizeof(uint64_t), &blocks));
  GatheredBlock<uint64_t> gathered;
  OrientedBlock a, b;
  std::vector<uint32_t> degree;
  for (size_t i = 0; i < blocks.size(); ++i) {
    engine->set_iteration(static_cast<int>(i));
    const uint64_t held = 2 * (gathered_block_bytes(blocks[i].slots, blocks[i].end - blocks[i].begin, 8) + blocks[i].slots * 8);
    engine->hold_app_memory(held);
    Status status = build_oriented(engine, blocks[i], arcs_of, &gathered, &a, &degree);
    for (uint32_t k = 0; status.ok() && k < degree.size(); ++k) (*coefficient)[blocks[i].begin + k] = degree[k];
    // The blocks A's lists point into.
    uint32_t lowest = UINT32_MAX, highest = 0;
    for (uint64_t e : a.entries) {
      lowest = std::min(lowest, entry_vertex(e));
      highest = std::max(highest, entry_vertex(e));
    }
    for (size_t j = 0; status.ok() && j < blocks.size(); ++j) {
      if (a.entries.empty() || blocks[j].end <= lowest || blocks[j].begin > highest) continue;
      if (j == i) {
        count_triangles(a, a, numerator.data());
        continue;
      }
      status = build_oriented(engine, blocks[j], arcs_of, &gathered, &b, nullptr);
      if (status.ok()) count_triangles(a, b, numerator.data());
    }
    engine->release_app_memory(held);
    SG_RETURN_IF_ERROR(status);
  }
  VertexArray<double>& lcc_of = *coefficient;
  *arcs_among_neighbours = parallel_sum<uint64_t>(uint32_t{0}, n, [&](uint32_t v) {
    const double d = lcc_of[v];
    lcc_of[v] = d < 2 ? 0.0 : static_cast<double>(numerator[v]) / (d * (d - 1));
    return numerator[v];
  });
  return Status::OK();
}

}  // namespace sg
