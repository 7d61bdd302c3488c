#include "compression/entropy_stream.h"

#include <algorithm>
#include <bit>
#include <cassert>

#include "compression/chunk_packing.h"
#include "compression/simd_x86.h"
#include "compression/varint.h"

extern "C" {
#include <htscodecs/rANS_static4x16.h>
}

namespace sg {
namespace {

// Order 1 (each bucket given the one before); from this many symbols on,
// the 32-way interleaved form, which htscodecs decodes with SIMD where
// the CPU has it (and in plain C elsewhere), at a few hundred bytes more.
constexpr uint32_t kInterleaveFrom = 4096;

// Values take_narrow() decodes at once.
constexpr uint32_t kGroupValues = 8;

#if defined(__x86_64__)
// Whole groups of eight values whose buckets are at most 25, so that each
// value's bits and the bit offset within its first byte fit one 32-bit load
// (a gather); the caller has checked 8-byte loads at every value stay inside
// the stream. Returns the values done and moves *at past their bits.
__attribute__((target("avx2"))) uint32_t narrow_groups_avx2(const uint8_t* symbols, const uint8_t* raw, uint32_t count,
                                                            uint32_t* out, uint64_t* at) {
  const __m256i one = _mm256_set1_epi32(1), zero = _mm256_setzero_si256();
  const __m256i bucket_mask = _mm256_set1_epi32(kEntropyKindSpan - 1), widest = _mm256_set1_epi32(25);
  uint64_t bit = *at;
  uint32_t i = 0;
  for (; i + kGroupValues <= count; i += kGroupValues) {
    const __m128i symbol_bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(symbols + i));
    const __m256i bucket = _mm256_and_si256(_mm256_cvtepu8_epi32(symbol_bytes), bucket_mask);
    if (_mm256_movemask_epi8(_mm256_cmpgt_epi32(bucket, widest)) != 0) break;
    const __m256i bits = _mm256_sub_epi32(_mm256_max_epu32(bucket, one), one);
    const __m256i leading = _mm256_and_si256(_mm256_sllv_epi32(one, bits), _mm256_cmpgt_epi32(bucket, zero));
    const __m256i below = _mm256_sub_epi32(_mm256_sllv_epi32(one, bits), one);
    const __m256i sum = prefix_sum_8x32(bits);  // each value's bits end at its lane's sum
    const __m256i offset = _mm256_add_epi32(_mm256_sub_epi32(sum, bits), _mm256_set1_epi32(static_cast<int>(bit & 7)));
    const __m256i words =
        _mm256_i32gather_epi32(reinterpret_cast<const int*>(raw + (bit >> 3)), _mm256_srli_epi32(offset, 3), 1);
    const __m256i low =
        _mm256_and_si256(_mm256_srlv_epi32(words, _mm256_and_si256(offset, _mm256_set1_epi32(7))), below);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm256_or_si256(low, leading));
    bit += static_cast<uint32_t>(_mm256_extract_epi32(sum, 7));
  }
  *at = bit;
  return i;
}

#endif

uint32_t narrow_groups(const uint8_t* symbols, const uint8_t* raw, uint32_t count, uint32_t* out, uint64_t* at) {
#if defined(__x86_64__)
  if (cpu_has_avx2()) return narrow_groups_avx2(symbols, raw, count, out, at);
#endif
  (void)symbols, (void)raw, (void)count, (void)out, (void)at;
  return 0;
}

void append_varint(uint64_t value, std::vector<uint8_t>* out) {
  uint8_t bytes[kMaxVarint64Bytes];
  out->insert(out->end(), bytes, put_varint64(bytes, value));
}

}  // namespace

void EntropyWriter::clear() {
  symbols_.clear();
  raw_.clear();
  bit_buffer_ = 0;
  bit_count_ = 0;
}

void EntropyWriter::put(uint8_t base, uint64_t value) {
  assert(base % kEntropyKindSpan == 0 && value < (uint64_t{1} << kMaxEntropyBucket));
  const int bucket = value == 0 ? 0 : 64 - __builtin_clzll(value);
  symbols_.push_back(static_cast<uint8_t>(base + bucket));
  if (bucket <= 1) return;
  const int bits = bucket - 1;
  const uint64_t low = value & ((uint64_t{1} << bits) - 1);
  if (bits > 32) {
    append_bits(low & 0xffffffff, 32);
    append_bits(low >> 32, bits - 32);
  } else {
    append_bits(low, bits);
  }
}

void EntropyWriter::put_many(uint8_t base, const uint32_t* values, uint32_t count) {
  assert(base % kEntropyKindSpan == 0 && bit_count_ < 32);
  const size_t symbols_at = symbols_.size(), raw_at = raw_.size();
  symbols_.resize(symbols_at + count);
  raw_.resize(raw_at + 4 * size_t{count} + 4);  // at most 31 bits a value, and a word of room
  uint8_t* symbol = symbols_.data() + symbols_at;
  uint8_t* raw = raw_.data() + raw_at;
  uint64_t buffer = bit_buffer_;
  int held = bit_count_;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t value = values[i];
    const int bucket = static_cast<int>(std::bit_width(value));
    symbol[i] = static_cast<uint8_t>(base + bucket);
    const int bits = std::max(bucket - 1, 0);
    buffer |= (uint64_t{value} & ((uint64_t{1} << bits) - 1)) << held;
    held += bits;
    if (held >= 32) {  // a whole word out, least significant byte first (a little-endian host)
      const uint32_t word = static_cast<uint32_t>(buffer);
      std::memcpy(raw, &word, sizeof(word));
      raw += 4;
      buffer >>= 32;
      held -= 32;
    }
  }
  raw_.resize(static_cast<size_t>(raw - raw_.data()));
  bit_buffer_ = buffer;
  bit_count_ = held;
}

