#include "test_util.h"

#include "apps/jobs/ingest_ordered.h"
#include "scheduler/device_profile.h"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

namespace sgtest {

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/sgtest-XXXXXX";
  REQUIRE(::mkdtemp(pattern.data()) != nullptr);
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void write_snap(const std::string& path, const std::vector<Arc>& arcs, bool weighted) {
  std::ofstream out(path);
  out << "# test graph\n";
  for (const Arc& a : arcs) {
    out << a.src << '\t' << a.dst;
    if (weighted) out << '\t' << a.weight;
    out << '\n';
  }
  REQUIRE(out.good());
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<Arc> read_space(const sg::Graph& graph, sg::SpaceKind kind) {
  std::vector<Arc> arcs;
  std::vector<uint32_t> scratch;
  for (size_t stored : graph.blocks(kind)) {
    const sg::EdgeSpace& space = graph.stored_space(stored);
    for (size_t c = 0; c < space.index.size(); ++c) {
      std::vector<uint8_t> payload(space.index[c].bytes + 8);
      sg::Status s = graph.read_chunk_of(space, c, payload.data());
      REQUIRE_MESSAGE(s.ok(), s.ToString());
      s = sg::for_each_list(graph.manifest().list_codec(), payload.data(), space.index[c], graph.num_vertices(),
                            graph.weighted(), &scratch,
                            [&](uint32_t v, const uint32_t* nbrs, uint32_t n, const float* w) {
                              for (uint32_t i = 0; i < n; ++i) {
                                // A block holds only neighbours of its range.
                                CHECK(nbrs[i] >= space.neighbour_begin);
                                CHECK(nbrs[i] < space.neighbour_end);
                                arcs.push_back(Arc{graph.original_id(v), graph.original_id(nbrs[i]), w ? w[i] : 1.0f});
                              }
                            });
      REQUIRE_MESSAGE(s.ok(), s.ToString());
    }
  }
  // Blocks hold each vertex's list in pieces: in list order again.
  if (graph.block_count(kind) > 1) std::sort(arcs.begin(), arcs.end());
  return arcs;
}

int run_cli(const std::string& args, std::string* output, const std::string& env) {
  TempDir dir;
  const std::string log = dir / "out.txt";
  const std::string command = env + " " + std::string(SHARDGRAPH_BIN) + " " + args + " >" + log + " 2>&1";
  const int rc = std::system(command.c_str());
  if (output != nullptr) *output = read_text(log);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    // A device profile is the directory's, not an ingest's leftover: ingest
    // probes a directory without one once and stores the result there.
    if (entry.path().filename() == sg::kProfileFileName) continue;
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

uint64_t next_random(uint64_t* state) {
  uint64_t x = (*state += 0x9e3779b97f4a7c15ULL);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::map<uint64_t, double> read_values(const std::string& path) {
  std::map<uint64_t, double> values;
  std::istringstream in(sgtest::read_text(path));
  uint64_t id = 0;
  std::string value;
  while (in >> id >> value) {
    if (value == "inf" || value == "infinity")
      values[id] = INFINITY;
    else if (value == "9223372036854775807")
      values[id] = -1;
    else
      values[id] = std::stod(value);
  }
  return values;
}

void ingest_and_open(const std::string& input, const std::string& output, sg::Graph* graph) {
  sg::IngestOptions options;
  options.input = input;
  options.output = output;
  sg::IngestSummary summary;
  const sg::Status s = sg::ingest_ordered(options, &summary);
  REQUIRE_MESSAGE(s.ok(), s.ToString());
  REQUIRE(sg::Graph::open(output, graph).ok());
}

void ingest_on_devices(const TempDir& dir, const std::string& input, const std::string& options, int devices) {
  std::string args = "ingest " + (dir / input) + " -o " + (dir / "g") + " " + options;
  for (int d = 0; d < devices; ++d) {
    const std::string device = dir / ("d" + std::to_string(d));
    std::filesystem::create_directory(device);
    args += " --device " + device;
  }
  std::string output;
  REQUIRE_MESSAGE(run_cli(args, &output) == 0, output);
}

}  // namespace sgtest
