#include "shards/format/restripe.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "base/aligned_buffer.h"
#include "base/interrupt.h"
#include "shards/format/graph.h"
#include "shards/format/striped_writer.h"

namespace sg {
namespace {

namespace fs = std::filesystem;

std::string layout_token() {
  std::random_device device;
  char text[9];
  std::snprintf(text, sizeof(text), "%08x", device());
  return text;
}

Status check_devices(const std::vector<std::string>& dirs, std::vector<std::string>* canonical) {
  std::error_code ec;
  for (const std::string& dir : dirs) {
    if (!fs::is_directory(dir, ec)) return Status::NotFound(dir + ": device directory does not exist");
    const std::string path = fs::canonical(dir, ec).string();
    if (std::find(canonical->begin(), canonical->end(), path) != canonical->end()) {
      return Status::InvalidArgument(dir + ": device directory given twice");
    }
    if (::access(path.c_str(), W_OK) != 0) return Status::IOError(dir + ": device directory is not writable");
    canonical->push_back(path);
  }
  if (canonical->empty()) canonical->push_back(".");
  return Status::OK();
}

// Copies one space from its current layout into `writer`.
Status copy_space(const Graph& graph, const EdgeSpace& space, uint64_t block_bytes, StripedWriter* writer) {
  AlignedBuffer block(block_bytes);
  const StripeLayout old_layout = graph.layout();
  for (uint64_t at = 0; at < space.meta.logical_bytes; at += block_bytes) {
    if (interrupt_requested()) return Status::Interrupted("restripe stopped by a signal");
    const uint64_t bytes = std::min(block_bytes, space.meta.logical_bytes - at);
    Status status;
    old_layout.split(at, bytes, [&](const StripePiece& piece) {
      if (status.ok()) {
        status = space.device_files[piece.device].pread_all(block.data() + (piece.logical_offset - at), piece.bytes,
                                                            piece.device_offset);
      }
    });
    SG_RETURN_IF_ERROR(status);
    SG_RETURN_IF_ERROR(writer->append(block.data(), bytes));
  }
  return writer->finish();
}

}  // namespace

Status restripe_graph(const std::string& graph_dir, const RestripeOptions& options) {
  Graph graph;
  SG_RETURN_IF_ERROR(Graph::open(graph_dir, &graph));
  Manifest manifest = graph.manifest();
  std::vector<std::string> devices;
  SG_RETURN_IF_ERROR(check_devices(options.devices, &devices));
  uint64_t largest_space = 0;
  for (const SpaceManifest& space : manifest.spaces) largest_space = std::max(largest_space, space.logical_bytes);
  const uint64_t stripe = options.auto_stripe         ? choose_stripe_bytes(largest_space, devices.size())
                          : options.stripe_bytes != 0 ? options.stripe_bytes
                                                      : manifest.stripe_bytes;
  if (stripe < 4096 || stripe % 4096 != 0)
    return Status::InvalidArgument("--stripe-bytes must be a positive multiple of 4096");
  const std::string token = layout_token();
  const StripeLayout layout(stripe, static_cast<uint32_t>(devices.size()));

  std::vector<std::string> written;  // temporary, then final, names: removed on failure
  auto device_dir = [&](size_t d) { return devices[d] == "." ? graph_dir : devices[d]; };
  Status status;
  std::vector<SpaceManifest> spaces = manifest.spaces;
  std::vector<std::vector<std::string>> temp_paths(spaces.size());
  for (size_t s = 0; s < spaces.size() && status.ok(); ++s) {
    SpaceManifest& meta = spaces[s];
    meta.device_files.clear();
    meta.device_bytes.clear();
    for (size_t d = 0; d < devices.size(); ++d) {
      meta.device_files.push_back("sg-" + manifest.graph_id + "-" + token + "-" + meta.name + ".d" + std::to_string(d));
      temp_paths[s].push_back(device_dir(d) + "/." + meta.device_files.back() + ".tmp");
      written.push_back(temp_paths[s].back());
    }
    StripedWriter writer;
    status = writer.open(temp_paths[s], layout, 1 << 20);
    if (status.ok()) status = copy_space(graph, graph.stored_space(s), options.block_bytes, &writer);
    for (uint32_t d = 0; d < devices.size(); ++d) meta.device_bytes.push_back(writer.device_bytes(d));
  }
  // Final names, then the manifest (the commit point).
  for (size_t s = 0; s < spaces.size() && status.ok(); ++s) {
    for (size_t d = 0; d < devices.size() && status.ok(); ++d) {
      const std::string final_path = device_dir(d) + "/" + spaces[s].device_files[d];
      if (::rename(temp_paths[s][d].c_str(), final_path.c_str()) != 0) {
        status = Status::IOError(final_path + ": rename: " + errno_text(errno));
      } else {
        written.push_back(final_path);
      }
    }
  }
  for (size_t d = 0; d < devices.size() && status.ok(); ++d) status = fsync_directory(device_dir(d));
  if (status.ok()) {
    manifest.devices = devices;
    manifest.stripe_bytes = stripe;
    manifest.spaces = spaces;
    const std::string json = manifest.to_json();
    status = write_file_atomic(graph_dir + "/manifest.json", json.data(), json.size());
  }
  if (!status.ok()) {
    for (const std::string& path : written) ::unlink(path.c_str());
    return status;
  }
  // Committed: the old files are no longer part of the graph.
  for (size_t s = 0; s < graph.stored_space_count(); ++s) {
    for (const std::string& path : graph.stored_space(s).device_paths) ::unlink(path.c_str());
  }
  return Status::OK();
}

}  // namespace sg
