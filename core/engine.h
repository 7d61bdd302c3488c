// The engine (DESIGN §6-7): Ligra-style edge_map / vertex_map over an
// out-of-core graph. An app passes a functor with
//   bool update(src, dst, weight)         // pull: one writer per dst
//   bool update_atomic(src, dst, weight)  // push: concurrent writers
//   bool cond(dst)                        // false: dst needs no more updates
// and gets back the subset of destinations whose update returned true.
//
// Each step is planned (plan.h): dense pull streams the in-space; push reads,
// per interval holding an active source, either the whole out-shard (full
// scan) or only the chunks holding active lists (selective). With
// --io auto the cost model picks the cheapest; --io full / selective force
// it. Chunks come from the chunk cache or the devices (ChunkStream, reads
// ahead of compute); each is decoded and its vertices updated in one task.
// `reversed` runs over the transposed graph (e.g. WCC on directed graphs).
#pragma once

#include <cassert>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/chunk_cache.h"
#include "core/run_stats.h"
#include "core/vertex_array.h"
#include "core/vertex_subset.h"
#include "core/window_graph.h"
#include "scheduler/cost_model.h"
#include "shards/io/chunk_stream.h"
#include "shards/format/graph.h"
#include "shards/util/parallel.h"

namespace sg {

enum class Direction { kAuto, kPull, kPush };
enum class IoMode { kAuto, kFull, kSelective };
const char* io_mode_name(IoMode mode);
bool parse_io_mode(const std::string& name, IoMode* mode);

struct EngineOptions {
  uint64_t memory_bytes = uint64_t{1} << 30;
  IoBackend backend = IoBackend::kAuto;
  IoMode io_mode = IoMode::kAuto;
  std::string device_class = "hdd";  // preset for devices without a calibrated profile
  bool cache = true;                 // keep chunks in the memory the budget leaves
  bool decoded_cache = true;         // and, with room to spare, decoded windows
  std::string scratch_dir;           // for file-backed vertex arrays; default: the graph directory
  bool progress = false;             // one status line on stderr after each step
  bool quiet = false;                // notes only in notices(), not on stderr
  std::string label = "run";
  uint64_t window_bytes = 0;  // 0 = from the budget and stripe layout (tests set it small)
};

struct EdgeMapOptions {
  Direction direction = Direction::kAuto;
  bool reversed = false;
};

// What a step will read and why.
struct StepPlan {
  bool pull = false;
  SpaceKind kind = SpaceKind::kIn;
  std::vector<ChunkSpan> spans;  // chunks to process, in order
  PlanCost predicted;
  double pull_seconds = -1, push_seconds = -1;  // the alternatives costed (-1: not considered)
  std::vector<IntervalDecision> intervals;
  uint32_t intervals_skipped = 0;
  uint64_t useful_bytes = 0;  // estimated bytes of the active lists (push)
  uint64_t read_ahead_bytes = 0;  // chunks read past the active ones, for the cache
};

class Engine {
 public:
  Status open(const Graph& graph, const EngineOptions& options);

  const Graph& graph() const { return *graph_; }
  uint32_t num_vertices() const { return graph_->num_vertices(); }
  const std::vector<uint32_t>& out_degree() const { return graph_->space(SpaceKind::kOut).degrees; }
  // Requires ensure_in_degrees() on a graph opened without them.
  const std::vector<uint32_t>& in_degree() const {
    assert(graph_->in_degrees_loaded());
    return graph_->space(SpaceKind::kIn).degrees;
  }
  // Loads deferred in-degrees (GraphOpenOptions::in_degrees) and counts them
  // against the budget, shrinking the cache to make room.
  Status ensure_in_degrees() {
    if (graph_->in_degrees_loaded()) return Status::OK();
    SG_RETURN_IF_ERROR(graph_->load_in_degrees());
    memory_used_ += uint64_t{num_vertices()} * sizeof(uint32_t);
    cache_.shrink_to(memory_used_ < options_.memory_bytes ? options_.memory_bytes - memory_used_ : 0);
    return Status::OK();
  }
  uint64_t num_arcs() const { return graph_->space(SpaceKind::kOut).meta.arcs; }
  const CostModel& cost_model() const { return cost_model_; }

  // Allocates a zeroed vertex array; file-backed when the budget is spent.
  template <typename T>
  Status allocate(VertexArray<T>* array, const std::string& name) {
    const uint64_t bytes = uint64_t{num_vertices()} * sizeof(T);
    const bool fits = memory_used_ + bytes <= options_.memory_bytes;
    if (fits) {
      memory_used_ += bytes;
      cache_.shrink_to(options_.memory_bytes - memory_used_);  // arrays come before cached chunks
    } else {
      note("vertex array '" + name + "' (" + std::to_string(bytes) + " bytes) exceeds the memory budget; file-backed");
    }
    return array->allocate(num_vertices(), fits ? std::string() : scratch_path(name));
  }

