// Packed chunks (codec 3): a chunk's lists, coded in any codec-3 layout,
// may be stored compressed with Zstandard. Byte-oriented gap codes leave
// much of their bytes' entropy unused, and lists that repeat runs of a
// nearby list (web crawls) repeat byte strings, which zstd's matches take:
// on cnr-2000 and uk-2007-05@100000 packing halves a chunk, on R-MAT 22 it
// saves 12-17%. Decoding costs a zstd pass (about 1 GB/s a core) before
// the lists' own, so ingest packs only for `--codec small` (and `auto` on
// one slow disk), where bytes cost more than cycles.
//
// Layout: the layout byte with kPackedLayoutBit set, then varint(n), then a
// zstd frame of the n bytes that would follow the layout byte unpacked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/status.h"

namespace sg {

inline constexpr uint8_t kPackedLayoutBit = 0x08;
// An unpacked chunk is at most this long: far above any encoder's chunk
// (chunks are cut at their unpacked size), and a bound on what a malformed
// length can make a reader allocate.
inline constexpr uint64_t kMaxUnpackedChunkBytes = uint64_t{64} << 20;

// Replaces out[layout_at + 1, end) (a chunk's lists after its layout byte)
// with their packed form and sets the layout byte's packed bit, when that
// is smaller; returns whether it packed.
bool pack_chunk_lists(std::vector<uint8_t>* out, size_t layout_at);
// What pack_chunk_lists keeps in each thread that calls it, for lists of
// `lists_bytes`: its zstd context and its output buffer.
uint64_t pack_thread_bytes(uint64_t lists_bytes);

// The unpacked bytes of the packed lists in [p, end) (after the layout
// byte), in a buffer of the calling thread that stays valid until its next
// call there. Corruption on a malformed length or frame.
Status unpack_chunk_lists(const uint8_t* p, const uint8_t* end, const uint8_t** unpacked, const uint8_t** unpacked_end);

}  // namespace sg
