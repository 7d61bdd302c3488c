// Ingest v2's distribution sort at its edges: buckets larger than the sort
// memory (a hub's list, one arc repeated) are routed again and stored exactly;
// an interrupt in any phase, with or without an order, leaves nothing behind.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <numeric>

#include "apps/jobs/ingest_ordered.h"
#include "base/file_util.h"
#include "base/interrupt.h"
#include "shards/format/verify.h"
#include "shards/ingest/arc_record.h"
#include "shards/ingest/batch_lists.h"
#include "shards/ingest/graph_edge_reader.h"
#include "shards/ingest/list_sort.h"
#include "shards/ingest/permutation.h"
#include "shards/ingest/vertex_order.h"
#include "test_util.h"

using namespace sg;
using sgtest::Arc;

namespace {

std::vector<Arc> hub_and_repeats() {
  std::vector<Arc> arcs;
  uint64_t state = 99;
  for (uint64_t i = 0; i < 3000; ++i) arcs.push_back(Arc{7, sgtest::next_random(&state) % 4000, 1.0f});  // hub 7
  for (int i = 0; i < 2500; ++i) arcs.push_back(Arc{1, 2, 1.0f});  // one arc, 2500 times
  for (uint64_t i = 0; i < 500; ++i)
    arcs.push_back(Arc{sgtest::next_random(&state) % 4000, sgtest::next_random(&state) % 4000, 1.0f});
  arcs.push_back(Arc{3999, 0, 1.0f});
  return arcs;
}

std::vector<Arc> sorted_space(const std::vector<Arc>& input, bool in_space, bool dedup) {
  std::vector<Arc> arcs;
  for (const Arc& a : input) arcs.push_back(in_space ? Arc{a.dst, a.src, 1.0f} : a);
  std::sort(arcs.begin(), arcs.end());
  if (dedup) arcs.erase(std::unique(arcs.begin(), arcs.end()), arcs.end());
  return arcs;
}

// Options for an ingest of `input` (written as e.txt in `dir`) into dir/g with
// tiny chunks and a sort batch of `batch` arcs.
IngestOptions small_batch_options(const sgtest::TempDir& dir, const std::vector<Arc>& input, size_t batch) {
  sgtest::write_snap(dir / "e.txt", input, false);
  IngestOptions o;
  o.input = dir / "e.txt";
  o.output = dir / "g";
  o.chunk_bytes = 128;
  o.sort_buffer_edges = batch;
  return o;
}

}  // namespace

TEST_CASE("ingest: buckets beyond the sort memory (a hub, one arc repeated) are routed again, exactly") {
  const std::vector<Arc> input = hub_and_repeats();
  for (const bool dedup : {false, true}) {
    for (const size_t batch : {64, 700}) {
      CAPTURE(dedup);
      CAPTURE(batch);
      sgtest::TempDir dir;
      IngestOptions o = small_batch_options(dir, input, batch);  // the hub (3000) and the repeated arc (2500) exceed it
      o.dedup = dedup;
      o.route_buckets = 4;
      IngestSummary summary;
      Status s = ingest_ordered(o, &summary);
      REQUIRE_MESSAGE(s.ok(), s.ToString());
      Graph g;
      REQUIRE(Graph::open(o.output, &g).ok());
      CHECK(sgtest::read_space(g, SpaceKind::kOut) == sorted_space(input, false, dedup));
      CHECK(sgtest::read_space(g, SpaceKind::kIn) == sorted_space(input, true, dedup));
      CHECK(g.manifest().ingest.duplicate_edges >= 2499);
      CHECK(g.space(SpaceKind::kOut).degrees[1] == (dedup ? 1u : 2500u));
      VerifyReport report;
      s = verify_graph(g, &report);
      CHECK_MESSAGE(s.ok(), s.ToString());
      CHECK(summary.sorted_runs > input.size() / batch);
    }
  }
}

// A relabelling pass knows each vertex's arcs and cuts its buckets by them
// (not by equal id ranges): a hub still takes more than a batch on its own
// and is routed again by neighbour.
TEST_CASE(
    "ingest: an ordered ingest's buckets cut by known degrees store every arc, hubs beyond the sort memory included") {
  std::vector<Arc> input = hub_and_repeats();
  uint64_t state = 17;
  for (int i = 0; i < 6000; ++i)
    input.push_back(Arc{sgtest::next_random(&state) % 40, sgtest::next_random(&state) % 4000, 1.0f});
  for (const size_t batch : {64, 700, 5000}) {
    CAPTURE(batch);
    sgtest::TempDir dir;
    IngestOptions o = small_batch_options(dir, input, batch);
    o.order = "bfds";
    IngestSummary summary;
    Status s = ingest_ordered(o, &summary);
    REQUIRE_MESSAGE(s.ok(), s.ToString());
    Graph g;
    REQUIRE(Graph::open(o.output, &g).ok());
    REQUIRE(g.manifest().ordering == "bfds");
    std::vector<Arc> out = sgtest::read_space(g, SpaceKind::kOut), in = sgtest::read_space(g, SpaceKind::kIn);
    std::sort(out.begin(), out.end());
    std::sort(in.begin(), in.end());
    CHECK(out == sorted_space(input, false, false));
    CHECK(in == sorted_space(input, true, false));
    VerifyReport report;
    s = verify_graph(g, &report);
    CHECK_MESSAGE(s.ok(), s.ToString());
  }
}

