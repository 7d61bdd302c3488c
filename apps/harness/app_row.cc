#include "apps/harness/app_row.h"

#include <malloc.h>

namespace sg {

Status AppRun::source(uint32_t* vertex) const {
  if (options.source.has_value()) {
    if (!graph.dense_id(*options.source, vertex)) {
      return Status::InvalidArgument("--source " + std::to_string(*options.source) + " is not a vertex of " +
                                     graph.dir());
    }
  } else {
    return engine.max_out_degree_vertex(vertex);  // reaches something
  }
  return Status::OK();
}

// Cached chunks go. The summary looks up its few ids in the id map's file
// (deferred at open, so the run had its memory), unchecked: a pass that
// checks the whole map read 33.5 MB on R-MAT 22, a quarter of a WCC run's
// bytes. Results need every id: the map is checked and loaded (with the
// order by original id) when it fits the memory the kernel left, else
// mapped, and the output lists vertices in stored order.
Status AppRun::finish_run() {
  engine.end_iterations();
  engine.release_cache();
  malloc_trim(0);  // cached chunks came from the heap: give their pages back
  if (!options.needs_ids) return Status::OK();
  SG_RETURN_IF_ERROR(graph.check_id_map());
  return graph.id_map_load_bytes() <= engine.unheld_memory() ? graph.load_id_map() : graph.map_id_map();
}

Status describe_values(AppRun& r, VertexArray<double>* values, const char* column, const char* pattern,
                       const std::string& headline, bool top) {
  r.out.add_column(column, values);
  r.out.text = [values, pattern](uint32_t v, char* buf, size_t size) {
    std::snprintf(buf, size, pattern, (*values)[v]);
  };
  std::string list;
  if (top) SG_RETURN_IF_ERROR(top_values_text(r.graph, *values, r.out.pages, r.options.top, &list));
  r.out.summary = headline + list;
  return Status::OK();
}

}  // namespace sg
