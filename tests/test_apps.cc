// Every app against the in-memory reference on many random graphs
// (directed/undirected, weighted, isolated vertices, self-loops, duplicates,
// a hub whose list spans several chunks), with 1-3 devices, tiny chunks,
// stripes and windows, 1-D and 2-D blocked layouts, both I/O backends, and
// 1 or 2 threads.
#include <doctest/doctest.h>
#include <tbb/global_control.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>

#include "apps/jobs/ingest_ordered.h"
#include "apps/kernels/kernels.h"
#include "apps/run/app_table.h"
#include "core/run_log.h"
#include "reference.h"
#include "shardgraph/shardgraph.h"
#include "shards/ingest/permutation.h"
#include "test_util.h"

using namespace sg;
using sgtest::Arc;

namespace {

// Times a bfds traversal offered its residual (check_case): the suite
// checks the offer happens on some of its graphs.
int residual_offers = 0;
int residual_steps = 0;  // offers that took a step over too

struct Case {
  IoMode io_mode;
  bool cache;
  bool undirected, weighted;
  uint32_t devices;
  IoBackend backend;
  int threads;
  uint64_t window_bytes;
  // Thousands of vertices and a budget that leaves room for half of one
  // array of 4-byte values: every array is loaded by range, in several groups
  // and passes (core/vertex_residency.h).
  bool ranged_vertices = false;
  uint32_t blocks = 1;  // 2-D blocks a space (1: the 1-D layout)
  EngineOptions::RangeLoop range_loop = EngineOptions::RangeLoop::kAuto;
};

// A permutation file: uint32 new ids in old-id order.
std::vector<uint32_t> read_new_ids(const std::string& path) {
  const std::string bytes = sgtest::read_text(path);
  std::vector<uint32_t> ids(bytes.size() / sizeof(uint32_t));
  std::memcpy(ids.data(), bytes.data(), ids.size() * sizeof(uint32_t));
  return ids;
}

std::vector<Arc> random_graph(uint64_t* state, uint32_t n, bool weighted) {
  std::vector<Arc> arcs;
  const size_t m = sgtest::next_random(state) % (6 * n);
  const uint32_t hub = static_cast<uint32_t>(sgtest::next_random(state) % n);
  const uint32_t isolated_from = n - n / 8;  // the last eighth gets no edges
  for (size_t i = 0; i < m; ++i) {
    uint32_t u = static_cast<uint32_t>(sgtest::next_random(state) % isolated_from);
    uint32_t v = static_cast<uint32_t>(sgtest::next_random(state) % isolated_from);
    const uint64_t kind = sgtest::next_random(state) % 12;
    if (kind == 0) v = u;
    if (kind >= 9) u = hub;
    const float w = weighted ? static_cast<float>(1 + sgtest::next_random(state) % 20) : 1.0f;
    arcs.push_back(Arc{u, v, w});
    if (kind == 1) arcs.push_back(Arc{u, v, w});  // duplicate
  }
  return arcs;
}

void check_case(const Case& c, uint64_t seed) {
  CAPTURE(seed);
  CAPTURE(c.undirected);
  CAPTURE(c.weighted);
  CAPTURE(c.devices);
  CAPTURE(backend_name(c.backend));
  CAPTURE(c.threads);
  CAPTURE(c.window_bytes);
  CAPTURE(io_mode_name(c.io_mode));
  CAPTURE(c.cache);
  CAPTURE(c.ranged_vertices);
  CAPTURE(c.blocks);
  CAPTURE(static_cast<int>(c.range_loop));
  uint64_t state = seed;
  const uint32_t n = c.ranged_vertices ? 5000 + static_cast<uint32_t>(sgtest::next_random(&state) % 5000)
                                       : 8 + static_cast<uint32_t>(sgtest::next_random(&state) % 300);
  // Half the ranged cases leave the upper half of the ids without edges:
  // whole blocks and groups then have none (their passes are skipped).
  const bool upper_half_isolated = c.ranged_vertices && seed % 2 == 0;
  CAPTURE(upper_half_isolated);
  const std::vector<Arc> arcs = random_graph(&state, upper_half_isolated ? n / 2 : n, c.weighted);
  sgtest::TempDir dir;
  std::string text = "# Nodes: " + std::to_string(n) + "\n";
  for (const Arc& a : arcs) {
    text += std::to_string(a.src) + " " + std::to_string(a.dst);
    if (c.weighted) text += " " + std::to_string(static_cast<int>(a.weight));
    text += "\n";
  }
  if (arcs.empty()) text += c.weighted ? "0 0 1\n" : "0 0\n";
  sgtest::write_text(dir / "e.txt", text);
  std::vector<Arc> all = arcs;
  if (arcs.empty()) all.push_back(Arc{0, 0, 1});

  IngestOptions o;
  o.input = dir / "e.txt";
  o.output = dir / "g";
  o.undirected = c.undirected;
  o.chunk_bytes = c.ranged_vertices ? 512 : 64;
  o.stripe_bytes = 4096;
  o.intervals = 1 + static_cast<uint32_t>(seed % 5);
  o.blocks = c.blocks;
  o.format_version = seed % 7 == 3 ? 1 : seed % 7 == 5 ? 2 : kFormatVersion;  // older graphs are still read
  CAPTURE(o.format_version);
  // Every codec-3 choice: small packs chunks (compression/chunk_packing.h),
  // entropy codes them by bits (compression/entropy_stream.h).
  constexpr GapChoice kChoices[] = {GapChoice::kSmallest, GapChoice::kFast, GapChoice::kVarintOnly,
                                    GapChoice::kEntropy};
  o.gap_choice = kChoices[seed % 4];
  CAPTURE(static_cast<int>(o.gap_choice));
  o.direct_io = (seed >> 3) % 2 == 1;  // a packed O_DIRECT spill and device files
  CAPTURE(o.direct_io);
  for (uint32_t d = 0; d < c.devices && c.devices > 1; ++d) {
    std::filesystem::create_directory(dir / ("d" + std::to_string(d)));
    o.devices.push_back(dir / ("d" + std::to_string(d)));
  }
  IngestSummary summary;
  REQUIRE(ingest_ordered(o, &summary).ok());
  Graph graph;
  REQUIRE(Graph::open(o.output, &graph).ok());
  REQUIRE(graph.num_vertices() == n);
  REQUIRE(graph.block_count(SpaceKind::kOut) == block_starts(n, c.blocks).size());
  REQUIRE(graph.block_count(SpaceKind::kOut) > (c.blocks > 1 ? 1u : 0u));

  tbb::global_control threads(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(c.threads));
  Engine engine;
  EngineOptions e;
  e.memory_bytes = 64 << 20;
  e.backend = c.backend;
  e.window_bytes = c.window_bytes;
  e.io_mode = c.io_mode;
  e.cache = c.cache;
  e.device_class = (seed & 8) ? "hdd" : "nvme";
  e.range_loop = c.range_loop;
  if (c.ranged_vertices) {
    Engine probe;  // what the engine needs besides vertex arrays
    REQUIRE(probe.open(graph, e).ok());
    e.memory_bytes = probe.memory_used() + uint64_t{n} * 2;
  }
  REQUIRE(engine.open(graph, e).ok());
  REQUIRE(engine.backend() == c.backend);
  // Results of ranged arrays are read through finish_array's mapping.
  auto finish = [&](auto* array) { REQUIRE(engine.finish_array(array).ok()); };

  const sgtest::RefGraph ref = sgtest::make_ref_graph(n, all, c.undirected);
  {
    VertexArray<double> ranks;
    int run = 0;
    REQUIRE(pagerank(&engine, PageRankOptions{10, 0, 0.85}, &ranks, &run).ok());
    finish(&ranks);
    if (c.ranged_vertices) {
      CHECK(engine.notices().find("loaded by vertex range") != std::string::npos);
      // Contributions (sources) in passes, sums (destinations) in groups.
      CHECK(engine.steps().back().vertex_passes > 1);
      CHECK(engine.steps().back().vertex_groups > 1);
      CHECK(engine.vertex_bytes_written() > 0);
    }
    const std::vector<double> expected = sgtest::ref_pagerank(ref, 10);
    for (uint32_t v = 0; v < n; ++v) REQUIRE(std::fabs(ranks[v] - expected[v]) <= 1e-6);
    if (c.ranged_vertices) {
      // Both contribution arrays whole (8 bytes a vertex), the ranks by
      // range: each group of destinations is finished as it completes.
      Engine roomier;
      EngineOptions r = e;
      r.memory_bytes = e.memory_bytes - uint64_t{n} * 2 + uint64_t{n} * 12;
      REQUIRE(roomier.open(graph, r).ok());
      VertexArray<double> finished;
      REQUIRE(pagerank(&roomier, PageRankOptions{10, 0, 0.85}, &finished, &run).ok());
      REQUIRE(roomier.finish_array(&finished).ok());
      CHECK(roomier.steps().back().vertex_passes == 1);
      CHECK(roomier.steps().back().vertex_groups > 1);
      for (uint32_t v = 0; v < n; ++v) REQUIRE(std::fabs(finished[v] - expected[v]) <= 1e-6);
    }
  }
  {
    VertexArray<double> ranks;
    int rounds = 0;
    REQUIRE(pagerank_delta(&engine, PageRankDeltaOptions{0.85, 1e-10, 200}, &ranks, &rounds).ok());
    finish(&ranks);
    const std::vector<double> expected = sgtest::ref_pagerank_no_dangling(ref);
    for (uint32_t v = 0; v < n; ++v) REQUIRE(std::fabs(ranks[v] - expected[v]) <= 1e-6);
  }
  {
    VertexArray<double> y;
    REQUIRE(spmv(&engine, SpmvOptions{2}, &y).ok());
    finish(&y);
    const std::vector<double> expected = sgtest::ref_spmv(ref, 2);
    for (uint32_t v = 0; v < n; ++v) REQUIRE(std::fabs(y[v] - expected[v]) <= 1e-9 * std::max(1.0, expected[v]));
  }
  for (const bool both_ways : {false, true}) {
    // 64 bytes of work: the roots list is refilled every few roots and
    // in-degrees are read by block, and a level is numbered a few vertices
    // per pass (bfs), through a file of runs of a few keys each (bfds,
    // whose passes would read the in-degrees each time), or (`lend`) in one
    // pass, in room the engine's cache lends; 1 MiB: at once, the
    // in-degrees held.
    for (const auto& [work_bytes, lend] :
         {std::pair{uint64_t{64}, false}, std::pair{uint64_t{64}, true}, std::pair{uint64_t{1} << 20, true}}) {
      const uint64_t held = lend ? 0 : engine.unheld_memory();
      engine.hold_app_memory(held);
      std::vector<uint32_t> new_id;
      REQUIRE(
          traversal_order(&engine, both_ways ? TraversalOrder::kBfs : TraversalOrder::kBfds, work_bytes, &new_id).ok());
      CHECK_MESSAGE(new_id == sgtest::ref_traversal_order(ref, !c.undirected, both_ways), (both_ways ? "bfs" : "bfds"),
                    " work ", work_bytes, " lend ", lend);
      if (!both_ways) {
        // Compact ranks (only the vertices an arc reaches hold one), the
        // permutation written to a file: the same order.
        const std::string path = dir / "bfds.new_id";
        SlotArcs slot_arcs;
        REQUIRE(bfds_order_to_file(&engine, work_bytes, path, {}, {}, &slot_arcs).ok());
        CHECK_MESSAGE(read_new_ids(path) == new_id, "compact bfds, work ", work_bytes, " lend ", lend);
        // Each space's arcs per slot of new ids, which the relabelling
        // pass cuts its buckets by.
        SlotArcs expected = SlotArcs::zeros(n, graph.directed());
        for (uint32_t v = 0; v < n; ++v) {
          expected.out[new_id[v] >> expected.shift] += ref.out[v].size();
          if (graph.directed()) expected.in[new_id[v] >> expected.shift] += ref.in[v].size();
        }
        CHECK(slot_arcs.shift == expected.shift);
        CHECK(slot_arcs.out == expected.out);
        CHECK(slot_arcs.in == expected.in);
      }
      engine.release_app_memory(held);
    }
  }
  for (const bool with_step : {false, true}) {
    // bfds whose live vertices' lists are taken into memory when offered
    // (the residual): the same order, and what was offered is what holds.
    // With a step, the read that takes them also passes every arc to the
    // step (here after the lists are filled, sources descending); without,
    // offers with a step are refused and the residual comes after a step.
    const ResidualSource residual = [&](const std::function<bool(uint32_t)>& live, uint64_t vertices,
                                        uint64_t live_arcs, const ResidualStep* step, ResidualLists* lists,
                                        bool* taken) {
      if (step != nullptr && !with_step) return Status::OK();
      lists->begin = {0};
      for (uint32_t v = 0; v < n; ++v) {
        if (!live(v) || ref.out[v].empty()) continue;
        lists->vertices.push_back(v);
        for (const auto& [w, weight] : ref.out[v]) lists->neighbours.push_back(w);
        lists->begin.push_back(lists->neighbours.size());
      }
      CHECK(lists->vertices.size() == vertices);
      CHECK(lists->neighbours.size() == live_arcs);
      if (step != nullptr) {
        for (uint32_t u = n; u-- > 0;) {
          std::vector<RawEdge> out_arcs;
          for (const auto& [w, weight] : ref.out[u]) out_arcs.push_back(RawEdge{u, w, weight});
          step->visit(out_arcs.data(), out_arcs.size());
        }
        residual_steps += 1;
      }
      *taken = true;
      residual_offers += 1;
      return Status::OK();
    };
    std::vector<uint32_t> new_id;
    REQUIRE(traversal_order(&engine, TraversalOrder::kBfds, uint64_t{1} << 20, &new_id, residual).ok());
    CHECK_MESSAGE(new_id == sgtest::ref_traversal_order(ref, !c.undirected, false), "bfds with a residual, step ",
                  with_step);
    const std::string path = dir / "bfds.new_id";
    REQUIRE(bfds_order_to_file(&engine, uint64_t{1} << 20, path, residual).ok());
    CHECK_MESSAGE(read_new_ids(path) == new_id, "compact bfds with a residual, step ", with_step);
    // One that frees the engine, as ingest's does (take_residual): later
    // levels past 64 bytes of work are numbered through runs without it.
    auto owned = std::make_unique<Engine>();
    REQUIRE(owned->open(graph, e).ok());
    owned->hold_app_memory(owned->unheld_memory());
    const ResidualSource freeing = [&](const std::function<bool(uint32_t)>& live, uint64_t vertices, uint64_t live_arcs,
                                       const ResidualStep* step, ResidualLists* lists, bool* taken) {
      const Status status = residual(live, vertices, live_arcs, step, lists, taken);
      if (*taken) owned.reset();
      return status;
    };
    std::vector<uint32_t> freed_id;
    REQUIRE(traversal_order(owned.get(), TraversalOrder::kBfds, 64, &freed_id, freeing).ok());
    CHECK_MESSAGE(freed_id == new_id, "bfds with a residual that frees the engine, step ", with_step);
  }
  const uint32_t source = static_cast<uint32_t>(sgtest::next_random(&state) % n);
  {
    VertexArray<int32_t> depth;
    VertexArray<uint32_t> parent;
    REQUIRE(bfs(&engine, source, &depth, &parent).ok());
    finish(&depth);
    finish(&parent);
    std::vector<int32_t> expected_depth;
    std::vector<uint32_t> expected_parent;
    sgtest::ref_bfs(ref, source, &expected_depth, &expected_parent);
    for (uint32_t v = 0; v < n; ++v) {
      REQUIRE(depth[v] == expected_depth[v]);
      REQUIRE(parent[v] == expected_parent[v]);
    }
    VertexArray<int32_t> depth_only;  // without parents: half the state
    REQUIRE(bfs(&engine, source, &depth_only, nullptr).ok());
    finish(&depth_only);
    for (uint32_t v = 0; v < n; ++v) REQUIRE(depth_only[v] == expected_depth[v]);
  }
  {
    VertexArray<uint32_t> labels;
    REQUIRE(wcc(&engine, &labels).ok());
    finish(&labels);
    const std::vector<uint32_t> expected = sgtest::ref_wcc(ref);
    for (uint32_t v = 0; v < n; ++v) REQUIRE(labels[v] == expected[v]);
  }
  {
    VertexArray<uint32_t> core;
    REQUIRE(kcore(&engine, &core).ok());
    finish(&core);
    const std::vector<uint32_t> expected = sgtest::ref_kcore(ref, !c.undirected);
    for (uint32_t v = 0; v < n; ++v) REQUIRE(core[v] == expected[v]);
  }
  {
    VertexArray<double> dependency;
    REQUIRE(betweenness(&engine, source, &dependency).ok());
    finish(&dependency);
    const std::vector<double> expected = sgtest::ref_betweenness(ref, source);
    for (uint32_t v = 0; v < n; ++v)
      REQUIRE(std::fabs(dependency[v] - expected[v]) <= 1e-9 * std::max(1.0, expected[v]));
  }
  {
    VertexArray<uint64_t> labels;
    REQUIRE(cdlp(&engine, 4, &labels).ok());
    finish(&labels);
    const std::vector<uint64_t> expected = sgtest::ref_cdlp(ref, !c.undirected, 4);
    for (uint32_t v = 0; v < n; ++v) REQUIRE(labels[v] == expected[v]);
  }
  {
    VertexArray<double> coefficient;
    uint64_t among = 0;
    const size_t steps_before = engine.step_count();
    REQUIRE(lcc(&engine, &coefficient, &among).ok());
    finish(&coefficient);
    // With the budget spent on vertex ranges, neighbourhoods come in blocks.
    if (c.ranged_vertices && engine.step_count() > steps_before) CHECK(engine.steps().back().iteration > 0);
    const std::vector<double> expected = sgtest::ref_lcc(ref);
    for (uint32_t v = 0; v < n; ++v) REQUIRE(std::fabs(coefficient[v] - expected[v]) <= 1e-12);
  }
  {
    VertexArray<float> dist;
    REQUIRE(sssp(&engine, source, !c.weighted, &dist).ok());
    finish(&dist);
    const std::vector<float> expected = sgtest::ref_sssp(ref, source, !c.weighted);
    for (uint32_t v = 0; v < n; ++v) REQUIRE(dist[v] == expected[v]);
  }
}

// Under ThreadSanitizer (5-15x slower) fewer trials: there the task is the
// races, which every case's threads meet; the release and ASan stages run
// them all. Two ranged trials still cover both loops, 1-D and 2-D blocks.
#ifdef SHARDGRAPH_TSAN
constexpr int kTrials = 12, kRangedTrials = 2;
#else
constexpr int kTrials = 24, kRangedTrials = 4;
#endif

void run_cases(IoBackend backend, uint64_t seed, bool ranged_vertices = false) {
  uint64_t state = seed;
  for (int trial = 0; trial < (ranged_vertices ? kRangedTrials : kTrials); ++trial) {
    const uint64_t r = sgtest::next_random(&state);
    Case c{};
    c.io_mode = static_cast<IoMode>(trial % 3);  // auto, full, selective in turn
    c.cache = (r >> 6) & 1;
    c.undirected = r & 1;
    c.weighted = r & 2;
    c.devices = 1 + static_cast<uint32_t>((r >> 2) % 3);
    c.backend = backend;
    c.threads = (r >> 4) & 1 ? 2 : 1;
    c.window_bytes = (r >> 5) & 1 ? 8192 : 0;  // 8 KiB windows: many read-ahead cycles
    c.ranged_vertices = ranged_vertices;
    c.blocks = 1 + static_cast<uint32_t>((r >> 7) % 3);
    if (ranged_vertices) {
      c.window_bytes = 8192;  // buffers independent of the budget
      c.blocks = std::vector<uint32_t>{1, 3, 1, 2}[trial % 4];
      // Both loops over the blocks (passes or groups outside), forced.
      c.range_loop = static_cast<EngineOptions::RangeLoop>(1 + trial % 2);
    }
    check_case(c, sgtest::next_random(&state));
  }
  // A hub reaches most of a graph in one level: the residual is offered.
  if (!ranged_vertices) {
    CHECK(residual_offers > 0);
    CHECK(residual_steps > 0);
  }
}

}  // namespace

