// Transparent huge pages for large arrays read or written at random (a
// permutation, degree counts, a router's bucket buffers, an engine's
// vertex arrays). With 4 KiB pages each such access past the TLB's reach
// also walks the page tables; a kernel whose THP mode is "madvise" (the
// default of many distributions) backs memory with 2 MiB pages only where
// asked. R-MAT 24's ingest from the page cache took 4-7 % less wall time
// with THP "always" than with "madvise".
#pragma once

#include <cstddef>
#include <type_traits>
#include <vector>

namespace sg {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;

// Asks for huge pages over the whole 2 MiB pages inside [data, data +
// bytes); pages already touched keep their size. Below 4 MiB (at most one
// whole huge page) it asks nothing. Advice only: never fails.
void advise_huge_pages(const void* data, size_t bytes);

// Capacity for `count` values, asked for in huge pages before any is
// touched: fresh storage, unless the capacity already suffices.
template <typename T>
void reserve_huge_pages(std::vector<T>* values, size_t count) {
  if (values->capacity() >= count) return;
  std::vector<T> fresh;
  fresh.reserve(count);
  advise_huge_pages(fresh.data(), count * sizeof(T));
  fresh.insert(fresh.end(), values->begin(), values->end());
  values->swap(fresh);
}

// Writes zeros over [data, data + bytes) from every thread at once, a
// range of pages each, where the range spans several huge pages. A page's
// first touch is the kernel zeroing it (in a virtual machine, also the
// host backing it), on the touching thread: 192 MiB of fresh huge pages
// took 0.32-0.44 s on one thread and 0.16-0.22 s on two (the machine of
// docs/benchmarks.md, after the host had taken them back).
void touch_pages_in_parallel(void* data, size_t bytes);

// `values` set to `count` copies of `value` in storage asked for in huge
// pages, its fresh pages first touched by every thread (touch_pages_in_
// parallel), then filled on this one. For the large arrays a phase begins
// with (a router's buffers, a sort batch, vertex counts); T is trivially
// copyable.
template <typename T>
void assign_touched(std::vector<T>* values, size_t count, const T& value = T{}) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (values->capacity() < count) {
    values->clear();
    reserve_huge_pages(values, count);
  }
  touch_pages_in_parallel(values->data(), count * sizeof(T));  // raw storage, filled below
  values->assign(count, value);
}

}  // namespace sg
