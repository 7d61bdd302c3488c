// I/O fault injection (base/fault_injection.h):
// SHARDGRAPH_FAULTS makes the Nth read or write fail (EIO, ENOSPC) or move
// fewer bytes. Every app, on both I/O backends, and ingest either gives the
// fault-free result (short transfers are continued) or stops with exit 1
// and a line naming the file; never a wrong result, never a hang (each run
// is under `timeout`).
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "test_util.h"

namespace {

// The error line: names a file (an absolute path) and the system error.
bool names_file_and_error(const std::string& output, const std::string& error) {
  size_t start = 0;
  while (start < output.size()) {
    const size_t end = output.find('\n', start);
    const std::string line = output.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (line.find(error) != std::string::npos && line.find('/') != std::string::npos) return true;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return false;
}

std::string faults(const std::string& spec) { return "SHARDGRAPH_FAULTS=" + spec + " timeout 120"; }

void write_graph_input(const std::string& path, uint64_t vertices = 3000) {
  std::string text = "# Nodes: " + std::to_string(vertices) + "\n";
  uint64_t state = 5;
  for (int i = 0; i < 20000; ++i) {
    text += std::to_string(sgtest::next_random(&state) % vertices) + " " +
            std::to_string(sgtest::next_random(&state) % vertices) + "\n";
  }
  sgtest::write_text(path, text);
}

}  // namespace

TEST_CASE(
    "I/O faults in runs: short reads change no result, read errors stop naming the file, every app on both backends") {
  sgtest::TempDir dir;
  write_graph_input(dir / "e.txt");
  sgtest::ingest_on_devices(dir, "e.txt", "--chunk-bytes 4K --stripe-bytes 8K", 2);
  std::string output;
  // The three apps that read most ways (pull, push, both directions) at
  // four fault points, the other three at two.
  for (const std::string app : {"pagerank", "bfs", "wcc", "spmv", "pagerank-delta", "sssp --unit-weights"}) {
    const bool main_app = app == "pagerank" || app == "bfs" || app == "wcc";
    for (const std::string backend : {"uring", "psync"}) {
      CAPTURE(app);
      CAPTURE(backend);
      const std::string run = "run " + app + " " + (dir / "g") + " --io-backend " + backend + " --output ";
      REQUIRE(sgtest::run_cli(run + (dir / "base.out"), &output) == 0);
      const std::string base = sgtest::read_text(dir / "base.out");
      for (const int n : main_app ? std::vector<int>{1, 3, 10, 40} : std::vector<int>{3, 40}) {
        CAPTURE(n);
        std::filesystem::remove(dir / "f.out");
        CHECK(sgtest::run_cli(run + (dir / "f.out"), &output, faults("read-short@" + std::to_string(n))) == 0);
        CHECK(sgtest::read_text(dir / "f.out") == base);
        std::filesystem::remove(dir / "f.out");
        const int rc = sgtest::run_cli(run + (dir / "f.out"), &output, faults("read-eio@" + std::to_string(n)));
        CAPTURE(output);
        if (rc == 0) {
          CHECK(sgtest::read_text(dir / "f.out") == base);  // the Nth read came after the last one
        } else {
          CHECK(rc == 1);
          CHECK(names_file_and_error(output, "Input/output error"));
          CHECK(!std::filesystem::exists(dir / "f.out"));
        }
      }
    }
  }
  // Vertex ranges (100k vertices, 20 bytes each, in about 1 MiB): a failed
  // write-back stops the run naming its scratch file.
  write_graph_input(dir / "e2.txt", 100000);
  REQUIRE(sgtest::run_cli("ingest " + (dir / "e2.txt") + " -o " + (dir / "g2") + " --chunk-bytes 4K", &output) == 0);
  REQUIRE(sgtest::run_cli("run pagerank " + (dir / "g2") + " --memory 16K", &output) == 2);
  const size_t at = output.find("use --memory ");
  REQUIRE(at != std::string::npos);
  const std::string minimum = output.substr(at + 13, output.find(' ', at + 13) - at - 13);
  const std::string ranged =
      "run pagerank " + (dir / "g2") + " --memory " + minimum + " --scratch-dir " + (dir / "d0") + " --output ";
  REQUIRE(sgtest::run_cli(ranged + (dir / "base.out"), &output) == 0);
  REQUIRE(output.find("loaded by vertex range") != std::string::npos);
  CHECK(sgtest::run_cli(ranged + (dir / "f.out"), &output, faults("write-short@2")) == 0);
  CHECK(sgtest::read_text(dir / "f.out") == sgtest::read_text(dir / "base.out"));
  CHECK(sgtest::run_cli(ranged + (dir / "f2.out"), &output, faults("write-eio@2")) == 1);
  CHECK(names_file_and_error(output, "Input/output error"));
  CHECK(!std::filesystem::exists(dir / "f2.out"));
  // A failed read while a step's ranges load (of a chunk or of vertex
  // values, whichever comes Nth) cancels what that load took and stops.
  for (const int n : {7, 60, 400}) {
    CAPTURE(n);
    CHECK(sgtest::run_cli(ranged + (dir / "f3.out"), &output, faults("read-short@" + std::to_string(n))) == 0);
    CHECK(sgtest::read_text(dir / "f3.out") == sgtest::read_text(dir / "base.out"));
    std::filesystem::remove(dir / "f3.out");
    CHECK(sgtest::run_cli(ranged + (dir / "f3.out"), &output, faults("read-eio@" + std::to_string(n))) == 1);
    CAPTURE(output);
    CHECK(names_file_and_error(output, "Input/output error"));
    CHECK(!std::filesystem::exists(dir / "f3.out"));
  }
}

TEST_CASE("I/O faults in ingest: short transfers change nothing, errors stop naming the file and leave nothing") {
  sgtest::TempDir dir;
  write_graph_input(dir / "e.txt");
  std::string output;
  REQUIRE(sgtest::run_cli("ingest " + (dir / "e.txt") + " -o " + (dir / "base") + " --chunk-bytes 4K", &output) == 0);
  REQUIRE(sgtest::run_cli("run wcc " + (dir / "base") + " --output " + (dir / "base.out"), &output) == 0);
  for (const int n : {1, 4, 15}) {
    CAPTURE(n);
    for (const std::string kind : {"read-short", "write-short"}) {
      CAPTURE(kind);
      std::filesystem::remove_all(dir / "g");
      REQUIRE(sgtest::run_cli("ingest " + (dir / "e.txt") + " -o " + (dir / "g") + " --chunk-bytes 4K", &output,
                              faults(kind + "@" + std::to_string(n))) == 0);
      REQUIRE(sgtest::run_cli("verify " + (dir / "g"), &output) == 0);
      REQUIRE(sgtest::run_cli("run wcc " + (dir / "g") + " --output " + (dir / "g.out"), &output) == 0);
      CHECK(sgtest::read_text(dir / "g.out") == sgtest::read_text(dir / "base.out"));
    }
    for (const std::string kind : {"read-eio", "write-eio", "write-enospc"}) {
      CAPTURE(kind);
      std::filesystem::remove_all(dir / "g");
      const int rc = sgtest::run_cli("ingest " + (dir / "e.txt") + " -o " + (dir / "g") + " --chunk-bytes 4K", &output,
                                     faults(kind + "@" + std::to_string(n)));
      CAPTURE(output);
      CHECK(rc == 1);
      CHECK(names_file_and_error(output, kind == "write-enospc" ? "No space left on device" : "Input/output error"));
      CHECK(!std::filesystem::exists(dir / "g"));
      // Nothing of the failed ingest is left next to it.
      for (const std::string& name : sgtest::list_dir(dir.path())) CHECK(name.find("~sg~") == std::string::npos);
    }
  }
}

TEST_CASE("run: SIGTERM stops a run with vertex arrays loaded by range at once, leaving no scratch file") {
  sgtest::TempDir dir;
  write_graph_input(dir / "e.txt", 100000);
  std::string output;
  REQUIRE(sgtest::run_cli("ingest " + (dir / "e.txt") + " -o " + (dir / "g") + " --chunk-bytes 4K", &output) == 0);
  std::filesystem::create_directory(dir / "scratch");
  // Many iterations in about 1 MiB: every step loads ranges. The stop is
  // timed from the signal to the exit.
  const std::string script = dir / "stop.sh";
  sgtest::write_text(
      script,
      std::string(SHARDGRAPH_BIN) + " run pagerank " + (dir / "g") + " --memory 1M --iterations 100000 --scratch-dir " +
          (dir / "scratch") + " >/dev/null 2>&1 &\npid=$!\nsleep 1\nstart=$(date +%s%N)\nkill -TERM $pid\n" +
          // Bounded: a run that ignores the signal is killed after 30 s and fails below.
          "(sleep 30; kill -KILL $pid) >/dev/null 2>&1 &\nwatchdog=$!\nwait $pid\nrc=$?\nkill $watchdog 2>/dev/null\n" +
          "echo \"$rc $(( ($(date +%s%N) - start) / 1000000 ))\" > " + (dir / "result.txt") + "\n");
  REQUIRE(std::system(("sh " + script).c_str()) == 0);
  int rc = 0, stop_ms = 0;
  REQUIRE(std::sscanf(sgtest::read_text(dir / "result.txt").c_str(), "%d %d", &rc, &stop_ms) == 2);
  CAPTURE(stop_ms);
  CHECK(rc != 0);
  CHECK(stop_ms < 2000);  // the issue asks for 1 s; the slack is for a loaded CI machine
  CHECK(sgtest::list_dir(dir / "scratch").empty());
}

TEST_CASE("I/O faults in LCC's spilled lists: short transfers change nothing, errors stop naming the scratch file") {
  sgtest::TempDir dir;
  write_graph_input(dir / "e.txt");
  std::string output;
  REQUIRE(sgtest::run_cli("ingest " + (dir / "e.txt") + " -o " + (dir / "g") + " --chunk-bytes 4K", &output) == 0);
  // A small budget: N+ lists in several blocks, spilled to a scratch file.
  const std::string run = "run lcc " + (dir / "g") + " --memory 256K --scratch-dir " + dir.path() + " --stats " +
                          (dir / "s.json") + " --output ";
  REQUIRE(sgtest::run_cli(run + (dir / "base.out"), &output) == 0);
  REQUIRE(sgtest::read_text(dir / "s.json").find("\"scratch_bytes_written\": 0,") == std::string::npos);
  const std::string base = sgtest::read_text(dir / "base.out");
  bool spill_named[2] = {false, false};  // by a failed read, by a failed write
  for (const std::string kind : {"read", "write"}) {
    for (int n = 1; n <= 400; ++n) {  // every read (write) of the run, until the Nth comes after the last
      CAPTURE(kind);
      CAPTURE(n);
      std::filesystem::remove(dir / "f.out");
      CHECK(sgtest::run_cli(run + (dir / "f.out"), &output, faults(kind + "-short@" + std::to_string(n))) == 0);
      CHECK(sgtest::read_text(dir / "f.out") == base);
      std::filesystem::remove(dir / "f.out");
      const int rc = sgtest::run_cli(run + (dir / "f.out"), &output, faults(kind + "-eio@" + std::to_string(n)));
      CAPTURE(output);
      if (rc == 0) {
        CHECK(sgtest::read_text(dir / "f.out") == base);
        break;
      }
      CHECK(rc == 1);
      CHECK(names_file_and_error(output, "Input/output error"));
      CHECK(!std::filesystem::exists(dir / "f.out"));
      if (output.find("lcc.lists") != std::string::npos) spill_named[kind == "write"] = true;
    }
  }
  CHECK(spill_named[0]);
  CHECK(spill_named[1]);
}
