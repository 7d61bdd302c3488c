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

// A short measurement of a device never calibrated, for ingest's automatic
// choices (about 0.1 s on a fast disk, 1 s on one of 150 MB/s and 300 I/Os
// a second): a 64 MiB unnamed scratch file written and synced, read back
// in 4 MiB requests (the sequential rate, past the first 16 MiB) and at
// random offsets in 4 KiB requests (the latency). A file system without O_DIRECT (tmpfs) is memory:
// 10 GB/s and 1 us. device_class "probed"; the profile is not stored here.
Status probe_device(const std::string& dir, DeviceProfile* profile);
// The preset class a probe falls in, by its sequential rate: hdd below 300
// MB/s, ssd below 1.2 GB/s, else nvme. Decisions then rest on the class's
// preset, far from their thresholds, rather than on a short measurement
// that varies run to run (a fast disk here probed 1.5 to 3 GB/s, and 0.03
// to 0.09 ms a request).
std::string probed_class(const DeviceProfile& probed);

}  // namespace sg
