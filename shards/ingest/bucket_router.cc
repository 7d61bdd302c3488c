#include "shards/ingest/bucket_router.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cassert>
#include <chrono>
#include <cstring>
#include <span>
#include <utility>

#include "base/huge_pages.h"
#include "compression/bit_stream.h"
#include "shards/format/striping.h"
#include "shards/ingest/arc_record.h"
#include "shards/ingest/spill_fields.h"

namespace sg {

using spill_fields::kExtraBytes;
using spill_fields::put_gap_and_neighbour;
using spill_fields::weight_of;

template <typename Record>
Status BucketRouter<Record>::open(const std::string& spill_path, uint32_t bucket_count, size_t buffer_records,
                                  uint64_t base, int width_bits, bool can_grow, SpillForm form, size_t lanes) {
  assert(bucket_count > 0 && (bucket_count & (bucket_count - 1)) == 0 && buffer_records > 0);
  assert(width_bits >= 0 && width_bits <= 64 && lanes > 0);
  for (Lane& lane : lanes_) SG_RETURN_IF_ERROR(wait_pending(lane));
  // Unnamed: a failed or killed ingest leaves no spill behind, wherever it
  // spilled. Where the file system has no O_DIRECT (tmpfs) the aligned
  // writes and reads simply go through the page cache.
  bool use_direct = form == SpillForm::kDirect;
  SG_RETURN_IF_ERROR(File::create_unnamed(spill_path, &spill_, &use_direct));
  // A bucket's extents lie between other buckets', which the kernel's
  // read-ahead past a run would read long before their turn: the sort
  // phase asks for what it needs next itself (prefetch_bucket). R-MAT 26 in
  // a 256 MiB cgroup on one emulated HDD read 58 GB for 16 GB of spill.
  if (!use_direct) spill_.advise_random();
  form_ = form;
  bucket_count_ = bucket_count;
  buffer_records_ = buffer_records;
  base_ = base;
  width_bits_ = width_bits;
  can_grow_ = can_grow;
  slot_bucket_.clear();
  first_slot_.clear();
  lanes_ = std::vector<Lane>(lanes);
  auto make_room = [&](CodingRoom* room) {
    room->scratch.assign(coded() ? buffer_records : 0, Record{});
    room->key_counts.assign(coded() ? size_t{1} << kMaxDigitBits : 0, 0);
    // Packing stores eight bytes per record: a record's bytes of slack.
    if (direct()) room->stage.allocate(align_up((buffer_records + 1) * sizeof(Record), kAlignBytes));
  };
  for (Lane& lane : lanes_) {
    make_room(&lane.room);  // a packed router's is empty
    if (form != SpillForm::kPacked) lane.background = std::vector<Background>(background_flushes(form));
    for (Background& flush : lane.background) make_room(&flush.room);
  }
  point_buffers();
  block_ends_.clear();
  records_.assign(bucket_count, 0);
  segments_.assign(bucket_count, {});
  extents_.assign(bucket_count, {});
  spill_end_ = 0;
  written_bytes_ = 0;
  total_records_ = 0;
  return Status::OK();
}

template <typename Record>
Status BucketRouter<Record>::open_ranges(const std::string& spill_path, const std::vector<uint32_t>& first_slot,
                                         uint32_t slot_count, int slot_bits, size_t buffer_records, SpillForm form,
                                         size_t lanes) {
  assert(!first_slot.empty() && first_slot[0] == 0 && first_slot.back() < slot_count);
  assert(slot_bits >= 0 && slot_bits < 64 && (uint64_t{slot_count} << slot_bits >> slot_bits) == slot_count);
  SG_RETURN_IF_ERROR(open(spill_path, 1, buffer_records, 0, slot_bits, false, form, lanes));
  bucket_count_ = static_cast<uint32_t>(first_slot.size());
  first_slot_ = first_slot;
  first_slot_.push_back(slot_count);
  slot_bucket_.resize(slot_count);
  for (uint32_t b = 0; b < bucket_count_; ++b) {
    assert(first_slot_[b] < first_slot_[b + 1]);
    std::fill(slot_bucket_.begin() + first_slot_[b], slot_bucket_.begin() + first_slot_[b + 1], b);
  }
  point_buffers();
  records_.assign(bucket_count_, 0);
  segments_.assign(bucket_count_, {});
  extents_.assign(bucket_count_, {});
  return Status::OK();
}

template <typename Record>
void BucketRouter<Record>::point_buffers() {
  const bool spare = form_ != SpillForm::kPacked;
  const size_t buffers = size_t{bucket_count_} + (spare ? background_flushes(form_) : 0);
  const size_t total = lanes_.size() * buffers * buffer_records_;
  assign_touched(&buffers_, total);  // in huge pages: a batch scatters over every bucket
  Record* next = buffers_.data();
  for (Lane& lane : lanes_) {
    lane.buffer_of.resize(bucket_count_);
    for (Record*& buffer : lane.buffer_of) buffer = std::exchange(next, next + buffer_records_);
    for (Background& flush : lane.background) flush.spare = std::exchange(next, next + buffer_records_);
    lane.fill.assign(bucket_count_, 0);
    lane.start.assign(bucket_count_, 0);
  }
  if (spare) stagger_first_flushes();
}

// A background flush (coded or direct) keeps pace with routing only when
// buffers fill one after the other. Evenly spread keys fill them all at
// about the same time, and a burst of flushes then fell to the routing
// thread, which waited on the disk (R-MAT 22 from the page cache: 183 of
// 482 flushes, 0.4 s). So each bucket's first segment is shorter by a
// share of a buffer that grows with the bucket (and the lane): the buffers
// then fill in turn. Records are buffered from lane.start[b]; segments
// are cut elsewhere, but a bucket's records keep their order.
template <typename Record>
void BucketRouter<Record>::stagger_first_flushes() {
  const uint64_t turns = uint64_t{bucket_count_} * lanes_.size();
  if (buffer_records_ < 2 || turns < 2) return;
  for (size_t l = 0; l < lanes_.size(); ++l) {
    for (uint32_t b = 0; b < bucket_count_; ++b) {
      const uint64_t turn = uint64_t{b} * lanes_.size() + l;
      const auto start = static_cast<uint32_t>(turn * (buffer_records_ - 1) / turns);
      lanes_[l].start[b] = start;
      lanes_[l].fill[b] = start;
    }
  }
}

template <typename Record>
Status BucketRouter<Record>::wait_pending(Lane& lane) {
  Status first;
  for (Background& flush : lane.background) {
    Status s = wait(flush);
    if (first.ok()) first = s;
  }
  return first;
}

template <typename Record>
Status BucketRouter<Record>::flush(Lane& lane, uint32_t bucket) {
  SG_RETURN_IF_ERROR(wait_pending(lane));
  return flush_here(lane, bucket);
}

template <typename Record>
Status BucketRouter<Record>::flush_here(Lane& lane, uint32_t bucket) {
  const uint32_t start = std::exchange(lane.start[bucket], 0);
  const uint32_t count = std::exchange(lane.fill[bucket], 0) - start;
  return flush_records(bucket, lane.buffer_of[bucket] + start, count, lane.room);
}

// A bucket's full buffer goes to a background flush that is free (after
// any of the same bucket: a lane's segments of a bucket stay in its input
// order, and with one lane the bucket's sort is stable), else is flushed
// here.
template <typename Record>
Status BucketRouter<Record>::flush_full(Lane& lane, uint32_t bucket) {
  if (lane.background.empty()) return flush(lane, bucket);
  Background* free = nullptr;
  for (Background& flush : lane.background) {
    if (flush.pending.valid() && flush.bucket == bucket) SG_RETURN_IF_ERROR(wait(flush));
    if (free == nullptr && !busy(flush)) free = &flush;
  }
  if (free == nullptr) return flush_here(lane, bucket);
  SG_RETURN_IF_ERROR(wait(*free));  // done: its result
  Record* full = std::exchange(lane.buffer_of[bucket], free->spare);
  free->spare = full;  // again free once this flush is done
  const uint32_t start = std::exchange(lane.start[bucket], 0);
  const uint32_t count = std::exchange(lane.fill[bucket], 0) - start;
  free->bucket = bucket;
  free->pending = std::async(std::launch::async, [this, bucket, full, start, count, free] {
    return flush_records(bucket, full + start, count, free->room);
  });
  return Status::OK();
}

// Through the background flushes too, as when full: one bucket after the
// other here, each waiting on the disk, took R-MAT 22's routes from the
// page cache 0.15-0.2 s with both cores idle.
template <typename Record>
Status BucketRouter<Record>::flush_all() {
  for (Lane& lane : lanes_) {
    for (uint32_t b = 0; b < bucket_count_; ++b) {
      if (lane.fill[b] > lane.start[b]) SG_RETURN_IF_ERROR(flush_full(lane, b));
    }
    SG_RETURN_IF_ERROR(wait_pending(lane));
  }
  return Status::OK();
}

// Runs beside routing (flush_full) and beside another bucket's flush: it
// touches its records and room, and the spill's shared state only in
// write_segment; the bucket's range changes only in grow(), after waiting.
template <typename Record>
Status BucketRouter<Record>::flush_records(uint32_t bucket, Record* records, uint32_t count, CodingRoom& room) {
  if (count == 0) return Status::OK();
  // Whole keys (a range starting at a key) keep only the neighbour bits the
  // segment's largest neighbour needs; otherwise the offset is kept whole.
  const uint64_t base = first_value(bucket);
  const int range_bits = static_cast<int>(std::bit_width(last_value(bucket) - base));
  uint32_t largest_neighbour = 0;
  for (uint32_t i = 0; i < count; ++i)
    largest_neighbour = std::max(largest_neighbour, static_cast<uint32_t>(records[i].arc));
  const int neighbour_bits = std::max(1, static_cast<int>(std::bit_width(largest_neighbour)));
  const bool compact = neighbour_bits < 32 && range_bits >= 32 && (base & UINT32_MAX) == 0;
  const int value_bits = compact ? range_bits - 32 + neighbour_bits : range_bits;
  if (compact && coded()) {
    const int key_bits = range_bits - 32;
    Record* sorted = sort_by_key(records, count, base, key_bits, room);
    Record* other = sorted == records ? room.scratch.data() : records;
    size_t size = 0;
    SpillSegment segment{};
    if (code_segment(sorted, count, base, key_bits, neighbour_bits, reinterpret_cast<uint8_t*>(other),
                     size_t{count} * sizeof(Record), &size, &segment, room)) {
      return write_segment(bucket, other, size, segment, &room);
    }
    records = sorted;  // a block would not decode in place: packed instead
  }
  const size_t value_bytes = static_cast<size_t>(std::max(1, (value_bits + 7) / 8));
  const SpillSegment packed{0,
                            count,
                            base,
                            static_cast<uint8_t>(value_bytes),
                            static_cast<uint8_t>(compact ? neighbour_bits : 32),
                            SpillSegment::kPacked,
                            0};
  if (direct()) {
    const size_t bytes = pack_to_stage(records, count, base, compact, neighbour_bits, value_bytes, room);
    return write_segment(bucket, room.stage.data(), bytes, packed, nullptr);
  }
  // Packed in place: a record's packed bytes never reach past its own slot.
  uint8_t* dst = reinterpret_cast<uint8_t*>(records);
  for (uint32_t i = 0; i < count; ++i) {
    const Record record = records[i];
    const uint64_t offset = record.arc - base;
    uint64_t value = offset;
    if (compact) value = (offset >> 32) << neighbour_bits | (offset & UINT32_MAX);
    // Eight bytes stored, value_bytes kept (little-endian: the low ones):
    // the extra bytes land where the next packed record goes, before any
    // record not yet read.
    std::memcpy(dst, &value, sizeof(value));
    dst += value_bytes;
    if constexpr (kExtraBytes < Record >> 0) {
      const float weight = weight_of(record);
      std::memcpy(dst, &weight, sizeof(weight));
      dst += sizeof(weight);
    }
  }
  const size_t bytes = static_cast<size_t>(dst - reinterpret_cast<uint8_t*>(records));
  return write_segment(bucket, records, bytes, packed, nullptr);
}

// A direct router's segment, packed as flush_records packs in place, into
// the room's stage; the bytes up to the next 4 KiB boundary are written too.
template <typename Record>
size_t BucketRouter<Record>::pack_to_stage(const Record* records, uint32_t count, uint64_t base, bool compact,
                                           int neighbour_bits, size_t value_bytes, CodingRoom& room) const {
  uint8_t* dst = room.stage.data();
  assert(size_t{count} * (value_bytes + kExtraBytes<Record>)+sizeof(uint64_t) <= room.stage.size());
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t offset = records[i].arc - base;
    const uint64_t value = compact ? (offset >> 32) << neighbour_bits | (offset & UINT32_MAX) : offset;
    std::memcpy(dst, &value, sizeof(value));
    dst += value_bytes;
    if constexpr (kExtraBytes < Record >> 0) {
      const float weight = weight_of(records[i]);
      std::memcpy(dst, &weight, sizeof(weight));
      dst += sizeof(weight);
    }
  }
  return static_cast<size_t>(dst - room.stage.data());
}

