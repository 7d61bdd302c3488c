#include "base/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

namespace sg {

namespace {
constexpr uintptr_t kHugePageBytes = uintptr_t{2} << 20;
}

void advise_huge_pages(const void* data, size_t bytes) {
  if (data == nullptr || bytes < 2 * kHugePageBytes) return;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHugePageBytes - 1);
  if (begin < end) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace sg
