#include "apps/jobs/partition.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/file_util.h"
#include "base/interrupt.h"
#include "shards/format/graph.h"
#include "shards/format/manifest.h"
#include "shards/format/sealed_json.h"
#include "shards/format/verify.h"
#include "shards/ingest/ingest.h"
#include "shards/ingest/leftovers.h"

namespace sg {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kPartitionFile = "partition.json";
constexpr const char* kOutDegreeFile = "out.degrees";

constexpr uint64_t kVertexWeight = 1;  // alpha, in arcs (RangeCutter)

std::string part_name(uint32_t k) { return "part-" + std::to_string(k); }
std::string reverse_name(uint32_t k) { return part_name(k) + ".reverse"; }

// Cuts vertices given in id order with their in-degrees into ranges of
// about equal alpha * vertices + arcs; every range keeps at least one vertex.
// Gemini (in memory) weighs a vertex as 8 (N - 1) arcs; an out-of-core
// rank's time goes to reading its arcs, and a vertex's state (a few bytes
// loaded, mapped and exchanged) costs about what an arc's 3.5-5 bytes do:
// alpha = 1. (With Gemini's 8, R-MAT 22 in 2 parts gave one rank 2.6x the
// other's arcs.)
class RangeCutter {
 public:
  RangeCutter(uint64_t vertices, uint32_t parts, uint64_t arcs)
      : vertices_(vertices), parts_(parts), alpha_(kVertexWeight), total_(alpha_ * vertices + arcs) {
    ranges_.push_back(PartRange{});
  }
  void add(uint32_t v, uint64_t in_degree) {
    const uint64_t k = ranges_.size();  // the range being filled is k - 1
    const bool room_left = vertices_ - v >= parts_ - (k - 1);
    // In 128 bits: seen and total reach 2^32 vertices x 8 (N - 1) + arcs.
    const bool target_reached =
        k < parts_ && static_cast<unsigned __int128>(seen_) * parts_ >= static_cast<unsigned __int128>(total_) * k;
    if (v > ranges_.back().begin && k < parts_ && (target_reached || !room_left)) {
      ranges_.back().end = v;
      ranges_.push_back(PartRange{v, v, 0});
    }
    ranges_.back().arcs += in_degree;
    seen_ += alpha_ + in_degree;
  }
  std::vector<PartRange> finish() {
    ranges_.back().end = static_cast<uint32_t>(vertices_);
    return ranges_;
  }

