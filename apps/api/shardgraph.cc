// The library API over the jobs and the run layer: each call converts its
// request, sets the caller's progress sink and stop poll for its duration,
// and converts the result.
#include "shardgraph/shardgraph.h"

#include <tbb/global_control.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <utility>

#include "apps/jobs/compact.h"
#include "apps/jobs/generate.h"
#include "apps/jobs/graph_info.h"
#include "apps/jobs/ingest_distributed.h"
#include "apps/jobs/ingest_ordered.h"
#include "apps/jobs/partition.h"
#include "apps/run/app_table.h"
#include "apps/run/run_app.h"
#include "base/interrupt.h"
#include "base/process_memory.h"
#include "core/communicator.h"
#include "scheduler/calibrate.h"
#include "scheduler/device_profile.h"
#include "shards/format/graph.h"
#include "shards/format/manifest.h"
#include "shards/format/restripe.h"
#include "shards/format/verify.h"
#include "shards/ingest/edge_reader.h"
#include "shards/ingest/ingest_auto.h"
#include "shards/ingest/leftovers.h"
#include "shards/ingest/open_input.h"
#include "shards/update/graph_update.h"

namespace shardgraph {

using sg::Status;

namespace {
constexpr const char* kVersion = "0.6.0";  // the library API, the app table
}  // namespace

std::string version_line() {
  return std::string("shardgraph ") + kVersion + " (writes format version " + std::to_string(sg::kFormatVersion) +
         ", codec " + sg::kCodecName + ", and " + std::to_string(sg::kDeltaFormatVersion) +
         " with updates; reads versions " + std::to_string(sg::kOldestFormatVersion) + " to " +
         std::to_string(sg::kDeltaFormatVersion) + ")";
}

bool parse_size(const std::string& text, uint64_t* bytes) {
  double value = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || value < 0) return false;
  std::string unit(ptr, end);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() == 3 && unit.substr(1) == "IB") unit.resize(1);
  if (unit.size() == 2 && unit[1] == 'B') unit.resize(1);
  double scale = 1;
  if (unit.empty() || unit == "B")
    scale = 1;
  else if (unit == "K")
    scale = 1024.0;
  else if (unit == "M")
    scale = 1024.0 * 1024;
  else if (unit == "G")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "T")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else
    return false;
  const double result = std::round(value * scale);
  if (result > 9.0e18) return false;
  *bytes = static_cast<uint64_t>(result);
  return true;
}

AutoMemory auto_memory() {
  const sg::MemoryLimits limits = sg::memory_limits();
  return AutoMemory{sg::auto_memory_budget(limits), limits.cgroup_limit_bytes, limits.available_bytes};
}

uint64_t peak_rss_bytes() { return sg::peak_rss_bytes(); }

void install_interrupt_handlers() { sg::install_interrupt_handlers(); }

Status generate_rmat(const RmatRequest& request) {
  sg::RmatOptions o{request.scale, request.edge_factor, request.seed, request.weights};
  const Status s = sg::generate_rmat(o, request.output);
  if (!s.ok()) std::remove(request.output.c_str());  // never leave a truncated edge list behind
  return s;
}

Status generate_grid(const GridRequest& request) {
  sg::GridOptions o{request.rows, request.cols, request.seed, request.weights, request.shuffle};
  const Status s = sg::generate_grid(o, request.output);
  if (!s.ok()) std::remove(request.output.c_str());
  return s;
}

