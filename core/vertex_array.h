// A per-vertex value array, in one of four forms:
//  - in memory (anonymous pages);
//  - ranged: its values live in a scratch file and only the slabs the
//    engine loads are in memory. Loads and write-backs are explicit,
//    sequential range I/O (O_DIRECT where the file system allows, so the
//    page cache does not grow); slabs not loaded are PROT_NONE, so a
//    stray access faults instead of silently reading zeros. The engine
//    (core/vertex_residency.h) decides which slabs are loaded when;
//  - file-backed (mmap, MAP_SHARED): the fallback for arrays an app needs
//    whole when the budget is spent (the kernel pages them);
//  - external: a view of memory someone else owns (read only).
// A ranged array is addressed like the others (data()[v]): its address
// range is reserved whole, so pointers an app took stay valid.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace sg {

class RawVertexArray;
class VertexResidency;

// What tracks arrays (the residency, vertex_residency.h): told when one
// moves or goes away.
class ArrayTracker {
 public:
  virtual ~ArrayTracker() = default;
  virtual void moved(RawVertexArray* from, RawVertexArray* to) = 0;
  virtual void forget(RawVertexArray* array) = 0;
};

class RawVertexArray {
 public:
  // Values per slab, the unit of loading: a whole number of pages for
  // values of 4 bytes or more, so slabs load with O_DIRECT into their own
  // pages.
  static constexpr uint64_t kSlabValues = 1024;

  RawVertexArray() = default;
  RawVertexArray(RawVertexArray&& other) noexcept { *this = static_cast<RawVertexArray&&>(other); }
  RawVertexArray& operator=(RawVertexArray&& other) noexcept;
  RawVertexArray(const RawVertexArray&) = delete;
  RawVertexArray& operator=(const RawVertexArray&) = delete;
  ~RawVertexArray();

  // Zero-filled; `scratch_path` empty = anonymous memory, else file-backed.
  Status allocate(size_t bytes, const std::string& scratch_path);
  // Zero-filled and ranged over an unnamed scratch file near `scratch_path`;
  // nothing is loaded yet.
  Status allocate_ranged(size_t count, size_t value_bytes, const std::string& scratch_path);
  // Ranged and read only over an existing file holding `count` values from
  // offset 0 (e.g. a graph's degree file). `direct`: read with O_DIRECT
  // where the file system allows (not for a file just written through the
  // page cache: O_DIRECT would first flush it to the disk).
  Status open_ranged(const std::string& path, size_t count, size_t value_bytes, bool direct = true);
  // A read-only view of `data` (not owned).
  void adopt(const void* data, size_t bytes);

  void* data() const { return data_; }
  bool file_backed() const { return kind_ == Kind::kFile; }
  bool ranged() const { return kind_ == Kind::kRanged; }
  // Held in memory (not over a file the kernel can page).
  bool resident() const { return kind_ == Kind::kMemory || kind_ == Kind::kExternal; }
  size_t bytes() const { return bytes_; }
  uint64_t slab_count() const { return loaded_.size(); }
  // The slabs over values [begin, end): [first, end), clipped to the array.
  std::pair<uint64_t, uint64_t> slabs_over(uint64_t begin, uint64_t end) const {
    return {begin / kSlabValues, std::min<uint64_t>((end + kSlabValues - 1) / kSlabValues, slab_count())};
  }
  // The most values in whole slabs that `bytes` hold at `value_bytes` a
  // value (a slab's at least).
  static uint64_t whole_slab_values(uint64_t bytes, uint64_t value_bytes) {
    return std::max<uint64_t>(1, bytes / value_bytes / kSlabValues) * kSlabValues;
  }

