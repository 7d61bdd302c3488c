#include "shards/ingest/bvgraph_reader.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <future>

#include "base/file_util.h"
#include "base/mapped_file.h"
#include "base/parallel.h"
#include "shards/ingest/bvgraph_decoder.h"

namespace sg {
namespace {

std::string strip_suffix(const std::string& path) {
  for (const char* suffix : {".graph", ".properties", ".offsets"}) {
    if (path.ends_with(suffix)) return path.substr(0, path.size() - std::strlen(suffix));
  }
  return path;
}

struct DecodedArc {
  uint32_t src, dst;
};

// One block of a round: nodes [first, end) from bit `bit`; decoding stops
// early once `cap` arcs are out, at a node boundary.
struct Block {
  uint64_t first = 0, end = 0, bit = 0;
  uint64_t stop_node = 0, stop_bit = 0;
  std::vector<DecodedArc> arcs;
  Status status;
  std::unique_ptr<BvDecoder> decoder;
};

// A round's blocks: `used` decoded, the first `taken` handed out.
struct Round {
  std::vector<Block> blocks;
  size_t used = 0, taken = 0;
  uint64_t end_bit = 0;  // where the taken blocks end
  Status status;
};

class BvGraphReader : public EdgeReader {
 public:
  Status open(const std::string& path) {
    base_ = strip_suffix(path);
    std::string text;
    SG_RETURN_IF_ERROR(read_whole_file(base_ + ".properties", &text));
    SG_RETURN_IF_ERROR(parse_bv_properties(text, base_ + ".properties", &props_));
    if (props_.nodes > uint64_t{UINT32_MAX}) {
      return Status::BadInput(base_ + ".properties: more than 2^32-1 nodes");
    }
    SG_RETURN_IF_ERROR(graph_.open(base_ + ".graph"));
    shape_.format = InputFormat::kWebGraph;
    shape_.declared_vertices = props_.nodes;
    std::error_code ec;
    // Unbounded reference chains (maxrefcount -1) cannot be decoded from a
    // window of offsets: those graphs are read in sequence too.
    const bool bounded = props_.max_ref_count >= 0;
    if (bounded && std::filesystem::exists(base_ + ".offsets", ec)) {
      SG_RETURN_IF_ERROR(offsets_file_.open(base_ + ".offsets"));
      offsets_ = std::make_unique<OffsetWindow>(offsets_file_.data(), offsets_file_.size(), props_, graph_.size() * 8,
                                                base_ + ".offsets");
      SG_RETURN_IF_ERROR(offsets_->extend_to_bit(0));
    } else {
      sequential_ = std::make_unique<BvDecoder>(props_, graph_.data(), graph_.size(), nullptr, base_ + ".graph");
      sequential_->start(0, 0);
      std::fprintf(stderr, "shardgraph: %s; decoding %s.graph in one sequential pass\n",
                   bounded ? (base_ + ".offsets missing").c_str() : "unbounded reference chains (maxrefcount -1)",
                   base_.c_str());
    }
    return Status::OK();
  }

  const InputShape& shape() const override { return shape_; }
  uint64_t bytes_read() const override { return handed_bit_.load(std::memory_order_relaxed) / 8; }
  uint64_t bytes_total() const override { return graph_.size(); }
  uint64_t declared_arcs() const override { return props_.arcs; }

  // Hands out the current round while the next one is decoded in the
  // background (the decoding state — next_node_, the offsets window — is
  // only touched by that task).
  Status next_batch(std::vector<RawEdge>* batch, size_t max_edges) override {
    batch->clear();
    round_arcs_ = std::max<size_t>(max_edges, 1024) * 4;
    while (batch->size() < max_edges) {
      if (emit_block_ == current_.taken) {
        if (!decoding_.valid()) {
          if (done_) break;
          start_next_round();
        }
        decoding_.get();
        std::swap(current_, next_);
        emit_block_ = emit_at_ = 0;
        SG_RETURN_IF_ERROR(current_.status);
        handed_bit_.store(current_.end_bit, std::memory_order_relaxed);
        if (next_node_ >= props_.nodes)
          done_ = true;  // the task has ended: no race
        else
          start_next_round();
        continue;
      }
      const std::vector<DecodedArc>& arcs = current_.blocks[emit_block_].arcs;
      const size_t take = std::min(max_edges - batch->size(), arcs.size() - emit_at_);
      for (size_t i = emit_at_; i < emit_at_ + take; ++i) batch->push_back(RawEdge{arcs[i].src, arcs[i].dst, 1.0f});
      emit_at_ += take;
      if (emit_at_ == arcs.size()) {
        ++emit_block_;
        emit_at_ = 0;
      }
    }
    if (batch->empty() && arcs_ != props_.arcs) {
      return Status::BadInput(base_ + ".graph: holds " + std::to_string(arcs_) + " arcs, the properties say " +
                              std::to_string(props_.arcs));
    }
    return Status::OK();
  }

 private:
  void start_next_round() {
    // round_arcs_ is the consumer's: the task gets its own copy.
    decoding_ =
        std::async(std::launch::async, [this, arcs = round_arcs_] { next_.status = decode_round(&next_, arcs); });
  }

