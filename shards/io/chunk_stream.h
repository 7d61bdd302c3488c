// Streams chunks of one edge space from the devices in plan order, with
// read-ahead: the plan (chunk ranges, e.g. the intervals an iteration needs)
// is cut into windows of consecutive chunks that fit one buffer; up to
// `buffers` windows are in flight, so the reads of later windows (and of the
// next interval) proceed while the caller decodes and computes on the
// current one. Each window is one logical range, split at stripe boundaries,
// merged per device into scatter requests, and queued on each device's
// DeviceQueue.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/aligned_buffer.h"
#include "shards/format/graph.h"
#include "shards/io/device_queue.h"

namespace sg {

struct IoOptions {
  IoBackend backend = IoBackend::kAuto;
  int queue_depth = 4;                   // requests in flight per device
  uint64_t buffer_bytes = 64 << 20;      // all window buffers together
  uint64_t max_request_bytes = 8 << 20;  // after merging pieces
  bool direct = true;                    // O_DIRECT when the file system allows it
};

// Device queues, O_DIRECT file handles and the window buffer pool of one
// graph, created once per run.
class IoContext {
 public:
  Status open(const Graph& graph, const IoOptions& options);
  const Graph& graph() const { return *graph_; }
  IoBackend backend() const { return backend_; }
  size_t device_count() const { return queues_.size(); }
  const DeviceCounters& device_counters(size_t d) const { return queues_[d]->counters(); }
  uint64_t window_bytes() const { return window_bytes_; }
  size_t buffer_count() const { return buffers_.size(); }
  // Frees the read buffers once no stream will run again (the run is over).
  void release_buffers() { buffers_ = std::vector<AlignedBuffer>(); }
  const std::string& notice() const { return notice_; }  // fallbacks taken, for the run log

 private:
  friend class ChunkStream;
  const Graph* graph_ = nullptr;
  IoOptions options_;
  IoBackend backend_ = IoBackend::kPsync;
  std::vector<std::unique_ptr<DeviceQueue>> queues_;
  std::vector<std::vector<File>> files_;  // [stored space][device]
  std::vector<AlignedBuffer> buffers_;
  uint64_t window_bytes_ = 0;
  std::string notice_;
};

// The most vertices a window of `window_bytes` spans (a window holds at
// least one chunk, whatever its span): its decoded form keeps a 4-byte
// offset a vertex, and chunks of empty lists span many vertices in few
// bytes. Every reader that cuts windows (the stream, runs of cached
// chunks, the decode room's estimate) applies it.
inline uint64_t window_vertex_limit(uint64_t window_bytes) {
  return std::max<uint64_t>(window_bytes / 4, uint64_t{1} << 16);
}
// The most edges a window of `window_bytes` holds (again at least one
// chunk): an edge decodes to 4 bytes, and packed chunks of hubs' lists hold
// many edges a byte (R-MAT 24's largest packed window decoded to 26 MB from
// 2.75, twice the unpacked one's room). Applied where the vertex limit is.
inline uint64_t window_edge_limit(uint64_t window_bytes) { return window_bytes; }
// Whether chunk `next` may join a window that starts at chunk `first` and
// holds `edges` edges so far, by both limits above (bytes are the caller's:
// each reader counts them its own way).
inline bool window_holds(const ChunkIndexEntry& first, const ChunkIndexEntry& next, uint64_t edges,
                         uint64_t window_bytes) {
  return next.end_vertex() - first.first_vertex <= window_vertex_limit(window_bytes) &&
         edges + next.edge_count <= window_edge_limit(window_bytes);
}

struct ChunkSpan {
  uint32_t begin;  // chunk ids [begin, end)
  uint32_t end;
};

struct ChunkWindow {
  const uint8_t* data = nullptr;  // payload of chunk c at data + index[c].offset - logical_start
  uint64_t logical_start = 0;
  uint32_t first_chunk = 0, end_chunk = 0;
  const uint8_t* const* payloads = nullptr;  // instead of data: one pointer per chunk (cached chunks)
  const uint8_t* payload(uint32_t chunk, const ChunkIndexEntry& e) const {
    return payloads != nullptr ? payloads[chunk - first_chunk] : data + (e.offset - logical_start);
  }
};

class ChunkStream {
 public:
  // Chunks of the stored space (a space or one block of it) `stored_space`.
  ChunkStream(IoContext* io, size_t stored_space, std::vector<ChunkSpan> plan);
  ~ChunkStream();  // waits for reads still in flight
  ChunkStream(const ChunkStream&) = delete;
  ChunkStream& operator=(const ChunkStream&) = delete;

  // The next window in plan order; *has = false after the last. The previous
  // window's buffer is reused from this call on.
  Status next(ChunkWindow* window, bool* has);
  double io_wait_seconds() const { return io_wait_seconds_; }
  size_t window_count() const { return windows_.size(); }
  uint64_t bytes_planned() const { return bytes_planned_; }

 private:
  struct Window {
    uint32_t first_chunk, end_chunk;
    uint64_t start, end;  // logical, end aligned up
  };
  void plan_windows(const std::vector<ChunkSpan>& spans);
  void issue(size_t window, size_t slot);

  IoContext* io_;
  size_t stored_space_;
  const EdgeSpace* space_;
  std::vector<Window> windows_;
  std::vector<std::unique_ptr<IoBatch>> batches_;  // one per buffer slot
  std::vector<uint32_t> request_device_;           // scratch of issue()
  size_t next_to_issue_ = 0, next_to_return_ = 0;
  double io_wait_seconds_ = 0;
  uint64_t bytes_planned_ = 0;
};

}  // namespace sg
