#include "compression/entropy_stream.h"

#include <cassert>

#include "compression/chunk_packing.h"
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
  bit_buffer_ |= (value & ((uint64_t{1} << bits) - 1)) << bit_count_;  // at most 7 + 39 bits held
  bit_count_ += bits;
  while (bit_count_ >= 8) {
    raw_.push_back(static_cast<uint8_t>(bit_buffer_));
    bit_buffer_ >>= 8;
    bit_count_ -= 8;
  }
}

bool EntropyWriter::finish(std::vector<uint8_t>* out) {
  if (bit_count_ > 0) raw_.push_back(static_cast<uint8_t>(bit_buffer_));
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

Status EntropyReader::finish() const {
  if (symbol_ != symbol_end_) return Status::Corruption("entropy stream: values left after the last list");
  const uint64_t unread_bits = raw_bits_ - bit_at_;
  if (unread_bits >= 8 || bits_at(bit_at_) != 0) {
    return Status::Corruption("entropy stream: raw bits left after the last list");
  }
  return Status::OK();
}

}  // namespace sg
