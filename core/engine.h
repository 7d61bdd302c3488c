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
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/chunk_cache.h"
#include "core/communicator.h"
#include "core/run_stats.h"
#include "core/vertex_array.h"
#include "core/vertex_residency.h"
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
  // With both sides of a step's vertex values ranged: which loop is outer
  // (engine.cc, range_plan); tests force each.
  enum class RangeLoop { kAuto, kPassesOuter, kGroupsOuter };
  RangeLoop range_loop = RangeLoop::kAuto;
};

// Called with [begin, end) (see EdgeMapOptions::finish_range).
using RangeFinish = std::function<Status(uint32_t begin, uint32_t end)>;

struct EdgeMapOptions {
  Direction direction = Direction::kAuto;
  bool reversed = false;
  // Pull steps only: called once for each range of destinations as soon as
  // every edge into it has been processed, with the step's ranged
  // destination arrays loaded over it (once, over [0, n), when none is
  // ranged). The ranges partition [0, n), in order. PageRank finishes its
  // ranks there instead of in a vertex_map that would load them again.
  RangeFinish finish_range = nullptr;
  // Pull steps only: the destinations [destinations_begin, destinations_end)
  // are all that is updated, and chunks holding none of them are not read
  // (apps that gather a block of vertices' lists at a time, e.g. CDLP, LCC).
  uint32_t destinations_begin = 0;
  uint32_t destinations_end = UINT32_MAX;
};

// A rank's share of a partitioned graph (docs/scale-out.md): it owns the
// destinations [owned_begin, owned_end) and its part holds every arc into
// them; vertex arrays span every vertex, the others' values mirrored.
struct Distribution {
  Communicator* communicator = nullptr;
  // Rank r owns [bounds[r], bounds[r + 1]); bounds has a rank more, ending at |V|.
  std::vector<uint32_t> bounds;
  uint32_t owned_begin = 0, owned_end = 0;  // set by Engine::distribute
  std::string out_degree_path;  // the whole graph's out-degrees (a part's own are partial)
  uint64_t out_degree_checksum = 0;
};

// What a step will read of one block of a space (the whole space when it
// is 1-D), and why.
struct BlockPlan {
  size_t stored = 0;             // the block's stored space
  std::vector<ChunkSpan> spans;  // chunks to process, in order
  PlanCost predicted;
  std::vector<IntervalDecision> intervals;
  uint32_t intervals_skipped = 0;
  uint64_t useful_bytes = 0;      // estimated bytes of the active lists (push)
  uint64_t read_ahead_bytes = 0;  // chunks read past the active ones, for the cache
};

// What a step will read: a plan per block of the space, in neighbour order.
struct StepPlan {
  bool pull = false;
  SpaceKind kind = SpaceKind::kIn;
  std::vector<BlockPlan> blocks;
  PlanCost predicted;  // the blocks' together, times the passes over each
  double pull_seconds = -1, push_seconds = -1;  // the alternatives costed (-1: not considered)
  // Over every block.
  std::vector<IntervalDecision> intervals;
  uint32_t intervals_skipped = 0;
  uint64_t useful_bytes = 0;
  uint64_t read_ahead_bytes = 0;
};

class Engine {
 public:
  Status open(const Graph& graph, const EngineOptions& options);
  // The least --memory a run of `graph` needs: chunk indexes, three
  // frontier bitmaps and two I/O windows (vertex arrays beyond the budget
  // are loaded by range; degrees and the id map are read when needed).
  static uint64_t minimum_memory_bytes(const Graph& graph);