TEST_CASE("apps match the in-memory reference: io_uring backend") { run_cases(IoBackend::kUring, 11); }
TEST_CASE("apps match the in-memory reference: pread backend") { run_cases(IoBackend::kPsync, 12); }
TEST_CASE("apps match the in-memory reference with vertex arrays loaded by range: io_uring backend") {
  run_cases(IoBackend::kUring, 13, true);
}
TEST_CASE("apps match the in-memory reference with vertex arrays loaded by range: pread backend") {
  run_cases(IoBackend::kPsync, 14, true);
}

namespace {

// A BFS of the graph dir/g from `source`, its output and stats to files there.
shardgraph::RunRequest bfs_to_files(const sgtest::TempDir& dir, uint64_t source) {
  shardgraph::RunRequest r;
  r.app = "bfs";
  r.graph = dir / "g";
  r.source = source;
  r.output = dir / "bfs.out";
  r.stats = dir / "bfs.json";
  return r;
}

}  // namespace

TEST_CASE("run writes original ids and stats and a corrupted chunk stops it naming the chunk") {
  sgtest::TempDir dir;
  std::string edges;
  for (int i = 0; i < 4000; ++i) edges += std::to_string(1 + i % 301) + " " + std::to_string(1 + (i * 37) % 293) + "\n";
  sgtest::write_text(dir / "e.txt", edges);
  IngestOptions o;
  o.input = dir / "e.txt";
  o.output = dir / "g";
  o.remap = IngestOptions::Remap::kAlways;
  o.chunk_bytes = 512;
  IngestSummary summary;
  REQUIRE(ingest_ordered(o, &summary).ok());
  shardgraph::RunRequest r = bfs_to_files(dir, 1);
  shardgraph::RunResult result;
  Status s = shardgraph::run(r, &result);
  REQUIRE_MESSAGE(s.ok(), s.ToString());
  const std::string out = sgtest::read_text(dir / "bfs.out");
  CHECK(out.rfind("1 0\n2 ", 0) == 0);  // original ids, sorted; source at depth 0
  CHECK(sgtest::read_text(dir / "bfs.json").find("\"steps\"") != std::string::npos);

  Graph g;
  REQUIRE(Graph::open(dir / "g", &g).ok());
  const EdgeSpace& in_space = g.space(SpaceKind::kIn);  // PageRank pulls over the in-space
  {
    std::fstream f(in_space.device_paths[0], std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(in_space.index[1].offset + 3));
    f.put('\x5a');
  }
  r.app = "pagerank";
  s = shardgraph::run(r, &result);
  CHECK(s.code() == Status::Code::kCorruption);
  CHECK_MESSAGE(s.message().find("chunk 1 of in") != std::string::npos, s.message());
  CHECK(s.message().find("checksum mismatch") != std::string::npos);
}

