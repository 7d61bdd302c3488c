// The public functions over the option tables (shardgraph.h).
#include "apps/api/option_rows.h"

namespace shardgraph {

using namespace options;

const std::vector<OptionInfo>& run_option_table() {
  static const std::vector<OptionInfo> infos = infos_of(run_rows());
  return infos;
}
const std::vector<OptionInfo>& ingest_option_table() {
  static const std::vector<OptionInfo> infos = infos_of(ingest_rows());
  return infos;
}

Status set_option(RunRequest* request, const std::string& name, const std::string& value) {
  return set_by_row(run_rows(), "run", request, name, value);
}
Status set_option(IngestRequest* request, const std::string& name, const std::string& value) {
  return set_by_row(ingest_rows(), "ingest", request, name, value);
}

std::vector<std::pair<std::string, std::string>> option_values(const RunRequest& request) {
  return values_by_row(run_rows(), request);
}
std::vector<std::pair<std::string, std::string>> option_values(const IngestRequest& request) {
  return values_by_row(ingest_rows(), request);
}

}  // namespace shardgraph
