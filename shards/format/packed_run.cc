#include "shards/format/packed_run.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "compression/stream_vbyte.h"

namespace sg {
namespace {

// Appends `count` values as StreamVByte.
void append_svb(SvbLengths lengths, const uint32_t* values, uint32_t count, std::vector<uint8_t>* out) {
  const size_t at = out->size();
  out->resize(at + svb_max_bytes(count));
  out->resize(at + svb_encode(lengths, values, count, out->data() + at));
}

// About the most bytes a record packs to: a StreamVByte control byte per
// four values of each stream, at most four bytes a value, and its weight.
uint64_t most_record_bytes(bool weighted) { return 2 * 4 + 1 + (weighted ? sizeof(float) : 0); }

}  // namespace

Status PackedRun::pack(const DeltaRunReader& reader, bool weighted) {
  start(weighted, reader.records());
  std::vector<DeltaArc> arcs;
  for (size_t i = 0; i < reader.blocks(); ++i) {
    arcs.clear();
    SG_RETURN_IF_ERROR(reader.decode_block(i, &arcs));
    add_block(reader.block(i).first_key, reader.block(i).last_key, arcs);
  }
  finish();
  return Status::OK();
}

void PackedRun::start(bool weighted, uint64_t records_hint) {
  weighted_ = weighted;
  ready_ = false;
  segments_.assign(1, {});
  // Reserved at the most: pages never written stay unbacked, and the bytes
  // are never moved to grow.
  segments_.back().reserve(records_hint * most_record_bytes(weighted));
  blocks_.clear();
}

void PackedRun::add_block(uint32_t first_key, uint32_t last_key, std::span<const DeltaArc> arcs) {
  const uint32_t records = static_cast<uint32_t>(arcs.size());
  gaps_.resize(records);
  words_.resize(records);
  uint32_t last = first_key;
  for (uint32_t r = 0; r < records; ++r) {
    assert(arcs[r].key >= last && arcs[r].neighbour < (1u << 31));
    gaps_[r] = arcs[r].key - last;
    last = arcs[r].key;
    words_[r] = arcs[r].neighbour << 1 | (arcs[r].removed ? 1u : 0u);
  }
  std::vector<uint8_t>& bytes = segments_.back();
  Block block{first_key, last_key, records, static_cast<uint32_t>(segments_.size() - 1), bytes.size(), 0, 0, 0};
  append_svb(SvbLengths::k0124, gaps_.data(), records, &bytes);
  block.word_offset = static_cast<uint32_t>(bytes.size() - block.offset);
  append_svb(SvbLengths::k1234, words_.data(), records, &bytes);
  block.weight_offset = static_cast<uint32_t>(bytes.size() - block.offset);
  if (weighted_) {
    const size_t at = bytes.size();
    bytes.resize(at + sizeof(float) * records);
    for (uint32_t r = 0; r < records; ++r) {
      const float weight = arcs[r].removed ? 1.0f : arcs[r].weight;
      std::memcpy(bytes.data() + at + sizeof(float) * r, &weight, sizeof(float));
    }
  }
  block.bytes = static_cast<uint32_t>(bytes.size() - block.offset);
  blocks_.push_back(block);
}

// The bytes keep their capacity: a large reserve's unwritten pages take no
// memory, and copying them to fit would fault in as many fresh pages.
void PackedRun::finish() {
  std::vector<uint32_t>().swap(gaps_);
  std::vector<uint32_t>().swap(words_);
  ready_ = true;
}

void PackedRun::join(std::vector<PackedRun>&& runs) {
  assert(!runs.empty());
  weighted_ = runs.front().weighted_;
  segments_.clear();
  blocks_.clear();
  size_t blocks = 0;
  for (const PackedRun& run : runs) blocks += run.blocks_.size();
  blocks_.reserve(blocks);
  for (PackedRun& run : runs) {
    assert(run.ready_ && run.weighted_ == weighted_);
    assert(blocks_.empty() || run.blocks_.empty() || blocks_.back().last_key <= run.blocks_.front().first_key);
    const auto shift = static_cast<uint32_t>(segments_.size());
    for (std::vector<uint8_t>& segment : run.segments_) segments_.push_back(std::move(segment));
    for (Block block : run.blocks_) {
      block.segment += shift;
      blocks_.push_back(block);
    }
    run = PackedRun();
  }
  ready_ = true;
}

uint64_t PackedRun::bytes() const {
  uint64_t bytes = blocks_.size() * sizeof(Block);
  for (const std::vector<uint8_t>& segment : segments_) bytes += segment.size();
  return bytes;
}

size_t PackedRun::find_block(uint32_t key) const {
  const auto it =
      std::partition_point(blocks_.begin(), blocks_.end(), [key](const Block& b) { return b.last_key < key; });
  return static_cast<size_t>(it - blocks_.begin());
}

void PackedRun::decode_block(size_t i, std::vector<DeltaArc>* arcs) const {
  const Block& b = blocks_[i];
  thread_local std::vector<uint32_t> gaps, words;  // per thread: windows decode blocks in parallel
  gaps.resize(b.records);
  words.resize(b.records);
  const uint8_t* begin = segments_[b.segment].data() + b.offset;
  const uint8_t* end = begin + b.bytes;
  svb_decode(SvbLengths::k0124, begin, begin + svb_control_bytes(b.records), begin + b.word_offset, b.records,
             gaps.data());
  const uint8_t* words_at = begin + b.word_offset;
  svb_decode(SvbLengths::k1234, words_at, words_at + svb_control_bytes(b.records), begin + b.weight_offset, b.records,
             words.data());
  const size_t at = arcs->size();
  arcs->resize(at + b.records);
  DeltaArc* out = arcs->data() + at;
  uint32_t key = b.first_key;
  for (uint32_t r = 0; r < b.records; ++r) {
    key += gaps[r];
    out[r] = DeltaArc{key, words[r] >> 1, 1.0f, (words[r] & 1) != 0};
  }
  if (weighted_) {
    const uint8_t* weights = begin + b.weight_offset;
    for (uint32_t r = 0; r < b.records; ++r) std::memcpy(&out[r].weight, weights + sizeof(float) * r, sizeof(float));
  }
  assert(!weighted_ || begin + b.weight_offset + sizeof(float) * b.records == end);
  (void)end;
}

}  // namespace sg
