#include "base/huge_pages.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "base/parallel.h"

namespace sg {

void advise_huge_pages(const void* data, size_t bytes) {
  if (data == nullptr || bytes < 2 * kHugePageBytes) return;
  constexpr uintptr_t kMask = kHugePageBytes - 1;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kMask) & ~kMask;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~kMask;
  if (begin < end) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

void touch_pages_in_parallel(void* data, size_t bytes) {
  if (data == nullptr || bytes == 0) return;
  const size_t threads = parallel_threads();
  if (threads < 2 || bytes < 4 * kHugePageBytes) {
    std::memset(data, 0, bytes);
    return;
  }
  // Whole huge pages a part, about two parts a thread.
  const size_t pages = (bytes + kHugePageBytes - 1) / kHugePageBytes;
  const size_t part_pages = std::max<size_t>(1, pages / (2 * threads));
  char* const base = static_cast<char*>(data);
  parallel_for(size_t{0}, pages, part_pages, [&](size_t p0, size_t p1) {
    const size_t begin = p0 * kHugePageBytes, end = std::min(bytes, p1 * kHugePageBytes);
    std::memset(base + begin, 0, end - begin);
  });
}

}  // namespace sg