TEST_CASE("ingest: an interrupt in any phase leaves nothing behind, with or without an order") {
  sgtest::TempDir dir;
  std::vector<Arc> input;
  uint64_t state = 5;
  for (int i = 0; i < 3000; ++i)
    input.push_back(Arc{sgtest::next_random(&state) % 300, sgtest::next_random(&state) % 300, 1.0f});
  sgtest::write_snap(dir / "e.txt", input, false);
  for (const std::string order : {"none", "bfds", "auto"}) {
    // The phases a complete run goes through.
    std::vector<std::string> phases;
    IngestOptions o;
    o.input = dir / "e.txt";
    o.output = dir / "g";
    o.order = order;
    o.sort_buffer_edges = 500;
    o.on_phase = [&](const std::string& phase) { phases.push_back(phase); };
    IngestSummary summary;
    REQUIRE(ingest_ordered(o, &summary).ok());
    std::filesystem::remove_all(o.output);
    CHECK(phases.size() >= (order == "none" ? 3u : 7u));
    for (size_t at = 0; at < phases.size(); ++at) {
      CAPTURE(order);
      CAPTURE(at);
      size_t seen = 0;
      o.on_phase = [&](const std::string&) {
        if (seen++ == at) request_interrupt();
      };
      Status s = ingest_ordered(o, &summary);
      clear_interrupt();
      CHECK(s.code() == Status::Code::kInterrupted);
      CHECK(sgtest::list_dir(dir.path()) == std::vector<std::string>{"e.txt"});
    }
  }
}

TEST_CASE("ingest --order auto keeps an input order that compresses better, and orders a shuffled input") {
  sgtest::TempDir dir;
  std::string output;
  REQUIRE(sgtest::run_cli("generate grid --rows 80 --cols 80 --no-shuffle -o " + (dir / "rows.txt"), &output) == 0);
  REQUIRE(sgtest::run_cli("generate grid --rows 80 --cols 80 -o " + (dir / "shuffled.txt"), &output) == 0);
  for (const std::string name : {"rows", "shuffled"}) {
    REQUIRE(sgtest::run_cli("ingest " + (dir / (name + ".txt")) + " -o " + (dir / name) + " --undirected", &output) ==
            0);
    Graph g;
    REQUIRE(Graph::open(dir / name, &g).ok());
    CHECK(g.manifest().ordering == (name == "rows" ? "none" : "bfds"));
    if (name == "rows") CHECK(output.find("compresses better") != std::string::npos);
  }
  CHECK(sgtest::list_dir(dir.path()).size() == 4);  // no hidden graph left
}

TEST_CASE("ingest: vertices declared beyond the largest id (a Nodes header) are split into intervals too") {
  sgtest::TempDir dir;
  sgtest::write_text(dir / "e.txt", "# Nodes: 100000 Edges: 3\n0 1\n1 2\n2 0\n");
  IngestOptions o;
  o.input = dir / "e.txt";
  o.output = dir / "g";
  o.intervals = 5;
  IngestSummary summary;
  Status s = ingest_ordered(o, &summary);
  REQUIRE_MESSAGE(s.ok(), s.ToString());
  Graph g;
  REQUIRE(Graph::open(o.output, &g).ok());
  CHECK(g.num_vertices() == 100000);
  CHECK(g.manifest().interval_starts.size() == 5);
  VerifyReport report;
  CHECK(verify_graph(g, &report).ok());
}

TEST_CASE(
    "ingest: an ordered ingest's out-only first pass stores the out-space and in-degrees, is refused as a graph, and "
    "completes exactly") {
  // Sparse original ids (remapped) and a hub, so the completed graph must
  // keep the id map and reroute long lists; repeats and self-loops, kept
  // and dropped (dropped arcs must not count as in-degree).
  std::vector<Arc> input = hub_and_repeats();
  input.push_back(Arc{5, 5, 1.0f});
  input.push_back(Arc{5, 5, 1.0f});
  for (Arc& a : input) {
    a.src = a.src * 1000 + 17;
    a.dst = a.dst * 1000 + 17;
  }
  // In the entropy layout an out-only graph's chunk keeps that layout
  // without the best other one written to compare (ChunkEncoder's
  // entropy_first): the same lists either way.
  std::vector<Arc> fast_out[2];
  uint64_t entropy_chunks = 0, fast_entropy_chunks = 0;  // chunks in the entropy layout
  for (const GapChoice choice : {GapChoice::kFast, GapChoice::kEntropy})
    for (const bool drop : {false, true}) {
      CAPTURE(drop);
      CAPTURE(static_cast<int>(choice));
      sgtest::TempDir dir;
      IngestOptions o = small_batch_options(dir, input, 700);
      o.remap = IngestOptions::Remap::kAlways;
      o.dedup = drop;
      o.drop_self_loops = drop;
      o.gap_choice = choice;
      o.out_space_only = [](uint64_t) { return true; };
      IngestSummary summary;
      Status s = ingest_graph(o, &summary);
      REQUIRE_MESSAGE(s.ok(), s.ToString());

      Graph refused;
      s = Graph::open(o.output, &refused);
      CHECK(s.code() == Status::Code::kInvalidArgument);
      CHECK(s.ToString().find("re-ingest") != std::string::npos);
      Graph out_only;
      GraphOpenOptions open_options;
      open_options.out_only = true;
      REQUIRE(Graph::open(o.output, &out_only, open_options).ok());
      CHECK(out_only.block_count(SpaceKind::kIn) == 0);
      const std::vector<Arc> out = sgtest::read_space(out_only, SpaceKind::kOut);
      if (choice == GapChoice::kFast) fast_out[drop] = out;
      CHECK(out == fast_out[drop]);
      const std::vector<uint64_t>& layouts = out_only.manifest().spaces[0].gap_coding_chunks;
      const uint64_t entropy = layouts.size() > 3 ? layouts[static_cast<size_t>(GapCoding::kEntropy)] : 0;
      (choice == GapChoice::kEntropy ? entropy_chunks : fast_entropy_chunks) += entropy;
      std::map<uint64_t, uint32_t> in_degrees;  // by original id (read_space gives those)
      for (const Arc& a : out) ++in_degrees[a.dst];
      uint64_t checked = 0;
      REQUIRE(out_only
                  .scan_degree_file(SpaceKind::kIn,
                                    [&](uint32_t first, const uint32_t* values, size_t count) {
                                      for (size_t i = 0; i < count; ++i, ++checked) {
                                        const auto it =
                                            in_degrees.find(out_only.original_id(first + static_cast<uint32_t>(i)));
                                        CHECK(values[i] == (it == in_degrees.end() ? 0 : it->second));
                                      }
                                    })
                  .ok());
      CHECK(checked == out_only.num_vertices());

      IngestOptions complete;
      complete.input = o.output;
      complete.format = "graph";
      complete.output = dir / "whole";
      complete.chunk_bytes = 128;
      REQUIRE(ingest_graph(complete, &summary).ok());
      Graph whole;
      REQUIRE(Graph::open(complete.output, &whole).ok());
      VerifyReport report;
      CHECK(verify_graph(whole, &report).ok());
      CHECK(sgtest::read_space(whole, SpaceKind::kOut) == out);
      std::vector<Arc> in;
      for (const Arc& a : out) in.push_back(Arc{a.dst, a.src, a.weight});
      std::sort(in.begin(), in.end());
      CHECK(sgtest::read_space(whole, SpaceKind::kIn) == in);
      for (uint32_t v = 0; v < whole.num_vertices(); ++v) CHECK(whole.original_id(v) == out_only.original_id(v));
      CHECK(whole.original_id(0) == 17);
      CHECK((out.size() < input.size()) == drop);
    }
  CHECK(entropy_chunks > 0);
  CHECK(fast_entropy_chunks == 0);
}

