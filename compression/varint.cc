#include "compression/varint.h"

namespace sg {

const uint8_t* get_varint_slow(const uint8_t* p, const uint8_t* end, int max_bits, uint64_t* value) {
  const int max_bytes = (max_bits + 6) / 7;
  uint64_t result = 0;
  for (int i = 0; i < max_bytes; ++i) {
    if (p >= end) return nullptr;  // truncated
    const uint64_t byte = *p++;
    const int shift = 7 * i;
    const uint64_t payload = byte & 0x7f;
    // Bits that do not fit in max_bits make the encoding overlong.
    const int room = max_bits - shift;
    if (room < 7 && (payload >> room) != 0) return nullptr;
    result |= payload << shift;
    if ((byte & 0x80) == 0) {
      if (i > 0 && payload == 0) return nullptr;  // non-minimal: trailing zero group
      *value = result;
      return p;
    }
  }
  return nullptr;  // continuation bit set on the last permitted byte
}

}  // namespace sg
