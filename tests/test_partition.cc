// `shardgraph partition` (docs/scale-out.md): parts
// own contiguous destination ranges, hold exactly the arcs into them, add
// up to the graph, and a damaged or missing part is refused by verify; a
// distributed ingest of one rank writes the same.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "apps/jobs/ingest_distributed.h"
#include "apps/jobs/partition.h"
#include "base/file_util.h"
#include "core/communicator.h"
#include "shards/format/graph.h"
#include "test_util.h"

using namespace sg;
using sgtest::Arc;

namespace {

// A random directed graph with a hub, self-loops and isolated vertices.
std::vector<Arc> random_graph(uint64_t seed, uint64_t vertices, uint64_t arcs) {
  uint64_t state = seed;
  std::vector<Arc> out;
  for (uint64_t i = 0; i < arcs; ++i) {
    const uint64_t src = sgtest::next_random(&state) % 3 == 0 ? 5 : sgtest::next_random(&state) % vertices;
    out.push_back(Arc{src, sgtest::next_random(&state) % (vertices - 7), 1.0f});  // the last 7 get no in-arcs
  }
  out.push_back(Arc{vertices - 1, 0, 1.0f});
  return out;
}

}  // namespace

TEST_CASE("balanced ranges tile the vertices, each non-empty, balanced by vertices plus in-arcs") {
  std::vector<uint32_t> degrees(1000, 1);
  degrees[0] = 5000;  // a hub of in-arcs
  for (uint32_t parts : {1u, 2u, 3u, 7u}) {
    const std::vector<PartRange> ranges = balanced_ranges(degrees, parts);
    REQUIRE(ranges.size() == parts);
    uint64_t arcs = 0;
    for (uint32_t k = 0; k < parts; ++k) {
      CHECK(ranges[k].begin == (k == 0 ? 0 : ranges[k - 1].end));
      CHECK(ranges[k].end > ranges[k].begin);
      arcs += ranges[k].arcs;
    }
    CHECK(ranges.back().end == 1000);
    CHECK(arcs == 5999);
    // Balanced: no range weighs more than its share plus one vertex's weight.
    const uint64_t alpha = 1;
    const uint64_t total = alpha * 1000 + 5999;
    for (const PartRange& r : ranges) CHECK(alpha * (r.end - r.begin) + r.arcs <= total / parts + alpha + 5000);
  }
  const std::vector<PartRange> all = balanced_ranges(std::vector<uint32_t>(3, 0), 3);
  CHECK(all.size() == 3);
  CHECK(all[2].end == 3);
}

