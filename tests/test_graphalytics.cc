// The LDBC Graphalytics validation suite (../shared/conformance/
// ldbc-graphalytics, see its README): every kernel of the benchmark (BFS,
// PageRank, WCC, CDLP, LCC, SSSP) on its validation and example graphs, with
// the parameters of the suite's Java tests, through the CLI with
// --format graphalytics, in every --io mode, with 64-byte chunks and 1-3
// devices. Checked by the specification's rules: exact for BFS and CDLP,
// the same partition for WCC, relative 1e-4 for PageRank, LCC and SSSP.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "test_util.h"

namespace fs = std::filesystem;

namespace {

enum class Rule { kExact, kPartition, kClose };

struct ValidationCase {
  std::string input;    // under the suite: an adjacency file, or a .v/.e basename
  bool parse_directed;  // how the Java test parses it (GraphParser)
  std::string app, expected, run_flags;
  Rule rule;
};

// The suite's vertex-based adjacency lists ("v n1 n2 ...") read as the Java
// GraphParser reads them (arcs a set; undirected: both ways), written as a
// Graphalytics .v/.e pair; an undirected graph lists each edge once.
void adjacency_to_ve(const std::string& path, bool directed, const std::string& basename) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::set<uint64_t> vertices;
  std::set<std::pair<uint64_t, uint64_t>> arcs;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    uint64_t v = 0, w = 0;
    fields >> v;
    vertices.insert(v);
    while (fields >> w) {
      vertices.insert(w);
      arcs.insert(directed ? std::pair{v, w} : std::pair{std::min(v, w), std::max(v, w)});
    }
  }
  std::string v_text, e_text;
  for (uint64_t v : vertices) v_text += std::to_string(v) + "\n";
  for (const auto& [u, w] : arcs) e_text += std::to_string(u) + " " + std::to_string(w) + "\n";
  sgtest::write_text(basename + ".v", v_text);
  sgtest::write_text(basename + ".e", e_text);
  sgtest::write_text(basename + ".properties",
                     std::string("graph.g.directed = ") + (directed ? "true" : "false") + "\n");
}

void check(const std::map<uint64_t, double>& actual, const std::map<uint64_t, double>& expected, Rule rule) {
  REQUIRE(actual.size() == expected.size());
  std::map<double, double> label_of;  // expected label -> actual label (WCC)
  std::map<double, double> back;
  for (const auto& [vertex, want] : expected) {
    const uint64_t v = vertex;  // CAPTURE's lambda cannot name a structured binding before clang 16
    CAPTURE(v);
    REQUIRE(actual.count(v) == 1);
    const double got = actual.at(v);
    switch (rule) {
      case Rule::kExact: CHECK(got == want); break;
      case Rule::kPartition:
        // The same partition: labels map one to one.
        CHECK(label_of.emplace(want, got).first->second == got);
        CHECK(back.emplace(got, want).first->second == want);
        break;
      case Rule::kClose:
        if (std::isinf(want))
          CHECK(std::isinf(got));
        else
          CHECK(std::abs(got - want) <= 1e-4 * std::abs(want) + 1e-12);
        break;
    }
  }
}

}  // namespace

