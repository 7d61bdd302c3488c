// WebGraph BVGraph input (shards/ingest/bvgraph_reader.h): the instantaneous
// codes against hand-made bit strings, the BVGraph datasets in
// ../shared/datasets decoded arc by arc against the reference decoder's
// dump (with and without .offsets, 1 and 2 threads), ingested to their
// published arc hash, and malformed inputs refused with one clear line.
#include <doctest/doctest.h>

#include <tbb/global_control.h>

#include <bit>
#include <filesystem>
#include <fstream>
#include <random>

#include "compression/instantaneous_codes.h"
#include "shards/ingest/bvgraph_reader.h"
#include "shards/ingest/ingest.h"
#include "shards/ingest/open_input.h"
#include "test_util.h"

using namespace sg;
namespace fs = std::filesystem;

namespace {

// Packs '0'/'1' characters into bytes, most significant bit first.
std::vector<uint8_t> bits_of(const std::string& text) {
  std::vector<uint8_t> bytes((text.size() + 7) / 8, 0);
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '1') bytes[i / 8] |= static_cast<uint8_t>(0x80 >> (i % 8));
  }
  return bytes;
}

std::vector<std::pair<uint64_t, uint64_t>> read_all(const std::string& path, InputFormat format) {
  std::unique_ptr<EdgeReader> reader;
  const Status s = open_edge_reader(path, format, false, &reader);
  REQUIRE_MESSAGE(s.ok(), s.ToString());
  std::vector<std::pair<uint64_t, uint64_t>> arcs;
  std::vector<RawEdge> batch;
  for (;;) {
    const Status r = reader->next_batch(&batch, 50000);
    REQUIRE_MESSAGE(r.ok(), r.ToString());
    if (batch.empty()) break;
    for (const RawEdge& e : batch) arcs.emplace_back(e.src, e.dst);
  }
  return arcs;
}

std::string dataset_base(const std::string& folder, const std::string& name) {
  return std::string(SHARDGRAPH_DATASETS) + "/" + folder + "/" + name;
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

Status ingest_from(const std::string& input, const std::string& output) {
  IngestOptions o;
  o.input = input;
  o.output = output;
  o.memory_bytes = 32 << 20;
  IngestSummary summary;
  return ingest_graph(o, &summary);
}

const char* kProperties =
    "graphclass=it.unimi.dsi.webgraph.BVGraph\nversion=0\nwindowsize=7\nminintervallength=4\nzetak=3\nmaxrefcount=3\n"
    "compressionflags=\n";

}  // namespace

TEST_CASE("instantaneous codes decode WebGraph's bit strings") {
  // unary 3 = 0001; gamma 4 = 00101; delta 4 = 01101 (gamma 2 = 011, then 01);
  // zeta_3 0 = 1 00; nibble 9 = 0001 1001.
  const std::vector<uint8_t> bytes = bits_of(
      "0001"
      "00101"
      "01101"
      "100"
      "00011001"
      "1");
  BitReader bits(bytes.data(), bytes.size());
  CHECK(bits.read_unary() == 3);
  CHECK(bits.read_gamma() == 4);
  CHECK(bits.read_delta() == 4);
  CHECK(bits.read_zeta(3) == 0);
  CHECK(bits.read_nibble() == 9);
  CHECK(bits.read_bit());
  CHECK_FALSE(bits.failed());
  // zeta_3 of 6 (h = 0: 1, then 7 - 1 in minimal binary over 7 values: 111),
  // of 7 and 13 (h = 1: 01, then 8 - 8 and 14 - 8 over 56 values, 5 bits).
  const std::vector<uint8_t> zeta = bits_of(
      "1"
      "111"
      "01"
      "00000"
      "01"
      "00110");
  BitReader z(zeta.data(), zeta.size());
  CHECK(z.read_zeta(3) == 6);
  CHECK(z.read_zeta(3) == 7);
  CHECK(z.read_zeta(3) == 13);
  CHECK(nat_to_int(0) == 0);
  CHECK(nat_to_int(1) == -1);
  CHECK(nat_to_int(4) == 2);
  // Past the end: the failure flag, never a read beyond the buffer.
  BitReader end(bytes.data(), 1);
  CHECK(end.read_bits(9) == 0);
  CHECK(end.failed());
  const std::vector<uint8_t> zeros(16, 0);
  BitReader unary(zeros.data(), zeros.size());
  unary.read_unary();
  CHECK(unary.failed());
}

TEST_CASE("instantaneous codes: random values written by the definitions read back, on the fast and the slow path") {
  // Writers straight from the definitions (x >= 0, coded as x + 1).
  std::string bits;
  auto fixed = [&](uint64_t value, unsigned count) {
    for (unsigned i = count; i-- > 0;) bits += ((value >> i) & 1) != 0 ? '1' : '0';
  };
  auto gamma = [&](uint64_t x) {
    const unsigned msb = static_cast<unsigned>(std::bit_width(x + 1)) - 1;
    bits += std::string(msb, '0') + "1";
    fixed(x + 1, msb);
  };
  auto zeta = [&](uint64_t x, unsigned k) {
    const uint64_t value = x + 1;
    const unsigned h = (static_cast<unsigned>(std::bit_width(value)) - 1) / k;
    const uint64_t left = uint64_t{1} << (h * k);
    bits += std::string(h, '0') + "1";
    if (value - left < left)
      fixed(value - left, h * k + k - 1);
    else
      fixed(value, h * k + k);
  };
  std::mt19937_64 random(3);
  std::vector<uint64_t> values;
  for (int i = 0; i < 3000; ++i) values.push_back(random() >> (8 + random() % 56));  // below 2^56: ids never come near
  for (size_t i = 0; i < values.size(); ++i) {
    if (i % 2 == 0)
      gamma(values[i]);
    else
      zeta(values[i], 1 + static_cast<unsigned>(i % 5));
  }
  const std::vector<uint8_t> bytes = bits_of(bits);
  BitReader reader(bytes.data(), bytes.size());
  for (size_t i = 0; i < values.size(); ++i) {
    CAPTURE(i);
    const uint64_t got = i % 2 == 0 ? reader.read_gamma() : reader.read_zeta(1 + static_cast<unsigned>(i % 5));
    REQUIRE(got == values[i]);
  }
  CHECK_FALSE(reader.failed());
  CHECK(reader.position() == bits.size());
}

