#include "shards/format/delta_run.h"

#include <algorithm>
#include <cstring>

#include "compression/checksum.h"
#include "compression/varint.h"

namespace sg {
namespace {

constexpr size_t kFooterBytes = 4 * sizeof(uint64_t);

void append_raw(std::string* out, const void* data, size_t bytes) {
  if (bytes == 0) return;  // data may be null
  out->append(static_cast<const char*>(data), bytes);
}

void append_varint(std::string* out, uint64_t value) {
  uint8_t buffer[kMaxVarint64Bytes];
  append_raw(out, buffer, static_cast<size_t>(put_varint64(buffer, value) - buffer));
}

uint64_t load64(const uint8_t* p) {
  uint64_t value;
  std::memcpy(&value, p, sizeof(value));
  return value;
}

Status corrupt(const std::string& what) { return Status::Corruption("delta run: " + what); }

}  // namespace

DeltaRunWriter::DeltaRunWriter(bool weighted, uint32_t block_bytes)
    : weighted_(weighted), block_bytes_(std::max<uint32_t>(block_bytes, 16)) {}

Status DeltaRunWriter::add(const DeltaArc& arc) {
  if (records_ > 0 && delta_before(arc, last_)) {
    return Status::InvalidArgument("delta run: arc " + std::to_string(arc.key) + " -> " +
                                   std::to_string(arc.neighbour) + " out of order");
  }
  if (block_.records == 0) {
    block_.first_key = arc.key;
    last_ = DeltaArc{arc.key, 0, 1.0f, false};
  }
  const uint64_t neighbour_gap = arc.key == last_.key ? arc.neighbour - last_.neighbour : arc.neighbour;
  append_varint(&block_records_, arc.key - (block_.records == 0 ? 0 : last_.key));
  append_varint(&block_records_, neighbour_gap << 1 | (arc.removed ? 1 : 0));
  if (weighted_ && !arc.removed) block_weights_.push_back(arc.weight);
  block_.adds += arc.removed ? 0 : 1;
  block_.last_key = arc.key;
  ++block_.records;
  ++records_;
  last_ = arc;
  if (block_records_.size() + 4 * block_weights_.size() >= block_bytes_) flush_block();
  return Status::OK();
}

void DeltaRunWriter::flush_block() {
  if (block_.records == 0) return;
  block_.offset = run_.size();
  append_raw(&run_, block_weights_.data(), 4 * block_weights_.size());
  run_ += block_records_;
  block_.bytes = static_cast<uint32_t>(run_.size() - block_.offset);
  block_.checksum = checksum64(run_.data() + block_.offset, block_.bytes);
  index_.push_back(block_);
  block_ = DeltaBlockEntry{};
  block_records_.clear();
  block_weights_.clear();
}

Status DeltaRunWriter::finish(std::string* run) {
  flush_block();
  const uint64_t footer[4] = {run_.size(), index_.size(),
                              checksum64(index_.data(), index_.size() * sizeof(DeltaBlockEntry)), kDeltaRunMagic};
  append_raw(&run_, index_.data(), index_.size() * sizeof(DeltaBlockEntry));
  append_raw(&run_, footer, sizeof(footer));
  *run = std::move(run_);
  return Status::OK();
}

Status DeltaRunReader::open(const uint8_t* begin, const uint8_t* end, bool weighted, uint32_t num_vertices) {
  const uint64_t bytes = static_cast<uint64_t>(end - begin);
  if (bytes < kFooterBytes) return corrupt("shorter than its footer");
  const uint8_t* footer = end - kFooterBytes;
  if (load64(footer + 24) != kDeltaRunMagic) return corrupt("no footer (bad magic)");
  const uint64_t index_offset = load64(footer), blocks = load64(footer + 8);
  if (index_offset > bytes - kFooterBytes ||
      blocks != (bytes - kFooterBytes - index_offset) / sizeof(DeltaBlockEntry) ||
      (bytes - kFooterBytes - index_offset) % sizeof(DeltaBlockEntry) != 0) {
    return corrupt("index does not end at the footer");
  }
  if (checksum64(begin + index_offset, blocks * sizeof(DeltaBlockEntry)) != load64(footer + 16))
    return corrupt("index checksum mismatch");
  index_.resize(blocks);
  if (blocks > 0) std::memcpy(index_.data(), begin + index_offset, blocks * sizeof(DeltaBlockEntry));
  uint64_t at = 0;
  records_ = 0;
  for (size_t i = 0; i < blocks; ++i) {
    const DeltaBlockEntry& b = index_[i];
    // A record takes two bytes at least, and an add's weight four more.
    const uint64_t least_bytes = 2 * uint64_t{b.records} + (weighted ? 4 * uint64_t{b.adds} : 0);
    if (b.offset != at || b.bytes == 0 || b.records == 0 || b.adds > b.records || b.reserved != 0 ||
        least_bytes > b.bytes)
      return corrupt("block " + std::to_string(i) + " is malformed in the index");
    if (b.first_key > b.last_key || b.last_key >= num_vertices || (i > 0 && b.first_key < index_[i - 1].last_key))
      return corrupt("block " + std::to_string(i) + " keys out of order or beyond |V|");
    at += b.bytes;
    records_ += b.records;
  }
  if (at != index_offset) return corrupt("blocks do not end at the index");
  begin_ = begin;
  weighted_ = weighted;
  num_vertices_ = num_vertices;
  return Status::OK();
}

size_t DeltaRunReader::find_block(uint32_t key) const {
  const auto it =
      std::partition_point(index_.begin(), index_.end(), [key](const DeltaBlockEntry& b) { return b.last_key < key; });
  return static_cast<size_t>(it - index_.begin());
}

Status DeltaRunReader::decode_block(size_t i, std::vector<DeltaArc>* arcs) const {
  const DeltaBlockEntry& b = index_.at(i);
  const uint8_t* p = begin_ + b.offset;
  const uint8_t* end = p + b.bytes;
  auto fail = [&](const std::string& what) { return corrupt("block " + std::to_string(i) + what); };
  if (checksum64(p, b.bytes) != b.checksum) return fail(" checksum mismatch");
  const uint64_t weight_bytes = weighted_ ? uint64_t{4} * b.adds : 0;
  if (weight_bytes > b.bytes) return fail(" weights longer than the block");
  const uint8_t* weights = p;
  p += weight_bytes;
  // Written in place, sized once: the index gives the count.
  const size_t at = arcs->size();
  arcs->resize(at + b.records);
  DeltaArc* out = arcs->data() + at;
  uint64_t key = 0, neighbour = 0;
  bool last_removed = false;
  uint32_t adds = 0;
  for (uint32_t r = 0; r < b.records; ++r) {
    uint64_t key_gap = 0, word = 0;
    if ((p = get_varint64(p, end, &key_gap)) == nullptr || (p = get_varint64(p, end, &word)) == nullptr) {
      arcs->resize(at);
      return fail(" record " + std::to_string(r) + " truncated");
    }
    const bool removed = (word & 1) != 0;
    // Gaps are never negative, so the only order to check is a removal
    // after an add of the same arc.
    const bool same_arc = r > 0 && key_gap == 0 && word >> 1 == 0;
    neighbour = (r > 0 && key_gap == 0 ? neighbour : 0) + (word >> 1);
    key = key_gap > b.last_key ? uint64_t{b.last_key} + 1 : key + key_gap;
    if (key > b.last_key || (r == 0 && key != b.first_key) || neighbour >= num_vertices_ ||
        (same_arc && removed && !last_removed)) {
      arcs->resize(at);
      return fail(" record " + std::to_string(r) + " out of order, beyond its block or beyond |V|");
    }
    out[r] = DeltaArc{static_cast<uint32_t>(key), static_cast<uint32_t>(neighbour), 1.0f, removed};
    if (!removed) {
      if (adds == b.adds) {
        arcs->resize(at);
        return fail(" has more adds than its index says");
      }
      if (weighted_) std::memcpy(&out[r].weight, weights + 4 * adds, 4);
      ++adds;
    }
    last_removed = removed;
  }
  if (adds != b.adds || p != end || key != b.last_key) {
    arcs->resize(at);
    return fail(" counts, length or last key differ from its index");
  }
  return Status::OK();
}

}  // namespace sg
