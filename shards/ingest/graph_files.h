// A graph being written by ingest: a temporary directory beside the output
// (".NAME.ingest<owner><id>", leftovers.h), device files under temporary
// names in each device directory, and the commit that renames them into
// place, writes the manifest last and renames the directory into place;
// or, on any failure before that, the cleanup that removes all of it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/file_util.h"
#include "base/status.h"
#include "shards/format/manifest.h"
#include "shards/ingest/leftovers.h"

namespace sg {

class GraphFiles {
 public:
  GraphFiles() = default;
  GraphFiles(const GraphFiles&) = delete;
  GraphFiles& operator=(const GraphFiles&) = delete;
  ~GraphFiles() { cleanup(); }

  // Removes leftovers of killed ingests (their owner is gone) beside the
  // output and in the device directories, then creates the temporary
  // directory. No `devices`: the graph directory is the one device (".").
  Status prepare(const std::string& output, const std::vector<std::string>& devices);
  // A block's device files (temporary names: `paths`) and its metadata's
  // file names. A 1-D space is named for its kind; blocks add ".b<k>", and
  // only the first holds the degrees.
  void name_space_files(size_t space, size_t block, const std::vector<uint32_t>& block_starts, uint64_t num_vertices,
                        SpaceManifest* meta, std::vector<std::string>* paths);
  // How the writers leave the files (base/file_util.h): with kAtCommit the
  // commit syncs every one of them first; with kNever nothing does (a work
  // graph: sync_graph before it is kept).
  void set_file_sync(FileSync sync) { file_sync_ = sync; }
  // Device files under their final names, `files` (name, contents) and the
  // manifest into the temporary directory, synced, then the directory
  // renamed to `output`.
  Status commit(const Manifest& manifest, const std::vector<std::pair<std::string, std::string>>& files,
                const std::string& output);
  // Everything written, unless committed.
  void cleanup();

  const std::string& temp_dir() const { return temp_dir_; }
  const std::string& graph_id() const { return graph_id_; }
  const std::vector<std::string>& device_dirs() const { return device_dirs_; }  // canonical; "." = graph directory
  const LeftoverReport& leftovers() const { return leftovers_; }

 private:
  std::string device_temp_path(size_t device, const std::string& file) const {
    return device_dirs_[device] + "/." + file + owner_marker() + ".tmp";
  }
  Status sync_written_files(const Manifest& manifest) const;

  std::string graph_id_;
  std::string temp_dir_;
  bool committed_ = false;
  FileSync file_sync_ = FileSync::kNow;
  std::vector<std::string> device_dirs_;
  std::vector<std::string> created_files_;  // outside temp_dir_, removed on failure
  LeftoverReport leftovers_;                // removed at the start
};

}  // namespace sg
