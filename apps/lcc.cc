// Local clustering coefficient, as defined by LDBC Graphalytics
// (specification v1.0, §2.3.4, after Watts & Strogatz 1998):
//   LCC(v) = |{(u, w) in E : u, w in N(v)}| / (|N(v)| (|N(v)| - 1))
// and 0 when |N(v)| <= 1, where N(v) holds v's neighbours in either
// direction, v itself excluded, and the numerator counts arcs (an
// undirected edge is both of its arcs); repeated arcs count once.
//
// Out of core. Write t(v) for the numerator: every arc u -> w adds one to
// t(v) of each common neighbour v of u and w. For a block B of vertices
// whose neighbourhoods fit the memory left (apps/neighbour_blocks.h):
//   1. gather N(v) for v in B (sorted, repeats and v dropped);
//   2. invert them into N_B(u) = N(u) ∩ B for every u they name (sorted
//      (u, v) pairs: memory is the block's, not O(|V|));
//   3. stream the in-space once: for each arc u -> w, the common vertices
//      of N_B(u) and N_B(w) (merge, or galloping when one is much longer)
//      each gain one.
// Each space is read once by the gathers of all blocks, and the in-space
// once per block: I/O = (blocks + 2) spaces, with blocks ~ 32 bytes x
// (in- plus out-arcs) / memory, so it grows as |E|^2 / budget.
// triangles = sum t(v) / 6 on an undirected graph (each triangle is seen by
// its 3 corners, from both arcs of the opposite edge).
#include <algorithm>
#include <atomic>

#include "apps/kernels.h"
#include "apps/neighbour_blocks.h"
#include "shards/util/parallel.h"

namespace sg {
namespace {

// N_B(u) for the vertices u the block's neighbourhoods name.
struct BlockNeighbourhoods {
  std::vector<uint32_t> keys;    // u, ascending
  std::vector<uint64_t> starts;  // N_B(keys[k]) = members[starts[k], starts[k + 1])
  std::vector<uint32_t> members;

  uint64_t bytes() const { return keys.size() * 4 + starts.size() * 8 + members.size() * 4; }
};

// The first index >= `from` whose key is >= u (keys ascending), by galloping.
size_t gallop(const std::vector<uint32_t>& keys, size_t from, uint32_t u) {
  size_t step = 1, hi = from;
  while (hi < keys.size() && keys[hi] < u) {
    from = hi + 1;
    hi += step;
    step *= 2;
  }
  return static_cast<size_t>(std::lower_bound(keys.begin() + from, keys.begin() + std::min(hi, keys.size()), u) - keys.begin());
}

// Calls f(x) for each x in both sorted ranges.
template <typename F>
void for_each_common(const uint32_t* a, size_t na, const uint32_t* b, size_t nb, F&& f) {
  if (na > nb) {
    std::swap(a, b);
    std::swap(na, nb);
  }
  if (na == 0) return;
  if (nb / na > 32) {  // skewed: search each of the short list's in the long one
    const uint32_t* at = b;
    for (size_t i = 0; i < na && at < b + nb; ++i) {
      at = std::lower_bound(at, b + nb, a[i]);
      if (at < b + nb && *at == a[i]) f(a[i]);
    }
    return;
  }
  size_t i = 0, j = 0;
  while (i < na && j < nb) {
    if (a[i] < b[j]) ++i;
    else if (b[j] < a[i]) ++j;
    else {
      f(a[i]);
      ++i;
      ++j;
    }
  }
}

// Pull over the in-space: destination w with its sources u (arcs u -> w).
struct CountArcs {
  static constexpr bool kIgnoresWeights = true;
  const BlockNeighbourhoods* block;
  uint64_t* numerator;  // t(v) for the block's vertices
  uint32_t first_vertex;
  SplitPieces<uint32_t>* split;  // of the in-space

