// `shardgraph calibrate DIR...`: measures a device and stores its profile
// (scheduler/device_profile.h) in DIR. On a scratch file it writes and then
// removes: sequential O_DIRECT reads of 4 MiB, then random aligned reads of
// 4 KiB .. 16 MiB (each power of two) at the engine's queue depth; each measurement is bounded
// in requests and time.
#pragma once

#include <cstdint>
#include <string>

#include "scheduler/device_profile.h"

namespace sg {

struct CalibrateOptions {
  uint64_t file_bytes = 256 << 20;
  int queue_depth = 4;
  double seconds_per_size = 1.0;
};

Status calibrate_device(const std::string& dir, const CalibrateOptions& options, DeviceProfile* profile);

}  // namespace sg
