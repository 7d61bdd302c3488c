// Streaming readers for the input edge-list formats:
//   snap   text, one "src dst [weight]" per line, separated by spaces, tabs
//          or commas; '#' and '%' start comment lines; a .csv file may start
//          with one header line; gzip (.gz) is read transparently.
//   mtx    Matrix Market "coordinate" (pattern|integer|real, general|symmetric),
//          1-based indices; a symmetric matrix is an undirected graph.
//   dimacs DIMACS shortest-path '.gr' ('c', 'p sp N M', 'a u v w'; 1-based,
//          weights kept).
//   graphalytics  LDBC Graphalytics BASENAME.v (one vertex id a line: the
//          vertex set) + BASENAME.e ('src dst [weight]') + optional
//          BASENAME.properties (graph.NAME.directed = false: undirected).
//   graph  a graph directory written by ingest (graph_edge_reader.h).
//   webgraph  a WebGraph BVGraph, BASENAME.{properties,graph,offsets}
//          (bvgraph_reader.h).
//   bin32 / bin64   little-endian (src, dst) pairs of uint32 / uint64, each
//          followed by a float32 weight when the input is declared weighted.
// Errors name the file and line (text) or record (binary). This file is the
// interface; open_input.h opens a reader of any format.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace sg {

enum class InputFormat { kSnap, kMtx, kBin32, kBin64, kGraph, kWebGraph, kDimacs, kGraphalytics };

const char* format_name(InputFormat format);

struct RawEdge {
  uint64_t src;
  uint64_t dst;
  float weight;
};

struct InputShape {
  InputFormat format = InputFormat::kSnap;
  bool weighted = false;
  bool symmetric = false;          // mtx "symmetric": treat as undirected
  uint64_t id_base = 0;            // 1 for Matrix Market
  uint64_t declared_vertices = 0;  // mtx: max(rows, cols); 0 if unknown
};

class EdgeReader {
 public:
  virtual ~EdgeReader() = default;
  // Fills `batch` with up to `max_edges` edges; an empty batch means the end.
  virtual Status next_batch(std::vector<RawEdge>* batch, size_t max_edges) = 0;
  // Valid after open (text: after the first data line is seen, i.e. after the
  // first next_batch call).
  virtual const InputShape& shape() const = 0;
  // Ids (after subtracting the format's base) above this are an input error
  // that names the line; ingest sets it to the 32-bit limit unless --remap.
  void set_max_id(uint64_t max_id) { max_id_ = max_id; }
  // Bytes of the input file (compressed, for .gz) read so far, and in all.
  virtual uint64_t bytes_read() const = 0;
  virtual uint64_t bytes_total() const = 0;
  // The vertex set when the input lists it apart from the edges (sorted,
  // distinct); NotFound when it does not.
  virtual Status vertex_ids(std::vector<uint64_t>* ids) {
    ids->clear();
    return Status::NotFound("no vertex file");
  }
  // What the user should know about how the input was read (columns
  // ignored, ...), "" if nothing; valid after vertex_ids and the last batch.
  virtual std::string notes() const { return {}; }
  // Arcs the input declares it holds (0: unknown), for sizing buckets.
  virtual uint64_t declared_arcs() const { return 0; }
  // The graph being read, for format "graph" (graph_edge_reader.h).
  virtual const class Graph* stored_graph() const { return nullptr; }
  // Of a stored graph with updates: the original ids of the vertices they
  // added (dense ids from stored_graph()'s vertex count on), when it has an
  // id map; empty otherwise.
  virtual const std::vector<uint64_t>& added_vertex_ids() const {
    static const std::vector<uint64_t> none;
    return none;
  }
  // The ingest's budget, for readers whose buffers scale (a stored graph is
  // read in windows of chunks: a sixteenth of it, 256 KiB to 4 MiB).
  virtual void set_memory_budget(uint64_t /*bytes*/) {}
  // The input will not be read again soon (a relabelling pass's unordered
  // graph): a reader may drop its pages from the page cache as it goes.
  virtual void drop_pages_as_read() {}

 protected:
  uint64_t max_id_ = UINT64_MAX;
};

}  // namespace sg
