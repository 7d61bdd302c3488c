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
  if (!path_.empty()) ::unlink(path_.c_str());
  data_ = nullptr;
  path_.clear();
}

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
  const int fd = ::open(scratch_path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Status::IOError(scratch_path + ": " + std::strerror(errno));
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
