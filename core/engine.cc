#include "core/engine.h"

#include <cstdlib>

#include "shards/util/process_memory.h"

#include "shards/util/enum_names.h"
#include "shards/util/interrupt.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
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

constexpr uint32_t kMaxCachedWindowChunks = 64;

}  // namespace

const char* io_mode_name(IoMode mode) {
  switch (mode) {
    case IoMode::kAuto: return "auto";
    case IoMode::kFull: return "full";
    case IoMode::kSelective: return "selective";
  }
  return "?";
}

bool parse_io_mode(const std::string& name, IoMode* mode) {
  return parse_enum_name(name, {IoMode::kAuto, IoMode::kFull, IoMode::kSelective}, io_mode_name, mode);
}

Status Engine::open(const Graph& graph, const EngineOptions& options) {
  graph_ = &graph;
  options_ = options;
  distribution_ = Distribution();
  reverse_ = nullptr;
  notices_.clear();
  steps_.clear();
  released_ = false;
  iteration_starts_.clear();
  for (File& file : degree_files_) file = File();
  // Memory: the graph's in-memory metadata, then I/O buffers (a quarter of
  // the budget) and room to decode one window; vertex arrays get the rest,
  // and what they leave holds cached chunks.
  peak_memory_used_ = 0;
  residency_.reset();
  for (size_t s = 0; s < 2; ++s) {
    degrees_[s] = VertexArray<uint32_t>();
    degrees_ready_[s] = false;
  }
  neighbour_begin_ = 0;
  neighbour_end_ = UINT32_MAX;
  std::vector<size_t> chunks;
  memory_used_ = index_bytes(graph) + frontier_bytes(graph);
  for (size_t s = 0; s < graph.stored_space_count(); ++s) {
    memory_used_ += graph.stored_space(s).degrees.size() * sizeof(uint32_t);  // when Graph::open loaded them
    chunks.push_back(graph.stored_space(s).index.size());
  }
  memory_used_ += graph.id_map_bytes();
  // The least that works: the metadata, two I/O windows of the largest
  // chunk and the decode room of one; vertex arrays may be loaded by range.
  const uint64_t minimum = memory_used_ + minimum_window_bytes(graph);
  if (options.memory_bytes < minimum) {
    const uint64_t mib = (minimum + (1 << 20) - 1) >> 20;
    const std::string given = options.memory_bytes >= (1 << 20) ? std::to_string(options.memory_bytes >> 20) + "M"
                                                                : std::to_string(options.memory_bytes) + " bytes";
    return Status::InvalidArgument("--memory " + given + " is below the " +
                                   std::to_string(mib) + " MiB this graph needs (chunk indexes, frontiers and two I/O windows); use --memory " +
                                   std::to_string(mib) + "M or more");
  }
  IoOptions io;
  io.backend = options.backend;
  // A sixteenth of the budget keeps 2 windows per device in flight plus two
  // decoding (chunk_stream.cc) at a few MiB each, which streams an HDD or SSD
  // at full speed; more would only take room from vertex state and cache.
  const uint64_t windows = 2 * graph.device_count() + 2;
  io.buffer_bytes = std::max<uint64_t>(options.memory_bytes / 16, 1 << 20);
  if (options.window_bytes != 0) io.buffer_bytes = windows * options.window_bytes;
  SG_RETURN_IF_ERROR(io_.open(graph, io));
  if (!io_.notice().empty()) note(io_.notice().substr(0, io_.notice().size() - 1));
  // Neighbours, weights and offsets of the largest window (a window of
  // short lists decodes to 6x its bytes and more).
  const WindowShape shape = largest_window_shape(graph, io_.window_bytes());
  decode_room_bytes_ = window_shape_bytes(graph, shape);
  reserve_window(&window_, shape, graph.weighted());
  memory_used_ += io_.buffer_count() * io_.window_bytes() + decode_room_bytes_;
  if (memory_used_ > options.memory_bytes) {
    note("the graph's metadata and I/O buffers (" + std::to_string(memory_used_) + " bytes) exceed --memory");
  }
  cache_.reset(chunks, graph.chunk_bytes());
  interval_chunks_.clear();
  for (size_t s = 0; s < graph.stored_space_count(); ++s) {
    interval_chunks_.push_back(chunks_per_interval(graph.stored_space(s), graph.manifest().interval_starts));
  }
  // Device profiles for the cost model.
  std::vector<DeviceProfile> profiles;
  std::string presets;
  for (const std::string& device : graph.manifest().devices) {
    const std::string dir = device == "." ? graph.dir() : device;
    DeviceProfile profile;
    bool preset = false;
    SG_RETURN_IF_ERROR(load_device_profile(dir, options.device_class, &profile, &preset));
    if (preset) presets += (presets.empty() ? "" : ", ") + dir;
    profiles.push_back(profile);
  }
  if (!presets.empty() && options.io_mode == IoMode::kAuto) {
    note("no calibrated profile for " + presets + "; using the '" + options.device_class +
         "' preset (run 'shardgraph calibrate DIR' to measure)");
  }
  cost_model_ = CostModel(profiles, graph.layout(), 400e6 * static_cast<double>(parallel_threads()));
  // Degrees the graph holds are used as they are; out-degrees that take a
  // small share of the budget are read now (the planner prices push steps
  // with them), the rest when an app asks.
  for (SpaceKind kind : {SpaceKind::kOut, SpaceKind::kIn}) {
    if (graph.block_count(kind) == 0) continue;  // an out-only graph (push only)
    if (!graph.space(kind).degrees.empty() || (kind == SpaceKind::kOut && degrees_cheap())) {
      SG_RETURN_IF_ERROR(setup_degrees(kind));
    }
  }
  return Status::OK();
}

Status Engine::setup_degrees(SpaceKind kind) {
  const size_t slot = kind_slot(kind);
  if (degrees_ready_[slot]) return Status::OK();
  const uint32_t n = num_vertices();
  const EdgeSpace& space = graph_->space(kind);
  VertexArray<uint32_t>& degrees = degrees_[slot];
  if (!space.degrees.empty()) {
    degrees.raw().adopt(space.degrees.data(), space.degrees.size() * sizeof(uint32_t));  // counted at open
  } else {
    SG_RETURN_IF_ERROR(graph_->scan_degree_file(kind));
    SG_RETURN_IF_ERROR(degrees.raw().open_ranged(graph_->degree_path(kind), n, sizeof(uint32_t)));
    // After the app's edge arrays, before its vertex_map-only ones: the
    // planner prices push steps with exact degrees when they are whole.
    residency_.add(&degrees.raw(), VertexUse::kVertex, sizeof(uint32_t), space.meta.kind + ".degrees", false, 0, 1);
  }
  degrees.set_size(n);
  degrees_ready_[slot] = true;
  return Status::OK();
}

Status Engine::read_degrees(SpaceKind kind, uint32_t begin, uint32_t end, uint32_t* out) {
  assert(begin <= end && end <= num_vertices());
  if (distributed() && kind == SpaceKind::kOut) {
    std::copy(global_out_degrees_.data() + begin, global_out_degrees_.data() + end, out);
    return Status::OK();
  }
  const size_t slot = kind_slot(kind);
  if (degrees_ready_[slot] && !degrees_[slot].ranged()) {
    std::copy(degrees_[slot].data() + begin, degrees_[slot].data() + end, out);
    return Status::OK();
  }
  File& file = degree_files_[slot];
  if (!file.is_open()) {
    SG_RETURN_IF_ERROR(graph_->scan_degree_file(kind));
    SG_RETURN_IF_ERROR(File::open_read(graph_->degree_path(kind), &file));
  }
  return file.pread_all(out, size_t{end - begin} * sizeof(uint32_t), uint64_t{begin} * sizeof(uint32_t));
}

