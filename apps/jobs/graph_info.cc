#include "apps/jobs/graph_info.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/engine.h"

namespace sg {
namespace {

using nlohmann::json;

struct DegreeSummary {
  uint64_t max = 0, zero = 0, p50 = 0, p99 = 0;
  double mean = 0;
};

DegreeSummary summarize(const std::vector<uint32_t>& degrees) {
  DegreeSummary s;
  if (degrees.empty()) return s;
  uint64_t total = 0;
  for (uint32_t d : degrees) {
    total += d;
    s.zero += d == 0;
    s.max = std::max<uint64_t>(s.max, d);
  }
  s.mean = static_cast<double>(total) / static_cast<double>(degrees.size());
  // Two selections rather than a sort: info on a large graph stays quick.
  std::vector<uint32_t> picked(degrees);
  const auto median = picked.begin() + static_cast<ptrdiff_t>(picked.size() / 2);
  std::nth_element(picked.begin(), median, picked.end());
  s.p50 = *median;
  const auto p99 = picked.begin() + static_cast<ptrdiff_t>(std::min(picked.size() - 1, picked.size() * 99 / 100));
  std::nth_element(median, p99, picked.end());
  s.p99 = *p99;
  return s;
}

uint64_t stored_bytes(const Graph& g) {
  uint64_t bytes = 0;
  for (size_t s = 0; s < g.stored_space_count(); ++s) bytes += g.stored_space(s).meta.logical_bytes;
  return bytes;
}

double per(uint64_t bytes, uint64_t count) {
  return count == 0 ? 0.0 : static_cast<double>(bytes) / static_cast<double>(count);
}

std::string format(const char* fmt, auto... args) {
  char line[512];
  std::snprintf(line, sizeof(line), fmt, args...);
  return line;
}

}  // namespace

std::string graph_info_text(const Graph& g) {
  const Manifest& m = g.manifest();
  std::string out;
  out += format("graph          %s (id %s, format %d, codec %s)\n", g.dir().c_str(), m.graph_id.c_str(),
                m.format_version, m.codec.c_str());
  out += format("vertices       %llu\n", static_cast<unsigned long long>(m.num_vertices));
  out += format("edges          %llu (%s)\n", static_cast<unsigned long long>(m.num_edges),
                m.directed ? "directed" : "undirected");
  out += format("weighted       %s\n", m.weighted ? "float32" : "no");
  out += format("ids            %s\n",
                m.id_map_file.empty()
                    ? format("dense, original = id + %llu", static_cast<unsigned long long>(m.id_base)).c_str()
                    : "remapped (id map stored)");
  if (!m.deltas.empty()) {
    out += format(
        "updates        %llu not yet compacted, in %zu tier(s) (generation %llu): %llu arcs added, %llu named for "
        "removal, %llu vertices after them; `shardgraph compact` merges them\n",
        static_cast<unsigned long long>(m.pending_updates()), m.deltas.size(),
        static_cast<unsigned long long>(m.generation), static_cast<unsigned long long>(m.pending_adds()),
        static_cast<unsigned long long>(m.pending_removes()),
        static_cast<unsigned long long>(m.vertices_after_deltas()));
  }
  out += format("intervals      %zu\n", m.interval_starts.size());
  out += format("chunk target   %u bytes\n", m.chunk_bytes);
  out += format("devices        %zu, stripe %llu bytes\n", m.devices.size(),
                static_cast<unsigned long long>(m.stripe_bytes));
  const size_t blocks = g.block_count(SpaceKind::kOut);
  if (blocks > 1) {
    const EdgeSpace& first = g.stored_space(g.blocks(SpaceKind::kOut).front());
    out += format("blocks         %zu a space (2-D: each holds the lists' neighbours in a range of %llu vertices)\n",
                  blocks, static_cast<unsigned long long>(first.neighbour_end - first.neighbour_begin));
  } else {
    out += "blocks         1 (1-D)\n";
  }
  for (size_t s = 0; s < g.stored_space_count(); ++s) {
    const SpaceManifest& sm = g.stored_space(s).meta;
    out += format("space %-8s %llu chunks, %llu arcs, %llu bytes (%.3f bytes/arc)\n",
                  (sm.name + (g.directed() ? "" : "=in")).c_str(), static_cast<unsigned long long>(sm.chunks),
                  static_cast<unsigned long long>(sm.arcs), static_cast<unsigned long long>(sm.logical_bytes),
                  per(sm.logical_bytes, sm.arcs));
    if (sm.gap_coding_chunks.size() >= kGapCodings) {  // graphs written before the entropy layout hold three
      const uint64_t entropy = sm.gap_coding_chunks.size() > kGapCodings ? sm.gap_coding_chunks[3] : 0;
      out += format(
          "  gaps        %llu chunks varint, %llu StreamVByte, %llu StreamVByte runs, %llu entropy; %llu packed "
          "(zstd)\n",
          static_cast<unsigned long long>(sm.gap_coding_chunks[0]),
          static_cast<unsigned long long>(sm.gap_coding_chunks[1]),
          static_cast<unsigned long long>(sm.gap_coding_chunks[2]), static_cast<unsigned long long>(entropy),
          static_cast<unsigned long long>(sm.packed_chunks));
    }
    for (size_t d = 0; d < sm.device_files.size(); ++d) {
      out += format("  device %-5zu %llu bytes  %s/%s\n", d, static_cast<unsigned long long>(sm.device_bytes[d]),
                    m.devices[d] == "." ? "<graph>" : m.devices[d].c_str(), sm.device_files[d].c_str());
    }
  }
  out += format("bytes/edge     %.3f (all spaces)\n", per(stored_bytes(g), m.num_edges));
  const uint64_t minimum = Engine::minimum_memory_bytes(g);
  out += format(
      "run memory     at least %llu MiB (chunk indexes, 3 frontier bitmaps of %llu bytes, two I/O windows); vertex "
      "arrays beyond --memory are loaded by range\n",
      static_cast<unsigned long long>((minimum + (1 << 20) - 1) >> 20),
      static_cast<unsigned long long>(uint64_t{g.num_vertices()} / 8 + 8));
  out += format("ordering       %s\n", m.ordering.c_str());
  const char* names[] = {"out-degree", "in-degree"};
  for (size_t s = 0; s < (g.directed() ? 2u : 1u); ++s) {
    const DegreeSummary d = summarize(g.space(s == 0 ? SpaceKind::kOut : SpaceKind::kIn).degrees);
    out += format("%-14s max %llu, mean %.2f, median %llu, p99 %llu, zero %llu\n", g.directed() ? names[s] : "degree",
                  static_cast<unsigned long long>(d.max), d.mean, static_cast<unsigned long long>(d.p50),
                  static_cast<unsigned long long>(d.p99), static_cast<unsigned long long>(d.zero));
  }
  const IngestRecord& in = m.ingest;
  out += format("input          %s (%s), %llu edges read, %llu sort batches, memory %llu\n", in.source.c_str(),
                in.input_format.c_str(), static_cast<unsigned long long>(in.input_edges),
                static_cast<unsigned long long>(in.sorted_runs), static_cast<unsigned long long>(in.memory_bytes));
  out += format("self-loops     %llu arcs on %llu vertices (%s)\n", static_cast<unsigned long long>(in.self_loops),
                static_cast<unsigned long long>(in.self_loop_vertices), in.self_loops_dropped ? "dropped" : "kept");
  out += format("duplicates     %llu (%s)\n", static_cast<unsigned long long>(in.duplicate_edges),
                in.duplicates_dropped ? "dropped" : "kept");
  return out;
}

std::string graph_info_json(const Graph& g) {
  const Manifest& m = g.manifest();
  json spaces = json::array();
  for (size_t s = 0; s < g.stored_space_count(); ++s) {
    const EdgeSpace& space = g.stored_space(s);
    const DegreeSummary d = summarize(space.degrees);
    spaces.push_back(
        {{"name", space.meta.name},
         {"kind", space.meta.kind},
         {"neighbour_begin", space.neighbour_begin},
         {"neighbour_end", space.neighbour_end},
         {"chunks", space.meta.chunks},
         {"arcs", space.meta.arcs},
         {"bytes", space.meta.logical_bytes},
         {"bytes_per_arc", per(space.meta.logical_bytes, space.meta.arcs)},
         {"device_bytes", space.meta.device_bytes},
         {"degree", {{"max", d.max}, {"mean", d.mean}, {"median", d.p50}, {"p99", d.p99}, {"zero", d.zero}}}});
    if (space.meta.gap_coding_chunks.size() >= kGapCodings) {
      const auto& c = space.meta.gap_coding_chunks;
      spaces.back()["gap_coding_chunks"] = {{"varint", c[0]},
                                            {"streamvbyte", c[1]},
                                            {"streamvbyte_runs", c[2]},
                                            {"entropy", c.size() > kGapCodings ? c[3] : 0}};
      spaces.back()["packed_chunks"] = space.meta.packed_chunks;
    }
  }
  json j{{"graph", g.dir()},
         {"format_version", m.format_version},
         {"codec", m.codec},
         {"vertices", m.num_vertices},
         {"edges", m.num_edges},
         {"directed", m.directed},
         {"weighted", m.weighted},
         {"remapped", !m.id_map_file.empty()},
         {"intervals", m.interval_starts.size()},
         {"chunk_bytes", m.chunk_bytes},
         {"stripe_bytes", m.stripe_bytes},
         {"devices", m.devices},
         {"spaces", spaces},
         {"bytes", stored_bytes(g)},
         {"bytes_per_edge", per(stored_bytes(g), m.num_edges)},
         {"minimum_run_memory_bytes", Engine::minimum_memory_bytes(g)},
         {"ordering", m.ordering},
         {"self_loops", m.ingest.self_loops},
         {"self_loop_vertices", m.ingest.self_loop_vertices},
         {"self_loops_dropped", m.ingest.self_loops_dropped},
         {"duplicate_edges", m.ingest.duplicate_edges},
         {"duplicates_dropped", m.ingest.duplicates_dropped},
         {"input_edges", m.ingest.input_edges},
         {"sorted_runs", m.ingest.sorted_runs}};
  return j.dump(1) + "\n";
}

}  // namespace sg
