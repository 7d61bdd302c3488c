#include "shards/ingest/queued_edge_reader.h"

#include <cassert>
#include <cstring>

namespace sg {
namespace {

class QueueConsumer : public EdgeReader {
 public:
  explicit QueueConsumer(QueuedEdgeReader* queue) : queue_(queue) {}
  Status next_batch(std::vector<RawEdge>* batch, size_t max_edges) override {
    return queue_->next_batch(batch, max_edges);
  }
  const InputShape& shape() const override { return queue_->shape(); }
  uint64_t bytes_read() const override { return queue_->bytes_read(); }
  uint64_t bytes_total() const override { return queue_->bytes_total(); }
  uint64_t declared_arcs() const override { return queue_->declared_arcs(); }

 private:
  QueuedEdgeReader* queue_;
};

}  // namespace

std::unique_ptr<EdgeReader> QueuedEdgeReader::consumer() { return std::make_unique<QueueConsumer>(this); }

QueuedEdgeReader::QueuedEdgeReader(const InputShape& shape, size_t capacity, uint64_t expected_arcs)
    : shape_(shape), capacity_(capacity), expected_arcs_(expected_arcs) {
  assert(capacity_ > 0);
}

void QueuedEdgeReader::push(std::vector<uint8_t>&& packed) {
  assert(packed.size() % packed_arc_bytes(shape_.weighted) == 0);
  if (packed.empty()) return;
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return abandoned_ || buffers_.size() < capacity_; });
  if (abandoned_) return;
  assert(!finished_);
  buffers_.push_back(std::move(packed));
  changed_.notify_all();
}

std::vector<uint8_t> QueuedEdgeReader::spare() {
  std::lock_guard lock(mutex_);
  if (spares_.empty()) return {};
  std::vector<uint8_t> buffer = std::move(spares_.back());
  spares_.pop_back();
  return buffer;
}

void QueuedEdgeReader::finish(const Status& status) {
  std::lock_guard lock(mutex_);
  finished_ = true;
  end_status_ = status;
  changed_.notify_all();
}

void QueuedEdgeReader::abandon() {
  std::lock_guard lock(mutex_);
  abandoned_ = true;
  buffers_.clear();
  changed_.notify_all();
}

// Decodes records of the front buffer into batch, up to max_edges; true
// when the buffer is used up (and popped).
bool QueuedEdgeReader::decode_front(std::vector<RawEdge>* batch, size_t max_edges) {
  const size_t record_bytes = packed_arc_bytes(shape_.weighted);
  const std::vector<uint8_t>& front = buffers_.front();
  while (front_offset_ < front.size() && batch->size() < max_edges) {
    const uint8_t* p = front.data() + front_offset_;
    uint32_t src = 0, dst = 0;
    float weight = 1.0f;
    std::memcpy(&src, p, 4);
    std::memcpy(&dst, p + 4, 4);
    if (shape_.weighted) std::memcpy(&weight, p + 8, 4);
    batch->push_back(RawEdge{src, dst, weight});
    front_offset_ += record_bytes;
  }
  if (front_offset_ < front.size()) return false;
  if (spares_.size() < capacity_) {
    spares_.push_back(std::move(buffers_.front()));
    spares_.back().clear();
  }
  buffers_.pop_front();
  front_offset_ = 0;
  return true;
}

Status QueuedEdgeReader::next_batch(std::vector<RawEdge>* batch, size_t max_edges) {
  batch->clear();
  std::unique_lock lock(mutex_);
  while (batch->size() < max_edges) {
    changed_.wait(lock, [&] { return !buffers_.empty() || finished_; });
    if (buffers_.empty()) {  // finished
      if (!end_status_.ok()) return end_status_;
      break;
    }
    if (decode_front(batch, max_edges)) changed_.notify_all();
    if (!batch->empty() && buffers_.empty()) break;  // hand over what came rather than wait
  }
  arcs_read_ += batch->size();
  return Status::OK();
}

}  // namespace sg