TEST_CASE(
    "LDBC Graphalytics validation graphs: all six kernels give the published outputs in every I/O mode on 1-3 "
    "devices") {
  const std::string suite = std::string(SHARDGRAPH_DATASETS) + "/../conformance/ldbc-graphalytics";
  if (!fs::exists(suite + "/example/example-directed.v")) {
    MESSAGE("skipped: " << suite << " not present");
    return;
  }
  const std::vector<ValidationCase> cases = {
      {"bfs/dir-input", true, "bfs", "bfs/dir-output", "--source 1", Rule::kExact},
      {"bfs/undir-input", true, "bfs", "bfs/undir-output", "--source 1", Rule::kExact},
      {"example/example-directed-input", true, "bfs", "example/example-directed-BFS", "--source 1", Rule::kExact},
      {"example/example-undirected-input", true, "bfs", "example/example-undirected-BFS", "--source 2", Rule::kExact},
      {"pr/dir-input", true, "pagerank", "pr/dir-output", "--iterations 14", Rule::kClose},
      {"pr/undir-input", true, "pagerank", "pr/undir-output", "--iterations 26", Rule::kClose},
      {"example/example-directed-input", true, "pagerank", "example/example-directed-PR", "--iterations 2",
       Rule::kClose},
      {"example/example-undirected-input", true, "pagerank", "example/example-undirected-PR", "--iterations 2",
       Rule::kClose},
      {"wcc/dir-input", true, "wcc", "wcc/dir-output", "", Rule::kPartition},
      {"wcc/undir-input", false, "wcc", "wcc/undir-output", "", Rule::kPartition},
      {"example/example-directed-input", true, "wcc", "example/example-directed-WCC", "", Rule::kPartition},
      {"example/example-undirected-input", true, "wcc", "example/example-undirected-WCC", "", Rule::kPartition},
      {"cdlp/dir-input", true, "cdlp", "cdlp/dir-output", "--iterations 5", Rule::kExact},
      {"cdlp/undir-input", false, "cdlp", "cdlp/undir-output", "--iterations 5", Rule::kExact},
      {"example/example-directed-input", true, "cdlp", "example/example-directed-CDLP", "--iterations 2", Rule::kExact},
      {"example/example-undirected-input", false, "cdlp", "example/example-undirected-CDLP", "--iterations 2",
       Rule::kExact},
      {"lcc/dir-input", true, "lcc", "lcc/dir-output", "", Rule::kClose},
      {"lcc/undir-input", false, "lcc", "lcc/undir-output", "", Rule::kClose},
      {"example/example-directed-input", true, "lcc", "example/example-directed-LCC", "", Rule::kClose},
      {"example/example-undirected-input", true, "lcc", "example/example-undirected-LCC", "", Rule::kClose},
      // Weighted: the suite's own .v/.e files.
      {"sssp/dir-input", true, "sssp", "sssp/dir-output", "--source 1", Rule::kClose},
      {"sssp/undir-input", false, "sssp", "sssp/undir-output", "--source 1", Rule::kClose},
      {"example/example-directed", true, "sssp", "example/example-directed-SSSP", "--source 1", Rule::kClose},
      {"example/example-undirected", false, "sssp", "example/example-undirected-SSSP", "--source 2", Rule::kClose},
  };
  sgtest::TempDir dir;
  std::string output;
  int runs = 0;
  for (const ValidationCase& c : cases) {
    CAPTURE(c.input);
    CAPTURE(c.app);
    std::string input = dir / "g";
    if (c.app == "sssp") {
      input = suite + "/" + c.input;
    } else {
      adjacency_to_ve(suite + "/" + c.input, c.parse_directed, input);
    }
    const std::map<uint64_t, double> expected = sgtest::read_values(suite + "/" + c.expected);
    for (int devices = 1; devices <= 3; ++devices) {
      CAPTURE(devices);
      const std::string graph = dir / "graph";
      fs::remove_all(graph);
      std::string device_flags;
      for (int d = 0; d < devices && devices > 1; ++d) {
        const std::string device = dir / ("d" + std::to_string(d));
        fs::remove_all(device);
        fs::create_directory(device);
        device_flags += " --device " + device;
      }
      const std::string undirected = c.parse_directed ? "" : " --undirected";
      REQUIRE_MESSAGE(sgtest::run_cli("ingest " + input + " -o " + graph + undirected +
                                          " --chunk-bytes 64 --stripe-bytes 4096" + device_flags,
                                      &output) == 0,
                      output);
      for (const char* io : {"auto", "full", "selective"}) {
        CAPTURE(io);
        fs::remove(dir / "out.txt");
        REQUIRE_MESSAGE(sgtest::run_cli("run " + c.app + " " + graph + " " + c.run_flags + " --io " + io +
                                            " --format graphalytics --output " + (dir / "out.txt"),
                                        &output) == 0,
                        output);
        check(sgtest::read_values(dir / "out.txt"), expected, c.rule);
        ++runs;
      }
    }
  }
  CHECK(runs == static_cast<int>(cases.size()) * 9);
}
