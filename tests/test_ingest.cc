// Ingest end to end: random graphs, read back chunk by chunk, must equal a
// plain in-memory construction of the same adjacency, for every combination
// of directedness, weights, filters, devices, tiny chunks/stripes, interval
// counts and forced spilling / multi-pass merges.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "apps/jobs/ingest_ordered.h"
#include "core/window_graph.h"
#include "shards/format/verify.h"
#include "shards/ingest/chunk_encoder.h"
#include "test_util.h"

using namespace sg;
using sgtest::Arc;

namespace {

struct Config {
  bool undirected = false, weighted = false, dedup = false, drop_loops = false;
  uint32_t devices = 1, chunk_bytes = 64, intervals = 1;
  uint64_t stripe_bytes = 4096;
  size_t sort_edges = 0, fanin = 0, lanes = 0;
  std::string order = "none";
  int format_version = kFormatVersion;
  uint32_t blocks = 1;
  bool direct_io = false;  // packed spill, O_DIRECT spill and device files
};

std::vector<Arc> random_arcs(uint64_t* state, uint64_t n, size_t m, bool weighted) {
  std::vector<Arc> arcs;
  const uint64_t hub = sgtest::next_random(state) % n;
  for (size_t i = 0; i < m; ++i) {
    uint64_t src = sgtest::next_random(state) % n;
    uint64_t dst = sgtest::next_random(state) % n;
    const uint64_t kind = sgtest::next_random(state) % 10;
    if (kind == 0) dst = src;  // self-loop
    if (kind == 1 && !arcs.empty()) {
      src = arcs.back().src;
      dst = arcs.back().dst;
    }                          // duplicate
    if (kind >= 7) src = hub;  // a list longer than a chunk
    const float w = weighted ? static_cast<float>(1 + sgtest::next_random(state) % 9) : 1.0f;
    arcs.push_back(Arc{src, dst, w});
  }
  arcs.push_back(Arc{n - 1, n - 1, 1.0f});  // pin |V| = n (vertex n-1 exists)
  return arcs;
}

// Sorted, filtered arc list of one space as a reference.
std::vector<Arc> expected_space(const std::vector<Arc>& input, const Config& c, bool in_space) {
  std::vector<Arc> arcs;
  for (const Arc& a : input) {
    const float w = c.weighted ? a.weight : 1.0f;
    if (c.undirected) {
      arcs.push_back(Arc{a.src, a.dst, w});
      if (a.src != a.dst) arcs.push_back(Arc{a.dst, a.src, w});
    } else {
      arcs.push_back(in_space ? Arc{a.dst, a.src, w} : Arc{a.src, a.dst, w});
    }
  }
  std::sort(arcs.begin(), arcs.end());
  std::vector<Arc> kept;
  for (size_t i = 0; i < arcs.size(); ++i) {
    const Arc& a = arcs[i];
    if (c.drop_loops && a.src == a.dst) continue;
    if (c.dedup && i > 0 && arcs[i - 1].src == a.src && arcs[i - 1].dst == a.dst) continue;
    kept.push_back(a);
  }
  return kept;
}

void check_config(const Config& c, uint64_t seed) {
  CAPTURE(seed);
  CAPTURE(c.undirected);
  CAPTURE(c.weighted);
  CAPTURE(c.devices);
  CAPTURE(c.chunk_bytes);
  CAPTURE(c.intervals);
  CAPTURE(c.sort_edges);
  CAPTURE(c.lanes);
  CAPTURE(c.order);
  CAPTURE(c.format_version);
  CAPTURE(c.blocks);
  uint64_t state = seed;
  const uint64_t n = 1 + sgtest::next_random(&state) % 200;
  const size_t m = sgtest::next_random(&state) % 1500;
  const std::vector<Arc> input = random_arcs(&state, n, m, c.weighted);

  sgtest::TempDir dir;
  sgtest::write_snap(dir / "edges.txt", input, c.weighted);
  IngestOptions o;
  o.input = dir / "edges.txt";
  o.output = dir / "graph";
  o.undirected = c.undirected;
  o.dedup = c.dedup;
  o.drop_self_loops = c.drop_loops;
  o.chunk_bytes = c.chunk_bytes;
  o.intervals = c.intervals;
  o.stripe_bytes = c.stripe_bytes;
  o.sort_buffer_edges = c.sort_edges;
  o.route_buckets = c.fanin;
  o.route_lanes = c.lanes;
  o.order = c.order;
  o.format_version = c.format_version;
  o.blocks = c.blocks;
  o.direct_io = c.direct_io;
  o.memory_bytes = 8 << 20;
  if (c.devices > 1) {
    for (uint32_t d = 0; d < c.devices; ++d) {
      std::filesystem::create_directory(dir / ("dev" + std::to_string(d)));
      o.devices.push_back(dir / ("dev" + std::to_string(d)));
    }
  }
  IngestSummary summary;
  Status s = ingest_ordered(o, &summary);
  REQUIRE_MESSAGE(s.ok(), s.ToString());

  Graph graph;
  s = Graph::open(o.output, &graph);
  REQUIRE_MESSAGE(s.ok(), s.ToString());
  CHECK(graph.num_vertices() == n);
  CHECK(graph.directed() == !c.undirected);
  CHECK(graph.weighted() == c.weighted);
  CHECK(graph.device_count() == c.devices);
  CHECK(graph.manifest().format_version == c.format_version);
  CHECK(graph.manifest().list_codec() == list_codec_of(c.format_version));
  CHECK(graph.manifest().interval_starts.size() == std::min<uint64_t>(c.intervals, n));
  CHECK(graph.block_count(SpaceKind::kOut) == block_starts(n, c.blocks).size());
  if (!c.undirected) CHECK(graph.block_count(SpaceKind::kIn) == block_starts(n, c.blocks).size());

  const std::vector<Arc> out = expected_space(input, c, false);
  // A reordered graph stores lists in its new id order: compare as sets.
  auto stored = [&](SpaceKind kind) {
    std::vector<Arc> arcs = sgtest::read_space(graph, kind);
    if (c.order != "none") std::sort(arcs.begin(), arcs.end());
    return arcs;
  };
  CHECK(stored(SpaceKind::kOut) == out);
  if (!c.undirected) CHECK(stored(SpaceKind::kIn) == expected_space(input, c, true));
  std::vector<uint32_t> degrees(n, 0);
  for (const Arc& a : out) ++degrees[a.src];
  for (uint64_t original = 0; original < n; ++original) {
    uint32_t v = 0;
    REQUIRE(graph.dense_id(original, &v));
    CHECK(graph.space(SpaceKind::kOut).degrees[v] == degrees[original]);
    CHECK(graph.original_id(v) == original);
  }
  if (c.order == "auto") {
    CHECK((graph.manifest().ordering == "bfds" || graph.manifest().ordering == "none"));
  } else {
    CHECK(graph.manifest().ordering == c.order);
  }

  uint64_t loops = 0;
  for (const Arc& a : out) loops += a.src == a.dst;
  CHECK(graph.manifest().num_edges == (c.undirected ? (out.size() + loops) / 2 : out.size()));
  CHECK(graph.manifest().ingest.input_edges == input.size());

  VerifyReport report;
  s = verify_graph(graph, &report);
  CHECK_MESSAGE(s.ok(), s.ToString());
  // Nothing but the graph and the input is left in the directory.
  CHECK(sgtest::list_dir(dir.path()).size() == 2 + (c.devices > 1 ? c.devices : 0));
}

}  // namespace

