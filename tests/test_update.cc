// Updates and compaction (shards/update, apps/jobs/compact): random graphs
// take random sequences of adds and removes (duplicates, self-loops, new
// vertices, removals of arcs that are not there); once compacted, each
// stores exactly the arcs of a model, the same as a fresh ingest of the
// final edge set, and every app's output equals the fresh graph's. A graph
// with updates is refused by runs with one line, and bad updates change
// nothing.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "shards/format/graph_overlay.h"
#include "shards/update/delta_tiers.h"
#include "shards/update/graph_update.h"
#include "test_util.h"

using namespace sg;
using sgtest::Arc;

namespace {

struct GraphCase {
  bool directed;
  bool weighted;
  int devices;
  uint64_t seed;
  int blocks = 1;  // 2-D blocks: removals restart at each block
  bool dedup = false;
};

// The edge set the updates should leave, as stored arcs (an undirected
// edge both ways, a self-loop once).
struct ArcModel {
  bool directed = true;
  std::vector<Arc> arcs;
  uint64_t vertices = 0;

  void add(uint64_t s, uint64_t d, float w) {
    arcs.push_back({s, d, w});
    if (!directed && s != d) arcs.push_back({d, s, w});
    vertices = std::max({vertices, s + 1, d + 1});
  }
  void remove(uint64_t s, uint64_t d) {
    std::erase_if(arcs,
                  [&](const Arc& a) { return (a.src == s && a.dst == d) || (!directed && a.src == d && a.dst == s); });
  }
  // "src dst [weight]" lines of every edge once, with the vertex count.
  std::string snap(bool weighted) const {
    std::string text = "# Nodes: " + std::to_string(vertices) + "\n";
    for (const Arc& a : arcs) {
      if (!directed && a.src > a.dst) continue;
      text += std::to_string(a.src) + " " + std::to_string(a.dst);
      text += weighted ? " " + std::to_string(static_cast<int>(a.weight)) + "\n" : "\n";
    }
    return text;
  }
};

std::string random_edges(uint64_t* rng, int count, uint64_t vertices, bool weighted, std::vector<Arc>* edges) {
  std::string text;
  for (int i = 0; i < count; ++i) {
    const uint64_t s = sgtest::next_random(rng) % vertices, d = sgtest::next_random(rng) % vertices;
    const float w = weighted ? static_cast<float>(1 + sgtest::next_random(rng) % 9) : 1.0f;
    edges->push_back({s, d, w});
    text += std::to_string(s) + " " + std::to_string(d) +
            (weighted ? " " + std::to_string(static_cast<int>(w)) : std::string()) + "\n";
  }
  return text;
}

std::vector<Arc> sorted_space(const std::string& dir, SpaceKind kind) {
  Graph graph;
  REQUIRE(Graph::open(dir, &graph).ok());
  std::vector<Arc> arcs = sgtest::read_space(graph, kind);
  std::sort(arcs.begin(), arcs.end());
  return arcs;
}

std::vector<Arc> transposed(std::vector<Arc> arcs) {
  for (Arc& a : arcs) std::swap(a.src, a.dst);
  std::sort(arcs.begin(), arcs.end());
  return arcs;
}

std::string ingest_flags(const GraphCase& c, const sgtest::TempDir& dir, const std::string& prefix) {
  std::string flags = " --order none --chunk-bytes 256 --stripe-bytes 4096 --blocks " + std::to_string(c.blocks);
  if (!c.directed) flags += " --undirected";
  if (c.weighted) flags += " --weights";
  if (c.dedup) flags += " --dedup";
  for (int d = 0; d < c.devices; ++d) {
    std::filesystem::create_directories(dir / (prefix + std::to_string(d)));
    flags += " --device " + (dir / (prefix + std::to_string(d)));
  }
  return flags;
}

// One random update: removals of present, absent and new-vertex arcs, then
// adds with duplicates, self-loops and vertices past the graph's.
void random_update(const GraphCase& c, const sgtest::TempDir& dir, int step, uint64_t* rng, ArcModel* model,
                   uint64_t new_vertices = 6) {
  std::string removals;
  std::vector<std::pair<uint64_t, uint64_t>> removed;
  for (int i = 0; i < 12 && !model->arcs.empty(); ++i) {
    const Arc& a = model->arcs[sgtest::next_random(rng) % model->arcs.size()];
    removed.emplace_back(a.src, a.dst);
  }
  removed.emplace_back(model->vertices + 5, 0);  // a vertex that does not exist: nothing removed
  removed.emplace_back(0, 0);
  for (const auto& [s, d] : removed) removals += std::to_string(s) + " " + std::to_string(d) + "\n";
  std::vector<Arc> adds;
  std::string text = random_edges(rng, 40, model->vertices + new_vertices, c.weighted, &adds);
  text += text.substr(0, text.find('\n') + 1);  // a duplicate
  adds.push_back(adds.front());
  for (const auto& [s, d] : removed) model->remove(s, d);
  for (const Arc& a : adds) model->add(a.src, a.dst, a.weight);
  const std::string add_file = dir / ("add" + std::to_string(step) + ".txt");
  const std::string remove_file = dir / ("remove" + std::to_string(step) + ".txt");
  sgtest::write_text(add_file, text);
  sgtest::write_text(remove_file, removals);
  std::string output;
  const std::string args = " --add " + add_file + " --remove " + remove_file + " --no-compact";
  REQUIRE_MESSAGE(sgtest::run_cli("update " + (dir / "g") + args, &output) == 0, output);
}

// Ingests `edges` (the arcs `base`) as the graph "g" of `dir`, and starts
// the model with them.
void ingest_base(const GraphCase& c, const sgtest::TempDir& dir, const std::string& edges, const std::vector<Arc>& base,
                 ArcModel* model) {
  model->directed = c.directed;
  for (const Arc& a : base) model->add(a.src, a.dst, a.weight);
  sgtest::write_text(dir / "e.txt", edges);
  std::string output;
  REQUIRE(sgtest::run_cli("ingest " + (dir / "e.txt") + " -o " + (dir / "g") + ingest_flags(c, dir, "d"), &output) ==
          0);
}

// Ingests the model's edges, as a fresh graph would be, as "fresh".
void ingest_fresh(const GraphCase& c, const sgtest::TempDir& dir, const ArcModel& model) {
  sgtest::write_text(dir / "final.txt", model.snap(c.weighted));
  std::string output;
  REQUIRE(sgtest::run_cli("ingest " + (dir / "final.txt") + " -o " + (dir / "fresh") + ingest_flags(c, dir, "f"),
                          &output) == 0);
}

// Ingests 400 random edges over 60 vertices and vertex 0's list over every
// even vertex below 400 (split over chunks) as "g", and starts the model.
void ingest_with_split_list(const GraphCase& c, const sgtest::TempDir& dir, uint64_t* rng, ArcModel* model) {
  std::vector<Arc> base;
  std::string edges = random_edges(rng, 400, 60, c.weighted, &base);
  for (int v = 0; v < 400; v += 2) {
    edges += "0 " + std::to_string(v) + (c.weighted ? " 3\n" : "\n");
    base.push_back({0, static_cast<uint64_t>(v), 3.0f});
  }
  ingest_base(c, dir, edges, base, model);
}

// Runs `app` in io mode `io` on "g" (its output a.txt, the environment
// `env`) and on "fresh" (b.txt).
void run_on_both(const sgtest::TempDir& dir, const std::string& app, const std::string& io, const std::string& env) {
  std::string output;
  const std::string common = " --io " + io + " --memory 8M --output ";
  REQUIRE(sgtest::run_cli("run " + app + " " + (dir / "g") + common + (dir / "a.txt"), &output, env) == 0);
  REQUIRE(sgtest::run_cli("run " + app + " " + (dir / "fresh") + common + (dir / "b.txt"), &output) == 0);
}

void check_apps_equal(const GraphCase& c, const sgtest::TempDir& dir,
                      std::initializer_list<const char*> io_modes = {"full", "selective"},
                      const std::string& env = "") {
  std::vector<std::string> apps = {
      "pagerank --iterations 5", "spmv --iterations 2", "bfs --source 0", "wcc", "cdlp --iterations 3", "lcc"};
  if (c.weighted) apps.push_back("sssp --source 0");
  for (const std::string& app : apps) {
    for (const char* io : io_modes) {
      CAPTURE(app);
      const std::string io_mode = io;
      CAPTURE(io_mode);
      run_on_both(dir, app, io, env);
      CHECK(sgtest::read_text(dir / "a.txt") == sgtest::read_text(dir / "b.txt"));
    }
  }
}

// The apps check_apps_equal leaves out, in the two io modes: their sums
// (betweenness, PageRank-delta) may differ in the last bits, as lists split
// at other places add in another order.
void check_other_apps_equal(const GraphCase& c, const sgtest::TempDir& dir) {
  std::vector<std::string> apps = {"kcore", "pagerank-delta", "betweenness --source 0"};
  if (!c.directed) apps.push_back("triangles");
  for (const std::string& app : apps) {
    for (const char* io : {"full", "selective"}) {
      CAPTURE(app);
      CAPTURE(io);
      run_on_both(dir, app, io, "");
      const std::map<uint64_t, double> a = sgtest::read_values(dir / "a.txt"), b = sgtest::read_values(dir / "b.txt");
      REQUIRE(a.size() == b.size());
      for (const auto& [id, value] : b) {
        CAPTURE(id);
        REQUIRE(a.count(id) == 1);
        CHECK(a.at(id) == doctest::Approx(value).epsilon(1e-9));
      }
    }
  }
}

}  // namespace

