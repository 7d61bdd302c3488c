// k-core decomposition: the coreness of every vertex, the largest k such
// that the vertex lies in a subgraph whose vertices all have degree >= k.
// Peeling as in Julienne (Dhulipala, Blelloch & Shun, SPAA'17) with its
// buckets reduced to "the current k": every vertex whose remaining degree
// is at most k is removed at once with coreness k, and edge_map lowers its
// neighbours' degrees; a neighbour falling to k joins the next round. When
// no vertex is left at k, k rises to the smallest remaining degree.
// Degrees count arcs in both directions (a directed graph is read as its
// undirected multigraph, parallel arcs counted), self-loops excluded.
#include <algorithm>
#include <atomic>
#include <functional>

#include "apps/harness/app_row.h"
#include "apps/kernels/kernels.h"
#include "core/atomics.h"

namespace sg {
namespace {

// One array holds both: a vertex still in the graph has its remaining
// degree (below 2^31), a removed one kRemoved | its coreness. Half the
// state of a degree array beside a coreness array, so a rank's share fits
// its budget whole where two arrays would be loaded by range every step.
constexpr uint32_t kRemoved = uint32_t{1} << 31;

bool removed(uint32_t state) { return (state & kRemoved) != 0; }

struct CountDegree {
  uint32_t* state;
  bool update(uint32_t u, uint32_t v, float) {
    if (u != v) ++state[v];
    return false;
  }
  bool update_atomic(uint32_t u, uint32_t v, float) {
    if (u != v) std::atomic_ref<uint32_t>(state[v]).fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  bool cond(uint32_t) const { return true; }
};

// u was removed this round: v loses the arc; it joins the next round when
// its degree falls from k + 1 to k (once, whatever else it loses). A
// removed v is left alone: removals happen between steps, never during one.
struct Peel {
  uint32_t* state;
  uint32_t k;
  bool update(uint32_t u, uint32_t v, float) { return u != v && !removed(state[v]) && state[v]-- == k + 1; }
  bool update_atomic(uint32_t u, uint32_t v, float) {
    if (u == v || removed(load_relaxed(&state[v]))) return false;
    return std::atomic_ref<uint32_t>(state[v]).fetch_sub(1, std::memory_order_relaxed) == k + 1;
  }
  bool cond(uint32_t v) const { return !removed(load_relaxed(&state[v])); }
};

// vertex_reduce's T: "+=" keeps the value `Better` prefers.
template <typename Better, uint32_t kNone>
struct Kept {
  uint32_t value = kNone;
  Kept& operator+=(const Kept& other) {
    if (Better{}(other.value, value)) value = other.value;
    return *this;
  }
};
using Smallest = Kept<std::less<uint32_t>, UINT32_MAX>;
using Largest = Kept<std::greater<uint32_t>, 0>;

// One edge_map along the arcs, and one against them on a directed graph.
template <typename F>
Status map_both_ways(Engine* engine, const VertexSubset& frontier, F& f, VertexSubset* next) {
  SG_RETURN_IF_ERROR(engine->edge_map(frontier, f, next));
  if (!engine->graph().directed()) return Status::OK();
  VertexSubset backward;
  SG_RETURN_IF_ERROR(engine->edge_map(frontier, f, &backward, {Direction::kAuto, true}));
  next->add_all(backward);
  return Status::OK();
}

// state[v] = v's degree, arcs both ways, self-loops excluded.
Status count_degrees(Engine* engine, VertexArray<uint32_t>* state) {
  const uint32_t n = engine->num_vertices();
  SG_RETURN_IF_ERROR(engine->vertex_map(VertexSubset::all(n), [&](uint32_t v) { (*state)[v] = 0; }));
  CountDegree count{state->data()};
  VertexSubset unused;
  SG_RETURN_IF_ERROR(map_both_ways(engine, VertexSubset::all(n), count, &unused));
  Largest largest;
  SG_RETURN_IF_ERROR(engine->vertex_reduce([&](uint32_t v) { return Largest{(*state)[v]}; }, &largest));
  if (removed(largest.value)) return Status::InvalidArgument("kcore: a vertex has 2^31 or more arcs");
  return Status::OK();
}

}  // namespace

Status kcore(Engine* engine, VertexArray<uint32_t>* coreness) {
  const uint32_t n = engine->num_vertices();
  SG_RETURN_IF_ERROR(engine->allocate(coreness, "kcore.core", VertexUse::kDestination));
  VertexArray<uint32_t>& state = *coreness;
  SG_RETURN_IF_ERROR(count_degrees(engine, &state));
  uint64_t remaining = n;
  uint32_t k = 0;
  VertexSubset frontier = VertexSubset::empty(n);
  // Each round removes at least one vertex.
  for (uint64_t round = 0; remaining > 0 && round <= uint64_t{n}; ++round) {
    engine->set_iteration(static_cast<int>(std::min<uint64_t>(round, INT32_MAX)));
    if (frontier.is_empty()) {
      Smallest smallest;
      SG_RETURN_IF_ERROR(engine->vertex_reduce(
          [&](uint32_t v) { return Smallest{removed(state[v]) ? UINT32_MAX : state[v]}; }, &smallest));
      k = std::max(k, smallest.value);
      SG_RETURN_IF_ERROR(engine->vertex_filter(
          VertexSubset::all(n), [&](uint32_t v) { return !removed(state[v]) && state[v] <= k; }, &frontier));
    }
    SG_RETURN_IF_ERROR(engine->vertex_map(frontier, [&](uint32_t v) { state[v] = kRemoved | k; }));
    remaining -= frontier.size();
    Peel peel{state.data(), k};
    VertexSubset next;
    SG_RETURN_IF_ERROR(map_both_ways(engine, frontier, peel, &next));
    frontier = std::move(next);
  }
  if (remaining != 0) return Status::Corruption("kcore: vertices left after |V| rounds");
  return engine->vertex_map(VertexSubset::all(n), [&](uint32_t v) { state[v] &= ~kRemoved; });
}

// The app: its summary, figures and result columns (apps/harness).
namespace {

Status run_kcore(AppRun& r) {
  auto* core = r.out.array<uint32_t>();
  SG_RETURN_IF_ERROR(kcore(&r.engine, core));
  SG_RETURN_IF_ERROR(r.finish(core));
  uint32_t degeneracy = 0;
  uint64_t in_top = 0;
  for (uint32_t v = 0; v < r.graph.num_vertices(); ++v) {
    degeneracy = std::max(degeneracy, (*core)[v]);
    r.out.pages.visited(v + 1);
  }
  for (uint32_t v = 0; v < r.graph.num_vertices(); ++v) {
    in_top += (*core)[v] == degeneracy;
    r.out.pages.visited(v + 1);
  }
  r.out.summary =
      summary_line("kcore: largest core %u (%llu vertices)\n", degeneracy, static_cast<unsigned long long>(in_top));
  r.out.facts = {{"largest_core", degeneracy}, {"vertices", in_top}};
  r.out.add_column("coreness", core);
  r.out.text = [core](uint32_t v, char* buf, size_t n) { std::snprintf(buf, n, "%u", (*core)[v]); };
  return Status::OK();
}

}  // namespace

SG_APP_ROW(kcore) {
  return AppRow("kcore", "coreness of every vertex (k-core decomposition)", kNoAppOption, "", "coreness",
                kReversedSteps, run_kcore);
}

}  // namespace sg
