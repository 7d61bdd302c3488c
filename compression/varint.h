// LEB128 varints (7 data bits per byte, high bit = more bytes follow) and
// zig-zag mapping of signed values. Decoders take a hard end pointer and
// reject truncated, overlong (more bytes than the type needs) and
// non-minimal (a trailing 0x00 continuation) encodings, so every value has
// exactly one encoding and no decoder reads past `end`.
#pragma once

#include <cstdint>

namespace sg {

constexpr int kMaxVarint32Bytes = 5;
constexpr int kMaxVarint64Bytes = 10;

inline uint8_t* put_varint64(uint8_t* dst, uint64_t value) {
  while (value >= 0x80) {
    *dst++ = static_cast<uint8_t>(value | 0x80);
    value >>= 7;
  }
  *dst++ = static_cast<uint8_t>(value);
  return dst;
}

inline int varint_length(uint64_t value) {
  int bytes = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++bytes;
  }
  return bytes;
}

// varint_length of a 32-bit value by compares, without a loop, so a loop
// sizing many values vectorizes (encode_gaps).
inline int varint32_length(uint32_t value) {
  return 1 + (value >= 1u << 7) + (value >= 1u << 14) + (value >= 1u << 21) + (value >= 1u << 28);
}

// Returns the byte after the varint, or nullptr when the bytes in [p, end)
// do not hold a valid varint whose value fits in `max_bits` bits.
const uint8_t* get_varint_slow(const uint8_t* p, const uint8_t* end, int max_bits, uint64_t* value);

// Both decoders' multi-byte fast path: up to four bytes (values < 2^28)
// with no per-byte end check, for a caller that knows five bytes are
// there. True when the varint ends within them: *next is then the byte
// after it, or nullptr for a last byte of zero (non-minimal: refused).
inline bool get_short_varint(const uint8_t* p, uint32_t* value, const uint8_t** next) {
  uint32_t result = p[0] & 0x7f;
  for (int i = 1; i < 4; ++i) {
    const uint32_t byte = p[i];
    result |= (byte & 0x7f) << (7 * i);
    if (byte < 0x80) {
      *value = result;
      *next = byte == 0 ? nullptr : p + i + 1;
      return true;
    }
  }
  return false;
}

inline const uint8_t* get_varint64(const uint8_t* p, const uint8_t* end, uint64_t* value) {
  if (p < end && *p < 0x80) {  // one-byte fast path: the common small gap
    *value = *p;
    return p + 1;
  }
  uint32_t short_value = 0;
  const uint8_t* next = nullptr;
  if (end - p >= 5 && get_short_varint(p, &short_value, &next)) {
    if (next != nullptr) *value = short_value;  // a refused varint leaves *value alone
    return next;
  }
  return get_varint_slow(p, end, 64, value);
}

inline const uint8_t* get_varint32(const uint8_t* p, const uint8_t* end, uint32_t* value) {
  if (p < end && *p < 0x80) {
    *value = *p;
    return p + 1;
  }
  const uint8_t* next = nullptr;
  if (end - p >= 5 && get_short_varint(p, value, &next)) return next;
  uint64_t wide = 0;
  next = get_varint_slow(p, end, 32, &wide);
  *value = static_cast<uint32_t>(wide);
  return next;
}

inline uint64_t zigzag_encode(int64_t value) {
  return (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
}

inline int64_t zigzag_decode(uint64_t value) {
  return static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1);
}

}  // namespace sg
