#include "shards/format/graph_deltas.h"

#include <cstring>

#include "base/file_util.h"
#include "compression/checksum.h"

namespace sg {
namespace {

// A failure to read `read_path` (the held directory's /proc path), named
// by the file's path.
Status named_by_path(const Status& s, const std::string& read_path, const std::string& path) {
  std::string message = s.message();
  if (const size_t at = message.find(read_path); at != std::string::npos) message.replace(at, read_path.size(), path);
  return Status::FromCode(s.code(), message);
}

// Checks a file's bytes against the manifest's size and checksum.
Status check_contents(const std::string& path, const void* data, uint64_t size, uint64_t bytes, uint64_t checksum) {
  if (size != bytes) {
    return Status::Corruption(path + ": " + std::to_string(size) + " bytes, the manifest says " +
                              std::to_string(bytes));
  }
  if (checksum64(data, size) != checksum) return Status::Corruption(path + ": checksum mismatch");
  return Status::OK();
}

// A file of the graph directory, whole, checked against its size and
// checksum; read through the generation the graph holds (Graph::path_of).
Status read_checked(const Graph& graph, const std::string& name, uint64_t bytes, uint64_t checksum,
                    std::string* contents) {
  const std::string read_path = graph.path_of(name);
  const Status s = read_whole_file(read_path, contents);
  if (!s.ok()) return named_by_path(s, read_path, graph.dir() + "/" + name);
  return check_contents(graph.dir() + "/" + name, contents->data(), contents->size(), bytes, checksum);
}

// The same, mapped.
Status map_checked(const Graph& graph, const std::string& name, uint64_t bytes, uint64_t checksum, RunBytes* contents) {
  const std::string read_path = graph.path_of(name);
  const Status s = RunBytes::map(read_path, contents);
  if (!s.ok()) return named_by_path(s, read_path, graph.dir() + "/" + name);
  return check_contents(graph.dir() + "/" + name, contents->data(), contents->size(), bytes, checksum);
}

}  // namespace

Status open_delta_run(RunBytes bytes, bool weighted, uint32_t num_vertices, const std::string& name,
                      std::unique_ptr<DeltaRun>* opened) {
  auto run = std::make_unique<DeltaRun>();
  run->bytes = std::move(bytes);
  const uint8_t* begin = run->bytes.data();
  const Status s = run->reader.open(begin, begin + run->bytes.size(), weighted, num_vertices);
  if (!s.ok()) return Status::Corruption(name + ": " + s.message());
  run->removals = run->reader.records();
  for (size_t b = 0; b < run->reader.blocks(); ++b) run->removals -= run->reader.block(b).adds;
  *opened = std::move(run);
  return Status::OK();
}

Status read_delta_run(const Graph& graph, const DeltaRunFile& file, uint32_t num_vertices,
                      std::unique_ptr<DeltaRun>* opened) {
  const std::string path = graph.dir() + "/" + file.file;
  RunBytes bytes;
  SG_RETURN_IF_ERROR(map_checked(graph, file.file, file.bytes, file.checksum, &bytes));
  SG_RETURN_IF_ERROR(open_delta_run(std::move(bytes), graph.weighted(), num_vertices, path, opened));
  if ((*opened)->reader.records() != file.records) return Status::Corruption(path + ": record count differs");
  return Status::OK();
}

Status write_delta_run(const std::string& dir, const std::string& name, const std::string& kind, std::string_view run,
                       uint64_t records, DeltaRunFile* file) {
  *file = DeltaRunFile{kind, name, run.size(), checksum64(run.data(), run.size()), records};
  return write_whole_file(dir + "/" + name, run.data(), run.size());
}

Status write_new_ids(const std::string& dir, uint64_t generation, const std::vector<uint64_t>& ids,
                     DeltaManifest* delta) {
  if (ids.empty()) return Status::OK();
  delta->new_ids_file = "delta-" + std::to_string(generation) + ".ids";
  delta->new_ids_checksum = checksum64(ids.data(), ids.size() * sizeof(uint64_t));
  return write_whole_file(dir + "/" + delta->new_ids_file, ids.data(), ids.size() * sizeof(uint64_t));
}

Status GraphDeltas::open(const Graph& graph, bool runs, const SpaceKind* kind) {
  const Manifest& m = graph.manifest();
  for (auto& kind_runs : runs_) kind_runs.clear();
  new_ids_.clear();
  uint64_t vertices = m.num_vertices;
  for (const DeltaManifest& d : m.deltas) {
    for (size_t r = 0; runs && r < d.runs.size(); ++r) {
      const size_t slot = d.runs[r].kind == "in" ? 1 : 0;
      if (kind != nullptr && slot != static_cast<size_t>(*kind)) continue;
      std::unique_ptr<DeltaRun> run;
      SG_RETURN_IF_ERROR(read_delta_run(graph, d.runs[r], static_cast<uint32_t>(m.vertices_after_deltas()), &run));
      run->generation = d.generation;
      run->tier = d.updates > 1;
      runs_[slot].push_back(std::move(run));
    }
    if (!d.new_ids_file.empty() && kind == nullptr) {  // a kind's runs are read without them
      std::string ids;
      const uint64_t added = d.num_vertices - vertices;
      SG_RETURN_IF_ERROR(read_checked(graph, d.new_ids_file, added * sizeof(uint64_t), d.new_ids_checksum, &ids));
      const size_t at = new_ids_.size();
      new_ids_.resize(at + added);
      if (added > 0) std::memcpy(new_ids_.data() + at, ids.data(), ids.size());
    }
    vertices = d.num_vertices;
  }
  return Status::OK();
}

uint64_t GraphDeltas::bytes() const {
  uint64_t bytes = new_ids_.size() * sizeof(uint64_t);
  for (const auto& runs : runs_) {
    for (const auto& run : runs) bytes += run->bytes.size();
  }
  return bytes;
}

Status GraphDeltas::check_blocks(uint64_t* records) const {
  std::vector<DeltaArc> arcs;
  for (const auto& runs : runs_) {
    for (const auto& run : runs) {
      for (size_t b = 0; b < run->reader.blocks(); ++b) {
        arcs.clear();
        SG_RETURN_IF_ERROR(run->reader.decode_block(b, &arcs));
        *records += arcs.size();
      }
    }
  }
  return Status::OK();
}

Status DeltaCursor::removes(uint32_t key, uint32_t neighbour, bool* removed) {
  const DeltaRunReader& reader = run_->reader;
  auto before = [&](const DeltaArc& a) { return a.key < key || (a.key == key && a.neighbour < neighbour); };
  for (;;) {
    while (at_ < arcs_.size() && before(arcs_[at_])) ++at_;
    if (at_ < arcs_.size() || next_block_ >= reader.blocks()) break;
    // The block holding the key's first records, or the next one.
    next_block_ = std::max(next_block_, reader.find_block(key));
    if (next_block_ >= reader.blocks()) break;
    arcs_.clear();
    at_ = 0;
    SG_RETURN_IF_ERROR(reader.decode_block(next_block_++, &arcs_));
  }
  // A removal sorts before the adds of its arc.
  *removed = at_ < arcs_.size() && arcs_[at_].key == key && arcs_[at_].neighbour == neighbour && arcs_[at_].removed;
  return Status::OK();
}

}  // namespace sg
