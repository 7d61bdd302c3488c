// The library API (include/shardgraph/shardgraph.h), as a program outside the CLI
// uses it: generate, ingest, run every app with typed columns, progress
// and stop callbacks, errors as values.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "scheduler/device_profile.h"
#include "shardgraph/shardgraph.h"
#include "test_util.h"

namespace {

using shardgraph::Status;

// The text --output writes for one value of a column.
std::string column_text(const shardgraph::ResultColumn& c, size_t i) {
  char buf[64];
  switch (c.type) {
    case shardgraph::ValueType::kInt32: std::snprintf(buf, sizeof(buf), "%d", c.values<int32_t>()[i]); break;
    case shardgraph::ValueType::kUint32: std::snprintf(buf, sizeof(buf), "%u", c.values<uint32_t>()[i]); break;
    case shardgraph::ValueType::kInt64:
      std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(c.values<int64_t>()[i]));
      break;
    case shardgraph::ValueType::kUint64:
      std::snprintf(buf, sizeof(buf), "%llu", static_cast<unsigned long long>(c.values<uint64_t>()[i]));
      break;
    case shardgraph::ValueType::kFloat32: std::snprintf(buf, sizeof(buf), "%.9g", c.values<float>()[i]); break;
    case shardgraph::ValueType::kFloat64: std::snprintf(buf, sizeof(buf), "%.17g", c.values<double>()[i]); break;
  }
  return buf;
}

// "id v1 [v2]" lines of an --output file, by id.
std::map<uint64_t, std::vector<std::string>> output_lines(const std::string& path) {
  std::map<uint64_t, std::vector<std::string>> lines;
  std::istringstream in(sgtest::read_text(path));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    uint64_t id = 0;
    fields >> id;
    std::string value;
    while (fields >> value) lines[id].push_back(value);
  }
  return lines;
}

// Whether `text` (as --output prints it) and the typed value agree.
bool same_value(const std::string& text, const std::string& typed) {
  if (text == typed) return true;
  if (text == "inf" && typed == "inf") return true;
  char* end = nullptr;
  const double a = std::strtod(text.c_str(), &end), b = std::strtod(typed.c_str(), nullptr);
  return *end == '\0' && std::abs(a - b) <= 1e-8 * std::max(1.0, std::abs(a));
}

}  // namespace

TEST_CASE("api: the app table lists every app with its options and columns") {
  const auto& apps = shardgraph::apps();
  REQUIRE(apps.size() == 11);
  CHECK(apps.front().name == "betweenness");  // in name order
  const shardgraph::AppInfo* bfs = shardgraph::find_app("bfs");
  REQUIRE(bfs != nullptr);
  CHECK(bfs->columns == std::vector<std::string>{"depth", "parent"});
  CHECK(std::find(bfs->options.begin(), bfs->options.end(), "source") != bfs->options.end());
  CHECK(shardgraph::find_app("wcc")->reversed_steps);
  CHECK(shardgraph::find_app("triangles")->needs_undirected);
  CHECK(shardgraph::find_app("sssp")->needs_weights);
  CHECK_FALSE(shardgraph::find_app("bfs")->needs_weights);
  CHECK_FALSE(shardgraph::find_app("pagerank")->iterations.empty());
  CHECK(shardgraph::find_app("nosuch") == nullptr);
}

TEST_CASE("api: every app's collected columns equal its --output, keyed by original (sparse) ids") {
  sgtest::TempDir dir;
  // Sparse ids (x 1000 + 7): ingested with remap, results keep them.
  std::string text;
  uint64_t state = 11;
  for (int i = 0; i < 3000; ++i) {
    const uint64_t a = sgtest::next_random(&state) % 400, b = sgtest::next_random(&state) % 400;
    text += std::to_string(a * 1000 + 7) + " " + std::to_string(b * 1000 + 7) + "\n";
  }
  sgtest::write_text(dir / "e.txt", text);
  for (const bool undirected : {false, true}) {
    shardgraph::IngestRequest in;
    in.input = dir / "e.txt";
    in.output = dir / (undirected ? "u" : "d");
    in.remap = "always";
    in.undirected = undirected;
    in.chunk_bytes = 512;
    in.memory_bytes = 64 << 20;
    shardgraph::IngestReport report;
    REQUIRE(shardgraph::ingest(in, &report).ok());
    CHECK(report.edges > 0);
    for (const shardgraph::AppInfo& app : shardgraph::apps()) {
      if (app.needs_undirected && !undirected) continue;
      CAPTURE(app.name);
      CAPTURE(undirected);
      shardgraph::RunRequest r;
      r.app = app.name;
      r.graph = in.output;
      r.memory_bytes = 64 << 20;
      r.output = dir / "out.txt";
      r.collect = true;
      r.parents = true;
      r.unit_weights = true;
      r.threads = 1;
      r.quiet = true;
      shardgraph::RunResult result;
      const Status s = shardgraph::run(r, &result);
      REQUIRE_MESSAGE(s.ok(), s.ToString());
      CHECK_FALSE(result.summary.empty());
      // The ingest's probe of the directory is kept in the graph: no preset.
      CHECK(result.notices.find("no calibrated profile") == std::string::npos);
      CHECK(result.stats_json.find("\"steps\"") != std::string::npos);
      const auto lines = output_lines(r.output);
      REQUIRE(result.ids.size() == lines.size());
      REQUIRE(result.columns.size() == (app.name == "bfs" ? 2u : 1u));
      CHECK(result.columns[0].name == app.columns[0]);
      for (size_t i = 0; i < result.ids.size(); ++i) {
        REQUIRE(result.ids[i] % 1000 == 7);
        if (i > 0) REQUIRE(result.ids[i] > result.ids[i - 1]);
        const auto& fields = lines.at(result.ids[i]);
        REQUIRE(fields.size() == result.columns.size());
        for (size_t c = 0; c < fields.size(); ++c)
          REQUIRE_MESSAGE(same_value(fields[c], column_text(result.columns[c], i)), fields[c]);
      }
    }
  }
}