TEST_CASE("ingest reproduces random graphs exactly across layouts") {
  uint64_t state = 2026;
  for (int trial = 0; trial < 48; ++trial) {
    Config c;
    const uint64_t r = sgtest::next_random(&state);
    c.undirected = r & 1;
    c.weighted = r & 2;
    c.dedup = r & 4;
    c.drop_loops = r & 8;
    c.devices = 1 + static_cast<uint32_t>((r >> 4) % 3);
    c.chunk_bytes = (r >> 6) & 1 ? 64 : 4096;
    c.intervals = 1 + static_cast<uint32_t>((r >> 7) % 7);
    c.stripe_bytes = 4096 * (1 + (r >> 10) % 2);
    c.sort_edges = (r >> 11) % 3 == 0 ? 0 : 7 + (r >> 13) % 300;  // spill many runs
    c.fanin = (r >> 20) % 2 == 0 ? 2 + (r >> 21) % 7 : 0;         // few buckets: sub-routing
    c.order = std::vector<std::string>{"none", "degree", "bfs", "bfds", "auto"}[(r >> 24) % 5];
    c.format_version = (r >> 27) % 4 == 0 ? static_cast<int>(1 + (r >> 29) % 2) : kFormatVersion;
    c.blocks = 1 + static_cast<uint32_t>((r >> 29) % 3);
    c.direct_io = (r >> 33) & 1;
    c.lanes = (r >> 34) % 2 == 0 ? 2 + (r >> 35) % 2 : 0;  // unweighted: several lanes a router
    check_config(c, sgtest::next_random(&state));
  }
}

