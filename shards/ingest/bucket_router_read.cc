// The bucket router's reading back: a segment's records, packed, direct or
// coded, and a bucket's runs of adjacent segments at once.
#include "shards/ingest/bucket_router.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <utility>

#include "shards/format/striping.h"
#include "shards/ingest/spill_fields.h"

namespace sg {

using spill_fields::get_gap_and_neighbour;
using spill_fields::kExtraBytes;
using spill_fields::PackedFields;
using spill_fields::record_of;

template <typename Record>
Status BucketRouter<Record>::read(const SpillSegment& segment, uint64_t first, uint64_t count, Record* out) const {
  assert(first + count <= segment.records);
  if (segment.rice_bits != SpillSegment::kPacked) return read_coded(segment, first, count, out);
  if (direct()) return read_direct(segment, first, count, out);
  const size_t record_bytes = segment.value_bytes + kExtraBytes<Record>;
  uint8_t* bytes = reinterpret_cast<uint8_t*>(out);
  SG_RETURN_IF_ERROR(spill_.pread_all(bytes, count * record_bytes, segment.offset + first * record_bytes));
  // Unpacked in place from the last record: each lands at or after where
  // its packed bytes were, past every record not yet unpacked.
  const PackedFields fields(segment);
  // Eight bytes loaded per record, value_bytes kept: from the last record,
  // each load stays inside `out` and before any record already unpacked.
  for (uint64_t i = count; i-- > 0;) out[i] = fields.unpack<Record>(bytes + i * record_bytes);
  return Status::OK();
}

// Records [first, first + count) of a direct segment, through the read
// stage: whole aligned blocks, as many records at a time as it holds.
template <typename Record>
Status BucketRouter<Record>::read_direct(const SpillSegment& segment, uint64_t first, uint64_t count,
                                         Record* out) const {
  const size_t record_bytes = segment.value_bytes + kExtraBytes<Record>;
  // The last record's eight-byte load may reach a block past the range.
  read_stage();
  const uint64_t per_read = (read_stage_.size() - 3 * kAlignBytes) / record_bytes;
  const PackedFields fields(segment);
  for (uint64_t done = 0; done < count;) {
    const uint64_t take = std::min(count - done, per_read);
    const uint64_t begin = segment.offset + (first + done) * record_bytes;
    const uint64_t aligned_begin = begin / kAlignBytes * kAlignBytes;
    const uint64_t aligned_end = align_up(begin + take * record_bytes, kAlignBytes);
    SG_RETURN_IF_ERROR(spill_.pread_all(read_stage_.data(), aligned_end - aligned_begin, aligned_begin));
    const uint8_t* src = read_stage_.data() + (begin - aligned_begin);
    for (uint64_t i = 0; i < take; ++i) out[done + i] = fields.unpack<Record>(src + i * record_bytes);
    done += take;
  }
  return Status::OK();
}

template <typename Record>
void BucketRouter<Record>::discard(uint32_t bucket) const {
  for (const SpillSegment& segment : segments_[bucket]) spill_.punch_hole(segment.offset, segment.bytes);
}

template <typename Record>
Status BucketRouter<Record>::read_coded(const SpillSegment& segment, uint64_t first, uint64_t count,
                                        Record* out) const {
  assert(first % kBlockRecords == 0 && (count % kBlockRecords == 0 || first + count == segment.records));
  if (count == 0) return Status::OK();
  const size_t block = segment.first_block + first / kBlockRecords;
  const size_t end_block = segment.first_block + (first + count - 1) / kBlockRecords + 1;
  const uint64_t begin_byte = first == 0 ? 0 : block_ends_[block - 1];
  const uint64_t size = block_ends_[end_block - 1] - begin_byte;
  if (size > count * sizeof(Record)) return Status::Corruption("spill segment larger than its records");
  // Read into the end of the room the records take, decoded from the front
  // (code_segment checked that no record's bytes are overwritten before
  // they are decoded).
  uint8_t* const coded = reinterpret_cast<uint8_t*>(out) + count * sizeof(Record) - size;
  SG_RETURN_IF_ERROR(spill_.pread_all(coded, size, segment.offset + begin_byte));
  return decode_coded(segment, block, end_block, count, coded, out);
}

template <typename Record>
Status BucketRouter<Record>::decode_coded(const SpillSegment& segment, size_t block, size_t end_block, uint64_t count,
                                          const uint8_t* coded, Record* out) const {
  const uint64_t begin_byte = block == segment.first_block ? 0 : block_ends_[block - 1];
  const int key_bits = segment.value_bytes;
  const int rice_bits = segment.rice_bits;
  const uint64_t key_range = uint64_t{1} << key_bits;  // key_bits <= 32
  uint64_t at = 0;
  for (size_t b = block; b < end_block; ++b) {
    const uint64_t block_begin = (b == segment.first_block ? 0 : block_ends_[b - 1]) - begin_byte;
    LsbBitReader bits(coded + block_begin, block_ends_[b] - begin_byte - block_begin);
    const uint64_t n = std::min<uint64_t>(kBlockRecords, count - at);
    uint64_t key = 0;
    for (uint64_t i = 0; i < n; ++i, ++at) {
      uint64_t neighbour = 0;
      if (i == 0) {
        key = bits.get(key_bits);
        neighbour = bits.get(segment.neighbour_bits);
      } else {
        key += get_gap_and_neighbour(rice_bits, key_range >> rice_bits, segment.neighbour_bits, &neighbour, &bits);
      }
      float weight = 0;
      if constexpr (kExtraBytes < Record >> 0) weight = std::bit_cast<float>(static_cast<uint32_t>(bits.get(32)));
      if (bits.failed() || key >= key_range) return Status::Corruption("spill segment block does not decode");
      out[at] = record_of(segment.base + (key << 32 | neighbour), weight, out);
    }
  }
  return Status::OK();
}

template <typename Record>
Status BucketRouter<Record>::decode_segment(const SpillSegment& segment, const uint8_t* bytes, Record* out) const {
  if (segment.rice_bits != SpillSegment::kPacked) {
    const size_t end_block = segment.first_block + (segment.records - 1) / kBlockRecords + 1;
    return decode_coded(segment, segment.first_block, end_block, segment.records, bytes, out);
  }
  const size_t record_bytes = segment.value_bytes + kExtraBytes<Record>;
  const PackedFields fields(segment);
  for (uint64_t i = 0; i < segment.records; ++i) out[i] = fields.unpack<Record>(bytes + i * record_bytes);
  return Status::OK();
}

template <typename Record>
uint8_t* BucketRouter<Record>::read_stage() const {
  if (read_stage_.size() == 0) read_stage_.allocate(read_stage_bytes(buffer_records_));
  return read_stage_.data();
}

template <typename Record>
void BucketRouter<Record>::prefetch_bucket(uint32_t bucket) const {
  if (direct()) return;
  const std::vector<SpillSegment>& segments = segments_[bucket];
  for (size_t i = 0; i < segments.size();) {
    const uint64_t begin = segments[i].offset;
    uint64_t end = begin;
    while (i < segments.size() && segments[i].offset == end) end += segments[i++].bytes;
    spill_.prefetch(begin, end - begin);
  }
}

template <typename Record>
Status BucketRouter<Record>::read_bucket(uint32_t bucket, Record* out) const {
  return read_bucket_in_pieces(bucket, out, UINT64_MAX, [](uint64_t) { return Status::OK(); });
}

// Runs of adjacent segments (a bucket's extents), each read at once into the
// stage and decoded from there; a segment larger than the stage is read on
// its own, in place, and one larger than `out` in pieces.
template <typename Record>
Status BucketRouter<Record>::read_bucket_in_pieces(uint32_t bucket, Record* out, uint64_t capacity,
                                                   const std::function<Status(uint64_t)>& sink) const {
  const std::vector<SpillSegment>& segments = segments_[bucket];
  uint8_t* const stage = read_stage();
  // Room for the last record's eight-byte load past the run.
  const uint64_t room = read_stage_.size() - 2 * kAlignBytes;
  uint64_t at = 0;  // records in `out`, not yet given to the sink
  for (size_t i = 0; i < segments.size();) {
    if (segments[i].records > capacity) {  // on its own, in pieces
      if (at > 0) SG_RETURN_IF_ERROR(sink(std::exchange(at, 0)));
      SG_RETURN_IF_ERROR(read_segment_in_pieces(segments[i++], out, capacity, sink));
      continue;
    }
    // Only a full `out` goes to the sink: read_bucket's sink keeps nothing.
    if (at + segments[i].records > capacity) SG_RETURN_IF_ERROR(sink(std::exchange(at, 0)));
    const uint64_t begin = segments[i].offset;
    uint64_t end = begin;
    uint64_t records = at;
    size_t j = i;
    while (j < segments.size() && segments[j].offset == end && end + segments[j].bytes - begin <= room &&
           records + segments[j].records <= capacity) {
      records += segments[j].records;
      end += segments[j++].bytes;
    }
    if (j == i) {  // larger than the stage: in place
      SG_RETURN_IF_ERROR(read(segments[i], 0, segments[i].records, out + at));
      at += segments[i++].records;
      continue;
    }
    SG_RETURN_IF_ERROR(spill_.pread_all(stage, end - begin, begin));
    for (; i < j; ++i) {
      SG_RETURN_IF_ERROR(decode_segment(segments[i], stage + (segments[i].offset - begin), out + at));
      at += segments[i].records;
    }
  }
  return at > 0 ? sink(at) : Status::OK();
}

// A segment larger than `out`: pieces of whole coding blocks.
template <typename Record>
Status BucketRouter<Record>::read_segment_in_pieces(const SpillSegment& segment, Record* out, uint64_t capacity,
                                                    const std::function<Status(uint64_t)>& sink) const {
  const uint64_t block = segment.rice_bits == SpillSegment::kPacked ? 1 : kBlockRecords;
  const uint64_t piece = capacity / block * block;
  if (piece == 0) return Status::InvalidArgument("a sort batch smaller than a spill block");
  for (uint64_t done = 0; done < segment.records;) {
    const uint64_t take = std::min<uint64_t>(segment.records - done, piece);
    SG_RETURN_IF_ERROR(read(segment, done, take, out));
    SG_RETURN_IF_ERROR(sink(take));
    done += take;
  }
  return Status::OK();
}

// The reading members; bucket_router.cc instantiates the class's others.
template Status BucketRouter<PlainArc>::read(const SpillSegment&, uint64_t, uint64_t, PlainArc*) const;
template Status BucketRouter<PlainArc>::read_bucket(uint32_t, PlainArc*) const;
template Status BucketRouter<PlainArc>::read_bucket_in_pieces(uint32_t, PlainArc*, uint64_t,
                                                              const std::function<Status(uint64_t)>&) const;
template void BucketRouter<PlainArc>::prefetch_bucket(uint32_t) const;
template void BucketRouter<PlainArc>::discard(uint32_t) const;
template Status BucketRouter<WeightedArc>::read(const SpillSegment&, uint64_t, uint64_t, WeightedArc*) const;
template Status BucketRouter<WeightedArc>::read_bucket(uint32_t, WeightedArc*) const;
template Status BucketRouter<WeightedArc>::read_bucket_in_pieces(uint32_t, WeightedArc*, uint64_t,
                                                                 const std::function<Status(uint64_t)>&) const;
template void BucketRouter<WeightedArc>::prefetch_bucket(uint32_t) const;
template void BucketRouter<WeightedArc>::discard(uint32_t) const;

}  // namespace sg
