// Ingest's automatic choices, from the speed of the disks it writes to:
// the chunk size, the gap coding and whether to spill and write with
// O_DIRECT. The caller measures the disks (a stored profile or a probe,
// in the scheduler's terms) and hands their speeds down; the policy lives
// here, beside the ingest it steers.
#pragma once

#include <cstdint>
#include <vector>

#include "compression/chunk_lists.h"

namespace sg {

struct DiskSpeed {
  double bytes_per_second = 0;  // sequential
  double latency_seconds = 0;   // of a small random read
};

// A chunk read pays its disk's access time once: bandwidth times latency,
// a power of two from 256 KiB to 1 MiB (256 KiB without speeds).
uint32_t auto_chunk_bytes(const std::vector<DiskSpeed>& graph_disks);
// The fewest bytes (entropy) from one slow disk, else the fastest decode.
GapChoice auto_gap_choice(const std::vector<DiskSpeed>& graph_disks);
// O_DIRECT and a packed spill when every disk outruns the spill's coder.
bool auto_direct_io(const DiskSpeed& spill_disk, const std::vector<DiskSpeed>& graph_disks);

}  // namespace sg