// --codec auto reads the output directory's stored device profile: one
// slow disk gives the entropy layout, whether or not the graph fits in
// --memory; without one the directory is probed and the probe stored. The
// chunk target follows the profile too.
TEST_CASE("api: codec and chunk size auto pick by the stored device profile") {
  sgtest::TempDir dir;
  shardgraph::RmatRequest rmat;
  rmat.scale = 16;
  rmat.edge_factor = 40;  // 2.6 M edges: 5.2 M arcs, over a 4 MiB budget
  rmat.output = dir / "r.bin32";
  REQUIRE(shardgraph::generate_rmat(rmat).ok());
  uint64_t chunk_target = 0;
  auto entropy_chunks = [&](const std::string& name, uint64_t memory_bytes, uint64_t* packed) {
    shardgraph::IngestRequest in;
    in.input = rmat.output;
    in.output = dir / name;
    in.order = "none";
    in.memory_bytes = memory_bytes;
    shardgraph::IngestReport report;
    REQUIRE(shardgraph::ingest(in, &report).ok());
    std::string text;
    REQUIRE(shardgraph::graph_info(in.output, true, &text).ok());
    const nlohmann::json info = nlohmann::json::parse(text);
    chunk_target = info.at("chunk_bytes").get<uint64_t>();
    uint64_t entropy = 0;
    *packed = 0;
    for (const auto& space : info.at("spaces")) {
      entropy += space.at("gap_coding_chunks").at("entropy").get<uint64_t>();
      *packed += space.at("packed_chunks").get<uint64_t>();
    }
    return entropy;
  };
  uint64_t packed = 0;
  // Never calibrated: a short probe, kept in the graph for its runs; a fast
  // disk (this one, unless the machine is very slow) gives fast chunks.
  const uint64_t uncalibrated = entropy_chunks("uncalibrated", 4 << 20, &packed);
  sg::DeviceProfile probed;
  bool preset = true;
  REQUIRE(sg::load_device_profile(dir / "uncalibrated", "hdd", &probed, &preset).ok());
  CHECK_FALSE(preset);
  CHECK((probed.device_class == "hdd" || probed.device_class == "ssd" || probed.device_class == "nvme"));
  if (probed.device_class != "hdd") {
    CHECK(uncalibrated == 0);
    CHECK(packed == 0);  // fast
    CHECK(chunk_target == 256 * 1024);
  } else {
    MESSAGE("this disk probed as an HDD: entropy chunks");
    CHECK(uncalibrated > 0);
  }
  sg::DeviceProfile hdd;
  REQUIRE(sg::preset_profile("hdd", &hdd).ok());
  sgtest::write_text(dir / sg::kProfileFileName, hdd.to_json());
  CHECK(entropy_chunks("fits", 64 << 20, &packed) > 0);
  // 150 MB/s times 3.3 ms, to a power of two.
  CHECK(chunk_target == 512 * 1024);
  CHECK(entropy_chunks("larger", 4 << 20, &packed) > 0);
}

