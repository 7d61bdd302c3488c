// restripe: the graph reads back identically after moving to another set of
// devices and stripe depth; old files are removed; a failed restripe leaves
// the graph as it was.
#include <doctest/doctest.h>

#include <filesystem>

#include "shards/format/restripe.h"
#include "shards/format/verify.h"
#include "shards/ingest/ingest.h"
#include "test_util.h"

using namespace sg;

TEST_CASE("restripe moves a graph between device sets and stripe depths") {
  sgtest::TempDir dir;
  std::string edges;
  uint64_t state = 5;
  for (int i = 0; i < 5000; ++i) {
    edges += std::to_string(sgtest::next_random(&state) % 700) + " " +
             std::to_string(sgtest::next_random(&state) % 700) + " " +
             std::to_string(1 + sgtest::next_random(&state) % 9) + "\n";
  }
  sgtest::write_text(dir / "e.txt", edges);
  for (const char* d : {"a0", "a1", "b0", "b1", "b2"}) std::filesystem::create_directory(dir / d);
  IngestOptions o;
  o.input = dir / "e.txt";
  o.output = dir / "g";
  o.chunk_bytes = 128;
  o.stripe_bytes = 4096;
  o.devices = {dir / "a0", dir / "a1"};
  IngestSummary summary;
  REQUIRE(ingest_graph(o, &summary).ok());
  std::vector<sgtest::Arc> out_before, in_before;
  {
    Graph g;
    REQUIRE(Graph::open(dir / "g", &g).ok());
    out_before = sgtest::read_space(g, SpaceKind::kOut);
    in_before = sgtest::read_space(g, SpaceKind::kIn);
  }
  auto check_same = [&](size_t devices, uint64_t stripe) {
    Graph g;
    REQUIRE(Graph::open(dir / "g", &g).ok());
    CHECK(g.device_count() == devices);
    CHECK(g.layout().stripe_bytes() == stripe);
    CHECK(sgtest::read_space(g, SpaceKind::kOut) == out_before);
    CHECK(sgtest::read_space(g, SpaceKind::kIn) == in_before);
    VerifyReport report;
    CHECK(verify_graph(g, &report).ok());
  };

  // A missing device: an error, nothing changes, nothing is left behind.
  RestripeOptions bad;
  bad.devices = {dir / "b0", dir / "missing"};
  CHECK(restripe_graph(dir / "g", bad).code() == Status::Code::kNotFound);
  check_same(2, 4096);
  CHECK(sgtest::list_dir(dir / "b0").empty());

  RestripeOptions three;
  three.devices = {dir / "b0", dir / "b1", dir / "b2"};
  three.stripe_bytes = 8192;
  REQUIRE(restripe_graph(dir / "g", three).ok());
  check_same(3, 8192);
  CHECK(sgtest::list_dir(dir / "a0").empty());  // old files removed
  CHECK(sgtest::list_dir(dir / "a1").empty());
  CHECK(sgtest::list_dir(dir / "b2").size() == 2);  // out and in

  RestripeOptions home;  // back into the graph directory, one device
  REQUIRE(restripe_graph(dir / "g", home).ok());
  check_same(1, 8192);
  CHECK(sgtest::list_dir(dir / "b0").empty());
}
