#include "shards/format/run_bytes.h"

#include <sys/mman.h>

#include <cerrno>

#include "base/file_util.h"

namespace sg {

// Mapped, then populated at once: a read error is then an error here,
// where a page faulted in later would end the process. A kernel without
// MADV_POPULATE_READ (before Linux 5.14) reads the file instead.
Status RunBytes::map(const std::string& path, RunBytes* bytes) {
  auto mapped = std::make_unique<MappedFile>();
  SG_RETURN_IF_ERROR(mapped->open(path));
  bytes->mapped_.reset();
  bytes->owned_.clear();
  if (mapped->size() == 0) return Status::OK();
  if (::madvise(const_cast<uint8_t*>(mapped->data()), mapped->size(), MADV_POPULATE_READ) == 0) {
    bytes->mapped_ = std::move(mapped);
    return Status::OK();
  }
  if (errno != EINVAL) return Status::IOError(path + ": read: " + errno_text(errno));
  return read_whole_file(path, &bytes->owned_);
}

}  // namespace sg
