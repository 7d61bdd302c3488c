#include "shards/io/device_queue.h"

#include "base/fault_injection.h"

#include <fcntl.h>
#include <liburing.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "base/aligned_buffer.h"
#include "base/enum_names.h"
#include "base/file_util.h"

namespace sg {

namespace {

uint64_t now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// Moves a request forward by `done` bytes after a short read.
void advance(IoRequest* r, uint64_t done) {
  r->device_offset += done;
  r->bytes -= done;
  int first = 0;
  while (first < r->segment_count && done >= r->segments[first].iov_len) {
    done -= r->segments[first].iov_len;
    ++first;
  }
  if (first < r->segment_count) {
    r->segments[first].iov_base = static_cast<uint8_t*>(r->segments[first].iov_base) + done;
    r->segments[first].iov_len -= done;
  }
  for (int i = first; i < r->segment_count; ++i) r->segments[i - first] = r->segments[i];
  r->segment_count -= first;
}

Status read_error(const IoRequest& r, int err) {
  return Status::IOError(*r.path + ": read of " + std::to_string(r.bytes) + " bytes at offset " +
                         std::to_string(r.device_offset) + ": " + std::strerror(err));
}

Status eof_error(const IoRequest& r) {
  return Status::Corruption(*r.path + ": file ends before offset " + std::to_string(r.device_offset + r.bytes));
}

constexpr int kMaxRetries = 1000;  // bound on EINTR/EAGAIN resubmissions of one request

}  // namespace

const char* backend_name(IoBackend backend) {
  switch (backend) {
    case IoBackend::kAuto: return "auto";
    case IoBackend::kUring: return "uring";
    case IoBackend::kPsync: return "psync";
  }
  return "?";
}

bool parse_backend(const std::string& name, IoBackend* backend) {
  return parse_enum_name(name, {IoBackend::kAuto, IoBackend::kUring, IoBackend::kPsync}, backend_name, backend);
}

void IoBatch::reset(int requests) {
  std::lock_guard<std::mutex> lock(mutex_);
  error_ = Status::OK();
  pending_.store(requests, std::memory_order_release);
}

void IoBatch::complete_one(const Status& status) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!status.ok() && error_.ok()) error_ = status;
  if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) cv_.notify_all();
}

Status IoBatch::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [&] { return pending_.load(std::memory_order_acquire) == 0; });
  return error_;
}

DeviceQueue::DeviceQueue(IoBackend backend, int queue_depth, size_t capacity)
    : backend_(backend), queue_depth_(queue_depth < 1 ? 1 : queue_depth), capacity_(capacity < 1 ? 1 : capacity) {
  if (backend_ == IoBackend::kUring) {
    threads_.emplace_back([this] { run_uring(); });
  } else {
    // A pread thread serves one request at a time: one thread per queue slot.
    for (int t = 0; t < queue_depth_; ++t) threads_.emplace_back([this] { run_psync(); });
  }
}

DeviceQueue::~DeviceQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  not_empty_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void DeviceQueue::submit(const IoRequest& request) {
  std::unique_lock<std::mutex> lock(mutex_);
  not_full_.wait(lock, [&] { return queue_.size() < capacity_; });
  queue_.push_back(request);
  not_empty_.notify_one();
}

bool DeviceQueue::pop(IoRequest* request, bool wait) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (wait) not_empty_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
  if (queue_.empty()) return false;
  *request = queue_.front();
  queue_.pop_front();
  not_full_.notify_one();
  return true;
}

void DeviceQueue::finish(const IoRequest& request, const Status& status) { request.batch->complete_one(status); }

void DeviceQueue::run_psync() {
  IoRequest r;
  while (pop(&r, true)) {
    const uint64_t start = now_ns();
    const uint64_t total = r.bytes;
    Status status;
    int retries = 0;
    while (r.bytes > 0 && status.ok()) {
      const ssize_t n = apply_fault(next_read_fault(),
                                    ::preadv(r.fd, r.segments, r.segment_count, static_cast<off_t>(r.device_offset)));
      if (n < 0 && (errno == EINTR || errno == EAGAIN) && ++retries < kMaxRetries) continue;
      if (n < 0)
        status = read_error(r, errno);
      else if (n == 0)
        status = eof_error(r);
      else if (const size_t kept = kept_of_short(r.fd, r.device_offset, static_cast<size_t>(n)); kept > 0)
        advance(&r, kept);
      else if (++retries >= kMaxRetries)
        status = read_error(r, EIO);
    }
    counters_.bytes += total;
    counters_.requests += 1;
    counters_.busy_ns += now_ns() - start;
    finish(r, status);
  }
}

