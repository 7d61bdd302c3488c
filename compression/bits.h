// Bit counting without the POPCNT instruction: on baseline x86-64 (what
// Debian builds for) std::popcount becomes a library call that counts a
// table byte by byte; these forms are a few arithmetic instructions.
#pragma once

#include <cstdint>

namespace sg {

// Bits set in x (SWAR).
inline uint32_t count_bits(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return static_cast<uint32_t>((x * 0x0101010101010101ULL) >> 56);
}

// Bytes of x whose high bit is clear: the varints ending in these 8 bytes.
inline uint32_t count_varint_ends(uint64_t x) {
  return static_cast<uint32_t>((((~x & 0x8080808080808080ULL) >> 7) * 0x0101010101010101ULL) >> 56);
}

}  // namespace sg
