// Checksums for chunks and index files: XXH3-64 from the system xxHash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace sg {

uint64_t checksum64(const void* data, size_t bytes);

// The same XXH3-64 over bytes fed in pieces: digest() equals checksum64 of
// their concatenation.
class Checksum64Stream {
 public:
  Checksum64Stream();
  ~Checksum64Stream();
  Checksum64Stream(const Checksum64Stream&) = delete;
  Checksum64Stream& operator=(const Checksum64Stream&) = delete;
  void update(const void* data, size_t bytes);
  uint64_t digest() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace sg