  // Decodes about `round_arcs` arcs from next_node_ on, into `round`.
  Status decode_round(Round* round, size_t round_arcs) {
    round->used = round->taken = 0;
    const size_t parts = sequential_ != nullptr ? 1 : 2 * std::max<size_t>(parallel_threads(), 1);
    SG_RETURN_IF_ERROR(plan_blocks(round, parts, round_arcs));
    const size_t cap = 4 * round_arcs / round->used + 1;
    parallel_for(size_t{0}, round->used, size_t{1}, [&](size_t lo, size_t hi) {
      for (size_t b = lo; b < hi; ++b) decode_block(&round->blocks[b], cap);
    });
    // Blocks are taken in order up to the first that stopped early; the
    // round after starts where it stopped (later blocks are decoded again).
    for (size_t b = 0; b < round->used; ++b) {
      const Block& block = round->blocks[b];
      SG_RETURN_IF_ERROR(block.status);
      arcs_ += block.arcs.size();
      next_node_ = block.stop_node;
      next_bit_ = block.stop_bit;
      ++round->taken;
      if (block.stop_node < block.end) break;
    }
    round->end_bit = next_bit_;
    // Random access reaches back at most the margin's bits.
    const uint64_t keep_bit =
        offsets_ != nullptr && offsets_->holds(margin_start()) ? offsets_->offset(margin_start()) : next_bit_;
    graph_.release_before(keep_bit / 8);
    return Status::OK();
  }

  uint64_t margin_start() const {
    const uint64_t margin = BvDecoder::margin_nodes(props_);
    return next_node_ > margin ? next_node_ - margin : 0;
  }

  // Splits [next_node_, ...) into `parts` blocks of about equal bits,
  // covering about `round_arcs` arcs in all.
  Status plan_blocks(Round* round, size_t parts, size_t round_arcs) {
    const double bits_per_arc =
        props_.arcs > 0 ? 8.0 * static_cast<double>(graph_.size()) / static_cast<double>(props_.arcs) : 8.0;
    const uint64_t block_bits = std::max<uint64_t>(
        64, static_cast<uint64_t>(bits_per_arc * static_cast<double>(round_arcs) / static_cast<double>(parts)));
    if (offsets_ != nullptr) {
      offsets_->drop_before(margin_start());
      SG_RETURN_IF_ERROR(offsets_->extend_to_bit(next_bit_ + parts * block_bits));
    }
    std::vector<Block>& blocks = round->blocks;
    if (blocks.size() < parts) blocks.resize(parts);  // kept: their buffers and decoders are reused
    uint64_t node = next_node_, bit = next_bit_;
    size_t used = 0;
    for (; used < parts && node < props_.nodes; ++used) {
      Block& block = blocks[used];
      block.first = node;
      block.bit = bit;
      block.end = props_.nodes;
      if (offsets_ != nullptr) {
        block.end = std::max(node + 1, offsets_->node_at_bit(node + 1, bit + block_bits));
        block.end = std::min(block.end, offsets_->end());
        if (block.end < props_.nodes) bit = offsets_->offset(block.end);
      }
      node = block.end;
    }
    round->used = used;
    return Status::OK();
  }

  void decode_block(Block* block, size_t cap) {
    // Without offsets one decoder runs through the whole graph, its window
    // carried from round to round.
    BvDecoder* decoder = sequential_.get();
    if (decoder == nullptr) {
      if (block->decoder == nullptr) {
        block->decoder =
            std::make_unique<BvDecoder>(props_, graph_.data(), graph_.size(), offsets_.get(), base_ + ".graph");
      }
      decoder = block->decoder.get();
      decoder->start(block->first, block->bit);
    }
    block->arcs.clear();
    block->status = Status::OK();
    while (decoder->next_node() < block->end && block->arcs.size() < cap) {
      uint64_t node = 0;
      const std::vector<uint64_t>* successors = nullptr;
      block->status = decoder->next(&node, &successors);
      if (!block->status.ok()) return;
      const size_t at = block->arcs.size();
      block->arcs.resize(at + successors->size());
      DecodedArc* out = block->arcs.data() + at;
      for (uint64_t dst : *successors) *out++ = DecodedArc{static_cast<uint32_t>(node), static_cast<uint32_t>(dst)};
    }
    block->stop_node = decoder->next_node();
    block->stop_bit = decoder->bit_position();
  }

  std::string base_;
  BvProperties props_;
  MappedFile graph_;
  InputShape shape_;
  MappedFile offsets_file_;
  std::unique_ptr<OffsetWindow> offsets_;  // null: decoded in sequence
  std::unique_ptr<BvDecoder> sequential_;
  Round current_, next_;
  size_t emit_block_ = 0, emit_at_ = 0;  // the next arc of current_ to hand out
  size_t round_arcs_ = 0;
  bool done_ = false;
  std::atomic<uint64_t> handed_bit_{0};
  uint64_t next_node_ = 0, next_bit_ = 0, arcs_ = 0;  // the decoding task's
  std::future<void> decoding_;                        // last: destroyed (waited for) first
};

}  // namespace

std::string bvgraph_basename(const std::string& path) {
  const std::string base = strip_suffix(path);
  std::error_code ec;
  if (std::filesystem::is_regular_file(base + ".properties", ec) &&
      std::filesystem::is_regular_file(base + ".graph", ec)) {
    return base;
  }
  return "";
}

Status open_bvgraph_reader(const std::string& path, std::unique_ptr<EdgeReader>* reader) {
  auto bv = std::make_unique<BvGraphReader>();
  SG_RETURN_IF_ERROR(bv->open(path));
  *reader = std::move(bv);
  return Status::OK();
}

}  // namespace sg
