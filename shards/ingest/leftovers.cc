#include "shards/ingest/leftovers.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <random>

#include "shards/format/remove_graph.h"

namespace sg {
namespace {

namespace fs = std::filesystem;

std::string boot_prefix() {
  // /proc files report size 0: read with stdio, not by size.
  char line[64] = {};
  FILE* file = std::fopen("/proc/sys/kernel/random/boot_id", "r");
  if (file == nullptr) return "00000000";
  const bool read = std::fgets(line, sizeof(line), file) != nullptr;
  std::fclose(file);
  if (!read) return "00000000";
  const std::string id(line);
  std::string hex;
  for (char c : id) {
    if (std::isxdigit(static_cast<unsigned char>(c)) && hex.size() < 8) hex += c;
  }
  return hex.size() == 8 ? hex : "00000000";
}

// Parses "~sg~<pid>-<boot8>~" out of `name`.
bool parse_marker(const std::string& name, long* pid, std::string* boot) {
  const size_t at = name.find("~sg~");
  if (at == std::string::npos) return false;
  const size_t dash = name.find('-', at + 4);
  const size_t end = dash == std::string::npos ? std::string::npos : name.find('~', dash + 1);
  if (end == std::string::npos || end - dash - 1 != 8) return false;
  const std::string digits = name.substr(at + 4, dash - at - 4);
  if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return false;
  *pid = std::stol(digits);
  *boot = name.substr(dash + 1, 8);
  return true;
}

bool owner_gone(long pid, const std::string& boot) {
  if (boot != boot_prefix()) return true;  // from an earlier boot
  if (pid == ::getpid()) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace

std::string owner_marker() { return "~sg~" + std::to_string(::getpid()) + "-" + boot_prefix() + "~"; }

std::string hidden_sibling(const std::string& output, const std::string& tag) {
  const std::filesystem::path out = std::filesystem::absolute(output).lexically_normal();
  std::random_device device;
  char suffix[17];
  std::snprintf(suffix, sizeof(suffix), "%08x%08x", device(), device());
  std::string name = ".";
  name.append(out.filename().string()).append(".").append(tag).append(owner_marker()).append(suffix);
  return (out.parent_path() / name).string();
}

Status remove_leftovers(const std::string& dir, LeftoverReport* report, const std::string& prefix) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return Status::InvalidArgument(dir + ": cannot list: " + ec.message());
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    long pid = 0;
    std::string boot;
    if (name.empty() || name[0] != '.' || name.rfind(prefix, 0) != 0) continue;
    if (!parse_marker(name, &pid, &boot) || !owner_gone(pid, boot)) continue;
    // A plain file or temporary directory too; an old generation a run reads stays.
    if (!remove_graph_unless_held(entry.path().string(), &report->bytes)) continue;
    if (fs::exists(entry.path(), ec)) return Status::IOError(entry.path().string() + ": cannot remove");
    ++report->entries;
    report->removed.push_back(entry.path().string());
  }
  return Status::OK();
}

}  // namespace sg
