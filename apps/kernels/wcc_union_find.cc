// Weakly connected components by union-find over one stream of the edges
// (Shiloach & Vishkin's linking of roots, in the lock-free form of GAPBS's
// cc.cc / Afforest, Sutton et al. IPDPS'18): every arc u -> v unites the
// trees of u and v, linking the larger root under the smaller with a CAS;
// finds halve paths. A root is then always the smallest id of its tree, so
// after a last pass pointing every vertex at its root, each label is the
// smallest vertex id of its component, as label propagation gives. One scan
// of one space replaces a round of two scans per hop of the graph's
// diameter; it needs the parent array (4 bytes a vertex) whole in memory,
// so wcc() takes it only when that fits the budget. The pull hands each
// destination's whole list over, so its root is found once a list.
#include "apps/kernels/kernels.h"

#include <atomic>

namespace sg {
namespace {

struct Unite {
  uint32_t* parent;
  uint32_t find(uint32_t x) const {
    for (;;) {
      const uint32_t p = std::atomic_ref<uint32_t>(parent[x]).load(std::memory_order_relaxed);
      if (p == x) return x;
      const uint32_t grand = std::atomic_ref<uint32_t>(parent[p]).load(std::memory_order_relaxed);
      // Path halving: parents only ever move to smaller ids, toward the root.
      if (grand != p) std::atomic_ref<uint32_t>(parent[x]).store(grand, std::memory_order_relaxed);
      x = grand;
    }
  }
  // Links the trees of a and b, the larger root under the smaller with a
  // CAS; returns the root they then share (an ancestor of both, which
  // another thread may link further meanwhile).
  uint32_t unite(uint32_t a, uint32_t b) const {
    for (;;) {
      a = find(a);
      b = find(b);
      if (a == b) return a;
      if (a > b) std::swap(a, b);
      uint32_t expected = b;
      if (std::atomic_ref<uint32_t>(parent[b]).compare_exchange_strong(expected, a, std::memory_order_relaxed))
        return a;
      b = expected;  // b got a parent meanwhile: retry from there
    }
  }
  bool update_atomic(uint32_t u, uint32_t v, float) {
    unite(u, v);
    return false;
  }
  // Several lists may reach the same root: pull uses the atomic form too.
  bool update(uint32_t u, uint32_t v, float w) { return update_atomic(u, v, w); }
  // The pull over every arc hands over whole lists: v's root is found once
  // a list, not once an arc, and a source already hanging right under it
  // (most of them, once the giant component has formed) costs one load.
  bool update_list(uint32_t v, const uint32_t* sources, uint32_t count) const {
    uint32_t root = find(v);
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t u = sources[i];
      if (std::atomic_ref<uint32_t>(parent[u]).load(std::memory_order_relaxed) == root) continue;
      root = unite(u, root);
    }
    return false;
  }
  static constexpr bool kIgnoresWeights = true;
  bool cond(uint32_t) const { return true; }
};

}  // namespace

Status wcc_union_find(Engine* engine, VertexArray<uint32_t>* labels) {
  const uint32_t n = engine->num_vertices();
  SG_RETURN_IF_ERROR(engine->allocate(labels, "wcc.parent"));
  const VertexSubset all = VertexSubset::all(n);
  SG_RETURN_IF_ERROR(engine->vertex_map(all, [&](uint32_t v) { (*labels)[v] = v; }));
  engine->set_iteration(0);
  Unite unite{labels->data()};
  VertexSubset unused;
  // Every arc once: the in-space holds each arc of a directed graph, the
  // one space of an undirected graph each edge (twice).
  SG_RETURN_IF_ERROR(engine->edge_map(all, unite, &unused, {Direction::kPull, false}));
  // Other threads' finds read these entries meanwhile: the store is atomic
  // too (a root is an ancestor, so their walks stay valid).
  return engine->vertex_map(all, [&](uint32_t v) {
    std::atomic_ref<uint32_t>((*labels)[v]).store(unite.find(v), std::memory_order_relaxed);
  });
}

}  // namespace sg
