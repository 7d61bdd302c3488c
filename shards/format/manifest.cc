#include "shards/format/manifest.h"
#include "base/file_util.h"
#include "shards/format/sealed_json.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace sg {

namespace {

using nlohmann::json;

json space_to_json(const SpaceManifest& s) {
  json j{{"name", s.name},
         {"kind", s.kind},
         {"neighbour_begin", s.neighbour_begin},
         {"neighbour_end", s.neighbour_end},
         {"logical_bytes", s.logical_bytes},
         {"chunks", s.chunks},
         {"arcs", s.arcs},
         {"index_file", s.index_file},
         {"index_xxh3", hex64(s.index_checksum)},
         {"degree_file", s.degree_file},
         {"degree_xxh3", hex64(s.degree_checksum)},
         {"device_files", s.device_files},
         {"device_bytes", s.device_bytes}};
  if (!s.gap_coding_chunks.empty()) j["gap_coding_chunks"] = s.gap_coding_chunks;
  if (s.packed_chunks > 0) j["packed_chunks"] = s.packed_chunks;
  return j;
}

SpaceManifest space_from_json(const json& j, uint64_t num_vertices) {
  SpaceManifest s;
  s.name = j.at("name").get<std::string>();
  // Graphs from before blocks: one space a kind, named for it.
  s.kind = j.value("kind", s.name);
  s.neighbour_begin = j.value("neighbour_begin", uint64_t{0});
  s.neighbour_end = j.value("neighbour_end", num_vertices);
  s.logical_bytes = j.at("logical_bytes").get<uint64_t>();
  s.chunks = j.at("chunks").get<uint64_t>();
  s.arcs = j.at("arcs").get<uint64_t>();
  s.index_file = j.at("index_file").get<std::string>();
  s.index_checksum = parse_hex64(j.at("index_xxh3").get<std::string>());
  s.degree_file = j.at("degree_file").get<std::string>();
  s.degree_checksum = parse_hex64(j.at("degree_xxh3").get<std::string>());
  s.device_files = j.at("device_files").get<std::vector<std::string>>();
  s.device_bytes = j.at("device_bytes").get<std::vector<uint64_t>>();
  s.gap_coding_chunks = j.value("gap_coding_chunks", std::vector<uint64_t>{});
  s.packed_chunks = j.value("packed_chunks", uint64_t{0});
  return s;
}

json delta_to_json(const DeltaManifest& d) {
  json runs = json::array();
  for (const DeltaRunFile& r : d.runs) {
    runs.push_back(
        {{"kind", r.kind}, {"file", r.file}, {"bytes", r.bytes}, {"xxh3", hex64(r.checksum)}, {"records", r.records}});
  }
  json j = {{"generation", d.generation},
            {"num_vertices", d.num_vertices},
            {"adds", d.adds},
            {"removes", d.removes},
            {"new_ids_file", d.new_ids_file},
            {"new_ids_xxh3", hex64(d.new_ids_checksum)},
            {"runs", runs}};
  if (d.updates != 1) j["updates"] = d.updates;
  return j;
}

DeltaManifest delta_from_json(const json& j) {
  DeltaManifest d;
  d.generation = j.at("generation").get<uint64_t>();
  d.num_vertices = j.at("num_vertices").get<uint64_t>();
  d.updates = j.value("updates", uint64_t{1});
  d.adds = j.at("adds").get<uint64_t>();
  d.removes = j.at("removes").get<uint64_t>();
  d.new_ids_file = j.at("new_ids_file").get<std::string>();
  d.new_ids_checksum = parse_hex64(j.at("new_ids_xxh3").get<std::string>());
  for (const json& r : j.at("runs")) {
    d.runs.push_back(DeltaRunFile{r.at("kind").get<std::string>(), r.at("file").get<std::string>(),
                                  r.at("bytes").get<uint64_t>(), parse_hex64(r.at("xxh3").get<std::string>()),
                                  r.at("records").get<uint64_t>()});
  }
  return d;
}

// Deltas come in generation order, grow the vertices, name plain files of
// the graph directory, and exist exactly in version 4.
Status check_deltas(const Manifest& m, const std::string& path) {
  if (m.deltas.empty() != (m.format_version != kDeltaFormatVersion))
    return Status::Corruption(path + ": format version 4 is a graph with updates, and only it has them");
  uint64_t vertices = m.num_vertices, generation = 0;
  for (const DeltaManifest& d : m.deltas) {
    if (d.generation <= generation || d.generation > m.generation || d.num_vertices < vertices || d.updates == 0 ||
        d.updates > d.generation - generation || d.num_vertices > UINT32_MAX ||
        (d.num_vertices > vertices && !m.id_map_file.empty() && d.new_ids_file.empty()))
      return Status::Corruption(path + ": update " + std::to_string(d.generation) + " is out of order");
    for (const DeltaRunFile& r : d.runs) {
      if ((r.kind != "out" && (r.kind != "in" || !m.directed)) || r.file.empty() ||
          r.file.find('/') != std::string::npos || r.file[0] == '.')
        return Status::Corruption(path + ": update " + std::to_string(d.generation) + " names a bad run");
    }
    vertices = d.num_vertices;
    generation = d.generation;
  }
  return Status::OK();
}

// Every number in a manifest is a count, size or id: a whole number from 0
// up. nlohmann converts others silently (a negative id wraps) or with
// undefined behaviour (a float beyond the target type), so they are refused
// before any field is read. Returns the first bad number's text.
bool only_whole_numbers(const json& j, std::string* bad) {
  if (j.is_number() && !j.is_number_unsigned()) {
    *bad = j.dump();
    return false;
  }
  if (j.is_structured()) {
    for (const json& item : j) {
      if (!only_whole_numbers(item, bad)) return false;
    }
  }
  return true;
}

// uint32 fields: a larger value is an error, not a wrapped one.
uint32_t get_u32(const json& j) {
  const uint64_t value = j.get<uint64_t>();
  if (value > UINT32_MAX) throw std::out_of_range("value " + std::to_string(value) + " does not fit 32 bits");
  return static_cast<uint32_t>(value);
}

// Each kind's blocks come together, out first, and tile [0, |V|) in
// neighbour order; only the first holds a degree file.
Status check_blocks(const Manifest& m, const std::string& path) {
  const std::vector<std::string> kinds =
      m.directed && !m.out_only() ? std::vector<std::string>{"out", "in"} : std::vector<std::string>{"out"};
  size_t at = 0;
  for (const std::string& kind : kinds) {
    uint64_t next = 0;
    const size_t first = at;
    while (at < m.spaces.size() && m.spaces[at].kind == kind) {
      const SpaceManifest& s = m.spaces[at];
      if (s.neighbour_begin != next || s.neighbour_end <= s.neighbour_begin || s.neighbour_end > m.num_vertices ||
          (at == first) == s.degree_file.empty()) {
        return Status::Corruption(path + ": the blocks of the " + kind + "-space do not tile the vertices");
      }
      next = s.neighbour_end;
      ++at;
    }
    if (at == first || next != m.num_vertices) return Status::Corruption(path + ": wrong edge spaces (" + kind + ")");
  }
  if (at != m.spaces.size()) return Status::Corruption(path + ": wrong number of edge spaces");
  return Status::OK();
}

}  // namespace