 private:
  uint64_t vertices_;
  uint32_t parts_;
  uint64_t alpha_, total_;
  uint64_t seen_ = 0;
  std::vector<PartRange> ranges_;
};

Status write_partition_file(const std::string& dir, const PartitionLayout& layout, const std::string& source_id) {
  json parts = json::array();
  for (size_t k = 0; k < layout.ranges.size(); ++k) {
    const PartRange& range = layout.ranges[k];
    json part{{"dir", part_name(static_cast<uint32_t>(k))},
              {"graph_id", layout.part_ids[k]},
              {"vertex_begin", range.begin},
              {"vertex_end", range.end},
              {"arcs", range.arcs},
              {"out_arcs", range.out_arcs}};
    if (!layout.reverse_ids.empty()) {
      part["reverse_dir"] = reverse_name(static_cast<uint32_t>(k));
      part["reverse_graph_id"] = layout.reverse_ids[k];
    }
    parts.push_back(part);
  }
  uint64_t arcs = 0;
  for (const PartRange& range : layout.ranges) arcs += range.arcs;
  json j{{"format", "shardgraph-partition"},
         {"version", 2},
         {"undirected", layout.undirected},
         {"num_arcs", arcs},
         {"source_graph_id", source_id},
         {"num_vertices", layout.num_vertices},
         {"num_edges", layout.num_edges},
         {"out_degrees", {{"file", kOutDegreeFile}, {"xxh3", hex64(layout.out_degree_checksum)}}},
         {"parts", parts}};
  seal_json(&j);
  const std::string text = j.dump(1) + "\n";
  return write_file_atomic(dir + "/" + kPartitionFile, text.data(), text.size());
}

using PartitionFile = PartitionLayout;

Status read_partition_file(const std::string& dir, PartitionFile* file) {
  const std::string path = dir + "/" + kPartitionFile;
  std::string text;
  Status s = read_whole_file(path, &text);
  if (s.code() == Status::Code::kNotFound)
    return Status::InvalidArgument(dir + ": not a partitioned graph (no " + kPartitionFile + ")");
  SG_RETURN_IF_ERROR(s);
  try {
    const json j = json::parse(text);
    if (j.at("format").get<std::string>() != "shardgraph-partition")
      return Status::Corruption(path + ": not a shardgraph partition");
    if (!sealed_json_intact(j, true))
      return Status::Corruption(path + ": checksum mismatch (edited or damaged); partition the graph again");
    file->num_vertices = j.at("num_vertices").get<uint64_t>();
    file->num_edges = j.at("num_edges").get<uint64_t>();
    file->undirected = j.value("undirected", false);
    file->num_arcs = j.value("num_arcs", file->num_edges);
    file->out_degree_checksum = parse_hex64(j.at("out_degrees").at("xxh3").get<std::string>());
    for (const json& part : j.at("parts")) {
      file->ranges.push_back(PartRange{part.at("vertex_begin").get<uint32_t>(), part.at("vertex_end").get<uint32_t>(),
                                       part.at("arcs").get<uint64_t>(), part.value("out_arcs", uint64_t{0})});
      file->part_ids.push_back(part.at("graph_id").get<std::string>());
      if (part.contains("reverse_graph_id"))
        file->reverse_ids.push_back(part.at("reverse_graph_id").get<std::string>());
    }
  } catch (const std::exception& e) {
    return Status::Corruption(path + ": not a valid partition file (" + std::string(e.what()) + ")");
  }
  if (!file->reverse_ids.empty() && file->reverse_ids.size() != file->part_ids.size()) {
    return Status::Corruption(path + ": some parts have a reverse part and some do not");
  }
  return Status::OK();
}

// Every arc of a part ends in its range: its in-degrees outside are zero,
// and they add up to the arcs recorded.
Status check_part_arcs(const Graph& part, const PartRange& range, uint64_t expected, const std::string& name) {
  uint64_t inside = 0, outside = 0;
  SG_RETURN_IF_ERROR(part.scan_degree_file(SpaceKind::kIn, [&](uint32_t first, const uint32_t* degrees, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      const uint64_t v = first + i;
      (v >= range.begin && v < range.end ? inside : outside) += degrees[i];
    }
  }));
  if (outside > 0)
    return Status::Corruption(name + ": holds " + std::to_string(outside) + " arcs into vertices it does not own");
  if (inside != expected || part.manifest().num_edges != expected) {
    return Status::Corruption(name + ": holds " + std::to_string(inside) + " arcs, the partition says " +
                              std::to_string(expected));
  }
  return Status::OK();
}

// A part (or reverse part) is there, is the one the partition wrote, verifies
// and holds `expected` arcs, all into its range.
Status verify_part(const std::string& name, const std::string& graph_id, uint64_t vertices, const PartRange& range,
                   uint64_t expected) {
  Graph part;
  SG_RETURN_IF_ERROR(open_part(name, graph_id, vertices, GraphOpenOptions{}, &part));
  VerifyReport report;
  SG_RETURN_IF_ERROR(verify_graph(part, &report));
  return check_part_arcs(part, range, expected, name);
}

}  // namespace

Status open_part(const std::string& dir, const std::string& graph_id, uint64_t vertices,
                 const GraphOpenOptions& options, Graph* graph) {
  std::error_code ec;
  if (!fs::exists(dir + "/manifest.json", ec))
    return Status::InvalidArgument(dir + ": missing (a partitioned graph needs every part)");
  SG_RETURN_IF_ERROR(Graph::open(dir, graph, options));
  if (graph->manifest().graph_id != graph_id || graph->num_vertices() != vertices) {
    return Status::InvalidArgument(dir + ": not the part this partition wrote (another graph's part?)");
  }
  return Status::OK();
}