TEST_CASE(
    "webgraph: the BVGraph datasets decode to the reference decoder's arcs, with and without offsets, 1 and 2 "
    "threads") {
  const std::vector<std::pair<std::string, std::string>> graphs = {
      {"cnr-2000", "cnr-2000"}, {"uk-2007-05-100000", "uk-2007-05@100000"}, {"dblp-2010", "dblp-2010"}};
  for (const auto& [folder, graph_name] : graphs) {
    const std::string& name = graph_name;  // CAPTURE's lambda cannot name a structured binding before clang 16
    const std::string base = dataset_base(folder, name);
    if (!fs::exists(base + ".graph")) {
      MESSAGE("skipped: " << base << " not present");
      continue;
    }
    CAPTURE(name);
    const auto expected = read_all(base + ".arcs.tsv.gz", InputFormat::kSnap);
    sgtest::TempDir dir;
    fs::copy_file(base + ".graph", dir / "g.graph");
    fs::copy_file(base + ".properties", dir / "g.properties");
    for (int threads : {1, 2}) {
      tbb::global_control limit(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(threads));
      CHECK(read_all(base + ".graph", InputFormat::kWebGraph) == expected);
      CHECK(read_all(base, InputFormat::kWebGraph) == expected);
    }
    CHECK(read_all(dir / "g", InputFormat::kWebGraph) == expected);  // no offsets: one sequential pass
  }
}

TEST_CASE("webgraph: ingest from a .graph keeps isolated nodes and is detected from the base name") {
  const std::string base = dataset_base("dblp-2010", "dblp-2010");
  if (!fs::exists(base + ".graph")) {
    MESSAGE("skipped: " << base << " not present");
    return;
  }
  InputFormat format = InputFormat::kSnap;
  REQUIRE(resolve_format(base, "", &format).ok());
  CHECK(format == InputFormat::kWebGraph);
  REQUIRE(resolve_format(base + ".properties", "", &format).ok());
  CHECK(format == InputFormat::kWebGraph);
  sgtest::TempDir dir;
  const Status s = ingest_from(base, dir / "g");
  REQUIRE_MESSAGE(s.ok(), s.ToString());
  Graph g;
  REQUIRE(Graph::open(dir / "g", &g).ok());
  CHECK(g.num_vertices() == 326186);  // 25,539 of them isolated
  CHECK(g.manifest().num_edges == 1615400);
}

TEST_CASE("webgraph: malformed BVGraph input is refused with one line naming the file, and leaves nothing") {
  sgtest::TempDir dir;
  auto refused = [&](const std::string& properties, const std::vector<uint8_t>& graph, const char* expected) {
    std::ofstream(dir / "b.properties") << properties;
    write_bytes(dir / "b.graph", graph);
    const Status s = ingest_from(dir / "b", dir / "out");
    CHECK(s.code() == Status::Code::kBadInput);
    CHECK_MESSAGE(s.message().find(expected) != std::string::npos, s.message());
    CHECK(s.message().find('\n') == std::string::npos);
    CHECK_FALSE(fs::exists(dir / "out"));
  };
  const std::string two_nodes = std::string(kProperties) + "nodes=2\narcs=2\n";
  // Node 0: outdegree 1, reference 1 (before node 0).
  refused(two_nodes,
          bits_of("010"
                  "01"),
          "outside the window");
  // Node 0: outdegree 1, no reference, no interval, residual 0 + nat(2) = 1;
  // node 1: outdegree 1, then the file ends.
  refused(two_nodes,
          bits_of("010"
                  "1"
                  "1"
                  "1011"
                  "010"),
          "truncated");
  // A successor past the node count (residual 0 + nat(8) = 4 of 2 nodes).
  refused(two_nodes,
          bits_of("010"
                  "1"
                  "1"
                  "0100001"),
          "outside the node range");
  refused(std::string(kProperties) + "nodes=2\narcs=2\ncompressionflags=RESIDUALS_HUFFMAN\n", bits_of("1"),
          "unknown coding 'RESIDUALS_HUFFMAN'");
  refused("graphclass=it.unimi.dsi.webgraph.EFGraph\nnodes=2\narcs=2\n", bits_of("1"), "is not a BVGraph");
  // Two empty nodes, but the properties promise arcs.
  refused(two_nodes,
          bits_of("1"
                  "1"),
          "holds 0 arcs");
  // Offsets past the end of the .graph file.
  std::ofstream(dir / "b.properties") << two_nodes;
  write_bytes(dir / "b.graph", bits_of("1"
                                       "1"));
  write_bytes(dir / "b.offsets", bits_of("1"
                                         "000010000"));  // 0, then +15 (of 8 bits)
  const Status s = ingest_from(dir / "b", dir / "out");
  CHECK_MESSAGE(s.message().find("past the end of the .graph file") != std::string::npos, s.message());
  CHECK_FALSE(fs::exists(dir / "out"));
}
