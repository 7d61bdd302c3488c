#include "shards/ingest/binary_reader.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <vector>

#include "shards/ingest/input_source.h"

namespace sg {
namespace {

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
    const size_t first = out->size();
    out->resize(first + count);  // written by index: push_back's capacity check kept the loop scalar
    RawEdge* edges = out->data() + first;
    uint64_t largest = 0;
    for (size_t i = 0; i < count; ++i, p += kRecordBytes) {
      Id src, dst;
      std::memcpy(&src, p, sizeof(Id));
      std::memcpy(&dst, p + sizeof(Id), sizeof(Id));
      float weight = 1.0f;
      if constexpr (kWeighted) std::memcpy(&weight, p + 2 * sizeof(Id), sizeof(float));
      edges[i] = RawEdge{src, dst, weight};
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

}  // namespace

Status open_binary_reader(const std::string& path, InputFormat format, bool weighted,
                          std::unique_ptr<EdgeReader>* reader) {
  auto bin = std::make_unique<BinaryReader>();
  SG_RETURN_IF_ERROR(bin->open(path, format, weighted));
  *reader = std::move(bin);
  return Status::OK();
}

Status open_binary_share(const std::string& path, InputFormat format, bool weighted, uint32_t share, uint32_t shares,
                         std::unique_ptr<EdgeReader>* reader) {
  assert(share < shares);
  auto bin = std::make_unique<BinaryReader>();
  SG_RETURN_IF_ERROR(bin->open(path, format, weighted));
  SG_RETURN_IF_ERROR(bin->keep_share(share, shares));
  *reader = std::move(bin);
  return Status::OK();
}

}  // namespace sg
