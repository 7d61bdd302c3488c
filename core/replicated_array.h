// Interval replication (LOSC): an Old copy that updates read and a Latest
// copy that they write. Within one edge_map every read sees the values of
// the previous step, so results (and frontiers) do not depend on how threads
// are scheduled; commit() makes Latest the new Old for the changed vertices.
#pragma once

#include <string>
#include <utility>

#include "core/engine.h"

namespace sg {

template <typename T>
class ReplicatedArray {
 public:
  // Updates read Old at edge sources and write Latest at destinations.
  Status allocate(Engine* engine, const std::string& name) {
    SG_RETURN_IF_ERROR(engine->allocate(&old_, name + ".old", VertexUse::kSource));
    return engine->allocate(&latest_, name + ".latest", VertexUse::kDestination);
  }
  Status fill(Engine* engine, T value) {
    return engine->vertex_map(VertexSubset::all(engine->num_vertices()),
                              [&](uint32_t v) { old_[v] = latest_[v] = value; });
  }
  T* old_values() { return old_.data(); }
  T* latest() { return latest_.data(); }
  Status commit(Engine* engine, const VertexSubset& changed) {
    return engine->vertex_map(
        changed, [&](uint32_t v) { old_[v] = latest_[v]; }, VertexAccess().reads(latest_).writes(old_));
  }
  // The latest values, handed over (this array is done).
  VertexArray<T> take_latest() { return std::move(latest_); }

 private:
  VertexArray<T> old_;
  VertexArray<T> latest_;
};

}  // namespace sg
