#include "apps/jobs/arc_exchange.h"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "shards/ingest/binary_reader.h"
#include "shards/ingest/open_input.h"

namespace sg {
namespace {

constexpr size_t kReadBatchEdges = size_t{1} << 16;
constexpr size_t kLeastPieceBytes = 4096;

// A piece's header: its sender's state and the bytes of part arcs that
// come before the reverse part's.
struct PieceHeader {
  uint32_t flags = 0;
  uint32_t reserved = 0;
  uint64_t part_bytes = 0;
};
static_assert(sizeof(PieceHeader) == 16);
constexpr uint32_t kSenderDone = 1;    // has read all of its shares
constexpr uint32_t kSenderFailed = 2;  // could not: every rank stops

// The arcs bound for each rank this round.
class OutgoingPieces {
 public:
  // A piece holds at most `piece_bytes` and one arc more (the one that fills it).
  OutgoingPieces(size_t ranks, bool weighted, size_t piece_bytes) : part_(ranks), reverse_(ranks), weighted_(weighted) {
    for (size_t r = 0; r < ranks; ++r) {
      part_[r].reserve(piece_bytes + 16);
      reverse_[r].reserve(piece_bytes + 16);
    }
  }
  // Appends an arc; returns the piece's bytes.
  size_t add(size_t rank, bool reverse, uint32_t src, uint32_t dst, float weight) {
    std::vector<uint8_t>& out = reverse ? reverse_[rank] : part_[rank];
    uint8_t record[12];
    std::memcpy(record, &src, 4);
    std::memcpy(record + 4, &dst, 4);
    std::memcpy(record + 8, &weight, 4);
    out.insert(out.end(), record, record + packed_arc_bytes(weighted_));
    return part_[rank].size() + reverse_[rank].size();
  }
  // Every piece after its header, in rank order, into *send; clears them.
  void assemble(uint32_t flags, std::vector<uint8_t>* send, std::vector<uint64_t>* counts) {
    send->clear();
    counts->assign(part_.size(), 0);
    for (size_t r = 0; r < part_.size(); ++r) {
      PieceHeader header{flags, 0, part_[r].size()};
      const size_t at = send->size();
      send->resize(at + sizeof(header));
      std::memcpy(send->data() + at, &header, sizeof(header));
      send->insert(send->end(), part_[r].begin(), part_[r].end());
      send->insert(send->end(), reverse_[r].begin(), reverse_[r].end());
      (*counts)[r] = send->size() - at;
      part_[r].clear();
      reverse_[r].clear();
    }
  }

