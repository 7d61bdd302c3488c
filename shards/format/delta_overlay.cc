#include "shards/format/delta_overlay.h"

#include <cassert>

namespace sg {

uint32_t merge_list(const DeltaOverlay& overlay, size_t k, uint32_t add_first, uint32_t add_end, const uint32_t* base,
                    const float* base_weights, uint32_t count, uint32_t* out, float* out_weights) {
  const uint32_t* removes = overlay.removes.data() + overlay.remove_begin[k];
  const uint32_t* removes_end = overlay.removes.data() + overlay.remove_begin[k + 1];
  const uint32_t* adds = overlay.adds.data();
  const float* add_weights = overlay.weighted ? overlay.add_weights.data() : nullptr;
  const bool weighted = overlay.weighted;  // base_weights may be null for an empty base
  assert(!weighted || count == 0 || base_weights != nullptr);
  uint32_t written = 0;
  auto put = [&](uint32_t neighbour, float weight) {
    // Sorted by (neighbour, weight): the first copy of a neighbour has its smallest weight.
    if (overlay.dedup && written > 0 && out[written - 1] == neighbour) return;
    out[written] = neighbour;
    if (weighted) out_weights[written] = weight;
    ++written;
  };
  uint32_t i = 0, a = add_first;
  while (i < count || a < add_end) {
    bool take_base = a >= add_end;
    if (!take_base && i < count) {
      take_base = base[i] < adds[a] || (base[i] == adds[a] && (!weighted || base_weights[i] <= add_weights[a]));
    }
    if (!take_base) {
      put(adds[a], weighted ? add_weights[a] : 1.0f);
      ++a;
      continue;
    }
    const uint32_t neighbour = base[i];
    while (removes < removes_end && *removes < neighbour) ++removes;
    if (removes == removes_end || *removes != neighbour) put(neighbour, weighted ? base_weights[i] : 1.0f);
    ++i;
  }
  return written;
}

}  // namespace sg