TEST_CASE(
    "partition: the parts hold exactly the arcs into their ranges, verify checks them, a missing part is refused") {
  for (const uint64_t seed : {1u, 2u, 3u}) {
    for (const uint32_t parts : {1u, 2u, 3u}) {
      CAPTURE(seed);
      CAPTURE(parts);
      sgtest::TempDir dir;
      const std::vector<Arc> input = random_graph(seed, 300, 2000);
      sgtest::write_snap(dir / "e.txt", input, false);
      std::string output;
      REQUIRE(sgtest::run_cli("ingest " + (dir / "e.txt") + " -o " + (dir / "g") + " --chunk-bytes 128 --order none",
                              &output) == 0);
      REQUIRE(sgtest::run_cli("partition " + (dir / "g") + " --parts " + std::to_string(parts) + " -o " + (dir / "p") +
                                  " --memory 8M",
                              &output) == 0);
      // "part-K: vertices [B, E), A arcs", one line a part (ids here are dense: SNAP from 0, no order).
      std::vector<std::pair<uint64_t, uint64_t>> ranges;
      for (uint32_t k = 0; k < parts; ++k) {
        const size_t at = output.find("part-" + std::to_string(k) + ": vertices [");
        REQUIRE(at != std::string::npos);
        unsigned long long begin = 0, end = 0;
        REQUIRE(std::sscanf(output.c_str() + at, "part-%*u: vertices [%llu, %llu)", &begin, &end) == 2);
        ranges.emplace_back(begin, end);
      }
      REQUIRE(sgtest::run_cli("verify " + (dir / "p"), &output) == 0);
      CHECK(output.find("ok: partitioned graph, 2001 arcs") != std::string::npos);
      REQUIRE(sgtest::run_cli("info " + (dir / "p"), &output) == 0);
      CHECK(output.find("partitioned directed graph: " + std::to_string(parts) + " parts, 300 vertices, 2001 arcs") !=
            std::string::npos);

      Graph whole;
      REQUIRE(Graph::open(dir / "g", &whole).ok());
      std::vector<Arc> expected = sgtest::read_space(whole, SpaceKind::kOut);
      std::sort(expected.begin(), expected.end());
      std::vector<Arc> joined, joined_reverse;
      for (uint32_t k = 0; k < parts; ++k) {
        // The reverse part: the transposed arcs whose source part k owns.
        Graph reverse;
        REQUIRE(Graph::open(dir / ("p/part-" + std::to_string(k) + ".reverse"), &reverse).ok());
        CHECK(reverse.num_vertices() == whole.num_vertices());
        for (const Arc& a : sgtest::read_space(reverse, SpaceKind::kOut)) {
          CHECK(a.dst >= ranges[k].first);
          CHECK(a.dst < ranges[k].second);
          joined_reverse.push_back(Arc{a.dst, a.src, a.weight});
        }
        CHECK(ranges[k].first == (k == 0 ? 0 : ranges[k - 1].second));
        CHECK(ranges[k].second > ranges[k].first);
        Graph part;
        REQUIRE(Graph::open(dir / ("p/part-" + std::to_string(k)), &part).ok());
        CHECK(part.num_vertices() == whole.num_vertices());
        for (const Arc& a : sgtest::read_space(part, SpaceKind::kIn)) {  // (destination, source)
          CHECK(a.src >= ranges[k].first);
          CHECK(a.src < ranges[k].second);
        }
        for (const Arc& a : sgtest::read_space(part, SpaceKind::kOut)) {
          CHECK(a.dst >= ranges[k].first);
          CHECK(a.dst < ranges[k].second);
          joined.push_back(a);
        }
      }
      CHECK(ranges.back().second == whole.num_vertices());
      std::sort(joined.begin(), joined.end());
      CHECK(joined == expected);
      std::sort(joined_reverse.begin(), joined_reverse.end());
      CHECK(joined_reverse == expected);

      // One process runs a partition of one part (MPI's singleton); more
      // parts need as many ranks (tests/distributed/ runs them).
      // (Open MPI leaks at finalize from unloaded libraries: no leak check.)
      const int rc = sgtest::run_cli("run pagerank " + (dir / "p"), &output, "ASAN_OPTIONS=detect_leaks=0");
      if (parts == 1) {
        CHECK(rc == 0);
        CHECK(output.find("pagerank: 20 iterations") != std::string::npos);
      } else {
        CHECK(rc == 2);
        CHECK(output.find("parts: run it with mpirun -np " + std::to_string(parts)) != std::string::npos);
      }
      if (parts > 1) {
        std::filesystem::rename(dir / "p/part-1", dir / "p/gone");
        CHECK(sgtest::run_cli("verify " + (dir / "p"), &output) != 0);
        CHECK(output.find("part-1: missing") != std::string::npos);
      }
    }
  }
}

TEST_CASE("partition of an undirected graph: each part holds both arcs of the edges into its range, a self-loop once") {
  sgtest::TempDir dir;
  sgtest::write_text(dir / "e.txt", "0 1\n1 2\n2 0\n3 3\n1 3\n");
  std::string output;
  REQUIRE(sgtest::run_cli("ingest " + (dir / "e.txt") + " -o " + (dir / "u") + " --undirected --order none", &output) ==
          0);
  REQUIRE(sgtest::run_cli("partition " + (dir / "u") + " --parts 2 -o " + (dir / "p"), &output) == 0);
  CHECK(sgtest::run_cli("verify " + (dir / "p"), &output) == 0);
  std::vector<Arc> joined;
  for (int k = 0; k < 2; ++k) {
    Graph part;
    REQUIRE(Graph::open(dir / ("p/part-" + std::to_string(k)), &part).ok());
    CHECK(part.directed());  // stored directed; ranks see it undirected
    CHECK(!std::filesystem::exists(dir / ("p/part-" + std::to_string(k) + ".reverse")));
    for (const Arc& a : sgtest::read_space(part, SpaceKind::kOut)) joined.push_back(a);
  }
  std::sort(joined.begin(), joined.end());
  const std::vector<Arc> expected{{0, 1, 1.0f}, {0, 2, 1.0f}, {1, 0, 1.0f}, {1, 2, 1.0f}, {1, 3, 1.0f},
                                  {2, 0, 1.0f}, {2, 1, 1.0f}, {3, 1, 1.0f}, {3, 3, 1.0f}};
  CHECK(joined == expected);
  CHECK(sgtest::run_cli("info " + (dir / "p"), &output) == 0);
  CHECK(output.find("partitioned undirected graph: 2 parts, 4 vertices, 5 edges") != std::string::npos);
}