TEST_CASE("updates then compaction store exactly a fresh ingest of the final edge set, and apps agree") {
  const GraphCase cases[] = {{true, false, 1, 1}, {true, true, 2, 2, 3}, {false, false, 2, 3}, {false, true, 1, 4, 2}};
  for (const GraphCase& c : cases) {
    CAPTURE(c.seed);
    sgtest::TempDir dir;
    uint64_t rng = c.seed;
    ArcModel model;
    std::vector<Arc> base;
    ingest_base(c, dir, random_edges(&rng, 300, 60, c.weighted, &base), base, &model);
    std::string output;
    for (int step = 0; step < 4; ++step) random_update(c, dir, step, &rng, &model);
    REQUIRE(sgtest::run_cli("verify " + (dir / "g"), &output) == 0);
    ingest_fresh(c, dir, model);
    check_apps_equal(c, dir);  // runs over updates that add vertices, before the compaction
    check_other_apps_equal(c, dir);
    // One-chunk windows: lists continue across windows, and the added
    // vertices' lists follow the stored ones.
    REQUIRE_MESSAGE(sgtest::run_cli("compact " + (dir / "g") + " --window-bytes 4096", &output) == 0, output);
    CHECK(output.find("(merged into its chunks)") != std::string::npos);
    REQUIRE(sgtest::run_cli("verify " + (dir / "g"), &output) == 0);
    std::sort(model.arcs.begin(), model.arcs.end());
    const std::vector<Arc> out = sorted_space(dir / "g", SpaceKind::kOut);
    CHECK(out == model.arcs);
    CHECK(out == sorted_space(dir / "fresh", SpaceKind::kOut));
    if (c.directed) CHECK(sorted_space(dir / "g", SpaceKind::kIn) == transposed(model.arcs));
    Graph compacted, fresh;
    REQUIRE(Graph::open(dir / "g", &compacted).ok());
    REQUIRE(Graph::open(dir / "fresh", &fresh).ok());
    CHECK(compacted.num_vertices() == model.vertices);
    CHECK(compacted.num_vertices() == fresh.num_vertices());
    check_apps_equal(c, dir);
  }
}

