// shardgraph command line: parses the arguments (CLI11) and runs one
// subcommand over the library API (apps/cli/commands.h).
#include <malloc.h>

#include <cstdio>
#include <cstdlib>

#include "apps/cli/commands.h"

int main(int argc, char** argv) {
  // RSS should track what is in use (the budget): two malloc arenas, not
  // one per thread, and blocks of 64 KiB or more always mmapped, so a freed
  // cached chunk (256 KiB), window or frontier goes back to the system at
  // once (glibc would otherwise raise its threshold after the first large
  // free and keep freed blocks as holes in the heap).
  mallopt(M_ARENA_MAX, 2);
  mallopt(M_MMAP_THRESHOLD, 64 << 10);
  CLI::App app{"shardgraph: out-of-core graph processing from one disk or an array of disks"};
  app.set_version_flag("--version", shardgraph::version_line());
  app.require_subcommand(1);
  sgcli::GenerateArgs generate_args;
  sgcli::IngestArgs ingest_args;
  sgcli::PartitionArgs partition_args;
  sgcli::RunArgs run_args;
  sgcli::ToolArgs tool_args;
  CLI::App* generate = sgcli::add_generate(app, generate_args);
  CLI::App* ingest = sgcli::add_ingest(app, ingest_args);
  CLI::App* partition = sgcli::add_partition(app, partition_args);
  CLI::App* run = sgcli::add_run(app, run_args);
  sgcli::add_tools(app, tool_args);
  sgcli::add_update_tools(app, tool_args);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    const int rc = app.exit(e);
    if (std::getenv("SHARDGRAPH_REPORT_RSS") != nullptr) {
      std::printf("peak RSS %llu KiB\n", static_cast<unsigned long long>(shardgraph::peak_rss_bytes() / 1024));
    }
    return rc;
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "shardgraph: usage error: %s (see --help)\n", e.what());
    return sgcli::kExitUsage;
  }
  shardgraph::install_interrupt_handlers();
  try {
    int exit_code = sgcli::kExitUsage;
    if (*generate) return sgcli::run_generate(generate_args);
    if (*ingest) return sgcli::run_ingest(ingest_args);
    if (*partition) return sgcli::run_partition(partition_args);
    if (*run) return sgcli::run_run(run_args);
    if (sgcli::run_tool(tool_args, &exit_code)) return exit_code;
    return exit_code;
  } catch (const sgcli::UsageError& e) {
    std::fprintf(stderr, "shardgraph: usage error: %s\n", e.what());
    return sgcli::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "shardgraph: error: %s\n", e.what());
    return sgcli::kExitRuntime;
  }
}
