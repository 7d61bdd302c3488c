#include "compression/checksum.h"

#define XXH_STATIC_LINKING_ONLY  // XXH3_state_t on the stack of State
#include <xxhash.h>

namespace sg {

uint64_t checksum64(const void* data, size_t bytes) { return XXH3_64bits(data, bytes); }

struct Checksum64Stream::State {
  XXH3_state_t xxh;
};

Checksum64Stream::Checksum64Stream() : state_(std::make_unique<State>()) { XXH3_64bits_reset(&state_->xxh); }
Checksum64Stream::~Checksum64Stream() = default;

void Checksum64Stream::update(const void* data, size_t bytes) { XXH3_64bits_update(&state_->xxh, data, bytes); }

uint64_t Checksum64Stream::digest() const { return XXH3_64bits_digest(&state_->xxh); }

}  // namespace sg
