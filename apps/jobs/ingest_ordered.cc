#include "apps/jobs/ingest_ordered.h"

#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "apps/jobs/ingest_order.h"
#include "apps/kernels/bfds_first_levels.h"
#include "base/file_util.h"
#include "base/interrupt.h"
#include "shards/format/remove_graph.h"
#include "shards/format/sync_graph.h"
#include "shards/ingest/leftovers.h"

namespace sg {
namespace {

namespace fs = std::filesystem;

// Deletes a hidden graph (its device files too) when it goes out of scope,
// unless it was moved into place.
struct DropGraphOnExit {
  std::string path;
  bool kept = false;
  ~DropGraphOnExit() { drop(); }
  void drop() {
    if (!kept) remove_graph(path, nullptr);
    kept = true;
  }
};

// Options that ingest the hidden unordered graph again: its ids are dense
// and its loops and duplicates were filtered by the first pass.
IngestOptions reingest_options(const IngestOptions& options, const std::string& input, const std::string& output) {
  IngestOptions again = options;
  again.input = input;
  again.output = output;
  again.format = "graph";
  again.order = "none";
  again.remap = IngestOptions::Remap::kNever;
  again.undirected = false;
  again.dedup = false;
  again.drop_self_loops = false;
  again.out_space_only = nullptr;
  return again;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Moves a finished hidden graph into place as the output, synced first (a
// work graph's files are not; the others' syncs find nothing to write).
Status move_into_place(DropGraphOnExit* graph, const std::string& output) {
  SG_RETURN_IF_ERROR(sync_graph(graph->path));
  const fs::path target = fs::absolute(output).lexically_normal();
  if (::rename(graph->path.c_str(), target.c_str()) != 0) {
    return Status::IOError(output + ": rename into place: " + errno_text(errno));
  }
  graph->kept = true;
  return fsync_directory(target.parent_path().string());
}

// Moves the unordered graph into place as the output; an out-only one is
// first completed (its in-space built by an ingest that reads it).
Status complete_into_place(const IngestOptions& options, DropGraphOnExit* unordered, IngestSummary* summary) {
  Graph graph;
  SG_RETURN_IF_ERROR(open_unordered(unordered->path, &graph));
  if (!graph.manifest().out_only()) return move_into_place(unordered, options.output);
  DropGraphOnExit whole{hidden_sibling(options.output, "whole")};
  IngestSummary whole_summary;  // its input edges are the first pass's (write_metadata keeps the ingest record)
  SG_RETURN_IF_ERROR(ingest_graph(reingest_options(options, unordered->path, whole.path), &whole_summary));
  SG_RETURN_IF_ERROR(move_into_place(&whole, options.output));
  whole_summary.phases = summary->phases + "; in-space: " + whole_summary.phases;
  whole_summary.seconds += summary->seconds;
  whole_summary.note = summary->note;  // the first pass's (leftovers removed)
  *summary = whole_summary;
  return Status::OK();
}

// The summary's phases: the first pass's, the order's, the relabelling's.
std::string ordered_phases(const std::string& first, double order_seconds, const OrderStats& stats,
                           const std::string& relabel) {
  char residual[80] = "";
  if (stats.residual_bytes > 0) {
    std::snprintf(residual, sizeof(residual), ", then %.1f MB of lists in memory",
                  static_cast<double>(stats.residual_bytes) / 1e6);
  } else if (stats.residual_offered_bytes > 0) {
    std::snprintf(residual, sizeof(residual), ", the residual's %.1f MB of lists did not fit",
                  static_cast<double>(stats.residual_offered_bytes) / 1e6);
  }
  char compact[64] = "";
  if (stats.compact_rank_bytes > 0) {
    std::snprintf(compact, sizeof(compact), ", %.1f MB of compact ranks",
                  static_cast<double>(stats.compact_rank_bytes) / 1e6);
  }
  char order_text[256];
  std::snprintf(order_text, sizeof(order_text),
                "; order %.2f s (%s%zu steps, %.2f GB read%s%s); relabel: ", order_seconds,
                stats.first_levels_sorted ? "levels 1-2 while sorting, " : "", stats.steps,
                static_cast<double>(stats.bytes_read) / 1e9, residual, compact);
  return "unordered: " + first + order_text + relabel;
}

// The first pass's options: the input ingested unordered into `path`, a
// work graph (nothing waits on its files reaching the disk: R-MAT 22 on one
// emulated HDD, its syncs took 0.74 s; move_into_place syncs it if it is
// kept).
IngestOptions first_pass_options(const IngestOptions& options, VertexOrder order, const std::string& path,
                                 BfdsFirstLevels* first_levels) {
  IngestOptions first = options;
  first.output = path;
  first.order = "none";
  first.work_graph = true;
  // bfds and degree read the out-space and the in-degrees only: when the
  // order will fit, the first pass builds no in-space (R-MAT 22 on an HDD:
  // half its sort phase).
  if (order != VertexOrder::kBfs) {
    const uint64_t memory_bytes = options.memory_bytes;
    first.out_space_only = [order, memory_bytes](uint64_t vertices) {
      return order_fits(order, vertices, memory_bytes);
    };
  }
  // The degree order needs only degrees: counted while routing, they order
  // the graph in its one pass when they fit (ingest_reroute.cc).
  first.degree_order_in_route = order == VertexOrder::kDegree && !options.dedup && !options.drop_self_loops;
  // bfds's first two levels are taken while the first pass sorts
  // (bfds_first_levels.h): two engine steps fewer.
  if (order == VertexOrder::kBfds && !options.order_levels_by_engine) first.out_list_observer = first_levels;
  return first;
}

// The order did not fit the budget: the unordered graph becomes the output
// (completed first if out-only), with a note that says why.
Status keep_unordered(const IngestOptions& options, uint64_t order_bytes, DropGraphOnExit* unordered,
                      IngestSummary* first_summary, IngestSummary* summary) {
  SG_RETURN_IF_ERROR(complete_into_place(options, unordered, first_summary));
  *summary = *first_summary;
  summary->note = (first_summary->note.empty() ? "" : first_summary->note + "; ") + "--order " + options.order +
                  " skipped: ordering " + std::to_string(first_summary->num_vertices) + " vertices needs about " +
                  std::to_string((order_bytes >> 20) + 1) + " MiB, more than --memory; the graph is stored unordered";
  return Status::OK();
}

// The relabelled graph into place; or, under the default order, the
// unordered one where the input's own order compresses no worse. The notes
// say which, and why an order other than the one asked for was applied.
Status keep_better(const IngestOptions& options, VertexOrder order, VertexOrder applied, DropGraphOnExit* unordered,
                   DropGraphOnExit* ordered, IngestSummary* first_summary, IngestSummary* summary) {
  const bool automatic = options.order == "auto";
  std::string fallback;
  if (applied != order) {
    fallback = std::string(automatic ? "the default order, " : "--order ") + vertex_order_name(order) +
               ", needs more than --memory for " + std::to_string(first_summary->num_vertices) +
               " vertices; ordered by degree instead (out of core)";
  }
  if (automatic && summary->out_space_bytes >= first_summary->out_space_bytes) {
    ordered->drop();  // now: its space is needed
    SG_RETURN_IF_ERROR(complete_into_place(options, unordered, first_summary));
    summary->stored_bytes = first_summary->stored_bytes;
    summary->sorted_runs = first_summary->sorted_runs;
    summary->intervals = first_summary->intervals;
    summary->ordering = first_summary->ordering;
    summary->note = std::string("the input's own vertex order compresses better than ") + vertex_order_name(applied) +
                    "; kept it (--order " + vertex_order_name(applied) + " forces it)";
    return Status::OK();
  }
  if (!fallback.empty()) summary->note = summary->note.empty() ? fallback : summary->note + "; " + fallback;
  return move_into_place(ordered, options.output);
}

}  // namespace

Status ingest_ordered(const IngestOptions& options, IngestSummary* summary) {
  // "auto": bfds, unless the input's own order compresses better (a crawl
  // or a road network numbered for locality already).
  VertexOrder order = VertexOrder::kBfds;
  if (options.order != "auto" && !parse_vertex_order(options.order, &order)) {
    return Status::InvalidArgument("--order must be auto, bfds, bfs, degree or none");
  }
  if (order == VertexOrder::kNone) return ingest_graph(options, summary);
  std::error_code ec;
  if (!options.output.empty() && fs::exists(options.output, ec)) {
    return Status::InvalidArgument(options.output + ": already exists; remove it or choose another output");
  }
  const auto start = std::chrono::steady_clock::now();
  DropGraphOnExit unordered{hidden_sibling(options.output, "unordered")};
  BfdsFirstLevels first_levels;
  IngestSummary first_summary;
  SG_RETURN_IF_ERROR(ingest_graph(first_pass_options(options, order, unordered.path, &first_levels), &first_summary));
  if (first_summary.ordered_in_route) {
    SG_RETURN_IF_ERROR(move_into_place(&unordered, options.output));
    *summary = first_summary;
    summary->phases = "ordered by degree while routing: " + first_summary.phases;
    summary->seconds = seconds_since(start);
    return Status::OK();
  }
  if (options.on_phase) options.on_phase("order");
  if (interrupt_requested()) return Status::Interrupted("ingest stopped by a signal");
  const auto order_start = std::chrono::steady_clock::now();
  Permutation permutation;
  VertexOrder applied = order;
  uint64_t order_bytes = 0;
  OrderStats order_stats;
  SG_RETURN_IF_ERROR(compute_order(unordered.path, order, options, &permutation, &applied, &order_bytes, &order_stats,
                                   first_levels.take_start()));
  if (permutation.size() == 0) return keep_unordered(options, order_bytes, &unordered, &first_summary, summary);
  const double order_seconds = seconds_since(order_start);

  DropGraphOnExit ordered{hidden_sibling(options.output, "ordered")};
  IngestOptions second = reingest_options(options, unordered.path, ordered.path);
  second.order = vertex_order_name(applied);
  second.permutation = &permutation;
  SG_RETURN_IF_ERROR(ingest_graph(second, summary));
  permutation = Permutation();
  std::error_code removed;
  fs::remove(unordered.path + kOrderFile, removed);  // the unordered graph may become the output
  SG_RETURN_IF_ERROR(keep_better(options, order, applied, &unordered, &ordered, &first_summary, summary));
  summary->input_edges = first_summary.input_edges;
  if (!first_summary.note.empty())
    summary->note = first_summary.note + (summary->note.empty() ? "" : "; " + summary->note);
  summary->seconds = seconds_since(start);
  summary->phases = ordered_phases(first_summary.phases, order_seconds, order_stats, summary->phases);
  return Status::OK();
}

}  // namespace sg
