// The CLI's subcommands over the library API (include/shardgraph/shardgraph.h): each
// has its arguments, a function that adds it to the parser, and one that
// runs it. Exit codes: 0 ok, 1 runtime error, 2 usage error; errors are one
// line on stderr.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "shardgraph/shardgraph.h"

namespace sgcli {

constexpr int kExitRuntime = 1;
constexpr int kExitUsage = 2;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct GenerateArgs {
  std::string kind;
  shardgraph::RmatRequest rmat;
  shardgraph::GridRequest grid;
  bool no_shuffle = false;
  const CLI::Option* scale = nullptr;
  const CLI::Option* rows = nullptr;
};
CLI::App* add_generate(CLI::App& app, GenerateArgs& a);
int run_generate(GenerateArgs& a);

// The options of a command's table (shardgraph::*_option_table) as the
// parser found them; each is then parsed by set_option, in table order.
void memory_notice(const std::string& text);

struct TableArgs {
  std::map<std::string, std::string> texts;               // an option's text, by name
  std::map<std::string, std::vector<std::string>> lists;  // a repeatable option's texts
  std::map<std::string, bool> flags, negated;             // --name and --no-name given
  std::map<std::string, std::vector<const CLI::Option*>> given;
};

void add_table_options(CLI::App* command, const std::vector<shardgraph::OptionInfo>& table, TableArgs& a);
std::vector<std::string> table_texts(const shardgraph::OptionInfo& info, TableArgs& a);
// Sets each option given (and --memory's auto) through set_option; the
// first error, as the API words it.
template <typename Request>
shardgraph::Status apply_table_options(const std::vector<shardgraph::OptionInfo>& table, TableArgs& a,
                                       Request* request) {
  for (const shardgraph::OptionInfo& info : table) {
    for (const std::string& text : table_texts(info, a)) {
      if (info.name == "memory") memory_notice(text);
      const shardgraph::Status s = shardgraph::set_option(request, info.name, text);
      if (!s.ok()) return s;
    }
  }
  return shardgraph::Status::OK();
}

struct IngestArgs {
  shardgraph::IngestRequest request;
  std::vector<std::string> inputs;
  TableArgs table;
};
CLI::App* add_ingest(CLI::App& app, IngestArgs& a);
int run_ingest(IngestArgs& a);

struct RunArgs {
  shardgraph::RunRequest request;
  TableArgs table;
};
CLI::App* add_run(CLI::App& app, RunArgs& a);
int run_run(RunArgs& a);

struct PartitionArgs {
  shardgraph::PartitionRequest request;
  std::string memory = "1G";
  std::vector<std::string> devices;  // PART:DIR
};
CLI::App* add_partition(CLI::App& app, PartitionArgs& a);
int run_partition(PartitionArgs& a);

// The small ones: info, verify, scan, calibrate, restripe, gc.
struct ToolArgs {
  std::string info_dir, verify_dir, scan_input, scan_format, restripe_dir, restripe_stripe;
  bool info_json = false;
  int scan_threads = 0;
  std::vector<std::string> calibrate_dirs, restripe_devices, gc_dirs;
  std::string calibrate_bytes = "256M";
  shardgraph::UpdateRequest update;
  std::string update_memory = "256M", compact_dir, compact_memory = "256M";
  uint64_t compact_window_bytes = 0;
  bool update_no_compact = false;
  CLI::App *info = nullptr, *verify = nullptr, *scan = nullptr, *calibrate = nullptr, *restripe = nullptr,
           *gc = nullptr, *update_command = nullptr, *compact = nullptr;
};
void add_tools(CLI::App& app, ToolArgs& a);
void add_update_tools(CLI::App& app, ToolArgs& a);
// Runs the tool whose subcommand was given; false if none was.
bool run_tool(ToolArgs& a, int* exit_code);

int fail(const shardgraph::Status& status);
// A terminal's progress line (null when stderr is not a terminal).
std::function<void(const std::string&)> terminal_progress(const char* prefix, const char* at_end);
uint64_t size_option(const std::string& name, const std::string& text);
uint64_t memory_option(const std::string& text);

}  // namespace sgcli
