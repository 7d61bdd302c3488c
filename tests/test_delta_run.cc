// Delta runs (shards/format/delta_run.h): random runs read back exactly, a
// key's block is found by the index, and every damaged byte, every
// truncation and every out-of-order arc is refused.
#include <doctest/doctest.h>

#include <algorithm>

#include "shards/format/delta_run.h"
#include "test_util.h"

using namespace sg;

namespace {

std::vector<DeltaArc> random_arcs(uint64_t seed, size_t count, uint32_t vertices, bool weighted) {
  std::vector<DeltaArc> arcs(count);
  for (DeltaArc& a : arcs) {
    a.key = static_cast<uint32_t>(sgtest::next_random(&seed) % vertices);
    a.neighbour = static_cast<uint32_t>(sgtest::next_random(&seed) % vertices);
    a.removed = sgtest::next_random(&seed) % 4 == 0;
    a.weight = weighted && !a.removed ? static_cast<float>(sgtest::next_random(&seed) % 100) / 4 : 1.0f;
  }
  std::stable_sort(arcs.begin(), arcs.end(), delta_before);
  return arcs;
}

std::string write_run(const std::vector<DeltaArc>& arcs, bool weighted, uint32_t block_bytes) {
  DeltaRunWriter writer(weighted, block_bytes);
  for (const DeltaArc& a : arcs) REQUIRE(writer.add(a).ok());
  std::string run;
  REQUIRE(writer.finish(&run).ok());
  return run;
}

// Opens and decodes the whole run; the first error, if any.
Status read_run(const std::string& run, bool weighted, uint32_t vertices, std::vector<DeltaArc>* arcs) {
  DeltaRunReader reader;
  const auto* begin = reinterpret_cast<const uint8_t*>(run.data());
  SG_RETURN_IF_ERROR(reader.open(begin, begin + run.size(), weighted, vertices));
  for (size_t b = 0; b < reader.blocks(); ++b) SG_RETURN_IF_ERROR(reader.decode_block(b, arcs));
  return Status::OK();
}

bool same(const DeltaArc& a, const DeltaArc& b) {
  return a.key == b.key && a.neighbour == b.neighbour && a.removed == b.removed && a.weight == b.weight;
}

}  // namespace

TEST_CASE("delta runs read back exactly, and a key's arcs start in the block the index names") {
  for (const bool weighted : {false, true}) {
    for (const uint32_t block_bytes : {16u, 100u, kDefaultDeltaBlockBytes}) {
      CAPTURE(weighted);
      CAPTURE(block_bytes);
      const std::vector<DeltaArc> arcs = random_arcs(block_bytes + weighted, 3000, 500, weighted);
      const std::string run = write_run(arcs, weighted, block_bytes);
      std::vector<DeltaArc> back;
      REQUIRE(read_run(run, weighted, 500, &back).ok());
      REQUIRE(back.size() == arcs.size());
      CHECK(std::equal(arcs.begin(), arcs.end(), back.begin(), same));
      DeltaRunReader reader;
      const auto* begin = reinterpret_cast<const uint8_t*>(run.data());
      REQUIRE(reader.open(begin, begin + run.size(), weighted, 500).ok());
      CHECK(reader.records() == arcs.size());
      for (const DeltaArc& a : arcs) {
        const size_t b = reader.find_block(a.key);
        REQUIRE(b < reader.blocks());
        CHECK(reader.block(b).first_key <= a.key);
        CHECK((b == 0 || reader.block(b - 1).last_key < a.key || reader.block(b - 1).last_key == a.key));
      }
      CHECK(reader.find_block(500) == reader.blocks());
    }
  }
  std::vector<DeltaArc> none;
  CHECK(read_run(write_run({}, false, 64), false, 1, &none).ok());
  CHECK(none.empty());
}

TEST_CASE("a damaged or truncated delta run is refused") {
  const std::vector<DeltaArc> arcs = random_arcs(9, 120, 40, true);
  const std::string run = write_run(arcs, true, 64);
  std::vector<DeltaArc> back;
  for (size_t at = 0; at < run.size(); ++at) {
    for (const uint8_t flip : {0x01, 0x80}) {
      std::string bad = run;
      bad[at] = static_cast<char>(bad[at] ^ flip);
      back.clear();
      const Status s = read_run(bad, true, 40, &back);
      CAPTURE(at);
      CHECK(s.code() == Status::Code::kCorruption);
    }
  }
  for (size_t bytes = 0; bytes < run.size(); ++bytes) {
    back.clear();
    CHECK(read_run(run.substr(0, bytes), true, 40, &back).code() == Status::Code::kCorruption);
  }
  back.clear();
  CHECK(read_run(run, true, 39, &back).code() == Status::Code::kCorruption);  // ids beyond a smaller |V|
}

TEST_CASE("a delta run writer refuses arcs out of order") {
  DeltaRunWriter writer(false, 64);
  REQUIRE(writer.add({3, 5, 1.0f, false}).ok());
  CHECK(writer.add({3, 5, 1.0f, false}).ok());  // a duplicate add: a multigraph keeps both
  CHECK(writer.add({3, 5, 1.0f, true}).code() == Status::Code::kInvalidArgument);  // a removal after an add
  CHECK(writer.add({3, 4, 1.0f, false}).code() == Status::Code::kInvalidArgument);
  CHECK(writer.add({2, 9, 1.0f, false}).code() == Status::Code::kInvalidArgument);
  CHECK(writer.add({4, 0, 1.0f, true}).ok());
}
