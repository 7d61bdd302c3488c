// A distributed ingest's routing (docs/scale-out.md, "Distributed
// ingest"): every rank reads its share of the input and sends each arc to
// the rank owning its destination (that rank's part) and to the rank owning
// its source (its reverse part; for an undirected graph, the edge to both
// ends' owners). The ranks trade in rounds: a round sends at most
// `round_bytes / ranks` to each rank, so a rank receives at most
// `round_bytes` a round whatever the skew, and what it receives goes to its
// parts' ingests through their bounded queues (queued_edge_reader.h), which
// hold the rounds back when an ingest falls behind.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/communicator.h"
#include "shards/ingest/edge_reader.h"
#include "shards/ingest/queued_edge_reader.h"

namespace sg {

// Part of one input file a rank reads: all of it (shares == 1), or records
// [share * R / shares, (share + 1) * R / shares) of a plain binary file.
struct InputShare {
  std::string path;
  InputFormat format = InputFormat::kSnap;
  bool binary_weights = false;
  uint32_t share = 0, shares = 1;
};

// A rank's shares read one after the other, in batches.
class ShareStream {
 public:
  explicit ShareStream(const std::vector<InputShare>& shares) : shares_(shares) {}
  // The next batch; empty at the end of the last share.
  Status next(std::vector<RawEdge>* batch, size_t max_edges);
  // The shape of the share being read (valid after its first batch).
  const InputShape* shape() const { return reader_ != nullptr ? &reader_->shape() : nullptr; }
  const std::string& path() const { return shares_[at_ == 0 ? 0 : at_ - 1].path; }

 private:
  const std::vector<InputShare>& shares_;
  size_t at_ = 0;  // the next share to open
  std::unique_ptr<EdgeReader> reader_;
};

struct ArcRouting {
  std::vector<uint32_t> bounds;  // ranks + 1 boundaries of the owned ranges (dense ids)
  uint64_t id_base = 0;          // the input's first id (Matrix Market: 1)
  bool weighted = false;
  bool undirected = false;
  bool drop_self_loops = false;
  size_t round_bytes = 8 << 20;
};

struct ExchangeTally {
  uint64_t edges_read = 0;
  uint64_t bytes_sent = 0;  // packed arcs to other ranks
  uint64_t rounds = 0;
};

// Reads `shares` and trades arcs until every rank has read all of its own.
// `reverse` is null for an undirected graph. Returns this rank's read
// error, or Interrupted with *others_failed when only another rank failed
// (every rank leaves after the same round); the caller agrees on it.
Status exchange_arcs(const std::vector<InputShare>& shares, const ArcRouting& routing, Communicator* comm,
                     QueuedEdgeReader* part, QueuedEdgeReader* reverse, ExchangeTally* tally, bool* others_failed);

}  // namespace sg