// A path is the longest traversal a graph of its size can ask for: one
// vertex a level, a step each. Ingest's locality order and BFS both take
// 20,000 steps here; the run's step log stays bounded and its totals whole.
TEST_CASE("run: a path of 20,000 vertices is ordered along the path and a BFS keeps a bounded step log") {
  constexpr int kVertices = 20000;
  sgtest::TempDir dir;
  std::string edges;
  for (int i = 0; i + 1 < kVertices; ++i) edges += std::to_string(i) + " " + std::to_string(i + 1) + "\n";
  sgtest::write_text(dir / "path.txt", edges);
  IngestOptions o;
  o.input = dir / "path.txt";
  o.output = dir / "g";
  o.order = "bfds";
  o.memory_bytes = 64 << 20;
  o.chunk_bytes = 4096;
  IngestSummary summary;
  const Status ingested = ingest_ordered(o, &summary);
  REQUIRE_MESSAGE(ingested.ok(), ingested.ToString());
  // bfds starts at the vertex of highest in-degree, ties by id (vertex 1),
  // numbers the path from there, and vertex 0 (no in-edge) comes last.
  Graph g;
  REQUIRE(Graph::open(dir / "g", &g).ok());
  for (uint64_t v = 0; v < kVertices; ++v) {
    uint32_t dense = 0;
    REQUIRE(g.dense_id(v, &dense));
    REQUIRE(dense == (v == 0 ? kVertices - 1 : v - 1));
  }
  shardgraph::RunRequest r = bfs_to_files(dir, 0);
  r.quiet = true;
  shardgraph::RunResult result;
  const Status s = shardgraph::run(r, &result);
  REQUIRE_MESSAGE(s.ok(), s.ToString());
  std::istringstream out(sgtest::read_text(dir / "bfs.out"));
  uint64_t id = 0, depth = 0, lines = 0;
  while (out >> id >> depth) {
    REQUIRE(id == lines);
    REQUIRE(depth == lines);
    ++lines;
  }
  CHECK(lines == kVertices);
  const nlohmann::json stats = nlohmann::json::parse(sgtest::read_text(dir / "bfs.json"));
  const auto& steps = stats["steps"];
  const uint64_t folded = stats["steps_folded"].get<uint64_t>();
  CHECK(steps.size() <= RunLog::kMaxKeptSteps);
  CHECK(folded > 0);
  CHECK(folded + steps.size() >= kVertices - 1);  // a step a level
  CHECK(steps.front()["iteration"] == 0);
  CHECK(steps.back()["iteration"].get<int>() >= kVertices - 2);
  // The totals count the folded steps too: they match the devices' own
  // counters, which know nothing of the log.
  uint64_t device_bytes = 0, device_requests = 0;
  for (const auto& device : stats["devices"]) {
    device_bytes += device["bytes"].get<uint64_t>();
    device_requests += device["requests"].get<uint64_t>();
  }
  CHECK(device_bytes > 0);
  CHECK(stats["bytes_read"].get<uint64_t>() == device_bytes);
  CHECK(stats["requests"].get<uint64_t>() == device_requests);
}

