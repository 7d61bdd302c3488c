// Input formats: SNAP text (comments, CRLF, tabs, gzip, CSV header), Matrix
// Market (general, symmetric, pattern/integer/real), binary edge lists, and
// id remapping; results are read back in original ids.
#include <doctest/doctest.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>
#include <fstream>

#include "apps/jobs/generate.h"
#include "apps/jobs/ingest_ordered.h"
#include "shards/ingest/edge_reader.h"
#include "shards/ingest/open_input.h"
#include "test_util.h"

using namespace sg;
using sgtest::Arc;

namespace {

Graph ingest_text(const sgtest::TempDir& dir, const std::string& name, const std::string& text, IngestOptions o = {}) {
  sgtest::write_text(dir / name, text);
  o.input = dir / name;
  o.output = dir / (name + ".graph");
  IngestSummary summary;
  Status s = ingest_ordered(o, &summary);
  REQUIRE_MESSAGE(s.ok(), s.ToString());
  Graph g;
  REQUIRE(Graph::open(o.output, &g).ok());
  return g;
}

}  // namespace

TEST_CASE("snap text: comments, blank lines, CRLF, tabs and commas") {
  sgtest::TempDir dir;
  Graph g = ingest_text(dir, "g.txt", "# comment\r\n% other comment\r\n\r\n0\t1\r\n  1 2\r\n2,0\r\n");
  CHECK(sgtest::read_space(g, SpaceKind::kOut) == std::vector<Arc>{{0, 1, 1}, {1, 2, 1}, {2, 0, 1}});
}

TEST_CASE("snap Nodes header adds isolated vertices") {
  sgtest::TempDir dir;
  Graph g = ingest_text(dir, "n.txt", "# Directed graph\n# Nodes: 10 Edges: 1\n0 1\n");
  CHECK(g.num_vertices() == 10);
  IngestOptions o;
  o.remap = IngestOptions::Remap::kAlways;
  Graph r = ingest_text(dir, "r.txt", "# Nodes: 10 Edges: 1\n0 1\n", o);
  CHECK(r.num_vertices() == 2);
}

TEST_CASE("csv with a header line") {
  sgtest::TempDir dir;
  Graph g = ingest_text(dir, "g.csv", "id_1,id_2\n0,1\n1,2\n");
  CHECK(g.manifest().num_edges == 2);
}

TEST_CASE("gzip text with weights") {
  sgtest::TempDir dir;
  gzFile f = gzopen((dir / "w.txt.gz").c_str(), "wb");
  const char text[] = "0 1 2.5\n1 0 0.25\n";
  gzwrite(f, text, sizeof(text) - 1);
  gzclose(f);
  Graph g;
  sgtest::ingest_and_open(dir / "w.txt.gz", dir / "w", &g);
  CHECK(g.weighted());
  CHECK(sgtest::read_space(g, SpaceKind::kOut) == std::vector<Arc>{{0, 1, 2.5f}, {1, 0, 0.25f}});
}

TEST_CASE("zstd-compressed text, several frames") {
  sgtest::TempDir dir;
  std::string compressed;
  for (const std::string part : {"# a\n0 1\n1 2\n", "2 0\n"}) {
    std::string frame(ZSTD_compressBound(part.size()), '\0');
    const size_t n = ZSTD_compress(frame.data(), frame.size(), part.data(), part.size(), 3);
    REQUIRE_FALSE(ZSTD_isError(n));
    compressed += frame.substr(0, n);
  }
  sgtest::write_text(dir / "z.txt.zst", compressed);
  Graph g;
  sgtest::ingest_and_open(dir / "z.txt.zst", dir / "z", &g);
  CHECK(sgtest::read_space(g, SpaceKind::kOut) == std::vector<Arc>{{0, 1, 1}, {1, 2, 1}, {2, 0, 1}});
}

TEST_CASE("DIMACS .gr keeps 1-based ids, weights and isolated vertices") {
  sgtest::TempDir dir;
  Graph g = ingest_text(dir, "road.gr", "c 9th DIMACS challenge\np sp 5 3\nc arcs\na 1 2 7\na 2 3 4\na 3 1 2\n");
  CHECK(g.num_vertices() == 5);
  CHECK(g.weighted());
  CHECK(sgtest::read_space(g, SpaceKind::kOut) == std::vector<Arc>{{1, 2, 7}, {2, 3, 4}, {3, 1, 2}});
}