  const Graph& graph() const { return *graph_; }
  uint32_t num_vertices() const { return graph_->num_vertices(); }
  // Degrees (engine arrays over the graph's degree files: whole in memory
  // when the budget allows, else loaded by range like kVertex arrays).
  // Requires ensure_out_degrees().
  const VertexArray<uint32_t>& out_degree() const {
    if (distributed()) return global_out_degrees_;
    assert(degrees_ready_[kind_slot(SpaceKind::kOut)]);
    return degrees_[kind_slot(SpaceKind::kOut)];
  }
  // Requires ensure_in_degrees().
  const VertexArray<uint32_t>& in_degree() const {
    assert(degrees_ready_[kind_slot(SpaceKind::kIn)]);
    return degrees_[kind_slot(SpaceKind::kIn)];
  }
  // Degrees of vertices [begin, end) of `kind` into `out`: copied when the
  // degree array is whole, else read from the degree file (its checksum
  // checked at the first read), without holding the degrees.
  Status read_degrees(SpaceKind kind, uint32_t begin, uint32_t end, uint32_t* out);
  // Sets up degrees not set up at open (in-degrees, or out-degrees too
  // large to read before an app asks).
  Status ensure_in_degrees() { return setup_degrees(SpaceKind::kIn); }
  Status ensure_out_degrees() { return distributed() ? Status::OK() : setup_degrees(SpaceKind::kOut); }
  uint64_t num_arcs() const { return graph_->arcs(SpaceKind::kOut); }
  const CostModel& cost_model() const { return cost_model_; }

  // Makes this engine one rank of a distributed run (after open, before
  // any array is allocated). `reverse` (may be null: undirected graphs)
  // is an engine over the rank's reverse part, the transposed arcs out of
  // its vertices, for reversed steps. From here on edge_map updates owned
  // destinations and shares the next frontier; vertex_map, vertex_filter
  // and vertex_reduce visit owned vertices (reductions and subsets are then
  // agreed by all ranks); arrays are held whole (in memory, else
  // file-backed), and finish_array gathers every value. Out-degrees are
  // the whole graph's.
  Status distribute(const Distribution& distribution, Engine* reverse);
  bool distributed() const { return distribution_.communicator != nullptr; }
  uint32_t owned_begin() const { return distributed() ? distribution_.owned_begin : 0; }
  uint32_t owned_end() const { return distributed() ? distribution_.owned_end : num_vertices(); }
  Communicator* communicator() const { return distribution_.communicator; }

  // Allocates a zeroed vertex array used as `use` (core/vertex_residency.h).
  // kAny arrays are placed at once: in memory, or file-backed when the
  // budget is spent. The others are placed by the next vertex_map /
  // edge_map: whole when they fit, else by vertex range; until then their
  // values must not be touched.
  template <typename T>
  Status allocate(VertexArray<T>* array, const std::string& name, VertexUse use = VertexUse::kAny) {
    mirrors_current_ = false;
    const uint64_t bytes = uint64_t{num_vertices()} * sizeof(T);
    if (use != VertexUse::kAny && !distributed()) {
      static_assert(sizeof(T) >= 4, "ranged arrays load whole pages of slabs (vertex_array.h)");
      SG_RETURN_IF_ERROR(array->raw().allocate_ranged(num_vertices(), sizeof(T), scratch_path(name)));
      array->set_size(num_vertices());
      residency_.add(&array->raw(), use, sizeof(T), name, false, 0);
      return Status::OK();
    }
    // A rank touches only its owned slice of an array that no step reads at
    // sources (anonymous pages cost nothing untouched) until finish_array.
    const bool owned_only = distributed() && use != VertexUse::kSource && use != VertexUse::kAny;
    const uint64_t held = owned_only ? uint64_t{owned_end() - owned_begin()} * sizeof(T) : bytes;
    const bool fits = memory_used() + held <= options_.memory_bytes;
    if (!fits) note("vertex array '" + name + "' (" + std::to_string(bytes) + " bytes) exceeds the memory budget; file-backed");
    SG_RETURN_IF_ERROR(array->allocate(num_vertices(), fits ? std::string() : scratch_path(name)));
    residency_.add(&array->raw(), use, sizeof(T), name, true, fits ? held : 0);
    if (fits) shrink_cache();  // arrays come before cached chunks
    peak_memory_used_ = std::max(peak_memory_used_, memory_used());
    return Status::OK();
  }