// Each kernel file that is an app defines its row; the build lists them
// all (cmake/app_rows.cmake), so the table holds exactly those, by name.
TEST_CASE("apps: the table holds each kernel file's row, once, in name order") {
  std::vector<std::string> defined;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(SHARDGRAPH_SOURCE_DIR) + "/apps/kernels")) {
    if (entry.path().extension() != ".cc") continue;
    std::istringstream lines(sgtest::read_text(entry.path().string()));
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("SG_APP_ROW(", 0) == 0) defined.push_back(line.substr(11, line.find(')') - 11));
    }
  }
  std::sort(defined.begin(), defined.end());
  std::vector<std::string> listed;
  for (const AppRow& row : app_rows()) {
    CAPTURE(row.name);
    std::string ident = row.name;
    std::replace(ident.begin(), ident.end(), '-', '_');
    listed.push_back(ident);
    CHECK((row.run != nullptr));
    CHECK(std::string(row.description).size() > 10);
    CHECK(std::string(row.columns).size() > 0);
    CHECK(find_app_row(row.name) == &row);
  }
  CHECK(std::is_sorted(listed.begin(), listed.end()));
  CHECK(std::adjacent_find(listed.begin(), listed.end()) == listed.end());
  std::sort(listed.begin(), listed.end());
  CHECK(listed == defined);
  CHECK(defined.size() >= 11);
}

