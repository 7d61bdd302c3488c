#include "shards/ingest/text_readers.h"

#include "base/fault_injection.h"

#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cassert>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace sg {
namespace {

constexpr size_t kReadBufferBytes = 1 << 20;
constexpr size_t kMaxLineBytes = 1 << 16;  // a longer line is malformed input
constexpr const char* kFormatList =
    "mtx (.mtx), bin32/bin64 (.bin32/.bin64), dimacs (.gr), webgraph (BASENAME.graph), graphalytics (BASENAME.v + .e), "
    "graph (a graph directory)";

// The name without a compression suffix (.gz, .zst).
std::string strip_compression(const std::string& path) {
  if (path.ends_with(".gz")) return path.substr(0, path.size() - 3);
  if (path.ends_with(".zst")) return path.substr(0, path.size() - 4);
  return path;
}

// Reads a file (gzip, zstd or plain) in large blocks. A compressed stream
// cut short or failing its checksum is bad input, never a short file.
class ByteSource {
 public:
  ~ByteSource() {
    if (file_ != nullptr) gzclose(file_);
    if (zstd_ != nullptr) ZSTD_freeDCtx(zstd_);
    if (raw_ != nullptr) std::fclose(raw_);
  }
  Status open(const std::string& path) {
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
  uint64_t bytes_read() const {
    if (zstd_ != nullptr) return zstd_consumed_;
    const long offset = gzoffset(file_);
    return offset > 0 ? static_cast<uint64_t>(offset) : 0;
  }
  uint64_t bytes_total() const { return total_bytes_; }
  // Reads up to `bytes`; returns the count (0 at the end).
  Status read(char* dst, size_t bytes, size_t* got) {
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
  const std::string& path() const { return path_; }
  // Moves to `offset` of a plain (not compressed) file.
  Status seek(uint64_t offset) {
    if (zstd_ != nullptr || gzdirect(file_) == 0)
      return Status::InvalidArgument(path_ + ": a compressed input cannot be read from an offset");
    if (gzseek(file_, static_cast<z_off_t>(offset), SEEK_SET) != static_cast<z_off_t>(offset))
      return Status::IOError(path_ + ": seek to " + std::to_string(offset) + " failed");
    return Status::OK();
  }

 private:
  Status open_zstd() {
    raw_ = std::fopen(path_.c_str(), "rb");
    if (raw_ == nullptr) return Status::NoInput(path_ + ": cannot open input: " + std::strerror(errno));
    zstd_ = ZSTD_createDCtx();
    if (zstd_ == nullptr) return Status::IOError(path_ + ": cannot allocate a zstd context");
    zstd_input_.resize(ZSTD_DStreamInSize());
    return Status::OK();
  }
  // Decompresses until `bytes` are out or the input ends; at the end the
  // last frame must be complete (zstd checks its content checksum).
  Status read_zstd(char* dst, size_t bytes, size_t* got) {
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

bool is_separator(char c) { return c == ' ' || c == '\t' || c == ','; }

// Splits a data line into at most `max` fields.
size_t split_fields(std::string_view line, std::string_view* fields, size_t max) {
  size_t count = 0;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_separator(line[i])) ++i;
    if (i >= line.size()) break;
    const size_t start = i;
    while (i < line.size() && !is_separator(line[i])) ++i;
    if (count == max) return max + 1;
    fields[count++] = line.substr(start, i - start);
  }
  return count;
}

bool parse_u64(std::string_view field, uint64_t* value) {
  const char* end = field.data() + field.size();
  auto [ptr, ec] = std::from_chars(field.data(), end, *value);
  return ec == std::errc() && ptr == end;
}

bool parse_weight(std::string_view field, float* value) {
  const char* end = field.data() + field.size();
  auto [ptr, ec] = std::from_chars(field.data(), end, *value);
  return ec == std::errc() && ptr == end && std::isfinite(*value);
}

Status bad_line(const LineSource& lines, const std::string& reason) {
  return Status::BadInput(lines.where() + ": " + reason);
}

Status parse_id(const LineSource& lines, std::string_view field, const char* which, uint64_t* id) {
  if (parse_u64(field, id)) return Status::OK();
  return bad_line(lines, std::string("invalid ") + which + " vertex id '" + std::string(field.substr(0, 40)) + "'");
}

std::string id_limit_text(const RawEdge& edge, uint64_t base) {
  return "vertex id " + std::to_string(std::max(edge.src, edge.dst)) + " with base " + std::to_string(base) +
         " does not fit 32-bit dense ids; ingest with --remap";
}

bool is_comment_or_blank(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  return i == line.size() || line[i] == '#' || line[i] == '%';
}

// What the text readers share: the line source and the shape.
class TextReader : public EdgeReader {
 public:
  const InputShape& shape() const override { return shape_; }
  uint64_t bytes_read() const override { return lines_.source().bytes_read(); }
  uint64_t bytes_total() const override { return lines_.source().bytes_total(); }

 protected:
  LineSource lines_;
  InputShape shape_;
};

class SnapReader : public TextReader {
 public:
  Status open(const std::string& path) {
    allow_header_ = strip_compression(path).ends_with(".csv");
    shape_.format = InputFormat::kSnap;
    return lines_.open(path);
  }

  Status next_batch(std::vector<RawEdge>* batch, size_t max_edges) override {
    batch->clear();
    std::string_view line;
    bool more = true;
    while (batch->size() < max_edges) {
      SG_RETURN_IF_ERROR(lines_.next_line(&line, &more));
      if (!more) break;
      if (is_comment_or_blank(line)) {
        if (columns_ == 0) read_nodes_header(line);
        continue;
      }
      std::string_view fields[3];
      const size_t count = split_fields(line, fields, 3);
      if (columns_ == 0 && allow_header_ && !parse_u64(fields[0], &scratch_)) {
        allow_header_ = false;  // a CSV header line such as "id_1,id_2"
        continue;
      }
      if (count < 2 || count > 3) {
        // On the first data line the file may simply be in another format.
        const std::string hint = columns_ == 0
                                     ? " (read as a SNAP edge list; other formats: " + std::string(kFormatList) +
                                           ", chosen by name or --format)"
                                     : "";
        return bad_line(lines_, "expected 'src dst [weight]', found " + std::to_string(count > 3 ? 4 : count) +
                                    (count > 3 ? " or more fields" : " field(s)") + hint);
      }
      if (columns_ == 0) {
        columns_ = count;
        first_data_line_ = lines_.line_number();
        shape_.weighted = count == 3;
      } else if (count != columns_) {
        return bad_line(lines_, "has " + std::to_string(count) + " fields but line " +
                                    std::to_string(first_data_line_) + " has " + std::to_string(columns_));
      }
      RawEdge edge{0, 0, 1.0f};
      SG_RETURN_IF_ERROR(parse_id(lines_, fields[0], "source", &edge.src));
      SG_RETURN_IF_ERROR(parse_id(lines_, fields[1], "destination", &edge.dst));
      if (count == 3 && !parse_weight(fields[2], &edge.weight)) {
        return bad_line(lines_, "invalid weight '" + std::string(fields[2].substr(0, 40)) + "'");
      }
      if (edge.src > max_id_ || edge.dst > max_id_) return bad_line(lines_, id_limit_text(edge, 0));
      batch->push_back(edge);
    }
    return Status::OK();
  }

 private:
  // SNAP's "# Nodes: 7115 Edges: 103689" header: the vertex count is a
  // lower bound for |V| (ids may still be larger).
  void read_nodes_header(std::string_view line) {
    const size_t at = line.find("Nodes:");
    if (at == std::string_view::npos) return;
    size_t i = at + 6;
    while (i < line.size() && line[i] == ' ') ++i;
    size_t j = i;
    while (j < line.size() && line[j] >= '0' && line[j] <= '9') ++j;
    uint64_t nodes = 0;
    if (j > i && parse_u64(line.substr(i, j - i), &nodes) && nodes <= max_id_) shape_.declared_vertices = nodes;
  }

  bool allow_header_ = false;
  size_t columns_ = 0;
  uint64_t first_data_line_ = 0;
  uint64_t scratch_ = 0;
};

// LDBC Graphalytics: BASENAME.e read as SNAP text, BASENAME.v the vertex
// set (ids as labels, remapped by ingest), BASENAME.properties' directed
// flag. The base name is the path without .v/.e/.properties.
std::string graphalytics_base(const std::string& path) {
  for (const char* suffix : {".v", ".e", ".properties"}) {
    if (path.ends_with(suffix)) return path.substr(0, path.size() - std::strlen(suffix));
  }
  return path;
}

class GraphalyticsReader : public SnapReader {
 public:
  Status open(const std::string& path) {
    base_ = graphalytics_base(path);
    SG_RETURN_IF_ERROR(SnapReader::open(base_ + ".e"));
    shape_.format = InputFormat::kGraphalytics;
    return read_properties();
  }
  Status vertex_ids(std::vector<uint64_t>* ids) override {
    ids->clear();
    LineSource lines;
    SG_RETURN_IF_ERROR(lines.open(base_ + ".v"));
    std::string_view line;
    bool more = true;
    uint64_t valued_lines = 0;
    for (;;) {
      SG_RETURN_IF_ERROR(lines.next_line(&line, &more));
      if (!more) break;
      if (is_comment_or_blank(line)) continue;
      // The id is the first column; libgrape-lite's .v files add a value
      // after it, which no app here reads.
      std::string_view fields[1];
      uint64_t id = 0;
      const size_t count = split_fields(line, fields, 1);
      if (count == 0 || !parse_u64(fields[0], &id)) return bad_line(lines, "expected a vertex id first");
      valued_lines += count > 1;
      ids->push_back(id);
    }
    if (valued_lines > 0) {
      notes_ = base_ + ".v: the columns after the vertex id (" + std::to_string(valued_lines) + " lines) were ignored";
    }
    std::sort(ids->begin(), ids->end());
    const auto repeated = std::adjacent_find(ids->begin(), ids->end());
    if (repeated != ids->end())
      return Status::BadInput(base_ + ".v: vertex " + std::to_string(*repeated) + " is listed twice");
    if (ids->empty()) return Status::BadInput(base_ + ".v: no vertices");
    return Status::OK();
  }
  std::string notes() const override { return notes_; }

 private:
  std::string notes_;
  // graph.NAME.directed = true|false (directed when absent).
  Status read_properties() {
    std::error_code ec;
    if (!std::filesystem::exists(base_ + ".properties", ec)) return Status::OK();
    LineSource lines;
    SG_RETURN_IF_ERROR(lines.open(base_ + ".properties"));
    std::string_view line;
    bool more = true;
    for (;;) {
      SG_RETURN_IF_ERROR(lines.next_line(&line, &more));
      if (!more) break;
      const size_t eq = line.find('=');
      if (eq == std::string_view::npos || line.substr(0, eq).find(".directed") == std::string_view::npos) continue;
      std::string value(line.substr(eq + 1));
      value.erase(std::remove_if(value.begin(), value.end(), [](unsigned char c) { return std::isspace(c) != 0; }),
                  value.end());
      if (value != "true" && value != "false") return bad_line(lines, "directed must be true or false");
      directed_ = value == "true";
    }
    shape_.symmetric = !directed_;
    return Status::OK();
  }

  std::string base_;
  bool directed_ = true;
};

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

class MtxReader : public TextReader {
 public:
  Status open(const std::string& path) {
    SG_RETURN_IF_ERROR(lines_.open(path));
    shape_.format = InputFormat::kMtx;
    shape_.id_base = 1;
    return read_header();
  }

  Status next_batch(std::vector<RawEdge>* batch, size_t max_edges) override {
    batch->clear();
    std::string_view line;
    bool more = true;
    while (batch->size() < max_edges) {
      SG_RETURN_IF_ERROR(lines_.next_line(&line, &more));
      if (!more) {
        if (entries_ != declared_entries_) {
          return Status::BadInput(lines_.path() + ":" + std::to_string(lines_.line_number()) + ": file ends after " +
                                  std::to_string(entries_) + " of " + std::to_string(declared_entries_) + " entries");
        }
        break;
      }
      if (is_comment_or_blank(line)) continue;
      if (entries_ == declared_entries_) return bad_line(lines_, "more entries than the header declares");
      std::string_view fields[3];
      const size_t count = split_fields(line, fields, 3);
      const size_t expected = shape_.weighted ? 3 : 2;
      if (count != expected) {
        return bad_line(lines_, "expected " + std::to_string(expected) + " fields for a " + field_ + " matrix");
      }
      RawEdge edge{0, 0, 1.0f};
      SG_RETURN_IF_ERROR(parse_id(lines_, fields[0], "row", &edge.src));
      SG_RETURN_IF_ERROR(parse_id(lines_, fields[1], "column", &edge.dst));
      if (edge.src < 1 || edge.src > rows_ || edge.dst < 1 || edge.dst > cols_) {
        return bad_line(lines_,
                        "index outside the " + std::to_string(rows_) + " x " + std::to_string(cols_) + " matrix");
      }
      if (shape_.weighted && !parse_weight(fields[2], &edge.weight)) {
        return bad_line(lines_, "invalid value '" + std::string(fields[2].substr(0, 40)) + "'");
      }
      if (edge.src - 1 > max_id_ || edge.dst - 1 > max_id_) return bad_line(lines_, id_limit_text(edge, 1));
      ++entries_;
      batch->push_back(edge);
    }
    return Status::OK();
  }

 private:
  Status read_header() {
    std::string_view line;
    bool more = true;
    SG_RETURN_IF_ERROR(lines_.next_line(&line, &more));
    std::string_view words[6];
    const size_t count = more ? split_fields(line, words, 5) : 0;
    if (count != 5 || lower(words[0]) != "%%matrixmarket" || lower(words[1]) != "matrix") {
      return Status::BadInput(lines_.path() + ":1: expected '%%MatrixMarket matrix coordinate <field> <symmetry>'");
    }
    if (lower(words[2]) != "coordinate") {
      return Status::BadInput(lines_.path() + ":1: only 'coordinate' Matrix Market files hold graphs, not '" +
                              std::string(words[2]) + "'");
    }
    field_ = lower(words[3]);
    if (field_ != "pattern" && field_ != "integer" && field_ != "real") {
      return Status::BadInput(lines_.path() + ":1: unsupported field '" + field_ + "' (pattern, integer, real)");
    }
    const std::string symmetry = lower(words[4]);
    if (symmetry != "general" && symmetry != "symmetric") {
      return Status::BadInput(lines_.path() + ":1: unsupported symmetry '" + symmetry + "' (general, symmetric)");
    }
    shape_.weighted = field_ != "pattern";
    shape_.symmetric = symmetry == "symmetric";
    do {
      SG_RETURN_IF_ERROR(lines_.next_line(&line, &more));
    } while (more && is_comment_or_blank(line));
    if (!more) return Status::BadInput(lines_.path() + ": missing the 'rows cols entries' size line");
    std::string_view sizes[3];
    if (split_fields(line, sizes, 3) != 3 || !parse_u64(sizes[0], &rows_) || !parse_u64(sizes[1], &cols_) ||
        !parse_u64(sizes[2], &declared_entries_)) {
      return bad_line(lines_, "expected the size line 'rows cols entries'");
    }
    if (shape_.symmetric && rows_ != cols_) return bad_line(lines_, "a symmetric matrix must be square");
    shape_.declared_vertices = std::max(rows_, cols_);
    return Status::OK();
  }

  std::string field_;
  uint64_t rows_ = 0, cols_ = 0, declared_entries_ = 0, entries_ = 0;
};

// DIMACS shortest-path challenge graphs (9th challenge, .gr): 'c' comment
// lines, one 'p sp N M' line, then M lines 'a u v w' with 1-based ids and
// integer weights (kept as float32 weights).
class DimacsReader : public TextReader {
 public:
  Status open(const std::string& path) {
    SG_RETURN_IF_ERROR(lines_.open(path));
    shape_.format = InputFormat::kDimacs;
    shape_.id_base = 1;
    shape_.weighted = true;
    return Status::OK();
  }

  Status next_batch(std::vector<RawEdge>* batch, size_t max_edges) override {
    batch->clear();
    std::string_view line;
    bool more = true;
    while (batch->size() < max_edges) {
      SG_RETURN_IF_ERROR(lines_.next_line(&line, &more));
      if (!more) {
        if (!saw_problem_) return Status::BadInput(lines_.path() + ": no 'p sp N M' problem line");
        if (arcs_ != declared_arcs_) {
          return Status::BadInput(lines_.path() + ":" + std::to_string(lines_.line_number()) + ": file ends after " +
                                  std::to_string(arcs_) + " of " + std::to_string(declared_arcs_) + " arcs");
        }
        break;
      }
      std::string_view fields[5];
      const size_t count = split_fields(line, fields, 4);
      if (count == 0 || fields[0] == "c") continue;
      if (fields[0] == "p") {
        SG_RETURN_IF_ERROR(read_problem(fields, count));
        continue;
      }
      if (fields[0] != "a") return bad_line(lines_, "expected a 'c', 'p' or 'a' line");
      if (!saw_problem_) return bad_line(lines_, "an arc before the 'p sp N M' line");
      if (count != 4) return bad_line(lines_, "expected 'a u v w'");
      RawEdge edge{0, 0, 1.0f};
      SG_RETURN_IF_ERROR(parse_id(lines_, fields[1], "source", &edge.src));
      SG_RETURN_IF_ERROR(parse_id(lines_, fields[2], "destination", &edge.dst));
      if (edge.src < 1 || edge.src > nodes_ || edge.dst < 1 || edge.dst > nodes_) {
        return bad_line(lines_, "vertex outside 1.." + std::to_string(nodes_));
      }
      if (!parse_weight(fields[3], &edge.weight))
        return bad_line(lines_, "invalid weight '" + std::string(fields[3].substr(0, 40)) + "'");
      if (edge.src - 1 > max_id_ || edge.dst - 1 > max_id_) return bad_line(lines_, id_limit_text(edge, 1));
      if (++arcs_ > declared_arcs_) return bad_line(lines_, "more arcs than the 'p' line declares");
      batch->push_back(edge);
    }
    return Status::OK();
  }
  uint64_t declared_arcs() const override { return declared_arcs_; }

 private:
  Status read_problem(const std::string_view* fields, size_t count) {
    if (saw_problem_) return bad_line(lines_, "a second 'p' line");
    if (count != 4 || fields[1] != "sp" || !parse_u64(fields[2], &nodes_) || !parse_u64(fields[3], &declared_arcs_)) {
      return bad_line(lines_, "expected 'p sp N M'");
    }
    saw_problem_ = true;
    shape_.declared_vertices = nodes_;
    return Status::OK();
  }

  bool saw_problem_ = false;
  uint64_t nodes_ = 0, declared_arcs_ = 0, arcs_ = 0;
};

class BinaryReader : public EdgeReader {
 public:
  Status open(const std::string& path, InputFormat format, bool weighted) {
    shape_.format = format;
    shape_.weighted = weighted;
    id_bytes_ = format == InputFormat::kBin32 ? 4 : 8;
    record_bytes_ = 2 * id_bytes_ + (weighted ? 4 : 0);
    buffer_.resize(record_bytes_ * 65536);
    return source_.open(path);
  }
  // Only records [share * R / shares, (share + 1) * R / shares) of the R
  // in a plain file: one rank's share of a distributed ingest.
  Status keep_share(uint32_t share, uint32_t shares) {
    const uint64_t bytes = source_.bytes_total();
    if (bytes % record_bytes_ != 0) {
      return Status::BadInput(source_.path() + ": record " + std::to_string(bytes / record_bytes_ + 1) +
                              ": truncated (file size is not a multiple of the record)");
    }
    const uint64_t records = bytes / record_bytes_;
    const uint64_t first = records * share / shares;
    end_record_ = records * (share + 1) / shares;
    records_ = first;
    return source_.seek(first * record_bytes_);
  }
  const InputShape& shape() const override { return shape_; }
  uint64_t bytes_read() const override { return source_.bytes_read(); }
  uint64_t bytes_total() const override { return source_.bytes_total(); }

  Status next_batch(std::vector<RawEdge>* batch, size_t max_edges) override {
    batch->clear();
    while (batch->size() < max_edges && records_ < end_record_) {
      const size_t want =
          static_cast<size_t>(std::min<uint64_t>(std::min(buffer_.size(), (max_edges - batch->size()) * record_bytes_),
                                                 (end_record_ - records_) * record_bytes_));
      size_t got = 0;
      SG_RETURN_IF_ERROR(fill(want, &got));
      if (got % record_bytes_ != 0) {
        return Status::BadInput(source_.path() + ": record " + std::to_string(records_ + got / record_bytes_ + 1) +
                                ": truncated (file size is not a multiple of the " + std::to_string(record_bytes_) +
                                "-byte " + format_name(shape_.format) + (shape_.weighted ? " weighted" : "") +
                                " record)");
      }
      if (got == 0) break;
      const size_t count = got / record_bytes_;
      const size_t first = batch->size();
      batch->reserve(first + count);
      if (decode_all(count, batch) > max_id_) return id_out_of_range(*batch, first);
      records_ += count;
    }
    return Status::OK();
  }

 private:
  // Reads until `want` bytes or the end of input.
  Status fill(size_t want, size_t* got) {
    *got = 0;
    while (*got < want) {
      size_t n = 0;
      SG_RETURN_IF_ERROR(source_.read(buffer_.data() + *got, want - *got, &n));
      if (n == 0) break;
      *got += n;
    }
    return Status::OK();
  }
  // The buffer's first `count` records appended to out, in a loop per
  // record shape (a branch per field cost more than the copy); returns the
  // largest id, which is checked once a batch.
  uint64_t decode_all(size_t count, std::vector<RawEdge>* out) const {
    if (id_bytes_ == 4) {
      return shape_.weighted ? decode_records<uint32_t, true>(count, out) : decode_records<uint32_t, false>(count, out);
    }
    return shape_.weighted ? decode_records<uint64_t, true>(count, out) : decode_records<uint64_t, false>(count, out);
  }
  template <typename Id, bool kWeighted>
  uint64_t decode_records(size_t count, std::vector<RawEdge>* out) const {
    constexpr size_t kRecordBytes = 2 * sizeof(Id) + (kWeighted ? sizeof(float) : 0);
    const char* p = buffer_.data();
    uint64_t largest = 0;
    for (size_t i = 0; i < count; ++i, p += kRecordBytes) {
      Id src, dst;
      std::memcpy(&src, p, sizeof(Id));
      std::memcpy(&dst, p + sizeof(Id), sizeof(Id));
      float weight = 1.0f;
      if constexpr (kWeighted) std::memcpy(&weight, p + 2 * sizeof(Id), sizeof(float));
      out->push_back(RawEdge{src, dst, weight});
      largest = std::max<uint64_t>(largest, std::max<uint64_t>(src, dst));
    }
    return largest;
  }
  // The first record of batch[first, end) past the id limit, worded (the
  // batch's largest id is past it, so one is).
  Status id_out_of_range(const std::vector<RawEdge>& batch, size_t first) const {
    size_t i = first;
    while (i + 1 < batch.size() && batch[i].src <= max_id_ && batch[i].dst <= max_id_) ++i;
    return Status::BadInput(source_.path() + ": record " + std::to_string(records_ + (i - first) + 1) + ": " +
                            id_limit_text(batch[i], 0));
  }

  ByteSource source_;
  InputShape shape_;
  size_t id_bytes_ = 4;
  size_t record_bytes_ = 8;
  uint64_t records_ = 0;  // before the next one to read, from the file's start
  uint64_t end_record_ = UINT64_MAX;
  std::vector<char> buffer_;
};

// A text file whose name says nothing: Matrix Market and DIMACS announce
// themselves on their first lines; anything else is read as SNAP.
InputFormat sniff_text_format(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) return InputFormat::kSnap;
  char head[4096] = {};
  const int n = gzread(file, head, sizeof(head) - 1);
  gzclose(file);
  const std::string_view text(head, n > 0 ? static_cast<size_t>(n) : 0);
  if (text.starts_with("%%MatrixMarket")) return InputFormat::kMtx;
  // DIMACS: 'c' comment lines, then the 'p sp N M' problem line.
  size_t at = 0;
  while (at < text.size() && (text.substr(at).starts_with("c ") || text.substr(at).starts_with("c\n"))) {
    const size_t end = text.find('\n', at);
    if (end == std::string_view::npos) return InputFormat::kSnap;
    at = end + 1;
  }
  return text.substr(at).starts_with("p sp ") ? InputFormat::kDimacs : InputFormat::kSnap;
}

// The 9th challenge ships node coordinates in a .co file next to the .gr;
// no algorithm here uses them.
void note_ignored_coordinates(const std::string& path) {
  std::string base = strip_compression(path);
  base = base.substr(0, base.size() - 3);
  std::error_code ec;
  for (const char* suffix : {".co", ".co.gz"}) {
    if (std::filesystem::exists(base + suffix, ec)) {
      std::fprintf(stderr, "shardgraph: %s%s (node coordinates) is not used; ingesting %s only\n", base.c_str(), suffix,
                   path.c_str());
    }
  }
}

template <typename Reader>
Status open_reader(const std::string& path, std::unique_ptr<EdgeReader>* reader) {
  auto opened = std::make_unique<Reader>();
  SG_RETURN_IF_ERROR(opened->open(path));
  *reader = std::move(opened);
  return Status::OK();
}

}  // namespace

Status open_binary_share(const std::string& path, InputFormat format, bool weighted, uint32_t share, uint32_t shares,
                         std::unique_ptr<EdgeReader>* reader) {
  assert(share < shares);
  auto bin = std::make_unique<BinaryReader>();
  SG_RETURN_IF_ERROR(bin->open(path, format, weighted));
  SG_RETURN_IF_ERROR(bin->keep_share(share, shares));
  *reader = std::move(bin);
  return Status::OK();
}

InputFormat text_format_of(const std::string& path) {
  std::error_code ec;
  const std::string graphalytics = graphalytics_base(path);
  if (std::filesystem::is_regular_file(graphalytics + ".v", ec) &&
      std::filesystem::is_regular_file(graphalytics + ".e", ec)) {
    return InputFormat::kGraphalytics;
  }
  const std::string base = strip_compression(path);
  if (base.ends_with(".mtx")) return InputFormat::kMtx;
  if (base.ends_with(".bin32")) return InputFormat::kBin32;
  if (base.ends_with(".bin64")) return InputFormat::kBin64;
  if (base.ends_with(".gr")) return InputFormat::kDimacs;
  return sniff_text_format(path);
}

Status open_text_reader(const std::string& path, InputFormat format, bool binary_weighted,
                        std::unique_ptr<EdgeReader>* reader) {
  switch (format) {
    case InputFormat::kSnap: return open_reader<SnapReader>(path, reader);
    case InputFormat::kMtx: return open_reader<MtxReader>(path, reader);
    case InputFormat::kGraphalytics: return open_reader<GraphalyticsReader>(path, reader);
    case InputFormat::kDimacs:
      SG_RETURN_IF_ERROR(open_reader<DimacsReader>(path, reader));
      note_ignored_coordinates(path);
      return Status::OK();
    case InputFormat::kBin32:
    case InputFormat::kBin64: {
      auto bin = std::make_unique<BinaryReader>();
      SG_RETURN_IF_ERROR(bin->open(path, format, binary_weighted));
      *reader = std::move(bin);
      return Status::OK();
    }
    default:
      return Status::InvalidArgument(std::string("not a text or binary edge list format: ") + format_name(format));
  }
}

}  // namespace sg
