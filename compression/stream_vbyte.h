// StreamVByte (Lemire, Kurz and Rupp, "Stream VByte: Faster byte-oriented
// integer compression", 2018): 32-bit values in groups of four, one control
// byte a group (2 bits a value: its byte length) and the values' bytes in a
// separate data stream, so a decoder moves a whole group with one byte
// shuffle. Two length sets, as libstreamvbyte codes them:
//   kLengths1234: a value takes 1, 2, 3 or 4 bytes;
//   kLengths0124: 0, 1, 2 or 4 bytes (a zero takes none: for gaps minus one,
//                 where runs of consecutive ids are zeros).
// The last group's unused codes are zero and have no data bytes.
//
// Both directions are ours: Debian builds libstreamvbyte for baseline
// x86-64, where its coders are the scalar ones (its encoder took 13 % of
// an R-MAT 22 ingest's CPU, this one's SSE4.1 groups about a fifth of
// that), and its decoder cannot be given an end pointer. The encoder's
// bytes are libstreamvbyte's (svb_encode_reference, which the tests
// compare it with). Here the data bytes are counted
// from the control bytes first (data_bytes), so a reader checks the stream
// against its hard end before any value is decoded; the group loop then
// uses SSSE3 byte shuffles where the CPU has them (checked once at run time)
// and never loads past `data_end`.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sg {

enum class SvbLengths : uint8_t { k1234 = 0, k0124 = 1 };

// Control bytes of `count` values.
constexpr size_t svb_control_bytes(uint64_t count) { return static_cast<size_t>((count + 3) / 4); }

// The most bytes `count` values take.
constexpr size_t svb_max_bytes(uint64_t count) { return svb_control_bytes(count) + 4 * static_cast<size_t>(count); }

// Bytes value takes in the data stream; compares summed, without
// branches, so a loop sizing many values vectorizes (encode_gaps).
inline uint32_t svb_value_bytes(SvbLengths lengths, uint32_t value) {
  if (lengths == SvbLengths::k1234) return 1u + (value >= 1u << 8) + (value >= 1u << 16) + (value >= 1u << 24);
  return (value != 0) + (value >= 1u << 8) + 2u * (value >= 1u << 16);
}

// Writes values[0..count) at `out` (room for svb_control_bytes(count) +
// 4 * count bytes): control bytes, then data. Returns the bytes written.
size_t svb_encode(SvbLengths lengths, const uint32_t* values, uint32_t count, uint8_t* out);
// The same bytes from libstreamvbyte's encoder.
size_t svb_encode_reference(SvbLengths lengths, const uint32_t* values, uint32_t count, uint8_t* out);

// The data bytes that `count` values take, read from their control bytes
// (svb_control_bytes(count) of them at `control`).
uint64_t svb_data_bytes(SvbLengths lengths, const uint8_t* control, uint64_t count);

// Decodes `count` values, whose control bytes start at `control` and data
// at `data`, into out[0..count). The
// caller has checked with svb_data_bytes that the data lie before
// `data_end`; loads stay below it. Returns the end of the data read.
const uint8_t* svb_decode(SvbLengths lengths, const uint8_t* control, const uint8_t* data, const uint8_t* data_end,
                          uint32_t count, uint32_t* out);

}  // namespace sg
