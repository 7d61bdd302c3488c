#include "shards/ingest/ingest_auto.h"

#include <algorithm>
#include <bit>

namespace sg {

// A chunk read pays its device's access time once, so it should take at
// least as long to transfer: the device's bandwidth times its latency, as
// a power of two from 256 KiB to 1 MiB (one emulated HDD of 150 MB/s and
// 300 IOPS: 512 KiB; an SSD: 256 KiB). Fewer chunks also pay less
// alignment and fewer coder tables (R-MAT 22, entropy: 2.803 -> 2.789
// bytes/edge; on that HDD PageRank, BFS and WCC ran as fast).
uint32_t auto_chunk_bytes(const std::vector<DiskSpeed>& graph_disks) {
  constexpr uint64_t kLeastBytes = 256 * 1024, kMostBytes = 1024 * 1024;
  uint64_t bytes = kLeastBytes;
  for (const DiskSpeed& disk : graph_disks) {
    const double transfer_bytes = disk.bytes_per_second * disk.latency_seconds;
    bytes = std::max(bytes, std::bit_ceil(static_cast<uint64_t>(std::min(transfer_bytes, double(kMostBytes)))));
  }
  return static_cast<uint32_t>(std::min(bytes, kMostBytes));
}

// Bytes or decoding: a run from one disk waits on its bytes while the CPU
// decodes alongside, so the fewest bytes win: the entropy layout's (R-MAT
// 22 on one emulated HDD in 256 MiB, against `small`: PageRank 0.97x, BFS
// and WCC 0.94x the time; R-MAT 24 PageRank 0.94x; web graphs store the
// same chunks either way). From two disks or faster ones decoding sets the
// pace: fast.
GapChoice auto_gap_choice(const std::vector<DiskSpeed>& graph_disks) {
  constexpr double kOneDiskBytesPerSecond = 250e6;
  if (graph_disks.empty()) return GapChoice::kFast;
  double bandwidth = 0;
  for (const DiskSpeed& disk : graph_disks) bandwidth += disk.bytes_per_second;
  return bandwidth < kOneDiskBytesPerSecond ? GapChoice::kEntropy : GapChoice::kFast;
}

// The spill's coder (bucket_router.h) costs about 12 ns a record more than
// packing it, and saves 5 of its 8 bytes written and 5 read: on a device
// that moves those 10 bytes faster than that, the spill is packed and it
// and the graph are written with O_DIRECT (R-MAT 22 from the page cache,
// --memory 256M: --order none 6.8 -> 5.0 CPU-s, bfds 13.4 -> 11.3).
bool auto_direct_io(const DiskSpeed& spill_disk, const std::vector<DiskSpeed>& graph_disks) {
  constexpr double kCoderBytesPerSecond = 1e9;
  if (graph_disks.empty() || spill_disk.bytes_per_second < kCoderBytesPerSecond) return false;
  for (const DiskSpeed& disk : graph_disks) {
    if (disk.bytes_per_second < kCoderBytesPerSecond) return false;
  }
  return true;
}

}  // namespace sg