  // Memory an app holds besides vertex arrays (e.g. a block of gathered
  // lists): counted in memory_used() and taken from the cache until
  // release_app_memory gives it back.
  void hold_app_memory(uint64_t bytes) {
    memory_used_ += bytes;
    peak_memory_used_ = std::max(peak_memory_used_, memory_used());
    shrink_cache();
  }
  void release_app_memory(uint64_t bytes) { memory_used_ -= std::min(memory_used_, bytes); }
  // Budget bytes nothing holds yet (the cache and loaded ranges may use them).
  uint64_t unheld_memory() const { return memory_used() < options_.memory_bytes ? options_.memory_bytes - memory_used() : 0; }

  // Whether an array of `bytes` would be held whole (allocated now as kAny).
  bool fits_whole(uint64_t bytes) const { return memory_used() + bytes <= options_.memory_bytes; }

  // Marks the start of an iteration (steps are tagged with it, and its wall
  // time runs until the next mark).
  void set_iteration(int iteration) {
    iteration_ = iteration;
    iteration_starts_.push_back(std::chrono::steady_clock::now());
  }
  // Drops every cached chunk and decoded window, the degrees, the read
  // buffers and the decode room (the run is over: the memory goes to
  // writing its results; no edge_map may follow).
  void release_cache() {
    if (!released_) {
      released_cache_bytes_ = cache_.bytes();
      released_decoded_bytes_ = cache_.decoded_bytes();
      released_ = true;
    }
    cache_.shrink_to(0);
    for (size_t s = 0; s < 2; ++s) {  // and the degrees the app used
      degrees_[s] = VertexArray<uint32_t>();
      degrees_ready_[s] = false;
    }
    // No step runs again: the read buffers and the decode room go too.
    io_.release_buffers();
    window_ = WindowGraph();
  }
  // Marks the end of the last iteration (the app returned).
  void end_iterations() { iteration_starts_.push_back(std::chrono::steady_clock::now()); }
  // Wall seconds of each iteration between the marks.
  std::vector<double> iteration_seconds() const;

  template <typename F>
  Status edge_map(const VertexSubset& frontier, F& f, VertexSubset* next, EdgeMapOptions options = {}) {
    if (!distributed()) return local_edge_map(frontier, f, next, options);
    // Sources' values first (updates read them), then the local step, then
    // the next frontier from every rank (engine_distributed.cc).
    Communicator* comm = distribution_.communicator;
    const ExchangeCounters before = comm->counters();
    const size_t steps_before = steps_.size();
    SG_RETURN_IF_ERROR(share_sources(frontier));
    if (options.finish_range) {
      mirrors_current_ = false;  // the callback may set source values
      options.finish_range = [this, finish = options.finish_range](uint32_t begin, uint32_t end) {
        begin = std::max(begin, distribution_.owned_begin);
        end = std::min(end, distribution_.owned_end);
        return begin < end ? finish(begin, end) : Status::OK();
      };
    }
    Status status;
    if (options.reversed && !graph_->directed()) options.reversed = false;  // an undirected graph is its own transpose
    if (options.reversed && reverse_ != nullptr) {
      options.reversed = false;
      status = reverse_->local_edge_map(frontier, f, next, options);
      adopt_reverse_steps();
    } else if (options.reversed && graph_->directed()) {
      status = Status::InvalidArgument("a reversed step needs the partition's reverse parts (partition the graph again)");
    } else {
      status = local_edge_map(frontier, f, next, options);
    }
    SG_RETURN_IF_ERROR(comm->agree(status));
    SG_RETURN_IF_ERROR(share_members(next));
    record_exchange(before, steps_before);
    return Status::OK();
  }

