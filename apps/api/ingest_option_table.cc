// The options of `ingest`, one row each, as run_option_table.cc has run's:
// the CLI's flags and help and Python's keyword arguments come from here.
#include <limits>

#include "apps/api/option_rows.h"

namespace shardgraph {
namespace {

using namespace options;
using Ingest = IngestRequest;

const std::vector<Row<Ingest>>& ingest_table() {
  static const std::vector<Row<Ingest>> table = {
      choice("format", &Ingest::format,
             {"snap", "mtx", "bin32", "bin64", "graph", "webgraph", "dimacs", "graphalytics"},
             "the input's format (default: from the name)"),
      flag("weights", &Ingest::weights, "binary input records carry a float32 weight"),
      flag("undirected", &Ingest::undirected, "treat every edge as undirected"),
      flag("drop-self-loops", &Ingest::drop_self_loops, "remove edges v->v"),
      flag("dedup", &Ingest::dedup, "remove duplicate edges (keeps the smallest weight)"),
      switch_row("remap", &Ingest::remap,
                 "map original ids to dense ones (the map is stored; results keep the original ids): auto when the "
                 "ids are sparse or wider than 32 bits; --remap always, --no-remap never (a sparse or wide id space "
                 "is then refused)"),
      choice("order", &Ingest::order, {"auto", "bfds", "bfs", "degree", "none"},
             "vertex ordering: auto (bfds unless the input order compresses better); skipped with a note when its "
             "working memory (bfds, bfs: 4 bytes a vertex and the engine's least; degree: 14) exceeds --memory"),
      size("memory", &Ingest::memory_bytes, 0, std::numeric_limits<uint64_t>::max(), Auto::kBudget, "auto",
           "memory budget (e.g. 64M, 2G) or auto: 3/4 of the cgroup limit or available memory, less 16 MiB"),
      size("chunk-bytes", &Ingest::chunk_bytes, 64, uint64_t{1} << 30, Auto::kZero, "auto",
           "target chunk size, or auto: the devices' bandwidth times their latency, 256K..1M (a device never "
           "calibrated is probed once)"),
      choice("codec", &Ingest::codec, {"auto", "fast", "small", "entropy", "varint", "v2"},
             "gap coding of each chunk: auto (entropy on one slow disk, else fast), fast (StreamVByte unless "
             "varints are 10% smaller), small (fewest bytes), entropy (fewer still where lists' bits are entropy "
             "coded), varint, v2 (format version 2, for older shardgraph builds)"),
      whole("intervals", &Ingest::intervals, 1u, 1u << 30, Auto::kNone, "",
            "vertex intervals (default: from the budget)"),
      whole("blocks", &Ingest::blocks, 1u, 4096u, Auto::kZero, "auto",
            "2-D blocks a space (each holds the lists' neighbours in one vertex range; 1 = 1-D); auto: 1 while 4 "
            "bytes a vertex fit half of --memory, else ranges of 4 bytes a vertex in a quarter of it"),
      list("device", &Ingest::devices,
           "device directory for edge data (repeatable); with --parts, PART:DIR: part PART's (its machine's disks)"),
      whole("parts", &Ingest::parts, 1u, 1u << 16, Auto::kNone, "",
            "build a partitioned graph of N parts with N MPI ranks at once (mpirun -np N; each rank reads its "
            "share of the inputs; ids kept as given; docs/scale-out.md)"),
      whole("threads", &Ingest::threads, 1, 1024, Auto::kNone, "", "compute threads, 1 to 1024 (default: all cores)"),
      size("stripe-bytes", &Ingest::stripe_bytes, 4096, uint64_t{1} << 40, Auto::kZero, "auto",
           "stripe depth across devices (a multiple of 4K; auto: 1M..8M, at least 32 stripes a device)"),
  };
  return table;
}

}  // namespace

const std::vector<options::Row<IngestRequest>>& options::ingest_rows() { return ingest_table(); }

}  // namespace shardgraph
