// The engine: Ligra-style edge_map / vertex_map over an out-of-core graph.
// An app passes a functor with
//   bool update(src, dst, weight)         // pull: one writer per dst
//   bool update_atomic(src, dst, weight)  // push: concurrent writers
//   bool cond(dst)                        // false: dst needs no more updates
// and gets back the subset of destinations whose update returned true. A
// push takes, where the functor has them, source_state(src) once a list
// and update_atomic_with(state, dst, weight) in place of cond and
// update_atomic (that update then refuses a dst that fails cond itself),
// and prefetch(dst) / prefetch_lookup(dst) ahead (core/edge_step.h).
//
// Each step is planned by the scheduler (scheduler/step_planner.h) from a
// read-only view of the graph, the frontier, the cache and the budget, and
// carried out by the step runner (core/step_runner.h). `reversed` runs over
// the transposed graph (e.g. WCC on directed graphs). The engine itself
// owns the parts (I/O, cache, budget, vertex residency, degrees, log) and
// fronts them.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/parallel.h"
#include "core/chunk_cache.h"
#include "core/communicator.h"
#include "core/edge_step.h"
#include "core/memory_budget.h"
#include "core/mirror_set.h"
#include "core/run_log.h"
#include "core/run_stats.h"
#include "core/step_runner.h"
#include "core/vertex_array.h"
#include "core/vertex_degrees.h"
#include "core/vertex_residency.h"
#include "core/vertex_subset.h"
#include "scheduler/cost_model.h"
#include "scheduler/exchange_model.h"
#include "scheduler/plan_view.h"
#include "scheduler/step_planner.h"
#include "shards/format/graph.h"
#include "shards/io/chunk_stream.h"

namespace sg {

struct EngineOptions {
  uint64_t memory_bytes = uint64_t{1} << 30;
  IoBackend backend = IoBackend::kAuto;
  IoMode io_mode = IoMode::kAuto;
  std::string device_class = "hdd";                  // preset for devices without a calibrated profile
  bool cache = true;                                 // keep chunks in the memory the budget leaves
  bool decoded_cache = true;                         // and, with room to spare, decoded windows
  std::string scratch_dir;                           // for file-backed vertex arrays; default: the graph directory
  std::function<void(const std::string&)> progress;  // a status line after each step (null: none)
  bool quiet = false;                                // notes only in notices(), not on stderr
  std::string label = "run";
  uint64_t window_bytes = 0;  // 0 = from the budget and stripe layout (tests set it small)
  bool direct_reads = true;   // O_DIRECT; false: through the page cache (a graph just written)
  using RangeLoop = sg::RangeLoop;
  RangeLoop range_loop = RangeLoop::kAuto;  // with both sides ranged (scheduler/range_plan.h); tests force each
};

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
  std::string out_degree_path;              // the whole graph's out-degrees (a part's own are partial)
  uint64_t out_degree_checksum = 0;
};

class Engine {
 public:
  Engine() = default;
  Engine(const Engine&) = delete;  // a reverse engine points into its forward one
  Engine& operator=(const Engine&) = delete;
  // A line for the run's notices (and stderr unless quiet).
  void note(const std::string& text) { log_.note(text); }
  // Opens a new engine over `graph` (an engine is opened once).
  Status open(const Graph& graph, const EngineOptions& options);
  // The least --memory a run of `graph` needs: chunk indexes, three
  // frontier bitmaps and two I/O windows (vertex arrays beyond the budget
  // are loaded by range; degrees and the id map are read when needed).
  static uint64_t minimum_memory_bytes(const Graph& graph);

  const Graph& graph() const { return *graph_; }
  uint32_t num_vertices() const { return graph_->num_vertices(); }
  uint64_t num_arcs() const { return graph_->arcs(SpaceKind::kOut); }
  const CostModel& cost_model() const { return cost_model_; }
  MemoryBudget& budget() { return budget_; }
  const MemoryBudget& budget() const { return budget_; }

