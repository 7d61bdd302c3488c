#include "core/vertex_array.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>

#include "base/fault_injection.h"
#include "base/file_util.h"
#include "base/huge_pages.h"
#include "base/interrupt.h"

namespace sg {
namespace {

constexpr uint64_t kPageBytes = 4096;
constexpr uint64_t kTransferBytes = uint64_t{8} << 20;  // per pread/pwrite: an interrupt is seen between them
constexpr int kPartialRetries = 16;                     // transfers of less than a block in a row

uint64_t round_up(uint64_t x, uint64_t unit) { return (x + unit - 1) / unit * unit; }

}  // namespace

RawVertexArray& RawVertexArray::operator=(RawVertexArray&& other) noexcept {
  if (this != &other) {
    release();
    kind_ = other.kind_;
    data_ = other.data_;
    bytes_ = other.bytes_;
    reserved_bytes_ = other.reserved_bytes_;
    path_ = std::move(other.path_);
    fd_ = other.fd_;
    read_only_ = other.read_only_;
    file_zero_ = other.file_zero_;
    slab_bytes_ = other.slab_bytes_;
    loaded_ = std::move(other.loaded_);
    dirty_ = std::move(other.dirty_);
    loaded_slabs_ = other.loaded_slabs_;
    bytes_loaded_ = other.bytes_loaded_;
    bytes_written_ = other.bytes_written_;
    owner_ = other.owner_;
    other.kind_ = Kind::kNone;
    other.data_ = nullptr;
    other.fd_ = -1;
    other.owner_ = nullptr;
    other.release();
    if (owner_ != nullptr) owner_->moved(&other, this);
  }
  return *this;
}

RawVertexArray::~RawVertexArray() { release(); }

void RawVertexArray::release() {
  if (owner_ != nullptr) owner_->forget(this);
  owner_ = nullptr;
  if (data_ != nullptr && kind_ != Kind::kExternal) ::munmap(data_, reserved_bytes_);
  if (fd_ >= 0) ::close(fd_);
  kind_ = Kind::kNone;
  data_ = nullptr;
  bytes_ = reserved_bytes_ = 0;
  fd_ = -1;
  path_.clear();
  loaded_.clear();
  dirty_.clear();
  loaded_slabs_ = 0;
  read_only_ = file_zero_ = false;
}

Status RawVertexArray::allocate(size_t bytes, const std::string& scratch_path) {
  release();
  bytes_ = bytes;
  reserved_bytes_ = bytes == 0 ? 1 : bytes;
  if (scratch_path.empty()) {
    void* p = ::mmap(nullptr, reserved_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return Status::IOError("cannot allocate " + std::to_string(bytes) + " bytes: " + std::strerror(errno));
    advise_huge_pages(p, reserved_bytes_);  // vertex arrays are read and written at random
    data_ = p;
    kind_ = Kind::kMemory;
    return Status::OK();
  }
  int open_err = 0;
  fd_ = open_unnamed(scratch_path, 0, &open_err);
  if (fd_ < 0) return Status::IOError(scratch_path + ": cannot create a scratch file: " + std::strerror(open_err));
  path_ = scratch_path;
  if (::ftruncate(fd_, static_cast<off_t>(reserved_bytes_)) != 0) {
    return Status::IOError(scratch_path + ": cannot size scratch file: " + std::strerror(errno));
  }
  void* p = ::mmap(nullptr, reserved_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) return Status::IOError(scratch_path + ": mmap: " + std::strerror(errno));
  ::close(fd_);
  fd_ = -1;
  data_ = p;
  kind_ = Kind::kFile;
  return Status::OK();
}

void RawVertexArray::adopt(const void* data, size_t bytes) {
  release();
  data_ = const_cast<void*>(data);  // never written through: views are read only
  bytes_ = reserved_bytes_ = bytes;
  kind_ = Kind::kExternal;
}

// Address space for every slab, no memory: PROT_NONE until loaded.
Status RawVertexArray::reserve(size_t count, size_t value_bytes) {
  assert(value_bytes >= 4 && (kSlabValues * value_bytes) % kPageBytes == 0);
  slab_bytes_ = kSlabValues * value_bytes;
  bytes_ = count * value_bytes;
  const uint64_t slabs = std::max<uint64_t>(1, (count + kSlabValues - 1) / kSlabValues);
  reserved_bytes_ = slabs * slab_bytes_;
  void* p = ::mmap(nullptr, reserved_bytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return Status::IOError("cannot reserve " + std::to_string(reserved_bytes_) + " bytes: " + std::strerror(errno));
  data_ = p;
  loaded_.assign(slabs, 0);
  dirty_.assign(slabs, 0);
  kind_ = Kind::kRanged;
  return Status::OK();
}

Status RawVertexArray::allocate_ranged(size_t count, size_t value_bytes, const std::string& scratch_path) {
  release();
  SG_RETURN_IF_ERROR(reserve(count, value_bytes));
  int open_err = 0;
  fd_ = open_unnamed(scratch_path, 0, &open_err);
  if (fd_ >= 0) set_direct(fd_);  // where the file system has it (not e.g. older tmpfs)
  if (fd_ < 0) return Status::IOError(scratch_path + ": cannot create a scratch file: " + std::strerror(open_err));
  path_ = scratch_path;
  if (::ftruncate(fd_, static_cast<off_t>(reserved_bytes_)) != 0) {
    return Status::IOError(scratch_path + ": cannot size scratch file: " + std::strerror(errno));
  }
  file_zero_ = true;
  return Status::OK();
}

Status RawVertexArray::open_ranged(const std::string& path, size_t count, size_t value_bytes, bool direct) {
  release();
  SG_RETURN_IF_ERROR(reserve(count, value_bytes));
  fd_ = direct ? ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT) : -1;
  if (fd_ < 0) fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return Status::IOError(path + ": " + std::strerror(errno));
  path_ = path;
  read_only_ = true;
  file_zero_ = false;
  return Status::OK();
}

// Reads (or writes back) slabs [first, end) in pieces of kTransferBytes. A
// read may end early at the end of a read-only file (its last slab is
// partial): the rest of the page range stays zero.
Status RawVertexArray::transfer(bool write, uint64_t first_slab, uint64_t end_slab) {
  uint8_t* base = static_cast<uint8_t*>(data_);
  uint64_t offset = first_slab * slab_bytes_;
  const uint64_t end = end_slab * slab_bytes_;
  int partial_retries = 0;
  while (offset < end) {
    if (interrupt_requested()) return Status::Interrupted("run stopped by a signal");
    const size_t piece = static_cast<size_t>(std::min(kTransferBytes, end - offset));
    const ssize_t done = apply_fault(write ? next_write_fault() : next_read_fault(),
                                     write ? ::pwrite(fd_, base + offset, piece, static_cast<off_t>(offset))
                                           : ::pread(fd_, base + offset, piece, static_cast<off_t>(offset)));
    if (done < 0 && errno == EINTR) continue;
    if (done < 0) {
      return Status::IOError(path_ + ": cannot " + (write ? "write back" : "load") +
                             " vertex values: " + std::strerror(errno));
    }
    if (done == 0) {
      if (write || !read_only_) return Status::IOError(path_ + ": vertex values end early (file truncated?)");
      break;  // the end of a read-only file
    }
    uint64_t moved = static_cast<uint64_t>(done);
    if (moved < piece && (offset + moved) % kPageBytes != 0) {
      // O_DIRECT goes on only from a block boundary: keep the whole blocks
      // moved and transfer the rest again. (A real O_DIRECT transfer stops
      // mid-block only at the end of the file.)
      const uint64_t whole = (offset + moved) / kPageBytes * kPageBytes - offset;
      if (whole == 0) {
        struct stat st {};
        if (!write && read_only_ && ::fstat(fd_, &st) == 0 && offset + moved >= static_cast<uint64_t>(st.st_size)) {
          bytes_loaded_ += moved;
          break;  // the end of a read-only file
        }
        if (++partial_retries > kPartialRetries)
          return Status::IOError(path_ + ": vertex values: transfers keep stopping short");
        continue;
      }
      moved = whole;
    }
    (write ? bytes_written_ : bytes_loaded_) += moved;
    offset += moved;
    partial_retries = 0;
  }
  return Status::OK();
}

// All or nothing: a failed load leaves every slab as it found it, so the
// caller unloads only what it did load.
Status RawVertexArray::load(uint64_t first_slab, uint64_t end_slab, bool writable, bool read_values) {
  assert(kind_ == Kind::kRanged && end_slab <= loaded_.size());
  uint64_t s = first_slab;
  while (s < end_slab) {
    if (loaded_[s] > 0) {
      ++loaded_[s];
      dirty_[s] |= writable ? 1 : 0;
      ++s;
      continue;
    }
    uint64_t run_end = s;
    while (run_end < end_slab && loaded_[run_end] == 0) ++run_end;
    uint8_t* at = static_cast<uint8_t*>(data_) + s * slab_bytes_;
    if (::mprotect(at, (run_end - s) * slab_bytes_, PROT_READ | PROT_WRITE) != 0) {
      return Status::IOError("vertex values: mprotect: " + std::string(std::strerror(errno)));
    }
    if (!file_zero_ && read_values) {  // fresh pages are zero
      const Status read = transfer(false, s, run_end);
      if (!read.ok()) {
        drop_pages(s, run_end);
        cancel_load(first_slab, s);
        return read;
      }
    }
    for (uint64_t t = s; t < run_end; ++t) {
      loaded_[t] = 1;
      dirty_[t] = writable && !read_only_ ? 1 : 0;
    }
    loaded_slabs_ += run_end - s;
    s = run_end;
  }
  return Status::OK();
}

Status RawVertexArray::load_to_overwrite(uint64_t begin, uint64_t end) {
  assert(kind_ == Kind::kRanged && begin < end);
  const uint64_t values = bytes_ / (slab_bytes_ / kSlabValues);
  const uint64_t first = begin / kSlabValues;
  const uint64_t last = std::min<uint64_t>((end + kSlabValues - 1) / kSlabValues, loaded_.size());
  // The last slab's values past the array's end are padding: that slab is
  // wholly inside when the range reaches the end.
  const uint64_t whole_begin = first + (begin % kSlabValues != 0 ? 1 : 0);
  const uint64_t whole_end = end % kSlabValues != 0 && end < values ? end / kSlabValues : last;
  if (whole_begin >= whole_end) return load(first, last, true, true);
  SG_RETURN_IF_ERROR(load(first, whole_begin, true, true));
  // A failed load cancels its own slabs; the earlier ones are cancelled here.
  Status status = load(whole_begin, whole_end, true, false);
  if (!status.ok()) {
    cancel_load(first, whole_begin);
    return status;
  }
  status = load(whole_end, last, true, true);
  if (!status.ok()) cancel_load(first, whole_end);
  return status;
}

Status RawVertexArray::unload(uint64_t first_slab, uint64_t end_slab) {
  assert(kind_ == Kind::kRanged && end_slab <= loaded_.size());
  Status status;
  uint64_t s = first_slab;
  while (s < end_slab) {
    assert(loaded_[s] > 0);
    if (loaded_[s] == 0) {  // not loaded: a caller's bug, never a reason to spin
      ++s;
      continue;
    }
    if (loaded_[s] > 1) {
      --loaded_[s++];
      continue;
    }
    // A run of slabs this call frees, written back where changed.
    uint64_t run_end = s;
    while (run_end < end_slab && loaded_[run_end] == 1) ++run_end;
    uint64_t w = s;
    while (w < run_end && status.ok()) {
      if (dirty_[w] == 0) {
        ++w;
        continue;
      }
      uint64_t dirty_end = w;
      while (dirty_end < run_end && dirty_[dirty_end] != 0) ++dirty_end;
      status = transfer(true, w, dirty_end);
      file_zero_ = false;
      w = dirty_end;
    }
    drop_pages(s, run_end);
    for (uint64_t t = s; t < run_end; ++t) {
      loaded_[t] = 0;
      dirty_[t] = 0;
    }
    loaded_slabs_ -= run_end - s;
    s = run_end;
  }
  return status;
}

void RawVertexArray::drop_pages(uint64_t first_slab, uint64_t end_slab) {
  uint8_t* at = static_cast<uint8_t*>(data_) + first_slab * slab_bytes_;
  const size_t bytes = (end_slab - first_slab) * slab_bytes_;
  ::madvise(at, bytes, MADV_DONTNEED);
  ::mprotect(at, bytes, PROT_NONE);
}

void RawVertexArray::forget_changes(uint64_t begin, uint64_t end) {
  if (kind_ != Kind::kRanged || end <= begin) return;
  // Slabs wholly inside: a slab shared with values outside keeps its changes.
  const uint64_t value_bytes = slab_bytes_ / kSlabValues;
  const uint64_t first = (begin + kSlabValues - 1) / kSlabValues;
  const uint64_t last = end * value_bytes >= bytes_ ? loaded_.size() : end / kSlabValues;
  for (uint64_t s = first; s < last; ++s) {
    if (loaded_[s] > 0) dirty_[s] = 0;
  }
}

void RawVertexArray::cancel_load(uint64_t first_slab, uint64_t end_slab) {
  assert(kind_ == Kind::kRanged && end_slab <= loaded_.size());
  for (uint64_t s = first_slab; s < end_slab; ++s) {
    assert(loaded_[s] > 0);
    if (loaded_[s] == 0) continue;
    if (--loaded_[s] > 0) continue;  // held before this load
    drop_pages(s, s + 1);
    dirty_[s] = 0;
    --loaded_slabs_;
  }
}

Status RawVertexArray::make_resident() {
  assert(kind_ == Kind::kRanged && loaded_slabs_ == 0);
  SG_RETURN_IF_ERROR(load(0, slab_count(), true));
  ::close(fd_);
  fd_ = -1;
  loaded_.clear();
  dirty_.clear();
  loaded_slabs_ = 0;
  kind_ = Kind::kMemory;
  return Status::OK();
}

Status RawVertexArray::zero() {
  if (kind_ == Kind::kMemory || kind_ == Kind::kFile) {
    std::memset(data_, 0, bytes_);
    return Status::OK();
  }
  assert(kind_ == Kind::kRanged && loaded_slabs_ == 0 && !read_only_);
  if (file_zero_) return Status::OK();
  // Drop the file's blocks rather than write zeros.
  if (::ftruncate(fd_, 0) != 0 || ::ftruncate(fd_, static_cast<off_t>(reserved_bytes_)) != 0) {
    return Status::IOError(path_ + ": cannot empty scratch file: " + std::strerror(errno));
  }
  file_zero_ = true;
  return Status::OK();
}

Status RawVertexArray::zero(size_t first, size_t count, size_t value_bytes) {
  if (kind_ != Kind::kMemory && kind_ != Kind::kFile) return zero();
  assert((first + count) * value_bytes <= bytes_);
  std::memset(static_cast<uint8_t*>(data_) + first * value_bytes, 0, count * value_bytes);
  return Status::OK();
}

void RawVertexArray::drop_pages() const { drop_pages_within(0, round_up(std::max<uint64_t>(bytes_, 1), kPageBytes)); }

void RawVertexArray::drop_pages_within(uint64_t begin, uint64_t end) const {
  if ((kind_ != Kind::kMapped && kind_ != Kind::kFile) || data_ == nullptr) return;
  // The mapping ends at the page after the last value.
  begin = round_up(begin, kPageBytes);
  end = std::min(end, round_up(std::max<uint64_t>(bytes_, 1), kPageBytes)) / kPageBytes * kPageBytes;
  if (begin < end) ::madvise(static_cast<uint8_t*>(data_) + begin, end - begin, MADV_DONTNEED);
}

void RawVertexArray::advise_random(bool random) const {
  if (kind_ != Kind::kFile || data_ == nullptr) return;
  ::madvise(data_, round_up(std::max<uint64_t>(bytes_, 1), kPageBytes), random ? MADV_RANDOM : MADV_NORMAL);
}

Status RawVertexArray::map_for_reading() {
  assert(kind_ == Kind::kRanged && loaded_slabs_ == 0);
  const uint64_t bytes = round_up(std::max<uint64_t>(bytes_, 1), kPageBytes);
  void* p = ::mmap(data_, bytes, PROT_READ, MAP_SHARED | MAP_FIXED, fd_, 0);
  if (p == MAP_FAILED) return Status::IOError(path_ + ": mmap: " + std::strerror(errno));
  ::madvise(p, bytes, MADV_SEQUENTIAL);
  kind_ = Kind::kMapped;
  // A finished result is no longer loaded by range: the engine forgets it
  // (a later app's steps would otherwise load it again).
  if (owner_ != nullptr) owner_->forget(this);
  owner_ = nullptr;
  return Status::OK();
}

Status visit_by_window(RawVertexArray* array, uint64_t begin, uint64_t end, uint64_t window_values, bool writable,
                       const std::function<bool(uint64_t, uint64_t)>& wanted,
                       const std::function<void(uint64_t, uint64_t)>& fn) {
  if (!array->ranged()) {
    if (begin < end && wanted(begin, end)) fn(begin, end);
    return Status::OK();
  }
  constexpr uint64_t kSlab = RawVertexArray::kSlabValues;
  assert(window_values > 0 && window_values % kSlab == 0);
  for (uint64_t at = begin / kSlab * kSlab; at < end; at += window_values) {
    const uint64_t lo = std::max(at, begin), hi = std::min(end, at + window_values);
    if (!wanted(lo, hi)) continue;
    const auto [first, last] = array->slabs_over(lo, hi);
    SG_RETURN_IF_ERROR(array->load(first, last, writable));
    fn(lo, hi);
    SG_RETURN_IF_ERROR(array->unload(first, last));
  }
  return Status::OK();
}

}  // namespace sg
