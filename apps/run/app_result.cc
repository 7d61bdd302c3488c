#include "apps/run/app_result.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

#include "shards/util/interrupt.h"

namespace sg {

bool ResultPages::visited(uint64_t count) const {
  if (count % kDropVertices != 0) return false;
  if (interrupt_requested()) throw ResultsStopped{};
  drop();
  return true;
}

void ResultPages::drop() const {
  for (const RawVertexArray* array : arrays_) array->drop_pages();
}

size_t result_type_bytes(ResultType type) {
  switch (type) {
    case ResultType::kInt32:
    case ResultType::kUint32:
    case ResultType::kFloat32: return 4;
    case ResultType::kInt64:
    case ResultType::kUint64:
    case ResultType::kFloat64: return 8;
  }
  return 8;
}

Status top_values_text(const Graph& graph, const VertexArray<double>& values, const ResultPages& pages, int top,
                       std::string* text) {
  const size_t k = std::min<size_t>(static_cast<size_t>(std::max(top, 0)), graph.num_vertices());
  auto before = [&](uint32_t a, uint32_t b) { return values[a] > values[b] || (values[a] == values[b] && a < b); };
  std::vector<uint32_t> order;  // a heap whose front is the worst kept
  order.reserve(k + 1);
  for (uint32_t v = 0; v < graph.num_vertices() && k > 0; ++v) {
    pages.visited(v);
    if (order.size() == k && !before(v, order.front())) continue;
    order.push_back(v);
    std::push_heap(order.begin(), order.end(), before);
    if (order.size() > k) {
      std::pop_heap(order.begin(), order.end(), before);
      order.pop_back();
    }
  }
  std::sort(order.begin(), order.end(), before);
  *text = "top " + std::to_string(k) + " vertices:\n";
  char line[96];
  for (size_t i = 0; i < k; ++i) {
    uint64_t id = 0;
    SG_RETURN_IF_ERROR(graph.lookup_original_id(order[i], &id));
    std::snprintf(line, sizeof(line), "  %2zu. %-12llu %.9g\n", i + 1, static_cast<unsigned long long>(id),
                  values[order[i]]);
    *text += line;
  }
  return Status::OK();
}

namespace {

// fn(v) for every vertex in output order: by original id when the graph
// has that order, else in stored order (returns false then).
template <typename F>
bool for_each_in_output_order(const Graph& graph, F&& fn) {
  if (graph.by_original_available()) {
    graph.for_each_by_original_id(fn);
    return true;
  }
  for (uint32_t v = 0; v < graph.num_vertices(); ++v) fn(v);
  return false;
}

}  // namespace

Status write_text_output(const std::string& path, const Graph& graph, const AppOutcome& outcome, std::string* summary) {
  std::unique_ptr<FILE, int (*)(FILE*)> out(std::fopen(path.c_str(), "w"), &std::fclose);
  if (!out) return Status::IOError(path + ": cannot create output");
  std::vector<char> buffer(1 << 20);
  std::setvbuf(out.get(), buffer.data(), _IOFBF, buffer.size());
  char value[64];
  uint64_t lines = 0;
  const bool by_id = for_each_in_output_order(graph, [&](uint32_t v) {
    outcome.text(v, value, sizeof(value));
    std::fprintf(out.get(), "%llu %s\n", static_cast<unsigned long long>(graph.original_id(v)), value);
    if (outcome.pages.visited(++lines)) graph.drop_id_map_pages();
  });
  if (!by_id) {
    *summary += "output in stored vertex order: ordering " + std::to_string(graph.num_vertices()) +
                " ids by original id needs more than the free memory (sort -n " + path + " orders it)\n";
  }
  if (std::ferror(out.get()) || std::fflush(out.get()) != 0) return Status::IOError(path + ": write failed");
  return Status::OK();
}

void collect_columns(const Graph& graph, const AppOutcome& outcome, std::vector<uint64_t>* ids,
                     std::vector<CollectedColumn>* columns) {
  const size_t n = graph.num_vertices();
  ids->clear();
  ids->reserve(n);
  columns->clear();
  for (const ResultColumn& c : outcome.columns) {
    columns->push_back({c.name, c.type, {}});
    columns->back().bytes.resize(n * result_type_bytes(c.type));
  }
  uint64_t lines = 0;
  for_each_in_output_order(graph, [&](uint32_t v) {
    for (size_t k = 0; k < columns->size(); ++k) {
      const size_t bytes = result_type_bytes((*columns)[k].type);
      outcome.columns[k].value(v, (*columns)[k].bytes.data() + ids->size() * bytes);
    }
    ids->push_back(graph.original_id(v));
    if (outcome.pages.visited(++lines)) graph.drop_id_map_pages();
  });
}

}  // namespace sg