template <typename Record>
Status BucketRouter<Record>::write_segment(uint32_t bucket, const void* bytes, size_t size, SpillSegment segment,
                                           CodingRoom* room) {
  {
    const std::lock_guard<std::mutex> lock(write_mutex_);
    // A direct segment fills whole blocks: its stage's slack is written too.
    if (direct()) size = static_cast<size_t>(align_up(size, kAlignBytes));
    Extent& extent = extents_[bucket];
    if (extent.used + size > extent.capacity) {  // a new extent at the file's end
      extent = Extent{spill_end_, 0, std::max<uint64_t>(kExtentBytes, align_up(size, kAlignBytes))};
      spill_end_ += extent.capacity;
    }
    segment.offset = extent.offset + extent.used;
    segment.bytes = size;
    extent.used += size;
    written_bytes_ += size;
    if (room != nullptr) {
      segment.first_block = static_cast<uint32_t>(block_ends_.size());
      block_ends_.insert(block_ends_.end(), room->block_ends.begin(), room->block_ends.end());
    }
    segments_[bucket].push_back(segment);
    records_[bucket] += segment.records;
    total_records_ += segment.records;
  }
  return spill_.pwrite_all(bytes, size, segment.offset);
}

// LSD radix sort by key offset between the records and the scratch buffer,
// in one pass up to 16 key bits (a bucket of R-MAT 24's 256 has 16), else
// in passes of equal digits; returns where the sorted records are.
template <typename Record>
Record* BucketRouter<Record>::sort_by_key(Record* records, uint32_t count, uint64_t base, int key_bits,
                                          CodingRoom& room) {
  const int passes = (key_bits + kMaxDigitBits - 1) / kMaxDigitBits;
  const int digit_bits = passes == 0 ? 0 : (key_bits + passes - 1) / passes;
  Record* from = records;
  Record* to = room.scratch.data();
  const std::span<uint32_t> counts(room.key_counts.data(), size_t{1} << digit_bits);
  for (int shift = 32; shift < 32 + key_bits; shift += digit_bits) {
    std::fill(counts.begin(), counts.end(), 0);
    const uint64_t mask = (uint64_t{1} << digit_bits) - 1;
    for (uint32_t i = 0; i < count; ++i) ++counts[((from[i].arc - base) >> shift) & mask];
    uint32_t at = 0;
    for (uint32_t& c : counts) at += std::exchange(c, at);
    for (uint32_t i = 0; i < count; ++i) to[counts[((from[i].arc - base) >> shift) & mask]++] = from[i];
    std::swap(from, to);
  }
  return from;
}