// The shares of --memory are named by what asks for them, the engine's and
// an app's alike, and --stats shows each one's bytes.
TEST_CASE("run: --stats names each share of the memory budget") {
  sgtest::TempDir dir;
  sgtest::write_text(dir / "e.txt", "0 1\n1 2\n3 4\n");
  std::string output;
  REQUIRE(sgtest::run_cli("ingest " + (dir / "e.txt") + " -o " + (dir / "g"), &output) == 0);
  REQUIRE(sgtest::run_cli("run wcc " + (dir / "g") + " --memory 64M --stats " + (dir / "s.json"), &output) == 0);
  const nlohmann::json shares = nlohmann::json::parse(sgtest::read_text(dir / "s.json"))["memory_shares"];
  CHECK(shares["io_buffers"].get<uint64_t>() == (uint64_t{64} << 20) / 16);
  CHECK(shares["wcc.component_counts"].get<uint64_t>() == (uint64_t{64} << 20) / 4);
  CHECK(shares["result_pages"].get<uint64_t>() == (uint64_t{64} << 20) / 16);
  REQUIRE(sgtest::run_cli("run cdlp " + (dir / "g") + " --memory 64M --stats " + (dir / "s.json"), &output) == 0);
  CHECK(nlohmann::json::parse(sgtest::read_text(dir / "s.json"))["memory_shares"]["cdlp.community_count"] ==
        (uint64_t{64} << 20) / 2);
}

TEST_CASE("run: missing device directory and bad options are clear errors") {
  sgtest::TempDir dir;
  sgtest::write_text(dir / "e.txt", "0 1\n1 2\n");
  sgtest::ingest_on_devices(dir, "e.txt", "", 1);
  std::string output;
  CHECK(sgtest::run_cli("run sssp " + (dir / "g"), &output) == 2);
  CHECK(output.find("--unit-weights") != std::string::npos);
  CHECK(output.find("sssp needs a weighted graph") != std::string::npos);
  CHECK(sgtest::run_cli("run sssp " + (dir / "g") + " --unit-weights", &output) == 0);
  // What an app needs of the graph is checked before it runs, for every
  // app the table says needs it.
  for (const AppRow& row : app_rows()) {
    if (!row.needs_undirected()) continue;
    CAPTURE(row.name);
    CHECK(sgtest::run_cli("run " + std::string(row.name) + " " + (dir / "g"), &output) == 2);
    CHECK(output.find(std::string(row.name) + ": the graph is directed; ingest it with --undirected") !=
          std::string::npos);
  }
  CHECK(sgtest::run_cli("run bfs " + (dir / "g") + " --source 7", &output) == 2);
  CHECK(output.find("--source 7 is not a vertex") != std::string::npos);
  CHECK(sgtest::run_cli("run bfs " + (dir / "g") + " --io-backend psync --source 0", &output) == 0);
  // Values that cannot mean anything are usage errors, in one line.
  for (const std::string bad : {"--iterations 0", "--iterations -1", "--source -1", "--threads 0", "--threads -1",
                                "--threads 2000", "--tolerance -1", "--top -5", "--memory 1"}) {
    CAPTURE(bad);
    CHECK(sgtest::run_cli("run pagerank " + (dir / "g") + " " + bad, &output) == 2);
    CHECK(std::count(output.begin(), output.end(), '\n') == 1);
  }
  CHECK(sgtest::run_cli("ingest " + (dir / "e.txt") + " -o " + (dir / "h") + " --intervals 0", &output) == 2);
  CHECK(sgtest::run_cli("--version", &output) == 0);
  CHECK(output.find("writes format version 3") != std::string::npos);
  std::filesystem::remove_all(dir / "d0");
  CHECK(sgtest::run_cli("run pagerank " + (dir / "g"), &output) == 1);
  CHECK(output.find("is missing") != std::string::npos);
  CHECK(std::count(output.begin(), output.end(), '\n') == 1);
}

namespace {

// Ingests edge-list `text` as dir/NAME with the default order, 1 KiB chunks
// and 4 intervals, so a small graph has many chunks.
void ingest_small_chunks(const sgtest::TempDir& dir, const std::string& name, const std::string& text) {
  sgtest::write_text(dir / (name + ".txt"), text);
  IngestOptions o;
  o.input = dir / (name + ".txt");
  o.output = dir / name;
  o.chunk_bytes = 1024;
  o.intervals = 4;
  IngestSummary summary;
  REQUIRE(ingest_ordered(o, &summary).ok());
}

// A directed graph large enough for many chunks: vertex v -> v+1 .. v+4.
void make_chain_graph(const sgtest::TempDir& dir, uint32_t n) {
  std::string text = "# Nodes: " + std::to_string(n) + "\n";
  for (uint32_t v = 0; v < n; ++v) {
    for (uint32_t k = 1; k <= 4; ++k) text += std::to_string(v) + " " + std::to_string((v + k) % n) + "\n";
  }
  ingest_small_chunks(dir, "chain", text);
}

}  // namespace

TEST_CASE("chunk cache: a graph that fits is read once, later iterations read nothing") {
  sgtest::TempDir dir;
  make_chain_graph(dir, 20000);
  Graph graph;
  REQUIRE(Graph::open(dir / "chain", &graph).ok());
  for (bool cache : {true, false}) {
    Engine engine;
    EngineOptions e;
    e.memory_bytes = 256 << 20;
    e.cache = cache;
    REQUIRE(engine.open(graph, e).ok());
    VertexArray<double> ranks;
    int run = 0;
    REQUIRE(pagerank(&engine, PageRankOptions{3, 0, 0.85}, &ranks, &run).ok());
    REQUIRE(engine.steps().size() == 3);
    CHECK(engine.steps()[0].bytes_read() > 0);
    for (size_t i = 1; i < 3; ++i) {
      if (cache) {
        CHECK(engine.steps()[i].bytes_read() == 0);
        CHECK(engine.steps()[i].cached_chunks == engine.steps()[i].chunks);
      } else {
        CHECK(engine.steps()[i].bytes_read() == engine.steps()[0].bytes_read());
      }
    }
  }
}

TEST_CASE("decoded cache: room beyond the compressed graph serves later scans decoded, with the same ranks") {
  sgtest::TempDir dir;
  make_chain_graph(dir, 20000);
  Graph graph;
  REQUIRE(Graph::open(dir / "chain", &graph).ok());
  const uint64_t stored_bytes = graph.chunk_bytes();
  auto run = [&](uint64_t memory_bytes, Engine* engine, VertexArray<double>* ranks) {
    EngineOptions e;
    e.memory_bytes = memory_bytes;
    e.window_bytes = 8 << 10;  // many windows, lists split between them
    REQUIRE(engine->open(graph, e).ok());
    int iterations = 0;
    REQUIRE(pagerank(engine, PageRankOptions{4, 0, 0.85}, ranks, &iterations).ok());
    REQUIRE(engine->steps().size() == 4);
  };
  Engine roomy, tight;
  VertexArray<double> roomy_ranks, tight_ranks;
  run(256 << 20, &roomy, &roomy_ranks);
  CHECK(roomy.decoded_cache_bytes() > 0);
  for (size_t i = 1; i < 4; ++i) {
    CHECK(roomy.steps()[i].bytes_read() == 0);
    CHECK(roomy.steps()[i].decoded_cache_chunks == roomy.steps()[i].chunks);
  }
  // Room for every chunk compressed but not for their decoded form.
  run(roomy.peak_memory_used() + stored_bytes + 1024, &tight, &tight_ranks);
  CHECK(tight.decoded_cache_bytes() == 0);
  for (size_t i = 1; i < 4; ++i) {
    CHECK(tight.steps()[i].bytes_read() == 0);
    CHECK(tight.steps()[i].cached_chunks == tight.steps()[i].chunks);
    CHECK(tight.steps()[i].decoded_cache_chunks == 0);
  }
  for (uint32_t v = 0; v < graph.num_vertices(); ++v)
    REQUIRE(roomy_ranks[v] == doctest::Approx(tight_ranks[v]).epsilon(1e-12));
}

