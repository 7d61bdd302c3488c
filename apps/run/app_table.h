// The apps, one row each: its name, what it needs, the run options it
// reads, and its run function (kernel, summary, result columns). The CLI,
// the library API and the tests read this table; adding an app takes its
// kernel file (apps/kernels) and a row (app_table.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "apps/run/app_result.h"
#include "core/engine.h"

namespace sg {

// The run options an app reads besides the common ones (memory, io, ...).
enum AppOption : uint32_t {
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

struct AppRow {
  const char* name;
  const char* description;
  uint32_t options;        // AppOption bits
  const char* iterations;  // what --iterations means, "" if nothing
  const char* columns;     // its result columns, comma-separated
  bool needs_undirected;   // refused on directed graphs (check_app_needs)
  bool needs_weights;      // refused on unweighted graphs without --unit-weights (check_app_needs)
  bool reversed_steps;     // steps over the transposed graph (a rank opens its reverse part)
  Status (*run)(AppRun& run);
};

const std::vector<AppRow>& app_rows();
// What a row needs of its graph, checked before the app runs (one place
// for every app): an InvalidArgument that says how to ingest it instead.
Status check_app_needs(const AppRow& row, const Graph& graph, bool unit_weights);
const AppRow* find_app_row(const std::string& name);
// The names joined by `separator`, in table order.
std::string app_names(const std::string& separator);

}  // namespace sg
