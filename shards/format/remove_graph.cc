#include "shards/format/remove_graph.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>

#include "base/file_util.h"
#include "shards/format/manifest.h"

namespace sg {
namespace {

namespace fs = std::filesystem;

uint64_t tree_bytes(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    const uintmax_t size = fs::file_size(path, ec);
    return ec ? 0 : size;
  }
  uint64_t bytes = 0;
  for (const auto& entry : fs::recursive_directory_iterator(path, ec)) {
    if (entry.is_regular_file(ec)) bytes += entry.file_size(ec);
  }
  return bytes;
}

}  // namespace

void remove_graph(const std::string& dir, uint64_t* bytes_freed) {
  uint64_t bytes = tree_bytes(dir);
  std::error_code ec;
  std::string text;
  Manifest manifest;
  if (read_whole_file(dir + "/manifest.json", &text).ok() && Manifest::parse(text, dir, &manifest).ok()) {
    for (const SpaceManifest& space : manifest.spaces) {
      for (size_t d = 0; d < manifest.devices.size() && d < space.device_files.size(); ++d) {
        if (manifest.devices[d] == ".") continue;
        const fs::path file = fs::path(manifest.devices[d]) / space.device_files[d];
        bytes += tree_bytes(file);
        fs::remove(file, ec);
      }
    }
  }
  fs::remove_all(dir, ec);
  if (bytes_freed != nullptr) *bytes_freed += bytes;
}

std::string generation_lock_name(const Manifest& manifest) {
  return manifest.spaces.empty() ? "manifest.json" : manifest.spaces.front().index_file;
}

bool try_exclusive_lock(const std::string& path, int* fd) {
  *fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (*fd < 0 || ::flock(*fd, LOCK_EX | LOCK_NB) == 0) return true;
  ::close(*fd);
  *fd = -1;
  return false;
}

bool remove_graph_unless_held(const std::string& dir, uint64_t* bytes_freed) {
  std::string text;
  Manifest manifest;
  int fd = -1;
  if (read_whole_file(dir + "/manifest.json", &text).ok() && Manifest::parse(text, dir, &manifest).ok() &&
      !try_exclusive_lock(dir + "/" + generation_lock_name(manifest), &fd)) {
    return false;  // a run reads it
  }
  remove_graph(dir, bytes_freed);
  if (fd >= 0) ::close(fd);
  return true;
}

}  // namespace sg