  // Degrees (engine arrays over the graph's degree files: whole in memory
  // when the budget allows, else loaded by range like kVertex arrays).
  // Requires ensure_out_degrees().
  const VertexArray<uint32_t>& out_degree() const {
    if (distributed()) return global_out_degrees_;
    assert(degrees_.ready(SpaceKind::kOut));
    return degrees_.of(SpaceKind::kOut);
  }
  // Requires ensure_in_degrees().
  const VertexArray<uint32_t>& in_degree() const {
    assert(degrees_.ready(SpaceKind::kIn));
    return degrees_.of(SpaceKind::kIn);
  }
  // Degrees of vertices [begin, end) of `kind` into `out` (VertexDegrees::read).
  Status read_degrees(SpaceKind kind, uint32_t begin, uint32_t end, uint32_t* out);
  // Sets up degrees not set up at open (in-degrees, or out-degrees too
  // large to read before an app asks).
  Status ensure_in_degrees() { return degrees_.setup(SpaceKind::kIn); }
  Status ensure_out_degrees();
  // Distributed: frees the owned out-degrees ensure_out_degrees() read, for
  // an app done with them (one process: its degrees stay, as set up).
  void release_out_degrees();
  // The vertex with the most out-edges (the smallest such id).
  Status max_out_degree_vertex(uint32_t* vertex);

  // Makes this engine one rank of a distributed run (after open, before
  // any array is allocated). `reverse` (may be null: undirected graphs)
  // is an engine over the rank's reverse part, the transposed arcs out of
  // its vertices, for reversed steps. From here on edge_map updates owned
  // destinations and shares the next frontier; vertex_map, vertex_filter
  // and vertex_reduce visit owned vertices (reductions and subsets are then
  // agreed by all ranks); arrays are held whole (in memory, else
  // file-backed), the values of sources kept only for the rank's mirrors,
  // and finish_array gathers every value on rank 0. Out-degrees are the
  // whole graph's. A collective; a failure on one rank is every rank's.
  Status distribute(const Distribution& distribution, Engine* reverse);
  // The link's latency and rate, from a few collectives before any step
  // (not counted in the exchange's totals). A collective: every rank calls
  // it once every rank has distributed its engine.
  Status measure_network();
  // The link this rank measured (zeros before, and in one process).
  const NetworkProfile& network() const { return network_; }
  bool distributed() const { return distribution_.communicator != nullptr; }
  uint32_t owned_begin() const { return distributed() ? distribution_.owned_begin : 0; }
  uint32_t owned_end() const { return distributed() ? distribution_.owned_end : num_vertices(); }
  Communicator* communicator() const { return distribution_.communicator; }
  // Distributed: rank r owns [owner_bounds()[r], owner_bounds()[r + 1]).
  const std::vector<uint32_t>& owner_bounds() const { return distribution_.bounds; }
  // Distributed: the mirrors of this rank's part, and the most bytes of
  // vertex arrays it held whole at a step.
  const MirrorSet& mirrors() const { return mirror_sets_[0]; }
  uint64_t vertex_state_peak_bytes() const { return vertex_state_peak_bytes_; }
  // The most loaded ranges of ranged arrays held at once.
  uint64_t vertex_ranges_peak_bytes() const { return residency_.peak_loaded_bytes(); }
  // The most vertex values the engine had to keep at once: of every array
  // its owned range's, and of arrays read at sources its mirrors' too (one
  // process: every vertex's).
  uint64_t vertex_state_needed_bytes() const { return vertex_state_needed_bytes_; }

