#include "shards/ingest/chunk_encoder.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "compression/checksum.h"
#include "compression/varint.h"

namespace sg {

ChunkEncoder::ChunkEncoder(uint32_t chunk_bytes, bool weighted, const std::vector<uint32_t>* interval_starts)
    : chunk_bytes_(chunk_bytes), weighted_(weighted), interval_starts_(interval_starts) {
  assert(chunk_bytes_ >= 16);
}

void ChunkEncoder::begin(uint32_t first_vertex) {
  first_vertex_ = next_vertex_ = first_vertex;
  const auto& starts = *interval_starts_;
  next_interval_ = static_cast<size_t>(std::lower_bound(starts.begin(), starts.end(), first_vertex) - starts.begin());
  chunk_open_ = false;
  lists_.clear();
  weights_.clear();
  bytes_.clear();
  chunks_.clear();
  degrees_.clear();
  continued_edges_ = 0;
}

// Closes the open chunk at an interval boundary.
void ChunkEncoder::start_vertex(uint32_t vertex) {
  const auto& starts = *interval_starts_;
  bool at_boundary = false;
  while (next_interval_ < starts.size() && starts[next_interval_] <= vertex) {
    at_boundary |= starts[next_interval_] == vertex;
    ++next_interval_;
  }
  if (at_boundary && chunk_open_) close_chunk(lists_.size(), 0);
}

void ChunkEncoder::open_chunk(uint32_t vertex) {
  chunk_open_ = true;
  chunk_ = ChunkIndexEntry{};
  chunk_.first_vertex = vertex;
}

// Emits the open chunk's lists before byte `keep_from` (and all weights but
// the last `keep_weights`); the rest (one list) stays as the next chunk's
// start, which the caller opens.
void ChunkEncoder::close_chunk(size_t keep_from, uint32_t keep_weights) {
  assert(chunk_open_ && keep_weights <= weights_.size() && keep_from <= lists_.size());
  const size_t weight_count = weighted_ ? weights_.size() - keep_weights : 0;
  ChunkIndexEntry entry = chunk_;
  entry.offset = bytes_.size();
  entry.bytes = static_cast<uint32_t>(4 * weight_count + keep_from);
  const uint8_t* weight_bytes = reinterpret_cast<const uint8_t*>(weights_.data());
  bytes_.insert(bytes_.end(), weight_bytes, weight_bytes + 4 * weight_count);
  bytes_.insert(bytes_.end(), lists_.begin(), lists_.begin() + static_cast<long>(keep_from));
  entry.checksum = checksum64(bytes_.data() + entry.offset, entry.bytes);
  chunks_.push_back(entry);
  lists_.erase(lists_.begin(), lists_.begin() + static_cast<long>(keep_from));
  weights_.erase(weights_.begin(), weights_.begin() + static_cast<long>(weight_count));
  chunk_open_ = false;
}

void ChunkEncoder::add_empty_lists_until(uint32_t vertex) {
  for (uint32_t v = next_vertex_; v < vertex; ++v) {
    start_vertex(v);
    if (!chunk_open_) open_chunk(v);
    lists_.push_back(0);  // varint(0): an empty list
    chunk_.vertex_count = v - chunk_.first_vertex + 1;
    degrees_.push_back(0);
    if (payload_bytes() >= chunk_bytes_) close_chunk(lists_.size(), 0);
  }
  next_vertex_ = std::max(next_vertex_, vertex);
}

void ChunkEncoder::count_edges(uint32_t vertex, uint32_t count) {
  if (vertex < first_vertex_) {
    continued_edges_ += count;
    return;
  }
  degrees_.push_back(count);
  next_vertex_ = vertex + 1;
}

template <typename Neighbour>
void ChunkEncoder::add_list(uint32_t vertex, const Neighbour* neighbours, uint32_t count) {
  const bool continues = vertex + 1 == first_vertex_ && next_vertex_ == first_vertex_ && chunks_.empty() && !chunk_open_;
  assert(continues || vertex >= next_vertex_);
  if (!continues) {
    add_empty_lists_until(vertex);
    start_vertex(vertex);
  }
  const uint64_t worst_bytes = uint64_t{count} * (kMaxVarint32Bytes + (weighted_ ? 4 : 0)) + kMaxVarint32Bytes;
  if (worst_bytes >= chunk_bytes_) {
    add_long_list(vertex, neighbours, count);
    count_edges(vertex, count);
    return;
  }
  const bool had_lists = chunk_open_;
  if (!chunk_open_) open_chunk(vertex);
  const size_t mark = lists_.size();
  lists_.resize(mark + worst_bytes);
  uint8_t* p = put_varint64(lists_.data() + mark, count);
  NeighbourEncoder encoder(vertex);
  for (uint32_t i = 0; i < count; ++i) p = encoder.put(p, neighbour_id(neighbours[i]));
  lists_.resize(static_cast<size_t>(p - lists_.data()));
  if (weighted_) {
    for (uint32_t i = 0; i < count; ++i) weights_.push_back(neighbour_weight(neighbours[i]));
  }
  if (had_lists && payload_bytes() > chunk_bytes_) {
    // This list starts the next chunk instead.
    close_chunk(mark, weighted_ ? count : 0);
    open_chunk(vertex);
  }
  chunk_.vertex_count = vertex - chunk_.first_vertex + 1;
  chunk_.edge_count += count;
  count_edges(vertex, count);
  if (payload_bytes() >= chunk_bytes_) close_chunk(lists_.size(), 0);
}

// A list that may not fit one chunk: pieces of about chunk_bytes, each
// coded on its own and ending its chunk, the last one shared with what follows.
template <typename Neighbour>
void ChunkEncoder::add_long_list(uint32_t vertex, const Neighbour* neighbours, uint32_t count) {
  uint32_t done = 0;
  for (;;) {
    piece_.clear();
    NeighbourEncoder encoder(vertex);
    uint32_t end = done;
    while (end < count) {
      const size_t at = piece_.size();
      piece_.resize(at + kMaxVarint32Bytes);
      uint8_t* p = encoder.put(piece_.data() + at, neighbour_id(neighbours[end]));
      piece_.resize(static_cast<size_t>(p - piece_.data()));
      ++end;
      if (piece_.size() + (weighted_ ? 4 * uint64_t{end - done} : 0) >= chunk_bytes_) break;
    }
    const uint32_t n = end - done;
    const uint64_t piece_bytes = varint_length(n) + piece_.size() + (weighted_ ? 4 * uint64_t{n} : 0);
    if (chunk_open_ && chunk_.first_vertex != vertex && payload_bytes() + piece_bytes > chunk_bytes_) {
      close_chunk(lists_.size(), 0);
    }
    if (!chunk_open_) open_chunk(vertex);
    uint8_t count_bytes[kMaxVarint64Bytes];
    const uint8_t* count_end = put_varint64(count_bytes, n);
    lists_.insert(lists_.end(), static_cast<const uint8_t*>(count_bytes), count_end);
    lists_.insert(lists_.end(), piece_.begin(), piece_.end());
    if (weighted_) {
      for (uint32_t i = done; i < end; ++i) weights_.push_back(neighbour_weight(neighbours[i]));
    }
    chunk_.vertex_count = vertex - chunk_.first_vertex + 1;
    chunk_.edge_count += n;
    done = end;
    if (done == count) break;
    close_chunk(lists_.size(), 0);  // the rest of the list starts the next chunk
  }
  if (payload_bytes() >= chunk_bytes_) close_chunk(lists_.size(), 0);
}

void ChunkEncoder::finish(uint32_t end_vertex) {
  add_empty_lists_until(end_vertex);
  if (chunk_open_) close_chunk(lists_.size(), 0);
}

template void ChunkEncoder::add_list<uint32_t>(uint32_t, const uint32_t*, uint32_t);
template void ChunkEncoder::add_list<WeightedNeighbour>(uint32_t, const WeightedNeighbour*, uint32_t);

}  // namespace sg
