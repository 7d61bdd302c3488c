// WebGraph BVGraph decoding (Boldi & Vigna, "The WebGraph Framework I:
// Compression Techniques", WWW 2004), written from the paper and the
// format's documentation; no JVM. A node's successor list is stored as
//   outdegree; reference (0 = none, else x - r is copied from);
//   copy blocks over the referenced list (alternately copied and skipped,
//     the rest copied when the count is even);
//   intervals of consecutive ids (gamma-coded, at least min_interval long);
//   residuals, gap-coded (the first relative to x, zig-zag signed).
// The successor list is the merge of the three sorted parts.
//
// Decoding runs in blocks of nodes (ParaGrapher's model): a block starts at
// a node whose bit offset is known (from the .offsets file, held for the
// nodes being decoded and a margin before them) and decodes forward keeping
// the last `window` lists; a reference to a node before the block start is
// decoded by random access at its offset, recursively: a chain of
// references is at most `max_ref_count` long, so the margin is
// window * (max_ref_count + 1) nodes.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "base/status.h"
#include "compression/instantaneous_codes.h"

namespace sg {

enum class BvCode { kUnary, kGamma, kDelta, kZeta, kNibble };

struct BvProperties {
  uint64_t nodes = 0;
  uint64_t arcs = 0;
  uint32_t window = 7;
  uint32_t min_interval = 4;
  uint32_t zeta_k = 3;
  int64_t max_ref_count = 3;  // < 0: unbounded
  BvCode outdegrees = BvCode::kGamma;
  BvCode references = BvCode::kUnary;
  BvCode blocks = BvCode::kGamma;
  BvCode block_count = BvCode::kGamma;
  BvCode residuals = BvCode::kZeta;
  BvCode offsets = BvCode::kGamma;
};

// Parses a .properties file's text; errors name `path` and the line.
Status parse_bv_properties(const std::string& text, const std::string& path, BvProperties* props);

// The bit offsets of a window of nodes, read from a .offsets file (gaps
// coded as the properties say, node 0 first) as decoding advances. Checks
// the offsets stay inside the .graph file.
class OffsetWindow {
 public:
  OffsetWindow(const uint8_t* data, uint64_t size_bytes, const BvProperties& props, uint64_t graph_bits,
               std::string path);
  // Reads offsets until the last held one is at least `bit`, or all are
  // held (then end() == nodes and offset(nodes) is the file's end).
  Status extend_to_bit(uint64_t bit);
  // Forgets the offsets of nodes before `node`.
  void drop_before(uint64_t node);
  uint64_t first() const { return first_; }
  uint64_t end() const { return first_ + offsets_.size() - (complete_ ? 1 : 0); }
  bool holds(uint64_t node) const { return node >= first_ && node < first_ + offsets_.size(); }
  uint64_t offset(uint64_t node) const { return offsets_[node - first_]; }
  // The first held node from `node` on whose offset is at least `bit`
  // (end() if none).
  uint64_t node_at_bit(uint64_t node, uint64_t bit) const;

 private:
  BitReader bits_;
  BvProperties props_;
  uint64_t graph_bits_;
  std::string path_;
  uint64_t first_ = 0, read_ = 0, last_ = 0;
  bool complete_ = false;
  std::vector<uint64_t> offsets_;  // of nodes first_.., then the end marker once complete
};

class BvDecoder {
 public:
  // `offsets` may be null: then only sequential decoding from node 0 works
  // (a reference before the decoding start is an error).
  BvDecoder(const BvProperties& props, const uint8_t* graph, uint64_t graph_bytes, const OffsetWindow* offsets,
            std::string path);

  // Positions the decoder at `node`, whose list starts at bit `bit`.
  void start(uint64_t node, uint64_t bit);
  // Decodes the next node's successors; returns its id in *node.
  Status next(uint64_t* node, const std::vector<uint64_t>** successors);
  uint64_t next_node() const { return node_; }
  uint64_t bit_position() const { return bits_.position(); }
  // Nodes before a block start that random access may need.
  static uint64_t margin_nodes(const BvProperties& props);

 private:
  struct Ring {
    std::vector<std::vector<uint64_t>> lists;
    std::vector<uint64_t> nodes;
  };
  Status decode_node(BitReader* bits, uint64_t x, Ring* ring, int depth, std::vector<uint64_t>* out);
  Status referenced_list(uint64_t r, Ring* ring, int depth, const std::vector<uint64_t>** list);
  Status random_access(uint64_t r, int depth, std::vector<uint64_t>* out);
  int max_depth() const;
  Status copy_blocks(BitReader* bits, const std::vector<uint64_t>& ref, uint64_t degree, std::vector<uint64_t>* copied);
  Status intervals_and_residuals(BitReader* bits, uint64_t x, uint64_t extra, std::vector<uint64_t>* part);
  uint64_t read(BitReader* bits, BvCode code) const;
  Status corrupt(uint64_t x, const std::string& why) const;

  BvProperties props_;
  const uint8_t* graph_;
  uint64_t graph_bytes_;
  const OffsetWindow* offsets_;
  std::string path_;
  BitReader bits_;
  uint64_t node_ = 0;
  Ring ring_;
  Ring no_ring_;  // random access: no lists at hand
  std::vector<uint64_t> copied_, extra_;
  std::deque<std::vector<uint64_t>> deep_lists_;  // one per random-access depth; a deque keeps them in place
};

}  // namespace sg
