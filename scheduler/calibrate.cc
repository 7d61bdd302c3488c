#include "scheduler/calibrate.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "base/aligned_buffer.h"
#include "base/file_util.h"

namespace sg {
namespace {

using Clock = std::chrono::steady_clock;

Status write_scratch(const std::string& path, uint64_t bytes) {
  File file;
  SG_RETURN_IF_ERROR(File::create(path, &file));
  AlignedBuffer block(4 << 20);
  for (size_t i = 0; i < block.size(); ++i) block.data()[i] = static_cast<uint8_t>(i * 131 + 7);  // not compressible
  for (uint64_t at = 0; at < bytes; at += block.size()) {
    SG_RETURN_IF_ERROR(file.pwrite_all(block.data(), block.size(), at));
  }
  SG_RETURN_IF_ERROR(file.sync());
  return file.close();
}

// Reads `count` requests of `bytes` with `threads` concurrent readers at
// offsets from `offset_of(i)`, stopping early after `limit_seconds`; returns
// seconds per request (from throughput).
double measure(int fd, uint64_t bytes, int threads, uint64_t count, double limit_seconds,
               uint64_t (*offset_of)(uint64_t, uint64_t, uint64_t), uint64_t file_bytes, Status* status) {
  std::atomic<uint64_t> next{0}, done{0};
  std::atomic<bool> failed{false};
  const auto start = Clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      AlignedBuffer buffer(bytes);
      for (;;) {
        const uint64_t i = next.fetch_add(1);
        if (i >= count || failed.load()) return;
        if (std::chrono::duration<double>(Clock::now() - start).count() > limit_seconds && done.load() >= 4) return;
        const off_t offset = static_cast<off_t>(offset_of(i, bytes, file_bytes));
        if (::pread(fd, buffer.data(), bytes, offset) != static_cast<ssize_t>(bytes)) {
          failed = true;
          return;
        }
        ++done;
      }
    });
  }
  for (std::thread& w : workers) w.join();
  if (failed) *status = Status::IOError("calibration read failed: " + std::string(std::strerror(errno)));
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return done.load() == 0 ? 0.0 : seconds / static_cast<double>(done.load());
}

uint64_t sequential_offset(uint64_t i, uint64_t bytes, uint64_t file_bytes) { return (i * bytes) % file_bytes; }

uint64_t random_offset(uint64_t i, uint64_t bytes, uint64_t file_bytes) {
  uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ULL;
  x ^= x >> 31;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 29;
  return (x % (file_bytes / bytes)) * bytes;
}

// The probe's scratch file: written with O_DIRECT when the file system has
// it (*direct), synced.
Status write_probe_file(const std::string& dir, uint64_t bytes, File* file, bool* direct) {
  *direct = true;
  SG_RETURN_IF_ERROR(File::create_unnamed(dir + "/.shardgraph-probe", file, direct));
  AlignedBuffer block(4 << 20);
  for (size_t i = 0; i < block.size(); ++i) block.data()[i] = static_cast<uint8_t>(i * 131 + 7);  // not compressible
  // Plain writes: a measurement, not data, so injected faults (SHARDGRAPH_FAULTS) stay with the ingest.
  for (uint64_t at = 0; at < bytes; at += block.size()) {
    if (::pwrite(file->fd(), block.data(), block.size(), static_cast<off_t>(at)) != static_cast<ssize_t>(block.size()))
      return Status::IOError(dir + ": device probe: write: " + errno_text(errno));
  }
  return ::fdatasync(file->fd()) == 0 ? Status::OK()
                                      : Status::IOError(dir + ": device probe: sync: " + errno_text(errno));
}

