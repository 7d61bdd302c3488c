// An edge list handed over in buffers by another thread: a distributed
// ingest's exchange thread receives each part's arcs from the ranks and
// queues them here, and the part's ingest reads them as its input. The
// queue holds at most `capacity` buffers (push waits for room), so the
// producer runs no further ahead than the budget allows. Records are packed
// (uint32 source, uint32 destination[, float32 weight]) and decoded only as
// the ingest asks for a batch.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "shards/ingest/edge_reader.h"

namespace sg {

// Bytes of one packed arc.
inline size_t packed_arc_bytes(bool weighted) { return weighted ? 12 : 8; }

class QueuedEdgeReader : public EdgeReader {
 public:
  // `expected_arcs`: what will come, for progress.
  QueuedEdgeReader(const InputShape& shape, size_t capacity, uint64_t expected_arcs);

  // Producer side. Waits while the queue is full; drops the buffer once
  // the reader is abandoned (its ingest failed and reads no more).
  void push(std::vector<uint8_t>&& packed);
  // No more buffers: the end of input (OK) or the producer's failure, which
  // the ingest then returns.
  void finish(const Status& status);
  // Consumer side gave up: pushes return at once from now on.
  void abandon();
  bool abandoned() const { return abandoned_.load(); }
  // An empty buffer with the room of one already read (none at first), so
  // that the producer's buffers are not new pages every time.
  std::vector<uint8_t> spare();
  // A reader that reads this queue (the ingest owns it; the queue outlives it).
  std::unique_ptr<EdgeReader> consumer();

  Status next_batch(std::vector<RawEdge>* batch, size_t max_edges) override;
  const InputShape& shape() const override { return shape_; }
  uint64_t bytes_read() const override { return arcs_read_ * packed_arc_bytes(shape_.weighted); }
  uint64_t bytes_total() const override { return expected_arcs_ * packed_arc_bytes(shape_.weighted); }
  uint64_t declared_arcs() const override { return expected_arcs_; }

 private:
  bool decode_front(std::vector<RawEdge>* batch, size_t max_edges);

  const InputShape shape_;
  const size_t capacity_;
  const uint64_t expected_arcs_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::vector<uint8_t>> buffers_;
  std::vector<std::vector<uint8_t>> spares_;  // read, kept for spare() (at most `capacity`)
  size_t front_offset_ = 0;                   // bytes of buffers_.front() already decoded
  bool finished_ = false;
  std::atomic<bool> abandoned_{false};  // set under the mutex; the producer polls it
  Status end_status_;
  std::atomic<uint64_t> arcs_read_{0};  // read by the ingest's progress while a batch is read
};

}  // namespace sg
