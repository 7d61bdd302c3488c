// Real graphs from ../shared/datasets (skipped when absent, as in a user's
// clone): each ingests, verifies, and its arcs read back in original ids
// hash to the SHA-256 published in STATS.json (BVGraph ones from .graph).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "apps/jobs/ingest_ordered.h"
#include "shards/format/verify.h"
#include "test_util.h"

using namespace sg;

namespace {

std::string sha256_of_file(const std::string& path) {
  std::string output;
  FILE* pipe = ::popen(("sha256sum " + path).c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buf[128] = {};
  if (std::fgets(buf, sizeof(buf), pipe) != nullptr) output = buf;
  ::pclose(pipe);
  return output.substr(0, 64);
}

void check_dataset(const std::string& name, const std::string& file, bool remap) {
  const std::string folder = std::string(SHARDGRAPH_DATASETS) + "/" + name;
  if (!std::filesystem::exists(folder + "/" + file)) {
    MESSAGE("skipped: " << folder << " not present");
    return;
  }
  std::ifstream stats_file(folder + "/STATS.json");
  const nlohmann::json stats = nlohmann::json::parse(stats_file);
  sgtest::TempDir dir;
  IngestOptions o;
  o.input = folder + "/" + file;
  o.output = dir / "g";
  o.remap = remap ? IngestOptions::Remap::kAlways : IngestOptions::Remap::kAuto;
  o.memory_bytes = 16 << 20;
  o.devices = {};
  IngestSummary summary;
  Status s = ingest_ordered(o, &summary);
  REQUIRE_MESSAGE(s.ok(), s.ToString());
  Graph g;
  REQUIRE(Graph::open(o.output, &g).ok());
  VerifyReport report;
  s = verify_graph(g, &report);
  CHECK_MESSAGE(s.ok(), s.ToString());
  CHECK(g.manifest().num_edges == stats["arcs"].get<uint64_t>());
  CHECK(g.manifest().ingest.self_loops == stats["self_loops"].get<uint64_t>());
  if (remap) CHECK(g.num_vertices() == stats["distinct_ids"].get<uint64_t>());

  std::vector<sgtest::Arc> arcs = sgtest::read_space(g, SpaceKind::kOut);
  std::sort(arcs.begin(), arcs.end());
  {
    std::ofstream out(dir / "arcs.tsv");
    for (const auto& a : arcs) out << a.src << '\t' << a.dst << '\n';
  }
  CHECK(sha256_of_file(dir / "arcs.tsv") == stats["sha256_sorted_arcs"].get<std::string>());
}

}  // namespace

TEST_CASE("dataset wiki-Vote (SNAP gzip, CRLF, sparse ids, remapped)") {
  check_dataset("wiki-Vote", "wiki-Vote.txt.gz", true);
}
TEST_CASE("dataset p2p-Gnutella31 (SNAP gzip)") { check_dataset("p2p-Gnutella31", "p2p-Gnutella31.txt.gz", false); }
TEST_CASE("dataset cit-HepTh (SNAP gzip, arXiv ids, remapped)") {
  check_dataset("cit-HepTh", "cit-HepTh.txt.gz", true);
}
TEST_CASE("dataset cnr-2000 (WebGraph BVGraph)") { check_dataset("cnr-2000", "cnr-2000.graph", false); }
TEST_CASE("dataset uk-2007-05@100000 (WebGraph BVGraph)") {
  check_dataset("uk-2007-05-100000", "uk-2007-05@100000.graph", false);
}
TEST_CASE("dataset dblp-2010 (WebGraph BVGraph, symmetric arcs, isolated nodes)") {
  check_dataset("dblp-2010", "dblp-2010.graph", false);
}
