// The I/O cost model: predicts the time of reading a set of
// logical byte ranges of a striped space from the device profiles, and the
// CPU time of decoding and updating what is read. A read plan is costed the
// way ChunkStream issues it: each range split at stripe boundaries, each
// piece one request on its device; devices work in parallel, so I/O time is
// the busiest device's; I/O and CPU overlap, so a plan takes the larger.
#pragma once

#include <cstdint>
#include <vector>

#include "scheduler/device_profile.h"
#include "shards/format/striping.h"

namespace sg {

struct ByteRange {
  uint64_t offset;
  uint64_t bytes;
};

struct PlanCost {
  double io_seconds = 0;
  double cpu_seconds = 0;
  double seconds = 0;  // max(io, cpu)
  uint64_t bytes = 0;
  uint64_t requests = 0;
};

class CostModel {
 public:
  CostModel() = default;
  CostModel(std::vector<DeviceProfile> profiles, StripeLayout layout, double cpu_bytes_per_second);

  // `ranges` to read from the devices; `cpu_bytes` compressed bytes to
  // decode (read or cached); `decoded_bytes` compressed bytes of chunks held
  // decoded in memory (updates only).
  PlanCost cost(const std::vector<ByteRange>& ranges, uint64_t cpu_bytes, uint64_t decoded_bytes = 0) const;
  // A gap shorter than this is cheaper to read through than to skip with a
  // new request (the slowest device's per-request time x bandwidth).
  uint64_t gap_fill_bytes() const { return gap_fill_bytes_; }
  // Whether one request over `left`, a gap and `right` costs no more than
  // two requests for `left` and `right`, on every device.
  bool read_through(uint64_t left_bytes, uint64_t gap_bytes, uint64_t right_bytes) const;
  double cpu_bytes_per_second() const { return cpu_.bytes_per_second; }
  // Folds in a measured decode+update rate (bytes per wall second).
  void observe_cpu(uint64_t bytes, double seconds) { cpu_.observe(bytes, seconds); }
  // The same for chunks served decoded (bytes counted compressed).
  void observe_decoded_cpu(uint64_t bytes, double seconds) { decoded_.observe(bytes, seconds); }
  const std::vector<DeviceProfile>& profiles() const { return profiles_; }

 private:
  std::vector<DeviceProfile> profiles_;
  StripeLayout layout_;
  // A rate in compressed bytes a second: a prior until measured. The first
  // measurement replaces the prior outright: the prior is a constant per
  // byte, and a byte costs 4x more to decode in a web graph's packed chunks
  // (0.6 bytes an edge) than in R-MAT's (1.8). Later ones are averaged in.
  struct ObservedRate {
    double bytes_per_second;
    bool observed = false;
    void observe(uint64_t bytes, double seconds);
  };
  ObservedRate cpu_{400e6};
  // Before a measurement: serving a decoded window skips the decode, about
  // half of the work per byte (measured on R-MAT: 2-4x faster).
  ObservedRate decoded_{800e6};
  uint64_t gap_fill_bytes_ = 0;
};

}  // namespace sg
