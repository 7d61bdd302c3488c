// Temporary files and directories that name their owner, so a later run can
// tell leftovers of a killed process from work in progress (a
// failed ingest leaves nothing; SIGKILL cannot be caught, so this cleans up
// after it). A temporary name carries "~sg~<pid>-<boot id prefix>~"; an
// entry whose process is gone, or from an earlier boot, is garbage.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace sg {

// "~sg~<pid>-<8 hex of the boot id>~": put it in every temporary name.
std::string owner_marker();

// A hidden path beside `output` for work that becomes it (or is dropped):
// ".<name>.<tag>" + owner_marker() + 16 random hex digits.
std::string hidden_sibling(const std::string& output, const std::string& tag);

struct LeftoverReport {
  uint64_t entries = 0;
  uint64_t bytes = 0;
  std::vector<std::string> removed;
};

// Removes, in `dir` (not below), the entries whose marker names a process
// that is gone (and whose names start with `prefix`). A removed directory
// holding a manifest.json takes the device files it lists with it, unless a
// run holds that graph (remove_graph_unless_held): then it stays. Entries
// without a marker are never touched.
Status remove_leftovers(const std::string& dir, LeftoverReport* report, const std::string& prefix = "");

}  // namespace sg
