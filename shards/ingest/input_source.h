// What the edge-list readers read through: ByteSource reads a plain, gzip or
// zstd file in large blocks; LineSource splits it into lines without copying.
// A compressed stream cut short or failing its checksum is bad input.
#pragma once

#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "shards/ingest/edge_reader.h"

namespace sg {

// The name without a compression suffix (.gz, .zst).
std::string strip_compression(const std::string& path);

// The error text of an edge whose ids do not fit 32-bit dense ids.
std::string id_limit_text(const RawEdge& edge, uint64_t base);

// Reads a file (gzip, zstd or plain) in large blocks.
class ByteSource {
 public:
  ByteSource() = default;
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;
  ~ByteSource();
  Status open(const std::string& path);
  uint64_t bytes_read() const;
  uint64_t bytes_total() const { return total_bytes_; }
  // Reads up to `bytes`; returns the count (0 at the end).
  Status read(char* dst, size_t bytes, size_t* got);
  const std::string& path() const { return path_; }
  // Moves to `offset` of a plain (not compressed) file.
  Status seek(uint64_t offset);

 private:
  Status open_zstd();
  // Decompresses until `bytes` are out or the input ends; at the end the
  // last frame must be complete (zstd checks its content checksum).
  Status read_zstd(char* dst, size_t bytes, size_t* got);

  std::string path_;
  gzFile file_ = nullptr;
  uint64_t total_bytes_ = 0;
  FILE* raw_ = nullptr;
  ZSTD_DCtx* zstd_ = nullptr;
  std::vector<char> zstd_input_;
  ZSTD_inBuffer zstd_in_{nullptr, 0, 0};
  size_t zstd_pending_ = 0;
  uint64_t zstd_consumed_ = 0;
};

// Splits the input into lines without copying; handles CRLF.
class LineSource {
 public:
  static constexpr size_t kReadBufferBytes = 1 << 20;
  static constexpr size_t kMaxLineBytes = 1 << 16;  // a longer line is malformed input

  Status open(const std::string& path) {
    buffer_.resize(kReadBufferBytes + kMaxLineBytes);
    return source_.open(path);
  }
  // Sets *line (without line end); *more = false at the end of input.
  Status next_line(std::string_view* line, bool* more) {
    for (;;) {
      const char* begin = buffer_.data() + pos_;
      const char* end = buffer_.data() + filled_;
      const char* newline = static_cast<const char*>(std::memchr(begin, '\n', static_cast<size_t>(end - begin)));
      if (newline != nullptr || (eof_ && begin < end)) {
        const char* line_end = newline != nullptr ? newline : end;
        pos_ = static_cast<size_t>(line_end - buffer_.data()) + (newline != nullptr ? 1 : 0);
        if (line_end > begin && line_end[-1] == '\r') --line_end;
        *line = std::string_view(begin, static_cast<size_t>(line_end - begin));
        ++line_number_;
        *more = true;
        return Status::OK();
      }
      if (eof_) {
        *more = false;
        return Status::OK();
      }
      SG_RETURN_IF_ERROR(refill());
    }
  }
  uint64_t line_number() const { return line_number_; }
  const std::string& path() const { return source_.path(); }
  const ByteSource& source() const { return source_; }
  std::string where() const { return source_.path() + ":" + std::to_string(line_number_); }

 private:
  Status refill() {
    const size_t keep = filled_ - pos_;
    if (keep >= kMaxLineBytes) {
      return Status::BadInput(source_.path() + ":" + std::to_string(line_number_ + 1) + ": line longer than " +
                              std::to_string(kMaxLineBytes) + " bytes");
    }
    std::memmove(buffer_.data(), buffer_.data() + pos_, keep);
    pos_ = 0;
    filled_ = keep;
    size_t got = 0;
    SG_RETURN_IF_ERROR(source_.read(buffer_.data() + filled_, buffer_.size() - filled_, &got));
    if (got == 0) eof_ = true;
    filled_ += got;
    return Status::OK();
  }

  ByteSource source_;
  std::vector<char> buffer_;
  size_t pos_ = 0;
  size_t filled_ = 0;
  bool eof_ = false;
  uint64_t line_number_ = 0;
};

}  // namespace sg
