#include "compression/instantaneous_codes.h"

#include <bit>
#include <cstring>

namespace sg {
namespace {

// The 64 bits starting at byte `byte` (zeros past `size_bytes`), big-endian.
uint64_t load_window(const uint8_t* data, uint64_t size_bytes, uint64_t byte) {
  uint64_t word = 0;
  if (byte + 8 <= size_bytes) {
    std::memcpy(&word, data + byte, 8);
    return __builtin_bswap64(word);  // std::byteswap is C++23
  }
  for (uint64_t i = 0; i < 8; ++i) word = (word << 8) | (byte + i < size_bytes ? data[byte + i] : 0);
  return word;
}

}  // namespace

uint64_t BitReader::read_bits(unsigned count) {
  if (count == 0) return 0;
  if (count > 64 || position_ + count > end_bits_) return fail_zero();
  uint64_t value = 0;
  while (count > 0) {
    const unsigned skip = static_cast<unsigned>(position_ & 7);
    const unsigned take = count < 56 ? count : 56;  // fits the window after `skip`
    const uint64_t window = load_window(data_, end_bits_ / 8, position_ >> 3) << skip;
    value = (value << take) | (window >> (64 - take));
    position_ += take;
    count -= take;
  }
  return value;
}

uint64_t BitReader::read_unary() {
  uint64_t zeros = 0;
  for (;;) {
    if (position_ >= end_bits_) return fail_zero();
    const unsigned skip = static_cast<unsigned>(position_ & 7);
    const uint64_t window = load_window(data_, end_bits_ / 8, position_ >> 3) << skip;
    const unsigned available = 64 - skip;
    const unsigned leading = static_cast<unsigned>(std::countl_zero(window));
    if (leading < available && position_ + leading < end_bits_) {
      position_ += leading + 1;
      return zeros + leading;
    }
    zeros += available;
    position_ += available;
  }
}

// Fast paths: a code that fits the 57 bits one window load always holds is
// decoded from that window alone (most codes in a graph are short).
uint64_t BitReader::read_gamma() {
  if (position_ + 64 <= end_bits_) {
    const uint64_t window = load_window(data_, end_bits_ / 8, position_ >> 3) << (position_ & 7);
    const unsigned zeros = static_cast<unsigned>(std::countl_zero(window));
    if (2 * zeros + 1 <= 57) {
      position_ += 2 * zeros + 1;
      return (window >> (63 - 2 * zeros)) - 1;
    }
  }
  const uint64_t msb = read_unary();
  if (msb > 63) return fail_zero();
  return ((uint64_t{1} << msb) | read_bits(static_cast<unsigned>(msb))) - 1;
}

uint64_t BitReader::read_delta() {
  const uint64_t msb = read_gamma();
  if (msb > 63) return fail_zero();
  return ((uint64_t{1} << msb) | read_bits(static_cast<unsigned>(msb))) - 1;
}

uint64_t BitReader::read_zeta(unsigned k) {
  if (k > 0 && position_ + 64 <= end_bits_) {
    const uint64_t window = load_window(data_, end_bits_ / 8, position_ >> 3) << (position_ & 7);
    const unsigned h = static_cast<unsigned>(std::countl_zero(window));
    const unsigned low_bits = h * k + k - 1;  // the short form's bits
    if (h + 1 + low_bits + 1 <= 57) {
      const uint64_t left = uint64_t{1} << (h * k);
      const uint64_t rest = window << (h + 1);
      const uint64_t m = low_bits == 0 ? 0 : rest >> (64 - low_bits);
      if (m < left) {
        position_ += h + 1 + low_bits;
        return m + left - 1;
      }
      position_ += h + 1 + low_bits + 1;
      return ((m << 1) | ((rest << low_bits) >> 63)) - 1;
    }
  }
  const uint64_t h = read_unary();
  if (k == 0 || (h + 1) * k > 64) return fail_zero();
  const uint64_t left = uint64_t{1} << (h * k);
  const uint64_t m = read_bits(static_cast<unsigned>(h * k + k - 1));
  if (m < left) return m + left - 1;
  return ((m << 1) | static_cast<uint64_t>(read_bit())) - 1;
}

uint64_t BitReader::read_nibble() {
  uint64_t value = 0;
  for (unsigned groups = 0; groups < 22; ++groups) {  // 22 groups of 3 bits cover 64
    const bool last = read_bit();
    value = (value << 3) | read_bits(3);
    if (last || failed_) return value;
  }
  return fail_zero();
}

}  // namespace sg
