// Wall seconds (or nanoseconds) since a steady_clock time point (step and exchange timings).
#pragma once

#include <chrono>
#include <cstdint>

namespace sg {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline uint64_t nanoseconds_since(std::chrono::steady_clock::time_point start) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace sg
