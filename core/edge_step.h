// The per-edge work of one edge_map step over a decoded window (engine.h):
// a pull visits each destination's list of sources, a push each active
// source's list of destinations. Both see only the edges whose neighbour
// the step runner's current pass holds (step_runner.h).
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/step_runner.h"
#include "core/vertex_subset.h"
#include "core/window_graph.h"

namespace sg {

namespace edge_step {

// The first edge in [begin, end) of a sorted list whose neighbour is >= `at`.
inline uint32_t first_at_least(const WindowGraph& w, uint32_t begin, uint32_t end, uint32_t at) {
  return static_cast<uint32_t>(std::lower_bound(w.neighbours.begin() + begin, w.neighbours.begin() + end, at) -
                               w.neighbours.begin());
}

template <typename F>
constexpr bool ignores_weights() {
  if constexpr (requires { F::kIgnoresWeights; }) return F::kIgnoresWeights;
  return false;
}

inline float weight_of(const WindowGraph& w, uint32_t e) { return w.weights.empty() ? 1.0f : w.weights[e]; }

}  // namespace edge_step

// What both directions' bodies work with: the app's functor, the active
// sources (dense), the next frontier being set, and the runner's pass.
template <typename F>
struct StepBody {
  F& f;
  const VertexSubset& active;
  VertexSubset* out;
  const StepRunner& runner;
};

// Pull: one writer per destination (update), stopping at !cond.
template <typename F>
struct PullStep : StepBody<F> {
  using StepBody<F>::f, StepBody<F>::active, StepBody<F>::out, StepBody<F>::runner;
  uint32_t destinations_begin, destinations_end;

  void operator()(const WindowGraph& w, uint32_t begin, uint32_t end) {
    const bool all = active.is_all();
    const uint32_t pass_begin = runner.neighbour_begin(), pass_end = runner.neighbour_end();
    for (uint32_t i = begin; i < end; ++i) {
      const uint32_t v = w.first_vertex + i;
      if (v < destinations_begin || v >= destinations_end || !f.cond(v)) continue;
      // Lists are sorted: the sources of this pass are one run of each.
      const uint32_t list_end = w.offsets[i + 1];
      uint32_t e = pass_begin == 0 ? w.offsets[i] : edge_step::first_at_least(w, w.offsets[i], list_end, pass_begin);
      if constexpr (requires { f.update_list(v, w.neighbours.data(), e); }) {
        // A gather over every source (no frontier, no weights, or a functor
        // that ignores them): one call a list, which sums in registers.
        if (all && (w.weights.empty() || edge_step::ignores_weights<F>())) {
          const uint32_t end_at =
              pass_end == UINT32_MAX ? list_end : edge_step::first_at_least(w, e, list_end, pass_end);
          if (end_at > e && f.update_list(v, w.neighbours.data() + e, end_at - e)) out->set_atomic(v);
          continue;
        }
      }
      for (; e < list_end; ++e) {
        const uint32_t u = w.neighbours[e];
        if (u >= pass_end) break;
        if (!all && !active.contains(u)) continue;
        if (f.update(u, v, edge_step::weight_of(w, e))) out->set_atomic(v);
        if (!f.cond(v)) break;
      }
    }
  }
};

// Push: concurrent writers (update_atomic) from each active source. A
// functor may find what a source offers once a list (source_state), which
// update_atomic_with then takes; that update refuses a target that fails
// cond itself, so cond is not asked (the traversal order's compact ranks:
// each ask is a bit count and two loads).
template <typename F>
struct PushStep : StepBody<F> {
  static constexpr uint32_t kPrefetchAhead = 16;
  static constexpr bool kWithSourceState = requires(F & g, uint32_t u) {
    g.update_atomic_with(g.source_state(u), u, 1.0f);
  };
  using StepBody<F>::f, StepBody<F>::active, StepBody<F>::out, StepBody<F>::runner;
  MemberCollector& found;

  void operator()(const WindowGraph& w, uint32_t begin, uint32_t end) {
    const uint32_t pass_begin = runner.neighbour_begin(), pass_end = runner.neighbour_end();
    auto push_from = [&](uint32_t u) {
      const uint32_t i = u - w.first_vertex;
      const uint32_t list_end = w.offsets[i + 1];
      uint32_t e = pass_begin == 0 ? w.offsets[i] : edge_step::first_at_least(w, w.offsets[i], list_end, pass_begin);
      if (e == list_end) return;
      [[maybe_unused]] const auto state = source_state(u);
      for (; e < list_end; ++e) {
        const uint32_t v = w.neighbours[e];
        if (v >= pass_end) break;
        // A functor whose state per target misses the caches asks for it ahead.
        if constexpr (requires { f.prefetch(v); }) {
          if (e + kPrefetchAhead < list_end) f.prefetch(w.neighbours[e + kPrefetchAhead]);
        }
        // And one whose prefetch itself looks up where that state is, for
        // that lookup, twice as far ahead.
        if constexpr (requires { f.prefetch_lookup(v); }) {
          if (e + 2 * kPrefetchAhead < list_end) f.prefetch_lookup(w.neighbours[e + 2 * kPrefetchAhead]);
        }
        const float weight = edge_step::weight_of(w, e);
        bool updated = false;
        if constexpr (kWithSourceState) {
          updated = f.update_atomic_with(state, v, weight);
        } else {
          updated = f.cond(v) && f.update_atomic(u, v, weight);
        }
        if (updated && out->set_atomic(v)) found.add(v);
      }
    };
    if (active.is_all()) {
      for (uint32_t u = w.first_vertex + begin; u < w.first_vertex + end; ++u) push_from(u);
    } else {
      active.for_each_in(w.first_vertex + begin, w.first_vertex + end, push_from);  // skips inactive words
    }
  }

 private:
  auto source_state(uint32_t u) {
    if constexpr (kWithSourceState) {
      return f.source_state(u);
    } else {
      return u;
    }
  }
};

template <typename Body>
void call_step_body(void* body, const WindowGraph& w, uint32_t begin, uint32_t end) {
  (*static_cast<Body*>(body))(w, begin, end);
}

}  // namespace sg