// Codes sorted records in blocks into out[0, capacity). Decoding happens in
// place (read_coded: a block range is read into the end of the records it
// becomes and decoded from the front), so every record must be decoded
// before its bytes are overwritten: a block of n records and B bytes needs
// B <= R n, and for each record i before its last, B - (bytes through
// record i) <= R (n - 1 - i), R being sizeof(Record). False when a block
// breaks that (a long gap near a block's end) or out is too small.
template <typename Record>
bool BucketRouter<Record>::code_segment(const Record* records, uint32_t count, uint64_t base, int key_bits,
                                        int neighbour_bits, uint8_t* out, size_t capacity, size_t* size,
                                        SpillSegment* segment, CodingRoom& room) {
  constexpr int64_t R = sizeof(Record);
  const int rice_bits = std::max(0, key_bits - static_cast<int>(std::bit_width(count)));
  room.block_ends.clear();
  LsbBitWriter bits(out, capacity);
  for (uint32_t begin = 0; begin < count; begin += kBlockRecords) {
    const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(kBlockRecords, count - begin));
    const int64_t block_start = static_cast<int64_t>(bits.bytes());
    // slack: the min over i < n - 1 of d_i = (bytes through record i) - R i.
    // A record of at most 8 (R - 1) bits adds fewer than R bytes, so d
    // falls over a run of such records and the min is at a run's end:
    // d is taken before a longer record (a long gap) and before the last.
    int64_t slack = INT64_MAX;
    constexpr uint64_t kShortRecordBits = 8 * (R - 1);
    constexpr uint64_t kWeightBits = kExtraBytes < Record >> 0 ? 32 : 0;
    uint64_t previous = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const Record& record = records[begin + i];
      const uint64_t offset = record.arc - base;
      const uint64_t key = offset >> 32;
      const uint64_t neighbour = offset & UINT32_MAX;
      if (i == 0) {
        bits.put(key, key_bits);
        bits.put(neighbour, neighbour_bits);
      } else {
        const uint64_t record_bits = ((key - previous) >> rice_bits) + 1 + rice_bits + neighbour_bits + kWeightBits;
        if (i + 1 == n || record_bits > kShortRecordBits) {
          slack = std::min(slack, static_cast<int64_t>(bits.bytes()) - block_start - R * (i - 1));
        }
        put_gap_and_neighbour(key - previous, rice_bits, neighbour, neighbour_bits, &bits);
      }
      previous = key;
      if constexpr (kWeightBits > 0) bits.put(std::bit_cast<uint32_t>(weight_of(record)), 32);
    }
    bits.align();
    const int64_t block_bytes = static_cast<int64_t>(bits.bytes()) - block_start;
    if (bits.overflowed() || block_bytes > R * n || (n > 1 && block_bytes > R * (n - 1) + slack)) {
      return false;
    }
    room.block_ends.push_back(static_cast<uint32_t>(bits.bytes()));
  }
  *size = bits.bytes();
  *segment = SpillSegment{0,
                          count,
                          base,
                          static_cast<uint8_t>(key_bits),
                          static_cast<uint8_t>(neighbour_bits),
                          static_cast<uint8_t>(rice_bits),
                          0};  // first_block: set when written
  return true;
}

