// `shardgraph info`: what a graph directory holds, as text or JSON.
#pragma once

#include <string>

#include "shards/format/graph.h"

namespace sg {

std::string graph_info_text(const Graph& graph);
std::string graph_info_json(const Graph& graph);

}  // namespace sg