TEST_CASE("a file named for no format is recognised from its first lines") {
  sgtest::TempDir dir;
  sgtest::write_text(dir / "a.txt", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2\n");
  sgtest::write_text(dir / "b.data", "c a road\nc more\np sp 3 1\na 1 2 5\n");
  sgtest::write_text(dir / "c.txt", "0 1\n");
  InputFormat format = InputFormat::kSnap;
  REQUIRE(resolve_format(dir / "a.txt", "", &format).ok());
  CHECK(format == InputFormat::kMtx);
  REQUIRE(resolve_format(dir / "b.data", "", &format).ok());
  CHECK(format == InputFormat::kDimacs);
  REQUIRE(resolve_format(dir / "c.txt", "", &format).ok());
  CHECK(format == InputFormat::kSnap);
}

TEST_CASE("matrix market general real keeps 1-based ids and values") {
  sgtest::TempDir dir;
  Graph g =
      ingest_text(dir, "m.mtx", "%%MatrixMarket matrix coordinate real general\n% c\n4 4 3\n1 2 0.5\n4 1 2\n2 2 -1\n");
  CHECK(g.num_vertices() == 4);
  CHECK(g.directed());
  CHECK(sgtest::read_space(g, SpaceKind::kOut) == std::vector<Arc>{{1, 2, 0.5f}, {2, 2, -1.0f}, {4, 1, 2.0f}});
  uint32_t dense = 0;
  CHECK(g.dense_id(4, &dense));
  CHECK(dense == 3);
  CHECK_FALSE(g.dense_id(0, &dense));
}

TEST_CASE("matrix market symmetric pattern is an undirected graph and isolated rows count") {
  sgtest::TempDir dir;
  Graph g = ingest_text(dir, "s.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n5 5 2\n2 1\n3 3\n");
  CHECK(g.num_vertices() == 5);
  CHECK_FALSE(g.directed());
  CHECK_FALSE(g.weighted());
  CHECK(g.manifest().num_edges == 2);
  CHECK(sgtest::read_space(g, SpaceKind::kOut) == std::vector<Arc>{{1, 2, 1}, {2, 1, 1}, {3, 3, 1}});
}

TEST_CASE("binary edge lists: bin32, bin64 and weighted records") {
  sgtest::TempDir dir;
  {
    std::ofstream out(dir / "e.bin32", std::ios::binary);
    const uint32_t ids[] = {0, 1, 1, 2, 2, 0};
    out.write(reinterpret_cast<const char*>(ids), sizeof(ids));
  }
  {
    std::ofstream out(dir / "e.bin64", std::ios::binary);
    const uint64_t a[] = {7, 3};
    const float w = 1.5f;
    out.write(reinterpret_cast<const char*>(a), sizeof(a));
    out.write(reinterpret_cast<const char*>(&w), 4);
  }
  IngestOptions o;
  o.input = dir / "e.bin32";
  o.output = dir / "g32";
  IngestSummary summary;
  REQUIRE(ingest_ordered(o, &summary).ok());
  o.input = dir / "e.bin64";
  o.output = dir / "g64";
  o.binary_weights = true;
  REQUIRE(ingest_ordered(o, &summary).ok());
  Graph g32, g64;
  REQUIRE(Graph::open(dir / "g32", &g32).ok());
  REQUIRE(Graph::open(dir / "g64", &g64).ok());
  CHECK(sgtest::read_space(g32, SpaceKind::kIn) == std::vector<Arc>{{0, 2, 1}, {1, 0, 1}, {2, 1, 1}});
  CHECK(g64.num_vertices() == 8);
  CHECK(sgtest::read_space(g64, SpaceKind::kOut) == std::vector<Arc>{{7, 3, 1.5f}});
}

TEST_CASE("remap turns sparse 64-bit ids into dense ids and back") {
  sgtest::TempDir dir;
  IngestOptions o;
  o.remap = IngestOptions::Remap::kAlways;
  Graph g = ingest_text(dir, "big.txt", "18446744073709551000 5\n5 99999999999\n99999999999 18446744073709551000\n", o);
  CHECK(g.num_vertices() == 3);
  CHECK(sgtest::read_space(g, SpaceKind::kOut) == std::vector<Arc>{{5, 99999999999ULL, 1},
                                                                   {99999999999ULL, 18446744073709551000ULL, 1},
                                                                   {18446744073709551000ULL, 5, 1}});
  uint32_t v = 0;
  CHECK(g.dense_id(99999999999ULL, &v));
  CHECK(v == 1);
}

TEST_CASE("generated R-MAT is deterministic and ingests identically from text and binary") {
  sgtest::TempDir dir;
  RmatOptions r;
  r.scale = 10;
  r.edge_factor = 8;
  r.seed = 3;
  r.weights = true;
  REQUIRE(generate_rmat(r, dir / "a.txt").ok());
  REQUIRE(generate_rmat(r, dir / "b.txt").ok());
  REQUIRE(generate_rmat(r, dir / "c.bin32").ok());
  CHECK(sgtest::read_text(dir / "a.txt") == sgtest::read_text(dir / "b.txt"));
  IngestOptions o;
  o.input = dir / "a.txt";
  o.output = dir / "ga";
  IngestSummary summary;
  REQUIRE(ingest_ordered(o, &summary).ok());
  CHECK(summary.input_edges == 8192);
  o.input = dir / "c.bin32";
  o.output = dir / "gc";
  o.binary_weights = true;
  REQUIRE(ingest_ordered(o, &summary).ok());
  Graph ga, gc;
  REQUIRE(Graph::open(dir / "ga", &ga).ok());
  REQUIRE(Graph::open(dir / "gc", &gc).ok());
  CHECK(sgtest::read_space(ga, SpaceKind::kOut) == sgtest::read_space(gc, SpaceKind::kOut));
  CHECK(sgtest::read_space(ga, SpaceKind::kIn) == sgtest::read_space(gc, SpaceKind::kIn));
}
