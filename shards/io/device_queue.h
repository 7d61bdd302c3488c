// Per-device I/O (CSMqGraph's multi-queue model): each device directory has
// one bounded request queue served by its own I/O thread with its own
// io_uring ring, or, with the psync backend, by a small pool of pread
// threads. A request is one contiguous range of one device file scattered
// into up to kMaxSegments buffer segments (merged stripe pieces).
#pragma once

#include <sys/uio.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"

namespace sg {

enum class IoBackend { kAuto, kUring, kPsync };
const char* backend_name(IoBackend backend);
bool parse_backend(const std::string& name, IoBackend* backend);

// A group of requests whose completion the consumer waits for together.
class IoBatch {
 public:
  void reset(int requests);
  void complete_one(const Status& status);  // called by I/O threads
  Status wait();                            // blocks until all requests ended
  bool done() const { return pending_.load(std::memory_order_acquire) == 0; }

 private:
  std::atomic<int> pending_{0};
  std::mutex mutex_;
  std::condition_variable cv_;
  Status error_;
};

constexpr int kMaxSegments = 8;

struct IoRequest {
  int fd = -1;
  const std::string* path = nullptr;  // for error messages
  uint64_t device_offset = 0;
  iovec segments[kMaxSegments];
  int segment_count = 0;
  uint64_t bytes = 0;
  IoBatch* batch = nullptr;
};

struct DeviceCounters {
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> busy_ns{0};  // time with at least one request in flight
};

class DeviceQueue {
 public:
  // `queue_depth` requests in flight per device; the queue holds at most
  // `capacity` waiting requests (submit blocks beyond that).
  DeviceQueue(IoBackend backend, int queue_depth, size_t capacity);
  ~DeviceQueue();
  DeviceQueue(const DeviceQueue&) = delete;
  DeviceQueue& operator=(const DeviceQueue&) = delete;

  void submit(const IoRequest& request);
  const DeviceCounters& counters() const { return counters_; }
  IoBackend backend() const { return backend_; }

 private:
  bool pop(IoRequest* request, bool wait);
  void run_uring();
  void run_psync();
  void finish(const IoRequest& request, const Status& status);

  IoBackend backend_;
  int queue_depth_;
  size_t capacity_;
  std::mutex mutex_;
  std::condition_variable not_empty_, not_full_;
  std::deque<IoRequest> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
  DeviceCounters counters_;
};

// Checks once that io_uring can set up a ring and complete one real read of
// `probe_path`; false (and the reason) otherwise.
bool probe_uring(const std::string& probe_path, std::string* reason);

}  // namespace sg
