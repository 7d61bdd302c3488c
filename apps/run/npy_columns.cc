#include "apps/run/npy_columns.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "apps/harness/id_sorted_lines.h"

namespace sg {
namespace {

// One .npy file of `count` values of `descr`, written in order.
class NpyWriter {
 public:
  Status open(const std::string& path, const char* descr, uint64_t count, size_t value_bytes) {
    path_ = path;
    value_bytes_ = value_bytes;
    file_.reset(std::fopen(path.c_str(), "wb"));
    if (!file_) return Status::IOError(path + ": cannot create");
    // Format 1.0: magic, version, a little-endian u16 header length, and a
    // header dict padded with spaces so the data starts 64-byte aligned.
    std::string header =
        "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': (" + std::to_string(count) + ",), }";
    const size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header.push_back('\n');
    const uint16_t length = static_cast<uint16_t>(header.size());
    std::fwrite("\x93NUMPY\x01\x00", 1, 8, file_.get());
    std::fwrite(&length, 2, 1, file_.get());
    std::fwrite(header.data(), 1, header.size(), file_.get());
    return Status::OK();
  }
  // Values gather in a buffer of our own: a stdio call per 8-byte value
  // would cost more than the run's last step.
  void write(const void* value) {
    if (buffered_ + value_bytes_ > buffer_.size()) flush();
    std::memcpy(buffer_.data() + buffered_, value, value_bytes_);
    buffered_ += value_bytes_;
  }
  Status close() {
    flush();
    const bool failed = std::ferror(file_.get()) != 0 || std::fflush(file_.get()) != 0;
    file_.reset();
    return failed ? Status::IOError(path_ + ": write failed") : Status::OK();
  }

 private:
  void flush() {
    std::fwrite(buffer_.data(), 1, buffered_, file_.get());
    buffered_ = 0;
  }

  std::unique_ptr<FILE, int (*)(FILE*)> file_{nullptr, &std::fclose};
  std::string path_;
  size_t value_bytes_ = 0;
  std::vector<char> buffer_ = std::vector<char>(256 << 10);
  size_t buffered_ = 0;
};

}  // namespace

const char* npy_descr(ResultType type) {
  switch (type) {
    case ResultType::kInt32: return "<i4";
    case ResultType::kUint32: return "<u4";
    case ResultType::kInt64: return "<i8";
    case ResultType::kUint64: return "<u8";
    case ResultType::kFloat32: return "<f4";
    case ResultType::kFloat64: return "<f8";
  }
  return "<f8";
}

Status write_npy_columns(const std::string& dir, const Graph& graph, const AppOutcome& outcome,
                         uint64_t sort_memory_bytes, const std::string& scratch_near) {
  const uint64_t n = graph.num_vertices();
  NpyWriter ids;
  SG_RETURN_IF_ERROR(ids.open(dir + "/ids.npy", "<u8", n, sizeof(uint64_t)));
  std::vector<NpyWriter> columns(outcome.columns.size());
  size_t row_bytes = 0;
  for (size_t k = 0; k < columns.size(); ++k) {
    const ResultColumn& c = outcome.columns[k];
    SG_RETURN_IF_ERROR(columns[k].open(dir + "/" + c.name + ".npy", npy_descr(c.type), n, result_type_bytes(c.type)));
    row_bytes += result_type_bytes(c.type);
  }
  // A row: each column's value, one after another.
  std::vector<char> row(row_bytes);
  auto fill_row = [&](uint32_t v) {
    size_t at = 0;
    for (const ResultColumn& c : outcome.columns) {
      c.value(v, row.data() + at);
      at += result_type_bytes(c.type);
    }
  };
  auto write_row = [&](uint64_t id, const char* values) {
    ids.write(&id);
    size_t at = 0;
    for (size_t k = 0; k < columns.size(); ++k) {
      columns[k].write(values + at);
      at += result_type_bytes(outcome.columns[k].type);
    }
  };
  uint64_t visited = 0;
  if (graph.by_original_available()) {
    graph.for_each_by_original_id([&](uint32_t v) {
      fill_row(v);
      write_row(graph.original_id(v), row.data());
      outcome.pages.visited(++visited);
    });
  } else {
    IdSortedLines sorted(scratch_near, sort_memory_bytes);
    for (uint32_t v = 0; v < n; ++v) {
      fill_row(v);
      SG_RETURN_IF_ERROR(sorted.add(graph.original_id(v), std::string_view(row.data(), row.size())));
      outcome.pages.visited(++visited);
    }
    SG_RETURN_IF_ERROR(sorted.finish([&](uint64_t id, std::string_view values) {
      write_row(id, values.data());
      return Status::OK();
    }));
  }
  SG_RETURN_IF_ERROR(ids.close());
  for (NpyWriter& column : columns) SG_RETURN_IF_ERROR(column.close());
  return Status::OK();
}

}  // namespace sg
