#include "base/file_util.h"

#include "base/fault_injection.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace sg {

std::string json_error_text(const char* what) {
  std::string text(what);
  if (text.starts_with("[json.exception.")) {
    const size_t end = text.find("] ");
    if (end != std::string::npos) text = text.substr(end + 2);
  }
  return text;
}

std::string default_scratch_dir(const std::string& graph_dir) {
  if (::access(graph_dir.c_str(), W_OK) == 0) return graph_dir;
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != 0 ? tmp : "/tmp";
}

std::string errno_text(int err) { return std::strerror(err); }

File& File::operator=(File&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

File::~File() {
  if (fd_ >= 0) ::close(fd_);
}

Status File::open_read(const std::string& path, File* file, bool direct) {
  int flags = O_RDONLY | O_CLOEXEC;
  if (direct) flags |= O_DIRECT;
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return Status::NotFound(path + ": " + errno_text(err));
    return Status::IOError(path + ": open: " + errno_text(err));
  }
  *file = File(fd, path);
  return Status::OK();
}

Status File::create(const std::string& path, File* file) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError(path + ": create: " + errno_text(errno));
  *file = File(fd, path);
  return Status::OK();
}

int open_unnamed(const std::string& near_path, int extra_flags, int* err) {
  const size_t slash = near_path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : near_path.substr(0, slash);
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC | extra_flags, 0600);
  if (fd >= 0) return fd;
  fd = ::open(near_path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | extra_flags, 0600);
  *err = errno;
  if (fd >= 0) ::unlink(near_path.c_str());
  return fd;
}

Status File::create_unnamed(const std::string& near_path, File* file, bool* direct) {
  int err = 0;
  const int fd = open_unnamed(near_path, 0, &err);
  if (fd < 0) return Status::IOError(near_path + ": cannot create a scratch file: " + errno_text(err));
  *file = File(fd, near_path);
  // O_DIRECT afterwards: an open asking for it where the file system has
  // none (e.g. older tmpfs) fails only after creating a named file.
  if (*direct) *direct = set_direct(fd);
  return Status::OK();
}

bool set_direct(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  return flags >= 0 && ::fcntl(fd, F_SETFL, flags | O_DIRECT) == 0;
}

namespace {

constexpr uint64_t kDirectBlockBytes = 4096;
constexpr int kPartialRetries = 16;  // short transfers of less than a block in a row

}  // namespace

size_t kept_of_short(int fd, uint64_t offset, size_t moved) {
  if ((offset + moved) % kDirectBlockBytes == 0) return moved;
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || (flags & O_DIRECT) == 0) return moved;
  const uint64_t boundary = (offset + moved) / kDirectBlockBytes * kDirectBlockBytes;
  return boundary > offset ? static_cast<size_t>(boundary - offset) : 0;
}

Status File::pwrite_all(const void* data, size_t bytes, uint64_t offset) const {
  const char* p = static_cast<const char*>(data);
  int partial_retries = 0;
  while (bytes > 0) {
    const ssize_t n = apply_fault(next_write_fault(), ::pwrite(fd_, p, bytes, static_cast<off_t>(offset)));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IOError(path_ + ": write at offset " + std::to_string(offset) + ": " + errno_text(errno));
    }
    const size_t kept = static_cast<size_t>(n) == bytes ? bytes : kept_of_short(fd_, offset, static_cast<size_t>(n));
    if (kept == 0 && ++partial_retries > kPartialRetries) {
      return Status::IOError(path_ + ": write at offset " + std::to_string(offset) + " keeps stopping short");
    }
    if (kept > 0) partial_retries = 0;
    p += kept;
    bytes -= kept;
    offset += kept;
  }
  return Status::OK();
}

Status File::pread_all(void* data, size_t bytes, uint64_t offset) const {
  char* p = static_cast<char*>(data);
  int partial_retries = 0;
  while (bytes > 0) {
    const ssize_t n = apply_fault(next_read_fault(), ::pread(fd_, p, bytes, static_cast<off_t>(offset)));
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return Status::IOError(path_ + ": read at offset " + std::to_string(offset) + ": " + errno_text(errno));
    }
    if (n == 0) {
      return Status::Corruption(path_ + ": file ends before offset " + std::to_string(offset + bytes));
    }
    const size_t kept = static_cast<size_t>(n) == bytes ? bytes : kept_of_short(fd_, offset, static_cast<size_t>(n));
    if (kept == 0 && ++partial_retries > kPartialRetries) {
      return Status::Corruption(path_ + ": file ends before offset " + std::to_string(offset + bytes) + " (mid-block)");
    }
    if (kept > 0) partial_retries = 0;
    p += kept;
    bytes -= kept;
    offset += kept;
  }
  return Status::OK();
}