namespace {

// Device profiles a successful ingest stores: (directory, JSON).
using ProbedProfiles = std::vector<std::pair<std::string, std::string>>;

// The profile of a device directory: the stored one (shardgraph
// calibrate, or an earlier probe), else the preset of the class a short
// probe puts it in (probe_device, probed_class), said in *note and added
// to *probed (stored there once the ingest succeeds, so that the
// directory is probed once and a failed ingest leaves nothing behind).
// False when neither works (a directory that does not exist: ingest then
// says so).
bool device_profile(const std::string& dir, sg::DeviceProfile* profile, ProbedProfiles* probed, std::string* note) {
  bool preset = true;
  if (sg::load_device_profile(dir, "ssd", profile, &preset).ok() && !preset) return true;
  sg::DeviceProfile measured;
  if (!sg::probe_device(dir, &measured).ok()) return false;
  const std::string device_class = sg::probed_class(measured);
  if (!sg::preset_profile(device_class, profile).ok()) return false;
  probed->emplace_back(dir, profile->to_json());
  char text[320];
  std::snprintf(text, sizeof(text), "%s: probed %.0f MB/s, %.2f ms a 4 KiB read: the '%s' preset, stored there as %s",
                dir.c_str(), measured.sequential_bytes_per_second / 1e6, measured.latency_seconds() * 1e3,
                device_class.c_str(), sg::kProfileFileName);
  *note += (note->empty() ? "" : "; ") + std::string(text);
  return true;
}

// The profiles of the spill's directory (the output's parent) and of the
// devices the graph goes to (the same one without --device); none if one
// of them has none. Without --device the graph keeps its directory's
// profile (*graph_profile), so that its runs price reads by it too.
std::vector<sg::DeviceProfile> device_profiles(const IngestRequest& request, sg::DeviceProfile* spill,
                                               std::string* graph_profile, ProbedProfiles* probed, std::string* note) {
  const std::string parent = std::filesystem::absolute(request.output).parent_path().string();
  if (!device_profile(parent, spill, probed, note)) return {};
  if (request.devices.empty()) {
    *graph_profile = spill->to_json();
    if (!probed->empty()) *note += " and in the graph for its runs (shardgraph calibrate measures fully)";
    return {*spill};
  }
  std::vector<sg::DeviceProfile> profiles;
  for (const std::string& dir : request.devices) {
    sg::DeviceProfile profile;
    if (!device_profile(dir, &profile, probed, note)) return {};
    profiles.push_back(profile);
  }
  return profiles;
}

// The value named `name` among `choices`; otherwise an error that lists them
// (the option tables check the names first: this serves callers that set a
// request's field directly).
template <typename T>
Status pick(const char* option, const std::string& name, std::initializer_list<std::pair<const char*, T>> choices,
            T* value) {
  std::string names;
  for (const auto& [choice, choice_value] : choices) {
    if (name == choice) {
      *value = choice_value;
      return Status::OK();
    }
    names += (names.empty() ? "" : ", ") + std::string(choice);
  }
  return Status::InvalidArgument(std::string(option) + " must be one of " + names);
}

using Remap = sg::IngestOptions::Remap;

struct StoredCodec {
  sg::GapChoice gap = sg::GapChoice::kFast;
  int format_version = sg::kFormatVersion;
};

sg::DiskSpeed speed_of(const sg::DeviceProfile& profile) {
  return sg::DiskSpeed{profile.sequential_bytes_per_second, profile.latency_seconds()};
}

}  // namespace

