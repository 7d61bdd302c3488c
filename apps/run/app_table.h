// Every app's row (apps/harness/app_row.h), as the kernel files define
// them, in name order. The CLI, the library API and the tests find apps
// here.
#pragma once

#include <string>
#include <vector>

#include "apps/harness/app_row.h"

namespace sg {

const std::vector<AppRow>& app_rows();
// What a row needs of its graph, checked before the app runs (one place
// for every app): an InvalidArgument that says how to ingest it instead.
Status check_app_needs(const AppRow& row, const Graph& graph, bool unit_weights);
const AppRow* find_app_row(const std::string& name);
// The names joined by `separator`, in name order.
std::string app_names(const std::string& separator);

}  // namespace sg
