// A delta run: the arcs one update adds to or removes from one edge space
// (docs/formats.md, "Delta runs"), in dense ids, sorted by key vertex, then
// neighbour, a removal before an add of the same arc (an update removes
// first). It is cut into checksummed blocks of about `block_bytes`, and ends
// with an index of the blocks' key ranges, so a selective read finds an
// active vertex's arcs with one block read, and a fixed footer:
//
//   block    [float32 weight x adds]   (weighted spaces; first, so aligned)
//            records: varint key gap (from the previous record's key, the
//            block's first from 0), varint (neighbour gap << 1 | removed)
//            (from the previous neighbour of the same key, else from 0)
//   index    DeltaBlockEntry x blocks  (raw, little-endian)
//   footer   u64 index offset, u64 blocks, u64 XXH3 of the index, u64 magic
//
// The reader takes a hard end pointer and refuses malformed bytes with a
// Status: a bad checksum, records out of order or beyond |V|, counts that
// differ from the index, bytes left over.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace sg {

struct DeltaArc {
  uint32_t key = 0;
  uint32_t neighbour = 0;
  float weight = 1.0f;  // of an add in a weighted space
  bool removed = false;
};

// The run's order: by key, then neighbour, a removal first.
inline bool delta_before(const DeltaArc& a, const DeltaArc& b) {
  if (a.key != b.key) return a.key < b.key;
  if (a.neighbour != b.neighbour) return a.neighbour < b.neighbour;
  return a.removed && !b.removed;
}

// One block of the index; stored as-is (40 bytes).
struct DeltaBlockEntry {
  uint32_t first_key;
  uint32_t last_key;
  uint32_t records;
  uint32_t adds;
  uint64_t offset;  // of the block's payload in the run
  uint32_t bytes;
  uint32_t reserved;  // 0
  uint64_t checksum;  // XXH3-64 of the payload
};
static_assert(sizeof(DeltaBlockEntry) == 40, "delta block entries are stored raw");

constexpr uint64_t kDeltaRunMagic = 0x316e757274646773ULL;  // "sgdtrun1"
constexpr uint32_t kDefaultDeltaBlockBytes = 64 << 10;

class DeltaRunWriter {
 public:
  DeltaRunWriter(bool weighted, uint32_t block_bytes);
  // Arcs come in the run's order (delta_before); one out of order is an
  // InvalidArgument.
  Status add(const DeltaArc& arc);
  // The whole run; the writer is then spent.
  Status finish(std::string* run);
  uint64_t records() const { return records_; }

 private:
  void flush_block();

  bool weighted_;
  uint32_t block_bytes_;
  std::string run_;
  std::string block_records_;
  std::vector<float> block_weights_;
  std::vector<DeltaBlockEntry> index_;
  DeltaBlockEntry block_{};
  DeltaArc last_{};
  uint64_t records_ = 0;
};

class DeltaRunReader {
 public:
  // Checks the footer and the index of the run in [begin, end), which must
  // outlive the reader; keys and neighbours must be below `num_vertices`.
  Status open(const uint8_t* begin, const uint8_t* end, bool weighted, uint32_t num_vertices);
  size_t blocks() const { return index_.size(); }
  const DeltaBlockEntry& block(size_t i) const { return index_[i]; }
  // The first block whose key range ends at or after `key` (blocks() if
  // none): the only one that can start `key`'s arcs.
  size_t find_block(uint32_t key) const;
  // Appends block i's arcs to *arcs, checking its checksum and records.
  Status decode_block(size_t i, std::vector<DeltaArc>* arcs) const;
  uint64_t records() const { return records_; }

 private:
  const uint8_t* begin_ = nullptr;
  bool weighted_ = false;
  uint32_t num_vertices_ = 0;
  uint64_t records_ = 0;
  std::vector<DeltaBlockEntry> index_;
};

}  // namespace sg
