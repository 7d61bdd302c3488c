// A per-vertex value array. In memory when the budget allows, otherwise
// backed by a file in the scratch directory (mmap, MAP_SHARED) so the kernel
// can write pages back and drop them under memory pressure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "compression/status.h"

namespace sg {

class RawVertexArray {
 public:
  RawVertexArray() = default;
  RawVertexArray(RawVertexArray&& other) noexcept { *this = static_cast<RawVertexArray&&>(other); }
  RawVertexArray& operator=(RawVertexArray&& other) noexcept;
  RawVertexArray(const RawVertexArray&) = delete;
  RawVertexArray& operator=(const RawVertexArray&) = delete;
  ~RawVertexArray();

  // Zero-filled; `scratch_path` empty = anonymous memory.
  Status allocate(size_t bytes, const std::string& scratch_path);
  void* data() const { return data_; }
  bool file_backed() const { return !path_.empty(); }

 private:
  void release();
  void* data_ = nullptr;
  size_t bytes_ = 0;
  std::string path_;
};

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

 private:
  RawVertexArray raw_;
  size_t count_ = 0;
};

}  // namespace sg
