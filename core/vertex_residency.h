// Which vertex arrays are in memory, and which vertex ranges of the others
// are loaded (vertex state larger than the budget).
//
// An app declares how each array is used (VertexUse). The engine places
// arrays when they are first needed: as many whole as the budget allows,
// sources and destinations of edges first (a ranged one costs extra passes
// or range I/O in every step), then arrays only vertex_map touches. The
// others are ranged (core/vertex_array.h): an edge_map step loads the
// ranges its chunks touch, a vertex_map the ranges it visits, with
// sequential reads and write-backs.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/vertex_array.h"

namespace sg {

enum class VertexUse : uint8_t {
  kAny,          // anywhere, any time: kept whole (file-backed mmap if it does not fit)
  kSource,       // read as u in update(u, v) and written only by vertex_map
  kDestination,  // read and written as v in update(u, v) / cond(v)
  kVertex,       // touched only by vertex_map / vertex_reduce
};
const char* vertex_use_name(VertexUse use);

// What a vertex_map touches, so that only those ranges move: arrays read,
// read and written, or overwritten (every value set, none read: nothing is
// loaded for them). Undeclared, every ranged array is read and written.
class VertexAccess {
 public:
  enum class Mode : uint8_t { kRead, kWrite, kOverwrite };
  template <typename... A>
  VertexAccess& reads(const A&... arrays) {
    (add(arrays.raw(), Mode::kRead), ...);
    return *this;
  }
  template <typename... A>
  VertexAccess& writes(const A&... arrays) {
    (add(arrays.raw(), Mode::kWrite), ...);
    return *this;
  }
  template <typename... A>
  VertexAccess& overwrites(const A&... arrays) {
    (add(arrays.raw(), Mode::kOverwrite), ...);
    return *this;
  }
  // The mode of `array`; false if this access leaves it alone.
  bool mode_of(const RawVertexArray* array, Mode* mode) const {
    if (!declared_) {
      *mode = Mode::kWrite;
      return true;
    }
    for (const auto& [a, m] : items_) {
      if (a == array) {
        *mode = m;
        return true;
      }
    }
    return false;
  }

 private:
  void add(const RawVertexArray& array, Mode mode) {
    declared_ = true;
    items_.emplace_back(&array, mode);
  }
  bool declared_ = false;
  std::vector<std::pair<const RawVertexArray*, Mode>> items_;
};

class VertexResidency final : public ArrayTracker {
 public:
  ~VertexResidency() override;
  void reset();

  // Tracks `array`: placed already (`resident_bytes` of memory, 0 when
  // file-backed) or pending. Pending arrays are placed by `priority`
  // (lower first; -1: by use, edge sources and destinations first);
  // `whole_bytes` is what a pending one costs held whole (0: all its slabs;
  // a rank's array touched only over its owned range costs that range's).
  void add(RawVertexArray* array, VertexUse use, size_t value_bytes, const std::string& name, bool placed,
           uint64_t resident_bytes, int priority = -1, uint64_t whole_bytes = 0);
  bool has_pending() const;
  // Places pending arrays: whole while `room` allows (by priority), ranged
  // otherwise; when not all fit whole, `range_reserve` of the room stays
  // for loading ranges (MemoryBudget::range_reserve). Returns what it
  // decided, one line per ranged array.
  Status place(uint64_t room, uint64_t range_reserve, std::string* notes);

  // Bytes a vertex costs in the ranged arrays used as `use` (kAny: all ranged arrays).
  uint64_t ranged_bytes_per_vertex(VertexUse use) const;
  bool any_ranged() const;
  // File-backed arrays (kAny beyond the budget): the kernel pages them, but
  // every page touched stays mapped, and so counts in RSS, until dropped.
  bool any_mapped() const;
  // Bytes a vertex costs in the file-backed arrays `access` touches.
  uint64_t mapped_bytes_per_vertex(const VertexAccess& access) const;
  // Unmaps the pages of those arrays (they stay in the page cache).
  void drop_mapped_pages(const VertexAccess& access) const;
  // Memory of arrays held whole.
  uint64_t resident_bytes() const { return resident_bytes_; }

  // Loads / unloads vertices [begin, end) of the ranged arrays used as
  // `use` (kAny: all), rounded out to whole slabs.
  Status load(VertexUse use, uint64_t begin, uint64_t end, bool writable);
  Status unload(VertexUse use, uint64_t begin, uint64_t end);
  // The same for the ranged arrays `access` touches; `every_vertex`: the
  // caller visits every vertex of the range (else overwrites load as writes).
  uint64_t ranged_bytes_per_vertex(const VertexAccess& access) const;
  Status load(const VertexAccess& access, uint64_t begin, uint64_t end, bool every_vertex);
  Status unload(const VertexAccess& access, uint64_t begin, uint64_t end);

  // Changes the use of a placed array with nothing loaded (its placement
  // stays): e.g. the next contributions, written by range while a step
  // reads the current ones, become the next step's sources without a copy.
  Status set_use(RawVertexArray* array, VertexUse use);

  uint64_t bytes_loaded() const;
  uint64_t bytes_written_back() const;
  // The most the ranged arrays' loaded slabs held at once (through load()).
  uint64_t peak_loaded_bytes() const { return peak_loaded_bytes_; }
  double io_seconds() const { return io_seconds_; }

  // fn(array, use, value_bytes) for every array tracked, in the order added.
  template <typename F>
  void for_each_array(F&& fn) const {
    for (const Entry& e : entries_) fn(e.array, e.use, e.value_bytes);
  }

  // Told by RawVertexArray.
  void forget(RawVertexArray* array) override;
  void moved(RawVertexArray* from, RawVertexArray* to) override;

 private:
  struct Entry {
    RawVertexArray* array = nullptr;
    VertexUse use = VertexUse::kAny;
    size_t value_bytes = 0;
    std::string name;
    bool placed = false;
    bool ranged = false;
    uint64_t resident_bytes = 0;  // held whole in memory
    uint64_t whole_bytes = 0;     // what it costs held whole
    int priority = 0;
  };
  bool selected(const Entry& e, VertexUse use) const { return e.ranged && (use == VertexUse::kAny || e.use == use); }
  // Loads each array's range with load_one.
  static Status load_all(const std::vector<Entry*>& arrays, uint64_t begin, uint64_t end,
                         const std::function<Status(const Entry&)>& load_one);

  std::vector<Entry> entries_;
  uint64_t resident_bytes_ = 0;
  uint64_t gone_loaded_ = 0, gone_written_ = 0;  // counters of arrays forgotten
  double io_seconds_ = 0;
  uint64_t peak_loaded_bytes_ = 0;
  void note_loaded();
};

}  // namespace sg
