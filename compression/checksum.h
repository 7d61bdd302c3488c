// Checksums for chunks and index files: XXH3-64 from the system xxHash.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sg {

uint64_t checksum64(const void* data, size_t bytes);

}  // namespace sg
