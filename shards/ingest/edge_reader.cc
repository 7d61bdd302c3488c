#include "shards/ingest/edge_reader.h"

namespace sg {

const char* format_name(InputFormat format) {
  switch (format) {
    case InputFormat::kSnap: return "snap";
    case InputFormat::kMtx: return "mtx";
    case InputFormat::kBin32: return "bin32";
    case InputFormat::kBin64: return "bin64";
    case InputFormat::kGraph: return "graph";
    case InputFormat::kWebGraph: return "webgraph";
    case InputFormat::kDimacs: return "dimacs";
    case InputFormat::kGraphalytics: return "graphalytics";
  }
  return "?";
}

}  // namespace sg
