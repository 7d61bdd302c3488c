// A read-only mapping of a whole file, for readers that walk a large file
// once in order (BVGraph input, an id map too large to load): the kernel
// reads ahead, and pages already used can be dropped from the process
// (they stay in the page cache) so RSS follows the reading front.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace sg {

class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // Maps `path` whole (an empty file maps to nothing); the access advice
  // is sequential.
  Status open(const std::string& path);
  const uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }
  // Drops the pages wholly before byte `end`.
  void release_before(uint64_t end);
  // Drops every page (read again, they come back): for readers that do not
  // go in order.
  void release_all();

 private:
  int fd_ = -1;
  uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
  uint64_t released_ = 0;
};

}  // namespace sg
