#include "shards/ingest/bucket_router.h"

#include <unistd.h>

#include <algorithm>
#include <cassert>

#include "shards/ingest/arc_record.h"

namespace sg {

template <typename Record>
Status BucketRouter<Record>::open(const std::string& spill_path, uint32_t bucket_count, size_t buffer_records,
                                  uint64_t base, int width_bits, bool can_grow) {
  assert(bucket_count > 0 && (bucket_count & (bucket_count - 1)) == 0 && buffer_records > 0);
  assert(width_bits >= 0 && width_bits <= 64);
  spill_path_ = spill_path;
  SG_RETURN_IF_ERROR(File::create(spill_path, &spill_));
  bucket_count_ = bucket_count;
  buffer_records_ = buffer_records;
  base_ = base;
  width_bits_ = width_bits;
  can_grow_ = can_grow;
  slot_bucket_.clear();
  first_slot_.clear();
  buffers_.assign(size_t{bucket_count} * buffer_records, Record{});
  fill_.assign(bucket_count, 0);
  records_.assign(bucket_count, 0);
  segments_.assign(bucket_count, {});
  spill_end_ = 0;
  total_records_ = 0;
  return Status::OK();
}

template <typename Record>
Status BucketRouter<Record>::open_ranges(const std::string& spill_path, const std::vector<uint32_t>& first_slot,
                                         uint32_t slot_count, int slot_bits, size_t buffer_records) {
  assert(!first_slot.empty() && first_slot[0] == 0 && first_slot.back() < slot_count);
  assert(slot_bits >= 0 && slot_bits < 64 && (uint64_t{slot_count} << slot_bits >> slot_bits) == slot_count);
  SG_RETURN_IF_ERROR(open(spill_path, 1, buffer_records, 0, slot_bits, false));
  bucket_count_ = static_cast<uint32_t>(first_slot.size());
  first_slot_ = first_slot;
  first_slot_.push_back(slot_count);
  slot_bucket_.resize(slot_count);
  for (uint32_t b = 0; b < bucket_count_; ++b) {
    assert(first_slot_[b] < first_slot_[b + 1]);
    std::fill(slot_bucket_.begin() + first_slot_[b], slot_bucket_.begin() + first_slot_[b + 1], b);
  }
  buffers_.assign(size_t{bucket_count_} * buffer_records, Record{});
  fill_.assign(bucket_count_, 0);
  records_.assign(bucket_count_, 0);
  segments_.assign(bucket_count_, {});
  return Status::OK();
}

template <typename Record>
Status BucketRouter<Record>::flush(uint32_t bucket) {
  const uint32_t count = fill_[bucket];
  if (count == 0) return Status::OK();
  const size_t bytes = size_t{count} * sizeof(Record);
  SG_RETURN_IF_ERROR(spill_.pwrite_all(buffers_.data() + size_t{bucket} * buffer_records_, bytes, spill_end_));
  segments_[bucket].push_back(SpillSegment{spill_end_, count});
  spill_end_ += bytes;
  records_[bucket] += count;
  total_records_ += count;
  fill_[bucket] = 0;
  return Status::OK();
}

// Doubles the bucket width until `offset` fits: bucket i takes over buckets
// 2i and 2i+1 (their buffers are flushed first).
template <typename Record>
Status BucketRouter<Record>::grow(uint64_t offset) {
  if (!can_grow_) return out_of_range();
  for (uint32_t b = 0; b < bucket_count_; ++b) SG_RETURN_IF_ERROR(flush(b));
  while ((offset >> width_bits_) >= bucket_count_) {
    assert(width_bits_ < 64);
    for (uint32_t b = 0; b < bucket_count_ / 2; ++b) {
      std::vector<SpillSegment> joined = std::move(segments_[2 * b]);
      joined.insert(joined.end(), segments_[2 * b + 1].begin(), segments_[2 * b + 1].end());
      segments_[b] = std::move(joined);
      records_[b] = records_[2 * b] + records_[2 * b + 1];
    }
    for (uint32_t b = bucket_count_ / 2; b < bucket_count_; ++b) {
      segments_[b].clear();
      records_[b] = 0;
    }
    ++width_bits_;
  }
  return Status::OK();
}

template <typename Record>
Status BucketRouter<Record>::add_many(const Record* records, size_t count) {
  if (!slot_bucket_.empty()) {
    for (size_t i = 0; i < count; ++i) SG_RETURN_IF_ERROR(add(records[i]));
    return Status::OK();
  }
  size_t i = 0;
  while (i < count) {
    const uint64_t base = base_;
    const int width_bits = width_bits_;
    const uint64_t bucket_count = bucket_count_;
    const size_t capacity = buffer_records_;
    Record* buffers = buffers_.data();
    uint32_t* fill = fill_.data();
    for (; i < count; ++i) {
      const uint64_t bucket = (records[i].arc - base) >> width_bits;
      if (bucket >= bucket_count) break;
      const uint32_t at = fill[bucket];
      buffers[bucket * capacity + at] = records[i];
      fill[bucket] = at + 1;
      if (at + 1 == capacity) SG_RETURN_IF_ERROR(flush(static_cast<uint32_t>(bucket)));
    }
    if (i < count) SG_RETURN_IF_ERROR(grow(records[i].arc - base_));
  }
  return Status::OK();
}

template <typename Record>
Status BucketRouter<Record>::finish() {
  for (uint32_t b = 0; b < bucket_count_; ++b) SG_RETURN_IF_ERROR(flush(b));
  std::vector<Record>().swap(buffers_);
  return Status::OK();
}

template <typename Record>
void BucketRouter<Record>::remove() {
  if (spill_path_.empty()) return;
  (void)spill_.close();
  ::unlink(spill_path_.c_str());
  spill_path_.clear();
}

template <typename Record>
Status BucketRouter<Record>::read(const SpillSegment& segment, uint64_t first, uint64_t count, Record* out) const {
  assert(first + count <= segment.records);
  return spill_.pread_all(out, count * sizeof(Record), segment.offset + first * sizeof(Record));
}

template class BucketRouter<PlainArc>;
template class BucketRouter<WeightedArc>;

}  // namespace sg