  // Calls f(v) for every v in the subset, in parallel; with arrays loaded
  // by range, a range at a time (every such array's range is loaded).
  // `access` (optional) names the arrays f touches, so the others' ranges
  // are not moved. Distributed: the owned members only.
  template <typename F>
  Status vertex_map(const VertexSubset& subset, F&& f, const VertexAccess& access = {}) {
    SG_RETURN_IF_ERROR(prepare_vertices());
    mirrors_current_ = false;  // f may write source arrays
    const uint32_t begin = owned_begin(), end = owned_end();
    if (!residency_.any_ranged()) {
      map_members(subset, begin, end, f);
      return Status::OK();
    }
    VertexSubset dense_copy;
    const VertexSubset* members = &subset;
    if (!subset.is_dense()) {
      dense_copy = subset;
      dense_copy.to_dense();
      members = &dense_copy;
    }
    return for_each_vertex_range(members, access, [&](uint32_t lo, uint32_t hi) {
      lo = std::max(lo, begin);
      hi = std::min(hi, end);
      if (lo < hi) map_members(*members, lo, hi, f);
    });
  }

  // The subset of `subset` for which f(v) is true (distributed: the same
  // on every rank, each rank testing its owned vertices).
  template <typename F>
  Status vertex_filter(const VertexSubset& subset, F&& f, VertexSubset* out, const VertexAccess& access = {}) {
    *out = VertexSubset::dense_builder(num_vertices());
    SG_RETURN_IF_ERROR(vertex_map(subset, [&](uint32_t v) {
      if (f(v)) out->set_atomic(v);
    }, access));
    out->recount();
    return distributed() ? share_members(out) : Status::OK();
  }

  // *total = the sum of f(v) over every vertex (T has += and T{}), in
  // parallel; distributed, each rank's owned sum added in rank order.
  template <typename T, typename F>
  Status vertex_reduce(F&& f, T* total, const VertexAccess& access = {}) {
    SG_RETURN_IF_ERROR(prepare_vertices());
    mirrors_current_ = false;
    *total = T{};
    const uint32_t begin = owned_begin(), end = owned_end();
    if (!residency_.any_ranged()) {
      *total = parallel_sum<T>(begin, end, f);
    } else {
      SG_RETURN_IF_ERROR(for_each_vertex_range(nullptr, access, [&](uint32_t lo, uint32_t hi) {
        lo = std::max(lo, begin);
        hi = std::min(hi, end);
        if (lo < hi) *total += parallel_sum<T>(lo, hi, f);
      }));
    }
    return distributed() ? distribution_.communicator->sum(total) : Status::OK();
  }