// `first_count` arcs of ids below `first_ids` (a read batch is 1 Ki to
// 64 Ki edges), then ids up to `last_id`.
std::vector<Arc> ids_growing_late(int first_count, uint64_t first_ids, uint64_t last_id) {
  std::vector<Arc> arcs;
  uint64_t state = 5;
  for (int i = 0; i < first_count; ++i)
    arcs.push_back(Arc{sgtest::next_random(&state) % first_ids, sgtest::next_random(&state) % first_ids, 1.0f});
  arcs.push_back(Arc{last_id, 5, 1.0f});
  for (int i = 0; i < 500; ++i)
    arcs.push_back(Arc{sgtest::next_random(&state) % last_id, sgtest::next_random(&state) % last_id, 1.0f});
  return arcs;
}

// The graph's in-degree file holds each vertex's arcs in `input` (ids kept as given).
void check_in_degree_file(const Graph& g, const std::vector<Arc>& input) {
  std::vector<uint32_t> in_degrees(g.num_vertices(), 0);
  for (const Arc& a : input) ++in_degrees[a.dst];
  uint64_t checked = 0;
  REQUIRE(g.scan_degree_file(SpaceKind::kIn, [&](uint32_t first, const uint32_t* values, size_t count) {
             for (size_t i = 0; i < count; ++i, ++checked) CHECK(values[i] == in_degrees[first + i]);
           }).ok());
  CHECK(checked == g.num_vertices());
}

TEST_CASE("ingest: the first pass decides from its first batch's ids whether to skip the in-space") {
  const std::vector<Arc> input = ids_growing_late(70000, 100, 3999);
  for (const bool fits_first : {true, false}) {
    CAPTURE(fits_first);
    sgtest::TempDir dir;
    IngestOptions o = small_batch_options(dir, input, 700);
    std::vector<uint64_t> asked;
    o.out_space_only = [&](uint64_t vertices) {
      asked.push_back(vertices);
      return fits_first && vertices <= 100;
    };
    IngestSummary summary;
    Status s = ingest_graph(o, &summary);
    REQUIRE_MESSAGE(s.ok(), s.ToString());
    REQUIRE(!asked.empty());
    CHECK(asked.front() <= 100);  // from the first batch
    Graph g;
    GraphOpenOptions open_options;
    open_options.out_only = true;
    REQUIRE(Graph::open(o.output, &g, open_options).ok());
    CHECK(g.num_vertices() == 4000);
    CHECK(sgtest::read_space(g, SpaceKind::kOut) == sorted_space(input, false, false));
    // Skipped from the first batch, the in-space stays skipped: the
    // graph's later ids outgrow the order, which is then not computed
    // and the graph is completed (next test).
    CHECK(g.manifest().out_only() == fits_first);
    if (!fits_first) CHECK(sgtest::read_space(g, SpaceKind::kIn) == sorted_space(input, true, false));
    check_in_degree_file(g, input);
  }
}

TEST_CASE(
    "ingest: an out-only first pass counts in-degrees while routing, and while sorting once its ids outgrow the "
    "count's room") {
  // The count's room is the first batch's ids, an eighth more and 64 Ki:
  // 3999 fits it, 199999 stops the count, and the sort phase counts instead.
  for (const uint64_t last_id : {uint64_t{3999}, uint64_t{199999}}) {
    CAPTURE(last_id);
    const std::vector<Arc> input = ids_growing_late(70000, 100, last_id);
    sgtest::TempDir dir;
    IngestOptions o = small_batch_options(dir, input, 700);
    o.out_space_only = [](uint64_t vertices) { return vertices <= 100; };
    IngestSummary summary;
    Status s = ingest_graph(o, &summary);
    REQUIRE_MESSAGE(s.ok(), s.ToString());
    Graph g;
    GraphOpenOptions open_options;
    open_options.out_only = true;
    REQUIRE(Graph::open(o.output, &g, open_options).ok());
    CHECK(g.manifest().out_only());
    CHECK(g.num_vertices() == last_id + 1);
    CHECK(sgtest::read_space(g, SpaceKind::kOut) == sorted_space(input, false, false));
    check_in_degree_file(g, input);
  }
}

