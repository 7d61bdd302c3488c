#include "shards/ingest/permutation.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace sg {

Status Permutation::open(const std::string& path, uint64_t vertices, uint64_t whole_limit_bytes, uint64_t source_window,
                         uint64_t neighbour_window, Permutation* out) {
  *out = Permutation();
  File file;
  SG_RETURN_IF_ERROR(File::open_read(path, &file));
  uint64_t bytes = 0;
  SG_RETURN_IF_ERROR(file.size(&bytes));
  if (bytes != vertices * sizeof(uint32_t)) {
    return Status::Corruption(path + ": " + std::to_string(bytes) + " bytes for a permutation of " +
                              std::to_string(vertices) + " vertices");
  }
  out->size_ = vertices;
  if (bytes <= whole_limit_bytes) {
    out->whole_.resize(static_cast<size_t>(vertices));
    return file.pread_all(out->whole_.data(), static_cast<size_t>(bytes), 0);
  }
  out->file_ = std::move(file);
  out->source_capacity_ = std::clamp<uint64_t>(source_window, 1, vertices);
  out->neighbour_capacity_ = std::clamp<uint64_t>(neighbour_window, 1, vertices);
  // Allocated up front: the windows never grow.
  out->sources_.ids.reserve(static_cast<size_t>(out->source_capacity_));
  out->neighbours_.ids.reserve(static_cast<size_t>(out->neighbour_capacity_));
  return Status::OK();
}

uint64_t Permutation::held_bytes() const {
  if (!windowed()) return whole_.capacity() * sizeof(uint32_t);
  return (sources_.ids.capacity() + neighbours_.ids.capacity()) * sizeof(uint32_t);
}

Status Permutation::read(uint64_t first, size_t count, uint32_t* out) const {
  assert(first + count <= size_);
  if (!windowed()) {
    std::memcpy(out, whole_.data() + first, count * sizeof(uint32_t));
    return Status::OK();
  }
  return file_.pread_all(out, count * sizeof(uint32_t), first * sizeof(uint32_t));
}

Status Permutation::load(uint64_t first, uint64_t capacity, Window* window) const {
  const uint64_t count = std::min(capacity, size_ - first);
  window->first = first;
  window->ids.resize(static_cast<size_t>(count));
  return read(first, static_cast<size_t>(count), window->ids.data());
}

Status Permutation::cover(uint64_t source_lo, uint64_t source_hi, uint64_t neighbour_lo, uint64_t neighbour_hi,
                          uint64_t neighbour_start, bool* covered) {
  assert(windowed() && source_lo <= source_hi && neighbour_lo <= neighbour_hi && neighbour_hi < size_);
  *covered = source_hi - source_lo < source_capacity_ && neighbour_hi - neighbour_lo < neighbour_capacity_;
  if (!*covered) return Status::OK();
  if (!sources_.covers(source_lo, source_hi)) SG_RETURN_IF_ERROR(load(source_lo, source_capacity_, &sources_));
  if (!neighbours_.covers(neighbour_lo, neighbour_hi)) {
    const bool from_start = neighbour_start <= neighbour_lo && neighbour_hi - neighbour_start < neighbour_capacity_;
    SG_RETURN_IF_ERROR(load(from_start ? neighbour_start : neighbour_lo, neighbour_capacity_, &neighbours_));
  }
  return Status::OK();
}

void Permutation::release() {
  std::vector<uint32_t>().swap(whole_);
  std::vector<uint32_t>().swap(sources_.ids);
  std::vector<uint32_t>().swap(neighbours_.ids);
  file_ = File();
}

}  // namespace sg
