// Coarse striping of a logical byte space over N devices (CSMqGraph):
// logical offset o lives on device (o / S) % N at device offset
// (o / S / N) * S + o % S, where S is the stripe depth. With N == 1 the
// mapping is the identity.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>

namespace sg {

constexpr uint64_t kAlignBytes = 4096;  // O_DIRECT alignment of offsets and sizes

inline uint64_t align_up(uint64_t value, uint64_t alignment) { return (value + alignment - 1) / alignment * alignment; }

struct StripePiece {
  uint32_t device;
  uint64_t device_offset;
  uint64_t logical_offset;
  uint64_t bytes;
};

class StripeLayout {
 public:
  StripeLayout() = default;
  StripeLayout(uint64_t stripe_bytes, uint32_t device_count)
      : stripe_bytes_(stripe_bytes), device_count_(device_count) {
    assert(stripe_bytes > 0 && device_count > 0);
  }

  uint64_t stripe_bytes() const { return stripe_bytes_; }
  uint32_t device_count() const { return device_count_; }

  uint32_t device_of(uint64_t logical) const {
    return static_cast<uint32_t>((logical / stripe_bytes_) % device_count_);
  }
  uint64_t device_offset_of(uint64_t logical) const {
    return (logical / stripe_bytes_ / device_count_) * stripe_bytes_ + logical % stripe_bytes_;
  }

  // Calls f(StripePiece) for each piece of [offset, offset + bytes) in
  // logical order; each piece lies inside one stripe.
  template <typename F>
  void split(uint64_t offset, uint64_t bytes, F&& f) const {
    while (bytes > 0) {
      const uint64_t in_stripe = stripe_bytes_ - offset % stripe_bytes_;
      const uint64_t take = in_stripe < bytes ? in_stripe : bytes;
      f(StripePiece{device_of(offset), device_offset_of(offset), offset, take});
      offset += take;
      bytes -= take;
    }
  }

  // Bytes device `device` holds for a space of `logical_bytes`.
  uint64_t device_bytes(uint64_t logical_bytes, uint32_t device) const {
    const uint64_t full_stripes = logical_bytes / stripe_bytes_;
    const uint64_t tail = logical_bytes % stripe_bytes_;
    uint64_t stripes_here = full_stripes / device_count_ + (device < full_stripes % device_count_ ? 1 : 0);
    uint64_t bytes = stripes_here * stripe_bytes_;
    if (tail > 0 && full_stripes % device_count_ == device) bytes += tail;
    return bytes;
  }

 private:
  uint64_t stripe_bytes_ = 1;
  uint32_t device_count_ = 1;
};

// Default stripe depth: the largest power of two from 1 MiB to 8 MiB that
// still gives every device at least 32 stripes of a space of
// `space_bytes`, so devices get equal shares (within ~3%) while requests stay
// large; 8 MiB when the space is large, 1 MiB when it is small.
inline uint64_t choose_stripe_bytes(uint64_t space_bytes, size_t devices) {
  uint64_t stripe = uint64_t{8} << 20;
  while (stripe > (uint64_t{1} << 20) && space_bytes / stripe < 32 * devices) stripe /= 2;
  return stripe;
}

}  // namespace sg