std::string Manifest::to_json() const {
  json spaces_json = json::array();
  for (const SpaceManifest& s : spaces) spaces_json.push_back(space_to_json(s));
  json j{{"format", "shardgraph"},
         {"format_version", format_version},
         {"graph_id", graph_id},
         {"num_vertices", num_vertices},
         {"num_edges", num_edges},
         {"directed", directed},
         {"weighted", weighted},
         {"weight_type", weighted ? weight_type : "none"},
         {"codec", codec},
         {"ordering", ordering},
         {"id_base", id_base},
         {"id_map_file", id_map_file},
         {"id_map_xxh3", hex64(id_map_checksum)},
         {"chunk_bytes", chunk_bytes},
         {"stripe_bytes", stripe_bytes},
         {"interval_starts", interval_starts},
         {"devices", devices},
         {"spaces", spaces_json},
         {"ingest",
          {{"source", ingest.source},
           {"input_format", ingest.input_format},
           {"input_edges", ingest.input_edges},
           {"self_loops", ingest.self_loops},
           {"self_loop_vertices", ingest.self_loop_vertices},
           {"duplicate_edges", ingest.duplicate_edges},
           {"self_loops_dropped", ingest.self_loops_dropped},
           {"duplicates_dropped", ingest.duplicates_dropped},
           {"sorted_runs", ingest.sorted_runs},
           {"memory_bytes", ingest.memory_bytes}}}};
  if (generation > 0) j["generation"] = generation;
  if (!deltas.empty()) {
    json list = json::array();
    for (const DeltaManifest& d : deltas) list.push_back(delta_to_json(d));
    j["deltas"] = list;
  }
  if (out_only()) j["out_only_in_degrees"] = {{"file", in_degree_file}, {"xxh3", hex64(in_degree_checksum)}};
  seal_json(&j);
  return j.dump(1) + "\n";
}