// Sequential O_DIRECT reads of `file` in 4 MiB requests; the rate over all
// but the first `warmup_bytes` (a throttle lets a burst through at first).
double sequential_rate(const File& file, uint64_t file_bytes, uint64_t warmup_bytes, Status* status) {
  constexpr uint64_t kRequestBytes = 4 << 20;
  AlignedBuffer buffer(kRequestBytes);
  Clock::time_point start = Clock::now();
  for (uint64_t at = 0; at < file_bytes; at += kRequestBytes) {
    if (at == warmup_bytes) start = Clock::now();
    if (::pread(file.fd(), buffer.data(), kRequestBytes, static_cast<off_t>(at)) !=
        static_cast<ssize_t>(kRequestBytes)) {
      *status = Status::IOError(file.path() + ": device probe: read: " + errno_text(errno));
      return 0;
    }
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return static_cast<double>(file_bytes - warmup_bytes) / std::max(seconds, 1e-9);
}

}  // namespace

Status probe_device(const std::string& dir, DeviceProfile* profile) {
  // A disk throttled in 100 ms slices (the emulated HDDs) passes about 16
  // MiB at once after a pause: the rate is timed past that.
  constexpr uint64_t kFileBytes = 64 << 20, kWarmupBytes = 16 << 20, kLargeBytes = 1 << 20;
  File file;
  bool direct = false;
  SG_RETURN_IF_ERROR(write_probe_file(dir, kFileBytes, &file, &direct));
  profile->device_class = "probed";
  profile->source = "probe";
  if (!direct) {  // the page cache is all a read can reach: memory
    profile->sequential_bytes_per_second = 10e9;
    profile->random_reads = {{4096, 1e-6}, {kLargeBytes, 1e-6 + static_cast<double>(kLargeBytes) / 10e9}};
    return file.close();
  }
  Status status;
  const double rate = sequential_rate(file, kFileBytes, kWarmupBytes, &status);
  const double small = status.ok() ? measure(file.fd(), 4096, 4, 32, 0.25, random_offset, kFileBytes, &status) : 0;
  SG_RETURN_IF_ERROR(status);
  if (rate <= 0 || small <= 0) return Status::IOError(dir + ": the device probe read nothing");
  profile->sequential_bytes_per_second = rate;
  profile->random_reads = {{4096, small}, {kLargeBytes, small + static_cast<double>(kLargeBytes) / rate}};
  return file.close();
}

std::string probed_class(const DeviceProfile& probed) {
  if (probed.sequential_bytes_per_second < 300e6) return "hdd";
  return probed.sequential_bytes_per_second < 1.2e9 ? "ssd" : "nvme";
}

Status calibrate_device(const std::string& dir, const CalibrateOptions& options, DeviceProfile* profile) {
  const std::string path = dir + "/.shardgraph-calibrate.tmp";
  Status status = write_scratch(path, options.file_bytes);
  if (status.ok()) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
    if (fd < 0) {
      status = Status::IOError(path + ": O_DIRECT open: " + std::strerror(errno));
    } else {
      profile->device_class = "calibrated";
      profile->source = dir + "/" + kProfileFileName;
      const uint64_t seq_bytes = 4 << 20;
      const double seq = measure(fd, seq_bytes, 1, options.file_bytes / seq_bytes, 2 * options.seconds_per_size,
                                 sequential_offset, options.file_bytes, &status);
      profile->sequential_bytes_per_second = seq > 0 ? static_cast<double>(seq_bytes) / seq : 0;
      profile->random_reads.clear();
      for (uint64_t bytes = 4096; bytes <= (uint64_t{16} << 20) && status.ok(); bytes *= 2) {
        if (bytes > options.file_bytes / 4) break;
        const double per_request = measure(fd, bytes, options.queue_depth, 512, options.seconds_per_size, random_offset,
                                           options.file_bytes, &status);
        profile->random_reads.push_back({bytes, per_request});
      }
      ::close(fd);
    }
  }
  ::unlink(path.c_str());
  SG_RETURN_IF_ERROR(status);
  const std::string json = profile->to_json();
  return write_file_atomic(dir + "/" + kProfileFileName, json.data(), json.size());
}

}  // namespace sg