TEST_CASE("ingest with defaults keeps self-loops and duplicates and counts them") {
  sgtest::TempDir dir;
  sgtest::write_text(dir / "g.txt", "0 1\n0 1\n1 1\n2 0\n1 1\n");
  Graph g;
  sgtest::ingest_and_open(dir / "g.txt", dir / "g", &g);
  CHECK(g.manifest().num_edges == 5);
  CHECK(g.manifest().ingest.self_loops == 2);  // arcs, not vertices
  CHECK(g.manifest().ingest.self_loop_vertices == 1);
  CHECK(g.manifest().ingest.duplicate_edges == 2);
  CHECK(sgtest::read_space(g, SpaceKind::kIn) ==
        std::vector<Arc>{{0, 2, 1}, {1, 0, 1}, {1, 0, 1}, {1, 1, 1}, {1, 1, 1}});
}

// A run of empty lists codes in a few bytes in format version 2, but a chunk
// still spans at most 64 Ki vertices (or one a byte of its aligned extent),
// and a window at most a quarter of its bytes in vertices: a decoded
// window's offsets (4 bytes a vertex) stay bounded by its bytes.
TEST_CASE("ingest bounds the vertices of a chunk on a sparse graph and windows bound their vertices") {
  sgtest::TempDir dir;
  std::string text = "# Nodes: 1000000\n";
  uint64_t state = 7;
  for (int i = 0; i < 3000; ++i) {
    text += std::to_string(sgtest::next_random(&state) % 1000000) + " " +
            std::to_string(sgtest::next_random(&state) % 1000000) + "\n";
  }
  sgtest::write_text(dir / "e.txt", text);
  for (const std::string order : {"none", "bfds"}) {
    CAPTURE(order);
    IngestOptions o;
    o.input = dir / "e.txt";
    o.output = dir / ("g-" + order);
    o.order = order;
    o.chunk_bytes = 4096;
    o.memory_bytes = 64 << 20;
    IngestSummary summary;
    REQUIRE(ingest_ordered(o, &summary).ok());
    Graph g;
    REQUIRE(Graph::open(o.output, &g).ok());
    CHECK(g.num_vertices() == 1000000);
    for (SpaceKind kind : {SpaceKind::kOut, SpaceKind::kIn}) {
      uint64_t vertices = 0;
      for (const ChunkIndexEntry& e : g.space(kind).index) {
        const uint64_t aligned_bytes = std::max<uint64_t>(4096, (e.bytes + 4095) / 4096 * 4096);
        CHECK(e.vertex_count <= std::max(kMaxChunkVertices, aligned_bytes));
        vertices += e.vertex_count;
      }
      CHECK(vertices == g.num_vertices());
      CHECK(g.space(kind).index.size() < 64);  // not a chunk a 4 KiB of vertices
    }
    // The decode room of 64 KiB windows: 16 Ki offsets, or one chunk's.
    const WindowShape shape = largest_window_shape(g, 64 << 10);
    CHECK(shape.vertices <= kMaxChunkVertices);
    CHECK(shape.vertices >= 16 << 10);
  }
}

TEST_CASE("the default block count keeps the 1-D layout while vertex state fits and block starts tile whole slabs") {
  const uint64_t mib = 1 << 20;
  CHECK(choose_block_count(uint64_t{1} << 22, 176 * mib) == 1);  // R-MAT 22
  CHECK(choose_block_count(uint64_t{1} << 24, 176 * mib) == 1);  // R-MAT 24: 64 MiB of 4-byte state fits half
  CHECK(choose_block_count(uint64_t{1} << 25, 176 * mib) == 3);  // 128 MiB in ranges of 44 MiB
  CHECK(choose_block_count(uint64_t{1} << 26, 176 * mib) == 6);
  CHECK(choose_block_count(uint64_t{1} << 31, 4 * mib) == 256);  // at most 256
  for (const uint64_t n : {uint64_t{1}, uint64_t{5}, uint64_t{1000}, uint64_t{4097}, uint64_t{1} << 26}) {
    for (const uint32_t blocks : {1u, 3u, 7u}) {
      CAPTURE(n);
      CAPTURE(blocks);
      const std::vector<uint32_t> starts = block_starts(n, blocks);
      REQUIRE(!starts.empty());
      CHECK(starts.front() == 0);
      CHECK(starts.size() <= blocks);
      for (size_t b = 1; b < starts.size(); ++b) {
        CHECK(starts[b] > starts[b - 1]);
        CHECK(starts[b] < n);
        if (n >= 1024 * uint64_t{blocks}) CHECK(starts[b] % 1024 == 0);
      }
    }
  }
}