// Fewer than 32 bits are held between calls, so up to 32 more fit the
// 64-bit buffer; whole 32-bit words go out least significant byte first.
void EntropyWriter::append_bits(uint64_t low, int bits) {
  assert(bit_count_ < 32 && bits <= 32);
  bit_buffer_ |= low << bit_count_;
  bit_count_ += bits;
  if (bit_count_ < 32) return;
  const uint8_t word[4] = {static_cast<uint8_t>(bit_buffer_), static_cast<uint8_t>(bit_buffer_ >> 8),
                           static_cast<uint8_t>(bit_buffer_ >> 16), static_cast<uint8_t>(bit_buffer_ >> 24)};
  raw_.insert(raw_.end(), word, word + 4);
  bit_buffer_ >>= 32;
  bit_count_ -= 32;
}

bool EntropyWriter::finish(std::vector<uint8_t>* out) {
  for (; bit_count_ > 0; bit_count_ -= 8) {
    raw_.push_back(static_cast<uint8_t>(bit_buffer_));
    bit_buffer_ >>= 8;
  }
  bit_buffer_ = 0;
  bit_count_ = 0;
  const auto n = static_cast<unsigned int>(symbols_.size());
  append_varint(n, out);
  if (n == 0) {
    append_varint(0, out);
  } else {
    const int order = n >= kInterleaveFrom ? 1 | RANS_ORDER_X32 : 1;
    std::vector<uint8_t> frame(rans_compress_bound_4x16(n, order));
    auto frame_bytes = static_cast<unsigned int>(frame.size());
    if (rans_compress_to_4x16(symbols_.data(), n, frame.data(), &frame_bytes, order) == nullptr) return false;
    append_varint(frame_bytes, out);
    out->insert(out->end(), frame.data(), frame.data() + frame_bytes);
  }
  out->insert(out->end(), raw_.begin(), raw_.end());
  return true;
}

Status EntropyReader::open(const uint8_t* p, const uint8_t* end) {
  thread_local std::vector<uint8_t> buffer;
  *this = EntropyReader{};
  uint64_t symbols = 0, frame_bytes = 0;
  p = get_varint64(p, end, &symbols);
  if (p == nullptr || symbols > kMaxUnpackedChunkBytes) return Status::Corruption("entropy stream: malformed length");
  p = get_varint64(p, end, &frame_bytes);
  if (p == nullptr || frame_bytes > static_cast<uint64_t>(end - p) || (symbols == 0) != (frame_bytes == 0)) {
    return Status::Corruption("entropy stream: malformed frame length");
  }
  if (symbols > 0) {
    if (buffer.size() < symbols) buffer.resize(symbols);
    auto decoded = static_cast<unsigned int>(symbols);
    // The library takes a non-const input it only reads.
    if (rans_uncompress_to_4x16(const_cast<uint8_t*>(p), static_cast<unsigned int>(frame_bytes), buffer.data(),
                                &decoded) == nullptr ||
        decoded != symbols) {
      return Status::Corruption("entropy stream: malformed rANS frame");
    }
  }
  symbol_ = buffer.data();
  symbol_end_ = buffer.data() + symbols;
  raw_ = p + frame_bytes;
  raw_bytes_ = static_cast<uint64_t>(end - raw_);
  raw_bits_ = raw_bytes_ * 8;
  return Status::OK();
}

// While every load the values could make stays inside the stream: groups
// of eight at once where the CPU can, each other group in the scalar loop.
bool EntropyReader::take_narrow(uint32_t max, uint32_t* out, uint32_t* taken) {
  const auto count = static_cast<uint32_t>(std::min<uint64_t>(max, values_left()));
  uint64_t at = bit_at_;
  uint32_t done = 0;
  if ((bit_at_ + 31 * uint64_t{count}) / 8 + 8 > raw_bytes_) {
    at = narrow_values<false>(symbol_, at, count, out, &done);
  } else {
    for (uint32_t group = 0; done < count && group <= count / kGroupValues; ++group) {
      done += narrow_groups(symbol_ + done, raw_, count - done, out + done, &at);
      const uint32_t n = std::min(kGroupValues, count - done);
      uint32_t scalar = 0;
      at = narrow_values<true>(symbol_ + done, at, n, out + done, &scalar);
      done += scalar;
      if (scalar < n) break;  // a value wider than 32 bits
    }
  }
  if (at > raw_bits_) return false;
  symbol_ += done;
  bit_at_ = at;
  *taken = done;
  return true;
}

Status EntropyReader::finish() const {
  if (symbol_ != symbol_end_) return Status::Corruption("entropy stream: values left after the last list");
  const uint64_t unread_bits = raw_bits_ - bit_at_;
  if (unread_bits >= 8 || bits_at(bit_at_) != 0) {
    return Status::Corruption("entropy stream: raw bits left after the last list");
  }
  return Status::OK();
}

}  // namespace sg
