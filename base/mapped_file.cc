#include "base/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/file_util.h"

namespace sg {

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(data_, size_);
  if (fd_ >= 0) ::close(fd_);
}

Status MappedFile::open(const std::string& path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return Status::NoInput(path + ": cannot open: " + errno_text(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return Status::IOError(path + ": stat: " + errno_text(errno));
  size_ = static_cast<uint64_t>(st.st_size);
  if (size_ == 0) return Status::OK();
  void* data = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
  if (data == MAP_FAILED) return Status::IOError(path + ": mmap: " + errno_text(errno));
  data_ = static_cast<uint8_t*>(data);
  ::madvise(data_, size_, MADV_SEQUENTIAL);
  return Status::OK();
}

void MappedFile::release_all() {
  if (data_ != nullptr && size_ > 0) ::madvise(data_, size_, MADV_DONTNEED);
}

void MappedFile::release_before(uint64_t end) {
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t cut = std::min<uint64_t>(end, size_) / page * page;
  if (data_ != nullptr && cut > released_) {
    ::madvise(data_ + released_, cut - released_, MADV_DONTNEED);
    released_ = cut;
  }
}

}  // namespace sg