const uint32_t* Engine::planning_degrees(SpaceKind kind) const {
  const size_t slot = kind_slot(kind);
  const VertexArray<uint32_t>& degrees = degrees_[slot];
  return degrees_ready_[slot] && !degrees.ranged() ? degrees.data() : nullptr;  // ranged until placed whole
}

Status Engine::prepare_vertices() {
  // Every edge_map and vertex_map passes here: a run over cached chunks
  // reads nothing from the devices, so the stream's check alone would miss
  // a signal.
  if (interrupt_requested()) return Status::Interrupted("run stopped by a signal");
  if (!residency_.has_pending()) return Status::OK();
  const uint64_t used = memory_used();
  std::string notes;
  SG_RETURN_IF_ERROR(residency_.place(used < options_.memory_bytes ? options_.memory_bytes - used : 0, &notes));
  while (!notes.empty()) {
    const size_t eol = notes.find('\n');
    note(notes.substr(0, eol));
    notes.erase(0, eol + 1);
  }
  shrink_cache();
  peak_memory_used_ = std::max(peak_memory_used_, memory_used() + range_room());
  return Status::OK();
}

uint64_t Engine::range_room() const {
  if (!residency_.any_ranged()) return 0;
  const uint64_t used = memory_used();
  const uint64_t least = residency_.ranged_bytes_per_vertex(VertexUse::kAny) * RawVertexArray::kSlabValues;
  return std::max(least, used < options_.memory_bytes ? options_.memory_bytes - used : 0);
}

uint64_t Engine::cache_limit() const {
  const uint64_t used = memory_used() + range_room();
  return used < options_.memory_bytes ? options_.memory_bytes - used : 0;
}

Status Engine::for_each_vertex_range(const VertexSubset* members, const VertexAccess& access,
                                     const std::function<void(uint32_t, uint32_t)>& fn) {
  const uint64_t n = num_vertices();
  const uint64_t per_slab = std::max<uint64_t>(1, residency_.ranged_bytes_per_vertex(access)) * RawVertexArray::kSlabValues;
  // Ranges are whole slabs, so a map over every vertex overwrites whole slabs.
  const uint64_t step = std::max<uint64_t>(1, range_room() / per_slab) * RawVertexArray::kSlabValues;
  const bool every_vertex = members == nullptr || members->is_all();
  for (uint64_t begin = 0; begin < n; begin += step) {
    const uint64_t end = std::min(n, begin + step);
    if (members != nullptr && !members->any_in(static_cast<uint32_t>(begin), static_cast<uint32_t>(end))) continue;
    if (interrupt_requested()) return Status::Interrupted("run stopped by a signal");
    SG_RETURN_IF_ERROR(residency_.load(access, begin, end, every_vertex));
    fn(static_cast<uint32_t>(begin), static_cast<uint32_t>(end));
    SG_RETURN_IF_ERROR(residency_.unload(access, begin, end));
  }
  return Status::OK();
}

// Streamed from the degree file unless the degrees are whole in memory:
// asking must not place them (they would take the app's room).
Status Engine::max_out_degree_vertex(uint32_t* vertex) {
  uint32_t most = 0;
  *vertex = 0;
  auto visit = [&](uint32_t first, const uint32_t* degrees, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      if (degrees[i] > most) {
        most = degrees[i];
        *vertex = first + static_cast<uint32_t>(i);
      }
    }
  };
  // Distributed: the whole graph's degrees, as a single-machine run picks.
  if (const uint32_t* degrees = distributed() ? global_out_degrees_.data() : planning_degrees(SpaceKind::kOut)) {
    visit(0, degrees, num_vertices());
    return Status::OK();
  }
  return graph_->scan_degree_file(SpaceKind::kOut, visit);
}

// The plan's chunks cut into groups by the vertices they hold: a group takes
// the chunks of every block whose first vertex falls in one range of
// vertices whose values of the `use` arrays fit `room` (all of them when
// nothing is ranged). A chunk running past its range makes its group load
// a little more.
std::vector<Engine::ChunkGroup> Engine::chunk_groups(const StepPlan& plan, uint64_t bytes_per_vertex, uint64_t room) const {
  const uint64_t slab = RawVertexArray::kSlabValues;
  const uint64_t width = bytes_per_vertex == 0 ? UINT64_MAX : std::max<uint64_t>(1, room / (bytes_per_vertex * slab)) * slab;
  std::vector<ChunkGroup> groups;
  std::vector<uint64_t> cells;  // groups[k] holds vertex range cells[k]
  const size_t blocks = plan.blocks.size();
  for (size_t b = 0; b < blocks; ++b) {
    const auto& index = graph_->stored_space(plan.blocks[b].stored).index;
    size_t k = 0;  // chunks come in vertex order within a block
    for (const ChunkSpan& span : plan.blocks[b].spans) {
      for (uint32_t c = span.begin; c < span.end; ++c) {
        const uint64_t first = index[c].first_vertex, end = index[c].end_vertex();
        const uint64_t cell = first / width;
        while (k < cells.size() && cells[k] < cell) ++k;
        if (k == cells.size() || cells[k] != cell) {
          cells.insert(cells.begin() + static_cast<long>(k), cell);
          groups.insert(groups.begin() + static_cast<long>(k), ChunkGroup{std::vector<std::vector<ChunkSpan>>(blocks), first, end});
        }
        ChunkGroup& g = groups[k];
        std::vector<ChunkSpan>& spans = g.spans[b];
        if (!spans.empty() && spans.back().end == c) ++spans.back().end;
        else spans.push_back(ChunkSpan{c, c + 1});
        g.begin_vertex = std::min(g.begin_vertex, first);
        g.end_vertex = std::max(g.end_vertex, end);
      }
    }
  }
  if (bytes_per_vertex == 0 && !groups.empty()) {  // one group, over every vertex
    groups[0].begin_vertex = 0;
    groups[0].end_vertex = num_vertices();
  }
  return groups;
}

std::vector<Engine::NeighbourPass> Engine::neighbour_passes(SpaceKind kind, uint64_t pass_vertices) const {
  const uint64_t slab = RawVertexArray::kSlabValues;
  pass_vertices = std::max<uint64_t>(pass_vertices, 1);
  std::vector<NeighbourPass> passes;
  for (size_t s : graph_->blocks(kind)) {
    const EdgeSpace& block = graph_->stored_space(s);
    const uint64_t begin = block.neighbour_begin, end = block.neighbour_end;
    if (!passes.empty() && passes.back().end == begin && end - passes.back().begin <= pass_vertices) {
      passes.back().end = end;  // shares the pass of the blocks before it
      continue;
    }
    // Pieces of whole slabs (ranged arrays load slabs).
    const uint64_t piece = end - begin <= pass_vertices ? end - begin : std::max<uint64_t>(slab, pass_vertices / slab * slab);
    for (uint64_t lo = begin; lo < end; lo += piece) passes.push_back(NeighbourPass{lo, std::min(end, lo + piece)});
  }
  return passes;
}

