// Page-aligned I/O buffers for O_DIRECT, allocated once. Large buffers are
// 2 MiB-aligned with MADV_HUGEPAGE and touched up front, so a request is one
// physically contiguous segment for the block layer and no page fault lands
// in the I/O path.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sg {

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t bytes) { allocate(bytes); }
  AlignedBuffer(AlignedBuffer&& other) noexcept { *this = static_cast<AlignedBuffer&&>(other); }
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer();

  void allocate(size_t bytes);
  uint8_t* data() const { return data_; }
  size_t size() const { return bytes_; }

 private:
  uint8_t* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace sg