  // Marks the start of an iteration (steps are tagged with it, and its wall
  // time runs until the next mark).
  void set_iteration(int iteration) {
    iteration_ = iteration;
    iteration_starts_.push_back(std::chrono::steady_clock::now());
  }
  // Drops every cached chunk and decoded window (the run is over: the
  // memory goes to writing its results).
  void release_cache() {
    if (!released_) {
      released_cache_bytes_ = cache_.bytes();
      released_decoded_bytes_ = cache_.decoded_bytes();
      released_ = true;
    }
    cache_.shrink_to(0);
  }
  // Marks the end of the last iteration (the app returned).
  void end_iterations() { iteration_starts_.push_back(std::chrono::steady_clock::now()); }
  // Wall seconds of each iteration between the marks.
  std::vector<double> iteration_seconds() const;

  template <typename F>
  Status edge_map(const VertexSubset& frontier, F& f, VertexSubset* next, EdgeMapOptions options = {}) {
    if (options.reversed) SG_RETURN_IF_ERROR(ensure_in_degrees());
    const VertexSubset* active = &frontier;
    VertexSubset dense_copy;
    if (!frontier.is_dense()) {
      dense_copy = frontier;
      dense_copy.to_dense();
      active = &dense_copy;
    }
    const bool all = active->is_all();
    const StepPlan plan = make_plan(frontier, *active, options);
    *next = VertexSubset::dense_builder(num_vertices());
    VertexSubset* out = next;
    Status status;
    if (plan.pull) {
      auto body = [&](const WindowGraph& w, uint32_t begin, uint32_t end) {
        for (uint32_t i = begin; i < end; ++i) {
          const uint32_t v = w.first_vertex + i;
          if (!f.cond(v)) continue;
          for (uint32_t e = w.offsets[i]; e < w.offsets[i + 1]; ++e) {
            const uint32_t u = w.neighbours[e];
            if (!all && !active->contains(u)) continue;
            if (f.update(u, v, w.weights.empty() ? 1.0f : w.weights[e])) out->set_atomic(v);
            if (!f.cond(v)) break;
          }
        }
      };
      status = scan(*active, plan, options.reversed, &call_body<decltype(body)>, &body);
    } else {
      auto body = [&](const WindowGraph& w, uint32_t begin, uint32_t end) {
        auto push_from = [&](uint32_t u) {
          const uint32_t i = u - w.first_vertex;
          for (uint32_t e = w.offsets[i]; e < w.offsets[i + 1]; ++e) {
            const uint32_t v = w.neighbours[e];
            if (f.cond(v) && f.update_atomic(u, v, w.weights.empty() ? 1.0f : w.weights[e])) out->set_atomic(v);
          }
        };
        if (all) {
          for (uint32_t u = w.first_vertex + begin; u < w.first_vertex + end; ++u) push_from(u);
        } else {
          active->for_each_in(w.first_vertex + begin, w.first_vertex + end, push_from);  // skips inactive words
        }
      };
      status = scan(*active, plan, options.reversed, &call_body<decltype(body)>, &body);
    }
    next->recount();
    if (next->size() < num_vertices() / 64) next->to_sparse();  // small frontiers plan from their list
    if (!steps_.empty()) steps_.back().next_active_vertices = next->size();
    return status;
  }

  // Calls f(v) for every v in the subset, in parallel.
  template <typename F>
  void vertex_map(const VertexSubset& subset, F&& f) const {
    if (subset.is_dense()) {
      const auto& bits = subset.bits();
      parallel_for(size_t{0}, bits.size(), size_t{256}, [&](size_t words_begin, size_t words_end) {
        for (size_t word_index = words_begin; word_index < words_end; ++word_index) {
          uint64_t word = bits[word_index];
          while (word != 0) {
            f(static_cast<uint32_t>(word_index * 64 + static_cast<unsigned>(__builtin_ctzll(word))));
            word &= word - 1;
          }
        }
      });
    } else {
      const auto& ids = subset.list();
      parallel_for(size_t{0}, ids.size(), size_t{1024}, [&](size_t ids_begin, size_t ids_end) {
        for (size_t i = ids_begin; i < ids_end; ++i) f(ids[i]);
      });
    }
  }