Status Engine::scan_groups(const VertexSubset& active, const StepPlan& plan, bool reversed, VertexRangeFn body,
                           void* context) {
  const VertexUse inner = plan.pull ? VertexUse::kDestination : VertexUse::kSource;
  const VertexUse outer = plan.pull ? VertexUse::kSource : VertexUse::kDestination;
  const auto start = std::chrono::steady_clock::now();
  const size_t first_step = steps_.size();
  const uint64_t loaded_before = residency_.bytes_loaded(), written_before = residency_.bytes_written_back();
  const double io_before = residency_.io_seconds();
  // The interval side (destinations of a pull) is loaded group by group;
  // the other side, when ranged, in passes: each pass reads the blocks
  // holding its neighbours (all of them in a 1-D space) and takes only the
  // edges whose neighbour it holds. Which loop is outer is the range
  // plan's choice.
  const RangePlan ranges = range_plan(plan);
  const std::vector<NeighbourPass>& passes = ranges.passes;
  const std::vector<ChunkGroup>& groups = ranges.groups;
  Status status;
  // The blocks of a pass over one group's chunks.
  auto scan_part = [&](const ChunkGroup& g, const NeighbourPass& pass) {
    for (size_t b = 0; b < plan.blocks.size(); ++b) {
      const EdgeSpace& block = graph_->stored_space(plan.blocks[b].stored);
      if (g.spans[b].empty() || block.neighbour_end <= pass.begin || block.neighbour_begin >= pass.end) continue;
      // Only edges whose neighbour this pass holds; none filtered when
      // the pass holds the whole block.
      neighbour_begin_ = pass.begin <= block.neighbour_begin ? 0 : static_cast<uint32_t>(pass.begin);
      neighbour_end_ = pass.end >= block.neighbour_end ? UINT32_MAX : static_cast<uint32_t>(pass.end);
      BlockPlan part = plan.blocks[b];
      part.spans = g.spans[b];
      SG_RETURN_IF_ERROR(scan(active, plan, part, reversed, body, context));
    }
    return Status::OK();
  };
  auto load_outer = [&](const NeighbourPass& pass) { return residency_.load(outer, pass.begin, pass.end, !plan.pull); };
  auto unload_outer = [&](const NeighbourPass& pass) { return residency_.unload(outer, pass.begin, pass.end); };
  // Runs fn between loading and unloading; the first error wins.
  auto loaded = [](Status load, auto&& fn, auto&& unload) {
    SG_RETURN_IF_ERROR(load);
    const Status done = fn();
    const Status unloaded = unload();
    return done.ok() ? unloaded : done;
  };
  if (!ranges.groups_outer) {
    for (size_t p = 0; p < passes.size() && status.ok(); ++p) {
      const bool last_pass = p + 1 == passes.size();
      status = loaded(load_outer(passes[p]), [&] {
        return for_each_group(groups, inner, plan.pull, last_pass, [&](const ChunkGroup& g) { return scan_part(g, passes[p]); });
      }, [&] { return unload_outer(passes[p]); });
    }
  } else {
    status = for_each_group(groups, inner, plan.pull, true, [&](const ChunkGroup& g) {
      for (const NeighbourPass& pass : passes) {
        SG_RETURN_IF_ERROR(loaded(load_outer(pass), [&] { return scan_part(g, pass); }, [&] { return unload_outer(pass); }));
      }
      return Status::OK();
    });
  }
  neighbour_begin_ = 0;
  neighbour_end_ = UINT32_MAX;
  merge_steps(first_step);
  if (steps_.size() > first_step) {
    StepStats& step = steps_.back();
    record_plan(plan, &step);
    step.seconds = seconds_since(start);
    step.vertex_passes = static_cast<uint32_t>(passes.size());
    step.vertex_groups = static_cast<uint32_t>(groups.size());
    step.vertex_groups_outer = ranges.groups_outer;
    step.vertex_bytes_loaded = residency_.bytes_loaded() - loaded_before;
    step.vertex_bytes_written = residency_.bytes_written_back() - written_before;
    step.vertex_io_seconds = residency_.io_seconds() - io_before;
  }
  return status;
}

// Each group with its range of the interval side loaded; with `finishing`,
// finish_range_ over each range of destinations as it completes (gaps
// between groups too).
Status Engine::for_each_group(const std::vector<ChunkGroup>& groups, VertexUse inner, bool writable, bool finishing,
                              const std::function<Status(const ChunkGroup&)>& fn) {
  const uint64_t n = num_vertices();
  finishing = finishing && finish_range_ != nullptr;
  uint64_t finished = 0;  // destinations before this are finished
  for (size_t k = 0; k < groups.size(); ++k) {
    const ChunkGroup& g = groups[k];
    if (finishing && finished < g.begin_vertex) {
      SG_RETURN_IF_ERROR(finish_gap(inner, finished, g.begin_vertex));
      finished = g.begin_vertex;
    }
    SG_RETURN_IF_ERROR(residency_.load(inner, g.begin_vertex, g.end_vertex, writable));
    Status status = fn(g);
    // A list split over two groups finishes with the second.
    const uint64_t complete = std::min<uint64_t>(g.end_vertex, k + 1 < groups.size() ? groups[k + 1].begin_vertex : n);
    if (status.ok() && finishing && finished < complete) {
      status = (*finish_range_)(static_cast<uint32_t>(finished), static_cast<uint32_t>(complete));
      finished = complete;
    }
    const Status unloaded = residency_.unload(inner, g.begin_vertex, g.end_vertex);
    SG_RETURN_IF_ERROR(status);
    SG_RETURN_IF_ERROR(unloaded);
  }
  if (finishing && finished < n) SG_RETURN_IF_ERROR(finish_gap(inner, finished, n));
  return Status::OK();
}

// finish_range_ over destinations no group of the step covered.
Status Engine::finish_gap(VertexUse inner, uint64_t begin, uint64_t end) {
  SG_RETURN_IF_ERROR(residency_.load(inner, begin, end, true));
  const Status status = (*finish_range_)(static_cast<uint32_t>(begin), static_cast<uint32_t>(end));
  const Status unloaded = residency_.unload(inner, begin, end);
  return status.ok() ? unloaded : status;
}