bool is_partitioned(const std::string& dir) {
  std::error_code ec;
  return fs::exists(dir + "/" + kPartitionFile, ec);
}

Status read_partition_layout(const std::string& dir, PartitionLayout* layout) {
  SG_RETURN_IF_ERROR(read_partition_file(dir, layout));
  uint64_t next = 0;
  for (const PartRange& range : layout->ranges) {
    if (range.begin != next || range.end <= range.begin)
      return Status::Corruption(dir + ": the parts' ranges do not tile the vertices");
    next = range.end;
  }
  if (next != layout->num_vertices || layout->ranges.empty())
    return Status::Corruption(dir + ": the parts' ranges do not tile the vertices");
  return Status::OK();
}

Status write_partition_layout(const std::string& dir, const PartitionLayout& layout, const std::string& source_id) {
  return write_partition_file(dir, layout, source_id);
}

Status split_part_devices(const std::vector<std::string>& specs, uint32_t parts,
                          std::vector<std::vector<std::string>>* part_devices) {
  part_devices->assign(parts, {});
  for (const std::string& spec : specs) {
    const size_t colon = spec.find(':');
    const std::string number = colon == std::string::npos ? std::string() : spec.substr(0, colon);
    const bool digits =
        !number.empty() && number.size() < 6 && number.find_first_not_of("0123456789") == std::string::npos;
    const uint64_t part = digits ? std::stoull(number) : UINT64_MAX;
    if (!digits || colon + 1 == spec.size() || part >= parts)
      return Status::InvalidArgument("--device '" + spec + "': expected PART:DIR with PART below --parts");
    (*part_devices)[part].push_back(spec.substr(colon + 1));
  }
  return Status::OK();
}

std::string part_dir(const std::string& dir, uint32_t part) { return dir + "/" + part_name(part); }
std::string reverse_part_dir(const std::string& dir, uint32_t part) { return dir + "/" + reverse_name(part); }
std::string partition_out_degree_path(const std::string& dir) { return dir + "/" + kOutDegreeFile; }

std::vector<PartRange> balanced_ranges(const std::vector<uint32_t>& in_degrees, uint32_t parts) {
  uint64_t arcs = 0;
  for (uint32_t d : in_degrees) arcs += d;
  RangeCutter cutter(in_degrees.size(), parts, arcs);
  for (size_t v = 0; v < in_degrees.size(); ++v) cutter.add(static_cast<uint32_t>(v), in_degrees[v]);
  return cutter.finish();
}

std::vector<PartRange> balanced_block_ranges(const std::vector<uint64_t>& block_in_arcs, uint32_t block_shift,
                                             uint64_t vertices, uint32_t parts) {
  uint64_t arcs = 0;
  for (uint64_t a : block_in_arcs) arcs += a;
  RangeCutter cutter(vertices, parts, arcs);
  for (size_t b = 0; b < block_in_arcs.size(); ++b) {
    const uint64_t first = uint64_t{b} << block_shift;
    if (first >= vertices) break;
    const uint64_t size = std::min<uint64_t>(uint64_t{1} << block_shift, vertices - first);
    // A block weighs as its vertices and arcs: alpha once per add, the rest as arcs.
    cutter.add(static_cast<uint32_t>(first), block_in_arcs[b] + size - 1);
  }
  std::vector<PartRange> ranges = cutter.finish();
  for (PartRange& range : ranges) range.arcs = 0;  // the parts' own counts replace them
  return ranges;
}

