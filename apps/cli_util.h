// Helpers shared by the CLI subcommands.
#pragma once

#include "shards/util/process_memory.h"

#include <cstdint>
#include <string>

namespace sg {

// "64M", "2G", "512K", "4096", "1.5G" (binary units; optional "B"/"iB").
bool parse_size(const std::string& text, uint64_t* bytes);

// Peak resident set of this process since exec (VmHWM), in bytes; 0 if
// unknown. getrusage() is not used: it carries over the parent's peak
// across fork+exec.

}  // namespace sg
