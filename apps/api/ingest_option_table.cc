// The options of `ingest`, one row each, as run_option_table.cc has run's:
// the CLI's flags and help and Python's keyword arguments come from here.
#include <limits>

#include "apps/api/option_rows.h"

namespace shardgraph {
namespace {

using namespace options;
using Rq = IngestRequest;

const std::vector<Row<Rq>>& rows() {
  static const std::vector<Row<Rq>> table = {
      choice("format", &Rq::format, {"snap", "mtx", "bin32", "bin64", "graph", "webgraph", "dimacs", "graphalytics"},
             "the input's format (default: from the name)"),
      flag("weights", &Rq::weights, "binary input records carry a float32 weight"),
      flag("undirected", &Rq::undirected, "treat every edge as undirected"),
      flag("drop-self-loops", &Rq::drop_self_loops, "remove edges v->v"),
      flag("dedup", &Rq::dedup, "remove duplicate edges (keeps the smallest weight)"),
      switch_row("remap", &Rq::remap,
                 "map original ids to dense ones (the map is stored; results keep the original ids): auto when the "
                 "ids are sparse or wider than 32 bits; --remap always, --no-remap never (a sparse or wide id space "
                 "is then refused)"),
      choice("order", &Rq::order, {"auto", "bfds", "bfs", "degree", "none"},
             "vertex ordering: auto (bfds unless the input order compresses better); skipped with a note when its "
             "working memory (bfds, bfs: 4 bytes a vertex and the engine's least; degree: 14) exceeds --memory"),
      size("memory", &Rq::memory_bytes, 0, std::numeric_limits<uint64_t>::max(), Auto::kBudget, "auto",
           "memory budget (e.g. 64M, 2G) or auto: 3/4 of the cgroup limit or available memory, less 16 MiB"),
      size("chunk-bytes", &Rq::chunk_bytes, 64, uint64_t{1} << 30, Auto::kZero, "auto",
           "target chunk size, or auto: the devices' bandwidth times their latency, 256K..1M (a device never "
           "calibrated is probed once)"),
      choice("codec", &Rq::codec, {"auto", "fast", "small", "entropy", "varint", "v2"},
             "gap coding of each chunk: auto (entropy on one slow disk, else fast), fast (StreamVByte unless "
             "varints are 10% smaller), small (fewest bytes), entropy (fewer still where lists' bits are entropy "
             "coded), varint, v2 (format version 2, for older shardgraph builds)"),
      whole("intervals", &Rq::intervals, 1u, 1u << 30, Auto::kNone, "", "vertex intervals (default: from the budget)"),
      whole("blocks", &Rq::blocks, 1u, 4096u, Auto::kZero, "auto",
            "2-D blocks a space (each holds the lists' neighbours in one vertex range; 1 = 1-D); auto: 1 while 4 "
            "bytes a vertex fit half of --memory, else ranges of 4 bytes a vertex in a quarter of it"),
      list("device", &Rq::devices,
           "device directory for edge data (repeatable); with --parts, PART:DIR: part PART's (its machine's disks)"),
      whole("parts", &Rq::parts, 1u, 1u << 16, Auto::kNone, "",
            "build a partitioned graph of N parts with N MPI ranks at once (mpirun -np N; each rank reads its "
            "share of the inputs; ids kept as given; docs/scale-out.md)"),
      whole("threads", &Rq::threads, 1, 1024, Auto::kNone, "", "compute threads, 1 to 1024 (default: all cores)"),
      size("stripe-bytes", &Rq::stripe_bytes, 4096, uint64_t{1} << 40, Auto::kZero, "auto",
           "stripe depth across devices (a multiple of 4K; auto: 1M..8M, at least 32 stripes a device)"),
  };
  return table;
}

}  // namespace

const std::vector<options::Row<IngestRequest>>& options::ingest_rows() { return rows(); }

}  // namespace shardgraph
