#include "shards/ingest/chunk_encoder.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <type_traits>

#include "compression/adjacency_codec.h"
#include "compression/checksum.h"
#include "compression/chunk_packing.h"
#include "compression/varint.h"

namespace sg {

ChunkEncoder::ChunkEncoder(uint32_t chunk_bytes, bool weighted, const std::vector<uint32_t>* interval_starts,
                           ListCodec codec, bool degrees, GapChoice gap_choice, bool entropy_first)
    : chunk_bytes_(chunk_bytes),
      cut_bytes_(chunk_bytes),
      weighted_(weighted),
      keep_degrees_(degrees),
      codec_(codec),
      gap_choice_(gap_choice),
      entropy_first_(entropy_first && gap_choice == GapChoice::kEntropy && codec == ListCodec::kV3),
      interval_starts_(interval_starts) {
  assert(chunk_bytes_ >= 16);
}

void ChunkEncoder::begin(uint32_t first_vertex) {
  first_vertex_ = next_vertex_ = first_vertex;
  const auto& starts = *interval_starts_;
  next_interval_ = static_cast<size_t>(std::lower_bound(starts.begin(), starts.end(), first_vertex) - starts.begin());
  chunk_open_ = false;
  bytes_.clear();
  chunks_.clear();
  gap_coding_chunks_ = {};
  packed_chunks_ = 0;
  degrees_.clear();
  continued_edges_ = 0;
}

// Closes the open chunk at an interval boundary.
void ChunkEncoder::start_vertex(uint32_t vertex) {
  const auto& starts = *interval_starts_;
  bool at_boundary = false;
  while (next_interval_ < starts.size() && starts[next_interval_] <= vertex) {
    at_boundary |= starts[next_interval_] == vertex;
    ++next_interval_;
  }
  if (at_boundary && chunk_open_) close_chunk();
}

void ChunkEncoder::open_chunk(uint32_t vertex) {
  chunk_open_ = true;
  chunk_ = ChunkIndexEntry{};
  chunk_.first_vertex = vertex;
  counts_.clear();
  firsts_.clear();
  gaps_.clear();
  weights_.clear();
  sizer_.reset(vertex, codec_ == ListCodec::kV3 ? gap_choice_ : GapChoice::kVarintOnly);
  lists_bytes_ = codec_ != ListCodec::kV1 ? sizer_.bytes() : 0;
}

// Codes the open chunk and appends it to the part's output.
void ChunkEncoder::close_chunk() {
  assert(chunk_open_);
  ChunkIndexEntry entry = chunk_;
  entry.offset = bytes_.size();
  const uint8_t* weight_bytes = reinterpret_cast<const uint8_t*>(weights_.data());
  bytes_.insert(bytes_.end(), weight_bytes, weight_bytes + (weighted_ ? 4 * weights_.size() : 0));
  ChunkLayout layout = sizer_.best_layout();
  const size_t layout_at = bytes_.size();
  const ChunkListParts parts{counts_, firsts_, gaps_.data()};
  if (entropy_first_ && entropy_if_smaller(parts, layout, layout_at)) {
    layout = ChunkLayout{layout.anchor, GapCoding::kEntropy};
  } else {
    write_chunk_lists(codec_, layout, entry.first_vertex, parts, &bytes_);
    assert(bytes_.size() - entry.offset == payload_bytes());
    if (packs()) layout = pack_smallest(parts, layout, layout_at);
  }
  ++gap_coding_chunks_[static_cast<size_t>(layout.gaps)];
  entry.bytes = static_cast<uint32_t>(bytes_.size() - entry.offset);
  if (packs()) aim_cut_at_stored_size(entry.bytes);
  entry.checksum = checksum64(bytes_.data() + entry.offset, entry.bytes);
  chunks_.push_back(entry);
  chunk_open_ = false;
}

// The entropy layout at bytes_[layout_at, ...), kept when smaller than the
// best other layout unpacked (the sizer's count); else nothing is left
// written. Writing and packing that layout only to compare took about a
// tenth of an unordered first pass's sort (R-MAT 24 on one emulated HDD),
// where the entropy layout nearly always wins.
bool ChunkEncoder::entropy_if_smaller(const ChunkListParts& parts, ChunkLayout best, size_t layout_at) {
  const ChunkLayout entropy{best.anchor, GapCoding::kEntropy};
  write_chunk_lists(codec_, entropy, chunk_.first_vertex, parts, &bytes_);
  if (bytes_[layout_at] == entropy.byte() && bytes_.size() - layout_at < sizer_.bytes(best)) return true;
  bytes_.resize(layout_at);
  return false;
}

// Fewest bytes: the coded lists packed when that is smaller, and of the
// varint and StreamVByte layouts the one that packs smaller (StreamVByte's
// gaps pack better: R-MAT 22's chunks to 0.83 of their size, against 0.88
// in varints), or the entropy layout when smaller still. The chunk's
// lists are at bytes_[layout_at, end).
ChunkLayout ChunkEncoder::pack_smallest(const ChunkListParts& parts, ChunkLayout layout, size_t layout_at) {
  bool packed = pack_chunk_lists(&bytes_, layout_at);
  // The entropy layout codes the lists' bits, not their bytes (on R-MAT
  // about 8% less than the best packed layout). Where it beats the best
  // layout packed, the other one packed is not tried: the two pack within
  // a few percent of each other, and that zstd pass was a tenth of the
  // entropy ingest's extra CPU time.
  // Under entropy_first the entropy layout has lost to this layout
  // unpacked already, so it cannot beat it packed either: not coded again.
  const ChunkLayout entropy{layout.anchor, GapCoding::kEntropy};
  if (gap_choice_ == GapChoice::kEntropy && !entropy_first_ &&
      recode_if_smaller(parts, entropy, false, layout_at, &packed)) {
    packed_chunks_ += packed;
    return entropy;
  }
  const ChunkLayout other =
      layout.gaps == GapCoding::kVarint ? sizer_.best_stream_layout() : ChunkLayout{layout.anchor};
  if (other.byte() != layout.byte() && recode_if_smaller(parts, other, true, layout_at, &packed)) layout = other;
  packed_chunks_ += packed;
  return layout;
}

// Codes the chunk's lists at bytes_[layout_at, end) again in `layout`
// (packed when `pack` and that is smaller) and keeps that if it is smaller
// and in that layout (the entropy coder falls back to varints when it
// cannot allocate); else puts the previous bytes back.
bool ChunkEncoder::recode_if_smaller(const ChunkListParts& parts, ChunkLayout layout, bool pack, size_t layout_at,
                                     bool* packed) {
  pack_scratch_.assign(bytes_.begin() + static_cast<std::ptrdiff_t>(layout_at), bytes_.end());
  bytes_.resize(layout_at);
  write_chunk_lists(codec_, layout, chunk_.first_vertex, parts, &bytes_);
  const bool written = bytes_[layout_at] == layout.byte();
  const bool recoded_packed = pack && pack_chunk_lists(&bytes_, layout_at);
  if (written && bytes_.size() - layout_at < pack_scratch_.size()) {
    *packed = recoded_packed;
    return true;
  }
  bytes_.resize(layout_at);
  bytes_.insert(bytes_.end(), pack_scratch_.begin(), pack_scratch_.end());
  return false;
}

// Packed chunks store less than the unpacked size they are cut at (R-MAT
// 22's about 0.68 of it), and each chunk pays alignment, an index entry and
// its coder's tables: the next chunk is cut where it should store about
// chunk_bytes, by this chunk's ratio, at most at twice chunk_bytes
// unpacked (the encoder's buffers are budgeted for that). A chunk cut early
// (at an interval, a vertex limit or the part's end) says little about
// the ratio.
void ChunkEncoder::aim_cut_at_stored_size(uint64_t stored_bytes) {
  const uint64_t unpacked_bytes = payload_bytes();
  if (unpacked_bytes < cut_bytes_ / 2 || stored_bytes == 0) return;
  const double least = chunk_bytes_;
  const double aim = least * static_cast<double>(unpacked_bytes) / static_cast<double>(stored_bytes);
  cut_bytes_ = static_cast<uint32_t>(std::clamp(aim, least, 2 * least));
}

// A chunk holds at most kMaxChunkVertices vertices, or a vertex per byte of
// its aligned extent when that is more: a run of empty lists codes in a few
// bytes, and a chunk spanning millions of vertices would make one decoded
// window hold millions of 4-byte offsets. (Reading cuts windows at a
// vertex limit too: shards/io/chunk_stream.h.) A 2-D block of an ordered
// graph is mostly empty lists: 64 Ki vertices a 4 KiB chunk keeps it at
// |V|/16 bytes.
bool ChunkEncoder::vertex_room() const {
  constexpr uint64_t kAlign = 4096;
  return counts_.size() < std::max(kMaxChunkVertices, (payload_bytes() + kAlign - 1) / kAlign * kAlign);
}

void ChunkEncoder::add_empty_lists_until(uint32_t vertex) {
  for (uint32_t v = next_vertex_; v < vertex; ++v) {
    start_vertex(v);
    if (chunk_open_ && !vertex_room()) close_chunk();
    if (!chunk_open_) open_chunk(v);
    counts_.push_back(0);
    if (codec_ != ListCodec::kV1) {
      sizer_.add_empty();
      lists_bytes_ = sizer_.bytes();
    } else {
      lists_bytes_ += 1;
    }
    chunk_.vertex_count = static_cast<uint32_t>(counts_.size());
    if (keep_degrees_) degrees_.push_back(0);
    if (payload_bytes() >= cut_bytes_) close_chunk();
  }
  next_vertex_ = std::max(next_vertex_, vertex);
}

void ChunkEncoder::count_edges(uint32_t vertex, uint32_t count) {
  if (vertex < first_vertex_) {
    continued_edges_ += count;
    return;
  }
  if (keep_degrees_) degrees_.push_back(count);
  next_vertex_ = vertex + 1;
}

template <typename Neighbour>
void ChunkEncoder::append_list(uint32_t vertex, const Neighbour* neighbours, uint32_t count) {
  assert(count > 0);
  const uint32_t* ids = nullptr;
  if constexpr (std::is_same_v<Neighbour, uint32_t>) {
    ids = neighbours;
  } else {
    list_ids_.resize(count);
    for (uint32_t i = 0; i < count; ++i) list_ids_[i] = neighbour_id(neighbours[i]);
    ids = list_ids_.data();
  }
  list_gaps_.resize(count);
  const GapSizes gap_sizes = encode_gaps(ids, count, list_gaps_.data());
  const uint64_t gap_bytes = gap_sizes.bytes[0];
  // The chunk's coded size with the list; the list opens a new chunk when
  // it would push one holding other lists past chunk_bytes.
  ChunkListSizer sizer;
  auto lists_bytes_with = [&] {
    if (codec_ == ListCodec::kV1) {
      const uint32_t list_vertex = chunk_.first_vertex + static_cast<uint32_t>(counts_.size());
      return lists_bytes_ + varint_length(count) + NeighbourEncoder::encoded_bytes(list_vertex, ids[0], true) +
             gap_bytes;
    }
    sizer = sizer_;
    sizer.add_list(ids[0], count, gap_sizes);
    return sizer.bytes();
  };
  if (chunk_open_ && !counts_.empty() && !vertex_room()) close_chunk();
  if (!chunk_open_) open_chunk(vertex);
  uint64_t lists_bytes = lists_bytes_with();
  const uint64_t weight_bytes = weighted_ ? 4 * (uint64_t{weights_.size()} + count) : 0;
  if (!counts_.empty() && lists_bytes + weight_bytes > cut_bytes_) {
    close_chunk();
    open_chunk(vertex);
    lists_bytes = lists_bytes_with();
  }
  assert(vertex == chunk_.first_vertex + counts_.size());
  lists_bytes_ = lists_bytes;
  sizer_ = sizer;
  counts_.push_back(count);
  firsts_.push_back(ids[0]);
  gaps_.insert(gaps_.end(), list_gaps_.begin(), list_gaps_.begin() + (count - 1));
  if (weighted_) {
    for (uint32_t i = 0; i < count; ++i) weights_.push_back(neighbour_weight(neighbours[i]));
  }
  chunk_.vertex_count = static_cast<uint32_t>(counts_.size());
  chunk_.edge_count += count;
}

template <typename Neighbour>
void ChunkEncoder::add_list(uint32_t vertex, const Neighbour* neighbours, uint32_t count) {
  const bool continues =
      vertex + 1 == first_vertex_ && next_vertex_ == first_vertex_ && chunks_.empty() && !chunk_open_;
  assert(continues || vertex >= next_vertex_);
  if (count == 0) {  // an empty list, like the vertices without one
    add_empty_lists_until(vertex + 1);
    return;
  }
  if (!continues) {
    add_empty_lists_until(vertex);
    start_vertex(vertex);
  }
  const uint64_t worst_bytes = uint64_t{count} * (kMaxVarint32Bytes + (weighted_ ? 4 : 0)) + kMaxVarint32Bytes;
  if (worst_bytes >= cut_bytes_) {
    add_long_list(vertex, neighbours, count);
  } else {
    append_list(vertex, neighbours, count);
  }
  count_edges(vertex, count);
  if (chunk_open_ && payload_bytes() >= cut_bytes_) close_chunk();
}

// A list that may not fit one chunk: pieces of about chunk_bytes, each
// coded on its own and ending its chunk, the last one shared with what follows.
template <typename Neighbour>
void ChunkEncoder::add_long_list(uint32_t vertex, const Neighbour* neighbours, uint32_t count) {
  uint32_t done = 0;
  while (done < count) {
    // The piece's size as codec 1 codes it on its own (codec 2 differs by
    // the first neighbour's anchor at most), and for codec 3 a control
    // byte per four gaps more (its StreamVByte data are never longer).
    uint64_t piece_bytes = 0;
    uint32_t end = done;
    while (end < count) {
      const uint32_t id = neighbour_id(neighbours[end]);
      piece_bytes +=
          NeighbourEncoder::encoded_bytes(end == done ? vertex : neighbour_id(neighbours[end - 1]), id, end == done);
      piece_bytes += weighted_ ? 4 : 0;
      piece_bytes += codec_ == ListCodec::kV3 && (end - done) % 4 == 0 ? 1 : 0;
      ++end;
      if (piece_bytes >= cut_bytes_) break;
    }
    append_list(vertex, neighbours + done, end - done);
    done = end;
    if (done < count) close_chunk();  // the rest of the list starts the next chunk
  }
}

void ChunkEncoder::add_degree(uint32_t vertex, uint64_t edges) {
  assert(keep_degrees_);
  if (vertex < first_vertex_) {
    continued_edges_ += edges;
    return;
  }
  if (vertex >= next_vertex_) add_empty_lists_until(vertex + 1);
  assert(vertex + 1 == next_vertex_);
  degrees_[vertex - first_vertex_] += static_cast<uint32_t>(edges);
}

void ChunkEncoder::finish(uint32_t end_vertex) {
  add_empty_lists_until(end_vertex);
  if (chunk_open_) close_chunk();
}

template void ChunkEncoder::add_list<uint32_t>(uint32_t, const uint32_t*, uint32_t);
template void ChunkEncoder::add_list<WeightedNeighbour>(uint32_t, const WeightedNeighbour*, uint32_t);

}  // namespace sg
