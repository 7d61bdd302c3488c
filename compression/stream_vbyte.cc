#include "compression/stream_vbyte.h"

#include <streamvbyte.h>

#include <array>
#include <cassert>
#include <cstring>

#include "compression/bits.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace sg {
namespace {

constexpr uint32_t code_bytes(SvbLengths lengths, uint32_t code) {
  if (lengths == SvbLengths::k1234) return code + 1;
  return code == 3 ? 4 : code;
}

// Per control byte: the group's data bytes, and the byte shuffle that
// spreads them over four 32-bit lanes (0x80: a zero byte).
struct GroupTables {
  std::array<uint8_t, 256> length{};
  std::array<std::array<uint8_t, 16>, 256> shuffle{};
};

constexpr GroupTables make_tables(SvbLengths lengths) {
  GroupTables t;
  for (uint32_t control = 0; control < 256; ++control) {
    uint32_t at = 0;
    for (uint32_t lane = 0; lane < 4; ++lane) {
      const uint32_t bytes = code_bytes(lengths, (control >> (2 * lane)) & 3);
      for (uint32_t b = 0; b < 4; ++b)
        t.shuffle[control][4 * lane + b] = b < bytes ? static_cast<uint8_t>(at + b) : 0x80;
      at += bytes;
    }
    t.length[control] = static_cast<uint8_t>(at);
  }
  return t;
}

constexpr GroupTables kTables1234 = make_tables(SvbLengths::k1234);
constexpr GroupTables kTables0124 = make_tables(SvbLengths::k0124);

const GroupTables& tables(SvbLengths lengths) { return lengths == SvbLengths::k1234 ? kTables1234 : kTables0124; }

// One value of `bytes` little-endian bytes.
inline uint32_t load_value(const uint8_t* data, uint32_t bytes) {
  uint32_t value = 0;
  for (uint32_t b = 0; b < bytes; ++b) value |= uint32_t{data[b]} << (8 * b);
  return value;
}

// Groups one value at a time: the tail, and CPUs without byte shuffles.
const uint8_t* decode_scalar(SvbLengths lengths, const uint8_t* control, const uint8_t* data, uint32_t first,
                             uint32_t count, uint32_t* out) {
  for (uint32_t i = first; i < count; ++i) {
    const uint32_t bytes = code_bytes(lengths, (control[i / 4] >> (2 * (i % 4))) & 3);
    out[i] = load_value(data, bytes);
    data += bytes;
  }
  return data;
}

#if defined(__x86_64__)
// Whole groups while 16 bytes can be loaded below data_end; returns the
// groups done.
__attribute__((target("ssse3"))) uint32_t decode_groups_ssse3(const GroupTables& t, const uint8_t* control,
                                                              const uint8_t** data, const uint8_t* data_end,
                                                              uint32_t groups, uint32_t* out) {
  const uint8_t* p = *data;
  uint32_t g = 0;
  for (; g < groups && data_end - p >= 16; ++g) {
    const uint8_t c = control[g];
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i shuffle = _mm_loadu_si128(reinterpret_cast<const __m128i*>(t.shuffle[c].data()));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 4 * g), _mm_shuffle_epi8(bytes, shuffle));
    p += t.length[c];
  }
  *data = p;
  return g;
}

bool cpu_has_ssse3() {
  static const bool has = __builtin_cpu_supports("ssse3");
  return has;
}
#endif

// Data bytes of eight groups from their control bytes, summed as 2-bit
// codes: 1234 takes code + 1 bytes a value, 0124 code bytes but 4 for 3.
inline uint64_t word_data_bytes(SvbLengths lengths, uint64_t word) {
  constexpr uint64_t kPairs = 0x3333333333333333ULL, kBytes = 0x0f0f0f0f0f0f0f0fULL, kOnes = 0x0101010101010101ULL;
  const uint64_t nibbles = (word & kPairs) + ((word >> 2) & kPairs);
  const uint64_t bytes = (nibbles & kBytes) + ((nibbles >> 4) & kBytes);
  const uint64_t codes = (bytes * kOnes) >> 56;
  if (lengths == SvbLengths::k1234) return codes + 32;
  return codes + count_bits(word & (word >> 1) & 0x5555555555555555ULL);  // a code 3 is one byte more
}

}  // namespace

size_t svb_encode(SvbLengths lengths, const uint32_t* values, uint32_t count, uint8_t* out) {
  if (count == 0) return 0;
  return lengths == SvbLengths::k1234 ? streamvbyte_encode(values, count, out)
                                      : streamvbyte_encode_0124(values, count, out);
}

uint64_t svb_data_bytes(SvbLengths lengths, const uint8_t* control, uint64_t count) {
  const GroupTables& t = tables(lengths);
  uint64_t bytes = 0;
  const uint64_t groups = count / 4;
  uint64_t g = 0;
  for (; g + 8 <= groups; g += 8) {
    uint64_t word;
    std::memcpy(&word, control + g, 8);
    bytes += word_data_bytes(lengths, word);
  }
  for (; g < groups; ++g) bytes += t.length[control[g]];
  for (uint64_t i = groups * 4; i < count; ++i) bytes += code_bytes(lengths, (control[groups] >> (2 * (i % 4))) & 3);
  return bytes;
}

const uint8_t* svb_decode(SvbLengths lengths, const uint8_t* control, const uint8_t* data, const uint8_t* data_end,
                          uint32_t count, uint32_t* out) {
  uint32_t done = 0;
#if defined(__x86_64__)
  if (cpu_has_ssse3()) done = 4 * decode_groups_ssse3(tables(lengths), control, &data, data_end, count / 4, out);
#else
  (void)data_end;
#endif
  return decode_scalar(lengths, control, data, done, count, out);
}

}  // namespace sg