// The parts' ranges from the in-degrees, streamed twice (their sum, then
// the cuts), and each range's out-arcs (its reverse part's size).
Status cut_ranges(const Graph& graph, uint32_t parts, std::vector<PartRange>* ranges) {
  uint64_t arcs = 0;
  SG_RETURN_IF_ERROR(graph.scan_degree_file(SpaceKind::kIn, [&](uint32_t, const uint32_t* degrees, size_t count) {
    for (size_t i = 0; i < count; ++i) arcs += degrees[i];
  }));
  RangeCutter cutter(graph.num_vertices(), parts, arcs);
  SG_RETURN_IF_ERROR(graph.scan_degree_file(SpaceKind::kIn, [&](uint32_t first, const uint32_t* degrees, size_t count) {
    for (size_t i = 0; i < count; ++i) cutter.add(first + static_cast<uint32_t>(i), degrees[i]);
  }));
  *ranges = cutter.finish();
  size_t range_at = 0;  // the ranges' out-arcs: the reverse parts' sizes
  SG_RETURN_IF_ERROR(
      graph.scan_degree_file(SpaceKind::kOut, [&](uint32_t first, const uint32_t* degrees, size_t count) {
        for (size_t i = 0; i < count; ++i) {
          while (first + i >= (*ranges)[range_at].end) ++range_at;
          (*ranges)[range_at].out_arcs += degrees[i];
        }
      }));
  return Status::OK();
}

Status partition_graph(const PartitionOptions& options, PartitionSummary* summary) {
  const auto start = std::chrono::steady_clock::now();
  std::error_code ec;
  if (options.output.empty()) return Status::InvalidArgument("no output directory given (-o)");
  if (fs::exists(options.output, ec))
    return Status::InvalidArgument(options.output + ": already exists; remove it or choose another output");
  Graph graph;
  SG_RETURN_IF_ERROR(Graph::open(options.graph, &graph, GraphOpenOptions{false, false, false, false}));
  if (options.parts == 0 || options.parts > graph.num_vertices()) {
    return Status::InvalidArgument("--parts must be between 1 and the vertex count (" +
                                   std::to_string(graph.num_vertices()) + ")");
  }
  std::vector<PartRange> ranges;
  SG_RETURN_IF_ERROR(cut_ranges(graph, options.parts, &ranges));
  const std::string work = hidden_sibling(options.output, "partition");
  if (!fs::create_directory(work, ec)) return Status::IOError(work + ": cannot create: " + ec.message());
  struct RemoveOnExit {
    std::string path;
    bool kept = false;
    ~RemoveOnExit() {
      std::error_code ignored;
      if (!kept) fs::remove_all(path, ignored);
    }
  } cleanup{work};
  std::vector<std::string> part_ids, reverse_ids;
  // Part k, then its reverse part: one ingest pass over the graph each.
  auto write_part = [&](uint32_t k, bool reverse, std::vector<std::string>* ids) {
    if (interrupt_requested()) return Status::Interrupted("partition stopped by a signal");
    const std::string name = reverse ? reverse_name(k) : part_name(k);
    IngestOptions part;
    part.input = options.graph;
    part.format = "graph";
    part.output = work + "/" + name;
    part.memory_bytes = options.memory_bytes;
    part.chunk_bytes = graph.manifest().chunk_bytes;
    part.keep_destinations_begin = ranges[k].begin;
    part.keep_destinations_end = ranges[k].end;
    part.transpose = reverse;
    part.symmetrize = !graph.directed();
    if (k < options.part_devices.size()) part.devices = options.part_devices[k];
    IngestSummary part_summary;
    SG_RETURN_IF_ERROR(ingest_graph(part, &part_summary));
    Graph written;
    SG_RETURN_IF_ERROR(Graph::open(part.output, &written, GraphOpenOptions{false, false, false, false}));
    SG_RETURN_IF_ERROR(check_part_arcs(written, ranges[k], reverse ? ranges[k].out_arcs : ranges[k].arcs, name));
    ids->push_back(written.manifest().graph_id);
    return Status::OK();
  };
  for (uint32_t k = 0; k < options.parts; ++k) {
    SG_RETURN_IF_ERROR(write_part(k, false, &part_ids));
    if (graph.directed()) SG_RETURN_IF_ERROR(write_part(k, true, &reverse_ids));
  }
  SG_RETURN_IF_ERROR(graph.scan_degree_file(SpaceKind::kOut));  // whole before it is copied
  SG_RETURN_IF_ERROR(copy_file_synced(graph.degree_path(SpaceKind::kOut), work + "/" + kOutDegreeFile));
  PartitionLayout layout;
  layout.num_vertices = graph.num_vertices();
  layout.num_edges = graph.manifest().num_edges;
  layout.out_degree_checksum = graph.space(SpaceKind::kOut).meta.degree_checksum;
  layout.ranges = ranges;
  layout.part_ids = part_ids;
  layout.reverse_ids = reverse_ids;
  layout.undirected = !graph.directed();
  SG_RETURN_IF_ERROR(write_partition_file(work, layout, graph.manifest().graph_id));
  SG_RETURN_IF_ERROR(fsync_directory(work));
  const fs::path target = fs::absolute(options.output).lexically_normal();
  if (::rename(work.c_str(), target.c_str()) != 0)
    return Status::IOError(options.output + ": rename into place: " + errno_text(errno));
  cleanup.kept = true;
  SG_RETURN_IF_ERROR(fsync_directory(target.parent_path().string()));
  summary->parts = ranges;
  summary->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return Status::OK();
}

