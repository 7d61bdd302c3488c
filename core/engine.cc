#include "core/engine.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace sg {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Chunk ranges of each interval: an interval starts at the chunk whose first
// vertex is the interval start (chunks never span interval boundaries).
std::vector<ChunkSpan> chunks_per_interval(const EdgeSpace& space, const std::vector<uint32_t>& starts) {
  std::vector<ChunkSpan> spans;
  uint32_t c = 0;
  const uint32_t chunks = static_cast<uint32_t>(space.index.size());
  for (size_t i = 0; i < starts.size(); ++i) {
    const uint32_t end_vertex = i + 1 < starts.size() ? starts[i + 1] : UINT32_MAX;
    const uint32_t begin = c;
    while (c < chunks && space.index[c].first_vertex < end_vertex) ++c;
    spans.push_back(ChunkSpan{begin, c});
  }
  return spans;
}

}  // namespace

Status Engine::open(const Graph& graph, const EngineOptions& options) {
  graph_ = &graph;
  options_ = options;
  notices_.clear();
  steps_.clear();
  // Memory: the graph's in-memory metadata, then I/O buffers (a quarter of
  // the budget) and room to decode one window; vertex arrays get the rest.
  memory_used_ = 0;
  for (size_t s = 0; s < graph.stored_space_count(); ++s) {
    memory_used_ += graph.stored_space(s).index.size() * sizeof(ChunkIndexEntry);
    memory_used_ += graph.stored_space(s).degrees.size() * sizeof(uint32_t);
  }
  memory_used_ += 3 * (uint64_t{graph.num_vertices()} / 8 + 8);  // frontiers
  IoOptions io;
  io.backend = options.backend;
  io.buffer_bytes = std::max<uint64_t>(options.memory_bytes / 4, 1 << 20);
  if (options.window_bytes != 0) io.buffer_bytes = 4 * options.window_bytes;
  SG_RETURN_IF_ERROR(io_.open(graph, io));
  if (!io_.notice().empty()) note(io_.notice().substr(0, io_.notice().size() - 1));
  const uint64_t decode_bytes = 4 * io_.window_bytes();  // neighbours, weights and offsets of one window, typical
  memory_used_ += io_.buffer_count() * io_.window_bytes() + decode_bytes;
  if (memory_used_ > options.memory_bytes) {
    note("the graph's metadata and I/O buffers (" + std::to_string(memory_used_) + " bytes) exceed --memory");
  }
  interval_chunks_.clear();
  for (size_t s = 0; s < graph.stored_space_count(); ++s) {
    interval_chunks_.push_back(chunks_per_interval(graph.stored_space(s), graph.manifest().interval_starts));
  }
  return Status::OK();
}

void Engine::note(const std::string& text) {
  notices_ += text + "\n";
  std::fprintf(stderr, "shardgraph: %s\n", text.c_str());
}

std::string Engine::scratch_path(const std::string& name) const {
  const std::string dir = options_.scratch_dir.empty() ? graph_->dir() : options_.scratch_dir;
  return dir + "/.scratch-" + std::to_string(::getpid()) + "-" + name;
}

Direction Engine::choose_direction(const VertexSubset& active, const EdgeMapOptions& options) const {
  if (options.direction != Direction::kAuto) return options.direction;
  // Ligra's rule: push while the frontier's out-edges are under |E|/20.
  const std::vector<uint32_t>& degrees = options.reversed ? in_degree() : out_degree();
  if (active.is_all()) return Direction::kPull;
  uint64_t frontier_edges = active.size();
  active.for_each([&](uint32_t v) { frontier_edges += degrees[v]; });
  return frontier_edges > num_arcs() / 20 ? Direction::kPull : Direction::kPush;
}

Status Engine::scan(const VertexSubset& active, SpaceKind kind, bool skip_inactive, bool reversed, VertexRangeFn body,
                    void* context) {
  const auto start = std::chrono::steady_clock::now();
  const size_t stored = graph_->directed() ? static_cast<size_t>(kind) : 0;
  const EdgeSpace& space = graph_->stored_space(stored);
  const auto& starts = graph_->manifest().interval_starts;
  StepStats step;
  step.iteration = iteration_;
  step.mode = skip_inactive ? "push" : "pull";
  step.reversed = reversed;
  step.active_vertices = active.size();
  step.intervals = static_cast<uint32_t>(starts.size());
  std::vector<ChunkSpan> plan;
  for (size_t i = 0; i < starts.size(); ++i) {
    const uint32_t end = i + 1 < starts.size() ? starts[i + 1] : graph_->num_vertices();
    const ChunkSpan span = interval_chunks_[stored][i];
    if ((skip_inactive && !active.is_all() && !active.any_in(starts[i], end)) || span.begin == span.end) {
      ++step.intervals_skipped;
      continue;
    }
    plan.push_back(span);
  }
  std::vector<uint64_t> bytes_before, requests_before;
  for (size_t d = 0; d < io_.device_count(); ++d) {
    bytes_before.push_back(io_.device_counters(d).bytes.load());
    requests_before.push_back(io_.device_counters(d).requests.load());
  }
  Status status;
  WindowTimes times;
  {
    ChunkStream stream(&io_, kind, plan);
    for (;;) {
      ChunkWindow window;
      bool has = false;
      status = stream.next(&window, &has);
      if (!status.ok() || !has) break;
      status = build_window_graph(*graph_, space, window, &window_, body, context, &times);
      if (!status.ok()) break;
      step.chunks += window.end_chunk - window.first_chunk;
      step.edges_decoded += window_.edges();
    }
    step.io_wait_seconds = stream.io_wait_seconds();
    step.decode_seconds = static_cast<double>(times.decode_ns.load()) * 1e-9;
    step.compute_seconds = static_cast<double>(times.compute_ns.load()) * 1e-9;
  }
  for (size_t d = 0; d < io_.device_count(); ++d) {
    step.device_bytes.push_back(io_.device_counters(d).bytes.load() - bytes_before[d]);
    step.device_requests.push_back(io_.device_counters(d).requests.load() - requests_before[d]);
  }
  step.seconds = seconds_since(start);
  steps_.push_back(step);
  if (options_.progress) report_progress(step);
  return status;
}

void Engine::report_progress(const StepStats& step) const {
  const RunTotals totals = sum_steps(steps_);
  std::fprintf(stderr, "\r[%s] iteration %d  %s  active %llu  read %.1f MB  %.0f MB/s   ", options_.label.c_str(),
               step.iteration, step.mode.c_str(), static_cast<unsigned long long>(step.active_vertices),
               static_cast<double>(totals.bytes_read) / 1e6,
               step.seconds > 0 ? static_cast<double>(step.bytes_read()) / 1e6 / step.seconds : 0.0);
  std::fflush(stderr);
}

}  // namespace sg
