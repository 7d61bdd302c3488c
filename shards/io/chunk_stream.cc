#include "shards/io/chunk_stream.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace sg {

Status IoContext::open(const Graph& graph, const IoOptions& options) {
  graph_ = &graph;
  options_ = options;
  notice_.clear();
  const size_t devices = graph.device_count();
  backend_ = options.backend;
  if (backend_ != IoBackend::kPsync) {
    std::string reason;
    const std::string probe = graph.stored_space(0).device_paths[0];
    if (!probe_uring(probe, &reason)) {
      if (backend_ == IoBackend::kUring) return Status::IOError("--io-backend uring: " + reason);
      notice_ += "io_uring unavailable (" + reason + "); using the pread thread pool\n";
      backend_ = IoBackend::kPsync;
    } else {
      backend_ = IoBackend::kUring;
    }
  }
  files_.clear();
  files_.resize(graph.stored_space_count());
  bool warned = false;
  for (size_t s = 0; s < graph.stored_space_count(); ++s) {
    for (size_t d = 0; d < devices; ++d) {
      File file;
      const std::string& path = graph.stored_space(s).device_paths[d];
      Status status = File::open_read(path, &file, options.direct);
      if (!status.ok() && options.direct) {
        // tmpfs and some others refuse O_DIRECT: read through the page cache.
        status = File::open_read(path, &file, false);
        if (status.ok() && !warned) notice_ += path + ": O_DIRECT not supported here; using buffered reads\n";
        warned = true;
      }
      SG_RETURN_IF_ERROR(status);
      files_[s].push_back(std::move(file));
    }
  }
  // Window size: one stripe per device, so each window keeps every device
  // busy with one request; at least the largest chunk.
  const uint32_t largest_chunk = graph.largest_chunk_bytes();
  const uint64_t stripe_window = graph.layout().stripe_bytes() * devices;
  const uint64_t min_buffers = 2;
  const uint64_t wanted_buffers = 2 * devices + 2;
  window_bytes_ =
      std::min<uint64_t>(stripe_window, std::max<uint64_t>(options.buffer_bytes / wanted_buffers, kAlignBytes));
  window_bytes_ = align_up(std::max<uint64_t>(window_bytes_, uint64_t{largest_chunk} + kAlignBytes), kAlignBytes);
  // Read-ahead of two windows per device (one in flight, one queued) plus
  // two being decoded keeps every queue fed (HDD and SSD latency x bandwidth
  // is below one window); more
  // buffers than the largest space needs would only hold memory.
  uint64_t largest_space = 0;
  for (size_t s = 0; s < graph.stored_space_count(); ++s) {
    largest_space = std::max(largest_space, graph.stored_space(s).meta.logical_bytes);
  }
  const uint64_t useful = std::max<uint64_t>(min_buffers, largest_space / window_bytes_ + 2);
  const uint64_t cap = std::min<uint64_t>(2 * devices + 2, useful);
  const size_t count =
      static_cast<size_t>(std::clamp<uint64_t>(options.buffer_bytes / window_bytes_, min_buffers, cap));
  buffers_.clear();
  for (size_t b = 0; b < count; ++b) buffers_.emplace_back(window_bytes_);
  queues_.clear();
  for (size_t d = 0; d < devices; ++d) {
    queues_.push_back(std::make_unique<DeviceQueue>(backend_, options.queue_depth, 4 * count));
  }
  return Status::OK();
}

ChunkStream::ChunkStream(IoContext* io, size_t stored_space, std::vector<ChunkSpan> plan) : io_(io) {
  stored_space_ = stored_space;
  space_ = &io->graph().stored_space(stored_space_);
  plan_windows(plan);
  for (size_t b = 0; b < io->buffers_.size(); ++b) batches_.push_back(std::make_unique<IoBatch>());
  while (next_to_issue_ < windows_.size() && next_to_issue_ < batches_.size()) {
    issue(next_to_issue_, next_to_issue_ % batches_.size());
    ++next_to_issue_;
  }
}