 private:
  template <typename F>
  Status local_edge_map(const VertexSubset& frontier, F& f, VertexSubset* next, EdgeMapOptions options) {
    // The planner prices push steps over the reversed graph with in-degrees
    // when they are cheap to hold, else with estimates.
    if (options.reversed && degrees_cheap()) SG_RETURN_IF_ERROR(ensure_in_degrees());
    SG_RETURN_IF_ERROR(prepare_vertices());
    const VertexSubset* active = &frontier;
    VertexSubset dense_copy;
    if (!frontier.is_dense()) {
      dense_copy = frontier;
      dense_copy.to_dense();
      active = &dense_copy;
    }
    const bool all = active->is_all();
    const StepPlan plan = make_plan(frontier, *active, options);
    if (options.finish_range && !plan.pull) return Status::InvalidArgument("finish_range needs a pull step");
    const uint32_t destinations_begin = options.destinations_begin, destinations_end = options.destinations_end;
    if (!plan.pull && (destinations_begin != 0 || destinations_end != UINT32_MAX)) {
      return Status::InvalidArgument("a destination range needs a pull step");
    }
    finish_range_ = options.finish_range ? &options.finish_range : nullptr;
    *next = VertexSubset::dense_builder(num_vertices());
    VertexSubset* out = next;
    const uint64_t sparse_below = num_vertices() / 64;  // small frontiers plan from their list
    MemberCollector found(!plan.pull && !frontier.is_dense(), sparse_below);
    Status status;
    if (plan.pull) {
      auto body = [&](const WindowGraph& w, uint32_t begin, uint32_t end) {
        for (uint32_t i = begin; i < end; ++i) {
          const uint32_t v = w.first_vertex + i;
          if (v < destinations_begin || v >= destinations_end || !f.cond(v)) continue;
          // Lists are sorted: the sources of this pass are one run of each.
          const uint32_t list_end = w.offsets[i + 1];
          uint32_t e = neighbour_begin_ == 0 ? w.offsets[i] : first_at_least(w, w.offsets[i], list_end, neighbour_begin_);
          if constexpr (requires { f.update_list(v, w.neighbours.data(), e); }) {
            // A gather over every source (no frontier, no weights, or a
            // functor that ignores them): one call a list, which sums in
            // registers.
            if (all && (w.weights.empty() || ignores_weights<F>())) {
              const uint32_t end_at = neighbour_end_ == UINT32_MAX ? list_end : first_at_least(w, e, list_end, neighbour_end_);
              if (end_at > e && f.update_list(v, w.neighbours.data() + e, end_at - e)) out->set_atomic(v);
              continue;
            }
          }
          for (; e < list_end; ++e) {
            const uint32_t u = w.neighbours[e];
            if (u >= neighbour_end_) break;
            if (!all && !active->contains(u)) continue;
            if (f.update(u, v, w.weights.empty() ? 1.0f : w.weights[e])) out->set_atomic(v);
            if (!f.cond(v)) break;
          }
        }
      };
      status = scan_groups(*active, plan, options.reversed, &call_body<decltype(body)>, &body);
    } else {
      auto body = [&](const WindowGraph& w, uint32_t begin, uint32_t end) {
        auto push_from = [&](uint32_t u) {
          const uint32_t i = u - w.first_vertex;
          const uint32_t list_end = w.offsets[i + 1];
          uint32_t e = neighbour_begin_ == 0 ? w.offsets[i] : first_at_least(w, w.offsets[i], list_end, neighbour_begin_);
          for (; e < list_end; ++e) {
            const uint32_t v = w.neighbours[e];
            if (v >= neighbour_end_) break;
            if (f.cond(v) && f.update_atomic(u, v, w.weights.empty() ? 1.0f : w.weights[e]) && out->set_atomic(v)) found.add(v);
          }
        };
        if (all) {
          for (uint32_t u = w.first_vertex + begin; u < w.first_vertex + end; ++u) push_from(u);
        } else {
          active->for_each_in(w.first_vertex + begin, w.first_vertex + end, push_from);  // skips inactive words
        }
      };
      status = scan_groups(*active, plan, options.reversed, &call_body<decltype(body)>, &body);
    }
    finish_range_ = nullptr;
    if (found.complete()) {
      next->set_members(found.take_sorted(), sparse_below);
    } else {
      next->recount();
      if (next->size() < sparse_below) next->to_sparse();
    }
    if (!steps_.empty()) steps_.back().next_active_vertices = next->size();
    return status;
  }

 public:
  // Sets every value of `array` to zero (a ranged one without any I/O).
  template <typename T>
  Status clear(VertexArray<T>* array) {
    SG_RETURN_IF_ERROR(prepare_vertices());
    mirrors_current_ = false;
    return array->raw().zero();
  }

  // The vertex with the most out-edges (the smallest such id).
  Status max_out_degree_vertex(uint32_t* vertex);

  // A result array after the app: ranged ones are mapped read only, so the
  // caller may read them in vertex order (the kernel pages them in).
  // Distributed: every rank's values added up, vertex by vertex, on every
  // rank (collective; a kernel whose updates land on any vertex, e.g. LCC's
  // triangle corners).
  Status add_over_ranks(VertexArray<uint64_t>* array) { return distributed() ? add_raw_over_ranks(array->data(), array->size()) : Status::OK(); }

  // Distributed: every rank gets every value from its owner (collective).
  template <typename T>
  Status finish_array(VertexArray<T>* array) {
    if (distributed()) return gather_owned(&array->raw(), sizeof(T));
    return array->ranged() ? array->raw().map_for_reading() : Status::OK();
  }

