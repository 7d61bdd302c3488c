#include "shards/ingest/open_input.h"

#include <filesystem>

#include "base/enum_names.h"
#include "shards/ingest/bvgraph_reader.h"
#include "shards/ingest/graph_edge_reader.h"
#include "shards/ingest/text_readers.h"

namespace sg {

Status resolve_format(const std::string& path, const std::string& name, InputFormat* format) {
  if (name.empty()) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(std::filesystem::path(path) / "manifest.json", ec))
      *format = InputFormat::kGraph;
    else if (!bvgraph_basename(path).empty())
      *format = InputFormat::kWebGraph;
    else
      *format = text_format_of(path);
    return Status::OK();
  }
  if (parse_enum_name(name,
                      {InputFormat::kSnap, InputFormat::kMtx, InputFormat::kBin32, InputFormat::kBin64,
                       InputFormat::kGraph, InputFormat::kWebGraph, InputFormat::kDimacs, InputFormat::kGraphalytics},
                      format_name, format)) {
    return Status::OK();
  }
  return Status::InvalidArgument("unknown format '" + name +
                                 "' (snap, mtx, bin32, bin64, graph, webgraph, dimacs, graphalytics)");
}

Status open_edge_reader(const std::string& path, InputFormat format, bool binary_weighted,
                        std::unique_ptr<EdgeReader>* reader) {
  if (format == InputFormat::kGraph) return open_graph_edge_reader(path, reader);
  if (format == InputFormat::kWebGraph) return open_bvgraph_reader(path, reader);
  return open_text_reader(path, format, binary_weighted, reader);
}

}  // namespace sg