TEST_CASE("an update of a remapped, reordered graph keeps its ids and adds new ones after them") {
  sgtest::TempDir dir;
  std::string output;
  sgtest::write_text(dir / "e.txt", "1000 2000\n2000 3000\n3000 1000\n1000 4000\n");
  REQUIRE(sgtest::run_cli("ingest " + (dir / "e.txt") + " -o " + (dir / "g") + " --remap --order bfds", &output) == 0);
  sgtest::write_text(dir / "add.txt", "4000 5000\n5000 1000\n6000 6000\n");
  sgtest::write_text(dir / "rm.txt", "3000 1000\n7000 1000\n");
  REQUIRE(sgtest::run_cli("update " + (dir / "g") + " --add " + (dir / "add.txt") + " --remove " + (dir / "rm.txt") +
                              " --no-compact",
                          &output) == 0);
  CHECK(output.find("2 new vertices") != std::string::npos);
  // A second update names only vertices the first added: none is new.
  sgtest::write_text(dir / "add2.txt", "6000 4000\n5000 6000\n");
  REQUIRE(sgtest::run_cli("update " + (dir / "g") + " --add " + (dir / "add2.txt") + " --no-compact", &output) == 0);
  CHECK(output.find(" 0 new vertices") != std::string::npos);
  // Runs read the new vertices before the compaction, by their ids, and
  // from one as the source; they agree with the compacted graph's.
  const std::string runs[] = {"bfs --source 4000", "bfs --source 5000", "wcc", "pagerank --iterations 3"};
  for (size_t r = 0; r < std::size(runs); ++r) {
    const std::string out = dir / ("updated" + std::to_string(r) + ".txt");
    REQUIRE_MESSAGE(sgtest::run_cli("run " + runs[r] + " " + (dir / "g") + " --output " + out, &output) == 0, output);
  }
  {
    Graph held;
    GraphOpenOptions options;
    options.deltas = true;  // the id map loaded at open, then loaded again with the new ids
    REQUIRE(Graph::open(dir / "g", &held, options).ok());
    REQUIRE(prepare_run_over_updates(&held).ok());
    REQUIRE(held.num_vertices() == held.stored_vertices() + 2);
    for (const uint64_t id : {5000, 6000}) {
      uint32_t v = 0;
      REQUIRE(held.dense_id(id, &v));
      CHECK(v >= held.stored_vertices());
      CHECK(held.original_id(v) == id);
    }
    for (size_t s = 0; s < held.stored_space_count(); ++s) {  // a tail chunk with no bytes over them
      const ChunkIndexEntry& tail = held.stored_space(s).index.back();
      CHECK((tail.first_vertex == held.stored_vertices() && tail.vertex_count == 2 && tail.bytes == 0));
    }
  }
  REQUIRE(sgtest::run_cli("compact " + (dir / "g"), &output) == 0);
  for (size_t r = 0; r < std::size(runs); ++r) {
    CAPTURE(runs[r]);
    const std::string out = dir / ("compacted" + std::to_string(r) + ".txt");
    REQUIRE(sgtest::run_cli("run " + runs[r] + " " + (dir / "g") + " --output " + out, &output) == 0);
    CHECK(sgtest::read_text(out) == sgtest::read_text(dir / ("updated" + std::to_string(r) + ".txt")));
  }
  const std::vector<Arc> expected = {{1000, 2000, 1}, {1000, 4000, 1}, {2000, 3000, 1}, {4000, 5000, 1},
                                     {5000, 1000, 1}, {5000, 6000, 1}, {6000, 4000, 1}, {6000, 6000, 1}};
  CHECK(sorted_space(dir / "g", SpaceKind::kOut) == expected);
  CHECK(sorted_space(dir / "g", SpaceKind::kIn) == transposed(expected));
  REQUIRE(sgtest::run_cli("run bfs " + (dir / "g") + " --source 4000 --output " + (dir / "bfs.txt"), &output) == 0);
  const auto depths = sgtest::read_values(dir / "bfs.txt");
  CHECK(depths.at(4000) == 0);
  CHECK(depths.at(5000) == 1);
  CHECK(depths.at(1000) == 2);
  CHECK(depths.at(3000) == 4);
}