TEST_CASE("chunk cache under memory pressure: stale chunks are evicted, results are unchanged") {
  sgtest::TempDir dir;
  make_chain_graph(dir, 8000);
  Graph graph;
  REQUIRE(Graph::open(dir / "chain", &graph).ok());
  const uint64_t stored_bytes = graph.chunk_bytes();
  // PageRank pulls the in-space, then BFS pushes over the out-space: with
  // room for a third of the graph the in-space chunks go stale and make way.
  auto run = [&](uint64_t memory_bytes, Engine* engine, VertexArray<double>* ranks, VertexArray<int32_t>* depth,
                 VertexArray<uint32_t>* labels) {
    EngineOptions e;
    e.memory_bytes = memory_bytes;
    e.window_bytes = 8 << 10;
    REQUIRE(engine->open(graph, e).ok());
    int iterations = 0;
    REQUIRE(pagerank(engine, PageRankOptions{3, 0, 0.85}, ranks, &iterations).ok());
    VertexArray<uint32_t> parent;
    REQUIRE(bfs(engine, 0, depth, &parent).ok());
    REQUIRE(wcc(engine, labels).ok());
    // Again, over whatever the cache holds now (decoded windows that
    // survived the shrinking, chunks evicted since).
    VertexArray<double> again;
    REQUIRE(pagerank(engine, PageRankOptions{3, 0, 0.85}, &again, &iterations).ok());
    for (uint32_t v = 0; v < graph.num_vertices(); ++v)
      REQUIRE(again[v] == doctest::Approx((*ranks)[v]).epsilon(1e-12));
  };
  Engine roomy, tight;
  VertexArray<double> roomy_ranks, tight_ranks;
  VertexArray<int32_t> roomy_depth, tight_depth;
  VertexArray<uint32_t> roomy_labels, tight_labels;
  run(256 << 20, &roomy, &roomy_ranks, &roomy_depth, &roomy_labels);
  CHECK(roomy.cache_evictions() == 0);
  run(roomy.peak_memory_used() + stored_bytes / 3, &tight, &tight_ranks, &tight_depth, &tight_labels);
  CHECK(tight.cache_evictions() > 0);
  CHECK(tight.cache_bytes() <= stored_bytes / 3 + 16384);
  for (uint32_t v = 0; v < graph.num_vertices(); ++v) {
    REQUIRE(tight_ranks[v] == doctest::Approx(roomy_ranks[v]).epsilon(1e-12));
    REQUIRE(tight_depth[v] == static_cast<int32_t>((v + 3) / 4));
    REQUIRE(tight_labels[v] == 0);
  }
}

TEST_CASE("selective push reads only the chunks of active vertices, and auto picks it for a tiny frontier") {
  sgtest::TempDir dir;
  make_chain_graph(dir, 20000);
  Graph graph;
  REQUIRE(Graph::open(dir / "chain", &graph).ok());
  uint64_t bytes[3] = {};
  for (IoMode mode : {IoMode::kFull, IoMode::kSelective, IoMode::kAuto}) {
    Engine engine;
    EngineOptions e;
    e.memory_bytes = 64 << 20;
    e.cache = false;
    e.io_mode = mode;
    REQUIRE(engine.open(graph, e).ok());
    VertexArray<int32_t> depth;
    VertexArray<uint32_t> parent;
    REQUIRE(bfs(&engine, 0, &depth, &parent).ok());
    CHECK(depth[8] == 2);
    // Step 0 has one active vertex.
    bytes[static_cast<int>(mode)] = engine.steps()[0].bytes_read();
    if (mode != IoMode::kFull) {
      CHECK(engine.steps()[0].mode == "push");
      CHECK(engine.steps()[0].selective_intervals == 1);
      CHECK(engine.steps()[0].intervals_skipped == 3);
    }
  }
  const EdgeSpace& out = graph.space(SpaceKind::kOut);
  CHECK(bytes[static_cast<int>(IoMode::kSelective)] <= 2 * align_up(out.index[0].bytes, kAlignBytes));
  CHECK(bytes[static_cast<int>(IoMode::kFull)] > 10 * bytes[static_cast<int>(IoMode::kSelective)]);
  CHECK(bytes[static_cast<int>(IoMode::kAuto)] == bytes[static_cast<int>(IoMode::kSelective)]);
}

TEST_CASE("auto direction: a traversal over cached in-lists pays once to read the out-lists, not a pull per step") {
  // A path 0 -> 1 -> ... : after PageRank has cached the in-space, pulling
  // is cheaper than reading the out-space for any one BFS step, and dearer
  // over the 20,000 steps (ski rental in Engine::rent_instead_of).
  sgtest::TempDir dir;
  const uint32_t n = 20000;
  std::string text;
  for (uint32_t v = 0; v + 1 < n; ++v) text += std::to_string(v) + " " + std::to_string(v + 1) + "\n";
  ingest_small_chunks(dir, "path", text);
  Graph graph;
  REQUIRE(Graph::open(dir / "path", &graph).ok());
  Engine engine;
  EngineOptions e;
  e.memory_bytes = 64 << 20;
  REQUIRE(engine.open(graph, e).ok());
  VertexArray<double> ranks;
  PageRankOptions p;
  p.iterations = 1;
  int iterations = 0;
  REQUIRE(pagerank(&engine, p, &ranks, &iterations).ok());
  CHECK(engine.steps().back().mode == "pull");
  // Totals, not the step log: a run this long has most steps folded.
  const RunTotals before = engine.run_totals();
  VertexArray<int32_t> depth;
  REQUIRE(bfs(&engine, 0, &depth, nullptr).ok());
  for (uint32_t v = 0; v < n; ++v) REQUIRE(depth[v] == static_cast<int32_t>(v));
  const RunTotals after = engine.run_totals();
  const uint64_t pull_steps = after.pull_steps - before.pull_steps;
  const uint64_t bytes = after.bytes_read - before.bytes_read;
  CAPTURE(pull_steps);
  CHECK(engine.folded_steps() > 0);
  CHECK(after.steps - before.steps >= n - 1);
  CHECK(pull_steps < n / 10);
  const EdgeSpace& out = graph.space(SpaceKind::kOut);
  const uint32_t chunks = static_cast<uint32_t>(out.index.size());
  CHECK(bytes <= out.chunk_bytes(0, chunks) + (chunks + 1) * kAlignBytes);  // the out-space once
}

