// Values coded by bucket and raw bits, the buckets entropy coded with
// context (docs/formats.md). A value x is split as Elias-gamma splits it:
// its bucket, the bit length of x (0 for 0), and the bucket - 1 bits below
// its leading one. The buckets form one byte stream coded by htscodecs'
// order-1 rANS (the CRAM codec), which codes each byte given the one
// before: in a graph's lists a gap after a small gap is likely small, and
// a list's first neighbour depends on its length. The raw bits are what no
// such model predicts, so they are stored as they are. Kinds of value are
// kept apart by the byte: a kind's buckets are its base plus the bucket.
//
// Stream: varint(symbols), varint(coded bytes), the rANS frame (absent
// when there are no symbols), then the raw bits to the end, least
// significant first, the last byte padded with zero bits.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "base/status.h"

namespace sg {

// The largest bucket a value may take (values below 2^40).
inline constexpr int kMaxEntropyBucket = 40;
// A kind's base leaves room for every bucket: at most 256 / 64 kinds.
inline constexpr int kEntropyKindSpan = 64;

class EntropyWriter {
 public:
  void clear();
  // Appends `value` (below 2^40) of the kind whose buckets start at `base`
  // (a multiple of kEntropyKindSpan).
  void put(uint8_t base, uint64_t value);
  // put(base, values[i]) for each of values[0, count), in one growth of
  // each buffer (a list's gaps: a call and two checked appends a value
  // took an eighth of a relabelling sort's samples).
  void put_many(uint8_t base, const uint32_t* values, uint32_t count);
  // Appends the stream to `out`; false if the coder failed (out of memory).
  bool finish(std::vector<uint8_t>* out);

 private:
  void append_bits(uint64_t low, int bits);

  std::vector<uint8_t> symbols_;
  std::vector<uint8_t> raw_;
  uint64_t bit_buffer_ = 0;
  int bit_count_ = 0;
};

// Reads a stream written by EntropyWriter, every read checked against the
// hard end. The decoded buckets live in a buffer of the calling thread,
// valid until its next open().
class EntropyReader {
 public:
  // The stream in [p, end): decodes its buckets.
  Status open(const uint8_t* p, const uint8_t* end);
  // The next value, which must be of the kind at `base`.
  Status get(uint8_t base, uint64_t* value) {
    if (symbol_ == symbol_end_) return Status::Corruption("entropy stream: no values left");
    const int bucket = *symbol_++ - base;
    if (bucket < 0 || bucket > kMaxEntropyBucket) return Status::Corruption("entropy stream: value of another kind");
    if (!take(bucket, value)) return Status::Corruption("entropy stream: raw bits run past the chunk");
    return Status::OK();
  }
  // The next `count` values of the kind at `base`, each below 2^32, added
  // in turn to *sum and stored: gaps into ids. False on a malformed value.
  bool sum(uint8_t base, uint32_t count, uint64_t* sum, uint32_t* out) {
    if (count > values_left()) return false;
    // While every load the values could make stays inside the stream, a
    // loop without bounds checks (most lists of a chunk).
    const bool inside = (bit_at_ + 31 * uint64_t{count}) / 8 + 8 <= raw_bytes_;
    const uint64_t at = inside ? sum_values<true>(base, count, sum, out) : sum_values<false>(base, count, sum, out);
    if (at > raw_bits_) return false;
    symbol_ += count;
    bit_at_ = at;
    return true;
  }
  // Up to `max` next values of any kind into out, stopping before a value
  // of a bucket over 32 (get() takes it): `*taken` values, whose symbols
  // are next_symbol()[0, *taken) as it was before the call. The caller
  // checks their kinds. False if their raw bits run past the stream.
  bool take_narrow(uint32_t max, uint32_t* out, uint32_t* taken);
  const uint8_t* next_symbol() const { return symbol_; }
  uint64_t values_left() const { return static_cast<uint64_t>(symbol_end_ - symbol_); }
  // Every value and raw bit read, and the padding zero.
  Status finish() const;

