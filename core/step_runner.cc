#include "core/step_runner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "base/interrupt.h"
#include "base/parallel.h"
#include "base/process_memory.h"
#include "base/seconds_since.h"
#include "scheduler/step_planner.h"

namespace sg {
namespace {

constexpr uint32_t kMaxCachedWindowChunks = 64;

// Runs fn between a load and its unload; the first error wins.
template <typename Fn, typename Unload>
Status between(Status load, Fn&& fn, Unload&& unload) {
  SG_RETURN_IF_ERROR(load);
  const Status done = fn();
  const Status unloaded = unload();
  return done.ok() ? unloaded : done;
}

}  // namespace

struct StepRunner::BlockScan {
  size_t stored = 0;
  const EdgeSpace* space = nullptr;
  const VertexSubset* only = nullptr;  // push: the active sources (the others are skipped, not decoded)
  std::chrono::steady_clock::time_point start;
  StepStats step;
  WindowTimes times, decoded_times;  // apart: serving decoded windows is not a sample of the decode rate
  uint64_t whole_decode_bytes = 0;   // push windows decoded whole for the decoded cache
  std::vector<uint32_t> missed;      // cached when planned, evicted before their turn
};

void StepRunner::open(const StepParts& parts, WindowShape shape) {
  parts_ = parts;
  decode_room_bytes_ = window_shape_bytes(*parts.graph, shape);
  reserve_window(&window_, shape, parts.graph->weighted());
  if (parts.graph->has_overlay()) {
    // Each thread merges a few lists at a time (decode_merged_window).
    decode_room_bytes_ += parallel_threads() * merged_piece_bytes(*parts.graph);
    const char* forced = std::getenv("SHARDGRAPH_MERGE_PIECE_ARCS");  // a test hook: lists merged in small pieces
    if (forced != nullptr) piece_arcs_ = static_cast<uint32_t>(std::clamp(std::atol(forced), 1L, 1L << 16));
  }
}

// The interval side (destinations of a pull) is loaded group by group; the
// other side, when ranged, in passes: each pass reads the blocks holding
// its neighbours (all of them in a 1-D space) and takes only the edges
// whose neighbour it holds. Which loop is outer is the range plan's choice.
Status StepRunner::run(const StepWork& work) {
  const auto start = std::chrono::steady_clock::now();
  RunLog& log = *parts_.log;
  VertexResidency& residency = *parts_.residency;
  const size_t first_step = log.steps().size();
  const uint64_t loaded_before = residency.bytes_loaded(), written_before = residency.bytes_written_back();
  const double io_before = residency.io_seconds();
  const RangePlan& ranges = *work.ranges;
  const bool pull = work.plan->pull;
  const VertexUse outer = pull ? VertexUse::kSource : VertexUse::kDestination;
  auto pass_over = [&](const NeighbourPass& pass, auto&& fn) {
    return between(residency.load(outer, pass.begin, pass.end, !pull), fn,
                   [&] { return residency.unload(outer, pass.begin, pass.end); });
  };
  Status status;
  const Graph& graph = *parts_.graph;
  auto has_edges = [&](const NeighbourPass& pass) {
    return [&](const ChunkGroup& g) { return pass_has_edges(graph, *work.plan, g, pass); };
  };
  if (!ranges.groups_outer) {
    for (size_t p = 0; p < ranges.passes.size() && status.ok(); ++p) {
      const bool last_pass = p + 1 == ranges.passes.size();
      // The last pass finishes the groups: it runs even without edges.
      if (!last_pass && std::none_of(ranges.groups.begin(), ranges.groups.end(), has_edges(ranges.passes[p]))) continue;
      status = pass_over(ranges.passes[p], [&] {
        return for_each_group(work, last_pass,
                              [&](const ChunkGroup& g) { return scan_part(work, g, ranges.passes[p]); });
      });
    }
  } else {
    status = for_each_group(work, true, [&](const ChunkGroup& g) {
      for (const NeighbourPass& pass : ranges.passes) {
        if (has_edges(pass)(g)) SG_RETURN_IF_ERROR(pass_over(pass, [&] { return scan_part(work, g, pass); }));
      }
      return Status::OK();
    });
  }
  neighbour_begin_ = 0;
  neighbour_end_ = UINT32_MAX;
  log.merge_since(first_step);
  if (log.steps().size() > first_step) {
    StepStats& step = log.steps().back();
    RunLog::record_plan(*work.plan, &step);
    step.seconds = seconds_since(start);
    step.vertex_passes = static_cast<uint32_t>(ranges.passes.size());
    step.vertex_groups = static_cast<uint32_t>(ranges.groups.size());
    step.vertex_groups_outer = ranges.groups_outer;
    step.vertex_bytes_loaded = residency.bytes_loaded() - loaded_before;
    step.vertex_bytes_written = residency.bytes_written_back() - written_before;
    step.vertex_io_seconds = residency.io_seconds() - io_before;
  }
  return status;
}

// The blocks of a pass over one group's chunks.
Status StepRunner::scan_part(const StepWork& work, const ChunkGroup& g, const NeighbourPass& pass) {
  const StepPlan& plan = *work.plan;
  for (size_t b = 0; b < plan.blocks.size(); ++b) {
    const EdgeSpace& block = parts_.graph->stored_space(plan.blocks[b].stored);
    // A block without edges for the group has nothing to gather or push.
    if (g.edges[b] == 0 || block.neighbour_end <= pass.begin || block.neighbour_begin >= pass.end) continue;
    // Only edges whose neighbour this pass holds; none filtered when the
    // pass holds the whole block.
    neighbour_begin_ = pass.begin <= block.neighbour_begin ? 0 : static_cast<uint32_t>(pass.begin);
    neighbour_end_ = pass.end >= block.neighbour_end ? UINT32_MAX : static_cast<uint32_t>(pass.end);
    BlockPlan part = plan.blocks[b];
    part.spans = g.spans[b];
    SG_RETURN_IF_ERROR(scan(work, part));
  }
  return Status::OK();
}

// Each group with its range of the interval side loaded; with `finishing`,
// the step's finish over each range of destinations as it completes (gaps
// between groups too).
Status StepRunner::for_each_group(const StepWork& work, bool finishing,
                                  const std::function<Status(const ChunkGroup&)>& fn) {
  const uint64_t n = parts_.graph->num_vertices();
  const std::vector<ChunkGroup>& groups = work.ranges->groups;
  const VertexUse inner = work.plan->pull ? VertexUse::kDestination : VertexUse::kSource;
  VertexResidency& residency = *parts_.residency;
  finishing = finishing && work.finish != nullptr;
  uint64_t finished = 0;  // destinations before this are finished
  for (size_t k = 0; k < groups.size(); ++k) {
    const ChunkGroup& g = groups[k];
    if (finishing && finished < g.begin_vertex) {
      SG_RETURN_IF_ERROR(finish_gap(work, finished, g.begin_vertex));
      finished = g.begin_vertex;
    }
    SG_RETURN_IF_ERROR(residency.load(inner, g.begin_vertex, g.end_vertex, work.plan->pull));
    Status status = fn(g);
    // A list split over two groups finishes with the second.
    const uint64_t complete = std::min<uint64_t>(g.end_vertex, k + 1 < groups.size() ? groups[k + 1].begin_vertex : n);
    if (status.ok() && finishing && finished < complete) {
      status = (*work.finish)(static_cast<uint32_t>(finished), static_cast<uint32_t>(complete));
      finished = complete;
    }
    const Status unloaded = residency.unload(inner, g.begin_vertex, g.end_vertex);
    SG_RETURN_IF_ERROR(status);
    SG_RETURN_IF_ERROR(unloaded);
  }
  if (finishing && finished < n) SG_RETURN_IF_ERROR(finish_gap(work, finished, n));
  return Status::OK();
}

// The step's finish over destinations no group of the step covered.
Status StepRunner::finish_gap(const StepWork& work, uint64_t begin, uint64_t end) {
  const VertexUse inner = work.plan->pull ? VertexUse::kDestination : VertexUse::kSource;
  VertexResidency& residency = *parts_.residency;
  return between(
      residency.load(inner, begin, end, true),
      [&] { return (*work.finish)(static_cast<uint32_t>(begin), static_cast<uint32_t>(end)); },
      [&] { return residency.unload(inner, begin, end); });
}

// Processes a block's chunks (cached ones from memory, the rest streamed
// from the devices); each chunk is decoded and handed to the body for its
// vertices in the same task (window_graph.h).
Status StepRunner::scan(const StepWork& work, const BlockPlan& block) {
  // One step over loaded ranges is many scans, most of them of cached
  // chunks: each looks for a signal.
  if (interrupt_requested()) return Status::Interrupted("run stopped by a signal");
  const StepPlan& plan = *work.plan;
  BlockScan scan;
  scan.start = std::chrono::steady_clock::now();
  scan.stored = block.stored;
  scan.space = &parts_.graph->stored_space(block.stored);
  // Push reads only active sources' lists: skip decoding the others.
  scan.only = plan.pull || work.active->is_all() ? nullptr : work.active;
  StepStats& step = scan.step;
  step.iteration = parts_.log->iteration();
  step.mode = plan.pull ? "pull" : "push";
  step.io_mode = io_mode_name(parts_.io_mode);
  step.reversed = work.reversed;
  step.active_vertices = work.active->size();
  step.intervals = static_cast<uint32_t>(parts_.graph->manifest().interval_starts.size());
  RunLog::record_plan(plan, &step);  // the whole step's (run() merges the blocks' parts)
  // Cached chunks are processed from memory; the rest is streamed.
  ChunkCache& cache = *parts_.cache;
  const std::vector<ChunkSpan> to_read =
      disk_spans(*parts_.graph, cache, *parts_.cost_model, block.stored, block.spans);
  std::vector<uint32_t> cached;
  size_t next_read = 0;
  for (const ChunkSpan& span : block.spans) {
    for (uint32_t c = span.begin; c < span.end; ++c) {
      if (cache.find(block.stored, c) != nullptr) cache.touch(block.stored, c, parts_.log->step_count());
      while (next_read < to_read.size() && to_read[next_read].end <= c) ++next_read;
      if (next_read < to_read.size() && to_read[next_read].begin <= c) continue;  // read from the devices
      cached.push_back(c);
    }
  }
  std::vector<uint64_t> bytes_before, requests_before;
  for (size_t d = 0; d < parts_.io->device_count(); ++d) {
    bytes_before.push_back(parts_.io->device_counters(d).bytes.load());
    requests_before.push_back(parts_.io->device_counters(d).requests.load());
  }
  const Status status = scan_interleaved(work, to_read, cached, &scan);
  for (size_t d = 0; d < parts_.io->device_count(); ++d) {
    step.device_bytes.push_back(parts_.io->device_counters(d).bytes.load() - bytes_before[d]);
    step.device_requests.push_back(parts_.io->device_counters(d).requests.load() - requests_before[d]);
  }
  finish_scan(work, block, &scan);
  return status;
}

// The devices start reading at once; the cached chunks are processed a
// share before each disk window, so the devices keep reading meanwhile
// (processed first, they would idle through it). Chunks evicted while the
// step ran are read last.
Status StepRunner::scan_interleaved(const StepWork& work, const std::vector<ChunkSpan>& to_read,
                                    const std::vector<uint32_t>& cached, BlockScan* scan) {
  const ChunkCache& cache = *parts_.cache;
  const size_t stored = scan->stored;
  Status status;
  {
    ChunkStream stream(parts_.io, stored, to_read);
    const size_t windows = stream.window_count();
    size_t cached_done = 0;
    for (size_t w = 0; w <= windows && status.ok(); ++w) {
      size_t until = std::max(cached_done, cached.size() * (w + 1) / (windows + 1));
      // A decoded window's chunks go in one share: a list split over two of
      // them is visited whole with the first (visit_split_lists), and would
      // be visited again with the second in the next share.
      while (until > cached_done && until < cached.size() &&
             cache.decoded_containing(stored, cached[until]) != nullptr &&
             cache.decoded_containing(stored, cached[until]) == cache.decoded_containing(stored, cached[until - 1])) {
        ++until;
      }
      status = scan_cached(work, std::span<const uint32_t>(cached).subspan(cached_done, until - cached_done), scan);
      cached_done = until;
      if (status.ok() && w < windows) status = stream_windows(work, &stream, 1, scan);
    }
    scan->step.io_wait_seconds = stream.io_wait_seconds();
  }
  if (!status.ok() || scan->missed.empty()) return status;
  scan->step.reread_chunks = scan->missed.size();
  std::vector<ChunkSpan> spans;
  for (uint32_t c : scan->missed) {
    if (spans.empty() || spans.back().end != c) spans.push_back(ChunkSpan{c, c});
    spans.back().end = c + 1;
  }
  ChunkStream stream(parts_.io, stored, spans);
  status = stream_windows(work, &stream, SIZE_MAX, scan);
  scan->step.io_wait_seconds += stream.io_wait_seconds();
  return status;
}

// The block's times into its step record, and the measured rates into the
// cost model. The rates are per byte of work as the planner counts it
// (push: the active share of what it touches).
void StepRunner::finish_scan(const StepWork& work, const BlockPlan& block, BlockScan* scan) {
  StepStats& step = scan->step;
  const double threads = static_cast<double>(parallel_threads());
  step.decode_seconds = static_cast<double>(scan->times.decode_ns.load()) * 1e-9;
  const double cpu_wall = (step.decode_seconds + static_cast<double>(scan->times.compute_ns.load()) * 1e-9) / threads;
  const double decoded_cpu_seconds = static_cast<double>(scan->decoded_times.compute_ns.load()) * 1e-9;
  step.compute_seconds = static_cast<double>(scan->times.compute_ns.load()) * 1e-9 + decoded_cpu_seconds;
  step.seconds = seconds_since(scan->start);
  uint64_t touched_bytes = 0;
  for (const ChunkSpan& span : block.spans) touched_bytes += scan->space->chunk_bytes(span.begin, span.end);
  const double active_share =
      work.plan->pull || touched_bytes == 0
          ? 1.0
          : std::min(1.0, static_cast<double>(block.useful_bytes) / static_cast<double>(touched_bytes));
  // Windows decoded whole for the decoded cache did the full work.
  const double whole = static_cast<double>(scan->whole_decode_bytes);
  const double compressed_bytes = static_cast<double>(touched_bytes - step.decoded_cache_bytes) - whole;
  parts_.cost_model->observe_cpu(
      static_cast<uint64_t>(compressed_bytes * (active_share + (1 - active_share) / 4) + whole), cpu_wall);
  parts_.cost_model->observe_decoded_cpu(
      static_cast<uint64_t>(static_cast<double>(step.decoded_cache_bytes) * active_share),
      decoded_cpu_seconds / threads);
  parts_.log->add(std::move(step));
  if (std::getenv("SHARDGRAPH_MEMORY_TRACE") != nullptr) trace_memory();
}

uint64_t StepRunner::cache_room() const {
  const uint64_t limit = parts_.budget->cache_limit();
  return parts_.cache->bytes() < limit ? limit - parts_.cache->bytes() : 0;
}

Status StepRunner::decode_window(const StepWork& work, const ChunkWindow& window, BlockScan* scan, bool* keep) {
  // Room permitting, decode every list (not only the active ones) so the
  // window can serve later steps decoded.
  const EdgeSpace& space = *scan->space;
  *keep = parts_.cache_enabled && parts_.decoded_cache &&
          parts_.cache->decoded_fits(decoded_window_bytes(*parts_.graph, space, window.first_chunk, window.end_chunk),
                                     cache_room());
  if (*keep && scan->only != nullptr)
    scan->whole_decode_bytes += space.chunk_bytes(window.first_chunk, window.end_chunk);
  const VertexSubset* only = *keep ? nullptr : scan->only;
  const DeltaOverlay* overlay = parts_.graph->overlay(space.kind);
  if (overlay == nullptr && parts_.graph->overlay_dropped(space.kind)) {
    return Status::InvalidArgument("a step over the " + space.meta.kind +
                                   "-space of a graph with updates, whose overlay the run let go (its app only pulls)");
  }
  if (overlay == nullptr) {
    SG_RETURN_IF_ERROR(
        build_window_graph(*parts_.graph, space, window, &window_, work.body, work.context, &scan->times, only));
    scan->step.edges_decoded += window_.edges();
  } else if (*keep) {
    SG_RETURN_IF_ERROR(
        build_window_graph(*parts_.graph, space, window, &window_, nullptr, nullptr, &scan->times, only));
    SG_RETURN_IF_ERROR(merge_kept_window(work, window, only, scan));
  } else {
    SG_RETURN_IF_ERROR(decode_and_merge(work, window, only, scan));
  }
  scan->step.chunks += window.end_chunk - window.first_chunk;
  return Status::OK();
}

// A window kept decoded is merged whole into kept_, which the cache then
// takes over.
Status StepRunner::merge_kept_window(const StepWork& work, const ChunkWindow& window, const VertexSubset* only,
                                     BlockScan* scan) {
  const EdgeSpace& space = *scan->space;
  const auto t0 = std::chrono::steady_clock::now();
  SG_RETURN_IF_ERROR(
      merge_window_updates(*parts_.graph, space, *parts_.graph->overlay(space.kind), window_, only, &kept_));
  scan->times.decode_ns += nanoseconds_since(t0);
  std::vector<uint32_t> chunks(window.end_chunk - window.first_chunk);
  std::iota(chunks.begin(), chunks.end(), window.first_chunk);
  visit_window_graph(space, kept_, chunks, work.body, work.context, &scan->times);
  scan->step.edges_decoded += kept_.edges();
  return Status::OK();
}

// Any other window is merged and visited a few lists at a time, each
// chunk's as it is decoded.
Status StepRunner::decode_and_merge(const StepWork& work, const ChunkWindow& window, const VertexSubset* only,
                                    BlockScan* scan) {
  const EdgeSpace& space = *scan->space;
  std::atomic<uint64_t> merged_arcs{0};
  MergedVisit visit;
  visit.on_vertices = work.body;
  visit.context = work.context;
  visit.merged_arcs = &merged_arcs;
  visit.piece_arcs = piece_arcs_;
  SG_RETURN_IF_ERROR(decode_merged_window(*parts_.graph, space, *parts_.graph->overlay(space.kind), window, only, visit,
                                          &window_, &scan->times));
  scan->step.edges_decoded += merged_arcs.load();
  return Status::OK();
}

// Offers the window just decoded to the cache, kept decoded (a graph with
// updates: its merged copy, taken over; else a copy of window_).
void StepRunner::admit_decoded(size_t stored) {
  if (!parts_.graph->has_overlay()) {
    parts_.cache->admit_decoded(stored, window_, cache_room());
    return;
  }
  parts_.cache->admit_decoded(stored, std::move(kept_), cache_room());
  kept_ = WindowGraph();
}

// Cached chunks (sorted) processed from memory. A chunk evicted since the
// step was planned (disk windows of the same step are admitted meanwhile,
// and may evict chunks of a lower priority bin) goes to `missed`, to be
// read from the devices.
Status StepRunner::scan_cached(const StepWork& work, std::span<const uint32_t> chunks, BlockScan* scan) {
  ChunkCache& cache = *parts_.cache;
  const EdgeSpace& space = *scan->space;
  const size_t stored = scan->stored;
  const uint64_t window_bytes_limit = parts_.io->window_bytes();
  StepStats& step = scan->step;
  std::vector<const uint8_t*> payloads;
  size_t i = 0;
  while (i < chunks.size()) {
    if (cache.find(stored, chunks[i]) == nullptr) {
      scan->missed.push_back(chunks[i++]);
      continue;
    }
    if (const WindowGraph* decoded = cache.decoded_containing(stored, chunks[i])) {
      // The requested chunks this decoded window holds (chunks are sorted).
      size_t j = i;
      while (j < chunks.size() && chunks[j] < decoded->end_chunk)
        step.decoded_cache_bytes += space.index[chunks[j++]].bytes;
      visit_window_graph(space, *decoded, chunks.subspan(i, j - i), work.body, work.context, &scan->decoded_times);
      step.chunks += j - i;
      step.cached_chunks += j - i;
      step.decoded_cache_chunks += j - i;
      i = j;
      continue;
    }
    // A window of consecutive cached chunks, up to the next decoded one and
    // no larger than an I/O window: its decoded form is what the budget
    // reserves (4 bytes per compressed byte of one window).
    size_t j = i + 1;
    uint64_t window_bytes = space.index[chunks[i]].bytes;
    uint64_t window_edges = space.index[chunks[i]].edge_count;
    while (j < chunks.size() && chunks[j] == chunks[j - 1] + 1 && j - i < kMaxCachedWindowChunks &&
           window_bytes + space.index[chunks[j]].bytes <= window_bytes_limit &&
           window_holds(space.index[chunks[i]], space.index[chunks[j]], window_edges, window_bytes_limit) &&
           !cache.is_decoded(stored, chunks[j]) && cache.find(stored, chunks[j]) != nullptr) {
      window_edges += space.index[chunks[j]].edge_count;
      window_bytes += space.index[chunks[j++]].bytes;
    }
    payloads.clear();
    for (size_t k = i; k < j; ++k) payloads.push_back(cache.find(stored, chunks[k]));
    ChunkWindow window;
    window.first_chunk = chunks[i];
    window.end_chunk = chunks[j - 1] + 1;
    window.payloads = payloads.data();
    bool keep = false;
    SG_RETURN_IF_ERROR(decode_window(work, window, scan, &keep));
    step.cached_chunks += j - i;
    if (keep) admit_decoded(stored);
    i = j;
  }
  return Status::OK();
}

// Up to `count` windows of the stream, each decoded and processed, its
// chunks offered to the cache.
Status StepRunner::stream_windows(const StepWork& work, ChunkStream* stream, size_t count, BlockScan* scan) {
  ChunkCache& cache = *parts_.cache;
  const EdgeSpace& space = *scan->space;
  for (size_t w = 0; w < count; ++w) {
    ChunkWindow window;
    bool has = false;
    SG_RETURN_IF_ERROR(stream->next(&window, &has));
    if (!has) return Status::OK();
    if (interrupt_requested()) return Status::Interrupted("run stopped by a signal");
    bool keep = false;
    SG_RETURN_IF_ERROR(decode_window(work, window, scan, &keep));
    if (!parts_.cache_enabled) continue;
    for (uint32_t c = window.first_chunk; c < window.end_chunk; ++c) {
      const ChunkIndexEntry& e = space.index[c];
      cache.admit(scan->stored, c, window.payload(c, e), e.bytes, cache_room(), ChunkCache::priority(e),
                  parts_.log->step_count());
    }
    // After the chunks: a decoded window is kept only over cached ones.
    if (keep) admit_decoded(scan->stored);
  }
  return Status::OK();
}

// What the budget accounts for against what the process holds (MiB).
void StepRunner::trace_memory() const {
  auto mib = [](uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); };
  const MemoryBudget& budget = *parts_.budget;
  const uint64_t io_bytes = budget.held(MemoryHolder::kIoBuffers);
  const uint64_t cache_bytes = parts_.cache->bytes();
  std::fprintf(
      stderr,
      "memory: step %zu: metadata %.1f + I/O buffers %.1f (%zu x %.2f) + decode room %.1f + app %.1f + arrays %.1f + "
      "range room %.1f + cache %.1f = %.1f of %.1f; VmRSS %.1f VmHWM %.1f\n",
      parts_.log->step_count(), mib(budget.held(MemoryHolder::kMetadata)), mib(io_bytes), parts_.io->buffer_count(),
      mib(parts_.io->window_bytes()), mib(budget.held(MemoryHolder::kDecodeRoom)), mib(budget.held(MemoryHolder::kApp)),
      mib(parts_.residency->resident_bytes()), mib(budget.range_room()), mib(cache_bytes),
      mib(budget.used() + budget.range_room() + cache_bytes), mib(budget.total()), mib(current_rss_bytes()),
      mib(peak_rss_bytes()));
}

}  // namespace sg
