// What one device costs to read from: sequential bandwidth and the time of
// one random read request by size (at the engine's queue depth). Measured by
// `shardgraph calibrate` and stored as JSON next to the device's files, or a
// named preset (hdd, ssd, nvme) when a device was never calibrated.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace sg {

constexpr const char* kProfileFileName = "shardgraph-device.json";

struct RequestCost {
  uint64_t bytes;
  double seconds;  // time per request of this size, random offsets
};

struct DeviceProfile {
  std::string device_class;  // hdd | ssd | nvme | calibrated
  std::string source;        // "preset" or the profile file's path
  double sequential_bytes_per_second = 150e6;
  std::vector<RequestCost> random_reads;  // sorted by size

  // Time of one read of `bytes` at a random offset: interpolated in
  // log(size) between measured sizes; past the largest size the rest is read
  // at the sequential rate.
  double request_seconds(uint64_t bytes) const;
  // Per-request overhead: the time of the smallest request.
  double latency_seconds() const;

  std::string to_json() const;
  static Status from_json(const std::string& text, const std::string& path, DeviceProfile* profile);
};

// hdd: 150 MB/s and 300 IOPS (the benchmark disks here); ssd: 500 MB/s,
// 100 us; nvme: 2.5 GB/s, 20 us.
Status preset_profile(const std::string& device_class, DeviceProfile* profile);
// The profile stored in `dir`, or the preset if there is none (*preset=true).
Status load_device_profile(const std::string& dir, const std::string& fallback_class, DeviceProfile* profile,
                           bool* preset);

}  // namespace sg