  // Allocates a zeroed vertex array used as `use` (core/vertex_residency.h).
  // kAny arrays are placed at once: in memory, or file-backed when the
  // budget is spent. The others are placed by the next vertex_map /
  // edge_map: whole when they fit, else by vertex range; until then their
  // values must not be touched.
  template <typename T>
  Status allocate(VertexArray<T>* array, const std::string& name, VertexUse use = VertexUse::kAny) {
    static_assert(sizeof(T) >= 4, "ranged arrays load whole pages of slabs (vertex_array.h)");
    SG_RETURN_IF_ERROR(allocate_raw(&array->raw(), sizeof(T), name, use));
    array->set_size(num_vertices());
    return Status::OK();
  }
  // Memory an app holds besides vertex arrays (e.g. a block of gathered
  // lists): counted in the budget and taken from the cache until
  // release_app_memory gives it back.
  void hold_app_memory(uint64_t bytes);
  // Memory the process holds outside the engine, measured (a rank's MPI
  // runtime: its libraries' pages and transport buffers), taken from the
  // budget so that the process as a whole keeps to --memory.
  void hold_runtime_memory(uint64_t bytes);
  void release_app_memory(uint64_t bytes) { budget_.release(MemoryHolder::kApp, bytes); }
  // Budget bytes nothing holds yet (the cache and loaded ranges may use them).
  uint64_t unheld_memory() const { return budget_.unheld(); }
  // Whether an array of `bytes` would be held whole (allocated now as kAny).
  bool fits_whole(uint64_t bytes) const { return budget_.fits(bytes); }

  // Marks the start of an iteration (steps are tagged with it).
  void set_iteration(int iteration) { log_.set_iteration(iteration); }
  // Drops every cached chunk and decoded window, the degrees, the read
  // buffers and the decode room (the run is over: the memory goes to
  // writing its results; no edge_map may follow).
  void release_cache();
  // Marks the end of the last iteration (the app returned).
  void end_iterations() { log_.end_iterations(); }
  std::vector<double> iteration_seconds() const { return log_.iteration_seconds(); }

  template <typename F>
  Status edge_map(const VertexSubset& frontier, F& f, VertexSubset* next, EdgeMapOptions options = {}) {
    if (!distributed()) return local_edge_map(frontier, f, next, options);
    // Sources' values first (updates read them), then the local step, then
    // the next frontier from every rank (engine_distributed.cc).
    const DistributedStep step = begin_distributed_step(frontier, &options);
    SG_RETURN_IF_ERROR(step.status);
    Status status;
    if (options.reversed && reverse_ != nullptr) {
      options.reversed = false;
      status = reverse_->local_edge_map(frontier, f, next, options);
      adopt_reverse_steps();
    } else if (!options.reversed) {
      status = local_edge_map(frontier, f, next, options);
    } else {
      status =
          Status::InvalidArgument("a reversed step needs the partition's reverse parts (partition the graph again)");
    }
    return end_distributed_step(step, status, next);
  }

  // Calls f(v) for every v in the subset, in parallel; with arrays loaded
  // by range, a range at a time (every such array's range is loaded).
  // `access` (optional) names the arrays f touches, so the others' ranges
  // are not moved. Distributed: the owned members only.
  template <typename F>
  Status vertex_map(const VertexSubset& subset, F&& f, const VertexAccess& access = {}) {
    SG_RETURN_IF_ERROR(prepare_vertices());
    mirrors_current_ = 0;  // f may write source arrays
    const uint32_t begin = owned_begin(), end = owned_end();
    if (!in_ranges()) {
      map_members(subset, begin, end, f);
      return Status::OK();
    }
    const DenseSubset members(subset);
    return for_each_vertex_range(&members.get(), access, [&](uint32_t lo, uint32_t hi) {
      lo = std::max(lo, begin);
      hi = std::min(hi, end);
      if (lo < hi) map_members(members.get(), lo, hi, f);
    });
  }

  // The subset of `subset` for which f(v) is true (distributed: the same
  // on every rank, each rank testing its owned vertices).
  template <typename F>
  Status vertex_filter(const VertexSubset& subset, F&& f, VertexSubset* out, const VertexAccess& access = {}) {
    *out = VertexSubset::dense_builder(num_vertices());
    SG_RETURN_IF_ERROR(vertex_map(
        subset,
        [&](uint32_t v) {
          if (f(v)) out->set_atomic(v);
        },
        access));
    out->recount();
    return distributed() ? share_members(out) : Status::OK();
  }

