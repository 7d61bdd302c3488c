// The sorting half of ingest's distribution sort: reads a bucket router's
// buckets back in order, groups consecutive buckets into batches of at most
// `batch_records`, sorts each batch in memory into adjacency lists (a counting
// scatter by key, then a sort of each list; or one sort of the records when
// the batch's ids are sparse) and encodes the lists into chunks in parallel
// parts (ChunkEncoder), which SpaceOutput writes in order.
//
// A bucket larger than a batch (a hub, or skewed ids) is routed again into
// sub-buckets of its range, recursively; a range of one packed value (one
// arc repeated beyond memory) is already sorted and is encoded in pieces.
// Self-loops and duplicates are counted and, if asked, dropped here.
//
// A blocked space (docs/formats.md, "2-D blocks") is written as one
// output per block: each sorted list is cut at the blocks' neighbour
// starts and each piece encoded by that block's encoder, so every block
// tiles the vertices in vertex order. The first block's output writes the
// whole degrees.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "shards/ingest/bucket_router.h"
#include "shards/ingest/out_list_observer.h"
#include "shards/ingest/space_output.h"

namespace sg {

struct SpaceBuildOptions {
  uint32_t num_vertices = 0;
  const std::vector<uint32_t>* interval_starts = nullptr;
  // First neighbour of each block (starts with 0); one block: 1-D.
  std::vector<uint32_t> block_starts = {0};
  uint32_t chunk_bytes = 0;
  ListCodec codec = ListCodec::kV3;
  GapChoice gap_choice = GapChoice::kFast;  // codec 3
  // A graph read again and dropped (an ordered ingest's out-only first
  // pass): ChunkEncoder's entropy_first.
  bool entropy_first = false;
  bool undirected = false;   // each edge is stored twice: count it where key <= neighbour
  bool count_input = false;  // this space's self-loops and duplicates describe the input
  bool drop_self_loops = false;
  bool dedup = false;
  size_t batch_records = 0;
  size_t parts = 1;            // encoders a block (encoder_parts)
  uint32_t sub_buckets = 256;  // a power of two
  std::string spill_prefix;    // sub-routers' spill files: prefix + ".<depth>"
  // If set (num_vertices entries, zeroed), each stored arc counts one at its
  // neighbour: an out-space's build gives the in-degrees (an out-only graph).
  uint32_t* neighbour_counts = nullptr;
  // If set, shown each list as it is encoded, its dropped arcs left out
  // (IngestOptions::out_list_observer), from the encoding threads.
  OutListObserver* list_observer = nullptr;
  // Read the next batch while this one is sorted and encoded, into a second
  // batch of records (count it: batch_bytes_per_record(true)). Worth it
  // when a space is built alone; two spaces built at once overlap each
  // other's reads already.
  bool read_ahead = false;
};

struct SpaceBuildStats {
  uint64_t self_loops = 0;          // self-loop arcs in the input
  uint64_t self_loop_vertices = 0;  // vertices with a self-loop
  uint64_t duplicates = 0;          // in the input (beyond the first copy)
  uint64_t stored_loops = 0;        // self-loop arcs stored
  uint64_t batches = 0;             // in-memory sorts
};

// Memory one batch record costs while it is sorted and encoded: the record,
// its neighbour entry, list bookkeeping and encoded output (whose buffers
// grow by doubling: 20 bytes covers them, measured on R-MAT 22).
template <typename Record>
constexpr size_t batch_bytes_per_record(bool read_ahead = false) {
  return (read_ahead ? 2 : 1) * sizeof(Record) + sizeof(typename Record::Neighbour) + 20;
}

// Encoders run a batch in parallel parts: 4 a thread for one block, fewer
// for several (every block of a part has its own encoder), and fewer when
// their buffers would take more than an eighth of `memory_bytes`.
size_t encoder_parts(size_t blocks, uint32_t chunk_bytes, uint64_t memory_bytes);
// What a space's build holds whatever the batch: each encoder keeps about
// kEncoderChunks chunks of buffers (the open chunk's lists and gaps, up to
// twice chunk_bytes when chunks are packed, and its coded output), each
// block after the first its output's write and degree buffers.
constexpr uint64_t kEncoderChunks = 4;
uint64_t space_build_fixed_bytes(uint32_t chunk_bytes, size_t blocks, size_t parts);
// What each encoding thread keeps besides its encoders, when chunks are
// packed or entropy coded (the coders' contexts and buffers, about 4 MiB
// at 512 KiB chunks), which the sort batches must leave (R-MAT 17 at
// --memory 32M with 1 MiB chunks held 1.14x the budget before it was
// counted).
uint64_t space_build_thread_bytes(uint32_t chunk_bytes, ListCodec codec, GapChoice gap_choice);

template <typename Record>
Status build_space(BucketRouter<Record>* router, const SpaceBuildOptions& options,
                   const std::vector<SpaceOutput*>& outs, SpaceBuildStats* stats);

}  // namespace sg
