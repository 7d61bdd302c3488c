// The process's peak resident set (VmHWM), for reports and benchmarks.
#pragma once

#include <cstdint>

namespace sg {

uint64_t peak_rss_bytes();
// The resident set now (VmRSS).
uint64_t current_rss_bytes();
// User and system CPU seconds of the whole process so far.
double process_cpu_seconds();

// What this process may use: the smallest memory limit of its cgroup and
// the cgroup's ancestors (v1 or v2), and MemAvailable; either is 0 when
// unknown (no limit: UINT64_MAX).
struct MemoryLimits {
  uint64_t cgroup_limit_bytes = UINT64_MAX;
  uint64_t available_bytes = 0;
};
MemoryLimits memory_limits();
// `--memory auto`: three quarters of the smaller limit, less 16 MiB for the
// process itself, at least 32 MiB. The rest is left to what the budget does
// not yet account (see README, Memory).
uint64_t auto_memory_budget(const MemoryLimits& limits);

}  // namespace sg
