#include "shards/ingest/input_source.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

#include "base/fault_injection.h"

namespace sg {

std::string strip_compression(const std::string& path) {
  if (path.ends_with(".gz")) return path.substr(0, path.size() - 3);
  if (path.ends_with(".zst")) return path.substr(0, path.size() - 4);
  return path;
}

std::string id_limit_text(const RawEdge& edge, uint64_t base) {
  return "vertex id " + std::to_string(std::max(edge.src, edge.dst)) + " with base " + std::to_string(base) +
         " does not fit 32-bit dense ids; ingest with --remap";
}

ByteSource::~ByteSource() {
  if (file_ != nullptr) gzclose(file_);
  if (zstd_ != nullptr) ZSTD_freeDCtx(zstd_);
  if (raw_ != nullptr) std::fclose(raw_);
}

Status ByteSource::open(const std::string& path) {
  path_ = path;
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    return Status::NoInput(path + ": is a directory, not an edge list (nor a graph: it has no manifest.json)");
  }
  if (::stat(path.c_str(), &info) == 0) total_bytes_ = static_cast<uint64_t>(info.st_size);
  if (path.ends_with(".zst")) return open_zstd();
  file_ = gzopen(path.c_str(), "rb");
  // A missing, unreadable or wrong input is the user's to fix: exit 2.
  if (file_ == nullptr) return Status::NoInput(path + ": cannot open input: " + std::strerror(errno));
  gzbuffer(file_, 256 * 1024);
  return Status::OK();
}

uint64_t ByteSource::bytes_read() const {
  if (zstd_ != nullptr) return zstd_consumed_;
  const long offset = gzoffset(file_);
  return offset > 0 ? static_cast<uint64_t>(offset) : 0;
}

Status ByteSource::read(char* dst, size_t bytes, size_t* got) {
  const InjectedFault fault = next_read_fault();
  if (fault.kind == InjectedFault::kError) return Status::IOError(path_ + ": read: " + std::strerror(fault.error));
  // A short read: ask for less (the caller reads on).
  const size_t ask = fault.kind == InjectedFault::kShort && bytes > 1 ? bytes / 2 : bytes;
  if (zstd_ != nullptr) return read_zstd(dst, ask, got);
  const int n = gzread(file_, dst, static_cast<unsigned>(ask));
  int errnum = 0;
  const char* msg = gzerror(file_, &errnum);
  if (n < 0 && errnum == Z_ERRNO) return Status::IOError(path_ + ": read: " + std::strerror(errno));
  // zlib: "unexpected end of file", or a CRC/length mismatch.
  if (n < 0 || (n == 0 && errnum == Z_BUF_ERROR)) {
    std::string why = msg != nullptr ? msg : "";
    if (why.starts_with(path_ + ": ")) why = why.substr(path_.size() + 2);  // zlib names the file too
    return Status::BadInput(path_ + ": truncated or corrupt gzip stream (" + why + ")");
  }
  *got = static_cast<size_t>(n);
  return Status::OK();
}

Status ByteSource::seek(uint64_t offset) {
  if (zstd_ != nullptr || gzdirect(file_) == 0)
    return Status::InvalidArgument(path_ + ": a compressed input cannot be read from an offset");
  if (gzseek(file_, static_cast<z_off_t>(offset), SEEK_SET) != static_cast<z_off_t>(offset))
    return Status::IOError(path_ + ": seek to " + std::to_string(offset) + " failed");
  return Status::OK();
}

Status ByteSource::open_zstd() {
  raw_ = std::fopen(path_.c_str(), "rb");
  if (raw_ == nullptr) return Status::NoInput(path_ + ": cannot open input: " + std::strerror(errno));
  zstd_ = ZSTD_createDCtx();
  if (zstd_ == nullptr) return Status::IOError(path_ + ": cannot allocate a zstd context");
  zstd_input_.resize(ZSTD_DStreamInSize());
  return Status::OK();
}

Status ByteSource::read_zstd(char* dst, size_t bytes, size_t* got) {
  ZSTD_outBuffer out{dst, bytes, 0};
  while (out.pos < out.size) {
    if (zstd_in_.pos == zstd_in_.size) {
      const size_t n = std::fread(zstd_input_.data(), 1, zstd_input_.size(), raw_);
      if (n == 0) {
        if (std::ferror(raw_)) return Status::IOError(path_ + ": read: " + std::strerror(errno));
        if (zstd_pending_ != 0)
          return Status::BadInput(path_ + ": truncated zstd stream (the last frame is incomplete)");
        break;
      }
      zstd_in_ = ZSTD_inBuffer{zstd_input_.data(), n, 0};
    }
    const size_t before = zstd_in_.pos;
    zstd_pending_ = ZSTD_decompressStream(zstd_, &out, &zstd_in_);
    zstd_consumed_ += zstd_in_.pos - before;
    if (ZSTD_isError(zstd_pending_)) {
      return Status::BadInput(path_ + ": corrupt zstd stream (" + ZSTD_getErrorName(zstd_pending_) + ")");
    }
  }
  *got = out.pos;
  return Status::OK();
}

}  // namespace sg
