#include "base/aligned_buffer.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include "base/huge_pages.h"

namespace sg {

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = other.data_;
    bytes_ = other.bytes_;
    other.data_ = nullptr;
    other.bytes_ = 0;
  }
  return *this;
}

AlignedBuffer::~AlignedBuffer() { std::free(data_); }

void AlignedBuffer::allocate(size_t bytes) {
  std::free(data_);
  const size_t alignment = bytes >= kHugePageBytes ? kHugePageBytes : 4096;
  const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  data_ = static_cast<uint8_t*>(std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded));
  if (data_ == nullptr) throw std::bad_alloc();
  bytes_ = rounded;
  if (alignment == kHugePageBytes) ::madvise(data_, rounded, MADV_HUGEPAGE);
  std::memset(data_, 0, rounded);  // touch once
}

}  // namespace sg