TEST_CASE("read-ahead: auto reads past the active chunks into the cache, a traversal then needs fewer requests") {
  sgtest::TempDir dir;
  make_chain_graph(dir, 20000);  // BFS from 0 walks forward through the ids
  Graph graph;
  REQUIRE(Graph::open(dir / "chain", &graph).ok());
  uint64_t requests[3] = {}, bytes[3] = {};
  std::vector<int32_t> depths[3];
  for (IoMode mode : {IoMode::kSelective, IoMode::kAuto}) {
    Engine engine;
    EngineOptions e;
    e.memory_bytes = 64 << 20;
    e.io_mode = mode;
    REQUIRE(engine.open(graph, e).ok());
    VertexArray<int32_t> depth;
    VertexArray<uint32_t> parent;
    REQUIRE(bfs(&engine, 0, &depth, &parent).ok());
    const int m = static_cast<int>(mode);
    depths[m].assign(depth.data(), depth.data() + graph.num_vertices());
    uint64_t read_ahead = 0;
    for (const StepStats& step : engine.steps()) {
      requests[m] += std::accumulate(step.device_requests.begin(), step.device_requests.end(), uint64_t{0});
      bytes[m] += step.bytes_read();
      read_ahead += step.read_ahead_bytes;
    }
    CHECK((read_ahead > 0) == (mode == IoMode::kAuto));
  }
  const int selective = static_cast<int>(IoMode::kSelective), automatic = static_cast<int>(IoMode::kAuto);
  CHECK(depths[automatic] == depths[selective]);
  // Selective reads each chunk once as the frontier reaches it (then it is
  // cached); auto reads an interval's chunks in one request.
  const EdgeSpace& out = graph.space(SpaceKind::kOut);
  CHECK(requests[selective] >= out.index.size() / 2);
  CHECK(requests[automatic] <= graph.manifest().interval_starts.size() * graph.layout().device_count());
  CHECK(bytes[automatic] <= bytes[selective] + out.index.size() * kAlignBytes);
}

TEST_CASE("vertex orderings change no result: outputs in original ids are identical") {
  sgtest::TempDir dir;
  uint64_t state = 77;
  std::string text;
  for (int i = 0; i < 3000; ++i) {
    text += std::to_string(3 + sgtest::next_random(&state) % 500) + " " +
            std::to_string(3 + sgtest::next_random(&state) % 500) + " " +
            std::to_string(1 + sgtest::next_random(&state) % 9) + "\n";
  }
  sgtest::write_text(dir / "e.txt", text);
  std::map<std::string, std::string> reference;
  for (const std::string order : {"none", "degree", "bfs", "bfds", "auto"}) {
    CAPTURE(order);
    IngestOptions o;
    o.input = dir / "e.txt";
    o.output = dir / ("g-" + order);
    o.order = order;
    o.chunk_bytes = 256;
    o.intervals = 3;
    IngestSummary summary;
    REQUIRE(ingest_ordered(o, &summary).ok());
    // CDLP's labels are dense ids where those order as the original ids
    // (order none), original ids otherwise.
    for (const std::string app : {"bfs", "wcc", "sssp", "kcore", "cdlp", "pagerank"}) {
      shardgraph::RunRequest r;
      r.app = app;
      r.graph = o.output;
      r.source = 7;
      r.parents = false;
      r.output = dir / (app + "-" + order + ".out");
      shardgraph::RunResult result;
      Status s = shardgraph::run(r, &result);
      REQUIRE_MESSAGE(s.ok(), s.ToString());
      const std::string out = sgtest::read_text(r.output);
      if (order == "none") {
        reference[app] = out;
        continue;
      }
      if (app != "pagerank") {
        CHECK_MESSAGE(out == reference[app], app);
        continue;
      }
      // PageRank sums in another order: equal within 1e-6.
      std::istringstream a(out), b(reference[app]);
      uint64_t ida = 0, idb = 0;
      double va = 0, vb = 0;
      size_t lines = 0;
      while (a >> ida >> va && b >> idb >> vb) {
        REQUIRE(ida == idb);
        REQUIRE(std::fabs(va - vb) <= 1e-6);
        ++lines;
      }
      CHECK(lines == 503);  // ids 0..502: without --remap ids below the smallest one exist too
    }
  }
}

TEST_CASE(
    "run: a budget below the graph's minimum is refused naming the minimum, and at the minimum vertex arrays go to an "
    "unnamed scratch file, the id map is mapped and results are unchanged") {
  sgtest::TempDir dir;
  std::string text;
  uint64_t state = 31;
  for (int i = 0; i < 20000; ++i) {
    // 300k vertices: 4-byte arrays (1.2 MB) exceed the minimum budget (1 MiB).
    text += std::to_string(sgtest::next_random(&state) % 300000) + " " +
            std::to_string(sgtest::next_random(&state) % 300000) + "\n";
  }
  sgtest::write_text(dir / "e.txt", text);
  std::string output;
  REQUIRE(sgtest::run_cli("ingest " + (dir / "e.txt") + " -o " + (dir / "g") + " --chunk-bytes 4K --order bfds",
                          &output) == 0);
  REQUIRE(sgtest::run_cli("run bfs " + (dir / "g") + " --memory 16K", &output) == 2);
  CHECK(std::count(output.begin(), output.end(), '\n') == 1);
  const size_t at = output.find("use --memory ");
  REQUIRE(at != std::string::npos);
  const std::string minimum = output.substr(at + 13, output.find(' ', at + 13) - at - 13);
  // info names the same minimum.
  REQUIRE(sgtest::run_cli("info " + (dir / "g"), &output) == 0);
  CHECK(output.find("at least " + minimum.substr(0, minimum.size() - 1) + " MiB") != std::string::npos);
  std::filesystem::create_directory(dir / "scratch");
  for (const std::string app : {"bfs", "pagerank", "wcc"}) {
    CAPTURE(app);
    REQUIRE(sgtest::run_cli("run " + app + " " + (dir / "g") + " --memory 1G --output " + (dir / "big.out"), &output) ==
            0);
    REQUIRE(sgtest::run_cli("run " + app + " " + (dir / "g") + " --memory " + minimum + " --scratch-dir " +
                                (dir / "scratch") + " --output " + (dir / "small.out"),
                            &output) == 0);
    CHECK(output.find("loaded by vertex range") != std::string::npos);
    // The graph is reordered (bfds) and its id map (12 bytes a vertex with
    // the order by original id) exceeds the budget: the map is mapped, not
    // loaded, and the lines are sorted out of core: the same file.
    CHECK(sgtest::read_text(dir / "small.out") == sgtest::read_text(dir / "big.out"));
    CHECK(sgtest::list_dir(dir / "scratch").empty());
  }
  // BFS parents name original ids through the mapped map too.
  REQUIRE(sgtest::run_cli("run bfs " + (dir / "g") + " --parents --memory 1G --output " + (dir / "big.out"), &output) ==
          0);
  REQUIRE(
      sgtest::run_cli("run bfs " + (dir / "g") + " --parents --memory " + minimum + " --output " + (dir / "small.out"),
                      &output) == 0);
  CHECK(sgtest::read_text(dir / "small.out") == sgtest::read_text(dir / "big.out"));
  for (const std::string& name : sgtest::list_dir(dir / "g")) CHECK(name.find("scratch") == std::string::npos);
}