TEST_CASE("a bad update is refused with one line and leaves the graph as it was") {
  sgtest::TempDir dir;
  std::string output;
  sgtest::write_text(dir / "e.txt", "0 1 2\n1 2 3\n");
  REQUIRE(sgtest::run_cli("ingest " + (dir / "e.txt") + " -o " + (dir / "g") + " --weights --order none", &output) ==
          0);
  const std::string manifest = sgtest::read_text(dir / "g/manifest.json");
  sgtest::write_text(dir / "unweighted.txt", "2 3\n");
  CHECK(sgtest::run_cli("update " + (dir / "g") + " --add " + (dir / "unweighted.txt"), &output) != 0);
  CHECK(output.find("needs a weight") != std::string::npos);
  sgtest::write_text(dir / "wide.txt", "0 99999999999 1\n");
  CHECK(sgtest::run_cli("update " + (dir / "g") + " --add " + (dir / "wide.txt"), &output) != 0);
  CHECK(output.find("--remap") != std::string::npos);
  sgtest::write_text(dir / "bad.txt", "0 1 2\nzero one\n");
  CHECK(sgtest::run_cli("update " + (dir / "g") + " --add " + (dir / "bad.txt"), &output) != 0);
  CHECK(output.find("bad.txt") != std::string::npos);
  CHECK(sgtest::run_cli("update " + (dir / "g") + " --add " + (dir / "missing.txt"), &output) != 0);
  {
    GraphWriterLock held;  // another writer
    REQUIRE(held.acquire(dir / "g").ok());
    sgtest::write_text(dir / "ok.txt", "2 0 1\n");
    CHECK(sgtest::run_cli("update " + (dir / "g") + " --add " + (dir / "ok.txt"), &output) != 0);
    CHECK(output.find("another update or compaction") != std::string::npos);
    CHECK(sgtest::run_cli("compact " + (dir / "g"), &output) != 0);
  }
  CHECK(sgtest::read_text(dir / "g/manifest.json") == manifest);
  for (const std::string& name : sgtest::list_dir(dir / "g")) CHECK(name.find("delta") == std::string::npos);
  CHECK(sgtest::run_cli("verify " + (dir / "g"), &output) == 0);
}

