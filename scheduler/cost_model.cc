#include "scheduler/cost_model.h"

#include <algorithm>

namespace sg {

CostModel::CostModel(std::vector<DeviceProfile> profiles, StripeLayout layout, double cpu_bytes_per_second)
    : profiles_(std::move(profiles)),
      layout_(layout),
      cpu_bytes_per_second_(cpu_bytes_per_second),
      decoded_bytes_per_second_(2 * cpu_bytes_per_second) {
  double gap = 0;
  for (const DeviceProfile& p : profiles_) gap = std::max(gap, p.latency_seconds() * p.sequential_bytes_per_second);
  gap_fill_bytes_ = static_cast<uint64_t>(gap);
}

PlanCost CostModel::cost(const std::vector<ByteRange>& ranges, uint64_t cpu_bytes, uint64_t decoded_bytes) const {
  PlanCost c;
  std::vector<double> device_seconds(profiles_.size(), 0.0);
  for (const ByteRange& r : ranges) {
    layout_.split(r.offset, r.bytes, [&](const StripePiece& piece) {
      device_seconds[piece.device] += profiles_[piece.device].request_seconds(piece.bytes);
      c.bytes += piece.bytes;
      ++c.requests;
    });
  }
  for (double s : device_seconds) c.io_seconds = std::max(c.io_seconds, s);
  c.cpu_seconds = static_cast<double>(cpu_bytes) / cpu_bytes_per_second_ +
                  static_cast<double>(decoded_bytes) / decoded_bytes_per_second_;
  c.seconds = std::max(c.io_seconds, c.cpu_seconds);
  return c;
}

bool CostModel::read_through(uint64_t left_bytes, uint64_t gap_bytes, uint64_t right_bytes) const {
  for (const DeviceProfile& p : profiles_) {
    const double through = p.request_seconds(left_bytes + gap_bytes + right_bytes);
    if (through > p.request_seconds(left_bytes) + p.request_seconds(right_bytes)) return false;
  }
  return true;
}

// The first measurement replaces the prior outright: the prior is a
// constant per byte, and a byte costs 4x more to decode in a web graph's
// packed chunks (0.6 bytes an edge) than in R-MAT's (1.8). Later ones are
// averaged in.
void CostModel::observe_cpu(uint64_t bytes, double seconds) {
  if (bytes < (1 << 20) || seconds <= 0) return;  // too little to measure
  const double rate = static_cast<double>(bytes) / seconds;
  cpu_bytes_per_second_ = cpu_observed_ ? 0.5 * cpu_bytes_per_second_ + 0.5 * rate : rate;
  cpu_observed_ = true;
}

void CostModel::observe_decoded_cpu(uint64_t bytes, double seconds) {
  if (bytes < (1 << 20) || seconds <= 0) return;
  const double rate = static_cast<double>(bytes) / seconds;
  decoded_bytes_per_second_ = decoded_observed_ ? 0.5 * decoded_bytes_per_second_ + 0.5 * rate : rate;
  decoded_observed_ = true;
}

}  // namespace sg
