// Small POSIX file helpers that report failures as Status with the path.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace sg {

// How a writer leaves a file it finished: synced before it returns; or
// its writeback started without waiting, for a commit to sync
// (sync_file_at) once the next phase has hidden the wait, or never synced
// (a work file: whoever keeps it syncs it).
enum class FileSync { kNow, kAtCommit, kNever };

// Owns a file descriptor.
class File {
 public:
  File() = default;
  explicit File(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  File(File&& other) noexcept { *this = std::move(other); }
  File& operator=(File&& other) noexcept;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File();

  static Status open_read(const std::string& path, File* file, bool direct = false);
  static Status create(const std::string& path, File* file);  // truncates
  // A scratch file with no name in `near_path`'s directory, so it never
  // outlives the process (even one killed with SIGKILL): O_TMPFILE, or a
  // file named `near_path` unlinked at once where the file system has none.
  // `direct`: O_DIRECT where the file system has it; *direct says if it took.
  static Status create_unnamed(const std::string& near_path, File* file, bool* direct);

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  bool is_open() const { return fd_ >= 0; }

  Status pwrite_all(const void* data, size_t bytes, uint64_t offset) const;
  Status pread_all(void* data, size_t bytes, uint64_t offset) const;
  Status sync() const;
  // Starts writing the file's dirty pages back without waiting for them
  // (sync_file_range WRITE): a later fsync then finds them written. Advice
  // only: the fsync reports any error.
  void start_writeback() const;
  // sync() for FileSync::kNow, else start_writeback().
  Status finish_writes(FileSync mode) const;
  // Frees the whole pages of [offset, offset + bytes): reads there return
  // zeros. Best effort (a file system without hole punching keeps them);
  // true when the pages were freed.
  bool punch_hole(uint64_t offset, uint64_t bytes) const;
  // Asks the kernel to read [offset, offset + bytes) into the page cache in
  // the background (posix_fadvise WILLNEED). Best effort.
  void prefetch(uint64_t offset, uint64_t bytes) const;
  // Drops the clean cached pages of [offset, offset + bytes) (posix_fadvise
  // DONTNEED): a one-pass read then leaves the page cache to others. Best
  // effort.
  void drop_cached(uint64_t offset, uint64_t bytes) const;
  // Reads take only the pages they ask for: no read-ahead past them
  // (posix_fadvise RANDOM; prefetch still reads ahead). Best effort.
  void advise_random() const;
  Status size(uint64_t* bytes) const;
  Status close();

 private:
  int fd_ = -1;
  std::string path_;
};

Status read_whole_file(const std::string& path, std::string* contents);
// Writes `bytes` as a new file `path`, synced (its directory is not), or
// left as `sync` says (finish_writes).
Status write_whole_file(const std::string& path, const void* data, size_t bytes, FileSync sync = FileSync::kNow);
// Writes `contents` to `path` via a temporary file, fsync and rename (and
// the directory synced); with FileSync other than kNow, neither sync, the
// file's writeback started (finish_writes).
Status write_file_atomic(const std::string& path, const void* data, size_t bytes, FileSync sync = FileSync::kNow);
Status fsync_directory(const std::string& dir);
// Syncs the file at `path` (written through another descriptor, maybe
// closed: fsync covers the file's pages whichever descriptor wrote them).
Status sync_file_at(const std::string& path);
// sync_file_at for every regular file directly in `dir`.
Status sync_files_in(const std::string& dir);
// Copies `from` to a new file `to` and syncs it.
Status copy_file_synced(const std::string& from, const std::string& to);
std::string errno_text(int err);

// Where a run's scratch files go by default: the graph directory when it is
// writable, else $TMPDIR or /tmp (a read-only graph still runs).
std::string default_scratch_dir(const std::string& graph_dir);
// The descriptor behind File::create_unnamed (-1 and *err on failure).
int open_unnamed(const std::string& near_path, int extra_flags, int* err);
// Turns on O_DIRECT for `fd`; false (and nothing changed) where the file
// system has none.
bool set_direct(int fd);
// Of a short transfer of `moved` bytes at `offset` on `fd`, what can be
// kept: on an O_DIRECT file the next transfer must start at a block
// boundary, so a transfer stopping mid-block keeps only its whole blocks
// (possibly none: the caller transfers the rest again). Only injected
// faults and the end of the file stop O_DIRECT transfers mid-block.
size_t kept_of_short(int fd, uint64_t offset, size_t moved);
// nlohmann::json's exception text without its "[json.exception.…] " tag.
std::string json_error_text(const char* what);

}  // namespace sg
