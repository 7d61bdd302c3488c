// Power cuts at every sync point of every writer (ingest, restripe,
// partition): each writer runs under the recorder (powercut/sync_recorder.cc),
// and every state a cut could leave is rebuilt and opened
// (powercut/crash_states.h). Each must verify as the old graph or the new
// one, or be refused with one line; an in-place writer must never lose the
// old graph; and once a writer has returned its graph is durable.
// SG_POWERCUT_SCALE=N (scripts/powercut.sh) makes the graphs N times larger
// and tries N torn states a sync point.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "apps/jobs/partition.h"
#include "powercut/crash_states.h"
#include "scheduler/device_profile.h"
#include "shards/format/graph_deltas.h"
#include "shards/format/verify.h"
#include "test_util.h"

using namespace sg;

namespace {

int scale() {
  const char* text = std::getenv("SG_POWERCUT_SCALE");
  return text != nullptr && std::atoi(text) > 0 ? std::atoi(text) : 1;
}

void dump_arcs(const Graph& graph, std::ostringstream* text) {
  // The layout too, so a restripe's old and new graphs differ.
  *text << graph.num_vertices() << (graph.directed() ? " directed" : " undirected") << " on " << graph.device_count()
        << " devices, stripe " << graph.layout().stripe_bytes() << "\n";
  for (const sgtest::Arc& a : sgtest::read_space(graph, SpaceKind::kOut))
    *text << a.src << " " << a.dst << " " << a.weight << "\n";
  if (!graph.directed()) return;
  *text << "in\n";
  for (const sgtest::Arc& a : sgtest::read_space(graph, SpaceKind::kIn))
    *text << a.src << " " << a.dst << " " << a.weight << "\n";
}

// The records of every update not yet compacted.
void dump_deltas(const GraphDeltas& deltas, std::ostringstream* text) {
  for (const SpaceKind kind : {SpaceKind::kOut, SpaceKind::kIn}) {
    for (const auto& run : deltas.runs(kind)) {
      std::vector<DeltaArc> arcs;
      for (size_t b = 0; b < run->reader.blocks(); ++b) REQUIRE(run->reader.decode_block(b, &arcs).ok());
      *text << "update " << run->generation << (kind == SpaceKind::kOut ? " out" : " in") << "\n";
      for (const DeltaArc& a : arcs)
        *text << a.key << " " << a.neighbour << " " << a.removed << " " << a.weight << "\n";
    }
  }
  for (const uint64_t id : deltas.new_ids()) *text << "new vertex " << id << "\n";
}

// A graph directory that opens and verifies, as text.
sgtest::GraphReader graph_reader(const std::string& name) {
  return [name](const std::string& root, std::string* dump, std::string* error) {
    Graph graph;
    GraphOpenOptions open;
    open.deltas = true;  // an update's graph, read with its updates
    Status status = Graph::open(root + "/" + name, &graph, open);
    VerifyReport report;
    if (status.ok()) status = verify_graph(graph, &report);
    GraphDeltas deltas;
    if (status.ok()) status = deltas.open(graph);
    if (!status.ok()) {
      *error = status.message();
      return false;
    }
    std::ostringstream text;
    dump_arcs(graph, &text);
    dump_deltas(deltas, &text);
    *dump = text.str();
    return true;
  };
}

// A partitioned graph that verifies, as the text of its parts.
sgtest::GraphReader partition_reader(const std::string& name) {
  return [name](const std::string& root, std::string* dump, std::string* error) {
    const std::string dir = root + "/" + name;
    uint64_t arcs = 0;
    PartitionLayout layout;
    Status status = verify_partition(dir, &arcs);
    if (status.ok()) status = read_partition_layout(dir, &layout);
    std::ostringstream text;
    for (uint32_t k = 0; status.ok() && k < layout.part_ids.size(); ++k) {
      Graph part;
      status = open_part(part_dir(dir, k), layout.part_ids[k], layout.num_vertices, GraphOpenOptions{}, &part);
      if (status.ok()) dump_arcs(part, &text);
    }
    if (!status.ok()) {
      *error = status.message();
      return false;
    }
    *dump = text.str();
    return true;
  };
}

// A random weighted edge list of about 1500 * scale() edges in root/e.txt.
void write_edges(const sgtest::TempDir& root, uint64_t seed) {
  std::string edges;
  const int count = 1500 * scale();
  for (int i = 0; i < count; ++i) {
    edges += std::to_string(sgtest::next_random(&seed) % (count / 4)) + " " +
             std::to_string(sgtest::next_random(&seed) % (count / 4)) + " " +
             std::to_string(1 + sgtest::next_random(&seed) % 9) + "\n";
  }
  sgtest::write_text(root / "e.txt", edges);
}

void make_device(const std::string& dir, const char* device_class) {
  std::filesystem::create_directories(dir);
  DeviceProfile profile;
  REQUIRE(preset_profile(device_class, &profile).ok());
  sgtest::write_text(dir + "/" + kProfileFileName, profile.to_json());
}

// Runs `shardgraph ARGS` under the recorder, logging into `log`.
void run_recorded(const sgtest::TempDir& root, const sgtest::TempDir& log, const std::string& args,
                  std::string* output = nullptr) {
  std::string env = "SG_POWERCUT_ROOT=" + root.path() + " SG_POWERCUT_LOG=" + log.path() +
                    " LD_PRELOAD=" + std::string(SG_SYNC_RECORDER);
#ifdef SHARDGRAPH_SANITIZED
  env += " ASAN_OPTIONS=verify_asan_link_order=0";  // the recorder is preloaded before the runtime
#endif
  std::string text;
  REQUIRE_MESSAGE(sgtest::run_cli(args, &text, env) == 0, text);
  if (output != nullptr) *output = text;
}

void check_and_report(const char* writer, const sgtest::TempDir& log, const sgtest::TempDir& root,
                      const sgtest::GraphReader& reader, bool keep_old) {
  const int torn = 2 * scale();
  const sgtest::PowerCutReport report = sgtest::check_power_cuts(log.path(), root.path(), reader, keep_old, torn, 1.0);
  MESSAGE(std::string(writer) << ": " << report.states << " crash states: " << report.new_graph << " new graph, "
                              << report.old_graph << " old graph, " << report.refused << " refused");
  CHECK(report.new_graph > 0);
  CHECK(report.states > 10);
}

}  // namespace