  // Bytes of vertex values loaded and written back by range so far.
  uint64_t vertex_bytes_loaded() const { return residency_.bytes_loaded(); }
  uint64_t vertex_bytes_written() const { return residency_.bytes_written_back(); }
  // Where a scratch file called `name` goes (--scratch-dir, else the graph
  // directory when writable, else $TMPDIR or /tmp).
  std::string scratch_path(const std::string& name) const;
  // Scratch I/O an app did itself (e.g. spilled lists), for --stats.
  void count_scratch_io(uint64_t read_bytes, uint64_t written_bytes) {
    scratch_bytes_read_ += read_bytes;
    scratch_bytes_written_ += written_bytes;
  }
  uint64_t scratch_bytes_read() const { return scratch_bytes_read_; }
  uint64_t scratch_bytes_written() const { return scratch_bytes_written_; }

  const std::vector<StepStats>& steps() const { return steps_; }
  const std::string& notices() const { return notices_; }
  IoBackend backend() const { return io_.backend(); }
  size_t device_count() const { return io_.device_count(); }
  const DeviceCounters& device_counters(size_t d) const { return io_.device_counters(d); }
  // Metadata, I/O buffers and vertex arrays held whole.
  uint64_t memory_used() const { return memory_used_ + residency_.resident_bytes(); }
  // The most memory_used() was (arrays an app freed no longer count in it).
  uint64_t peak_memory_used() const { return std::max(peak_memory_used_, memory_used()); }
  // What the cache held when the run ended (before release_cache).
  uint64_t cache_bytes() const { return released_ ? released_cache_bytes_ : cache_.bytes(); }
  uint64_t decoded_cache_bytes() const { return released_ ? released_decoded_bytes_ : cache_.decoded_bytes(); }
  uint64_t cache_evictions() const { return cache_.evictions(); }

 private:
  // Distributed runs (engine_distributed.cc).
  // Every rank's owned members of `frontier` send the values of the arrays
  // updates read at sources (kSource, kAny) to every other rank.
  Status share_sources(const VertexSubset& frontier);
  // *subset (each rank's owned members) becomes the union over the ranks.
  Status share_members(VertexSubset* subset);
  // Every value of `array` from its owner, in rounds of bounded size.
  Status gather_owned(RawVertexArray* array, size_t value_bytes);
  Status add_raw_over_ranks(uint64_t* values, size_t count);
  // The reverse engine's step, told as this engine's.
  void adopt_reverse_steps();
  // The exchange since `before` into the steps since `steps_before`.
  void record_exchange(const ExchangeCounters& before, size_t steps_before);

