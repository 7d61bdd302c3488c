#include "compression/checksum.h"

#include <xxhash.h>

namespace sg {

uint64_t checksum64(const void* data, size_t bytes) { return XXH3_64bits(data, bytes); }

}  // namespace sg