TEST_CASE(
    "ingest --order bfds: ids that outgrow the order after the first batch get compact ranks, bfs falls back to the "
    "degree order out of core, and both are stored unordered when even that does not fit") {
  // The first batch's 100 ids fit an order in 20 MiB; 3.9 M do not (and
  // are dense enough for 200 K edges, so they are not remapped). In 20 MiB
  // bfds's compact ranks (4 bytes for each of the few vertices an arc
  // reaches) fit, and so do the windows its permutation file is read
  // through; bfs has no compact form and falls back to the degree order,
  // whose windows fit too. In 12 MiB the windows do not.
  const std::vector<Arc> input = ids_growing_late(200000, 100, 3900000);
  for (const auto& [order, memory_mib] : {std::pair<std::string, uint64_t>{"bfds", 20}, {"bfs", 20}, {"bfds", 12}}) {
    CAPTURE(order);
    CAPTURE(memory_mib);
    sgtest::TempDir dir;
    IngestOptions o = small_batch_options(dir, input, 70000);
    o.remap = IngestOptions::Remap::kNever;
    o.order = order;
    o.memory_bytes = memory_mib << 20;
    IngestSummary summary;
    Status s = ingest_ordered(o, &summary);
    REQUIRE_MESSAGE(s.ok(), s.ToString());
    const std::string stored_order = memory_mib == 12 ? "none" : order == "bfds" ? "bfds" : "degree";
    CHECK((summary.phases.find("compact ranks") != std::string::npos) == (stored_order == "bfds"));
    if (stored_order != "bfds") {
      CHECK(summary.note.find(stored_order == "degree" ? "ordered by degree instead" : "skipped") != std::string::npos);
    }
    Graph g;
    REQUIRE(Graph::open(o.output, &g).ok());
    CHECK(g.manifest().ordering == stored_order);
    CHECK(g.num_vertices() == 3900001);
    // In original ids (sorted: a reordered graph lists by new id).
    for (const SpaceKind kind : {SpaceKind::kOut, SpaceKind::kIn}) {
      std::vector<Arc> stored = sgtest::read_space(g, kind);
      std::sort(stored.begin(), stored.end());
      CHECK(stored == sorted_space(input, kind == SpaceKind::kIn, false));
    }
    VerifyReport report;
    CHECK(verify_graph(g, &report).ok());
    CHECK(sgtest::list_dir(dir.path()).size() == 2);  // the input and the graph: no hidden graph left
  }
}

namespace {

// The degree order's in-memory reference: new_id[old_id] by `degree`
// descending, ties by id.
std::vector<uint32_t> degree_order(const std::vector<uint32_t>& degree) {
  std::vector<uint32_t> by_rank(degree.size());
  std::iota(by_rank.begin(), by_rank.end(), 0);
  std::stable_sort(by_rank.begin(), by_rank.end(), [&](uint32_t a, uint32_t b) { return degree[a] > degree[b]; });
  std::vector<uint32_t> new_id(degree.size());
  for (uint32_t rank = 0; rank < by_rank.size(); ++rank) new_id[by_rank[rank]] = rank;
  return new_id;
}

}  // namespace

TEST_CASE(
    "ingest: the degree order written out of core is the in-memory reference's, and relabels alike through windows") {
  uint64_t state = 17;
  std::vector<Arc> input;
  for (int i = 0; i < 30000; ++i) {
    const uint64_t src = sgtest::next_random(&state) % 4000;
    // Skewed destinations: many ties and a few high degrees.
    const uint64_t dst = (sgtest::next_random(&state) % 4000) >> (sgtest::next_random(&state) % 4);
    input.push_back(Arc{src, dst, 1.0f});
  }
  // Two hubs of equal degree past the counted ones (ranked apart, ties by id).
  for (const uint64_t hub : {9, 5})
    for (int i = 0; i < 66000; ++i) input.push_back(Arc{hub, sgtest::next_random(&state) % 4000, 1.0f});
  input.push_back(Arc{3999, 0, 1.0f});
  sgtest::TempDir dir;
  IngestOptions o = small_batch_options(dir, input, 5000);
  o.blocks = 3;
  IngestSummary summary;
  REQUIRE(ingest_graph(o, &summary).ok());
  Graph unordered;
  REQUIRE(Graph::open(o.output, &unordered).ok());
  std::vector<uint32_t> degree(4000, 0);
  for (const Arc& a : input) ++degree[a.src], ++degree[a.dst];
  const std::string path = dir / "order.new_id";
  SlotArcs slot_arcs;
  REQUIRE(write_degree_order(unordered, path, &slot_arcs).ok());
  const std::vector<uint32_t> expected = degree_order(degree);
  // Each space's arcs per new id (4000 vertices: slots of one id each).
  REQUIRE(slot_arcs.shift == 0);
  std::vector<uint64_t> out_arcs(4000, 0), in_arcs(4000, 0);
  for (const Arc& a : input) ++out_arcs[expected[a.src]], ++in_arcs[expected[a.dst]];
  CHECK(slot_arcs.out == out_arcs);
  CHECK(slot_arcs.in == in_arcs);
  CHECK(SlotArcs::shift_for(4000) == 0);
  CHECK(SlotArcs::shift_for(uint64_t{1} << 20) == 4);
  CHECK(SlotArcs::slot_count((uint64_t{1} << 20) + 1) == 32769);  // 2^20 + 1 ids: slots of 32
  Permutation whole;
  REQUIRE(Permutation::open(path, 4000, 1 << 20, 0, 0, &whole).ok());
  REQUIRE(!whole.windowed());
  CHECK(std::vector<uint32_t>(whole.data(), whole.data() + 4000) == expected);
  // Windows of 7 sources and of one block's neighbours (1334), then of
  // fewer neighbours than a block holds: batches are cut to fit. The
  // second runs in so little memory that the id map inverts the
  // permutation in ranges of 1 Ki new ids, a pass over it each.
  for (const uint64_t neighbour_window : {1334, 100}) {
    CAPTURE(neighbour_window);
    Permutation windowed;
    REQUIRE(Permutation::open(path, 4000, 0, 7, neighbour_window, &windowed).ok());
    REQUIRE(windowed.windowed());
    // The first cuts its buckets by the order's slot arcs, the second by
    // the degree files read through the permutation.
    if (neighbour_window == 1334) windowed.set_slot_arcs(slot_arcs);
    IngestOptions again = o;
    if (neighbour_window == 100) again.memory_bytes = 6 << 20;
    again.input = o.output;
    again.output = dir / ("relabelled-" + std::to_string(neighbour_window));
    again.format = "graph";
    again.order = "degree";
    again.remap = IngestOptions::Remap::kNever;
    again.permutation = &windowed;
    Status s = ingest_graph(again, &summary);
    REQUIRE_MESSAGE(s.ok(), s.ToString());
    Graph g;
    REQUIRE(Graph::open(again.output, &g).ok());
    for (const SpaceKind kind : {SpaceKind::kOut, SpaceKind::kIn}) {
      std::vector<Arc> stored = sgtest::read_space(g, kind);
      std::sort(stored.begin(), stored.end());
      CHECK(stored == sorted_space(input, kind == SpaceKind::kIn, false));
    }
    for (uint32_t old = 0; old < 4000; ++old) CHECK(g.original_id(expected[old]) == old);
  }
}

