// Deleting a graph: its directory and the device files its manifest lists
// outside it. Ordered ingest drops its losing candidate this way, and gc a
// leftover hidden graph.
#pragma once

#include <cstdint>
#include <string>

#include "shards/format/manifest.h"

namespace sg {

// Removes `dir` and, when it holds a readable manifest, the device files
// that manifest lists in device directories. Adds the bytes removed to
// *bytes_freed (may be null). Best effort: a destructor calls it.
void remove_graph(const std::string& dir, uint64_t* bytes_freed);

// The file (in the graph's directory) whose shared lock holds a generation of a graph for a run
// (Graph::open with GraphOpenOptions::hold): its first space's index file,
// which updates never replace.
std::string generation_lock_name(const Manifest& manifest);

// Takes the lock file `path` exclusively without waiting. False when
// another holds it (a run); else true, with *fd the descriptor holding it
// until closed (-1 when the file could not be opened).
bool try_exclusive_lock(const std::string& path, int* fd);

// Removes the graph in `dir` as remove_graph does, unless a run holds it:
// it takes the generation's lock exclusively (without waiting) and keeps it
// while it removes, so no run starts on it meanwhile. Returns whether it
// removed the graph (true too when `dir` holds no readable manifest).
bool remove_graph_unless_held(const std::string& dir, uint64_t* bytes_freed);

}  // namespace sg