TEST_CASE("power cuts during an ordered ingest onto two HDDs leave no graph or the whole one") {
  sgtest::TempDir root, log;
  write_edges(root, 3);
  make_device(root / "d0", "hdd");
  make_device(root / "d1", "hdd");
  run_recorded(root, log,
               "ingest " + (root / "e.txt") + " -o " + (root / "g") + " --weights --device " + (root / "d0") +
                   " --device " + (root / "d1") + " --chunk-bytes 512 --stripe-bytes 4096 --memory 8M");
  check_and_report("ordered ingest", log, root, graph_reader("g"), false);
}

// Ordered by degree while routing, the first pass's work graph, whose
// files nothing synced, becomes the output (sync_graph before the rename).
TEST_CASE("power cuts during an ingest that keeps its unsynced work graph leave no graph or the whole one") {
  sgtest::TempDir root, log;
  write_edges(root, 6);
  make_device(root / "d0", "nvme");
  std::string output;
  run_recorded(root, log,
               "ingest " + (root / "e.txt") + " -o " + (root / "g") + " --weights --device " + (root / "d0") +
                   " --order degree --chunk-bytes 512 --memory 8M",
               &output);
  REQUIRE_MESSAGE(output.find("ordered by degree while routing") != std::string::npos, output);
  check_and_report("work graph kept", log, root, graph_reader("g"), false);
}

TEST_CASE("power cuts during an unordered undirected ingest with direct I/O leave no graph or the whole one") {
  sgtest::TempDir root, log;
  write_edges(root, 4);
  make_device(root / "d0", "nvme");
  run_recorded(root, log,
               "ingest " + (root / "e.txt") + " -o " + (root / "g") + " --undirected --order none --device " +
                   (root / "d0") + " --chunk-bytes 512");
  check_and_report("unordered ingest", log, root, graph_reader("g"), false);
}

TEST_CASE("power cuts during a restripe leave the old graph or the new one, never neither") {
  sgtest::TempDir root, log;
  write_edges(root, 5);
  make_device(root / "a0", "ssd");
  std::string output;
  REQUIRE(sgtest::run_cli("ingest " + (root / "e.txt") + " -o " + (root / "g") + " --weights --device " +
                              (root / "a0") + " --chunk-bytes 512 --stripe-bytes 4096",
                          &output) == 0);
  make_device(root / "b0", "ssd");
  make_device(root / "b1", "ssd");
  run_recorded(root, log,
               "restripe " + (root / "g") + " --device " + (root / "b0") + " --device " + (root / "b1") +
                   " --stripe-bytes 8192");
  check_and_report("restripe", log, root, graph_reader("g"), true);
}

TEST_CASE("power cuts during updates and a compaction leave the old graph or the new one, never neither") {
  sgtest::TempDir root;
  write_edges(root, 7);
  make_device(root / "d0", "hdd");
  std::string output;
  REQUIRE(sgtest::run_cli("ingest " + (root / "e.txt") + " -o " + (root / "g") + " --weights --remap --device " +
                              (root / "d0") + " --chunk-bytes 512",
                          &output) == 0);
  sgtest::write_text(root / "add.txt", "1 2 3\n2 1 4\n900000 1 5\n7 900001 6\n");
  sgtest::write_text(root / "remove.txt", "1 2\n3 4\n");
  for (int step = 0; step < 2; ++step) {
    sgtest::TempDir log;
    run_recorded(root, log,
                 "update " + (root / "g") + " --add " + (root / "add.txt") + " --remove " + (root / "remove.txt"));
    check_and_report(step == 0 ? "first update" : "second update", log, root, graph_reader("g"), true);
  }
  sgtest::TempDir log;
  run_recorded(root, log, "compact " + (root / "g"));
  check_and_report("compaction (new vertices: an id map extended)", log, root, graph_reader("g"), true);
  // Updates that add no vertex: the id map is linked.
  sgtest::write_text(root / "add2.txt", "900000 900001 8\n1 7 9\n");
  REQUIRE(sgtest::run_cli("update " + (root / "g") + " --add " + (root / "add2.txt") + " --no-compact", &output) == 0);
  sgtest::TempDir merge_log;
  run_recorded(root, merge_log, "compact " + (root / "g"), &output);
  CHECK(output.find("(merged into its chunks)") != std::string::npos);
  check_and_report("compaction (no new vertex: the id map linked)", merge_log, root, graph_reader("g"), true);
}

TEST_CASE("power cuts during a partition leave no partitioned graph or the whole one") {
  sgtest::TempDir root, log;
  write_edges(root, 6);
  std::string output;
  REQUIRE(sgtest::run_cli("ingest " + (root / "e.txt") + " -o " + (root / "g") + " --chunk-bytes 512", &output) == 0);
  run_recorded(root, log, "partition " + (root / "g") + " --parts 2 -o " + (root / "p"));
  check_and_report("partition", log, root, partition_reader("p"), false);
}