TEST_CASE("api: progress lines arrive, and a stop request ends a run with nothing written") {
  sgtest::TempDir dir;
  shardgraph::RmatRequest rmat;
  rmat.scale = 12;
  rmat.output = dir / "r.bin32";
  REQUIRE(shardgraph::generate_rmat(rmat).ok());
  shardgraph::IngestRequest in;
  in.input = rmat.output;
  in.output = dir / "g";
  in.memory_bytes = 64 << 20;
  std::vector<std::string> ingest_lines;
  shardgraph::Callbacks ingest_callbacks;
  ingest_callbacks.progress = [&](const std::string& line) { ingest_lines.push_back(line); };
  shardgraph::IngestReport report;
  REQUIRE(shardgraph::ingest(in, &report, ingest_callbacks).ok());
  CHECK(std::any_of(ingest_lines.begin(), ingest_lines.end(),
                    [](const std::string& l) { return l.rfind("ingest: ", 0) == 0; }));

  shardgraph::RunRequest r;
  r.app = "pagerank";
  r.graph = in.output;
  r.iterations = 50;
  r.memory_bytes = 64 << 20;
  r.output = dir / "ranks.txt";
  std::atomic<int> steps{0};
  shardgraph::Callbacks callbacks;
  callbacks.progress = [&](const std::string& line) {
    if (!line.empty()) ++steps;
  };
  callbacks.stop = [&] { return steps.load() >= 3; };
  shardgraph::RunResult result;
  const Status s = shardgraph::run(r, &result, callbacks);
  CHECK(s.code() == Status::Code::kInterrupted);
  CHECK(steps.load() >= 3);
  CHECK(steps.load() < 50);
  CHECK_FALSE(std::filesystem::exists(r.output));
  // The poll is gone with the call: the next run completes.
  r.iterations = 2;
  REQUIRE(shardgraph::run(r, &result).ok());
  CHECK(std::filesystem::exists(r.output));
}

TEST_CASE("api: errors come back as values with the CLI's messages") {
  sgtest::TempDir dir;
  shardgraph::RunRequest r;
  r.app = "nosuch";
  r.graph = dir / "none";
  shardgraph::RunResult result;
  Status s = shardgraph::run(r, &result);
  CHECK(s.code() == Status::Code::kInvalidArgument);
  CHECK(s.message().find("unknown app 'nosuch'") != std::string::npos);
  r.app = "bfs";
  s = shardgraph::run(r, &result);
  CHECK(s.code() == Status::Code::kNoInput);
  CHECK(s.is_usage());
  CHECK(s.message().find(dir / "none") != std::string::npos);
  r.io = "sometimes";
  s = shardgraph::run(r, &result);
  CHECK(s.code() == Status::Code::kInvalidArgument);
  uint64_t bytes = 0;
  CHECK(shardgraph::parse_size("1.5G", &bytes));
  CHECK(bytes == (uint64_t{3} << 29));
  CHECK_FALSE(shardgraph::parse_size("12Q", &bytes));
  shardgraph::IngestRequest in;
  in.input = dir / "missing.txt";
  in.output = dir / "g";
  shardgraph::IngestReport report;
  s = shardgraph::ingest(in, &report);
  CHECK_FALSE(s.ok());
  CHECK_FALSE(std::filesystem::exists(dir / "g"));
}

TEST_CASE("api: run's option table is the CLI's flags, and set_option parses and reads back every option") {
  std::string help;
  REQUIRE(sgtest::run_cli("run --help", &help) == 0);
  shardgraph::RunRequest request;
  for (const shardgraph::OptionInfo& info : shardgraph::run_option_table()) {
    CAPTURE(info.name);
    const bool on = info.kind == "flag" && info.default_text == "true";
    const std::string flag = (on ? "--no-" : "--") + info.name + " ";
    CHECK((help.find(flag) != std::string::npos) == !info.hidden);
    // What option_values reads back, set again, reads back the same.
    for (const auto& [name, value] : shardgraph::option_values(request)) {
      if (name == info.name && !value.empty()) CHECK(shardgraph::set_option(&request, name, value).ok());
    }
  }
  CHECK(shardgraph::set_option(&request, "io", "full").ok());
  CHECK(request.io == "full");
  CHECK(shardgraph::set_option(&request, "memory", "3M").ok());
  CHECK(request.memory_bytes == 3u << 20);
  CHECK(shardgraph::set_option(&request, "cache", "false").ok());
  CHECK(!request.cache);
  CHECK(shardgraph::set_option(&request, "source", "12").ok());
  CHECK(request.source == 12u);
  CHECK(shardgraph::set_option(&request, "tolerance", "0.5").ok());
  CHECK(request.tolerance == 0.5);
  const shardgraph::Status unknown = shardgraph::set_option(&request, "damping", "0.8");
  CHECK(unknown.message() == "unknown option 'damping' of run");
  CHECK(shardgraph::set_option(&request, "io", "sideways").message() ==
        "--io must be auto, full or selective, not 'sideways'");
  CHECK(shardgraph::set_option(&request, "top", "-1").code() == shardgraph::Status::Code::kInvalidArgument);
  CHECK(shardgraph::set_option(&request, "window-bytes", "lots").message() ==
        "--window-bytes: 'lots' is not a size (e.g. 64M, 2G, 4096)");
}