TEST_CASE("updates compact themselves once they hold a tenth of the arcs") {
  sgtest::TempDir dir;
  std::string output, edges;
  for (int i = 0; i < 100; ++i) edges += std::to_string(i) + " " + std::to_string((i * 7 + 1) % 100) + "\n";
  sgtest::write_text(dir / "e.txt", edges);
  REQUIRE(sgtest::run_cli("ingest " + (dir / "e.txt") + " -o " + (dir / "g") + " --order none", &output) == 0);
  sgtest::write_text(dir / "a.txt", "0 50\n1 51\n2 52\n3 53\n4 54\n");
  REQUIRE(sgtest::run_cli("update " + (dir / "g") + " --add " + (dir / "a.txt"), &output) == 0);  // 5 %
  CHECK(output.find("compacted the updates") == std::string::npos);
  sgtest::write_text(dir / "b.txt", "5 55\n6 56\n7 57\n8 58\n9 59\n");
  REQUIRE(sgtest::run_cli("update " + (dir / "g") + " --add " + (dir / "b.txt"), &output) == 0);  // 10 %
  CHECK(output.find("compacted the updates") != std::string::npos);
  REQUIRE(sgtest::run_cli("run wcc " + (dir / "g"), &output) == 0);
  Graph graph;
  REQUIRE(Graph::open(dir / "g", &graph).ok());
  CHECK(graph.manifest().deltas.empty());
  CHECK(graph.manifest().num_edges == 110);
}

// A run over base plus updates merges each update's arcs into the lists as
// chunks are decoded (graph_overlay.h): tiny chunks split lists over
// several, so adds land in the right piece; removals and deduplication
// make degrees that need the stored lists.
TEST_CASE("runs over a graph with updates equal a fresh ingest of the final edge set, in every io mode") {
  const GraphCase cases[] = {{true, false, 1, 11},    {true, true, 2, 12, 3},       {false, false, 3, 13},
                             {false, true, 1, 14, 2}, {true, true, 2, 15, 1, true}, {false, false, 1, 16, 2, true}};
  for (const GraphCase& c : cases) {
    CAPTURE(c.seed);
    sgtest::TempDir dir;
    uint64_t rng = c.seed;
    ArcModel model;
    ingest_with_split_list(c, dir, &rng, &model);
    std::string output;
    for (int step = 0; step < 3; ++step) random_update(c, dir, step, &rng, &model);
    // Adds all along the split list, and a removal from its middle.
    std::string adds;
    for (uint64_t v : {1, 2, 97, 203, 396, 397}) {
      adds += "0 " + std::to_string(v) + (c.weighted ? " 1\n" : "\n");
      model.add(0, v, 1.0f);
    }
    sgtest::write_text(dir / "split_add.txt", adds);
    sgtest::write_text(dir / "split_remove.txt", "0 200\n");
    model.remove(0, 200);
    REQUIRE(sgtest::run_cli("update " + (dir / "g") + " --add " + (dir / "split_add.txt") + " --remove " +
                                (dir / "split_remove.txt") + " --no-compact",
                            &output) == 0);
    if (c.dedup) {  // the fresh graph drops them as ingest does
      std::sort(model.arcs.begin(), model.arcs.end());
      model.arcs.erase(std::unique(model.arcs.begin(), model.arcs.end(),
                                   [](const Arc& a, const Arc& b) { return a.src == b.src && a.dst == b.dst; }),
                       model.arcs.end());
    }
    ingest_fresh(c, dir, model);
    // Windows of one chunk as well: a split list then spans windows.
    check_apps_equal(c, dir,
                     {"full", "selective", "auto", "full --window-bytes 4096", "selective --window-bytes 4096"});
    // Windows merged and visited a few lists at a time (none kept decoded),
    // long lists in pieces of 3 stored arcs.
    check_apps_equal(c, dir, {"full --no-decoded-cache", "selective --no-decoded-cache"});
    check_apps_equal(c, dir, {"full --no-decoded-cache", "auto --no-decoded-cache --window-bytes 4096"},
                     "SHARDGRAPH_MERGE_PIECE_ARCS=3");
    // One-chunk windows: the merge continues split lists across windows.
    REQUIRE_MESSAGE(sgtest::run_cli("compact " + (dir / "g") + " --window-bytes 4096", &output) == 0, output);
    CHECK(output.find("(merged into its chunks)") != std::string::npos);
    REQUIRE(sgtest::run_cli("verify " + (dir / "g"), &output) == 0);
    if (!c.weighted) {  // the split list's arcs were modelled with weight 3
      for (Arc& a : model.arcs) a.weight = 1.0f;
    }
    std::sort(model.arcs.begin(), model.arcs.end());
    CHECK(sorted_space(dir / "g", SpaceKind::kOut) == model.arcs);
    if (c.directed) CHECK(sorted_space(dir / "g", SpaceKind::kIn) == transposed(model.arcs));
    check_apps_equal(c, dir, {"auto"});
  }
}

