#include "apps/jobs/ingest_distributed.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "apps/jobs/arc_exchange.h"
#include "apps/jobs/input_counts.h"
#include "base/file_util.h"
#include "base/process_memory.h"
#include "base/seconds_since.h"
#include "compression/checksum.h"
#include "shards/format/graph.h"
#include "shards/format/remove_graph.h"
#include "shards/ingest/ingest.h"
#include "shards/ingest/leftovers.h"
#include "shards/ingest/open_input.h"

namespace sg {
namespace {

namespace fs = std::filesystem;

constexpr size_t kQueueBuffers = 2;

Status check_inputs(const DistributedIngestOptions& o, InputFormat* format) {
  if (o.inputs.empty()) return Status::InvalidArgument("no input given");
  if (o.part.remap == IngestOptions::Remap::kAlways)
    return Status::InvalidArgument(
        "--remap needs one process: ingest, then partition (a distributed ingest keeps ids)");
  for (size_t i = 0; i < o.inputs.size(); ++i) {
    InputFormat f = InputFormat::kSnap;
    SG_RETURN_IF_ERROR(resolve_format(o.inputs[i], o.part.format, &f));
    if (f == InputFormat::kGraph || f == InputFormat::kGraphalytics) {
      return Status::InvalidArgument(o.inputs[i] + ": a " + format_name(f) +
                                     " input is ingested in one process, then partitioned (`shardgraph partition`)");
    }
    if (i > 0 && f != *format)
      return Status::InvalidArgument(o.inputs[i] + ": is " + format_name(f) + ", the first input " +
                                     format_name(*format));
    *format = f;
  }
  std::error_code ec;
  if (fs::exists(o.part.output, ec))
    return Status::InvalidArgument(o.part.output + ": already exists; remove it or choose another output");
  return Status::OK();
}

// Rank 0 makes the hidden work directory beside the output; every rank
// must see it (the output's directory is on a file system they share).
Status make_work_dir(Communicator* comm, const std::string& output, std::string* work) {
  std::string mine;
  Status made;
  if (comm->rank() == 0) {
    mine = hidden_sibling(output, "ingest");
    std::error_code ec;
    if (!fs::create_directory(mine, ec)) made = Status::IOError(mine + ": cannot create: " + ec.message());
  }
  SG_RETURN_IF_ERROR(comm->agree(made));
  std::vector<uint8_t> all;
  std::vector<uint64_t> sizes;
  SG_RETURN_IF_ERROR(comm->all_gather({reinterpret_cast<const uint8_t*>(mine.data()), mine.size()}, &all, &sizes));
  work->assign(reinterpret_cast<const char*>(all.data()), static_cast<size_t>(sizes[0]));
  std::error_code ec;
  const bool seen = fs::is_directory(*work, ec);
  return comm->agree(seen ? Status::OK()
                          : Status::InvalidArgument(output + ": rank 0's work directory " + *work +
                                                    " is not here: the output must be on a file system every rank "
                                                    "shares (edge data goes to each part's --device)"));
}

// The round size (sent, and at most received, a round) and each part
// ingest's budget: the rounds hold about six rounds' bytes (sent,
// received, two buffers in each part's queue).
size_t round_bytes_for(uint64_t memory_bytes) {
  return static_cast<size_t>(std::clamp<uint64_t>(memory_bytes / 48, uint64_t{256} << 10, uint64_t{8} << 20));
}
uint64_t part_memory_for(uint64_t memory_bytes, size_t parts_here) {
  constexpr uint64_t kLeastPartBytes = 4 << 20;  // ingest's least budget
  constexpr uint64_t kFixedBytes = 4 << 20;      // read batches and block counts
  const uint64_t held = 6 * round_bytes_for(memory_bytes) + kFixedBytes;
  return std::max(memory_bytes > held ? (memory_bytes - held) / parts_here : 0, kLeastPartBytes);
}

// One of this rank's ingests (its part, or its reverse part) on a thread,
// reading what the exchange queues.
struct PartBuild {
  IngestOptions options;
  std::unique_ptr<QueuedEdgeReader> queue;
  IngestSummary summary;
  Status status;
  std::thread thread;
};

std::unique_ptr<PartBuild> start_part(const DistributedIngestOptions& o, const GraphCounts& counts,
                                      const PartRange& range, const std::vector<std::string>& devices,
                                      const std::string& dir, bool reverse) {
  auto build = std::make_unique<PartBuild>();
  IngestOptions& p = build->options;
  p = o.part;
  p.input = o.inputs.front() + (o.inputs.size() > 1 ? " (and " + std::to_string(o.inputs.size() - 1) + " more)" : "");
  p.output = dir;
  p.devices = devices;
  p.spill_dir = devices.empty() ? std::string() : devices.front();
  p.undirected = false;  // a part is directed: its spaces differ (partition.h)
  p.symmetrize = counts.undirected;
  p.transpose = reverse;
  p.keep_destinations_begin = range.begin;
  p.keep_destinations_end = range.end;
  p.remap = IngestOptions::Remap::kNever;
  p.order = "none";
  p.permutation = nullptr;
  p.progress = nullptr;
  uint64_t expected = 0;
  for (uint64_t b = range.begin >> counts.blocks.shift;
       b < counts.blocks.in.size() && (b << counts.blocks.shift) < range.end; ++b) {
    expected += reverse ? counts.blocks.out[b] : counts.blocks.in[b];
  }
  build->queue = std::make_unique<QueuedEdgeReader>(counts.shape, kQueueBuffers, expected);
  p.open_input = [queue = build->queue.get()](std::unique_ptr<EdgeReader>* reader) {
    *reader = queue->consumer();
    return Status::OK();
  };
  PartBuild* b = build.get();
  b->thread = std::thread([b] {
    b->status = ingest_graph(b->options, &b->summary);
    if (!b->status.ok()) b->queue->abandon();
  });
  return build;
}

// This rank's part (and reverse part) built from the arcs the ranks route
// to it while it routes its own share.
Status build_parts(const DistributedIngestOptions& o, const GraphCounts& counts, const std::vector<PartRange>& ranges,
                   const std::vector<InputShare>& shares, const std::string& work, Communicator* comm,
                   std::vector<IngestSummary>* summaries, ExchangeTally* tally) {
  const auto k = static_cast<uint32_t>(comm->rank());
  const std::vector<std::string> devices = k < o.part_devices.size() ? o.part_devices[k] : std::vector<std::string>{};
  std::vector<std::unique_ptr<PartBuild>> builds;
  DistributedIngestOptions sized = o;
  sized.part.memory_bytes = part_memory_for(o.part.memory_bytes, counts.undirected ? 1 : 2);
  builds.push_back(start_part(sized, counts, ranges[k], devices, part_dir(work, k), false));
  if (!counts.undirected)
    builds.push_back(start_part(sized, counts, ranges[k], devices, reverse_part_dir(work, k), true));
  ArcRouting routing;
  for (const PartRange& range : ranges) routing.bounds.push_back(range.begin);
  routing.bounds.push_back(static_cast<uint32_t>(counts.vertices));
  routing.id_base = counts.shape.id_base;
  routing.weighted = counts.shape.weighted;
  routing.undirected = counts.undirected;
  routing.drop_self_loops = o.part.drop_self_loops;
  routing.round_bytes = round_bytes_for(o.part.memory_bytes);
  bool others_failed = false;
  const Status exchanged = exchange_arcs(shares, routing, comm, builds[0]->queue.get(),
                                         builds.size() > 1 ? builds[1]->queue.get() : nullptr, tally, &others_failed);
  // This rank's own failure (a part's ingest, or reading its share), told
  // apart from having stopped for another rank's, so that the ranks agree
  // on the error that stopped them.
  Status own, any = exchanged;
  for (auto& build : builds) {
    build->queue->finish(exchanged.ok() ? Status::OK() : Status::Interrupted("the ranks stopped routing arcs"));
    build->thread.join();
    if (own.ok() && build->status.code() != Status::Code::kInterrupted) own = build->status;
    if (any.ok()) any = build->status;
    summaries->push_back(build->summary);
  }
  if (own.ok() && !others_failed) own = exchanged;
  SG_RETURN_IF_ERROR(comm->agree(own));
  return comm->agree(any);
}

// What rank 0 needs of each part for partition.json.
struct PartRecord {
  uint64_t arcs = 0, reverse_arcs = 0, self_loops = 0, stored_bytes = 0;
  char id[24] = {}, reverse_id[24] = {};
};

Status describe_parts(Communicator* comm, const std::string& work, const std::vector<IngestSummary>& summaries,
                      std::vector<PartRecord>* records) {
  PartRecord mine;
  const auto k = static_cast<uint32_t>(comm->rank());
  Status s;
  for (size_t i = 0; i < summaries.size() && s.ok(); ++i) {
    Graph part;
    s = Graph::open(i == 0 ? part_dir(work, k) : reverse_part_dir(work, k), &part,
                    GraphOpenOptions{false, false, false, false});
    if (!s.ok()) break;
    const std::string& id = part.manifest().graph_id;
    std::snprintf(i == 0 ? mine.id : mine.reverse_id, sizeof(mine.id), "%s", id.c_str());
    (i == 0 ? mine.arcs : mine.reverse_arcs) = part.manifest().num_edges;
    if (i == 0) mine.self_loops = summaries[i].stored_self_loops;
    mine.stored_bytes += summaries[i].stored_bytes;
  }
  SG_RETURN_IF_ERROR(comm->agree(s));
  return comm->gather_values(mine, records);
}

// Rank r's range of the whole graph's out-degrees (its reverse part's
// in-degrees; an undirected part's own), sent to rank 0 in rounds, which
// writes them in order to `path` and returns their checksum.
Status gather_out_degrees(Communicator* comm, const std::vector<PartRange>& ranges, const std::string& source,
                          const std::string& path, size_t round_bytes, uint64_t* checksum) {
  const bool writer = comm->rank() == 0;
  File in, out;
  Status s = File::open_read(source, &in);
  if (s.ok() && writer) s = File::create(path, &out);
  SG_RETURN_IF_ERROR(comm->agree(s));
  Checksum64Stream sum;
  uint64_t written = 0;
  std::vector<uint8_t> piece, received;
  std::vector<uint64_t> counts, send_counts(ranges.size(), 0);
  for (size_t r = 0; r < ranges.size(); ++r) {
    const uint64_t first = uint64_t{ranges[r].begin} * 4, bytes = uint64_t{ranges[r].end - ranges[r].begin} * 4;
    for (uint64_t at = 0; at < bytes; at += round_bytes) {
      const size_t size = static_cast<size_t>(std::min<uint64_t>(round_bytes, bytes - at));
      const bool sender = static_cast<size_t>(comm->rank()) == r;
      piece.resize(sender ? size : 0);
      if (sender && s.ok()) s = in.pread_all(piece.data(), size, first + at);
      if (r != 0) {  // rank 0's own range needs no exchange
        send_counts.assign(ranges.size(), 0);
        send_counts[0] = sender && s.ok() ? size : 0;
        SG_RETURN_IF_ERROR(
            comm->all_to_all({piece.data(), static_cast<size_t>(send_counts[0])}, send_counts, &received, &counts));
        if (writer) piece.swap(received);
      }
      if (!writer || !s.ok()) continue;
      if (piece.size() != size) s = Status::Corruption("rank " + std::to_string(r) + " sent no out-degrees");
      if (s.ok()) s = out.pwrite_all(piece.data(), size, written);
      sum.update(piece.data(), piece.size());
      written += size;
    }
  }
  if (writer && s.ok()) s = out.sync();
  *checksum = sum.digest();
  return comm->agree(s);
}

// partition.json's contents from every rank's parts (the same on every rank).
PartitionLayout make_layout(const GraphCounts& counts, const std::vector<PartRecord>& records, uint64_t degree_checksum,
                            std::vector<PartRange>* ranges) {
  PartitionLayout layout;
  layout.num_vertices = counts.vertices;
  layout.undirected = counts.undirected;
  layout.out_degree_checksum = degree_checksum;
  uint64_t arcs = 0, loops = 0;
  for (size_t k = 0; k < records.size(); ++k) {
    (*ranges)[k].arcs = records[k].arcs;
    (*ranges)[k].out_arcs = counts.undirected ? records[k].arcs : records[k].reverse_arcs;
    layout.part_ids.emplace_back(records[k].id);
    if (!counts.undirected) layout.reverse_ids.emplace_back(records[k].reverse_id);
    arcs += records[k].arcs;
    loops += records[k].self_loops;
  }
  // An undirected part stores both arcs of an edge and a self-loop once.
  layout.num_edges = counts.undirected ? (arcs + loops) / 2 : arcs;
  layout.num_arcs = arcs;
  layout.ranges = *ranges;
  return layout;
}

// Rank 0, once out.degrees is written: partition.json goes last, then the
// directory is renamed into place.
Status commit_partition(const std::string& work, const std::string& output, const PartitionLayout& layout,
                        uint64_t input_edges) {
  char source[40];
  std::snprintf(source, sizeof(source), "inputs-%016llx",
                static_cast<unsigned long long>(checksum64(output.data(), output.size()) ^ input_edges));
  SG_RETURN_IF_ERROR(write_partition_layout(work, layout, source));
  SG_RETURN_IF_ERROR(fsync_directory(work));
  const fs::path target = fs::absolute(output).lexically_normal();
  if (::rename(work.c_str(), target.c_str()) != 0)
    return Status::IOError(output + ": rename into place: " + errno_text(errno));
  return fsync_directory(target.parent_path().string());
}

// Until the graph is in place: each rank removes its parts (their device
// files too), then rank 0 the work directory.
struct PartsCleanup {
  Communicator* comm;
  std::string work;
  bool kept = false;
  ~PartsCleanup() {
    if (kept || work.empty()) return;
    const auto k = static_cast<uint32_t>(comm->rank());
    remove_graph(part_dir(work, k), nullptr);
    remove_graph(reverse_part_dir(work, k), nullptr);
    // After an agreed failure every rank is here; otherwise gc removes the rest.
    if (comm->agreed_failure() && comm->agree(Status::OK()).ok() && comm->rank() == 0) {
      std::error_code ignored;
      fs::remove_all(work, ignored);
    }
  }
};

void add_phase(std::string* phases, const char* name, std::chrono::steady_clock::time_point since) {
  char text[64];
  std::snprintf(text, sizeof(text), "%s%s %.2f s", phases->empty() ? "" : ", ", name, seconds_since(since));
  phases->append(text);
}

// Every rank's line, for rank 0 to print.
struct RankReport {
  double count_seconds = 0, build_seconds = 0, commit_seconds = 0;
  double cpu_seconds = 0;  // user and system, the whole ingest
  uint64_t edges_read = 0, bytes_sent = 0, rounds = 0, peak_rss_bytes = 0;
};

Status gather_rank_lines(Communicator* comm, const RankReport& mine, std::vector<std::string>* lines) {
  std::vector<RankReport> reports;
  SG_RETURN_IF_ERROR(comm->gather_values(mine, &reports));
  for (size_t r = 0; r < reports.size(); ++r) {
    const RankReport& x = reports[r];
    char line[256];
    std::snprintf(line, sizeof(line),
                  "rank %zu: count %.2f s, route and build %.2f s, commit %.2f s, %.1f CPU-s; %llu edges read, %.1f MB "
                  "sent in %llu rounds; peak RSS %llu MiB",
                  r, x.count_seconds, x.build_seconds, x.commit_seconds, x.cpu_seconds,
                  static_cast<unsigned long long>(x.edges_read), static_cast<double>(x.bytes_sent) / 1e6,
                  static_cast<unsigned long long>(x.rounds), static_cast<unsigned long long>(x.peak_rss_bytes >> 20));
    lines->push_back(line);
  }
  return Status::OK();
}

}  // namespace

Status ingest_distributed(const DistributedIngestOptions& o, Communicator* comm, DistributedIngestSummary* summary) {
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = process_cpu_seconds();
  const auto ranks = static_cast<uint32_t>(comm->size());
  InputFormat format = InputFormat::kSnap;
  SG_RETURN_IF_ERROR(comm->agree(check_inputs(o, &format)));
  const std::vector<InputShare> shares =
      plan_shares(o.inputs, format, o.part.binary_weights, static_cast<uint32_t>(comm->rank()), ranks);
  GraphCounts counts;
  SG_RETURN_IF_ERROR(count_input(shares, o.part.undirected, o.part.drop_self_loops, comm, &counts));
  if (counts.vertices < ranks) {
    return Status::InvalidArgument("--parts must be at most the vertex count (" + std::to_string(counts.vertices) +
                                   ")");
  }
  summary->ranges = balanced_block_ranges(counts.blocks.in, counts.blocks.shift, counts.vertices, ranks);
  RankReport report;
  report.count_seconds = seconds_since(start);
  add_phase(&summary->phases, "count", start);
  std::string work;
  PartsCleanup cleanup{comm, ""};
  const Status made = make_work_dir(comm, o.part.output, &work);
  cleanup.work = work;  // also when a rank cannot see it: rank 0 removes it
  SG_RETURN_IF_ERROR(made);
  const auto built = std::chrono::steady_clock::now();
  std::vector<IngestSummary> summaries;
  ExchangeTally tally;
  SG_RETURN_IF_ERROR(build_parts(o, counts, summary->ranges, shares, work, comm, &summaries, &tally));
  report.build_seconds = seconds_since(built);
  report.edges_read = tally.edges_read;
  report.bytes_sent = tally.bytes_sent;
  report.rounds = tally.rounds;
  add_phase(&summary->phases, "route and build", built);
  const auto committed = std::chrono::steady_clock::now();
  std::vector<PartRecord> records;
  SG_RETURN_IF_ERROR(describe_parts(comm, work, summaries, &records));
  const uint32_t k = static_cast<uint32_t>(comm->rank());
  Graph degrees_from;
  SG_RETURN_IF_ERROR(comm->agree(Graph::open(counts.undirected ? part_dir(work, k) : reverse_part_dir(work, k),
                                             &degrees_from, GraphOpenOptions{false, false, false, false})));
  uint64_t degree_checksum = 0;
  SG_RETURN_IF_ERROR(gather_out_degrees(comm, summary->ranges, degrees_from.degree_path(SpaceKind::kIn),
                                        partition_out_degree_path(work), round_bytes_for(o.part.memory_bytes),
                                        &degree_checksum));
  const PartitionLayout layout = make_layout(counts, records, degree_checksum, &summary->ranges);
  summary->num_edges = layout.num_edges;
  SG_RETURN_IF_ERROR(
      comm->agree(comm->rank() == 0 ? commit_partition(work, o.part.output, layout, counts.edges) : Status::OK()));
  cleanup.kept = true;
  report.commit_seconds = seconds_since(committed);
  report.peak_rss_bytes = peak_rss_bytes();
  report.cpu_seconds = process_cpu_seconds() - cpu_start;
  SG_RETURN_IF_ERROR(gather_rank_lines(comm, report, &summary->rank_lines));
  add_phase(&summary->phases, "commit", committed);
  summary->num_vertices = counts.vertices;
  for (const PartRecord& record : records) summary->stored_bytes += record.stored_bytes;
  summary->seconds = seconds_since(start);
  return Status::OK();
}

}  // namespace sg