// The budget holds. Peak RSS (VmHWM) of every app stays within
// 1.05 x --memory plus the process's fixed cost: what the binary and its
// libraries take idle (measured here) and 4 MiB for thread stacks, io_uring
// rings and the allocator (README, "Run-time memory").
TEST_CASE("run: every app's peak RSS stays within 1.05 x --memory plus the fixed process overhead") {
#ifndef SHARDGRAPH_SANITIZED  // sanitizer shadow memory is not the engine's
  sgtest::TempDir dir;
  std::string output;
  // 65k vertices, 1M edges, the default (ordered) layout: at 2-8 MiB vertex
  // arrays are loaded by range and the chunk cache fills what is left.
  REQUIRE(sgtest::run_cli("generate rmat --scale 16 --edge-factor 16 --seed 7 -o " + (dir / "e.bin32"), &output) == 0);
  REQUIRE(sgtest::run_cli("ingest " + (dir / "e.bin32") + " -o " + (dir / "g"), &output) == 0);
  auto peak_bytes = [](const std::string& text) -> uint64_t {
    const size_t at = text.find("peak RSS ");
    REQUIRE(at != std::string::npos);
    return std::stoull(text.substr(at + 9)) * 1024;
  };
  REQUIRE(sgtest::run_cli("--help", &output, "SHARDGRAPH_REPORT_RSS=1") == 0);
  const uint64_t idle_bytes = peak_bytes(output);
  constexpr uint64_t kOverheadBytes = 4 << 20;
  for (const uint64_t budget_mib : {2, 4, 8}) {
    for (const std::string app : {"pagerank", "pagerank-delta", "spmv", "bfs", "wcc", "sssp --unit-weights"}) {
      CAPTURE(budget_mib);
      CAPTURE(app);
      REQUIRE(sgtest::run_cli("run " + app + " " + (dir / "g") + " --memory " + std::to_string(budget_mib) + "M",
                              &output) == 0);
      const uint64_t budget = budget_mib << 20;
      CHECK(peak_bytes(output) <= budget + budget / 20 + idle_bytes + kOverheadBytes);
    }
  }
#endif
}

namespace {

// Counts the arcs a step hands over, per destination.
struct CountArcs {
  uint32_t* hits;
  bool update(uint32_t, uint32_t v, float) {
    ++hits[v];
    return false;
  }
  bool update_atomic(uint32_t, uint32_t v, float) {
    std::atomic_ref<uint32_t>(hits[v]).fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  bool cond(uint32_t) const { return true; }
};

}  // namespace

// Disk windows are processed between shares of the cached chunks, and each
// is offered to the cache: one of a higher priority bin can evict a cached
// chunk whose turn has not come. That chunk is read from the devices, once.
TEST_CASE(
    "chunk cache: a cached chunk evicted during a step before its turn is read from the devices, every arc once") {
  sgtest::TempDir dir;
  const uint32_t hubs = 400, n = 10000;
  std::string text;
  uint64_t state = 3;
  uint64_t arcs = 0;
  std::vector<uint32_t> in_degree(n, 0);
  auto arc = [&](uint32_t u, uint32_t v) {
    text += std::to_string(u) + " " + std::to_string(v) + "\n";
    ++in_degree[v];
    ++arcs;
  };
  for (uint32_t u = 0; u < hubs; ++u) {  // long lists: a low priority bin
    for (int k = 0; k < 100; ++k) arc(u, static_cast<uint32_t>(sgtest::next_random(&state) % n));
  }
  for (uint32_t u = hubs; u < n; ++u)
    arc(u, static_cast<uint32_t>(sgtest::next_random(&state) % n));  // one each: a high bin
  sgtest::write_text(dir / "e.txt", text);
  IngestOptions o;
  o.input = dir / "e.txt";
  o.output = dir / "g";
  o.order = "none";
  o.chunk_bytes = 1024;
  o.intervals = 1;
  IngestSummary summary;
  REQUIRE(ingest_ordered(o, &summary).ok());
  Graph graph;
  REQUIRE(Graph::open(o.output, &graph).ok());
  const EdgeSpace& out = graph.space(SpaceKind::kOut);
  uint64_t hub_bytes = 0;
  for (const ChunkIndexEntry& e : out.index) hub_bytes += e.first_vertex < hubs ? e.bytes : 0;

  EngineOptions e;
  e.io_mode = IoMode::kSelective;
  e.window_bytes = 8 << 10;
  e.memory_bytes = 64 << 20;
  Engine roomy;
  REQUIRE(roomy.open(graph, e).ok());
  e.memory_bytes = roomy.peak_memory_used() + hub_bytes + 256;  // room for the hubs' chunks
  Engine engine;
  REQUIRE(engine.open(graph, e).ok());
  std::vector<uint32_t> hub_ids(hubs);
  for (uint32_t u = 0; u < hubs; ++u) hub_ids[u] = u;
  std::vector<uint32_t> hits(n, 0);
  CountArcs count{hits.data()};
  VertexSubset next;
  REQUIRE(engine.edge_map(VertexSubset::from_list(n, hub_ids), count, &next, {Direction::kPush, false}).ok());
  REQUIRE(engine.cache_bytes() >= hub_bytes - 1024);  // the hubs' chunks are cached
  std::fill(hits.begin(), hits.end(), 0);
  REQUIRE(engine.edge_map(VertexSubset::all(n), count, &next, {Direction::kPush, false}).ok());
  const StepStats& step = engine.steps().back();
  CHECK(step.reread_chunks > 0);
  CHECK(step.cached_chunks + step.reread_chunks <= out.index.size());
  CHECK(engine.cache_evictions() > 0);
  CHECK(hits == in_degree);
  CHECK(std::accumulate(hits.begin(), hits.end(), uint64_t{0}) == arcs);
}

TEST_CASE("run log: the progress line's read total counts merged, folded and adopted steps") {
  std::vector<std::string> lines;
  RunLog log;
  log.open(
      "t", [&](const std::string& line) { lines.push_back(line); }, true);
  const auto step = [](uint64_t bytes) {
    StepStats s;
    s.device_bytes = {bytes, 2 * bytes};
    s.device_requests = {1, 1};
    return s;
  };
  const auto read_in_line = [](uint64_t bytes) {
    char text[64];
    std::snprintf(text, sizeof(text), "read %.1f MB", static_cast<double>(bytes) / 1e6);
    return std::string(text);
  };
  uint64_t total = 0;
  for (uint64_t i = 0; i < RunLog::kMaxKeptSteps + 10; ++i) {
    const size_t first = log.steps().size();
    log.add(step(1000 * (i + 1)));  // two parts, merged into one step
    log.add(step(5000));
    total += 3000 * (i + 1) + 15000;
    log.merge_since(first);
  }
  CHECK(log.folded_steps() > 0);
  CHECK(log.totals().bytes_read == total);
  CHECK(lines.back().find(read_in_line(total)) != std::string::npos);

  RunLog reverse;
  reverse.add(step(7000));
  log.add(step(0));
  log.adopt_reversed(&reverse);
  CHECK(reverse.steps().empty());
  CHECK(log.steps().back().reversed);
  total += 21000;
  log.add(step(1000));
  total += 3000;
  CHECK(log.totals().bytes_read == total);
  CHECK(lines.back().find(read_in_line(total)) != std::string::npos);
}
