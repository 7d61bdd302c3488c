// Varint and adjacency codec: round trips, edge cases, and malformed input.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <vector>

#include "compression/adjacency_codec.h"
#include "compression/bits.h"
#include "compression/varint.h"
#include "test_util.h"

using namespace sg;

TEST_CASE("varint round trip at every length boundary") {
  std::vector<uint64_t> values = {0, 1, 127, 128, 16383, 16384, UINT32_MAX, UINT64_MAX};
  for (int shift = 0; shift < 64; ++shift) {
    values.push_back(uint64_t{1} << shift);
    values.push_back((uint64_t{1} << shift) - 1);
  }
  for (uint64_t v : values) {
    uint8_t buf[kMaxVarint64Bytes];
    uint8_t* end = put_varint64(buf, v);
    CHECK(end - buf == varint_length(v));
    uint64_t back = 0;
    CHECK(get_varint64(buf, end, &back) == end);
    CHECK(back == v);
    for (uint8_t* cut = buf; cut < end; ++cut) CHECK(get_varint64(buf, cut, &back) == nullptr);
  }
}

TEST_CASE("varint rejects overlong and non-minimal encodings") {
  uint64_t v = 0;
  const uint8_t eleven[11] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  CHECK(get_varint64(eleven, eleven + 11, &v) == nullptr);
  const uint8_t too_big[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
  CHECK(get_varint64(too_big, too_big + 10, &v) == nullptr);
  const uint8_t padded[2] = {0x81, 0x00};
  CHECK(get_varint64(padded, padded + 2, &v) == nullptr);
  uint32_t v32 = 0;
  const uint8_t over32[5] = {0xff, 0xff, 0xff, 0xff, 0x10};
  CHECK(get_varint32(over32, over32 + 5, &v32) == nullptr);
  const uint8_t max32[5] = {0xff, 0xff, 0xff, 0xff, 0x0f};
  CHECK(get_varint32(max32, max32 + 5, &v32) == max32 + 5);
  CHECK(v32 == UINT32_MAX);
}

TEST_CASE("zigzag maps signed values both ways") {
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{1}, int64_t{-4294967295LL}, int64_t{4294967295LL}, INT64_MIN, INT64_MAX}) {
    CHECK(zigzag_decode(zigzag_encode(v)) == v);
  }
  CHECK(zigzag_encode(-1) == 1);
  CHECK(zigzag_encode(1) == 2);
}

namespace {

void check_round_trip(uint32_t vertex, const std::vector<uint32_t>& list, uint32_t num_vertices) {
  std::vector<uint8_t> bytes;
  encode_list(vertex, list, &bytes);
  const uint8_t* p = bytes.data();
  std::vector<uint32_t> back;
  Status s = decode_list(&p, bytes.data() + bytes.size(), vertex, num_vertices, UINT32_MAX, &back);
  REQUIRE_MESSAGE(s.ok(), s.ToString());
  CHECK(p == bytes.data() + bytes.size());
  CHECK(back == list);
  // Every proper prefix is an error, never a read past the end.
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<long>(cut));
    const uint8_t* q = prefix.data();
    CHECK_FALSE(decode_list(&q, prefix.data() + prefix.size(), vertex, num_vertices, UINT32_MAX, &back).ok());
  }
}

}  // namespace

TEST_CASE("adjacency lists round trip: edge cases") {
  const uint32_t max_id = UINT32_MAX - 1;
  check_round_trip(0, {}, 10);
  check_round_trip(5, {5}, 10);
  check_round_trip(9, {0}, 10);
  check_round_trip(0, {9}, 10);
  check_round_trip(3, {1, 1, 1, 2, 2, 9}, 10);  // duplicates
  check_round_trip(0, {max_id}, UINT32_MAX);
  check_round_trip(max_id, {0, max_id}, UINT32_MAX);
  std::vector<uint32_t> powers;
  for (int b = 0; b < 32; ++b) {
    for (int64_t d : {-1, 0, 1}) {
      const int64_t v = (int64_t{1} << b) + d;
      if (v >= 0 && v <= max_id) powers.push_back(static_cast<uint32_t>(v));
    }
  }
  std::sort(powers.begin(), powers.end());
  check_round_trip(1u << 20, powers, UINT32_MAX);
}

TEST_CASE("adjacency lists round trip: random lists") {
  uint64_t state = 42;
  for (int trial = 0; trial < 300; ++trial) {
    const uint32_t n = 1 + static_cast<uint32_t>(sgtest::next_random(&state) % (trial % 3 == 0 ? 1000000 : 5000));
    const uint32_t length = static_cast<uint32_t>(sgtest::next_random(&state) % 200);
    std::vector<uint32_t> list(length);
    for (auto& x : list) x = static_cast<uint32_t>(sgtest::next_random(&state) % n);
    std::sort(list.begin(), list.end());
    check_round_trip(static_cast<uint32_t>(sgtest::next_random(&state) % n), list, n);
  }
}

TEST_CASE("adjacency decoder rejects ids beyond |V| and random garbage safely") {
  std::vector<uint8_t> bytes;
  encode_list(0, std::vector<uint32_t>{3, 7}, &bytes);
  const uint8_t* p = bytes.data();
  std::vector<uint32_t> out;
  CHECK_FALSE(decode_list(&p, bytes.data() + bytes.size(), 0, 7, UINT32_MAX, &out).ok());  // 7 >= |V|
  p = bytes.data();
  CHECK_FALSE(decode_list(&p, bytes.data() + bytes.size(), 0, 100, 1, &out).ok());  // count above limit
  uint64_t state = 7;
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<uint8_t> garbage(sgtest::next_random(&state) % 24);
    for (auto& b : garbage) b = static_cast<uint8_t>(sgtest::next_random(&state));
    const uint8_t* q = garbage.data();
    Status s = decode_list(&q, garbage.data() + garbage.size(), 5, 1000, UINT32_MAX, &out);
    if (s.ok()) {
      CHECK(q <= garbage.data() + garbage.size());
      for (uint32_t x : out) CHECK(x < 1000);
      CHECK(std::is_sorted(out.begin(), out.end()));
    }
  }
}

TEST_CASE("bit counts match std::popcount") {
  uint64_t state = 5;
  for (int i = 0; i < 10000; ++i) {
    const uint64_t x = sgtest::next_random(&state) ^ (i % 2 ? 0 : sgtest::next_random(&state) << 7);
    CHECK(sg::count_bits(x) == static_cast<uint32_t>(std::popcount(x)));
    CHECK(sg::count_varint_ends(x) == static_cast<uint32_t>(std::popcount(~x & 0x8080808080808080ULL)));
  }
  CHECK(sg::count_bits(0) == 0);
  CHECK(sg::count_bits(~uint64_t{0}) == 64);
  CHECK(sg::count_varint_ends(0) == 8);
}
