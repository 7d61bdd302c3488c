#include "compression/chunk_packing.h"

#include <zstd.h>

#include <cassert>
#include <string>

#include "compression/varint.h"

namespace sg {
namespace {

// Level 3, zstd's default: on graph chunks levels 1-9 pack within 4% of
// each other, and 3 codes R-MAT 22's 233 MB in under a second a core.
constexpr int kPackLevel = 3;

struct CompressContext {
  ZSTD_CCtx* ctx = ZSTD_createCCtx();
  ~CompressContext() { ZSTD_freeCCtx(ctx); }
};
struct DecompressContext {
  ZSTD_DCtx* ctx = ZSTD_createDCtx();
  ~DecompressContext() { ZSTD_freeDCtx(ctx); }
};

}  // namespace

bool pack_chunk_lists(std::vector<uint8_t>* out, size_t layout_at) {
  assert(layout_at < out->size() && ((*out)[layout_at] & kPackedLayoutBit) == 0);
  thread_local CompressContext compress;
  thread_local std::vector<uint8_t> packed;
  if (compress.ctx == nullptr) return false;  // stored unpacked
  const uint8_t* lists = out->data() + layout_at + 1;
  const size_t lists_bytes = out->size() - layout_at - 1;
  packed.resize(kMaxVarint64Bytes + ZSTD_compressBound(lists_bytes));
  uint8_t* frame = put_varint64(packed.data(), lists_bytes);
  const size_t frame_bytes = ZSTD_compressCCtx(
      compress.ctx, frame, static_cast<size_t>(packed.data() + packed.size() - frame), lists, lists_bytes, kPackLevel);
  if (ZSTD_isError(frame_bytes)) return false;  // out of memory: stored unpacked
  const size_t packed_bytes = static_cast<size_t>(frame - packed.data()) + frame_bytes;
  if (packed_bytes >= lists_bytes) return false;
  (*out)[layout_at] |= kPackedLayoutBit;
  out->resize(layout_at + 1);
  out->insert(out->end(), packed.data(), packed.data() + packed_bytes);
  return true;
}

uint64_t pack_thread_bytes(uint64_t lists_bytes) {
  // ZSTD_estimateCCtxSize at level 3 is 1016 KiB for 256 KiB and 1272 KiB
  // from 512 KiB (zstd 1.5.4); the estimate is not in zstd's stable API.
  constexpr uint64_t kContextBytes = 1300 << 10;
  return kContextBytes + kMaxVarint64Bytes + ZSTD_compressBound(lists_bytes);
}

Status unpack_chunk_lists(const uint8_t* p, const uint8_t* end, const uint8_t** unpacked,
                          const uint8_t** unpacked_end) {
  thread_local DecompressContext decompress;
  thread_local std::vector<uint8_t> buffer;
  uint64_t bytes = 0;
  p = get_varint64(p, end, &bytes);
  if (p == nullptr || bytes > kMaxUnpackedChunkBytes) return Status::Corruption("malformed packed chunk length");
  if (decompress.ctx == nullptr) return Status::IOError("zstd: cannot create a decompression context");
  if (buffer.size() < bytes) buffer.resize(bytes);
  const size_t got = ZSTD_decompressDCtx(decompress.ctx, buffer.data(), bytes, p, static_cast<size_t>(end - p));
  if (ZSTD_isError(got)) return Status::Corruption(std::string("packed chunk: ") + ZSTD_getErrorName(got));
  if (got != bytes) return Status::Corruption("packed chunk unpacks to a different length");
  *unpacked = buffer.data();
  *unpacked_end = buffer.data() + bytes;
  return Status::OK();
}

}  // namespace sg
