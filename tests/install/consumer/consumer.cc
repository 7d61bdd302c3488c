// Generates an R-MAT graph, ingests it and runs PageRank through the
// installed <shardgraph/shardgraph.h>; prints the top vertex's id and the column's
// size, or the error.
#include <shardgraph/shardgraph.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  shardgraph::RmatRequest rmat;
  rmat.scale = 10;
  rmat.output = dir + "/r.bin32";
  shardgraph::IngestRequest in;
  in.input = rmat.output;
  in.output = dir + "/g";
  in.memory_bytes = 64 << 20;
  shardgraph::IngestReport report;
  shardgraph::RunRequest run;
  run.app = "pagerank";
  run.graph = in.output;
  run.memory_bytes = 64 << 20;
  run.collect = true;
  run.quiet = true;
  shardgraph::RunResult result;
  shardgraph::Status s = shardgraph::generate_rmat(rmat);
  if (s.ok()) s = shardgraph::ingest(in, &report);
  if (s.ok()) s = shardgraph::run(run, &result);
  if (!s.ok()) {
    std::fprintf(stderr, "consumer: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("%s: %zu vertices, %zu values of %s\n", shardgraph::version_line().c_str(), result.ids.size(),
              result.columns.at(0).bytes.size() / 8, result.columns.at(0).name.c_str());
  return result.ids.size() == report.vertices ? 0 : 1;
}