Status verify_partition(const std::string& dir, uint64_t* arcs) {
  PartitionFile file;
  SG_RETURN_IF_ERROR(read_partition_file(dir, &file));
  *arcs = 0;
  uint64_t next = 0;
  for (size_t k = 0; k < file.ranges.size(); ++k) {
    const PartRange& range = file.ranges[k];
    const std::string name = dir + "/" + part_name(static_cast<uint32_t>(k));
    if (range.begin != next || range.end <= range.begin)
      return Status::Corruption(dir + ": the parts' ranges do not tile the vertices");
    next = range.end;
    SG_RETURN_IF_ERROR(verify_part(name, file.part_ids[k], file.num_vertices, range, range.arcs));
    if (!file.reverse_ids.empty()) {
      SG_RETURN_IF_ERROR(verify_part(reverse_part_dir(dir, static_cast<uint32_t>(k)), file.reverse_ids[k],
                                     file.num_vertices, range, range.out_arcs));
    }
    *arcs += range.arcs;
  }
  if (next != file.num_vertices) return Status::Corruption(dir + ": the parts' ranges do not tile the vertices");
  SG_RETURN_IF_ERROR(check_degree_file(dir + "/" + kOutDegreeFile, file.out_degree_checksum, file.num_vertices));
  if (*arcs != file.num_arcs)
    return Status::Corruption(dir + ": the parts hold " + std::to_string(*arcs) + " arcs, the graph " +
                              std::to_string(file.num_arcs));
  return Status::OK();
}

Status partition_info_text(const std::string& dir, std::string* text) {
  PartitionFile file;
  SG_RETURN_IF_ERROR(read_partition_file(dir, &file));
  char line[160];
  std::snprintf(line, sizeof(line), "partitioned %s graph: %zu parts, %llu vertices, %llu %s\n",
                file.undirected ? "undirected" : "directed", file.ranges.size(),
                static_cast<unsigned long long>(file.num_vertices), static_cast<unsigned long long>(file.num_edges),
                file.undirected ? "edges" : "arcs");
  *text = line;
  for (size_t k = 0; k < file.ranges.size(); ++k) {
    std::snprintf(line, sizeof(line), "%s: vertices [%u, %u), %llu arcs in, %llu out%s\n",
                  part_name(static_cast<uint32_t>(k)).c_str(), file.ranges[k].begin, file.ranges[k].end,
                  static_cast<unsigned long long>(file.ranges[k].arcs),
                  static_cast<unsigned long long>(file.ranges[k].out_arcs),
                  file.reverse_ids.empty() ? "" : " (reverse part)");
    text->append(line);
  }
  return Status::OK();
}

}  // namespace sg
