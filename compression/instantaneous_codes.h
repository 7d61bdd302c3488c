// Instantaneous codes as WebGraph writes them (Boldi & Vigna, "The WebGraph
// Framework I: Compression Techniques", WWW 2004; codes defined in the
// dsiutils InputBitStream): bits are read most significant first, and every
// code maps the naturals from 0.
//   unary   x zeros, then a one
//   gamma   the bit length of x+1 less one in unary, then x+1 below its top bit
//   delta   the same with the length in gamma
//   zeta_k  h = the k-bit digit count in unary, then a minimal binary code
//   nibble  groups of 3 bits after a stop bit (1 on the last group)
// The reader takes a hard end: a code running past it sets a sticky failure
// flag and reads zeros, so a decoder checks `failed()` once per record
// instead of per bit.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sg {

class BitReader {
 public:
  BitReader() = default;
  BitReader(const uint8_t* data, uint64_t size_bytes) : data_(data), end_bits_(size_bytes * 8) {}

  void seek(uint64_t bit) {
    position_ = bit;
    if (bit > end_bits_) failed_ = true;
  }
  uint64_t position() const { return position_; }
  uint64_t end_bits() const { return end_bits_; }
  bool failed() const { return failed_; }

  bool read_bit() {
    if (position_ >= end_bits_) return fail_zero() != 0;
    const bool bit = (data_[position_ >> 3] >> (7 - (position_ & 7))) & 1;
    ++position_;
    return bit;
  }
  // Up to 64 bits, most significant first.
  uint64_t read_bits(unsigned count);
  uint64_t read_unary();
  uint64_t read_gamma();
  uint64_t read_delta();
  uint64_t read_zeta(unsigned k);
  uint64_t read_nibble();

 private:
  uint64_t fail_zero() {
    failed_ = true;
    position_ = end_bits_;
    return 0;
  }

  const uint8_t* data_ = nullptr;
  uint64_t end_bits_ = 0;
  uint64_t position_ = 0;
  bool failed_ = false;
};

// WebGraph's map of the naturals onto the integers: 0, -1, 1, -2, 2, ...
inline int64_t nat_to_int(uint64_t x) {
  return (x & 1) == 0 ? static_cast<int64_t>(x >> 1) : -static_cast<int64_t>((x + 1) >> 1);
}

}  // namespace sg
