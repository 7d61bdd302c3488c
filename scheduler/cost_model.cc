#include "scheduler/cost_model.h"

#include <algorithm>

namespace sg {

CostModel::CostModel(std::vector<DeviceProfile> profiles, StripeLayout layout, double cpu_bytes_per_second)
    : profiles_(std::move(profiles)), layout_(layout), cpu_{cpu_bytes_per_second}, decoded_{2 * cpu_bytes_per_second} {
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
  c.cpu_seconds = static_cast<double>(cpu_bytes) / cpu_.bytes_per_second +
                  static_cast<double>(decoded_bytes) / decoded_.bytes_per_second;
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

void CostModel::ObservedRate::observe(uint64_t bytes, double seconds) {
  if (bytes < (1 << 20) || seconds <= 0) return;  // too little to measure
  const double rate = static_cast<double>(bytes) / seconds;
  bytes_per_second = observed ? 0.5 * bytes_per_second + 0.5 * rate : rate;
  observed = true;
}

}  // namespace sg
