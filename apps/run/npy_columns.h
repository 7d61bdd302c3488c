// A run's results as NumPy .npy files, for callers that map them
// (numpy.memmap) instead of holding them: ids.npy (uint64, the original
// ids in increasing order) and COLUMN.npy for each result column, in the
// same order. Written a value at a time, sorted out of core when the graph
// does not hold its order by original id (id_sorted_lines.h).
#pragma once

#include <cstdint>
#include <string>

#include "apps/harness/app_result.h"
#include "base/status.h"
#include "shards/format/graph.h"

namespace sg {

// The NumPy dtype string of a result type ("<f8", ...).
const char* npy_descr(ResultType type);

// Writes ids.npy and the columns into `dir` (which must exist).
Status write_npy_columns(const std::string& dir, const Graph& graph, const AppOutcome& outcome,
                         uint64_t sort_memory_bytes, const std::string& scratch_near);

}  // namespace sg
