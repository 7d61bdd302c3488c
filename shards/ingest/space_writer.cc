#include "shards/ingest/space_writer.h"

#include <cassert>

#include "compression/checksum.h"
#include "compression/varint.h"

namespace sg {

SpaceWriter::SpaceWriter(StripedWriter* out, uint32_t num_vertices, std::vector<uint32_t> interval_starts,
                         uint32_t chunk_bytes, bool weighted)
    : out_(out),
      num_vertices_(num_vertices),
      interval_starts_(std::move(interval_starts)),
      chunk_bytes_(chunk_bytes),
      weighted_(weighted),
      degrees_(num_vertices, 0) {
  assert(chunk_bytes_ >= 16);
  list_bytes_.reserve(chunk_bytes_ + kMaxVarint64Bytes);
  chunk_lists_.reserve(chunk_bytes_ + 2 * kMaxVarint64Bytes);
}

uint64_t SpaceWriter::chunk_payload_bytes() const {
  return chunk_lists_.size() + (weighted_ ? 4 * chunk_weights_.size() : 0);
}

// Opens a new chunk at interval boundaries, then makes `vertex` the chunk's
// next vertex.
Status SpaceWriter::begin_vertex(uint32_t vertex) {
  bool at_boundary = false;
  while (next_interval_ < interval_starts_.size() && interval_starts_[next_interval_] <= vertex) {
    at_boundary |= interval_starts_[next_interval_] == vertex;
    ++next_interval_;
  }
  if (at_boundary && chunk_open_) SG_RETURN_IF_ERROR(close_chunk());
  if (!chunk_open_) {
    chunk_open_ = true;
    chunk_ = ChunkIndexEntry{};
    chunk_.first_vertex = vertex;
  }
  return Status::OK();
}

Status SpaceWriter::emit_empty_vertices_until(uint32_t vertex) {
  while (next_vertex_ < vertex) {
    SG_RETURN_IF_ERROR(begin_vertex(next_vertex_));
    chunk_lists_.push_back(0);  // varint(0): an empty list
    chunk_.vertex_count = next_vertex_ - chunk_.first_vertex + 1;
    ++next_vertex_;
    if (chunk_payload_bytes() >= chunk_bytes_) SG_RETURN_IF_ERROR(close_chunk());
  }
  return Status::OK();
}

Status SpaceWriter::add_edge(uint32_t vertex, uint32_t neighbour, float weight) {
  assert(vertex < num_vertices_ && neighbour < num_vertices_);
  if (!list_open_ || vertex != list_vertex_) {
    if (list_open_) {
      assert(vertex > list_vertex_);
      SG_RETURN_IF_ERROR(flush_piece(false));
    }
    SG_RETURN_IF_ERROR(emit_empty_vertices_until(vertex));
    list_open_ = true;
    list_vertex_ = vertex;
    encoder_ = NeighbourEncoder(vertex);
  }
  const size_t at = list_bytes_.size();
  list_bytes_.resize(at + kMaxVarint64Bytes);
  uint8_t* end = encoder_.put(list_bytes_.data() + at, neighbour);
  list_bytes_.resize(static_cast<size_t>(end - list_bytes_.data()));
  if (weighted_) list_weights_.push_back(weight);
  ++list_count_;
  ++degrees_[vertex];
  ++edges_;
  const uint64_t piece_bytes = list_bytes_.size() + (weighted_ ? 4 * list_weights_.size() : 0);
  if (piece_bytes >= chunk_bytes_) {
    SG_RETURN_IF_ERROR(flush_piece(true));
    encoder_ = NeighbourEncoder(vertex);  // each piece is coded on its own
    list_open_ = true;
  }
  return Status::OK();
}

Status SpaceWriter::flush_piece(bool list_continues) {
  const uint64_t piece_bytes =
      varint_length(list_count_) + list_bytes_.size() + (weighted_ ? 4 * list_weights_.size() : 0);
  if (chunk_open_ && chunk_.first_vertex != list_vertex_ && chunk_payload_bytes() + piece_bytes > chunk_bytes_) {
    SG_RETURN_IF_ERROR(close_chunk());
  }
  SG_RETURN_IF_ERROR(begin_vertex(list_vertex_));
  uint8_t count_bytes[kMaxVarint64Bytes];
  const uint8_t* count_end = put_varint64(count_bytes, list_count_);
  chunk_lists_.insert(chunk_lists_.end(), static_cast<const uint8_t*>(count_bytes), count_end);
  chunk_lists_.insert(chunk_lists_.end(), list_bytes_.begin(), list_bytes_.end());
  chunk_weights_.insert(chunk_weights_.end(), list_weights_.begin(), list_weights_.end());
  chunk_.vertex_count = list_vertex_ - chunk_.first_vertex + 1;
  chunk_.edge_count += list_count_;
  list_bytes_.clear();
  list_weights_.clear();
  list_count_ = 0;
  list_open_ = false;
  if (list_continues) {
    // The rest of the list starts the next chunk with the same vertex.
    SG_RETURN_IF_ERROR(close_chunk());
  } else {
    next_vertex_ = list_vertex_ + 1;
    if (chunk_payload_bytes() >= chunk_bytes_) SG_RETURN_IF_ERROR(close_chunk());
  }
  return Status::OK();
}

Status SpaceWriter::close_chunk() {
  assert(chunk_open_);
  SG_RETURN_IF_ERROR(out_->pad_to(kAlignBytes));
  chunk_.offset = out_->logical_offset();
  const uint64_t payload = chunk_payload_bytes();
  if (payload > UINT32_MAX) return Status::InvalidArgument("chunk larger than 4 GiB");
  chunk_.bytes = static_cast<uint32_t>(payload);
  // Hash the payload as it will lie on disk: weights first, then lists.
  std::vector<uint8_t>& scratch = payload_;
  scratch.clear();
  const uint8_t* weights = reinterpret_cast<const uint8_t*>(chunk_weights_.data());
  const size_t weight_bytes = weighted_ ? 4 * chunk_weights_.size() : 0;
  scratch.reserve(payload);
  scratch.insert(scratch.end(), weights, weights + weight_bytes);
  scratch.insert(scratch.end(), chunk_lists_.begin(), chunk_lists_.end());
  chunk_.checksum = checksum64(scratch.data(), scratch.size());
  SG_RETURN_IF_ERROR(out_->append(scratch.data(), scratch.size()));
  index_.push_back(chunk_);
  chunk_lists_.clear();
  chunk_weights_.clear();
  chunk_open_ = false;
  return Status::OK();
}

Status SpaceWriter::finish() {
  if (list_open_) SG_RETURN_IF_ERROR(flush_piece(false));
  SG_RETURN_IF_ERROR(emit_empty_vertices_until(num_vertices_));
  if (chunk_open_) SG_RETURN_IF_ERROR(close_chunk());
  return out_->pad_to(kAlignBytes);
}

}  // namespace sg
