// A delta run (delta_run.h) re-coded in memory for a run over updates,
// which decodes each block once or twice a step: the varints of a stored
// run decode one byte after another (about 10 ns a record), while here each
// block's key gaps and neighbour words are two StreamVByte streams
// (compression/stream_vbyte.h) that decode a group of four at a time. It is
// built from a checked run and never stored, so its decoder checks nothing.
//
//   block    key gaps     StreamVByte 0124 (from the block's first key)
//            words        StreamVByte 1234 (neighbour << 1 | removed)
//            [float32 weight x records]   (weighted runs; 1 for a removal)
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "shards/format/delta_run.h"

namespace sg {

class PackedRun {
 public:
  struct Block {
    uint32_t first_key = 0, last_key = 0;
    uint32_t records = 0;
    uint32_t segment = 0;                                    // which bytes hold it
    uint64_t offset = 0;                                     // of its key gaps in them
    uint32_t word_offset = 0, weight_offset = 0, bytes = 0;  // from `offset`
  };

  // Re-codes every block of `reader` (a run of a `weighted` space),
  // decoding it checked.
  Status pack(const DeltaRunReader& reader, bool weighted);
  // The same a block at a time: start(), then each block's arcs (decoded
  // checked, in order; ids below 2^31), then finish(). `records_hint`: the
  // records to come, if known (their bytes are reserved at once).
  void start(bool weighted, uint64_t records_hint = 0);
  void add_block(uint32_t first_key, uint32_t last_key, std::span<const DeltaArc> arcs);
  void finish();
  // Becomes `runs` (each finished, packed apart, its keys at or after the
  // one before's) joined in order: slices of a run packed in parallel. Their
  // bytes move, uncopied, as segments of this run.
  void join(std::vector<PackedRun>&& runs);
  bool ready() const { return ready_; }
  size_t blocks() const { return blocks_.size(); }
  const Block& block(size_t i) const { return blocks_[i]; }
  // The first block whose key range ends at or after `key` (blocks() if none).
  size_t find_block(uint32_t key) const;
  // Appends block i's arcs to *arcs.
  void decode_block(size_t i, std::vector<DeltaArc>* arcs) const;
  uint64_t bytes() const;

 private:
  bool ready_ = false;
  bool weighted_ = false;
  std::vector<std::vector<uint8_t>> segments_;  // the last one while packing
  std::vector<Block> blocks_;
  std::vector<uint32_t> gaps_, words_;  // while packing
};

}  // namespace sg
