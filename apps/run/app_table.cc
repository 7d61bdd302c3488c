#include "apps/run/app_table.h"

#include <algorithm>

// Each kernel file's SG_APP_ROW, as the build found them (app_rows.inc,
// from cmake/app_rows.cmake): SG_LISTED_APP_ROW(ident) for each.
#define SG_LISTED_APP_ROW(ident) SG_APP_ROW(ident);
namespace sg {
#include "app_rows.inc"
}  // namespace sg
#undef SG_LISTED_APP_ROW

namespace sg {

const std::vector<AppRow>& app_rows() {
  static const std::vector<AppRow> rows = [] {
#define SG_LISTED_APP_ROW(ident) app_row_##ident(),
    std::vector<AppRow> listed = {
#include "app_rows.inc"
    };
#undef SG_LISTED_APP_ROW
    std::sort(listed.begin(), listed.end(),
              [](const AppRow& a, const AppRow& b) { return std::string_view(a.name) < std::string_view(b.name); });
    return listed;
  }();
  return rows;
}

Status check_app_needs(const AppRow& row, const Graph& graph, bool unit_weights) {
  if (row.needs_undirected() && graph.directed()) {
    return Status::InvalidArgument(std::string(row.name) + ": the graph is directed; ingest it with --undirected");
  }
  if (row.needs_weights() && !graph.weighted() && !unit_weights) {
    return Status::InvalidArgument(std::string(row.name) +
                                   " needs a weighted graph; use --unit-weights to give every edge weight 1");
  }
  return Status::OK();
}

const AppRow* find_app_row(const std::string& name) {
  for (const AppRow& row : app_rows()) {
    if (name == row.name) return &row;
  }
  return nullptr;
}

std::string app_names(const std::string& separator) {
  std::string names;
  for (const AppRow& row : app_rows()) names += (names.empty() ? "" : separator) + row.name;
  return names;
}

}  // namespace sg
