// Inputs with their own conventions, checked end to end: LDBC Graphalytics
// .v/.e pairs (isolated vertices, sparse 64-bit ids, directed or not) and
// DIMACS .gr road networks ingest, and BFS and SSSP on them match a tiny
// in-test reference (queue BFS, Dijkstra) in original ids. The LDBC
// validation graphs: tests/test_graphalytics.cc.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <queue>
#include <random>
#include <set>
#include <sstream>

#include "test_util.h"

namespace fs = std::filesystem;

namespace {

struct WeightedArc {
  uint64_t src, dst;
  double weight;
};

// Unreachable: -1 (BFS) / infinity (SSSP).
std::map<uint64_t, double> reference_distances(const std::vector<uint64_t>& vertices,
                                               const std::vector<WeightedArc>& arcs, bool directed, uint64_t source,
                                               bool unit) {
  std::map<uint64_t, std::vector<std::pair<uint64_t, double>>> out;
  for (const WeightedArc& a : arcs) {
    out[a.src].push_back({a.dst, unit ? 1.0 : a.weight});
    if (!directed) out[a.dst].push_back({a.src, unit ? 1.0 : a.weight});
  }
  std::map<uint64_t, double> distance;
  for (uint64_t v : vertices) distance[v] = INFINITY;
  using Item = std::pair<double, uint64_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  distance[source] = 0;
  queue.push({0, source});
  while (!queue.empty()) {
    const auto [d, v] = queue.top();
    queue.pop();
    if (d > distance[v]) continue;
    for (const auto& [w, weight] : out[v]) {
      if (d + weight < distance[w]) {
        distance[w] = d + weight;
        queue.push({distance[w], w});
      }
    }
  }
  if (unit) {
    for (auto& [v, d] : distance) {
      if (std::isinf(d)) d = -1;
    }
  }
  return distance;
}

void check_close(const std::map<uint64_t, double>& actual, const std::map<uint64_t, double>& expected) {
  REQUIRE(actual.size() == expected.size());
  for (const auto& [vertex, want] : expected) {
    const uint64_t v = vertex;  // CAPTURE's lambda cannot name a structured binding before clang 16
    CAPTURE(v);
    REQUIRE(actual.count(v) == 1);
    const double got = actual.at(v);
    if (std::isinf(want))
      CHECK(std::isinf(got));
    else
      CHECK(std::abs(got - want) <= 1e-4 * std::abs(want) + 1e-9);
  }
}

// Ingests `input` and runs `app` from `source`; returns the output values.
std::map<uint64_t, double> run_app(const sgtest::TempDir& dir, const std::string& input, const std::string& app,
                                   uint64_t source, const std::string& ingest_flags = "",
                                   const std::string& run_flags = "") {
  std::string output;
  const std::string graph = dir / ("g-" + app);
  fs::remove_all(graph);
  REQUIRE_MESSAGE(sgtest::run_cli("ingest " + input + " -o " + graph + " " + ingest_flags, &output) == 0, output);
  REQUIRE_MESSAGE(sgtest::run_cli("run " + app + " " + graph + " --source " + std::to_string(source) + " --output " +
                                      (dir / "out.txt") + " " + run_flags,
                                  &output) == 0,
                  output);
  return sgtest::read_values(dir / "out.txt");
}

}  // namespace

TEST_CASE("graphalytics .v/.e: isolated vertices and sparse 64-bit ids, BFS and SSSP match a reference") {
  std::mt19937_64 random(11);
  for (bool directed : {true, false}) {
    CAPTURE(directed);
    sgtest::TempDir dir;
    std::vector<uint64_t> vertices;
    for (int i = 0; i < 60; ++i) vertices.push_back((random() >> 4) | (uint64_t{1} << 40));  // sparse and wide
    std::sort(vertices.begin(), vertices.end());
    std::vector<WeightedArc> arcs;
    std::string v_text, e_text;
    for (uint64_t v : vertices) v_text += std::to_string(v) + "\n";
    for (int i = 0; i < 150; ++i) {
      // The last 10 vertices are isolated.
      const WeightedArc a{vertices[random() % 50], vertices[random() % 50],
                          0.5 + static_cast<double>(random() % 40) / 8};
      arcs.push_back(a);
      e_text += std::to_string(a.src) + " " + std::to_string(a.dst) + " " + std::to_string(a.weight) + "\n";
    }
    sgtest::write_text(dir / "ga.v", v_text);
    sgtest::write_text(dir / "ga.e", e_text);
    sgtest::write_text(dir / "ga.properties",
                       std::string("graph.ga.directed = ") + (directed ? "true" : "false") + "\n");
    const uint64_t source = vertices[3];
    check_close(run_app(dir, dir / "ga", "bfs", source), reference_distances(vertices, arcs, directed, source, true));
    check_close(run_app(dir, dir / "ga.e", "sssp", source),
                reference_distances(vertices, arcs, directed, source, false));
  }
}