// How a step moves its ranged vertex values. With only one side ranged
// there is one way: the interval side in groups of the whole range room
// (one pass), or the other side in passes of it (one group). With both,
// two: passes over the neighbours outside, each loading every group of
// the interval side again (3/4 of the room to the passes), or groups
// outside, each streaming every pass again (half the room to the passes,
// or the widest block). Each is priced as the vertex bytes it
// moves plus the edge bytes it reads (blocks split over passes are read
// once per pass), and the cheaper is taken.
Engine::RangePlan Engine::range_plan(const StepPlan& plan) const {
  const uint64_t inner_bytes = residency_.ranged_bytes_per_vertex(plan.pull ? VertexUse::kDestination : VertexUse::kSource);
  const uint64_t outer_bytes = residency_.ranged_bytes_per_vertex(plan.pull ? VertexUse::kSource : VertexUse::kDestination);
  const uint64_t n = num_vertices();
  const uint64_t room = range_room();
  const uint64_t slab = RawVertexArray::kSlabValues;
  auto slabs_of = [&](uint64_t bytes, uint64_t per_vertex) { return std::max<uint64_t>(1, bytes / (per_vertex * slab)) * slab; };
  auto make = [&](bool groups_outer, uint64_t inner_room, uint64_t pass_vertices) {
    RangePlan r;
    r.groups_outer = groups_outer;
    r.passes = neighbour_passes(plan.kind, outer_bytes == 0 ? n : pass_vertices);
    r.groups = chunk_groups(plan, inner_bytes, inner_room);
    // Bytes moved: the interval side once a pass (or once), written back
    // in a pull; the other side once (or once a group), written back in a push.
    const double inner_side = static_cast<double>(inner_bytes * n) * (plan.pull ? 2 : 1);
    const double outer_side = static_cast<double>(outer_bytes * n) * (plan.pull ? 1 : 2);
    r.vertex_bytes = groups_outer ? static_cast<double>(r.groups.size()) * outer_side + inner_side
                                  : static_cast<double>(r.passes.size()) * inner_side + outer_side;
    for (const BlockPlan& block : plan.blocks) {
      const EdgeSpace& space = graph_->stored_space(block.stored);
      r.edge_bytes += static_cast<double>(block.predicted.bytes) * static_cast<double>(passes_over(r.passes, space));
    }
    return r;
  };
  if (inner_bytes == 0 || outer_bytes == 0) return make(false, room, outer_bytes == 0 ? n : slabs_of(room, outer_bytes));
  // Groups outside stream the other side in passes of half the room, or of
  // the widest block when that fits three quarters of it (no block is then
  // read twice, and the groups get the rest).
  uint64_t widest_block = 0;
  for (size_t s : graph_->blocks(plan.kind)) {
    const EdgeSpace& block = graph_->stored_space(s);
    widest_block = std::max<uint64_t>(widest_block, block.neighbour_end - block.neighbour_begin);
  }
  widest_block = (widest_block + slab - 1) / slab * slab;
  std::vector<uint64_t> group_passes = {slabs_of(room / 2, outer_bytes)};
  if (widest_block * outer_bytes <= room / 4 * 3) group_passes.push_back(widest_block);
  std::vector<RangePlan> options;
  if (options_.range_loop != EngineOptions::RangeLoop::kGroupsOuter) {
    options.push_back(make(false, room / 4, slabs_of(room - room / 4, outer_bytes)));
  }
  if (options_.range_loop != EngineOptions::RangeLoop::kPassesOuter) {
    for (const uint64_t pass_vertices : group_passes) {
      options.push_back(make(true, room - std::min(room, pass_vertices * outer_bytes), pass_vertices));
    }
  }
  size_t best = 0;
  for (size_t i = 1; i < options.size(); ++i) {
    if (options[i].vertex_bytes + options[i].edge_bytes < options[best].vertex_bytes + options[best].edge_bytes) best = i;
  }
  return std::move(options[best]);
}

uint32_t Engine::passes_over(const std::vector<NeighbourPass>& passes, const EdgeSpace& block) {
  uint32_t reads = 0;
  for (const NeighbourPass& pass : passes) reads += pass.begin < block.neighbour_end && pass.end > block.neighbour_begin;
  return reads;
}

// Each block's predicted cost times the passes that read it, plus the
// vertex values the step moves (at the first device's sequential rate:
// scratch files live beside the graph).
void Engine::cost_passes(StepPlan* plan) const {
  if (!residency_.any_ranged()) return;
  const RangePlan ranges = range_plan(*plan);
  for (BlockPlan& block : plan->blocks) {
    const double reads = passes_over(ranges.passes, graph_->stored_space(block.stored));
    block.predicted.seconds *= reads;
    block.predicted.io_seconds *= reads;
    block.predicted.cpu_seconds *= reads;
    block.predicted.bytes = static_cast<uint64_t>(static_cast<double>(block.predicted.bytes) * reads);
    block.predicted.requests = static_cast<uint64_t>(static_cast<double>(block.predicted.requests) * reads);
  }
  total_plan(plan);
  const double vertex_seconds = ranges.vertex_bytes / cost_model_.profiles().front().sequential_bytes_per_second;
  plan->predicted.io_seconds += vertex_seconds;
  plan->predicted.seconds += vertex_seconds;
}

// One step from the parts scan() recorded for it.
void Engine::merge_steps(size_t first) {
  if (steps_.size() <= first + 1) return;
  StepStats merged = steps_[first];
  for (size_t i = first + 1; i < steps_.size(); ++i) {
    const StepStats& part = steps_[i];
    merged.chunks += part.chunks;
    merged.edges_decoded += part.edges_decoded;
    for (size_t d = 0; d < merged.device_bytes.size() && d < part.device_bytes.size(); ++d) {
      merged.device_bytes[d] += part.device_bytes[d];
      merged.device_requests[d] += part.device_requests[d];
    }
    merged.io_wait_seconds += part.io_wait_seconds;
    merged.decode_seconds += part.decode_seconds;
    merged.compute_seconds += part.compute_seconds;
    merged.cached_chunks += part.cached_chunks;
    merged.reread_chunks += part.reread_chunks;
    merged.decoded_cache_chunks += part.decoded_cache_chunks;
    merged.decoded_cache_bytes += part.decoded_cache_bytes;
  }
  steps_.resize(first);
  steps_.push_back(std::move(merged));
}

