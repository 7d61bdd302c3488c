// Little-endian bit streams: the first value takes the lowest bits of the
// first byte (the host is little-endian: x86-64, AArch64). Ingest's spill
// codes sorted arcs with them (a Rice code of the key gaps, then
// fixed-width fields; bucket_router.cc).
//
// The writer stops at a hard end and reports it (`overflowed()`); the reader
// takes a hard end too and, past it, reads zeros and sets a sticky failure
// flag, so a decoder checks `failed()` once per block instead of per field.
#pragma once

#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace sg {

class LsbBitWriter {
 public:
  LsbBitWriter(uint8_t* out, size_t capacity_bytes) : begin_(out), out_(out), end_(out + capacity_bytes) {}

  // The low `bits` bits of value; bits <= 32 (a coder may join fields of
  // up to 32 bits in all into one put).
  void put(uint64_t value, int bits) {
    assert(bits >= 0 && bits <= kMaxPutBits && (bits == 32 || value >> bits == 0));
    acc_ |= value << fill_;
    fill_ += bits;
    drain();
  }
  // q zeros, then a one.
  void put_unary(uint64_t q) {
    for (; q >= 32; q -= 32) put(0, 32);
    put(uint64_t{1} << q, static_cast<int>(q) + 1);
  }
  // Pads the last byte with zeros.
  void align() {
    if (fill_ % 8 != 0) put(0, 8 - fill_ % 8);
    write_bytes(fill_ / 8);
  }
  static constexpr int kMaxPutBits = 32;
  bool overflowed() const { return overflowed_; }
  // Whole bytes written so far (a partial last byte is not counted).
  size_t bytes() const { return static_cast<size_t>(out_ - begin_) + static_cast<size_t>(fill_ / 8); }

 private:
  // Four bytes at a time once 32 bits are held (then a put of up to 32
  // bits still fits the accumulator); align() writes the rest. Measured:
  // a store after every put, so that puts of 56 bits fit, coded the spill
  // 18 % slower.
  void drain() {
    if (fill_ >= 32) write_bytes(4);
  }
  void write_bytes(int whole) {
    if (end_ - out_ < whole) {
      overflowed_ = true;
      fill_ = 0;
      acc_ = 0;
      return;
    }
    for (int i = 0; i < whole; ++i) out_[i] = static_cast<uint8_t>(acc_ >> (8 * i));
    out_ += whole;
    acc_ = whole == 8 ? 0 : acc_ >> (8 * whole);
    fill_ -= 8 * whole;
  }

  uint8_t* begin_;
  uint8_t* out_;
  uint8_t* end_;
  uint64_t acc_ = 0;
  int fill_ = 0;
  bool overflowed_ = false;
};

class LsbBitReader {
 public:
  LsbBitReader(const uint8_t* data, size_t size_bytes) : in_(data), end_(data + size_bytes) {}

  // `bits` bits; bits <= 32.
  uint64_t get(int bits) {
    assert(bits >= 0 && bits <= 32);
    refill();
    if (fill_ < bits) return fail();
    const uint64_t value = acc_ & ((uint64_t{1} << bits) - 1);
    acc_ >>= bits;
    fill_ -= bits;
    return value;
  }
  // The count of zeros before the next one; at most `limit` (more is a
  // failure: a corrupt stream cannot make a caller loop long).
  uint64_t get_unary(uint64_t limit) {
    uint64_t q = 0;
    for (;;) {
      refill();
      // Only the bits counted in fill_ (a refill may hold more).
      const uint64_t held = fill_ >= 64 ? acc_ : acc_ & ((uint64_t{1} << fill_) - 1);
      if (held != 0) {
        const int zeros = std::countr_zero(held);
        q += static_cast<uint64_t>(zeros);
        acc_ >>= zeros + 1;
        fill_ -= zeros + 1;
        return q > limit ? fail() : q;
      }
      q += static_cast<uint64_t>(fill_);
      acc_ = 0;
      fill_ = 0;
      if (q > limit || in_ == end_) return fail();
    }
  }
  // For decoders that take several fields from one refill: the bits held
  // (the first window_bits() of them are the stream's next bits; at least
  // 56 while 8 bytes are left), and consume() drops the first `bits`.
  uint64_t window() {
    refill();
    return acc_;
  }
  int window_bits() const { return fill_; }
  void consume(int bits) {
    assert(bits >= 0 && bits <= fill_ && bits < 64);
    acc_ >>= bits;
    fill_ -= bits;
  }
  bool failed() const { return failed_; }
  // The first byte not loaded yet: a decoder writing over its own input
  // may write up to here.
  const uint8_t* loaded_end() const { return in_; }

 private:
  // Eight bytes in one load while that many are left (a little-endian
  // host); byte by byte near the end.
  void refill() {
    if (fill_ > 56) return;
    if (end_ - in_ >= 8) {
      uint64_t word;
      std::memcpy(&word, in_, sizeof(word));
      acc_ |= word << fill_;
      in_ += (63 - fill_) >> 3;
      fill_ |= 56;
      return;
    }
    // Below 56 only, so fill_ stays under 64: a window of 64 bits would let
    // consume() shift by 64.
    while (fill_ < 56 && in_ != end_) {
      acc_ |= uint64_t{*in_++} << fill_;
      fill_ += 8;
    }
  }
  uint64_t fail() {
    failed_ = true;
    return 0;
  }

  const uint8_t* in_;
  const uint8_t* end_;
  uint64_t acc_ = 0;
  int fill_ = 0;
  bool failed_ = false;
};

}  // namespace sg
