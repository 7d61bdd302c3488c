#include "apps/kernels/neighbour_blocks.h"

#include <algorithm>

namespace sg {
namespace {

constexpr uint32_t kPieceVertices = uint32_t{1} << 16;  // degrees read at a time

// Adds the degrees of [begin, end) (both spaces on a directed graph) to `slots`.
Status add_degrees(Engine* engine, uint32_t begin, uint32_t end, std::vector<uint32_t>* piece,
                   std::vector<uint64_t>* slots) {
  slots->assign(end - begin, 0);
  const bool directed = engine->graph().directed();
  for (const SpaceKind kind : {SpaceKind::kIn, SpaceKind::kOut}) {
    if (kind == SpaceKind::kOut && !directed) break;
    piece->resize(end - begin);
    SG_RETURN_IF_ERROR(engine->read_degrees(kind, begin, end, piece->data()));
    for (uint32_t i = 0; i < end - begin; ++i) (*slots)[i] += (*piece)[i];
  }
  return Status::OK();
}

}  // namespace

uint64_t gathered_block_bytes(uint64_t slots, uint64_t vertices, uint64_t value_bytes) {
  // Values, and per vertex a base and a count per direction, its arcs and
  // its two degrees while the block is laid out.
  return slots * value_bytes + vertices * (3 * sizeof(uint64_t) + 4 * sizeof(uint32_t));
}

Status plan_vertex_blocks(Engine* engine, uint64_t room_bytes, uint64_t value_bytes, uint64_t extra_bytes,
                          std::vector<VertexBlock>* blocks) {
  auto bytes = [&](const VertexBlock& b, uint64_t more_slots) {
    const uint64_t slots = b.slots + more_slots;
    return gathered_block_bytes(slots, b.end - b.begin + 1, value_bytes) + slots * extra_bytes;
  };
  blocks->clear();
  // A rank plans its owned vertices (only they have lists on it).
  const uint32_t first = engine->owned_begin(), n = engine->owned_end();
  std::vector<uint32_t> piece;
  std::vector<uint64_t> slots;
  VertexBlock current{first, first, 0};
  for (uint32_t lo = first; lo < n;) {
    const uint32_t hi = static_cast<uint32_t>(std::min<uint64_t>(n, uint64_t{lo} + kPieceVertices));
    SG_RETURN_IF_ERROR(add_degrees(engine, lo, hi, &piece, &slots));
    for (uint32_t v = lo; v < hi; ++v) {
      const uint64_t s = slots[v - lo];
      if (current.end > current.begin && bytes(current, s) > room_bytes) {
        blocks->push_back(current);
        current = VertexBlock{v, v, 0};
      }
      current.end = v + 1;
      current.slots += s;
    }
    lo = hi;
  }
  if (current.end > current.begin) blocks->push_back(current);
  if (!engine->distributed()) return Status::OK();
  // Every block is a pull step on every rank (a collective): ranks with
  // fewer blocks pad with empty ones.
  std::vector<uint64_t> counts;
  SG_RETURN_IF_ERROR(engine->communicator()->gather_values(uint64_t{blocks->size()}, &counts));
  const uint64_t most = *std::max_element(counts.begin(), counts.end());
  blocks->resize(most, VertexBlock{n, n, 0});
  return Status::OK();
}

template <typename T>
Status GatheredBlock<T>::layout(Engine* engine, const VertexBlock& block) {
  begin_ = block.begin;
  const uint32_t size = block.end - block.begin;
  const bool directed = engine->graph().directed();
  // Freed, not reused: vectors keep their largest capacity, and blocks
  // differ in shape (many small lists, or a few long ones), so reused ones
  // would hold the largest values of one block and the most vertices of
  // another at once, more than the block's room.
  clear();
  std::vector<uint32_t> degree(size);
  uint64_t next = 0;
  base_[0].resize(size);
  if (directed) base_[1].resize(size);
  std::vector<uint32_t> out_degree;
  SG_RETURN_IF_ERROR(engine->read_degrees(SpaceKind::kIn, block.begin, block.end, degree.data()));
  if (directed) {
    out_degree.resize(size);
    SG_RETURN_IF_ERROR(engine->read_degrees(SpaceKind::kOut, block.begin, block.end, out_degree.data()));
  }
  arcs_.assign(size, 0);
  for (uint32_t i = 0; i < size; ++i) {
    arcs_[i] = uint64_t{degree[i]} + (directed ? out_degree[i] : 0);
    base_[0][i] = next;
    next += degree[i];
    if (directed) {
      base_[1][i] = next;
      next += out_degree[i];
    }
  }
  if (next != block.slots) return Status::Corruption("neighbour block: degrees changed while gathering");
  for (int side = 0; side < (directed ? 2 : 1); ++side) count_[side].assign(size, 0);
  slots_.resize(next);
  return Status::OK();
}

template <typename T>
void SplitPieces<T>::init(const Graph& graph, SpaceKind kind) {
  split_.clear();
  // Pieces in different blocks hold different neighbours: only a list split
  // over chunks of one block can repeat one across pieces.
  for (size_t stored : graph.blocks(kind)) {
    const auto& index = graph.stored_space(stored).index;
    for (size_t c = 1; c < index.size(); ++c) {
      const uint32_t v = index[c].first_vertex;
      if (v + 1 == index[c - 1].end_vertex()) split_.push_back(v);
    }
  }
  std::sort(split_.begin(), split_.end());
  split_.erase(std::unique(split_.begin(), split_.end()), split_.end());
}

template <typename T>
void GatheredBlock<T>::drop(int side, uint32_t i, T value, uint32_t copies) {
  T* first = slots_.data() + base_[side][i];
  uint32_t& count = count_[side][i];
  for (uint32_t k = 0; k < count && copies > 0;) {
    if (first[k] == value) {
      first[k] = first[--count];
      --copies;
    } else {
      ++k;
    }
  }
}

template class SplitPieces<uint32_t>;
template class SplitPieces<uint64_t>;
template class GatheredBlock<uint32_t>;
template class GatheredBlock<uint64_t>;

}  // namespace sg