// Doubles the bucket width until `offset` fits: bucket i takes over buckets
// 2i and 2i+1 (their buffers are flushed first).
template <typename Record>
Status BucketRouter<Record>::grow(uint64_t offset) {
  if (!can_grow_) return out_of_range();
  SG_RETURN_IF_ERROR(flush_all());
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
    std::fill(extents_.begin(), extents_.end(), Extent{});  // joined buckets start new extents
  }
  return Status::OK();
}

template <typename Record>
Status BucketRouter<Record>::add_many(const Record* records, size_t count) {
  size_t i = 0;
  for (;;) {
    size_t routed = 0;
    SG_RETURN_IF_ERROR(add_lane(0, records + i, count - i, &routed));
    i += routed;
    if (i == count) return Status::OK();
    SG_RETURN_IF_ERROR(grow(records[i].arc - base_));
  }
}

template <typename Record>
Status BucketRouter<Record>::add_lane(size_t lane_index, const Record* records, size_t count, size_t* routed) {
  Lane& lane = lanes_[lane_index];
  *routed = count;
  if (!slot_bucket_.empty()) return add_many_by_slot(lane, records, count);
  const uint64_t base = base_;
  const int width_bits = width_bits_;
  const uint64_t bucket_count = bucket_count_;
  Record* const* buffer_of = lane.buffer_of.data();
  const size_t capacity = buffer_records_;
  uint32_t* fill = lane.fill.data();
  for (size_t i = 0; i < count; ++i) {
    const uint64_t bucket = (records[i].arc - base) >> width_bits;
    if (bucket >= bucket_count) {
      *routed = i;
      break;
    }
    const uint32_t at = fill[bucket];
    buffer_of[bucket][at] = records[i];
    fill[bucket] = at + 1;
    if (at + 1 == capacity) SG_RETURN_IF_ERROR(flush_full(lane, static_cast<uint32_t>(bucket)));
  }
  return Status::OK();
}

