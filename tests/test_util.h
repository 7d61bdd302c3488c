// Helpers for tests: temporary directories, edge-list writers, a decoder
// that reads a graph back into plain arc lists, and a CLI runner.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "shards/format/graph.h"

namespace sgtest {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

struct Arc {
  uint64_t src, dst;
  float weight;
  bool operator<(const Arc& o) const { return std::tie(src, dst, weight) < std::tie(o.src, o.dst, o.weight); }
  bool operator==(const Arc& o) const { return src == o.src && dst == o.dst && weight == o.weight; }
};

// Text edge list "src dst[ weight]" per line.
void write_snap(const std::string& path, const std::vector<Arc>& arcs, bool weighted);
void write_text(const std::string& path, const std::string& text);
std::string read_text(const std::string& path);

// Every arc of a stored space as (key vertex, neighbour, weight) in
// original ids, in storage order. Fails the test on any decode error.
std::vector<Arc> read_space(const sg::Graph& graph, sg::SpaceKind kind);

// Runs the CLI with `args`; returns the exit code and stdout+stderr.
// Ingests `input` into `output` with ingest's defaults and opens it; a
// failure of either fails the test.
void ingest_and_open(const std::string& input, const std::string& output, sg::Graph* graph);

// `shardgraph ingest dir/INPUT -o dir/g OPTIONS` over `devices` new device
// directories dir/d0, dir/d1, ...; a failure fails the test.
void ingest_on_devices(const TempDir& dir, const std::string& input, const std::string& options, int devices);

int run_cli(const std::string& args, std::string* output, const std::string& env = "");

// Files in `dir` (names only), to check nothing is left behind.
// Entry names, sorted, without a stored device profile.
std::vector<std::string> list_dir(const std::string& dir);

uint64_t next_random(uint64_t* state);

// "id value" lines (a result file); "inf"/"infinity" and the Graphalytics
// unreachable depth 9223372036854775807 read as infinity and -1.
std::map<uint64_t, double> read_values(const std::string& path);

}  // namespace sgtest
