// An app's row: its name, what it needs, the run options it reads, and its
// run function (kernel, summary, result columns). Each kernel file that is
// an app defines its row with SG_APP_ROW; the build lists every such row
// (cmake/app_rows.cmake), so adding an app takes its kernel file alone.
// The CLI, the library API and the tests read the rows through
// apps/run/app_table.h.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "apps/harness/app_result.h"
#include "core/engine.h"

namespace sg {

// The run options an app reads besides the common ones (memory, io, ...).
enum AppOption : uint32_t {
  kNoAppOption = 0,
  kSourceOption = 1,
  kIterationsOption = 2,
  kToleranceOption = 4,
  kUnitWeightsOption = 8,
  kParentsOption = 16,
  kTopOption = 32,
};

struct AppOptions {
  std::optional<uint64_t> source;  // original id
  int iterations = 0;              // 0: the app's default
  double tolerance = 0;
  bool unit_weights = false;
  bool parents = false;
  bool graphalytics_output = false;
  bool needs_ids = false;  // results are written or collected: the id map is loaded after the kernel
  int top = 10;
};

// What a row's run function works with.
class AppRun {
 public:
  AppRun(Engine* run_engine, const AppOptions& run_options, AppOutcome* outcome)
      : engine(*run_engine), graph(run_engine->graph()), options(run_options), out(*outcome) {}
  // --source as a stored id, or the vertex with the most out-edges (its
  // original id may be looked up once finish() has checked the id map).
  Status source(uint32_t* vertex) const;
  // After the kernel: the run's memory is released, the id map checked
  // (and loaded when results need every id), and each result array
  // finished (gathered over ranks, or mapped) and paged through.
  template <typename... T>
  Status finish(VertexArray<T>*... arrays) {
    SG_RETURN_IF_ERROR(finish_run());
    Status status;
    ((status = status.ok() ? engine.finish_array(arrays) : status), ...);
    (out.pages.add(arrays->raw()), ...);
    return status;
  }

  Engine& engine;
  const Graph& graph;
  const AppOptions& options;
  AppOutcome& out;

 private:
  Status finish_run();
};

// What an app needs of its graph and how it steps.
enum AppTrait : uint32_t {
  kNoAppTrait = 0,
  kNeedsUndirected = 1,  // refused on directed graphs (check_app_needs)
  kNeedsWeights = 2,     // refused on unweighted graphs without --unit-weights (check_app_needs)
  kReversedSteps = 4,    // steps over the transposed graph (a rank opens its reverse part)
  kPullsOnly = 8,        // reads only the in-space's lists (its out-space gives degrees alone)
};

struct AppRow {
  const char* name;
  const char* description;
  uint32_t options;        // AppOption bits
  const char* iterations;  // what --iterations means, "" if nothing
  const char* columns;     // its result columns, comma-separated
  uint32_t traits;         // AppTrait bits
  Status (*run)(AppRun& run);

  bool needs_undirected() const { return (traits & kNeedsUndirected) != 0; }
  bool needs_weights() const { return (traits & kNeedsWeights) != 0; }
  bool reversed_steps() const { return (traits & kReversedSteps) != 0; }
  bool pulls_only() const { return (traits & kPullsOnly) != 0; }
};

// Defines a kernel file's row, after its run function:
//   SG_APP_ROW(bfs) { return {"bfs", "breadth-first search ...", kSourceOption, "", "depth", kNoAppTrait, run_bfs}; }
// The build finds each use at the start of a line and lists it for
// app_rows(); `ident` is the row's name as an identifier.
#define SG_APP_ROW(ident) ::sg::AppRow app_row_##ident()

// A summary line from a printf pattern (at most 255 characters).
template <typename... Values>
std::string summary_line(const char* pattern, Values... values) {
  char line[256];
  std::snprintf(line, sizeof(line), pattern, values...);
  return line;
}

// Finished values printed with `pattern` ("%.9g") as `column`; the summary
// is `headline` and, when `top`, the largest values.
Status describe_values(AppRun& r, VertexArray<double>* values, const char* column, const char* pattern,
                       const std::string& headline, bool top = true);

// PageRank-like apps: `kernel(values, &steps)` fills the ranks; the steps
// it took are the figure `steps_name`, and `headline` takes them (%d).
template <typename Kernel>
Status run_ranks(AppRun& r, Kernel&& kernel, const char* steps_name, const char* headline) {
  int steps = 0;
  auto* values = r.out.array<double>();
  SG_RETURN_IF_ERROR(kernel(values, &steps));
  r.out.facts = {{steps_name, steps}};
  SG_RETURN_IF_ERROR(r.finish(values));
  return describe_values(r, values, "rank", "%.9g", summary_line(headline, steps));
}

}  // namespace sg
