// manifest.json: the description of a graph directory (docs/formats.md). A graph
// exists only once its manifest has been written (last, atomically).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "compression/chunk_lists.h"
#include "shards/format/sealed_json.h"

namespace sg {

// Version 2 (docs/formats.md) codes a chunk's lists as one stream; version
// 3 lets a chunk code its gaps as StreamVByte (compression/chunk_lists.h).
// Graphs of versions 1 and 2 are still read.
constexpr int kFormatVersion = 3;
constexpr int kOldestFormatVersion = 1;
// A version-3 graph with updates not yet compacted (docs/formats.md,
// "Updates"): builds that cannot merge them refuse it by its version.
constexpr int kDeltaFormatVersion = 4;
constexpr const char* kCodecName = "varint-streamvbyte-3";
// The codec name a format version writes.
inline const char* codec_name(int format_version) {
  return format_version == 1 ? "varint-delta-1" : format_version == 2 ? "varint-delta-2" : kCodecName;
}
inline ListCodec list_codec_of(int format_version) {
  return format_version == 1 ? ListCodec::kV1 : format_version == 2 ? ListCodec::kV2 : ListCodec::kV3;
}

// One stored edge space: the out- or in-space of a 1-D graph, or one block
// of it (docs/formats.md, "2-D blocks"): the lists of every vertex
// restricted to neighbours in [neighbour_begin, neighbour_end). A kind's
// blocks are listed in neighbour order and tile [0, |V|); the first holds
// the kind's degree file (whole degrees), the others have none.
struct SpaceManifest {
  std::string name;  // "out" or "in"; a block: "out.b1", "in.b0", ...
  std::string kind;  // "out" or "in"
  uint64_t neighbour_begin = 0;
  uint64_t neighbour_end = 0;  // 0 in a manifest without blocks: |V|
  uint64_t logical_bytes = 0;
  uint64_t chunks = 0;
  uint64_t arcs = 0;  // adjacency entries stored in this space
  std::string index_file;
  uint64_t index_checksum = 0;
  std::string degree_file;
  uint64_t degree_checksum = 0;
  std::vector<std::string> device_files;  // one per device, in device order
  std::vector<uint64_t> device_bytes;
  // Format version 3: chunks by gap coding (varint, StreamVByte, StreamVByte
  // of gap - 1); empty in older graphs.
  std::vector<uint64_t> gap_coding_chunks;
  // Of those, the chunks stored packed (compression/chunk_packing.h).
  uint64_t packed_chunks = 0;
};

// What ingest saw in the input; `info` reports it.
struct IngestRecord {
  std::string source;
  std::string input_format;
  uint64_t input_edges = 0;
  uint64_t self_loops = 0;          // self-loop arcs present in the input
  uint64_t self_loop_vertices = 0;  // vertices with a self-loop (0 if not recorded)
  uint64_t duplicate_edges = 0;     // present in the input (beyond the first copy)
  bool self_loops_dropped = false;
  bool duplicates_dropped = false;
  uint64_t sorted_runs = 0;
  uint64_t memory_bytes = 0;
};

// One delta run file of an update (shards/format/delta_run.h): the arcs it
// adds to or removes from one kind of edge space, keyed by that space's
// key vertex. An update too large for its budget writes several per kind.
struct DeltaRunFile {
  std::string kind;  // "out" or "in"
  std::string file;  // in the graph directory
  uint64_t bytes = 0;
  uint64_t checksum = 0;  // XXH3-64 of the whole file
  uint64_t records = 0;
};

// One committed update, in commit order, or several consecutive ones an
// update merged into one (docs/formats.md, "Tiers of updates").
struct DeltaManifest {
  uint64_t generation = 0;    // the manifest generation that added it
  uint64_t updates = 1;       // the updates merged into it
  uint64_t num_vertices = 0;  // the graph's vertex count after it
  uint64_t adds = 0;          // add records over the out-space
  uint64_t removes = 0;       // removal records over the out-space
  // The original ids of the vertices it adds ([previous count,
  // num_vertices)), uint64 each, when the graph has an id map.
  std::string new_ids_file;
  uint64_t new_ids_checksum = 0;
  std::vector<DeltaRunFile> runs;
};

struct Manifest {
  int format_version = kFormatVersion;
  std::string graph_id;
  uint64_t num_vertices = 0;
  uint64_t num_edges = 0;  // directed: arcs; undirected: edges (each once)
  bool directed = true;
  bool weighted = false;
  std::string weight_type = "float32";
  std::string codec = kCodecName;
  ListCodec list_codec() const { return list_codec_of(format_version); }
  std::string ordering = "none";
  uint64_t id_base = 0;     // original id = dense id + id_base (no id map)
  std::string id_map_file;  // empty unless remapped: uint64 original ids
  uint64_t id_map_checksum = 0;
  uint32_t chunk_bytes = 0;
  uint64_t stripe_bytes = 0;
  std::vector<uint32_t> interval_starts;  // first vertex of each interval
  std::vector<std::string> devices;       // "." = the graph directory itself
  std::vector<SpaceManifest> spaces;      // the out-space's blocks, then the in-space's (directed only)
  // An out-space-only graph: the intermediate of an ordered ingest, which
  // the traversal order reads (apps/ingest_ordered.cc). It stores no
  // in-space, only the in-degrees, in this file. Not a graph to run:
  // Graph::open refuses it unless asked (GraphOpenOptions::out_only).
  std::string in_degree_file;
  uint64_t in_degree_checksum = 0;
  bool out_only() const { return !in_degree_file.empty(); }
  IngestRecord ingest;
  // Updates (docs/formats.md, "Updates"): each commit moves the generation
  // on; the deltas are those not yet compacted into the spaces.
  uint64_t generation = 0;
  std::vector<DeltaManifest> deltas;
  uint64_t vertices_after_deltas() const { return deltas.empty() ? num_vertices : deltas.back().num_vertices; }
  uint64_t pending_updates() const {
    uint64_t updates = 0;
    for (const DeltaManifest& d : deltas) updates += d.updates;
    return updates;
  }
  // The pending updates' add and removal records over the out-space.
  uint64_t pending_adds() const {
    uint64_t adds = 0;
    for (const DeltaManifest& d : deltas) adds += d.adds;
    return adds;
  }
  uint64_t pending_removes() const {
    uint64_t removes = 0;
    for (const DeltaManifest& d : deltas) removes += d.removes;
    return removes;
  }
  // Bytes of the pending updates' run files of `kind` ("out" or "in"), or of both.
  uint64_t pending_run_bytes(const std::string& kind = "") const {
    uint64_t bytes = 0;
    for (const DeltaManifest& d : deltas) {
      for (const DeltaRunFile& run : d.runs) bytes += kind.empty() || run.kind == kind ? run.bytes : 0;
    }
    return bytes;
  }

  // num_edges from the stored spaces: the out-space's arcs (every block's);
  // on an undirected graph each edge is stored both ways and a self-loop
  // once, so the edges are (arcs + self-loop arcs) / 2.
  uint64_t edges_from_spaces(uint64_t stored_self_loops) const {
    uint64_t arcs = 0;
    for (const SpaceManifest& space : spaces) arcs += space.kind == "out" ? space.arcs : 0;
    return directed ? arcs : (arcs + stored_self_loops) / 2;
  }

  std::string to_json() const;
  // Parses and checks the manifest; errors name `path`.
  static Status parse(const std::string& text, const std::string& path, Manifest* manifest);
};

}  // namespace sg
