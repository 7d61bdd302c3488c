// Lock-free updates on plain arrays (std::atomic_ref CAS loops), for push
// mode where several sources update one destination.
#pragma once

#include <atomic>

namespace sg {

// Lowers *target to value if smaller; true if it did.
template <typename T>
bool write_min(T* target, T value) {
  std::atomic_ref<T> ref(*target);
  T current = ref.load(std::memory_order_relaxed);
  while (value < current) {
    if (ref.compare_exchange_weak(current, value, std::memory_order_relaxed)) return true;
  }
  return false;
}

template <typename T>
void atomic_add(T* target, T value) {
  std::atomic_ref<T> ref(*target);
  T current = ref.load(std::memory_order_relaxed);
  while (!ref.compare_exchange_weak(current, current + value, std::memory_order_relaxed)) {
  }
}

template <typename T>
T load_relaxed(const T* source) {
  return std::atomic_ref<T>(*const_cast<T*>(source)).load(std::memory_order_relaxed);
}

}  // namespace sg