  // *total = the sum of f(v) over every vertex (T has += and T{}), in
  // parallel; distributed, each rank's owned sum added in rank order.
  template <typename T, typename F>
  Status vertex_reduce(F&& f, T* total, const VertexAccess& access = {}) {
    SG_RETURN_IF_ERROR(prepare_vertices());
    mirrors_current_ = 0;
    *total = T{};
    const uint32_t begin = owned_begin(), end = owned_end();
    if (!in_ranges()) {
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

  // Sets every value of `array` to zero (a ranged one without any I/O).
  // Distributed: the owned values only (the others are mirrors, refreshed
  // before a step reads them), so the pages over the others stay untouched.
  template <typename T>
  Status clear(VertexArray<T>* array) {
    SG_RETURN_IF_ERROR(prepare_vertices());
    mirrors_current_ = 0;
    if (distributed()) return array->raw().zero(owned_begin(), owned_end() - owned_begin(), sizeof(T));
    return array->raw().zero();
  }

  // Runs f() (returning a Status) with the ranged arrays `access` names
  // loaded over vertices [begin, end); f sets every value of [begin, end)
  // of an array it overwrites. For work beside a step's own loads, e.g. a
  // finish_range writing an array the step does not touch.
  template <typename F>
  Status with_vertices(const VertexAccess& access, uint32_t begin, uint32_t end, F&& f) {
    if (begin >= end || !residency_.any_ranged()) return f();
    SG_RETURN_IF_ERROR(residency_.load(access, begin, end, true));
    const Status status = f();
    const Status unloaded = residency_.unload(access, begin, end);
    SG_RETURN_IF_ERROR(status);
    return unloaded;
  }
  // Changes the use of a placed array (VertexResidency::set_use).
  template <typename T>
  Status set_use(VertexArray<T>* array, VertexUse use) {
    return residency_.set_use(&array->raw(), use);
  }

  // Distributed: values[i], vertex begin + i's, added up over the ranks,
  // vertex by vertex, each rank getting the sums over its own vertices of
  // [begin, end) in place; the others are left as they were (collective;
  // a kernel whose updates land on any vertex sums a range at a time, e.g.
  // LCC a group's corners). One process: nothing to add.
  Status add_to_owners(uint64_t* values, uint32_t begin, uint32_t end);

  // A result array after the app: ranged ones are mapped read only, so the
  // caller may read them in vertex order (the kernel pages them in).
  // Distributed: rank 0, which writes results, gets every value from its
  // owner; the others keep their own (collective).
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

  // The steps kept in detail (RunLog: the first and the latest of a long run).
  const std::vector<StepStats>& steps() const { return log_.steps(); }
  uint64_t step_count() const { return log_.step_count(); }
  uint64_t folded_steps() const { return log_.folded_steps(); }
  RunTotals run_totals() const { return log_.totals(); }
  const std::string& notices() const { return log_.notices(); }
  IoBackend backend() const { return io_.backend(); }
  size_t device_count() const { return io_.device_count(); }
  const DeviceCounters& device_counters(size_t d) const { return io_.device_counters(d); }
  // Metadata, I/O buffers, app holdings and vertex arrays held whole.
  uint64_t memory_used() const { return budget_.used(); }
  // The most memory_used() was, with the range room while arrays were ranged.
  uint64_t peak_memory_used() const { return budget_.peak(); }
  // What the cache held when the run ended (before release_cache).
  uint64_t cache_bytes() const { return released_ ? released_cache_bytes_ : cache_.bytes(); }
  uint64_t decoded_cache_bytes() const { return released_ ? released_decoded_bytes_ : cache_.decoded_bytes(); }
  uint64_t cache_evictions() const { return cache_.evictions(); }

 private:
  // A subset's dense form: itself, or a dense copy.
  class DenseSubset {
   public:
    explicit DenseSubset(const VertexSubset& subset) : subset_(&subset) {
      if (subset.is_dense()) return;
      copy_ = subset;
      copy_.to_dense();
      subset_ = &copy_;
    }
    const VertexSubset& get() const { return *subset_; }

   private:
    const VertexSubset* subset_;
    VertexSubset copy_;
  };

  template <typename F>
  Status local_edge_map(const VertexSubset& frontier, F& f, VertexSubset* next, const EdgeMapOptions& options) {
    // The planner prices push steps over the reversed graph with in-degrees
    // when they are cheap to hold, else with estimates.
    if (options.reversed && degrees_.cheap()) SG_RETURN_IF_ERROR(ensure_in_degrees());
    SG_RETURN_IF_ERROR(prepare_vertices());
    const DenseSubset active(frontier);
    const StepPlan plan = plan_step(plan_view(frontier, active.get()), step_request(options), &regret_);
    SG_RETURN_IF_ERROR(check_step(plan, options));
    *next = VertexSubset::dense_builder(num_vertices());
    MemberCollector found(!plan.pull && !frontier.is_dense(), sparse_below());
    Status status;
    if (plan.pull) {
      PullStep<F> body{{f, active.get(), next, runner_}, options.destinations_begin, options.destinations_end};
      status = run_step(plan, active.get(), options, &call_step_body<PullStep<F>>, &body);
    } else {
      PushStep<F> body{{f, active.get(), next, runner_}, found};
      status = run_step(plan, active.get(), options, &call_step_body<PushStep<F>>, &body);
    }
    finish_next(&found, next);
    return status;
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

  // Opening (engine.cc).
  Status check_minimum(const Graph& graph) const;
  Status open_io(const Graph& graph);
  Status open_cost_model(const Graph& graph);
  static uint64_t index_bytes(const Graph& graph);
  static uint64_t frontier_bytes(const Graph& graph);
  static uint64_t minimum_window_bytes(const Graph& graph);

  // Steps (engine.cc).
  PlanView plan_view(const VertexSubset& frontier, const VertexSubset& active) const;
  static StepRequest step_request(const EdgeMapOptions& options);
  static Status check_step(const StepPlan& plan, const EdgeMapOptions& options);
  Status run_step(const StepPlan& plan, const VertexSubset& active, const EdgeMapOptions& options, VertexRangeFn body,
                  void* context);
  uint64_t sparse_below() const { return num_vertices() / 64; }  // small frontiers plan from their list
  // The next frontier from what the step set (and listed, when few).
  void finish_next(MemberCollector* found, VertexSubset* next);

  // Vertex arrays (engine.cc).
  Status allocate_raw(RawVertexArray* array, size_t value_bytes, const std::string& name, VertexUse use);
  // Places arrays allocated since the last call (vertex_residency.h).
  Status prepare_vertices();
  // Whether vertex_map goes a vertex range at a time: ranged arrays load
  // by range, and mapped pages (file-backed arrays, a mapped id map) are
  // dropped after each range, so few stay mapped.
  bool in_ranges() const { return residency_.any_ranged() || residency_.any_mapped() || graph_->id_map_mapped(); }
  // Bytes of the whole slabs over the owned range (all V outside a distributed run).
  uint64_t owned_slab_bytes(size_t value_bytes) const;
  // vertex_state_needed_bytes() of the arrays now tracked.
  uint64_t state_needed_now() const;
  // Notes the vertex state's peaks (held whole, needed).
  void note_vertex_state();
  // Calls fn(begin, end) for each vertex range holding a member of
  // `members` (dense; null: every range) with the range of each ranged
  // array `access` touches loaded; after each, the pages of the file-backed
  // arrays it touches and of a mapped id map are dropped.
  Status for_each_vertex_range(const VertexSubset* members, const VertexAccess& access,
                               const std::function<void(uint32_t, uint32_t)>& fn);
  void shrink_cache() { cache_.shrink_to(budget_.cache_limit()); }

  // Distributed runs (engine_distributed.cc).
  // distribute()'s checks and reads on this rank alone.
  Status load_distribution(Distribution* distribution, Engine* reverse);
  struct DistributedStep {
    Status status;
    ExchangeCounters before;
    size_t steps_before = 0;
  };
  DistributedStep begin_distributed_step(const VertexSubset& frontier, EdgeMapOptions* options);
  Status end_distributed_step(const DistributedStep& step, Status status, VertexSubset* next);
  // Every rank's owned members of `frontier` send the values of the arrays
  // updates read at sources (kSource, kAny) to the ranks that mirror them
  // in the part the step goes over (`slot`: 1 for the reverse part)
  // (engine_sources.cc).
  Status share_sources(const VertexSubset& frontier, size_t slot);
  struct SourceArray {
    RawVertexArray* array;  // held whole, or ranged (read a window at a time)
    size_t value_bytes;
  };
  // The vertex range of owner r's values in a round of a share.
  using RoundPiece = std::function<std::pair<uint32_t, uint32_t>(size_t)>;
  Status send_sources(const MirrorSet& mirrors, const VertexSubset& active, const std::vector<SourceArray>& arrays,
                      const RoundPiece& piece, std::vector<uint8_t>* received, std::vector<uint64_t>* counts);
  Status receive_sources(const MirrorSet& mirrors, const VertexSubset& active, const std::vector<SourceArray>& arrays,
                         const RoundPiece& piece, const std::vector<uint8_t>& received,
                         const std::vector<uint64_t>& counts);
  // *subset (each rank's owned members) becomes the union over the ranks.
  Status share_members(VertexSubset* subset);
  // Rank 0 gets every value of `array` from its owner, in rounds of
  // bounded size; the other ranks keep their own.
  Status gather_owned(RawVertexArray* array, size_t value_bytes);
  // Replaces an array held whole by a ranged one over a scratch file
  // holding its owned range's values.
  Status move_to_scratch(RawVertexArray* array, size_t value_bytes);
  // The reverse engine's step, told as this engine's.
  void adopt_reverse_steps();
  // The exchange since `before` into the steps since `steps_before`.
  void record_exchange(const ExchangeCounters& before, size_t steps_before);
  // What every rank holds of `subset`, by owner range, into shares_.
  void count_by_owner(const VertexSubset& subset, uint64_t RankShare::*field);

  const Graph* graph_ = nullptr;
  EngineOptions options_;
  MemoryBudget budget_;
  IoContext io_;
  CostModel cost_model_;
  ChunkCache cache_;
  IntervalChunks interval_chunks_;
  VertexResidency residency_;
  // The arrays steps read: this engine's, or (a rank's reverse engine) the
  // forward engine's (distribute()).
  VertexResidency* step_arrays_ = &residency_;
  VertexDegrees degrees_;
  StepRunner runner_;
  RunLog log_;
  DirectionRegret regret_;  // the planner's, across steps
  uint64_t scratch_bytes_read_ = 0, scratch_bytes_written_ = 0;
  bool released_ = false;
  uint64_t released_cache_bytes_ = 0, released_decoded_bytes_ = 0;

  // Distributed runs.
  Distribution distribution_;
  Engine* reverse_ = nullptr;
  // Checks the whole graph's out-degree file, noting its largest.
  Status scan_out_degrees(const Distribution& distribution);
  // Out-degrees of [begin, end) from the whole graph's file (distributed).
  Status read_out_degree_file(uint32_t begin, uint32_t end, uint32_t* out) const;
  VertexArray<uint32_t> global_out_degrees_;  // the owned range's only (ensure_out_degrees)
  uint32_t max_out_degree_vertex_ = 0;        // of the whole graph
  uint64_t distributed_steps_ = 0;
  uint64_t vertex_state_needed_bytes_ = 0;
  uint64_t active_owned_ = 0, next_owned_ = 0;  // of the last step (StepStats)
  // The mirrors this rank's part reads (slot 0) and its reverse part reads
  // (slot 1), and which of them hold their owners' values (bit per slot):
  // an all-active share, and since then nothing that may write them
  // (kSource arrays change only in vertex maps); the next share sends nothing.
  MirrorSet mirror_sets_[2];
  uint8_t mirrors_current_ = 0;
  uint64_t vertex_state_peak_bytes_ = 0;  // vertex arrays held whole, at their most
  bool sources_skipped_ = false;          // the last step's share sent nothing (StepStats::sources_current)
  // The exchange model's inputs for the last step (scheduler/exchange_model.h).
  NetworkProfile network_;
  std::vector<RankShare> shares_;
  uint64_t source_value_bytes_ = 0;  // of the last share; 0 when it sent nothing
  uint64_t source_rounds_ = 0;       // the all_to_alls of the last share
};

}  // namespace sg
