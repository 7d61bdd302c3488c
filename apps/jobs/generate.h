// Synthetic edge-list generators, so users and tests have deterministic
// graphs of any size.
//
// R-MAT (Chakrabarti, Zhan, Faloutsos, SDM 2004) with the Graph500
// parameters a=0.57, b=0.19, c=0.19 (d=0.05): each edge picks one quadrant of
// the adjacency matrix per bit of the scale. Vertex ids are then permuted so
// ids carry no degree information (as Graph500 does). Every edge is a pure
// function of (seed, edge index), so output does not depend on threads.
// Optional weights are integers 1..255 stored as float (as GAPBS does), so
// path sums are exact.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace sg {

struct RmatOptions {
  uint32_t scale = 16;
  uint32_t edge_factor = 16;
  uint64_t seed = 1;
  bool weights = false;
};

// Writes the edge list to `path`: text "src dst[ weight]" lines (gzip if the
// name ends in .gz), or binary records if it ends in .bin32 / .bin64.
Status generate_rmat(const RmatOptions& options, const std::string& path);

// A road-like graph of any size with a diameter in the thousands: an
// R x C lattice (4-neighbour), about 5% of its edges removed and about 0.2%
// of its vertices given a shortcut to a vertex at most 8 rows and columns
// away. Each undirected edge is written once (ingest with --undirected).
// Ids are shuffled (so locality is not free) unless `shuffle` is false.
// Weights: integers 1..255.
struct GridOptions {
  uint32_t rows = 1000;
  uint32_t cols = 1000;
  uint64_t seed = 1;
  bool weights = false;
  bool shuffle = true;
};
Status generate_grid(const GridOptions& options, const std::string& path);

}  // namespace sg
