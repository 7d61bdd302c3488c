// What an app's run returns (app_table.h): a summary, its own figures, and
// per-vertex result columns, each readable by stored vertex id as a typed
// value and, for --output, as the text of the vertex's line. The arrays
// behind them stay owned here until the results are written.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "core/memory_budget.h"
#include "core/vertex_array.h"
#include "shards/format/graph.h"

namespace sg {

// Results that are not whole in memory are read after the kernel through
// mappings of their files (Engine::finish_array, file-backed arrays): the
// pages a pass reads stay mapped and VmHWM counts them (R-MAT 25's ranks,
// 268 MB, took a run budgeted 176 MiB to 270 MiB). Passes over them drop
// the pages every kDropVertices vertices, and there a stop request ends
// the run (ResultsStopped, caught by the run: the passes have no Status of
// their own to return).
struct ResultsStopped {};

// Pages of results and the id map mapped while results are written.
inline constexpr MemoryShare kResultPageShare{"result_pages", 16};

class ResultPages {
 public:
  // The graph whose mapped id map is paged through too.
  explicit ResultPages(const Graph* graph = nullptr) : graph_(graph) {}
  void add(const RawVertexArray& array);
  // Pages are dropped often enough that the arrays' and the id map's pages
  // of the vertices visited between drops take at most `bytes` (between
  // 4 Ki and 1 Mi vertices; 1 Mi until told).
  void limit(uint64_t bytes);
  // Called with the vertices visited so far; true when it dropped pages.
  bool visited(uint64_t count) const;
  void drop() const;

 private:
  void set_interval();
  const Graph* graph_;
  uint64_t limit_bytes_ = 0;  // 0: drop every 1 Mi vertices
  uint64_t drop_vertices_ = uint64_t{1} << 20;
  std::vector<const RawVertexArray*> arrays_;
};

enum class ResultType : uint8_t { kInt32, kUint32, kInt64, kUint64, kFloat32, kFloat64 };
size_t result_type_bytes(ResultType type);

struct ResultColumn {
  std::string name;
  ResultType type = ResultType::kFloat64;
  // Vertex v's value, written to `out` (result_type_bytes(type) bytes).
  std::function<void(uint32_t v, void* out)> value;
};

class AppOutcome {
 public:
  explicit AppOutcome(const Graph* graph) : pages(graph) {}
  // A vertex array the outcome owns (results and what formatting needs).
  template <typename T>
  VertexArray<T>* array() {
    auto owned = std::make_shared<VertexArray<T>>();
    owned_.push_back(owned);
    return owned.get();
  }
  // A column reading `array` (T one of the result types).
  template <typename T>
  void add_column(const std::string& name, const VertexArray<T>* array);
  void add_column(ResultColumn column) { columns.push_back(std::move(column)); }

  std::string summary;                              // the lines the CLI prints
  nlohmann::json facts = nlohmann::json::object();  // {"iterations": 10}, ...
  std::vector<ResultColumn> columns;
  // --output's text after "id " for vertex v.
  std::function<void(uint32_t v, char* buf, size_t size)> text;
  ResultPages pages;  // the arrays passes over the results page through

 private:
  std::vector<std::shared_ptr<void>> owned_;
};

template <typename T>
constexpr ResultType result_type_of() {
  if constexpr (std::is_same_v<T, int32_t>) return ResultType::kInt32;
  if constexpr (std::is_same_v<T, uint32_t>) return ResultType::kUint32;
  if constexpr (std::is_same_v<T, int64_t>) return ResultType::kInt64;
  if constexpr (std::is_same_v<T, uint64_t>) return ResultType::kUint64;
  if constexpr (std::is_same_v<T, float>) return ResultType::kFloat32;
  return ResultType::kFloat64;
}

template <typename T>
void AppOutcome::add_column(const std::string& name, const VertexArray<T>* array) {
  columns.push_back(
      {name, result_type_of<T>(), [array](uint32_t v, void* out) { *static_cast<T*>(out) = (*array)[v]; }});
}

// The k largest values in one pass in vertex order (results may be paged
// in from scratch files), as the summary lists them.
Status top_values_text(const Graph& graph, const VertexArray<double>& values, const ResultPages& pages, int top,
                       std::string* text);

// Writes "id text" lines sorted by original id: in that order when the
// graph holds it (ids in order, or the order by original id loaded), else
// sorted out of core in `sort_memory_bytes` with a scratch file beside
// `scratch_near` (id_sorted_lines.h).
Status write_text_output(const std::string& path, const Graph& graph, const AppOutcome& outcome,
                         uint64_t sort_memory_bytes, const std::string& scratch_near);

// Every vertex's original id and its values, in increasing id order.
struct CollectedColumn {
  std::string name;
  ResultType type = ResultType::kFloat64;
  std::vector<uint8_t> bytes;
};
void collect_columns(const Graph& graph, const AppOutcome& outcome, std::vector<uint64_t>* ids,
                     std::vector<CollectedColumn>* columns);

}  // namespace sg
