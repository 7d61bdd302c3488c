// Fuzz target: LEB128 varint decoding (compression/varint.h). Every value a
// strict decoder accepts must re-encode to exactly the bytes it consumed
// (one encoding per value), and no decoder may read past `end`.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "compression/varint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const uint8_t* end = data + size;
  for (int width : {32, 64}) {
    const uint8_t* p = data;
    while (p < end) {
      uint64_t value = 0;
      const uint8_t* next = nullptr;
      if (width == 32) {
        uint32_t v32 = 0;
        next = sg::get_varint32(p, end, &v32);
        value = v32;
      } else {
        next = sg::get_varint64(p, end, &value);
      }
      if (next == nullptr) break;  // rejected: the decoder's answer for bad bytes
      if (next <= p || next > end) std::abort();
      uint8_t encoded[sg::kMaxVarint64Bytes];
      const uint8_t* encoded_end = sg::put_varint64(encoded, value);
      if (encoded_end - encoded != next - p || std::memcmp(encoded, p, static_cast<size_t>(next - p)) != 0)
        std::abort();
      p = next;
    }
  }
  return 0;
}