// Each kind's runs are read when a run first uses the kind: a push-only
// run never reads the in-space's, so damage there stops only the runs
// that pull (with one line naming the file).
TEST_CASE("a run reads a kind's updates only when it first uses the kind") {
  const GraphCase c{true, false, 1, 31};
  sgtest::TempDir dir;
  uint64_t rng = c.seed;
  ArcModel model;
  ingest_with_split_list(c, dir, &rng, &model);
  for (int step = 0; step < 2; ++step) random_update(c, dir, step, &rng, &model, 0);
  ingest_fresh(c, dir, model);
  int damaged = 0;
  for (const std::string& name : sgtest::list_dir(dir / "g")) {
    if (name.find("delta") != 0 || name.size() < 3 || name.substr(name.size() - 3) != ".in") continue;
    std::string bytes = sgtest::read_text(dir / ("g/" + name));
    bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x5a);
    sgtest::write_text(dir / ("g/" + name), bytes);
    ++damaged;
  }
  REQUIRE(damaged > 0);
  std::string output;
  const std::string common = " --memory 8M --io selective --output ";
  REQUIRE_MESSAGE(sgtest::run_cli("run bfs --source 0 " + (dir / "g") + common + (dir / "a.txt"), &output) == 0,
                  output);
  REQUIRE(sgtest::run_cli("run bfs --source 0 " + (dir / "fresh") + common + (dir / "b.txt"), &output) == 0);
  CHECK(sgtest::read_text(dir / "a.txt") == sgtest::read_text(dir / "b.txt"));
  CHECK(sgtest::run_cli("run pagerank " + (dir / "g") + " --memory 8M", &output) != 0);
  CHECK(output.find(".in") != std::string::npos);
  CHECK(std::count(output.begin(), output.end(), '\n') <= 2);
}

// Adds alone take the runs' fast paths: the degrees corrected when first
// read, per-record counts, lists merged a stretch at a time, and no
// out-space overlay for PageRank and SpMV.
TEST_CASE("runs over adds alone equal a fresh ingest of the final edge set") {
  const GraphCase cases[] = {{true, false, 1, 21}, {true, true, 2, 22, 2}, {false, false, 1, 23}, {false, true, 3, 24}};
  for (const GraphCase& c : cases) {
    CAPTURE(c.seed);
    sgtest::TempDir dir;
    uint64_t rng = c.seed;
    ArcModel model;
    ingest_with_split_list(c, dir, &rng, &model);
    std::string output;
    for (int step = 0; step < 5; ++step) {  // merged into tiers as they commit
      std::vector<Arc> adds;
      // Past vertex 398 from the second update on: vertices added by adds alone.
      sgtest::write_text(dir / "u.txt",
                         random_edges(&rng, 60 + 40 * step, step == 0 ? 60 : 402 + step, c.weighted, &adds));
      for (const Arc& a : adds) model.add(a.src, a.dst, a.weight);
      REQUIRE_MESSAGE(
          sgtest::run_cli("update " + (dir / "g") + " --add " + (dir / "u.txt") + " --no-compact", &output) == 0,
          output);
    }
    if (!c.weighted) {  // the split list's arcs were modelled with weight 3
      for (Arc& a : model.arcs) a.weight = 1.0f;
    }
    ingest_fresh(c, dir, model);
    check_apps_equal(c, dir, {"full", "selective", "auto", "full --window-bytes 4096"});
    check_apps_equal(c, dir, {"full --no-decoded-cache", "selective --no-decoded-cache --window-bytes 4096"},
                     "SHARDGRAPH_MERGE_PIECE_ARCS=3");
  }
}

