#include "shards/ingest/chunk_encoder.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "compression/adjacency_codec.h"
#include "compression/checksum.h"
#include "compression/varint.h"

namespace sg {

ChunkEncoder::ChunkEncoder(uint32_t chunk_bytes, bool weighted, const std::vector<uint32_t>* interval_starts, ListCodec codec)
    : chunk_bytes_(chunk_bytes), weighted_(weighted), codec_(codec), interval_starts_(interval_starts) {
  assert(chunk_bytes_ >= 16);
}

void ChunkEncoder::begin(uint32_t first_vertex) {
  first_vertex_ = next_vertex_ = first_vertex;
  const auto& starts = *interval_starts_;
  next_interval_ = static_cast<size_t>(std::lower_bound(starts.begin(), starts.end(), first_vertex) - starts.begin());
  chunk_open_ = false;
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
  if (at_boundary && chunk_open_) close_chunk();
}

void ChunkEncoder::open_chunk(uint32_t vertex) {
  chunk_open_ = true;
  chunk_ = ChunkIndexEntry{};
  chunk_.first_vertex = vertex;
  counts_.clear();
  ids_.clear();
  weights_.clear();
  sizer_.reset(vertex);
  lists_bytes_ = codec_ == ListCodec::kV2 ? sizer_.bytes() : 0;
}

uint64_t ChunkEncoder::payload_bytes() const { return lists_bytes_ + (weighted_ ? 4 * uint64_t{weights_.size()} : 0); }

uint64_t ChunkEncoder::lists_bytes_with(const uint32_t* ids, uint32_t count, ChunkListSizer* sizer) const {
  if (codec_ == ListCodec::kV2) {
    *sizer = sizer_;
    if (count == 0) {
      sizer->add_empty();
    } else {
      sizer->add_list(ids, count);
    }
    return sizer->bytes();
  }
  const uint32_t vertex = chunk_.first_vertex + static_cast<uint32_t>(counts_.size());
  uint64_t bytes = lists_bytes_ + varint_length(count);
  for (uint32_t i = 0; i < count; ++i) bytes += NeighbourEncoder::encoded_bytes(i == 0 ? vertex : ids[i - 1], ids[i], i == 0);
  return bytes;
}

uint64_t ChunkEncoder::payload_bytes_with(uint32_t count, uint64_t lists_bytes) const {
  return lists_bytes + (weighted_ ? 4 * (uint64_t{weights_.size()} + count) : 0);
}

// Adds a list (or a piece of one) to the open chunk, which then codes in
// `lists_bytes` (lists_bytes_with, which also gave `sizer`).
template <typename Neighbour>
void ChunkEncoder::append_list(uint32_t vertex, const Neighbour* neighbours, uint32_t count, uint64_t lists_bytes,
                               const ChunkListSizer& sizer) {
  assert(chunk_open_ && vertex == chunk_.first_vertex + counts_.size());
  (void)vertex;  // for the assertion
  lists_bytes_ = lists_bytes;
  sizer_ = sizer;
  counts_.push_back(count);
  for (uint32_t i = 0; i < count; ++i) ids_.push_back(neighbour_id(neighbours[i]));
  if (weighted_) {
    for (uint32_t i = 0; i < count; ++i) weights_.push_back(neighbour_weight(neighbours[i]));
  }
  chunk_.vertex_count = static_cast<uint32_t>(counts_.size());
  chunk_.edge_count += count;
}

// Codes the open chunk and appends it to the part's output.
void ChunkEncoder::close_chunk() {
  assert(chunk_open_);
  ChunkIndexEntry entry = chunk_;
  entry.offset = bytes_.size();
  const uint8_t* weight_bytes = reinterpret_cast<const uint8_t*>(weights_.data());
  bytes_.insert(bytes_.end(), weight_bytes, weight_bytes + (weighted_ ? 4 * weights_.size() : 0));
  if (codec_ == ListCodec::kV2) {
    encode_chunk_lists(entry.first_vertex, counts_, ids_.data(), sizer_.best_mode(), &bytes_);
  } else {
    const uint32_t* ids = ids_.data();
    for (size_t i = 0; i < counts_.size(); ++i) {
      encode_list(entry.first_vertex + static_cast<uint32_t>(i), std::span<const uint32_t>(ids, counts_[i]), &bytes_);
      ids += counts_[i];
    }
  }
  entry.bytes = static_cast<uint32_t>(bytes_.size() - entry.offset);
  assert(entry.bytes == payload_bytes());
  entry.checksum = checksum64(bytes_.data() + entry.offset, entry.bytes);
  chunks_.push_back(entry);
  chunk_open_ = false;
}

void ChunkEncoder::add_empty_lists_until(uint32_t vertex) {
  ChunkListSizer sizer;
  for (uint32_t v = next_vertex_; v < vertex; ++v) {
    start_vertex(v);
    if (!chunk_open_) open_chunk(v);
    const uint64_t lists_bytes = lists_bytes_with(nullptr, 0, &sizer);
    append_list<uint32_t>(v, nullptr, 0, lists_bytes, sizer);
    degrees_.push_back(0);
    if (payload_bytes() >= chunk_bytes_) close_chunk();
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
  list_ids_.resize(count);
  for (uint32_t i = 0; i < count; ++i) list_ids_[i] = neighbour_id(neighbours[i]);
  if (!chunk_open_) open_chunk(vertex);
  ChunkListSizer sizer;
  uint64_t lists_bytes = lists_bytes_with(list_ids_.data(), count, &sizer);
  if (!counts_.empty() && payload_bytes_with(count, lists_bytes) > chunk_bytes_) {
    close_chunk();  // this list starts the next chunk instead
    open_chunk(vertex);
    lists_bytes = lists_bytes_with(list_ids_.data(), count, &sizer);
  }
  append_list(vertex, neighbours, count, lists_bytes, sizer);
  count_edges(vertex, count);
  if (payload_bytes() >= chunk_bytes_) close_chunk();
}

// A list that may not fit one chunk: pieces of about chunk_bytes, each
// coded on its own and ending its chunk, the last one shared with what follows.
template <typename Neighbour>
void ChunkEncoder::add_long_list(uint32_t vertex, const Neighbour* neighbours, uint32_t count) {
  uint32_t done = 0;
  for (;;) {
    // The piece's size as coded on its own (codec 1's coding of it; codec
    // 2 differs by the first neighbour's anchor at most).
    uint64_t piece_bytes = 0;
    uint32_t end = done;
    while (end < count) {
      const uint32_t id = neighbour_id(neighbours[end]);
      piece_bytes += NeighbourEncoder::encoded_bytes(end == done ? vertex : neighbour_id(neighbours[end - 1]), id, end == done);
      piece_bytes += weighted_ ? 4 : 0;
      ++end;
      if (piece_bytes >= chunk_bytes_) break;
    }
    const uint32_t n = end - done;
    list_ids_.resize(n);
    for (uint32_t i = 0; i < n; ++i) list_ids_[i] = neighbour_id(neighbours[done + i]);
    ChunkListSizer sizer;
    if (chunk_open_ && chunk_.first_vertex != vertex &&
        payload_bytes_with(n, lists_bytes_with(list_ids_.data(), n, &sizer)) > chunk_bytes_) {
      close_chunk();
    }
    if (!chunk_open_) open_chunk(vertex);
    append_list(vertex, neighbours + done, n, lists_bytes_with(list_ids_.data(), n, &sizer), sizer);
    done = end;
    if (done == count) break;
    close_chunk();  // the rest of the list starts the next chunk
  }
  if (payload_bytes() >= chunk_bytes_) close_chunk();
}

void ChunkEncoder::finish(uint32_t end_vertex) {
  add_empty_lists_until(end_vertex);
  if (chunk_open_) close_chunk();
}

template void ChunkEncoder::add_list<uint32_t>(uint32_t, const uint32_t*, uint32_t);
template void ChunkEncoder::add_list<WeightedNeighbour>(uint32_t, const WeightedNeighbour*, uint32_t);

}  // namespace sg
