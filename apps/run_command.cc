#include "apps/run_command.h"

#include <malloc.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>

#include "apps/cli_util.h"
#include "apps/kernels.h"
#include "apps/partition.h"
#include "shards/util/interrupt.h"

namespace sg {
namespace {

// Results that are not whole in memory are read after the kernel through
// mappings of their files (Engine::finish_array, file-backed arrays): the
// pages a pass reads stay mapped and VmHWM counts them (R-MAT 25's ranks,
// 268 MB, took a run budgeted 176 MiB to 270 MiB). Passes over them drop
// the pages every kDropVertices vertices, and there a stop request ends
// the run (ResultsStopped, caught by run_app: the passes have no Status of
// their own to return).
struct ResultsStopped {};

class ResultPages {
 public:
  template <typename... A>
  explicit ResultPages(const A&... arrays) {
    (arrays_.push_back(&arrays.raw()), ...);
  }
  void add(const RawVertexArray& array) { arrays_.push_back(&array); }
  // Called with the vertices visited so far; true when it dropped pages.
  bool visited(uint64_t count) const {
    if (count % kDropVertices != 0) return false;
    if (interrupt_requested()) throw ResultsStopped{};
    drop();
    return true;
  }
  void drop() const {
    for (const RawVertexArray* array : arrays_) array->drop_pages();
  }

