#include "core/engine.h"

#include <unistd.h>

#include <cstdlib>

#include "base/interrupt.h"

namespace sg {

static_assert(RawVertexArray::kSlabValues == kRangeSlabValues, "the planner's slab is the arrays' slab");

// Memory: the graph's in-memory metadata, then I/O buffers and room to
// decode one window; vertex arrays get the rest, and what they leave holds
// cached chunks.
Status Engine::open(const Graph& graph, const EngineOptions& options) {
  assert(graph_ == nullptr && "an engine is opened once");
  graph_ = &graph;
  options_ = options;
  budget_ = MemoryBudget(options.memory_bytes);
  budget_.count_arrays(&residency_);
  log_.open(options.label, options.progress, options.quiet);
  uint64_t metadata = index_bytes(graph) + frontier_bytes(graph) + graph.id_map_bytes();
  for (size_t s = 0; s < graph.stored_space_count(); ++s) {
    metadata += graph.stored_space(s).degrees.size() * sizeof(uint32_t);  // when Graph::open loaded them
  }
  for (SpaceKind kind : {SpaceKind::kOut, SpaceKind::kIn}) {
    const DeltaOverlay* overlay = graph.overlay(kind);
    if (overlay != nullptr && (kind == SpaceKind::kOut || graph.directed())) metadata += overlay->bytes();
    metadata += graph.deferred_overlay_bytes(kind);  // read when the run first uses the kind
  }
  budget_.hold(MemoryHolder::kMetadata, metadata);
  SG_RETURN_IF_ERROR(check_minimum(graph));
  SG_RETURN_IF_ERROR(open_io(graph));
  std::vector<size_t> chunks;
  for (size_t s = 0; s < graph.stored_space_count(); ++s) chunks.push_back(graph.stored_space(s).index.size());
  cache_.reset(chunks, graph.chunk_bytes());
  interval_chunks_ = interval_chunks(graph);
  SG_RETURN_IF_ERROR(open_cost_model(graph));
  degrees_.open(&graph, &residency_, &budget_);
  return degrees_.setup_at_open();
}

// The least that works: the metadata, two I/O windows of the largest chunk
// and the decode room of one; vertex arrays may be loaded by range.
Status Engine::check_minimum(const Graph& graph) const {
  const uint64_t minimum = budget_.used() + minimum_window_bytes(graph);
  const uint64_t memory = options_.memory_bytes;
  if (memory >= minimum) return Status::OK();
  const std::string mib = std::to_string((minimum + (1 << 20) - 1) >> 20);
  const std::string given =
      memory >= (1 << 20) ? std::to_string(memory >> 20) + "M" : std::to_string(memory) + " bytes";
  return Status::OverBudget("--memory " + given + " is below the " + mib +
                            " MiB this graph needs (chunk indexes, frontiers and two I/O windows); use --memory " +
                            mib + "M or more");
}

// The budget's I/O share keeps 2 windows per device in flight plus two
// decoding (chunk_stream.cc) at a few MiB each, which streams an HDD or SSD
// at full speed; more would only take room from vertex state and cache.
Status Engine::open_io(const Graph& graph) {
  IoOptions io;
  io.backend = options_.backend;
  io.direct = options_.direct_reads;
  const uint64_t windows = 2 * graph.device_count() + 2;
  io.buffer_bytes = budget_.share(kIoBufferShare);
  if (graph.device_count() > 1) {
    // Windows of two stripes: a window of one stripe is cut into two pieces
    // of half a stripe on average, and an HDD reading half-stripe pieces is
    // bound by its I/Os a second, not its bandwidth (two emulated HDDs at
    // 300 IOPS: 226 MB/s with 1 MiB windows over 1 MiB stripes, 303 with 2).
    const uint64_t two_stripes = windows * 2 * graph.layout().stripe_bytes();
    io.buffer_bytes = std::max(io.buffer_bytes, std::min(two_stripes, budget_.share(kArrayIoBufferShare)));
  }
  if (options_.window_bytes != 0) io.buffer_bytes = windows * options_.window_bytes;
  SG_RETURN_IF_ERROR(io_.open(graph, io));
  if (!io_.notice().empty()) note(io_.notice().substr(0, io_.notice().size() - 1));
  // Neighbours, weights and offsets of the largest window (a window of
  // short lists decodes to 6x its bytes and more).
  StepParts parts{&graph,   &io_,  &cache_,          &cost_model_,   &residency_,
                  &budget_, &log_, options_.io_mode, options_.cache, options_.decoded_cache};
  runner_.open(parts, largest_window_shape(graph, io_.window_bytes()));
  budget_.hold(MemoryHolder::kIoBuffers, io_.buffer_count() * io_.window_bytes());
  budget_.hold(MemoryHolder::kDecodeRoom, runner_.decode_room_bytes());
  if (budget_.used() > budget_.total()) {
    note("the graph's metadata and I/O buffers (" + std::to_string(budget_.used()) + " bytes) exceed --memory");
  }
  return Status::OK();
}

// Device profiles for the cost model: calibrated, else the class's preset.
Status Engine::open_cost_model(const Graph& graph) {
  std::vector<DeviceProfile> profiles;
  std::string presets;
  for (const std::string& device : graph.manifest().devices) {
    const std::string dir = device == "." ? graph.dir() : device;
    DeviceProfile profile;
    bool preset = false;
    SG_RETURN_IF_ERROR(load_device_profile(dir, options_.device_class, &profile, &preset));
    if (preset) presets += (presets.empty() ? "" : ", ") + dir;
    profiles.push_back(profile);
  }
  if (!presets.empty() && options_.io_mode == IoMode::kAuto) {
    note("no calibrated profile for " + presets + "; using the '" + options_.device_class +
         "' preset (run 'shardgraph calibrate DIR' to measure)");
  }
  cost_model_ = CostModel(profiles, graph.layout(), 400e6 * static_cast<double>(parallel_threads()));
  return Status::OK();
}

uint64_t Engine::frontier_bytes(const Graph& graph) { return 3 * (uint64_t{graph.num_vertices()} / 8 + 8); }

uint64_t Engine::minimum_window_bytes(const Graph& graph) {
  const uint64_t window = align_up(uint64_t{graph.largest_chunk_bytes()} + kAlignBytes, kAlignBytes);
  return 2 * window + largest_decoded_window_bytes(graph, window);
}

// Chunk index entries and the cache's tables over them, every space.
uint64_t Engine::index_bytes(const Graph& graph) {
  uint64_t bytes = 0;
  for (size_t s = 0; s < graph.stored_space_count(); ++s) {
    bytes += graph.stored_space(s).index.size() * (sizeof(ChunkIndexEntry) + ChunkCache::kTableBytesPerChunk);
  }
  return bytes;
}

uint64_t Engine::minimum_memory_bytes(const Graph& graph) {
  return index_bytes(graph) + frontier_bytes(graph) + minimum_window_bytes(graph);
}

PlanView Engine::plan_view(const VertexSubset& frontier, const VertexSubset& active) const {
  PlanView view;
  view.graph = graph_;
  view.intervals = &interval_chunks_;
  view.cost_model = &cost_model_;
  view.cache = &cache_;
  view.frontier.universe = active.universe();
  view.frontier.size = active.size();
  view.frontier.bits = active.bits().data();
  view.frontier.list = frontier.is_dense() ? nullptr : &frontier.list();
  for (SpaceKind kind : {SpaceKind::kOut, SpaceKind::kIn}) {
    if (graph_->block_count(kind) > 0) view.degrees_by_slot[graph_->kind_slot(kind)] = degrees_.whole(kind);
  }
  view.io_mode = options_.io_mode;
  view.cache_enabled = options_.cache;
  view.cache_limit = budget_.cache_limit();
  view.cache_room = view.cache_limit > cache_.bytes() ? view.cache_limit - cache_.bytes() : 0;
  view.any_ranged = step_arrays_->any_ranged();
  view.ranged_source_bytes = step_arrays_->ranged_bytes_per_vertex(VertexUse::kSource);
  view.ranged_destination_bytes = step_arrays_->ranged_bytes_per_vertex(VertexUse::kDestination);
  view.range_room = budget_.range_room();
  view.range_loop = options_.range_loop;
  return view;
}

StepRequest Engine::step_request(const EdgeMapOptions& options) {
  StepRequest request;
  request.direction = options.direction;
  request.reversed = options.reversed;
  request.destinations_begin = options.destinations_begin;
  request.destinations_end = options.destinations_end;
  return request;
}

Status Engine::check_step(const StepPlan& plan, const EdgeMapOptions& options) {
  if (options.finish_range && !plan.pull) return Status::InvalidArgument("finish_range needs a pull step");
  if (!plan.pull && step_request(options).destination_range())
    return Status::InvalidArgument("a destination range needs a pull step");
  return Status::OK();
}

Status Engine::run_step(const StepPlan& plan, const VertexSubset& active, const EdgeMapOptions& options,
                        VertexRangeFn body, void* context) {
  // The kind's updates, on its first step: before its ranges are planned,
  // since a block's chunk group counts their adds (a block of empty lists
  // that the updates fill is read only so).
  SG_RETURN_IF_ERROR(graph_->load_overlay(plan.kind));
  const RangePlan ranges = plan_ranges(plan_view(active, active), plan);
  StepWork work;
  work.plan = &plan;
  work.ranges = &ranges;
  work.active = &active;
  work.reversed = options.reversed;
  work.body = body;
  work.context = context;
  work.finish = options.finish_range ? &options.finish_range : nullptr;
  return runner_.run(work);
}

void Engine::finish_next(MemberCollector* found, VertexSubset* next) {
  if (found->complete()) {
    next->set_members(found->take_sorted(), sparse_below());
  } else {
    next->recount();
    if (next->size() < sparse_below()) next->to_sparse();
  }
  if (!log_.steps().empty()) log_.steps().back().next_active_vertices = next->size();
}

Status Engine::allocate_raw(RawVertexArray* array, size_t value_bytes, const std::string& name, VertexUse use) {
  mirrors_current_ = 0;
  const uint64_t bytes = uint64_t{num_vertices()} * value_bytes;
  // A rank touches only its owned slice of an array that no step reads at
  // sources (anonymous pages cost nothing untouched) until finish_array.
  const bool owned_only = distributed() && use != VertexUse::kSource && use != VertexUse::kAny;
  const uint64_t held = owned_only ? owned_slab_bytes(value_bytes) : bytes;
  if (use != VertexUse::kAny) {
    SG_RETURN_IF_ERROR(array->allocate_ranged(num_vertices(), value_bytes, scratch_path(name)));
    residency_.add(array, use, value_bytes, name, false, 0, -1, held);
    return Status::OK();
  }
  const bool fits = budget_.fits(held);
  if (!fits)
    note("vertex array '" + name + "' (" + std::to_string(bytes) + " bytes) exceeds the memory budget; file-backed");
  SG_RETURN_IF_ERROR(array->allocate(bytes, fits ? std::string() : scratch_path(name)));
  residency_.add(array, use, value_bytes, name, true, fits ? held : 0);
  if (fits) shrink_cache();  // arrays come before cached chunks
  budget_.note_peak();
  note_vertex_state();
  return Status::OK();
}

void Engine::hold_runtime_memory(uint64_t bytes) {
  budget_.hold(MemoryHolder::kRuntime, bytes);
  note("the MPI runtime holds " + std::to_string(bytes >> 20) + " MiB of this rank's --memory");
  shrink_cache();
}

void Engine::hold_app_memory(uint64_t bytes) {
  budget_.hold(MemoryHolder::kApp, bytes);
  shrink_cache();
}

void Engine::release_cache() {
  if (!released_) {
    released_cache_bytes_ = cache_.bytes();
    released_decoded_bytes_ = cache_.decoded_bytes();
    released_ = true;
  }
  cache_.shrink_to(0);
  degrees_.release();  // and the degrees the app used
  // No step runs again: the read buffers and the decode room go too.
  io_.release_buffers();
  runner_.release();
}

Status Engine::prepare_vertices() {
  // Every edge_map and vertex_map passes here: a run over cached chunks
  // reads nothing from the devices, so the stream's check alone would miss
  // a signal.
  if (interrupt_requested()) return Status::Interrupted("run stopped by a signal");
  if (!residency_.has_pending()) return Status::OK();
  const uint64_t room = budget_.unheld();
  std::string notes;
  SG_RETURN_IF_ERROR(residency_.place(room, MemoryBudget::range_reserve(room), &notes));
  while (!notes.empty()) {
    const size_t eol = notes.find('\n');
    note(notes.substr(0, eol));
    notes.erase(0, eol + 1);
  }
  shrink_cache();
  budget_.note_peak(budget_.range_room());
  note_vertex_state();
  return Status::OK();
}

void Engine::note_vertex_state() {
  vertex_state_peak_bytes_ = std::max(vertex_state_peak_bytes_, residency_.resident_bytes());
  vertex_state_needed_bytes_ = std::max(vertex_state_needed_bytes_, state_needed_now());
}

uint64_t Engine::state_needed_now() const {
  const uint64_t owned = owned_end() - owned_begin(), mirrored = distributed() ? mirror_sets_[0].count() : 0;
  uint64_t bytes = 0;
  residency_.for_each_array([&](const RawVertexArray*, VertexUse use, size_t value_bytes) {
    const bool sources = use == VertexUse::kSource || use == VertexUse::kAny;
    bytes += (owned + (sources ? mirrored : 0)) * value_bytes;
  });
  return bytes;
}

uint64_t Engine::owned_slab_bytes(size_t value_bytes) const {
  constexpr uint64_t kSlab = RawVertexArray::kSlabValues;
  const uint64_t first = owned_begin() / kSlab, end = (uint64_t{owned_end()} + kSlab - 1) / kSlab;
  return std::max<uint64_t>(1, end - first) * kSlab * value_bytes;
}

Status Engine::for_each_vertex_range(const VertexSubset* members, const VertexAccess& access,
                                     const std::function<void(uint32_t, uint32_t)>& fn) {
  // File-backed arrays and a mapped id map count too: their pages touched
  // in a range stay mapped until the range ends.
  const uint64_t per_vertex = residency_.ranged_bytes_per_vertex(access) + residency_.mapped_bytes_per_vertex(access) +
                              (graph_->id_map_mapped() ? sizeof(uint64_t) : 0);
  // Ranges are whole slabs, so a map over every vertex overwrites whole slabs.
  // With no ranged array the cache keeps its memory, and mapped pages take
  // a range reserve's worth at a time.
  const uint64_t room =
      residency_.any_ranged() ? budget_.range_room() : MemoryBudget::range_reserve(budget_.total()) / 4;
  const uint64_t step = RawVertexArray::whole_slab_values(room, std::max<uint64_t>(1, per_vertex));
  const bool every_vertex = members == nullptr || members->is_all();
  // A rank visits its owned vertices only: the others' ranges stay unloaded
  // (the ranges inside stay whole slabs).
  const uint64_t first = owned_begin() / RawVertexArray::kSlabValues * RawVertexArray::kSlabValues;
  for (uint64_t at = first; at < owned_end(); at += step) {
    const uint64_t begin = std::max<uint64_t>(at, owned_begin()), end = std::min<uint64_t>(owned_end(), at + step);
    if (members != nullptr && !members->any_in(static_cast<uint32_t>(begin), static_cast<uint32_t>(end))) continue;
    if (interrupt_requested()) return Status::Interrupted("run stopped by a signal");
    SG_RETURN_IF_ERROR(residency_.load(access, begin, end, every_vertex));
    fn(static_cast<uint32_t>(begin), static_cast<uint32_t>(end));
    residency_.drop_mapped_pages(access);
    graph_->drop_id_map_pages();
    SG_RETURN_IF_ERROR(residency_.unload(access, begin, end));
  }
  return Status::OK();
}

Status Engine::read_degrees(SpaceKind kind, uint32_t begin, uint32_t end, uint32_t* out) {
  if (distributed() && kind == SpaceKind::kOut) {
    if (begin < end && (begin < distribution_.owned_begin || end > distribution_.owned_end)) {
      return Status::InvalidArgument("out-degrees of [" + std::to_string(begin) + ", " + std::to_string(end) +
                                     ") asked of a rank that holds its own range's only");
    }
    if (global_out_degrees_.size() != 0) {
      std::copy(global_out_degrees_.data() + begin, global_out_degrees_.data() + end, out);
      return Status::OK();
    }
    // Not held (no app asked for them whole): read from the file checked
    // at open, a piece at a time, rather than hold the owned range.
    return read_out_degree_file(begin, end, out);
  }
  return degrees_.read(kind, begin, end, out);
}

// Distributed: the whole graph's degrees, as a single-machine run picks.
Status Engine::max_out_degree_vertex(uint32_t* vertex) {
  if (!distributed()) return degrees_.max_out_degree_vertex(vertex);
  *vertex = max_out_degree_vertex_;  // noted as the whole file streamed past (scan_out_degrees)
  return Status::OK();
}

// Scratch goes to --scratch-dir, else default_scratch_dir().
std::string Engine::scratch_path(const std::string& name) const {
  const std::string dir = options_.scratch_dir.empty() ? default_scratch_dir(graph_->dir()) : options_.scratch_dir;
  return dir + "/.scratch-" + std::to_string(::getpid()) + "-" + name;
}

}  // namespace sg
