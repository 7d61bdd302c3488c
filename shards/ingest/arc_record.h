// The records ingest routes and sorts: an arc packed as key << 32 |
// neighbour, so that ordering records orders arcs by (key, neighbour), plus
// the weight on weighted graphs. "key" is the vertex whose list holds the arc
// (the source in the out-space, the destination in the in-space).
#pragma once

#include <cstdint>

#include "shards/ingest/chunk_encoder.h"

namespace sg {

inline uint64_t pack_arc(uint32_t key, uint32_t neighbour) { return uint64_t{key} << 32 | neighbour; }
inline uint32_t arc_key(uint64_t arc) { return static_cast<uint32_t>(arc >> 32); }
inline uint32_t arc_neighbour(uint64_t arc) { return static_cast<uint32_t>(arc); }

struct PlainArc {
  using Neighbour = uint32_t;
  uint64_t arc;
  static PlainArc make(uint32_t key, uint32_t neighbour, float) { return PlainArc{pack_arc(key, neighbour)}; }
  Neighbour neighbour() const { return arc_neighbour(arc); }
  bool operator<(const PlainArc& o) const { return arc < o.arc; }
};
static_assert(sizeof(PlainArc) == 8);

#pragma pack(push, 4)
struct WeightedArc {
  using Neighbour = WeightedNeighbour;
  uint64_t arc;
  float weight;
  static WeightedArc make(uint32_t key, uint32_t neighbour, float weight) {
    return WeightedArc{pack_arc(key, neighbour), weight};
  }
  Neighbour neighbour() const { return WeightedNeighbour{arc_neighbour(arc), weight}; }
  // Equal arcs order by weight, so deduplication keeps the smallest.
  bool operator<(const WeightedArc& o) const { return arc != o.arc ? arc < o.arc : weight < o.weight; }
};
#pragma pack(pop)
static_assert(sizeof(WeightedArc) == 12);

}  // namespace sg