  // The subset of `subset` for which f(v) is true.
  template <typename F>
  VertexSubset vertex_filter(const VertexSubset& subset, F&& f) const {
    VertexSubset out = VertexSubset::dense_builder(num_vertices());
    vertex_map(subset, [&](uint32_t v) {
      if (f(v)) out.set_atomic(v);
    });
    out.recount();
    return out;
  }

  const std::vector<StepStats>& steps() const { return steps_; }
  const std::string& notices() const { return notices_; }
  IoBackend backend() const { return io_.backend(); }
  size_t device_count() const { return io_.device_count(); }
  const DeviceCounters& device_counters(size_t d) const { return io_.device_counters(d); }
  uint64_t memory_used() const { return memory_used_; }
  // What the cache held when the run ended (before release_cache).
  uint64_t cache_bytes() const { return released_ ? released_cache_bytes_ : cache_.bytes(); }
  uint64_t decoded_cache_bytes() const { return released_ ? released_decoded_bytes_ : cache_.decoded_bytes(); }
  uint64_t cache_evictions() const { return cache_.evictions(); }

 private:
  template <typename Body>
  static void call_body(void* body, const WindowGraph& w, uint32_t begin, uint32_t end) {
    (*static_cast<Body*>(body))(w, begin, end);
  }

  // `frontier` as given (maybe a list), `active` its dense form.
  StepPlan make_plan(const VertexSubset& frontier, const VertexSubset& active, const EdgeMapOptions& options) const;
  StepPlan plan_pull(SpaceKind kind) const;
  StepPlan plan_push(const VertexSubset& frontier, const VertexSubset& active, SpaceKind kind, IoMode mode) const;
  std::vector<ChunkSpan> disk_spans(size_t stored, const std::vector<ChunkSpan>& spans) const;
  // Prices a plan; `useful_bytes` (push) are the active lists' bytes, the
  // rest of what push reads is skipped, not decoded.
  void cost_plan(StepPlan* plan, uint64_t useful_bytes = UINT64_MAX) const;
  struct ActiveChunks {
    std::vector<uint32_t> chunks;  // sorted
    uint64_t useful_bytes = 0;     // estimated bytes of the active lists
  };
  // Per interval, the chunks holding an active list.
  std::vector<ActiveChunks> active_chunks(const VertexSubset& frontier, const VertexSubset& active, size_t stored) const;
  std::vector<ChunkSpan> merge_chunks(size_t stored, const std::vector<uint32_t>& chunks, bool fill_gaps) const;
  // Extends selective spans within `interval` for the cache (engine.cc);
  // returns the bytes added and takes them from *room.
  uint64_t read_ahead(size_t stored, ChunkSpan interval, std::vector<ChunkSpan>* spans, uint64_t* room) const;
  size_t stored_index(SpaceKind kind) const { return graph_->directed() ? static_cast<size_t>(kind) : 0; }

  // Processes the plan's chunks (cached ones from memory, the rest streamed
  // from the devices); each chunk is decoded and handed to `body` for its
  // vertices in the same task (window_graph.h).
  Status scan(const VertexSubset& active, const StepPlan& plan, bool reversed, VertexRangeFn body, void* context);
  Status scan_cached(const EdgeSpace& space, size_t stored, const std::vector<uint32_t>& chunks, VertexRangeFn body,
                     void* context, WindowTimes* times, WindowTimes* decoded_times, StepStats* step,
                     const VertexSubset* only);
  uint64_t cache_room() const;  // budget bytes the cache may still take
  // Decodes `window` into window_ and runs `body` over it; *keep: every list
  // was decoded so the window may be kept decoded (engine.cc).
  Status decode_window(const EdgeSpace& space, const ChunkWindow& window, VertexRangeFn body, void* context,
                       WindowTimes* times, const VertexSubset* only, StepStats* step, bool* keep);
  std::string scratch_path(const std::string& name) const;
  void note(const std::string& text);
  void report_progress(const StepStats& step) const;

  const Graph* graph_ = nullptr;
  EngineOptions options_;
  IoContext io_;
  CostModel cost_model_;
  ChunkCache cache_;
  std::vector<std::vector<ChunkSpan>> interval_chunks_;  // [stored space][interval]
  WindowGraph window_;
  uint64_t memory_used_ = 0;
  bool released_ = false;
  uint64_t released_cache_bytes_ = 0, released_decoded_bytes_ = 0;
  int iteration_ = 0;
  uint64_t whole_decode_bytes_ = 0;  // this step: push windows decoded whole for the decoded cache
  std::vector<std::chrono::steady_clock::time_point> iteration_starts_;
  std::vector<StepStats> steps_;
  std::string notices_;
};

}  // namespace sg
