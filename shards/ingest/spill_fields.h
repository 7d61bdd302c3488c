// How the bucket router's spill holds its records, shared by its writing
// (bucket_router.cc) and its reading back (bucket_router_read.cc): the
// packed layout's fields, and the Rice-coded key gap of a coded block.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#include "compression/bit_stream.h"
#include "shards/ingest/arc_record.h"
#include "shards/ingest/spill_segment.h"

namespace sg::spill_fields {

// Bytes a record takes in the spill besides its packed value (the weight).
template <typename Record>
constexpr size_t kExtraBytes = sizeof(Record) - sizeof(uint64_t);

inline float weight_of(const PlainArc&) { return 0; }
inline float weight_of(const WeightedArc& r) { return r.weight; }
inline PlainArc record_of(uint64_t arc, float, const PlainArc*) { return PlainArc{arc}; }
inline WeightedArc record_of(uint64_t arc, float weight, const WeightedArc*) { return WeightedArc{arc, weight}; }

// A packed segment's record layout: its value in value_bytes (the key
// offset above the neighbour bits when those are fewer than 32), then the
// weight.
struct PackedFields {
  explicit PackedFields(const SpillSegment& segment)
      : base(segment.base),
        value_bytes(segment.value_bytes),
        neighbour_bits(segment.neighbour_bits),
        compact(segment.neighbour_bits < 32),
        neighbour_mask((uint64_t{1} << segment.neighbour_bits) - 1),
        value_mask(segment.value_bytes == 8 ? UINT64_MAX : (uint64_t{1} << (8 * segment.value_bytes)) - 1) {}
  // Loads eight bytes at `src`.
  template <typename Record>
  Record unpack(const uint8_t* src) const {
    uint64_t value = 0;
    std::memcpy(&value, src, sizeof(value));
    value &= value_mask;
    float weight = 0;
    if constexpr (kExtraBytes < Record >> 0) std::memcpy(&weight, src + value_bytes, sizeof(weight));
    const uint64_t offset = compact ? (value >> neighbour_bits) << 32 | (value & neighbour_mask) : value;
    return record_of(base + offset, weight, static_cast<const Record*>(nullptr));
  }
  uint64_t base;
  size_t value_bytes;
  int neighbour_bits;
  bool compact;
  uint64_t neighbour_mask, value_mask;
};

// A record after a block's first: its key gap (Rice code: quotient in
// unary, then rice_bits) and its neighbour, in one put when they fit (the
// common case: a short quotient), else field by field.
[[gnu::always_inline]] inline void put_gap_and_neighbour(uint64_t gap, int rice_bits, uint64_t neighbour,
                                                         int neighbour_bits, LsbBitWriter* bits) {
  const uint64_t q = gap >> rice_bits;
  const uint64_t rest = gap & ((uint64_t{1} << rice_bits) - 1);
  if (q + 1 + rice_bits + neighbour_bits <= LsbBitWriter::kMaxPutBits) {
    const int q_bits = static_cast<int>(q) + 1;
    bits->put((neighbour << rice_bits | rest) << q_bits | uint64_t{1} << q, q_bits + rice_bits + neighbour_bits);
    return;
  }
  bits->put_unary(q);
  bits->put(rest, rice_bits);
  bits->put(neighbour, neighbour_bits);
}

// Its reverse: the gap, and the neighbour in *neighbour; the fields are
// taken from one refill when they lie in it.
[[gnu::always_inline]] inline uint64_t get_gap_and_neighbour(int rice_bits, uint64_t quotient_limit, int neighbour_bits,
                                                             uint64_t* neighbour, LsbBitReader* bits) {
  const uint64_t window = bits->window();
  const int q = std::countr_zero(window);
  const int fields_bits = q + 1 + rice_bits + neighbour_bits;
  if (fields_bits <= bits->window_bits() && static_cast<uint64_t>(q) <= quotient_limit) {
    const uint64_t after_q = window >> (q + 1);
    *neighbour = (after_q >> rice_bits) & ((uint64_t{1} << neighbour_bits) - 1);
    bits->consume(fields_bits);
    return static_cast<uint64_t>(q) << rice_bits | (after_q & ((uint64_t{1} << rice_bits) - 1));
  }
  const uint64_t q_long = bits->get_unary(quotient_limit);
  const uint64_t gap = q_long << rice_bits | bits->get(rice_bits);
  *neighbour = bits->get(neighbour_bits);
  return gap;
}

}  // namespace sg::spill_fields
