#include "shards/ingest/graph_files.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>

#include "base/file_util.h"

namespace sg {
namespace {

namespace fs = std::filesystem;

std::string random_graph_id() {
  std::random_device device;
  const uint64_t value = (uint64_t{device()} << 32) ^ device();
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

Status GraphFiles::prepare(const std::string& output_path, const std::vector<std::string>& devices) {
  const fs::path output = fs::absolute(output_path).lexically_normal();
  const fs::path parent = output.parent_path();
  std::error_code ec;
  if (!fs::is_directory(parent, ec))
    return Status::NotFound(parent.string() + ": output's parent directory does not exist");
  graph_id_ = random_graph_id();
  // Leftovers of killed ingests (their owner is gone) go first.
  LeftoverReport leftovers;
  SG_RETURN_IF_ERROR(remove_leftovers(parent.string(), &leftovers));
  for (const std::string& dir : devices) {
    if (fs::is_directory(dir, ec)) SG_RETURN_IF_ERROR(remove_leftovers(dir, &leftovers));
  }
  leftovers_ = leftovers;
  std::string temp_name = ".";
  temp_name.append(output.filename().string()).append(".ingest").append(owner_marker()).append(graph_id_);
  temp_dir_ = (parent / temp_name).string();
  if (!fs::create_directory(temp_dir_, ec)) return Status::IOError(temp_dir_ + ": cannot create: " + ec.message());
  if (devices.empty()) {
    device_dirs_ = {"."};
    return Status::OK();
  }
  for (const std::string& dir : devices) {
    if (!fs::is_directory(dir, ec)) return Status::NotFound(dir + ": device directory does not exist");
    const std::string canonical = fs::canonical(dir, ec).string();
    if (std::find(device_dirs_.begin(), device_dirs_.end(), canonical) != device_dirs_.end()) {
      return Status::InvalidArgument(dir + ": device directory given twice");
    }
    if (::access(canonical.c_str(), W_OK) != 0) return Status::IOError(dir + ": device directory is not writable");
    device_dirs_.push_back(canonical);
  }
  return Status::OK();
}

// A block's device files (temporary names) and metadata file names. A 1-D
// space is named for its kind; blocks add ".b<k>", and only the first
// holds the degrees.
void GraphFiles::name_space_files(size_t space, size_t block, const std::vector<uint32_t>& block_starts,
                                  uint64_t num_vertices, SpaceManifest* meta, std::vector<std::string>* paths) {
  const std::string kind = space == 0 ? "out" : "in";
  const std::string name = block_starts.size() == 1 ? kind : kind + ".b" + std::to_string(block);
  meta->name = name;
  meta->kind = kind;
  meta->neighbour_begin = block_starts[block];
  meta->neighbour_end = block + 1 < block_starts.size() ? block_starts[block + 1] : num_vertices;
  for (size_t d = 0; d < device_dirs_.size(); ++d) {
    const std::string file = device_dirs_[d] == "." ? name + ".d" + std::to_string(d)
                                                    : "sg-" + graph_id_ + "-" + name + ".d" + std::to_string(d);
    meta->device_files.push_back(file);
    paths->push_back(device_dirs_[d] == "." ? temp_dir_ + "/" + file : device_temp_path(d, file));
    if (device_dirs_[d] != ".") created_files_.push_back(paths->back());
  }
  meta->index_file = name + ".index";
  meta->degree_file = block == 0 ? kind + ".degrees" : "";
}

Status GraphFiles::commit(const Manifest& manifest, const std::vector<std::pair<std::string, std::string>>& files,
                          const std::string& output_path) {
  // Device files first (under their final names), then the manifest, then
  // the directory rename that makes the graph visible.
  // A work graph syncs nothing: any fsync commits the file system's journal,
  // which waits for every file's data in flight, the graph's own included.
  const bool work = file_sync_ == FileSync::kNever;
  const FileSync small_files = work ? FileSync::kNever : FileSync::kNow;
  if (file_sync_ == FileSync::kAtCommit) SG_RETURN_IF_ERROR(sync_written_files(manifest));
  for (const SpaceManifest& space : manifest.spaces) {
    for (size_t d = 0; d < device_dirs_.size(); ++d) {
      if (device_dirs_[d] == ".") continue;
      const std::string temp = device_temp_path(d, space.device_files[d]);
      const std::string final_path = device_dirs_[d] + "/" + space.device_files[d];
      if (::rename(temp.c_str(), final_path.c_str()) != 0) {
        return Status::IOError(final_path + ": rename: " + errno_text(errno));
      }
      created_files_.push_back(final_path);
    }
  }
  for (const std::string& dir : device_dirs_) {
    if (dir != "." && !work) SG_RETURN_IF_ERROR(fsync_directory(dir));
  }
  for (const auto& [name, contents] : files) {
    SG_RETURN_IF_ERROR(write_file_atomic(temp_dir_ + "/" + name, contents.data(), contents.size(), small_files));
  }
  const std::string json = manifest.to_json();
  SG_RETURN_IF_ERROR(write_file_atomic(temp_dir_ + "/manifest.json", json.data(), json.size(), small_files));
  if (!work) SG_RETURN_IF_ERROR(fsync_directory(temp_dir_));
  const fs::path output = fs::absolute(output_path).lexically_normal();
  if (::rename(temp_dir_.c_str(), output.c_str()) != 0) {
    return Status::IOError(output.string() + ": rename into place: " + errno_text(errno));
  }
  committed_ = true;
  return work ? Status::OK() : fsync_directory(output.parent_path().string());
}

// The writers started each file's writeback as they finished it (the next
// phase hid the wait: R-MAT 22's id map took 0.23 s to sync on one
// emulated HDD); these syncs mostly find the pages written.
Status GraphFiles::sync_written_files(const Manifest& manifest) const {
  for (const SpaceManifest& space : manifest.spaces) {
    for (size_t d = 0; d < device_dirs_.size() && d < space.device_files.size(); ++d) {
      if (device_dirs_[d] != ".") SG_RETURN_IF_ERROR(sync_file_at(device_temp_path(d, space.device_files[d])));
    }
  }
  return sync_files_in(temp_dir_);
}

void GraphFiles::cleanup() {
  if (committed_) return;
  for (const std::string& path : created_files_) ::unlink(path.c_str());
  std::error_code ec;
  if (!temp_dir_.empty()) fs::remove_all(temp_dir_, ec);
}

}  // namespace sg