  // Loads slabs [first, end) (those not loaded yet); `writable`: the caller
  // may change them, so they are written back when last unloaded;
  // `read_values` false: the caller overwrites every value, so nothing is read.
  Status load(uint64_t first_slab, uint64_t end_slab, bool writable, bool read_values = true);
  // Loads the slabs over values [begin, end) to be overwritten there: the
  // slabs wholly inside are not read, the (at most two) partly inside are,
  // so values around the range survive. Unloaded like load(first, end).
  Status load_to_overwrite(uint64_t begin, uint64_t end);
  // Releases slabs [first, end); the last holder writes changed ones back
  // and frees their pages.
  Status unload(uint64_t first_slab, uint64_t end_slab);
  // Values [begin, end) need not be kept: of a ranged array, the loaded
  // slabs wholly inside are not written back when unloaded, so a later load
  // reads whatever was last written there (e.g. PageRank's ranks between
  // iterations, cleared before the next). Other arrays: nothing to do.
  void forget_changes(uint64_t begin, uint64_t end);
  // Undoes a successful load(first, end) that is not to be used (a later
  // array's load failed): nothing is written back.
  void cancel_load(uint64_t first_slab, uint64_t end_slab);
  // Maps a ranged array's file read only (nothing may be loaded): for
  // reading results once in order, paged by the kernel.
  Status map_for_reading();
  // Of an array over a file (file-backed, or mapped for reading): unmaps
  // the pages read so far (they stay in the page cache and come back when
  // read again), so a pass over a large result keeps little mapped.
  void drop_pages() const;
  // The same for the whole pages within bytes [begin, end) only.
  void drop_pages_within(uint64_t begin, uint64_t end) const;
  // Of a file-backed array: whether the kernel should read ahead around a
  // page it faults in (off for one touched at random, whose readahead
  // would evict what the next touch needs).
  void advise_random(bool random) const;

  // A ranged array loaded whole and kept (placed in memory after all).
  Status make_resident();
  // Sets every value to zero (a ranged array: nothing may be loaded; its
  // file is emptied, so the next loads read nothing).
  Status zero();
  // Sets values [first, first + count) to zero, touching no other page; a
  // ranged array zeroes all (nothing may be loaded).
  Status zero(size_t first, size_t count, size_t value_bytes);

  // Bytes moved by load / unload so far.
  uint64_t bytes_loaded() const { return bytes_loaded_; }
  uint64_t bytes_written_back() const { return bytes_written_; }

 private:
  friend class VertexResidency;  // tracks it (owner_)
  enum class Kind { kNone, kMemory, kFile, kRanged, kMapped, kExternal };
  void release();
  void drop_pages(uint64_t first_slab, uint64_t end_slab);  // no write-back
  Status reserve(size_t count, size_t value_bytes);
  Status transfer(bool write, uint64_t first_slab, uint64_t end_slab);

  Kind kind_ = Kind::kNone;
  void* data_ = nullptr;
  size_t bytes_ = 0;           // of the values
  size_t reserved_bytes_ = 0;  // of the mapping (ranged: whole slabs)
  std::string path_;
  // Ranged:
  int fd_ = -1;
  bool read_only_ = false;
  bool file_zero_ = false;  // nothing written to the scratch file yet: loads need no read
  uint64_t slab_bytes_ = 0;
  std::vector<uint16_t> loaded_;  // holders per slab
  std::vector<uint8_t> dirty_;
  uint64_t loaded_slabs_ = 0;
  uint64_t bytes_loaded_ = 0, bytes_written_ = 0;
  ArrayTracker* owner_ = nullptr;  // told when this array moves or goes away
};

// Calls fn(lo, hi) over values [begin, end) of `array`, for the pieces
// where wanted(lo, hi): at once for an array held whole; for a ranged one
// in windows of `window_values` (whole slabs), each loaded for the call
// (`writable`: read, then written back) and unloaded after it.
Status visit_by_window(RawVertexArray* array, uint64_t begin, uint64_t end, uint64_t window_values, bool writable,
                       const std::function<bool(uint64_t, uint64_t)>& wanted,
                       const std::function<void(uint64_t, uint64_t)>& fn);

template <typename T>
class VertexArray {
 public:
  Status allocate(size_t count, const std::string& scratch_path) {
    count_ = count;
    return raw_.allocate(count * sizeof(T), scratch_path);
  }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T* data() const { return static_cast<T*>(raw_.data()); }
  size_t size() const { return count_; }
  bool file_backed() const { return raw_.file_backed(); }
  bool ranged() const { return raw_.ranged(); }
  RawVertexArray& raw() { return raw_; }
  const RawVertexArray& raw() const { return raw_; }
  void forget_changes(size_t begin, size_t end) { raw_.forget_changes(begin, end); }
  void set_size(size_t count) { count_ = count; }

 private:
  RawVertexArray raw_;
  size_t count_ = 0;
};

}  // namespace sg