  // N_B(x) from index k (keys[k] == x).
  std::pair<const uint32_t*, size_t> members(size_t k) const {
    return {block->members.data() + block->starts[k], block->starts[k + 1] - block->starts[k]};
  }
  bool find(uint32_t x, size_t* k) const {
    *k = static_cast<size_t>(std::lower_bound(block->keys.begin(), block->keys.end(), x) - block->keys.begin());
    return *k < block->keys.size() && block->keys[*k] == x;
  }
  void count(std::pair<const uint32_t*, size_t> a, std::pair<const uint32_t*, size_t> b, int64_t times = 1) {
    for_each_common(a.first, a.second, b.first, b.second, [&](uint32_t v) {
      std::atomic_ref<uint64_t>(numerator[v - first_vertex]).fetch_add(static_cast<uint64_t>(times), std::memory_order_relaxed);
    });
  }
  // One arc (the engine hands whole lists to update_list in this kernel's
  // full pulls; this is the single-arc form of the same count).
  bool update(uint32_t u, uint32_t w, float) {
    size_t kw = 0, ku = 0;
    if (u != w && find(w, &kw) && find(u, &ku)) count(members(ku), members(kw));
    return false;
  }
  bool update_atomic(uint32_t u, uint32_t w, float weight) { return update(u, w, weight); }
  // Sources ascending: repeats are adjacent, and each is found by
  // galloping on from the previous one.
  bool update_list(uint32_t w, const uint32_t* sources, uint32_t n) {
    size_t kw = 0;
    if (!find(w, &kw)) return false;
    const auto of_w = members(kw);
    size_t k = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t u = sources[i];
      if (u == w || (i > 0 && sources[i - 1] == u)) continue;
      k = gallop(block->keys, k, u);
      if (k == block->keys.size()) break;
      if (block->keys[k] == u) count(members(k), of_w);
    }
    if (n > 0 && split->is_split(w)) split->record(w, sources[0], 0, sources[n - 1], 0);
    return false;
  }
  // An arc u -> w seen in several pieces of w's list was counted once per piece.
  void uncount_repeats() {
    split->for_each_extra([&](uint32_t w, uint32_t u, uint32_t, uint32_t copies) {
      size_t kw = 0, ku = 0;
      if (u != w && find(w, &kw) && find(u, &ku)) count(members(ku), members(kw), -static_cast<int64_t>(copies));
    });
  }
  bool cond(uint32_t) const { return true; }
};

// Sorts and dedups each gathered neighbourhood in place, drops the vertex
// itself; degree[i] = |N(v)|.
void make_sets(GatheredBlock<uint32_t>* gathered, std::vector<uint32_t>* degree) {
  degree->assign(gathered->size(), 0);
  parallel_for(uint32_t{0}, gathered->size(), uint32_t{256}, [&](uint32_t lo, uint32_t hi) {
    for (uint32_t i = lo; i < hi; ++i) {
      const std::span<uint32_t> values = gathered->values(i);
      std::sort(values.begin(), values.end());
      const uint32_t v = gathered->begin() + i;
      auto end = std::unique(values.begin(), values.end());
      end = std::remove(values.begin(), end, v);
      (*degree)[i] = static_cast<uint32_t>(end - values.begin());
    }
  });
}

// N_B(u) from the block's sets: the (u, v) pairs sorted.
void invert(GatheredBlock<uint32_t>* gathered, const std::vector<uint32_t>& degree, BlockNeighbourhoods* out) {
  std::vector<uint64_t> first(degree.size() + 1, 0);
  for (size_t i = 0; i < degree.size(); ++i) first[i + 1] = first[i] + degree[i];
  std::vector<uint64_t> pairs(first.back());
  parallel_for(uint32_t{0}, gathered->size(), uint32_t{256}, [&](uint32_t lo, uint32_t hi) {
    for (uint32_t i = lo; i < hi; ++i) {
      const uint64_t v = gathered->begin() + i;
      const uint32_t* u = gathered->values(i).data();
      for (uint32_t k = 0; k < degree[i]; ++k) pairs[first[i] + k] = uint64_t{u[k]} << 32 | v;
    }
  });
  gathered->clear();
  parallel_sort(pairs.begin(), pairs.end(), std::less<uint64_t>());
  out->keys.clear();
  out->starts.clear();
  out->members.resize(pairs.size());
  for (size_t k = 0; k < pairs.size(); ++k) {
    const uint32_t u = static_cast<uint32_t>(pairs[k] >> 32);
    if (out->keys.empty() || out->keys.back() != u) {
      out->keys.push_back(u);
      out->starts.push_back(k);
    }
    out->members[k] = static_cast<uint32_t>(pairs[k]);
  }
  out->starts.push_back(pairs.size());
}

}  // namespace

Status lcc(Engine* engine, VertexArray<double>* coefficient, uint64_t* arcs_among_neighbours) {
  const uint32_t n = engine->num_vertices();
  SG_RETURN_IF_ERROR(engine->allocate(coefficient, "lcc.coefficient"));
  VertexArray<double>& lcc_of = *coefficient;
  *arcs_among_neighbours = 0;
  // A slot holds a gathered id (4), then a (u, v) pair (8), a member (4)
  // and at most a key with its start (12).
  const uint64_t room = std::max<uint64_t>(kLeastBlockBytes, engine->unheld_memory() / 2);
  std::vector<VertexBlock> blocks;
  SG_RETURN_IF_ERROR(plan_vertex_blocks(engine, room, sizeof(uint32_t), 24, &blocks));
  GatheredBlock<uint32_t> gathered;
  std::vector<uint32_t> degree;
  std::vector<uint64_t> numerator;
  BlockNeighbourhoods neighbourhoods;
  SplitPieces<uint32_t> split;
  split.init(engine->graph(), SpaceKind::kIn);
  for (size_t b = 0; b < blocks.size(); ++b) {
    const VertexBlock& block = blocks[b];
    engine->set_iteration(static_cast<int>(b));
    const uint64_t held = gathered_block_bytes(block.slots, block.end - block.begin, sizeof(uint32_t)) + block.slots * 24;
    engine->hold_app_memory(held);
    Status status = gathered.gather(engine, block, [](uint32_t u) { return u; });
    if (status.ok()) {
      make_sets(&gathered, &degree);
      invert(&gathered, degree, &neighbourhoods);
      numerator.assign(block.end - block.begin, 0);
      split.clear();
      CountArcs count{&neighbourhoods, numerator.data(), block.begin, &split};
      VertexSubset unused;
      if (!neighbourhoods.keys.empty()) status = engine->edge_map(VertexSubset::all(n), count, &unused, EdgeMapOptions{Direction::kPull});
      if (status.ok()) count.uncount_repeats();
    }
    engine->release_app_memory(held);
    SG_RETURN_IF_ERROR(status);
    for (uint32_t i = 0; i < block.end - block.begin; ++i) {
      const double d = degree[i];
      lcc_of[block.begin + i] = degree[i] < 2 ? 0.0 : static_cast<double>(numerator[i]) / (d * (d - 1));
      *arcs_among_neighbours += numerator[i];
    }
  }
  return Status::OK();
}

}  // namespace sg