namespace {

// A skewed graph of 4000 vertices: many degree ties, and hubs 9 and 5 of
// equal degree past the counted degrees (ranked apart, ties by id).
std::vector<Arc> skewed_with_hubs() {
  uint64_t state = 17;
  std::vector<Arc> input;
  for (int i = 0; i < 30000; ++i) {
    const uint64_t src = sgtest::next_random(&state) % 4000;
    const uint64_t dst = (sgtest::next_random(&state) % 4000) >> (sgtest::next_random(&state) % 4);
    input.push_back(Arc{src, dst, 1.0f + static_cast<float>(i % 5)});
  }
  for (const uint64_t hub : {9, 5})
    for (int i = 0; i < 66000; ++i) input.push_back(Arc{hub, sgtest::next_random(&state) % 4000, 2.0f});
  input.push_back(Arc{3999, 0, 1.0f});
  return input;
}

}  // namespace

// The degree order counted while routing: the spill is routed again in the
// new ids (small batches: the hubs' buckets are routed a third time, by
// neighbour), and the graph is the in-memory reference's, weights
// included, in every I/O mode.
TEST_CASE("ingest: the degree order in one route is the in-memory reference's") {
  const std::vector<Arc> input = skewed_with_hubs();
  std::vector<uint32_t> degree(4000, 0);
  for (const Arc& a : input) ++degree[a.src], ++degree[a.dst];
  const std::vector<uint32_t> expected = degree_order(degree);
  for (const bool weighted : {false, true}) {
    for (const bool direct_io : {false, true}) {
      CAPTURE(weighted);
      CAPTURE(direct_io);
      sgtest::TempDir dir;
      IngestOptions o = small_batch_options(dir, input, 5000);
      if (weighted) sgtest::write_snap(dir / "e.txt", input, true);
      o.order = "degree";
      o.blocks = 3;
      o.direct_io = direct_io;
      IngestSummary summary;
      Status s = ingest_ordered(o, &summary);
      REQUIRE_MESSAGE(s.ok(), s.ToString());
      CHECK(summary.ordering == "degree");
      CHECK(summary.phases.find("reroute") != std::string::npos);
      Graph g;
      REQUIRE(Graph::open(o.output, &g).ok());
      CHECK(g.manifest().ordering == "degree");
      for (uint32_t old = 0; old < 4000; ++old) CHECK(g.original_id(expected[old]) == old);
      for (const SpaceKind kind : {SpaceKind::kOut, SpaceKind::kIn}) {
        std::vector<Arc> stored = sgtest::read_space(g, kind);
        std::vector<Arc> reference;
        for (const Arc& a : input)
          reference.push_back(kind == SpaceKind::kIn ? Arc{a.dst, a.src, weighted ? a.weight : 1.0f}
                                                     : Arc{a.src, a.dst, weighted ? a.weight : 1.0f});
        std::sort(stored.begin(), stored.end());
        std::sort(reference.begin(), reference.end());
        CHECK(stored == reference);
      }
      VerifyReport report;
      CHECK(verify_graph(g, &report).ok());
      CHECK(sgtest::list_dir(dir.path()).size() == 2);  // the input and the graph: no hidden graph left
    }
  }
}

// An undirected graph's degree order is by its one space's arcs (a
// self-loop once), and that space is routed again as it is.
TEST_CASE("ingest: the degree order in one route of an undirected graph is the in-memory reference's") {
  const std::vector<Arc> input = skewed_with_hubs();
  std::vector<Arc> reference;
  for (const Arc& a : input) {
    reference.push_back(Arc{a.src, a.dst, 1.0f});
    if (a.src != a.dst) reference.push_back(Arc{a.dst, a.src, 1.0f});
  }
  std::vector<uint32_t> degree(4000, 0);
  for (const Arc& a : reference) ++degree[a.src];
  const std::vector<uint32_t> expected = degree_order(degree);
  sgtest::TempDir dir;
  IngestOptions o = small_batch_options(dir, input, 5000);
  o.order = "degree";
  o.undirected = true;
  IngestSummary summary;
  Status s = ingest_ordered(o, &summary);
  REQUIRE_MESSAGE(s.ok(), s.ToString());
  CHECK(summary.phases.find("reroute") != std::string::npos);
  Graph g;
  REQUIRE(Graph::open(o.output, &g).ok());
  for (uint32_t old = 0; old < 4000; ++old) CHECK(g.original_id(expected[old]) == old);
  std::vector<Arc> stored = sgtest::read_space(g, SpaceKind::kOut);
  std::sort(stored.begin(), stored.end());
  std::sort(reference.begin(), reference.end());
  CHECK(stored == reference);
  VerifyReport report;
  CHECK(verify_graph(g, &report).ok());
}