// A run holds the generation it opened (GraphOpenOptions::hold): a
// compaction meanwhile swaps the compacted graph in but leaves the old base,
// hidden, to the run, which still reads its own files; once the run is over
// gc (or the next compaction) removes it.
TEST_CASE("a compaction leaves the generation a run holds until the run is over") {
  sgtest::TempDir dir;
  std::string output;
  sgtest::write_text(dir / "e.txt", "10 20\n20 30\n30 10\n10 40\n");
  REQUIRE(sgtest::run_cli("ingest " + (dir / "e.txt") + " -o " + (dir / "g") + " --remap --order none", &output) == 0);
  sgtest::write_text(dir / "add.txt", "40 20\n30 40\n");
  REQUIRE(sgtest::run_cli("update " + (dir / "g") + " --add " + (dir / "add.txt") + " --no-compact", &output) == 0);
  auto hidden = [&] {
    int count = 0;
    for (const std::string& name : sgtest::list_dir(dir.path())) count += name.rfind(".g.compact", 0) == 0;
    return count;
  };
  {
    GraphOpenOptions options;
    options.deltas = options.hold = true;
    options.id_map = false;
    Graph held;
    REQUIRE(Graph::open(dir / "g", &held, options).ok());
    REQUIRE(prepare_run_over_updates(&held).ok());
    REQUIRE(sgtest::run_cli("compact " + (dir / "g"), &output) == 0);
    CHECK(output.find("a run reads the old generation") != std::string::npos);
    CHECK(hidden() == 1);
    CHECK(held.load_id_map().ok());  // from the old base, by its directory
    CHECK(held.original_id(0) == 10);
    std::vector<uint8_t> payload(held.space(SpaceKind::kOut).index[0].bytes);
    CHECK(held.read_chunk(SpaceKind::kOut, 0, payload.data()).ok());
    CHECK(held.manifest().deltas.size() == 1);  // its generation, not the compacted one
    REQUIRE(sgtest::run_cli("gc " + dir.path(), &output) == 0);
    CHECK(hidden() == 1);  // still held
  }
  REQUIRE(sgtest::run_cli("gc " + dir.path(), &output) == 0);
  CHECK(hidden() == 0);
  REQUIRE(sgtest::run_cli("run bfs " + (dir / "g") + " --source 10 --output " + (dir / "bfs.txt"), &output) == 0);
  CHECK(sgtest::read_values(dir / "bfs.txt").at(20) == 1);
}

// Tiers (shards/update/delta_tiers.h): an update merges the newest deltas
// while each is at most twice the newer ones taken, within the limit.
TEST_CASE("an update merges with the newest tiers no larger than twice it") {
  auto deltas = [](std::initializer_list<uint64_t> sizes) {
    std::vector<DeltaManifest> list;
    for (const uint64_t bytes : sizes) {
      list.emplace_back();
      list.back().runs.push_back({"out", "f", bytes, 0, 1});
    }
    return list;
  };
  CHECK(tier_merge_start(deltas({}), 5, 100) == 0);
  CHECK(tier_merge_start(deltas({16, 8, 4}), 2, 100) == 0);
  CHECK(tier_merge_start(deltas({40, 2}), 1, 100) == 1);
  CHECK(tier_merge_start(deltas({40, 3}), 1, 100) == 2);
  CHECK(tier_merge_start(deltas({8, 4}), 4, 10) == 1);  // the oldest would pass the limit
}

