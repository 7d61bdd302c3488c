// Deleting a graph: its directory and the device files its manifest lists
// outside it. Ordered ingest drops its losing candidate this way, and gc a
// leftover hidden graph.
#pragma once

#include <cstdint>
#include <string>

namespace sg {

// Removes `dir` and, when it holds a readable manifest, the device files
// that manifest lists in device directories. Adds the bytes removed to
// *bytes_freed (may be null). Best effort: a destructor calls it.
void remove_graph(const std::string& dir, uint64_t* bytes_freed);

}  // namespace sg