 private:
  static constexpr uint64_t kDropVertices = uint64_t{1} << 20;
  std::vector<const RawVertexArray*> arrays_;
};

// Writes "id value" lines sorted by original id, or, when that order did
// not fit the budget (finish_app), in stored vertex order, which the
// summary then says.
template <typename Format>
Status write_output(const std::string& path, const Graph& graph, const ResultPages& pages, std::string* summary, Format&& format) {
  std::unique_ptr<FILE, int (*)(FILE*)> out(std::fopen(path.c_str(), "w"), &std::fclose);
  if (!out) return Status::IOError(path + ": cannot create output");
  std::vector<char> buffer(1 << 20);
  std::setvbuf(out.get(), buffer.data(), _IOFBF, buffer.size());
  char value[64];
  uint64_t lines = 0;
  auto line = [&](uint32_t v) {
    format(v, value, sizeof(value));
    std::fprintf(out.get(), "%llu %s\n", static_cast<unsigned long long>(graph.original_id(v)), value);
    if (pages.visited(++lines)) graph.drop_id_map_pages();
  };
  if (graph.by_original_available()) {
    graph.for_each_by_original_id(line);
  } else {
    for (uint32_t v = 0; v < graph.num_vertices(); ++v) line(v);
    *summary += "output in stored vertex order: ordering " + std::to_string(graph.num_vertices()) +
                " ids by original id needs more than the free memory (sort -n " + path + " orders it)\n";
  }
  if (std::ferror(out.get()) || std::fflush(out.get()) != 0) return Status::IOError(path + ": write failed");
  return Status::OK();
}

// One pass in vertex order (results may be paged in from scratch files)
// keeping the k largest in a heap.
Status top_values(const Graph& graph, const VertexArray<double>& values, const ResultPages& pages, int top, std::string* text) {
  const size_t k = std::min<size_t>(static_cast<size_t>(std::max(top, 0)), graph.num_vertices());
  auto before = [&](uint32_t a, uint32_t b) { return values[a] > values[b] || (values[a] == values[b] && a < b); };
  std::vector<uint32_t> order;  // a heap whose front is the worst kept
  order.reserve(k + 1);
  for (uint32_t v = 0; v < graph.num_vertices() && k > 0; ++v) {
    pages.visited(v);
    if (order.size() == k && !before(v, order.front())) continue;
    order.push_back(v);
    std::push_heap(order.begin(), order.end(), before);
    if (order.size() > k) {
      std::pop_heap(order.begin(), order.end(), before);
      order.pop_back();
    }
  }
  std::sort(order.begin(), order.end(), before);
  *text = "top " + std::to_string(k) + " vertices:\n";
  char line[96];
  for (size_t i = 0; i < k; ++i) {
    uint64_t id = 0;
    SG_RETURN_IF_ERROR(graph.lookup_original_id(order[i], &id));
    std::snprintf(line, sizeof(line), "  %2zu. %-12llu %.9g\n", i + 1, static_cast<unsigned long long>(id), values[order[i]]);
    *text += line;
  }
  return Status::OK();
}

// Only one rank of a distributed run writes --output and --stats.
bool writes_output(const RunOptions& o) { return !o.output.empty() && o.writes_files; }

Status resolve_source(Engine* engine, const RunOptions& o, uint32_t* source) {
  const Graph& graph = engine->graph();
  if (o.source.has_value()) {
    if (!graph.dense_id(*o.source, source)) {
      return Status::InvalidArgument("--source " + std::to_string(*o.source) + " is not a vertex of " + graph.dir());
    }
    return Status::OK();
  }
  // Default: the vertex with the most out-edges (reaches something).
  return engine->max_out_degree_vertex(source);
}

// The size of the largest component from labels (a label is a vertex id),
// counting labels one id range at a time so the counts take at most
// `max_bytes`.
uint32_t largest_component(const VertexArray<uint32_t>& labels, const ResultPages& pages, uint64_t max_bytes) {
  const uint32_t n = static_cast<uint32_t>(labels.size());
  const uint32_t range = static_cast<uint32_t>(std::clamp<uint64_t>(max_bytes / sizeof(uint32_t), 1 << 16, std::max(n, 1u)));
  uint32_t largest = 0;
  std::vector<uint32_t> count;
  for (uint64_t first = 0; first < n; first += range) {
    count.assign(std::min<uint64_t>(range, n - first), 0);
    for (uint32_t v = 0; v < n; ++v) {
      if (labels[v] >= first && labels[v] - first < count.size()) ++count[labels[v] - first];
      pages.visited(v + 1);
    }
    largest = std::max(largest, *std::max_element(count.begin(), count.end()));
  }
  return largest;
}

// Per device over the whole run: bytes, requests, busy time, achieved MB/s.
nlohmann::json device_json(const Engine& engine) {
  nlohmann::json devices = nlohmann::json::array();
  for (size_t d = 0; d < engine.device_count(); ++d) {
    const DeviceCounters& c = engine.device_counters(d);
    const double busy = static_cast<double>(c.busy_ns.load()) * 1e-9;
    devices.push_back({{"device", engine.graph().manifest().devices[d]},
                       {"bytes", c.bytes.load()},
                       {"requests", c.requests.load()},
                       {"busy_seconds", busy},
                       {"mb_per_s", busy > 0 ? static_cast<double>(c.bytes.load()) / busy / 1e6 : 0.0}});
  }
  return devices;
}

Status write_stats(const RunOptions& o, const Engine& engine, double seconds, const std::string& extra_json,
                   const nlohmann::json& ranks) {
  const RunTotals totals = sum_steps(engine.steps());
  nlohmann::json j{{"app", o.app},
                   {"graph", o.graph},
                   {"vertices", engine.num_vertices()},
                   {"edges", engine.graph().manifest().num_edges},
                   {"io_backend", backend_name(engine.backend())},
                   {"io_mode", io_mode_name(o.io_mode)},
                   {"cache_bytes", engine.cache_bytes()},
                   {"decoded_cache_bytes", engine.decoded_cache_bytes()},
                   {"cache_evictions", engine.cache_evictions()},
                   {"threads", o.threads},
                   {"memory_bytes", o.memory_bytes},
                   {"memory_planned_bytes", engine.peak_memory_used()},
                   {"vertex_bytes_loaded", engine.vertex_bytes_loaded()},
                   {"vertex_bytes_written", engine.vertex_bytes_written()},
                   {"scratch_bytes_read", engine.scratch_bytes_read()},
                   {"scratch_bytes_written", engine.scratch_bytes_written()},
                   {"peak_rss_bytes", peak_rss_bytes()},
                   {"seconds", seconds},
                   {"bytes_read", totals.bytes_read},
                   {"requests", totals.requests},
                   {"io_wait_seconds", totals.io_wait_seconds},
                   {"notices", engine.notices()},
                   {"devices", device_json(engine)},
                   {"result", nlohmann::json::parse(extra_json)},
                   {"iteration_seconds", engine.iteration_seconds()},
                   {"steps", nlohmann::json::parse(steps_to_json(engine.steps()))}};
  if (!ranks.is_null()) j["ranks"] = ranks;
  const std::string text = j.dump(1) + "\n";
  std::unique_ptr<FILE, int (*)(FILE*)> out(std::fopen(o.stats.c_str(), "w"), &std::fclose);
  if (!out || std::fwrite(text.data(), 1, text.size(), out.get()) != text.size()) {
    return Status::IOError(o.stats + ": cannot write stats");
  }
  return Status::OK();
}

// After the kernel: its cached chunks go, then the id map (deferred at
// open, so the run had its memory) is checked; the summary looks up its few
// ids in the map's file. An output file needs every id: the map is loaded
// (with the order by original id) when it fits the memory the kernel left,
// else mapped, and the output lists vertices in stored order.
Status finish_app(Engine* engine, const RunOptions& o) {
  engine->end_iterations();
  engine->release_cache();
  malloc_trim(0);  // cached chunks came from the heap: give their pages back
  const Graph& graph = engine->graph();
  SG_RETURN_IF_ERROR(graph.check_id_map());
  if (!writes_output(o)) return Status::OK();
  return graph.id_map_load_bytes() <= engine->unheld_memory() ? graph.load_id_map() : graph.map_id_map();
}

Status run_kernel(const RunOptions& o, Engine* engine, std::string* summary, std::string* result_json) {
  const Graph& graph = engine->graph();
  char line[256];
  if (o.app == "pagerank" || o.app == "spmv" || o.app == "pagerank-delta") {
    VertexArray<double> values;
    if (o.app == "pagerank-delta") {
      PageRankDeltaOptions p;
      if (o.iterations > 0) p.max_rounds = o.iterations;
      if (o.tolerance > 0) p.epsilon = o.tolerance;
      int rounds = 0;
      SG_RETURN_IF_ERROR(pagerank_delta(engine, p, &values, &rounds));
      SG_RETURN_IF_ERROR(finish_app(engine, o));
      std::snprintf(line, sizeof(line), "pagerank-delta: %d rounds\n", rounds);
      *result_json = "{\"rounds\": " + std::to_string(rounds) + "}";
    } else if (o.app == "pagerank") {
      PageRankOptions p;
      if (o.iterations > 0) p.iterations = o.iterations;
      p.tolerance = o.tolerance;
      int run = 0;
      SG_RETURN_IF_ERROR(pagerank(engine, p, &values, &run));
      SG_RETURN_IF_ERROR(finish_app(engine, o));
      std::snprintf(line, sizeof(line), "pagerank: %d iterations\n", run);
      *result_json = "{\"iterations\": " + std::to_string(run) + "}";
    } else {
      SpmvOptions s;
      if (o.iterations > 0) s.iterations = o.iterations;
      SG_RETURN_IF_ERROR(spmv(engine, s, &values));
      SG_RETURN_IF_ERROR(finish_app(engine, o));
      std::snprintf(line, sizeof(line), "spmv: %d products\n", s.iterations);
      *result_json = "{\"iterations\": " + std::to_string(s.iterations) + "}";
    }
    SG_RETURN_IF_ERROR(engine->finish_array(&values));
    const ResultPages pages(values);
    std::string top;
    SG_RETURN_IF_ERROR(top_values(graph, values, pages, o.top, &top));
    *summary = line + top;
    if (!writes_output(o)) return Status::OK();
    return write_output(o.output, graph, pages, summary, [&](uint32_t v, char* buf, size_t size) { std::snprintf(buf, size, "%.9g", values[v]); });
  }
  if (o.app == "bfs") {
    uint32_t source = 0;
    SG_RETURN_IF_ERROR(resolve_source(engine, o, &source));
    VertexArray<int32_t> depth;
    VertexArray<uint32_t> parent;
    const bool parents = o.parents && !o.output.empty();  // only --parents output shows them
    SG_RETURN_IF_ERROR(bfs(engine, source, &depth, parents ? &parent : nullptr));
    SG_RETURN_IF_ERROR(finish_app(engine, o));
    SG_RETURN_IF_ERROR(engine->finish_array(&depth));
    if (parents) SG_RETURN_IF_ERROR(engine->finish_array(&parent));
    ResultPages pages(depth);
    if (parents) pages.add(parent.raw());
    uint64_t reached = 0;
    int32_t max_depth = 0;
    for (uint32_t v = 0; v < graph.num_vertices(); ++v) {
      reached += depth[v] != kUnreached;
      max_depth = std::max(max_depth, depth[v]);
      pages.visited(v + 1);
    }
    uint64_t source_id = 0;
    SG_RETURN_IF_ERROR(graph.lookup_original_id(source, &source_id));
    std::snprintf(line, sizeof(line), "bfs from %llu: %llu vertices reached, max depth %d\n",
                  static_cast<unsigned long long>(source_id), static_cast<unsigned long long>(reached), max_depth);
    *summary = line;
    *result_json = "{\"source\": " + std::to_string(source_id) + ", \"reached\": " + std::to_string(reached) +
                   ", \"max_depth\": " + std::to_string(max_depth) + "}";
    if (!writes_output(o)) return Status::OK();
    return write_output(o.output, graph, pages, summary, [&](uint32_t v, char* buf, size_t size) {
      if (o.parents && parent[v] != kNoParent) {
        std::snprintf(buf, size, "%d %llu", depth[v], static_cast<unsigned long long>(graph.original_id(parent[v])));
      } else if (o.graphalytics_output && depth[v] < 0) {
        std::snprintf(buf, size, o.parents ? "9223372036854775807 -1" : "9223372036854775807");
      } else {
        std::snprintf(buf, size, o.parents ? "%d -1" : "%d", depth[v]);
      }
    });
  }
  if (o.app == "wcc") {
    VertexArray<uint32_t> labels;
    SG_RETURN_IF_ERROR(wcc(engine, &labels));
    SG_RETURN_IF_ERROR(finish_app(engine, o));
    SG_RETURN_IF_ERROR(engine->finish_array(&labels));
    ResultPages pages(labels);
    uint64_t components = 0;
    for (uint32_t v = 0; v < graph.num_vertices(); ++v) {
      components += labels[v] == v;
      pages.visited(v + 1);
    }
    // The counts get what the labels leave of the budget when the labels are
    // in memory (R-MAT 25 in 176 MiB peaked at 1.28x with half of it), and
    // at least a quarter of it: labels over a file are paged, and each pass
    // of the count reads them all (R-MAT 26's 268 MB in 64 Ki-label passes
    // would have read 274 GB).
    const uint64_t label_bytes = labels.raw().resident() ? uint64_t{graph.num_vertices()} * sizeof(uint32_t) : 0;
    const uint64_t count_bytes = std::max(o.memory_bytes / 4, o.memory_bytes > label_bytes ? o.memory_bytes - label_bytes : 0);
    const uint32_t largest = largest_component(labels, pages, count_bytes);
    std::snprintf(line, sizeof(line), "wcc: %llu components, largest %u vertices\n", static_cast<unsigned long long>(components), largest);
    *summary = line;
    *result_json = "{\"components\": " + std::to_string(components) + ", \"largest\": " + std::to_string(largest) + "}";
    if (!writes_output(o)) return Status::OK();
    // A component's label is its smallest original id. A label is the
    // smallest dense id, so its original id when the ids keep their order.
    // Otherwise a label's smallest original id, per label (file-backed
    // when the budget has no room for it).
    VertexArray<uint64_t> smallest;
    if (!graph.ids_in_order()) {
      SG_RETURN_IF_ERROR(engine->allocate(&smallest, "wcc.smallest"));
      pages.add(smallest.raw());
      for (uint32_t v = 0; v < graph.num_vertices(); ++v) {
        smallest[v] = UINT64_MAX;
        pages.visited(v + 1);
      }
      for (uint32_t v = 0; v < graph.num_vertices(); ++v) {
        smallest[labels[v]] = std::min(smallest[labels[v]], graph.original_id(v));
        pages.visited(v + 1);
      }
    }
    return write_output(o.output, graph, pages, summary, [&](uint32_t v, char* buf, size_t n) {
      const uint64_t id = graph.ids_in_order() ? graph.original_id(labels[v]) : smallest[labels[v]];
      std::snprintf(buf, n, "%llu", static_cast<unsigned long long>(id));
    });
  }
  if (o.app == "betweenness") {
    uint32_t source = 0;
    SG_RETURN_IF_ERROR(resolve_source(engine, o, &source));
    VertexArray<double> dependency;
    SG_RETURN_IF_ERROR(betweenness(engine, source, &dependency));
    SG_RETURN_IF_ERROR(finish_app(engine, o));
    SG_RETURN_IF_ERROR(engine->finish_array(&dependency));
    const ResultPages pages(dependency);
    SG_RETURN_IF_ERROR(top_values(graph, dependency, pages, o.top, summary));
    uint64_t source_id = 0;
    SG_RETURN_IF_ERROR(graph.lookup_original_id(source, &source_id));
    *summary = "betweenness from " + std::to_string(source_id) + ", largest dependencies:\n" + *summary;
    *result_json = "{\"source\": " + std::to_string(source_id) + "}";
    if (!writes_output(o)) return Status::OK();
    return write_output(o.output, graph, pages, summary, [&](uint32_t v, char* buf, size_t n) { std::snprintf(buf, n, "%.17g", dependency[v]); });
  }
  if (o.app == "cdlp") {
    VertexArray<uint64_t> labels;
    const int iterations = o.iterations > 0 ? o.iterations : 10;
    SG_RETURN_IF_ERROR(cdlp(engine, iterations, &labels));
    SG_RETURN_IF_ERROR(finish_app(engine, o));
    SG_RETURN_IF_ERROR(engine->finish_array(&labels));
    const ResultPages pages(labels);
    std::string communities = "not counted: more than half of --memory";
    if (uint64_t{graph.num_vertices()} * sizeof(uint64_t) <= o.memory_bytes / 2) {
      std::vector<uint64_t> sorted(labels.data(), labels.data() + graph.num_vertices());
      std::sort(sorted.begin(), sorted.end());
      communities = std::to_string(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
    }
    std::snprintf(line, sizeof(line), "cdlp: %d iterations, %s communities\n", iterations, communities.c_str());
    *summary = line;
    *result_json = "{\"iterations\": " + std::to_string(iterations) + "}";
    if (!writes_output(o)) return Status::OK();
    return write_output(o.output, graph, pages, summary, [&](uint32_t v, char* buf, size_t n) {
      std::snprintf(buf, n, "%llu", static_cast<unsigned long long>(labels[v]));
    });
  }
  if (o.app == "lcc" || o.app == "triangles") {
    if (o.app == "triangles" && graph.directed()) {
      return Status::InvalidArgument("triangles: the graph is directed; ingest it with --undirected (lcc handles directed graphs)");
    }
    VertexArray<double> coefficient;
    uint64_t arcs = 0;
    SG_RETURN_IF_ERROR(lcc(engine, &coefficient, &arcs));
    SG_RETURN_IF_ERROR(finish_app(engine, o));
    SG_RETURN_IF_ERROR(engine->finish_array(&coefficient));
    const ResultPages pages(coefficient);
    if (o.app == "triangles") {
      std::snprintf(line, sizeof(line), "triangles: %llu\n", static_cast<unsigned long long>(arcs / 6));
      *summary = line;
      *result_json = "{\"triangles\": " + std::to_string(arcs / 6) + "}";
    } else {
      double total = 0;
      for (uint32_t v = 0; v < graph.num_vertices(); ++v) {
        total += coefficient[v];
        pages.visited(v + 1);
      }
      std::snprintf(line, sizeof(line), "lcc: average %.6f, %llu arcs among neighbours\n",
                    graph.num_vertices() == 0 ? 0.0 : total / graph.num_vertices(), static_cast<unsigned long long>(arcs));
      std::string top;
      SG_RETURN_IF_ERROR(top_values(graph, coefficient, pages, o.top, &top));
      *summary = line + top;
      *result_json = "{\"arcs_among_neighbours\": " + std::to_string(arcs) + "}";
    }
    if (!writes_output(o)) return Status::OK();
    return write_output(o.output, graph, pages, summary, [&](uint32_t v, char* buf, size_t n) { std::snprintf(buf, n, "%.17g", coefficient[v]); });
  }
  if (o.app == "kcore") {
    VertexArray<uint32_t> core;
    SG_RETURN_IF_ERROR(kcore(engine, &core));
    SG_RETURN_IF_ERROR(finish_app(engine, o));
    SG_RETURN_IF_ERROR(engine->finish_array(&core));
    const ResultPages pages(core);
    uint32_t degeneracy = 0;
    uint64_t in_top = 0;
    for (uint32_t v = 0; v < graph.num_vertices(); ++v) {
      degeneracy = std::max(degeneracy, core[v]);
      pages.visited(v + 1);
    }
    for (uint32_t v = 0; v < graph.num_vertices(); ++v) {
      in_top += core[v] == degeneracy;
      pages.visited(v + 1);
    }
    std::snprintf(line, sizeof(line), "kcore: largest core %u (%llu vertices)\n", degeneracy, static_cast<unsigned long long>(in_top));
    *summary = line;
    *result_json = "{\"largest_core\": " + std::to_string(degeneracy) + ", \"vertices\": " + std::to_string(in_top) + "}";
    if (!writes_output(o)) return Status::OK();
    return write_output(o.output, graph, pages, summary, [&](uint32_t v, char* buf, size_t n) { std::snprintf(buf, n, "%u", core[v]); });
  }
  if (o.app == "sssp") {
    uint32_t source = 0;
    SG_RETURN_IF_ERROR(resolve_source(engine, o, &source));
    VertexArray<float> distance;
    SG_RETURN_IF_ERROR(sssp(engine, source, o.unit_weights, &distance));
    SG_RETURN_IF_ERROR(finish_app(engine, o));
    SG_RETURN_IF_ERROR(engine->finish_array(&distance));
    const ResultPages pages(distance);
    uint64_t reached = 0;
    float farthest = 0;
    for (uint32_t v = 0; v < graph.num_vertices(); ++v) {
      pages.visited(v + 1);
      if (std::isinf(distance[v])) continue;
      ++reached;
      farthest = std::max(farthest, distance[v]);
    }
    uint64_t source_id = 0;
    SG_RETURN_IF_ERROR(graph.lookup_original_id(source, &source_id));
    std::snprintf(line, sizeof(line), "sssp from %llu: %llu vertices reached, farthest %.9g\n",
                  static_cast<unsigned long long>(source_id), static_cast<unsigned long long>(reached), farthest);
    *summary = line;
    *result_json = "{\"source\": " + std::to_string(source_id) + ", \"reached\": " + std::to_string(reached) + "}";
    if (!writes_output(o)) return Status::OK();
    return write_output(o.output, graph, pages, summary, [&](uint32_t v, char* buf, size_t n) {
      if (std::isinf(distance[v])) std::snprintf(buf, n, o.graphalytics_output ? "infinity" : "inf");
      else std::snprintf(buf, n, "%.9g", distance[v]);
    });
  }
  return Status::InvalidArgument("unknown app '" + o.app + "' (pagerank, pagerank-delta, spmv, bfs, wcc, sssp, kcore, betweenness, cdlp, lcc, triangles)");
}

// What a rank did, for --stats and the summary (docs/scale-out.md).
nlohmann::json rank_json(const Engine& engine, double seconds) {
  const RunTotals totals = sum_steps(engine.steps());
  const ExchangeCounters& c = engine.communicator()->counters();
  nlohmann::json steps = nlohmann::json::array();
  for (const StepStats& step : engine.steps()) {
    steps.push_back({{"iteration", step.iteration},
                     {"bytes_read", step.bytes_read()},
                     {"bytes_sent", step.bytes_sent},
                     {"bytes_received", step.bytes_received},
                     {"exchange_seconds", step.exchange_seconds},
                     {"active_vertices", step.active_vertices},
                     {"active_owned", step.active_owned},
                     {"next_owned", step.next_owned},
                     {"sources_current", step.sources_current}});
  }
  return {{"rank", engine.communicator()->rank()},
          {"vertices_owned", engine.owned_end() - engine.owned_begin()},
          {"arcs", engine.graph().manifest().num_edges},
          {"seconds", seconds},
          {"bytes_read", totals.bytes_read},
          {"io_wait_seconds", totals.io_wait_seconds},
          {"bytes_sent", c.bytes_sent},
          {"bytes_received", c.bytes_received},
          {"collectives", c.collectives},
          {"exchange_seconds", c.wait_seconds},
          {"peak_rss_bytes", peak_rss_bytes()},
          {"steps", steps}};
}

// Every rank's rank_json, in rank order (a collective).
Status gather_ranks(const Engine& engine, double seconds, nlohmann::json* ranks) {
  const std::string mine = rank_json(engine, seconds).dump();
  std::vector<uint8_t> all;
  std::vector<uint64_t> counts;
  SG_RETURN_IF_ERROR(engine.communicator()->all_gather({reinterpret_cast<const uint8_t*>(mine.data()), mine.size()}, &all, &counts));
  *ranks = nlohmann::json::array();
  uint64_t at = 0;
  for (size_t r = 0; r < counts.size(); at += counts[r], ++r) {
    ranks->push_back(nlohmann::json::parse(std::string(reinterpret_cast<const char*>(all.data() + at), counts[r])));
  }
  return Status::OK();
}

// The kernel on an opened engine, then the summary and --stats.
Status run_opened(const RunOptions& o, Engine* engine, std::chrono::steady_clock::time_point start, std::string* summary) {
  std::string result_json = "{}";
  try {
    SG_RETURN_IF_ERROR(run_kernel(o, engine, summary, &result_json));
  } catch (const ResultsStopped&) {
    return Status::Interrupted("run stopped by a signal");
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (o.progress) std::fputc('\n', stderr);
  const RunTotals totals = sum_steps(engine->steps());
  char line[256];
  std::snprintf(line, sizeof(line), "%.3f s, %llu bytes read in %llu requests (%s), I/O wait %.3f s, peak RSS %llu KiB\n", seconds,
                static_cast<unsigned long long>(totals.bytes_read), static_cast<unsigned long long>(totals.requests),
                backend_name(engine->backend()), totals.io_wait_seconds, static_cast<unsigned long long>(peak_rss_bytes() / 1024));
  *summary += line;
  nlohmann::json ranks;
  if (engine->distributed()) {
    SG_RETURN_IF_ERROR(gather_ranks(*engine, seconds, &ranks));
    for (const nlohmann::json& r : ranks) {
      std::snprintf(line, sizeof(line), "rank %d: %.3f s, %llu bytes read, %llu sent, %llu received, exchange %.3f s\n", r["rank"].get<int>(),
                    r["seconds"].get<double>(), static_cast<unsigned long long>(r["bytes_read"].get<uint64_t>()),
                    static_cast<unsigned long long>(r["bytes_sent"].get<uint64_t>()),
                    static_cast<unsigned long long>(r["bytes_received"].get<uint64_t>()), r["exchange_seconds"].get<double>());
      *summary += line;
    }
  }
  if (!o.stats.empty() && o.writes_files) SG_RETURN_IF_ERROR(write_stats(o, *engine, seconds, result_json, ranks));
  return Status::OK();
}

EngineOptions engine_options(const RunOptions& o) {
  EngineOptions e;
  e.memory_bytes = o.memory_bytes;
  e.backend = o.backend;
  e.io_mode = o.io_mode;
  e.device_class = o.device_class;
  e.cache = o.cache;
  e.decoded_cache = o.decoded_cache;
  e.progress = o.progress;
  e.scratch_dir = o.scratch_dir;
  e.label = o.app;
  e.window_bytes = o.window_bytes;
  return e;
}

GraphOpenOptions run_open_options() {
  GraphOpenOptions open_options;
  open_options.id_map = false;   // loaded after the kernel (finish_app)
  open_options.degrees = false;  // the engine reads them, whole or by range (vertex_residency.h)
  return open_options;
}

// Apps with reversed steps (over the transposed graph): their ranks open the
// reverse parts too, whose engine takes a share of the budget.
bool takes_reversed_steps(const std::string& app) {
  return app == "wcc" || app == "kcore" || app == "betweenness" || app == "cdlp" || app == "lcc" || app == "triangles";
}

// Rank k of a distributed run: opens part k of the partitioned graph (and
// its reverse part) and makes the engine one rank.
Status open_rank(const RunOptions& o, Communicator* comm, Graph* graph, Engine* engine, Graph* reverse_graph, Engine* reverse_engine,
                 bool* has_reverse) {
  PartitionLayout layout;
  SG_RETURN_IF_ERROR(read_partition_layout(o.graph, &layout));
  const auto parts = static_cast<int>(layout.ranges.size());
  if (comm->size() != parts) {
    return Status::InvalidArgument(o.graph + " has " + std::to_string(parts) + " parts: run it with mpirun -np " + std::to_string(parts) +
                                   " (this run has " + std::to_string(comm->size()) + (mpi_available() ? " ranks)" : " rank: this build has no MPI)"));
  }
  const auto k = static_cast<uint32_t>(comm->rank());
  SG_RETURN_IF_ERROR(open_part(part_dir(o.graph, k), layout.part_ids[k], layout.num_vertices, run_open_options(), graph));
  if (layout.undirected) graph->view_as_undirected();
  // The engine and the reverse engine share the budget: the reverse one
  // holds only its indexes, I/O windows and cache (a quarter, or its least).
  EngineOptions e = engine_options(o);
  *has_reverse = !layout.reverse_ids.empty() && graph->directed() && takes_reversed_steps(o.app);
  if (*has_reverse) {
    SG_RETURN_IF_ERROR(open_part(reverse_part_dir(o.graph, k), layout.reverse_ids[k], layout.num_vertices, run_open_options(), reverse_graph));
    EngineOptions r = e;
    const uint64_t reverse_least = Engine::minimum_memory_bytes(*reverse_graph);
    const uint64_t least = Engine::minimum_memory_bytes(*graph) + reverse_least;
    if (e.memory_bytes < least) {
      const std::string mib = std::to_string((least + (1 << 20) - 1) >> 20);
      return Status::InvalidArgument("--memory is below the " + mib + " MiB a rank of " + o.app +
                                     " needs (its part's and its reverse part's chunk indexes, frontiers and I/O windows); use --memory " + mib + "M or more");
    }
    r.memory_bytes = std::max(e.memory_bytes / 4, reverse_least);
    r.progress = false;
    r.label = o.app + ".reverse";
    e.memory_bytes -= r.memory_bytes;
    SG_RETURN_IF_ERROR(reverse_engine->open(*reverse_graph, r));
  }
  SG_RETURN_IF_ERROR(engine->open(*graph, e));
  Distribution distribution;
  distribution.communicator = comm;
  for (const PartRange& range : layout.ranges) distribution.bounds.push_back(range.begin);
  distribution.bounds.push_back(static_cast<uint32_t>(layout.num_vertices));
  distribution.out_degree_path = partition_out_degree_path(o.graph);
  distribution.out_degree_checksum = layout.out_degree_checksum;
  return engine->distribute(distribution, *has_reverse ? reverse_engine : nullptr);
}

// A distributed run's rank (docs/scale-out.md). Errors every rank agreed on
// are reported by rank 0; one rank's own error ends the whole job (the
// others may be waiting for it in a collective).
Status run_rank(const RunOptions& given, std::chrono::steady_clock::time_point start, std::string* summary, bool* report_error) {
  struct Finalize {
    ~Finalize() { mpi_finalize(); }
  } finalize;  // after the communicator is gone
  std::string error;
  std::unique_ptr<Communicator> comm = mpi_available() ? mpi_communicator(&error) : local_communicator();
  if (comm == nullptr) return Status::InvalidArgument(error);
  RunOptions o = given;
  o.writes_files = comm->rank() == 0;
  Graph graph, reverse_graph;
  Engine engine, reverse_engine;
  bool has_reverse = false;
  Status s = comm->agree(open_rank(o, comm.get(), &graph, &engine, &reverse_graph, &reverse_engine, &has_reverse));
  if (s.ok()) s = run_opened(o, &engine, start, summary);
  if (!s.ok() && !comm->agreed_failure()) {
    std::fprintf(stderr, "shardgraph: error: rank %d: %s (ending the job)\n", comm->rank(), s.message().c_str());
    comm->abort(1);
  }
  if (comm->rank() != 0) summary->clear();
  *report_error = comm->rank() == 0;
  return s;
}

}  // namespace

Status run_app(const RunOptions& o, std::string* summary, bool* report_error) {
  std::unique_ptr<tbb::global_control> threads;
  if (o.threads > 0) {
    threads = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(o.threads));
  }
  const auto start = std::chrono::steady_clock::now();
  bool report = true;
  if (report_error == nullptr) report_error = &report;
  *report_error = true;
  if (is_partitioned(o.graph)) return run_rank(o, start, summary, report_error);
  Graph graph;
  SG_RETURN_IF_ERROR(Graph::open(o.graph, &graph, run_open_options()));
  Engine engine;
  SG_RETURN_IF_ERROR(engine.open(graph, engine_options(o)));
  return run_opened(o, &engine, start, summary);
}

}  // namespace sg
