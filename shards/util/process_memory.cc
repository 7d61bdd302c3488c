#include "shards/util/process_memory.h"

#include <cstdio>
#include <cstring>

namespace sg {

uint64_t peak_rss_bytes() {
  FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) return 0;
  char line[256];
  unsigned long long kib = 0;
  while (std::fgets(line, sizeof(line), status) != nullptr) {
    if (std::strncmp(line, "VmHWM:", 6) == 0) {
      std::sscanf(line + 6, "%llu", &kib);
      break;
    }
  }
  std::fclose(status);
  return kib * 1024;
}

}  // namespace sg
