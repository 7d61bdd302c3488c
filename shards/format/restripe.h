// `shardgraph restripe GRAPH --device DIR...`: rewrites a graph's edge data
// onto a new set of devices and/or stripe depth (adding disks to an array).
// Chunk offsets are logical, so indexes do not change: each space is copied
// in large sequential blocks from the old layout to new device files. The
// new files are written under temporary names, synced and renamed; the
// manifest is then replaced atomically (the commit point) and only then are
// the old device files removed. A failure before the commit removes what
// was written and leaves the graph as it was.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace sg {

struct RestripeOptions {
  std::vector<std::string> devices;  // empty = into the graph directory
  uint64_t stripe_bytes = 0;         // 0 = keep the current depth
  bool auto_stripe = false;          // choose as ingest does (choose_stripe_bytes)
  uint64_t block_bytes = 8 << 20;    // copy unit
};

Status restripe_graph(const std::string& graph_dir, const RestripeOptions& options);

}  // namespace sg