namespace {

// A completion's result as the fault injection test hook has it.
int with_injected_fault(int res) {
  const InjectedFault fault = next_read_fault();
  if (fault.kind == InjectedFault::kError) return -fault.error;
  return fault.kind == InjectedFault::kShort && res > 1 ? res / 2 : res;
}

// Whether a request whose read returned `res` ends (with *status), or goes
// back to the ring for the rest: a retryable error or a short read, at most
// kMaxRetries times without progress.
bool uring_request_ended(IoRequest* req, int res, int* retries, Status* status) {
  if ((res == -EINTR || res == -EAGAIN) && ++*retries < kMaxRetries) return false;
  if (res < 0) {
    *status = read_error(*req, -res);
  } else if (res == 0) {
    *status = eof_error(*req);
  } else if (static_cast<uint64_t>(res) < req->bytes) {  // short read: ask for the rest
    const size_t kept = kept_of_short(req->fd, req->device_offset, static_cast<size_t>(res));
    if (kept > 0 || ++*retries < kMaxRetries) {
      advance(req, kept);
      return false;
    }
    *status = read_error(*req, EIO);
  }
  return true;
}

}  // namespace

void DeviceQueue::run_uring() {
  io_uring ring;
  const int rc = io_uring_queue_init(static_cast<unsigned>(queue_depth_), &ring, 0);
  std::vector<IoRequest> slots(static_cast<size_t>(queue_depth_));
  std::vector<uint64_t> slot_bytes(slots.size());
  std::vector<int> slot_retries(slots.size());
  std::vector<int> free_slots;
  for (int s = queue_depth_ - 1; s >= 0; --s) free_slots.push_back(s);
  int in_flight = 0;
  uint64_t busy_since = 0;
  auto submit_slot = [&](int s) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring);
    const IoRequest& r = slots[static_cast<size_t>(s)];
    io_uring_prep_readv(sqe, r.fd, r.segments, static_cast<unsigned>(r.segment_count), r.device_offset);
    io_uring_sqe_set_data64(sqe, static_cast<uint64_t>(s));
  };
  for (;;) {
    // Top up the ring from the queue; block only when nothing is in flight.
    bool added = false;
    IoRequest r;
    while (!free_slots.empty() && pop(&r, in_flight == 0 && !added)) {
      if (rc < 0) {  // ring setup failed after the probe: fail requests clearly
        finish(r, Status::IOError(*r.path + ": io_uring setup failed: " + std::strerror(-rc)));
        continue;
      }
      const int s = free_slots.back();
      free_slots.pop_back();
      slots[static_cast<size_t>(s)] = r;
      slot_bytes[static_cast<size_t>(s)] = r.bytes;
      slot_retries[static_cast<size_t>(s)] = 0;
      submit_slot(s);
      if (in_flight == 0) busy_since = now_ns();
      ++in_flight;
      added = true;
    }
    if (in_flight == 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stopping_ && queue_.empty()) break;
      continue;
    }
    if (added) io_uring_submit(&ring);
    io_uring_cqe* cqe = nullptr;
    __kernel_timespec timeout{0, 1000000};  // wake to top up the ring within 1 ms
    const int wait_rc = io_uring_wait_cqe_timeout(&ring, &cqe, &timeout);
    if (wait_rc == -ETIME || wait_rc == -EINTR) continue;
    unsigned head = 0, seen = 0;
    bool resubmitted = false;
    io_uring_for_each_cqe(&ring, head, cqe) {
      ++seen;
      const int s = static_cast<int>(io_uring_cqe_get_data64(cqe));
      IoRequest& req = slots[static_cast<size_t>(s)];
      Status status;
      if (!uring_request_ended(&req, with_injected_fault(cqe->res), &slot_retries[static_cast<size_t>(s)], &status)) {
        submit_slot(s);
        resubmitted = true;
        continue;
      }
      counters_.bytes += slot_bytes[static_cast<size_t>(s)];
      counters_.requests += 1;
      finish(req, status);
      free_slots.push_back(s);
      --in_flight;
      if (in_flight == 0) counters_.busy_ns += now_ns() - busy_since;
    }
    io_uring_cq_advance(&ring, seen);
    if (resubmitted) io_uring_submit(&ring);
  }
  if (rc >= 0) io_uring_queue_exit(&ring);
}

bool probe_uring(const std::string& probe_path, std::string* reason) {
  io_uring ring;
  int rc = io_uring_queue_init(2, &ring, 0);
  if (rc < 0) {
    *reason = std::string("io_uring setup failed: ") + std::strerror(-rc);
    return false;
  }
  bool ok = false;
  const int fd = ::open(probe_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *reason = probe_path + ": " + std::strerror(errno);
  } else {
    AlignedBuffer buffer(4096);
    io_uring_sqe* sqe = io_uring_get_sqe(&ring);
    io_uring_prep_read(sqe, fd, buffer.data(), 4096, 0);
    io_uring_submit(&ring);
    io_uring_cqe* cqe = nullptr;
    rc = io_uring_wait_cqe(&ring, &cqe);
    if (rc < 0)
      *reason = std::string("io_uring wait failed: ") + std::strerror(-rc);
    else if (cqe->res < 0)
      *reason = std::string("io_uring read failed: ") + std::strerror(-cqe->res);
    else
      ok = true;
    if (rc == 0) io_uring_cqe_seen(&ring, cqe);
    ::close(fd);
  }
  io_uring_queue_exit(&ring);
  return ok;
}

}  // namespace sg