// An update that merges tiers replaces their files, but not while a run
// holds the generation that lists them: the next update removes them.
// Updates whose buffer overflows (several runs a kind) merge the same.
TEST_CASE("merged tiers equal their updates, and their files outlive the runs that read them") {
  sgtest::TempDir dir;
  const GraphCase c{true, true, 1, 21};
  uint64_t rng = 99;
  std::vector<Arc> base;
  ArcModel model;
  ingest_base(c, dir, random_edges(&rng, 300, 60, true, &base), base, &model);
  std::string output;
  REQUIRE(sgtest::run_cli("update " + (dir / "g") + " --add " + (dir / "e.txt") + " --no-compact", &output) == 0);
  for (const Arc& a : base) model.add(a.src, a.dst, a.weight);
  const std::vector<std::string> first_files = {"delta-1-0.out", "delta-1-1.in"};
  for (const std::string& name : first_files) REQUIRE(std::filesystem::exists(dir / ("g/" + name)));
  GraphOpenOptions options;
  options.deltas = options.hold = true;
  uint64_t tiers = 0, updates = 1;
  {
    Graph held;
    REQUIRE(Graph::open(dir / "g", &held, options).ok());
    for (int step = 0; step < 8; ++step) {
      std::vector<Arc> adds;
      sgtest::write_text(dir / "u.txt", random_edges(&rng, 200, 60, true, &adds));
      for (const Arc& a : adds) model.add(a.src, a.dst, a.weight);
      sgtest::write_text(dir / "r.txt", std::to_string(adds[0].src) + " " + std::to_string(adds[0].dst) + "\n");
      UpdateOptions update;
      update.graph = dir / "g";
      update.add_files = {dir / "u.txt"};
      update.remove_files = {dir / "r.txt"};
      update.run_records = 37;  // several runs a kind, read back by the merge
      model.remove(adds[0].src, adds[0].dst);
      for (const Arc& a : adds) {
        if (a.src == adds[0].src && a.dst == adds[0].dst) model.add(a.src, a.dst, a.weight);
      }
      UpdateSummary summary;
      REQUIRE(update_graph(update, &summary).ok());
      tiers = summary.pending_tiers;
      updates = summary.pending_updates;
    }
    CHECK(updates == 9);
    CHECK(tiers <= 4);
    for (const std::string& name : first_files) CHECK(std::filesystem::exists(dir / ("g/" + name)));  // held
    GraphDeltas deltas;
    CHECK(deltas.open(held).ok());  // the held generation's files, merged since
  }
  std::vector<Arc> last;
  sgtest::write_text(dir / "u.txt", random_edges(&rng, 5, 60, true, &last));
  for (const Arc& a : last) model.add(a.src, a.dst, a.weight);
  REQUIRE(sgtest::run_cli("update " + (dir / "g") + " --add " + (dir / "u.txt") + " --no-compact", &output) == 0);
  for (const std::string& name : first_files) CHECK(!std::filesystem::exists(dir / ("g/" + name)));
  ingest_fresh(c, dir, model);
  check_apps_equal(c, dir, {"auto"});
  REQUIRE(sgtest::run_cli("compact " + (dir / "g"), &output) == 0);
  std::sort(model.arcs.begin(), model.arcs.end());
  CHECK(sorted_space(dir / "g", SpaceKind::kOut) == model.arcs);
  CHECK(sorted_space(dir / "g", SpaceKind::kIn) == transposed(model.arcs));
}

// A blocked graph whose degrees do not fit an eighth of --memory sums its
// blocks' degrees through part files; verify checks them against the lists.
TEST_CASE("a blocked compaction beyond its budget sums its degrees in parts") {
  sgtest::TempDir dir;
  const GraphCase c{true, false, 1, 31, 2};
  uint64_t rng = 7;
  std::vector<Arc> base;
  ArcModel model;
  std::string edges = random_edges(&rng, 400, 50000, false, &base) + "49999 0\n";
  base.push_back({49999, 0, 1.0f});
  ingest_base(c, dir, edges, base, &model);
  random_update(c, dir, 0, &rng, &model, 0);
  std::string output;
  // 50,000 degrees (200 KB) against an eighth of 1 MiB.
  REQUIRE_MESSAGE(sgtest::run_cli("compact " + (dir / "g") + " --memory 1M", &output) == 0, output);
  CHECK(output.find("(merged into its chunks)") != std::string::npos);
  REQUIRE_MESSAGE(sgtest::run_cli("verify " + (dir / "g"), &output) == 0, output);
  std::sort(model.arcs.begin(), model.arcs.end());
  CHECK(sorted_space(dir / "g", SpaceKind::kOut) == model.arcs);
  CHECK(sorted_space(dir / "g", SpaceKind::kIn) == transposed(model.arcs));
}
