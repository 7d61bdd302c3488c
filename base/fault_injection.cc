#include "base/fault_injection.h"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace sg {
namespace {

struct Planned {
  bool write = false;
  InjectedFault fault;
  uint64_t at = 0;  // the call that fails, from 1
};

// Parsed once from the environment; malformed entries are ignored (this is
// a test hook, not a user option).
const std::vector<Planned>& plan() {
  static const std::vector<Planned> planned = [] {
    std::vector<Planned> out;
    const char* env = std::getenv("SHARDGRAPH_FAULTS");
    std::string text = env != nullptr ? env : "";
    size_t start = 0;
    while (start < text.size()) {
      const size_t comma = text.find(',', start);
      const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      start = comma == std::string::npos ? text.size() : comma + 1;
      const size_t at = item.find('@');
      if (at == std::string::npos) continue;
      const std::string kind = item.substr(0, at);
      Planned p;
      p.at = std::strtoull(item.c_str() + at + 1, nullptr, 10);
      if (kind == "read-eio")
        p.fault = {InjectedFault::kError, EIO};
      else if (kind == "read-short")
        p.fault = {InjectedFault::kShort, 0};
      else if (kind == "write-eio")
        p = {true, {InjectedFault::kError, EIO}, p.at};
      else if (kind == "write-enospc")
        p = {true, {InjectedFault::kError, ENOSPC}, p.at};
      else if (kind == "write-short")
        p = {true, {InjectedFault::kShort, 0}, p.at};
      else
        continue;
      if (p.at > 0) out.push_back(p);
    }
    return out;
  }();
  return planned;
}

std::atomic<uint64_t> reads{0}, writes{0};

InjectedFault next_fault(bool write) {
  const uint64_t call = (write ? writes : reads).fetch_add(1, std::memory_order_relaxed) + 1;
  for (const Planned& p : plan()) {
    if (p.write == write && p.at == call) return p.fault;
  }
  return {};
}

}  // namespace

InjectedFault next_read_fault() { return plan().empty() ? InjectedFault{} : next_fault(false); }
InjectedFault next_write_fault() { return plan().empty() ? InjectedFault{} : next_fault(true); }

long apply_fault(const InjectedFault& fault, long result) {
  if (fault.kind == InjectedFault::kError) {
    errno = fault.error;
    return -1;
  }
  if (fault.kind == InjectedFault::kShort && result > 1) return result / 2;
  return result;
}

}  // namespace sg