 private:
  std::vector<std::vector<uint8_t>> part_, reverse_;
  bool weighted_;
};

size_t owner_of(const std::vector<uint32_t>& bounds, uint64_t vertex) {
  return static_cast<size_t>(std::upper_bound(bounds.begin(), bounds.end(), vertex) - bounds.begin()) - 1;
}

// Routes batch[*cursor...] until a piece is full or the batch ends.
Status route_edges(const std::vector<RawEdge>& batch, const ArcRouting& routing, size_t piece_bytes, bool directed,
                   OutgoingPieces* pieces, size_t* cursor, bool* full) {
  const uint64_t vertices = routing.bounds.back();
  for (; *cursor < batch.size() && !*full; ++*cursor) {
    const RawEdge& e = batch[*cursor];
    if (routing.drop_self_loops && e.src == e.dst) continue;
    const uint64_t u = e.src - routing.id_base, v = e.dst - routing.id_base;
    if (e.src < routing.id_base || e.dst < routing.id_base || u >= vertices || v >= vertices)
      return Status::Corruption("the input changed while it was read (an id past the one counted)");
    const size_t to = owner_of(routing.bounds, v), from = owner_of(routing.bounds, u);
    const auto src = static_cast<uint32_t>(e.src), dst = static_cast<uint32_t>(e.dst);
    size_t bytes = pieces->add(to, false, src, dst, e.weight);
    if (directed) {
      bytes = std::max(bytes, pieces->add(from, true, src, dst, e.weight));
    } else if (from != to) {
      bytes = std::max(bytes, pieces->add(from, false, src, dst, e.weight));
    }
    *full = bytes >= piece_bytes;
  }
  return Status::OK();
}

// The received pieces (and this rank's own) to the parts' queues; returns
// the senders' flags, or'd, and whether all of them are done.
void deliver(const std::vector<uint8_t>& own, const std::vector<uint64_t>& own_counts,
             const std::vector<uint8_t>& received, const std::vector<uint64_t>& counts, int rank,
             QueuedEdgeReader* part, QueuedEdgeReader* reverse, uint32_t* any_flags, bool* all_done) {
  std::vector<uint8_t> part_arcs = part->spare(),
                       reverse_arcs = reverse != nullptr ? reverse->spare() : std::vector<uint8_t>{};
  *any_flags = 0;
  *all_done = true;
  size_t own_at = 0, received_at = 0;
  for (size_t r = 0; r < counts.size(); ++r) {
    const bool self = static_cast<int>(r) == rank;
    const uint8_t* piece = self ? own.data() + own_at : received.data() + received_at;
    const uint64_t bytes = self ? own_counts[r] : counts[r];
    own_at += own_counts[r];
    received_at += self ? 0 : counts[r];
    assert(bytes >= sizeof(PieceHeader));
    PieceHeader header;
    std::memcpy(&header, piece, sizeof(header));
    *any_flags |= header.flags;
    *all_done = *all_done && (header.flags & kSenderDone) != 0;
    const uint8_t* arcs = piece + sizeof(header);
    part_arcs.insert(part_arcs.end(), arcs, arcs + header.part_bytes);
    reverse_arcs.insert(reverse_arcs.end(), arcs + header.part_bytes, piece + bytes);
  }
  part->push(std::move(part_arcs));
  if (reverse != nullptr) reverse->push(std::move(reverse_arcs));
}

}  // namespace

Status ShareStream::next(std::vector<RawEdge>* batch, size_t max_edges) {
  batch->clear();
  while (true) {
    if (reader_ != nullptr) {
      SG_RETURN_IF_ERROR(reader_->next_batch(batch, max_edges));
      if (!batch->empty()) return Status::OK();
    }
    if (at_ == shares_.size()) return Status::OK();
    const InputShare& share = shares_[at_++];
    reader_.reset();
    if (share.shares > 1) {
      SG_RETURN_IF_ERROR(
          open_binary_share(share.path, share.format, share.binary_weights, share.share, share.shares, &reader_));
    } else {
      SG_RETURN_IF_ERROR(open_edge_reader(share.path, share.format, share.binary_weights, &reader_));
    }
    reader_->set_max_id(uint64_t{UINT32_MAX} - 1);
  }
}

Status exchange_arcs(const std::vector<InputShare>& shares, const ArcRouting& routing, Communicator* comm,
                     QueuedEdgeReader* part, QueuedEdgeReader* reverse, ExchangeTally* tally, bool* others_failed) {
  const size_t ranks = static_cast<size_t>(comm->size());
  const size_t piece_bytes = std::max(routing.round_bytes / ranks, kLeastPieceBytes);
  ShareStream stream(shares);
  OutgoingPieces pieces(ranks, routing.weighted, piece_bytes);
  std::vector<RawEdge> batch;
  std::vector<uint8_t> send, received;
  std::vector<uint64_t> send_counts, counts;
  size_t cursor = 0;
  bool read_all = false;
  Status local;
  // Every round reads on (a piece fills) or a rank finishes, so the rounds
  // are bounded by the arcs read over the least piece plus the ranks.
  while (true) {
    ++tally->rounds;
    bool full = false;
    // A part whose ingest failed reads no more: stop every rank now.
    if (local.ok() && (part->abandoned() || (reverse != nullptr && reverse->abandoned())))
      local = Status::Interrupted("this rank's part failed");
    read_all = read_all || !local.ok();
    while (!read_all && !full) {
      if (cursor == batch.size()) {
        local = stream.next(&batch, kReadBatchEdges);
        cursor = 0;
        read_all = !local.ok() || batch.empty();
        tally->edges_read += local.ok() ? batch.size() : 0;
        if (read_all) break;
      }
      local = route_edges(batch, routing, piece_bytes, reverse != nullptr, &pieces, &cursor, &full);
      read_all = !local.ok();
    }
    const uint32_t flags = (read_all ? kSenderDone : 0) | (local.ok() ? 0 : kSenderFailed);
    pieces.assemble(flags, &send, &send_counts);
    for (size_t r = 0; r < ranks; ++r) {
      if (static_cast<int>(r) != comm->rank()) tally->bytes_sent += send_counts[r] - sizeof(PieceHeader);
    }
    SG_RETURN_IF_ERROR(comm->all_to_all(send, send_counts, &received, &counts));
    uint32_t any_flags = 0;
    bool all_done = false;
    deliver(send, send_counts, received, counts, comm->rank(), part, reverse, &any_flags, &all_done);
    if ((any_flags & kSenderFailed) != 0) {
      *others_failed = local.ok();
      return local.ok() ? Status::Interrupted("another rank failed while reading its share") : local;
    }
    if (all_done) return local;
  }
}

}  // namespace sg