// A stored graph read back (format "graph") is never ordered in its first
// pass, even one already ordered by degree: the two passes run, and the
// graph comes out whole, not as the first pass's out-only graph.
TEST_CASE("ingest: a graph ordered by degree, ingested again by degree, is built whole") {
  const std::vector<Arc> input = skewed_with_hubs();
  sgtest::TempDir dir;
  IngestOptions o = small_batch_options(dir, input, 5000);
  o.order = "degree";
  IngestSummary summary;
  REQUIRE(ingest_ordered(o, &summary).ok());
  REQUIRE(summary.ordered_in_route);
  IngestOptions again;
  again.input = o.output;
  again.format = "graph";
  again.output = dir / "again";
  again.order = "degree";
  again.chunk_bytes = 128;
  Status s = ingest_ordered(again, &summary);
  REQUIRE_MESSAGE(s.ok(), s.ToString());
  CHECK(!summary.ordered_in_route);
  Graph g;
  REQUIRE(Graph::open(again.output, &g).ok());
  CHECK(g.manifest().ordering == "degree");
  std::vector<Arc> unweighted = input;  // stored without weights
  for (Arc& a : unweighted) a.weight = 1.0f;
  for (const SpaceKind kind : {SpaceKind::kOut, SpaceKind::kIn}) {
    std::vector<Arc> stored = sgtest::read_space(g, kind);
    std::sort(stored.begin(), stored.end());
    CHECK(stored == sorted_space(unweighted, kind == SpaceKind::kIn, false));
  }
}

// Counts that do not fit (declared vertices past an eighth of the budget's
// bytes), or ids that outgrow the room the first batch reserved, leave an
// ordinary first pass: the order is then computed from the unordered graph.
TEST_CASE("ingest: the degree order falls back to two passes when its counts do not fit") {
  sgtest::TempDir dir;
  uint64_t state = 5;
  std::string declared = "# Nodes: 2000000\n", growing;
  for (int i = 0; i < 70000; ++i) {  // dense enough for 2 M ids without remapping
    declared += std::to_string(sgtest::next_random(&state) % 2000) + " " +
                std::to_string(sgtest::next_random(&state) % 2000) + "\n";
  }
  // The first read batch (at most 64 Ki edges) sees ids below 100, later
  // ones ids up to 300,000: past twice the first batch's vertices.
  for (int i = 0; i < 70000; ++i) growing += std::to_string(i % 100) + " " + std::to_string((i * 7) % 100) + "\n";
  for (int i = 0; i < 3000; ++i) growing += std::to_string(100 * i) + " " + std::to_string(i) + "\n";
  sgtest::write_text(dir / "declared.txt", declared);
  sgtest::write_text(dir / "growing.txt", growing);
  for (const std::string name : {"declared", "growing"}) {
    CAPTURE(name);
    IngestOptions o;
    o.input = dir / (name + ".txt");
    o.output = dir / ("g-" + name);
    o.order = "degree";
    o.chunk_bytes = 4096;
    o.memory_bytes = 12 << 20;  // counts for 1.5 M vertices at most
    o.remap = IngestOptions::Remap::kNever;
    IngestSummary summary;
    Status s = ingest_ordered(o, &summary);
    REQUIRE_MESSAGE(s.ok(), s.ToString());
    CHECK(summary.phases.find("unordered:") == 0);
    Graph g;
    REQUIRE(Graph::open(o.output, &g).ok());
    CHECK(g.manifest().ordering == "degree");
    VerifyReport report;
    CHECK(verify_graph(g, &report).ok());
  }
}

TEST_CASE("permutation: windows slide and jump as a relabelling reads them, and survive a move with a read in flight") {
  sgtest::TempDir dir;
  constexpr uint32_t kVertices = 5000;
  std::vector<uint32_t> new_id(kVertices);
  for (uint32_t v = 0; v < kVertices; ++v) new_id[v] = kVertices - 1 - v;
  const std::string path = dir / "order.new_id";
  REQUIRE(write_file_atomic(path, new_id.data(), kVertices * sizeof(uint32_t)).ok());
  Permutation first;
  REQUIRE(Permutation::open(path, kVertices, 0, 1000, 100, &first).ok());  // sources: halves of 500
  bool covered = false;
  REQUIRE(first.cover(0, 400, 0, 50, 0, &covered).ok());  // the upper half [500, 1000) is read now
  REQUIRE(covered);
  Permutation moved = std::move(first);
  const auto check = [&](uint64_t lo, uint64_t hi) {
    REQUIRE(moved.cover(lo, hi, 0, 50, 0, &covered).ok());
    REQUIRE(covered);
    const Permutation::Window& sources = moved.sources();
    for (uint64_t v = lo; v <= hi; ++v) CHECK(sources.ids[v - sources.first] == new_id[v]);
  };
  check(600, 900);    // the upper half read before the move
  check(1000, 1400);  // a slide
  check(4700, 4999);  // a jump to the last, partial half
  check(0, 499);      // back to the start, as the next block does
  REQUIRE(moved.cover(0, 500, 0, 50, 0, &covered).ok());
  CHECK(!covered);  // wider than a half: the caller splits the batch
}

TEST_CASE(
    "ingest --order auto on a directed input: the order's out-only first pass is completed when the input order wins") {
  sgtest::TempDir dir;
  std::string output;
  REQUIRE(sgtest::run_cli("generate grid --rows 80 --cols 80 --no-shuffle -o " + (dir / "rows.txt"), &output) == 0);
  REQUIRE(sgtest::run_cli("ingest " + (dir / "rows.txt") + " -o " + (dir / "rows"), &output) == 0);
  Graph g;
  REQUIRE(Graph::open(dir / "rows", &g).ok());
  CHECK(g.manifest().ordering == "none");
  CHECK(output.find("compresses better") != std::string::npos);
  CHECK(g.block_count(SpaceKind::kIn) == 1);
  VerifyReport report;
  CHECK(verify_graph(g, &report).ok());
  CHECK(sgtest::list_dir(dir.path()).size() == 2);  // no hidden graph left
}