namespace {

// A request's ingest options: the devices' profiles pick the chunk size,
// the codec and direct I/O; the profiles probed are kept in *probed.
Status ingest_options_of(const IngestRequest& request, sg::IngestOptions* o, ProbedProfiles* probed,
                         std::string* device_note) {
  o->input = request.input;
  o->output = request.output;
  o->format = request.format;
  o->binary_weights = request.weights;
  o->undirected = request.undirected;
  o->drop_self_loops = request.drop_self_loops;
  o->dedup = request.dedup;
  SG_RETURN_IF_ERROR(pick("remap", request.remap,
                          {{"auto", Remap::kAuto}, {"always", Remap::kAlways}, {"never", Remap::kNever}}, &o->remap));
  o->order = request.order;
  o->memory_bytes = request.memory_bytes;
  std::string graph_profile;
  sg::DeviceProfile spill_profile;
  const std::vector<sg::DeviceProfile> profiles =
      device_profiles(request, &spill_profile, &graph_profile, probed, device_note);
  std::vector<sg::DiskSpeed> speeds;
  for (const sg::DeviceProfile& profile : profiles) speeds.push_back(speed_of(profile));
  o->direct_io = sg::auto_direct_io(speed_of(spill_profile), speeds);
  if (!graph_profile.empty()) o->graph_files.emplace_back(sg::kProfileFileName, graph_profile);
  o->chunk_bytes = request.chunk_bytes != 0 ? request.chunk_bytes : sg::auto_chunk_bytes(speeds);
  // What each codec stores: its gap coding, in which format version.
  const StoredCodec automatic{sg::auto_gap_choice(speeds), sg::kFormatVersion};
  StoredCodec codec;
  SG_RETURN_IF_ERROR(pick("codec", request.codec,
                          {{"auto", automatic},
                           {"fast", {sg::GapChoice::kFast, sg::kFormatVersion}},
                           {"small", {sg::GapChoice::kSmallest, sg::kFormatVersion}},
                           {"entropy", {sg::GapChoice::kEntropy, sg::kFormatVersion}},
                           {"varint", {sg::GapChoice::kVarintOnly, sg::kFormatVersion}},
                           {"v2", {sg::GapChoice::kFast, 2}}},
                          &codec));
  o->gap_choice = codec.gap;
  o->format_version = codec.format_version;
  o->intervals = request.intervals;
  o->blocks = request.blocks;
  o->devices = request.devices;
  o->stripe_bytes = request.stripe_bytes;
  return Status::OK();
}

void store_probed(const ProbedProfiles& probed) {
  for (const auto& [dir, json] : probed) {
    (void)sg::write_file_atomic(dir + "/" + sg::kProfileFileName, json.data(), json.size());  // best effort
  }
}

// `mpirun -np N shardgraph ingest ... --parts N` (ingest_distributed.h):
// this rank's part of it. Errors every rank agreed on are reported by rank
// 0; one rank's own error ends the whole job.
Status ingest_partitioned(const IngestRequest& request, IngestReport* report) {
  struct Finalize {
    ~Finalize() { sg::mpi_finalize(); }
  } finalize;  // after the communicator is gone
  std::string error;
  std::unique_ptr<sg::Communicator> comm =
      sg::mpi_available() ? sg::mpi_communicator(&error) : sg::local_communicator();
  if (comm == nullptr) return Status::InvalidArgument(error);
  *report = IngestReport{};
  report->rank = comm->rank();  // also on failure: rank 0 alone reports
  Status s = comm->size() == static_cast<int>(request.parts)
                 ? Status::OK()
                 : Status::InvalidArgument("--parts " + std::to_string(request.parts) +
                                           " needs as many MPI ranks (mpirun -np " + std::to_string(request.parts) +
                                           "), not " + std::to_string(comm->size()));
  if (s.ok() && request.order != "auto" && request.order != "none")
    s = Status::InvalidArgument("--order " + request.order + " needs one process: ingest, then partition");
  sg::DistributedIngestOptions o;
  if (s.ok()) s = sg::split_part_devices(request.devices, request.parts, &o.part_devices);
  IngestRequest mine = request;  // this rank's devices, for the profiles
  mine.devices = s.ok() ? o.part_devices[static_cast<size_t>(comm->rank())] : std::vector<std::string>{};
  // A part spills to its first device (the machine's disk): price the spill by it.
  if (!mine.devices.empty()) mine.output = mine.devices.front() + "/part";
  ProbedProfiles probed;
  std::string device_note;
  if (s.ok()) s = ingest_options_of(mine, &o.part, &probed, &device_note);
  o.part.output = request.output;
  o.part.order = "none";
  o.inputs = request.more_inputs;
  o.inputs.insert(o.inputs.begin(), request.input);
  sg::DistributedIngestSummary summary;
  s = comm->agree(s);
  if (s.ok()) s = sg::ingest_distributed(o, comm.get(), &summary);
  if (!s.ok() && !comm->agreed_failure()) {
    std::fprintf(stderr, "shardgraph: error: rank %d: %s (ending the job)\n", comm->rank(), s.message().c_str());
    comm->abort(1);
  }
  SG_RETURN_IF_ERROR(s);
  store_probed(probed);
  report->vertices = summary.num_vertices;
  report->edges = summary.num_edges;
  report->stored_bytes = summary.stored_bytes;
  report->seconds = summary.seconds;
  report->phases = summary.phases;
  report->note = device_note;
  for (const sg::PartRange& r : summary.ranges) report->parts.push_back(PartInfo{r.begin, r.end, r.arcs});
  report->rank_lines = summary.rank_lines;
  return Status::OK();
}

}  // namespace