ChunkStream::~ChunkStream() {
  for (size_t w = next_to_return_; w < next_to_issue_; ++w) (void)batches_[w % batches_.size()]->wait();
}

void ChunkStream::plan_windows(const std::vector<ChunkSpan>& spans) {
  const auto& index = space_->index;
  const uint64_t limit = io_->window_bytes_;
  for (const ChunkSpan& span : spans) {
    uint32_t c = span.begin;
    while (c < span.end) {
      Window w{c, c, index[c].offset, 0};
      uint64_t edges = 0;
      while (c < span.end && align_up(index[c].offset + index[c].bytes, kAlignBytes) - w.start <= limit &&
             (c == w.first_chunk || window_holds(index[w.first_chunk], index[c], edges, limit))) {
        edges += index[c].edge_count;
        ++c;
      }
      w.end_chunk = c;
      w.end = align_up(index[c - 1].offset + index[c - 1].bytes, kAlignBytes);
      bytes_planned_ += w.end - w.start;
      windows_.push_back(w);
    }
  }
}

void ChunkStream::issue(size_t window, size_t slot) {
  const Window& w = windows_[window];
  const StripeLayout layout = io_->graph().layout();
  uint8_t* base = io_->buffers_[slot].data();
  // Split at stripes, then merge pieces that are adjacent on one device.
  std::vector<IoRequest> requests;
  request_device_.clear();
  std::vector<int> open_request(io_->device_count(), -1);
  layout.split(w.start, w.end - w.start, [&](const StripePiece& piece) {
    int& at = open_request[piece.device];
    uint8_t* dest = base + (piece.logical_offset - w.start);
    if (at >= 0) {
      IoRequest& r = requests[static_cast<size_t>(at)];
      if (r.device_offset + r.bytes == piece.device_offset && r.segment_count < kMaxSegments &&
          r.bytes + piece.bytes <= io_->options_.max_request_bytes) {
        r.segments[r.segment_count++] = iovec{dest, piece.bytes};
        r.bytes += piece.bytes;
        return;
      }
    }
    const File& file = io_->files_[stored_space_][piece.device];
    IoRequest r;
    r.fd = file.fd();
    r.path = &file.path();
    r.device_offset = piece.device_offset;
    r.segments[0] = iovec{dest, piece.bytes};
    r.segment_count = 1;
    r.bytes = piece.bytes;
    at = static_cast<int>(requests.size());
    requests.push_back(r);
    request_device_.push_back(piece.device);
  });
  IoBatch* batch = batches_[slot].get();
  batch->reset(static_cast<int>(requests.size()));
  for (size_t i = 0; i < requests.size(); ++i) {
    requests[i].batch = batch;
    io_->queues_[request_device_[i]]->submit(requests[i]);
  }
}

Status ChunkStream::next(ChunkWindow* window, bool* has) {
  if (next_to_return_ == windows_.size()) {
    *has = false;
    return Status::OK();
  }
  // The buffer handed out last time is free again: refill it.
  while (next_to_issue_ < windows_.size() && next_to_issue_ < next_to_return_ + batches_.size()) {
    issue(next_to_issue_, next_to_issue_ % batches_.size());
    ++next_to_issue_;
  }
  const size_t slot = next_to_return_ % batches_.size();
  const auto start = std::chrono::steady_clock::now();
  Status status = batches_[slot]->wait();
  io_wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const Window& w = windows_[next_to_return_];
  ++next_to_return_;
  if (!status.ok())
    return Status::IOError("space " + space_->meta.name + ", chunks " + std::to_string(w.first_chunk) + ".." +
                           std::to_string(w.end_chunk - 1) + ": " + status.message());
  window->data = io_->buffers_[slot].data();
  window->logical_start = w.start;
  window->first_chunk = w.first_chunk;
  window->end_chunk = w.end_chunk;
  *has = true;
  return Status::OK();
}

}  // namespace sg
