#include "shards/ingest/text_readers.h"

#include <zlib.h>

#include <algorithm>
#include <cassert>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "shards/ingest/binary_reader.h"
#include "shards/ingest/input_source.h"

namespace sg {
namespace {

constexpr const char* kFormatList =
    "mtx (.mtx), bin32/bin64 (.bin32/.bin64), dimacs (.gr), webgraph (BASENAME.graph), graphalytics (BASENAME.v + .e), "
    "graph (a graph directory)";

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
    case InputFormat::kBin64: return open_binary_reader(path, format, binary_weighted, reader);
    default:
      return Status::InvalidArgument(std::string("not a text or binary edge list format: ") + format_name(format));
  }
}

}  // namespace sg