Status ingest(const IngestRequest& request, IngestReport* report, const Callbacks& callbacks) {
  if (request.threads < 0 || request.threads > 1024) return Status::InvalidArgument("threads must be 1 to 1024");
  std::unique_ptr<tbb::global_control> limit;
  if (request.threads > 0) {
    limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                  static_cast<size_t>(request.threads));
  }
  if (request.parts > 0) return ingest_partitioned(request, report);
  if (!request.more_inputs.empty())
    return Status::InvalidArgument("several inputs are read by a distributed ingest (--parts N under mpirun)");
  sg::IngestOptions o;
  ProbedProfiles probed;
  std::string device_note;
  SG_RETURN_IF_ERROR(ingest_options_of(request, &o, &probed, &device_note));
  o.progress = callbacks.progress;
  const sg::ScopedStopPoll stop(callbacks.stop);
  sg::IngestSummary summary;
  SG_RETURN_IF_ERROR(sg::ingest_ordered(o, &summary));
  store_probed(probed);
  if (!device_note.empty()) summary.note = summary.note.empty() ? device_note : device_note + "\n" + summary.note;
  *report = IngestReport{};
  report->vertices = summary.num_vertices;
  report->edges = summary.num_edges;
  report->intervals = summary.intervals;
  report->stored_bytes = summary.stored_bytes;
  report->sort_batches = summary.sorted_runs;
  report->seconds = summary.seconds;
  report->phases = summary.phases;
  report->note = summary.note;
  return Status::OK();
}

Status graph_info(const std::string& dir, bool json, std::string* text) {
  std::error_code ec;
  if (!json && std::filesystem::exists(dir + "/partition.json", ec)) return sg::partition_info_text(dir, text);
  sg::Graph graph;
  sg::GraphOpenOptions options;
  options.id_map = false;  // info names no vertex: the map is checked by verify, not loaded here
  options.deltas = true;
  SG_RETURN_IF_ERROR(sg::Graph::open(dir, &graph, options));
  *text = json ? sg::graph_info_json(graph) : sg::graph_info_text(graph);
  return Status::OK();
}

Status graph_summary(const std::string& dir, GraphSummary* summary) {
  sg::Graph graph;
  sg::GraphOpenOptions options;
  options.degrees = false;
  options.id_map = false;
  options.deltas = true;  // vertices counted after them
  SG_RETURN_IF_ERROR(sg::Graph::open(dir, &graph, options));
  summary->vertices = graph.manifest().vertices_after_deltas();
  summary->pending_updates = graph.manifest().pending_updates();
  summary->edges = graph.manifest().num_edges;
  summary->directed = graph.directed();
  summary->weighted = graph.weighted();
  return Status::OK();
}

Status verify(const std::string& dir, VerifyReport* report) {
  *report = VerifyReport();
  std::error_code ec;
  if (std::filesystem::exists(dir + "/partition.json", ec)) {
    report->opened = report->partitioned = true;
    return sg::verify_partition(dir, &report->arcs);
  }
  sg::Graph graph;
  sg::GraphOpenOptions options;
  options.deltas = true;  // checked too
  SG_RETURN_IF_ERROR(sg::Graph::open(dir, &graph, options));
  report->opened = true;
  sg::VerifyReport checked;
  SG_RETURN_IF_ERROR(sg::verify_graph(graph, &checked));
  report->chunks = checked.chunks;
  report->arcs = checked.arcs;
  report->bytes = checked.bytes;
  return Status::OK();
}

Status partition(const PartitionRequest& request, std::vector<PartInfo>* parts, double* seconds) {
  const sg::PartitionOptions o{request.graph, request.output, request.parts, request.memory_bytes,
                               request.part_devices};
  sg::PartitionSummary summary;
  SG_RETURN_IF_ERROR(sg::partition_graph(o, &summary));
  parts->clear();
  for (const sg::PartRange& r : summary.parts) parts->push_back(PartInfo{r.begin, r.end, r.arcs});
  *seconds = summary.seconds;
  return Status::OK();
}

Status split_part_devices(const std::vector<std::string>& specs, uint32_t parts,
                          std::vector<std::vector<std::string>>* part_devices) {
  return sg::split_part_devices(specs, parts, part_devices);
}

Status restripe(const std::string& graph, const std::vector<std::string>& devices, uint64_t stripe_bytes,
                bool auto_stripe) {
  sg::RestripeOptions o;
  o.devices = devices;
  o.stripe_bytes = stripe_bytes;
  o.auto_stripe = auto_stripe;
  return sg::restripe_graph(graph, o);
}