Status File::sync() const {
  if (::fsync(fd_) != 0) return Status::IOError(path_ + ": fsync: " + errno_text(errno));
  return Status::OK();
}

void File::start_writeback() const { (void)::sync_file_range(fd_, 0, 0, SYNC_FILE_RANGE_WRITE); }

Status File::finish_writes(FileSync mode) const {
  if (mode == FileSync::kNow) return sync();
  start_writeback();
  return Status::OK();
}

bool File::punch_hole(uint64_t offset, uint64_t bytes) const {
  constexpr uint64_t kPage = 4096;
  const uint64_t begin = (offset + kPage - 1) / kPage * kPage;
  const uint64_t end = (offset + bytes) / kPage * kPage;
  if (end <= begin) return false;
  return ::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(begin),
                     static_cast<off_t>(end - begin)) == 0;
}

void File::prefetch(uint64_t offset, uint64_t bytes) const {
  (void)::posix_fadvise(fd_, static_cast<off_t>(offset), static_cast<off_t>(bytes), POSIX_FADV_WILLNEED);
}

void File::drop_cached(uint64_t offset, uint64_t bytes) const {
  (void)::posix_fadvise(fd_, static_cast<off_t>(offset), static_cast<off_t>(bytes), POSIX_FADV_DONTNEED);
}

void File::advise_random() const { (void)::posix_fadvise(fd_, 0, 0, POSIX_FADV_RANDOM); }

Status File::size(uint64_t* bytes) const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return Status::IOError(path_ + ": stat: " + errno_text(errno));
  *bytes = static_cast<uint64_t>(st.st_size);
  return Status::OK();
}

Status File::close() {
  if (fd_ < 0) return Status::OK();
  const int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) return Status::IOError(path_ + ": close: " + errno_text(errno));
  return Status::OK();
}

Status read_whole_file(const std::string& path, std::string* contents) {
  File file;
  SG_RETURN_IF_ERROR(File::open_read(path, &file));
  uint64_t bytes = 0;
  SG_RETURN_IF_ERROR(file.size(&bytes));
  contents->resize(bytes);
  return file.pread_all(contents->data(), bytes, 0);
}

namespace {

// Opens `path` with `flags` and fsyncs it; `what` names it in errors.
Status open_and_sync(const std::string& path, int flags, const char* what) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return Status::IOError(path + ": open " + what + ": " + errno_text(errno));
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) return Status::IOError(path + ": fsync: " + errno_text(err));
  return Status::OK();
}

}  // namespace

Status fsync_directory(const std::string& dir) { return open_and_sync(dir, O_RDONLY | O_DIRECTORY, "directory"); }

Status sync_file_at(const std::string& path) { return open_and_sync(path, O_RDONLY, "to sync"); }

Status sync_files_in(const std::string& dir) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec)) SG_RETURN_IF_ERROR(sync_file_at(entry.path().string()));
  }
  if (ec) return Status::IOError(dir + ": list to sync: " + ec.message());
  return Status::OK();
}

Status write_whole_file(const std::string& path, const void* data, size_t bytes, FileSync sync) {
  File file;
  SG_RETURN_IF_ERROR(File::create(path, &file));
  if (bytes > 0) SG_RETURN_IF_ERROR(file.pwrite_all(data, bytes, 0));
  SG_RETURN_IF_ERROR(file.finish_writes(sync));
  return file.close();
}

Status write_file_atomic(const std::string& path, const void* data, size_t bytes, FileSync sync) {
  const std::string temp = path + ".tmp";
  {
    File file;
    SG_RETURN_IF_ERROR(File::create(temp, &file));
    Status s = file.pwrite_all(data, bytes, 0);
    if (s.ok()) s = file.finish_writes(sync);
    if (s.ok()) s = file.close();
    if (!s.ok()) {
      ::unlink(temp.c_str());
      return s;
    }
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temp.c_str());
    return Status::IOError(path + ": rename: " + errno_text(err));
  }
  if (sync != FileSync::kNow) return Status::OK();
  const size_t slash = path.find_last_of('/');
  return fsync_directory(slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash));
}

Status copy_file_synced(const std::string& from, const std::string& to) {
  std::error_code ec;
  if (!std::filesystem::copy_file(from, to, ec))
    return Status::IOError(to + ": copy from " + from + ": " + ec.message());
  File file;
  SG_RETURN_IF_ERROR(File::open_read(to, &file));
  return file.sync();
}

}  // namespace sg
