#include "shards/util/leftovers.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "shards/util/file_util.h"

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

uint64_t size_of(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return fs::file_size(path, ec) == static_cast<uintmax_t>(-1) ? 0 : fs::file_size(path, ec);
  uint64_t bytes = 0;
  for (const auto& entry : fs::recursive_directory_iterator(path, ec)) {
    if (entry.is_regular_file(ec)) bytes += entry.file_size(ec);
  }
  return bytes;
}

// The device files a (hidden, complete) graph directory lists outside itself.
std::vector<fs::path> device_files_of(const fs::path& dir) {
  std::vector<fs::path> files;
  std::string text;
  if (!read_whole_file((dir / "manifest.json").string(), &text).ok()) return files;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    const auto& devices = j.at("devices");
    for (const auto& space : j.at("spaces")) {
      const auto& names = space.at("device_files");
      for (size_t d = 0; d < devices.size() && d < names.size(); ++d) {
        if (devices[d].get<std::string>() != ".") files.push_back(fs::path(devices[d].get<std::string>()) / names[d].get<std::string>());
      }
    }
  } catch (const std::exception&) {
  }
  return files;
}

}  // namespace

std::string owner_marker() { return "~sg~" + std::to_string(::getpid()) + "-" + boot_prefix() + "~"; }

Status remove_leftovers(const std::string& dir, LeftoverReport* report) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return Status::InvalidArgument(dir + ": cannot list: " + ec.message());
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    long pid = 0;
    std::string boot;
    if (name.empty() || name[0] != '.' || !parse_marker(name, &pid, &boot) || !owner_gone(pid, boot)) continue;
    uint64_t bytes = size_of(entry.path());
    if (entry.is_directory(ec)) {
      for (const fs::path& file : device_files_of(entry.path())) {
        bytes += size_of(file);
        fs::remove(file, ec);
      }
      fs::remove_all(entry.path(), ec);
    } else {
      fs::remove(entry.path(), ec);
    }
    if (ec) return Status::IOError(entry.path().string() + ": cannot remove: " + ec.message());
    ++report->entries;
    report->bytes += bytes;
    report->removed.push_back(entry.path().string());
  }
  return Status::OK();
}

}  // namespace sg
