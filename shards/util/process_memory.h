// The process's peak resident set (VmHWM), for reports and benchmarks.
#pragma once

#include <cstdint>

namespace sg {

uint64_t peak_rss_bytes();

}  // namespace sg
