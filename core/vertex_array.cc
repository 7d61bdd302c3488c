#include "core/vertex_array.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sg {

RawVertexArray& RawVertexArray::operator=(RawVertexArray&& other) noexcept {
  if (this != &other) {
    release();
    data_ = other.data_;
    bytes_ = other.bytes_;
    path_ = std::move(other.path_);
    other.data_ = nullptr;
    other.bytes_ = 0;
    other.path_.clear();
  }
  return *this;
}

RawVertexArray::~RawVertexArray() { release(); }

void RawVertexArray::release() {
  if (data_ != nullptr) ::munmap(data_, bytes_ == 0 ? 1 : bytes_);
  data_ = nullptr;
  path_.clear();
}

namespace {

// A scratch file with no name, so it never outlives the process (even one
// killed with SIGKILL): O_TMPFILE, or a named file unlinked at once where
// the file system has no O_TMPFILE.
int open_unnamed(const std::string& scratch_path, int* err) {
  const size_t slash = scratch_path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : scratch_path.substr(0, slash);
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  fd = ::open(scratch_path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  *err = errno;
  if (fd >= 0) ::unlink(scratch_path.c_str());
  return fd;
}

}  // namespace

Status RawVertexArray::allocate(size_t bytes, const std::string& scratch_path) {
  release();
  bytes_ = bytes;
  const size_t map_bytes = bytes == 0 ? 1 : bytes;
  if (scratch_path.empty()) {
    void* p = ::mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return Status::IOError("cannot allocate " + std::to_string(bytes) + " bytes: " + std::strerror(errno));
    data_ = p;
    return Status::OK();
  }
  int open_err = 0;
  const int fd = open_unnamed(scratch_path, &open_err);
  if (fd < 0) return Status::IOError(scratch_path + ": cannot create a scratch file: " + std::strerror(open_err));
  path_ = scratch_path;
  if (::ftruncate(fd, static_cast<off_t>(map_bytes)) != 0) {
    const int err = errno;
    ::close(fd);
    return Status::IOError(scratch_path + ": cannot size scratch file: " + std::strerror(err));
  }
  void* p = ::mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int err = errno;
  ::close(fd);
  if (p == MAP_FAILED) return Status::IOError(scratch_path + ": mmap: " + std::strerror(err));
  data_ = p;
  return Status::OK();
}

}  // namespace sg
