#include "apps/harness/app_result.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

#include "apps/harness/id_sorted_lines.h"
#include "base/interrupt.h"
#include "shards/ingest/leftovers.h"

namespace sg {

void ResultPages::add(const RawVertexArray& array) {
  arrays_.push_back(&array);
  set_interval();
}

void ResultPages::limit(uint64_t bytes) {
  limit_bytes_ = bytes;
  set_interval();
}

void ResultPages::set_interval() {
  if (limit_bytes_ == 0 || graph_ == nullptr) return;
  const uint64_t vertices = std::max<uint64_t>(1, graph_->num_vertices());
  uint64_t per_vertex = sizeof(uint64_t);  // the id map's entry
  for (const RawVertexArray* array : arrays_) per_vertex += array->bytes() / vertices;
  drop_vertices_ = std::clamp<uint64_t>(limit_bytes_ / per_vertex, uint64_t{1} << 12, uint64_t{1} << 20);
}

bool ResultPages::visited(uint64_t count) const {
  if (count % drop_vertices_ != 0) return false;
  if (interrupt_requested()) throw ResultsStopped{};
  drop();
  return true;
}

void ResultPages::drop() const {
  for (const RawVertexArray* array : arrays_) array->drop_pages();
  if (graph_ != nullptr) graph_->drop_id_map_pages();
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

Status write_lines(FILE* out, const Graph& graph, const AppOutcome& outcome, uint64_t sort_memory_bytes,
                   const std::string& scratch_near) {
  char value[64];
  uint64_t lines = 0;
  if (graph.by_original_available()) {
    graph.for_each_by_original_id([&](uint32_t v) {
      outcome.text(v, value, sizeof(value));
      std::fprintf(out, "%llu %s\n", static_cast<unsigned long long>(graph.original_id(v)), value);
      outcome.pages.visited(++lines);
    });
    return Status::OK();
  }
  IdSortedLines sorted(scratch_near, sort_memory_bytes);
  for (uint32_t v = 0; v < graph.num_vertices(); ++v) {
    outcome.text(v, value, sizeof(value));
    SG_RETURN_IF_ERROR(sorted.add(graph.original_id(v), value));
    outcome.pages.visited(++lines);
  }
  return sorted.finish(out);
}

}  // namespace

// Written under a hidden name (gc removes it after a kill) and renamed into
// place: a failed or stopped run leaves no partial results file.
Status write_text_output(const std::string& path, const Graph& graph, const AppOutcome& outcome,
                         uint64_t sort_memory_bytes, const std::string& scratch_near) {
  const std::string partial = hidden_sibling(path, "output");
  std::unique_ptr<FILE, int (*)(FILE*)> out(std::fopen(partial.c_str(), "w"), &std::fclose);
  if (!out) return Status::IOError(path + ": cannot create output");
  std::vector<char> buffer(1 << 20);
  std::setvbuf(out.get(), buffer.data(), _IOFBF, buffer.size());
  Status status;
  try {
    status = write_lines(out.get(), graph, outcome, sort_memory_bytes, scratch_near);
  } catch (const ResultsStopped&) {
    std::remove(partial.c_str());
    throw;
  }
  if (status.ok() && (std::ferror(out.get()) || std::fflush(out.get()) != 0))
    status = Status::IOError(path + ": write failed");
  out.reset();
  if (status.ok() && std::rename(partial.c_str(), path.c_str()) != 0)
    status = Status::IOError(path + ": cannot rename into place");
  if (!status.ok()) std::remove(partial.c_str());
  return status;
}

void collect_columns(const Graph& graph, const AppOutcome& outcome, std::vector<uint64_t>* ids,
                     std::vector<CollectedColumn>* columns) {
  const size_t n = graph.num_vertices();
  // The vertices in increasing original id.
  std::vector<uint32_t> order;
  order.reserve(n);
  if (graph.by_original_available()) {
    graph.for_each_by_original_id([&](uint32_t v) { order.push_back(v); });
  } else {
    for (uint32_t v = 0; v < n; ++v) order.push_back(v);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return graph.original_id(a) < graph.original_id(b); });
  }
  ids->clear();
  ids->reserve(n);
  columns->clear();
  for (const ResultColumn& c : outcome.columns) {
    columns->push_back({c.name, c.type, {}});
    columns->back().bytes.resize(n * result_type_bytes(c.type));
  }
  uint64_t lines = 0;
  for (const uint32_t v : order) {
    for (size_t k = 0; k < columns->size(); ++k) {
      const size_t bytes = result_type_bytes((*columns)[k].type);
      outcome.columns[k].value(v, (*columns)[k].bytes.data() + ids->size() * bytes);
    }
    ids->push_back(graph.original_id(v));
    outcome.pages.visited(++lines);
  }
}

}  // namespace sg