TEST_CASE("ingest: a list's radix sort orders like std::sort at every length and id range") {
  uint64_t state = 2026;
  std::vector<uint32_t> list, expected, scratch;
  for (uint32_t count : {0u, 1u, 31u, 32u, 33u, 100u, 2047u, 2048u, 5000u, 70000u}) {
    for (int range_bits : {0, 1, 7, 11, 12, 22, 31, 32}) {
      list.resize(count);
      const uint64_t low = sgtest::next_random(&state) % 1000;  // ids need not start at 0
      for (uint32_t& id : list) {
        const uint64_t offset = range_bits == 0 ? 0 : sgtest::next_random(&state) & ((uint64_t{1} << range_bits) - 1);
        id = static_cast<uint32_t>(std::min<uint64_t>(UINT32_MAX, low + offset));
      }
      expected = list;
      std::sort(expected.begin(), expected.end());
      scratch.assign(count, 0xdeadbeef);
      sort_neighbour_list(list.data(), count, scratch.data());
      CHECK_MESSAGE(list == expected, "count ", count, ", range bits ", range_bits);
    }
  }
}

// A batch's counting scatter, on one thread (under 65,536 records) and in
// two halves on two: each key's list holds its neighbours in input order
// (a stable scatter), the lists in key order, the empty keys left out.
// Keys up to twice as sparse as the records are scattered too while their
// counts fit the batch's arrays; sparser ones sort the records, which
// leaves each list sorted.
TEST_CASE("ingest: a batch's counting scatter gives each key its neighbours in input order, on one thread or two") {
  uint64_t state = 46;
  for (size_t count : {size_t{1}, size_t{1000}, size_t{65535}, size_t{65536}, size_t{200001}}) {
    const uint32_t n = static_cast<uint32_t>(count);
    for (uint32_t span : {1u, 7u, 5000u, n / 2 + 1, n, n + 1, 2 * n, 3 * n}) {
      const uint32_t first_vertex = 1000 + static_cast<uint32_t>(sgtest::next_random(&state) % 1000);
      std::vector<PlainArc> records(count);
      std::map<uint32_t, std::vector<uint32_t>> expected;
      for (PlainArc& r : records) {
        // Skewed keys: most in the lower eighth, as R-MAT's hubs are.
        const uint64_t draw = sgtest::next_random(&state);
        const uint32_t key =
            first_vertex + static_cast<uint32_t>((draw % 4 != 0 ? draw / 4 % (span / 8 + 1) : draw / 4) % span);
        const uint32_t neighbour = static_cast<uint32_t>(sgtest::next_random(&state));
        r = PlainArc::make(key, neighbour, 1.0f);
        expected[key].push_back(neighbour);
      }
      BatchLists<PlainArc> lists;
      lists.reserve(count);  // a batch of exactly these records: counts fit spans up to `count`
      const bool scattered = lists.build(records.data(), count, first_vertex, first_vertex + span - 1);
      CHECK_MESSAGE(scattered == (span <= count), "count ", count, ", span ", span);
      REQUIRE(lists.vertex.size() == expected.size());
      REQUIRE(lists.begin.size() == expected.size() + 1);
      CHECK(lists.begin.back() == count);
      size_t i = 0;
      for (auto& [key, neighbours] : expected) {
        CHECK_MESSAGE(lists.vertex[i] == key, "count ", count, ", span ", span);
        const std::vector<uint32_t> got(lists.neighbours.begin() + lists.begin[i],
                                        lists.neighbours.begin() + lists.begin[i + 1]);
        if (!scattered) std::sort(neighbours.begin(), neighbours.end());
        CHECK_MESSAGE(got == neighbours, "count ", count, ", span ", span, ", key ", key);
        ++i;
      }
    }
  }
}

