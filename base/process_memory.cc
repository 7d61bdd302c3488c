#include "base/process_memory.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

namespace sg {

namespace {
uint64_t status_kib_of(const char* path, const char* field) {
  FILE* status = std::fopen(path, "r");
  if (status == nullptr) return 0;
  char line[256];
  unsigned long long kib = 0;
  const size_t length = std::strlen(field);
  while (std::fgets(line, sizeof(line), status) != nullptr) {
    if (std::strncmp(line, field, length) == 0) {
      std::sscanf(line + length, "%llu", &kib);
      break;
    }
  }
  std::fclose(status);
  return kib;
}
uint64_t status_kib(const char* field) { return status_kib_of("/proc/self/status", field); }
}  // namespace

uint64_t current_rss_bytes() { return status_kib("VmRSS:") * 1024; }

uint64_t peak_rss_bytes() { return status_kib("VmHWM:") * 1024; }

namespace {

uint64_t read_number(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "r");
  if (file == nullptr) return UINT64_MAX;
  char text[64] = {};
  const bool read = std::fgets(text, sizeof(text), file) != nullptr;
  std::fclose(file);
  if (!read || std::strncmp(text, "max", 3) == 0) return UINT64_MAX;
  unsigned long long value = 0;
  return std::sscanf(text, "%llu", &value) == 1 ? value : UINT64_MAX;
}

// The smallest limit along `path` and its ancestors under `root`.
uint64_t limit_along(const std::string& root, std::string path, const char* file) {
  uint64_t limit = UINT64_MAX;
  for (int depth = 0; depth < 64; ++depth) {
    limit = std::min(limit, read_number(root + path + "/" + file));
    if (path.empty() || path == "/") break;
    const size_t slash = path.find_last_of('/');
    path = slash == std::string::npos ? std::string() : path.substr(0, slash);
  }
  return limit;
}

}  // namespace

MemoryLimits memory_limits() {
  MemoryLimits limits;
  limits.available_bytes = status_kib_of("/proc/meminfo", "MemAvailable:") * 1024;
  FILE* cgroups = std::fopen("/proc/self/cgroup", "r");
  if (cgroups == nullptr) return limits;
  char line[512];
  while (std::fgets(line, sizeof(line), cgroups) != nullptr) {
    std::string text(line);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    const size_t first = text.find(':'), second = text.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = text.substr(first + 1, second - first - 1);
    const std::string path = text.substr(second + 1);
    if (controllers.empty()) {  // v2
      limits.cgroup_limit_bytes =
          std::min(limits.cgroup_limit_bytes, limit_along("/sys/fs/cgroup", path, "memory.max"));
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {  // v1
      limits.cgroup_limit_bytes =
          std::min(limits.cgroup_limit_bytes, limit_along("/sys/fs/cgroup/memory", path, "memory.limit_in_bytes"));
    }
  }
  std::fclose(cgroups);
  // cgroup v1 reports "no limit" as a huge page-aligned number.
  if (limits.cgroup_limit_bytes >= (uint64_t{1} << 60)) limits.cgroup_limit_bytes = UINT64_MAX;
  return limits;
}

uint64_t auto_memory_budget(const MemoryLimits& limits) {
  uint64_t usable = limits.cgroup_limit_bytes;
  if (limits.available_bytes != 0) usable = std::min(usable, limits.available_bytes);
  if (usable == UINT64_MAX) usable = uint64_t{1} << 30;  // nothing known: 1 GiB
  const uint64_t budget = usable / 4 * 3;
  constexpr uint64_t kProcessBytes = 16 << 20, kMinimum = 32 << 20;
  return budget > kProcessBytes + kMinimum ? budget - kProcessBytes : kMinimum;
}

double process_cpu_seconds() {
  rusage usage{};
  if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace sg
