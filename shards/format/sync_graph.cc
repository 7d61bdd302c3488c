#include "shards/format/sync_graph.h"

#include <filesystem>
#include <set>

#include "base/file_util.h"
#include "shards/format/manifest.h"

namespace sg {

Status sync_graph(const std::string& dir) {
  namespace fs = std::filesystem;
  std::string text;
  SG_RETURN_IF_ERROR(read_whole_file(dir + "/manifest.json", &text));
  Manifest manifest;
  SG_RETURN_IF_ERROR(Manifest::parse(text, dir, &manifest));
  std::set<std::string> dirs = {dir};
  for (const SpaceManifest& space : manifest.spaces) {
    for (size_t d = 0; d < manifest.devices.size() && d < space.device_files.size(); ++d) {
      if (manifest.devices[d] == ".") continue;
      SG_RETURN_IF_ERROR(sync_file_at((fs::path(manifest.devices[d]) / space.device_files[d]).string()));
      dirs.insert(manifest.devices[d]);
    }
  }
  SG_RETURN_IF_ERROR(sync_files_in(dir));
  for (const std::string& d : dirs) SG_RETURN_IF_ERROR(fsync_directory(d));
  return Status::OK();
}

}  // namespace sg