  template <typename F>
  static constexpr bool ignores_weights() {
    if constexpr (requires { F::kIgnoresWeights; }) return F::kIgnoresWeights;
    return false;
  }
  template <typename Body>
  static void call_body(void* body, const WindowGraph& w, uint32_t begin, uint32_t end) {
    (*static_cast<Body*>(body))(w, begin, end);
  }
  // The first edge in [begin, end) of a sorted list whose neighbour is >= `at`.
  static uint32_t first_at_least(const WindowGraph& w, uint32_t begin, uint32_t end, uint32_t at) {
    return static_cast<uint32_t>(std::lower_bound(w.neighbours.begin() + begin, w.neighbours.begin() + end, at) -
                                 w.neighbours.begin());
  }
  template <typename F>
  void map_members(const VertexSubset& subset, uint32_t begin, uint32_t end, F& f) const {
    if (subset.is_dense()) {
      parallel_for(begin, end, uint32_t{1} << 14, [&](uint32_t lo, uint32_t hi) { subset.for_each_in(lo, hi, f); });
      return;
    }
    const auto& ids = subset.list();
    parallel_for(size_t{0}, ids.size(), size_t{1024}, [&](size_t ids_begin, size_t ids_end) {
      for (size_t i = ids_begin; i < ids_end; ++i) {
        if (ids[i] >= begin && ids[i] < end) f(ids[i]);
      }
    });
  }
  // Calls fn(begin, end) for each vertex range holding a member of
  // `members` (dense; null: every range) with the range of each ranged
  // array `access` touches loaded.
  Status for_each_vertex_range(const VertexSubset* members, const VertexAccess& access,
                               const std::function<void(uint32_t, uint32_t)>& fn);
  // Places arrays allocated since the last call (vertex_residency.h).
  Status prepare_vertices();
  Status setup_degrees(SpaceKind kind);
  void shrink_cache() { cache_.shrink_to(cache_limit()); }
  // Degrees take a small share of the budget (read whole for the planner).
  bool degrees_cheap() const { return uint64_t{num_vertices()} * sizeof(uint32_t) <= options_.memory_bytes / 16; }
  uint64_t cache_limit() const;  // what the cache may hold
  uint64_t range_room() const;   // memory for loaded vertex ranges
  // Degrees for planning, when whole in memory (else estimates).
  const uint32_t* planning_degrees(SpaceKind kind) const;
  // scan() for each group of the plan's chunks whose vertex ranges fit the
  // range room (inner), times each range of their neighbours (outer passes).
  Status scan_groups(const VertexSubset& active, const StepPlan& plan, bool reversed, VertexRangeFn body, void* context);
  Status finish_gap(VertexUse inner, uint64_t begin, uint64_t end);
  struct ChunkGroup {
    std::vector<std::vector<ChunkSpan>> spans;  // per block of the plan
    uint64_t begin_vertex = 0, end_vertex = 0;  // the vertices of its chunks
  };
  std::vector<ChunkGroup> chunk_groups(const StepPlan& plan, uint64_t bytes_per_vertex, uint64_t room) const;
  // A pass over the neighbours [begin, end): the blocks it reads are those
  // whose neighbour range meets it.
  struct NeighbourPass {
    uint64_t begin = 0, end = 0;
  };
  // Passes of `pass_vertices` neighbours at most, cut at the kind's block
  // starts: consecutive blocks that fit share a pass, a block that does not
  // is read once per pass over a part of it.
  std::vector<NeighbourPass> neighbour_passes(SpaceKind kind, uint64_t pass_vertices) const;
  void merge_steps(size_t first);
  void record_plan(const StepPlan& plan, StepStats* step) const;
  void trace_memory() const;  // SHARDGRAPH_MEMORY_TRACE
  static uint64_t index_bytes(const Graph& graph);
  static uint64_t frontier_bytes(const Graph& graph);
  static uint64_t minimum_window_bytes(const Graph& graph);
  // How a step with ranged vertex arrays moves them (engine.cc): its passes
  // over ranges of neighbours, its groups of the interval side, which loop
  // is outer, and what that moves.
  struct RangePlan {
    bool groups_outer = false;
    std::vector<NeighbourPass> passes;
    std::vector<ChunkGroup> groups;
    double vertex_bytes = 0;  // loaded and written back
    double edge_bytes = 0;    // read from the devices, passes included
  };
  RangePlan range_plan(const StepPlan& plan) const;
  static uint32_t passes_over(const std::vector<NeighbourPass>& passes, const EdgeSpace& block);
  Status for_each_group(const std::vector<ChunkGroup>& groups, VertexUse inner, bool writable, bool finishing,
                        const std::function<Status(const ChunkGroup&)>& fn);
  // Adds to each block's predicted cost its reads by several passes, and
  // the vertex values moved.
  void cost_passes(StepPlan* plan) const;

  // `frontier` as given (maybe a list), `active` its dense form.
  StepPlan make_plan(const VertexSubset& frontier, const VertexSubset& active, const EdgeMapOptions& options);
  // Whether to take `other` after all, its chunks' reading paid by the steps
  // it would have saved (engine.cc).
  bool rent_instead_of(const StepPlan& other, double chosen_seconds);
  // Every chunk of `kind`, or those holding a destination in [begin, end).
  StepPlan plan_pull(SpaceKind kind, uint32_t begin = 0, uint32_t end = UINT32_MAX) const;
  BlockPlan plan_pull_block(size_t stored, uint32_t begin, uint32_t end) const;
  StepPlan plan_push(const VertexSubset& frontier, const VertexSubset& active, SpaceKind kind, IoMode mode) const;
  BlockPlan plan_push_block(const VertexSubset& frontier, const VertexSubset& active, size_t stored, IoMode mode,
                            uint64_t* room) const;
  // The blocks' figures summed into the plan's.
  static void total_plan(StepPlan* plan);
  std::vector<ChunkSpan> disk_spans(size_t stored, const std::vector<ChunkSpan>& spans) const;
  // Prices a block's plan; `useful_bytes` (push) are the active lists'
  // bytes, the rest of what push reads is skipped, not decoded.
  void cost_plan(BlockPlan* plan, uint64_t useful_bytes = UINT64_MAX) const;
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
  size_t kind_slot(SpaceKind kind) const { return graph_->kind_slot(kind); }

