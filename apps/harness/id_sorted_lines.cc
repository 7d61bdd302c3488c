#include "apps/harness/id_sorted_lines.h"

#include <algorithm>
#include <cstring>
#include <queue>

namespace sg {
namespace {

constexpr uint64_t kMinRunBytes = uint64_t{1} << 20;
constexpr uint64_t kMinReadBytes = uint64_t{64} << 10;

// One run being merged: its records read back a buffer at a time.
class RunReader {
 public:
  RunReader(const File* file, uint64_t offset, uint64_t bytes, size_t buffer_bytes)
      : file_(file), next_(offset), end_(offset + bytes), buffer_bytes_(buffer_bytes) {}
  // The next record; false at the run's end.
  Status next(uint64_t* id, std::string_view* text, bool* has) {
    SG_RETURN_IF_ERROR(fill(9));
    if (at_ == data_.size()) {
      *has = false;
      return Status::OK();
    }
    if (data_.size() - at_ < 9) return Status::Corruption(file_->path() + ": a sorted run ends inside a record");
    std::memcpy(id, data_.data() + at_, 8);
    const size_t length = static_cast<uint8_t>(data_[at_ + 8]);
    SG_RETURN_IF_ERROR(fill(9 + length));
    if (data_.size() - at_ < 9 + length)
      return Status::Corruption(file_->path() + ": a sorted run ends inside a record");
    *text = std::string_view(data_).substr(at_ + 9, length);
    at_ += 9 + length;
    *has = true;
    return Status::OK();
  }

 private:
  // At least `bytes` unread bytes in data_ (fewer at the run's end).
  Status fill(size_t bytes) {
    if (data_.size() - at_ >= bytes || next_ == end_) return Status::OK();
    data_.erase(0, at_);
    at_ = 0;
    const size_t more = static_cast<size_t>(std::min<uint64_t>(std::max(buffer_bytes_, bytes), end_ - next_));
    const size_t kept = data_.size();
    data_.resize(kept + more);
    SG_RETURN_IF_ERROR(file_->pread_all(data_.data() + kept, more, next_));
    next_ += more;
    return Status::OK();
  }
  const File* file_;
  uint64_t next_, end_;
  size_t buffer_bytes_;
  std::string data_;
  size_t at_ = 0;
};

}  // namespace

IdSortedLines::IdSortedLines(std::string scratch_near, uint64_t memory_bytes)
    : scratch_near_(std::move(scratch_near)), run_bytes_(std::max(kMinRunBytes, memory_bytes / 2)) {}

Status IdSortedLines::add(uint64_t id, std::string_view text) {
  if (text.size() > 255) return Status::InvalidArgument("a result line longer than 255 bytes");
  keys_.push_back(Key{id, static_cast<uint32_t>(buffer_.size())});
  buffer_.append(reinterpret_cast<const char*>(&id), 8);
  buffer_.push_back(static_cast<char>(text.size()));
  buffer_.append(text);
  // The keys take 16 bytes a record besides the text.
  return buffer_.size() + keys_.size() * sizeof(Key) >= run_bytes_ ? spill() : Status::OK();
}

Status IdSortedLines::spill() {
  if (keys_.empty()) return Status::OK();
  if (!scratch_.is_open()) {
    bool direct = false;
    SG_RETURN_IF_ERROR(File::create_unnamed(scratch_near_, &scratch_, &direct));
  }
  std::stable_sort(keys_.begin(), keys_.end(), [](const Key& a, const Key& b) { return a.id < b.id; });
  std::string sorted;
  sorted.reserve(buffer_.size());
  for (const Key& key : keys_) {
    const size_t length = 9 + static_cast<uint8_t>(buffer_[key.at + 8]);
    sorted.append(buffer_, key.at, length);
  }
  SG_RETURN_IF_ERROR(scratch_.pwrite_all(sorted.data(), sorted.size(), scratch_bytes_));
  runs_.push_back(Run{scratch_bytes_, sorted.size()});
  scratch_bytes_ += sorted.size();
  buffer_.clear();
  keys_.clear();
  return Status::OK();
}

Status IdSortedLines::finish(FILE* out) {
  return finish([out](uint64_t id, std::string_view text) {
    std::fprintf(out, "%llu %.*s\n", static_cast<unsigned long long>(id), static_cast<int>(text.size()), text.data());
    return Status::OK();
  });
}

Status IdSortedLines::finish(const Sink& sink) {
  SG_RETURN_IF_ERROR(spill());
  std::string().swap(buffer_);
  std::vector<Key>().swap(keys_);
  return merge(sink);
}

// A heap of each run's next record, lowest id first (then the lower run,
// which arrived first).
Status IdSortedLines::merge(const Sink& sink) {
  const size_t read_bytes =
      static_cast<size_t>(std::max(kMinReadBytes, run_bytes_ / std::max<size_t>(1, runs_.size())));
  std::vector<RunReader> readers;
  for (const Run& run : runs_) readers.emplace_back(&scratch_, run.offset, run.bytes, read_bytes);
  struct Head {
    uint64_t id;
    size_t run;
    std::string_view text;
    bool operator>(const Head& o) const { return id != o.id ? id > o.id : run > o.run; }
  };
  std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads;
  auto advance = [&](size_t r) {
    Head head{0, r, {}};
    bool has = false;
    SG_RETURN_IF_ERROR(readers[r].next(&head.id, &head.text, &has));
    if (has) heads.push(head);
    return Status::OK();
  };
  for (size_t r = 0; r < readers.size(); ++r) SG_RETURN_IF_ERROR(advance(r));
  while (!heads.empty()) {
    const Head head = heads.top();
    heads.pop();
    SG_RETURN_IF_ERROR(sink(head.id, head.text));
    SG_RETURN_IF_ERROR(advance(head.run));  // head.text stays valid until then
  }
  return Status::OK();
}

}  // namespace sg
