// Where a bucket router's segment lies in its spill file, and how its records
// are held there (bucket_router.h writes and reads them).
#pragma once

#include <cstdint>

namespace sg {

struct SpillSegment {
  static constexpr uint8_t kPacked = 0xFF;  // rice_bits of a segment in the packed form

  uint64_t offset;  // bytes into the spill file
  uint64_t records;
  uint64_t base;           // the bucket's first value when written
  uint8_t value_bytes;     // packed: bytes of each value; coded: bits of a key offset
  uint8_t neighbour_bits;  // < 32: a value is key offset << neighbour_bits | neighbour
  uint8_t rice_bits;       // coded: the Rice parameter of the key gaps; kPacked otherwise
  uint32_t first_block;    // coded: its first block's entry in the router's block ends
  uint64_t bytes = 0;      // in the spill file (a direct segment's up to the next 4 KiB)
};

}  // namespace sg
