#include "base/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

namespace sg {

void advise_huge_pages(const void* data, size_t bytes) {
  if (data == nullptr || bytes < 2 * kHugePageBytes) return;
  constexpr uintptr_t kMask = kHugePageBytes - 1;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kMask) & ~kMask;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~kMask;
  if (begin < end) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace sg
