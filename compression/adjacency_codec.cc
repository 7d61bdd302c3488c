#include "compression/adjacency_codec.h"

#include "compression/varint.h"

namespace sg {

uint8_t* NeighbourEncoder::put(uint8_t* dst, uint32_t neighbour) {
  if (first_) {
    dst = put_varint64(dst, zigzag_encode(static_cast<int64_t>(neighbour) - static_cast<int64_t>(previous_)));
    first_ = false;
  } else {
    dst = put_varint64(dst, neighbour - previous_);
  }
  previous_ = neighbour;
  return dst;
}

int NeighbourEncoder::encoded_bytes(uint32_t vertex_or_previous, uint32_t neighbour, bool first) {
  if (first) {
    return varint_length(zigzag_encode(static_cast<int64_t>(neighbour) - static_cast<int64_t>(vertex_or_previous)));
  }
  return varint_length(neighbour - vertex_or_previous);
}

void encode_list(uint32_t vertex, std::span<const uint32_t> neighbours, std::vector<uint8_t>* out) {
  const size_t start = out->size();
  out->resize(start + max_encoded_list_bytes(neighbours.size()));
  uint8_t* dst = out->data() + start;
  dst = put_varint64(dst, neighbours.size());
  NeighbourEncoder encoder(vertex);
  for (uint32_t neighbour : neighbours) dst = encoder.put(dst, neighbour);
  out->resize(static_cast<size_t>(dst - out->data()));
}

Status decode_neighbours(const uint8_t** p, const uint8_t* end, uint32_t vertex, uint32_t num_vertices, uint32_t count,
                         uint32_t* out) {
  if (count == 0) return Status::OK();
  const uint8_t* cursor = *p;
  uint64_t raw = 0;
  cursor = get_varint64(cursor, end, &raw);
  if (cursor == nullptr) return Status::Corruption("truncated or malformed neighbour varint");
  if (raw > (uint64_t{1} << 33)) return Status::Corruption("first neighbour offset out of range");
  const int64_t first = static_cast<int64_t>(vertex) + zigzag_decode(raw);
  if (first < 0 || first >= static_cast<int64_t>(num_vertices)) return Status::Corruption("neighbour id out of range");
  out[0] = static_cast<uint32_t>(first);
  // Gaps are unsigned, so ids only grow: one range check at the end covers
  // the whole list (the sum is kept in 64 bits so it cannot wrap).
  uint64_t value = static_cast<uint64_t>(first);
  for (uint32_t i = 1; i < count; ++i) {
    cursor = get_varint64(cursor, end, &raw);
    if (cursor == nullptr) return Status::Corruption("truncated or malformed neighbour varint");
    if (raw >= num_vertices) return Status::Corruption("neighbour gap out of range");
    value += raw;
    out[i] = static_cast<uint32_t>(value);
  }
  if (value >= num_vertices) return Status::Corruption("neighbour id out of range");
  *p = cursor;
  return Status::OK();
}

Status decode_list(const uint8_t** p, const uint8_t* end, uint32_t vertex, uint32_t num_vertices, uint32_t max_count,
                   std::vector<uint32_t>* out) {
  uint32_t count = 0;
  const uint8_t* cursor = get_varint32(*p, end, &count);
  if (cursor == nullptr) return Status::Corruption("truncated or malformed list length");
  if (count > max_count) return Status::Corruption("list length exceeds limit");
  // Each neighbour takes at least one byte: a count larger than the bytes
  // left is corrupt, and checking it first keeps the resize bounded.
  if (count > static_cast<uint64_t>(end - cursor)) return Status::Corruption("list longer than its bytes");
  out->resize(count);
  SG_RETURN_IF_ERROR(decode_neighbours(&cursor, end, vertex, num_vertices, count, out->data()));
  *p = cursor;
  return Status::OK();
}

}  // namespace sg