TEST_CASE("graphalytics: an edge naming an unlisted vertex, a repeated vertex and a malformed id are refused") {
  sgtest::TempDir dir;
  std::string output;
  sgtest::write_text(dir / "a.v", "1\n5\n");
  sgtest::write_text(dir / "a.e", "1 5\n5 7\n");
  CHECK(sgtest::run_cli("ingest " + (dir / "a") + " -o " + (dir / "g"), &output) == 2);
  CHECK_MESSAGE(output.find("names vertex 7, which the vertex file does not list") != std::string::npos, output);
  sgtest::write_text(dir / "b.v", "1\n5\n1\n");
  sgtest::write_text(dir / "b.e", "1 5\n");
  CHECK(sgtest::run_cli("ingest " + (dir / "b.v") + " -o " + (dir / "g"), &output) == 2);
  CHECK_MESSAGE(output.find("b.v: vertex 1 is listed twice") != std::string::npos, output);
  // Values after the id are allowed, a malformed id is not.
  sgtest::write_text(dir / "c.v", "1 0.5\nx 2\n");
  sgtest::write_text(dir / "c.e", "1 1\n");
  CHECK(sgtest::run_cli("ingest " + (dir / "c.e") + " -o " + (dir / "g"), &output) == 2);
  CHECK_MESSAGE(output.find("c.v:2: expected a vertex id first") != std::string::npos, output);
  CHECK_FALSE(fs::exists(dir / "g"));
}

TEST_CASE("graphalytics .v with a value column (libgrape-lite's p2p-31.v): ids read, values ignored and said so") {
  sgtest::TempDir dir;
  // Sparse ids as in p2p-31, each vertex of the .v with a value after it.
  std::string v_text, e_text;
  std::mt19937_64 random(9);
  std::vector<uint64_t> ids;
  for (uint64_t i = 0; i < 300; ++i) ids.push_back(i * 7919 + 11);
  for (uint64_t id : ids) v_text += std::to_string(id) + " " + std::to_string(random() % 100) + "\n";
  for (int i = 0; i < 1500; ++i) {
    e_text += std::to_string(ids[random() % ids.size()]) + " " + std::to_string(ids[random() % ids.size()]) + "\n";
  }
  sgtest::write_text(dir / "p2p.v", v_text);
  sgtest::write_text(dir / "p2p.e", e_text);
  std::string output;
  REQUIRE(sgtest::run_cli("ingest " + (dir / "p2p.e") + " -o " + (dir / "g") + " --memory 64M", &output) == 0);
  CHECK_MESSAGE(output.find("p2p.v: the columns after the vertex id (300 lines) were ignored") != std::string::npos,
                output);
  REQUIRE(sgtest::run_cli("ingest " + (dir / "p2p.e") + " -o " + (dir / "snap") + " --format snap --remap --memory 64M",
                          &output) == 0);
  sg::Graph g, snap;
  REQUIRE(sg::Graph::open(dir / "g", &g).ok());
  REQUIRE(sg::Graph::open(dir / "snap", &snap).ok());
  // Every listed vertex occurs in an edge here, so the vertex sets agree.
  std::set<uint64_t> seen;
  for (const std::string& line : {e_text}) {
    std::istringstream in(line);
    uint64_t a = 0, b = 0;
    while (in >> a >> b) seen.insert({a, b});
  }
  REQUIRE(seen.size() == ids.size());
  CHECK(g.num_vertices() == snap.num_vertices());
  for (sg::SpaceKind kind : {sg::SpaceKind::kOut, sg::SpaceKind::kIn}) {
    auto a = sgtest::read_space(g, kind), b = sgtest::read_space(snap, kind);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    CHECK(a == b);
  }
}

TEST_CASE("DIMACS road grid: BFS and SSSP match a reference") {
  sgtest::TempDir dir;
  std::mt19937_64 random(5);
  constexpr uint64_t kSide = 12;
  std::vector<uint64_t> vertices;
  for (uint64_t v = 1; v <= kSide * kSide + 3; ++v) vertices.push_back(v);  // 3 isolated at the end
  std::vector<WeightedArc> arcs;
  for (uint64_t r = 0; r < kSide; ++r) {
    for (uint64_t c = 0; c < kSide; ++c) {
      const uint64_t v = r * kSide + c + 1;
      if (c + 1 < kSide) arcs.push_back({v, v + 1, static_cast<double>(1 + random() % 100)});
      if (r + 1 < kSide) arcs.push_back({v, v + kSide, static_cast<double>(1 + random() % 100)});
      if (c > 0) arcs.push_back({v, v - 1, static_cast<double>(1 + random() % 100)});
    }
  }
  std::string text =
      "c a road-like grid\np sp " + std::to_string(vertices.size()) + " " + std::to_string(arcs.size()) + "\n";
  for (const WeightedArc& a : arcs)
    text += "a " + std::to_string(a.src) + " " + std::to_string(a.dst) + " " +
            std::to_string(static_cast<int>(a.weight)) + "\n";
  sgtest::write_text(dir / "road.gr", text);
  sgtest::write_text(dir / "road.co", "c coordinates\n");
  check_close(run_app(dir, dir / "road.gr", "bfs", 1), reference_distances(vertices, arcs, true, 1, true));
  check_close(run_app(dir, dir / "road.gr", "sssp", 7), reference_distances(vertices, arcs, true, 7, false));
  // A name that says nothing: --format names the format.
  fs::copy_file(dir / "road.gr", dir / "road.data");
  check_close(run_app(dir, dir / "road.data", "sssp", 7, "--format dimacs"),
              reference_distances(vertices, arcs, true, 7, false));
}