 private:
  // The value of a bucket: its leading one and the raw bits below it.
  bool take(int bucket, uint64_t* value) {
    if (bucket <= 1) {
      *value = static_cast<uint64_t>(bucket);
      return true;
    }
    const int bits = bucket - 1;  // up to 39 of the 57 loaded
    if (bit_at_ + static_cast<uint64_t>(bits) > raw_bits_) return false;
    *value = uint64_t{1} << bits | (bits_at(bit_at_) & ((uint64_t{1} << bits) - 1));
    bit_at_ += static_cast<uint64_t>(bits);
    return true;
  }
  // sum()'s loop: returns the bit after the last value, or past the end
  // on a malformed bucket. Each value's bits are loaded from where they
  // start, so the only chain from one value to the next is two adds; a
  // bucket's raw bit count and leading one come from tables. The members
  // are read into locals: the stores to `out` could alias them.
  template <bool kInside>
  uint64_t sum_values(uint8_t base, uint32_t count, uint64_t* sum, uint32_t* out) const {
    const uint8_t* symbols = symbol_;
    const uint8_t* raw = raw_;
    uint64_t at = bit_at_;
    uint64_t running = *sum;
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t bucket = static_cast<uint32_t>(symbols[i] - base);
      if (bucket > 32) return raw_bits_ + 1;
      running += value_at<kInside>(raw, bucket, at);
      at += kRawBits[bucket];
      out[i] = static_cast<uint32_t>(running);
    }
    *sum = running;
    return at;
  }
  // take_narrow()'s scalar loop over symbols[0, count), the first value's
  // bits at bit `at`: returns the bit after the last value taken.
  template <bool kInside>
  uint64_t narrow_values(const uint8_t* symbols, uint64_t at, uint32_t count, uint32_t* out, uint32_t* taken) const {
    const uint8_t* raw = raw_;
    uint32_t i = 0;
    for (; i < count; ++i) {
      const uint32_t bucket = symbols[i] & (kEntropyKindSpan - 1);
      if (bucket > 32) break;
      out[i] = static_cast<uint32_t>(value_at<kInside>(raw, bucket, at));
      at += kRawBits[bucket];
    }
    *taken = i;
    return at;
  }
  // The value of a bucket of at most 32 whose raw bits start at bit `at`
  // of `raw` (raw_, passed as a local): one 8-byte load there while
  // kInside, else bits_at().
  template <bool kInside>
  uint64_t value_at(const uint8_t* raw, uint32_t bucket, uint64_t at) const {
    uint64_t word;
    if constexpr (kInside) {
      std::memcpy(&word, raw + (at >> 3), 8);
      word >>= at & 7;
    } else {
      word = bits_at(at);
    }
    return kLeadingOne[bucket] | (word & ((uint64_t{1} << kRawBits[bucket]) - 1));
  }
  // At least 57 raw bits from bit `at` on, zeros past the end: one load
  // while 8 bytes remain from the byte holding `at`.
  uint64_t bits_at(uint64_t at) const {
    const uint64_t byte = at >> 3;
    uint64_t word = 0;
    if (byte + 8 <= raw_bytes_) {
      std::memcpy(&word, raw_ + byte, 8);
    } else if (byte < raw_bytes_) {
      std::memcpy(&word, raw_ + byte, raw_bytes_ - byte);  // little-endian, as the writer's bytes
    }
    return word >> (at & 7);
  }

  // Per bucket up to 32: the raw bits below the leading one, and the one.
  static constexpr auto kRawBits = [] {
    std::array<uint8_t, 33> bits{};
    for (int b = 2; b <= 32; ++b) bits[b] = static_cast<uint8_t>(b - 1);
    return bits;
  }();
  static constexpr auto kLeadingOne = [] {
    std::array<uint64_t, 33> one{};
    for (int b = 1; b <= 32; ++b) one[b] = uint64_t{1} << (b - 1);
    return one;
  }();

  const uint8_t* symbol_ = nullptr;
  const uint8_t* symbol_end_ = nullptr;
  const uint8_t* raw_ = nullptr;
  uint64_t raw_bytes_ = 0;
  uint64_t raw_bits_ = 0;
  uint64_t bit_at_ = 0;  // raw bits read
};

}  // namespace sg