  // Processes a block plan's chunks (cached ones from memory, the rest
  // streamed from the devices); each chunk is decoded and handed to `body`
  // for its vertices in the same task (window_graph.h).
  Status scan(const VertexSubset& active, const StepPlan& plan, const BlockPlan& block, bool reversed, VertexRangeFn body,
              void* context);
  Status scan_cached(const EdgeSpace& space, size_t stored, std::span<const uint32_t> chunks, VertexRangeFn body,
                     void* context, WindowTimes* times, WindowTimes* decoded_times, StepStats* step, const VertexSubset* only,
                     std::vector<uint32_t>* missed);
  Status stream_windows(const EdgeSpace& space, size_t stored, ChunkStream* stream, size_t count, VertexRangeFn body,
                        void* context, WindowTimes* times, StepStats* step, const VertexSubset* only);
  uint64_t cache_room() const;  // budget bytes the cache may still take
  // Decodes `window` into window_ and runs `body` over it; *keep: every list
  // was decoded so the window may be kept decoded (engine.cc).
  Status decode_window(const EdgeSpace& space, const ChunkWindow& window, VertexRangeFn body, void* context,
                       WindowTimes* times, const VertexSubset* only, StepStats* step, bool* keep);
  void note(const std::string& text);
  void report_progress(const StepStats& step) const;

  const Graph* graph_ = nullptr;
  EngineOptions options_;
  IoContext io_;
  CostModel cost_model_;
  ChunkCache cache_;
  std::vector<std::vector<ChunkSpan>> interval_chunks_;  // [stored space][interval]
  WindowGraph window_;
  uint64_t memory_used_ = 0;  // metadata and I/O buffers
  uint64_t scratch_bytes_read_ = 0, scratch_bytes_written_ = 0;
  uint64_t decode_room_bytes_ = 0;  // of the largest window
  uint64_t peak_memory_used_ = 0;
  VertexResidency residency_;
  VertexArray<uint32_t> degrees_[2];  // per kind slot
  bool degrees_ready_[2] = {false, false};
  uint32_t neighbour_begin_ = 0, neighbour_end_ = UINT32_MAX;  // this pass's neighbours
  const RangeFinish* finish_range_ = nullptr;  // this step's (EdgeMapOptions::finish_range)
  File degree_files_[2];                        // per kind slot, opened by read_degrees
  bool released_ = false;
  uint64_t released_cache_bytes_ = 0, released_decoded_bytes_ = 0;
  int iteration_ = 0;
  double direction_regret_seconds_[2] = {0, 0};  // [pull]: see rent_instead_of
  uint64_t whole_decode_bytes_ = 0;  // this step: push windows decoded whole for the decoded cache
  std::vector<std::chrono::steady_clock::time_point> iteration_starts_;
  std::vector<StepStats> steps_;
  std::string notices_;
  Distribution distribution_;
  Engine* reverse_ = nullptr;
  VertexArray<uint32_t> global_out_degrees_;
  uint64_t distributed_steps_ = 0;
  uint64_t active_owned_ = 0, next_owned_ = 0;  // of the last step (StepStats)
  // Every rank's mirrors of the source arrays hold their owners' values (an
  // all-active share, and since then nothing that may write them: kSource
  // arrays change only in vertex maps); the next share sends nothing.
  bool mirrors_current_ = false;
  bool sources_skipped_ = false;  // the last step's share sent nothing (StepStats::sources_current)
};

}  // namespace sg
