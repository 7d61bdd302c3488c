// Wall seconds since a steady_clock time point (step and exchange timings).
#pragma once

#include <chrono>

namespace sg {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace sg