namespace {

// What ingest recorded about the input.
IngestRecord ingest_from_json(const json& in) {
  IngestRecord r;
  r.source = in.at("source").get<std::string>();
  r.input_format = in.at("input_format").get<std::string>();
  r.input_edges = in.at("input_edges").get<uint64_t>();
  r.self_loops = in.at("self_loops").get<uint64_t>();
  r.self_loop_vertices = in.value("self_loop_vertices", uint64_t{0});
  r.duplicate_edges = in.at("duplicate_edges").get<uint64_t>();
  r.self_loops_dropped = in.at("self_loops_dropped").get<bool>();
  r.duplicates_dropped = in.at("duplicates_dropped").get<bool>();
  r.sorted_runs = in.at("sorted_runs").get<uint64_t>();
  r.memory_bytes = in.at("memory_bytes").get<uint64_t>();
  return r;
}

// Structural checks, so readers can trust the numbers.
Status check_structure(const Manifest& manifest, const std::string& path) {
  const Manifest* m = &manifest;
  if (m->num_vertices == 0 || m->num_vertices > UINT32_MAX) return Status::Corruption(path + ": bad num_vertices");
  SG_RETURN_IF_ERROR(check_blocks(*m, path));
  if (m->devices.empty()) return Status::Corruption(path + ": no devices");
  if (m->stripe_bytes == 0 || m->stripe_bytes % 4096 != 0) return Status::Corruption(path + ": bad stripe_bytes");
  if (m->interval_starts.empty() || m->interval_starts[0] != 0) return Status::Corruption(path + ": bad intervals");
  for (size_t i = 1; i < m->interval_starts.size(); ++i) {
    if (m->interval_starts[i] <= m->interval_starts[i - 1] || m->interval_starts[i] >= m->num_vertices) {
      return Status::Corruption(path + ": interval starts not increasing");
    }
  }
  for (const SpaceManifest& s : m->spaces) {
    if (s.device_files.size() != m->devices.size() || s.device_bytes.size() != m->devices.size()) {
      return Status::Corruption(path + ": space " + s.name + " lists the wrong number of device files");
    }
  }
  return check_deltas(*m, path);
}

}  // namespace

Status Manifest::parse(const std::string& text, const std::string& path, Manifest* m) {
  try {
    const json j = json::parse(text);
    std::string bad;
    if (!only_whole_numbers(j, &bad)) {
      return Status::Corruption(path + ": not a valid shardgraph manifest (the number " + bad +
                                " is not a whole number >= 0)");
    }
    if (j.at("format").get<std::string>() != "shardgraph")
      return Status::Corruption(path + ": not a shardgraph manifest");
    if (!sealed_json_intact(j, false)) {  // graphs from before the checksum have none
      return Status::Corruption(path +
                                ": manifest checksum mismatch (edited or damaged); restore it or re-ingest the graph");
    }
    m->format_version = j.at("format_version").get<int>();
    if (m->format_version < kOldestFormatVersion || m->format_version > kDeltaFormatVersion) {
      return Status::InvalidArgument(path + ": format version " + std::to_string(m->format_version) +
                                     " is not supported (this build reads " + std::to_string(kOldestFormatVersion) +
                                     " to " + std::to_string(kDeltaFormatVersion) +
                                     "); re-ingest the graph with this build, or use the shardgraph that wrote it");
    }
    m->graph_id = j.at("graph_id").get<std::string>();
    m->num_vertices = j.at("num_vertices").get<uint64_t>();
    m->num_edges = j.at("num_edges").get<uint64_t>();
    m->directed = j.at("directed").get<bool>();
    m->weighted = j.at("weighted").get<bool>();
    m->codec = j.at("codec").get<std::string>();
    if (m->codec != codec_name(m->format_version)) {
      return Status::InvalidArgument(path + ": codec '" + m->codec + "' is not format version " +
                                     std::to_string(m->format_version) + "'s");
    }
    m->ordering = j.at("ordering").get<std::string>();
    m->id_base = j.at("id_base").get<uint64_t>();
    m->id_map_file = j.at("id_map_file").get<std::string>();
    m->id_map_checksum = parse_hex64(j.at("id_map_xxh3").get<std::string>());
    m->chunk_bytes = get_u32(j.at("chunk_bytes"));
    m->stripe_bytes = j.at("stripe_bytes").get<uint64_t>();
    m->interval_starts.clear();
    for (const json& start : j.at("interval_starts")) m->interval_starts.push_back(get_u32(start));
    m->devices = j.at("devices").get<std::vector<std::string>>();
    m->in_degree_file.clear();
    m->in_degree_checksum = 0;
    if (j.contains("out_only_in_degrees")) {
      const json& in_degrees = j.at("out_only_in_degrees");
      m->in_degree_file = in_degrees.at("file").get<std::string>();
      m->in_degree_checksum = parse_hex64(in_degrees.at("xxh3").get<std::string>());
      if (m->in_degree_file.empty() || !m->directed)
        return Status::Corruption(path + ": an out-only graph names no in-degree file");
    }
    m->spaces.clear();
    for (const json& s : j.at("spaces")) m->spaces.push_back(space_from_json(s, m->num_vertices));
    m->ingest = ingest_from_json(j.at("ingest"));
    m->generation = j.value("generation", uint64_t{0});
    m->deltas.clear();
    if (j.contains("deltas")) {
      for (const json& d : j.at("deltas")) m->deltas.push_back(delta_from_json(d));
    }
  } catch (const std::exception& e) {
    return Status::Corruption(path + ": not a valid shardgraph manifest (" + json_error_text(e.what()) + ")");
  }
  return check_structure(*m, path);
}

}  // namespace sg