Status update(const UpdateRequest& request, UpdateReport* report) {
  sg::UpdateOptions o;
  o.graph = request.graph;
  o.add_files = request.add_files;
  o.remove_files = request.remove_files;
  o.format = request.format;
  o.binary_weights = request.weights;
  o.memory_bytes = request.memory_bytes;
  sg::UpdateSummary summary;
  SG_RETURN_IF_ERROR(sg::update_graph(o, &summary));
  *report = UpdateReport{};
  report->generation = summary.generation;
  report->adds = summary.adds;
  report->removes = summary.removes;
  report->new_vertices = summary.new_vertices;
  report->pending_updates = summary.pending_updates;
  report->pending_tiers = summary.pending_tiers;
  report->seconds = summary.seconds;
  const double share =
      static_cast<double>(summary.pending_records) / static_cast<double>(std::max<uint64_t>(summary.base_arcs, 1));
  if (request.compact_share <= 0 || summary.pending_updates == 0 || share < request.compact_share) return Status::OK();
  CompactReport compacted;
  const Status s = compact(request.graph, request.memory_bytes, &compacted);
  if (!s.ok()) return Status::FromCode(s.code(), "the update committed, but its compaction failed: " + s.message());
  report->compacted = true;
  report->compact_seconds = compacted.seconds;
  return Status::OK();
}

Status compact(const std::string& graph, uint64_t memory_bytes, CompactReport* report, const Callbacks& callbacks,
               uint64_t window_bytes) {
  sg::CompactOptions o;
  o.graph = graph;
  o.memory_bytes = memory_bytes;
  o.window_bytes = window_bytes;
  o.progress = callbacks.progress;
  sg::CompactSummary summary;
  SG_RETURN_IF_ERROR(sg::compact_graph(o, &summary));
  *report = CompactReport{summary.updates, summary.num_vertices,        summary.num_edges, summary.stored_bytes,
                          summary.seconds, summary.old_generation_kept, summary.method};
  return Status::OK();
}

Status collect_garbage(const std::vector<std::string>& dirs, std::vector<std::string>* removed, uint64_t* bytes_freed) {
  sg::LeftoverReport report;
  for (const std::string& dir : dirs) SG_RETURN_IF_ERROR(sg::remove_leftovers(dir, &report));
  *removed = report.removed;
  *bytes_freed = report.bytes;
  return Status::OK();
}

Status calibrate(const std::string& dir, uint64_t file_bytes, DeviceMeasurement* measurement) {
  sg::CalibrateOptions o;
  o.file_bytes = file_bytes;
  sg::DeviceProfile profile;
  SG_RETURN_IF_ERROR(sg::calibrate_device(dir, o, &profile));
  *measurement = DeviceMeasurement();
  measurement->sequential_bytes_per_second = profile.sequential_bytes_per_second;
  measurement->queue_depth = o.queue_depth;
  for (const sg::RequestCost& r : profile.random_reads) measurement->random_reads.push_back({r.bytes, r.seconds});
  measurement->profile_path = dir + "/" + sg::kProfileFileName;
  return Status::OK();
}

Status scan_input(const std::string& input, const std::string& format_name, int threads, std::string* json) {
  std::unique_ptr<tbb::global_control> limit;
  if (threads > 0)
    limit = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism,
                                                  static_cast<size_t>(threads));
  sg::InputFormat format;
  SG_RETURN_IF_ERROR(sg::resolve_format(input, format_name, &format));
  std::unique_ptr<sg::EdgeReader> reader;
  SG_RETURN_IF_ERROR(sg::open_edge_reader(input, format, false, &reader));
  const auto start = std::chrono::steady_clock::now();
  std::vector<sg::RawEdge> batch;
  uint64_t arcs = 0, checksum = 0;
  for (;;) {
    SG_RETURN_IF_ERROR(reader->next_batch(&batch, 1 << 16));
    if (batch.empty()) break;
    arcs += batch.size();
    for (const sg::RawEdge& e : batch) checksum += e.src * 31 + e.dst;  // keeps the reads
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  char line[1024];
  std::snprintf(line, sizeof(line),
                "{\"input\":\"%s\",\"format\":\"%s\",\"threads\":%d,\"arcs\":%llu,\"seconds\":%.4f,\"arcs_per_second\":"
                "%.0f,\"id_sum\":%llu}",
                input.c_str(), sg::format_name(format), threads, static_cast<unsigned long long>(arcs), seconds,
                static_cast<double>(arcs) / std::max(seconds, 1e-9), static_cast<unsigned long long>(checksum));
  *json = line;
  return Status::OK();
}

