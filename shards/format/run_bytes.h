// The bytes of a delta run: built in memory, or a stored run file mapped
// read only (run files are written once and never changed in place). A
// run read to be merged into a run's lists is walked once or twice and
// then dropped: mapped, its page-cache pages are used in place, where a
// copy would fault in and fill as many fresh pages.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "base/mapped_file.h"
#include "base/status.h"

namespace sg {

class RunBytes {
 public:
  RunBytes() = default;
  RunBytes(std::string bytes) : owned_(std::move(bytes)) {}  // implicit: a run built in memory
  // Maps the file at `path` whole, its pages read in.
  static Status map(const std::string& path, RunBytes* bytes);

  const uint8_t* data() const {
    return mapped_ != nullptr ? mapped_->data() : reinterpret_cast<const uint8_t*>(owned_.data());
  }
  uint64_t size() const { return mapped_ != nullptr ? mapped_->size() : owned_.size(); }
  std::string_view view() const { return {reinterpret_cast<const char*>(data()), size()}; }

 private:
  std::string owned_;
  std::unique_ptr<MappedFile> mapped_;
};

}  // namespace sg