TEST_CASE("partition refuses an existing output and too many parts, leaving nothing") {
  sgtest::TempDir dir;
  sgtest::write_text(dir / "e.txt", "0 1\n1 2\n2 0\n");
  std::string output;
  REQUIRE(sgtest::run_cli("ingest " + (dir / "e.txt") + " -o " + (dir / "g") + " --order none", &output) == 0);
  CHECK(sgtest::run_cli("partition " + (dir / "g") + " --parts 4 -o " + (dir / "p"), &output) != 0);
  CHECK(output.find("--parts must be between 1 and the vertex count (3)") != std::string::npos);
  CHECK(sgtest::run_cli("partition " + (dir / "g") + " --parts 2 -o " + (dir / "g"), &output) != 0);
  CHECK(output.find("already exists") != std::string::npos);
  CHECK(sgtest::list_dir(dir.path()) == std::vector<std::string>{"e.txt", "g"});
}

// One rank (no MPI: the one-rank communicator) runs the whole distributed
// ingest path: counting, routing through the exchange rounds, the part and
// reverse part ingested on their threads from bounded queues (a small
// budget: many rounds, queues that fill), the out-degrees and the commit.
TEST_CASE("ingest distributed, one rank: the part and reverse part hold exactly the input's arcs") {
  for (const bool undirected : {false, true}) {
    CAPTURE(undirected);
    sgtest::TempDir dir;
    std::vector<Arc> input = random_graph(7, 5000, 120000);
    for (Arc& a : input) a.weight = static_cast<float>(a.src % 5 + 1);
    input.push_back(input[10]);          // a duplicate
    input.push_back(Arc{42, 42, 3.0f});  // a self-loop
    sgtest::write_snap(dir / "e.txt", input, true);
    std::string output;
    const std::string shape = undirected ? " --undirected" : "";
    REQUIRE(sgtest::run_cli("ingest " + (dir / "e.txt") + " -o " + (dir / "g") + " --order none --no-remap" + shape,
                            &output) == 0);
    DistributedIngestOptions o;
    o.inputs = {dir / "e.txt"};
    o.part.output = dir / "p";
    o.part.undirected = undirected;
    o.part.memory_bytes = 12 << 20;  // rounds of 256 KiB: about 8 for 2 MB of arcs
    o.part.chunk_bytes = 256;
    std::filesystem::create_directory(dir / "disk");
    o.part_devices = {{dir / "disk"}};
    std::unique_ptr<Communicator> comm = local_communicator();
    DistributedIngestSummary summary;
    REQUIRE(ingest_distributed(o, comm.get(), &summary).ok());
    uint64_t arcs = 0;
    REQUIRE(verify_partition(dir / "p", &arcs).ok());

    Graph whole, part;
    REQUIRE(Graph::open(dir / "g", &whole).ok());
    REQUIRE(Graph::open(dir / "p/part-0", &part).ok());
    CHECK(summary.num_edges == whole.manifest().num_edges);
    CHECK(summary.num_vertices == whole.num_vertices());
    std::vector<Arc> expected = sgtest::read_space(whole, SpaceKind::kOut);
    std::vector<Arc> got = sgtest::read_space(part, SpaceKind::kOut);
    std::sort(expected.begin(), expected.end());
    std::sort(got.begin(), got.end());
    CHECK(got == expected);
    if (!undirected) {
      Graph reverse;
      REQUIRE(Graph::open(dir / "p/part-0.reverse", &reverse).ok());
      std::vector<Arc> transposed;
      for (const Arc& a : sgtest::read_space(reverse, SpaceKind::kOut))
        transposed.push_back(Arc{a.dst, a.src, a.weight});
      std::sort(transposed.begin(), transposed.end());
      CHECK(transposed == expected);
    }
    std::string whole_degrees, part_degrees;
    REQUIRE(read_whole_file(whole.degree_path(SpaceKind::kOut), &whole_degrees).ok());
    REQUIRE(read_whole_file(partition_out_degree_path(dir / "p"), &part_degrees).ok());
    CHECK(whole_degrees == part_degrees);
  }
}

TEST_CASE("ingest distributed, one rank: bad input is one error, and nothing is left") {
  sgtest::TempDir dir;
  sgtest::write_text(dir / "e.txt", "0 1\n1 2\n2 x\n");
  std::filesystem::create_directory(dir / "disk");
  DistributedIngestOptions o;
  o.inputs = {dir / "e.txt"};
  o.part.output = dir / "p";
  o.part_devices = {{dir / "disk"}};
  std::unique_ptr<Communicator> comm = local_communicator();
  DistributedIngestSummary summary;
  const Status s = ingest_distributed(o, comm.get(), &summary);
  CHECK(s.code() == Status::Code::kBadInput);
  CHECK(s.message().find("e.txt:3:") != std::string::npos);
  CHECK(sgtest::list_dir(dir.path()) == std::vector<std::string>{"disk", "e.txt"});
  CHECK(sgtest::list_dir(dir / "disk").empty());
  o.part.remap = IngestOptions::Remap::kAlways;
  CHECK(ingest_distributed(o, comm.get(), &summary).code() == Status::Code::kInvalidArgument);
}
