// Ranged vertex arrays: what is written back when slabs are unloaded.
#include <doctest/doctest.h>

#include <cstdint>

#include "core/vertex_array.h"
#include "test_util.h"

namespace {

constexpr uint64_t kSlab = sg::RawVertexArray::kSlabValues;

// A ranged array of `count` values, each v + 1, written out (nothing loaded).
void fill_ranged(const sgtest::TempDir& dir, uint64_t count, sg::VertexArray<uint32_t>* array) {
  const uint64_t slabs = (count + kSlab - 1) / kSlab;
  REQUIRE(array->raw().allocate_ranged(count, sizeof(uint32_t), dir / "values").ok());
  array->set_size(count);
  REQUIRE(array->raw().load(0, slabs, true).ok());
  for (uint64_t v = 0; v < count; ++v) (*array)[v] = static_cast<uint32_t>(v + 1);
  REQUIRE(array->raw().unload(0, slabs).ok());
}

TEST_CASE("vertex array: forgotten changes are not written back, except in slabs shared with kept values") {
  sgtest::TempDir dir;
  const uint64_t count = 3 * kSlab + 100;  // four slabs, the last partial
  sg::VertexArray<uint32_t> array;
  fill_ranged(dir, count, &array);
  const uint64_t written_before = array.raw().bytes_written_back();

  REQUIRE(array.raw().load(0, 4, true).ok());
  for (uint64_t v = 0; v < count; ++v) array[v] = 7;
  // Slab 0 also holds values below 1000, which are kept: it is written back.
  array.forget_changes(1000, count);
  REQUIRE(array.raw().unload(0, 4).ok());
  CHECK(array.raw().bytes_written_back() - written_before == kSlab * sizeof(uint32_t));

  REQUIRE(array.raw().load(0, 4, false).ok());
  uint64_t wrong = 0;
  for (uint64_t v = 0; v < count; ++v) wrong += array[v] != (v < kSlab ? 7u : v + 1);
  CHECK(wrong == 0);
  REQUIRE(array.raw().unload(0, 4).ok());
}

TEST_CASE("vertex array: a load to overwrite a range reads only the slabs partly outside it") {
  sgtest::TempDir dir;
  const uint64_t count = 4 * kSlab + 100;  // five slabs, the last partial
  sg::VertexArray<uint32_t> array;
  fill_ranged(dir, count, &array);
  struct Case {
    uint64_t begin, end, slabs_read;
  };
  // Inside one slab; across slab edges on both sides; whole slabs; up to
  // the end, whose slab's tail is padding.
  for (const Case c :
       {Case{10, 20, 1}, Case{kSlab - 5, 3 * kSlab + 5, 2}, Case{kSlab, 3 * kSlab, 0}, Case{2 * kSlab + 1, count, 1}}) {
    CAPTURE(c.begin);
    CAPTURE(c.end);
    const uint64_t loaded_before = array.raw().bytes_loaded();
    REQUIRE(array.raw().load_to_overwrite(c.begin, c.end).ok());
    CHECK(array.raw().bytes_loaded() - loaded_before == c.slabs_read * kSlab * sizeof(uint32_t));
    for (uint64_t v = c.begin; v < c.end; ++v) array[v] = 0;
    const uint64_t first = c.begin / kSlab, last = (c.end + kSlab - 1) / kSlab;
    REQUIRE(array.raw().unload(first, last).ok());
    REQUIRE(array.raw().load(0, 5, true).ok());
    uint64_t wrong = 0;
    for (uint64_t v = 0; v < count; ++v) wrong += array[v] != (v >= c.begin && v < c.end ? 0u : v + 1);
    CHECK(wrong == 0);
    for (uint64_t v = 0; v < count; ++v) array[v] = static_cast<uint32_t>(v + 1);
    REQUIRE(array.raw().unload(0, 5).ok());
  }
}

TEST_CASE("vertex array: forgetting changes of an array held in memory keeps its values") {
  sg::VertexArray<uint32_t> array;
  REQUIRE(array.allocate(10, "").ok());
  for (uint32_t v = 0; v < 10; ++v) array[v] = v * 3;
  array.forget_changes(0, 10);
  for (uint32_t v = 0; v < 10; ++v) CHECK(array[v] == v * 3);
}

}  // namespace
