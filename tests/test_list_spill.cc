// core/list_spill.h: lists written to a scratch file come back the same,
// whatever the batches they are read in; malformed bytes are refused.
#include <doctest/doctest.h>

#include <filesystem>
#include <random>

#include "core/list_spill.h"
#include "test_util.h"

namespace {

// Random ascending lists: mostly short, some empty, a few larger than a segment.
std::vector<std::vector<uint64_t>> random_lists(uint32_t vertices, std::mt19937_64* rng) {
  std::vector<std::vector<uint64_t>> lists(vertices);
  for (auto& list : lists) {
    const uint64_t kind = (*rng)() % 100;
    const size_t size = kind < 20 ? 0 : kind < 97 ? (*rng)() % 40 : 40000 + (*rng)() % 60000;
    uint64_t value = (*rng)() % 1000;
    for (size_t k = 0; k < size; ++k) {
      list.push_back(value);
      value += (*rng)() % (k % 7 == 0 ? (uint64_t{1} << 40) : 300);  // gaps of every varint length, repeats too
    }
  }
  return lists;
}

}  // namespace

TEST_CASE("list spill: lists come back the same in any batches, segments cover the vertices in order") {
  sgtest::TempDir dir;
  std::mt19937_64 rng(7);
  for (int round = 0; round < 4; ++round) {
    const uint32_t vertices = 500 + static_cast<uint32_t>(rng() % 3000);
    const auto lists = random_lists(vertices, &rng);
    sg::ListSpill spill;
    REQUIRE(spill.create(dir / "spill").ok());
    for (uint32_t first = 0; first < vertices;) {  // appended in blocks of random sizes
      const uint32_t count = std::min<uint32_t>(vertices - first, 1 + static_cast<uint32_t>(rng() % 700));
      std::vector<uint64_t> start{0}, values;
      for (uint32_t i = first; i < first + count; ++i) {
        values.insert(values.end(), lists[i].begin(), lists[i].end());
        start.push_back(values.size());
      }
      REQUIRE(spill.append(first, count, start.data(), values.data()).ok());
      first += count;
    }
    REQUIRE(spill.finish().ok());
    const auto& segments = spill.segments();
    REQUIRE(segments.size() > 1);
    CHECK(segments.front().begin == 0);
    CHECK(segments.back().end == vertices);
    for (size_t s = 1; s < segments.size(); ++s) CHECK(segments[s].begin == segments[s - 1].end);
    CHECK(spill.bytes_written() % 4096 == 0);
    CHECK(spill.bytes_written() >= spill.bytes());

    sg::AlignedBuffer buffer;
    std::vector<uint64_t> decoded;
    uint32_t expected_vertex = 0;
    for (size_t first = 0; first < segments.size();) {
      const size_t last = std::min(segments.size(), first + 1 + static_cast<size_t>(rng() % 4));
      const uint8_t* at = nullptr;
      REQUIRE(spill.read(first, last, &buffer, &at).ok());
      for (size_t s = first; s < last; ++s) {
        uint64_t lowest = UINT64_MAX, highest = 0;
        REQUIRE(sg::ListSpill::decode(segments[s], at + (segments[s].offset - segments[first].offset), &decoded,
                                      [&](uint32_t v, std::span<const uint64_t> list) {
                                        CHECK(v == expected_vertex++);
                                        CHECK(std::equal(list.begin(), list.end(), lists[v].begin(), lists[v].end()));
                                        if (!list.empty())
                                          lowest = std::min(lowest, list.front()),
                                          highest = std::max(highest, list.back());
                                      })
                    .ok());
        if (segments[s].values > 0) {
          CHECK(segments[s].lowest == lowest);
          CHECK(segments[s].highest == highest);
        }
      }
      first = last;
    }
    CHECK(expected_vertex == vertices);
    CHECK(spill.bytes_read() >= spill.bytes());
  }
}

TEST_CASE("list spill: a truncated, overlong or padded segment is refused, not read past its end") {
  sgtest::TempDir dir;
  sg::ListSpill spill;
  REQUIRE(spill.create(dir / "spill").ok());
  const std::vector<uint64_t> values{3, 5, 900, 1, 2};
  const std::vector<uint64_t> start{0, 3, 3, 5};
  REQUIRE(spill.append(0, 3, start.data(), values.data()).ok());
  REQUIRE(spill.finish().ok());
  REQUIRE(spill.segments().size() == 1);
  const sg::ListSpill::Segment segment = spill.segments()[0];
  sg::AlignedBuffer buffer;
  const uint8_t* at = nullptr;
  REQUIRE(spill.read(0, 1, &buffer, &at).ok());
  std::vector<uint8_t> bytes(at, at + segment.bytes);
  std::vector<uint64_t> list;
  auto decode = [&](const sg::ListSpill::Segment& s, const std::vector<uint8_t>& b) {
    return sg::ListSpill::decode(s, b.data(), &list, [](uint32_t, std::span<const uint64_t>) {});
  };
  CHECK(decode(segment, bytes).ok());
  for (uint64_t cut = 0; cut < segment.bytes; ++cut) {  // every truncation
    sg::ListSpill::Segment shorter = segment;
    shorter.bytes = cut;
    const std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(cut));
    CHECK(decode(shorter, prefix).code() == sg::Status::Code::kCorruption);
  }
  sg::ListSpill::Segment longer = segment;
  longer.bytes += 1;
  std::vector<uint8_t> padded = bytes;
  padded.push_back(0);
  CHECK(decode(longer, padded).code() == sg::Status::Code::kCorruption);  // bytes left over
  std::vector<uint8_t> huge_count = bytes;
  huge_count[0] = 0x7f;  // a first list longer than the segment
  CHECK(decode(segment, huge_count).code() == sg::Status::Code::kCorruption);
}