// The step's plan as a whole (each scan() recorded its block's part).
void Engine::record_plan(const StepPlan& plan, StepStats* step) const {
  step->intervals_skipped = plan.intervals_skipped;
  step->predicted_seconds = plan.predicted.seconds;
  step->predicted_io_seconds = plan.predicted.io_seconds;
  step->predicted_cpu_seconds = plan.predicted.cpu_seconds;
  step->predicted_bytes = plan.predicted.bytes;
  step->predicted_requests = plan.predicted.requests;
  step->pull_seconds = plan.pull_seconds;
  step->push_seconds = plan.push_seconds;
  step->decisions = plan.intervals;
  step->selective_intervals = 0;
  for (const IntervalDecision& d : plan.intervals) step->selective_intervals += d.selective;
  step->useful_bytes = plan.useful_bytes;
  step->read_ahead_bytes = plan.read_ahead_bytes;
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

std::vector<double> Engine::iteration_seconds() const {
  std::vector<double> seconds;
  for (size_t i = 0; i + 1 < iteration_starts_.size(); ++i) {
    seconds.push_back(std::chrono::duration<double>(iteration_starts_[i + 1] - iteration_starts_[i]).count());
  }
  return seconds;
}

void Engine::note(const std::string& text) {
  notices_ += text + "\n";
  if (!options_.quiet) std::fprintf(stderr, "shardgraph: %s\n", text.c_str());
}

// Scratch goes to --scratch-dir, else the graph directory when it is
// writable, else $TMPDIR or /tmp (a read-only graph still runs).
std::string Engine::scratch_path(const std::string& name) const {
  std::string dir = options_.scratch_dir;
  if (dir.empty()) dir = ::access(graph_->dir().c_str(), W_OK) == 0 ? graph_->dir() : "";
  if (dir.empty()) dir = std::getenv("TMPDIR") != nullptr ? std::getenv("TMPDIR") : "/tmp";
  return dir + "/.scratch-" + std::to_string(::getpid()) + "-" + name;
}

// The chunks of `spans` to read from the devices: the uncached ones, merged
// when adjacent, plus runs of cached chunks between two of them within a
// span when reading them through is cheaper than another request (a cache
// scattered by priority must not split a scan into many small reads).
std::vector<ChunkSpan> Engine::disk_spans(size_t stored, const std::vector<ChunkSpan>& spans) const {
  const auto& index = graph_->stored_space(stored).index;
  auto bytes_of = [&](uint32_t begin, uint32_t end) {  // chunks [begin, end) as read
    return align_up(index[end - 1].offset + index[end - 1].bytes, kAlignBytes) - index[begin].offset;
  };
  auto cached = [&](uint32_t c) { return cache_.find(stored, c) != nullptr; };
  std::vector<ChunkSpan> out;
  for (const ChunkSpan& span : spans) {
    bool open = false;  // out.back() may still grow within this span
    uint32_t c = span.begin;
    while (c < span.end) {
      uint32_t gap_end = c;
      while (gap_end < span.end && cached(gap_end)) ++gap_end;
      if (gap_end == span.end) break;  // only cached chunks left
      uint32_t run_end = gap_end;
      while (run_end < span.end && !cached(run_end)) ++run_end;
      // Never through a decoded window: it serves its chunks without a decode.
      bool decoded_gap = false;
      for (uint32_t g = c; g < gap_end && !decoded_gap; ++g) decoded_gap = cache_.is_decoded(stored, g);
      const bool bridge = open && (gap_end == c || (!decoded_gap && cost_model_.read_through(
                                                                        bytes_of(out.back().begin, out.back().end),
                                                                        bytes_of(c, gap_end), bytes_of(gap_end, run_end))));
      if (bridge) out.back().end = run_end;
      else out.push_back(ChunkSpan{gap_end, run_end});
      open = true;
      c = run_end;
    }
  }
  return out;
}

// Prices a block's plan: what disk_spans reads as byte ranges on the
// devices, every chunk as decode work.
void Engine::cost_plan(BlockPlan* plan, uint64_t useful_bytes) const {
  const size_t stored = plan->stored;
  const auto& index = graph_->stored_space(stored).index;
  uint64_t cpu_bytes = 0, decoded_bytes = 0;
  for (const ChunkSpan& span : plan->spans) {
    for (uint32_t c = span.begin; c < span.end; ++c) (cache_.is_decoded(stored, c) ? decoded_bytes : cpu_bytes) += index[c].bytes;
  }
  std::vector<ByteRange> ranges;
  for (const ChunkSpan& span : disk_spans(stored, plan->spans)) {
    const uint64_t end = align_up(index[span.end - 1].offset + index[span.end - 1].bytes, kAlignBytes);
    ranges.push_back(ByteRange{index[span.begin].offset, end - index[span.begin].offset});
  }
  // Push touches only the active lists: in a compressed chunk the others are
  // skipped, scanned without decoding (about a quarter of the cost per
  // byte); in a decoded window they cost nothing (the active bitmap is walked
  // a word at a time).
  const double total = static_cast<double>(cpu_bytes + decoded_bytes);
  const double active = total > 0 ? std::min(1.0, static_cast<double>(useful_bytes) / total) : 1.0;
  const double compressed_work = static_cast<double>(cpu_bytes) * (active + (1 - active) / 4);
  const double decoded_work = static_cast<double>(decoded_bytes) * active;
  plan->predicted = cost_model_.cost(ranges, static_cast<uint64_t>(compressed_work), static_cast<uint64_t>(decoded_work));
}

// Blocks are read one after another: their times add up.
void Engine::total_plan(StepPlan* plan) {
  plan->predicted = PlanCost{};
  plan->intervals.clear();
  plan->intervals_skipped = 0;
  plan->useful_bytes = 0;
  plan->read_ahead_bytes = 0;
  for (const BlockPlan& block : plan->blocks) {
    plan->predicted.io_seconds += block.predicted.io_seconds;
    plan->predicted.cpu_seconds += block.predicted.cpu_seconds;
    plan->predicted.seconds += block.predicted.seconds;
    plan->predicted.bytes += block.predicted.bytes;
    plan->predicted.requests += block.predicted.requests;
    plan->intervals.insert(plan->intervals.end(), block.intervals.begin(), block.intervals.end());
    plan->intervals_skipped += block.intervals_skipped;
    plan->useful_bytes += block.useful_bytes;
    plan->read_ahead_bytes += block.read_ahead_bytes;
  }
}

StepPlan Engine::plan_pull(SpaceKind kind, uint32_t begin, uint32_t end) const {
  StepPlan plan;
  plan.pull = true;
  plan.kind = kind;
  for (size_t stored : graph_->blocks(kind)) plan.blocks.push_back(plan_pull_block(stored, begin, end));
  total_plan(&plan);
  return plan;
}

BlockPlan Engine::plan_pull_block(size_t stored, uint32_t begin, uint32_t end) const {
  BlockPlan plan;
  plan.stored = stored;
  const auto& index = graph_->stored_space(stored).index;
  for (ChunkSpan span : interval_chunks_[stored]) {
    if (begin != 0 || end != UINT32_MAX) {
      // Chunks are in vertex order: keep those whose vertices meet [begin, end).
      auto first = std::partition_point(index.begin() + span.begin, index.begin() + span.end,
                                        [&](const ChunkIndexEntry& e) { return e.end_vertex() <= begin; });
      auto last = std::partition_point(first, index.begin() + span.end, [&](const ChunkIndexEntry& e) { return e.first_vertex < end; });
      span = ChunkSpan{static_cast<uint32_t>(first - index.begin()), static_cast<uint32_t>(last - index.begin())};
    }
    if (span.begin == span.end) ++plan.intervals_skipped;
    else plan.spans.push_back(span);
  }
  cost_plan(&plan);
  return plan;
}

std::vector<Engine::ActiveChunks> Engine::active_chunks(const VertexSubset& frontier, const VertexSubset& active,
                                                        size_t stored) const {
  const EdgeSpace& space = graph_->stored_space(stored);
  const auto& index = space.index;
  const uint32_t* degrees = planning_degrees(space.kind);  // null: estimated from the chunk's mean degree
  // A block holds its share of each list (estimated by its share of the arcs).
  const uint64_t kind_arcs = std::max<uint64_t>(1, graph_->arcs(space.kind));
  auto block_degree = [&](uint32_t v) -> uint64_t { return degrees[v] * std::max<uint64_t>(space.meta.arcs, 1) / kind_arcs; };
  const auto& starts = graph_->manifest().interval_starts;
  std::vector<ActiveChunks> chunks(starts.size());
  auto mean_degree = [](const ChunkIndexEntry& e) -> uint64_t { return (e.edge_count + e.vertex_count - 1) / e.vertex_count; };
  auto useful = [&](const ChunkIndexEntry& e, uint64_t active_edges) -> uint64_t {
    return e.edge_count == 0 ? 0 : e.bytes * std::min<uint64_t>(active_edges, e.edge_count) / e.edge_count;
  };
  auto interval_of = [&](uint32_t vertex) {
    return static_cast<size_t>(std::upper_bound(starts.begin(), starts.end(), vertex) - starts.begin()) - 1;
  };
  if (!frontier.is_dense()) {
    // Small frontier: look each active vertex up (O(k log chunks)).
    std::vector<uint32_t> selected;
    for (uint32_t v : frontier.list()) {
      size_t c = static_cast<size_t>(std::upper_bound(index.begin(), index.end(), v, [](uint32_t x, const ChunkIndexEntry& e) {
                                       return x < e.first_vertex;
                                     }) - index.begin());
      while (c > 0 && index[c - 1].first_vertex <= v && v < index[c - 1].end_vertex()) {
        selected.push_back(static_cast<uint32_t>(--c));
        const ChunkIndexEntry& e = index[c];
        chunks[interval_of(v)].useful_bytes +=
            useful(e, e.vertex_count == 1 ? e.edge_count : degrees != nullptr ? block_degree(v) : mean_degree(e));
      }
    }
    std::sort(selected.begin(), selected.end());
    selected.erase(std::unique(selected.begin(), selected.end()), selected.end());
    for (uint32_t c : selected) chunks[interval_of(index[c].first_vertex)].chunks.push_back(c);
    return chunks;
  }
  for (size_t i = 0; i < starts.size(); ++i) {
    const ChunkSpan span = interval_chunks_[stored][i];
    const uint32_t end_vertex = i + 1 < starts.size() ? starts[i + 1] : graph_->num_vertices();
    if (span.begin == span.end || !active.any_in(starts[i], end_vertex)) continue;
    for (uint32_t c = span.begin; c < span.end; ++c) {
      const ChunkIndexEntry& e = index[c];
      if (!active.any_in(e.first_vertex, e.end_vertex())) continue;
      uint64_t active_edges = 0;
      for (uint32_t v = e.first_vertex; v < e.end_vertex(); ++v) {
        if (active.contains(v)) active_edges += degrees != nullptr ? block_degree(v) : mean_degree(e);
      }
      chunks[i].useful_bytes += useful(e, active_edges);
      chunks[i].chunks.push_back(c);
    }
  }
  return chunks;
}

// Merges selected chunks into spans. Adjacent chunks share a request; with
// `fill_gaps` (--io auto) a gap of uncached chunks the cost model says is
// cheaper to read than to skip is read through. A cached chunk is never read
// through: it would split the request anyway.
std::vector<ChunkSpan> Engine::merge_chunks(size_t stored, const std::vector<uint32_t>& chunks, bool fill_gaps) const {
  const auto& index = graph_->stored_space(stored).index;
  std::vector<ChunkSpan> spans;
  auto bridgeable = [&](uint32_t from, uint32_t to) {
    if (from == to) return true;
    if (!fill_gaps) return false;
    for (uint32_t c = from; c < to; ++c) {
      if (cache_.find(stored, c) != nullptr) return false;
    }
    const ChunkSpan& last = spans.back();
    auto end_of = [&](uint32_t c) { return align_up(index[c].offset + index[c].bytes, kAlignBytes); };
    return cost_model_.read_through(end_of(last.end - 1) - index[last.begin].offset, index[to].offset - end_of(from - 1),
                                    end_of(to) - index[to].offset);
  };
  for (uint32_t c : chunks) {
    if (!spans.empty() && bridgeable(spans.back().end, c)) {
      spans.back().end = c + 1;
      continue;
    }
    spans.push_back(ChunkSpan{c, c + 1});
  }
  return spans;
}

// --io auto with the cache on: a selective request is latency-bound, so
// reading on past its last chunk costs little up to latency x bandwidth more
// bytes (at most one more request's time). Those chunks go to the cache, and
// a traversal, which in a locality order (ingest --order bfs) moves forward
// through the ids, finds its next steps' lists there. Stops at a cached
// chunk, the interval's end, or when the cache has no room for it.
uint64_t Engine::read_ahead(size_t stored, ChunkSpan interval, std::vector<ChunkSpan>* spans, uint64_t* room) const {
  const auto& index = graph_->stored_space(stored).index;
  auto stored_bytes = [&](uint32_t c) { return align_up(index[c].bytes, kAlignBytes); };
  for (const ChunkSpan& span : *spans) {
    for (uint32_t c = span.begin; c < span.end; ++c) {
      if (cache_.find(stored, c) == nullptr) *room -= std::min(*room, stored_bytes(c));
    }
  }
  uint64_t total = 0;
  for (size_t i = 0; i < spans->size(); ++i) {
    ChunkSpan& span = (*spans)[i];
    const uint32_t limit = i + 1 < spans->size() ? (*spans)[i + 1].begin : interval.end;  // the next span is read anyway
    uint64_t extra = 0;
    while (span.end < limit && cache_.find(stored, span.end) == nullptr) {
      const uint64_t bytes = stored_bytes(span.end);
      if (extra + bytes > cost_model_.gap_fill_bytes() || bytes > *room) break;
      extra += bytes;
      *room -= bytes;
      ++span.end;
    }
    total += extra;
  }
  // Extended spans may now reach the next ones.
  std::vector<ChunkSpan> merged;
  for (const ChunkSpan& span : *spans) {
    if (!merged.empty() && span.begin <= merged.back().end) merged.back().end = std::max(merged.back().end, span.end);
    else merged.push_back(span);
  }
  *spans = std::move(merged);
  return total;
}

StepPlan Engine::plan_push(const VertexSubset& frontier, const VertexSubset& active, SpaceKind kind, IoMode mode) const {
  StepPlan plan;
  plan.pull = false;
  plan.kind = kind;
  uint64_t room = options_.cache && mode == IoMode::kAuto ? cache_room() : 0;  // for read-ahead, shared by the blocks
  for (size_t stored : graph_->blocks(kind)) plan.blocks.push_back(plan_push_block(frontier, active, stored, mode, &room));
  total_plan(&plan);
  return plan;
}

BlockPlan Engine::plan_push_block(const VertexSubset& frontier, const VertexSubset& active, size_t stored, IoMode mode,
                                  uint64_t* room) const {
  BlockPlan plan;
  plan.stored = stored;
  const uint32_t block = static_cast<uint32_t>(std::find(graph_->blocks(graph_->stored_space(stored).kind).begin(),
                                                         graph_->blocks(graph_->stored_space(stored).kind).end(), stored) -
                                               graph_->blocks(graph_->stored_space(stored).kind).begin());
  const std::vector<ActiveChunks> selected = active_chunks(frontier, active, stored);
  for (size_t i = 0; i < selected.size(); ++i) {
    const ChunkSpan full = interval_chunks_[stored][i];
    plan.useful_bytes += selected[i].useful_bytes;
    if (selected[i].chunks.empty()) {
      ++plan.intervals_skipped;
      continue;
    }
    if (mode == IoMode::kFull) {
      plan.spans.push_back(full);
      continue;
    }
    std::vector<ChunkSpan> selective = merge_chunks(stored, selected[i].chunks, mode == IoMode::kAuto);
    IntervalDecision decision;
    decision.interval = static_cast<uint32_t>(i);
    decision.block = block;
    BlockPlan one;
    one.stored = stored;
    one.spans = {full};
    cost_plan(&one, selected[i].useful_bytes);
    decision.full_seconds = one.predicted.seconds;
    one.spans = selective;
    cost_plan(&one, selected[i].useful_bytes);
    decision.selective_seconds = one.predicted.seconds;
    // A tie goes to selective: fewer bytes, the same time.
    decision.selective = mode == IoMode::kSelective || decision.selective_seconds <= decision.full_seconds;
    if (decision.selective) {
      if (*room > 0) plan.read_ahead_bytes += read_ahead(stored, full, &selective, room);
      plan.spans.insert(plan.spans.end(), selective.begin(), selective.end());
    } else {
      plan.spans.push_back(full);
    }
    plan.intervals.push_back(decision);
  }
  cost_plan(&plan, plan.useful_bytes);
  return plan;
}

StepPlan Engine::make_plan(const VertexSubset& frontier, const VertexSubset& active, const EdgeMapOptions& options) {
  const SpaceKind pull_kind = options.reversed ? SpaceKind::kOut : SpaceKind::kIn;
  const SpaceKind push_kind = options.reversed ? SpaceKind::kIn : SpaceKind::kOut;
  const IoMode mode = options_.io_mode;
  if (options.direction == Direction::kPull || options.destinations_begin != 0 || options.destinations_end != UINT32_MAX) {
    return plan_pull(pull_kind, options.destinations_begin, options.destinations_end);
  }
  if (options.direction == Direction::kPush) return plan_push(frontier, active, push_kind, mode);
  if (mode == IoMode::kSelective) return plan_push(frontier, active, push_kind, mode);
  if (mode == IoMode::kFull) {
    // Ligra's rule: push while the frontier's out-edges are under |E|/20.
    const uint32_t* degrees = planning_degrees(push_kind);
    uint64_t frontier_edges = active.size();
    if (!active.is_all() && degrees != nullptr) frontier.for_each([&](uint32_t v) { frontier_edges += degrees[v]; });
    if (!active.is_all() && degrees == nullptr) frontier_edges += active.size() * (num_arcs() / std::max(1u, num_vertices()));
    const bool pull = active.is_all() || frontier_edges > num_arcs() / 20;
    return pull ? plan_pull(pull_kind) : plan_push(frontier, active, push_kind, mode);
  }
  StepPlan pull = plan_pull(pull_kind);
  StepPlan push = plan_push(frontier, active, push_kind, IoMode::kAuto);
  // With vertex arrays loaded by range, each pass over the other side's
  // ranges reads the blocks holding its neighbours again.
  cost_passes(&pull);
  cost_passes(&push);
  const bool push_cheaper = push.predicted.seconds < pull.predicted.seconds;
  StepPlan* best = push_cheaper ? &push : &pull;
  if (rent_instead_of(push_cheaper ? pull : push, best->predicted.seconds)) best = push_cheaper ? &pull : &push;
  best->pull_seconds = pull.predicted.seconds;
  best->push_seconds = push.predicted.seconds;
  return std::move(*best);
}

// Ski rental (Karlin et al. 1988): the cheaper direction of one step can be
// the dearer one for every later step, when the other is dear only for
// chunks it has not read yet. A BFS along a path pulls its one vertex a step
// through the cached in-space, 200,000 steps, rather than read the out-space
// once. Each step the other direction would have cost less with its chunks
// cached adds the difference to its regret; once the regret reaches what
// reading them costs, the other direction is taken (and its chunks cached).
// That costs at most twice the best choice made knowing the future.
bool Engine::rent_instead_of(const StepPlan& other, double chosen_seconds) {
  double& regret = direction_regret_seconds_[other.pull ? 1 : 0];
  const double other_cached = other.predicted.cpu_seconds;
  const double other_reading = other.predicted.seconds - other_cached;
  if (!options_.cache || other_reading <= 0 || other.predicted.bytes > cache_limit() || other_cached >= chosen_seconds) {
    regret = 0;
    return false;
  }
  regret += chosen_seconds - other_cached;
  if (regret < other_reading) return false;
  regret = 0;
  return true;
}

uint64_t Engine::cache_room() const {
  const uint64_t limit = cache_limit();
  return cache_.bytes() < limit ? limit - cache_.bytes() : 0;
}

Status Engine::decode_window(const EdgeSpace& space, const ChunkWindow& window, VertexRangeFn body, void* context,
                             WindowTimes* times, const VertexSubset* only, StepStats* step, bool* keep) {
  // Room permitting, decode every list (not only the active ones) so the
  // window can serve later steps decoded.
  *keep = options_.cache && options_.decoded_cache &&
          cache_.decoded_fits(decoded_window_bytes(*graph_, space, window.first_chunk, window.end_chunk), cache_room());
  if (*keep && only != nullptr) whole_decode_bytes_ += space.chunk_bytes(window.first_chunk, window.end_chunk);
  SG_RETURN_IF_ERROR(build_window_graph(*graph_, space, window, &window_, body, context, times, *keep ? nullptr : only));
  step->chunks += window.end_chunk - window.first_chunk;
  step->edges_decoded += window_.edges();
  return Status::OK();
}

// Cached chunks (sorted) processed from memory. A chunk evicted since the
// step was planned (disk windows of the same step are admitted meanwhile,
// and may evict chunks of a lower priority bin) goes to `missed`, to be
// read from the devices.
Status Engine::scan_cached(const EdgeSpace& space, size_t stored, std::span<const uint32_t> chunks, VertexRangeFn body,
                           void* context, WindowTimes* times, WindowTimes* decoded_times, StepStats* step,
                           const VertexSubset* only, std::vector<uint32_t>* missed) {
  std::vector<const uint8_t*> payloads;
  size_t i = 0;
  while (i < chunks.size()) {
    if (cache_.find(stored, chunks[i]) == nullptr) {
      missed->push_back(chunks[i++]);
      continue;
    }
    if (const WindowGraph* decoded = cache_.decoded_containing(stored, chunks[i])) {
      // The requested chunks this decoded window holds (chunks are sorted).
      size_t j = i;
      while (j < chunks.size() && chunks[j] < decoded->end_chunk) {
        step->decoded_cache_bytes += space.index[chunks[j]].bytes;
        ++j;
      }
      visit_window_graph(space, *decoded, chunks.subspan(i, j - i), body, context, decoded_times);
      step->chunks += j - i;
      step->cached_chunks += j - i;
      step->decoded_cache_chunks += j - i;
      i = j;
      continue;
    }
    // A window of consecutive cached chunks, up to the next decoded one and
    // no larger than an I/O window: its decoded form is what the budget
    // reserves (4 bytes per compressed byte of one window).
    size_t j = i + 1;
    uint64_t window_bytes = space.index[chunks[i]].bytes;
    while (j < chunks.size() && chunks[j] == chunks[j - 1] + 1 && j - i < kMaxCachedWindowChunks &&
           window_bytes + space.index[chunks[j]].bytes <= io_.window_bytes() &&
           space.index[chunks[j]].end_vertex() - space.index[chunks[i]].first_vertex <= window_vertex_limit(io_.window_bytes()) &&
           !cache_.is_decoded(stored, chunks[j]) &&
           cache_.find(stored, chunks[j]) != nullptr) {
      window_bytes += space.index[chunks[j]].bytes;
      ++j;
    }
    payloads.clear();
    for (size_t k = i; k < j; ++k) payloads.push_back(cache_.find(stored, chunks[k]));
    ChunkWindow window;
    window.first_chunk = chunks[i];
    window.end_chunk = chunks[j - 1] + 1;
    window.payloads = payloads.data();
    bool keep = false;
    SG_RETURN_IF_ERROR(decode_window(space, window, body, context, times, only, step, &keep));
    step->cached_chunks += j - i;
    if (keep) cache_.admit_decoded(stored, window_, cache_room());
    i = j;
  }
  return Status::OK();
}

// Up to `count` windows of the stream, each decoded and processed, its
// chunks offered to the cache.
Status Engine::stream_windows(const EdgeSpace& space, size_t stored, ChunkStream* stream, size_t count, VertexRangeFn body,
                              void* context, WindowTimes* times, StepStats* step, const VertexSubset* only) {
  for (size_t w = 0; w < count; ++w) {
    ChunkWindow window;
    bool has = false;
    SG_RETURN_IF_ERROR(stream->next(&window, &has));
    if (!has) return Status::OK();
    if (interrupt_requested()) return Status::Interrupted("run stopped by a signal");
    bool keep = false;
    SG_RETURN_IF_ERROR(decode_window(space, window, body, context, times, only, step, &keep));
    if (!options_.cache) continue;
    for (uint32_t c = window.first_chunk; c < window.end_chunk; ++c) {
      const ChunkIndexEntry& e = space.index[c];
      cache_.admit(stored, c, window.payload(c, e), e.bytes, cache_room(), ChunkCache::priority(e), steps_.size());
    }
    // After the chunks: a decoded window is kept only over cached ones.
    if (keep) cache_.admit_decoded(stored, window_, cache_room());
  }
  return Status::OK();
}

Status Engine::scan(const VertexSubset& active, const StepPlan& plan, const BlockPlan& block, bool reversed, VertexRangeFn body,
                    void* context) {
  // One step over loaded ranges is many scans (scan_groups), most of them
  // of cached chunks: each looks for a signal.
  if (interrupt_requested()) return Status::Interrupted("run stopped by a signal");
  const auto start = std::chrono::steady_clock::now();
  const size_t stored = block.stored;
  const EdgeSpace& space = graph_->stored_space(stored);
  StepStats step;
  step.iteration = iteration_;
  step.mode = plan.pull ? "pull" : "push";
  step.io_mode = io_mode_name(options_.io_mode);
  step.reversed = reversed;
  step.active_vertices = active.size();
  step.intervals = static_cast<uint32_t>(graph_->manifest().interval_starts.size());
  record_plan(plan, &step);  // the whole step's (scan_groups merges the blocks' parts)

  // Cached chunks are processed from memory; the rest is streamed.
  const std::vector<ChunkSpan> to_read = disk_spans(stored, block.spans);
  std::vector<uint32_t> cached;  // the rest
  size_t next_read = 0;
  for (const ChunkSpan& span : block.spans) {
    for (uint32_t c = span.begin; c < span.end; ++c) {
      if (cache_.find(stored, c) != nullptr) cache_.touch(stored, c, steps_.size());
      while (next_read < to_read.size() && to_read[next_read].end <= c) ++next_read;
      if (next_read < to_read.size() && to_read[next_read].begin <= c) continue;  // read from the devices
      cached.push_back(c);
    }
  }
  std::vector<uint64_t> bytes_before, requests_before;
  for (size_t d = 0; d < io_.device_count(); ++d) {
    bytes_before.push_back(io_.device_counters(d).bytes.load());
    requests_before.push_back(io_.device_counters(d).requests.load());
  }
  whole_decode_bytes_ = 0;
  WindowTimes times, decoded_times;  // apart: serving decoded windows is not a sample of the decode rate
  // Push reads only active sources' lists: skip decoding the others.
  const VertexSubset* only = plan.pull || active.is_all() ? nullptr : &active;
  // The devices start reading at once; the cached chunks are processed a
  // share before each disk window, so the devices keep reading meanwhile
  // (processed first, they would idle through it).
  std::vector<uint32_t> missed;
  Status status;
  {
    ChunkStream stream(&io_, stored, to_read);
    const size_t windows = stream.window_count();
    size_t cached_done = 0;
    for (size_t w = 0; w <= windows && status.ok(); ++w) {
      size_t until = std::max(cached_done, cached.size() * (w + 1) / (windows + 1));
      // A decoded window's chunks go in one share: a list split over two of
      // them is visited whole with the first (visit_split_lists), and would
      // be visited again with the second in the next share.
      while (until > cached_done && until < cached.size() && cache_.decoded_containing(stored, cached[until]) != nullptr &&
             cache_.decoded_containing(stored, cached[until]) == cache_.decoded_containing(stored, cached[until - 1])) {
        ++until;
      }
      status = scan_cached(space, stored, std::span<const uint32_t>(cached).subspan(cached_done, until - cached_done), body,
                           context, &times, &decoded_times, &step, only, &missed);
      cached_done = until;
      if (status.ok() && w < windows) status = stream_windows(space, stored, &stream, 1, body, context, &times, &step, only);
    }
    step.io_wait_seconds = stream.io_wait_seconds();
  }
  if (status.ok() && !missed.empty()) {  // evicted while the step ran: read them
    step.reread_chunks = missed.size();
    std::vector<ChunkSpan> spans;
    for (uint32_t c : missed) {
      if (spans.empty() || spans.back().end != c) spans.push_back(ChunkSpan{c, c});
      spans.back().end = c + 1;
    }
    ChunkStream stream(&io_, stored, spans);
    status = stream_windows(space, stored, &stream, SIZE_MAX, body, context, &times, &step, only);
    step.io_wait_seconds += stream.io_wait_seconds();
  }
  step.decode_seconds = static_cast<double>(times.decode_ns.load()) * 1e-9;
  const double cpu_wall = (step.decode_seconds + static_cast<double>(times.compute_ns.load()) * 1e-9) /
                          static_cast<double>(parallel_threads());
  const double decoded_cpu_seconds = static_cast<double>(decoded_times.compute_ns.load()) * 1e-9;
  step.compute_seconds = static_cast<double>(times.compute_ns.load()) * 1e-9 + decoded_cpu_seconds;
  for (size_t d = 0; d < io_.device_count(); ++d) {
    step.device_bytes.push_back(io_.device_counters(d).bytes.load() - bytes_before[d]);
    step.device_requests.push_back(io_.device_counters(d).requests.load() - requests_before[d]);
  }
  step.seconds = seconds_since(start);
  // The rates are per byte of work as cost_plan counts it (push: the active
  // share of what it touches).
  uint64_t touched_bytes = 0;
  for (const ChunkSpan& span : block.spans) touched_bytes += space.chunk_bytes(span.begin, span.end);
  const double active_share = plan.pull || touched_bytes == 0
                            ? 1.0
                            : std::min(1.0, static_cast<double>(block.useful_bytes) / static_cast<double>(touched_bytes));
  // Windows decoded whole for the decoded cache did the full work.
  const double whole = static_cast<double>(whole_decode_bytes_);
  const double compressed_bytes = static_cast<double>(touched_bytes - step.decoded_cache_bytes) - whole;
  const double threads = static_cast<double>(parallel_threads());
  cost_model_.observe_cpu(static_cast<uint64_t>(compressed_bytes * (active_share + (1 - active_share) / 4) + whole),
                          cpu_wall);
  cost_model_.observe_decoded_cpu(static_cast<uint64_t>(static_cast<double>(step.decoded_cache_bytes) * active_share),
                                  decoded_cpu_seconds / threads);
  steps_.push_back(step);
  if (options_.progress) report_progress(step);
  if (std::getenv("SHARDGRAPH_MEMORY_TRACE") != nullptr) trace_memory();
  return status;
}

// What the budget accounts for against what the process holds (MiB).
void Engine::trace_memory() const {
  auto mib = [](uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); };
  const uint64_t io_bytes = io_.buffer_count() * io_.window_bytes();
  std::fprintf(stderr,
               "memory: step %zu: metadata %.1f + I/O buffers %.1f (%zu x %.2f) + decode room %.1f + arrays %.1f + "
               "range room %.1f + cache %.1f = %.1f of %.1f; VmRSS %.1f VmHWM %.1f\n",
               steps_.size(), mib(memory_used_ - io_bytes - decode_room_bytes_), mib(io_bytes), io_.buffer_count(),
               mib(io_.window_bytes()), mib(decode_room_bytes_), mib(residency_.resident_bytes()), mib(range_room()),
               mib(cache_.bytes()), mib(memory_used() + range_room() + cache_.bytes()), mib(options_.memory_bytes),
               mib(current_rss_bytes()), mib(peak_rss_bytes()));
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