namespace {

std::vector<std::string> split_names(const std::string& text) {
  std::vector<std::string> names;
  size_t at = 0;
  while (at < text.size()) {
    const size_t comma = text.find(',', at);
    names.push_back(text.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    at = comma == std::string::npos ? text.size() : comma + 1;
  }
  return names;
}

std::vector<std::string> option_names(uint32_t options) {
  static const std::pair<uint32_t, const char*> kNames[] = {
      {sg::kSourceOption, "source"},       {sg::kIterationsOption, "iterations"},
      {sg::kToleranceOption, "tolerance"}, {sg::kUnitWeightsOption, "unit_weights"},
      {sg::kParentsOption, "parents"},     {sg::kTopOption, "top"}};
  std::vector<std::string> names;
  for (const auto& [bit, name] : kNames) {
    if ((options & bit) != 0) names.push_back(name);
  }
  return names;
}

ValueType value_type(sg::ResultType type) {
  switch (type) {
    case sg::ResultType::kInt32: return ValueType::kInt32;
    case sg::ResultType::kUint32: return ValueType::kUint32;
    case sg::ResultType::kInt64: return ValueType::kInt64;
    case sg::ResultType::kUint64: return ValueType::kUint64;
    case sg::ResultType::kFloat32: return ValueType::kFloat32;
    case sg::ResultType::kFloat64: return ValueType::kFloat64;
  }
  return ValueType::kFloat64;
}

Status run_options(const RunRequest& request, sg::RunOptions* o) {
  if (!sg::parse_io_mode(request.io, &o->io_mode))
    return Status::InvalidArgument("--io must be auto, full or selective");
  if (!sg::parse_backend(request.io_backend, &o->backend))
    return Status::InvalidArgument("--io-backend must be auto, uring or psync");
  o->app = request.app;
  o->graph = request.graph;
  o->source = request.source;
  o->iterations = request.iterations;
  o->tolerance = request.tolerance;
  o->threads = request.threads;
  o->memory_bytes = request.memory_bytes;
  o->device_class = request.device_class;
  o->cache = request.cache;
  o->decoded_cache = request.decoded_cache;
  o->output = request.output;
  if (request.output_format != "plain" && request.output_format != "graphalytics")
    return Status::InvalidArgument("--format must be plain or graphalytics");
  o->graphalytics_output = request.output_format == "graphalytics";
  o->options = option_values(request);
  o->stats = request.stats;
  o->keep_stats = request.keep_stats;
  o->collect = request.collect;
  o->columns_dir = request.columns_dir;
  o->quiet = request.quiet;
  o->unit_weights = request.unit_weights;
  o->parents = request.parents;
  o->top = request.top;
  o->window_bytes = request.window_bytes;
  o->scratch_dir = request.scratch_dir;
  return Status::OK();
}

}  // namespace

const std::vector<AppInfo>& apps() {
  static const std::vector<AppInfo> infos = [] {
    std::vector<AppInfo> list;
    for (const sg::AppRow& row : sg::app_rows()) {
      list.push_back(AppInfo{row.name, row.description, option_names(row.options), row.iterations,
                             split_names(row.columns), row.needs_undirected(), row.reversed_steps(),
                             row.needs_weights()});
    }
    return list;
  }();
  return infos;
}

const AppInfo* find_app(const std::string& name) {
  for (const AppInfo& info : apps()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

const char* value_type_name(ValueType type) {
  switch (type) {
    case ValueType::kInt32: return "int32";
    case ValueType::kUint32: return "uint32";
    case ValueType::kInt64: return "int64";
    case ValueType::kUint64: return "uint64";
    case ValueType::kFloat32: return "float32";
    case ValueType::kFloat64: return "float64";
  }
  return "?";
}

Status run(const RunRequest& request, RunResult* result, const Callbacks& callbacks) {
  *result = RunResult();
  sg::RunOptions o;
  SG_RETURN_IF_ERROR(run_options(request, &o));
  o.progress = callbacks.progress;
  const sg::ScopedStopPoll stop(callbacks.stop);
  sg::RunOutput out;
  const Status s = sg::run_app(o, &out);
  result->summary = std::move(out.summary);
  result->facts_json = std::move(out.facts_json);
  result->stats_json = std::move(out.stats_json);
  result->notices = std::move(out.notices);
  result->ids = std::move(out.ids);
  for (sg::CollectedColumn& c : out.columns)
    result->columns.push_back(ResultColumn{c.name, value_type(c.type), std::move(c.bytes)});
  result->report_error = out.report_error;
  return s;
}

}  // namespace shardgraph