// add_many for buckets of unequal ranges (open_ranges): a slot's bucket is
// looked up, the rest as above, with the fields in registers (R-MAT 22's
// relabelling pass routes 134 M records this way).
template <typename Record>
Status BucketRouter<Record>::add_many_by_slot(Lane& lane, const Record* records, size_t count) {
  const uint64_t base = base_;
  const int width_bits = width_bits_;
  const uint32_t* slot_bucket = slot_bucket_.data();
  const uint64_t slot_count = slot_bucket_.size();
  Record* const* buffer_of = lane.buffer_of.data();
  const size_t capacity = buffer_records_;
  uint32_t* fill = lane.fill.data();
  for (size_t i = 0; i < count; ++i) {
    const uint64_t slot = (records[i].arc - base) >> width_bits;
    if (slot >= slot_count) return out_of_range();
    const uint32_t bucket = slot_bucket[slot];
    const uint32_t at = fill[bucket];
    buffer_of[bucket][at] = records[i];
    fill[bucket] = at + 1;
    if (at + 1 == capacity) SG_RETURN_IF_ERROR(flush_full(lane, bucket));
  }
  return Status::OK();
}

template <typename Record>
Status BucketRouter<Record>::finish() {
  SG_RETURN_IF_ERROR(flush_all());
  std::vector<Record>().swap(buffers_);
  lanes_.clear();  // the sort phase reads the spill without their buffers and rooms
  return Status::OK();
}

template <typename Record>
void BucketRouter<Record>::remove() {
  (void)spill_.close();  // unnamed: closing frees it
}

template class BucketRouter<PlainArc>;
template class BucketRouter<WeightedArc>;

}  // namespace sg