namespace {

// A hub (vertex 0's 3000 arcs), 6000 random arcs among its range, and
// vertices no arc reaches (roots of later restarts) with arcs among
// themselves; weights 1 to 4 when `weighted`.
std::vector<Arc> bfds_variants_input(bool weighted) {
  std::vector<Arc> input;
  uint64_t state = 23;
  const auto weight = [&] { return weighted ? static_cast<float>(1 + sgtest::next_random(&state) % 4) : 1.0f; };
  for (int i = 0; i < 3000; ++i) input.push_back(Arc{0, sgtest::next_random(&state) % 3000, weight()});
  for (int i = 0; i < 6000; ++i)
    input.push_back(Arc{sgtest::next_random(&state) % 3000, sgtest::next_random(&state) % 3000, weight()});
  for (uint64_t v = 3000; v < 3400; ++v) input.push_back(Arc{v, 3400 + v % 50, weight()});
  return input;
}

// Every variant of a bfds ordered ingest of `input` stores the same files.
// The first steps from the root and level 1 with the engine; the others
// take those levels while the first pass sorts (bfds_first_levels.h) when
// `levels_in_sort` (the root has out-arcs), except with compact ranks,
// which the levels' whole ranks do not serve. The residual read into
// memory, compact ranks with the permutation read from a file through
// windows (kernels.h: bfds_order_to_file), and 3 blocks (the residual's
// lists arrive in a piece a block) change nothing either.
void check_bfds_variants(const std::vector<Arc>& input, bool weighted, bool levels_in_sort, size_t variants = 10) {
  struct Variant {
    bool residual, compact;
    uint32_t blocks;
    bool levels_by_engine = false;
    size_t sort_edges = 0;  // small: the hub's list cut over buckets and sort batches
  };
  std::map<std::string, std::string> first;
  for (const Variant& variant :
       {Variant{false, false, 1, true}, Variant{false, false, 1}, Variant{true, false, 1}, Variant{false, true, 1},
        Variant{true, true, 1}, Variant{false, false, 3}, Variant{true, true, 3}, Variant{true, false, 3, true},
        Variant{false, false, 1, false, 700}, Variant{true, false, 3, false, 700}}) {
    if (variants-- == 0) break;
    CAPTURE(variant.residual);
    CAPTURE(variant.compact);
    CAPTURE(variant.blocks);
    CAPTURE(variant.levels_by_engine);
    sgtest::TempDir dir;
    IngestOptions o = small_batch_options(dir, input, variant.sort_edges);
    sgtest::write_snap(o.input, input, weighted);
    if (variant.sort_edges != 0) o.route_buckets = 4;
    o.chunk_bytes = 256;
    o.blocks = variant.blocks;
    o.order = "bfds";
    o.order_residual_always = variant.residual;
    o.order_compact_always = variant.compact;
    o.order_levels_by_engine = variant.levels_by_engine;
    IngestSummary summary;
    const Status s = ingest_ordered(o, &summary);
    REQUIRE_MESSAGE(s.ok(), s.ToString());
    CHECK((summary.phases.find("lists in memory") != std::string::npos) == variant.residual);
    CHECK((summary.phases.find("compact ranks") != std::string::npos) == variant.compact);
    CHECK((summary.phases.find("levels 1-2 while sorting") != std::string::npos) ==
          (levels_in_sort && !variant.levels_by_engine && !variant.compact));
    std::vector<std::string> files = {"id_map.u64", "out.degrees", "in.degrees"};
    for (const std::string kind : {"out", "in"}) {
      // Sort batches cut chunks where they end: those spaces differ.
      for (uint32_t b = 0; b < variant.blocks && variant.sort_edges == 0; ++b)
        files.push_back(kind + (variant.blocks == 1 ? "" : ".b" + std::to_string(b)) + ".d0");
    }
    for (const std::string& file : files) {
      const std::string bytes = sgtest::read_text(o.output + "/" + file);
      if (first.count(file) == 0) {
        first[file] = bytes;
      } else {
        CHECK_MESSAGE(bytes == first[file], file);
      }
    }
  }
}

}  // namespace

// A bfds order whose residual (the lists still to step from, once the
// large levels are done) is read into memory, whose ranks are held
// compact, or whose first two levels are taken while the first pass sorts
// gives the same permutation: the same id map and spaces byte for byte.
TEST_CASE(
    "ingest: a bfds order taking its residual into memory or holding compact ranks numbers every vertex as the engine "
    "alone does") {
  check_bfds_variants(bfds_variants_input(false), false, true);
}

TEST_CASE("ingest: a bfds order's first two levels taken while sorting, weighted or from a root without out-arcs") {
  check_bfds_variants(bfds_variants_input(true), true, true);
  // The highest in-degree (vertex 4000's) has no out-arcs: the traversal
  // takes that root itself, then the next two.
  std::vector<Arc> sink_root = bfds_variants_input(false);
  uint64_t state = 5;
  for (int i = 0; i < 4000; ++i) sink_root.push_back(Arc{sgtest::next_random(&state) % 3400, 4000, 1.0f});
  check_bfds_variants(sink_root, false, false);
  // 400,000 arcs: a sort batch's lists are encoded in parallel parts, whose
  // threads push from level 1 at once (the engine alone, then the sort).
  std::vector<Arc> large;
  for (int i = 0; i < 400000; ++i) {
    const uint64_t u = sgtest::next_random(&state) % 40000;
    large.push_back(Arc{u % 7 == 0 ? u % 64 : u, sgtest::next_random(&state) % 40000, 1.0f});
  }
  check_bfds_variants(large, false, true, 2);
}

// A relabelling pass reads the unordered graph back with the next chunk
// decoded on a thread of its own: every arc comes once, in the stored
// order, in batches of any size, whether or not the budget allows that.
TEST_CASE("ingest: a stored graph read back as edges, the next chunk decoded ahead or not, gives every arc in order") {
  sgtest::TempDir dir;
  const std::vector<Arc> input = hub_and_repeats();
  IngestOptions o = small_batch_options(dir, input, 1 << 20);
  o.order = "none";
  IngestSummary summary;
  REQUIRE(ingest_graph(o, &summary).ok());
  Graph g;
  REQUIRE(Graph::open(o.output, &g).ok());
  REQUIRE(g.stored_space(g.blocks(SpaceKind::kOut)[0]).index.size() > 8);  // many chunks
  const std::vector<Arc> stored = sgtest::read_space(g, SpaceKind::kOut);
  uint64_t chunk_bytes = 0;
  for (const ChunkIndexEntry& entry : g.stored_space(g.blocks(SpaceKind::kOut)[0]).index) chunk_bytes += entry.bytes;
  // A 32nd of 64 MiB holds any chunk's arcs here; of 0 bytes, none.
  for (const uint64_t memory_bytes : {uint64_t{64} << 20, uint64_t{0}}) {
    for (const size_t batch_edges : {size_t{1}, size_t{97}, size_t{4096}}) {
      CAPTURE(memory_bytes);
      CAPTURE(batch_edges);
      std::unique_ptr<EdgeReader> reader;
      REQUIRE(open_graph_edge_reader(o.output, &reader).ok());
      reader->set_memory_budget(memory_bytes);
      std::vector<Arc> read;
      std::vector<RawEdge> batch;
      for (size_t calls = 0; calls <= input.size() + 1; ++calls) {  // bounded: one arc a call at least
        REQUIRE(reader->next_batch(&batch, batch_edges).ok());
        if (batch.empty()) break;
        CHECK(batch.size() <= batch_edges);
        for (const RawEdge& e : batch) read.push_back(Arc{e.src, e.dst, e.weight});
      }
      CHECK(read == stored);
      CHECK(reader->bytes_read() == chunk_bytes);
    }
  }
}
