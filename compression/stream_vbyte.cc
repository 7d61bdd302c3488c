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

// Per control byte: the byte shuffle that packs four 32-bit lanes into the
// group's data bytes (the decoding shuffle's inverse).
constexpr std::array<std::array<uint8_t, 16>, 256> make_packing(SvbLengths lengths) {
  std::array<std::array<uint8_t, 16>, 256> packing{};
  for (uint32_t control = 0; control < 256; ++control) {
    for (uint8_t& byte : packing[control]) byte = 0x80;
    uint32_t at = 0;
    for (uint32_t lane = 0; lane < 4; ++lane) {
      const uint32_t bytes = code_bytes(lengths, (control >> (2 * lane)) & 3);
      for (uint32_t b = 0; b < bytes; ++b) packing[control][at++] = static_cast<uint8_t>(4 * lane + b);
    }
  }
  return packing;
}

constexpr std::array<std::array<uint8_t, 16>, 256> kPacking1234 = make_packing(SvbLengths::k1234);
constexpr std::array<std::array<uint8_t, 16>, 256> kPacking0124 = make_packing(SvbLengths::k0124);

// A value's 2-bit code: its byte count (1234), or 0, 1, 2 and 3 for 4 (0124).
inline uint32_t value_code(SvbLengths lengths, uint32_t value) {
  if (lengths == SvbLengths::k1234) return (value >= 1u << 8) + (value >= 1u << 16) + (value >= 1u << 24);
  return (value != 0) + (value >= 1u << 8) + (value >= 1u << 16);
}

// Values [first, count) one at a time into their groups' control bytes
// (zeroed here) and the data at *data.
void encode_scalar(SvbLengths lengths, const uint32_t* values, uint32_t first, uint32_t count, uint8_t* control,
                   uint8_t** data) {
  uint8_t* p = *data;
  for (uint32_t i = first; i < count; ++i) {
    if (i % 4 == 0) control[i / 4] = 0;
    const uint32_t code = value_code(lengths, values[i]);
    control[i / 4] = static_cast<uint8_t>(control[i / 4] | code << (2 * (i % 4)));
    const uint32_t bytes = code_bytes(lengths, code);
    for (uint32_t b = 0; b < bytes; ++b) p[b] = static_cast<uint8_t>(values[i] >> (8 * b));
    p += bytes;
  }
  *data = p;
}

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

// Whole groups: each lane's code from three unsigned compares (a lane at or
// above a length's threshold), the four codes gathered into the control
// byte, and the lanes' low bytes packed by one shuffle. Each group stores
// 16 bytes: the data of the groups after it, at most 16 bytes each, lie
// past that, so `data` needs no room beyond 4 bytes a value.
__attribute__((target("sse4.1"))) void encode_groups_sse41(SvbLengths lengths, const uint32_t* values, uint32_t groups,
                                                           uint8_t* control, uint8_t** data) {
  const bool k1234 = lengths == SvbLengths::k1234;
  const __m128i t1 = _mm_set1_epi32(k1234 ? 1 << 8 : 1);
  const __m128i t2 = _mm_set1_epi32(k1234 ? 1 << 16 : 1 << 8);
  const __m128i t3 = _mm_set1_epi32(k1234 ? 1 << 24 : 1 << 16);
  const auto& packing = k1234 ? kPacking1234 : kPacking0124;
  const GroupTables& t = tables(lengths);
  uint8_t* p = *data;
  for (uint32_t g = 0; g < groups; ++g) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(values + 4 * g));
    const __m128i at1 = _mm_cmpeq_epi32(_mm_min_epu32(v, t1), t1);  // -1 where v >= t1
    const __m128i at2 = _mm_cmpeq_epi32(_mm_min_epu32(v, t2), t2);
    const __m128i at3 = _mm_cmpeq_epi32(_mm_min_epu32(v, t3), t3);
    const __m128i codes = _mm_sub_epi32(_mm_sub_epi32(_mm_sub_epi32(_mm_setzero_si128(), at1), at2), at3);
    const __m128i lane_codes = _mm_packus_epi16(_mm_packus_epi32(codes, codes), codes);  // in bytes 0-3
    const uint32_t c = static_cast<uint32_t>(_mm_cvtsi128_si32(lane_codes));
    const uint8_t byte = static_cast<uint8_t>((c & 0x03) | (c >> 6 & 0x0c) | (c >> 12 & 0x30) | (c >> 18 & 0xc0));
    control[g] = byte;
    const __m128i shuffle = _mm_loadu_si128(reinterpret_cast<const __m128i*>(packing[byte].data()));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_shuffle_epi8(v, shuffle));
    p += t.length[byte];
  }
  *data = p;
}

bool cpu_has_sse41() {
  static const bool has = __builtin_cpu_supports("sse4.1");
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
  uint8_t* data = out + svb_control_bytes(count);
  uint32_t done = 0;
#if defined(__x86_64__)
  if (cpu_has_sse41()) {
    encode_groups_sse41(lengths, values, count / 4, out, &data);
    done = count / 4 * 4;
  }
#endif
  encode_scalar(lengths, values, done, count, out, &data);
  return static_cast<size_t>(data - out);
}

size_t svb_encode_reference(SvbLengths lengths, const uint32_t* values, uint32_t count, uint8_t* out) {
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
